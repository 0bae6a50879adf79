/* Tutorial filter "above": how many back-end values exceed a threshold.
 *
 * Back-ends send one "%d" value per wave.  The threshold is a stream
 * parameter, set by the front-end with
 *
 *     grove_stream_set_params(s, GROVE_FILTER_UP, "%d", threshold);
 *
 * (no parameter: threshold 0).  A communication process emits "%ud %ud":
 * the number of values above the threshold in its subtree and the number
 * of values it saw.  Since a node higher up receives those, the filter
 * accepts both "%d" and "%ud %ud" inputs, mixed in one wave.
 *
 * On the front-end (the last reduction) it emits "%ud %ud %uld": the same
 * two counts and a running total of values above the threshold over every
 * wave of the stream so far, kept in per-stream state.
 *
 * Built by the Grove build as filter_tutorial.so; see docs/tutorial.md.
 */
#include <stdlib.h>
#include <string.h>

#include <grove/filter.h>

/* Per stream and node; only the front-end's is used. */
typedef struct above_state {
	uint64_t total_above;
} above_state;

int above(grove_filter_call *call);
void above_state_free(void *state);

/* Adds one input packet to the wave's counts. */
static int
count_input(const grove_packet *p, int32_t threshold, uint32_t *above_n,
    uint32_t *seen_n)
{
	const char *fmt = grove_packet_format(p);
	int rc;
	if (strcmp(fmt, "%d") == 0) {
		/* a back-end's value */
		int32_t v;
		if ((rc = grove_packet_unpack(p, "%d", &v)) < 0)
			return rc;
		*above_n += v > threshold;
		*seen_n += 1;
		return 0;
	}
	if (strcmp(fmt, "%ud %ud") == 0) {
		/* a communication process's counts */
		uint32_t a, n;
		if ((rc = grove_packet_unpack(p, "%ud %ud", &a, &n)) < 0)
			return rc;
		*above_n += a;
		*seen_n += n;
		return 0;
	}
	return GROVE_EFORMAT;
}

int
above(grove_filter_call *call)
{
	if (call->abi != GROVE_FILTER_ABI)
		return GROVE_EINVAL;
	if (call->n_in == 0)
		return 0;

	int32_t threshold = 0;
	if (call->params) {
		int rc = grove_packet_unpack(call->params, "%d", &threshold);
		if (rc < 0)
			return rc;
	}

	uint32_t above_n = 0, seen_n = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		int rc = count_input(call->in[i], threshold, &above_n, &seen_n);
		if (rc < 0)
			return rc;
	}

	grove_packet *out;
	int rc;
	if (!call->place->is_fe) {
		rc = grove_filter_pack(call, &out, "%ud %ud", above_n, seen_n);
	} else {
		above_state *st = call->state ? *call->state : NULL;
		if (call->state && !st) {
			/* first wave of this stream on this node */
			st = calloc(1, sizeof *st);
			if (!st)
				return GROVE_ENOMEM;
			*call->state = st;
		}
		uint64_t total = above_n;
		if (st)
			total = st->total_above += above_n;
		rc = grove_filter_pack(call, &out, "%ud %ud %uld", above_n, seen_n,
		    total);
	}
	if (rc < 0)
		return rc;
	return grove_filter_emit(call, out);
}

/* Called by Grove when the stream is destroyed. */
void
above_state_free(void *state)
{
	free(state);
}
