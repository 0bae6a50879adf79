/* BCS core primitives on machines of 1, 2 and 4 nodes (flat and kary:2):
 * Test-Event polls and time-outs, Xfer-And-Signal from the manager to
 * every node and to a subset, from a node to another and to the
 * manager, into another process with process_vm_writev and from one with
 * process_vm_readv, Compare-And-Write true, false, with a write and its
 * event, from the manager and from a node, with the manager in the set,
 * and two nodes counting with concurrent Compare-And-Writes.
 *
 * The nodes are this program with --bcs-node (helper_bcs.c).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_bcs.h"
#include "helper_common.h"

static it_report
state(it_machine *m, uint32_t node, int32_t var, int32_t off, int32_t len,
    int32_t ev)
{
	it_cmd c;
	it_report r;
	memset(&c, 0, sizeof c);
	c.op = IT_OP_STATE;
	c.arg[0] = var;
	c.arg[1] = off;
	c.arg[2] = len;
	c.arg[3] = ev;
	it_bcs_do(m, node, &c, &r);
	return r;
}

static void
events(it_machine *m)
{
	grove_bcs *b = m->bcs;
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_DATA, 0), 0);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_DATA, 30), 0);
	CHECK_BCS(b, grove_bcs_signal(b, IT_EV_DATA), 0);
	CHECK_BCS(b, grove_bcs_signal(b, IT_EV_DATA), 0);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_DATA, 0), 1);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_DATA, 30), 1);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_DATA, 0), 0);
	CHECK_BCS(b, grove_bcs_test_event(b, 64, 0), GROVE_ERANGE);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "event 64");
	CHECK_BCS(b, grove_bcs_test_event(NULL, 0, 0), GROVE_EINVAL);
	it_step("test_event: poll, time-out, counted signals, bad events");
}

static void
xfer_from_manager(it_machine *m, const uint32_t *to, uint32_t nto,
    uint32_t off, size_t len, unsigned char val)
{
	unsigned char *buf = malloc(len);
	memset(buf, val, len);
	grove_bcs_xfer x = {.to = {to, nto}, .src_addr = (uintptr_t)buf,
	    .dst_addr = off, .len = len, .local_event = IT_EV_LOCAL,
	    .remote_event = IT_EV_DATA};
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &x), 0);
	memset(buf, 0, len); /* copied by the call */
	CHECK_BCS(m->bcs, grove_bcs_test_event(m->bcs, IT_EV_LOCAL,
	    IT_RECV_MS), 1);
	free(buf);
}

static int
in(const uint32_t *set, uint32_t n, uint32_t id)
{
	if (!set)
		return 1;
	for (uint32_t i = 0; i < n; i++)
		if (set[i] == id)
			return 1;
	return 0;
}

