/* The link between a node and a child it starts on its own host, as
 * grove_net_opts.local_link chooses it: two pipes, or the node's Unix
 * socket.  Seen from outside, in the descriptor tables of the back-ends of
 * a kary:2 tree (so both the FE's and a CP's children are looked at), and
 * used: a reduction gives the right sum over either.  The option wins over
 * $GROVE_LOCAL_LINK, which picks the transport when the option is left at
 * its default.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_common.h"

#define BACKENDS 4

/* Sockets and pipes in pid's descriptor table. */
static void
count_fds(pid_t pid, int *sockets, int *pipes)
{
	char dir[64], path[320], target[128];
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	*sockets = *pipes = 0;
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		*sockets += !strncmp(target, "socket:", 7);
		*pipes += !strncmp(target, "pipe:", 5);
	}
	closedir(d);
}

/* Starts kary:2 over BACKENDS back-ends with the given option, checks
 * that every back-end holds want_sockets sockets (1: its link; 0: its
 * link is pipes) and that a sum over the tree is right. */
static void
check(grove_local_link opt, int want_sockets)
{
	grove_net_opts o;
	it_net_opts(&o, "kary:2", BACKENDS);
	o.local_link = opt;
	grove_net *net = it_net_create(&o);
	pid_t pids[64];
	size_t n = it_descendants(pids, 64, "be_worker");
	CHECK_UINT_EQ(n, BACKENDS);
	for (size_t i = 0; i < n; i++) {
		int sockets, pipes;
		count_fds(pids[i], &sockets, &pipes);
		if (sockets != want_sockets)
			IT_FAIL("back-end pid %d holds %d sockets, wanted %d",
			    (int)pids[i], sockets, want_sockets);
		/* Its link's two pipes besides the event loop's own. */
		if (!want_sockets)
			CHECK(pipes >= 2);
	}
	it_check_rank_sum(net);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_local_links", 0);
	unsetenv("GROVE_LOCAL_LINK");
	it_step("default: pipes");
	check(GROVE_LOCAL_LINK_DEFAULT, 0);
	it_step("option: sockets");
	check(GROVE_LOCAL_LINK_SOCKET, 1);
	setenv("GROVE_LOCAL_LINK", "socket", 1);
	it_step("default under GROVE_LOCAL_LINK=socket: sockets");
	check(GROVE_LOCAL_LINK_DEFAULT, 1);
	it_step("option pipes wins over GROVE_LOCAL_LINK=socket");
	check(GROVE_LOCAL_LINK_PIPE, 0);
	unsetenv("GROVE_LOCAL_LINK");
	return it_done();
}
