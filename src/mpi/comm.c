/* Grove MPI: communicators (intra-communicators only).
 *
 * A communicator is a group, this process's rank in it, and two context
 * ids (point-to-point and collective traffic).  New context ids are agreed
 * by the members: each proposes its next free id and the largest wins, so
 * the id is free on every member.  Ids only grow: 2^31 communicators per
 * process are far beyond what a program makes. */
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grove_mpi_comm_s grove_mpi_comm_world_ = {
	.refs = 1, .predefined = true, .rank = 0, .size = 0,
	.ctx_p2p = 0, .ctx_coll = 1,
	.errhandler = &grove_mpi_errors_are_fatal_,
	.name = "MPI_COMM_WORLD",
};
struct grove_mpi_comm_s grove_mpi_comm_self_ = {
	.refs = 1, .predefined = true, .rank = 0, .size = 0,
	.ctx_p2p = 2, .ctx_coll = 3,
	.errhandler = &grove_mpi_errors_are_fatal_,
	.name = "MPI_COMM_SELF",
};
/* Exported because mpi.h declares it; MPI_COMM_NULL itself is 0. */
struct grove_mpi_comm_s grove_mpi_comm_null_ = {
	.predefined = true, .name = "MPI_COMM_NULL",
};

/* The next context id this process has not used (even: p2p, +1 coll). */
static uint32_t next_ctx = 4;

/* Comm_create_group agrees on context ids among the group's members
 * only, with point-to-point messages on the parent's collective context.
 * Collectives tag their messages with their sequence number modulo 2^30
 * (coll_sched.c), so tags from 2^30 up never meet theirs. */
#define CREATE_GROUP_TAG_BASE 0x40000000

int
mpi_comm_check(MPI_Comm comm)
{
	if (comm == MPI_COMM_NULL || comm == &grove_mpi_comm_null_ ||
	    !comm->group || comm->refs <= 0)
		return MPI_ERR_COMM;
	return MPI_SUCCESS;
}

static int
bad_comm(MPI_Comm comm, enum mpi_fn fn)
{
	return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
	               comm == MPI_COMM_NULL ? "MPI_COMM_NULL"
	                                     : "not a valid communicator");
}

int
mpi_comm_init_world(int rank, int size)
{
	if (size <= 0 || rank < 0 || rank >= size)
		return MPI_ERR_ARG;
	int *w = malloc((size_t)size * sizeof *w);
	if (!w)
		return MPI_ERR_NO_MEM;
	for (int i = 0; i < size; i++)
		w[i] = i;
	MPI_Group wg = mpi_group_new(size, w);
	MPI_Group sg = mpi_group_new(1, &rank);
	free(w);
	if (!wg || !sg) {
		mpi_group_release(wg);
		mpi_group_release(sg);
		return MPI_ERR_NO_MEM;
	}
	/* mpi_group_new found this process through mpi_proc.rank; the
	 * caller's rank is the truth here. */
	wg->my_rank = rank;
	sg->my_rank = 0;
	MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
	world->group = wg;
	world->rank = rank;
	world->size = size;
	world->refs = 1;
	world->coll_seq = 0;
	world->trace_coll_state = 0; /* registered anew in this event space */
	self->group = sg;
	self->rank = 0;
	self->size = 1;
	self->refs = 1;
	self->coll_seq = 0;
	self->trace_coll_state = 0;
	next_ctx = 4;
	return MPI_SUCCESS;
}

static void
comm_destroy(MPI_Comm comm)
{
	mpi_topo_free(comm);
	mpi_group_release(comm->group);
	comm->group = NULL;
	mpi_errhandler_release(comm->errhandler);
	comm->errhandler = NULL;
	if (!comm->predefined)
		free(comm);
}

void
mpi_comm_fini(void)
{
	/* The standard deletes MPI_COMM_SELF's attributes first: programs
	 * hang clean-up on it to run at MPI_Finalize. */
	if (grove_mpi_comm_self_.group)
		mpi_attr_delete_all(MPI_COMM_SELF);
	if (grove_mpi_comm_world_.group)
		mpi_attr_delete_all(MPI_COMM_WORLD);
	MPI_Comm c[2] = {MPI_COMM_SELF, MPI_COMM_WORLD};
	for (int i = 0; i < 2; i++) {
		mpi_topo_free(c[i]);
		mpi_group_release(c[i]->group);
		c[i]->group = NULL;
		/* Back to the default, with the user's handler released. */
		mpi_errhandler_release(c[i]->errhandler);
		c[i]->errhandler = &grove_mpi_errors_are_fatal_;
	}
}

