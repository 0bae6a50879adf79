/* Packet codec under hostile input and sharing: frame peeking, truncated
 * and corrupt frames, misaligned buffers, reference counts, shared
 * receive buffers, concurrent first decodes, random payloads. */
#include "codec_fixture.h"

/* ---- frames ---------------------------------------------------------- */

static void
test_peek(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %s", 1, "abc"), 0);
	size_t len;
	const uint8_t *b = wire_packet_bytes(p, &len);
	wire_hdr h;
	size_t need;
	for (size_t i = 0; i < WIRE_HDR_SIZE; i++) {
		need = 0;
		assert_int_equal(wire_peek(b, i, &h, &need), 0);
		assert_int_equal(need, WIRE_HDR_SIZE);
	}
	for (size_t i = WIRE_HDR_SIZE; i < len; i++) {
		need = 0;
		assert_int_equal(wire_peek(b, i, &h, &need), 0);
		assert_int_equal(need, len);
	}
	assert_int_equal(wire_peek(b, len, &h, &need), (long)len);
	assert_int_equal(wire_peek(b, len + 100, &h, &need), (long)len);
	assert_int_equal(h.fmt_len, 5);
	assert_int_equal(h.type, WIRE_T_DATA);

	uint8_t g[WIRE_HDR_SIZE];
	memcpy(g, b, sizeof g);
	st32(g, 23); /* shorter than a header */
	assert_int_equal(wire_peek(g, 4, &h, &need), GROVE_EPROTO);
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), GROVE_EPROTO);
	st32(g, WIRE_MAX_FRAME + 1);
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), GROVE_EPROTO);
	st32(g, WIRE_MAX_FRAME); /* the largest allowed: need it all */
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), 0);
	assert_int_equal(need, WIRE_MAX_FRAME);
	memcpy(g, b, sizeof g);
	g[4] = 0; /* type 0 */
	assert_int_equal(wire_peek(g, 6, &h, &need), GROVE_EPROTO);
	g[4] = WIRE_T_MAX_;
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), GROVE_EPROTO);
	g[5] = 1;
	g[4] = 1;
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), GROVE_EPROTO);
	memcpy(g, b, sizeof g);
	g[6] = 0x01;
	g[7] = 0x10; /* fmt_len 4097 */
	assert_int_equal(wire_peek(g, 8, &h, &need), GROVE_EPROTO);
	memcpy(g, b, sizeof g);
	st32(g, WIRE_HDR_SIZE + 8);
	g[6] = 9; /* pads to 16 > 8 */
	g[7] = 0;
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), GROVE_EPROTO);
	g[6] = 8;
	assert_int_equal(wire_peek(g, sizeof g, &h, &need), 0);
	grove_packet_unref(p);
}

/* Every prefix of a frame, and every shorter claimed length, is refused
 * without reading past the bytes given. */
static void
test_truncated(void **state)
{
	(void)state;
	const double dv[] = {1, 2, 3};
	const char *sv[] = {"one", "", "three"};
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2,
	    "%c %s %alf %as %hd %ld %auc", 1, "hello", dv, (uint64_t)3, sv,
	    (uint64_t)3, 7, (int64_t)8, "xy", (uint64_t)2), 0);
	size_t len;
	const uint8_t *b = wire_packet_bytes(p, &len);
	uint32_t real = wire_packet_hdr(p)->len;
	for (size_t i = 0; i < real; i++) {
		uint8_t *c = malloc(i ? i : 1);
		memcpy(c, b, i);
		grove_packet *q = NULL;
		assert_int_equal(wire_packet_from_bytes(c, i, &q) < 0, 1);
		assert_null(q);
		free(c);
	}
	/* Unpadded and padded both decode. */
	assert_int_equal(decode_all(b, real), 0);
	assert_int_equal(decode_all(b, len), 0);
	assert_int_equal(decode_all(b, len + 8) < 0, 1);

	/* Claimed length cut short anywhere in the payload. */
	size_t poff = payload_off(p);
	for (size_t l = poff; l < real; l++) {
		size_t clen;
		uint8_t *c = frame_copy(p, &clen);
		st32(c, (uint32_t)l);
		assert_int_equal(decode_all(c, l), GROVE_EPROTO);
		free(c);
	}
	/* Or made longer, with garbage (zeros) after the items. */
	for (uint32_t extra = 1; extra <= 16; extra++) {
		size_t clen;
		uint8_t *c = frame_copy(p, &clen);
		uint8_t *big = calloc(1, clen + 16);
		memcpy(big, c, clen);
		st32(big, real + extra);
		assert_int_equal(decode_all(big, real + extra), GROVE_EPROTO);
		free(big);
		free(c);
	}
	grove_packet_unref(p);
}

