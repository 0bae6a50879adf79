/* A back-end lost after it reported ready but before its siblings did:
 * grove_net_create fails at once with GROVE_ESPAWN, and the error names
 * the lost back-end ("node N (be rank R on host) lost during startup"),
 * as for a child lost before it was ready.  The node waits for every
 * child to be ready, so it must not wait for the lost one until the
 * create timeout and then blame a subtree that "is not ready".
 *
 *   flat          the FE's own child is lost.
 *   kary:2        a leaf CP's child is lost while that CP is still
 *                 waiting for its other child.
 *   one per CP    the lost back-end is its CP's only child: that CP has
 *                 reported its subtree ready and reports the loss as a
 *                 lost node; the FE, still waiting for the other CP,
 *                 fails the create all the same.
 *
 * The back-ends are this program, started by Grove with "--lost-be PREFIX"
 * (a path prefix for the files they meet at):
 * the first to start joins the network and exits at once; the others wait
 * until it has exited, then join and serve until the network closes.
 * Nothing here depends on timing: the other back-ends are slow because
 * they wait for that exit, and the create timeout is far longer than the
 * test needs (the failure is about the reason and the wait, not speed).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"

/* Only a create that waits for its timeout comes near it. */
#define CREATE_TIMEOUT_MS 60000

/* ---- the back-end ------------------------------------------------------ */

/* The pid the first back-end wrote to PREFIX-joined once it had joined. */
static pid_t
wait_first_joined(const char *path)
{
	for (;;) {
		FILE *f = fopen(path, "r");
		int pid = 0;
		if (f) {
			int got = fscanf(f, "%d", &pid);
			fclose(f);
			if (got == 1 && pid > 0)
				return (pid_t)pid;
		}
		usleep(10000);
	}
}

static int
lost_be_main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	char first[4096], joined[4096], tmp[4096];
	snprintf(first, sizeof first, "%s-first", argv[2]);
	snprintf(joined, sizeof joined, "%s-joined", argv[2]);
	snprintf(tmp, sizeof tmp, "%s-joined.tmp", argv[2]);
	int fd = open(first, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	int is_first = fd >= 0;
	if (fd >= 0)
		close(fd);
	else {
		/* Join only once the first one has joined and exited. */
		pid_t p = wait_first_joined(joined);
		while (it_alive(p))
			usleep(10000);
	}
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "lost-be: grove_be_init: %s\n", grove_err_name(rc));
		return 1;
	}
	if (is_first) {
		FILE *f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
			rename(tmp, joined);
		}
		fprintf(stderr, "lost-be: rank %u exits right after joining\n",
		    grove_be_rank(be));
		_exit(0);
	}
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		if (grove_be_recv(be, &stream, &tag, &p, -1) != 0)
			break;
		grove_packet_unref(p);
	}
	grove_be_destroy(be);
	return 0;
}

/* ---- the front-end ----------------------------------------------------- */

static void
lost_case(const char *what, const char *topo, const char *topo_file,
    uint32_t nbe)
{
	static unsigned seq;
	char prefix[4096], exe[4096];
	snprintf(prefix, sizeof prefix, "%s/lost-%u", it_tmpdir(), seq++);
	char *be_argv[] = {"it_launch_lost", "--lost-be", prefix, NULL};
	it_step("--- %s: %u back-ends, the first lost right after joining",
	    what, nbe);
	grove_net_opts o;
	it_net_opts(&o, topo, nbe);
	o.topology_file = topo_file;
	o.be_exe = it_build_path("it_launch_lost", exe, sizeof exe);
	o.be_argv = be_argv;
	o.timeout_ms = CREATE_TIMEOUT_MS;
	grove_net *net = NULL;
	uint64_t t0 = it_now_ms();
	int rc = grove_net_create(&o, &net);
	uint64_t took = it_now_ms() - t0;
	CHECK(net != NULL);
	it_note_network(grove_net_id(net));
	const char *e = grove_net_last_error(net);
	it_step("%s after %llu ms: %s", grove_err_name(rc),
	    (unsigned long long)took, e);
	CHECK_RC_NET(net, rc, GROVE_ESPAWN);
	CHECK_STR_CONTAINS(e, "(be rank ");
	CHECK_STR_CONTAINS(e, "lost during startup");
	/* Not a speed limit: a create that waited for its deadline has not
	 * seen the loss at all. */
	if (took >= CREATE_TIMEOUT_MS / 2)
		IT_FAIL("create waited %llu ms of its %d ms timeout for a lost "
		    "back-end", (unsigned long long)took, CREATE_TIMEOUT_MS);
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 10000);
	it_step("destroyed, no process left");
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--lost-be"))
		return lost_be_main(argc, argv);
	it_init("it_launch_lost", 240);
	lost_case("flat", "flat", NULL, 4);
	lost_case("kary:2", "kary:2", NULL, 8);
	/* Each CP has one back-end: whichever is lost, its CP was ready. */
	char top[4096];
	snprintf(top, sizeof top, "%s/one-per-cp.top", it_tmpdir());
	FILE *f = fopen(top, "w");
	CHECK(f != NULL);
	fputs("localhost:0 => localhost:1 localhost:2 ;\n"
	    "localhost:1 => localhost:3 ;\n"
	    "localhost:2 => localhost:4 ;\n", f);
	fclose(f);
	lost_case("one back-end per CP", NULL, top, 2);
	return it_done();
}