void
mpi_comm_retain(MPI_Comm comm)
{
	if (comm && !comm->predefined)
		comm->refs++;
}

void
mpi_comm_release(MPI_Comm comm)
{
	if (comm && !comm->predefined && --comm->refs == 0)
		comm_destroy(comm);
}

static MPI_Comm
comm_new(MPI_Comm parent, MPI_Group group, uint32_t ctx)
{
	MPI_Comm c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->refs = 1;
	c->rank = group->my_rank;
	c->size = group->size;
	mpi_group_retain(group);
	c->group = group;
	c->ctx_p2p = ctx;
	c->ctx_coll = ctx + 1;
	c->errhandler = parent->errhandler;
	mpi_errhandler_retain(c->errhandler);
	return c;
}

int
mpi_comm_create_from(MPI_Comm parent, MPI_Group group, MPI_Comm *out)
{
	unsigned mine = next_ctx, agreed = 0;
	int rc = PMPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED, MPI_MAX, parent);
	if (rc)
		return rc;
	next_ctx = agreed + 2;
	*out = MPI_COMM_NULL;
	if (!group || group->my_rank == MPI_UNDEFINED)
		return MPI_SUCCESS;
	MPI_Comm c = comm_new(parent, group, agreed);
	if (!c)
		return MPI_ERR_NO_MEM;
	*out = c;
	return MPI_SUCCESS;
}

/* The largest proposal of the members of group, over point-to-point
 * messages on parent: gathered at group rank 0, sent back to all. */
static int
agree_in_group(MPI_Comm parent, MPI_Group group, int tag, unsigned *agreed)
{
	unsigned mine = next_ctx;
	int me = group->my_rank, n = group->size;
	int t = CREATE_GROUP_TAG_BASE | (tag & 0x3fffffff);
	int *idx = malloc((size_t)n * sizeof *idx);
	int *prank = malloc((size_t)n * sizeof *prank);
	char why[MPI_WHY_LEN];
	int rc = idx && prank ? MPI_SUCCESS : MPI_ERR_NO_MEM;
	for (int i = 0; !rc && i < n; i++)
		idx[i] = i;
	/* Group ranks to parent ranks (check_subgroup made sure all are). */
	if (!rc)
		rc = mpi_group_translate(group, n, idx, parent->group, prank, why);
	free(idx);
	if (rc) {
		free(prank);
		return rc;
	}
	unsigned best = mine;
	MPI_Request req;
	if (me == 0) {
		for (int i = 1; i < n && !rc; i++) {
			unsigned v = 0;
			rc = mpi_irecv_ctx(&v, 1, MPI_UNSIGNED, prank[i], t, parent,
			                   parent->ctx_coll, &req);
			if (!rc)
				rc = mpi_wait(&req, MPI_STATUS_IGNORE);
			if (!rc && v > best)
				best = v;
		}
		for (int i = 1; i < n && !rc; i++) {
			rc = mpi_isend_ctx(&best, 1, MPI_UNSIGNED, prank[i], t, parent,
			                   parent->ctx_coll, MPI_FN_Send, &req);
			if (!rc)
				rc = mpi_wait(&req, MPI_STATUS_IGNORE);
		}
	} else {
		rc = mpi_isend_ctx(&mine, 1, MPI_UNSIGNED, prank[0], t, parent,
		                   parent->ctx_coll, MPI_FN_Send, &req);
		if (!rc)
			rc = mpi_wait(&req, MPI_STATUS_IGNORE);
		if (!rc)
			rc = mpi_irecv_ctx(&best, 1, MPI_UNSIGNED, prank[0], t, parent,
			                   parent->ctx_coll, &req);
		if (!rc)
			rc = mpi_wait(&req, MPI_STATUS_IGNORE);
	}
	free(prank);
	*agreed = best;
	return rc;
}

/* ---- queries -------------------------------------------------------- */

