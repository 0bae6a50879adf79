/* A tool that ignores SIGCHLD, or whose handler reaps every child, takes
 * the exit status of Grove's children before Grove can: waitpid() then
 * fails with ECHILD.  The network must still work, shut down without
 * waiting for children that are gone (and without killing their pids,
 * which may belong to other processes by then), and a back-end that dies
 * at start must still fail grove_net_create at once with a message that
 * says why its status is unknown, not at the start-up deadline.
 *
 * Last, a tool whose signals interrupt system calls (no SA_RESTART)
 * while destroy has to kill children that do not leave: every one must
 * still be reaped, none left a zombie. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

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

static void
count_signal(int sig)
{
	(void)sig;
}

struct pester {
	pthread_t target, thread;
	atomic_int stop;
};

/* Interrupts the main thread every 50 us. */
static void *
pester_main(void *arg)
{
	struct pester *p = arg;
	struct timespec ms = {0, 50000};
	while (!atomic_load(&p->stop)) {
		pthread_kill(p->target, SIGUSR1);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void
destroy_kills_under_signals(void)
{
	it_step("--- destroy kills stopped children while signals interrupt it");
	struct sigaction sa = {0}, old;
	sa.sa_handler = count_signal; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, &old) == 0);
	grove_net *net = it_net_spawn("flat", 3);
	it_check_rank_sum(net);
	pid_t kids[8];
	size_t n = it_descendants(kids, 8, NULL);
	CHECK(n == 3);
	for (size_t i = 0; i < n; i++)
		CHECK(kill(kids[i], SIGSTOP) == 0); /* they cannot leave */
	struct pester p = {.target = pthread_self()};
	CHECK(pthread_create(&p.thread, NULL, pester_main, &p) == 0);
	grove_net_destroy(net);
	atomic_store(&p.stop, 1);
	pthread_join(p.thread, NULL);
	CHECK(sigaction(SIGUSR1, &old, NULL) == 0);
	/* Nothing left to reap: no zombie, no live child. */
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
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
	destroy_kills_under_signals();
	return it_done();
}
