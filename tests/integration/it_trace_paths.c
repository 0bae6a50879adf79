/* The tuples the hot paths record, read from a running network: at every
 * node, one sync, transformation, wave and last-in tuple per reduction;
 * the last-in instant at the start of its wave's sync span (the clock is
 * read only for waves the sync filter releases); spans that never end
 * before they start; and a broadcast's flushes chained, each starting
 * where the previous one ended (they share a clock read), in the order of
 * the node's children in the topology.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "trace/trace_impl.h"
#include "../../src/proto/worker_protocol.h"

#define REDUCTIONS 6

static const char *
coll_name(const struct trace_proc *p, uint32_t id)
{
	const struct trace_collector_entry *e = trace_proc_collector(p, id);
	return e ? e->name : "";
}

static const char *
coll_where(const struct trace_proc *p, uint32_t id)
{
	const struct trace_collector_entry *e = trace_proc_collector(p, id);
	return e ? e->where : "";
}

/* The tuple of ring r with op, collector `where` and t_start, or NULL. */
static const grove_trace_tuple *
find(const struct trace_proc *p, const struct trace_ring_snap *r, uint16_t op,
    const char *where, uint64_t t_start, const char *name_prefix)
{
	for (size_t i = 0; i < r->n; i++) {
		const grove_trace_tuple *t = &r->t[i];
		if (t->op == op && t->t_start == t_start &&
		    !strcmp(coll_where(p, t->collector), where) &&
		    !strncmp(coll_name(p, t->collector), name_prefix,
		    strlen(name_prefix)))
			return t;
	}
	return NULL;
}

/* The node a "link:FROM->TO" collector sends to, or -1. */
static long
link_to(const char *where)
{
	const char *arrow = strstr(where, "->");
	return arrow ? strtol(arrow + 2, NULL, 10) : -1;
}

/* Whether a "link:FROM->TO" collector is a link to a child (kary numbers
 * children above their parent): a heartbeat to the parent may follow a
 * flush to the children in the same loop turn. */
static int
to_child(const char *where)
{
	const char *colon = strchr(where, ':');
	return colon && link_to(where) > strtol(colon + 1, NULL, 10);
}

/* Checks one node (front-end or CP); returns its chained flush pairs. */
static int
check_node(const struct trace_proc *p)
{
	int waves = 0, chained = 0;
	for (uint32_t k = 0; k < p->n_rings; k++) {
		const struct trace_ring_snap *r = &p->rings[k];
		const grove_trace_tuple *prev_writev = NULL;
		for (size_t i = 0; i < r->n; i++) {
			const grove_trace_tuple *t = &r->t[i];
			const char *name = coll_name(p, t->collector);
			if (t->t_end < t->t_start)
				IT_FAIL("%s: %s tuple ends before it starts",
				    p->label, name);
			if (!strcmp(name, "link.writev")) {
				int chain = prev_writev &&
				    prev_writev->t_end == t->t_start &&
				    to_child(coll_where(p,
				    prev_writev->collector)) &&
				    to_child(coll_where(p, t->collector));
				/* kary numbers nodes depth first, so a node's
				 * children are in increasing order. */
				if (chain && link_to(coll_where(p,
				    prev_writev->collector)) >= link_to(
				    coll_where(p, t->collector)))
					IT_FAIL("%s: flushed %s before %s, "
					    "against the topology's order",
					    p->label, coll_where(p,
					    prev_writev->collector),
					    coll_where(p, t->collector));
				chained += chain;
				prev_writev = t;
			} else if (t->op != GROVE_OP_SEND) {
				prev_writev = NULL;
			}
			if (strcmp(name, "wave") || t->op != GROVE_OP_WAVE)
				continue;
			waves++;
			const char *where = coll_where(p, t->collector);
			const grove_trace_tuple *sync = find(p, r,
			    GROVE_OP_FILTER_SYNC, where, t->t_start, "");
			const grove_trace_tuple *last = find(p, r, GROVE_OP_WAVE,
			    where, t->t_start, "wave.last_");
			if (!sync)
				IT_FAIL("%s: wave at %s has no sync span that "
				    "starts with it", p->label, where);
			if (!last || last->t_end != last->t_start)
				IT_FAIL("%s: wave at %s has no last-in instant at "
				    "its sync's start", p->label, where);
			/* The transformation starts where the sync ended. */
			if (!find(p, r, GROVE_OP_FILTER_TRANSFORM, where,
			    sync->t_end, ""))
				IT_FAIL("%s: wave at %s: no transformation "
				    "span after its sync", p->label, where);
		}
	}
	if (waves < REDUCTIONS)
		IT_FAIL("%s: %d waves recorded, want at least %d", p->label,
		    waves, REDUCTIONS);
	return chained;
}