static void
test_corrupt_counts(void **state)
{
	(void)state;
	grove_packet *p;
	int32_t iv[] = {1, 2};
	size_t len;
	uint8_t *c;

	/* %ad count (at payload offset 0). */
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%ad", iv, (uint64_t)2),
	    0);
	size_t po = payload_off(p);
	static const uint64_t huge[] = {3, 1000, UINT64_MAX, UINT64_MAX / 4 + 1,
	    (uint64_t)1 << 62, (uint64_t)1 << 32};
	for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
		c = frame_copy(p, &len);
		st64(c + po, huge[i]);
		assert_int_equal(decode_all(c, len), GROVE_EPROTO);
		free(c);
	}
	c = frame_copy(p, &len);
	st64(c + po, 1); /* fewer elements: leftover bytes */
	assert_int_equal(decode_all(c, len), GROVE_EPROTO);
	free(c);
	grove_packet_unref(p);

	/* %as count, string length, terminator, embedded NUL. */
	const char *sv[] = {"abc", "de"};
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%as", sv, (uint64_t)2),
	    0);
	po = payload_off(p);
	for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
		c = frame_copy(p, &len);
		st64(c + po, huge[i]);
		assert_int_equal(decode_all(c, len), GROVE_EPROTO);
		free(c);
	}
	static const uint32_t lens[] = {4, 5, 100, UINT32_MAX, 0x80000000u,
	    2};
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		c = frame_copy(p, &len);
		st32(c + po + 8, lens[i]);
		assert_int_equal(decode_all(c, len), GROVE_EPROTO);
		free(c);
	}
	c = frame_copy(p, &len);
	c[po + 8 + 4 + 3] = 'X'; /* "abc" unterminated */
	assert_int_equal(decode_all(c, len), GROVE_EPROTO);
	free(c);
	c = frame_copy(p, &len);
	c[po + 8 + 4 + 1] = '\0'; /* "a\0c" */
	assert_int_equal(decode_all(c, len), GROVE_EPROTO);
	free(c);
	grove_packet_unref(p);

	/* A lone %s whose NUL is replaced and whose length runs to the end. */
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%s", "abcdef"), 0);
	po = payload_off(p);
	c = frame_copy(p, &len);
	c[po + 4 + 6] = 'g';
	assert_int_equal(decode_all(c, len), GROVE_EPROTO);
	free(c);
	c = frame_copy(p, &len);
	st32(c + po, 7);
	assert_int_equal(decode_all(c, len), GROVE_EPROTO);
	free(c);
	grove_packet_unref(p);

	/* Non-canonical or invalid format inside a frame. */
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %d", 1, 2), 0);
	static const char *fbad[] = {"%d%%d", "%d\t%d", "%x %d"};
	for (size_t i = 0; i < 3; i++) {
		c = frame_copy(p, &len);
		memcpy(c + WIRE_HDR_SIZE, fbad[i], 5);
		grove_packet *q = NULL;
		assert_int_equal(wire_packet_from_bytes(c, len, &q),
		    GROVE_EFORMAT);
		assert_null(q);
		free(c);
	}
	c = frame_copy(p, &len);
	c[WIRE_HDR_SIZE + 2] = '\0'; /* NUL inside the format */
	assert_int_equal(decode_all(c, len), GROVE_EFORMAT);
	free(c);
	grove_packet_unref(p);
}

/* A frame at every misalignment inside a buffer still decodes, with
 * properly aligned item pointers. */
