/* The front-end's check, at the exit-time collection (GROVE_TRACE_DUMP,
 * GROVE_TRACE_STATS), that the collected trace covers the topology:
 * which processes left no event space in /dev/shm and how many threads
 * recorded into no ring.  The processes that lost their tracing (a full
 * or read-only /dev/shm, a file size limit) say so only with GROVE_LOG,
 * which is off by default: without this line a trace that lacks whole
 * back-ends looks complete.  Processes the front-end saw lost during the
 * run (a killed CP, a back-end whose link broke) are listed apart: their
 * event space went with them or never shipped, and blaming their
 * tracing would send the user after /dev/shm for nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbon/fe_internal.h"
#include "trace/reader.h"
#include "trace/space.h"

/* The processes whose event space is a link's send collector in the
 * registry of segment s: the back-ends (or CPs) running in the
 * front-end's own process record there, not under their own names. */
static void
mark_joined(const struct trace_seg *s, const grove_topo *t, uint8_t *have)
{
	uint32_t n = trace_seg_n_collectors(s);
	for (uint32_t i = 0; i < n; i++) {
		struct trace_collector_entry e;
		off_t off = (off_t)(s->hdr.registry_offset + (uint64_t)i *
		    sizeof e);
		if (pread(s->fd, &e, sizeof e, off) != (ssize_t)sizeof e)
			return;
		e.name[sizeof e.name - 1] = 0;
		e.where[sizeof e.where - 1] = 0;
		unsigned from, to;
		if (strcmp(e.name, "link.send") ||
		    sscanf(e.where, "link:%u->%u", &from, &to) != 2)
			continue;
		if (from < grove_topo_size(t))
			have[from] = 1;
	}
}

/* Appends to buf (len bytes, kept terminated) the ids of `role` whose
 * node is not in skip, as ranges: "; be 0-3,7".  ids[k] is the id the
 * segment names (a CP's node id, a back-end's rank), node[k] its node. */
static void
put_missing(char *buf, size_t len, const char *role, const uint32_t *ids,
            const uint32_t *node, size_t n, const uint8_t *skip)
{
	size_t used = strlen(buf);
	int first = 1;
	for (size_t k = 0; k < n; k++) {
		if (skip[node[k]])
			continue;
		size_t end = k;
		while (end + 1 < n && !skip[node[end + 1]] &&
		    ids[end + 1] == ids[end] + 1)
			end++;
		char one[48];
		if (end == k)
			snprintf(one, sizeof one, "%s%s%s%u", first && used ?
			    "; " : "", first ? role : "", first ? " " : ",",
			    ids[k]);
		else
			snprintf(one, sizeof one, "%s%s%s%u-%u", first && used ?
			    "; " : "", first ? role : "", first ? " " : ",",
			    ids[k], ids[end]);
		first = 0;
		if (used + strlen(one) + 4 >= len) {
			snprintf(buf + used, len - used, "...");
			return;
		}
		memcpy(buf + used, one, strlen(one) + 1);
		used += strlen(one);
		k = end;
	}
}

