/* A filter for tests of stream parameters: each wave becomes one packet
 * "%ud %d" of the source rank of the node's parameter packet (UINT32_MAX
 * without one) and the parameter itself ("%d", -1 without one), so a
 * test sees who the parameters claim to come from at the front-end. */
#include <stdint.h>

#include <grove/filter.h>
#include <grove/packet.h>

int params_src(grove_filter_call *call);

int
params_src(grove_filter_call *call)
{
	uint32_t src = UINT32_MAX;
	int32_t value = -1;
	if (call->params) {
		src = grove_packet_src(call->params);
		if (grove_packet_unpack(call->params, "%d", &value) != 0)
			value = -1;
	}
	grove_packet *out = NULL;
	int rc = grove_filter_pack(call, &out, "%ud %d", src, value);
	if (rc != 0)
		return rc;
	return grove_filter_emit(call, out);
}