static void
xfers(it_machine *m)
{
	/* To every node. */
	xfer_from_manager(m, NULL, 0, IT_DATA_OFF, 4096, 7);
	for (uint32_t i = 0; i < m->n; i++) {
		it_report r = state(m, i, 0, IT_DATA_OFF, 4096, IT_EV_DATA);
		CHECK_INT_EQ(r.v[1], 7 * 4096);
		CHECK_INT_EQ(r.v[2], 1);
	}
	it_step("xfer manager -> every node: data and remote events");
	/* To a subset: the last node (and the first). */
	uint32_t sub[2] = {m->n - 1, 0};
	uint32_t nsub = m->n > 2 ? 2 : 1;
	xfer_from_manager(m, sub, nsub, IT_DATA_OFF + 8192, 100, 9);
	for (uint32_t i = 0; i < m->n; i++) {
		it_report r = state(m, i, 0, IT_DATA_OFF + 8192, 100,
		    IT_EV_DATA);
		int got = in(sub, nsub, i);
		CHECK_INT_EQ(r.v[1], got ? 900 : 0);
		CHECK_INT_EQ(r.v[2], got);
	}
	it_step("xfer manager -> subset of %u", nsub);
	/* Bad requests are refused with a reason. */
	char one = 1;
	grove_bcs_xfer bad = {.to = {NULL, 0}, .src_addr = (uintptr_t)&one,
	    .dst_addr = 65536 - 1, .len = 2,
	    .local_event = GROVE_BCS_NO_EVENT,
	    .remote_event = GROVE_BCS_NO_EVENT};
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &bad),
	    GROVE_ERANGE);
	CHECK_STR_CONTAINS(grove_bcs_last_error(m->bcs), "global memory");
	uint32_t nobody = m->n;
	bad.dst_addr = 0;
	bad.to.nodes = &nobody;
	bad.to.count = 1;
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &bad),
	    GROVE_ERANGE);
	CHECK_STR_CONTAINS(grove_bcs_last_error(m->bcs), "not in this machine");

	/* A node to the manager. */
	it_cmd c;
	it_report r;
	memset(&c, 0, sizeof c);
	c.op = IT_OP_XFER;
	c.nnodes = 1;
	c.nodes[0] = GROVE_BCS_MANAGER;
	c.v[0] = 4;
	c.arg[0] = 300;
	c.arg[1] = IT_DATA_OFF;
	it_bcs_do(m, 0, &c, &r);
	CHECK_INT_EQ(r.rc, 1);
	size_t bytes = 0;
	const unsigned char *g = grove_bcs_gmem(m->bcs, &bytes);
	CHECK_UINT_EQ(bytes, 65536);
	for (int i = 0; i < 300; i++)
		CHECK_INT_EQ(g[IT_DATA_OFF + i], 4);
	CHECK_BCS(m->bcs, grove_bcs_test_event(m->bcs, IT_EV_DATA, 0), 1);
	it_step("xfer node 0 -> manager");
	if (m->n < 2)
		return;
	/* Node to node over the direct links: node 0 to every node (itself
	 * too), then the last node to node 0. */
	c.nnodes = 0;
	c.v[0] = 5;
	c.arg[0] = 1000;
	c.arg[1] = IT_DATA_OFF + 12000;
	it_bcs_do(m, 0, &c, &r);
	CHECK_INT_EQ(r.rc, 1);
	for (uint32_t i = 0; i < m->n; i++) {
		it_report s = state(m, i, 0, IT_DATA_OFF + 12000, 1000,
		    IT_EV_DATA);
		CHECK_INT_EQ(s.v[1], 5000);
		CHECK_INT_EQ(s.v[2], 1);
	}
	c.nnodes = 1;
	c.nodes[0] = 0;
	c.v[0] = 6;
	c.arg[0] = 30000;
	c.arg[1] = 2 * IT_DATA_OFF;
	it_bcs_do(m, m->n - 1, &c, &r);
	CHECK_INT_EQ(r.rc, 1);
	it_report s = state(m, 0, 0, 2 * IT_DATA_OFF, 30000, IT_EV_DATA);
	CHECK_INT_EQ(s.v[1], 6 * 30000);
	CHECK_INT_EQ(s.v[2], 1);
	it_step("xfer node -> nodes over direct links");
}

/* ---- another process's memory ------------------------------------------- */

static unsigned char cma_dst[4096];
static unsigned char cma_src[2048];

/* A process holding cma_dst and cma_src (their addresses are this
 * program's, inherited by fork): on each byte from the request pipe it
 * answers the sum of cma_dst. */
static pid_t
cma_child(int *req, int *ans)
{
	int p1[2], p2[2];
	CHECK(pipe(p1) == 0 && pipe(p2) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(p1[1]);
		close(p2[0]);
		memset(cma_dst, 0, sizeof cma_dst);
		memset(cma_src, 11, sizeof cma_src);
		char ch;
		while (read(p1[0], &ch, 1) == 1) {
			long sum = 0;
			for (size_t i = 0; i < sizeof cma_dst; i++)
				sum += cma_dst[i];
			if (write(p2[1], &sum, sizeof sum) != sizeof sum)
				_exit(1);
		}
		_exit(0);
	}
	close(p1[0]);
	close(p2[1]);
	*req = p1[1];
	*ans = p2[0];
	return pid;
}

static long
cma_sum(int req, int ans)
{
	long sum = -1;
	CHECK(write(req, "?", 1) == 1);
	CHECK(read(ans, &sum, sizeof sum) == sizeof sum);
	return sum;
}

