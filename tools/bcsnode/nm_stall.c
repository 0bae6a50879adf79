/* A job that can never progress again.  In BCS mode only the node
 * manager completes communication, so when every rank that has not
 * finished sleeps waiting for a completion and the node manager has
 * nothing scheduled, slice after slice, nothing will ever change: a
 * deadlock of the program (or a replay whose program diverged from its
 * record).  The job ends with a report of what each rank waits for,
 * instead of hanging. */
#include <mpi.h>
#include <string.h>

#include "nm_impl.h"

static const char *
kind_name(int k)
{
	static const char *const names[] = {
		[BCS_D_SEND] = "a send", [BCS_D_RECV] = "a receive",
		[BCS_D_PROBE] = "a probe", [BCS_D_BARRIER] = "MPI_Barrier",
		[BCS_D_BCAST] = "MPI_Bcast", [BCS_D_REDUCE] = "MPI_Reduce",
		[BCS_D_ALLREDUCE] = "MPI_Allreduce",
	};
	return k > 0 && k < (int)(sizeof(names) / sizeof(names[0])) && names[k]
	       ? names[k] : "something";
}

/* What rank i waits for, at most one line's worth. */
static void
describe(struct nm *nm, int i, char *out, size_t cap)
{
	struct nm_rank *r = &nm->r[i];
	if (r->posted.head) {
		const struct bcs_desc *d = &r->posted.head->d;
		char src[16], tag[16];
		snprintf(src, sizeof src, "%d", d->peer);
		snprintf(tag, sizeof tag, "%d", d->tag);
		snprintf(out, cap, "a receive from %s tag %s", d->peer < 0 ? "any"
		         : src, d->tag < 0 ? "any" : tag);
		return;
	}
	if (r->probes) {
		snprintf(out, cap, "a probe");
		return;
	}
	for (int k = 0; k < nm->n; k++)
		for (struct nm_msg *m = nm->r[k].unexpected.head; m; m = m->next)
			if (m->src == i) {
				snprintf(out, cap, "its send to rank %d tag %d (never "
				         "received)", k, m->d.tag);
				return;
			}
	for (struct nm_coll *c = nm->colls; c; c = c->next)
		for (int m = 0; m < c->size; m++)
			if (c->world[m] == i) {
				snprintf(out, cap, "%s (%d of %d ranks in)",
				         kind_name(c->kind), c->have, c->size);
				return;
			}
	snprintf(out, cap, "a completion");
}

int
nm_stall_check(struct nm *nm, char *err, size_t errlen)
{
	int waiting = 0, live = 0;
	for (int i = 0; i < nm->n; i++) {
		struct mpi_rank_ctl *c = mpi_job_ctl(&nm->job, (uint32_t)i);
		int st = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
		if (st != MPI_RANK_RUNNING || nm->r[i].finalized)
			continue;
		live++;
		/* Asleep, with no completion left for it to read (a rank woken
		 * but not yet run is not waiting). */
		struct mpi_ring_hdr *done = nm->r[i].from_nm;
		if (__atomic_load_n(&c->sleeping, __ATOMIC_ACQUIRE) &&
		    nm->r[i].nover == 0 &&
		    __atomic_load_n(&done->head, __ATOMIC_ACQUIRE) ==
		        __atomic_load_n(&done->tail, __ATOMIC_ACQUIRE))
			waiting++;
	}
	if (nm->progressed || live == 0 || waiting < live) {
		nm->idle_slices = 0;
		return 0;
	}
	if (++nm->idle_slices < nm->o.stall_slices)
		return 0;
	size_t len = (size_t)snprintf(err, errlen, "the job is stuck: for %llu "
	    "slices every rank has waited and nothing can complete%s%s%s",
	    (unsigned long long)nm->idle_slices,
	    nm->o.replay ? " (replaying " : "", nm->o.replay ? nm->o.replay : "",
	    nm->o.replay ? ": the program may have diverged from the record)"
	                 : "");
	for (int i = 0; i < nm->n && len < errlen; i++) {
		if (nm->r[i].finalized)
			continue;
		char what[160];
		describe(nm, i, what, sizeof what);
		len += (size_t)snprintf(err + len, errlen - len,
		                        "\n  rank %d waits for %s", i, what);
	}
	return -1;
}
