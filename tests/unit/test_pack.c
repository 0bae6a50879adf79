/* Typed packing (grove/pack.h): round trips of every type, packets the
 * same as the format API's both ways, int counts, sticky errors and
 * their messages, packer reuse. */
#include "codec_fixture.h"

#include "grove/pack.h"

static void
expect_msg(const char *s)
{
	const char *m = grove_packet_last_error();
	if (!strstr(m, s))
		fail_msg("last error \"%s\" lacks \"%s\"", m, s);
}

static void
test_round_trip(void **state)
{
	(void)state;
	grove_packer *pk;
	grove_packet *p;
	const double v[3] = {0.5, 1.5, 2.5};
	const char *names[2] = {"rx", "tx"};
	int32_t ia[2] = {-1, 7};
	assert_int_equal(grove_packer_create(&pk), 0);
	assert_int_equal(grove_pack_int8(pk, (int8_t)-3), 0);
	assert_int_equal(grove_pack_uint8(pk, (uint8_t)250), 0);
	assert_int_equal(grove_pack_int16(pk, (int16_t)-300), 0);
	assert_int_equal(grove_pack_uint16(pk, (uint16_t)60000), 0);
	assert_int_equal(grove_pack_int32(pk, -70000), 0);
	assert_int_equal(grove_pack_uint32(pk, 4000000000u), 0);
	assert_int_equal(grove_pack_int64(pk, (int64_t)-5000000000), 0);
	assert_int_equal(grove_pack_uint64(pk, (uint64_t)1 << 63), 0);
	assert_int_equal(grove_pack_float(pk, 1.25f), 0);
	assert_int_equal(grove_pack_double(pk, 2.5), 0);
	assert_int_equal(grove_pack_string(pk, "host"), 0);
	assert_int_equal(grove_pack_array_double(pk, v, 3), 0); /* int count */
	assert_int_equal(grove_pack_array_string(pk, names, 2), 0);
	assert_int_equal(grove_pack_array_int32(pk, ia, (uint64_t)2), 0);
	assert_int_equal(grove_pack_array_uint8(pk, NULL, 0), 0);
	assert_int_equal(grove_packer_finish(pk, 4, 9, &p), 0);
	assert_string_equal(grove_packet_format(p), "%c %uc %hd %uhd %d %ud "
	    "%ld %uld %f %lf %s %alf %as %ad %auc");
	assert_int_equal(grove_packet_stream(p), 4);
	assert_int_equal(grove_packet_tag(p), 9);
	assert_true(wire_packet_src_unset(p));

	/* The format API reads it ... */
	int8_t c;
	double d;
	const char *s;
	assert_int_equal(grove_packet_unpack(p, "%c %uc %hd %uhd %d %ud %ld "
	    "%uld %f %lf %s %alf %as %ad %auc", &c, NULL, NULL, NULL, NULL,
	    NULL, NULL, NULL, NULL, &d, &s, NULL, NULL, NULL, NULL, NULL, NULL,
	    NULL, NULL), 0);
	assert_int_equal(c, -3);
	assert_true(d == 2.5);
	assert_string_equal(s, "host");

	/* ... and so does the unpacker, int counts included. */
	grove_unpacker u;
	int8_t i8;
	uint8_t u8;
	int16_t i16;
	uint16_t u16;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64, n64;
	float f;
	const double *dv;
	const char *const *sv;
	const int32_t *iv;
	const uint8_t *ev;
	int n;
	grove_unpacker_init(&u, p);
	assert_int_equal(grove_unpack_int8(&u, &i8), 0);
	assert_int_equal(grove_unpack_uint8(&u, &u8), 0);
	assert_int_equal(grove_unpack_int16(&u, &i16), 0);
	assert_int_equal(grove_unpack_uint16(&u, &u16), 0);
	assert_int_equal(grove_unpack_int32(&u, &i32), 0);
	assert_int_equal(grove_unpack_uint32(&u, &u32), 0);
	assert_int_equal(grove_unpack_int64(&u, &i64), 0);
	assert_int_equal(grove_unpack_uint64(&u, &u64), 0);
	assert_int_equal(grove_unpack_float(&u, &f), 0);
	assert_int_equal(grove_unpack_double(&u, &d), 0);
	assert_int_equal(grove_unpack_string(&u, &s), 0);
	assert_int_equal(grove_unpack_array_double(&u, &dv, &n), 0);
	assert_int_equal(grove_unpack_array_string(&u, &sv, &n64), 0);
	assert_int_equal(grove_unpack_array_int32(&u, &iv, &n64), 0);
	assert_int_equal(grove_unpack_array_uint8(&u, &ev, NULL), 0);
	assert_int_equal(grove_unpacker_finish(&u), 0);
	assert_int_equal(i8, -3);
	assert_int_equal(u8, 250);
	assert_int_equal(i16, -300);
	assert_int_equal(u16, 60000);
	assert_int_equal(i32, -70000);
	assert_true(u32 == 4000000000u);
	assert_true(i64 == (int64_t)-5000000000);
	assert_true(u64 == (uint64_t)1 << 63);
	assert_true(f == 1.25f);
	assert_true(d == 2.5);
	assert_int_equal(n, 3);
	assert_true(dv[2] == 2.5);
	assert_int_equal(n64, 2);
	assert_int_equal(iv[0], -1);
	assert_int_equal(iv[1], 7);
	assert_string_equal(sv[1], "tx");
	grove_packet_unref(p);

	/* The packer is empty again and reusable. */
	assert_int_equal(grove_packer_finish(pk, 1, 0, &p), 0);
	assert_string_equal(grove_packet_format(p), "");
	grove_packet_unref(p);
	grove_packer_destroy(pk);
	grove_packer_destroy(NULL);
}

