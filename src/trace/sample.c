/* A small synthetic traced "network" for trying exporters and viewers
 * (grove trace sample) and for tests: real processes (fe 0, cp 0, be
 * 0..n-1) connected by pipes like a two-level tree, each recording API
 * calls, link sends/receives, filter runs and waves into its own event
 * space, which it keeps at exit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grove/error.h"
#include "trace/space.h"
#include "trace/trace_impl.h"

enum { WAVES = 20 };

/* The exit status of a process of the sample whose event space could not
 * be made: it said why on stderr (init_space), and its parent tells that
 * apart from a process that failed to start or died. */
enum { EXIT_NO_SPACE = 3 };

/* grove_trace_init for one process of the sample; on failure says why
 * (an event space that is taken was named by grove_trace_init itself,
 * whatever GROVE_LOG is; the rest only with GROVE_LOG) and returns -1. */
static int
init_space(const char *net, const char *role, uint32_t rank)
{
	int rc = grove_trace_init(net, role, rank);
	if (rc == GROVE_ESYS) {
		int e = errno;
		char name[128];
		trace_segment_name(name, sizeof name, net, role, rank);
		fprintf(stderr, "grove trace sample: cannot create event space "
		        "/dev/shm/%s: %s\n", name, strerror(e));
	}
	/* Made for a reader that comes later: not a leftover that the next
	 * network's creation may remove (trace/leftover.h). */
	if (rc == 0)
		trace_space_keep();
	return rc ? -1 : 0;
}

static void
spin_ns(long ns)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) <
	       ns);
}

