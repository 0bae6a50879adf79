/* Clock-skew detection through real trees (docs/clock-skew.md).
 *
 * Every process of this machine reads the same clock, so the true offset
 * of a back-end is exactly what GROVE_CLOCK_INJECT_NS adds to its clock:
 * 0 without injection.  Every measured offset must lie within its
 * reported bound of that; offsets injected on CPs must cancel out (the
 * FE sees BE - FE, whatever the clocks in between).  No timing limits:
 * the bounds are whatever this machine gives, only their truth is checked.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define MAX_BES 64

/* What rank r's clock is ahead of the FE's by. */
typedef int64_t (*truth_fn)(uint32_t rank, const void *arg);

static int64_t
truth_zero(uint32_t rank, const void *arg)
{
	(void)rank;
	(void)arg;
	return 0;
}

static int64_t
truth_step(uint32_t rank, const void *arg)
{
	return (int64_t)rank * *(const int64_t *)arg;
}

/* A list: truth[r]. */
static int64_t
truth_table(uint32_t rank, const void *arg)
{
	return ((const int64_t *)arg)[rank];
}

static uint64_t
abs_diff(int64_t a, int64_t b)
{
	return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* Runs the detection and checks every rank against the truth; returns
 * the largest bound (for the log). */
static uint64_t
check_skew(grove_net *net, unsigned rounds, truth_fn truth, const void *arg)
{
	uint32_t nb = grove_net_backends(net);
	grove_skew out[MAX_BES];
	CHECK(nb <= MAX_BES);
	int got = grove_net_clock_skew(net, rounds, out, 30000);
	CHECK_RC_NET(net, got, (int)nb);
	uint64_t worst = 0, worst_dev = 0;
	for (uint32_t r = 0; r < nb; r++) {
		int64_t want = truth(r, arg);
		CHECK_UINT_EQ(out[r].rank, r);
		if (out[r].error_ns == GROVE_SKEW_UNKNOWN)
			IT_FAIL("rank %u not measured", r);
		uint64_t dev = abs_diff(out[r].offset_ns, want);
		if (dev > out[r].error_ns)
			IT_FAIL("rank %u: measured %" PRId64 " ns, true %" PRId64
			    " ns: off by %" PRIu64 " ns, bound %" PRIu64 " ns", r,
			    out[r].offset_ns, want, dev, out[r].error_ns);
		if (out[r].error_ns > worst)
			worst = out[r].error_ns;
		if (dev > worst_dev)
			worst_dev = dev;
	}
	it_step("%u ranks within their bounds (largest bound %" PRIu64
	    " ns, largest deviation %" PRIu64 " ns)", nb, worst, worst_dev);
	return worst;
}

/* A tool's timestamps: the worker's grove_be_clock_ns() read between two
 * FE clock reads is bracketed by them, shifted by the injected offset. */
static void
check_be_clock(grove_net *net, truth_fn truth, const void *arg)
{
	uint32_t nb = grove_net_backends(net);
	for (uint32_t r = 0; r < nb; r++) {
		int64_t a = grove_clock_now_ns();
		CHECK_OK_NET(net, grove_net_send_to(net, r, WORKER_CLOCK, ""));
		grove_stream *s = NULL;
		grove_packet *p = NULL;
		int32_t tag = 0;
		int64_t v = 0;
		CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, IT_RECV_MS));
		int64_t b = grove_clock_now_ns();
		CHECK(s == NULL);
		CHECK_INT_EQ(tag, WORKER_CLOCK);
		CHECK_UINT_EQ(grove_packet_src(p), r);
		CHECK_OK(grove_packet_unpack(p, "%ld", &v));
		grove_packet_unref(p);
		int64_t want = truth(r, arg);
		if (v - want < a || v - want > b)
			IT_FAIL("rank %u: grove_be_clock_ns %" PRId64 " minus "
			    "offset %" PRId64 " is outside [%" PRId64 ", %" PRId64
			    "]", r, v, want, a, b);
	}
	it_step("grove_be_clock_ns of %u ranks carries the injected offsets",
	    nb);
}

static void
no_injection(const char *topo, uint32_t nb)
{
	it_step("--- %s, %u back-ends, no injection", topo, nb);
	unsetenv("GROVE_CLOCK_INJECT_NS");
	grove_net *net = it_net_spawn(topo, nb);
	check_skew(net, 16, truth_zero, NULL);
	/* Again, with the default number of rounds: a second run starts
	 * clean. */
	check_skew(net, 0, truth_zero, NULL);
	check_skew(net, 1, truth_zero, NULL);
	check_be_clock(net, truth_zero, NULL);
	it_net_destroy(net);
}