void
fe_trace_missing_report(grove_net *net, const char *own)
{
	const grove_topo *t = net->topo;
	uint32_t nn = t ? grove_topo_size(t) : 0;
	/* GROVE_TRACE=0 here: the user asked for no tracing, and the
	 * collection already said it found nothing. */
	if (!nn || trace_off_by_env())
		return;
	char **names;
	size_t n;
	/* Quiet: the collection named another user's files already. */
	if (trace_list_with(net->netid, own, NULL, &names, &n) != 0)
		return; /* the collection said why /dev/shm cannot be read */
	uint8_t *have = calloc(nn, 1);
	uint32_t *ids = malloc(nn * sizeof *ids);
	uint32_t *node = malloc(nn * sizeof *node);
	uint8_t *skip_off = calloc(nn, 1), *skip_lost = calloc(nn, 1);
	if (!have || !ids || !node || !skip_off || !skip_lost)
		goto out;
	unsigned long without = 0;
	for (size_t i = 0; i < n; i++) {
		char nid[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
		uint32_t rank;
		struct trace_seg s;
		struct trace_header h;
		char err[256];
		int mine = own && !strcmp(names[i], own);
		if (trace_parse_name(names[i], nid, sizeof nid, role,
		    sizeof role, &rank) != 0 ||
		    trace_seg_open(names[i], &s, err, sizeof err) != 0)
			continue; /* the collection named a damaged one */
		if (trace_seg_header(&s, &h) == 0)
			without += h.threads_without_ring;
		if (mine) {
			have[0] = 1;
			mark_joined(&s, t, have);
		}
		trace_seg_close(&s);
		if (mine || strcmp(nid, net->netid))
			continue;
		int64_t id = !strcmp(role, "be") ? grove_topo_be_node(t, rank) :
		    !strcmp(role, "cp") || !strcmp(role, "fe") ? (int64_t)rank :
		    -1;
		if (id >= 0 && (uint32_t)id < nn)
			have[id] = 1;
	}
	/* Lost: named by a NODE_LOST, or below one that was (its processes
	 * went with it), or a back-end rank the front-end marked lost. */
	for (uint32_t id = 1; id < nn; id++) {
		const grove_topo_node *nd = grove_topo_node_at(t, id);
		int gone = nd->role == GROVE_ROLE_BE &&
		    nd->be_rank < grove_topo_backends(t) &&
		    net->be_state[nd->be_rank] == FE_BE_LOST;
		for (int32_t a = (int32_t)id; !gone && a > 0;
		    a = grove_topo_node_at(t, (uint32_t)a)->parent)
			gone = net->node_lost[a];
		/* skip_off: have or lost; skip_lost: have or not lost. */
		skip_off[id] = have[id] || gone;
		skip_lost[id] = have[id] || !gone;
	}
	skip_off[0] = have[0];
	skip_lost[0] = 1;
	char list[512] = "", lost[512] = "";
	uint32_t k = 0;
	if (!have[0])
		snprintf(list, sizeof list, "fe 0");
	for (uint32_t id = 1; id < nn; id++)
		if (grove_topo_node_at(t, id)->role == GROVE_ROLE_CP) {
			ids[k] = id;
			node[k++] = id;
		}
	put_missing(list, sizeof list, "cp", ids, node, k, skip_off);
	put_missing(lost, sizeof lost, "cp", ids, node, k, skip_lost);
	k = 0;
	for (uint32_t r = 0; r < grove_topo_backends(t); r++) {
		int64_t id = grove_topo_be_node(t, r);
		if (id > 0 && (uint32_t)id < nn) {
			ids[k] = r;
			node[k++] = (uint32_t)id;
		}
	}
	put_missing(list, sizeof list, "be", ids, node, k, skip_off);
	put_missing(lost, sizeof lost, "be", ids, node, k, skip_lost);
	char threads[128] = "";
	if (without)
		snprintf(threads, sizeof threads, "%s%lu thread(s) found no ring "
		    "(all taken, or /dev/shm full)", list[0] || lost[0] ?
		    "; " : "", without);
	/* Said whatever GROVE_LOG is: the user asked for a trace. */
	if (list[0] || lost[0] || threads[0])
		fprintf(stderr, "grove: the trace of network %s is incomplete: "
		    "%s%s%s%s%s%s%s\n", net->netid, list[0] ? "no event space "
		    "of " : "", list, list[0] ? " (their tracing was off: "
		    "/dev/shm full or read-only, or a file size limit; "
		    "GROVE_LOG=warn says why)" : "", list[0] && lost[0] ? "; " :
		    "", lost[0] ? "lost during the run: "
		    : "", lost, threads);
out:
	free(have);
	free(ids);
	free(node);
	free(skip_off);
	free(skip_lost);
	trace_list_free(names, n);
}
