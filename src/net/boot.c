#include "net/boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/defaults.h"
#include "grove/error.h"
#include "net/protover.h"

/* The first line, "grove-bootstrap protocol N", is the one part of the
 * bootstrap no version may change: a child reads it before anything else
 * and refuses a parent of another protocol by its number. */
#define BOOT_MAGIC "grove-bootstrap"
#define BOOT_MAX_BYTES (64u << 20)

void
boot_init(boot *b)
{
	memset(b, 0, sizeof *b);
	b->timeout_ms = GROVE_DEFAULT_TIMEOUT_MS;
	b->heartbeat_ms = GROVE_DEFAULT_HEARTBEAT_MS;
	b->reparent_ms = -1;
	b->parent_rfd = b->parent_wfd = -1;
	b->tsc_invariant = -1;
	snprintf(b->bind_addr, sizeof b->bind_addr, "127.0.0.1");
	snprintf(b->rsh, sizeof b->rsh, "ssh");
}

void
boot_fini(boot *b)
{
	for (int i = 0; i < b->be_argc; i++)
		free(b->be_argv[i]);
	b->be_argc = 0;
	free(b->topology);
	b->topology = NULL;
	free(b->clusters);
	b->clusters = NULL;
}

int
boot_write(const boot *b, int with_topology, char **out, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return GROVE_ENOMEM;
	fprintf(f, "%s protocol %u\nsecret %s\nnetid %s\nparent %s %u\nnode %u\n"
	    "rank %u\nbackends %u\nparent-node %u\n", BOOT_MAGIC,
	    GROVE_PROTOCOL, b->secret_hex, b->netid, b->parent_host,
	    b->parent_port, b->node, b->rank, b->backends, b->parent_node);
	fprintf(f, "attach %d\ntimeout %d\nheartbeat %d\nreparent %d\nbind %s\n"
	    "log %d\n", b->attach, b->timeout_ms, b->heartbeat_ms,
	    b->reparent_ms, b->bind_addr, b->log_level);
	if (b->parent_unix[0])
		fprintf(f, "parent-unix %s\n", b->parent_unix);
	if (b->parent_rfd >= 0)
		fprintf(f, "parent-fds %d %d\n", b->parent_rfd, b->parent_wfd);
	fprintf(f, "local-link %s\n", b->local_link_socket ? "socket" : "pipe");
	if (b->cp_sched_batch)
		fprintf(f, "cp-sched batch\n");
	if (b->cpu_bind_subtree)
		fprintf(f, "cpu-bind subtree\n");
	if (b->tsc_invariant == 0 || b->tsc_invariant == 1)
		fprintf(f, "tsc-invariant %d\n", b->tsc_invariant);
	if (b->trace_keep)
		fprintf(f, "trace-keep 1\n");
	fprintf(f, "rsh %s\ncommnode %s\nbe-exe %s\n", b->rsh, b->commnode,
	    b->be_exe);
	for (int i = 0; i < b->be_argc; i++)
		fprintf(f, "be-arg %s\n", b->be_argv[i]);
	if (with_topology && b->topology)
		fprintf(f, "topology %zu\n%s", strlen(b->topology), b->topology);
	if (b->clusters)
		fprintf(f, "clusters %zu\n%s", strlen(b->clusters), b->clusters);
	fprintf(f, "end\n");
	if (fclose(f) != 0) {
		free(buf);
		return GROVE_ENOMEM;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* A value that is one of two words: 0 for no, 1 for yes into *out. */
static int
choice(const char *val, const char *no, const char *yes, int *out)
{
	if (strcmp(val, no) && strcmp(val, yes))
		return GROVE_EINVAL;
	*out = !strcmp(val, yes);
	return 0;
}

/* The protocol of a first line "grove-bootstrap protocol N"; a Grove
 * from before the number wrote "grove-bootstrap 1".  0: not a Grove
 * bootstrap. */
static uint32_t
first_line_protocol(const char *key, const char *val)
{
	char *e = NULL;
	if (strcmp(key, BOOT_MAGIC))
		return 0;
	if (!strcmp(val, "1"))
		return GROVE_PROTOCOL_FIRST;
	if (strncmp(val, "protocol ", 9) || val[9] < '1' || val[9] > '9')
		return 0;
	unsigned long v = strtoul(val + 9, &e, 10);
	return *e || v > UINT32_MAX ? 0 : (uint32_t)v;
}

static int
copy_str(char *dst, size_t cap, const char *src)
{
	size_t l = strlen(src);
	if (l >= cap)
		return GROVE_ERANGE;
	memcpy(dst, src, l + 1);
	return 0;
}

int
boot_parse(const char *text, size_t len, boot *b, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	int lineno = 0, saw_end = 0;
	char line[2048];
	while (p < end && !saw_end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		if (ll >= sizeof line) {
			snprintf(err, errlen, "bootstrap line %d: too long", lineno);
			return GROVE_EPROTO;
		}
		memcpy(line, p, ll);
		line[ll] = 0;
		p += ll + (nl ? 1 : 0);
		char *val = strchr(line, ' ');
		if (val)
			*val++ = 0;
		else
			val = line + ll;
		int rc = 0;
		if (lineno == 1) {
			b->protocol = first_line_protocol(line, val);
			if (!b->protocol) {
				snprintf(err, errlen, "bootstrap line 1: not a Grove "
				    "bootstrap (was this program started by Grove?)");
				return GROVE_ENOENT;
			}
			/* Before any other line: the rest may mean something
			 * else in the parent's protocol. */
			if (b->protocol != GROVE_PROTOCOL) {
				protover_mismatch(err, errlen, "the parent",
				    b->protocol);
				return GROVE_EPROTO;
			}
		} else if (!strcmp(line, "secret")) {
			rc = copy_str(b->secret_hex, sizeof b->secret_hex, val);
		} else if (!strcmp(line, "netid")) {
			rc = copy_str(b->netid, sizeof b->netid, val);
		} else if (!strcmp(line, "parent")) {
			unsigned port = 0;
			char host[256];
			if (sscanf(val, "%255s %u", host, &port) != 2 || port > 65535)
				rc = GROVE_EINVAL;
			else {
				rc = copy_str(b->parent_host, sizeof b->parent_host, host);
				b->parent_port = (uint16_t)port;
			}
		} else if (!strcmp(line, "node")) {
			b->node = (uint32_t)strtoul(val, NULL, 10);
		} else if (!strcmp(line, "rank")) {
			b->rank = (uint32_t)strtoul(val, NULL, 10);
		} else if (!strcmp(line, "parent-unix")) {
			rc = copy_str(b->parent_unix, sizeof b->parent_unix, val);
		} else if (!strcmp(line, "parent-fds")) {
			/* Inherited descriptors: never stdin/out/err. */
			int r, w, used = 0;
			if (sscanf(val, "%d %d%n", &r, &w, &used) != 2 ||
			    val[used] || r < 3 || w < 3 || r == w)
				rc = GROVE_EINVAL;
			else {
				b->parent_rfd = r;
				b->parent_wfd = w;
			}
		} else if (!strcmp(line, "cp-sched")) {
			rc = choice(val, "other", "batch", &b->cp_sched_batch);
		} else if (!strcmp(line, "cpu-bind")) {
			rc = choice(val, "none", "subtree", &b->cpu_bind_subtree);
		} else if (!strcmp(line, "tsc-invariant")) {
			rc = choice(val, "0", "1", &b->tsc_invariant);
		} else if (!strcmp(line, "trace-keep")) {
			rc = choice(val, "0", "1", &b->trace_keep);
		} else if (!strcmp(line, "local-link")) {
			rc = choice(val, "pipe", "socket", &b->local_link_socket);
		} else if (!strcmp(line, "parent-node")) {
			b->parent_node = (uint32_t)strtoul(val, NULL, 10);
		} else if (!strcmp(line, "backends")) {
			b->backends = (uint32_t)strtoul(val, NULL, 10);
		} else if (!strcmp(line, "attach")) {
			b->attach = atoi(val);
		} else if (!strcmp(line, "timeout")) {
			b->timeout_ms = atoi(val);
		} else if (!strcmp(line, "heartbeat")) {
			b->heartbeat_ms = atoi(val);
		} else if (!strcmp(line, "reparent")) {
			b->reparent_ms = atoi(val);
		} else if (!strcmp(line, "log")) {
			b->log_level = atoi(val);
		} else if (!strcmp(line, "bind")) {
			rc = copy_str(b->bind_addr, sizeof b->bind_addr, val);
		} else if (!strcmp(line, "rsh")) {
			rc = copy_str(b->rsh, sizeof b->rsh, val);
		} else if (!strcmp(line, "commnode")) {
			rc = copy_str(b->commnode, sizeof b->commnode, val);
		} else if (!strcmp(line, "be-exe")) {
			rc = copy_str(b->be_exe, sizeof b->be_exe, val);
		} else if (!strcmp(line, "be-arg")) {
			if (b->be_argc >= BOOT_MAX_ARGS)
				rc = GROVE_ERANGE;
			else if (!(b->be_argv[b->be_argc++] = strdup(val)))
				rc = GROVE_ENOMEM;
		} else if (!strcmp(line, "topology") || !strcmp(line, "clusters")) {
			char **dst = line[0] == 't' ? &b->topology : &b->clusters;
			char *e = NULL;
			unsigned long tl = strtoul(val, &e, 10);
			if (!*val || *e || tl > (size_t)(end - p)) {
				snprintf(err, errlen, "bootstrap line %d: %s "
				    "block length %s exceeds the data", lineno, line,
				    val);
				return GROVE_EPROTO;
			}
			free(*dst);
			if (!(*dst = malloc(tl + 1)))
				return GROVE_ENOMEM;
			memcpy(*dst, p, tl);
			(*dst)[tl] = 0;
			p += tl;
		} else if (!strcmp(line, "end")) {
			saw_end = 1;
		} else {
			snprintf(err, errlen, "bootstrap line %d: unknown key '%s'",
			    lineno, line);
			return GROVE_EPROTO;
		}
		if (rc != 0) {
			snprintf(err, errlen, "bootstrap line %d: bad value for '%s'",
			    lineno, line);
			return GROVE_EPROTO;
		}
	}
	if (!saw_end) {
		snprintf(err, errlen, "bootstrap: truncated (no 'end' line)");
		return GROVE_EPROTO;
	}
	if (!b->secret_hex[0] || !b->parent_host[0]) {
		snprintf(err, errlen, "bootstrap: missing secret or parent");
		return GROVE_EPROTO;
	}
	return 0;
}

int
boot_read_fd(int fd, boot *b, char *err, size_t errlen)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return GROVE_ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= BOOT_MAX_BYTES) {
				free(buf);
				snprintf(err, errlen, "bootstrap: larger than %u bytes",
				    BOOT_MAX_BYTES);
				return GROVE_EPROTO;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return GROVE_ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			snprintf(err, errlen, "bootstrap: read: %s", strerror(errno));
			return GROVE_ESYS;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	int rc = n ? boot_parse(buf, n, b, err, errlen) : GROVE_ENOENT;
	if (!n)
		snprintf(err, errlen, "no bootstrap on standard input (was this "
		    "program started by Grove?)");
	free(buf);
	return rc;
}
