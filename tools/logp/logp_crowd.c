/* A ring of K processes per core passing one message around
 * (logp_crowd.h).  Each runs Grove's own connection layer on a libuv
 * loop over pipes (or Unix sockets), as the processes of a tree do: it
 * sleeps in its loop until its predecessor's frame is whole, then
 * forwards it.  None is
 * pinned: the scheduler spreads them over the cores as it does a tree's
 * processes, so a hop pays for waking a process on another core when the
 * scheduler puts it there. */
#define _GNU_SOURCE
#include "logp_crowd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "net/conn.h"

const uint32_t logp_crowd_K[LOGP_CROWD_N] = {2, 8, 32, 128};

/* Hops to time per ring: enough that a few slow wake-ups average out,
 * few enough for seconds in all (large messages cost ~1 ms a hop). */
#define CROWD_HOPS_SMALL 2000
#define CROWD_HOPS_LARGE 200
#define CROWD_LARGE (64 * 1024)
/* A ring that has not finished by then is stuck. */
#define CROWD_TIMEOUT_MS 120000

static uint64_t
proc_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One member of the ring: its event loop, the connection from its
 * predecessor and the one to its successor.  It forwards exactly
 * `quota` frames (an injector's own frame counts as one, so it keeps the
 * last one it receives): every member then receives exactly `quota`. */
typedef struct member {
	uv_loop_t loop;
	conn *in, *out;
	uint32_t i;
	int injector;
	int received, forwarded, quota, warm, report;
	int fwd_at_t0;
	uint64_t t0;
} member;

typedef struct crowd_report {
	uint64_t cpu_ns;
	uint64_t hops;
} crowd_report;

static void
report(member *mb)
{
	crowd_report r = {proc_cpu_ns() - mb->t0,
	    (uint64_t)(mb->forwarded - mb->fwd_at_t0)};
	if (write(mb->report, &r, sizeof r) != sizeof r)
		_exit(5);
}

/* A frame from the predecessor: on to the successor, as a CP forwards.
 * The first `warm` frames (page faults, first wake-ups, the tokens
 * spreading) are not timed. */
static void
on_frame(conn *c, grove_packet *p)
{
	member *mb = c->owner;
	mb->received++;
	if (mb->received == mb->warm) {
		mb->t0 = proc_cpu_ns();
		mb->fwd_at_t0 = mb->forwarded;
	}
	if (mb->forwarded < mb->quota) {
		if (!mb->out || conn_send(mb->out, p) != 0 || !mb->out ||
		    conn_flush(mb->out) != 0)
			_exit(4);
		mb->forwarded++;
	}
	/* Its loop goes on finishing the send; the driver stops it. */
	if (mb->received == mb->quota)
		report(mb);
}

/* A neighbour exited: the ring is done (or broken, and the driver
 * sees a report missing). */
static void
on_gone(conn *c, int err, const char *why)
{
	member *mb = c->owner;
	(void)err;
	(void)why;
	_exit(mb->received >= mb->quota ? 0 : 4);
}

static const conn_ops member_ops = {on_frame, on_gone, NULL};

static void
run_member(member *mb, int in, int out, size_t m)
{
	if (uv_loop_init(&mb->loop) != 0 ||
	    conn_open_fd(&mb->loop, in, &member_ops, mb, 0, &mb->in) != 0 ||
	    conn_open_fd(&mb->loop, out, &member_ops, mb, 0, &mb->out) != 0)
		_exit(3);
	mb->in->authed = mb->out->authed = 1; /* private links: any size */
	if (mb->injector) {
		uint8_t *b = calloc(m ? m : 1, 1);
		grove_packet *p = NULL;
		if (!b || wire_pack(&p, WIRE_T_DATA, 0, 1, 0, 0, "%auc", b,
		    (uint64_t)m) != 0 || conn_send(mb->out, p) != 0 ||
		    conn_flush(mb->out) != 0)
			_exit(3);
		mb->forwarded = 1;
		grove_packet_unref(p);
		free(b);
	}
	uv_run(&mb->loop, UV_RUN_DEFAULT);
	_exit(4);
}