static int
xwrite(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int
xread(int fd, void *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

/* node ids: fe 0, cp 1, be i -> 2 + i */
static int
run_be(const char *net, int i, int out)
{
	grove_trace_collector api, snd;
	char where[32];
	if (init_space(net, "be", (uint32_t)i))
		return EXIT_NO_SPACE;
	snprintf(where, sizeof where, "link:%d->1", 2 + i);
	grove_trace_collector_register(&api, "grove_be_send", "api", "",
	                               "enter..exit");
	grove_trace_collector_register(&snd, "send", "net", where,
	                               "around:write");
	for (int w = 0; w < WAVES; w++) {
		spin_ns(20000 + 15000 * i + (w % 3) * 5000); /* "compute" */
		uint64_t a0 = grove_trace_begin();
		int64_t v = (int64_t)w * 10 + i;
		uint64_t s0 = grove_trace_begin();
		int rc = xwrite(out, &v, sizeof v);
		grove_trace_end(&snd, GROVE_OP_SEND, rc ? -1 : (int)sizeof v,
		                s0);
		grove_trace_end(&api, GROVE_OP_API_SEND, (int)sizeof v, a0);
	}
	grove_trace_fini(1);
	return 0;
}

static int
run_cp(const char *net, int nbe, const int *in, int out)
{
	grove_trace_collector *rcv = calloc((size_t)nbe, sizeof *rcv);
	grove_trace_collector sync, xf, wave, last, snd;
	char where[32];
	if (!rcv)
		return 1;
	if (init_space(net, "cp", 0)) {
		free(rcv);
		return EXIT_NO_SPACE;
	}
	for (int i = 0; i < nbe; i++) {
		snprintf(where, sizeof where, "link:%d->1", 2 + i);
		grove_trace_collector_register(&rcv[i], "recv", "net", where,
		                               "around:read");
	}
	grove_trace_collector_register(&sync, "wait_for_all", "filter",
	                               "stream:1", "before:sync");
	grove_trace_collector_register(&xf, "sum", "filter", "stream:1",
	                               "after:sync");
	grove_trace_collector_register(&wave, "wave", "tbon", "stream:1",
	                               "after:transform");
	/* As a real CP marks the back-end that completed each wave. */
	grove_trace_collector_register(&last, "wave.last_be", "tbon",
	                               "stream:1", "before:sync");
	grove_trace_collector_register(&snd, "send", "net", "link:1->0",
	                               "around:write");
	for (int w = 0; w < WAVES; w++) {
		int64_t sum = 0, v;
		uint64_t ws = grove_trace_begin();
		for (int i = 0; i < nbe; i++) {
			uint64_t r0 = grove_trace_begin();
			int rc = xread(in[i], &v, sizeof v);
			grove_trace_end(&rcv[i], GROVE_OP_RECV,
			                rc ? -1 : (int)sizeof v, r0);
			uint64_t f0 = grove_trace_begin();
			grove_trace_end(&sync, GROVE_OP_FILTER_SYNC, i + 1, f0);
			sum += v;
		}
		grove_trace_instant(&last, GROVE_OP_WAVE, nbe - 1);
		uint64_t x0 = grove_trace_begin();
		spin_ns(3000);
		grove_trace_end(&xf, GROVE_OP_FILTER_TRANSFORM, nbe, x0);
		grove_trace_end(&wave, GROVE_OP_WAVE, nbe, ws);
		uint64_t s0 = grove_trace_begin();
		int rc = xwrite(out, &sum, sizeof sum);
		grove_trace_end(&snd, GROVE_OP_SEND, rc ? -1 : (int)sizeof sum,
		                s0);
	}
	free(rcv);
	grove_trace_fini(1);
	return 0;
}

static int
run_fe(const char *net, int in)
{
	grove_trace_collector api, rcv, wave;
	if (init_space(net, "fe", 0))
		return EXIT_NO_SPACE;
	grove_trace_collector_register(&api, "grove_fe_recv", "api", "",
	                               "enter..exit");
	grove_trace_collector_register(&rcv, "recv", "net", "link:1->0",
	                               "around:read");
	grove_trace_collector_register(&wave, "wave", "tbon", "stream:1",
	                               "after:transform");
	for (int w = 0; w < WAVES; w++) {
		int64_t v;
		uint64_t a0 = grove_trace_begin();
		uint64_t r0 = grove_trace_begin();
		int rc = xread(in, &v, sizeof v);
		grove_trace_end(&rcv, GROVE_OP_RECV, rc ? -1 : (int)sizeof v,
		                r0);
		grove_trace_instant(&wave, GROVE_OP_WAVE, 1);
		grove_trace_end(&api, GROVE_OP_API_RECV, (int)sizeof v, a0);
		spin_ns(10000);
	}
	grove_trace_fini(1);
	return 0;
}

static void
close_pipes(int up[2], int down[][2], int n)
{
	close(up[0]);
	close(up[1]);
	for (int i = 0; i < n; i++) {
		close(down[i][0]);
		close(down[i][1]);
	}
}

/* In the child playing `who` (-2 the FE, -1 the CP, else BE who): close
 * every pipe end it does not use. */
static void
keep_ends(int who, int up[2], int down[][2], int n)
{
	if (who != -2)
		close(up[0]);
	if (who != -1)
		close(up[1]);
	for (int i = 0; i < n; i++) {
		if (who != -1)
			close(down[i][0]);
		if (who != i)
			close(down[i][1]);
	}
}

int
trace_write_sample(const char *network_id, int n_be, char *err,
    size_t errlen)
{
	if (errlen)
		err[0] = 0;
	if (n_be < 1 || n_be > 32)
		return GROVE_ERANGE;
	char name[128];
	if (trace_segment_name(name, sizeof name, network_id, "fe", 0))
		return GROVE_EINVAL;
	int up[2], down[32][2];
	pid_t pids[34];
	int np = 0, rc = 0;
	if (pipe(up)) {
		snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
		return GROVE_ESYS;
	}
	for (int i = 0; i < n_be; i++)
		if (pipe(down[i])) {
			snprintf(err, errlen, "cannot make a pipe: %s",
			    strerror(errno));
			close_pipes(up, down, i);
			return GROVE_ESYS;
		}
	fflush(NULL);
	for (int who = -2; who < n_be; who++) {
		pid_t p = fork();
		if (p < 0) {
			snprintf(err, errlen, "cannot start a process: %s",
			    strerror(errno));
			rc = GROVE_ESYS;
			break;
		}
		if (p == 0) {
			int in[32], r;
			/* Dies with the caller: none is left reading a pipe. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (int i = 0; i < n_be; i++)
				in[i] = down[i][0];
			/* Only the ends this process uses stay open: a reader
			 * must see EOF when its writer dies (a child whose init
			 * failed), not wait on a copy of the write end it holds
			 * itself. */
			keep_ends(who, up, down, n_be);
			if (who == -2)
				r = run_fe(network_id, up[0]);
			else if (who == -1)
				r = run_cp(network_id, n_be, in, up[1]);
			else
				r = run_be(network_id, who, down[who][1]);
			_exit(r);
		}
		pids[np++] = p;
	}
	close_pipes(up, down, n_be);
	/* Per process: 1 when its event space is not its own (it could not
	 * make one), so that a failed sample removes only what it made. */
	int no_space[34] = {0};
	for (int i = 0; i < np; i++) {
		int st;
		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_NO_SPACE) {
			no_space[i] = 1;
			rc = GROVE_ESYS;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			rc = rc ? rc : GROVE_ESPAWN;
		}
	}
	/* Half a sample is no sample: the event spaces the others made go,
	 * or a full /dev/shm stays full of them. */
	for (int i = 0; rc && i < np; i++) {
		int who = i - 2; /* pids[] follow `who` from -2 */
		if (no_space[i] || trace_segment_name(name, sizeof name,
		    network_id, who == -2 ? "fe" : who == -1 ? "cp" : "be",
		    who < 0 ? 0 : (uint32_t)who))
			continue;
		shm_unlink(name);
	}
	return rc;
}
