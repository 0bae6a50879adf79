/* Packet codec: formats, packing, round trips of every type, unpack
 * errors, item access, re-addressing. */
#include "codec_fixture.h"

#include <sys/mman.h>

/* ---- formats --------------------------------------------------------- */

static void
test_fmt_canonical(void **state)
{
	(void)state;
	char c[WIRE_MAX_FMT + 1];
	wire_fmt_item it[32];

	assert_int_equal(wire_fmt_parse("  %d\t%uc\n %alf  ", it, 32, c,
	    sizeof c), 3);
	assert_string_equal(c, "%d %uc %alf");
	assert_int_equal(it[0].type, GROVE_T_INT32);
	assert_int_equal(it[1].type, GROVE_T_UINT8);
	assert_int_equal(it[2].type, GROVE_T_DOUBLE);
	assert_true(it[2].is_array);
	assert_int_equal(wire_fmt_parse("%d%s", it, 32, c, sizeof c), 2);
	assert_string_equal(c, "%d %s");
	assert_int_equal(wire_fmt_parse("", it, 32, c, sizeof c), 0);
	assert_string_equal(c, "");
	assert_int_equal(wire_fmt_parse("   ", it, 32, c, sizeof c), 0);
	assert_string_equal(c, "");

	const char *all = "%c %uc %hd %uhd %d %ud %ld %uld %f %lf %s "
	    "%ac %auc %ahd %auhd %ad %aud %ald %auld %af %alf %as";
	assert_int_equal(wire_fmt_parse(all, it, 32, c, sizeof c), 22);
	assert_string_equal(c, all);
	for (int i = 0; i < 11; i++) {
		assert_int_equal(it[i].type, GROVE_T_INT8 + i);
		assert_false(it[i].is_array);
		assert_int_equal(it[11 + i].type, GROVE_T_INT8 + i);
		assert_true(it[11 + i].is_array);
	}
}

static void
test_fmt_reject(void **state)
{
	(void)state;
	char c[WIRE_MAX_FMT + 1];
	static const char *bad[] = {
		"%", "% d", "%x", "%uf", "%ulf", "%us", "%aus", "%h", "%hx",
		"%l", "%lx", "%dx", "d", "%d,%d", "%aa", "%aud%", "%ua d",
		"%lld", "%a", "%u", "%d %", "%S",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(wire_fmt_parse(bad[i], NULL, 0, c, sizeof c),
		    GROVE_EFORMAT);
	assert_int_equal(wire_fmt_parse(NULL, NULL, 0, c, sizeof c),
	    GROVE_EFORMAT);

	/* Too long canonically: 1366 "%c" take 4097 bytes; 1365 fit. */
	size_t n = 1366;
	char *f = malloc(3 * n + 1);
	for (size_t i = 0; i < n; i++)
		memcpy(f + 3 * i, "%c ", 3);
	f[3 * n - 1] = '\0';
	assert_int_equal(wire_fmt_parse(f, NULL, 0, c, sizeof c),
	    GROVE_EFORMAT);
	f[3 * (n - 1) - 1] = '\0';
	assert_int_equal(wire_fmt_parse(f, NULL, 0, c, sizeof c), 1365);
	assert_int_equal(strlen(c), 3 * 1365 - 1);
	/* ... and such a packet can be built and decoded. */
	grove_item *items = calloc(1366, sizeof *items);
	int8_t v = 5;
	for (int i = 0; i < 1366; i++)
		items[i] = (grove_item){GROVE_T_INT8, 0, 1, &v};
	grove_packet *p;
	assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, 1, 0, 0, items,
	    1365), 0);
	grove_packet *q = reparse(p);
	grove_item it;
	assert_int_equal(grove_packet_nitems(q), 1365);
	assert_int_equal(grove_packet_item(q, 1364, &it), 0);
	assert_int_equal(*(const int8_t *)it.data, 5);
	grove_packet *r;
	assert_int_equal(wire_pack_items(&r, WIRE_T_DATA, 1, 0, 0, items,
	    1366), GROVE_EFORMAT);
	assert_null(r);
	grove_packet_unref(q);
	grove_packet_unref(p);
	free(items);
	free(f);

	/* Too many items for the caller's array, too small canon buffer. */
	wire_fmt_item it2[2];
	assert_int_equal(wire_fmt_parse("%d %d %d", it2, 2, NULL, 0),
	    GROVE_EFORMAT);
	assert_int_equal(wire_fmt_parse("%d %d", it2, 2, c, 5),
	    GROVE_EFORMAT);
	assert_int_equal(grove_type_size(GROVE_T_DOUBLE), 8);
	assert_int_equal(grove_type_size(GROVE_T_UINT16), 2);
	assert_int_equal(grove_type_size(GROVE_T_STRING), 0);
	assert_int_equal(grove_type_size((grove_type)99), 0);
}

