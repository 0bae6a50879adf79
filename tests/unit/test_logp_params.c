/* Unit tests for P-LogP parameter sets: validation, interpolation,
 * the file format (round trip, line-numbered errors) and the table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/logp.h"

static const grove_logp_sample lan_samples[] = {
	{1, 1.0, 2.0, 4.0, 0},
	{4, 2.0, 3.0, 6.0, 0},
	{16, 8.0, 9.0, 12.0, 0},
};

static grove_logp_params *
make_params(void)
{
	grove_logp_params *p = NULL;

	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 10.0,
	    lan_samples, 3, NULL, 0), 0);
	return p;
}

static void
test_class_names(void **state)
{
	grove_logp_class c;

	(void)state;
	assert_string_equal(grove_logp_class_name(GROVE_LOGP_HOST), "host");
	assert_string_equal(grove_logp_class_name(GROVE_LOGP_LAN), "lan");
	assert_string_equal(grove_logp_class_name(GROVE_LOGP_WAN), "wan");
	assert_null(grove_logp_class_name((grove_logp_class)3));
	assert_int_equal(grove_logp_class_parse("wan", &c), 0);
	assert_int_equal(c, GROVE_LOGP_WAN);
	assert_int_equal(grove_logp_class_parse("WAN", &c), GROVE_EINVAL);
}

static void
test_set_class_rules(void **state)
{
	grove_logp_params *p = NULL;
	grove_logp_sample s[3];
	char err[256];

	(void)state;
	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_false(grove_logp_params_has(p, GROVE_LOGP_LAN));
	/* No samples, bad latency, not a power of two, not increasing,
	 * negative and non-finite times. */
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1,
	    lan_samples, 0, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "no samples"));
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, -1,
	    lan_samples, 3, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "latency"));
	memcpy(s, lan_samples, sizeof s);
	s[1].size = 5;
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1, s,
	    3, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "size 5 is not a power of two"));
	memcpy(s, lan_samples, sizeof s);
	s[2].size = 4;
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1, s,
	    3, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "must increase"));
	memcpy(s, lan_samples, sizeof s);
	s[0].g = -1;
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1, s,
	    3, NULL, 0), GROVE_EINVAL);
	s[0].g = NAN;
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1, s,
	    3, NULL, 0), GROVE_EINVAL);
	s[0].g = INFINITY;
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1, s,
	    3, NULL, 0), GROVE_EINVAL);
	assert_false(grove_logp_params_has(p, GROVE_LOGP_LAN));
	/* Good, then cleared. */
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 1,
	    lan_samples, 3, NULL, 0), 0);
	assert_true(grove_logp_params_has(p, GROVE_LOGP_LAN));
	grove_logp_params_clear_class(p, GROVE_LOGP_LAN);
	assert_false(grove_logp_params_has(p, GROVE_LOGP_LAN));
	grove_logp_params_destroy(p);
}

static void
test_interpolation(void **state)
{
	grove_logp_params *p = make_params();
	grove_logp_sample one = {8, 2.0, 2.0, 16.0, 0};
	grove_logp_point pt;

	(void)state;
	/* At samples. */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, 4, &pt), 0);
	assert_float_equal(pt.L, 10.0, 1e-12);
	assert_float_equal(pt.os, 2.0, 1e-12);
	assert_float_equal(pt.or_, 3.0, 1e-12);
	assert_float_equal(pt.g, 6.0, 1e-12);
	/* Between: linear in the size. 10 is halfway from 4 to 16. */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, 10, &pt), 0);
	assert_float_equal(pt.os, 5.0, 1e-12);
	assert_float_equal(pt.or_, 6.0, 1e-12);
	assert_float_equal(pt.g, 9.0, 1e-12);
	/* 2 is a third of the way from 1 to 4. */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, 2, &pt), 0);
	assert_float_equal(pt.g, 4.0 + 2.0 / 3.0, 1e-12);
	/* Below the grid: the first sample. */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, 0, &pt), 0);
	assert_float_equal(pt.os, 1.0, 1e-12);
	assert_float_equal(pt.g, 4.0, 1e-12);
	/* Above: the last interval's slope goes on (g: 0.5 per byte). */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, 64, &pt), 0);
	assert_float_equal(pt.g, 12.0 + 0.5 * 48, 1e-12);
	assert_float_equal(pt.os, 8.0 + 0.5 * 48, 1e-12);
	/* Absent class, bad size. */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_WAN, 4, &pt),
	    GROVE_ENOENT);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, -1, &pt),
	    GROVE_EINVAL);
	/* One sample: constant below, proportional above. */
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_WAN, 5,
	    &one, 1, NULL, 0), 0);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_WAN, 2, &pt), 0);
	assert_float_equal(pt.g, 16.0, 1e-12);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_WAN, 32, &pt), 0);
	assert_float_equal(pt.g, 64.0, 1e-12);
	grove_logp_params_destroy(p);
}

