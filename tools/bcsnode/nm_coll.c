/* Collectives run by the node manager (paper section 4.4).  Every member
 * of a communicator posts one descriptor per collective, keyed by the
 * communicator's collective context and the collective's number; when all
 * of them are in (message scheduling microphase) the collective is
 * scheduled, and run in the broadcast/barrier microphase (barrier,
 * broadcast) or the reduce microphase (reduce, allreduce).  Reductions
 * fold the members' contributions in rank order, highest first, so that
 * a non-commutative predefined operator gets MPI's order; the node
 * manager applies the library's own operator kernels. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"
#include "nm_impl.h"

static const char *
kind_name(int kind)
{
	switch (kind) {
	case BCS_D_BARRIER: return "MPI_Barrier";
	case BCS_D_BCAST: return "MPI_Bcast";
	case BCS_D_REDUCE: return "MPI_Reduce";
	case BCS_D_ALLREDUCE: return "MPI_Allreduce";
	}
	return "a collective";
}

int
nm_coll_add(struct nm *nm, int rank, const struct bcs_desc *d, char *err,
            size_t errlen)
{
	struct nm_coll *c = nm->colls;
	while (c && !(c->ctx == d->ctx && c->seq == d->seq))
		c = c->next;
	int size = d->tag;
	if (!c) {
		if (size <= 0 || size > nm->n) {
			snprintf(err, errlen, "rank %d: %s on a communicator of %d "
			         "ranks (the job has %d)", rank, kind_name(d->kind),
			         size, nm->n);
			return -1;
		}
		c = calloc(1, sizeof(*c));
		if (!c)
			goto oom;
		c->d = calloc((size_t)size, sizeof(*c->d));
		c->world = malloc((size_t)size * sizeof(*c->world));
		if (!c->d || !c->world) {
			free(c->d);
			free(c->world);
			free(c);
			goto oom;
		}
		for (int i = 0; i < size; i++)
			c->world[i] = -1;
		c->ctx = d->ctx;
		c->seq = d->seq;
		c->kind = d->kind;
		c->size = size;
		/* Appended: collectives run in the order they became known. */
		struct nm_coll **pp = &nm->colls;
		while (*pp)
			pp = &(*pp)->next;
		*pp = c;
	}
	if (d->kind != c->kind || size != c->size || d->me < 0 ||
	    d->me >= c->size || c->world[d->me] != -1) {
		snprintf(err, errlen, "rank %d called %s (rank %d of %d) where "
		         "the communicator's collective number %u is %s over %d "
		         "ranks%s: the ranks do not call the same collectives in "
		         "the same order", rank, kind_name(d->kind), d->me, size,
		         d->seq, kind_name(c->kind), c->size,
		         d->me >= 0 && d->me < c->size && c->world[d->me] != -1
		             ? " (and that rank is in already)" : "");
		return -1;
	}
	c->d[d->me] = *d;
	c->world[d->me] = rank;
	c->have++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory for a collective of rank %d", rank);
	return -1;
}

int
nm_coll_schedule(struct nm *nm, struct nm_counts *cnt)
{
	memset(nm->coll_ready, 0, sizeof(nm->coll_ready));
	for (struct nm_coll *c = nm->colls; c; c = c->next) {
		if (c->scheduled || c->have < c->size)
			continue;
		c->scheduled = true;
		cnt->ncollmsm++;
		nm->progressed = true;
		nm->coll_ready[c->kind == BCS_D_REDUCE ||
		               c->kind == BCS_D_ALLREDUCE ? 1 : 0]++;
	}
	return 0;
}

static void
complete_all(struct nm *nm, struct nm_coll *c, const int *errors)
{
	for (int i = 0; i < c->size; i++) {
		struct bcs_done dn = {
			.req = c->d[i].req, .slice = nm->slice, .kind = (uint8_t)c->kind,
			.bytes = c->d[i].bytes, .source = -1, .tag = -1,
			.error = errors ? errors[i] : 0,
		};
		nm_complete(nm, c->world[i], &c->d[i], &dn);
	}
}

static int
run_bcast(struct nm *nm, struct nm_coll *c, int *errors)
{
	int root = c->d[0].peer;
	if (root < 0 || root >= c->size) {
		for (int i = 0; i < c->size; i++)
			errors[i] = MPI_ERR_ROOT;
		return 0;
	}
	const struct bcs_desc *rd = &c->d[root];
	pid_t rpid = nm->r[c->world[root]].pid;
	for (int i = 0; i < c->size; i++) {
		if (i == root)
			continue;
		uint64_t n = c->d[i].bytes < rd->bytes ? c->d[i].bytes : rd->bytes;
		int rc = nm_cma_copy(nm, rpid, rd->addr, nm->r[c->world[i]].pid,
		                     c->d[i].addr, n);
		if (rc) {
			nm_say("slice %llu: MPI_Bcast from rank %d to %d: %s",
			       (unsigned long long)nm->slice, c->world[root],
			       c->world[i], strerror(-rc));
			errors[i] = errors[root] = MPI_ERR_OTHER;
		} else if (c->d[i].bytes != rd->bytes) {
			errors[i] = MPI_ERR_TRUNCATE;
		}
	}
	return 0;
}

