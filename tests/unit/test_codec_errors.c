/* Packet codec: every error return of the packing and unpacking API
 * leaves a last error that says what and where (grove_packet_last_error):
 * the format and byte offset of a bad conversion, the item and both types
 * of a mismatch, the NULL or oversized item, the corrupt payload. */
#include "codec_fixture.h"

#include "grove/pack.h"

/* The last error contains each of the strings (NULL-terminated list). */
static void
expect_msg(const char *first, ...)
{
	const char *m = grove_packet_last_error();
	va_list ap;
	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		if (!strstr(m, s))
			fail_msg("last error \"%s\" lacks \"%s\"", m, s);
	va_end(ap);
}

static void
test_bad_format_strings(void **state)
{
	(void)state;
	grove_packet *p = NULL;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %q", 1, 2),
	    GROVE_EFORMAT);
	assert_null(p);
	expect_msg("format \"%d %q\"", "unknown conversion '%q' at offset 3",
	    NULL);
	/* Not called a mismatch: the shared text covers both causes. */
	assert_null(strstr(grove_strerror(GROVE_EFORMAT), "mismatch"));
	assert_non_null(strstr(grove_strerror(GROVE_EFORMAT), "bad packet "
	    "format string"));

	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %lld", 1, 2LL),
	    GROVE_EFORMAT);
	expect_msg("unknown conversion '%lld' at offset 3", NULL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %", 1),
	    GROVE_EFORMAT);
	expect_msg("lone '%' at offset 3", NULL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%dx", 1),
	    GROVE_EFORMAT);
	expect_msg("conversion '%d' at offset 0 is followed by 'x'", NULL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d, %d", 1, 2),
	    GROVE_EFORMAT);
	expect_msg("conversion '%d' at offset 0 is followed by ','", NULL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d count", 1),
	    GROVE_EFORMAT);
	expect_msg("'count' at offset 3 is not a conversion", NULL);
	/* A control byte in the format is shown escaped. */
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d\t%\x01", 1),
	    GROVE_EFORMAT);
	expect_msg("format \"%d\\t%\\x01\"", "'%\\x01' at offset 3", NULL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, NULL), GROVE_EFORMAT);
	expect_msg("format is NULL", NULL);

	/* Unpacking with a bad format says so too, not "mismatch". */
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d", 5), 0);
	int32_t d;
	assert_int_equal(grove_packet_unpack(p, "%q", &d), GROVE_EFORMAT);
	expect_msg("unknown conversion '%q' at offset 0", NULL);
	grove_packet_unref(p);

	/* Too many items. */
	size_t n = 1366;
	char *f = malloc(3 * n + 1);
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		memcpy(f + 3 * i, "%c ", 3);
	f[3 * n - 1] = '\0';
	assert_int_equal(grove_packet_pack(&p, 1, 2, f), GROVE_EFORMAT);
	expect_msg("longer than 4096 bytes", "at item 1366", NULL);
	free(f);
}

static void
test_unpack_mismatch(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %ld", 1,
	    (int64_t)5), 0);
	int32_t a = 0, b = 0;
	assert_int_equal(grove_packet_unpack(p, "%d %d", &a, &b),
	    GROVE_EFORMAT);
	expect_msg("item 2: the packet holds int64 (%ld), the format asks "
	    "for int32 (%d)", "packet \"%d %ld\"", "format \"%d %d\"", NULL);
	assert_int_equal(a, 0);
	assert_int_equal(grove_packet_unpack(p, "%d %ald", &a, NULL, NULL),
	    GROVE_EFORMAT);
	expect_msg("item 2: the packet holds int64 (%ld), the format asks "
	    "for array of int64 (%ald)", NULL);
	assert_int_equal(grove_packet_unpack(p, "%d", &a), GROVE_EFORMAT);
	expect_msg("the packet holds 2 items (\"%d %ld\"), the format "
	    "\"%d\" asks for 1", NULL);
	assert_int_equal(grove_packet_unpack(p, "%d %ld %s", &a, NULL, NULL),
	    GROVE_EFORMAT);
	expect_msg("the packet holds 2 items", "asks for 3", NULL);
	assert_int_equal(grove_packet_unpack(NULL, "%d", &a), GROVE_EINVAL);
	expect_msg("the packet is NULL", NULL);
	assert_int_equal(grove_packet_unpack(p, NULL), GROVE_EINVAL);
	expect_msg("the format is NULL", NULL);
	grove_item it;
	assert_int_equal(grove_packet_item(p, 2, &it), GROVE_ERANGE);
	expect_msg("index 2 outside the 2 items", NULL);
	grove_packet_unref(p);
}

static void
test_pack_bad_items(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %s", 1,
	    (const char *)NULL), GROVE_EINVAL);
	expect_msg("pack \"%d %s\": item 2 (string (%s)): the string is NULL",
	    NULL);
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%ad", NULL,
	    (uint64_t)3), GROVE_EINVAL);
	expect_msg("item 1 (array of int32 (%ad)): the array is NULL but its "
	    "count is 3", NULL);
	const char *v[] = {"a", NULL};
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %as", 0, v,
	    (uint64_t)2), GROVE_EINVAL);
	expect_msg("item 2 (array of string (%as)): string 1 of the array is "
	    "NULL", NULL);
	int32_t x = 0;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%ad", &x,
	    (uint64_t)-1), GROVE_ERANGE);
	expect_msg("item 1", "18446744073709551615 elements do not fit",
	    "negative int", NULL);
	assert_int_equal(grove_packet_pack(NULL, 1, 2, "%d", 1),
	    GROVE_EINVAL);
	expect_msg("out is NULL", NULL);
}

static void
test_corrupt_payload(void **state)
{
	(void)state;
	grove_packet *p, *q;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%d %s", 7, "hello"), 0);
	size_t len;
	uint8_t *c = frame_copy(p, &len);
	/* The string's length field (after the 4-byte %d): far too long. */
	size_t fpad = 8; /* "%d %s" and its NUL padded to 8 */
	c[WIRE_HDR_SIZE + fpad + 4] = 0xff;
	assert_int_equal(wire_packet_from_bytes(c, len, &q), 0);
	int32_t d;
	const char *s;
	assert_int_equal(grove_packet_unpack(q, "%d %s", &d, &s),
	    GROVE_EPROTO);
	expect_msg("packet \"%d %s\" is corrupt", "item 2 (string (%s)) at "
	    "payload byte 4", NULL);
	/* The second time the cached failure still explains itself. */
	assert_int_equal(grove_packet_unpack(q, "%d %s", &d, &s),
	    GROVE_EPROTO);
	expect_msg("packet \"%d %s\" is corrupt", NULL);
	grove_packet_unref(q);
	free(c);
	grove_packet_unref(p);
}

/* Last errors are per thread: another thread's failure does not change
 * this thread's message. */
static void *
fail_other(void *arg)
{
	(void)arg;
	grove_packet *p;
	grove_packet_pack(&p, 1, 2, "%zz");
	return NULL;
}

static void
test_per_thread(void **state)
{
	(void)state;
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 2, "%q"), GROVE_EFORMAT);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fail_other, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	expect_msg("'%q'", NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_format_strings),
		cmocka_unit_test(test_unpack_mismatch),
		cmocka_unit_test(test_pack_bad_items),
		cmocka_unit_test(test_corrupt_payload),
		cmocka_unit_test(test_per_thread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
