/* The front-end's side of re-parenting (docs/recovery.md, "What the
 * front-end is told"): REPARENTED becomes GROVE_EV_REPARENTED, and the
 * current parent of every node is kept for grove_net_node_parent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"

int
fe_parents_init(grove_net *net)
{
	uint32_t n = grove_topo_size(net->topo);
	net->node_parent = calloc(n ? n : 1, sizeof *net->node_parent);
	if (!net->node_parent)
		return GROVE_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		int32_t p = grove_topo_node_at(net->topo, i)->parent;
		net->node_parent[i] = p > 0 ? (uint32_t)p : 0;
	}
	return 0;
}

void
fe_reparented(grove_net *net, grove_packet *p)
{
	grove_event ev;
	memset(&ev, 0, sizeof ev);
	const char *why = NULL;
	const uint32_t *moved = NULL;
	uint64_t nm = 0;
	/* Checked on the way up (node_child_msg.c). */
	if (grove_packet_unpack(p, PROTO_REPARENTED, &ev.node, &ev.rank_lo,
	    &ev.rank_hi, &ev.parent, &why, &moved, &nm) != 0)
		return;
	uint32_t size = grove_topo_size(net->topo);
	ev.type = GROVE_EV_REPARENTED;
	char who[160];
	node_describe_id(&net->n, ev.node, who, sizeof who);
	int o = snprintf(ev.text, sizeof ev.text, "%s lost: %s; its children "
	    "now under node %u:", who, why, ev.parent);
	for (uint64_t i = 0; i < nm; i++) {
		if (moved[i] < size && net->node_parent)
			net->node_parent[moved[i]] = ev.parent;
		if (o > 0 && (size_t)o < sizeof ev.text)
			o += snprintf(ev.text + o, sizeof ev.text - (size_t)o,
			    "%s node %u", i ? "," : "", moved[i]);
	}
	if (o >= (int)sizeof ev.text)
		memcpy(ev.text + sizeof ev.text - 4, "...", 4);
	if (ev.node < size)
		net->node_lost[ev.node] = 1;
	log_info("%s", ev.text);
	fe_event(net, &ev);
}

int
grove_net_node_parent(const grove_net *net, uint32_t node, uint32_t *parent)
{
	if (!net || !parent || !net->topo || node == 0)
		return GROVE_EINVAL;
	if (node >= grove_topo_size(net->topo))
		return GROVE_ERANGE;
	*parent = net->node_parent ? net->node_parent[node] :
	    (uint32_t)grove_topo_node_at(net->topo, node)->parent;
	return 0;
}