static void
test_extrapolation_never_falls(void **state)
{
	/* A last interval that falls (a protocol switch, noise) must not
	 * make bigger messages cheaper than the largest sample. */
	static const grove_logp_sample s[] = {
		{1024, 50, 50, 100, 0},
		{2048, 10, 10, 20, 0},
	};
	grove_logp_params *p = NULL;
	grove_logp_point pt;

	(void)state;
	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_HOST, 1,
	    s, 2, NULL, 0), 0);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_HOST, 1 << 20,
	    &pt), 0);
	assert_float_equal(pt.g, 20.0, 1e-12);
	grove_logp_params_destroy(p);
}

static char *
write_to_string(const grove_logp_params *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(grove_logp_params_write(p, f), 0);
	fclose(f);
	return buf;
}

static void
test_round_trip(void **state)
{
	grove_logp_params *p = make_params(), *q = NULL;
	grove_logp_sample odd[2] = {
		{1, 0.1, 1.0 / 3.0, 2.718281828459045, 0},
		{1ull << 40, 1e-300, 12345678.901234567, 1e15, 0},
	};
	const grove_logp_sample *a, *b;
	char err[256], *text;
	double La, Lb;

	(void)state;
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_WAN,
	    10000.125, odd, 2, NULL, 0), 0);
	assert_int_equal(grove_logp_params_set_note(p, "measured here\n"
	    "second line"), 0);
	text = write_to_string(p);
	assert_non_null(strstr(text, "grove-logp 1\n# measured here\n"
	    "# second line\n"));
	assert_int_equal(grove_logp_params_parse_string(text, &q, err,
	    sizeof err), 0);
	for (unsigned c = 0; c < GROVE_LOGP_NCLASSES; c++) {
		size_t na = grove_logp_params_samples(p, c, &a, &La);
		size_t nb = grove_logp_params_samples(q, c, &b, &Lb);

		assert_int_equal(na, nb);
		assert_true(La == Lb);
		for (size_t i = 0; i < na; i++) {
			assert_true(a[i].size == b[i].size);
			/* Exactly: the writer prints what reads back. */
			assert_true(a[i].os == b[i].os);
			assert_true(a[i].or_ == b[i].or_);
			assert_true(a[i].g == b[i].g);
		}
	}
	assert_false(grove_logp_params_has(q, GROVE_LOGP_HOST));
	free(text);
	grove_logp_params_destroy(p);
	grove_logp_params_destroy(q);
}

static void
test_save_load(void **state)
{
	grove_logp_params *p = make_params(), *q = NULL;
	char path[] = "/tmp/grove_logp_testXXXXXX", err[256];
	grove_logp_point a, b;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(grove_logp_params_save(p, path, err, sizeof err), 0);
	assert_int_equal(grove_logp_params_load(path, &q, err, sizeof err), 0);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_LAN, 7, &a), 0);
	assert_int_equal(grove_logp_params_at(q, GROVE_LOGP_LAN, 7, &b), 0);
	assert_true(a.g == b.g && a.os == b.os && a.or_ == b.or_ &&
	    a.L == b.L);
	unlink(path);
	grove_logp_params_destroy(q);
	q = NULL;
	assert_int_equal(grove_logp_params_load(path, &q, err, sizeof err),
	    GROVE_ENOENT);
	assert_null(q);
	assert_non_null(strstr(err, "cannot open"));
	grove_logp_params_destroy(p);
	(void)close(fd);
}

static void
test_shipped_example_loads(void **state)
{
	/* share/logp/default.params, found from this file's path. */
	char path[4096], err[256];
	const char *here = __FILE__, *slash = strrchr(here, '/');
	grove_logp_params *p = NULL;

	(void)state;
	snprintf(path, sizeof path, "%.*s/../../share/logp/default.params",
	    slash ? (int)(slash - here) : 1, slash ? here : ".");
	assert_int_equal(grove_logp_params_load(path, &p, err, sizeof err), 0);
	assert_true(grove_logp_params_has(p, GROVE_LOGP_HOST));
	assert_true(grove_logp_params_has(p, GROVE_LOGP_LAN));
	assert_true(grove_logp_params_has(p, GROVE_LOGP_WAN));
	grove_logp_params_destroy(p);
}