int
PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_rank);
	if (rc)
		return rc;
	MPI_ENTER(Comm_rank);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_rank);
	else if (!rank)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_rank, "rank is NULL");
	else
		*rank = comm->rank;
	MPI_EXIT(Comm_rank, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_size(MPI_Comm comm, int *size)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_size);
	if (rc)
		return rc;
	MPI_ENTER(Comm_size);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_size);
	else if (!size)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_size, "size is NULL");
	else
		*size = comm->size;
	MPI_EXIT(Comm_size, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_compare);
	if (rc)
		return rc;
	MPI_ENTER(Comm_compare);
	if (mpi_comm_check(comm1))
		rc = bad_comm(comm1, MPI_FN_Comm_compare);
	else if (mpi_comm_check(comm2))
		rc = bad_comm(comm2, MPI_FN_Comm_compare);
	else if (!result)
		rc = mpi_err(comm1, MPI_ERR_ARG, MPI_FN_Comm_compare,
		             "result is NULL");
	else if (comm1 == comm2)
		*result = MPI_IDENT;
	else {
		int g = mpi_group_compare(comm1->group, comm2->group);
		*result = g == MPI_IDENT ? MPI_CONGRUENT : g;
	}
	MPI_EXIT(Comm_compare, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_test_inter);
	if (rc)
		return rc;
	MPI_ENTER(Comm_test_inter);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_test_inter);
	else if (!flag)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_test_inter,
		             "flag is NULL");
	else
		*flag = 0; /* Grove has intra-communicators only */
	MPI_EXIT(Comm_test_inter, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_get_name);
	if (rc)
		return rc;
	MPI_ENTER(Comm_get_name);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_get_name);
	else if (!comm_name || !resultlen)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_get_name,
		             "%s is NULL", comm_name ? "resultlen" : "comm_name");
	else {
		snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
		*resultlen = (int)strlen(comm_name);
	}
	MPI_EXIT(Comm_get_name, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_set_name);
	if (rc)
		return rc;
	MPI_ENTER(Comm_set_name);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_set_name);
	else if (!comm_name)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_set_name,
		             "comm_name is NULL");
	else
		/* Longer names are cut, as the standard allows. */
		snprintf(comm->name, sizeof comm->name, "%s", comm_name);
	MPI_EXIT(Comm_set_name, -1, 0, 0);
	return rc;
}

/* ---- constructors --------------------------------------------------- */

/* Dup: same group, new context, the parent's attributes (through their
 * copy callbacks), topology and error handler; not its name. */
static int
comm_dup(enum mpi_fn fn, MPI_Comm comm, MPI_Comm *newcomm)
{
	if (mpi_comm_check(comm))
		return bad_comm(comm, fn);
	if (!newcomm)
		return mpi_err(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
	MPI_Comm c;
	int rc = mpi_comm_create_from(comm, comm->group, &c);
	if (rc)
		return mpi_err(comm, rc, fn, "no new communicator");
	if ((rc = mpi_topo_copy(comm, c)) || (rc = mpi_attr_copy_all(comm, c))) {
		mpi_attr_delete_all(c);
		mpi_comm_release(c);
		return mpi_err(comm, rc, fn, "copying the communicator's %s",
		               rc == MPI_ERR_NO_MEM ? "topology or attributes"
		                                    : "attributes failed");
	}
	*newcomm = c;
	return MPI_SUCCESS;
}

int
PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_dup);
	if (rc)
		return rc;
	MPI_ENTER(Comm_dup);
	rc = comm_dup(MPI_FN_Comm_dup, comm, newcomm);
	MPI_EXIT(Comm_dup, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_dup_with_info);
	if (rc)
		return rc;
	MPI_ENTER(Comm_dup_with_info);
	/* No hint changes what Grove does: the info is not kept. */
	rc = comm_dup(MPI_FN_Comm_dup_with_info, comm, newcomm);
	MPI_EXIT(Comm_dup_with_info, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_idup);
	if (rc)
		return rc;
	MPI_ENTER(Comm_idup);
	if (!request) {
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_idup, "request is NULL");
	} else if (!(rc = comm_dup(MPI_FN_Comm_idup, comm, newcomm))) {
		/* The dup is done by now (blocking, which the standard allows):
		 * the request is a completed generalized request. */
		MPI_Request r = mpi_request_new(MPI_REQ_GREQ);
		if (!r) {
			rc = mpi_err(comm, MPI_ERR_NO_MEM, MPI_FN_Comm_idup,
			             "no request");
		} else {
			r->status.MPI_SOURCE = MPI_ANY_SOURCE;
			r->status.MPI_TAG = MPI_ANY_TAG;
			r->status.MPI_ERROR = MPI_SUCCESS;
			r->done = true;
			*request = r;
		}
	}
	MPI_EXIT(Comm_idup, -1, 0, 0);
	return rc;
}

