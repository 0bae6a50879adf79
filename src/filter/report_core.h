/* Reports (internal): reading a "report" result in place, shared by the
 * filter (results from nodes below are input) and the front-end decoder. */
#ifndef GROVE_FILTER_REPORT_CORE_H
#define GROVE_FILTER_REPORT_CORE_H

#include <stdint.h>

#include "grove/packet.h"

/* n records: rank[i], len[i] bytes each, back to back in bytes. */
typedef struct rp_view {
	const uint32_t *rank;
	const uint32_t *len;
	const uint8_t *bytes;
	uint64_t n, nbytes;
} rp_view;

/* GROVE_EFORMAT for another format, arrays of different lengths, or
 * lengths that do not add up to the bytes.  Records themselves are checked
 * when they are taken out (grove_report_record). */
int rp_view_parse(const grove_packet *p, rp_view *v);

#endif
