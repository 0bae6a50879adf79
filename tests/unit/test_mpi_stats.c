/* Grove MPI statistics: the report grove run prints (Table 5.3 of
 * bcs-mpi.txt) from a job segment filled by hand, its JSON, ranks that
 * are named instead of counted, the check of computation +
 * communication against the run time; and, through mpi_call_enter/exit
 * without MPI_Init, that only the outermost call of a nesting counts and
 * that a traced call dumps as "MPI_Send peer 1 tag 7 4096 B". */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "mpi/job.h"
#include "mpi/mpi_impl.h"
#include "stats_report.h"
#include "grove/trace.h"
#include "trace/trace_impl.h"

static void
set_fn(struct mpi_rank_stats *st, enum mpi_stats_fn_id fn, uint64_t count,
       uint64_t total, uint64_t min, uint64_t max, uint64_t bytes)
{
	st->fn[fn] = (struct mpi_stat_fn){count, total, min, max, bytes};
}

/* A 4-rank job: ranks 0 and 1 finished with statistics (10 and 20 ms
 * runs, 2 and 5 ms in MPI), rank 2 finished with statistics off, rank 3
 * died after 5 calls. */
static void
fill_job(struct mpi_job *job)
{
	assert_int_equal(mpi_job_create(job, 4, "statsjob", 0), 0);
	struct mpi_rank_stats *s0 = mpi_job_stats(job, 0);
	*s0 = (struct mpi_rank_stats){.valid = 1, .enabled = 1,
		.t_init_ns = 1000000, .t_final_ns = 11000000,
		.comm_ns = 2000000, .calls = 3};
	set_fn(s0, MPI_STATS_FN_Send, 2, 1500000, 500000, 1000000, 8192);
	set_fn(s0, MPI_STATS_FN_Recv, 1, 500000, 500000, 500000, 4096);
	struct mpi_rank_stats *s1 = mpi_job_stats(job, 1);
	*s1 = (struct mpi_rank_stats){.valid = 1, .enabled = 1,
		.t_init_ns = 5000000, .t_final_ns = 25000000,
		.comm_ns = 5000000, .calls = 4};
	set_fn(s1, MPI_STATS_FN_Send, 1, 1000000, 1000000, 1000000, 100);
	set_fn(s1, MPI_STATS_FN_Recv, 3, 4000000, 250000, 2000000, 300);
	struct mpi_rank_stats *s2 = mpi_job_stats(job, 2);
	*s2 = (struct mpi_rank_stats){.valid = 1, .enabled = 0,
		.t_init_ns = 1, .t_final_ns = 2};
	mpi_job_ctl(job, 2)->state = MPI_RANK_FINALIZED;
	struct mpi_rank_stats *s3 = mpi_job_stats(job, 3);
	*s3 = (struct mpi_rank_stats){.valid = 0, .enabled = 1, .calls = 5};
	set_fn(s3, MPI_STATS_FN_Send, 5, 123, 1, 100, 5);
	mpi_job_ctl(job, 3)->state = MPI_RANK_RUNNING;
}

/* The report as text (and JSON into *json when json is not NULL). */
static char *
report(const struct mpi_job *job, char **json, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	char path[] = "/tmp/test_mpi_stats.XXXXXX";
	int fd = -1;
	if (json) {
		fd = mkstemp(path);
		assert_true(fd >= 0);
	}
	*rc = run_stats_report(job, f, json ? path : NULL);
	fclose(f);
	if (json) {
		FILE *j = fopen(path, "r");
		assert_non_null(j);
		char *buf = calloc(1, 65536);
		assert_non_null(buf);
		size_t n = fread(buf, 1, 65535, j);
		buf[n] = '\0';
		fclose(j);
		close(fd);
		unlink(path);
		*json = buf;
	}
	return text;
}

static void
assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing:\n%s\nin:\n%s", needle, hay);
}

