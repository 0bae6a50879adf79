/* Grove MPI: process groups.  A group is an ordered list of world ranks;
 * the set operations are pure functions (mpi_group_*) that the MPI_Group_
 * entry points wrap, so that they are testable without MPI_Init. */
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grove_mpi_group_s grove_mpi_group_empty_ = {
	.refs = 1, .predefined = true, .size = 0, .world = NULL,
	.my_rank = MPI_UNDEFINED,
};

MPI_Group
mpi_group_new(int size, const int *world)
{
	if (size <= 0)
		return &grove_mpi_group_empty_;
	MPI_Group g = calloc(1, sizeof *g);
	int *w = malloc((size_t)size * sizeof *w);
	if (!g || !w) {
		free(g);
		free(w);
		return NULL;
	}
	memcpy(w, world, (size_t)size * sizeof *w);
	g->refs = 1;
	g->size = size;
	g->world = w;
	g->my_rank = MPI_UNDEFINED;
	for (int i = 0; i < size; i++)
		if (w[i] == mpi_proc.rank) {
			g->my_rank = i;
			break;
		}
	return g;
}

void
mpi_group_retain(MPI_Group g)
{
	if (g && !g->predefined)
		g->refs++;
}

void
mpi_group_release(MPI_Group g)
{
	if (!g || g->predefined || --g->refs > 0)
		return;
	free(g->world);
	free(g);
}

/* A map from world rank to group rank (-1 when absent), sized by the
 * largest world rank of g: set operations are then linear. */
static int *
rank_map(MPI_Group g, int *len)
{
	int n = 0;
	for (int i = 0; i < g->size; i++)
		if (g->world[i] + 1 > n)
			n = g->world[i] + 1;
	int *map = malloc((size_t)(n ? n : 1) * sizeof *map);
	if (!map)
		return NULL;
	for (int i = 0; i < n; i++)
		map[i] = -1;
	for (int i = 0; i < g->size; i++)
		map[g->world[i]] = i;
	*len = n;
	return map;
}

static int
lookup(const int *map, int len, int world)
{
	return world >= 0 && world < len ? map[world] : -1;
}

static int
make(int n, const int *world, MPI_Group *out)
{
	MPI_Group g = mpi_group_new(n, world);
	if (!g)
		return MPI_ERR_NO_MEM;
	*out = g;
	return MPI_SUCCESS;
}

/* Checks that ranks[0..n) are distinct ranks of g. */
static int
check_ranks(MPI_Group g, int n, const int ranks[], char *why)
{
	if (n < 0 || n > g->size) {
		snprintf(why, MPI_WHY_LEN, "n = %d is not in [0, %d]", n, g->size);
		return MPI_ERR_ARG;
	}
	if (n > 0 && !ranks) {
		snprintf(why, MPI_WHY_LEN, "ranks is NULL");
		return MPI_ERR_ARG;
	}
	char *seen = calloc((size_t)g->size + 1, 1);
	if (!seen) {
		snprintf(why, MPI_WHY_LEN, "out of memory");
		return MPI_ERR_NO_MEM;
	}
	int rc = MPI_SUCCESS;
	for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
		if (ranks[i] < 0 || ranks[i] >= g->size) {
			snprintf(why, MPI_WHY_LEN,
			         "ranks[%d] = %d is not in [0, %d)", i, ranks[i],
			         g->size);
			rc = MPI_ERR_RANK;
		} else if (seen[ranks[i]]) {
			snprintf(why, MPI_WHY_LEN,
			         "ranks[%d] = %d appears twice", i, ranks[i]);
			rc = MPI_ERR_RANK;
		} else {
			seen[ranks[i]] = 1;
		}
	}
	free(seen);
	return rc;
}

int
mpi_group_incl(MPI_Group g, int n, const int ranks[], MPI_Group *out,
               char *why)
{
	int rc = check_ranks(g, n, ranks, why);
	if (rc)
		return rc;
	int *w = malloc((size_t)(n ? n : 1) * sizeof *w);
	if (!w)
		return MPI_ERR_NO_MEM;
	for (int i = 0; i < n; i++)
		w[i] = g->world[ranks[i]];
	rc = make(n, w, out);
	free(w);
	return rc;
}

int
mpi_group_excl(MPI_Group g, int n, const int ranks[], MPI_Group *out,
               char *why)
{
	int rc = check_ranks(g, n, ranks, why);
	if (rc)
		return rc;
	char *drop = calloc((size_t)g->size + 1, 1);
	int *w = malloc(((size_t)g->size + 1) * sizeof *w);
	if (!drop || !w) {
		free(drop);
		free(w);
		return MPI_ERR_NO_MEM;
	}
	for (int i = 0; i < n; i++)
		drop[ranks[i]] = 1;
	int k = 0;
	for (int i = 0; i < g->size; i++)
		if (!drop[i])
			w[k++] = g->world[i];
	rc = make(k, w, out);
	free(drop);
	free(w);
	return rc;
}