static void
step_injection(const char *topo, uint32_t nb, int64_t step)
{
	char v[32];
	it_step("--- %s, %u back-ends, rank r at r * %" PRId64 " ns", topo, nb,
	    step);
	snprintf(v, sizeof v, "%" PRId64, step);
	setenv("GROVE_CLOCK_INJECT_NS", v, 1);
	grove_net *net = it_net_spawn(topo, nb);
	unsetenv("GROVE_CLOCK_INJECT_NS");
	check_skew(net, 16, truth_step, &step);
	check_be_clock(net, truth_step, &step);
	it_net_destroy(net);
}

/* Per-BE offsets of both signs, and offsets on every CP too: those must
 * cancel out of the end result. */
static void
list_injection(const char *topo, uint32_t nb)
{
	int64_t truth[MAX_BES] = {0};
	char spec[2048];
	size_t o = 0;
	it_step("--- %s, %u back-ends, listed offsets on BEs and CPs", topo, nb);
	truth[0] = -3000000;
	truth[nb / 2] = 2500000;
	truth[nb - 1] = -123456789;
	for (uint32_t r = 0; r < nb; r++)
		if (truth[r])
			o += (size_t)snprintf(spec + o, sizeof spec - o, "%s%u:%"
			    PRId64, o ? "," : "", r, truth[r]);
	/* The topology of the network about to be created. */
	grove_topo *t = NULL;
	char err[256];
	CHECK_OK(grove_topo_generate(topo, nb, NULL, &t, err, sizeof err));
	int cps = 0;
	for (uint32_t id = 1; id < grove_topo_size(t); id++) {
		if (grove_topo_node_at(t, id)->role != GROVE_ROLE_CP)
			continue;
		/* Alternating signs, different sizes. */
		int64_t ns = (int64_t)id * 700001 * (id % 2 ? 1 : -1);
		o += (size_t)snprintf(spec + o, sizeof spec - o, ",cp%u:%" PRId64,
		    id, ns);
		cps++;
	}
	grove_topo_destroy(t);
	CHECK(o < sizeof spec);
	it_step("GROVE_CLOCK_INJECT_NS=%s (%d CPs)", spec, cps);
	setenv("GROVE_CLOCK_INJECT_NS", spec, 1);
	grove_net *net = it_net_spawn(topo, nb);
	unsetenv("GROVE_CLOCK_INJECT_NS");
	check_skew(net, 16, truth_table, truth);
	check_be_clock(net, truth_table, truth);
	it_net_destroy(net);
}

/* A BE that dies does not hold the call up; the survivors are measured.
 * A BE that stops answering for a while is waited for no longer than the
 * timeout, and the next run is whole again. */
static void
lost_and_silent(const char *topo)
{
	enum { NB = 8 };
	grove_skew out[NB];
	it_step("--- %s, %u back-ends, a lost and a silent one", topo, NB);
	unsetenv("GROVE_CLOCK_INJECT_NS");
	grove_net *net = it_net_spawn(topo, NB);
	CHECK_OK_NET(net, grove_net_send_to(net, 3, WORKER_CRASH, "%d", 3));
	/* Wait until the FE knows rank 3 is gone. */
	grove_event ev;
	do
		CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
	while (ev.type != GROVE_EV_LOST);
	CHECK(ev.rank_lo <= 3 && ev.rank_hi > 3);
	int got = grove_net_clock_skew(net, 8, out, 30000);
	CHECK_INT_EQ(got, NB - 1);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "rank 3");
	for (uint32_t r = 0; r < NB; r++) {
		if (r == 3) {
			CHECK(out[r].error_ns == GROVE_SKEW_UNKNOWN);
			CHECK_INT_EQ(out[r].offset_ns, 0);
		} else {
			CHECK(out[r].error_ns != GROVE_SKEW_UNKNOWN);
			CHECK(abs_diff(out[r].offset_ns, 0) <= out[r].error_ns);
		}
	}
	it_step("lost rank 3 marked unknown, %d measured", got);
	/* Rank 5 sleeps 3 s without calling Grove: a 500 ms run does not
	 * wait for it.  Whether its answer made it in or not, what is
	 * reported is true and the count says how many were measured. */
	CHECK_OK_NET(net, grove_net_send_to(net, 5, WORKER_STALL, "%d", 5));
	uint64_t t0 = it_now_ms();
	got = grove_net_clock_skew(net, 8, out, 500);
	it_step("silent rank 5: %d measured in %llu ms", got,
	    (unsigned long long)(it_now_ms() - t0));
	int known = 0;
	for (uint32_t r = 0; r < NB; r++) {
		if (out[r].error_ns == GROVE_SKEW_UNKNOWN)
			continue;
		known++;
		CHECK(abs_diff(out[r].offset_ns, 0) <= out[r].error_ns);
	}
	CHECK_INT_EQ(got, known);
	CHECK(out[3].error_ns == GROVE_SKEW_UNKNOWN);
	CHECK(got >= 0 && got <= NB - 1);
	/* Rank 5 wakes up and answers everything stale; a new run with a
	 * long timeout measures all survivors. */
	got = grove_net_clock_skew(net, 8, out, 30000);
	CHECK_RC_NET(net, got, NB - 1);
	for (uint32_t r = 0; r < NB; r++)
		if (r != 3)
			CHECK(abs_diff(out[r].offset_ns, 0) <= out[r].error_ns);
	it_net_destroy(net);
}


