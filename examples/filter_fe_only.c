/* A filter that loads in the front-end of one test program only: it calls
 * fe_only_base(), which that program (tests/integration/it_filter_load.c)
 * defines and exports, while grove-commnode does not.  dlopen(RTLD_NOW)
 * therefore succeeds on the FE and fails with "undefined symbol" on every
 * CP: the partial load that tests the network's roll-back. */
#include <grove/filter.h>
#include <grove/packet.h>

int fe_only_base(void);
int fe_only_sum(grove_filter_call *call);

/* Sums "%d" inputs, starting from fe_only_base(). */
int
fe_only_sum(grove_filter_call *call)
{
	int64_t s = fe_only_base();
	for (size_t i = 0; i < call->n_in; i++) {
		int32_t v = 0;
		int rc = grove_packet_unpack(call->in[i], "%d", &v);
		if (rc != 0)
			return rc;
		s += v;
	}
	grove_packet *p = NULL;
	int rc = grove_filter_pack(call, &p, "%d", (int32_t)s);
	if (rc != 0)
		return rc;
	return grove_filter_emit(call, p);
}
