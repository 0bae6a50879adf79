/* BCS integration tests: the node program and the manager's command
 * helpers (helper_bcs.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_bcs.h"
#include "helper_common.h"

/* ---- the node ------------------------------------------------------------ */

static void
node_report(grove_bcs *b, const it_report *r)
{
	uint32_t mgr = GROVE_BCS_MANAGER;
	grove_bcs_xfer x = {
		.to = {&mgr, 1},
		.src_addr = (uint64_t)(uintptr_t)r,
		.dst_addr = IT_REPORT_OFF + grove_bcs_self(b) * IT_REPORT_SLOT,
		.len = sizeof *r,
		.local_event = GROVE_BCS_NO_EVENT,
		.remote_event = IT_EV_REPORT,
	};
	int rc = grove_bcs_xfer_and_signal(b, &x);
	if (rc != 0)
		fprintf(stderr, "bcs node %u: report: %s: %s\n",
		    grove_bcs_self(b), grove_err_name(rc),
		    grove_bcs_last_error(b));
}

static void
node_error(grove_bcs *b, it_report *r, int rc)
{
	r->rc = rc;
	if (rc < 0)
		snprintf(r->err, sizeof r->err, "%s", grove_bcs_last_error(b));
}

/* Xfer to the nodes of c (all when none), then its local event. */
static void
node_xfer(grove_bcs *b, const it_cmd *c, it_report *r)
{
	size_t len = (size_t)c->arg[0];
	unsigned char *buf = malloc(len ? len : 1);
	memset(buf, (int)c->v[0], len);
	grove_bcs_xfer x = {
		.to = {c->nnodes ? c->nodes : NULL, c->nnodes},
		.src_addr = (uint64_t)(uintptr_t)buf,
		.dst_addr = (uint64_t)c->arg[1],
		.len = len,
		.local_event = IT_EV_LOCAL,
		.remote_event = IT_EV_DATA,
	};
	int rc = grove_bcs_xfer_and_signal(b, &x);
	/* The source may change at once: the call copied it. */
	memset(buf, 0xee, len);
	if (rc == 0)
		rc = grove_bcs_test_event(b, IT_EV_LOCAL, IT_RECV_MS);
	node_error(b, r, rc);
	free(buf);
}

static void
node_caw(grove_bcs *b, const it_cmd *c, it_report *r)
{
	grove_bcs_cw cw = {
		.on = {c->nnodes ? c->nodes : NULL, c->nnodes},
		.var = (uint32_t)c->arg[0],
		.cmp = (grove_bcs_cmp)c->arg[1],
		.value = c->v[0],
		.write = c->arg[2] != 0,
		.write_var = (uint32_t)c->arg[3],
		.write_value = c->v[1],
		.write_event = c->arg[4],
	};
	node_error(b, r, grove_bcs_compare_and_write(b, &cw, IT_RECV_MS));
}

/* Increments variable 0 on every node arg[0] times, each time only if
 * nobody changed it in between: the successes of all counting nodes
 * add up to the final value exactly when the writes are serialized. */
static void
node_count(grove_bcs *b, const it_cmd *c, it_report *r)
{
	int64_t ok = 0, tries = 0;
	while (ok < c->arg[0]) {
		int64_t v = 0;
		grove_bcs_var_get(b, 0, &v);
		grove_bcs_cw cw = {.var = 0, .cmp = GROVE_BCS_EQ, .value = v,
		    .write = true, .write_var = 0, .write_value = v + 1,
		    .write_event = GROVE_BCS_NO_EVENT};
		int rc = grove_bcs_compare_and_write(b, &cw, IT_RECV_MS);
		tries++;
		if (rc < 0) {
			node_error(b, r, rc);
			return;
		}
		ok += rc;
	}
	r->v[0] = ok;
	r->v[1] = tries;
}

static void
node_state(grove_bcs *b, const it_cmd *c, it_report *r)
{
	int64_t v = 0;
	size_t bytes = 0;
	const unsigned char *g = grove_bcs_gmem(b, &bytes);
	grove_bcs_var_get(b, (uint32_t)c->arg[0], &v);
	int64_t sum = 0;
	for (int32_t i = 0; i < c->arg[2]; i++)
		sum += g[c->arg[1] + i];
	r->v[0] = v;
	r->v[1] = sum;
	r->v[2] = grove_bcs_test_event(b, c->arg[3], 0);
}