/* Attach mode: back-ends not connected yet are reported unmeasured; once
 * they are, they are measured, offsets and all (started by the test, they
 * read GROVE_CLOCK_INJECT_NS from the environment it gives them). */
static void
attach_mode(void)
{
	enum { NB = 8 };
	grove_skew out[NB];
	char file[4096];
	int64_t step = 2000000;
	it_step("--- attach mode, kary:2, %d back-ends, rank r at r * 2 ms", NB);
	snprintf(file, sizeof file, "%s/skew.connect", it_tmpdir());
	grove_net_opts o;
	it_attach_opts(&o, "kary:2", NB, file);
	grove_net *net = it_net_create(&o);
	setenv("GROVE_CLOCK_INJECT_NS", "2000000", 1);
	for (uint32_t r = 0; r < NB; r += 2)
		it_start_attached_be(file, r);
	CHECK_OK_NET(net, grove_net_wait_backends(net, NB / 2, IT_RECV_MS));
	int got = grove_net_clock_skew(net, 8, out, 2000);
	CHECK_INT_EQ(got, NB / 2);
	for (uint32_t r = 0; r < NB; r++) {
		if (r % 2) {
			CHECK(out[r].error_ns == GROVE_SKEW_UNKNOWN);
			continue;
		}
		CHECK(out[r].error_ns != GROVE_SKEW_UNKNOWN);
		CHECK(abs_diff(out[r].offset_ns, (int64_t)r * step) <=
		    out[r].error_ns);
	}
	it_step("%d of %d attached back-ends measured", got, NB);
	for (uint32_t r = 1; r < NB; r += 2)
		it_start_attached_be(file, r);
	unsetenv("GROVE_CLOCK_INJECT_NS");
	CHECK_OK_NET(net, grove_net_wait_backends(net, NB, IT_RECV_MS));
	check_skew(net, 16, truth_step, &step);
	it_net_destroy(net);
}

static void
bad_arguments(void)
{
	it_step("--- bad arguments");
	grove_skew out[2];
	CHECK_RC(grove_net_clock_skew(NULL, 0, out, 1000), GROVE_EINVAL);
	grove_net *net = it_net_spawn("flat", 2);
	CHECK_RC(grove_net_clock_skew(net, 0, NULL, 1000), GROVE_EINVAL);
	CHECK_RC(grove_net_clock_skew(net, 100000, out, 1000), GROVE_EINVAL);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "rounds");
	/* The network still works. */
	CHECK_RC_NET(net, grove_net_clock_skew(net, 4, out, 30000), 2);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_clock_skew", 240);
	no_injection("flat", 8);
	no_injection("kary:4", 16);
	step_injection("flat", 8, 1000000);
	step_injection("kary:4", 16, 1000000);
	step_injection("kary:2", 8, -250000);
	list_injection("kary:4", 16);
	list_injection("kary:2", 8);
	lost_and_silent("flat");
	lost_and_silent("kary:2");
	attach_mode();
	bad_arguments();
	return it_done();
}
