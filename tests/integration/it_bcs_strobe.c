/* The strobe (src/bcs/strobe.h) with a manager and 2 nodes (flat): 20
 * slices of 1 ms whose phase callbacks count calls: every slice sees DEM
 * and MSM on every node in order, and P2P, BBM, RED only while a node
 * has work (the first 10 slices; the other 10 end after MSM); the EMDS
 * window of the sender holds the 20 rows.  Then node 1 kills itself
 * (SIGKILL) in slice 5: the run ends with GROVE_ELOST naming it.
 *
 * The nodes are this program with --strobe-node [DIE_AT].
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcs/strobe.h"
#include "helper_common.h"

#define SLICES 20
#define BUSY_SLICES 10

struct node_counts {
	int64_t calls[BCS_MICROPHASES];
	int64_t order_errors;
	int64_t slices;
};

struct node_state {
	uint32_t self;
	int64_t die_at;
	uint64_t slice;
	int next;
	struct node_counts n;
};

static int
phase(void *arg, uint64_t slice, int ph, bool *more, bcs_strobe_counts *c)
{
	struct node_state *s = arg;
	if (ph == BCS_DEM) {
		if (s->n.slices && slice != s->slice + 1)
			s->n.order_errors++;
		if (s->n.slices && s->next != BCS_DEM)
			s->n.order_errors++; /* the previous slice's order */
		s->slice = slice;
		s->n.slices++;
		s->next = BCS_DEM;
	}
	if (slice != s->slice || ph != s->next)
		s->n.order_errors++;
	s->next = ph + 1;
	s->n.calls[ph]++;
	/* Work after DEM in every slice (so MSM always runs), after MSM
	 * only in the busy ones. */
	*more = ph == BCS_DEM || slice < BUSY_SLICES;
	if (ph == BCS_MSM && !*more)
		s->next = BCS_DEM; /* the slice ends after MSM */
	if (ph == BCS_RED)
		s->next = BCS_DEM;
	c->np2pdem = 1;
	if (s->die_at >= 0 && (int64_t)slice == s->die_at && s->self == 1 &&
	    ph == BCS_MSM)
		kill(getpid(), SIGKILL);
	return 0;
}

static int
strobe_node_main(int argc, char **argv)
{
	grove_be *be = NULL;
	if (grove_be_init(&argc, &argv, &be) != 0)
		return 1;
	grove_bcs *b = NULL;
	if (grove_bcs_node_open(be, NULL, &b) != 0) {
		fprintf(stderr, "strobe node: %s\n", grove_bcs_last_error(b));
		return 1;
	}
	struct node_state s;
	memset(&s, 0, sizeof s);
	s.self = grove_bcs_self(b);
	s.die_at = argc > 2 ? atoll(argv[2]) : -1;
	int rc = bcs_strobe_receiver_run(b, phase, &s, NULL);
	if (rc == 0) {
		uint32_t mgr = GROVE_BCS_MANAGER;
		grove_bcs_xfer x = {.to = {&mgr, 1},
		    .src_addr = (uintptr_t)&s.n, .len = sizeof s.n,
		    .dst_addr = 1024 + s.self * sizeof s.n,
		    .local_event = GROVE_BCS_NO_EVENT, .remote_event = 0};
		grove_bcs_xfer_and_signal(b, &x);
		while (grove_bcs_test_event(b, 0, 1000) != GROVE_ECLOSED)
			;
	}
	grove_bcs_close(b);
	grove_be_destroy(be);
	return rc == 0 || rc == GROVE_ECLOSED || rc == GROVE_ELOST ? 0 : 1;
}

static grove_bcs *
machine(grove_net **net, const char *exe, const char *die_at)
{
	char *argv[] = {"strobe-node", "--strobe-node", (char *)die_at, NULL};
	grove_net_opts o;
	it_net_opts(&o, "flat", 2);
	o.be_exe = exe;
	o.be_argv = argv;
	*net = it_net_create(&o);
	grove_bcs *b = NULL;
	int rc = grove_bcs_manager_open(*net, NULL, &b);
	if (rc != 0)
		IT_FAIL("manager open: %s", grove_bcs_last_error(b));
	return b;
}

static void
slices(const char *exe)
{
	grove_net *net;
	grove_bcs *b = machine(&net, exe, "-1");
	bcs_emds e;
	char err[200];
	CHECK_OK(bcs_emds_init(&e, 0, 0, 0, SLICES - 1, err, sizeof err));
	bcs_strobe_cfg cfg = {.slice_ns = 1000000, .slices = SLICES,
	    .emds = &e};
	bcs_strobe_result r;
	int rc = bcs_strobe_sender_run(b, &cfg, &r);
	if (rc != 0)
		IT_FAIL("sender: %s: %s", grove_err_name(rc),
		    grove_bcs_last_error(b));
	CHECK_UINT_EQ(r.slices, SLICES);
	CHECK_UINT_EQ(r.short_slices, SLICES - BUSY_SLICES);
	CHECK_UINT_EQ(bcs_emds_rows(&e), SLICES);
	it_step("%u slices, %llu ended after MSM, %llu retries, shortest GTTS "
	    "%llu us", SLICES, (unsigned long long)r.short_slices,
	    (unsigned long long)r.retries,
	    (unsigned long long)(r.min_gtts_ns / 1000));
	for (int k = 0; k < 2; k++)
		CHECK_INT_EQ(grove_bcs_test_event(b, 0, IT_RECV_MS), 1);
	size_t bytes;
	const char *g = grove_bcs_gmem(b, &bytes);
	for (uint32_t i = 0; i < 2; i++) {
		struct node_counts n;
		memcpy(&n, g + 1024 + i * sizeof n, sizeof n);
		CHECK_INT_EQ(n.slices, SLICES);
		CHECK_INT_EQ(n.order_errors, 0);
		CHECK_INT_EQ(n.calls[BCS_DEM], SLICES);
		CHECK_INT_EQ(n.calls[BCS_MSM], SLICES);
		for (int p = BCS_P2P; p <= BCS_RED; p++)
			CHECK_INT_EQ(n.calls[p], BUSY_SLICES);
	}
	it_step("both nodes saw every microphase in order, P2P..RED only "
	    "while busy");
	bcs_emds_fini(&e);
	grove_bcs_close(b);
	it_net_destroy(net);
}

static void
loss(const char *exe)
{
	grove_net *net;
	grove_bcs *b = machine(&net, exe, "5");
	bcs_strobe_cfg cfg = {.slice_ns = 1000000, .slices = 100000};
	bcs_strobe_result r;
	int rc = bcs_strobe_sender_run(b, &cfg, &r);
	CHECK_INT_EQ(rc, GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "node 1");
	CHECK(r.slices < 100000);
	it_step("node 1 killed in slice 5: the run ended in slice %llu: %s",
	    (unsigned long long)r.slices - 1, grove_bcs_last_error(b));
	grove_bcs_close(b);
	it_net_destroy(net);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--strobe-node"))
		return strobe_node_main(argc, argv);
	it_init("it_bcs_strobe", 120);
	char exe[4096];
	it_build_path("it_bcs_strobe", exe, sizeof exe);
	slices(exe);
	loss(exe);
	return it_done();
}
