/* Aggregation filters through a real tree (kary:4, 16 back-ends running
 * examples/agg_be, so CPs merge before the FE does):
 *   equiv     - classes with rank ranges; one representative per class is
 *               then asked for its data point-to-point;
 *   report    - every back-end's record (two formats) decoded per rank;
 *   timealign - staggered samples not on the grid, in lock-step rounds:
 *               per-interval sums, counts, min/max and their ranks, the
 *               grand total equals what was sent, and a back-end killed
 *               with SIGKILL does not stall the stream (lag policy).
 */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/aggregate.h"
#include "helper_common.h"
#include "../../examples/agg_protocol.h"

#define NBE 16
#define MAX_LAG 4
#define NROUNDS 10
#define NINTERVALS ((int)(NROUNDS * (AGG_ROUND_NS / AGG_WIDTH_NS)))
#define DEAD_RANK 5
#define DEATH_ROUND 3 /* killed before this round */

static char *const agg_argv[] = {"agg_be", NULL};

/* ---- equiv ---------------------------------------------------------------- */

static void
check_equiv(grove_net *net)
{
	it_step("equiv: classes of %d back-ends", NBE);
	grove_stream *s = it_stream(net, NULL, "equiv", "wait_for_all");
	CHECK_OK_NET(net, grove_stream_send(s, AGG_EQUIV, ""));
	grove_packet *p = it_recv(net, s, AGG_EQUIV);
	grove_equiv_set *e = NULL;
	CHECK_OK(grove_equiv_decode(p, &e));
	it_step("equiv: %zu classes in %zu bytes", grove_equiv_count(e),
	    grove_packet_size(p));
	CHECK_UINT_EQ(grove_equiv_count(e), 3);
	static const char *const keys[3] = {"sha-A", "sha-B", "sha-C"};
	static const size_t nranges[3] = {2, 2, 1};
	static const uint32_t reps[3] = {0, 2, 13};
	for (size_t c = 0; c < 3; c++) {
		CHECK(strcmp(grove_equiv_key(e, c), keys[c]) == 0);
		CHECK_UINT_EQ(grove_equiv_nranges(e, c), nranges[c]);
	}
	uint64_t members = 0;
	for (uint32_t r = 0; r < NBE; r++) {
		int c = grove_equiv_class_of(e, r);
		CHECK(c >= 0);
		CHECK(strcmp(grove_equiv_key(e, (size_t)c), agg_class_key(r)) ==
		    0);
	}
	for (size_t c = 0; c < 3; c++)
		members += grove_equiv_members(e, c);
	CHECK_UINT_EQ(members, NBE);

	/* The data itself from one representative per class only. */
	for (size_t c = 0; c < 3; c++) {
		uint32_t rep = UINT32_MAX;
		CHECK_OK(grove_equiv_representative(e, c, &rep));
		CHECK_UINT_EQ(rep, reps[c]);
		CHECK_OK_NET(net, grove_net_send_to(net, rep, AGG_DETAIL, ""));
		grove_stream *from = (grove_stream *)1;
		grove_packet *d = NULL;
		int32_t tag = 0;
		CHECK_OK_NET(net, grove_net_recv(net, &from, &tag, &d,
		    IT_RECV_MS));
		CHECK(from == NULL);
		CHECK_INT_EQ(tag, AGG_DETAIL);
		CHECK_UINT_EQ(grove_packet_src(d), rep);
		const char *key = NULL;
		uint32_t rank = UINT32_MAX;
		CHECK_OK(grove_packet_unpack(d, "%s %ud", &key, &rank));
		CHECK(strcmp(key, keys[c]) == 0);
		CHECK_UINT_EQ(rank, rep);
		grove_packet_unref(d);
	}
	grove_equiv_free(e);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* ---- report ------------------------------------------------------------- */

static void
check_report(grove_net *net, pid_t pids[NBE])
{
	it_step("report: one record per back-end");
	grove_stream *s = it_stream(net, NULL, "report", "wait_for_all");
	CHECK_OK_NET(net, grove_stream_send(s, AGG_REPORT, ""));
	grove_packet *p = it_recv(net, s, AGG_REPORT);
	grove_report *r = NULL;
	CHECK_OK(grove_report_decode(p, &r));
	CHECK_UINT_EQ(grove_report_count(r), NBE);
	for (size_t i = 0; i < NBE; i++) {
		uint32_t rank = UINT32_MAX;
		grove_packet *rec = NULL;
		CHECK_OK(grove_report_record(r, i, &rank, &rec));
		CHECK_UINT_EQ(rank, i);
		CHECK_UINT_EQ(grove_packet_src(rec), rank);
		const char *host = NULL;
		int32_t pid = 0;
		if (rank % 2 == 0) {
			CHECK_OK(grove_packet_unpack(rec, "%s %d", &host, &pid));
		} else {
			double x = 0;
			CHECK_OK(grove_packet_unpack(rec, "%s %d %lf", &host,
			    &pid, &x));
			CHECK_DBL_NEAR(x, rank * 1.5, 0);
		}
		CHECK(host && host[0]);
		CHECK(pid > 0 && it_alive(pid));
		for (size_t j = 0; j < i; j++)
			CHECK(pids[j] != pid);
		pids[i] = pid;
		grove_packet_unref(rec);
	}
	/* Every record came from one of our agg_be processes. */
	pid_t mine[4 * NBE];
	size_t n = it_descendants(mine, 4 * NBE, "agg_be");
	CHECK_UINT_EQ(n, NBE);
	for (size_t i = 0; i < NBE; i++) {
		int found = 0;
		for (size_t j = 0; j < n; j++)
			found |= mine[j] == pids[i];
		CHECK(found);
	}
	grove_report_free(r);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* ---- timealign ---------------------------------------------------------- */

typedef struct expect {
	double sum[2];
	uint32_t count;
	int got;
} expect;

/* Take every interval the FE has emitted so far. */
static void
drain(grove_net *net, grove_stream *ta, expect *x, int *highest)
{
	for (;;) {
		grove_packet *p = NULL;
		int32_t tag = 0;
		int rc = grove_stream_recv(ta, &tag, &p, 0);
		if (rc == GROVE_EAGAIN)
			return;
		CHECK_OK_NET(net, rc);
		CHECK_INT_EQ(tag, AGG_SAMPLE);
		grove_timealign_interval t;
		CHECK_OK(grove_timealign_decode(p, &t));
		CHECK_UINT_EQ(t.m, 2);
		CHECK_UINT_EQ(t.end_ns - t.start_ns, AGG_WIDTH_NS);
		CHECK_UINT_EQ(t.start_ns % AGG_WIDTH_NS, 0);
		int k = (int)(t.start_ns / AGG_WIDTH_NS);
		CHECK(k >= 0 && k < NINTERVALS);
		CHECK(k > *highest); /* increasing order, each once */
		*highest = k;
		expect *e = &x[k];
		e->got = 1;
		CHECK_UINT_EQ(t.count, e->count);
		CHECK_DBL_NEAR(t.sum[0], e->sum[0], 1e-12);
		CHECK_DBL_NEAR(t.sum[1], e->sum[1], 1e-12);
		/* Rank r accumulates r + 1 per ns: rank 0 is the minimum,
		 * rank 15 the maximum, dead rank or not. */
		CHECK_UINT_EQ(t.min_rank[0], 0);
		CHECK_DBL_NEAR(t.min[0], (double)AGG_WIDTH_NS, 1e-12);
		CHECK_UINT_EQ(t.max_rank[0], NBE - 1);
		CHECK_DBL_NEAR(t.max[0], (double)NBE * AGG_WIDTH_NS, 1e-12);
		CHECK_DBL_NEAR(t.min[1], 0.5 * AGG_WIDTH_NS, 1e-12);
		CHECK_DBL_NEAR(t.max[1], 0.5 * AGG_WIDTH_NS, 1e-12);
		grove_packet_unref(p);
	}
}

static void
check_timealign(grove_net *net, const pid_t pids[NBE])
{
	it_step("timealign: %d rounds of staggered samples, rank %d killed "
	    "before round %d", NROUNDS, DEAD_RANK, DEATH_ROUND);
	grove_stream *ta = it_stream(net, NULL, "timealign", "dont_wait");
	grove_stream *ack = it_stream(net, NULL, "sum", "wait_for_all");
	CHECK_OK_NET(net, grove_stream_set_params(ta, GROVE_FILTER_UP,
	    GROVE_TIMEALIGN_PARAMS_FMT, (uint64_t)AGG_WIDTH_NS,
	    (uint32_t)MAX_LAG));

	static expect x[NINTERVALS];
	memset(x, 0, sizeof x);
	double sent[2] = {0, 0};
	int highest = -1;
	/* The dead rank's last interval plus max_lag: once the others
	 * cover it, its CP gives up on it. */
	int dead_pos = DEATH_ROUND * (int)(AGG_ROUND_NS / AGG_WIDTH_NS);
	int unstalled_round = -1;
	for (uint32_t round = 0; round < NROUNDS; round++) {
		if (round == DEATH_ROUND) {
			CHECK(kill(pids[DEAD_RANK], SIGKILL) == 0);
			it_step("timealign: killed rank %d (pid %d)", DEAD_RANK,
			    (int)pids[DEAD_RANK]);
		}
		uint32_t live = round < DEATH_ROUND ? NBE : NBE - 1;
		for (uint32_t r = 0; r < NBE; r++) {
			if (round >= DEATH_ROUND && r == DEAD_RANK)
				continue;
			uint64_t cut[AGG_NCUTS];
			agg_sample_cuts(r, round, cut);
			for (int i = 0; i + 1 < AGG_NCUTS; i++) {
				double v[2];
				agg_sample_values(r, cut[i], cut[i + 1], v);
				sent[0] += v[0];
				sent[1] += v[1];
			}
			for (uint64_t k = cut[0] / AGG_WIDTH_NS;
			    k < cut[AGG_NCUTS - 1] / AGG_WIDTH_NS; k++) {
				x[k].sum[0] += (double)(r + 1) * AGG_WIDTH_NS;
				x[k].sum[1] += 0.5 * AGG_WIDTH_NS;
			}
		}
		for (uint64_t k = round * AGG_ROUND_NS / AGG_WIDTH_NS;
		    k < (round + 1) * AGG_ROUND_NS / AGG_WIDTH_NS; k++)
			x[k].count = live;

		CHECK_OK_NET(net, grove_stream_send(ack, AGG_ROUND, "%ud %ud",
		    round, grove_stream_id(ta)));
		CHECK_INT_EQ(it_recv_int(net, ack, AGG_ROUND), live);
		drain(net, ta, x, &highest);

		int covered = (int)((round + 1) * (AGG_ROUND_NS / AGG_WIDTH_NS));
		if (round < DEATH_ROUND) {
			/* Everyone is in step: the round is complete. */
			CHECK_INT_EQ(highest, covered - 1);
		} else if (covered >= dead_pos + MAX_LAG) {
			/* The dead rank no longer holds anything back. */
			if (unstalled_round < 0)
				unstalled_round = (int)round;
			CHECK_INT_EQ(highest, covered - 1);
		} else {
			/* Waiting for the dead rank, as the policy says. */
			CHECK_INT_EQ(highest, dead_pos - 1);
		}
	}
	CHECK(unstalled_round > DEATH_ROUND);
	it_step("timealign: stream went on without rank %d from round %d",
	    DEAD_RANK, unstalled_round);

	double got[2] = {0, 0};
	for (int k = 0; k < NINTERVALS; k++) {
		if (!x[k].got)
			IT_FAIL("interval %d never arrived", k);
		got[0] += x[k].sum[0];
		got[1] += x[k].sum[1];
	}
	/* What the FE summed (checked per interval above) equals what the
	 * back-ends sent, the dead rank's samples before its death too. */
	CHECK_DBL_NEAR(got[0], sent[0], 1e-12);
	CHECK_DBL_NEAR(got[1], sent[1], 1e-12);
	it_step("timealign: %d intervals, total %.0f as sent", NINTERVALS,
	    got[0]);
	CHECK_OK_NET(net, grove_stream_destroy(ta));
	CHECK_OK_NET(net, grove_stream_destroy(ack));
}

static grove_net *
agg_net(const char *topology)
{
	grove_net_opts o;
	static char exe[PATH_MAX];
	it_net_opts(&o, topology, NBE);
	o.be_exe = it_build_path("agg_be", exe, sizeof exe);
	o.be_argv = agg_argv;
	return it_net_create(&o);
}

int
main(void)
{
	it_init("it_aggregate", 0);
	pid_t pids[NBE];

	grove_net *net = agg_net("kary:4");
	check_equiv(net);
	check_report(net, pids);
	check_timealign(net, pids);
	it_net_destroy(net);

	/* Depth 4: the dead rank's CP gives up on it after max_lag
	 * intervals, and the CPs above wait for that CP instead of giving
	 * up on it in turn. */
	net = agg_net("kary:2");
	check_equiv(net);
	check_report(net, pids);
	check_timealign(net, pids);
	it_net_destroy(net);
	return it_done();
}
