/* Unit tests of BCS mode's record file as a rank reads it back and of the
 * replay checks (src/mpi/bcs_replay.c): a rank keeps its own lines,
 * sorted; every malformed line is refused naming file and line; a
 * replayed call that cannot be what the record says is caught, and so is
 * a run that ends before its record does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mpi/bcs_replay.h"

static char err[512];

/* Reads text as rank's record ("rec" in messages): the reader's result. */
static int
read_text(const char *text, int rank, struct mpi_bcs_record *r)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	err[0] = 0;
	int rc = mpi_bcs_record_read(f, "rec", rank, r, err, sizeof(err));
	fclose(f);
	return rc;
}

static void
expect_error(const char *text, const char *where, const char *what)
{
	struct mpi_bcs_record r;
	assert_int_equal(read_text(text, 0, &r), -1);
	if (!strstr(err, where) || !strstr(err, what))
		fail_msg("error '%s' does not say '%s' and '%s'", err, where, what);
	assert_null(r.wild);
	assert_null(r.test);
}

static void
test_reads_own_lines_sorted(void **state)
{
	(void)state;
	char text[1024];
	snprintf(text, sizeof(text),
	         "# grove-bcs-record 1\n"
	         "# ranks 3 slice_ns 1000000\n"
	         "W 4 1 1 2\n"
	         "W 3 1 0 0\n"
	         "W 3 0 0 1\n"
	         "\n"
	         "# a comment\n"
	         "T 5 1 7 %d 1 0x1 -1 -1\n"
	         "T 6 1 2 %d 2 0x5 -1 -1\n"
	         "T 6 2 2 %d 1 0x1 0 9\n"
	         "T 7 1 9 %d 1 0x1 2 4\n"
	         "T 8 1 12 %d 2 0 -1 -1\n",
	         MPI_FN_Test, MPI_FN_Testsome, MPI_FN_Iprobe, MPI_FN_Improbe,
	         MPI_FN_Finalize);
	struct mpi_bcs_record r;
	assert_int_equal(read_text(text, 1, &r), 0);
	assert_int_equal(r.nranks, 3);
	assert_int_equal(r.slice_ns, 1000000);
	assert_int_equal(r.nwild, 2);
	assert_int_equal(r.ntest, 3);
	assert_int_equal(r.wild[0].k, 0);
	assert_int_equal(r.wild[0].source, 0);
	assert_int_equal(r.wild[0].line, 4);
	assert_int_equal(r.wild[1].source, 2);
	const struct mpi_bcs_tline *t = mpi_bcs_record_test(&r, 2);
	assert_non_null(t);
	assert_int_equal(t->fn, MPI_FN_Testsome);
	assert_int_equal(t->count, 2);
	assert_int_equal(t->mask, 5);
	t = mpi_bcs_record_test(&r, 9);
	assert_non_null(t);
	assert_int_equal(t->source, 2);
	assert_int_equal(t->tag, 4);
	assert_null(mpi_bcs_record_test(&r, 3));
	assert_null(mpi_bcs_record_test(&r, 100));
	assert_non_null(mpi_bcs_record_wild(&r, 1));
	assert_null(mpi_bcs_record_wild(&r, 2));
	assert_true(r.has_end);
	assert_int_equal(r.end_calls, 12);
	assert_int_equal(r.end_wilds, 2);
	assert_int_equal(r.end_line, 12);
	mpi_bcs_record_free(&r);

	/* A rank without lines has an empty record. */
	assert_int_equal(read_text(text, 0, &r), 0);
	assert_int_equal(r.nwild, 1);
	assert_int_equal(r.ntest, 0);
	assert_false(r.has_end);
	mpi_bcs_record_free(&r);
}

