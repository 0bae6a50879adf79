/* The "equiv" and "report" filters and their front-end decoders: merging
 * rank ranges (overlap, adjacency, unsorted input), 1024 ranks in 3
 * classes over two levels (result size), integer keys, records of mixed
 * formats decoded per rank, and bad or corrupt input.
 */
#include "filter_fixture.h"
#include "filter/equiv_core.h"
#include "grove/aggregate.h"

/* Run a built-in on a wave; child i is input i. */
static int
run_named(void **st, const char *name, grove_packet **in, size_t n,
    flt_out *out)
{
	return run(st, name, in, n, out);
}

/* ---- equiv: merging ----------------------------------------------------- */

static void
test_merge_ranges(void **st)
{
	(void)st;
	eq_entry e[] = {
		{"b", 5, 6}, {"a", 3, 4}, {"a", 0, 2}, {"a", 2, 3},
		{"b", 1, 3}, {"a", 10, 12}, {"a", 11, 15}, {"b", 3, 4},
		{"a", 12, 13}, {"c", 7, 8},
	};
	size_t n = eq_sort_merge(e, sizeof e / sizeof e[0]);
	assert_int_equal(n, 5);
	static const struct { const char *k; uint32_t lo, hi; } want[] = {
		{"a", 0, 4}, {"a", 10, 15}, {"b", 1, 4}, {"b", 5, 6},
		{"c", 7, 8},
	};
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(e[i].key, want[i].k);
		assert_int_equal(e[i].lo, want[i].lo);
		assert_int_equal(e[i].hi, want[i].hi);
	}
	/* Contained and duplicate ranges vanish into the larger one. */
	eq_entry d[] = {{"x", 0, 100}, {"x", 5, 6}, {"x", 0, 100}, {"x", 99,
	    101}};
	assert_int_equal(eq_sort_merge(d, 4), 1);
	assert_int_equal(d[0].lo, 0);
	assert_int_equal(d[0].hi, 101);
	assert_int_equal(eq_sort_merge(d, 0), 0);
}

/* ---- equiv: the filter over two levels ------------------------------------ */

static const char *
class_key(uint32_t r)
{
	if (r == 7)
		return "exe-B"; /* one stray rank: B gets two ranges */
	if (r < 512)
		return "exe-A";
	return r < 900 ? "exe-B" : "exe-C";
}

static void
test_equiv_1024_ranks(void **st)
{
	enum { NBE = 1024, NCP = 16, PER = NBE / NCP };
	grove_packet *fe_in[NCP];
	for (uint32_t cp = 0; cp < NCP; cp++) {
		grove_packet *in[PER];
		for (uint32_t i = 0; i < PER; i++) {
			uint32_t r = cp * PER + i;
			in[i] = mk(r, "%s", class_key(r));
		}
		flt_out out;
		flt_out_init(&out);
		assert_int_equal(run_named(st, "equiv", in, PER, &out), 0);
		fe_in[cp] = grove_packet_ref(only_up(&out));
		flt_out_fini(&out);
		unref_all(in, PER);
	}
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run_named(st, "equiv", fe_in, NCP, &out), 0);
	grove_packet *p = only_up(&out);
	assert_string_equal(grove_packet_format(p), GROVE_EQUIV_FMT);
	/* 3 classes, 4 ranges: a few hundred bytes, not 1024 entries. */
	if (grove_packet_size(p) > 300)
		fail_msg("result is %zu bytes", grove_packet_size(p));

	grove_equiv_set *s = NULL;
	assert_int_equal(grove_equiv_decode(p, &s), 0);
	assert_int_equal(grove_equiv_count(s), 3);
	assert_string_equal(grove_equiv_key(s, 0), "exe-A");
	assert_string_equal(grove_equiv_key(s, 1), "exe-B");
	assert_string_equal(grove_equiv_key(s, 2), "exe-C");
	assert_null(grove_equiv_key(s, 3));
	assert_int_equal(grove_equiv_members(s, 0), 511);
	assert_int_equal(grove_equiv_members(s, 1), 389);
	assert_int_equal(grove_equiv_members(s, 2), 124);
	assert_int_equal(grove_equiv_nranges(s, 0), 2);
	assert_int_equal(grove_equiv_nranges(s, 1), 2);
	uint32_t lo, hi;
	assert_int_equal(grove_equiv_range(s, 0, 0, &lo, &hi), 0);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 7);
	assert_int_equal(grove_equiv_range(s, 0, 1, &lo, &hi), 0);
	assert_int_equal(lo, 8);
	assert_int_equal(hi, 512);
	assert_int_equal(grove_equiv_range(s, 1, 0, &lo, &hi), 0);
	assert_int_equal(lo, 7);
	assert_int_equal(hi, 8);
	assert_int_equal(grove_equiv_range(s, 1, 2, &lo, &hi), GROVE_ERANGE);
	uint32_t rep;
	assert_int_equal(grove_equiv_representative(s, 0, &rep), 0);
	assert_int_equal(rep, 0);
	assert_int_equal(grove_equiv_representative(s, 1, &rep), 0);
	assert_int_equal(rep, 7);
	assert_int_equal(grove_equiv_representative(s, 2, &rep), 0);
	assert_int_equal(rep, 900);
	assert_int_equal(grove_equiv_representative(s, 3, &rep), GROVE_ERANGE);
	for (uint32_t r = 0; r < NBE; r++) {
		int c = grove_equiv_class_of(s, r);
		assert_true(c >= 0);
		assert_string_equal(grove_equiv_key(s, (size_t)c), class_key(r));
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(grove_equiv_contains(s, k, r),
			    k == (size_t)c);
	}
	assert_int_equal(grove_equiv_class_of(s, NBE), GROVE_ENOENT);
	grove_equiv_free(s);
	flt_out_fini(&out);
	unref_all(fe_in, NCP);
}