/* Bad files and the line each error must name. */
static const struct {
	const char *text;
	const char *want;
} bad_files[] = {
	{"", "line 1: no header"},
	{"# only a comment\n\n", "line 2: no header"},
	{"class lan\n", "line 1: expected the header"},
	{"grove-logp 2\n", "line 1: unsupported format version"},
	{"grove-logp 1\n", "no 'class' section"},
	{"grove-logp 1\nL 3\n", "line 2: 'L' before any 'class'"},
	{"grove-logp 1\n1 1 1 1\n", "line 2: sample before any 'class'"},
	{"grove-logp 1\nclass moon\n", "line 2: expected 'class host'"},
	{"grove-logp 1\nclass lan\n1 1 1 1\n", "line 2: class 'lan' has no "
	    "'L' line"},
	{"grove-logp 1\nclass lan\nL 1\nclass wan\n", "line 2: class 'lan' "
	    "has no samples"},
	{"grove-logp 1\nclass lan\nL 1\n1 1 1 1\nclass lan\n",
	    "line 5: class 'lan' appears twice"},
	{"grove-logp 1\nclass lan\nL 1\nL 2\n", "line 4: second 'L'"},
	{"grove-logp 1\nclass lan\nL -1\n", "line 3: expected 'L "
	    "MICROSECONDS'"},
	{"grove-logp 1\nclass lan\nL nan\n", "line 3: expected 'L"},
	{"grove-logp 1\nclass lan\nL 1\n\n# c\n3 1 1 1\n",
	    "line 6: size '3' is not a power of two"},
	{"grove-logp 1\nclass lan\nL 1\n4 1 1 1\n2 1 1 1\n",
	    "line 5: size 2 after 4: sizes must increase"},
	{"grove-logp 1\nclass lan\nL 1\n4 1 1\n", "line 4: a sample is "
	    "'SIZE OS OR G [W]' (4 or 5 numbers), found 3 fields"},
	{"grove-logp 1\nclass lan\nL 1\n4 1 1 1 1 1\n", "line 4: a sample "
	    "is 'SIZE OS OR G [W]' (4 or 5 numbers), found more than 5"},
	{"grove-logp 1\nclass lan\nL 1\n4 1 x 1\n", "line 4: os, or, g and w"},
	{"grove-logp 1\nclass lan\nL 1\n4 1 1 1e999\n", "line 4: os, or"},
	{"grove-logp 1\nclass lan\nL 1\n4 1 1 1 -2\n", "line 4: os, or, g "
	    "and w must be finite"},
	{"grove-logp 1\ncores 0\n", "line 2: expected 'cores N'"},
	{"grove-logp 1\ncores 2 3\n", "line 2: expected 'cores N'"},
	{"grove-logp 1\ncores 1.5\n", "line 2: expected 'cores N'"},
	{"grove-logp 1\ncores 65537\n", "line 2: expected 'cores N'"},
	{"grove-logp 1\ncores 2\nclass lan\ncores 2\n", "line 4: second "
	    "'cores' line"},
	{"grove-logp 1\nclass lan\nL 1\n0 1 1 1\n", "line 4: size '0'"},
	{"grove-logp 1\nclass lan\nL 1\n-4 1 1 1\n", "line 4: unknown "
	    "statement '-4'"},
	{"grove-logp 1\nclass lan\nL 1\n281474976710656 1 1 1\n",
	    "line 4: size '281474976710656' is not a power of two"},
	{"grove-logp 1\nbandwidth 3\n", "line 2: unknown statement "
	    "'bandwidth'"},
	/* Times above 1e15 us: finite, but garbage that would overflow
	 * the predictions. */
	{"grove-logp 1\nclass lan\nL 1e300\n", "line 3: expected 'L "
	    "MICROSECONDS' (a finite number in [0, 1e15])"},
	{"grove-logp 1\nclass lan\nL 1\n1 1 1e300 1\n", "line 4: os, or, "
	    "g and w must be finite numbers in [0, 1e15]"},
	{"grove-logp 1\nclass lan\nL 1\n1 1 1 1\n1024 1e308 1e308 1e308\n",
	    "line 5: os, or, g and w"},
	{"grove-logp 1\nclass lan\nL 1\n1 1 1 1 1.000001e15\n",
	    "line 4: os, or, g and w"},
	{"grove-logp 1\nclass lan\nL 1\n1 1 1 1\ncrowd 2 1 1e16\n",
	    "line 5: expected 'crowd K SIZE W'"},
};