/* Expands ranges (first, last, stride) into the list of ranks they name,
 * checking each against g; *list is malloc'd. */
static int
expand_ranges(MPI_Group g, int n, int ranges[][3], int **list, int *len,
              char *why)
{
	if (n < 0 || (n > 0 && !ranges)) {
		snprintf(why, MPI_WHY_LEN, "n = %d or ranges is invalid", n);
		return MPI_ERR_ARG;
	}
	long long total = 0;
	for (int i = 0; i < n; i++) {
		int first = ranges[i][0], last = ranges[i][1],
		    stride = ranges[i][2];
		if (stride == 0) {
			snprintf(why, MPI_WHY_LEN, "ranges[%d] has stride 0", i);
			return MPI_ERR_ARG;
		}
		if (first < 0 || first >= g->size || last < 0 ||
		    last >= g->size) {
			snprintf(why, MPI_WHY_LEN,
			         "ranges[%d] = (%d, %d, %d) leaves [0, %d)", i,
			         first, last, stride, g->size);
			return MPI_ERR_RANK;
		}
		if ((stride > 0 && first > last) || (stride < 0 && first < last))
			continue; /* empty range: allowed by the standard */
		total += ((long long)last - first) / stride + 1;
		if (total > g->size) {
			snprintf(why, MPI_WHY_LEN,
			         "the ranges name more than the group's %d ranks",
			         g->size);
			return MPI_ERR_RANK;
		}
	}
	int *l = malloc((size_t)(total ? total : 1) * sizeof *l);
	if (!l)
		return MPI_ERR_NO_MEM;
	int k = 0;
	for (int i = 0; i < n; i++) {
		int first = ranges[i][0], last = ranges[i][1],
		    stride = ranges[i][2];
		if (stride > 0)
			for (long long r = first; r <= last; r += stride)
				l[k++] = (int)r;
		else
			for (long long r = first; r >= last; r += stride)
				l[k++] = (int)r;
	}
	*list = l;
	*len = k;
	return MPI_SUCCESS;
}

int
mpi_group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group *out,
                     char *why)
{
	int *l, len;
	int rc = expand_ranges(g, n, ranges, &l, &len, why);
	if (rc)
		return rc;
	rc = mpi_group_incl(g, len, l, out, why);
	free(l);
	return rc;
}

int
mpi_group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group *out,
                     char *why)
{
	int *l, len;
	int rc = expand_ranges(g, n, ranges, &l, &len, why);
	if (rc)
		return rc;
	rc = mpi_group_excl(g, len, l, out, why);
	free(l);
	return rc;
}

/* What setop keeps of a. */
enum keep { KEEP_ALL, KEEP_IN_B, KEEP_NOT_IN_B };

/* The members of a that `keep` selects, in a's order; then, for a union
 * (add_b), the members of b that are not in a, in b's order. */
static int
setop(MPI_Group a, MPI_Group b, enum keep keep, bool add_b, MPI_Group *out)
{
	int blen, alen;
	int *bmap = rank_map(b, &blen);
	int *amap = add_b ? rank_map(a, &alen) : NULL;
	int *w = malloc(((size_t)a->size + b->size + 1) * sizeof *w);
	if (!bmap || (add_b && !amap) || !w) {
		free(bmap);
		free(amap);
		free(w);
		return MPI_ERR_NO_MEM;
	}
	int k = 0;
	for (int i = 0; i < a->size; i++) {
		bool in_b = lookup(bmap, blen, a->world[i]) >= 0;
		if (keep == KEEP_ALL || in_b == (keep == KEEP_IN_B))
			w[k++] = a->world[i];
	}
	if (add_b)
		for (int i = 0; i < b->size; i++)
			if (lookup(amap, alen, b->world[i]) < 0)
				w[k++] = b->world[i];
	int rc = make(k, w, out);
	free(bmap);
	free(amap);
	free(w);
	return rc;
}

int
mpi_group_union(MPI_Group a, MPI_Group b, MPI_Group *out)
{
	return setop(a, b, KEEP_ALL, true, out);
}

int
mpi_group_intersection(MPI_Group a, MPI_Group b, MPI_Group *out)
{
	return setop(a, b, KEEP_IN_B, false, out);
}

int
mpi_group_difference(MPI_Group a, MPI_Group b, MPI_Group *out)
{
	return setop(a, b, KEEP_NOT_IN_B, false, out);
}

