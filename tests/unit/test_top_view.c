/* What grove top prints (tools/top/top_view.c): which intervals it shows, and
 * the JSON form of one interval stays valid JSON whatever the numbers
 * are. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/metrics.h"
#include "top_view.h"

static char *
render(const top_sample *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	top_render_json(f, s, 2, 0, NULL, NULL);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* NaN and the infinities have no JSON form: they come out as null, the
 * finite values as numbers. */
static void
test_json_nonfinite_is_null(void **st)
{
	(void)st;
	double sum[METRIC_COUNT], mn[METRIC_COUNT], mx[METRIC_COUNT];
	uint32_t r[METRIC_COUNT] = {0};
	for (int i = 0; i < METRIC_COUNT; i++)
		sum[i] = mn[i] = mx[i] = 1;
	sum[METRIC_LOAD] = NAN;
	mn[METRIC_LOAD] = -INFINITY;
	mx[METRIC_LOAD] = INFINITY;
	top_sample s = {.start_ns = 0, .end_ns = 1000000000, .count = 1,
	    .n = METRIC_COUNT, .sum = sum, .min = mn, .max = mx,
	    .min_rank = r, .max_rank = r};
	char *out = render(&s);
	assert_null(strstr(out, "nan"));
	assert_null(strstr(out, "inf"));
	assert_non_null(strstr(out, "\"load\":{\"unit\":\"\",\"min\":null,"
	    "\"min_rank\":0,\"avg\":null,\"max\":null,\"max_rank\":0}"));
	assert_non_null(strstr(out, "\"cpu\":{\"unit\":\"%\",\"min\":1,"));
	free(out);
}

/* Three agents live and reporting, two lost: the view says so, rather
 * than counting the lost as missing among five. */
static void
test_lost_counted_apart(void **st)
{
	(void)st;
	double v[METRIC_COUNT];
	uint32_t r[METRIC_COUNT] = {0};
	for (int i = 0; i < METRIC_COUNT; i++)
		v[i] = 1;
	top_sample s = {.start_ns = 0, .end_ns = 1000000000, .count = 3,
	    .n = METRIC_COUNT, .sum = v, .min = v, .max = v,
	    .min_rank = r, .max_rank = r};
	double scale[METRIC_COUNT] = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	top_render_table(f, "t", &s, scale, 3, 2);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "3 of 3 agents reporting, 2 lost\n"));
	assert_null(strstr(buf, "missing"));
	free(buf);

	/* One of the three live ones lags as well. */
	s.count = 2;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	top_render_table(f, "t", &s, scale, 3, 2);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "2 of 3 agents reporting (1 missing: "
	    "lagging, or data dropped as late), 2 lost\n"));
	free(buf);

	/* An agent lost in this interval still has data in it. */
	s.count = 4;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	top_render_table(f, "t", &s, scale, 3, 1);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "4 agents reporting (3 live), 1 lost\n"));
	free(buf);

	s.count = 2;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	top_render_json(f, &s, 3, 2, NULL, NULL);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"backends\":3,\"contributors\":2,"
	    "\"missing\":1,\"lost\":2,"));
	free(buf);
}

/* The first interval is only partly covered: skipped in every mode, not
 * only with --once; --once also waits for a complete one, up to a point. */
static void
test_pick_interval(void **st)
{
	(void)st;
	for (int once = 0; once < 2; once++) {
		assert_int_equal(top_pick_interval(0, once, 4, 4, 10), TOP_SKIP);
		assert_int_equal(top_pick_interval(1, once, 4, 4, 10), TOP_SHOW);
	}
	/* Continuous runs show an interval with agents missing (and say
	 * how many); --once waits for them, then shows what it has. */
	assert_int_equal(top_pick_interval(1, 0, 3, 4, 10), TOP_SHOW);
	assert_int_equal(top_pick_interval(1, 1, 3, 4, 10), TOP_SKIP);
	assert_int_equal(top_pick_interval(9, 1, 3, 4, 10), TOP_SKIP);
	assert_int_equal(top_pick_interval(10, 1, 3, 4, 10),
	    TOP_SHOW_INCOMPLETE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_interval),
		cmocka_unit_test(test_json_nonfinite_is_null),
		cmocka_unit_test(test_lost_counted_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
