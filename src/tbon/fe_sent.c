/* Blocking-send semantics for the front-end: wait until what was sent
 * has left this process (grove_net_wait_sent). */
#include <uv.h>

#include "net/sockio.h"
#include "tbon/fe_internal.h"

/* Below this much waiting the loop is polled instead of slept in: libuv
 * timers have millisecond resolution, and a benchmark of sequential sends
 * (MagPIe's original broadcast) must not add a millisecond per send. */
#define SENT_SPIN_NS 2000000u

int
grove_net_wait_sent(grove_net *net, int timeout_ms)
{
	if (!net || !net->n.loop_ready)
		return GROVE_EINVAL;
	node *n = &net->n;
	uint64_t deadline = sockio_now_ms() +
	    (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	/* The first pass runs the loop even with no time to wait: a write
	 * under way moves only there, and a tool may poll with 0. */
	for (int first = 1;; first = 0) {
		node_flush_all(n);
		uint64_t now = uv_hrtime(), wait = 0;
		for (uint32_t i = 0; i < n->n_children; i++) {
			if (!n->children[i].c)
				continue;
			uint64_t w = conn_unsent_ns(n->children[i].c, now);
			if (w > wait)
				wait = w;
		}
		if (!wait) {
			fe_settle(net);
			return 0;
		}
		uint64_t ms_now = sockio_now_ms();
		if (timeout_ms >= 0 && ms_now >= deadline && !first) {
			fe_set_error(net, "sent data still waiting to leave after %d "
			    "ms", timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		int ms = 0;
		if (wait > SENT_SPIN_NS)
			ms = (int)((wait - SENT_SPIN_NS / 2) / 1000000u);
		if (ms > 50)
			ms = 50;
		if (timeout_ms >= 0)
			ms = ms_now >= deadline ? 0 :
			    (uint64_t)ms > deadline - ms_now ?
			    (int)(deadline - ms_now) : ms;
		fe_run(net, ms);
	}
}
