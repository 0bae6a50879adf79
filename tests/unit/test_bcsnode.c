/* The BCS node manager's data plane (tools/bcsnode), driven by hand: the
 * test plays every rank of a job segment (all "ranks" are this process,
 * so the node manager's process_vm_readv/writev reach the test's own
 * buffers), posts descriptors as libgrove-mpi does, runs microphases and
 * reads the completions.  It checks the matching order (slice, then
 * sender rank), wildcard receives and their record lines, truncation,
 * probes (blocking, non-blocking, taking), cancel, chunked transfers,
 * the node-manager collectives, bad descriptors and the stuck-job
 * report. */
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
#include <mpi.h>

#include "mpi/bcs_desc.h"
#include "mpi/datatype.h"
#include "mpi/job.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"
#include "mpi/ring.h"
#include "nm.h"

struct fixture {
	struct mpi_job job;
	struct nm *nm;
	uint64_t slice;
	char err[4096];
	char record[64];
};

static struct fixture *
open_job(int n, uint64_t budget, bool record)
{
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	assert_int_equal(mpi_job_create(&f->job, (uint32_t)n, "nmtest",
	                                 MPI_JOB_BCS_RING_BYTES), 0);
	for (int i = 0; i < n; i++) {
		mpi_job_ctl(&f->job, (uint32_t)i)->pid = getpid();
		mpi_job_ctl(&f->job, (uint32_t)i)->state = MPI_RANK_RUNNING;
	}
	struct nm_opts o = { .slice_ns = 1000000, .budget_bytes = budget,
	                     .stall_slices = 3 };
	if (record) {
		snprintf(f->record, sizeof f->record, "/tmp/nmtest-rec-%d", getpid());
		o.record = f->record;
	}
	assert_int_equal(nm_open(&f->nm, f->job.fd, &o, f->err, sizeof f->err),
	                 0);
	assert_int_equal(f->job.hdr->bcs_nm_pid, getpid());
	return f;
}

static void
close_job(struct fixture *f)
{
	nm_close(f->nm);
	mpi_job_close(&f->job);
	if (f->record[0])
		unlink(f->record);
	free(f);
}

static void
post(struct fixture *f, int rank, struct bcs_desc d)
{
	uint64_t head = 0;
	struct mpi_ring_hdr *r = mpi_job_bcs_to_nm(&f->job, (uint32_t)rank);
	struct mpi_wire *w = mpi_ring_reserve(r, f->job.hdr->bcs_ring_bytes,
	    mpi_wire_rec_bytes(sizeof d), &head);
	assert_non_null(w);
	w->type = MPI_W_BCS;
	memcpy((char *)w + MPI_WIRE_HDR, &d, sizeof d);
	mpi_ring_commit(r, f->job.hdr->bcs_ring_bytes, w);
}

static struct bcs_desc
send_d(int me, int to, int tag, const void *buf, uint64_t bytes, uint64_t req)
{
	return (struct bcs_desc){ .kind = BCS_D_SEND, .ctx = 4, .me = me,
	    .peer = to, .peer_world = to, .tag = tag, .bytes = bytes,
	    .addr = (uintptr_t)buf, .req = req };
}

static struct bcs_desc
recv_d(int me, int from, int tag, void *buf, uint64_t cap, uint64_t req)
{
	return (struct bcs_desc){ .kind = BCS_D_RECV, .ctx = 4, .me = me,
	    .peer = from, .peer_world = from, .tag = tag, .bytes = cap,
	    .addr = (uintptr_t)buf, .req = req };
}

/* One slice: every microphase; returns nm_phase's result. */
static int
slice(struct fixture *f, struct nm_counts *c)
{
	struct nm_counts local = { 0 };
	if (!c)
		c = &local;
	memset(c, 0, sizeof *c);
	bool more = false;
	f->slice++;
	for (int ph = NM_DEM; ph < NM_PHASES; ph++)
		if (nm_phase(f->nm, f->slice, (enum nm_phase)ph, &more, c, f->err,
		             sizeof f->err) != 0)
			return -1;
	return 0;
}

