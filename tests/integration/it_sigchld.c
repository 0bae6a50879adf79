/* A tool that ignores SIGCHLD, or whose handler reaps every child, takes
 * the exit status of Grove's children before Grove can: waitpid() then
 * fails with ECHILD.  The network must still work, shut down without
 * waiting for children that are gone (and without killing their pids,
 * which may belong to other processes by then), and a back-end that dies
 * at start must still fail grove_net_create at once with a message that
 * says why its status is unknown, not at the start-up deadline. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "helper_common.h"

static void
reap_all(int sig)
{
	(void)sig;
	int saved = errno;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

static void
run_and_destroy(const char *how)
{
	it_step("--- %s: a network works and goes away", how);
	grove_net *net = it_net_spawn("kary:2", 4);
	it_check_rank_sum(net);
	it_net_destroy(net);
}

static void
backend_dies_at_start(const char *how)
{
	it_step("--- %s: a back-end that exits at once", how);
	grove_net_opts o;
	it_net_opts(&o, "flat", 2);
	o.be_exe = "/bin/false";
	/* Long: the failure must come from the exit, not the deadline. */
	o.timeout_ms = 60000;
	grove_net *net = NULL;
	uint64_t t0 = it_now_ms();
	int rc = grove_net_create(&o, &net);
	const char *e = grove_net_last_error(net);
	it_step("%s after %llu ms: %s", grove_err_name(rc),
	    (unsigned long long)(it_now_ms() - t0), e);
	CHECK(rc != 0);
	CHECK_STR_CONTAINS(e, "before connecting");
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
}

int
main(void)
{
	it_init("it_sigchld", 120);
	struct sigaction ign = {.sa_handler = SIG_IGN}, reap = {0}, dfl = {0};
	reap.sa_handler = reap_all;
	reap.sa_flags = SA_RESTART;
	sigemptyset(&reap.sa_mask);
	dfl.sa_handler = SIG_DFL;

	CHECK(sigaction(SIGCHLD, &ign, NULL) == 0);
	run_and_destroy("SIGCHLD ignored");
	backend_dies_at_start("SIGCHLD ignored");

	CHECK(sigaction(SIGCHLD, &reap, NULL) == 0);
	run_and_destroy("a handler reaps every child");
	backend_dies_at_start("a handler reaps every child");

	CHECK(sigaction(SIGCHLD, &dfl, NULL) == 0);
	return it_done();
}
