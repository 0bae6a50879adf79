/* Unit tests for topo_spec_backends (src/topo/spec.h): what a spec says
 * of its back-end count, read without building the tree, and in
 * agreement with grove_topo_generate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "grove/topology.h"
#include "topo/spec.h"

static void
test_levels_count(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		uint32_t n;
	} cases[] = {
		{"levels:4", 4}, {"levels:2x2", 4}, {"levels:4x8x8", 256},
		{"4x8", 32}, {"1", 1}, {"levels:1x1x1", 1},
		{"300x300", 90000},
		/* The largest tree the module allows; building it would
		 * take a gigabyte. */
		{"levels:4096x4096", 16777216},
	};
	char err[256];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t n = 7;

		err[0] = '\0';
		assert_int_equal(topo_spec_backends(cases[i].spec, &n, err,
		    sizeof err), 0);
		assert_int_equal(n, cases[i].n);
		assert_string_equal(err, "");
	}
}

static void
test_needs_count(void **state)
{
	(void)state;
	static const char *const specs[] = {
		"flat", "kary:2", "kary:16", "knomial:2", "knomial:8",
	};

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		uint32_t n = 7;

		assert_int_equal(topo_spec_backends(specs[i], &n, NULL, 0), 0);
		assert_int_equal(n, 0);
	}
}

/* A bad spec gives grove_topo_generate's error and message, and 0. */
static void
test_bad_specs(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		const char *msg;
	} cases[] = {
		{"levels:4x0", "level 2 fan-out must be at least 1"},
		{"levels:4097x4096", "makes more than 16777216 back-ends"},
		{"levels:300x300x300", "makes more than"},
		{"levels:4xx4", "level 2 fan-out '' is not a number"},
		{"levels:", "level 1 fan-out"},
		{"4x8 ", "level 2 fan-out '8 ' is not a number"},
		{"kary:1", "K must be at least 2"},
		{"kary:x", "K 'x' is not a number"},
		{"bogus", "unknown topology spec 'bogus'"},
		{"", "unknown topology spec"},
	};
	char err[256], gen_err[256];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t n = 7;
		grove_topo *t = NULL;

		err[0] = '\0';
		assert_int_equal(topo_spec_backends(cases[i].spec, &n, err,
		    sizeof err), GROVE_ETOPO);
		assert_int_equal(n, 0);
		if (!strstr(err, cases[i].msg))
			fail_msg("%s: '%s' lacks '%s'", cases[i].spec, err,
			    cases[i].msg);
		assert_int_equal(grove_topo_generate(cases[i].spec, 8, NULL,
		    &t, gen_err, sizeof gen_err), GROVE_ETOPO);
		assert_string_equal(err, gen_err);
	}
}

static void
test_bad_args(void **state)
{
	(void)state;
	uint32_t n = 7;
	char err[64];

	assert_int_equal(topo_spec_backends(NULL, &n, err, sizeof err),
	    GROVE_EINVAL);
	assert_int_equal(n, 0);
	assert_int_equal(topo_spec_backends("4x4", NULL, err, sizeof err),
	    GROVE_EINVAL);
}

/* The count read from the spec is the count of the tree it builds. */
static void
test_agrees_with_generate(void **state)
{
	(void)state;
	static const char *const specs[] = {
		"levels:3", "levels:2x3x4", "5x1x2", "levels:16x16x4",
	};

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		uint32_t n = 0;
		grove_topo *t = NULL;

		assert_int_equal(topo_spec_backends(specs[i], &n, NULL, 0), 0);
		assert_int_equal(grove_topo_generate(specs[i], 0, NULL, &t,
		    NULL, 0), 0);
		assert_int_equal(grove_topo_backends(t), n);
		grove_topo_destroy(t);
		assert_int_equal(grove_topo_generate(specs[i], n, NULL, &t,
		    NULL, 0), 0);
		grove_topo_destroy(t);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_count),
		cmocka_unit_test(test_needs_count),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_agrees_with_generate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