static void
test_equiv_integer_keys(void **st)
{
	grove_packet *in[4] = {
		mk(0, "%uld", (uint64_t)42), mk(1, "%s", "42"),
		mk(2, "%uld", UINT64_MAX), mk(3, "%uld", (uint64_t)42),
	};
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run_named(st, "equiv", in, 4, &out), 0);
	grove_equiv_set *s = NULL;
	assert_int_equal(grove_equiv_decode(only_up(&out), &s), 0);
	assert_int_equal(grove_equiv_count(s), 2);
	assert_string_equal(grove_equiv_key(s, 0), "18446744073709551615");
	assert_string_equal(grove_equiv_key(s, 1), "42");
	assert_int_equal(grove_equiv_members(s, 1), 3);
	assert_int_equal(grove_equiv_nranges(s, 1), 2); /* [0,2) [3,4) */
	grove_equiv_free(s);
	flt_out_fini(&out);
	unref_all(in, 4);
}

static void
test_equiv_bad_input(void **st)
{
	uint32_t nr[2] = {1, 1}, rg[4] = {0, 1, 2, 3}, bad[2] = {3, 3};
	const char *keys[2] = {"a", "b"}, *rev[2] = {"b", "a"};
	grove_packet *p;
	/* Results come from a node below: a rank above the back-ends'. */
	const uint32_t cp = place.n_backends + 1;

	p = mk(0, "%d", 1);
	expect_eformat(st, "equiv", &p, 1);
	grove_packet_unref(p);
	p = mk(0, "%s %s", "a", "b");
	expect_eformat(st, "equiv", &p, 1);
	grove_packet_unref(p);
	/* Range counts that do not add up to the ranges. */
	p = mk(cp, GROVE_EQUIV_FMT, keys, (uint64_t)2, nr, (uint64_t)2, rg,
	    (uint64_t)2);
	expect_eformat(st, "equiv", &p, 1);
	grove_equiv_set *s = NULL;
	assert_int_equal(grove_equiv_decode(p, &s), GROVE_EFORMAT);
	assert_null(s);
	grove_packet_unref(p);
	/* keys and counts of different lengths */
	p = mk(cp, GROVE_EQUIV_FMT, keys, (uint64_t)1, nr, (uint64_t)2, rg,
	    (uint64_t)4);
	expect_eformat(st, "equiv", &p, 1);
	grove_packet_unref(p);
	/* An empty range. */
	p = mk(cp, GROVE_EQUIV_FMT, keys, (uint64_t)1, nr, (uint64_t)1, bad,
	    (uint64_t)2);
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run_named(st, "equiv", &p, 1, &out), GROVE_EPROTO);
	assert_int_equal(grove_equiv_decode(p, &s), GROVE_EPROTO);
	grove_packet_unref(p);
	/* Unsorted keys: the filter sorts them, the decoder refuses. */
	p = mk(cp, GROVE_EQUIV_FMT, rev, (uint64_t)2, nr, (uint64_t)2, rg,
	    (uint64_t)4);
	assert_int_equal(grove_equiv_decode(p, &s), GROVE_EPROTO);
	assert_int_equal(run_named(st, "equiv", &p, 1, &out), 0);
	assert_int_equal(grove_equiv_decode(only_up(&out), &s), 0);
	assert_string_equal(grove_equiv_key(s, 0), "a");
	assert_int_equal(grove_equiv_representative(s, 0, &nr[0]), 0);
	assert_int_equal(nr[0], 2);
	grove_equiv_free(s);
	flt_out_reset(&out);
	grove_packet_unref(p);
	/* A class without ranges. */
	uint32_t zero[2] = {0, 1};
	p = mk(0, GROVE_EQUIV_FMT, keys, (uint64_t)2, zero, (uint64_t)2, rg,
	    (uint64_t)2);
	assert_int_equal(grove_equiv_decode(p, &s), GROVE_EPROTO);
	grove_packet_unref(p);
	/* Overlapping ranges within a class. */
	uint32_t two[1] = {2}, ov[4] = {0, 5, 4, 9};
	p = mk(0, GROVE_EQUIV_FMT, keys, (uint64_t)1, two, (uint64_t)1, ov,
	    (uint64_t)4);
	assert_int_equal(grove_equiv_decode(p, &s), GROVE_EPROTO);
	grove_packet_unref(p);
	assert_int_equal(grove_equiv_decode(NULL, &s), GROVE_EINVAL);
	assert_int_equal(grove_equiv_count(NULL), 0);
	assert_int_equal(grove_equiv_contains(NULL, 0, 0), 0);
	flt_out_fini(&out);
}