/* ---- round trips ----------------------------------------------------- */

static void
test_scalars(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 9, -77,
	    "%c %uc %hd %uhd %d %ud %ld %uld %f %lf %s %s",
	    -128, 255, -32768, 65535, INT32_MIN, UINT32_MAX, INT64_MIN,
	    UINT64_MAX, 1.5f, -DBL_MAX, "héllo", ""), 0);
	assert_int_equal(grove_packet_stream(p), 9);
	assert_int_equal(grove_packet_tag(p), -77);
	assert_int_equal(grove_packet_src(p), 0);
	assert_int_equal(wire_packet_hdr(p)->type, WIRE_T_DATA);
	assert_int_equal(wire_packet_hdr(p)->aux, 0);
	assert_int_equal(grove_packet_size(p) % 8, 0);

	for (int round = 0; round < 2; round++) {
		grove_packet *q = round ? reparse(p) : grove_packet_ref(p);
		int8_t c;
		uint8_t uc;
		int16_t hd;
		uint16_t uhd;
		int32_t d;
		uint32_t ud;
		int64_t ld;
		uint64_t uld;
		float f;
		double lf;
		const char *s, *e;
		assert_int_equal(grove_packet_unpack(q,
		    "%c %uc %hd %uhd %d %ud %ld %uld %f %lf %s %s", &c, &uc,
		    &hd, &uhd, &d, &ud, &ld, &uld, &f, &lf, &s, &e), 0);
		assert_int_equal(c, -128);
		assert_int_equal(uc, 255);
		assert_int_equal(hd, -32768);
		assert_int_equal(uhd, 65535);
		assert_true(d == INT32_MIN);
		assert_true(ud == UINT32_MAX);
		assert_true(ld == INT64_MIN);
		assert_true(uld == UINT64_MAX);
		assert_true(f == 1.5f);
		assert_true(lf == -DBL_MAX);
		assert_string_equal(s, "héllo");
		assert_string_equal(e, "");
		assert_int_equal(grove_packet_stream(q), 9);
		assert_int_equal(grove_packet_tag(q), -77);
		grove_packet_unref(q);
	}
	grove_packet_unref(p);
}

#define ARR_TEST(T, conv, N, expr)                                           \
	do {                                                                 \
		T v[N + 1];                                                  \
		for (int i = 0; i < N; i++)                                  \
			v[i] = (T)(expr);                                    \
		grove_packet *p, *q;                                         \
		assert_int_equal(grove_packet_pack(&p, 1, 2, "%d " conv      \
		    " %c", 7, v, (uint64_t)N, 3), 0);                        \
		q = reparse(p);                                              \
		const T *out = NULL;                                         \
		uint64_t n = 99;                                             \
		int32_t pre;                                                 \
		int8_t post;                                                 \
		assert_int_equal(grove_packet_unpack(q, "%d " conv " %c",    \
		    &pre, &out, &n, &post), 0);                              \
		assert_int_equal(n, N);                                      \
		assert_int_equal(pre, 7);                                    \
		assert_int_equal(post, 3);                                   \
		assert_non_null(out);                                        \
		assert_true(N == 0 || memcmp(out, v, N * sizeof(T)) == 0);   \
		grove_packet_unref(q);                                       \
		grove_packet_unref(p);                                       \
	} while (0)

static void
test_arrays(void **state)
{
	(void)state;
	ARR_TEST(int8_t, "%ac", 5, -i * 30);
	ARR_TEST(uint8_t, "%auc", 3, 250 + i);
	ARR_TEST(int16_t, "%ahd", 7, -i * 1000);
	ARR_TEST(uint16_t, "%auhd", 2, 65530 + i);
	ARR_TEST(int32_t, "%ad", 9, -i * 100000);
	ARR_TEST(uint32_t, "%aud", 4, 4000000000u + i);
	ARR_TEST(int64_t, "%ald", 6, INT64_MIN + i);
	ARR_TEST(uint64_t, "%auld", 3, UINT64_MAX - i);
	ARR_TEST(float, "%af", 11, i * 0.25f);
	ARR_TEST(double, "%alf", 13, i * -1e300);
	/* Empty arrays of every kind. */
	ARR_TEST(int8_t, "%ac", 0, 0);
	ARR_TEST(uint16_t, "%auhd", 0, 0);
	ARR_TEST(int32_t, "%ad", 0, 0);
	ARR_TEST(double, "%alf", 0, 0);
}

