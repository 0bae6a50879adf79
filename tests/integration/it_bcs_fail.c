/* BCS failure semantics: a node killed (SIGKILL) while the manager waits
 * in a Compare-And-Write, while a manager Xfer-And-Signal to every node
 * waits for its local event, and while another node's transfer to it
 * waits: each ends with GROVE_ELOST naming the node; later operations
 * that involve it fail at once, those that do not still work.
 *
 * The nodes are this program with --bcs-node (helper_bcs.c); a node
 * told IT_OP_DIE reports, sleeps without serving, then kills itself, so
 * the operation the test starts after the report is under way when it
 * dies (or, on a machine slower than the sleep, finds it dead: ELOST
 * either way).
 */
#include <stdio.h>
#include <string.h>

#include "helper_bcs.h"
#include "helper_common.h"

#define VICTIM 2u

static void
die(it_machine *m, uint32_t node, int after_ms)
{
	it_cmd c;
	it_report r;
	memset(&c, 0, sizeof c);
	c.op = IT_OP_DIE;
	c.arg[0] = after_ms;
	/* It reports, then stops serving: what comes next finds it
	 * asleep, then dead. */
	it_bcs_do(m, node, &c, &r);
}

static void
check_gone(it_machine *m)
{
	CHECK_UINT_EQ(it_wait_gone(&m->pid[VICTIM], 1, IT_RECV_MS), 0);
}

static void
during_caw(const char *exe, const char *topo)
{
	it_machine m;
	it_bcs_start(&m, exe, topo, 3);
	grove_bcs *b = m.bcs;
	die(&m, VICTIM, 300);
	grove_bcs_cw cw = {.var = 0, .cmp = GROVE_BCS_GE, .value = 0,
	    .write = true, .write_var = 1, .write_value = 5,
	    .write_event = GROVE_BCS_NO_EVENT};
	CHECK_BCS(b, grove_bcs_compare_and_write(b, &cw, IT_RECV_MS),
	    GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "node 2");
	it_step("%s: compare_and_write while node 2 dies: %s", topo,
	    grove_bcs_last_error(b));
	check_gone(&m);
	/* Later: with it, at once; without it, as usual. */
	CHECK_BCS(b, grove_bcs_compare_and_write(b, &cw, IT_RECV_MS),
	    GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "node 2");
	uint32_t alive[2] = {0, 1};
	cw.on.nodes = alive;
	cw.on.count = 2;
	CHECK_BCS(b, grove_bcs_compare_and_write(b, &cw, IT_RECV_MS), 1);
	char byte = 1;
	grove_bcs_xfer x = {.to = {NULL, 0}, .src_addr = (uintptr_t)&byte,
	    .dst_addr = IT_DATA_OFF, .len = 1, .local_event = IT_EV_LOCAL,
	    .remote_event = GROVE_BCS_NO_EVENT};
	CHECK_BCS(b, grove_bcs_xfer_and_signal(b, &x), GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "node 2");
	x.to.nodes = alive;
	x.to.count = 2;
	CHECK_BCS(b, grove_bcs_xfer_and_signal(b, &x), 0);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_LOCAL, IT_RECV_MS), 1);
	/* A wait without a time limit for a signal nobody will send ends. */
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_DATA, -1), GROVE_ELOST);
	it_step("%s: after the loss: operations with node 2 fail at once, "
	    "the others work", topo);
	it_bcs_stop(&m);
}

static void
during_xfer(const char *exe, const char *topo)
{
	it_machine m;
	it_bcs_start(&m, exe, topo, 3);
	grove_bcs *b = m.bcs;
	die(&m, VICTIM, 300);
	static char data[2000];
	grove_bcs_xfer x = {.to = {NULL, 0}, .src_addr = (uintptr_t)data,
	    .dst_addr = IT_DATA_OFF, .len = sizeof data,
	    .local_event = IT_EV_LOCAL, .remote_event = IT_EV_DATA};
	CHECK_BCS(b, grove_bcs_xfer_and_signal(b, &x), 0);
	CHECK_BCS(b, grove_bcs_test_event(b, IT_EV_LOCAL, IT_RECV_MS),
	    GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_bcs_last_error(b), "node 2");
	it_step("%s: xfer to every node while node 2 dies: %s", topo,
	    grove_bcs_last_error(b));
	check_gone(&m);
	it_bcs_stop(&m);
}

static void
during_node_xfer(const char *exe, const char *topo)
{
	it_machine m;
	it_bcs_start(&m, exe, topo, 3);
	die(&m, VICTIM, 300);
	it_cmd c;
	it_report r;
	memset(&c, 0, sizeof c);
	c.op = IT_OP_XFER;
	c.nnodes = 1;
	c.nodes[0] = VICTIM;
	c.v[0] = 1;
	c.arg[0] = 1000;
	c.arg[1] = IT_DATA_OFF;
	it_bcs_do(&m, 0, &c, &r);
	CHECK_INT_EQ(r.rc, GROVE_ELOST);
	CHECK(strstr(r.err, "node 2") != NULL);
	it_step("%s: node 0's xfer to node 2 while it dies: %s", topo, r.err);
	check_gone(&m);
	it_bcs_stop(&m);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bcs-node"))
		return it_bcs_node_main(argc, argv);
	it_init("it_bcs_fail", 240);
	char exe[4096];
	it_build_path("it_bcs_fail", exe, sizeof exe);
	during_caw(exe, "flat");
	during_caw(exe, "kary:2");
	during_xfer(exe, "flat");
	during_xfer(exe, "kary:2");
	during_node_xfer(exe, "flat");
	return it_done();
}
