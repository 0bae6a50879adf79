#include "demo_hosts.h"

#include <stdlib.h>
#include <string.h>

#include "grove/error.h"

/* Hosts listed by name; back-ends on further hosts are only counted, so a
 * tree of thousands of one-back-end hosts prints a line, not a page. */
#define HOSTS_SHOWN 16

int
demo_hosts_init(demo_hosts *h, uint32_t n)
{
	h->n = n;
	h->host = calloc(n ? n : 1, sizeof *h->host);
	return h->host ? 0 : GROVE_ENOMEM;
}

void
demo_hosts_note(demo_hosts *h, uint32_t r, const char *host)
{
	if (r < h->n && !h->host[r])
		h->host[r] = strdup(host);
}

void
demo_hosts_free(demo_hosts *h)
{
	for (uint32_t r = 0; h->host && r < h->n; r++)
		free(h->host[r]);
	free(h->host);
	h->host = NULL;
}

/* One shown host: its ranks as runs "0-1,8-9". */
typedef struct shown {
	const char *name;
	char runs[160];
	uint32_t lo, last;  /* the open run */
	int open;
	int cut;            /* runs did not fit: ",..." */
} shown;

static void
run_close(shown *s)
{
	if (!s->open || s->cut)
		return;
	char one[32];
	size_t len = strlen(s->runs);
	if (s->lo == s->last)
		snprintf(one, sizeof one, "%s%u", len ? "," : "", s->lo);
	else
		snprintf(one, sizeof one, "%s%u-%u", len ? "," : "", s->lo,
		    s->last);
	if (len + strlen(one) + 5 < sizeof s->runs)
		memcpy(s->runs + len, one, strlen(one) + 1);
	else
		s->cut = 1;
	s->open = 0;
}

void
demo_hosts_print(const demo_hosts *h, FILE *f)
{
	shown s[HOSTS_SHOWN];
	size_t ns = 0;
	uint32_t elsewhere = 0, silent = 0;
	for (uint32_t r = 0; r < h->n; r++) {
		const char *name = h->host[r];
		if (!name) {
			silent++;
			continue;
		}
		size_t i = 0;
		while (i < ns && strcmp(s[i].name, name))
			i++;
		if (i == ns) {
			if (ns == HOSTS_SHOWN) {
				elsewhere++;
				continue;
			}
			memset(&s[ns], 0, sizeof s[ns]);
			s[ns++].name = name;
		}
		if (s[i].open && s[i].last + 1 == r) {
			s[i].last = r;
			continue;
		}
		run_close(&s[i]);
		s[i].open = 1;
		s[i].lo = s[i].last = r;
	}
	fprintf(f, "back-ends by host (from their info replies):");
	for (size_t i = 0; i < ns; i++) {
		run_close(&s[i]);
		fprintf(f, "%s %s rank%s %s%s", i ? "," : "", s[i].name,
		    strpbrk(s[i].runs, ",-") ? "s" : "", s[i].runs,
		    s[i].cut ? ",..." : "");
	}
	if (elsewhere)
		fprintf(f, ", %u more on other hosts", elsewhere);
	if (silent)
		fprintf(f, "%s %u without a reply", ns || elsewhere ? "," : "",
		    silent);
	fprintf(f, "\n");
}

int
demo_attach_wait(grove_net *net, const char *file, int wait_ms)
{
	uint32_t n = grove_net_backends(net);
	printf("attach mode: connection file %s written; waiting up to %d s "
	    "for %u back-ends\n(start them on their hosts: be_worker --attach "
	    "%s --rank R, R = 0..%u)\n", file, wait_ms / 1000, n, file,
	    n - 1);
	fflush(stdout);
	return grove_net_wait_backends(net, n, wait_ms);
}
