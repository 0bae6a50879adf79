/* The node manager's state: the job segment, the ranks, completions and
 * wake-ups, and the microphase dispatcher. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpi/ring.h"
#include "nm_impl.h"

/* The bounce buffer CMA copies go through: large enough to amortize the
 * two system calls of a chunk, small enough to stay in the cache. */
#define NM_BOUNCE_BYTES (256u * 1024u)

void
nm_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("grove-bcs-node: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int
nm_open(struct nm **out, int job_fd, const struct nm_opts *o, char *err,
        size_t errlen)
{
	*out = NULL;
	struct nm *nm = calloc(1, sizeof(*nm));
	if (!nm) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nm->o = *o;
	nm->xfers_tail = &nm->xfers;
	if (mpi_job_attach(&nm->job, job_fd, err, errlen) != 0) {
		free(nm);
		return -1;
	}
	if (nm->job.hdr->bcs_ring_bytes == 0) {
		snprintf(err, errlen, "the job segment (descriptor %d) has no BCS "
		         "area: the job was not started with grove run --bcs",
		         job_fd);
		goto fail;
	}
	nm->n = (int)nm->job.hdr->nranks;
	nm->r = calloc((size_t)nm->n, sizeof(*nm->r));
	nm->bounce_bytes = NM_BOUNCE_BYTES;
	nm->bounce = malloc(nm->bounce_bytes);
	if (!nm->r || !nm->bounce) {
		snprintf(err, errlen, "out of memory for %d ranks", nm->n);
		goto fail;
	}
	for (int i = 0; i < nm->n; i++) {
		struct nm_rank *r = &nm->r[i];
		r->to_nm = mpi_job_bcs_to_nm(&nm->job, (uint32_t)i);
		r->from_nm = mpi_job_bcs_from_nm(&nm->job, (uint32_t)i);
		r->unexpected.tail = &r->unexpected.head;
		r->posted.tail = &r->posted.head;
	}
	if (nm_record_open(nm, err, errlen) != 0)
		goto fail;
	/* Ranks wait for this in MPI_Init: from here on their descriptors
	 * have a reader. */
	__atomic_store_n(&nm->job.hdr->bcs_nm_pid, (int32_t)getpid(),
	                 __ATOMIC_RELEASE);
	*out = nm;
	return 0;
fail:
	nm_close(nm);
	return -1;
}

static void
free_msgs(struct nm_msg *m)
{
	while (m) {
		struct nm_msg *next = m->next;
		free(m);
		m = next;
	}
}

void
nm_close(struct nm *nm)
{
	if (!nm)
		return;
	nm_record_close(nm);
	for (int i = 0; nm->r && i < nm->n; i++) {
		struct nm_rank *r = &nm->r[i];
		free(r->fresh);
		free(r->overflow);
		free_msgs(r->unexpected.head);
		free_msgs(r->taken);
		for (struct nm_rq *q = r->posted.head, *nx; q; q = nx) {
			nx = q->next;
			free(q);
		}
		for (struct nm_probe *p = r->probes, *nx; p; p = nx) {
			nx = p->next;
			free(p);
		}
	}
	for (struct nm_xfer *x = nm->xfers, *nx; x; x = nx) {
		nx = x->next;
		free(x->msg);
		free(x);
	}
	for (struct nm_coll *c = nm->colls, *nx; c; c = nx) {
		nx = c->next;
		free(c->d);
		free(c->world);
		free(c);
	}
	free(nm->r);
	free(nm->bounce);
	mpi_job_close(&nm->job);
	free(nm);
}

/* Puts one completion into rank r's ring: false when it is full. */
static bool
publish(struct nm *nm, struct nm_rank *r, const struct bcs_done *dn)
{
	uint32_t cap = nm->job.hdr->bcs_ring_bytes;
	uint32_t rec = mpi_wire_rec_bytes(sizeof(*dn));
	struct mpi_wire *w = mpi_ring_reserve(r->from_nm, cap, rec,
	                                      &r->head_cache);
	if (!w)
		return false;
	w->type = MPI_W_BCS;
	memcpy((char *)w + MPI_WIRE_HDR, dn, sizeof(*dn));
	mpi_ring_commit(r->from_nm, cap, w);
	r->wake = true;
	return true;
}

void
nm_complete(struct nm *nm, int rank, const struct bcs_desc *d,
            const struct bcs_done *dn)
{
	struct nm_rank *r = &nm->r[rank];
	if (d && (d->flags & BCS_F_BLOCKING) && r->blocking > 0)
		r->blocking--;
	nm->progressed = true;
	/* Order matters: a later completion never overtakes one that is
	 * waiting for room. */
	if (r->nover == 0 && publish(nm, r, dn))
		return;
	if (r->nover == r->capover) {
		size_t cap = r->capover ? r->capover * 2 : 16;
		struct bcs_done *o = realloc(r->overflow, cap * sizeof(*o));
		if (!o) {
			/* Cannot keep it: the rank would wait forever, so the
			 * job ends (nm_phase reports it). */
			nm->oom = true;
			return;
		}
		r->overflow = o;
		r->capover = cap;
	}
	r->overflow[r->nover++] = *dn;
}

static void
wake_rank(struct nm *nm, int rank)
{
	/* wake.c's protocol: the ring commit was a sequentially consistent
	 * store, so the sleeping flag read here is ordered after it. */
	struct mpi_rank_ctl *c = mpi_job_ctl(&nm->job, (uint32_t)rank);
	if (__atomic_load_n(&c->sleeping, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_add(&c->wake_seq, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &c->wake_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
}

void
nm_flush(struct nm *nm)
{
	for (int i = 0; i < nm->n; i++) {
		struct nm_rank *r = &nm->r[i];
		size_t k = 0;
		while (k < r->nover && publish(nm, r, &r->overflow[k]))
			k++;
		if (k) {
			memmove(r->overflow, r->overflow + k,
			        (r->nover - k) * sizeof(*r->overflow));
			r->nover -= k;
		}
		if (r->wake) {
			r->wake = false;
			wake_rank(nm, i);
		}
	}
}

static void
count_blocked(struct nm *nm, struct nm_counts *c)
{
	uint32_t b = 0;
	for (int i = 0; i < nm->n; i++)
		if (nm->r[i].blocking > 0)
			b++;
	if (b > c->bpts)
		c->bpts = b;
}

int
nm_phase(struct nm *nm, uint64_t slice, enum nm_phase ph, bool *more,
         struct nm_counts *c, char *err, size_t errlen)
{
	int rc = 0;
	nm->slice = slice;
	switch (ph) {
	case NM_DEM:
		nm->progressed = false;
		nm_dem(nm, c);
		/* Matching has something to do only with new descriptors or
		 * a transfer going on; else the slice may end here. */
		*more = nm->xfers != NULL;
		for (int i = 0; i < nm->n && !*more; i++)
			*more = nm->r[i].nfresh > 0;
		count_blocked(nm, c);
		if (!*more)
			rc = nm_stall_check(nm, err, errlen);
		break;
	case NM_MSM:
		rc = nm_msm(nm, c, err, errlen);
		if (rc == 0)
			rc = nm_coll_schedule(nm, c);
		*more = nm->xfers != NULL || nm->coll_ready[0] ||
		        nm->coll_ready[1] || nm->coll_ready[2];
		count_blocked(nm, c);
		if (rc == 0 && !*more)
			rc = nm_stall_check(nm, err, errlen);
		break;
	case NM_P2P:
		rc = nm_p2p(nm, err, errlen);
		break;
	case NM_BBM:
	case NM_RED:
		rc = nm_coll_run(nm, ph, err, errlen);
		break;
	default:
		snprintf(err, errlen, "no microphase %d", (int)ph);
		return -1;
	}
	nm_flush(nm);
	if (rc == 0 && nm->oom) {
		snprintf(err, errlen, "out of memory keeping completions");
		rc = -1;
	}
	return rc;
}

bool
nm_done(const struct nm *nm)
{
	for (int i = 0; i < nm->n; i++) {
		int st = __atomic_load_n(&mpi_job_ctl(&nm->job, (uint32_t)i)->state,
		                         __ATOMIC_ACQUIRE);
		if (st != MPI_RANK_FINALIZED && st != MPI_RANK_ABORTED &&
		    !nm->r[i].finalized)
			return false;
	}
	return true;
}
