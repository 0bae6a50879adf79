/* Unit tests for hostlist_expand (tools/run/hostlist.h): Slurm's
 * compressed host lists, as in SLURM_JOB_NODELIST. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hostlist.h"

/* Expands spec and joins the hosts with ' '. */
static void
joined(const char *spec, char *out, size_t len)
{
	char **h = NULL;
	size_t n = 0;
	char err[256] = "";
	int rc = hostlist_expand(spec, &h, &n, err, sizeof err);
	if (rc != 0)
		fail_msg("'%s': %s", spec, err);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strncat(out, h[i], len - strlen(out) - 1);
		if (i + 1 < n)
			strncat(out, " ", len - strlen(out) - 1);
	}
	hostlist_free(h, n);
}

static void
test_expand(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *want;
	} cases[] = {
		{"vm", "vm"},
		{"h[1-3,5],x7", "h1 h2 h3 h5 x7"},
		{"a,b,c", "a b c"},
		{"n[08-11]", "n08 n09 n10 n11"},
		{"n[8-11]", "n8 n9 n10 n11"},
		{"n[098-101]", "n098 n099 n100 n101"},
		{"rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02"},
		{"n[3]", "n3"},
		{"n[1-2]x", "n1x n2x"},
		{"[1-2]", "1 2"},
		{"node-a.example.org,node[1,3].ib", "node-a.example.org node1.ib node3.ib"},
		{"h[5-5],h[0]", "h5 h0"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char got[512];
		joined(cases[i].spec, got, sizeof got);
		if (strcmp(got, cases[i].want))
			fail_msg("'%s' gave '%s', wanted '%s'", cases[i].spec, got,
			    cases[i].want);
	}
}

static void
test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{"", "empty host name at character 1"},
		{"a,,b", "empty host name at character 3"},
		{"a,", "empty host name at character 3"},
		{"h[1-3", "'[' at character 2 is not closed"},
		{"h1-3]", "']' without '[' at character 5"},
		{"h[]", "empty '[]' at character 2"},
		{"h[3-1]", "range 3-1 at character 3 goes down"},
		{"h[a]", "a number (at most 9 digits) expected at character 3"},
		{"h[1-]", "a number (at most 9 digits) expected at character 5"},
		{"h[1,]", "a number expected at character 5"},
		{"h[1x]", "unexpected 'x' at character 4"},
		{"h[[1]]", "'[' inside '[' at character 3"},
		{"h 1", "'blank' at character 2 cannot be in a host name"},
		{"a/b", "'/' at character 2 cannot be in a host name"},
		{"h[1234567890]", "a number (at most 9 digits) expected at character 3"},
		{"h[1-100000]", "more than 65536 hosts"},
		{"h[1-300][1-300]", "more than 65536 hosts"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char **h = (char **)1;
		size_t n = 7;
		char err[256] = "";
		int rc = hostlist_expand(cases[i].spec, &h, &n, err, sizeof err);
		if (rc != -1 || h != NULL || n != 0)
			fail_msg("'%s' was accepted", cases[i].spec);
		if (strcmp(err, cases[i].msg))
			fail_msg("'%s': '%s', wanted '%s'", cases[i].spec, err,
			    cases[i].msg);
	}
}

/* The largest list allowed expands in full. */
static void
test_limit(void **state)
{
	(void)state;
	char **h = NULL;
	size_t n = 0;
	char err[256] = "";
	assert_int_equal(hostlist_expand("h[1-65536]", &h, &n, err, sizeof err), 0);
	assert_int_equal(n, 65536);
	assert_string_equal(h[0], "h1");
	assert_string_equal(h[65535], "h65536");
	hostlist_free(h, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