int
logp_crowd_hop(uint32_t per_core, uint32_t cores, size_t m, int use_sockets,
    double *w_s,
    char *err, size_t errlen)
{
	uint64_t K64 = (uint64_t)per_core * (cores ? cores : 1);
	if (per_core < 2 || K64 > LOGP_CROWD_MAX || !w_s) {
		snprintf(err, errlen, "crowd of %u processes per core on %u "
		    "cores: need 2 per core and at most %d in all",
		    per_core, cores, LOGP_CROWD_MAX);
		return GROVE_EINVAL;
	}
	uint32_t K = (uint32_t)K64;
	int hops = m > CROWD_LARGE ? CROWD_HOPS_LARGE : CROWD_HOPS_SMALL;
	int laps = 1 + (hops + (int)K - 1) / (int)K;
	if (laps < 3)
		laps = 3;
	int *fd = malloc(2 * (size_t)K * sizeof *fd); /* edge e: e -> e+1 */
	pid_t *pid = calloc(K, sizeof *pid);
	int report[2] = {-1, -1}, rc = 0;
	uint32_t made = 0, started = 0;
	if (!fd || !pid) {
		free(fd);
		free(pid);
		snprintf(err, errlen, "out of memory");
		return GROVE_ENOMEM;
	}
	/* The transport between a node and the children it starts on its
	 * own host: fd[2e] is written by member e, fd[2e+1] read by e + 1. */
	for (; made < K; made++) {
		int p[2];
		if (use_sockets ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
		    0, p) != 0 : pipe2(p, O_CLOEXEC) != 0)
			break;
		fd[2 * made] = p[use_sockets ? 0 : 1];
		fd[2 * made + 1] = p[use_sockets ? 1 : 0];
	}
	if (made < K || pipe2(report, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "crowd of %u: %s: %s", K,
		    use_sockets ? "sockets" : "pipes", strerror(errno));
		rc = GROVE_ESYS;
		goto out;
	}
	fflush(NULL);
	for (; started < K; started++) {
		uint32_t i = started;
		pid[i] = fork();
		if (pid[i] < 0)
			break;
		if (pid[i] == 0) {
			int in = fd[2 * ((i + K - 1) % K) + 1], out = fd[2 * i];
			/* Only its own ends, so that a member that dies
			 * ends its neighbours' reads instead of hanging. */
			for (uint32_t j = 0; j < 2 * K; j++)
				if (fd[j] != in && fd[j] != out)
					close(fd[j]);
			close(report[0]);
			/* Member 0 injects the message; a member
			 * receives and forwards it once a lap. */
			member mb = {.i = i, .report = report[1],
			    .injector = i == 0, .quota = laps, .warm = 1};
			run_member(&mb, in, out, m);
		}
	}
	if (started < K) {
		snprintf(err, errlen, "crowd of %u: fork: %s", K,
		    strerror(errno));
		rc = GROVE_ESYS;
		goto out;
	}
	close(report[1]);
	report[1] = -1;
	/* The members hold their ends; ours would keep a ring whose
	 * member died from seeing it. */
	for (uint32_t j = 0; j < 2 * made; j++)
		close(fd[j]);
	made = 0;
	uint64_t total = 0, hops_done = 0;
	for (uint32_t got = 0; got < K; got++) {
		crowd_report r;
		struct pollfd pf = {.fd = report[0], .events = POLLIN};
		if (poll(&pf, 1, CROWD_TIMEOUT_MS) != 1 ||
		    read(report[0], &r, sizeof r) != sizeof r) {
			snprintf(err, errlen, "crowd of %u at %zu bytes: a "
			    "process failed or took longer than %d s", K, m,
			    CROWD_TIMEOUT_MS / 1000);
			rc = GROVE_ETIMEDOUT;
			goto out;
		}
		total += r.cpu_ns;
		hops_done += r.hops;
	}
	*w_s = hops_done ? (double)total * 1e-9 / (double)hops_done : 0;
out:
	/* Every member has reported (or the ring failed): stop them all,
	 * our own children, then reap. */
	for (uint32_t i = 0; i < started; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGKILL);
	for (uint32_t i = 0; i < started; i++)
		if (pid[i] > 0)
			while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
				;
	for (uint32_t i = 0; i < 2 * made; i++)
		close(fd[i]);
	if (report[0] >= 0)
		close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	free(fd);
	free(pid);
	return rc;
}

int
logp_crowd_table(logp_table *t, int verbose, char *err, size_t errlen)
{
	size_t n = t->n;
	t->crowd_w = malloc(LOGP_CROWD_N * (n ? n : 1) * sizeof *t->crowd_w);
	if (!t->crowd_w) {
		snprintf(err, errlen, "out of memory");
		return GROVE_ENOMEM;
	}
	size_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
	if (!sizes) {
		snprintf(err, errlen, "out of memory");
		return GROVE_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		sizes[i] = t->rows[i].size;
	t->n_crowds = LOGP_CROWD_N;
	/* The cores the parameter file records (logp_write.c). */
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t cores = online > 0 ? (uint32_t)online : 1;
	int rc = 0;
	for (size_t k = 0; k < LOGP_CROWD_N && rc == 0; k++) {
		t->crowd_K[k] = logp_crowd_K[k];
		for (size_t i = 0; i < n && rc == 0; i++) {
			double *w = &t->crowd_w[k * n + i];
			*w = -1;
			/* Rings beyond LOGP_CROWD_MAX processes (many
			 * cores) stay unmeasured. */
			if (!logp_crowd_size(sizes, n, i) ||
			    (uint64_t)logp_crowd_K[k] * cores > LOGP_CROWD_MAX)
				continue;
			if (verbose)
				fprintf(stderr, "\rcrowd %u, %zu bytes   ",
				    logp_crowd_K[k], sizes[i]);
			rc = logp_crowd_hop(logp_crowd_K[k], cores, sizes[i],
			    t->host_socket, w, err, errlen);
		}
	}
	if (verbose)
		fprintf(stderr, "\r%40s\r", "");
	free(sizes);
	return rc;
}

int
logp_crowd_size(const size_t *sizes, size_t n, size_t i)
{
	int any = 0;
	for (size_t j = 0; j < n; j++)
		any |= sizes[j] && !(sizes[j] & (sizes[j] - 1)) &&
		    !(__builtin_ctzll(sizes[j]) & 1);
	if (!any)
		return 1;
	return sizes[i] && !(sizes[i] & (sizes[i] - 1)) &&
	    !(__builtin_ctzll(sizes[i]) & 1);
}
