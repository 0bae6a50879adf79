/* Fuzz the packet decoder: the input is a byte stream of frames, as a
 * receiver would see it, and its first bytes double as a format string.
 *
 * Every frame found is wrapped, every item is read, the packet is unpacked
 * with its own format and with wrong ones, and decoded items are packed
 * again and must decode to the same values.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"

/* Enough pointer arguments for unpacking any format of up to this many
 * argument slots (arrays take two). */
#define FZ_SLOTS 24

union fz_slot {
	uint64_t u;
	double d;
	const void *p;
};

static int
fz_unpack(const grove_packet *p, const char *fmt, union fz_slot *s)
{
	return grove_packet_unpack(p, fmt, &s[0], &s[1], &s[2], &s[3], &s[4],
	    &s[5], &s[6], &s[7], &s[8], &s[9], &s[10], &s[11], &s[12], &s[13],
	    &s[14], &s[15], &s[16], &s[17], &s[18], &s[19], &s[20], &s[21],
	    &s[22], &s[23]);
}

/* A broken invariant: say which, then crash so the fuzzer keeps the input. */
#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_packet.c:%d: invariant broken\n", line);
	abort();
}

static void
fz_same_item(const grove_item *a, const grove_item *b)
{
	if (a->type != b->type || !a->is_array != !b->is_array ||
	    a->count != b->count)
		fz_fail();
	size_t s = grove_type_size(a->type);
	if (a->type != GROVE_T_STRING) {
		if (a->count && memcmp(a->data, b->data, (size_t)a->count * s))
			fz_fail();
	} else if (!a->is_array) {
		if (strcmp(a->data, b->data))
			fz_fail();
	} else {
		const char *const *x = a->data, *const *y = b->data;
		for (uint64_t i = 0; i < a->count; i++)
			if (strcmp(x[i], y[i]))
				fz_fail();
	}
}

static void
fz_packet(grove_packet *p)
{
	int n = grove_packet_nitems(p);
	const char *fmt = grove_packet_format(p);
	grove_item *items = calloc((size_t)n + 1, sizeof *items);
	int ok = 1, slots = 0;

	if (!items)
		return;
	for (int i = 0; i < n; i++) {
		int rc = grove_packet_item(p, i, &items[i]);
		if (rc == 0) {
			slots += items[i].is_array ? 2 : 1;
			/* Touch the data so the sanitizer sees any bad
			 * pointer. */
			if (items[i].type == GROVE_T_STRING &&
			    !items[i].is_array)
				(void)strlen(items[i].data);
		} else if (rc == GROVE_EPROTO) {
			ok = 0;
			break;
		} else {
			fz_fail();
		}
	}
	grove_item bad;
	if (grove_packet_item(p, n, &bad) != GROVE_ERANGE)
		fz_fail();

	union fz_slot s[FZ_SLOTS];
	if (slots <= FZ_SLOTS) {
		/* With no items, nothing has checked the payload yet. */
		int rc = fz_unpack(p, fmt, s);
		if (n == 0 && rc == GROVE_EPROTO)
			ok = 0;
		if (rc != (ok ? 0 : GROVE_EPROTO)) {
			fprintf(stderr, "unpack \"%s\": %d, items %s\n", fmt,
			    rc, ok ? "ok" : "bad");
			fz_fail();
		}
		/* unpack and item access agree. */
		for (int i = 0, k = 0; ok && i < n; i++) {
			const grove_item *it = &items[i];
			if (it->is_array) {
				if (s[k].p != it->data || s[k + 1].u != it->count)
					fz_fail();
				k += 2;
			} else if (it->type == GROVE_T_STRING) {
				if (s[k++].p != it->data)
					fz_fail();
			} else if (memcmp(&s[k++], it->data,
			    grove_type_size(it->type))) {
				fz_fail();
			}
		}
	}
	static const char *wrong[] = {"%d", "%as", "%s %s", "%alf %c", "%x"};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		if (strcmp(wrong[i], fmt) == 0)
			continue;
		if (fz_unpack(p, wrong[i], s) != GROVE_EFORMAT)
			fz_fail();
	}

	/* Items re-packed decode to the same items. */
	if (ok) {
		const wire_hdr *h = wire_packet_hdr(p);
		grove_packet *q, *r;
		if (wire_pack_items(&q, h->type, h->stream, h->tag, h->src,
		    items, n) == 0) {
			size_t len;
			const uint8_t *b = wire_packet_bytes(q, &len);
			if (wire_packet_from_bytes(b, len, &r) != 0)
				fz_fail();
			if (strcmp(grove_packet_format(r), fmt))
				fz_fail();
			for (int i = 0; i < n; i++) {
				grove_item it;
				if (grove_packet_item(r, i, &it) != 0)
					fz_fail();
				fz_same_item(&items[i], &it);
			}
			grove_packet_unref(r);
			grove_packet_unref(q);
		}
	}
	free(items);
}

static void
fz_format(const uint8_t *data, size_t size)
{
	char f[512], c[WIRE_MAX_FMT + 1], c2[WIRE_MAX_FMT + 1];
	wire_fmt_item a[64], b[64];
	size_t n = size < sizeof f - 1 ? size : sizeof f - 1;
	memcpy(f, data, n);
	f[n] = '\0';
	int k = wire_fmt_parse(f, a, 64, c, sizeof c);
	if (k < 0)
		return;
	/* The canonical form is a fixed point with the same items. */
	if (wire_fmt_parse(c, b, 64, c2, sizeof c2) != k || strcmp(c, c2) ||
	    memcmp(a, b, (size_t)k * sizeof a[0]))
		fz_fail();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_format(data, size);

	/* The stream in an aligned receive buffer, like the network's. */
	grove_buf *buf = buf_new(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf->data, data, size);
	size_t off = 0;
	while (off < size) {
		wire_hdr h;
		size_t need = 0;
		long r = wire_peek(buf->data + off, size - off, &h, &need);
		if (r <= 0) {
			if (r == 0 && need <= size - off)
				fz_fail();
			break;
		}
		grove_packet *p;
		if (wire_packet_from_frame(buf, buf->data + off, (size_t)r,
		    &p) == 0) {
			fz_packet(p);
			grove_packet_unref(p);
		}
		/* And misaligned, through a copy. */
		if (wire_packet_from_bytes(buf->data + off, (size_t)r, &p) ==
		    0) {
			grove_buf *mb = buf_new((size_t)r + 3);
			if (mb) {
				grove_packet *m;
				memcpy(mb->data + 3, buf->data + off,
				    (size_t)r);
				if (wire_packet_from_frame(mb, mb->data + 3,
				    (size_t)r, &m) == 0) {
					fz_packet(m);
					grove_packet_unref(m);
				}
				buf_unref(mb);
			}
			grove_packet_unref(p);
		}
		off += (size_t)r;
	}
	buf_unref(buf);
	return 0;
}
