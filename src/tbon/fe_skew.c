/* Front-end API of clock-skew detection: start a run at the root, drive
 * the loop until the result is in or the time is up, hand it out per
 * rank.  The protocol itself is in skew.c. */
#include <stdio.h>
#include <string.h>

#include "net/sockio.h"
#include "tbon/fe_internal.h"
#include "tbon/skew.h"

int64_t
grove_clock_now_ns(void)
{
	return skew_clock_ns(0);
}

int
grove_net_clock_skew(grove_net *net, unsigned rounds, grove_skew *out,
    int timeout_ms)
{
	if (!net || !out || !net->n.loop_ready)
		return GROVE_EINVAL;
	if (rounds == 0)
		rounds = SKEW_DEFAULT_ROUNDS;
	if (rounds > SKEW_MAX_ROUNDS) {
		fe_set_error(net, "clock skew: %u rounds, at most %u", rounds,
		    SKEW_MAX_ROUNDS);
		return GROVE_EINVAL;
	}
	node *n = &net->n;
	uint32_t nb = grove_topo_backends(net->topo);
	for (uint32_t r = 0; r < nb; r++) {
		out[r].rank = r;
		out[r].offset_ns = 0;
		out[r].error_ns = GROVE_SKEW_UNKNOWN;
	}
	uint64_t budget = (uint64_t)(timeout_ms > 0 ? timeout_ms : n->timeout_ms);
	uint64_t deadline = sockio_now_ms() + budget;
	int rc = node_skew_start(n, net->next_req++, rounds, budget);
	if (rc != 0) {
		fe_set_error(net, "clock skew: cannot start (%s)", grove_strerror(rc));
		return rc;
	}
	while (!node_skew_done(n)) {
		uint64_t now = sockio_now_ms();
		if (now >= deadline) {
			node_skew_finish(n);
			break;
		}
		uint64_t left = deadline - now;
		fe_run(net, left > 50 ? 50 : (int)left);
	}
	const uint32_t *ranks = NULL;
	const int64_t *off = NULL;
	const uint64_t *err = NULL;
	size_t k = node_skew_result(n, &ranks, &off, &err);
	uint32_t measured = 0;
	for (size_t i = 0; i < k; i++) {
		if (ranks[i] >= nb || out[ranks[i]].error_ns != GROVE_SKEW_UNKNOWN)
			continue;
		out[ranks[i]].offset_ns = off[i];
		out[ranks[i]].error_ns = err[i];
		measured++;
	}
	fe_settle(net);
	/* Shipped event spaces are aligned with the latest offsets. */
	fe_trace_offsets_store(net, out, nb);
	if (measured < nb) {
		uint32_t first = 0;
		while (first < nb && out[first].error_ns != GROVE_SKEW_UNKNOWN)
			first++;
		fe_set_error(net, "clock skew: %u of %u back-ends not measured "
		    "within %llu ms (lost or not calling Grove; first: rank %u)",
		    nb - measured, nb, (unsigned long long)budget, first);
	}
	return (int)measured;
}
