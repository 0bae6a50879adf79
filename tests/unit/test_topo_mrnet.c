/* Unit tests for MRNet topology files as MRNet itself writes and reads
 * them: its full grammar (blanks around ':', lone node statements, a
 * file holding only the front-end, the layout characters its scanner
 * skips), the exact messages for a missing ';' or '=>' and for refused
 * characters, and the front-end host check of a network. */
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
#include "grove/topology.h"
#include "topo/fe_host.h"
#include "topo/lex_mrnet.h"

static grove_topo *
parse_ok(const char *text)
{
	grove_topo *t = NULL;
	char err[512] = "";

	if (grove_topo_parse_string(text, &t, err, sizeof err))
		fail_msg("parse failed: %s", err);
	return t;
}

/* The whole message, not a part of it: these are what a user reads. */
static void
expect_msg(const char *text, const char *msg)
{
	grove_topo *t = (grove_topo *)1;
	char err[512] = "";

	assert_int_equal(grove_topo_parse_string(text, &t, err, sizeof err),
	    GROVE_ETOPO);
	assert_null(t);
	assert_string_equal(err, msg);
}

/* The text of t in MRNet format, for comparing shapes. */
static void
expect_mrnet(const char *text, const char *want)
{
	grove_topo *t = parse_ok(text);
	char *s = NULL;
	const char *body;

	assert_int_equal(grove_topo_to_string(t, GROVE_TOPO_MRNET, &s), 0);
	body = strchr(s, '\n'); /* past the "# grove topology" comment */
	assert_non_null(body);
	assert_string_equal(body + 1, want);
	free(s);
	grove_topo_destroy(t);
}

static void
test_missing_semicolon(void **state)
{
	/* The next statement's head and its '=>' give the missing ';'
	 * away; before, they joined the child list and came out as "has two
	 * parents" or "listed twice". */
	expect_msg("vm:0 => vm:1 ;\n\nvm:1 => vm:2 vm:3\nvm:3 => vm:4 ;\n",
	    "line 3: missing ';' after 'vm:1 => vm:2 vm:3' (the next "
	    "statement, 'vm:3 =>', starts at line 4)");
	expect_msg("a:0 => b:0 c:0\nb:0 => d:0 ;\n",
	    "line 1: missing ';' after 'a:0 => b:0 c:0' (the next statement, "
	    "'b:0 =>', starts at line 2)");
	/* The line is the one the statement ends on. */
	expect_msg("a:0 =>\n  b:0\n  c:0\n\n# gap\nc:0 => d:0 ;\n",
	    "line 3: missing ';' after 'a:0 => b:0 c:0' (the next statement, "
	    "'c:0 =>', starts at line 6)");
	expect_msg("a:0 => b:0 ;\na:0 =>\n b:1\n",
	    "line 3: missing ';' after 'a:0 => b:1' at end of file");
	expect_msg("a:0 => b:0 ;\na:0 =>\n",
	    "line 2: missing ';' after 'a:0 =>' at end of file");
	/* A lone node without its ';'. */
	expect_msg("vm:0", "line 1: missing ';' after 'vm:0' at end of file");
	expect_msg("a:0 => b:0 ;\nc:0\nd:0 => e:0 ;\n",
	    "line 2: missing ';' after 'c:0' (the next statement, 'd:0 =>', "
	    "starts at line 3)");
	/* Two arrows in a row. */
	expect_msg("a:0 => b:0 => c:0 ;\n",
	    "line 1: missing ';' after 'a:0 =>' (the next statement, "
	    "'b:0 =>', starts at line 1)");
	/* A long child list is cut in the middle and counted. */
	expect_msg("f:0 => b:1 b:2 b:3 b:4 b:5 b:6 b:7 b:8\nc:0 => d:0 ;\n",
	    "line 1: missing ';' after 'f:0 => b:1 b:2 b:3 ... b:8' (8 "
	    "children) (the next statement, 'c:0 =>', starts at line 2)");
}