static void
test_table(void **state)
{
	(void)state;
	struct mpi_job job;
	fill_job(&job);
	char *json = NULL;
	int rc;
	char *t = report(&job, &json, &rc);
	assert_int_equal(rc, 0);
	assert_contains(t, "MPI call statistics (bcs-mpi.txt Table 5.3): 2 of "
	                "4 ranks with valid statistics; times in us, over all "
	                "of them\n");
	assert_contains(t, "Not counted: rank 2: its statistics were off "
	                "(GROVE_MPI_STATS unset in it)\n");
	assert_contains(t, "Not counted: rank 3: it ended before MPI_Finalize "
	                "(5 calls not in the table)\n");
	assert_contains(t, "Primitive                       Min(us)        "
	                "Max(us)      Total(us)      Count    Average(us)  "
	                "Ranks          Bytes\n");
	/* Over ranks 0 and 1 only: rank 3's calls are not in it. */
	assert_contains(t, "MPI_Send                        500.000       "
	                "1000.000       2500.000          3        833.333      "
	                "2           8292\n");
	assert_contains(t, "MPI_Recv                        250.000       "
	                "2000.000       4500.000          4       1125.000      "
	                "2           4396\n");
	/* 30 ms run, 7 ms in MPI, over 4 + 5 intervals. */
	assert_contains(t, "Comp Granularity                      -              "
	                "-      23000.000          9       2555.556      2\n");
	assert_contains(t, "Comm Overhead                   250.000       "
	                "2000.000       7000.000          7       1000.000      "
	                "2\n");
	assert_contains(t, "Comm Overhead: 23.33% of the run time in MPI calls "
	                "(per rank 20.00% to 25.00%)\n");
	assert_contains(t, "Check: computation 23000.000 + communication "
	                "7000.000 = 30000.000 us; run time 30000.000 us "
	                "(MPI_Init to MPI_Finalize, summed over 2 ranks): they "
	                "agree\n");
	/* Only the functions that were called. */
	assert_null(strstr(t, "MPI_Bcast"));

	assert_contains(json, "\"ranks\": 4,\n  \"valid_ranks\": 2,");
	assert_contains(json, "{\"rank\": 3, \"reason\": \"it ended before "
	                "MPI_Finalize\", \"calls\": 5}");
	assert_contains(json, "{\"name\": \"MPI_Send\", \"min_ns\": 500000, "
	                "\"max_ns\": 1000000, \"total_ns\": 2500000, \"count\": "
	                "3, \"average_ns\": 833333.333, \"ranks\": 2, \"bytes\": "
	                "8292}");
	assert_contains(json, "\"comp_granularity\": {\"min_ns\": null, "
	                "\"max_ns\": null, \"total_ns\": 23000000, \"count\": 9");
	assert_contains(json, "\"check\": {\"comp_ns\": 23000000, \"comm_ns\": "
	                "7000000, \"sum_ns\": 30000000, \"run_ns\": 30000000, "
	                "\"agree\": true}");
	assert_contains(json, "{\"rank\": 1, \"valid\": true, \"run_ns\": "
	                "20000000, \"comm_ns\": 5000000, \"comp_ns\": 15000000, "
	                "\"calls\": 4}");
	free(t);
	free(json);
	mpi_job_close(&job);
}

/* A rank that spent longer in MPI calls than it ran fails the check and
 * is named; runs of 10 s or more are in ms, as in the paper. */