static void
test_refuses_malformed_records(void **state)
{
	(void)state;
	const char *hdr = "# grove-bcs-record 1\n# ranks 2 slice_ns 500000\n";
	char text[512];
	expect_error("", "rec:1:", "ends before its header");
	expect_error("hello\n", "rec:1:", "not a BCS record");
	expect_error("# grove-bcs-record 2\n", "rec:1:", "version 2");
	expect_error("# grove-bcs-record 1\n# ranks two slice_ns 5\n", "rec:2:",
	             "# ranks N slice_ns S");
	expect_error("# grove-bcs-record 1\n# ranks 0 slice_ns 5\n", "rec:2:",
	             "# ranks N slice_ns S");
	snprintf(text, sizeof(text), "%sW 1 0 0\n", hdr);
	expect_error(text, "rec:3:", "4 numbers");
	snprintf(text, sizeof(text), "%sW 1 2 0 0\n", hdr);
	expect_error(text, "rec:3:", "rank '2' is not in [0, 2)");
	snprintf(text, sizeof(text), "%sW 1 0 0 -1\n", hdr);
	expect_error(text, "rec:3:", "source '-1'");
	snprintf(text, sizeof(text), "%sW x 0 0 0\n", hdr);
	expect_error(text, "rec:3:", "slice 'x'");
	snprintf(text, sizeof(text), "%s\nW 1 0 0 1\nW 2 0 0 1\n", hdr);
	expect_error(text, "rec:5:", "second W line for rank 0's receive 0 "
	                             "(the first is line 4)");
	snprintf(text, sizeof(text), "%sT 1 0 0 %d 1 0x1 -1\n", hdr, MPI_FN_Test);
	expect_error(text, "rec:3:", "8 numbers");
	snprintf(text, sizeof(text), "%sT 1 0 0 %d 1 0x1 -1 -1\n", hdr,
	         MPI_FN_Send);
	expect_error(text, "rec:3:", "not one of the test family");
	snprintf(text, sizeof(text), "%sT 1 0 0 %d 1 0xg -1 -1\n", hdr,
	         MPI_FN_Test);
	expect_error(text, "rec:3:", "mask '0xg'");
	snprintf(text, sizeof(text), "%sT 1 0 0 %d 1 1 -2 -1\n", hdr, MPI_FN_Test);
	expect_error(text, "rec:3:", "source '-2'");
	snprintf(text, sizeof(text), "%sT 1 0 3 %d 1 1 -1 -1\nT 1 0 3 %d 1 1 -1 "
	         "-1\n", hdr, MPI_FN_Test, MPI_FN_Test);
	expect_error(text, "rec:4:", "second T line");
	snprintf(text, sizeof(text), "%sT 1 0 5 %d 1 1 -1 -1\nT 2 0 4 %d 0 0 -1 "
	         "-1\n", hdr, MPI_FN_Test, MPI_FN_Finalize);
	expect_error(text, "rec:4:", "end line counts 4 test-family calls");
	snprintf(text, sizeof(text), "%sX 1 0 0 0\n", hdr);
	expect_error(text, "rec:3:", "starts with W, T or #");
	/* Rank 3 of a record of 2. */
	struct mpi_bcs_record r;
	FILE *f = fmemopen((void *)hdr, strlen(hdr), "r");
	assert_int_equal(mpi_bcs_record_read(f, "rec", 3, &r, err, sizeof(err)),
	                 -1);
	fclose(f);
	assert_non_null(strstr(err, "rec:2: the record is of 2 ranks; this is "
	                            "rank 3"));
	/* A file that is not there. */
	assert_int_equal(mpi_bcs_record_load("/nonexistent/rec", 0, &r, err,
	                                     sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "/nonexistent/rec: cannot read"));
}

static struct mpi_bcs_tline
tline(enum mpi_fn fn, uint32_t count, uint64_t mask, int source, int tag)
{
	struct mpi_bcs_tline t = {.k = 3, .fn = fn, .count = count,
	                          .mask = mask, .source = source, .tag = tag,
	                          .line = 9};
	return t;
}

static void
test_replay_checks_requests(void **state)
{
	(void)state;
	char why[256];
	bool act[70];
	for (int i = 0; i < 70; i++)
		act[i] = true;
	act[1] = false;

	struct mpi_bcs_tline t = tline(MPI_FN_Test, 1, 1, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Test, 1, act, why,
	                                           sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 1, act,
	                                           why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "the program calls MPI_Testany, the record "
	                            "(line 9) has MPI_Test"));

	/* Testany: one index, active, in the array. */
	t = tline(MPI_FN_Testany, 1, 1u << 2, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 3, act,
	                                           why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 2, act,
	                                           why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "request 2, which is beyond the array"));
	t = tline(MPI_FN_Testany, 1, 1u << 1, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 3, act,
	                                           why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "request 1, which is not active"));
	t = tline(MPI_FN_Testany, 2, 5, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 3, act,
	                                           why, sizeof(why)),
	                 -1);
	/* MPI_Waitany is recorded as MPI_Testany is. */
	t = tline(MPI_FN_Waitany, 1, 1u << 2, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Waitany, 3, act,
	                                           why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 3, act,
	                                           why, sizeof(why)),
	                 -1);
	/* An index past 64 is not in the mask: fine when there is one. */
	t = tline(MPI_FN_Testany, 1, 0, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 70, act,
	                                           why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testany, 3, act,
	                                           why, sizeof(why)),
	                 -1);

	/* Testall: exactly the active ones. */
	t = tline(MPI_FN_Testall, 2, 5, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testall, 3, act,
	                                           why, sizeof(why)),
	                 0);
	t = tline(MPI_FN_Testall, 1, 1, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testall, 3, act,
	                                           why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "the call has 2 active (mask 0x5)"));

	/* Testsome: a subset, and at most the active ones past 64. */
	t = tline(MPI_FN_Testsome, 1, 4, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testsome, 3, act,
	                                           why, sizeof(why)),
	                 0);
	t = tline(MPI_FN_Testsome, 7, 4, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testsome, 70, act,
	                                           why, sizeof(why)),
	                 0);
	t = tline(MPI_FN_Testsome, 8, 4, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testsome, 70, act,
	                                           why, sizeof(why)),
	                 -1);
	t = tline(MPI_FN_Testsome, 0, 0, -1, -1);
	assert_int_equal(mpi_bcs_replay_check_reqs(&t, MPI_FN_Testsome, 3, act,
	                                           why, sizeof(why)),
	                 -1);
}

