/* Descriptor exchange microphase (DEM): drains every rank's descriptor
 * ring into its list of fresh descriptors, in posting order.  On one host
 * the exchange is local; the matching of the next microphase sees every
 * descriptor posted before this one began. */
#include <stdlib.h>
#include <string.h>

#include "mpi/ring.h"
#include "nm_impl.h"

static bool
keep(struct nm_rank *r, const struct bcs_desc *d)
{
	if (r->nfresh == r->capfresh) {
		size_t cap = r->capfresh ? r->capfresh * 2 : 64;
		struct bcs_desc *f = realloc(r->fresh, cap * sizeof(*f));
		if (!f)
			return false;
		r->fresh = f;
		r->capfresh = cap;
	}
	r->fresh[r->nfresh++] = *d;
	return true;
}

static bool
is_p2p(int kind)
{
	return kind == BCS_D_SEND || kind == BCS_D_RECV ||
	       kind == BCS_D_PROBE || kind == BCS_D_CANCEL;
}

void
nm_dem(struct nm *nm, struct nm_counts *c)
{
	uint32_t cap = nm->job.hdr->bcs_ring_bytes;
	for (int i = 0; i < nm->n; i++) {
		struct nm_rank *r = &nm->r[i];
		r->nfresh = 0;
		struct mpi_wire *w;
		while ((w = mpi_ring_peek(r->to_nm, cap)) != NULL) {
			struct bcs_desc d;
			if (w->type != MPI_W_BCS ||
			    w->rec_bytes < MPI_WIRE_HDR + sizeof(d)) {
				/* Not a descriptor: mark it so matching reports it
				 * against this rank (kind 0 is never valid). */
				memset(&d, 0, sizeof(d));
				d.kind = 0;
				d.tag = w->type;
			} else {
				memcpy(&d, (char *)w + MPI_WIRE_HDR, sizeof(d));
			}
			/* Out of memory: leave it in the ring for the next
			 * slice. */
			if (!keep(r, &d))
				break;
			mpi_ring_release(r->to_nm, cap, w);
			nm->progressed = true;
			if (is_p2p(d.kind))
				c->np2pdem++;
			else if (d.kind >= BCS_D_BARRIER && d.kind <= BCS_D_ALLREDUCE)
				c->ncolldem++;
			if (d.flags & BCS_F_BLOCKING)
				r->blocking++;
		}
		/* A rank that found its ring full sleeps until there is room. */
		if (mpi_ring_space_wanted(r->to_nm))
			r->wake = true;
		if (r->pid == 0)
			r->pid = __atomic_load_n(&mpi_job_ctl(&nm->job, (uint32_t)i)->pid,
			                         __ATOMIC_ACQUIRE);
	}
}