/* A back-end that sends a packet in the result format is not a node below:
 * it is refused, instead of claiming a class over ranks it is not. */
static void
test_equiv_result_from_backend(void **st)
{
	const char *keys[1] = {"evil"};
	uint32_t nr[1] = {1}, rg[2] = {0, 1000};
	grove_packet *in[2] = {
		mk(2, "%s", "ok"),
		mk(3, GROVE_EQUIV_FMT, keys, (uint64_t)1, nr, (uint64_t)1, rg,
		    (uint64_t)2),
	};
	expect_eformat(st, "equiv", in, 2);
	/* The same packet from a node is a result. */
	grove_packet_unref(in[1]);
	in[1] = mk(place.n_backends, GROVE_EQUIV_FMT, keys, (uint64_t)1, nr,
	    (uint64_t)1, rg, (uint64_t)2);
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run_named(st, "equiv", in, 2, &out), 0);
	grove_equiv_set *s = NULL;
	assert_int_equal(grove_equiv_decode(only_up(&out), &s), 0);
	assert_int_equal(grove_equiv_count(s), 2);
	grove_equiv_free(s);
	flt_out_fini(&out);
	unref_all(in, 2);
}

/* ---- report ------------------------------------------------------------- */

/* Two records of one rank in a wave come out in the order they came, in
 * either order (whatever their addresses). */
static void
test_report_same_rank_by_arrival(void **st)
{
	grove_packet *one = mk(2, "%s", "one"), *two = mk(2, "%s", "two");
	grove_packet *orders[2][3] = {
		{mk(1, "%s", "r1"), one, two},
		{mk(1, "%s", "r1"), two, one},
	};
	for (int o = 0; o < 2; o++) {
		flt_out out;
		flt_out_init(&out);
		assert_int_equal(run_named(st, "report", orders[o], 3, &out), 0);
		grove_report *r = NULL;
		assert_int_equal(grove_report_decode(only_up(&out), &r), 0);
		assert_int_equal(grove_report_count(r), 3);
		for (size_t i = 1; i < 3; i++) {
			uint32_t rank;
			grove_packet *rec = NULL;
			const char *got;
			assert_int_equal(grove_report_record(r, i, &rank, &rec),
			    0);
			assert_int_equal(rank, 2);
			assert_int_equal(grove_packet_unpack(rec, "%s", &got), 0);
			const char *want;
			assert_int_equal(grove_packet_unpack(orders[o][i], "%s",
			    &want), 0);
			assert_string_equal(got, want);
			grove_packet_unref(rec);
		}
		grove_report_free(r);
		flt_out_fini(&out);
		grove_packet_unref(orders[o][0]);
	}
	grove_packet_unref(one);
	grove_packet_unref(two);
}

