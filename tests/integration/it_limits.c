/* A front-end with more children than it may open descriptors fails at
 * once with a message that says so, instead of losing back-ends one by
 * one during startup.  So does a CP with too many children, whose own
 * start-up fails after it joined its parent: its reason reaches the
 * front-end's error (its stderr could be on another host), not only a
 * closed link. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"

/* In a child process (the limit cannot be raised again): creates the
 * network of `spec` over `backends` under an open-file limit of 64 and
 * exits 0 when the create fails with an error containing `want`. */
static void
create_under_limit(const char *spec, uint32_t backends, const char *want)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {64, 64};
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(3);
		grove_net_opts o;
		it_net_opts(&o, spec, backends);
		grove_net *net = NULL;
		int rc = grove_net_create(&o, &net);
		const char *e = grove_net_last_error(net);
		fprintf(stderr, "create: %s: %s\n", grove_err_name(rc), e);
		int ok = rc != 0 && strstr(e, want) != NULL;
		grove_net_destroy(net);
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_INT_EQ(WEXITSTATUS(st), 0);
	it_check_no_procs(NULL, 0, 5000);
}

int
main(void)
{
	it_init("it_limits", 60);
	it_step("--- flat tree of 100 under an open-file limit of 64");
	create_under_limit("flat", 100, "open-file limit");
	/* The front-end has one child and gets past its own check; the CP
	 * below it, with 100, fails in its start-up after it authenticated
	 * to the front-end. */
	it_step("--- a CP with 100 children under an open-file limit of 64");
	create_under_limit("levels:1x100", 100, "node 1 (cp for ranks 0..99 "
	    "on localhost): node 1 has 100 children but the open-file limit "
	    "is 64");
	return it_done();
}