static void
test_string_arrays(void **state)
{
	(void)state;
	const char *v[] = {"", "a", "", "longer string here", "", "xyz"};
	grove_packet *p, *q;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%as %as %s %as", v,
	    (uint64_t)6, NULL, (uint64_t)0, "mid", v, (uint64_t)1), 0);
	q = reparse(p);
	const char *const *a, *const *b, *const *c;
	uint64_t na, nb, nc;
	const char *m;
	assert_int_equal(grove_packet_unpack(q, "%as %as %s %as", &a, &na, &b,
	    &nb, &m, &c, &nc), 0);
	assert_int_equal(na, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(a[i], v[i]);
	assert_int_equal(nb, 0);
	assert_non_null(b);
	assert_string_equal(m, "mid");
	assert_int_equal(nc, 1);
	assert_string_equal(c[0], "");
	/* The strings point into the frame. */
	size_t len;
	const uint8_t *bytes = wire_packet_bytes(q, &len);
	assert_true((const uint8_t *)a[3] > bytes &&
	    (const uint8_t *)a[3] < bytes + len);
	grove_packet_unref(q);
	grove_packet_unref(p);
}

static void
test_big_array(void **state)
{
	(void)state;
	const uint64_t n = 10u * 1000 * 1000;
	double *v = malloc(n * sizeof *v);
	assert_non_null(v);
	for (uint64_t i = 0; i < n; i++)
		v[i] = (double)i * 0.5;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%alf %d", v, n, 17), 0);
	assert_true(grove_packet_size(p) >= n * 8);
	grove_packet *q = reparse(p);
	const double *out;
	uint64_t cnt;
	int32_t d;
	assert_int_equal(grove_packet_unpack(q, "%alf %d", &out, &cnt, &d),
	    0);
	assert_int_equal(cnt, n);
	assert_int_equal(d, 17);
	assert_memory_equal(out, v, n * sizeof *v);
	/* Aligned frame: decoded in place, not copied. */
	size_t len;
	const uint8_t *b = wire_packet_bytes(q, &len);
	assert_true((const uint8_t *)out > b && (const uint8_t *)out < b + len);
	grove_packet_unref(q);
	grove_packet_unref(p);
	free(v);
}

static void
test_empty_format(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 3, 4, ""), 0);
	assert_string_equal(grove_packet_format(p), "");
	assert_int_equal(grove_packet_nitems(p), 0);
	assert_int_equal(grove_packet_size(p), WIRE_HDR_SIZE);
	grove_packet *q = reparse(p);
	assert_int_equal(grove_packet_unpack(q, ""), 0);
	assert_int_equal(grove_packet_unpack(q, "  "), 0);
	assert_int_equal(grove_packet_unpack(q, "%d", NULL), GROVE_EFORMAT);
	grove_item it;
	assert_int_equal(grove_packet_item(q, 0, &it), GROVE_ERANGE);
	grove_packet_unref(q);
	grove_packet_unref(p);
}

static void
test_format_lengths(void **state)
{
	(void)state;
	/* Formats whose length is and is not a multiple of 8 (whether the
	 * frame has a NUL after the format). */
	static const char *fmts[] = {"%d", "%d %d", "%d %d %d", "%lf %d",
	    "%ad %lf", "%s %s %s", "%c %c %c %c"};
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
		grove_item items[4];
		int32_t v = 1;
		wire_fmt_item fi[4];
		int n = wire_fmt_parse(fmts[i], fi, 4, NULL, 0);
		assert_true(n > 0);
		double dv = 2;
		int8_t cv = 3;
		for (int k = 0; k < n; k++) {
			items[k] = (grove_item){fi[k].type, fi[k].is_array, 1,
			    &v};
			if (fi[k].type == GROVE_T_DOUBLE)
				items[k].data = &dv;
			if (fi[k].type == GROVE_T_INT8)
				items[k].data = &cv;
			if (fi[k].type == GROVE_T_STRING)
				items[k].data = "s";
		}
		grove_packet *p;
		assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, 0, 0, 0,
		    items, n), 0);
		assert_string_equal(grove_packet_format(p), fmts[i]);
		grove_packet *q = reparse(p);
		assert_string_equal(grove_packet_format(q), fmts[i]);
		grove_item it;
		assert_int_equal(grove_packet_item(q, n - 1, &it), 0);
		grove_packet_unref(q);
		grove_packet_unref(p);
	}
}

