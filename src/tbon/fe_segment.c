/* Front-end side of segmented multicast: the per-stream setting and the
 * decision, per packet, between sending it whole and in segments (see
 * segment.h). */
#include <stdint.h>

#include "codec/wire.h"
#include "grove/trace.h"
#include "net/sockio.h"
#include "tbon/fe_internal.h"
#include "tbon/segment.h"

_Static_assert(GROVE_SEGMENT_MIN == SEG_MIN_SIZE,
    "the public and internal minimum segment sizes differ");

int
grove_stream_set_segment_size(grove_stream *s, size_t bytes)
{
	if (!s)
		return GROVE_EINVAL;
	if (bytes != GROVE_SEGMENT_AUTO && bytes != GROVE_SEGMENT_WHOLE &&
	    bytes < GROVE_SEGMENT_MIN) {
		fe_set_error(s->net, "segment size %zu is below the minimum of %u "
		    "bytes", bytes, (unsigned)GROVE_SEGMENT_MIN);
		return GROVE_EINVAL;
	}
	node_stream *ns = node_stream_find(&s->net->n, s->id);
	if (ns && !ns->down_is_null && bytes != GROVE_SEGMENT_AUTO &&
	    bytes != GROVE_SEGMENT_WHOLE) {
		fe_set_error(s->net, "stream %u has the downstream filter '%s', "
		    "which needs whole packets: they cannot be segmented", s->id,
		    ns->down->name);
		return GROVE_EINVAL;
	}
	s->seg_setting = bytes;
	return 0;
}

int
grove_net_set_logp(grove_net *net, const struct grove_logp_params *p)
{
	if (!net)
		return GROVE_EINVAL;
	seg_model *sm = NULL;
	if (p) {
		char err[400];
		int rc = seg_model_new(p, net->topo, net->n.clusters, &sm, err,
		    sizeof err);
		if (rc != 0) {
			fe_set_error(net, "%s", err);
			return rc;
		}
	}
	seg_model_free(net->seg_model);
	net->seg_model = sm;
	return 0;
}

/* Each segment goes down like any packet, and the caller waits only while
 * a link is over its limit: the first segments are on their way (and
 * forwarded by the CPs) while the last ones are still being cut. */
struct seg_inject {
	grove_net *net;
	const grove_stream *s; /* may be destroyed by a wait's callbacks */
	uint32_t id;
	uint64_t frees;        /* net->stream_frees when s was known alive */
	int first;
	int overdue;        /* the send's time ran out after its start */
	uint64_t deadline;  /* ms, for a bounded send_timeout_ms */
};

/* Only the first segment may give up (then nothing was sent): a message
 * cut off halfway could never be reassembled.  When a bounded wait runs
 * out later, the rest of the message is queued without waiting: the link
 * then holds at most one message over its limit, and the send keeps its
 * promise of a bounded wait. */
static int
inject_segment(void *arg, grove_packet *seg)
{
	struct seg_inject *si = arg;
	grove_net *net = si->net;
	int wait = net->send_wait_ms;
	if (!si->first && wait >= 0) {
		uint64_t now = sockio_now_ms();
		wait = now < si->deadline ? (int)(si->deadline - now) : 0;
	}
	int rc = si->overdue ? 0 : fe_wait_writable(net, wait);
	if (rc != 0 && !si->first) {
		si->overdue = 1;
		rc = 0;
	}
	si->first = 0;
	if (rc == 0)
		rc = fe_stream_usable(net, si->s, si->id, si->frees);
	if (rc != 0)
		return rc;
	node_from_parent(&net->n, seg);
	node_flush_all(&net->n);
	fe_settle(net);
	return 0;
}

int
fe_stream_inject(grove_stream *s, grove_packet *p, uint64_t t0)
{
	grove_net *net = s->net;
	node_stream *ns = node_stream_find(&net->n, s->id);
	/* A downstream filter works on whole packets: those streams never
	 * segment. */
	size_t seg = ns && ns->down_is_null
	    ? seg_size_for(s->seg_setting, net->seg_model, grove_packet_size(p))
	    : 0;
	if (!seg)
		return fe_inject(net, s, p, t0);
	int rc = fe_stream_usable(net, s, s->id, net->stream_frees);
	if (rc != 0)
		return fe_send_failed(net, rc, t0);
	struct seg_inject si = {net, s, s->id, net->stream_frees, 1, 0, 0};
	if (net->send_wait_ms > 0)
		si.deadline = sockio_now_ms() + (uint64_t)net->send_wait_ms;
	rc = seg_split(p, net->next_seg_msg++, seg, inject_segment, &si);
	/* A wait that gave up named the full link itself. */
	if (rc != 0 && rc != GROVE_EAGAIN && rc != GROVE_ETIMEDOUT &&
	    rc != GROVE_ECLOSED)
		fe_set_error(net, "cutting a %zu-byte message into %zu-byte "
		    "segments failed: %s", grove_packet_size(p), seg,
		    grove_strerror(rc));
	grove_trace_end(&net->tc_api_send, GROVE_OP_API_SEND,
	    rc == 0 ? (int32_t)grove_packet_size(p) : rc, t0);
	return rc;
}