static void
test_missing_arrow(void **state)
{
	expect_msg("vm:0 vm:1 vm:2 ;\n",
	    "line 1: missing '=>' after 'vm:0' (before 'vm:1' at line 1)");
	expect_msg("a:0 => b:0 ;\nb:0\n  c:0 d:0 ;\n",
	    "line 2: missing '=>' after 'b:0' (before 'c:0' at line 3)");
	/* Not a node after the head: neither '=>' nor ';' came. */
	expect_msg("a:0 be0 ;\n",
	    "line 1: syntax error at 'be0': expected '=>' or ';'");
	expect_msg("a:0 -> b:0 ;\n",
	    "line 1: syntax error at '->': expected '=>' or ';'");
}

static void
test_other_syntax_errors(void **state)
{
	expect_msg("fe:0 => cp:0 ;\ncp:0 => be:0\n\tbe:1 be0 ;\n",
	    "line 3: syntax error at 'be0': expected a node 'host:N' or ';'");
	expect_msg("a:0 => b:x ;\n",
	    "line 1: bad node 'b:x': expected an instance number after ':'");
	expect_msg("a:0 => b:0c ;\n",
	    "line 1: bad node 'b:0c': expected an instance number after ':'");
	expect_msg("a:0 => b: ;\n",
	    "line 1: bad node 'b:': expected an instance number after ':'");
	expect_msg("a:0 => b :\n -1 ;\n",
	    "line 2: bad node 'b :\\n -1': expected an instance number after "
	    "':'");
	expect_msg("=> b:0 ;\n",
	    "line 1: syntax error at '=>': expected a node 'host:N'");
	expect_msg("a:0 => b:0 ;\n;\n",
	    "line 2: syntax error at ';': expected a node 'host:N'");
	expect_msg("a:0 => b:0 = ;\n",
	    "line 1: syntax error at '=': expected a node 'host:N' or ';'");
	expect_msg("a:0 => b:99999999999 ;\n",
	    "line 1: instance number in 'b:99999999999' is larger than "
	    "4294967295");
}

static void
test_blanks_around_colon(void **state)
{
	/* MRNet's scanner makes ':' a token of its own. */
	expect_mrnet("vm : 0 => vm : 1 ;\n", "vm:0 => vm:1 ;\n");
	expect_mrnet("vm :0=>vm: 1 vm\t:\t2;\n", "vm:0 => vm:1 vm:2 ;\n");
	expect_mrnet("vm\n:\n0 => vm:1 ;\n", "vm:0 => vm:1 ;\n");
}

static void
test_lone_node_statements(void **state)
{
	/* "vm:1 ;" declares a node; it may come before or after the node
	 * is listed as a child, or be repeated. */
	expect_mrnet("vm:0 => vm:1 ;\nvm:1 ;\n", "vm:0 => vm:1 ;\n");
	expect_mrnet("vm:1 ;\nvm:0 ;\nvm:0 => vm:1 vm:2 ;\nvm:0 ;\n",
	    "vm:0 => vm:1 vm:2 ;\n");
	/* A declared node nobody lists is a second root. */
	expect_msg("vm:0 => vm:1 ;\nvm:7 ;\n",
	    "line 2: second root 'vm:7' (the first root is 'vm:0' at line 1); "
	    "a topology has exactly one root");
}

static void
test_front_end_only(void **state)
{
	/* MRNet takes it (back-ends attach to the front-end); Grove's
	 * back-ends are leaves of the topology, so there are none. */
	expect_msg("# just the front-end\nvm:0 ;\n",
	    "line 2: the root 'vm:0' has no children: the topology holds only "
	    "the front-end, and a Grove network needs at least one back-end "
	    "(list them as its children, 'vm:0 => host:N ... ;')");
	expect_msg("lonely:0 => ;\n",
	    "line 1: the root 'lonely:0' has no children: the topology holds "
	    "only the front-end, and a Grove network needs at least one "
	    "back-end (list them as its children, 'lonely:0 => host:N ... ;')");
}

static void
test_skipped_characters(void **state)
{
	/* Form feeds, carriage returns (CRLF files), tabs and vertical tabs
	 * separate tokens, as in MRNet. */
	expect_mrnet("# page 1\r\n\fvm:0\t=>\r\n\vvm:1\tvm:2 ;\r\n\f",
	    "vm:0 => vm:1 vm:2 ;\n");
	/* A UTF-8 byte-order mark at the start is not text. */
	expect_mrnet("\xEF\xBB\xBFvm:0 => vm:1 ;\n", "vm:0 => vm:1 ;\n");
	/* CRLF lines still count. */
	expect_msg("a:0 => b:0 ;\r\n\r\nb:0 c:0 ;\r\n",
	    "line 3: missing '=>' after 'b:0' (before 'c:0' at line 3)");
}

