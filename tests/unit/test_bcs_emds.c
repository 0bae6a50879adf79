/* Unit tests for the strobe's EMDS (src/bcs/emds.c): only slices of the
 * window are kept, the window is bounded, and the CSV (header, one row
 * per slice, the node on local rows) and JSON lines say what was kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bcs/emds.h"
#include "grove/error.h"

static char *
written(const bcs_emds *e, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(json ? bcs_emds_write_json(e, f) :
	    bcs_emds_write_csv(e, f), 0);
	fclose(f);
	return buf;
}

static void
test_window(void **state)
{
	(void)state;
	bcs_emds e;
	char err[200];
	assert_int_equal(bcs_emds_init(&e, 0, 0, 10, 12, err, sizeof err), 0);
	for (uint64_t s = 0; s < 20; s++) {
		uint64_t v[BCS_EMDS_GLOBAL_N] = {s * 1000, 1, 2, 3, 4, 5, 6};
		bcs_emds_record(&e, s, v);
	}
	assert_int_equal(bcs_emds_rows(&e), 3);
	char *csv = written(&e, 0);
	assert_string_equal(csv,
	    "slice,GETTS,GTDEM,GTMSM,GTTS,USRTS,USRDEM,USRMSM\n"
	    "10,10000,1,2,3,4,5,6\n"
	    "11,11000,1,2,3,4,5,6\n"
	    "12,12000,1,2,3,4,5,6\n");
	free(csv);
	char *json = written(&e, 1);
	assert_non_null(strstr(json, "{\"slice\": 12, \"GETTS\": 12000, "
	    "\"GTDEM\": 1"));
	free(json);
	bcs_emds_fini(&e);
	/* Bounded, ordered windows. */
	assert_int_equal(bcs_emds_init(&e, 0, 0, 0, BCS_EMDS_MAX_SLICES, err,
	    sizeof err), GROVE_ERANGE);
	assert_non_null(strstr(err, "100000"));
	assert_int_equal(bcs_emds_init(&e, 0, 0, 5, 4, err, sizeof err),
	    GROVE_EINVAL);
	assert_int_equal(bcs_emds_init(&e, 0, 0, 0, BCS_EMDS_MAX_SLICES - 1,
	    err, sizeof err), 0);
	bcs_emds_fini(&e);
}

static void
test_local(void **state)
{
	(void)state;
	bcs_emds e;
	char err[200];
	assert_int_equal(bcs_emds_init(&e, 1, 3, 0, 9, err, sizeof err), 0);
	uint64_t v[BCS_EMDS_LOCAL_N] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	bcs_emds_record(&e, 4, v);
	char *csv = written(&e, 0);
	assert_string_equal(csv, "node,slice,LETTS,LTDEM,LMSM,LTTS,NP2PDEM,"
	    "NP2PMSM,NCOLLDEM,NCOLLMSM,BPTS\n3,4,1,2,3,4,5,6,7,8,9\n");
	free(csv);
	char *json = written(&e, 1);
	assert_string_equal(json, "{\"node\": 3, \"slice\": 4, \"LETTS\": 1, "
	    "\"LTDEM\": 2, \"LMSM\": 3, \"LTTS\": 4, \"NP2PDEM\": 5, "
	    "\"NP2PMSM\": 6, \"NCOLLDEM\": 7, \"NCOLLMSM\": 8, \"BPTS\": 9}\n");
	free(json);
	bcs_emds_fini(&e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_local),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
