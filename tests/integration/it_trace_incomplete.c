/* The front-end's exit-time collection (GROVE_TRACE_DUMP) says, on one
 * line of stderr whatever GROVE_LOG is, which processes of the topology
 * have no event space and how many threads found no ring: processes
 * whose /dev/shm was full, read-only or above their file size limit trace
 * nothing, and only GROVE_LOG=warn says so there.  Here those processes
 * are played by removing the names of some segments of a running network
 * (their writers go on into files nobody can find), and threads without
 * a ring by more threads in the front-end than it has rings.  The trace
 * itself says it too: the text header of the process whose threads found
 * no ring.  A whole trace gets no such line, and a back-end running in
 * the front-end's process (its events are in the front-end's space) is
 * not named.  A process lost during the run (a killed CP and the
 * back-ends below it) is named as lost, apart from those whose tracing
 * was off.
 */
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "trace/space.h"

/* Threads started one after another, each recording one tuple: rings
 * of exited threads are not reused, so past TRACE_MAX_RINGS the rest
 * find none. */
#define EXTRA_THREADS (TRACE_MAX_RINGS + 6)

static grove_trace_collector user;

static void *
record_one(void *arg)
{
	(void)arg;
	grove_trace_instant(&user, GROVE_OP_USER, 1);
	return NULL;
}

/* Destroys net with stderr in `path`, then restores stderr. */
static void
destroy_capturing(grove_net *net, const char *path)
{
	fflush(stderr);
	int saved = dup(2);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(saved >= 0 && fd >= 0);
	CHECK(dup2(fd, 2) == 2);
	close(fd);
	it_net_destroy(net);
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
}

static void
unlink_segment(const char *net, const char *role, unsigned rank)
{
	char name[160];
	snprintf(name, sizeof name, "/grove.%s.%s.%u", net, role, rank);
	CHECK_INT_EQ(shm_unlink(name), 0);
}

/* As unlink_segment, for a process that may have removed its own. */
static void
unlink_if_there(const char *net, const char *role, unsigned rank)
{
	char name[160];
	snprintf(name, sizeof name, "/grove.%s.%s.%u", net, role, rank);
	CHECK(shm_unlink(name) == 0 || errno == ENOENT);
}

/* A CP killed while the network runs: its event space and those of the
 * back-ends below it are not on the front-end's host (as when they run
 * on another one, where the kill leaves them: here their names are
 * removed), and the line names them as lost during the run, not as
 * processes whose tracing was off.  A surviving back-end whose space is
 * gone is still named as such. */
static void
lost_cp(void)
{
	it_step("--- a CP killed during the run");
	char dump[4096], err[4096], id[64];
	snprintf(dump, sizeof dump, "%s/lost.txt", it_tmpdir());
	snprintf(err, sizeof err, "%s/lost.err", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", dump, 1);
	setenv("GROVE_TRACE_FORMAT", "text", 1);
	unsetenv("GROVE_LOG");
	/* kary:2 over 4: fe 0, cp 1 (be 0-1), cp 4 (be 2-3).  Without
	 * re-parenting, the CP's back-ends go with it. */
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 4);
	o.reparent_ms = -1;
	grove_net *net = it_net_create(&o);
	snprintf(id, sizeof id, "%s", grove_net_id(net));
	it_check_rank_sum(net);
	pid_t cps[8], bes[8];
	CHECK_UINT_EQ(it_descendants(cps, 8, "grove-commnode"), 2);
	size_t nbes = it_descendants_of(cps[0], bes, 8, "be_worker");
	CHECK_UINT_EQ(nbes, 2);
	CHECK_OK(kill(cps[0], SIGKILL));
	grove_event ev;
	uint64_t end = it_now_ms() + 30000;
	do {
		int64_t left = (int64_t)(end - it_now_ms());
		if (left <= 0)
			IT_FAIL("no GROVE_EV_LOST for the killed CP");
		int rc = grove_net_next_event(net, &ev, (int)left);
		if (rc == GROVE_ETIMEDOUT)
			continue;
		CHECK_OK_NET(net, rc);
	} while (ev.type != GROVE_EV_LOST);
	it_step("lost: %s", ev.text);
	CHECK(ev.node == 1 || ev.node == 4);
	CHECK_UINT_EQ(it_wait_gone(bes, nbes, 10000), 0);
	unsigned lo = ev.node == 1 ? 0 : 2;
	unsigned other = ev.node == 1 ? 3 : 0; /* a back-end that lives */
	unlink_if_there(id, "cp", ev.node);
	unlink_if_there(id, "be", lo);
	unlink_if_there(id, "be", lo + 1);
	unlink_segment(id, "be", other);
	destroy_capturing(net, err);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_FORMAT");

	char *e = it_slurp(err);
	it_step("stderr: %s", e);
	char want[256];
	snprintf(want, sizeof want, "grove: the trace of network %s is "
	    "incomplete: no event space of be %u (their tracing was off", id,
	    other);
	CHECK_STR_CONTAINS(e, want);
	snprintf(want, sizeof want, "; lost during the run: cp %u; be %u-%u\n",
	    ev.node, lo, lo + 1);
	CHECK_STR_CONTAINS(e, want);
	free(e);
}

