/* Share frames (src/monitor/share_frame.c), as a multi-host job's
 * per-host reader writes them: a framed analysis share read back as a
 * stream decodes to what was encoded; heads that are not frames (a
 * shell's message, another magic) or say a length beyond the limit are
 * refused, saying what was found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "monitor/share.h"
#include "monitor/share_frame.h"
#include "monitor_fixture.h"

static void
test_round_trip(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	uint32_t p = fx_proc(&a->pm, "mpi", 3, "h2");
	fx_coll(&a->pm, p, 1, "sum", "filter", "stream:1", "transform");
	struct mon_tuple t = fx_tuple(1, GROVE_OP_FILTER_TRANSFORM, 1, 0, 10,
	                              60);
	assert_int_equal(mon_analysis_feed(a, p, 0, &t, 1), 0);
	struct mon_share_counts c = {.read = 5, .selected = 1, .lost = 2,
	                             .readers = 1, .procs = 1};
	uint8_t *body;
	size_t len;
	assert_int_equal(mon_share_encode(&c, a, &body, &len), 0);
	uint8_t *stream = malloc(MON_SHARE_FRAME_HEAD + len);
	assert_non_null(stream);
	mon_share_frame_put(stream, (uint32_t)len);
	memcpy(stream + MON_SHARE_FRAME_HEAD, body, len);

	uint32_t got;
	char err[200];
	assert_int_equal(mon_share_frame_head(stream, &got, err, sizeof err),
	                 0);
	assert_int_equal(got, len);
	struct mon_analysis *b = mon_analysis_new(NULL);
	assert_non_null(b);
	struct mon_share_counts d = {0};
	int kind = -1;
	assert_int_equal(mon_share_decode(stream + MON_SHARE_FRAME_HEAD, got,
	                                  &d, &kind, b, NULL, err, sizeof err),
	                 0);
	assert_int_equal(kind, MON_SHARE_ANALYSIS);
	assert_memory_equal(&c, &d, sizeof c);
	assert_int_equal(b->pm.n, 1);
	assert_string_equal(b->pm.p[0].host, "h2");
	free(stream);
	free(body);
	mon_analysis_free(a);
	mon_analysis_free(b);
}

static void
test_bad_heads(void **state)
{
	(void)state;
	uint32_t len = 77;
	char err[200];
	/* What a remote shell may print instead of a reader's frames. */
	assert_int_equal(mon_share_frame_head((const uint8_t *)"bash: gr", &len,
	                                      err, sizeof err),
	                 GROVE_EFORMAT);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err, "not a share frame"));
	assert_non_null(strstr(err, "bash"));
	/* A share's own magic without the frame's. */
	assert_int_equal(mon_share_frame_head((const uint8_t *)"GMSH\1\0\0\0",
	                                      &len, err, sizeof err),
	                 GROVE_EFORMAT);
	uint8_t head[MON_SHARE_FRAME_HEAD];
	mon_share_frame_put(head, MON_SHARE_FRAME_MAX);
	assert_int_equal(mon_share_frame_head(head, &len, err, sizeof err), 0);
	assert_int_equal(len, MON_SHARE_FRAME_MAX);
	mon_share_frame_put(head, MON_SHARE_FRAME_MAX + 1u);
	assert_int_equal(mon_share_frame_head(head, &len, err, sizeof err),
	                 GROVE_EFORMAT);
	assert_non_null(strstr(err, "at most"));
	/* Unprintable bytes are shown as '?', never written raw. */
	assert_int_equal(mon_share_frame_head((const uint8_t *)"\x01\x02GM\0\0\0\0",
	                                      &len, err, sizeof err),
	                 GROVE_EFORMAT);
	assert_non_null(strstr(err, "\"??GM\""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_heads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
