/* The topology tree: construction from a pre-order parent array, the
 * accessors and routing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_impl.h"

int
topo_is_host_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

/* Fill in everything that follows from the parents.  Pre-order makes this
 * a pair of linear passes: a parent always precedes its children, so depths
 * and BE ranks go forward, subtree sizes go backward. */
static int
topo_derive(grove_topo *t)
{
	uint32_t n = t->n, rank = 0, off = 0;
	uint32_t *fill;

	for (uint32_t i = 0; i < n; i++) {
		grove_topo_node *nd = &t->nodes[i];
		int32_t p = nd->parent;

		nd->id = i;
		nd->be_rank = UINT32_MAX;
		if (i == 0 ? p != -1 : (p < 0 || (uint32_t)p >= i))
			return GROVE_EINVAL;
		if (i > 0) {
			nd->depth = t->nodes[p].depth + 1;
			t->nodes[p].n_children++;
		}
		if (nd->depth > t->depth)
			t->depth = nd->depth;
	}
	/* Children: a prefix sum gives each parent its slot range; filling in
	 * id order keeps each group in pre-order. */
	for (uint32_t i = 0; i < n; i++) {
		grove_topo_node *nd = &t->nodes[i];

		nd->first_child = off;
		off += nd->n_children;
		if (nd->n_children > t->max_fanout)
			t->max_fanout = nd->n_children;
		nd->role = i == 0 ? GROVE_ROLE_FE :
		    nd->n_children ? GROVE_ROLE_CP : GROVE_ROLE_BE;
		if (nd->role == GROVE_ROLE_BE)
			t->n_be++;
	}
	fill = calloc(n, sizeof *fill);
	t->be_node = malloc((t->n_be ? t->n_be : 1) * sizeof *t->be_node);
	if (!fill || !t->be_node) {
		free(fill);
		return GROVE_ENOMEM;
	}
	for (uint32_t i = 1; i < n; i++) {
		grove_topo_node *p = &t->nodes[t->nodes[i].parent];

		t->children[p->first_child + fill[p->id]++] = i;
	}
	free(fill);
	for (uint32_t i = 0; i < n; i++) {
		grove_topo_node *nd = &t->nodes[i];

		nd->be_lo = rank;
		if (nd->role == GROVE_ROLE_BE) {
			nd->be_rank = rank;
			t->be_node[rank++] = i;
		}
	}
	/* be_hi = be_lo + leaves below; the subtree of i is the id range
	 * [i, i + size), so the rank range is contiguous. */
	for (uint32_t i = 0; i < n; i++)
		t->nodes[i].be_hi = t->nodes[i].role == GROVE_ROLE_BE ? 1 : 0;
	for (uint32_t i = n; i-- > 1;)
		t->nodes[t->nodes[i].parent].be_hi += t->nodes[i].be_hi;
	for (uint32_t i = 0; i < n; i++)
		t->nodes[i].be_hi += t->nodes[i].be_lo;
	/* A parent array where a subtree is not contiguous (not pre-order)
	 * shows up as a child whose range escapes its parent's. */
	for (uint32_t i = 1; i < n; i++) {
		const grove_topo_node *nd = &t->nodes[i];
		const grove_topo_node *p = &t->nodes[nd->parent];

		if (nd->be_lo < p->be_lo || nd->be_hi > p->be_hi)
			return GROVE_EINVAL;
	}
	return 0;
}

int
topo_create(uint32_t n, const int32_t *parent, grove_topo **out)
{
	grove_topo *t;
	int rc;

	*out = NULL;
	if (n == 0 || !parent)
		return GROVE_EINVAL;
	t = calloc(1, sizeof *t);
	if (!t)
		return GROVE_ENOMEM;
	t->n = n;
	t->nodes = calloc(n, sizeof *t->nodes);
	t->children = malloc(n * sizeof *t->children);
	if (!t->nodes || !t->children) {
		grove_topo_destroy(t);
		return GROVE_ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		t->nodes[i].parent = parent[i];
	rc = topo_derive(t);
	if (rc) {
		grove_topo_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

const char *
topo_add_host(grove_topo *t, const char *name, size_t len)
{
	char *s;

	if (t->n_hosts == t->cap_hosts) {
		uint32_t cap = t->cap_hosts ? t->cap_hosts * 2 : 8;
		char **v = realloc(t->hosts, cap * sizeof *v);

		if (!v)
			return NULL;
		t->hosts = v;
		t->cap_hosts = cap;
	}
	s = malloc(len + 1);
	if (!s)
		return NULL;
	memcpy(s, name, len);
	s[len] = '\0';
	t->hosts[t->n_hosts++] = s;
	return s;
}

int
topo_place_localhost(grove_topo *t)
{
	const char *h = topo_add_host(t, "localhost", 9);

	if (!h)
		return GROVE_ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		t->nodes[i].host = h;
		t->nodes[i].instance = i;
	}
	return 0;
}

void
grove_topo_destroy(grove_topo *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n_hosts; i++)
		free(t->hosts[i]);
	free(t->hosts);
	free(t->nodes);
	free(t->children);
	free(t->be_node);
	free(t);
}

uint32_t
grove_topo_size(const grove_topo *t)
{
	return t ? t->n : 0;
}

uint32_t
grove_topo_backends(const grove_topo *t)
{
	return t ? t->n_be : 0;
}

uint32_t
grove_topo_depth(const grove_topo *t)
{
	return t ? t->depth : 0;
}

const grove_topo_node *
grove_topo_node_at(const grove_topo *t, uint32_t id)
{
	if (!t || id >= t->n)
		return NULL;
	return &t->nodes[id];
}

const uint32_t *
grove_topo_children(const grove_topo *t, uint32_t id)
{
	if (!t || id >= t->n)
		return NULL;
	return t->children + t->nodes[id].first_child;
}

int64_t
grove_topo_be_node(const grove_topo *t, uint32_t rank)
{
	if (!t || rank >= t->n_be)
		return -1;
	return t->be_node[rank];
}

int
grove_topo_route(const grove_topo *t, uint32_t id, uint32_t rank)
{
	const grove_topo_node *nd;
	const uint32_t *ch;
	uint32_t lo, hi;

	if (!t || id >= t->n)
		return -1;
	nd = &t->nodes[id];
	if (rank < nd->be_lo || rank >= nd->be_hi || !nd->n_children)
		return -1;
	/* Children's ranges are consecutive and non-empty (every subtree
	 * ends in BEs), so the child is the last one whose be_lo <= rank. */
	ch = t->children + nd->first_child;
	lo = 0;
	hi = nd->n_children;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->nodes[ch[mid]].be_lo <= rank)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}