static void
test_generic(void **state)
{
	(void)state;
	grove_packer *pk;
	grove_packet *p;
	assert_int_equal(grove_packer_create(&pk), 0);
	int32_t a = 5;
	double b = 0.25;
	int64_t c = -9;
	const char *s = "x";
	char ch = 'q';
	uint16_t arr[2] = {1, 2};
	assert_int_equal(GROVE_PACK(pk, a), 0);
	assert_int_equal(GROVE_PACK(pk, b), 0);
	assert_int_equal(GROVE_PACK(pk, c), 0);
	assert_int_equal(GROVE_PACK(pk, s), 0);
	assert_int_equal(GROVE_PACK(pk, "lit"), 0);
	assert_int_equal(GROVE_PACK(pk, ch), 0);
	assert_int_equal(GROVE_PACK_ARRAY(pk, arr, 2), 0);
	assert_int_equal(grove_packer_finish(pk, 1, 0, &p), 0);
	assert_string_equal(grove_packet_format(p), "%d %lf %ld %s %s %c %auhd");
	grove_unpacker u;
	int32_t a2;
	double b2;
	int64_t c2;
	const char *s2;
	grove_unpacker_init(&u, p);
	assert_int_equal(GROVE_UNPACK(&u, &a2), 0);
	assert_int_equal(GROVE_UNPACK(&u, &b2), 0);
	assert_int_equal(GROVE_UNPACK(&u, &c2), 0);
	assert_int_equal(GROVE_UNPACK(&u, &s2), 0);
	assert_int_equal(a2, 5);
	assert_true(b2 == 0.25);
	assert_true(c2 == -9);
	assert_string_equal(s2, "x");
	/* Items left unread. */
	assert_int_equal(grove_unpacker_finish(&u), GROVE_EFORMAT);
	expect_msg("4 of the 7 items of packet");
	grove_packet_unref(p);
	grove_packer_destroy(pk);
}