/* ---- unpack and pack errors ------------------------------------------ */

static void
test_wrong_format(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %s", 5, "x"), 0);
	int32_t d = 0;
	const char *s = NULL;
	assert_int_equal(grove_packet_unpack(p, "%d", &d), GROVE_EFORMAT);
	assert_int_equal(grove_packet_unpack(p, "%ud %s", &d, &s),
	    GROVE_EFORMAT);
	assert_int_equal(grove_packet_unpack(p, "%d %s %d", &d, &s, &d),
	    GROVE_EFORMAT);
	assert_int_equal(grove_packet_unpack(p, "%bogus"), GROVE_EFORMAT);
	assert_int_equal(d, 0);
	/* Other spellings of the same format are fine; NULL skips. */
	assert_int_equal(grove_packet_unpack(p, "  %d\t%s ", &d, NULL), 0);
	assert_int_equal(d, 5);
	assert_int_equal(grove_packet_unpack(p, NULL), GROVE_EINVAL);
	grove_packet_unref(p);

	assert_int_equal(grove_packet_pack(&p, 1, 2, "%q", 1), GROVE_EFORMAT);
	assert_null(p);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%s", NULL),
	    GROVE_EINVAL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%ad", NULL,
	    (uint64_t)3), GROVE_EINVAL);
	const char *v[] = {"a", NULL};
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%as", v, (uint64_t)2),
	    GROVE_EINVAL);
	int32_t x = 0;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%ad", &x,
	    (uint64_t)1 << 40), GROVE_ERANGE);
	/* Items that already fill the largest frame, then an array whose
	 * bogus count would wrap the size computation back under it: the
	 * pack must refuse, not size a small frame and copy 1 GiB into it.
	 * The first array is address space only (never read). */
	size_t big = ((size_t)1 << 30) - 8;
	void *m = mmap(NULL, big, PROT_READ,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(m != MAP_FAILED);
	uint8_t small[4] = {0};
	uint64_t wrapping = (uint64_t)0 - ((uint64_t)1 << 30) - 8 + 100;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%auc %auc", m,
	    (uint64_t)big, small, wrapping), GROVE_ERANGE);
	assert_null(p);
	munmap(m, big);
	assert_int_equal(wire_pack(&p, 0, 1, 2, 0, 0, "%d", 1), GROVE_EINVAL);
	assert_int_equal(wire_pack(&p, WIRE_T_MAX_, 1, 2, 0, 0, "%d", 1),
	    GROVE_EINVAL);
	grove_item bad = {(grove_type)0, 0, 1, &x};
	assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, 1, 2, 0, &bad, 1),
	    GROVE_EINVAL);
	bad = (grove_item){GROVE_T_INT32, 0, 1, NULL};
	assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, 1, 2, 0, &bad, 1),
	    GROVE_EINVAL);
}

static void
test_wire_pack(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(wire_pack(&p, WIRE_T_P2P, 5, -1, 12, 34, "%uld",
	    (uint64_t)99), 0);
	grove_packet *q = reparse(p);
	const wire_hdr *h = wire_packet_hdr(q);
	assert_int_equal(h->type, WIRE_T_P2P);
	assert_int_equal(h->stream, 5);
	assert_int_equal(h->tag, -1);
	assert_int_equal(h->src, 12);
	assert_int_equal(h->aux, 34);
	assert_int_equal(h->len, WIRE_HDR_SIZE + 8 + 8);
	assert_int_equal(grove_packet_src(q), 12);
	grove_packet_unref(q);
	grove_packet_unref(p);
}

/* ---- items ----------------------------------------------------------- */

