/* Unit tests for connfile_find (src/tbon/connfile.c): the attach-mode
 * connection file as the front-end writes it, the variations a person or
 * another system may bring (comments, CR LF, blanks, ranks out of order),
 * and every kind of bad line or repeated rank, each refused with its line
 * number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "tbon/connfile.h"

#define SECRET "9c4501729be35f54c9aa43ad1f2ced6bac3b5fc186064a1cbd3928e886713820"

/* The file as the front-end writes it: its first line names the
 * protocol, then text. */
static int
find(const char *text, uint32_t rank, connfile_record *r, char *err)
{
	char buf[2048];
	int n = snprintf(buf, sizeof buf, "%s %u\n%s", CONNFILE_FIRST_LINE,
	    GROVE_PROTOCOL, text);
	assert_true(n > 0 && (size_t)n < sizeof buf);
	return connfile_find(buf, (size_t)n, rank, r, err, 200);
}

static void
test_as_written(void **state)
{
	(void)state;
	const char *t = "secret " SECRET "\nbackends 3\n"
	    "0 127.0.0.1 37985 2 3\n1 127.0.0.1 37985 2 4\n"
	    "2 node7.cluster.org 65535 5 6\n";
	connfile_record r;
	char err[200] = "";
	assert_int_equal(find(t, 2, &r, err), 0);
	assert_string_equal(r.secret_hex, SECRET);
	assert_int_equal(r.backends, 3);
	assert_string_equal(r.host, "node7.cluster.org");
	assert_int_equal(r.port, 65535);
	assert_int_equal(r.parent, 5);
	assert_int_equal(r.node, 6);
	assert_int_equal(find(t, 0, &r, err), 0);
	assert_int_equal(r.port, 37985);
	assert_int_equal(r.node, 3);
	/* The last line needs no newline. */
	assert_int_equal(find("secret " SECRET "\nbackends 5\n4 h 1 2 3", 4, &r,
	    err), 0);
	assert_string_equal(r.host, "h");
}

static void
test_comments_blanks_crlf(void **state)
{
	(void)state;
	const char *t = "# written by hand\r\n\r\nsecret " SECRET "\r\n"
	    "backends 2\r\n\n0  127.0.0.1\t4000 1 2\r\n# 1 x 1 1 1\n";
	connfile_record r;
	char err[200] = "";
	assert_int_equal(find(t, 0, &r, err), 0);
	assert_string_equal(r.host, "127.0.0.1");
	assert_int_equal(r.port, 4000);
	assert_int_equal(find(t, 1, &r, err), GROVE_ENOENT);
	assert_string_equal(err, "no record for rank 1 (1 records)");
}

static void
test_bad_lines(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *err;
	} cases[] = {
		{"secret abc\n", "line 2: 'secret' wants 64 hex digits"},
		{"secret " SECRET "0\n", "line 2: 'secret' wants 64 hex digits"},
		{"secret " SECRET " x\n", "line 2: 'secret' wants 64 hex digits"},
		{"secret " SECRET "\nbackends -1\n",
		    "line 3: 'backends' wants a number"},
		{"secret " SECRET "\nbackends 4294967296\n",
		    "line 3: 'backends' wants a number"},
		{"secret " SECRET "\n0 h 65536 1 2\n", "line 3: expected"},
		{"secret " SECRET "\n0 h 1 2\n", "line 3: expected"},
		{"secret " SECRET "\n0 h 1 2 3 4\n", "line 3: expected"},
		{"secret " SECRET "\n-0 h 1 2 3\n", "line 3: expected"},
		{"secret " SECRET "\n0 h 1x 2 3\n", "line 3: expected"},
		{"secret " SECRET "\nhello\n", "line 3: expected"},
		{"0 h 1 2 3\n", "no 'secret' line"},
		{"", "no 'secret' line"},
		/* The file must say how many back-ends the network has, and
		 * no record may name a rank beyond them. */
		{"secret " SECRET "\n0 h 1 2 3\n", "no 'backends' line"},
		{"secret " SECRET "\nbackends 2\n0 h 1 2 3\n1 h 1 2 4\n"
		    "7 h 1 2 4\n", "line 6: rank 7, but 'backends' is 2"},
		{"secret " SECRET "\n2 h 1 2 3\n0 h 1 2 4\nbackends 2\n",
		    "line 3: rank 2, but 'backends' is 2"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		connfile_record r;
		char err[200] = "";
		int rc = find(cases[i].text, 0, &r, err);
		if (rc != GROVE_EPROTO || strncmp(err, cases[i].err,
		    strlen(cases[i].err)))
			fail_msg("case %zu: rc %d, err '%s', wanted EPROTO, '%s'",
			    i, rc, err, cases[i].err);
	}
	/* A NUL byte inside a line. */
	char nul[200];
	int nl = snprintf(nul, sizeof nul, "%s %u\nsecret " SECRET "\n0 h",
	    CONNFILE_FIRST_LINE, GROVE_PROTOCOL);
	memcpy(nul + nl, "\0 1 2 3\n", 8);
	connfile_record r;
	char err[200] = "";
	assert_int_equal(connfile_find(nul, (size_t)nl + 8, 0, &r, err,
	    sizeof err), GROVE_EPROTO);
	assert_string_equal(err, "line 3: NUL byte");
}

/* A rank listed twice is refused, whichever rank is asked for, naming
 * the line of the second record and of the first. */