static void
test_report_mixed_formats_two_levels(void **st)
{
	/* CP 1: ranks 3, 1; CP 2: ranks 2, 0 and a back-end whose own
	 * record has the report format (it is a record, not a result). */
	uint32_t fake[1] = {9};
	uint8_t fb[1] = {1};
	grove_packet *a[2] = {
		mk(3, "%s %d", "node3", 3003), mk(1, "%s", "node1"),
	};
	grove_packet *b[3] = {
		mk(2, "%lf %ad", 2.5, (int32_t[]){1, 2}, (uint64_t)2),
		mk(0, ""),
		mk(5, GROVE_REPORT_FMT, fake, (uint64_t)1, fake, (uint64_t)1, fb,
		    (uint64_t)1),
	};
	flt_out oa, ob, of;
	flt_out_init(&oa);
	flt_out_init(&ob);
	flt_out_init(&of);
	assert_int_equal(run_named(st, "report", a, 2, &oa), 0);
	assert_int_equal(run_named(st, "report", b, 3, &ob), 0);
	grove_packet *fe_in[2] = {only_up(&oa), only_up(&ob)};
	assert_int_equal(run_named(st, "report", fe_in, 2, &of), 0);
	grove_packet *p = only_up(&of);
	assert_string_equal(grove_packet_format(p), GROVE_REPORT_FMT);

	grove_report *r = NULL;
	assert_int_equal(grove_report_decode(p, &r), 0);
	assert_int_equal(grove_report_count(r), 5);
	static const uint32_t want[] = {0, 1, 2, 3, 5};
	for (size_t i = 0; i < 5; i++) {
		uint32_t rank;
		grove_packet *rec = NULL;
		assert_int_equal(grove_report_record(r, i, &rank, &rec), 0);
		assert_int_equal(rank, want[i]);
		assert_int_equal(grove_packet_src(rec), rank);
		assert_int_equal(grove_packet_tag(rec), TAG);
		const char *s;
		int32_t v;
		double d;
		const int32_t *arr;
		uint64_t n;
		switch (rank) {
		case 0:
			assert_string_equal(grove_packet_format(rec), "");
			break;
		case 1:
			assert_int_equal(grove_packet_unpack(rec, "%s", &s), 0);
			assert_string_equal(s, "node1");
			break;
		case 2:
			assert_int_equal(grove_packet_unpack(rec, "%lf %ad", &d,
			    &arr, &n), 0);
			assert_true(d == 2.5 && n == 2 && arr[1] == 2);
			break;
		case 3:
			assert_int_equal(grove_packet_unpack(rec, "%s %d", &s,
			    &v), 0);
			assert_string_equal(s, "node3");
			assert_int_equal(v, 3003);
			/* The wrong format is refused, not crashed on. */
			assert_int_equal(grove_packet_unpack(rec, "%d", &v),
			    GROVE_EFORMAT);
			break;
		case 5:
			assert_string_equal(grove_packet_format(rec),
			    GROVE_REPORT_FMT);
			break;
		}
		grove_packet_unref(rec);
	}
	uint32_t rank;
	grove_packet *rec = (grove_packet *)1;
	assert_int_equal(grove_report_record(r, 5, &rank, &rec), GROVE_ERANGE);
	assert_null(rec);
	/* The rank alone, without a packet. */
	assert_int_equal(grove_report_record(r, 4, &rank, NULL), 0);
	assert_int_equal(rank, 5);
	grove_report_free(r);
	flt_out_fini(&oa);
	flt_out_fini(&ob);
	flt_out_fini(&of);
	unref_all(a, 2);
	unref_all(b, 3);
}