/* The CPU work column and the host's cores: parsed, interpolated like
 * the other curves, written back only when present, round trip exact. */
static void
test_work_and_cores(void **state)
{
	static const char text[] =
	    "grove-logp 1\n"
	    "class host\n"
	    "cores 4\n"
	    "L 10\n"
	    "1 1 2 3 20\n"
	    "1024 2 3 4 40\n"
	    "4096 3 4 5\n"           /* no w: 0 */
	    "class wan\n"
	    "L 1000\n"
	    "1 5 6 7\n";
	grove_logp_params *p = NULL, *q = NULL;
	grove_logp_point pt;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(grove_logp_params_parse_string(text, &p, err,
	    sizeof err), 0);
	assert_int_equal(grove_logp_params_cores(p), 4);
	/* halfway between 1 and 1024 bytes: halfway between 20 and 40 */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_HOST, 512.5, &pt),
	    0);
	assert_true(fabs(pt.w - 30.0) < 1e-12);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_HOST, 2560, &pt),
	    0);
	assert_true(fabs(pt.w - 20.0) < 1e-12); /* 40 -> 0 at 4096 */
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_WAN, 64, &pt), 0);
	assert_true(pt.w == 0);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(grove_logp_params_write(p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\ncores 4\n"));
	assert_non_null(strstr(buf, "# bytes os or g w\n1 1 2 3 20\n"));
	assert_non_null(strstr(buf, "\n4096 3 4 5 0\n"));
	/* a class without w keeps four columns */
	assert_non_null(strstr(buf, "class wan\nL 1000\n# bytes os or g\n"
	    "1 5 6 7\n"));
	assert_int_equal(grove_logp_params_parse_string(buf, &q, err,
	    sizeof err), 0);
	assert_int_equal(grove_logp_params_cores(q), 4);
	for (double m = 1; m <= 8192; m *= 3) {
		grove_logp_point a, b;

		assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_HOST, m, &a),
		    0);
		assert_int_equal(grove_logp_params_at(q, GROVE_LOGP_HOST, m, &b),
		    0);
		assert_true(a.w == b.w && a.os == b.os && a.g == b.g);
	}
	free(buf);

	/* no cores line: 0, and none written */
	assert_int_equal(grove_logp_params_set_cores(q, 0), 0);
	assert_int_equal(grove_logp_params_cores(q), 0);
	assert_int_equal(grove_logp_params_set_cores(q,
	    GROVE_LOGP_MAX_CORES + 1), GROVE_EINVAL);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(grove_logp_params_write(q, f), 0);
	fclose(f);
	assert_null(strstr(buf, "cores"));
	free(buf);

	/* set_class refuses a negative or infinite w */
	{
		grove_logp_sample bad = {8, 1, 1, 1, -1};

		assert_int_equal(grove_logp_params_set_class(q,
		    GROVE_LOGP_LAN, 1, &bad, 1, err, sizeof err), GROVE_EINVAL);
		assert_non_null(strstr(err, "os, or, g and w"));
	}
	grove_logp_params_destroy(p);
	grove_logp_params_destroy(q);
}

static void
test_parse_errors(void **state)
{
	char err[256];

	(void)state;
	for (unsigned i = 0; i < sizeof bad_files / sizeof bad_files[0];
	    i++) {
		grove_logp_params *p = (grove_logp_params *)&err;

		err[0] = '\0';
		assert_int_equal(grove_logp_params_parse_string(
		    bad_files[i].text, &p, err, sizeof err), GROVE_EINVAL);
		assert_null(p);
		if (!strstr(err, bad_files[i].want))
			fail_msg("case %u: got '%s', wanted '%s'", i, err,
			    bad_files[i].want);
	}
}

/* The bound itself is accepted; whatever the values, a plan never
 * reports inf or NaN: values the API accepts (any finite number) that
 * overflow make it fail with GROVE_ERANGE. */
