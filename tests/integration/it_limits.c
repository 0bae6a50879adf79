/* A front-end with more children than it may open descriptors fails at
 * once with a message that says so, instead of losing back-ends one by
 * one during startup. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"

int
main(void)
{
	it_init("it_limits", 60);
	it_step("--- flat tree of 100 under an open-file limit of 64");
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {64, 64};
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(3);
		grove_net_opts o;
		it_net_opts(&o, "flat", 100);
		grove_net *net = NULL;
		int rc = grove_net_create(&o, &net);
		const char *e = grove_net_last_error(net);
		fprintf(stderr, "create: %s: %s\n", grove_err_name(rc), e);
		int ok = rc != 0 && strstr(e, "open-file limit") != NULL;
		grove_net_destroy(net);
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_INT_EQ(WEXITSTATUS(st), 0);
	it_check_no_procs(NULL, 0, 5000);
	return it_done();
}
