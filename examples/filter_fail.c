/* A filter that fails, for tests of GROVE_EV_FILTER_ERROR: every call
 * returns the code given as the stream's filter parameter ("%d"), or -42
 * without one, a code that means nothing to Grove (a filter's own). */
#include <grove/filter.h>
#include <grove/packet.h>

int fail_always(grove_filter_call *call);

int
fail_always(grove_filter_call *call)
{
	int32_t code = -42;
	if (call->params && grove_packet_unpack(call->params, "%d", &code) != 0)
		code = -42;
	return code < 0 ? code : -42;
}
