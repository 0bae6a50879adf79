/* grove monitor --serve-share (see host_serve.h).  The reader is never a
 * monitored process: it holds descriptors of the spaces and reads them
 * only when the monitor pulls, as the monitor does on its own host. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grove/error.h"
#include "host_serve.h"
#include "monitor/share_frame.h"
#include "net/sockio.h"

#define CMD "grove monitor --serve-share"

static int
admit_ranks(void *ctx, const char *role, uint32_t rank, int64_t *node)
{
	const struct host_ranks *r = ctx;
	*node = -1;
	return !strcmp(role, "mpi") && rank >= r->first &&
	       rank - r->first < r->n;
}

static int
complain(const char *fmt, const char *what)
{
	char host[256] = "?";
	gethostname(host, sizeof host - 1);
	fprintf(stderr, CMD " on %s: ", host);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	return 1;
}

/* One share of what this pull read, framed, to standard output. */
static int
answer(struct scope *s, struct mon_share_buf *raw)
{
	struct mon_share_counts c;
	uint8_t *p = NULL;
	size_t len = 0;
	if (raw)
		raw->len = 0; /* a raw share holds this pull's tuples only */
	int rc = scope_poll(s);
	if (rc)
		return complain("reading the event spaces: %s",
		                grove_strerror(rc));
	scope_counts(s, &c);
	rc = raw ? mon_share_raw_encode(&c, raw, &p, &len)
	         : mon_share_encode(&c, s->a, &p, &len);
	if (rc)
		return complain("encoding the share: %s", grove_strerror(rc));
	if (len > MON_SHARE_FRAME_MAX) {
		free(p);
		return complain("a share of more than %s bytes", "2^30");
	}
	uint8_t head[MON_SHARE_FRAME_HEAD];
	mon_share_frame_put(head, (uint32_t)len);
	rc = sockio_write_all(STDOUT_FILENO, head, sizeof head, 600000) < 0 ||
	     sockio_write_all(STDOUT_FILENO, p, len, 600000) < 0;
	free(p);
	return rc ? complain("the monitor is gone (%s)", strerror(errno)) : 0;
}

int
monitor_serve_share(const char *job, const struct scope_select *sel,
                    int raw, struct host_ranks r)
{
	struct mon_analysis_opts ao = {.timeline_keep = 16};
	struct mon_analysis *a = mon_analysis_new(&ao);
	struct mon_share_buf blocks = {0};
	struct scope s;
	if (!a || scope_init(&s, job, sel, a) != 0) {
		mon_analysis_free(a);
		return complain("%s", "out of memory");
	}
	s.admit = admit_ranks;
	s.admit_ctx = &r;
	if (raw)
		s.raw = &blocks;
	int rc = 0;
	char line[64];
	/* Lazily: nothing is read before the first pull, and the reader
	 * ends with the monitor's end of its standard input. */
	while (!rc && fgets(line, sizeof line, stdin)) {
		if (strcmp(line, "pull\n") != 0) {
			line[strcspn(line, "\n")] = '\0';
			rc = complain("the monitor sent \"%s\", not a pull", line);
			break;
		}
		rc = answer(&s, raw ? &blocks : NULL);
	}
	scope_free(&s);
	mon_share_buf_free(&blocks);
	mon_analysis_free(a);
	return rc;
}