static void
test_misaligned(void **state)
{
	(void)state;
	int16_t s16[] = {-1, 2, -3};
	int64_t s64[] = {INT64_MAX, -5};
	double dv[] = {0.5, -0.25};
	const char *sv[] = {"x", "yy"};
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2,
	    "%ahd %ald %alf %d %lf %as %hd", s16, (uint64_t)3, s64,
	    (uint64_t)2, dv, (uint64_t)2, 77, 9.75, sv, (uint64_t)2, -6), 0);
	size_t len;
	const uint8_t *b = wire_packet_bytes(p, &len);
	for (size_t off = 0; off < 8; off++) {
		grove_buf *buf = buf_new(len + off);
		memcpy(buf->data + off, b, len);
		grove_packet *q;
		assert_int_equal(wire_packet_from_frame(buf, buf->data + off,
		    len, &q), 0);
		buf_unref(buf); /* the packet keeps it alive */
		const int16_t *a;
		const int64_t *l;
		const double *d;
		const char *const *s;
		uint64_t na, nl, nd, ns;
		int32_t i32;
		double f64;
		int16_t h;
		assert_int_equal(grove_packet_unpack(q,
		    "%ahd %ald %alf %d %lf %as %hd", &a, &na, &l, &nl, &d,
		    &nd, &i32, &f64, &s, &ns, &h), 0);
		assert_int_equal((uintptr_t)a % _Alignof(int16_t), 0);
		assert_int_equal((uintptr_t)l % _Alignof(int64_t), 0);
		assert_int_equal((uintptr_t)d % _Alignof(double), 0);
		assert_memory_equal(a, s16, sizeof s16);
		assert_memory_equal(l, s64, sizeof s64);
		assert_memory_equal(d, dv, sizeof dv);
		assert_int_equal(i32, 77);
		assert_true(f64 == 9.75);
		assert_string_equal(s[1], "yy");
		assert_int_equal(h, -6);
		grove_item it;
		assert_int_equal(grove_packet_item(q, 4, &it), 0);
		assert_int_equal((uintptr_t)it.data % _Alignof(double), 0);
		assert_true(*(const double *)it.data == 9.75);
		grove_packet_unref(q);
	}
	grove_packet_unref(p);

	/* A frame that does not fit its buffer is refused. */
	grove_buf *buf = buf_new(16);
	grove_packet *q;
	assert_int_equal(wire_packet_from_frame(buf, buf->data, 32, &q),
	    GROVE_EINVAL);
	buf_unref(buf);
}

/* ---- ownership ------------------------------------------------------- */

static void
test_refcounts(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%s", "keep"), 0);
	assert_int_equal(wire_packet_set_src(p, 42), 0);
	assert_int_equal(grove_packet_src(p), 42);
	grove_packet *q = reparse(p);
	assert_int_equal(grove_packet_src(q), 42);
	assert_ptr_equal(grove_packet_ref(p), p);
	assert_int_equal(wire_packet_set_src(p, 43), GROVE_EINVAL);
	const char *s;
	assert_int_equal(grove_packet_unpack(p, "%s", &s), 0);
	grove_packet_unref(p);
	assert_string_equal(s, "keep"); /* one reference left */
	grove_packet_unref(p);
	grove_packet_unref(q);
	grove_packet_unref(NULL);
}

static void
test_shared_buf(void **state)
{
	(void)state;
	grove_packet *src[3];
	const char *sv[] = {"a", "b", "c"};
	assert_int_equal(grove_packet_pack(&src[0], 1, 0, "%d", 10), 0);
	assert_int_equal(grove_packet_pack(&src[1], 2, 1, "%as %s", sv,
	    (uint64_t)3, "tail"), 0);
	assert_int_equal(wire_pack(&src[2], WIRE_T_HEARTBEAT, 0, 2, 3, 4,
	    ""), 0);
	size_t total = 0, l;
	for (int i = 0; i < 3; i++) {
		wire_packet_bytes(src[i], &l);
		total += l;
	}
	grove_buf *buf = buf_new(total);
	size_t off = 0;
	for (int i = 0; i < 3; i++) {
		const uint8_t *b = wire_packet_bytes(src[i], &l);
		memcpy(buf->data + off, b, l);
		off += l;
	}
	/* Walk the stream like a receiver does. */
	grove_packet *got[3];
	int n = 0;
	off = 0;
	while (off < total) {
		wire_hdr h;
		size_t need;
		long r = wire_peek(buf->data + off, total - off, &h, &need);
		assert_true(r > 0);
		assert_int_equal(wire_packet_from_frame(buf, buf->data + off,
		    (size_t)r, &got[n]), 0);
		assert_int_equal(grove_packet_tag(got[n]), n);
		n++;
		off += (size_t)r;
	}
	assert_int_equal(n, 3);
	assert_int_equal(atomic_load(&buf->refs), 4);
	buf_unref(buf);
	int32_t d;
	assert_int_equal(grove_packet_unpack(got[0], "%d", &d), 0);
	assert_int_equal(d, 10);
	grove_packet_unref(got[0]);
	const char *const *a;
	uint64_t na;
	const char *t;
	assert_int_equal(grove_packet_unpack(got[1], "%as %s", &a, &na, &t),
	    0);
	assert_string_equal(a[2], "c");
	assert_string_equal(t, "tail");
	assert_int_equal(wire_packet_hdr(got[2])->type, WIRE_T_HEARTBEAT);
	assert_int_equal(wire_packet_hdr(got[2])->aux, 4);
	grove_packet_unref(got[2]);
	grove_packet_unref(got[1]);
	for (int i = 0; i < 3; i++)
		grove_packet_unref(src[i]);
}