static int
run_reduce(struct nm *nm, struct nm_coll *c, int *errors)
{
	const struct bcs_desc *d0 = &c->d[0];
	MPI_Op op = mpi_op_of_index(d0->op);
	MPI_Datatype dt = d0->basic < MPI_B_COUNT_ && d0->basic != MPI_B_NONE
	                  ? mpi_dt_of_basic((enum mpi_basic)d0->basic) : NULL;
	const char *why = "";
	int bad = !op || !dt ? MPI_ERR_OP : mpi_op_check(op, dt, &why);
	for (int i = 1; !bad && i < c->size; i++)
		if (c->d[i].op != d0->op || c->d[i].basic != d0->basic ||
		    c->d[i].count != d0->count)
			bad = MPI_ERR_ARG;
	if (bad) {
		nm_say("slice %llu: %s: the ranks' operators, types or counts do "
		       "not agree or do not apply %s", (unsigned long long)nm->slice,
		       kind_name(c->kind), why);
		for (int i = 0; i < c->size; i++)
			errors[i] = bad;
		return 0;
	}
	uint64_t bytes = (uint64_t)d0->count * dt->size;
	int root = c->kind == BCS_D_REDUCE ? d0->peer : -1;
	if (c->kind == BCS_D_REDUCE && (root < 0 || root >= c->size)) {
		for (int i = 0; i < c->size; i++)
			errors[i] = MPI_ERR_ROOT;
		return 0;
	}
	char *acc = malloc(bytes ? bytes : 1), *in = malloc(bytes ? bytes : 1);
	if (!acc || !in) {
		free(acc);
		free(in);
		return -1;
	}
	int rc = 0;
	/* acc = c[size-1]; then acc = c[r] op acc for r going down. */
	for (int i = c->size - 1; rc == 0 && i >= 0; i--) {
		const struct bcs_desc *d = &c->d[i];
		uint64_t from = d->flags & BCS_F_IN_PLACE ? d->addr2 : d->addr;
		char *dst = i == c->size - 1 ? acc : in;
		rc = nm_cma_read(nm->r[c->world[i]].pid, from, dst, bytes);
		if (rc == 0 && i != c->size - 1)
			mpi_op_apply(op, in, acc, d0->count, dt, &why);
		if (rc)
			nm_say("slice %llu: %s: reading rank %d's data: %s",
			       (unsigned long long)nm->slice, kind_name(c->kind),
			       c->world[i], strerror(-rc));
	}
	for (int i = 0; rc == 0 && i < c->size; i++) {
		if (root >= 0 && i != root)
			continue;
		int w = nm_cma_write(nm->r[c->world[i]].pid, c->d[i].addr2, acc,
		                     bytes);
		if (w) {
			nm_say("slice %llu: %s: writing rank %d's result: %s",
			       (unsigned long long)nm->slice, kind_name(c->kind),
			       c->world[i], strerror(-w));
			errors[i] = MPI_ERR_OTHER;
		}
	}
	if (rc)
		for (int i = 0; i < c->size; i++)
			errors[i] = MPI_ERR_OTHER;
	free(acc);
	free(in);
	return 0;
}

int
nm_coll_run(struct nm *nm, enum nm_phase ph, char *err, size_t errlen)
{
	bool reduce_phase = ph == NM_RED;
	struct nm_coll **pp = &nm->colls;
	while (*pp) {
		struct nm_coll *c = *pp;
		bool is_red = c->kind == BCS_D_REDUCE || c->kind == BCS_D_ALLREDUCE;
		if (!c->scheduled || is_red != reduce_phase) {
			pp = &c->next;
			continue;
		}
		int *errors = calloc((size_t)c->size, sizeof(*errors));
		int rc = errors ? 0 : -1;
		if (rc == 0 && c->kind == BCS_D_BCAST)
			rc = run_bcast(nm, c, errors);
		else if (rc == 0 && is_red)
			rc = run_reduce(nm, c, errors);
		if (rc) {
			free(errors);
			snprintf(err, errlen, "out of memory running %s",
			         kind_name(c->kind));
			return -1;
		}
		complete_all(nm, c, errors);
		free(errors);
		*pp = c->next;
		free(c->d);
		free(c->world);
		free(c);
	}
	return 0;
}