static void
test_refused_characters(void **state)
{
	/* Printed escaped, never raw, with the word around them. */
	expect_msg("a:0 => b:0\x01 ;\n",
	    "line 1: unexpected character '\\x01' in 'b:0\\x01'");
	expect_msg("a:0 =>\n b:0 \x1b[31m ;\n",
	    "line 2: unexpected character '\\x1b' in '\\x1b[31m'");
	expect_msg("a:0 => b@0 ;\n",
	    "line 1: unexpected character '@' in 'b@0'");
	expect_msg("a:0 => b:0 * ;\n", "line 1: unexpected character '*'");
	expect_msg("a:0 => caf\xc3\xa9:0 ;\n",
	    "line 1: unexpected character '\\xc3' in 'caf\\xc3\\xa9:0'");
	expect_msg("a:0 => b:0 \x7f ;\n", "line 1: unexpected character "
	    "'\\x7f'");
	expect_msg("a:0 => b:0 \\ ;\n", "line 1: unexpected character '\\\\'");
	expect_msg("a:0 => 'b:0' ;\n",
	    "line 1: unexpected character '\\'' in '\\'b:0\\''");
	/* After '=' too, and inside a misplaced token. */
	expect_msg("a:0 =\x02 b:0 ;\n",
	    "line 1: unexpected character '\\x02' in '=\\x02'");
	expect_msg("a:0 => b:0 ;\nb:0 ->\x02 c:0 ;\n",
	    "line 2: unexpected character '\\x02' in '->\\x02'");
}

static void
test_quote(void **state)
{
	char buf[16];

	assert_string_equal(topo_quote("a\tb\n", 4, buf, sizeof buf),
	    "a\\tb\\n");
	assert_string_equal(topo_quote("\x01\xff", 2, buf, sizeof buf),
	    "\\x01\\xff");
	/* Cut with "...", never inside an escape. */
	assert_string_equal(topo_quote("abcdefghijklmnopqrstuvwxyz", 26, buf,
	    sizeof buf), "abcdefghijkl...");
	assert_string_equal(topo_quote("abcdefghijk\x01\x01", 13, buf,
	    sizeof buf), "abcdefghijk...");
	assert_string_equal(topo_quote("", 0, buf, sizeof buf), "");
}

static int
only_here(const char *host)
{
	return !strcmp(host, "here");
}

static void
test_fe_host(void **state)
{
	grove_topo *t;
	char err[512] = "", want[512], self[256] = "";

	t = parse_ok("here:0 => vm:1 ;\n");
	assert_int_equal(topo_check_fe_host(t, only_here, err, sizeof err), 0);
	grove_topo_destroy(t);

	t = parse_ok("# the cluster\n\nvm:1 => vm:2 ;\nvm:0 => vm:1 ;\n");
	assert_int_equal(topo_check_fe_host(t, only_here, err, sizeof err),
	    GROVE_ETOPO);
	assert_int_equal(gethostname(self, sizeof self - 1), 0);
	snprintf(want, sizeof want, "line 4: the root 'vm:0' is the front-end, "
	    "which is the process creating the network, on this host ('%s'); "
	    "Grove cannot start it on 'vm': write this host's name or "
	    "'localhost' as the root's host", self);
	assert_string_equal(err, want);
	grove_topo_destroy(t);

	/* A generated topology has no line to name. */
	assert_int_equal(grove_topo_generate("flat", 2, NULL, &t, err,
	    sizeof err), 0);
	assert_int_equal(topo_check_fe_host(t, only_here, err, sizeof err),
	    GROVE_ETOPO);
	assert_non_null(strstr(err, "the root 'localhost:0' is the front-end"));
	assert_int_equal(strncmp(err, "the root", 8), 0);
	grove_topo_destroy(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_semicolon),
		cmocka_unit_test(test_missing_arrow),
		cmocka_unit_test(test_other_syntax_errors),
		cmocka_unit_test(test_blanks_around_colon),
		cmocka_unit_test(test_lone_node_statements),
		cmocka_unit_test(test_front_end_only),
		cmocka_unit_test(test_skipped_characters),
		cmocka_unit_test(test_refused_characters),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_fe_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
