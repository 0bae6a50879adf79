/* Streams at a node: the stream table, creation along the members'
 * paths, destruction, and who takes part in a stream as children come
 * and go (a back-end attaching late, the children of a lost CP adopted in
 * its place).  Upstream waves and their back-pressure are in
 * node_stream_up.c; downstream and the parent's messages in node_down.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* ---- the stream table (open addressing on the id; node.h) ----------- */

/* Rebuilds the table at cap slots, live streams only. */
static int
table_rebuild(node *n, size_t cap)
{
	node_stream **t = calloc(cap, sizeof *t);
	if (!t)
		return GROVE_ENOMEM;
	for (size_t i = 0; i < n->stream_cap; i++) {
		node_stream *o = n->streams[i];
		if (!o || o == NODE_STREAM_TOMBSTONE(n))
			continue;
		size_t j = node_stream_slot_of(o->id, cap);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = o;
	}
	free(n->streams);
	n->streams = t;
	n->stream_cap = cap;
	n->stream_tombs = 0;
	return 0;
}

static int
table_insert(node *n, node_stream *s)
{
	/* At most half the slots used, tombstones included. */
	if ((n->n_streams + n->stream_tombs + 1) * 2 > n->stream_cap) {
		size_t cap = n->stream_cap ? n->stream_cap : 16;
		while ((n->n_streams + 1) * 4 > cap)
			cap *= 2;
		int rc = table_rebuild(n, cap);
		if (rc != 0)
			return rc;
	}
	size_t j = node_stream_slot_of(s->id, n->stream_cap);
	while (n->streams[j] && n->streams[j] != NODE_STREAM_TOMBSTONE(n))
		j = (j + 1) & (n->stream_cap - 1);
	if (n->streams[j] == NODE_STREAM_TOMBSTONE(n))
		n->stream_tombs--;
	n->streams[j] = s;
	n->n_streams++;
	return 0;
}

static void
table_remove(node *n, node_stream *s)
{
	size_t cap = n->stream_cap;
	size_t i = cap ? node_stream_slot_of(s->id, cap) : 0;
	for (size_t probes = 0; probes < cap; probes++, i = (i + 1) & (cap - 1)) {
		if (!n->streams[i])
			return;
		if (n->streams[i] == s) {
			n->streams[i] = NODE_STREAM_TOMBSTONE(n);
			n->n_streams--;
			n->stream_tombs++;
			return;
		}
	}
}

static void
stream_free(node *n, node_stream *s)
{
	if (!s)
		return;
	if (s->up)
		flt_state_free(s->up, s->up_state);
	if (s->down)
		flt_state_free(s->down, s->down_state);
	sync_destroy(s->sync);
	for (int i = 0; i < 3; i++)
		grove_packet_unref(s->params[i]);
	free(s->slot_child);
	free(s->child_slot);
	free(s->gone_node);
	free(s->gone_code);
	free(s->base);
	free(s->acked);
	free(s->ack_bytes);
	free(s->replaced);
	share_keep_fini(&s->keep);
	share_keep_fini(&s->down_keep);
	free(s->members);
	free(s);
}

/* Grows the per-child and per-slot arrays (a node has at most one slot
 * per child) to room for nchildren, new entries zero (child_slot: -1). */
static int
stream_grow(node_stream *s, uint32_t nchildren)
{
	if (nchildren <= s->slot_cap)
		return 0;
	size_t n = nchildren, o = s->slot_cap;
#define GROW(field) do { \
		void *q_ = realloc(s->field, n * sizeof *s->field); \
		if (!q_) \
			return GROVE_ENOMEM; \
		s->field = q_; \
		memset(s->field + o, 0, (n - o) * sizeof *s->field); \
	} while (0)
	GROW(child_slot);
	GROW(slot_child);
	GROW(gone_node);
	GROW(gone_code);
	GROW(base);
	GROW(acked);
	GROW(ack_bytes);
	GROW(replaced);
#undef GROW
	for (size_t i = o; i < n; i++)
		s->child_slot[i] = -1;
	s->slot_cap = nchildren;
	return 0;
}

void
node_streams_free(node *n)
{
	for (size_t i = 0; i < n->stream_cap; i++)
		if (n->streams[i] && n->streams[i] != NODE_STREAM_TOMBSTONE(n))
			stream_free(n, n->streams[i]);
	free(n->streams);
	n->streams = NULL;
	n->stream_cap = n->n_streams = n->stream_tombs = 0;
	free(n->sync_paused);
	n->sync_paused = NULL;
	n->n_sync_paused = 0;
}