static void
test_items(void **state)
{
	(void)state;
	int16_t a16[] = {1, -2, 3};
	const char *as[] = {"p", "qq"};
	float f = 2.5f;
	int64_t l = -9;
	uint8_t uc = 200;
	grove_item in[] = {
		{GROVE_T_FLOAT, 0, 1, &f},
		{GROVE_T_INT16, 1, 3, a16},
		{GROVE_T_STRING, 0, 1, "str"},
		{GROVE_T_STRING, 1, 2, as},
		{GROVE_T_INT64, 0, 1, &l},
		{GROVE_T_UINT8, 0, 7 /* ignored for scalars */, &uc},
	};
	grove_packet *p;
	assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, 4, 5, 6, in, 6), 0);
	assert_string_equal(grove_packet_format(p),
	    "%f %ahd %s %as %ld %uc");
	assert_int_equal(grove_packet_src(p), 6);
	grove_packet *q = reparse(p);
	assert_int_equal(grove_packet_nitems(q), 6);
	grove_item it;
	assert_int_equal(grove_packet_item(q, 0, &it), 0);
	assert_int_equal(it.type, GROVE_T_FLOAT);
	assert_false(it.is_array);
	assert_int_equal(it.count, 1);
	assert_true(*(const float *)it.data == 2.5f);
	assert_int_equal(grove_packet_item(q, 1, &it), 0);
	assert_int_equal(it.type, GROVE_T_INT16);
	assert_true(it.is_array);
	assert_int_equal(it.count, 3);
	assert_memory_equal(it.data, a16, sizeof a16);
	assert_int_equal(grove_packet_item(q, 2, &it), 0);
	assert_int_equal(it.type, GROVE_T_STRING);
	assert_string_equal(it.data, "str");
	assert_int_equal(grove_packet_item(q, 3, &it), 0);
	assert_int_equal(it.count, 2);
	assert_string_equal(((const char *const *)it.data)[1], "qq");
	assert_int_equal(grove_packet_item(q, 4, &it), 0);
	assert_true(*(const int64_t *)it.data == -9);
	assert_int_equal(grove_packet_item(q, 5, &it), 0);
	assert_int_equal(it.count, 1);
	assert_int_equal(*(const uint8_t *)it.data, 200);
	assert_int_equal(grove_packet_item(q, 6, &it), GROVE_ERANGE);
	assert_int_equal(grove_packet_item(q, -1, &it), GROVE_ERANGE);
	/* Items of one packet re-packed give the same bytes. */
	grove_item out[6];
	for (int i = 0; i < 6; i++)
		assert_int_equal(grove_packet_item(q, i, &out[i]), 0);
	grove_packet *r;
	assert_int_equal(wire_pack_items(&r, WIRE_T_DATA, 4, 5, 6, out, 6),
	    0);
	size_t l1, l2;
	const uint8_t *b1 = wire_packet_bytes(p, &l1);
	const uint8_t *b2 = wire_packet_bytes(r, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	grove_packet_unref(r);
	grove_packet_unref(q);
	grove_packet_unref(p);
}

/* wire_repack: the same packet when the header matches, else the same
 * items under the new header. */
static void
test_repack(void **state)
{
	(void)state;
	grove_packet *p = NULL, *q = NULL;
	int32_t v = 0;
	const double *a = NULL;
	uint64_t n = 0;
	double arr[3] = {1.5, 2.5, 3.5};
	assert_int_equal(wire_pack(&p, WIRE_T_DATA, 4, 9, 2, 0, "%d %alf", 42,
	    arr, (uint64_t)3), 0);
	assert_int_equal(wire_repack(&q, p, WIRE_T_DATA, 4, 9, 2), 0);
	assert_ptr_equal(q, p);
	grove_packet_unref(q);
	assert_int_equal(wire_repack(&q, p, WIRE_T_P2P, 0, 7, 5), 0);
	assert_ptr_not_equal(q, p);
	assert_int_equal(wire_packet_hdr(q)->type, WIRE_T_P2P);
	assert_int_equal(grove_packet_tag(q), 7);
	assert_int_equal(grove_packet_src(q), 5);
	assert_int_equal(grove_packet_unpack(q, "%d %alf", &v, &a, &n), 0);
	assert_int_equal(v, 42);
	assert_int_equal(n, 3);
	assert_true(a[2] == 3.5);
	grove_packet_unref(q);
	grove_packet_unref(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_canonical),
		cmocka_unit_test(test_fmt_reject),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_string_arrays),
		cmocka_unit_test(test_big_array),
		cmocka_unit_test(test_empty_format),
		cmocka_unit_test(test_format_lengths),
		cmocka_unit_test(test_wrong_format),
		cmocka_unit_test(test_wire_pack),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_repack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
