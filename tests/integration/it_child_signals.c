/* The signal state of a network's processes does not come from the tool.
 * A front-end (a process forked by this test) blocks SIGTERM, SIGCHLD and
 * SIGUSR1, ignores SIGUSR2, SIGHUP and SIGPIPE, and in one case ignores
 * SIGTERM and SIGCHLD as well, then creates a network:
 *
 *   - every CP and BE blocks nothing and ignores only SIGPIPE (set by
 *     Grove in each) and SIGHUP (a terminal's signal, kept ignored as
 *     the tool has it);
 *   - once the front-end is killed (SIGKILL), every process of its
 *     network dies, also back-ends busy elsewhere that never read their
 *     link again: their parents' death signal (SIGTERM) must reach them.
 *
 *   levels:1x2x2   SIGTERM blocked; CPs started by the FE and CPs that a
 *                  CP copied of itself (fork without exec).
 *   knomial:2      SIGTERM and SIGCHLD ignored; the FE has back-ends of
 *                  its own (a CP's back-ends would die with it anyway:
 *                  a CP that leaves kills its children).
 *
 * The back-ends are this program, started by Grove with "--busy-be": on
 * BE_BUSY they answer, then sleep for good without reading.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* "" -> "%d" rank on the same stream, then the back-end sleeps for good,
 * not reading its link. */
#define BE_BUSY 901

#define BIT(sig) (1ull << ((sig) - 1))

/* ---- the back-end ------------------------------------------------------ */

static int
busy_be_main(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "busy-be: grove_be_init: %s\n", grove_err_name(rc));
		return 1;
	}
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		if (grove_be_recv(be, &stream, &tag, &p, -1) != 0)
			break;
		grove_packet_unref(p);
		if (tag != BE_BUSY)
			continue;
		if (grove_be_send(be, stream, tag, "%d",
		    (int)grove_be_rank(be)) != 0 || grove_be_flush(be, -1) != 0)
			return 1;
		for (;;)
			pause();
	}
	grove_be_destroy(be);
	return 0;
}

/* ---- /proc ------------------------------------------------------------- */

/* The hexadecimal mask of /proc/PID/status line "field:". */
static unsigned long long
status_mask(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		IT_FAIL("cannot read %s", path);
	size_t fl = strlen(field);
	unsigned long long v = 0;
	int found = 0;
	while (!found && fgets(line, sizeof line, f))
		if (!strncmp(line, field, fl) && line[fl] == ':')
			found = sscanf(line + fl + 1, "%llx", &v) == 1;
	fclose(f);
	if (!found)
		IT_FAIL("%s has no %s line", path, field);
	return v;
}

/* ---- the front-end ----------------------------------------------------- */

/* In the forked front-end: the tool's signal state, a network whose
 * back-ends are all busy, its id to the test; then wait to be killed. */
static void
fe_main(const char *topo, uint32_t nbe, int ignore_term, int out)
{
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &block, NULL) == 0);
	signal(SIGUSR2, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (ignore_term) {
		signal(SIGTERM, SIG_IGN);
		signal(SIGCHLD, SIG_IGN);
	}
	char exe[4096];
	char *be_argv[] = {"it_child_signals", "--busy-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, topo, nbe);
	o.be_exe = it_build_path("it_child_signals", exe, sizeof exe);
	o.be_argv = be_argv;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, BE_BUSY, ""));
	CHECK_INT_EQ(it_recv_int(net, s, BE_BUSY), (int64_t)nbe * (nbe - 1) / 2);
	char id[64] = "";
	snprintf(id, sizeof id, "%s", grove_net_id(net));
	if (write(out, id, sizeof id) != (ssize_t)sizeof id)
		_exit(1);
	for (;;)
		pause();
}

static void
check_signals(pid_t pid, const char *what)
{
	unsigned long long blk = status_mask(pid, "SigBlk");
	unsigned long long ign = status_mask(pid, "SigIgn");
	it_step("%s %d: SigBlk %016llx SigIgn %016llx", what, (int)pid, blk,
	    ign);
	CHECK_UINT_EQ(blk, 0);
	CHECK_UINT_EQ(ign & ~(BIT(SIGPIPE) | BIT(SIGHUP)), 0);
	CHECK(ign & BIT(SIGHUP));
}

static void
fe_case(const char *topo, uint32_t nbe, int ignore_term)
{
	it_step("--- %s, %u back-ends, the FE %s SIGTERM", topo, nbe,
	    ignore_term ? "ignores" : "blocks");
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t fe = fork();
	CHECK(fe >= 0);
	if (fe == 0) {
		close(pfd[0]);
		fe_main(topo, nbe, ignore_term, pfd[1]);
	}
	close(pfd[1]);
	struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
	CHECK(poll(&pf, 1, IT_RECV_MS) == 1);
	char netid[64] = "";
	CHECK(read(pfd[0], netid, sizeof netid) == (ssize_t)sizeof netid);
	CHECK(netid[0] != '\0' && memchr(netid, '\0', sizeof netid));
	close(pfd[0]);
	/* Its event spaces go when this test ends, also on a failure: a
	 * killed FE cannot remove them. */
	it_note_network(netid);

	/* The FE has the state the children must not get. */
	CHECK(status_mask(fe, "SigBlk") & BIT(SIGTERM));
	pid_t procs[64];
	size_t n = it_descendants_of(fe, procs, 64, NULL);
	size_t nbes = it_descendants_of(fe, NULL, 0, "it_child_signals");
	size_t ncps = it_descendants_of(fe, NULL, 0, "grove-commnode");
	CHECK(n <= 64);
	CHECK_UINT_EQ(nbes, nbe);
	CHECK(ncps > 0);
	CHECK_UINT_EQ(n, nbes + ncps);
	for (size_t i = 0; i < n; i++)
		check_signals(procs[i], "child");

	CHECK_OK(kill(fe, SIGKILL));
	int st;
	CHECK(waitpid(fe, &st, 0) == fe);
	size_t left = it_wait_gone(procs, n, IT_RECV_MS);
	if (left) {
		for (size_t i = 0; i < n; i++)
			if (it_alive(procs[i]))
				fprintf(stderr, "  still alive: pid %d\n",
				    (int)procs[i]);
		IT_FAIL("%zu of %zu processes outlived their killed FE", left, n);
	}
	it_step("all %zu processes gone after the FE was killed", n);
	it_check_no_procs(NULL, 0, 5000);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--busy-be"))
		return busy_be_main(argc, argv);
	it_init("it_child_signals", 240);
	fe_case("levels:1x2x2", 4, 0);
	fe_case("knomial:2", 4, 1);
	return it_done();
}
