/* Decoding a "timealign" result (grove/aggregate.h): shared by the filter,
 * which takes results from nodes below as input, and the front-end. */
#include <stddef.h>

#include "grove/aggregate.h"

int
grove_timealign_decode(const grove_packet *p, grove_timealign_interval *out)
{
	if (!p || !out)
		return GROVE_EINVAL;
	grove_timealign_interval t;
	uint64_t n[4];
	int rc = grove_packet_unpack(p, GROVE_TIMEALIGN_FMT, &t.start_ns,
	    &t.end_ns, &t.count, &t.sum, &t.m, &t.min, &n[0], &t.min_rank,
	    &n[1], &t.max, &n[2], &t.max_rank, &n[3]);
	if (rc < 0)
		return rc;
	for (int i = 0; i < 4; i++)
		if (n[i] != t.m)
			return GROVE_EFORMAT;
	if (t.end_ns <= t.start_ns)
		return GROVE_EINVAL;
	*out = t;
	return 0;
}
