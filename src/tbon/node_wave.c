/* A node's account of each wave it releases: which back-ends are missing
 * from it and why (the gaps), and the share announcement that carries
 * them to the parent (WAVE_SHARE).  Called by node_stream_up.c's wave
 * release; declared in tbon/node.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* The announcement telling the parent that this node's share of a wave
 * is *npackets packets (sync_push_share there), when that is not the one
 * packet it assumes, and which back-ends are missing from it (gaps, when
 * there are any); *out NULL when none is needed.  The FE has no parent,
 * and dont_wait pairs nothing.  Without memory for the gaps the share
 * goes up empty, every member missing: *npackets becomes 0. */
void
node_wave_share_packet(node *n, node_stream *s, int32_t tag,
    size_t *npackets_io, const wave_gaps *gaps, grove_packet **out)
{
	size_t ng = gaps ? gaps->n : 0;
	size_t npackets = *npackets_io;
	*out = NULL;
	if (n->place.is_fe || s->sync_kind == SYNC_DONT_WAIT ||
	    (npackets == 1 && ng == 0))
		return;
	uint32_t *quads = malloc((ng ? ng : 1) * 4 * sizeof *quads);
	int32_t *codes = malloc((ng ? ng : 1) * sizeof *codes);
	if (!quads || !codes) {
		/* Without the gaps the parent would count them in: a share
		 * it cannot describe goes up empty, every member missing. */
		free(quads);
		free(codes);
		quads = malloc(4 * sizeof *quads);
		codes = malloc(sizeof *codes);
		if (!quads || !codes) {
			free(quads);
			free(codes);
			return;
		}
		npackets = 0;
		*npackets_io = 0;
		ng = 1;
		quads[0] = n->place.be_lo;
		quads[1] = n->place.be_hi;
		quads[2] = GROVE_MISSING_FILTER;
		quads[3] = n->id;
		codes[0] = GROVE_ENOMEM;
	} else {
		for (size_t i = 0; i < ng; i++) {
			const wave_gap *g = &gaps->g[i];
			quads[4 * i] = g->lo;
			quads[4 * i + 1] = g->hi;
			quads[4 * i + 2] = g->reason;
			quads[4 * i + 3] = g->node;
			codes[i] = g->code;
		}
	}
	if (wire_pack(out, WIRE_T_WAVE_SHARE, s->id, tag, n->rank, 0,
		PROTO_WAVE_SHARE, (uint32_t)npackets, quads, (uint64_t)ng * 4,
		codes, (uint64_t)ng) != 0)
		*out = NULL;
	free(quads);
	free(codes);
}

/* The gaps of the wave just popped from s: the slots that gave no share
 * (gone: lost or refused; else left behind by the timeout), then what
 * the children that gave one said of theirs.  Takes the shares' infos.
 * Returns the wave's tag as the first info carries it (for a wave of
 * empty shares), or tag. */
int32_t
node_wave_collect(node *n, node_stream *s, int32_t tag)
{
	wave_gaps *w = &n->gaps;
	w->n = 0;
	const unsigned char *took = NULL;
	grove_packet **info = NULL;
	if (!sync_wave_parts(s->sync, &took, &info))
		return tag;
	int have_tag = 0;
	for (uint32_t k = 0; k < s->nslots; k++) {
		const node_child *ch = &n->children[s->slot_child[k]];
		if (took[k]) {
			if (!info[k])
				continue;
			if (!have_tag) {
				tag = grove_packet_tag(info[k]);
				have_tag = 1;
			}
			(void)wave_gaps_from_share(w, info[k]); /* checked on arrival */
			grove_packet_unref(info[k]);
			info[k] = NULL;
		} else if (s->replaced[k]) {
			continue; /* the slots of its children answer for it */
		} else if (s->gone_node[k] || s->gone_code[k]) {
			wave_gaps_add(w, ch->be_lo, ch->be_hi, s->gone_code[k] ==
			    GROVE_ELOST ? GROVE_MISSING_LOST : GROVE_MISSING_FILTER,
			    s->gone_node[k], s->gone_code[k]);
		} else {
			wave_gaps_add(w, ch->be_lo, ch->be_hi, GROVE_MISSING_TIMEOUT,
			    n->id, GROVE_ETIMEDOUT);
		}
	}
	return tag;
}

/* This node's filter failed on the wave (rc): every child that gave a
 * share is missing from it, after what the gaps said already. */
void
node_wave_failed(node *n, node_stream *s, int rc)
{
	const unsigned char *took = NULL;
	grove_packet **info = NULL;
	if (!sync_wave_parts(s->sync, &took, &info))
		return;
	for (uint32_t k = 0; k < s->nslots; k++)
		if (took[k]) {
			const node_child *ch = &n->children[s->slot_child[k]];
			wave_gaps_add(&n->gaps, ch->be_lo, ch->be_hi,
			    GROVE_MISSING_FILTER, n->id, rc);
		}
}