static void
test_repeated_rank(void **state)
{
	(void)state;
	connfile_record r;
	char err[200] = "";
	/* In the front-end's order: the repeat follows its first record. */
	const char *t = "secret " SECRET "\n0 a 1 2 3\n0 b 4 5 6\n";
	assert_int_equal(find(t, 0, &r, err), GROVE_EPROTO);
	assert_string_equal(err, "line 4: rank 0 again (first on line 3)");
	const char *later = "secret " SECRET "\nbackends 3\n"
	    "0 a 1 2 3\n1 a 1 2 4\n# a comment\n1 b 1 2 5\n2 a 1 2 6\n";
	assert_int_equal(find(later, 0, &r, err), GROVE_EPROTO);
	assert_string_equal(err, "line 7: rank 1 again (first on line 5)");
	assert_int_equal(find(later, 2, &r, err), GROVE_EPROTO);

	/* Out of order: the repeat is found after the whole file is read,
	 * and the first repeat in the file is the one named. */
	const char *crlf = "secret " SECRET "\r\n"
	    "2 a 1 2 6\r\n0 a 1 2 3\r\n5 a 1 2 9\r\n1 a 1 2 4\r\n"
	    "5 b 1 2 9\r\n0 c 1 2 3\r\n";
	assert_int_equal(find(crlf, 1, &r, err), GROVE_EPROTO);
	assert_string_equal(err, "line 7: rank 5 again (first on line 5)");
	const char *three = "secret " SECRET "\n"
	    "7 a 1 2 3\n3 a 1 2 3\n7 b 1 2 3\n7 c 1 2 3\n3 d 1 2 3\n";
	assert_int_equal(find(three, 3, &r, err), GROVE_EPROTO);
	assert_string_equal(err, "line 5: rank 7 again (first on line 3)");

	/* Out of order without repeats is fine. */
	const char *ok = "secret " SECRET "\n"
	    "2 a 1 2 6\n0 b 1 2 3\n1 c 1 2 4\nbackends 3\n";
	assert_int_equal(find(ok, 0, &r, err), 0);
	assert_string_equal(r.host, "b");
	assert_int_equal(find(ok, 2, &r, err), 0);
	assert_string_equal(r.host, "a");
	assert_int_equal(find(ok, 3, &r, err), GROVE_ENOENT);
	assert_string_equal(err, "no record for rank 3 (3 records)");
}

/* The first line names the protocol of the front-end that wrote the
 * file; a file of another one is refused naming both, before any other
 * line is looked at (its lines may mean something else). */
static void
test_protocol_line(void **state)
{
	(void)state;
	const char *body = "secret " SECRET "\nbackends 1\n0 h 1 2 3\n";
	char text[400], want[300], err[300] = "";
	connfile_record r;

	/* As written, also with CR LF. */
	snprintf(text, sizeof text, "%s %u\r\n%s", CONNFILE_FIRST_LINE,
	    GROVE_PROTOCOL, body);
	assert_int_equal(connfile_find(text, strlen(text), 0, &r, err,
	    sizeof err), 0);

	/* No protocol line: a Grove from before the number. */
	assert_int_equal(connfile_find(body, strlen(body), 0, &r, err,
	    sizeof err), GROVE_EPROTO);
	snprintf(want, sizeof want, "line 1: not '# grove connection file, "
	    "protocol %u' (a file from a Grove before protocol 2, or written "
	    "by hand without that line)", GROVE_PROTOCOL);
	assert_string_equal(err, want);
	/* Nor when it is not the first line. */
	snprintf(text, sizeof text, "# by hand\n%s %u\n%s",
	    CONNFILE_FIRST_LINE, GROVE_PROTOCOL, body);
	assert_int_equal(connfile_find(text, strlen(text), 0, &r, err,
	    sizeof err), GROVE_EPROTO);
	assert_string_equal(err, want);

	/* An empty file is no file of any version. */
	assert_int_equal(connfile_find("", 0, 0, &r, err, sizeof err),
	    GROVE_EPROTO);
	assert_string_equal(err, "the file is empty");

	/* Another number, whatever follows. */
	snprintf(text, sizeof text, "%s %u\nsecret x\nno such line\n",
	    CONNFILE_FIRST_LINE, GROVE_PROTOCOL + 1);
	assert_int_equal(connfile_find(text, strlen(text), 0, &r, err,
	    sizeof err), GROVE_EPROTO);
	snprintf(want, sizeof want, "written by Grove protocol %u, this "
	    "back-end speaks %u: install the same Grove version on every host",
	    GROVE_PROTOCOL + 1, GROVE_PROTOCOL);
	assert_string_equal(err, want);

	/* No number. */
	static const char *const bad[] = {
		"# grove connection file, protocol x\n",
		"# grove connection file, protocol 0\n",
		"# grove connection file, protocol 2x\n",
		"# grove connection file, protocol 99999999999\n",
		"# grove connection file, protocol\t2\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(connfile_find(bad[i], strlen(bad[i]), 0, &r, err,
		    sizeof err), GROVE_EPROTO);
		assert_string_equal(err, "line 1: '# grove connection file, "
		    "protocol' wants a protocol number");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_written),
		cmocka_unit_test(test_comments_blanks_crlf),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_repeated_rank),
		cmocka_unit_test(test_protocol_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