static void
cma(it_machine *m)
{
	int req, ans;
	pid_t child = cma_child(&req, &ans);
	CHECK_INT_EQ(cma_sum(req, ans), 0);
	/* The last node writes into the child with process_vm_writev. */
	unsigned char buf[4096];
	memset(buf, 3, sizeof buf);
	uint32_t to = m->n - 1;
	grove_bcs_xfer x = {.to = {&to, 1}, .src_addr = (uintptr_t)buf,
	    .dst_pid = child, .dst_addr = (uintptr_t)cma_dst,
	    .len = sizeof buf, .local_event = IT_EV_LOCAL,
	    .remote_event = IT_EV_DATA};
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &x), 0);
	CHECK_BCS(m->bcs, grove_bcs_test_event(m->bcs, IT_EV_LOCAL,
	    IT_RECV_MS), 1);
	CHECK_INT_EQ(cma_sum(req, ans), 3 * 4096);
	it_step("xfer into pid %d on node %u (process_vm_writev)", (int)child,
	    to);
	/* A bad address there fails the transfer, and says why. */
	x.dst_addr = 8;
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &x), 0);
	CHECK_BCS(m->bcs, grove_bcs_test_event(m->bcs, IT_EV_LOCAL,
	    IT_RECV_MS), GROVE_ERANGE);
	CHECK_STR_CONTAINS(grove_bcs_last_error(m->bcs), "process_vm_writev");
	CHECK_STR_CONTAINS(grove_bcs_last_error(m->bcs), "node");
	/* From the child's memory (process_vm_readv) to every node. */
	grove_bcs_xfer y = {.to = {NULL, 0}, .src_pid = child,
	    .src_addr = (uintptr_t)cma_src, .dst_addr = IT_DATA_OFF + 4096,
	    .len = sizeof cma_src, .local_event = IT_EV_LOCAL,
	    .remote_event = GROVE_BCS_NO_EVENT};
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &y), 0);
	CHECK_BCS(m->bcs, grove_bcs_test_event(m->bcs, IT_EV_LOCAL,
	    IT_RECV_MS), 1);
	for (uint32_t i = 0; i < m->n; i++) {
		it_report r = state(m, i, 0, IT_DATA_OFF + 4096,
		    sizeof cma_src, IT_EV_DATA);
		CHECK_INT_EQ(r.v[1], 11 * (long)sizeof cma_src);
	}
	it_step("xfer from pid %d to every node (process_vm_readv)",
	    (int)child);
	close(req);
	close(ans);
	int st;
	CHECK(waitpid(child, &st, 0) == child);
}

/* ---- Compare-And-Write --------------------------------------------------- */

static int
caw(it_machine *m, const uint32_t *on, uint32_t n, uint32_t var,
    grove_bcs_cmp cmp, int64_t value, int write, uint32_t wvar, int64_t wval)
{
	grove_bcs_cw cw = {.on = {on, n}, .var = var, .cmp = cmp,
	    .value = value, .write = write != 0, .write_var = wvar,
	    .write_value = wval, .write_event = IT_EV_WRITE};
	return grove_bcs_compare_and_write(m->bcs, &cw, IT_RECV_MS);
}