/* The next completion of rank, or false. */
static bool
done(struct fixture *f, int rank, struct bcs_done *out)
{
	struct mpi_ring_hdr *r = mpi_job_bcs_from_nm(&f->job, (uint32_t)rank);
	struct mpi_wire *w = mpi_ring_peek(r, f->job.hdr->bcs_ring_bytes);
	if (!w)
		return false;
	assert_int_equal(w->type, MPI_W_BCS);
	memcpy(out, (char *)w + MPI_WIRE_HDR, sizeof *out);
	mpi_ring_release(r, f->job.hdr->bcs_ring_bytes, w);
	return true;
}

static void
test_pair_moves_data(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	char src[100], dst[100];
	for (int i = 0; i < 100; i++)
		src[i] = (char)i;
	memset(dst, 0, sizeof dst);
	post(f, 0, send_d(0, 1, 7, src, 100, 11));
	post(f, 1, recv_d(1, 0, 7, dst, 100, 22));
	struct nm_counts c;
	assert_int_equal(slice(f, &c), 0);
	assert_int_equal(c.np2pdem, 2);
	assert_int_equal(c.np2pmsm, 1);
	assert_memory_equal(src, dst, 100);
	struct bcs_done d;
	assert_true(done(f, 0, &d));
	assert_int_equal(d.req, 11);
	assert_int_equal(d.kind, BCS_D_SEND);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.req, 22);
	assert_int_equal(d.source, 0);
	assert_int_equal(d.tag, 7);
	assert_int_equal(d.bytes, 100);
	assert_int_equal(d.error, 0);
	assert_false(done(f, 1, &d));
	close_job(f);
}

/* Senders of one slice reach a wildcard receive in world-rank order,
 * whatever order they posted in; the record says who matched. */
static void
test_wildcard_order_and_record(void **state)
{
	(void)state;
	struct fixture *f = open_job(4, 0, true);
	int v[4] = { 0, 1, 2, 3 }, got[3] = { -1, -1, -1 };
	post(f, 3, send_d(3, 0, 5, &v[3], sizeof(int), 3));
	post(f, 1, send_d(1, 0, 5, &v[1], sizeof(int), 1));
	post(f, 2, send_d(2, 0, 5, &v[2], sizeof(int), 2));
	for (int k = 0; k < 3; k++)
		post(f, 0, recv_d(0, -1, -1, &got[k], sizeof(int), 100 + k));
	assert_int_equal(slice(f, NULL), 0);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 2);
	assert_int_equal(got[2], 3);
	nm_close(f->nm);
	f->nm = NULL;
	FILE *in = fopen(f->record, "r");
	assert_non_null(in);
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, in);
	buf[n] = '\0';
	fclose(in);
	assert_non_null(strstr(buf, "# grove-bcs-record 1\n"));
	assert_non_null(strstr(buf, "W 1 0 0 1\nW 1 0 1 2\nW 1 0 2 3\n"));
	mpi_job_close(&f->job);
	unlink(f->record);
	free(f);
}

/* A receive posted in an earlier slice matches before one posted later;
 * messages between a pair do not overtake each other. */
static void
test_non_overtaking(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	int a = 10, b = 20, x = 0, y = 0;
	post(f, 1, recv_d(1, 0, 9, &x, sizeof x, 1));
	assert_int_equal(slice(f, NULL), 0);
	post(f, 1, recv_d(1, 0, 9, &y, sizeof y, 2));
	post(f, 0, send_d(0, 1, 9, &a, sizeof a, 3));
	post(f, 0, send_d(0, 1, 9, &b, sizeof b, 4));
	assert_int_equal(slice(f, NULL), 0);
	assert_int_equal(x, 10);
	assert_int_equal(y, 20);
	close_job(f);
}

static void
test_truncation(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	char src[64] = "abcdefgh", dst[8] = { 0 };
	post(f, 0, send_d(0, 1, 1, src, 64, 1));
	post(f, 1, recv_d(1, 0, 1, dst, 4, 2));
	assert_int_equal(slice(f, NULL), 0);
	struct bcs_done d;
	assert_true(done(f, 1, &d));
	assert_int_equal(d.error, MPI_ERR_TRUNCATE);
	assert_int_equal(d.bytes, 4);
	assert_memory_equal(dst, "abcd\0\0\0", 8);
	close_job(f);
}

/* With a budget of 1000 bytes per slice a 2500-byte message takes three
 * slices and completes in the third. */
