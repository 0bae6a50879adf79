/* Example custom filter: the maximum of an int32 over all back-ends, and
 * the rank of the back-end that holds it ("maxloc").
 *
 * Back-ends send "%d".  Every node emits "%d %ud": the largest value of the
 * wave and the rank it came from.  Because a node higher up receives those
 * results, the filter also accepts "%d %ud" inputs, mixed freely with "%d"
 * ones.  Ties go to the lowest rank, so the answer does not depend on the
 * shape of the tree or on the order children answer in.
 *
 * Build it as a position-independent shared library, not linked against
 * libgrove (grove-commnode provides the grove_* symbols; see
 * docs/filters.md), then:
 *
 *     grove_net_load_filter(net, "intmaxloc", "/path/filter_intmaxloc.so",
 *         "intmaxloc");
 *
 * and create streams with the transformation filter "intmaxloc".
 *
 * It also shows per-stream state: the number of waves this node has
 * reduced on the stream, kept in *call->state and freed by
 * intmaxloc_state_free when the stream goes away.
 */
#include <stdlib.h>
#include <string.h>

#include <grove/filter.h>

/* Per stream and node.  The first member is what tests look at. */
typedef struct intmaxloc_state {
	uint64_t waves;
} intmaxloc_state;

int intmaxloc(grove_filter_call *call);
void intmaxloc_state_free(void *state);

int
intmaxloc(grove_filter_call *call)
{
	if (call->abi != GROVE_FILTER_ABI)
		return GROVE_EINVAL;
	if (call->n_in == 0)
		return 0;
	if (call->state) {
		intmaxloc_state *st = *call->state;
		if (!st) {
			st = calloc(1, sizeof *st);
			if (!st)
				return GROVE_ENOMEM;
			*call->state = st;
		}
		st->waves++;
	}

	int32_t best = 0;
	uint32_t best_rank = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		const grove_packet *p = call->in[i];
		const char *fmt = grove_packet_format(p);
		int32_t v;
		uint32_t rank;
		int rc;
		if (strcmp(fmt, "%d") == 0) {
			rc = grove_packet_unpack(p, "%d", &v);
			rank = grove_packet_src(p);
		} else if (strcmp(fmt, "%d %ud") == 0) {
			rc = grove_packet_unpack(p, "%d %ud", &v, &rank);
		} else {
			return GROVE_EFORMAT;
		}
		if (rc < 0)
			return rc;
		if (i == 0 || v > best || (v == best && rank < best_rank)) {
			best = v;
			best_rank = rank;
		}
	}

	grove_packet *out;
	int rc = grove_filter_pack(call, &out, "%d %ud", best, best_rank);
	if (rc < 0)
		return rc;
	return grove_filter_emit(call, out);
}

void
intmaxloc_state_free(void *state)
{
	free(state);
}
