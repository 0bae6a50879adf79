/* The front-end's side of the host alignment: it writes, into its copy of
 * each shipped event space, that process's clock offset to the front-end
 * (see trace/align.h).
 *
 * Back-ends are measured directly.  CPs are not (the skew protocol
 * measures the path to every back-end), but a CP shares its host's clock
 * with the back-ends on that host: once a back-end copy of a host has
 * arrived, the host's offset is known, and CP copies of that host get it
 * then, whichever of the two arrived first. */
#include "trace/align.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grove/error.h"
#include "trace/owner.h"

struct host_off {
	char host[TRACE_HOST_LEN];
	int64_t off_ns;    /* the host's true realtime - FE's */
	uint64_t err_ns;
};

struct pending {
	char name[128];
	char host[TRACE_HOST_LEN];
};

struct trace_fe_offsets {
	grove_skew *be;    /* per BE rank */
	uint32_t n_be;
	struct host_off *hosts;
	size_t n_hosts, cap_hosts;
	struct pending *pending; /* CP copies waiting for their host */
	size_t n_pending, cap_pending;
};

struct trace_fe_offsets *
trace_fe_offsets_new(void)
{
	return calloc(1, sizeof(struct trace_fe_offsets));
}

void
trace_fe_offsets_free(struct trace_fe_offsets *o)
{
	if (!o)
		return;
	free(o->be);
	free(o->hosts);
	free(o->pending);
	free(o);
}

int
trace_fe_offsets_set(struct trace_fe_offsets *o, const grove_skew *sk,
                     uint32_t n)
{
	grove_skew *be = malloc((n ? n : 1) * sizeof *be);
	if (!be)
		return GROVE_ENOMEM;
	memcpy(be, sk, n * sizeof *be);
	free(o->be);
	o->be = be;
	o->n_be = n;
	o->n_hosts = 0;
	o->n_pending = 0;
	return 0;
}

static int
header_rw(const char *name, int *fd, struct trace_header *h)
{
	/* Only this user's segment is written (trace/owner.h). */
	*fd = shm_open(name, O_RDWR | O_NONBLOCK | O_CLOEXEC, 0);
	if (*fd < 0)
		return GROVE_ENOENT;
	struct stat st;
	if (fstat(*fd, &st) != 0 || !trace_owner_mine(&st)) {
		close(*fd);
		return GROVE_ENOENT;
	}
	if (pread(*fd, h, sizeof *h, 0) != (ssize_t)sizeof *h ||
	    h->magic != TRACE_MAGIC || h->version != TRACE_VERSION ||
	    h->header_size != TRACE_HEADER_SIZE) {
		close(*fd);
		return GROVE_EFORMAT;
	}
	h->hostname[TRACE_HOST_LEN - 1] = 0;
	h->role[TRACE_ROLE_LEN - 1] = 0;
	return 0;
}

