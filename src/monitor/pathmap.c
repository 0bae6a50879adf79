/* The analysis module's pathmap (see pathmap.h): processes, their
 * collectors, and what each collector's name and place say. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/pathmap.h"

void
mon_pathmap_init(struct mon_pathmap *pm)
{
	memset(pm, 0, sizeof *pm);
}

void
mon_pathmap_free(struct mon_pathmap *pm)
{
	for (uint32_t i = 0; i < pm->n; i++)
		free(pm->p[i].coll);
	free(pm->p);
	memset(pm, 0, sizeof *pm);
}

/* Copies s (NULL: "") into dst of len bytes, cut to fit. */
static void
copy_str(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

int
mon_pathmap_proc(struct mon_pathmap *pm, const char *role, uint32_t rank,
                 const char *host, uint32_t *idx)
{
	if (!role || !role[0] || strlen(role) >= MON_ROLE_LEN)
		return GROVE_EINVAL;
	for (uint32_t i = 0; i < pm->n; i++)
		if (pm->p[i].rank == rank && !strcmp(pm->p[i].role, role)) {
			if (host && host[0])
				copy_str(pm->p[i].host, MON_HOST_LEN, host);
			*idx = i;
			return 0;
		}
	if (pm->n == pm->cap) {
		uint32_t nc = pm->cap ? pm->cap * 2 : 16;
		struct mon_proc *np = realloc(pm->p, nc * sizeof *np);
		if (!np)
			return GROVE_ENOMEM;
		pm->p = np;
		pm->cap = nc;
	}
	struct mon_proc *p = &pm->p[pm->n];
	memset(p, 0, sizeof *p);
	copy_str(p->role, MON_ROLE_LEN, role);
	p->rank = rank;
	snprintf(p->label, MON_LABEL_LEN, "%s %" PRIu32, role, rank);
	copy_str(p->host, MON_HOST_LEN, host);
	/* A CP's rank is its node id (its segment is grove.NET.cp.NODE);
	 * the front-end is the root, node 0.  Others learn theirs from
	 * their links. */
	p->node = !strcmp(role, "cp") ? (int64_t)rank :
	          !strcmp(role, "fe") && rank == 0 ? 0 : -1;
	*idx = pm->n++;
	pm->gen++;
	return 0;
}

/* The MPI functions every rank of a communicator calls in the same
 * order (the collectives, blocking and not, and the neighbourhood
 * ones). */
static const char *const collectives[] = {
	"Barrier", "Bcast", "Reduce", "Allreduce", "Scatter", "Scatterv",
	"Gather", "Gatherv", "Allgather", "Allgatherv", "Alltoall",
	"Alltoallv", "Alltoallw", "Reduce_scatter", "Reduce_scatter_block",
	"Scan", "Exscan", "Ibarrier", "Ibcast", "Ireduce", "Iallreduce",
	"Igather", "Igatherv", "Iscatter", "Iscatterv", "Iallgather",
	"Iallgatherv", "Ialltoall", "Ialltoallv", "Ialltoallw",
	"Ireduce_scatter", "Ireduce_scatter_block", "Iscan", "Iexscan",
	"Neighbor_allgather", "Neighbor_alltoall",
};

int
mon_mpi_collective(const char *name)
{
	if (strncmp(name, "MPI_", 4))
		return 0;
	for (size_t i = 0; i < sizeof collectives / sizeof *collectives; i++)
		if (!strcmp(name + 4, collectives[i]))
			return 1;
	return 0;
}

/* Parses a decimal number that fills s entirely (no sign, no spaces,
 * at most 18 digits); -1 otherwise.  The places come from the event
 * spaces: nothing in them is trusted to be well formed. */
static int64_t
number(const char *s, size_t len)
{
	if (!len || len > 18)
		return -1;
	int64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "PREFIX<number>" exactly: the number, else -1. */
static int64_t
prefixed(const char *s, const char *prefix)
{
	size_t pl = strlen(prefix);
	if (strncmp(s, prefix, pl))
		return -1;
	return number(s + pl, strlen(s + pl));
}

/* "link:A->B": 0 and both node ids; -1 when it is not one. */
static int
parse_link(const char *w, int64_t *a, int64_t *b)
{
	if (strncmp(w, "link:", 5))
		return -1;
	const char *arrow = strstr(w + 5, "->");
	if (!arrow)
		return -1;
	*a = number(w + 5, (size_t)(arrow - (w + 5)));
	*b = number(arrow + 2, strlen(arrow + 2));
	return *a < 0 || *b < 0 ? -1 : 0;
}

static void
classify(struct mon_collector *c, struct mon_proc *p)
{
	c->kind = MON_K_OTHER;
	c->collective = 0;
	c->a = c->b = -1;
	if (!strcmp(c->layer, "net")) {
		if (parse_link(c->where, &c->a, &c->b) == 0) {
			c->kind = MON_K_LINK;
			/* A process's send links start at its own node. */
			if (!strcmp(c->name, "link.send") && p->node < 0)
				p->node = c->a;
		}
	} else if (!strcmp(c->layer, "filter")) {
		c->kind = MON_K_FILTER;
		c->a = prefixed(c->where, "stream:");
	} else if (!strcmp(c->layer, "tbon")) {
		int64_t s = prefixed(c->where, "stream:");
		if (!strcmp(c->name, "wave"))
			c->kind = MON_K_WAVE;
		else if (!strcmp(c->name, "wave.last_be"))
			c->kind = MON_K_LAST_BE;
		else if (!strcmp(c->name, "wave.last_cp"))
			c->kind = MON_K_LAST_CP;
		if (c->kind != MON_K_OTHER && s < 0)
			c->kind = MON_K_OTHER; /* not a stream's: not a wave */
		c->a = s;
	} else if (!strcmp(c->layer, "api")) {
		c->kind = MON_K_API;
	} else if (!strcmp(c->layer, "mpi")) {
		if (!strcmp(c->name, "comm")) {
			/* where "comm:CTX:FIRST", position "size:N" */
			int64_t size = prefixed(c->position, "size:");
			if (!strncmp(c->where, "comm:", 5) && size > 0 &&
			    size <= (int64_t)1 << 30) {
				c->kind = MON_K_MPI_COMM;
				c->a = size;
			}
		} else if (!strncmp(c->name, "MPI_", 4)) {
			c->kind = MON_K_MPI;
			c->collective = (uint8_t)mon_mpi_collective(c->name);
		}
	}
}

int
mon_pathmap_collector(struct mon_pathmap *pm, uint32_t proc, uint32_t id,
                      const char *name, const char *layer, const char *where,
                      const char *position)
{
	if (proc >= pm->n || id == 0 || id > MON_MAX_COLLECTORS)
		return GROVE_EINVAL;
	struct mon_proc *p = &pm->p[proc];
	if (id > p->n_coll) {
		uint32_t nc = p->n_coll ? p->n_coll : 32;
		while (nc < id)
			nc *= 2;
		if (nc > MON_MAX_COLLECTORS)
			nc = MON_MAX_COLLECTORS;
		struct mon_collector *c = realloc(p->coll, nc * sizeof *c);
		if (!c)
			return GROVE_ENOMEM;
		memset(c + p->n_coll, 0, (nc - p->n_coll) * sizeof *c);
		p->coll = c;
		p->n_coll = nc;
	}
	struct mon_collector *c = &p->coll[id - 1];
	copy_str(c->name, MON_NAME_LEN, name);
	copy_str(c->layer, MON_LAYER_LEN, layer);
	copy_str(c->where, MON_WHERE_LEN, where);
	copy_str(c->position, MON_POS_LEN, position);
	classify(c, p);
	pm->gen++;
	return 0;
}

int64_t
mon_pathmap_find(const struct mon_pathmap *pm, const char *label)
{
	for (uint32_t i = 0; i < pm->n; i++)
		if (!strcmp(pm->p[i].label, label))
			return i;
	return -1;
}

int64_t
mon_pathmap_find_node(const struct mon_pathmap *pm, int64_t node)
{
	if (node < 0)
		return -1;
	for (uint32_t i = 0; i < pm->n; i++)
		if (pm->p[i].node == node)
			return i;
	return -1;
}

static int
role_order(const char *role, size_t len)
{
	static const char *const order[] = {"fe", "cp", "be", "mpi"};
	for (int i = 0; i < 4; i++)
		if (strlen(order[i]) == len && !strncmp(role, order[i], len))
			return i;
	return 4;
}

/* Splits "role rank": 0, or -1 when s is not a label. */
static int
split_label(const char *s, size_t *rolelen, int64_t *rank)
{
	const char *sp = strchr(s, ' ');
	if (!sp || sp == s)
		return -1;
	*rolelen = (size_t)(sp - s);
	*rank = number(sp + 1, strlen(sp + 1));
	return *rank < 0 ? -1 : 0;
}

int
mon_label_cmp(const char *a, const char *b)
{
	size_t la, lb;
	int64_t ra, rb;
	if (split_label(a, &la, &ra) || split_label(b, &lb, &rb))
		return strcmp(a, b);
	int oa = role_order(a, la), ob = role_order(b, lb);
	if (oa != ob)
		return oa < ob ? -1 : 1;
	if (oa == 4) {
		size_t l = la < lb ? la : lb;
		int c = strncmp(a, b, l);
		if (c || la != lb)
			return c ? c : la < lb ? -1 : 1;
	}
	return ra < rb ? -1 : ra > rb;
}