int
mpi_group_compare(MPI_Group a, MPI_Group b)
{
	if (a == b)
		return MPI_IDENT;
	if (a->size != b->size)
		return MPI_UNEQUAL;
	if (a->size == 0 ||
	    memcmp(a->world, b->world, (size_t)a->size * sizeof(int)) == 0)
		return MPI_IDENT;
	int blen;
	int *bmap = rank_map(b, &blen);
	if (!bmap)
		return MPI_UNEQUAL; /* out of memory: the safe answer */
	int res = MPI_SIMILAR;
	for (int i = 0; i < a->size; i++)
		if (lookup(bmap, blen, a->world[i]) < 0) {
			res = MPI_UNEQUAL;
			break;
		}
	free(bmap);
	return res;
}

int
mpi_group_translate(MPI_Group a, int n, const int ranks1[], MPI_Group b,
                    int ranks2[], char *why)
{
	if (n < 0 || (n > 0 && (!ranks1 || !ranks2))) {
		snprintf(why, MPI_WHY_LEN, "n = %d or a rank array is invalid", n);
		return MPI_ERR_ARG;
	}
	int blen;
	int *bmap = rank_map(b, &blen);
	if (!bmap)
		return MPI_ERR_NO_MEM;
	int rc = MPI_SUCCESS;
	for (int i = 0; i < n; i++) {
		int r = ranks1[i];
		if (r == MPI_PROC_NULL) {
			ranks2[i] = MPI_PROC_NULL;
		} else if (r < 0 || r >= a->size) {
			snprintf(why, MPI_WHY_LEN,
			         "ranks1[%d] = %d is not in [0, %d)", i, r, a->size);
			rc = MPI_ERR_RANK;
			break;
		} else {
			int t = lookup(bmap, blen, a->world[r]);
			ranks2[i] = t >= 0 ? t : MPI_UNDEFINED;
		}
	}
	free(bmap);
	return rc;
}

/* ---- entry points --------------------------------------------------- */

static int
check_group(MPI_Group g, enum mpi_fn fn, const char *what)
{
	if (g == MPI_GROUP_NULL)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_GROUP, fn, "%s is MPI_GROUP_NULL",
		               what);
	return MPI_SUCCESS;
}

static int
check_out(void *p, enum mpi_fn fn, const char *what)
{
	if (!p)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, fn, "%s is NULL", what);
	return MPI_SUCCESS;
}

int
PMPI_Group_size(MPI_Group group, int *size)
{
	int rc = mpi_check_initialized(MPI_FN_Group_size);
	if (rc)
		return rc;
	MPI_ENTER(Group_size);
	if (!(rc = check_group(group, MPI_FN_Group_size, "group")) &&
	    !(rc = check_out(size, MPI_FN_Group_size, "size")))
		*size = group->size;
	MPI_EXIT(Group_size, -1, 0, 0);
	return rc;
}

int
PMPI_Group_rank(MPI_Group group, int *rank)
{
	int rc = mpi_check_initialized(MPI_FN_Group_rank);
	if (rc)
		return rc;
	MPI_ENTER(Group_rank);
	if (!(rc = check_group(group, MPI_FN_Group_rank, "group")) &&
	    !(rc = check_out(rank, MPI_FN_Group_rank, "rank")))
		*rank = group->my_rank;
	MPI_EXIT(Group_rank, -1, 0, 0);
	return rc;
}

/* The shape shared by the functions that make one group from one. */
static int
derive(enum mpi_fn fn, MPI_Group g, MPI_Group *out, int n, const int *ranks,
       int (*ranges)[3], int which)
{
	int rc = check_group(g, fn, "group");
	if (rc)
		return rc;
	if ((rc = check_out(out, fn, "newgroup")))
		return rc;
	char why[MPI_WHY_LEN] = "out of memory";
	switch (which) {
	case 0: rc = mpi_group_incl(g, n, ranks, out, why); break;
	case 1: rc = mpi_group_excl(g, n, ranks, out, why); break;
	case 2: rc = mpi_group_range_incl(g, n, ranges, out, why); break;
	default: rc = mpi_group_range_excl(g, n, ranges, out, why); break;
	}
	if (rc)
		return mpi_err(MPI_COMM_NULL, rc, fn, "%s", why);
	return MPI_SUCCESS;
}

int
PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_incl);
	if (rc)
		return rc;
	MPI_ENTER(Group_incl);
	rc = derive(MPI_FN_Group_incl, group, newgroup, n, ranks, NULL, 0);
	MPI_EXIT(Group_incl, -1, 0, 0);
	return rc;
}

int
PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_excl);
	if (rc)
		return rc;
	MPI_ENTER(Group_excl);
	rc = derive(MPI_FN_Group_excl, group, newgroup, n, ranks, NULL, 1);
	MPI_EXIT(Group_excl, -1, 0, 0);
	return rc;
}

