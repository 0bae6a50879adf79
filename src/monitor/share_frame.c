/* A share on a byte stream (see share_frame.h). */
#include <stdio.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/share_frame.h"

#define FRAME_MAGIC "GMSF"

void
mon_share_frame_put(uint8_t head[MON_SHARE_FRAME_HEAD], uint32_t len)
{
	memcpy(head, FRAME_MAGIC, 4);
	for (int i = 0; i < 4; i++)
		head[4 + i] = (uint8_t)(len >> (8 * i));
}

int
mon_share_frame_head(const uint8_t head[MON_SHARE_FRAME_HEAD],
                     uint32_t *len, char *err, size_t errlen)
{
	*len = 0;
	if (memcmp(head, FRAME_MAGIC, 4) != 0) {
		/* Printable bytes are most likely a message: show them. */
		char show[5];
		for (int i = 0; i < 4; i++)
			show[i] = head[i] >= 0x20 && head[i] < 0x7f
			              ? (char)head[i] : '?';
		show[4] = '\0';
		snprintf(err, errlen, "not a share frame (it starts with "
		         "\"%s\", not \"" FRAME_MAGIC "\")", show);
		return GROVE_EFORMAT;
	}
	uint32_t n = 0;
	for (int i = 0; i < 4; i++)
		n |= (uint32_t)head[4 + i] << (8 * i);
	if (n > MON_SHARE_FRAME_MAX) {
		snprintf(err, errlen, "a share frame of %u bytes (at most %u)",
		         n, MON_SHARE_FRAME_MAX);
		return GROVE_EFORMAT;
	}
	*len = n;
	return 0;
}
