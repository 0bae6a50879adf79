/* An event scope through the tree, the monitor's side (see
 * tree_scope.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "net/sockio.h"
#include "say.h"
#include "tree_scope.h"

/* The front-end answers inside its tool's Grove calls: a busy tool
 * answers late, not never. */
#define ANSWER_SLACK_MS 5000

/* One line (without its '\n') into line; 0 or -1. */
static int
read_line(int fd, char *line, size_t cap, int timeout_ms)
{
	size_t n = 0;
	while (n + 1 < cap) {
		char ch;
		int r = sockio_read_some(fd, &ch, 1, timeout_ms);
		if (r <= 0)
			return -1;
		if (ch == '\n') {
			line[n] = '\0';
			return 0;
		}
		line[n++] = ch;
	}
	return -1;
}

static int
read_all(int fd, uint8_t *p, size_t len, int timeout_ms)
{
	for (size_t got = 0; got < len;) {
		int r = sockio_read_some(fd, p + got, len - got, timeout_ms);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int
tree_scope_attach(struct tree_scope *t, const char *net, int kind,
                  int readers, const struct scope_select *sel, char *err,
                  size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->fd = -1;
	t->kind = kind;
	if (strlen(net) >= sizeof t->net)
		return say(err, errlen, "network id too long");
	snprintf(t->net, sizeof t->net, "%s", net);
	char name[128], why[256], line[512];
	snprintf(name, sizeof name, "grove.%s.ctl", net);
	int fd = sockio_connect_unix(name, 2000, why, sizeof why);
	if (fd < 0)
		return say(err, errlen, "network %s has no running front-end "
		           "to attach to (%s)", net, why);
	/* An abstract socket's name is anyone's to take: only a front-end
	 * of this user (or root) is asked, as it serves only such clients. */
	struct ucred cr;
	socklen_t crlen = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) != 0 ||
	    (cr.uid != geteuid() && cr.uid != 0)) {
		close(fd);
		return say(err, errlen, "the control socket of network %s "
		           "(@%s) is not held by this user (uid %u) or root",
		           net, name, (unsigned)geteuid());
	}
	t->fd = fd;
	const char *layer = sel && sel->layer ? sel->layer : "-";
	const char *cname = sel && sel->name ? sel->name : "-";
	if (strchr(layer, ' ') || strchr(cname, ' ') || strchr(layer, '\n') ||
	    strchr(cname, '\n') || !*layer || !*cname) {
		tree_scope_detach(t);
		return say(err, errlen, "--layer and --name cannot be empty or "
		           "hold blanks");
	}
	int n = snprintf(line, sizeof line, "scope %s %s %d %s %s %d\n",
	                 kind == MON_SHARE_RAW ? "raw" : "analysis",
	                 readers == SCOPE_READERS_NODE ? "node" : "host",
	                 sel ? sel->op : -1, layer, cname,
	                 sel ? sel->last_only : 0);
	if (n < 0 || (size_t)n >= sizeof line ||
	    sockio_write_all(fd, line, (size_t)n, 2000) < 0 ||
	    read_line(fd, line, sizeof line, 2000 + ANSWER_SLACK_MS) < 0) {
		tree_scope_detach(t);
		return say(err, errlen, "the front-end of network %s did not "
		           "answer (it serves requests only inside its Grove "
		           "calls)", net);
	}
	char extra;
	if (sscanf(line, "ok %u %u %u %c", &t->id, &t->nodes, &t->readers,
	           &extra) != 3) {
		tree_scope_detach(t);
		return say(err, errlen, "front-end of network %s: %s", net,
		           line);
	}
	if (kind == MON_SHARE_RAW) {
		struct mon_analysis_opts ao = {.timeline_keep = 16};
		if (!(t->a = mon_analysis_new(&ao))) {
			tree_scope_detach(t);
			return say(err, errlen, "out of memory");
		}
	}
	return 0;
}

int
tree_scope_pull(struct tree_scope *t, int timeout_ms, char *err,
                size_t errlen)
{
	char line[512];
	int n = snprintf(line, sizeof line, "pull %d\n", timeout_ms);
	if (sockio_write_all(t->fd, line, (size_t)n, 2000) < 0 ||
	    read_line(t->fd, line, sizeof line,
	              timeout_ms + ANSWER_SLACK_MS) < 0)
		return say(err, errlen, "the front-end of network %s did not "
		           "answer the pull (gone, or no Grove call for %d ms)",
		           t->net, timeout_ms + ANSWER_SLACK_MS);
	unsigned long long len;
	unsigned answered, asked;
	int off = 0;
	if (sscanf(line, "share %llu %u %u %n", &len, &answered, &asked,
	           &off) != 3 || !off)
		return say(err, errlen, "front-end of network %s: %s", t->net,
		           line);
	if (len > (1ull << 31))
		return say(err, errlen, "front-end of network %s: a share of "
		           "%llu bytes", t->net, len);
	uint8_t *p = malloc(len ? (size_t)len : 1);
	if (!p)
		return say(err, errlen, "out of memory for a share of %llu "
		           "bytes", len);
	if (read_all(t->fd, p, (size_t)len, timeout_ms + ANSWER_SLACK_MS)) {
		free(p);
		return say(err, errlen, "the share from network %s was cut "
		           "short", t->net);
	}
	t->bytes += len;
	struct mon_share_counts c = {0};
	struct mon_analysis *a = t->a;
	if (t->kind == MON_SHARE_ANALYSIS) {
		struct mon_analysis_opts ao = {.timeline_keep = 16};
		if (!(a = mon_analysis_new(&ao))) {
			free(p);
			return say(err, errlen, "out of memory");
		}
	}
	int kind = 0;
	char why[300];
	int rc = mon_share_decode(p, (size_t)len, &c, &kind, a, NULL, why,
	                          sizeof why);
	free(p);
	if (!rc && kind != t->kind) {
		rc = GROVE_EFORMAT;
		snprintf(why, sizeof why, "a share of another kind");
	}
	if (rc) {
		if (a != t->a)
			mon_analysis_free(a);
		return say(err, errlen, "network %s: %s", t->net, why);
	}
	if (a != t->a) {
		mon_analysis_free(t->a);
		t->a = a;
	}
	t->c = c;
	t->answered = answered;
	t->asked = asked;
	snprintf(t->note, sizeof t->note, "%s",
	         strcmp(line + off, "-") ? line + off : "");
	return 0;
}

uint32_t
tree_scope_unread(const struct tree_scope *t)
{
	if (!t->a)
		return t->nodes;
	uint8_t *seen = calloc(t->nodes ? t->nodes : 1, 1);
	if (!seen)
		return 0;
	uint32_t read = 0;
	for (uint32_t i = 0; i < t->a->pm.n; i++) {
		int64_t node = t->a->pm.p[i].node;
		if (node >= 0 && (uint64_t)node < t->nodes && !seen[node]) {
			seen[node] = 1;
			read++;
		}
	}
	free(seen);
	return t->nodes - read;
}

void
tree_scope_detach(struct tree_scope *t)
{
	if (t->fd >= 0) {
		static const char bye[] = "detach\n";
		(void)sockio_write_all(t->fd, bye, sizeof bye - 1, 1000);
		close(t->fd);
	}
	t->fd = -1;
	mon_analysis_free(t->a);
	t->a = NULL;
}
