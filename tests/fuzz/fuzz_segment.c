/* Fuzz the reassembly of segmented multicasts: the input is the byte
 * stream a back-end reads from its parent.  Every SEGMENT frame in it goes
 * to one reassembler, as in the back-end; a completed message must be a
 * valid DATA frame of the length its segments announced, and must decode
 * with its own format.  Errors are fine; crashes, leaks and broken
 * invariants are not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "tbon/segment.h"

#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_segment.c:%d: invariant broken\n", line);
	abort();
}

static void
fz_whole(grove_packet *w)
{
	const wire_hdr *h = wire_packet_hdr(w);
	if (h->type != WIRE_T_DATA)
		fz_fail();
	/* Reading every item validates the payload like an application. */
	int n = grove_packet_nitems(w);
	for (int i = 0; i < n; i++) {
		grove_item it;
		(void)grove_packet_item(w, i, &it);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	grove_buf *buf = buf_new(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf->data, data, size);
	seg_reasm r;
	seg_reasm_init(&r);
	size_t off = 0;
	while (off < size) {
		wire_hdr h;
		size_t need = 0;
		long n = wire_peek(buf->data + off, size - off, &h, &need);
		if (n <= 0)
			break;
		grove_packet *p;
		if (wire_packet_from_frame(buf, buf->data + off, (size_t)n, &p) == 0) {
			if (h.type == WIRE_T_SEGMENT) {
				grove_packet *w = NULL;
				char err[300];
				int rc = seg_reasm_push(&r, p, &w, err, sizeof err);
				if ((rc == 1) != (w != NULL))
					fz_fail();
				if (rc < 0 && !err[0])
					fz_fail();
				if (w) {
					fz_whole(w);
					grove_packet_unref(w);
				}
				if (r.n > SEG_MAX_MSGS ||
				    r.pending > SEG_MAX_PENDING_BYTES)
					fz_fail();
			}
			grove_packet_unref(p);
		}
		off += (size_t)n;
	}
	seg_reasm_fini(&r);
	buf_unref(buf);
	return 0;
}