static void
test_huge_times(void **state)
{
	static const grove_logp_sample huge[] = {
		{1, 1e300, 1e300, 1e300, 0},
		{1024, 1e308, 1e308, 1e308, 0},
	};
	grove_logp_system sys = {1, 64, GROVE_LOGP_LAN, GROVE_LOGP_WAN, 0, 0};
	grove_logp_params *p = NULL;
	grove_logp_plan plan;
	char err[256];

	(void)state;
	assert_int_equal(grove_logp_params_parse_string("grove-logp 1\n"
	    "class lan\nL 1e15\n1 1e15 1e15 1e15 1e15\n", &p, err,
	    sizeof err), 0);
	assert_int_equal(grove_logp_bcast_plan(p, &sys, GROVE_LOGP_OPTIMIZED,
	    1 << 20, 1, GROVE_LOGP_HEURISTIC, &plan, err, sizeof err), 0);
	assert_true(isfinite(plan.T));
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN,
	    1e300, huge, 2, err, sizeof err), 0);
	for (int s = GROVE_LOGP_OPTIMIZED; s <= GROVE_LOGP_SEQUENTIAL; s++) {
		err[0] = '\0';
		assert_int_equal(grove_logp_bcast_plan(p, &sys,
		    (grove_logp_scheme)s, 1 << 20, 1, GROVE_LOGP_HEURISTIC,
		    &plan, err, sizeof err), GROVE_ERANGE);
		assert_non_null(strstr(err, "the predicted times overflow"));
	}
	assert_int_equal(grove_logp_bcast_eval(p, &sys, 1 << 20, 1, 4, 0, 3,
	    &plan, err, sizeof err), GROVE_ERANGE);
	grove_logp_params_destroy(p);
}

static void
test_parse_long_line_and_limits(void **state)
{
	char *text = malloc(2000), err[256];
	grove_logp_params *p = NULL;
	size_t n;

	(void)state;
	n = (size_t)sprintf(text, "grove-logp 1\n# ");
	memset(text + n, 'x', 900);
	strcpy(text + n + 900, "\n");
	assert_int_equal(grove_logp_params_parse_string(text, &p, err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "line 2: longer than"));
	free(text);

	/* 49 samples: one too many. */
	text = malloc(64 * 60);
	n = (size_t)sprintf(text, "grove-logp 1\nclass wan\nL 1\n");
	for (unsigned i = 0; i < 48; i++)
		n += (size_t)sprintf(text + n, "%llu 1 1 1\n",
		    (unsigned long long)1 << i);
	assert_int_equal(grove_logp_params_parse_string(text, &p, err,
	    sizeof err), 0);
	grove_logp_params_destroy(p);
	p = NULL;
	sprintf(text + n, "281474976710656 1 1 1\n");
	assert_int_equal(grove_logp_params_parse_string(text, &p, err,
	    sizeof err), GROVE_EINVAL);
	free(text);
}

static void
test_parse_tolerant_layout(void **state)
{
	const char *text =
	    "  # header comes after comments and blank lines\n"
	    "\n"
	    "grove-logp 1   # trailing comment\n"
	    "class wan\n"
	    "\t4 1 2 3\r\n"
	    "L 10000 # after the samples is fine\n"
	    "8 2 3 4\n"
	    "class host\n"
	    "L 0\n"
	    "1 0 0 0\n";
	grove_logp_params *p = NULL;
	grove_logp_point pt;
	char err[256];

	(void)state;
	assert_int_equal(grove_logp_params_parse_string(text, &p, err,
	    sizeof err), 0);
	assert_int_equal(grove_logp_params_at(p, GROVE_LOGP_WAN, 6, &pt), 0);
	assert_float_equal(pt.L, 10000, 1e-12);
	assert_float_equal(pt.g, 3.5, 1e-12);
	assert_false(grove_logp_params_has(p, GROVE_LOGP_LAN));
	grove_logp_params_destroy(p);
}

static void
test_print_table(void **state)
{
	grove_logp_params *p = make_params();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(grove_logp_params_print_table(p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "class lan: L = 10.000 us\n"));
	/* 16 bytes: os 8, or 9, g 12, r = 22, 16/12 bytes per us. */
	assert_non_null(strstr(buf, "16        8.000        9.000       "
	    "12.000       22.000       1.33\n"));
	free(buf);
	grove_logp_params_destroy(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_set_class_rules),
		cmocka_unit_test(test_interpolation),
		cmocka_unit_test(test_extrapolation_never_falls),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_shipped_example_loads),
		cmocka_unit_test(test_work_and_cores),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_huge_times),
		cmocka_unit_test(test_parse_long_line_and_limits),
		cmocka_unit_test(test_parse_tolerant_layout),
		cmocka_unit_test(test_print_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