struct split_member {
	int color, key, prank;
};

static int
split_cmp(const void *a, const void *b)
{
	const struct split_member *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->prank < y->prank ? -1 : x->prank > y->prank;
}

static int
comm_split(enum mpi_fn fn, MPI_Comm comm, int color, int key,
           MPI_Comm *newcomm)
{
	if (mpi_comm_check(comm))
		return bad_comm(comm, fn);
	if (!newcomm)
		return mpi_err(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
	if (color < 0 && color != MPI_UNDEFINED)
		return mpi_err(comm, MPI_ERR_ARG, fn,
		               "color %d is negative and not MPI_UNDEFINED", color);
	int n = comm->size;
	int mine[2] = {color, key};
	int *all = malloc((size_t)n * 2 * sizeof *all);
	struct split_member *m = malloc((size_t)n * sizeof *m);
	int *world = malloc((size_t)n * sizeof *world);
	if (!all || !m || !world) {
		free(all);
		free(m);
		free(world);
		return mpi_err(comm, MPI_ERR_NO_MEM, fn, "%d ranks", n);
	}
	int rc = PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
	MPI_Group g = NULL;
	if (!rc && color != MPI_UNDEFINED) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (all[2 * i] == color)
				m[k++] = (struct split_member){all[2 * i],
				                               all[2 * i + 1], i};
		/* By key, then by rank in the parent (qsort is not stable). */
		qsort(m, (size_t)k, sizeof *m, split_cmp);
		for (int i = 0; i < k; i++)
			world[i] = mpi_comm_world_rank(comm, m[i].prank);
		g = mpi_group_new(k, world);
		if (!g)
			rc = MPI_ERR_NO_MEM;
	}
	free(all);
	free(m);
	free(world);
	/* Every member takes part in the context agreement, including
	 * those that get MPI_COMM_NULL. */
	MPI_Comm c = MPI_COMM_NULL;
	if (!rc)
		rc = mpi_comm_create_from(comm, g, &c);
	mpi_group_release(g);
	if (rc)
		return mpi_err(comm, rc, fn, "no new communicator");
	*newcomm = c;
	return MPI_SUCCESS;
}

int
PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_split);
	if (rc)
		return rc;
	MPI_ENTER(Comm_split);
	rc = comm_split(MPI_FN_Comm_split, comm, color, key, newcomm);
	MPI_EXIT(Comm_split, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                     MPI_Comm *newcomm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_split_type);
	if (rc)
		return rc;
	MPI_ENTER(Comm_split_type);
	if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_split_type,
		             "split_type %d is neither MPI_COMM_TYPE_SHARED nor "
		             "MPI_UNDEFINED", split_type);
	else
		/* The shared-memory domain is the host (with --hosts, ranks
		 * run on several): ranks of one host share its lowest world
		 * rank as colour. */
		rc = comm_split(MPI_FN_Comm_split_type, comm,
		                split_type == MPI_UNDEFINED ? MPI_UNDEFINED
		                                            : mpi_wireup_host_leader(),
		                key, newcomm);
	MPI_EXIT(Comm_split_type, -1, 0, 0);
	return rc;
}

/* Checks that every member of group is a member of comm. */
static int
check_subgroup(enum mpi_fn fn, MPI_Comm comm, MPI_Group group)
{
	if (group == MPI_GROUP_NULL)
		return mpi_err(comm, MPI_ERR_GROUP, fn, "the group is MPI_GROUP_NULL");
	MPI_Group diff;
	if (mpi_group_difference(group, comm->group, &diff))
		return mpi_err(comm, MPI_ERR_NO_MEM, fn, "checking the group");
	int extra = diff->size;
	mpi_group_release(diff);
	if (extra)
		return mpi_err(comm, MPI_ERR_GROUP, fn,
		               "%d member(s) of the group are not in the "
		               "communicator", extra);
	return MPI_SUCCESS;
}

