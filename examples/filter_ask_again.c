/* Example custom filter with a reverse-direction output: a sum of "%d"
 * values that, on the first wave of a stream at each CP right above
 * back-ends, also sends a request back down to those back-ends, so that
 * they answer once more.
 *
 * That is the shape of a filter that polls its children again when the
 * first answers call for it (a value past a threshold, a missing piece)
 * without a round trip to the front-end: grove_filter_emit_reverse sends
 * a packet down to the wave's children, with the wave's stream and tag, and
 * their answers come up as a new wave.
 *
 * Load it with grove_net_load_filter(net, "ask_again",
 * "/path/filter_ask_again.so", "ask_again").  Per-stream state (a flag:
 * asked already) keeps it to one extra wave per CP.
 *
 * It needs every back-end to sit under a CP whose children are all
 * back-ends (kary:K, levels:AxB..., uniform topology files).  A back-end
 * right under the front-end, or under a CP that also has CP children, is
 * never asked again, so the nodes above it get no second share from it
 * and pair the next waves wrongly (knomial:K trees and uneven files are
 * such trees).  Asking again from the front-end's filter alone (at->is_fe)
 * works in every tree, at the cost of the trip to the root.
 */
#include <stdlib.h>

#include <grove/filter.h>

int ask_again(grove_filter_call *call);
void ask_again_state_free(void *state);

int
ask_again(grove_filter_call *call)
{
	if (call->abi != GROVE_FILTER_ABI)
		return GROVE_EINVAL;
	int64_t sum = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		int32_t v;
		int rc = grove_packet_unpack(call->in[i], "%d", &v);
		if (rc < 0)
			return rc;
		sum += v;
	}
	grove_packet *up;
	int rc = grove_filter_pack(call, &up, "%d", (int32_t)sum);
	if (rc < 0)
		return rc;
	if ((rc = grove_filter_emit(call, up)) < 0)
		return rc;

	const grove_filter_place *at = call->place;
	int above_backends = !at->is_fe &&
	    at->be_hi - at->be_lo == at->n_children;
	if (!above_backends || !call->state || *call->state)
		return 0;
	int *asked = malloc(sizeof *asked);
	if (!asked)
		return GROVE_ENOMEM;
	*asked = 1;
	*call->state = asked;
	grove_packet *down;
	if ((rc = grove_filter_pack(call, &down, "%d", (int32_t)sum)) < 0)
		return rc;
	return grove_filter_emit_reverse(call, down);
}

void
ask_again_state_free(void *state)
{
	free(state);
}