static int
node_run(grove_bcs *b, const it_cmd *c)
{
	it_report r;
	memset(&r, 0, sizeof r);
	r.seq = c->seq;
	switch (c->op) {
	case IT_OP_HELLO:
		r.v[0] = getpid();
		break;
	case IT_OP_XFER:
		node_xfer(b, c, &r);
		break;
	case IT_OP_CAW:
		node_caw(b, c, &r);
		break;
	case IT_OP_COUNT:
		node_count(b, c, &r);
		break;
	case IT_OP_STATE:
		node_state(b, c, &r);
		break;
	case IT_OP_DIE: {
		/* The report leaves in the call (the back-end flushes its
		 * sends); nothing that arrives after it is served. */
		node_report(b, &r);
		struct timespec ts = {c->arg[0] / 1000,
		    (c->arg[0] % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		kill(getpid(), SIGKILL);
		return 0;
	}
	case IT_OP_EXIT:
		return 1;
	}
	node_report(b, &r);
	return 0;
}

int
it_bcs_node_main(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "bcs node: grove_be_init: %s\n",
		    grove_err_name(rc));
		return 1;
	}
	grove_bcs_opts o;
	grove_bcs_opts_init(&o);
	grove_bcs *b = NULL;
	rc = grove_bcs_node_open(be, &o, &b);
	if (rc != 0) {
		fprintf(stderr, "bcs node: open: %s: %s\n", grove_err_name(rc),
		    b ? grove_bcs_last_error(b) : "");
		grove_bcs_close(b);
		grove_be_destroy(be);
		return 1;
	}
	/* Two commands may arrive before the node looks: the block then
	 * holds the second one, and the second signal must not run it
	 * again. */
	uint32_t last_seq = 0;
	for (;;) {
		rc = grove_bcs_test_event(b, IT_EV_CMD, 1000);
		if (rc == GROVE_ECLOSED)
			break;
		if (rc != 1)
			continue; /* nothing yet, or a node was lost */
		it_cmd c;
		size_t bytes = 0;
		memcpy(&c, (char *)grove_bcs_gmem(b, &bytes) + IT_CMD_OFF,
		    sizeof c);
		if (c.seq == last_seq)
			continue;
		last_seq = c.seq;
		uint32_t me = grove_bcs_self(b);
		uint32_t mask = (uint32_t)c.arg[7];
		int acts = mask ? (mask >> me) & 1 :
		    c.actor == UINT32_MAX || c.actor == me;
		if (acts && node_run(b, &c))
			break;
	}
	grove_bcs_close(b);
	grove_be_destroy(be);
	return 0;
}

/* ---- the manager --------------------------------------------------------- */

void
it_bcs_command(it_machine *m, it_cmd *c)
{
	c->seq = ++m->seq;
	grove_bcs_xfer x = {
		.to = {NULL, 0},
		.src_addr = (uint64_t)(uintptr_t)c,
		.dst_addr = IT_CMD_OFF,
		.len = sizeof *c,
		.local_event = GROVE_BCS_NO_EVENT,
		.remote_event = IT_EV_CMD,
	};
	/* Only the nodes still up: the failure tests lose some. */
	uint32_t alive[IT_NODES_MAX], n = 0;
	for (uint32_t i = 0; i < m->n; i++)
		if (m->pid[i] == 0 || it_alive(m->pid[i]))
			alive[n++] = i;
	if (n < m->n) {
		x.to.nodes = alive;
		x.to.count = n;
	}
	CHECK_BCS(m->bcs, grove_bcs_xfer_and_signal(m->bcs, &x), 0);
}

void
it_bcs_report(it_machine *m, uint32_t node, it_report *r)
{
	size_t bytes = 0;
	const char *g = grove_bcs_gmem(m->bcs, &bytes);
	uint64_t t0 = it_now_ms();
	for (;;) {
		memcpy(r, g + IT_REPORT_OFF + node * IT_REPORT_SLOT, sizeof *r);
		if (r->seq == m->seq)
			return;
		if (it_now_ms() - t0 > IT_RECV_MS)
			IT_FAIL("no report from node %u to command %u", node,
			    m->seq);
		int rc = grove_bcs_test_event(m->bcs, IT_EV_REPORT, 1000);
		if (rc < 0)
			IT_FAIL("waiting for node %u's report: %s: %s", node,
			    grove_err_name(rc), grove_bcs_last_error(m->bcs));
	}
}

void
it_bcs_do(it_machine *m, uint32_t actor, it_cmd *c, it_report *r)
{
	c->actor = actor;
	it_bcs_command(m, c);
	it_bcs_report(m, actor, r);
}

void
it_bcs_start(it_machine *m, const char *exe, const char *topo, uint32_t n)
{
	memset(m, 0, sizeof *m);
	static char *argv[] = {"bcs-node", "--bcs-node", NULL};
	grove_net_opts o;
	it_net_opts(&o, topo, n);
	o.be_exe = exe;
	o.be_argv = argv;
	m->net = it_net_create(&o);
	m->n = n;
	grove_bcs_opts bo;
	grove_bcs_opts_init(&bo);
	int rc = grove_bcs_manager_open(m->net, &bo, &m->bcs);
	if (rc != 0)
		IT_FAIL("grove_bcs_manager_open: %s: %s", grove_err_name(rc),
		    m->bcs ? grove_bcs_last_error(m->bcs) : "");
	CHECK_UINT_EQ(grove_bcs_nodes(m->bcs), n);
	CHECK_UINT_EQ(grove_bcs_self(m->bcs), GROVE_BCS_MANAGER);
	for (uint32_t i = 0; i < n; i++) {
		it_cmd c;
		it_report r;
		memset(&c, 0, sizeof c);
		c.op = IT_OP_HELLO;
		it_bcs_do(m, i, &c, &r);
		m->pid[i] = (pid_t)r.v[0];
	}
	it_step("machine of %u nodes on %s open", n, topo);
}

void
it_bcs_stop(it_machine *m)
{
	grove_bcs_close(m->bcs);
	it_net_destroy(m->net);
	memset(m, 0, sizeof *m);
}