/* ---- creation ------------------------------------------------------- */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Index of the first of the sorted members that is >= r. */
static size_t
members_from(const node_stream *s, uint32_t r)
{
	size_t lo = 0, hi = s->n_members;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->members[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether a member is in [lo, hi). */
static int
has_member_in(const node_stream *s, uint32_t lo, uint32_t hi)
{
	size_t i = members_from(s, lo);
	return i < s->n_members && s->members[i] < hi;
}

void
node_stream_tell_child(node *n, node_stream *s, uint32_t idx)
{
	node_child *ch = &n->children[idx];
	if (!ch->c)
		return;
	size_t lo = members_from(s, ch->be_lo), hi = members_from(s, ch->be_hi);
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_STREAM_NEW, s->id, 0, n->rank, 0,
		PROTO_STREAM_NEW, s->id, s->members + lo, (uint64_t)(hi - lo),
		s->up->name, sync_kind_name(s->sync_kind), s->down->name,
		s->timeout_ms) != 0)
		return;
	node_send(n, ch->c, p);
	grove_packet_unref(p);
}

int
node_stream_create(node *n, uint32_t id, const uint32_t *members,
    size_t n_members, const char *up, const char *sync, const char *down,
    uint32_t timeout_ms, char *err, size_t errlen)
{
	uint64_t t0 = grove_trace_begin();
	if (node_stream_find(n, id)) {
		snprintf(err, errlen, "stream %u exists already", id);
		return GROVE_EINVAL;
	}
	node_stream *s = calloc(1, sizeof *s);
	if (!s)
		return GROVE_ENOMEM;
	s->id = id;
	s->timeout_ms = timeout_ms;
	s->up = flt_lookup(n->filters, up);
	s->down = flt_lookup(n->filters, down);
	if (!s->up || !s->down) {
		snprintf(err, errlen, "node %u: unknown filter '%s'", n->id,
		    !s->up ? up : down);
		free(s);
		return GROVE_ENOENT;
	}
	s->down_is_null = !strcmp(s->down->name, "null");
	if (sync_kind_parse(sync, &s->sync_kind) != 0) {
		snprintf(err, errlen, "node %u: unknown sync filter '%s'", n->id,
		    sync);
		free(s);
		return GROVE_ENOENT;
	}
	s->members = malloc((n_members ? n_members : 1) * sizeof *s->members);
	if (!s->members || stream_grow(s, n->n_children ? n->n_children : 1)) {
		stream_free(n, s);
		return GROVE_ENOMEM;
	}
	/* Keep only members below this node, sorted. */
	for (size_t i = 0; i < n_members; i++)
		if (members[i] >= n->place.be_lo && members[i] < n->place.be_hi)
			s->members[s->n_members++] = members[i];
	qsort(s->members, s->n_members, sizeof *s->members, cmp_u32);
	/* A child takes part when a member is in its rank range.  A lost CP
	 * whose children were expected here does not: they do (children
	 * adopted from it come after the topology's own, docs/recovery.md). */
	for (uint32_t c = 0; c < n->n_children; c++) {
		node_child *ch = &n->children[c];
		if (!ch->replaced && has_member_in(s, ch->be_lo, ch->be_hi)) {
			s->child_slot[c] = (int32_t)s->nslots;
			s->slot_child[s->nslots++] = c;
		}
	}
	s->sync = sync_new(s->sync_kind, s->nslots, timeout_ms);
	if (!s->sync || table_insert(n, s) != 0) {
		stream_free(n, s);
		return GROVE_ENOMEM;
	}
	/* Children that are already gone never contribute. */
	for (uint32_t k = 0; k < s->nslots; k++)
		if (n->children[s->slot_child[k]].state == CHILD_GONE) {
			s->gone_node[k] = n->children[s->slot_child[k]].node_id;
			s->gone_code[k] = GROVE_ELOST;
			sync_slot_gone(s->sync, k);
		}
	node_stream_check_empty(n, s);
	char where[32];
	snprintf(where, sizeof where, "stream:%u", id);
	grove_trace_collector_register(&s->tc_sync, sync, "filter", where,
	    "before:transform");
	grove_trace_collector_register(&s->tc_up, up, "filter", where,
	    "after:sync");
	grove_trace_collector_register(&s->tc_wave, "wave", "tbon", where,
	    "after:transform");
	grove_trace_collector_register(&s->tc_last_be, "wave.last_be", "tbon",
	    where, "before:sync");
	grove_trace_collector_register(&s->tc_last_cp, "wave.last_cp", "tbon",
	    where, "before:sync");
	/* Tell the children on the path, each with its own members; one
	 * expected back from a lost CP hears of it when it comes. */
	for (uint32_t k = 0; k < s->nslots; k++)
		node_stream_tell_child(n, s, s->slot_child[k]);
	grove_trace_record(&n->tc_stream_new, GROVE_OP_STREAM_NEW, (int32_t)id, t0,
	    grove_trace_begin());
	return 0;
}