/* Two threads decoding the same packet for the first time at once. */
struct race_arg {
	grove_packet *p;
	pthread_barrier_t *bar;
	int ok;
};

static void *
race_main(void *arg)
{
	struct race_arg *a = arg;
	const int32_t *v;
	uint64_t n;
	const char *s;
	pthread_barrier_wait(a->bar);
	a->ok = grove_packet_unpack(a->p, "%ad %s", &v, &n, &s) == 0 &&
	    n == 4 && v[3] == 3 && strcmp(s, "z") == 0;
	return NULL;
}

static void
test_concurrent_decode(void **state)
{
	(void)state;
	int32_t v[] = {0, 1, 2, 3};
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 4);
	for (int round = 0; round < 200; round++) {
		grove_packet *p;
		assert_int_equal(grove_packet_pack(&p, 1, 2, "%ad %s", v,
		    (uint64_t)4, "z"), 0);
		/* Misaligned odd rounds: decoding copies into scratch. */
		size_t len;
		const uint8_t *b = wire_packet_bytes(p, &len);
		size_t off = (size_t)(round & 1) * 4;
		grove_buf *buf = buf_new(len + off);
		memcpy(buf->data + off, b, len);
		grove_packet *q;
		assert_int_equal(wire_packet_from_frame(buf, buf->data + off,
		    len, &q), 0);
		buf_unref(buf);
		pthread_t t[4];
		struct race_arg a[4];
		for (int i = 0; i < 4; i++) {
			a[i] = (struct race_arg){q, &bar, 0};
			pthread_create(&t[i], NULL, race_main, &a[i]);
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			assert_true(a[i].ok);
		}
		grove_packet_unref(q);
		grove_packet_unref(p);
	}
	pthread_barrier_destroy(&bar);
}

/* Random bytes after a valid header never crash the decoder. */
static void
test_random_payloads(void **state)
{
	(void)state;
	static const char *fmts[] = {"%s", "%as", "%ad %s", "%c %ald %as",
	    "%alf %auhd"};
	unsigned seed = 12345;
	for (int round = 0; round < 4000; round++) {
		const char *f = fmts[round % 5];
		size_t flen = strlen(f);
		size_t plen = (size_t)(rand_r(&seed) % 64);
		size_t len = WIRE_HDR_SIZE + wire_pad8(flen) + plen;
		uint8_t *b = calloc(1, wire_pad8(len));
		st32(b, (uint32_t)len);
		b[4] = WIRE_T_DATA;
		b[6] = (uint8_t)flen;
		memcpy(b + WIRE_HDR_SIZE, f, flen);
		for (size_t i = 0; i < plen; i++) {
			/* Mostly small numbers so lengths sometimes fit. */
			int r = rand_r(&seed);
			b[len - plen + i] = (uint8_t)(r % 3 ? r % 4 : r);
		}
		int rc = decode_all(b, len);
		assert_true(rc == 0 || rc == GROVE_EPROTO);
		free(b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peek),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt_counts),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_refcounts),
		cmocka_unit_test(test_shared_buf),
		cmocka_unit_test(test_concurrent_decode),
		cmocka_unit_test(test_random_payloads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
