/* Front-end: the end of a wave.  Its packets go to the stream's queue,
 * each with the wave's account (tbon/wave.h); a wave that lacks members
 * fails or is delivered as the stream's grove_partial says, and one that
 * produced nothing because members are missing always fails, at once: a
 * receive waiting for it would otherwise wait for its whole timeout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"

/* The error of a wave that fails, or 0. */
static int
wave_outcome(const grove_stream *s, int rc, size_t n_up,
    const wave_gaps *gaps)
{
	int filter = rc != 0 || wave_gaps_has(gaps, GROVE_MISSING_FILTER);
	if (rc != 0)
		return GROVE_EFILTER;
	if (gaps->n == 0)
		return 0;
	if (n_up == 0)
		return filter ? GROVE_EFILTER : GROVE_ELOST;
	if (filter && s->partial != GROVE_PARTIAL_DELIVER)
		return GROVE_EFILTER;
	if (s->partial == GROVE_PARTIAL_FAIL)
		return filter ? GROVE_EFILTER : GROVE_ELOST;
	return 0;
}

static void
describe_node(const node *n, uint32_t id, char *out, size_t len)
{
	if (id == 0)
		snprintf(out, len, "the front-end");
	else
		node_describe_id(n, id, out, len);
}

/* "stream 3, wave of tag 117: 2 of 4 members missing: ranks 0-1: filter
 * 'sum' failed at node 1 (...): packet format mismatch (-3); ...". */
static char *
describe(const node *n, const node_stream *ns, int32_t tag, int err,
    size_t n_up, const wave_note *w)
{
	size_t cap = 2048, len = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	len += (size_t)snprintf(out + len, cap - len, "stream %u, wave of tag %d: "
	    "%u of %u members missing%s", ns->id, tag,
	    w->members - w->contributed, w->members,
	    n_up == 0 ? ", nothing to deliver" : "");
	for (size_t i = 0; i < w->n_missing && len < cap; i++) {
		const grove_missing *m = &w->missing[i];
		char ranks[48], where[160], why[400];
		if (m->rank_hi - m->rank_lo == 1)
			snprintf(ranks, sizeof ranks, "rank %u", m->rank_lo);
		else
			snprintf(ranks, sizeof ranks, "ranks %u-%u", m->rank_lo,
			    m->rank_hi - 1);
		describe_node(n, m->node, where, sizeof where);
		switch (m->reason) {
		case GROVE_MISSING_FILTER:
			/* A custom filter's own codes mean nothing to
			 * grove_strerror. */
			snprintf(why, sizeof why, "filter '%s' failed at %s: %s "
			    "(%d)", ns->up->name, where,
			    strcmp(grove_err_name(m->code), "GROVE_E?") ?
			    grove_strerror(m->code) : "a code of the filter's own",
			    m->code);
			break;
		case GROVE_MISSING_TIMEOUT:
			snprintf(why, sizeof why, "the timeout sync filter at %s "
			    "stopped waiting", where);
			break;
		default:
			snprintf(why, sizeof why, "lost (%s)", where);
		}
		if (len + strlen(ranks) + strlen(why) + 64 >= cap) {
			len += (size_t)snprintf(out + len, cap - len, "; and %zu "
			    "more runs", w->n_missing - i);
			break;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s %s: %s",
		    i ? ";" : ":", ranks, why);
	}
	if (len < cap && err == GROVE_EFILTER && n_up > 0)
		snprintf(out + len, cap - len, " (a stream with "
		    "grove_stream_opts.partial = GROVE_PARTIAL_DELIVER receives "
		    "such waves, marked)");
	return out;
}

void
fe_wave(node *n, node_stream *ns, int32_t tag, int rc, flt_out *o,
    const wave_gaps *gaps)
{
	grove_net *net = n->owner;
	grove_stream *s = fe_stream_by_id(net, ns->id);
	if (!s)
		return;
	if (ns->sync_kind == SYNC_DONT_WAIT) {
		/* Each packet is its own wave: nothing to account for. */
		for (size_t i = 0; i < o->n_up; i++)
			fe_queue_packet(net, s, o->up[i]);
		fe_update_waitfd(net);
		return;
	}
	int err = wave_outcome(s, rc, o->n_up, gaps);
	if (!err && o->n_up == 0)
		return; /* the filter kept its output */
	wave_note *w;
	if (gaps->n == 0 && !err) {
		if (!s->whole)
			s->whole = wave_note_new(s->members, s->n_members, NULL);
		w = wave_note_ref(s->whole);
	} else {
		w = wave_note_new(s->members, s->n_members, gaps);
	}
	if (!w) {
		log_error("stream %u: no memory for a wave's account: wave of tag "
		    "%d dropped", ns->id, tag);
		return;
	}
	if (err) {
		grove_packet *m = NULL;
		w->failed = err;
		w->why = describe(n, ns, tag, err, o->n_up, w);
		if (w->why)
			log_info("%s", w->why);
		if (wire_pack(&m, WIRE_T_DATA, s->id, tag, PROTO_NODE_RANK(0), 0,
		    "%d", (int32_t)err) == 0) {
			wave_note_attach(m, w);
			fe_queue_packet(net, s, m);
			grove_packet_unref(m);
		}
	} else {
		for (size_t i = 0; i < o->n_up; i++) {
			wave_note_attach(o->up[i], w);
			fe_queue_packet(net, s, o->up[i]);
		}
	}
	wave_note_unref(w);
	fe_update_waitfd(net);
}

int
fe_wave_failed(grove_net *net, const grove_packet *p)
{
	const wave_note *w = wave_note_of(p);
	if (!w || !w->failed)
		return 0;
	if (w->why)
		fe_set_error(net, "%s", w->why);
	else
		fe_set_error(net, "stream %u: a wave failed (%s); no memory to "
		    "say more", grove_packet_stream(p), grove_strerror(w->failed));
	return w->failed;
}