int
PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_create);
	if (rc)
		return rc;
	MPI_ENTER(Comm_create);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_create);
	else if (!newcomm)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_create,
		             "newcomm is NULL");
	else if (!(rc = check_subgroup(MPI_FN_Comm_create, comm, group))) {
		MPI_Comm c;
		rc = mpi_comm_create_from(comm, group, &c);
		if (rc)
			rc = mpi_err(comm, rc, MPI_FN_Comm_create,
			             "no new communicator");
		else
			*newcomm = c;
	}
	MPI_EXIT(Comm_create, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                       MPI_Comm *newcomm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_create_group);
	if (rc)
		return rc;
	MPI_ENTER(Comm_create_group);
	if (mpi_comm_check(comm))
		rc = bad_comm(comm, MPI_FN_Comm_create_group);
	else if (!newcomm)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_create_group,
		             "newcomm is NULL");
	else if (tag < 0)
		rc = mpi_err(comm, MPI_ERR_TAG, MPI_FN_Comm_create_group,
		             "tag %d is negative", tag);
	else if (!(rc = check_subgroup(MPI_FN_Comm_create_group, comm, group))) {
		if (group->my_rank == MPI_UNDEFINED) {
			/* Only members call it; a non-member gets NULL. */
			*newcomm = MPI_COMM_NULL;
		} else {
			unsigned agreed = 0;
			rc = agree_in_group(comm, group, tag, &agreed);
			MPI_Comm c = NULL;
			if (!rc) {
				next_ctx = agreed + 2;
				c = comm_new(comm, group, agreed);
				if (!c)
					rc = MPI_ERR_NO_MEM;
			}
			if (rc)
				rc = mpi_err(comm, rc, MPI_FN_Comm_create_group,
				             "no new communicator");
			else
				*newcomm = c;
		}
	}
	MPI_EXIT(Comm_create_group, -1, 0, 0);
	return rc;
}

/* ---- destructors ---------------------------------------------------- */

static int
comm_free(enum mpi_fn fn, MPI_Comm *comm)
{
	if (!comm || mpi_comm_check(*comm))
		return bad_comm(comm ? *comm : MPI_COMM_NULL, fn);
	MPI_Comm c = *comm;
	if (c->predefined)
		return mpi_err(c, MPI_ERR_COMM, fn, "%s cannot be freed", c->name);
	/* Delete callbacks run now, as the standard says; the object lives
	 * on while requests still use it. */
	int rc = mpi_attr_delete_all(c);
	*comm = MPI_COMM_NULL;
	mpi_comm_release(c);
	if (rc)
		return mpi_err(MPI_COMM_NULL, rc, fn,
		               "an attribute's delete callback failed");
	return MPI_SUCCESS;
}

int
PMPI_Comm_free(MPI_Comm *comm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_free);
	if (rc)
		return rc;
	MPI_ENTER(Comm_free);
	rc = comm_free(MPI_FN_Comm_free, comm);
	MPI_EXIT(Comm_free, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_disconnect(MPI_Comm *comm)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_disconnect);
	if (rc)
		return rc;
	MPI_ENTER(Comm_disconnect);
	/* Without dynamic processes this is MPI_Comm_free (pending
	 * operations keep the object alive until they complete). */
	rc = comm_free(MPI_FN_Comm_disconnect, comm);
	MPI_EXIT(Comm_disconnect, -1, 0, 0);
	return rc;
}

/* ---- inter-communicators: not supported ------------------------------ */

#define NO_INTERCOMM(Name, comm)                                           \
	int rc = mpi_check_initialized(MPI_FN_##Name);                      \
	if (rc)                                                             \
		return rc;                                                  \
	MPI_ENTER(Name);                                                    \
	rc = mpi_err(comm, MPI_ERR_UNSUPPORTED_OPERATION, MPI_FN_##Name,    \
	             "MPI_" #Name " is not supported by Grove MPI (see "    \
	             "docs/mpi.md)");                                       \
	MPI_EXIT(Name, -1, 0, 0);                                           \
	return rc

int
PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	NO_INTERCOMM(Comm_remote_size, comm);
}

int
PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	NO_INTERCOMM(Comm_remote_group, comm);
}

int
PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                      MPI_Comm peer_comm, int remote_leader, int tag,
                      MPI_Comm *newintercomm)
{
	NO_INTERCOMM(Intercomm_create, local_comm);
}

int
PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	NO_INTERCOMM(Intercomm_merge, intercomm);
}