static void
test_chunks_across_slices(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 1000, false);
	char *src = malloc(2500), *dst = calloc(1, 2500);
	for (int i = 0; i < 2500; i++)
		src[i] = (char)(i * 7);
	post(f, 0, send_d(0, 1, 1, src, 2500, 1));
	post(f, 1, recv_d(1, 0, 1, dst, 2500, 2));
	struct bcs_done d;
	assert_int_equal(slice(f, NULL), 0);
	assert_false(done(f, 1, &d));
	assert_int_equal(slice(f, NULL), 0);
	assert_false(done(f, 1, &d));
	assert_int_equal(slice(f, NULL), 0);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.slice, 3);
	assert_memory_equal(src, dst, 2500);
	free(src);
	free(dst);
	close_job(f);
}

static void
test_probes_and_cancel(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	int v = 42, r = 0;
	struct bcs_done d;
	/* Non-blocking probe with nothing there: answered "no". */
	post(f, 1, (struct bcs_desc){ .kind = BCS_D_PROBE, .ctx = 4, .me = 1,
	    .peer = -1, .tag = -1, .req = 5 });
	/* Blocking probe: waits. */
	post(f, 1, (struct bcs_desc){ .kind = BCS_D_PROBE, .ctx = 4, .me = 1,
	    .peer = 0, .tag = 3, .req = 6, .flags = BCS_F_BLOCKING | BCS_F_TAKE });
	assert_int_equal(slice(f, NULL), 0);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.req, 5);
	assert_int_equal(d.found, 0);
	assert_false(done(f, 1, &d));
	post(f, 0, send_d(0, 1, 3, &v, sizeof v, 7));
	assert_int_equal(slice(f, NULL), 0);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.req, 6);
	assert_int_equal(d.found, 1);
	assert_int_equal(d.source, 0);
	assert_int_equal(d.tag, 3);
	assert_int_equal(d.bytes, sizeof v);
	/* The taken message goes only to the receive of that probe. */
	post(f, 1, recv_d(1, -1, -1, &r, sizeof r, 8));
	struct bcs_desc taken = recv_d(1, 0, 3, &r, sizeof r, 9);
	taken.flags = BCS_F_TAKEN;
	taken.addr2 = 6;
	post(f, 1, taken);
	assert_int_equal(slice(f, NULL), 0);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.req, 9);
	assert_int_equal(r, 42);
	/* Request 8 is still posted: cancel it. */
	post(f, 1, (struct bcs_desc){ .kind = BCS_D_CANCEL, .req = 8 });
	assert_int_equal(slice(f, NULL), 0);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.kind, BCS_D_CANCEL);
	assert_int_equal(d.found, 1);
	/* Cancelling it again finds nothing. */
	post(f, 1, (struct bcs_desc){ .kind = BCS_D_CANCEL, .req = 8 });
	assert_int_equal(slice(f, NULL), 0);
	assert_true(done(f, 1, &d));
	assert_int_equal(d.found, 0);
	close_job(f);
}

static struct bcs_desc
coll_d(int kind, int me, int size, int root, uint32_t seq, void *buf,
       void *buf2, uint32_t count, uint64_t bytes)
{
	return (struct bcs_desc){ .kind = (uint8_t)kind, .ctx = 9, .me = me,
	    .peer = root, .tag = size, .seq = seq, .addr = (uintptr_t)buf,
	    .addr2 = (uintptr_t)buf2, .count = count, .bytes = bytes,
	    .op = MPI_OPI_SUM, .basic = MPI_B_INT, .req = (uint64_t)(me + 1) };
}