int
PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                      MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_range_incl);
	if (rc)
		return rc;
	MPI_ENTER(Group_range_incl);
	rc = derive(MPI_FN_Group_range_incl, group, newgroup, n, NULL, ranges, 2);
	MPI_EXIT(Group_range_incl, -1, 0, 0);
	return rc;
}

int
PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                      MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_range_excl);
	if (rc)
		return rc;
	MPI_ENTER(Group_range_excl);
	rc = derive(MPI_FN_Group_range_excl, group, newgroup, n, NULL, ranges, 3);
	MPI_EXIT(Group_range_excl, -1, 0, 0);
	return rc;
}

static int
two(enum mpi_fn fn, MPI_Group a, MPI_Group b, MPI_Group *out,
    int (*op)(MPI_Group, MPI_Group, MPI_Group *))
{
	int rc;
	if ((rc = check_group(a, fn, "group1")) ||
	    (rc = check_group(b, fn, "group2")) ||
	    (rc = check_out(out, fn, "newgroup")))
		return rc;
	if ((rc = op(a, b, out)))
		return mpi_err(MPI_COMM_NULL, rc, fn, "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_union);
	if (rc)
		return rc;
	MPI_ENTER(Group_union);
	rc = two(MPI_FN_Group_union, group1, group2, newgroup, mpi_group_union);
	MPI_EXIT(Group_union, -1, 0, 0);
	return rc;
}

int
PMPI_Group_intersection(MPI_Group group1, MPI_Group group2,
                        MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_intersection);
	if (rc)
		return rc;
	MPI_ENTER(Group_intersection);
	rc = two(MPI_FN_Group_intersection, group1, group2, newgroup,
	         mpi_group_intersection);
	MPI_EXIT(Group_intersection, -1, 0, 0);
	return rc;
}

int
PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	int rc = mpi_check_initialized(MPI_FN_Group_difference);
	if (rc)
		return rc;
	MPI_ENTER(Group_difference);
	rc = two(MPI_FN_Group_difference, group1, group2, newgroup,
	         mpi_group_difference);
	MPI_EXIT(Group_difference, -1, 0, 0);
	return rc;
}

int
PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
	int rc = mpi_check_initialized(MPI_FN_Group_compare);
	if (rc)
		return rc;
	MPI_ENTER(Group_compare);
	if (!(rc = check_group(group1, MPI_FN_Group_compare, "group1")) &&
	    !(rc = check_group(group2, MPI_FN_Group_compare, "group2")) &&
	    !(rc = check_out(result, MPI_FN_Group_compare, "result")))
		*result = mpi_group_compare(group1, group2);
	MPI_EXIT(Group_compare, -1, 0, 0);
	return rc;
}

int
PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                           MPI_Group group2, int ranks2[])
{
	int rc = mpi_check_initialized(MPI_FN_Group_translate_ranks);
	if (rc)
		return rc;
	MPI_ENTER(Group_translate_ranks);
	char why[MPI_WHY_LEN] = "out of memory";
	if (!(rc = check_group(group1, MPI_FN_Group_translate_ranks, "group1")) &&
	    !(rc = check_group(group2, MPI_FN_Group_translate_ranks, "group2")) &&
	    (rc = mpi_group_translate(group1, n, ranks1, group2, ranks2, why)))
		rc = mpi_err(MPI_COMM_NULL, rc, MPI_FN_Group_translate_ranks, "%s",
		             why);
	MPI_EXIT(Group_translate_ranks, -1, 0, 0);
	return rc;
}

int
PMPI_Group_free(MPI_Group *group)
{
	int rc = mpi_check_initialized(MPI_FN_Group_free);
	if (rc)
		return rc;
	MPI_ENTER(Group_free);
	if (!group || *group == MPI_GROUP_NULL) {
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_GROUP, MPI_FN_Group_free,
		             "the group is MPI_GROUP_NULL");
	} else {
		/* MPI_GROUP_EMPTY comes back from set operations, so freeing
		 * it is accepted (and does nothing). */
		mpi_group_release(*group);
		*group = MPI_GROUP_NULL;
	}
	MPI_EXIT(Group_free, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_group);
	if (rc)
		return rc;
	MPI_ENTER(Comm_group);
	if ((rc = mpi_comm_check(comm)))
		rc = mpi_err(comm, rc, MPI_FN_Comm_group, "%s",
		             comm ? "not a communicator" : "MPI_COMM_NULL");
	else if (!group)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Comm_group, "group is NULL");
	else {
		mpi_group_retain(comm->group);
		*group = comm->group;
	}
	MPI_EXIT(Comm_group, -1, 0, 0);
	return rc;
}