void
node_stream_destroy(node *n, uint32_t id, int forward)
{
	node_stream *s = node_stream_find(n, id);
	if (!s)
		return;
	if (forward) {
		grove_packet *p = NULL;
		if (wire_pack(&p, WIRE_T_STREAM_DEL, id, 0, n->rank, 0,
			PROTO_STREAM_DEL, id) == 0) {
			node_send_down(n, s, p, 0);
			grove_packet_unref(p);
		}
	}
	/* Children whose reads were paused for this stream may go on. */
	for (uint32_t k = 0; k < s->nslots; k++)
		node_streams_resume_child(n, s->slot_child[k]);
	table_remove(n, s);
	stream_free(n, s);
}

void
node_streams_child_attached(node *n, uint32_t child)
{
	node_child *ch = &n->children[child];
	if (ch->role != GROVE_ROLE_BE || !ch->c)
		return;
	/* A back-end that attached after its streams were created was not
	 * told of them: it learns of them now, before anything sent on them
	 * reaches it, so that it can tell a stream it may send on from one
	 * that does not exist (grove_be_send). */
	for (size_t i = 0; i < n->stream_cap; i++) {
		node_stream *s = n->streams[i];
		if (!s || s == NODE_STREAM_TOMBSTONE(n) || s->child_slot[child] < 0)
			continue;
		grove_packet *p = NULL;
		uint32_t rank = ch->be_lo;
		if (wire_pack(&p, WIRE_T_STREAM_NEW, s->id, 0, n->rank, 0,
			PROTO_STREAM_NEW, s->id, &rank, (uint64_t)1, s->up->name,
			sync_kind_name(s->sync_kind), s->down->name,
			s->timeout_ms) != 0)
			continue;
		node_send(n, ch->c, p);
		grove_packet_unref(p);
	}
}

/* Re-parenting (docs/recovery.md, "The adopter"): lost CP child `lost`'s
 * children, expected back as children [first, first + k), take its place
 * in every stream it was on.  Under wait_for_all each gets a slot padded
 * so that its first share lands in wave R = max(shares held from the lost
 * child, waves released), the resume point its RESUME will name (base);
 * the lost child's slot hands out its complete shares and then waits for
 * nothing, and its range is never reported missing. */
void
node_streams_adopt(node *n, uint32_t lost, uint32_t first, uint32_t k)
{
	/* One instant for every stream's waves (ns, as the sync filters'). */
	uint64_t now = sockio_now_ms() * 1000000u;
	size_t pos = 0;
	node_stream *s;
	while ((s = node_stream_next(n, &pos))) {
		if (stream_grow(s, n->n_children) != 0) {
			log_error("node %u: out of memory for stream %u's slots: "
			    "node %u's children cannot take its place in it", n->id,
			    s->id, n->children[lost].node_id);
			continue;
		}
		int32_t ls = s->child_slot[lost];
		if (ls < 0)
			continue;
		uint64_t r = 0, pad = 0;
		if (s->sync_kind == SYNC_WAIT_FOR_ALL) {
			uint64_t held = s->base[ls] + sync_shares_in(s->sync,
			    (uint32_t)ls);
			r = held > s->released ? held : s->released;
			pad = r - s->released;
		}
		/* A lost child that had refused the stream, or whose members
		 * on it were all lost, has children with nothing on it. */
		int was_out = s->gone_node[ls] || s->gone_code[ls];
		for (uint32_t c = first; c < first + k && !was_out; c++) {
			node_child *ch = &n->children[c];
			if (!has_member_in(s, ch->be_lo, ch->be_hi))
				continue;
			int slot = sync_add_slot(s->sync);
			if (slot < 0) {
				log_error("node %u: no slot on stream %u for node %u, "
				    "expected back from lost node %u: out of memory",
				    n->id, s->id, ch->node_id,
				    n->children[lost].node_id);
				continue;
			}
			s->child_slot[c] = slot;
			s->slot_child[slot] = c;
			s->nslots = (uint32_t)slot + 1;
			s->base[slot] = s->acked[slot] = r;
			if (sync_pad(s->sync, (uint32_t)slot, pad) != 0) {
				/* Its shares cannot be paired with the right
				 * waves: it is out of this stream, said so. */
				log_error("node %u: stream %u cannot wait for node %u "
				    "from wave %llu: out of memory", n->id, s->id,
				    ch->node_id, (unsigned long long)r);
				s->gone_node[slot] = ch->node_id;
				s->gone_code[slot] = GROVE_ENOMEM;
				sync_slot_gone(s->sync, (uint32_t)slot);
			}
		}
		s->replaced[ls] = 1;
		if (!was_out) {
			s->gone_node[ls] = n->children[lost].node_id;
			s->gone_code[ls] = GROVE_ELOST;
		}
		sync_slot_gone(s->sync, (uint32_t)ls);
		node_stream_slots_changed(n, s, now);
	}
	node_streams_resume_child(n, lost);
}