static void
test_collectives(void **state)
{
	(void)state;
	struct fixture *f = open_job(3, 0, false);
	struct bcs_done d;
	struct nm_counts c;
	/* A barrier completes only when all three are in. */
	post(f, 0, coll_d(BCS_D_BARRIER, 0, 3, 0, 0, NULL, NULL, 0, 0));
	post(f, 2, coll_d(BCS_D_BARRIER, 2, 3, 0, 0, NULL, NULL, 0, 0));
	assert_int_equal(slice(f, &c), 0);
	assert_int_equal(c.ncolldem, 2);
	assert_int_equal(c.ncollmsm, 0);
	assert_false(done(f, 0, &d));
	post(f, 1, coll_d(BCS_D_BARRIER, 1, 3, 0, 0, NULL, NULL, 0, 0));
	assert_int_equal(slice(f, &c), 0);
	assert_int_equal(c.ncollmsm, 1);
	for (int i = 0; i < 3; i++)
		assert_true(done(f, i, &d));
	/* Broadcast from rank 1. */
	char b[3][16] = { "", "hello, grove", "" };
	for (int i = 0; i < 3; i++)
		post(f, i, coll_d(BCS_D_BCAST, i, 3, 1, 1, b[i], NULL, 0, 13));
	assert_int_equal(slice(f, NULL), 0);
	assert_string_equal(b[0], "hello, grove");
	assert_string_equal(b[2], "hello, grove");
	for (int i = 0; i < 3; i++)
		assert_true(done(f, i, &d));
	/* Allreduce (sum) and reduce to rank 2. */
	int in[3][2] = { { 1, 10 }, { 2, 20 }, { 3, 30 } }, out[3][2] = { 0 };
	for (int i = 0; i < 3; i++)
		post(f, i, coll_d(BCS_D_ALLREDUCE, i, 3, 0, 2, in[i], out[i], 2, 8));
	assert_int_equal(slice(f, NULL), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(out[i][0], 6);
		assert_int_equal(out[i][1], 60);
		assert_true(done(f, i, &d));
		assert_int_equal(d.error, 0);
	}
	memset(out, 0, sizeof out);
	for (int i = 0; i < 3; i++)
		post(f, i, coll_d(BCS_D_REDUCE, i, 3, 2, 3, in[i], out[i], 2, 8));
	assert_int_equal(slice(f, NULL), 0);
	assert_int_equal(out[2][0], 6);
	assert_int_equal(out[0][0], 0);
	close_job(f);
}

static void
test_mismatched_collective(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	post(f, 0, coll_d(BCS_D_BARRIER, 0, 2, 0, 0, NULL, NULL, 0, 0));
	post(f, 1, coll_d(BCS_D_BCAST, 1, 2, 0, 0, NULL, NULL, 0, 0));
	assert_int_equal(slice(f, NULL), -1);
	assert_non_null(strstr(f->err, "do not call the same collectives"));
	close_job(f);
}

static void
test_bad_descriptor(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	post(f, 1, (struct bcs_desc){ .kind = 77 });
	assert_int_equal(slice(f, NULL), -1);
	assert_non_null(strstr(f->err, "rank 1 posted a descriptor of unknown "
	                                "kind 77"));
	close_job(f);
	f = open_job(2, 0, false);
	int v = 0;
	post(f, 0, send_d(0, 5, 1, &v, sizeof v, 1));
	assert_int_equal(slice(f, NULL), -1);
	assert_non_null(strstr(f->err, "world rank 5, which is not in the job"));
	close_job(f);
}

/* Everyone sleeps in a receive nobody sends: after stall_slices the
 * node manager says so, naming what each rank waits for. */
static void
test_stuck_job(void **state)
{
	(void)state;
	struct fixture *f = open_job(2, 0, false);
	int v;
	post(f, 0, recv_d(0, 1, 4, &v, sizeof v, 1));
	post(f, 1, recv_d(1, 0, 4, &v, sizeof v, 2));
	for (int i = 0; i < 2; i++)
		mpi_job_ctl(&f->job, (uint32_t)i)->sleeping = 1;
	int rc = 0;
	for (int i = 0; i < 10 && rc == 0; i++)
		rc = slice(f, NULL);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(f->err, "the job is stuck"));
	assert_non_null(strstr(f->err, "rank 0 waits for a receive from 1 tag 4"));
	assert_non_null(strstr(f->err, "rank 1 waits for a receive from 0 tag 4"));
	close_job(f);
}

static void
test_needs_bcs_segment(void **state)
{
	(void)state;
	struct mpi_job job;
	assert_int_equal(mpi_job_create(&job, 2, "direct", 0), 0);
	struct nm_opts o = { .slice_ns = 1000000 };
	struct nm *nm;
	char err[512];
	assert_int_equal(nm_open(&nm, job.fd, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, "no BCS area"));
	mpi_job_close(&job);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_moves_data),
		cmocka_unit_test(test_wildcard_order_and_record),
		cmocka_unit_test(test_non_overtaking),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_chunks_across_slices),
		cmocka_unit_test(test_probes_and_cancel),
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_mismatched_collective),
		cmocka_unit_test(test_bad_descriptor),
		cmocka_unit_test(test_stuck_job),
		cmocka_unit_test(test_needs_bcs_segment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
