/* BCS integration tests (it_bcs_*.c): a BCS machine of this machine's
 * processes, driven through BCS itself.
 *
 * The test program is the manager; its back-ends are the same program
 * started with --bcs-node (it_bcs_node_main), which opens a node and
 * then obeys commands: the manager puts a command block into every
 * node's global memory with Xfer-And-Signal (event IT_EV_CMD), the node
 * named in it acts and puts its report into the manager's global memory
 * (event IT_EV_REPORT).
 */
#ifndef GROVE_IT_HELPER_BCS_H
#define GROVE_IT_HELPER_BCS_H

#include <stdint.h>
#include <sys/types.h>

#include "grove/bcs.h"
#include "grove/network.h"

/* Events and the layout of global memory (64 KiB). */
enum { IT_EV_CMD = 0, IT_EV_REPORT = 1, IT_EV_DATA = 2, IT_EV_LOCAL = 3,
    IT_EV_WRITE = 4 };
#define IT_CMD_OFF 0u
#define IT_REPORT_OFF 1024u      /* manager: a slot per node */
#define IT_REPORT_SLOT 512u
#define IT_DATA_OFF 16384u       /* transfers' data */
#define IT_NODES_MAX 8

enum it_bcs_op {
	IT_OP_HELLO = 1,  /* report pid */
	IT_OP_XFER,       /* xfer: to nodes[0..nnodes) (or all: nnodes 0),
	                     v[0] byte value, arg[0] len, arg[1] dst off;
	                     waits for its local event: report rc */
	IT_OP_CAW,        /* compare_and_write: arg[0] var, arg[1] cmp,
	                     v[0] value, arg[2] write, arg[3] write var,
	                     v[1] write value, arg[4] write event */
	IT_OP_COUNT,      /* arg[0] times: read var 0, CAW(all, var 0 EQ v,
	                     write var 0 = v + 1): report successes */
	IT_OP_STATE,      /* report var arg[0], the sum of gmem bytes
	                     [arg[1], arg[1] + arg[2]), and test_event of
	                     arg[3] (0 ms) */
	IT_OP_DIE,        /* report, sleep arg[0] ms without serving, then
	                     SIGKILL itself */
	IT_OP_EXIT,       /* close and exit 0 */
};

typedef struct it_cmd {
	uint32_t op;
	uint32_t seq;
	uint32_t actor;     /* the node that acts (UINT32_MAX: every node) */
	uint32_t nnodes;
	uint32_t nodes[IT_NODES_MAX];
	int32_t arg[8];
	int64_t v[4];
} it_cmd;

typedef struct it_report {
	uint32_t seq;
	int32_t rc;
	int64_t v[4];
	char err[400];
} it_report;

/* The back-end program's BCS node (argv[1] == "--bcs-node"). */
int it_bcs_node_main(int argc, char **argv);

/* A network of n nodes (this program as back-ends, flat or kary:2) and
 * its manager; it_bcs_stop closes both. */
typedef struct it_machine {
	grove_net *net;
	grove_bcs *bcs;
	uint32_t n;
	pid_t pid[IT_NODES_MAX];
	uint32_t seq;
} it_machine;
void it_bcs_start(it_machine *m, const char *exe, const char *topo,
    uint32_t n);
void it_bcs_stop(it_machine *m);

/* Sends c to every node (the actor acts); returns at once. */
void it_bcs_command(it_machine *m, it_cmd *c);
/* Waits for the report of node `node` to command seq (fails the test
 * after IT_RECV_MS). */
void it_bcs_report(it_machine *m, uint32_t node, it_report *r);
/* Command + report. */
void it_bcs_do(it_machine *m, uint32_t actor, it_cmd *c, it_report *r);

/* Checks a BCS call's result, printing the handle's last error. */
#define CHECK_BCS(b, expr, want) do { \
	int it_rc_ = (expr); \
	if (it_rc_ != (want)) \
		IT_FAIL("%s returned %d (%s), expected %d (%s); last error: %s", \
		    #expr, it_rc_, grove_err_name(it_rc_), (int)(want), \
		    grove_err_name(want), grove_bcs_last_error(b)); \
} while (0)

#endif