static void
test_replay_checks_probes_and_wildcards(void **state)
{
	(void)state;
	char why[256];
	struct mpi_bcs_tline t = tline(MPI_FN_Iprobe, 1, 1, 2, 7);
	assert_int_equal(mpi_bcs_replay_check_probe(&t, MPI_FN_Iprobe,
	                                            MPI_ANY_SOURCE, MPI_ANY_TAG,
	                                            4, why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_probe(&t, MPI_FN_Iprobe, 2, 7, 4,
	                                            why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_probe(&t, MPI_FN_Iprobe, 1,
	                                            MPI_ANY_TAG, 4, why,
	                                            sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "probes for rank 1"));
	assert_int_equal(mpi_bcs_replay_check_probe(&t, MPI_FN_Iprobe,
	                                            MPI_ANY_SOURCE, 8, 4, why,
	                                            sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "probes for tag 8"));
	assert_int_equal(mpi_bcs_replay_check_probe(&t, MPI_FN_Iprobe,
	                                            MPI_ANY_SOURCE, MPI_ANY_TAG,
	                                            2, why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "communicator of 2 ranks"));
	assert_int_equal(mpi_bcs_replay_check_probe(&t, MPI_FN_Improbe,
	                                            MPI_ANY_SOURCE, MPI_ANY_TAG,
	                                            4, why, sizeof(why)),
	                 -1);

	struct mpi_bcs_wild w = {.k = 0, .source = 3, .line = 5};
	assert_int_equal(mpi_bcs_replay_check_wild(&w, 4, why, sizeof(why)), 0);
	assert_int_equal(mpi_bcs_replay_check_wild(&w, 3, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "matched by rank 3, and its communicator "
	                            "has 3 ranks"));
}

static void
test_replay_checks_the_end(void **state)
{
	(void)state;
	char text[512], where[64], why[256];
	snprintf(text, sizeof(text),
	         "# grove-bcs-record 1\n# ranks 1 slice_ns 1000000\n"
	         "W 2 0 0 0\nW 2 0 1 0\nT 3 0 4 %d 1 0x1 -1 -1\n",
	         MPI_FN_Test);
	struct mpi_bcs_record r;
	assert_int_equal(read_text(text, 0, &r), 0);
	assert_int_equal(mpi_bcs_replay_check_end(&r, 5, 2, where, sizeof(where),
	                                          why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_end(&r, 4, 2, where, sizeof(where),
	                                          why, sizeof(why)),
	                 -1);
	assert_string_equal(where, "MPI_Finalize");
	assert_non_null(strstr(why, "test-family call 4 (MPI_Test)"));
	assert_int_equal(mpi_bcs_replay_check_end(&r, 5, 1, where, sizeof(where),
	                                          why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "MPI_ANY_SOURCE receive 1 matched; the "
	                            "program posted 1"));
	mpi_bcs_record_free(&r);

	/* With an end line, the counts must be the recorded run's. */
	snprintf(text, sizeof(text),
	         "# grove-bcs-record 1\n# ranks 1 slice_ns 1000000\n"
	         "T 3 0 4 %d 1 0x1 -1 -1\nT 9 0 6 %d 0 0 -1 -1\n",
	         MPI_FN_Test, MPI_FN_Finalize);
	assert_int_equal(read_text(text, 0, &r), 0);
	assert_int_equal(mpi_bcs_replay_check_end(&r, 6, 0, where, sizeof(where),
	                                          why, sizeof(why)),
	                 0);
	assert_int_equal(mpi_bcs_replay_check_end(&r, 5, 0, where, sizeof(where),
	                                          why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "the program made 5 test-family calls"));
	mpi_bcs_record_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_own_lines_sorted),
		cmocka_unit_test(test_refuses_malformed_records),
		cmocka_unit_test(test_replay_checks_requests),
		cmocka_unit_test(test_replay_checks_probes_and_wildcards),
		cmocka_unit_test(test_replay_checks_the_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