static void
test_check_fails_ms(void **state)
{
	(void)state;
	struct mpi_job job;
	assert_int_equal(mpi_job_create(&job, 2, "statsjob", 0), 0);
	for (uint32_t r = 0; r < 2; r++) {
		struct mpi_rank_stats *s = mpi_job_stats(&job, r);
		*s = (struct mpi_rank_stats){.valid = 1, .enabled = 1,
			.t_init_ns = 0, .t_final_ns = 20000000000ull,
			.comm_ns = r ? 21000000000ull : 5000000000ull,
			.calls = 1};
		set_fn(s, MPI_STATS_FN_Barrier, 1, s->comm_ns, s->comm_ns,
		       s->comm_ns, 0);
	}
	int rc;
	char *t = report(&job, NULL, &rc);
	assert_int_equal(rc, 0);
	assert_contains(t, "times in ms");
	assert_contains(t, "MPI_Barrier                    5000.000      "
	                "21000.000      26000.000          2      13000.000      "
	                "2              0\n");
	assert_contains(t, "Check: computation 15000.000 + communication "
	                "26000.000 = 41000.000 ms; run time 40000.000 ms");
	assert_contains(t, "they DO NOT agree\n  rank 1 spent 21000.000 ms in "
	                "MPI calls but ran 20000.000 ms\n");
	free(t);
	mpi_job_close(&job);
}

/* No valid rank: every rank named, no table; an unwritable JSON path is
 * an error that names it. */
static void
test_nothing_valid(void **state)
{
	(void)state;
	struct mpi_job job;
	assert_int_equal(mpi_job_create(&job, 3, "statsjob", 0), 0);
	mpi_job_ctl(&job, 1)->state = MPI_RANK_ABORTED;
	mpi_job_ctl(&job, 2)->state = MPI_RANK_ABORTED;
	int rc;
	char *t = report(&job, NULL, &rc);
	assert_int_equal(rc, 0);
	assert_contains(t, "Not counted: rank 0: it never reached MPI_Init\n");
	assert_contains(t, "Not counted: ranks 1-2: it aborted (MPI_Abort or a "
	                "fatal error)\n");
	assert_contains(t, "No rank has valid statistics");
	free(t);
	FILE *devnull = fopen("/dev/null", "w");
	assert_int_equal(run_stats_report(&job, devnull,
	                 "/nonexistent-dir/stats.json"), -1);
	fclose(devnull);
	mpi_job_close(&job);
}

/* The rank side, without MPI_Init: mpi_stats_init on a job segment of
 * our own, nested calls, a traced call, mpi_stats_fini. */
