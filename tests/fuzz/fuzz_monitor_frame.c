/* libFuzzer target: the stream of share frames a per-host reader of a
 * multi-host job writes (src/monitor/share_frame.c) arrives through a
 * remote shell from another host: any bytes must be read as frames and
 * shares that check, or refused with a reason, never read out of
 * bounds.  A head that is accepted must say a length within the limit
 * and be what mon_share_frame_put writes for that length; a failed
 * decode adds nothing to the counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/share.h"
#include "monitor/share_frame.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mon_analysis *a = mon_analysis_new(NULL);
	if (!a)
		return 0;
	size_t at = 0;
	while (size - at >= MON_SHARE_FRAME_HEAD) {
		uint32_t len;
		char err[300] = "";
		int rc = mon_share_frame_head(data + at, &len, err, sizeof err);
		if (rc) {
			if (rc != GROVE_EFORMAT || !err[0] || len != 0)
				abort();
			break;
		}
		uint8_t again[MON_SHARE_FRAME_HEAD];
		mon_share_frame_put(again, len);
		if (len > MON_SHARE_FRAME_MAX ||
		    memcmp(again, data + at, sizeof again) != 0)
			abort();
		at += MON_SHARE_FRAME_HEAD;
		if (len > size - at)
			break; /* cut short: the reader says so, names the host */
		struct mon_share_counts c = {0}, zero = {0};
		int kind = -1;
		err[0] = '\0';
		rc = mon_share_decode(data + at, len, &c, &kind, a, NULL, err,
		                      sizeof err);
		if (rc == GROVE_EFORMAT &&
		    (!err[0] || memcmp(&c, &zero, sizeof c) != 0))
			abort();
		at += len;
	}
	mon_analysis_free(a);
	return 0;
}
