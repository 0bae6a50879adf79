/* Grove waves: who is in a reduction's result.
 *
 * A packet the front-end receives from a stream's wave (wait_for_all or
 * timeout sync filter) carries an account of that wave: how many of the
 * stream's members contributed to it, and which did not and why.  A wave
 * with every member in it says so too (contributed == members).
 *
 * What a stream does with a wave that lacks members is its
 * grove_stream_opts.partial setting (include/grove/network.h,
 * docs/api.md "Partial waves").
 */
#ifndef GROVE_WAVE_H
#define GROVE_WAVE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why members are missing from a wave. */
typedef enum grove_missing_reason {
	/* The back-end, or a CP above it, was lost before it sent its share
	 * (GROVE_EV_LOST named it). */
	GROVE_MISSING_LOST = 1,
	/* A filter failed on the wave at `node` (or that node could not
	 * create the stream's filter): the share of every member below it
	 * was dropped.  code: the filter's return value. */
	GROVE_MISSING_FILTER = 2,
	/* The `timeout` sync filter at `node` released the wave without
	 * their share. */
	GROVE_MISSING_TIMEOUT = 3,
} grove_missing_reason;

/* A run of missing members: back-end ranks [rank_lo, rank_hi), every
 * one of them a member of the stream. */
typedef struct grove_missing {
	uint32_t rank_lo, rank_hi;
	grove_missing_reason reason;
	uint32_t node;  /* topology node id: the lost node (LOST), where the
	                   filter failed (FILTER), whose sync filter gave up
	                   (TIMEOUT) */
	int32_t code;   /* FILTER: the filter's error; else GROVE_ELOST or
	                   GROVE_ETIMEDOUT */
} grove_missing;

/* Of a packet received from a stream's wave: *contributed gets the number
 * of the stream's members whose share is in it, *members (may be NULL)
 * the stream's members.  GROVE_ENOENT for a packet that did not come
 * from a wave (point-to-point, a dont_wait stream, built by the tool, or
 * received by a back-end); GROVE_EINVAL for NULL arguments. */
int grove_packet_contributors(const grove_packet *p, uint32_t *contributed,
    uint32_t *members);

/* The members missing from the wave p came from, in runs of consecutive
 * ranks with one reason: up to cap runs are copied to out (out may be NULL
 * with cap 0).  Returns the number of runs (0: nobody is missing), or
 * GROVE_ENOENT / GROVE_EINVAL as above. */
int grove_packet_missing(const grove_packet *p, grove_missing *out,
    size_t cap);

/* "lost", "filter failed", "timed out" (never NULL). */
const char *grove_missing_reason_name(int reason);

#ifdef __cplusplus
}
#endif
#endif