static void
test_mismatch(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %ld %s", 1,
	    (int64_t)2, "z"), 0);
	grove_unpacker u;
	int32_t a = 0, b = 0;
	const char *s = NULL;
	grove_unpacker_init(&u, p);
	assert_int_equal(grove_unpack_int32(&u, &a), 0);
	assert_int_equal(grove_unpack_int32(&u, &b), GROVE_EFORMAT);
	expect_msg("grove_unpack_int32: item 2: the packet holds int64 (%ld), "
	    "the call asks for int32 (%d) (packet \"%d %ld %s\")");
	/* Sticky: the next call does nothing, finish returns the error. */
	assert_int_equal(grove_unpack_string(&u, &s), GROVE_EFORMAT);
	assert_null(s);
	assert_int_equal(grove_unpacker_finish(&u), GROVE_EFORMAT);
	expect_msg("item 2: the packet holds int64");

	/* Past the end. */
	int64_t l;
	grove_unpacker_init(&u, p);
	assert_int_equal(grove_unpack_int32(&u, NULL), 0);
	assert_int_equal(grove_unpack_int64(&u, &l), 0);
	assert_int_equal(grove_unpack_string(&u, NULL), 0);
	assert_int_equal(grove_unpack_double(&u, NULL), GROVE_EFORMAT);
	expect_msg("item 4: the packet \"%d %ld %s\" has only 3 items, double "
	    "(%lf) asked for");
	/* Array where the packet has a scalar. */
	const int32_t *v;
	uint64_t n;
	grove_unpacker_init(&u, p);
	assert_int_equal(grove_unpack_array_int32(&u, &v, &n), GROVE_EFORMAT);
	expect_msg("item 1: the packet holds int32 (%d), the call asks for "
	    "array of int32 (%ad)");
	grove_unpacker_init(&u, NULL);
	assert_int_equal(grove_unpack_int32(&u, &a), GROVE_EINVAL);
	expect_msg("the packet is NULL");
	grove_packet_unref(p);
}

static void
test_pack_errors(void **state)
{
	(void)state;
	grove_packer *pk;
	grove_packet *p = (grove_packet *)&p;
	assert_int_equal(grove_packer_create(&pk), 0);
	assert_int_equal(grove_pack_int32(pk, 1), 0);
	assert_int_equal(grove_pack_string(pk, NULL), GROVE_EINVAL);
	expect_msg("grove_pack_string: item 2 (string (%s)): the string is "
	    "NULL");
	/* Sticky until finish, which returns it and empties the packer. */
	assert_int_equal(grove_pack_int32(pk, 1), GROVE_EINVAL);
	assert_int_equal(grove_packer_finish(pk, 1, 0, &p), GROVE_EINVAL);
	assert_null(p);
	assert_int_equal(grove_pack_int32(pk, 1), 0);
	assert_int_equal(grove_packer_finish(pk, 1, 0, &p), 0);
	assert_string_equal(grove_packet_format(p), "%d");
	grove_packet_unref(p);

	assert_int_equal(grove_pack_array_double(pk, NULL, 2), GROVE_EINVAL);
	expect_msg("item 1 (array of double (%alf)): the array is NULL but "
	    "its count is 2");
	grove_packer_reset(pk);
	/* A negative int count converts to a huge one: refused at finish,
	 * named. */
	double x = 1;
	int neg = -1;
	assert_int_equal(grove_pack_array_double(pk, &x, neg), 0);
	assert_int_equal(grove_packer_finish(pk, 1, 0, &p), GROVE_ERANGE);
	expect_msg("item 1 (array of double (%alf)): 18446744073709551615 "
	    "elements do not fit");
	const char *sv[2] = {"a", NULL};
	assert_int_equal(grove_pack_array_string(pk, sv, 2), 0);
	assert_int_equal(grove_packer_finish(pk, 1, 0, &p), GROVE_EINVAL);
	expect_msg("string 1 of the array is NULL");
	assert_int_equal(grove_pack_int32(NULL, 1), GROVE_EINVAL);
	expect_msg("grove_pack_int32: the packer is NULL");
	assert_int_equal(grove_packer_finish(pk, 1, 0, NULL), GROVE_EINVAL);
	grove_packer_destroy(pk);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_pack_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