static void
incomplete(void)
{
	it_step("--- cp 4, be 1 and be 2 without event space; %u threads",
	    EXTRA_THREADS);
	char dump[4096], err[4096], id[64];
	snprintf(dump, sizeof dump, "%s/incomplete.txt", it_tmpdir());
	snprintf(err, sizeof err, "%s/incomplete.err", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", dump, 1);
	setenv("GROVE_TRACE_FORMAT", "text", 1);
	unsetenv("GROVE_LOG");
	/* kary:2 over 4: fe 0, cp 1 (be 0-1), cp 4 (be 2-3).  Without
	 * re-parenting, the CP's back-ends go with it. */
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 4);
	o.reparent_ms = -1;
	grove_net *net = it_net_create(&o);
	snprintf(id, sizeof id, "%s", grove_net_id(net));
	it_check_rank_sum(net);
	unlink_segment(id, "cp", 4);
	unlink_segment(id, "be", 1);
	unlink_segment(id, "be", 2);
	CHECK_OK(grove_trace_user_register(&user, "it_extra_thread"));
	for (unsigned i = 0; i < EXTRA_THREADS; i++) {
		pthread_t t;
		CHECK(pthread_create(&t, NULL, record_one, NULL) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
	destroy_capturing(net, err);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_FORMAT");

	char *e = it_slurp(err);
	it_step("stderr: %s", e);
	char want[256];
	snprintf(want, sizeof want, "grove: the trace of network %s is "
	    "incomplete: no event space of cp 4; be 1-2 (", id);
	CHECK_STR_CONTAINS(e, want);
	/* How many threads found no ring: at least the ones past the last
	 * ring; the same number in the trace's header of fe 0. */
	unsigned without = 0;
	for (const char *p = e; (p = strstr(p, "; ")); p++)
		if (sscanf(p, "; %u thread(s) found no ring", &without) == 1)
			break;
	CHECK(without >= EXTRA_THREADS - TRACE_MAX_RINGS);
	CHECK(strchr(e, '\n') == e + strlen(e) - 1); /* one line */
	free(e);
	char *d = it_slurp(dump);
	snprintf(want, sizeof want, ", %u thread(s) found no ring\n",
	    without);
	const char *fe = strstr(d, "# fe 0: pid ");
	CHECK(fe != NULL);
	CHECK(strstr(fe, want) != NULL && strstr(fe, want) < strchr(fe, '\n') + 1);
	CHECK(strstr(d, "# be 0: pid ") != NULL);
	CHECK(strstr(d, "# be 1: pid ") == NULL);
	free(d);
}

/* A back-end attached from a thread of the front-end's process: it
 * records into the front-end's event space, and is not missing. */
static void *
be_thread(void *arg)
{
	const char *path = arg;
	grove_be *be = NULL;
	int rc = grove_be_attach(path, 0, &be);
	if (rc != 0) {
		fprintf(stderr, "be 0: %s\n", be ? grove_be_last_error(be) : "");
		grove_be_destroy(be);
		return (void *)1;
	}
	uint32_t stream;
	int32_t tag;
	grove_packet *p;
	while (grove_be_recv(be, &stream, &tag, &p, -1) == 0)
		grove_packet_unref(p);
	grove_be_destroy(be);
	return NULL;
}

/* The tool opened its own event space first, so that it stays open
 * until the tool's fini whatever order the front-end and the back-end
 * thread leave in: both record into it. */
static void
in_process_backend(void)
{
	it_step("--- be 0 in the front-end's process, be 1 in its own");
	char dump[4096], err[4096], path[4096], tool[64];
	snprintf(dump, sizeof dump, "%s/joined.json", it_tmpdir());
	snprintf(err, sizeof err, "%s/joined.err", it_tmpdir());
	snprintf(path, sizeof path, "%s/joined.conn", it_tmpdir());
	snprintf(tool, sizeof tool, "itinc%d", (int)getpid());
	it_note_network(tool);
	CHECK_OK(grove_trace_init(tool, "tool", 0));
	setenv("GROVE_TRACE_DUMP", dump, 1);
	/* Attach-mode back-ends keep their event space for the front-end
	 * only with GROVE_TRACE_KEEP. */
	setenv("GROVE_TRACE_KEEP", "1", 1);
	grove_net_opts o;
	it_attach_opts(&o, "flat", 2, path);
	grove_net *net = it_net_create(&o);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, be_thread, path) == 0);
	pid_t other = it_start_attached_be(path, 1);
	CHECK(other > 0);
	CHECK_OK_NET(net, grove_net_wait_backends(net, 2, IT_RECV_MS));
	/* Also checks that be 1 is gone (it_net_destroy). */
	destroy_capturing(net, err);
	void *ret;
	CHECK(pthread_join(t, &ret) == 0);
	CHECK(ret == NULL);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_KEEP");
	grove_trace_fini(0);
	char *e = it_slurp(err);
	it_step("stderr: %s", e);
	CHECK(strstr(e, "incomplete") == NULL);
	free(e);
	char *d = it_slurp(dump);
	CHECK(strstr(d, "\"be 1\"") != NULL);
	free(d);
}

static void
whole(void)
{
	it_step("--- a whole trace");
	char dump[4096], err[4096];
	snprintf(dump, sizeof dump, "%s/whole.json", it_tmpdir());
	snprintf(err, sizeof err, "%s/whole.err", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", dump, 1);
	grove_net *net = it_net_spawn("kary:2", 4);
	it_check_rank_sum(net);
	destroy_capturing(net, err);
	unsetenv("GROVE_TRACE_DUMP");
	char *e = it_slurp(err);
	CHECK(strstr(e, "incomplete") == NULL);
	free(e);
}

int
main(void)
{
	it_init("it_trace_incomplete", 0);
	whole();
	incomplete();
	lost_cp();
	in_process_backend();
	return it_done();
}
