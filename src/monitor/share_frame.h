/* A share on a byte stream (internal, src/monitor): what a per-host
 * reader of a multi-host grove run job (grove monitor --serve-share)
 * writes to its standard output, through the remote shell, for each
 * pull (docs/monitoring.md, "Jobs across hosts").
 *
 * A frame is an 8-byte head, then the share (share.h) itself:
 *
 *   "GMSF" u32 length (little-endian, at most MON_SHARE_FRAME_MAX)
 *
 * The head is checked before anything is allocated for the body: a
 * stream that is not frames (a shell's greeting, garbage) or a length
 * beyond the limit is refused with what was wrong; the body is then
 * checked by mon_share_decode (tests/fuzz/fuzz_monitor_frame.c). */
#ifndef GROVE_MONITOR_SHARE_FRAME_H
#define GROVE_MONITOR_SHARE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define MON_SHARE_FRAME_HEAD 8
/* A share larger than this is not a share a reader sends. */
#define MON_SHARE_FRAME_MAX (1u << 30)

/* The head of a frame of len bytes into head. */
void mon_share_frame_put(uint8_t head[MON_SHARE_FRAME_HEAD], uint32_t len);

/* Checks head: 0 with *len the body's length, or GROVE_EFORMAT with
 * what was wrong in err. */
int mon_share_frame_head(const uint8_t head[MON_SHARE_FRAME_HEAD],
                         uint32_t *len, char *err, size_t errlen);

#endif
