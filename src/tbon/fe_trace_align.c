/* The front-end measures its network's clock offsets before it collects
 * event spaces from other hosts, so that it can write each process's
 * offset into its copy (trace/align.h, docs/tracing.md). */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "net/spawn.h"
#include "tbon/fe_internal.h"
#include "trace/align.h"

void
fe_trace_offsets_store(grove_net *net, const grove_skew *sk, uint32_t n)
{
	if (!net->trace_offsets &&
	    !(net->trace_offsets = trace_fe_offsets_new()))
		return;
	if (trace_fe_offsets_set(net->trace_offsets, sk, n) != 0)
		log_warn("trace: no room to keep the clock offsets");
}

/* Offsets are worth their time only when event spaces come from other
 * hosts, or when tests make every process ship or ask for the front-end's
 * timeline on one machine. */
static int
offsets_wanted(const grove_net *net)
{
	const char *ship = getenv("GROVE_TRACE_SHIP");
	const char *tl = getenv("GROVE_TRACE_TIMELINE");
	if ((ship && !strcmp(ship, "all")) || (tl && !strcmp(tl, "frontend")))
		return 1;
	for (uint32_t i = 0; i < grove_topo_size(net->topo); i++)
		if (!spawn_host_is_local(grove_topo_node_at(net->topo, i)->host))
			return 1;
	return 0;
}

int
fe_trace_offsets_measure(grove_net *net, int budget_ms)
{
	uint32_t nb = grove_topo_backends(net->topo);
	if (!offsets_wanted(net) || nb == 0)
		return 0;
	grove_skew *sk = calloc(nb, sizeof *sk);
	if (!sk)
		return GROVE_ENOMEM;
	/* Stores the result in net->trace_offsets. */
	int rc = grove_net_clock_skew(net, 0, sk, budget_ms);
	free(sk);
	if (rc >= 0 && (uint32_t)rc < nb)
		log_warn("trace: clock offsets of %u of %u back-ends not "
		    "measured; their event spaces keep their own clocks",
		    nb - (uint32_t)rc, nb);
	return rc;
}
