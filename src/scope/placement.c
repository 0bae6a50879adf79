/* Which node reads which event spaces (see placement.h). */
#include <string.h>

#include "scope/placement.h"

static int
is_reader_role(const grove_topo_node *k)
{
	return k->role == GROVE_ROLE_FE || k->role == GROVE_ROLE_CP;
}

int64_t
scope_host_reader(const grove_topo *t, uint32_t id)
{
	const grove_topo_node *m = grove_topo_node_at(t, id);
	if (!m)
		return -1;
	uint32_t n = grove_topo_size(t);
	for (uint32_t i = 0; i < n; i++) {
		const grove_topo_node *k = grove_topo_node_at(t, i);
		if (is_reader_role(k) && !strcmp(k->host, m->host))
			return i;
	}
	return -1;
}

int64_t
scope_reader_of(const grove_topo *t, uint32_t id, int readers)
{
	const grove_topo_node *m = grove_topo_node_at(t, id);
	if (!m)
		return -1;
	if (readers == SCOPE_READERS_NODE) {
		if (is_reader_role(m))
			return id;
		const grove_topo_node *p =
		    m->parent >= 0 ? grove_topo_node_at(t, (uint32_t)m->parent)
		                   : NULL;
		if (p && !strcmp(p->host, m->host))
			return p->id;
	}
	return scope_host_reader(t, id);
}

uint32_t
scope_readers_count(const grove_topo *t, int readers)
{
	uint32_t n = grove_topo_size(t), count = 0;
	for (uint32_t i = 0; i < n; i++) {
		const grove_topo_node *k = grove_topo_node_at(t, i);
		if (!is_reader_role(k))
			continue;
		/* A reader reads at least itself. */
		count += scope_reader_of(t, i, readers) == (int64_t)i;
	}
	return count;
}

int64_t
scope_node_of(const grove_topo *t, const char *role, uint32_t rank)
{
	if (!strcmp(role, "fe"))
		return rank == 0 ? 0 : -1;
	if (!strcmp(role, "cp")) {
		const grove_topo_node *k = grove_topo_node_at(t, rank);
		return k && k->role == GROVE_ROLE_CP ? (int64_t)rank : -1;
	}
	if (!strcmp(role, "be"))
		return grove_topo_be_node(t, rank);
	return -1;
}