/* Tuples of op in all rings of p; their results OR-ed as bits into
 * *results (results are node ids below 64 here). */
static int
count_op(const struct trace_proc *p, uint16_t op, uint64_t *results)
{
	int n = 0;
	for (uint32_t k = 0; k < p->n_rings; k++)
		for (size_t i = 0; i < p->rings[k].n; i++) {
			const grove_trace_tuple *t = &p->rings[k].t[i];
			if (t->op != op)
				continue;
			n++;
			if (results && t->result >= 0 && t->result < 64)
				*results |= 1ull << t->result;
		}
	return n;
}

/* API send and receive tuples that succeeded carry the packet's bytes
 * (the statistics' message sizes), never 0. */
static void
check_api_bytes(const struct trace_proc *p)
{
	int n = 0;
	for (uint32_t k = 0; k < p->n_rings; k++)
		for (size_t i = 0; i < p->rings[k].n; i++) {
			const grove_trace_tuple *t = &p->rings[k].t[i];
			if (t->op != GROVE_OP_API_SEND &&
			    t->op != GROVE_OP_API_RECV)
				continue;
			n++;
			if (t->result == 0)
				IT_FAIL("%s: API tuple (op %u) with result 0, "
				    "not the bytes", p->label, t->op);
		}
	if (n == 0)
		IT_FAIL("%s: no API tuple", p->label);
}

/* The collectors off the per-packet paths: connection setup (one per
 * child, result: the child's node id), stream creation at the front-end
 * and on every CP leading to the stream's members, and batch reads and
 * writes in every process. */
static void
check_setup_collectors(const struct trace_set *set)
{
	uint64_t connected = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		int node = strcmp(p->hdr.role, "be") != 0;
		uint64_t mine = 0;
		int connects = count_op(p, GROVE_OP_CONNECT, &mine);
		if (connects != (node ? 2 : 0))
			IT_FAIL("%s: %d connect tuples, want %d", p->label,
			    connects, node ? 2 : 0);
		if (connected & mine)
			IT_FAIL("%s: a child connected to two parents",
			    p->label);
		connected |= mine;
		int streams = count_op(p, GROVE_OP_STREAM_NEW, NULL);
		if (node && streams < 1)
			IT_FAIL("%s: no stream_new tuple", p->label);
		if (count_op(p, GROVE_OP_READ, NULL) < 1 ||
		    count_op(p, GROVE_OP_WRITEV, NULL) < 1)
			IT_FAIL("%s: no batch read or write tuple", p->label);
		/* A back-end records a send when the call returns, after
		 * its write: the front-end may hold the last reduction
		 * before that.  Every earlier send is recorded, since a
		 * back-end receives the next request only after its send
		 * call returned. */
		if (!node && (count_op(p, GROVE_OP_API_RECV, NULL) < REDUCTIONS ||
		    count_op(p, GROVE_OP_API_SEND, NULL) < REDUCTIONS - 1))
			IT_FAIL("%s: fewer API calls than reductions",
			    p->label);
		if (!node || !strcmp(p->hdr.role, "fe"))
			check_api_bytes(p);
	}
	/* kary:2 over 4 back-ends: nodes 1..6 below the front-end. */
	CHECK_UINT_EQ(connected, 0x7eull);
}

int
main(void)
{
	it_init("it_trace_paths", 120);
	unsetenv("GROVE_TRACE");
	it_step("--- %d reductions over kary:2, 4 back-ends", REDUCTIONS);
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	for (int i = 0; i < REDUCTIONS; i++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	}

	it_step("--- the event spaces of the running network");
	struct trace_set set;
	CHECK_OK(trace_set_collect(grove_net_id(net), &set));
	int nodes = 0, chained = 0;
	for (size_t i = 0; i < set.n; i++) {
		const struct trace_proc *p = &set.p[i];
		if (strcmp(p->hdr.role, "fe") && strcmp(p->hdr.role, "cp"))
			continue;
		nodes++;
		chained += check_node(p);
	}
	/* The front-end and CPs 1 and 4. */
	CHECK_INT_EQ(nodes, 3);
	CHECK_INT_EQ(set.n, 7);
	check_setup_collectors(&set);
	/* Each broadcast reaches two children at every node: their flushes
	 * follow each other, the second starting at the first's end. */
	if (chained < REDUCTIONS)
		IT_FAIL("%d chained flushes, want at least %d", chained,
		    REDUCTIONS);
	trace_set_free(&set);
	it_net_destroy(net);
	return it_done();
}