static int
header_write(int fd, const struct trace_header *h)
{
	int rc = pwrite(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h
	         ? 0 : GROVE_ESYS;
	close(fd);
	return rc;
}

static const struct host_off *
host_find(const struct trace_fe_offsets *o, const char *host)
{
	for (size_t i = 0; i < o->n_hosts; i++)
		if (!strcmp(o->hosts[i].host, host))
			return &o->hosts[i];
	return NULL;
}

/* The tightest back-end of a host gives the host's offset. */
static int
host_learn(struct trace_fe_offsets *o, const char *host, int64_t off,
           uint64_t err)
{
	struct host_off *e = (struct host_off *)host_find(o, host);
	if (!e) {
		if (o->n_hosts == o->cap_hosts) {
			size_t cap = o->cap_hosts ? 2 * o->cap_hosts : 8;
			struct host_off *v = realloc(o->hosts, cap * sizeof *v);
			if (!v)
				return GROVE_ENOMEM;
			o->hosts = v;
			o->cap_hosts = cap;
		}
		e = &o->hosts[o->n_hosts++];
		snprintf(e->host, sizeof e->host, "%s", host);
		e->err_ns = UINT64_MAX;
	}
	if (err < e->err_ns) {
		e->off_ns = off;
		e->err_ns = err;
	}
	return 0;
}

/* A CP copy gets its host's offset, shifted by its own validation
 * offset.  GROVE_ENOENT while the host is unknown (fd left open);
 * otherwise the result of writing the header (fd closed). */
static int
cp_fill(const struct trace_fe_offsets *o, int fd, struct trace_header *h)
{
	const struct host_off *e = host_find(o, h->hostname);
	int64_t off;
	if (!e || trace_host_offset(e->off_ns, 0, h->clock_inject_ns, &off))
		return GROVE_ENOENT;
	h->fe_offset_ns = off;
	h->fe_offset_err_ns = e->err_ns;
	h->align_flags |= TRACE_ALIGN_FE_OFFSET;
	return header_write(fd, h);
}

static int
pending_add(struct trace_fe_offsets *o, const char *name, const char *host)
{
	for (size_t i = 0; i < o->n_pending; i++)
		if (!strcmp(o->pending[i].name, name))
			return 0;
	if (o->n_pending == o->cap_pending) {
		size_t cap = o->cap_pending ? 2 * o->cap_pending : 8;
		struct pending *v = realloc(o->pending, cap * sizeof *v);
		if (!v)
			return GROVE_ENOMEM;
		o->pending = v;
		o->cap_pending = cap;
	}
	struct pending *e = &o->pending[o->n_pending++];
	snprintf(e->name, sizeof e->name, "%s", name);
	snprintf(e->host, sizeof e->host, "%s", host);
	return 0;
}

/* CP copies of host that were waiting for it. */
static void
pending_settle(struct trace_fe_offsets *o, const char *host)
{
	for (size_t i = 0; i < o->n_pending;) {
		if (strcmp(o->pending[i].host, host)) {
			i++;
			continue;
		}
		struct trace_header h;
		int fd;
		/* Filled, or the copy is gone or broken: either way done. */
		if (header_rw(o->pending[i].name, &fd, &h) == 0 &&
		    cp_fill(o, fd, &h) == GROVE_ENOENT)
			close(fd);
		o->pending[i] = o->pending[--o->n_pending];
	}
}

int
trace_fe_offsets_apply(struct trace_fe_offsets *o, const char *name)
{
	struct trace_header h;
	int fd;
	int rc = header_rw(name, &fd, &h);
	if (rc != 0)
		return rc;
	/* What arrived over the network is not trusted to say it was
	 * measured: only the front-end's own findings go in. */
	h.align_flags &= ~(uint32_t)TRACE_ALIGN_FE_OFFSET;
	h.align_flags |= TRACE_ALIGN_SHIPPED;
	h.fe_offset_ns = 0;
	h.fe_offset_err_ns = 0;
	int is_be = !strcmp(h.role, "be"), is_cp = !strcmp(h.role, "cp");
	if (o && is_be && h.rank < o->n_be &&
	    o->be[h.rank].error_ns != GROVE_SKEW_UNKNOWN) {
		const grove_skew *s = &o->be[h.rank];
		int64_t host;
		h.fe_offset_ns = s->offset_ns;
		h.fe_offset_err_ns = s->error_ns;
		h.align_flags |= TRACE_ALIGN_FE_OFFSET;
		rc = header_write(fd, &h);
		if (rc == 0 &&
		    trace_host_offset(s->offset_ns, h.clock_inject_ns, 0,
		                      &host) == 0 &&
		    host_learn(o, h.hostname, host, s->error_ns) == 0)
			pending_settle(o, h.hostname);
		return rc;
	}
	if (o && is_cp && (rc = cp_fill(o, fd, &h)) != GROVE_ENOENT)
		return rc; /* written (cp_fill closed fd) */
	rc = header_write(fd, &h);
	if (rc == 0 && o && is_cp)
		rc = pending_add(o, name, h.hostname);
	return rc;
}