static void
caws(it_machine *m)
{
	grove_bcs *b = m->bcs;
	CHECK_BCS(b, caw(m, NULL, 0, 3, GROVE_BCS_GE, 0, 0, 0, 0), 1);
	CHECK_BCS(b, caw(m, NULL, 0, 3, GROVE_BCS_NE, 0, 0, 0, 0), 0);
	CHECK_BCS(b, caw(m, NULL, 0, 3, GROVE_BCS_EQ, 0, 1, 3, 10), 1);
	for (uint32_t i = 0; i < m->n; i++) {
		it_report r = state(m, i, 3, 0, 0, IT_EV_WRITE);
		CHECK_INT_EQ(r.v[0], 10);
		CHECK_INT_EQ(r.v[2], 1);
	}
	it_step("compare_and_write: true, false, a write and its event");
	/* False: nothing is written. */
	CHECK_BCS(b, caw(m, NULL, 0, 3, GROVE_BCS_GE, 11, 1, 3, 99), 0);
	CHECK_BCS(b, caw(m, NULL, 0, 3, GROVE_BCS_LT, 11, 0, 0, 0), 1);
	for (uint32_t i = 0; i < m->n; i++) {
		it_report r = state(m, i, 3, 0, 0, IT_EV_WRITE);
		CHECK_INT_EQ(r.v[0], 10);
		CHECK_INT_EQ(r.v[2], 0);
	}
	/* A subset; the manager in the set. */
	uint32_t first = 0;
	CHECK_BCS(b, caw(m, &first, 1, 3, GROVE_BCS_EQ, 10, 0, 0, 0), 1);
	uint32_t with_mgr[2] = {GROVE_BCS_MANAGER, 0};
	CHECK_BCS(b, caw(m, with_mgr, 2, 3, GROVE_BCS_EQ, 10, 0, 0, 0), 0);
	CHECK_BCS(b, grove_bcs_var_set(b, 3, 10), 0);
	CHECK_BCS(b, caw(m, with_mgr, 2, 3, GROVE_BCS_EQ, 10, 1, 5, 42), 1);
	int64_t v = 0;
	CHECK_BCS(b, grove_bcs_var_get(b, 5, &v), 0);
	CHECK_INT_EQ(v, 42);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_WRITE, 0), 1);
	CHECK_INT_EQ(state(m, 0, 5, 0, 0, IT_EV_WRITE).v[0], 42);
	if (m->n > 1)
		CHECK_INT_EQ(state(m, 1, 5, 0, 0, IT_EV_WRITE).v[0], 0);
	it_step("compare_and_write: a subset, the manager in the set");
	/* Bad requests. */
	CHECK_BCS(b, caw(m, NULL, 0, 64, GROVE_BCS_EQ, 0, 0, 0, 0),
	    GROVE_ERANGE);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "variable 64");
	/* From a node: the manager runs it for the node. */
	it_cmd c;
	it_report r;
	memset(&c, 0, sizeof c);
	c.op = IT_OP_CAW;
	c.arg[0] = 3;
	c.arg[1] = GROVE_BCS_EQ;
	c.v[0] = 10;
	c.arg[2] = 1;
	c.arg[3] = 4;
	c.v[1] = 77;
	c.arg[4] = GROVE_BCS_NO_EVENT;
	it_bcs_do(m, m->n - 1, &c, &r);
	CHECK_INT_EQ(r.rc, 1);
	for (uint32_t i = 0; i < m->n; i++)
		CHECK_INT_EQ(state(m, i, 4, 0, 0, IT_EV_WRITE).v[0], 77);
	c.v[0] = 11;
	it_bcs_do(m, 0, &c, &r);
	CHECK_INT_EQ(r.rc, 0);
	c.arg[0] = 1000;
	it_bcs_do(m, 0, &c, &r);
	CHECK_INT_EQ(r.rc, GROVE_ERANGE);
	CHECK(strstr(r.err, "variable 1000") != NULL);
	it_step("compare_and_write from a node: true, false, bad variable");
	if (m->n < 2)
		return;
	/* Two nodes count on variable 0 at once. */
	CHECK_BCS(b, caw(m, NULL, 0, 0, GROVE_BCS_GE, INT64_MIN, 1, 0, 0), 1);
	memset(&c, 0, sizeof c);
	c.op = IT_OP_COUNT;
	c.arg[0] = 40;
	c.arg[7] = 3; /* nodes 0 and 1 */
	c.actor = 0;
	it_bcs_command(m, &c);
	it_report r0, r1;
	it_bcs_report(m, 0, &r0);
	it_bcs_report(m, 1, &r1);
	CHECK_INT_EQ(r0.rc, 0);
	CHECK_INT_EQ(r1.rc, 0);
	CHECK_INT_EQ(r0.v[0] + r1.v[0], 80);
	for (uint32_t i = 0; i < m->n; i++)
		CHECK_INT_EQ(state(m, i, 0, 0, 0, IT_EV_WRITE).v[0], 80);
	it_step("two nodes counted to 80 with concurrent compare_and_writes "
	    "(%lld + %lld retries)", (long long)(r0.v[1] - r0.v[0]),
	    (long long)(r1.v[1] - r1.v[0]));
}

static void
machine(const char *exe, const char *topo, uint32_t n)
{
	it_machine m;
	it_bcs_start(&m, exe, topo, n);
	events(&m);
	xfers(&m);
	cma(&m);
	caws(&m);
	it_bcs_stop(&m);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bcs-node"))
		return it_bcs_node_main(argc, argv);
	it_init("it_bcs_core", 240);
	char exe[4096];
	it_build_path("it_bcs_core", exe, sizeof exe);
	machine(exe, "flat", 1);
	machine(exe, "flat", 2);
	machine(exe, "kary:2", 4);
	return it_done();
}