static void
test_nesting_and_trace(void **state)
{
	(void)state;
	struct mpi_job job;
	char jobid[40];
	snprintf(jobid, sizeof jobid, "st%ld", (long)getpid());
	assert_int_equal(mpi_job_create(&job, 2, jobid, 0), 0);
	mpi_proc.job = &job;
	mpi_proc.rank = 0;
	mpi_proc.size = 2;
	mpi_proc.singleton = false;
	setenv("GROVE_MPI_STATS", "1", 1);
	setenv("GROVE_MPI_TRACE_KEEP", "1", 1);
	mpi_stats_init();
	struct mpi_rank_stats *st = mpi_job_stats(&job, 0);
	assert_int_equal(st->enabled, 1);
	assert_int_equal(st->valid, 0);

	/* MPI_Sendrecv made of a Send and a Recv inside: counts once. */
	uint64_t t0 = mpi_call_enter(MPI_FN_Sendrecv);
	uint64_t t1 = mpi_call_enter(MPI_FN_Send);
	mpi_call_exit(MPI_FN_Send, t1, 1, 3, 10);
	uint64_t t2 = mpi_call_enter(MPI_FN_Recv);
	mpi_call_exit(MPI_FN_Recv, t2, 1, 3, 10);
	mpi_call_exit(MPI_FN_Sendrecv, t0, 1, 3, 20);
	/* Two plain sends, one with a tag, one to MPI_PROC_NULL. */
	for (int i = 0; i < 2; i++) {
		uint64_t t = mpi_call_enter(MPI_FN_Send);
		usleep(1000);
		mpi_call_exit(MPI_FN_Send, t, i ? MPI_PROC_NULL : 1, 7, 4096);
	}
	/* A collective has no tag, whatever its caller passes. */
	uint64_t tb = mpi_call_enter(MPI_FN_Barrier);
	mpi_call_exit(MPI_FN_Barrier, tb, -1, 0, 0);
	/* Off with GROVE_TRACE=0 or without room in /dev/shm: the
	 * statistics are checked all the same. */
	int traced = grove_trace_enabled();
	mpi_stats_fini();
	unsetenv("GROVE_MPI_STATS");
	unsetenv("GROVE_MPI_TRACE_KEEP");

	assert_int_equal(st->valid, 1);
	assert_int_equal(st->calls, 4);
	assert_int_equal(st->fn[MPI_FN_Sendrecv].count, 1);
	assert_int_equal(st->fn[MPI_FN_Sendrecv].bytes, 20);
	assert_int_equal(st->fn[MPI_FN_Recv].count, 0);
	assert_int_equal(st->fn[MPI_FN_Send].count, 2);
	assert_int_equal(st->fn[MPI_FN_Send].bytes, 8192);
	assert_int_equal(st->fn[MPI_FN_Barrier].count, 1);
	/* Converted to ns: each send slept 1 ms. */
	assert_true(st->fn[MPI_FN_Send].min_ns >= 1000000);
	assert_true(st->fn[MPI_FN_Send].max_ns < 1000000000);
	assert_true(st->fn[MPI_FN_Send].total_ns >= 2000000);
	uint64_t sum = 0;
	for (int i = 0; i < MPI_FN_COUNT_; i++)
		sum += st->fn[i].total_ns;
	assert_true(sum <= st->comm_ns + 4 && sum + 4 >= st->comm_ns);
	assert_true(st->t_final_ns - st->t_init_ns >= st->comm_ns);
	assert_string_equal(mpi_fn_names[MPI_FN_Send], "MPI_Send");

	/* The kept event space, as grove trace dump --format text shows it. */
	if (!traced) {
		mpi_job_close(&job);
		mpi_proc.job = NULL;
		skip();
	}
	struct trace_set set;
	assert_int_equal(trace_set_collect(jobid, &set), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.p[0].label, "mpi 0");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(trace_export_text(&set, f), 0);
	fclose(f);
	/* grove trace stats: a row per MPI function, and the MPI calls are
	 * the process's time in calls. */
	char *tstats = NULL;
	size_t tlen = 0;
	FILE *g = open_memstream(&tstats, &tlen);
	assert_int_equal(trace_stats_text(&set, g), 0);
	fclose(g);
	assert_non_null(strstr(tstats, "\nMPI_Send "));
	assert_non_null(strstr(tstats, "\nMPI_Barrier "));
	assert_null(strstr(tstats, "mpi_tag"));
	free(tstats);
	trace_set_free(&set);
	char **names;
	size_t n;
	if (trace_list(jobid, stderr, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			shm_unlink(names[i]);
		trace_list_free(names, n);
	}
	assert_contains(text, "\tMPI_Sendrecv peer 1 tag 3 20 B\tMPI_Sendrecv\t"
	                "mpi\trank:0->rank:1\t0\t20\n");
	assert_contains(text, "\tmpi_tag\tMPI_Sendrecv\tmpi\trank:0->rank:1\t1"
	                "\t3\n");
	assert_contains(text, "\tMPI_Send peer 1 tag 7 4096 B\tMPI_Send\tmpi\t"
	                "rank:0->rank:1\t0\t4096\n");
	/* No peer (MPI_PROC_NULL): the function's own collector. */
	assert_contains(text, "\tMPI_Send tag 7 4096 B\tMPI_Send\tmpi\trank:0"
	                "\t0\t4096\n");
	assert_contains(text, "\tMPI_Barrier 0 B\tMPI_Barrier\tmpi\trank:0\t0"
	                "\t0\n");
	/* The inner Send and Recv of the Sendrecv are not there. */
	assert_null(strstr(text, "MPI_Recv"));
	free(text);
	mpi_job_close(&job);
	mpi_proc.job = NULL;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_check_fails_ms),
		cmocka_unit_test(test_nothing_valid),
		cmocka_unit_test(test_nesting_and_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
