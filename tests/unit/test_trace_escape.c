/* Names in exported traces (src/trace/escape.c): collector names, layers
 * and places are any bytes a tool passes.  JSON keeps UTF-8 as written
 * and stays valid whatever the bytes; text keeps one record per line and
 * the field count fixed.  Checked on strings, then end to end: a collector
 * with a name in UTF-8 holding a tab and a newline, recorded in this
 * process's event space and exported as text, Chrome JSON and statistics. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "trace/trace_impl.h"

static char *
json_of(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	trace_json_str(f, s);
	fclose(f);
	return buf;
}

static void
expect_json(const char *s, const char *want)
{
	char *got = json_of(s);
	assert_string_equal(got, want);
	free(got);
}

static void
test_json(void **state)
{
	(void)state;
	expect_json("plain", "\"plain\"");
	expect_json("h\xc3\xa9llo", "\"h\xc3\xa9llo\"");         /* é */
	expect_json("\xe2\x82\xac", "\"\xe2\x82\xac\"");           /* € */
	expect_json("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");   /* U+1F600 */
	expect_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_json("\t\n\x01\x7f", "\"\\u0009\\u000a\\u0001\\u007f\"");
	/* Not UTF-8: one replacement per byte that starts nothing. */
	expect_json("\xff", "\"\\ufffd\"");
	expect_json("\xc0\x80", "\"\\ufffd\\ufffd\"");             /* overlong */
	expect_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");  /* surrogate */
	expect_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect_json("\xe2\x82", "\"\\ufffd\\ufffd\"");             /* cut short */
	expect_json("x\xe2\x82y", "\"x\\ufffd\\ufffdy\"");
	/* Runs of plain characters between escapes, and none at all. */
	expect_json("ab\"cd\xff\xc3\xa9" "f\n",
	    "\"ab\\\"cd\\ufffd\xc3\xa9" "f\\u000a\"");
	expect_json("", "\"\"");
}

static void
test_text(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(trace_text_field("a\tb\nc\\d\re", buf, sizeof buf),
	    "a\\tb\\nc\\\\d\\re");
	assert_string_equal(trace_text_field("\x01\x7f", buf, sizeof buf),
	    "\\x01\\x7f");
	assert_string_equal(trace_text_field("h\xc3\xa9", buf, sizeof buf),
	    "h\xc3\xa9");
	assert_string_equal(trace_text_field("\xff" "a", buf, sizeof buf),
	    "\\xffa");
	/* Cut at a whole character or escape. */
	assert_string_equal(trace_text_field("h\xc3\xa9llo", buf, 3), "h");
	assert_string_equal(trace_text_field("h\xc3\xa9llo", buf, 4),
	    "h\xc3\xa9");
	assert_string_equal(trace_text_field("a\tb", buf, 3), "a");
	assert_string_equal(trace_text_field("abc", buf, 1), "");
	assert_string_equal(trace_text_field("", buf, sizeof buf), "");
}

/* Collects this process's event space and writes it with fn. */
static char *
export_own(const char *net, int (*fn)(const struct trace_set *, FILE *))
{
	struct trace_set set;
	assert_int_equal(trace_set_collect(net, &set), 0);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(fn(&set, f), 0);
	fclose(f);
	trace_set_free(&set);
	return buf;
}

static char net[64];

/* This process's event space, removed even when a test fails. */
static int
setup(void **state)
{
	(void)state;
	snprintf(net, sizeof net, "esc%ld", (long)getpid());
	unsetenv("GROVE_TRACE");
	return grove_trace_init(net, "be", 0);
}

static int
teardown(void **state)
{
	(void)state;
	grove_trace_fini(0);
	return 0;
}

static void
test_exports(void **state)
{
	(void)state;
	grove_trace_collector c;
	assert_int_equal(grove_trace_collector_register(&c,
	    "h\xc3\xa9llo\tworld\nx", "us\ter", "a\nb", NULL), 0);
	assert_true(c.id != 0);
	for (int i = 0; i < 3; i++)
		grove_trace_end(&c, GROVE_OP_USER, i, grove_trace_begin());

	char *text = export_own(net, trace_export_text);
	int rows = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		int tabs = 0;
		for (char *p = line; *p; p++)
			tabs += *p == '\t';
		assert_int_equal(tabs, 10); /* 11 fields, as the header says */
		if (strstr(line, "h\xc3\xa9llo\\tworld\\nx\tus\\ter\ta\\nb\t"))
			rows++;
	}
	assert_int_equal(rows, 3);
	free(text);

	char *json = export_own(net, trace_export_chrome);
	assert_non_null(strstr(json, "\"h\xc3\xa9llo\\u0009world\\u000ax\""));
	for (const char *p = json; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\n');
	free(json);

	char *stats = export_own(net, trace_stats_text);
	assert_non_null(strstr(stats, "h\xc3\xa9llo\\tworld\\nx"));
	assert_null(strstr(stats, "world\nx"));
	free(stats);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_exports),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