static void
test_report_corrupt(void **st)
{
	(void)st;
	grove_report *r = NULL;
	uint32_t ranks[2] = {0, 1}, lens[2] = {4, 4};
	uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	grove_packet *p;

	p = mk(0, "%d", 1);
	assert_int_equal(grove_report_decode(p, &r), GROVE_EFORMAT);
	grove_packet_unref(p);
	/* Lengths that do not add up. */
	p = mk(0, GROVE_REPORT_FMT, ranks, (uint64_t)2, lens, (uint64_t)2,
	    junk, (uint64_t)7);
	assert_int_equal(grove_report_decode(p, &r), GROVE_EFORMAT);
	assert_null(r);
	grove_packet_unref(p);
	p = mk(0, GROVE_REPORT_FMT, ranks, (uint64_t)1, lens, (uint64_t)2,
	    junk, (uint64_t)8);
	assert_int_equal(grove_report_decode(p, &r), GROVE_EFORMAT);
	grove_packet_unref(p);
	/* Records that are not frames. */
	p = mk(0, GROVE_REPORT_FMT, ranks, (uint64_t)2, lens, (uint64_t)2,
	    junk, (uint64_t)8);
	assert_int_equal(grove_report_decode(p, &r), 0);
	grove_packet *rec = NULL;
	uint32_t rank = 77;
	assert_true(grove_report_record(r, 0, &rank, &rec) < 0);
	assert_null(rec);
	assert_int_equal(rank, 0);
	grove_report_free(r);
	grove_packet_unref(p);

	/* A valid frame, cut short, and one with a control type. */
	grove_packet *good = mk(4, "%s %ud", "host", 12u);
	size_t len;
	const uint8_t *fb = wire_packet_bytes(good, &len);
	uint32_t l1[1] = {(uint32_t)len - 9};
	p = mk(0, GROVE_REPORT_FMT, ranks, (uint64_t)1, l1, (uint64_t)1, fb,
	    (uint64_t)l1[0]);
	assert_int_equal(grove_report_decode(p, &r), 0);
	assert_true(grove_report_record(r, 0, NULL, &rec) < 0);
	grove_report_free(r);
	grove_packet_unref(p);
	grove_packet *ctl = NULL;
	assert_int_equal(wire_pack(&ctl, WIRE_T_SHUTDOWN, 0, 0, 1, 0, ""), 0);
	fb = wire_packet_bytes(ctl, &len);
	l1[0] = (uint32_t)len;
	p = mk(0, GROVE_REPORT_FMT, ranks, (uint64_t)1, l1, (uint64_t)1, fb,
	    (uint64_t)len);
	assert_int_equal(grove_report_decode(p, &r), 0);
	assert_int_equal(grove_report_record(r, 0, NULL, &rec), GROVE_EPROTO);
	grove_report_free(r);
	grove_packet_unref(p);
	grove_packet_unref(ctl);
	/* A payload that lies about a string's length decodes to an error
	 * when unpacked. */
	fb = wire_packet_bytes(good, &len);
	uint8_t *copy = malloc(len);
	memcpy(copy, fb, len);
	size_t hdr = WIRE_HDR_SIZE + wire_pad8(strlen("%s %ud"));
	copy[hdr] = 200; /* string length */
	l1[0] = (uint32_t)len;
	p = mk(0, GROVE_REPORT_FMT, ranks, (uint64_t)1, l1, (uint64_t)1, copy,
	    (uint64_t)len);
	assert_int_equal(grove_report_decode(p, &r), 0);
	int rc = grove_report_record(r, 0, NULL, &rec);
	if (rc == 0) {
		const char *s;
		uint32_t u;
		assert_int_equal(grove_packet_unpack(rec, "%s %ud", &s, &u),
		    GROVE_EPROTO);
		grove_packet_unref(rec);
	} else {
		assert_true(rc < 0);
	}
	grove_report_free(r);
	grove_packet_unref(p);
	free(copy);
	grove_packet_unref(good);
	assert_int_equal(grove_report_decode(NULL, &r), GROVE_EINVAL);
	assert_int_equal(grove_report_count(NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_ranges),
		cmocka_unit_test_setup_teardown(test_equiv_1024_ranks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_equiv_integer_keys, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_equiv_bad_input, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_equiv_result_from_backend,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_same_rank_by_arrival,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_report_mixed_formats_two_levels, setup, teardown),
		cmocka_unit_test(test_report_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
