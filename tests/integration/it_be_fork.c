/* A back-end that forks: the child destroys its copy of the back-end
 * handle and exits, and the parent back-end must go on answering.  The
 * child shares the parent's descriptors, among them the epoll instance of
 * the handle's libuv loop and the eventfd of grove_be_fd(): a destroy
 * that closed the link through the shared loop took the parent's link
 * out of the parent's epoll set, and the parent never woke for the
 * front-end's traffic again.
 *
 * The back-ends are this program, started by Grove with
 * "--fork-be MODE": "block" receives with grove_be_recv and no time
 * limit, "poll" polls grove_be_fd() and receives without blocking.  On
 * TAG_FORK each forks a child that calls grove_be_destroy and exits,
 * waits for it, and answers with a problem count: the child's exit
 * status, plus 100 when grove_be_fd() (poll mode) became readable while
 * nothing had arrived (the child wrote to the shared eventfd).  Nothing
 * here depends on timing: the front-end sends nothing while the
 * back-ends fork, and heartbeats are far apart.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"

enum {
	TAG_RANK = 1,  /* "" -> "%d" rank */
	TAG_FORK = 2,  /* "" -> "%d" problems seen around the fork (0) */
};

/* Far beyond the test's length: no heartbeat reaches a back-end while it
 * checks that its descriptor is quiet. */
#define HEARTBEAT_MS 600000

/* ---- the back-end ------------------------------------------------------ */

static int
fork_and_destroy(grove_be *be, int fd)
{
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		/* exit, not _exit: under the sanitizers the child's leak check
		 * runs then, and a leak shows in its exit status. */
		grove_be_destroy(be);
		exit(0);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	int problems = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	if (fd >= 0) {
		/* The request was taken and nothing else was sent: a ready
		 * descriptor means the child signalled the parent's eventfd. */
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, 0) != 0)
			problems += 100;
	}
	return problems;
}

static int
be_answer(grove_be *be, int fd, uint32_t stream, int32_t tag)
{
	switch (tag) {
	case TAG_RANK:
		return grove_be_send(be, stream, tag, "%d",
		    (int)grove_be_rank(be));
	case TAG_FORK:
		return grove_be_send(be, stream, tag, "%d",
		    fork_and_destroy(be, fd));
	default:
		return GROVE_EINVAL;
	}
}

static int
fork_be_main(int argc, char **argv)
{
	int poll_mode = argc > 2 && !strcmp(argv[2], "poll");
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "fork-be: grove_be_init: %s\n", grove_err_name(rc));
		return 2;
	}
	int fd = poll_mode ? grove_be_fd(be) : -1;
	if (poll_mode && fd < 0)
		return 3;
	for (;;) {
		if (poll_mode) {
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			if (poll(&pf, 1, -1) <= 0)
				continue;
		}
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		rc = grove_be_recv(be, &stream, &tag, &p, poll_mode ? 0 : -1);
		if (rc == GROVE_EAGAIN)
			continue;
		if (rc != 0)
			break;
		grove_packet_unref(p);
		int a = be_answer(be, fd, stream, tag);
		if (a < 0) {
			fprintf(stderr, "fork-be %u: answering tag %d: %s\n",
			    grove_be_rank(be), tag, grove_err_name(a));
			return 4;
		}
	}
	grove_be_destroy(be);
	return rc == GROVE_ECLOSED ? 0 : 5;
}

/* ---- the front-end ----------------------------------------------------- */

static void
fork_case(const char *topo, uint32_t n, grove_local_link link,
    const char *mode)
{
	it_step("--- %s, %u back-ends, %s links, %s back-ends fork", topo, n,
	    link == GROVE_LOCAL_LINK_SOCKET ? "socket" : "pipe", mode);
	char exe[4096];
	char *argv[] = {"it_be_fork", "--fork-be", (char *)mode, NULL};
	grove_net_opts o;
	it_net_opts(&o, topo, n);
	o.be_exe = it_build_path("it_be_fork", exe, sizeof exe);
	o.be_argv = argv;
	o.local_link = link;
	o.heartbeat_ms = HEARTBEAT_MS;
	grove_net *net = it_net_create(&o);
	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	int32_t ranks = (int32_t)((int64_t)n * (n - 1) / 2);

	CHECK_OK_NET(net, grove_stream_send(sum, TAG_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, sum, TAG_RANK), ranks);
	CHECK_OK_NET(net, grove_stream_send(sum, TAG_FORK, ""));
	CHECK_INT_EQ(it_recv_int(net, sum, TAG_FORK), 0);
	it_step("every child destroyed its copy and exited");
	/* The parents must still hear the front-end, more than once. */
	for (int round = 0; round < 3; round++) {
		CHECK_OK_NET(net, grove_stream_send(sum, TAG_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, sum, TAG_RANK), ranks);
	}
	it_step("the parents answer three waves after the fork");
	grove_event ev;
	CHECK_RC_NET(net, grove_net_next_event(net, &ev, 0), GROVE_EAGAIN);
	CHECK_UINT_EQ(grove_net_backends_up(net), n);
	CHECK_OK_NET(net, grove_stream_destroy(sum));
	it_net_destroy(net);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--fork-be"))
		return fork_be_main(argc, argv);
	it_init("it_be_fork", 240);
	fork_case("flat", 2, GROVE_LOCAL_LINK_PIPE, "block");
	fork_case("kary:2", 4, GROVE_LOCAL_LINK_SOCKET, "block");
	fork_case("flat", 2, GROVE_LOCAL_LINK_PIPE, "poll");
	fork_case("kary:2", 4, GROVE_LOCAL_LINK_SOCKET, "poll");
	return it_done();
}
