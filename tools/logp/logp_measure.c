/* P-LogP measurement between two processes over Grove's connection layer
 * (method: docs/logp-measure.md).
 *
 * The driver (this process) forks a peer; both run a libuv loop with one
 * conn between them, the same code, batching and limits the tree uses.
 * The peer answers requests; everything that needs a clock on the peer's
 * side (the gaps of a train, the time to take a waiting message in) is
 * measured there and sent back, so no clocks are compared across
 * processes.
 */
#define _GNU_SOURCE /* accept4 */
#include "logp_measure.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "../bench_stats.h"
#include "codec/wire.h"
#include "grove/error.h"
#include "net/conn.h"
#include "net/sockio.h"
#include "net/uplink.h"

/* Message tags between driver and peer. */
enum {
	T_ECHO = 1,        /* m bytes -> the same bytes back */
	T_SINK,            /* m bytes -> T_ACK */
	T_ACK,
	T_TRAIN_BEGIN,     /* "%ud" k: the next k T_TRAIN form a train */
	T_TRAIN,           /* m bytes */
	T_TRAIN_DONE,      /* "%uld" ns from the first to the last arrival */
	T_OR_PREP,         /* "%uld" bytes: stop reading, answer T_OR_READY */
	T_OR_READY,
	T_OR_PROBE,        /* m bytes, taken in once they are all there */
	T_OR_DONE,         /* "%uld" ns the receive took */
	T_QUIT,
	T_CPU,             /* "%uld" c -> T_CPU_DONE; c > 0: run on CPU
	                    * c - 1 only, c = 0: where it ran before */
	T_CPU_DONE,        /* "%uld" the peer's process CPU time, ns */
};

/* Samples per repetition for the send overhead and the round trip; a
 * train lasts at least this long (the emulated WAN's timer precision is
 * tens of microseconds, the host's clock reads tens of nanoseconds). */
#define OS_SAMPLES 5
#define OS_BUDGET_NS 300000000ull
#define RTT_SAMPLES 9
#define WORK_SAMPLES 16
#define TRAIN_TARGET_S 0.010
#define TRAIN_TARGET_WAN_S 0.030
#define TRAIN_MAX (1u << 17)
/* A reply that takes longer means the peer is gone or stuck. */
#define REPLY_TIMEOUT_NS (120ull * 1000000000ull)

typedef struct side {
	uv_loop_t loop;
	uv_timer_t tick;   /* bounds every wait of the loop */
	conn *c;
	int is_peer;
	int closed;
	char why[200];
	/* driver: the last reply */
	int got;
	int32_t got_tag;
	uint64_t got_val;
	/* peer */
	grove_packet *ack;
	uint32_t train_k, train_seen;
	uint64_t t_first;
	uint64_t or_wait_bytes;
	int or_seen;
	uint64_t or_t1;
	int quit;
	/* measure_work: the CPUs this process ran on before it was pinned */
	cpu_set_t saved_cpus;
	int pinned;
} side;

const char *
logp_link_name(logp_link l)
{
	return l == LOGP_HOST ? "host" : l == LOGP_LAN ? "lan" : "wan";
}

int
logp_link_parse(const char *name, logp_link *out)
{
	static const logp_link all[] = {LOGP_HOST, LOGP_LAN, LOGP_WAN};
	for (size_t i = 0; i < 3; i++) {
		if (!strcmp(name, logp_link_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	}
	return GROVE_EINVAL;
}

void
logp_table_fini(logp_table *t)
{
	free(t->rows);
	t->rows = NULL;
	free(t->crowd_w);
	t->crowd_w = NULL;
	t->n_crowds = 0;
	t->n = 0;
}

static uint64_t
now_ns(void)
{
	return uv_hrtime();
}

/* Runs this process on CPU cpu only (cpu >= 0), or again where it ran
 * before (cpu < 0).  Best effort: a machine that refuses leaves the
 * processes where they are, and w is then measured on two cores. */
static void
pin_to(side *s, int cpu)
{
	if (cpu >= 0 && !s->pinned) {
		cpu_set_t one;
		if (sched_getaffinity(0, sizeof s->saved_cpus,
		    &s->saved_cpus) != 0)
			return;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		s->pinned = sched_setaffinity(0, sizeof one, &one) == 0;
	} else if (cpu < 0 && s->pinned) {
		sched_setaffinity(0, sizeof s->saved_cpus, &s->saved_cpus);
		s->pinned = 0;
	}
}

/* CPU time this process has used (all its threads). */
static uint64_t
cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
send_pkt(side *s, grove_packet *p)
{
	if (!s->c)
		return GROVE_ECLOSED;
	int rc = conn_send(s->c, p);
	if (rc == 0 && s->c)
		rc = conn_flush(s->c);
	return rc;
}

static int
send_ctl(side *s, int32_t tag, const char *fmt, uint64_t v)
{
	grove_packet *p = NULL;
	int rc = *fmt ? wire_pack(&p, WIRE_T_DATA, 0, tag, 0, 0, fmt, v)
	    : wire_pack(&p, WIRE_T_DATA, 0, tag, 0, 0, "");
	if (rc != 0)
		return rc;
	rc = send_pkt(s, p);
	grove_packet_unref(p);
	return rc;
}

static void
peer_packet(side *s, grove_packet *p, int32_t tag, uint64_t t)
{
	uint64_t v = 0;
	uint32_t k = 0;
	switch (tag) {
	case T_ECHO:
		send_pkt(s, p);
		break;
	case T_SINK:
		send_pkt(s, s->ack);
		break;
	case T_TRAIN_BEGIN:
		if (grove_packet_unpack(p, "%ud", &k) == 0 && k > 0) {
			s->train_k = k;
			s->train_seen = 0;
		}
		break;
	case T_TRAIN:
		if (++s->train_seen == 1)
			s->t_first = t;
		if (s->train_seen == s->train_k)
			send_ctl(s, T_TRAIN_DONE, "%uld", t - s->t_first);
		break;
	case T_OR_PREP:
		if (grove_packet_unpack(p, "%uld", &v) == 0 && v > 0) {
			/* Nothing of the probe is read before we time it. */
			conn_read_stop(s->c);
			s->or_wait_bytes = v;
			send_ctl(s, T_OR_READY, "", 0);
		}
		break;
	case T_OR_PROBE:
		s->or_t1 = t;
		s->or_seen = 1;
		break;
	case T_QUIT:
		s->quit = 1;
		break;
	case T_CPU:
		if (grove_packet_unpack(p, "%uld", &v) == 0)
			pin_to(s, (int)v - 1);
		send_ctl(s, T_CPU_DONE, "%uld", cpu_ns());
		break;
	}
}

static void
on_packet(conn *c, grove_packet *p)
{
	side *s = c->owner;
	uint64_t t = now_ns();
	int32_t tag = grove_packet_tag(p);
	if (s->is_peer) {
		peer_packet(s, p, tag, t);
		return;
	}
	s->got = 1;
	s->got_tag = tag;
	s->got_val = 0;
	if (tag == T_TRAIN_DONE || tag == T_OR_DONE || tag == T_CPU_DONE)
		grove_packet_unpack(p, "%uld", &s->got_val);
}

static void
on_close(conn *c, int err, const char *why)
{
	side *s = c->owner;
	s->c = NULL;
	s->closed = 1;
	snprintf(s->why, sizeof s->why, "%s", err ? why : "peer closed the "
	    "connection");
}

static const conn_ops side_ops = {on_packet, on_close, NULL};

static void
on_tick(uv_timer_t *t)
{
	(void)t;
}

static int
side_open(side *s, uplink *u, const logp_cfg *cfg, int is_peer)
{
	memset(s, 0, sizeof *s);
	s->is_peer = is_peer;
	if (uv_loop_init(&s->loop) != 0)
		return GROVE_ESYS;
	uv_timer_init(&s->loop, &s->tick);
	uv_timer_start(&s->tick, on_tick, 100, 100);
	int rc = uplink_conn(&s->loop, u, &side_ops, s, 0, &s->c);
	if (rc != 0)
		return rc;
	s->c->authed = 1; /* a private link: frames of any size */
	if (cfg->link == LOGP_WAN) {
		grove_link_params lp = {cfg->latency_s, cfg->bandwidth_Bps};
		if ((rc = conn_emulate(s->c, &lp)) != 0)
			return rc;
	}
	return 0;
}

static void
side_close(side *s)
{
	if (s->c)
		conn_close(s->c, 0, "done");
	grove_packet_unref(s->ack);
	s->ack = NULL;
	uv_close((uv_handle_t *)&s->tick, NULL);
	uv_run(&s->loop, UV_RUN_DEFAULT);
	uv_loop_close(&s->loop);
}

/* ---- peer ------------------------------------------------------------ */

static void
sleep_ns(long ns)
{
	struct timespec ts = {0, ns};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* or(m): wait (without reading) until the probe is all in this side's
 * socket, or as much of it as the kernel buffers hold, then time taking
 * it in. */
static void
peer_or(side *s)
{
	uint64_t want = s->or_wait_bytes;
	s->or_wait_bytes = 0;
	uv_os_fd_t fd = -1;
	if (!s->c || uv_fileno((uv_handle_t *)&s->c->h.handle, &fd) != 0)
		return;
	int last = -1, stable = 0;
	uint64_t deadline = now_ns() + REPLY_TIMEOUT_NS;
	for (;;) {
		/* Lets the emulator release T_OR_READY; reads are stopped. */
		uv_run(&s->loop, UV_RUN_NOWAIT);
		int avail = 0;
		if (!s->c || ioctl(fd, FIONREAD, &avail) != 0)
			return;
		if ((uint64_t)avail >= want || now_ns() > deadline)
			break;
		/* Full buffers: the rest only moves once we read. */
		if (avail > 0 && avail == last) {
			if (++stable >= 3)
				break;
		} else {
			stable = 0;
		}
		last = avail;
		sleep_ns(1000000);
	}
	s->or_seen = 0;
	uint64_t t0 = now_ns();
	conn_read_start(s->c);
	while (!s->or_seen && s->c)
		uv_run(&s->loop, UV_RUN_ONCE);
	if (s->c)
		send_ctl(s, T_OR_DONE, "%uld", s->or_t1 - t0);
}

static int
peer_main(uplink *u, const logp_cfg *cfg)
{
	side s;
	int rc = side_open(&s, u, cfg, 1);
	if (rc == 0)
		rc = wire_pack(&s.ack, WIRE_T_DATA, 0, T_ACK, 0, 0, "");
	while (rc == 0 && !s.quit && !s.closed) {
		if (s.or_wait_bytes)
			peer_or(&s);
		else
			uv_run(&s.loop, UV_RUN_ONCE);
	}
	side_close(&s);
	return rc;
}

/* ---- driver ---------------------------------------------------------- */

static int
wait_reply(side *s, int32_t tag, uint64_t *val)
{
	uint64_t deadline = now_ns() + REPLY_TIMEOUT_NS;
	while (!s->got && !s->closed && now_ns() < deadline)
		uv_run(&s->loop, UV_RUN_ONCE);
	if (s->closed)
		return GROVE_ECLOSED;
	if (!s->got)
		return GROVE_ETIMEDOUT;
	s->got = 0;
	if (s->got_tag != tag)
		return GROVE_EPROTO;
	if (val)
		*val = s->got_val;
	return 0;
}

/* Until everything sent has left this process. */
static int
drain(side *s)
{
	while (s->c && conn_queued(s->c))
		uv_run(&s->loop, UV_RUN_ONCE);
	return s->c ? 0 : GROVE_ECLOSED;
}

static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Repeatability: the range of the middle half of the repetitions over
 * their median (max - min for fewer than four), so one repetition that
 * the machine disturbed shows without deciding the figure. */
static double
spread(double *v, size_t n)
{
	double m = median(v, n);
	size_t q = n / 4;
	return m > 0 ? (v[n - 1 - q] - v[q]) / m : 0;
}

/* os(m): how long conn_send + conn_flush take to return on an idle link
 * (each send waits for the peer's acknowledgement first). */
static int
measure_os(side *s, grove_packet *p, double *out)
{
	double v[OS_SAMPLES];
	int n = 0;
	uint64_t start = now_ns();
	/* A slow link (megabytes at 1 MB/s) gets fewer samples: each waits
	 * for the message to cross. */
	for (int i = 0; i < OS_SAMPLES && (i == 0 ||
	    now_ns() - start < OS_BUDGET_NS); i++) {
		int rc;
		if ((rc = drain(s)) != 0)
			return rc;
		uint64_t t0 = now_ns();
		rc = conn_send(s->c, p);
		if (rc == 0)
			rc = conn_flush(s->c);
		uint64_t t1 = now_ns();
		if (rc == 0)
			rc = wait_reply(s, T_ACK, NULL);
		if (rc != 0)
			return rc;
		v[n++] = (double)(t1 - t0) * 1e-9;
	}
	*out = median(v, (size_t)n);
	return 0;
}

/* The CPU work of one exchange on an idle link: a message of m bytes and
 * its (empty) acknowledgement, both processes' CPU time together, each
 * side sleeping in its event loop between messages as the processes of a
 * tree do, so wake-ups count.  Both run on one core meanwhile, so every
 * message also switches the core from the sender to the receiver: what a
 * hop costs when more processes than cores take turns, which is when the
 * model's host CPU bound matters.  The peer reports its CPU clock before
 * and after the series; what it spends on those two reports is spread
 * over WORK_SAMPLES exchanges. */
static int
measure_work(side *s, grove_packet *p, double *out)
{
	uint64_t p0 = 0, p1 = 0, start = now_ns();
	int n = 0, rc, cpu = sched_getcpu();
	if (cpu >= 0)
		pin_to(s, cpu);
	if ((rc = drain(s)) != 0 ||
	    (rc = send_ctl(s, T_CPU, "%uld", s->pinned ? (uint64_t)cpu + 1 :
	    0)) != 0 ||
	    (rc = wait_reply(s, T_CPU_DONE, &p0)) != 0)
		return rc;
	uint64_t d0 = cpu_ns();
	for (; n < WORK_SAMPLES && (n == 0 || now_ns() - start <
	    OS_BUDGET_NS); n++) {
		if ((rc = drain(s)) != 0 || (rc = send_pkt(s, p)) != 0 ||
		    (rc = wait_reply(s, T_ACK, NULL)) != 0)
			return rc;
	}
	uint64_t d1 = cpu_ns();
	pin_to(s, -1);
	if ((rc = send_ctl(s, T_CPU, "%uld", 0)) != 0 ||
	    (rc = wait_reply(s, T_CPU_DONE, &p1)) != 0)
		return rc;
	*out = (double)((d1 - d0) + (p1 - p0)) * 1e-9 / n;
	return 0;
}

static int
measure_rtt(side *s, grove_packet *p, double *out)
{
	double v[RTT_SAMPLES];
	for (int i = 0; i < RTT_SAMPLES; i++) {
		int rc;
		if ((rc = drain(s)) != 0)
			return rc;
		uint64_t t0 = now_ns();
		if ((rc = send_pkt(s, p)) != 0 ||
		    (rc = wait_reply(s, T_ECHO, NULL)) != 0)
			return rc;
		v[i] = (double)(now_ns() - t0) * 1e-9;
	}
	*out = median(v, RTT_SAMPLES);
	return 0;
}

static int
measure_or(side *s, grove_packet *p, double *out)
{
	uint64_t ns = 0;
	int rc;
	if ((rc = drain(s)) != 0 ||
	    (rc = send_ctl(s, T_OR_PREP, "%uld", grove_packet_size(p))) != 0 ||
	    (rc = wait_reply(s, T_OR_READY, NULL)) != 0 ||
	    (rc = send_pkt(s, p)) != 0 ||
	    (rc = wait_reply(s, T_OR_DONE, &ns)) != 0)
		return rc;
	*out = (double)ns * 1e-9;
	return 0;
}

/* g(m): a train of k messages sent back to back, as fast as the conn
 * takes them (its batching and limits included); the peer times the
 * first and the last arrival.  k grows until the train lasts long
 * enough; *k carries the length over to the next repetition. */
static int
measure_g(side *s, grove_packet *p, double target, uint32_t *k, double *out)
{
	for (;;) {
		uint64_t span = 0;
		int rc;
		if ((rc = drain(s)) != 0 ||
		    (rc = send_ctl(s, T_TRAIN_BEGIN, "%ud", *k)) != 0)
			return rc;
		for (uint32_t i = 0; i < *k; i++) {
			if ((rc = send_pkt(s, p)) != 0)
				return rc;
			while (s->c && conn_over_limit(s->c))
				uv_run(&s->loop, UV_RUN_ONCE);
		}
		if ((rc = wait_reply(s, T_TRAIN_DONE, &span)) != 0)
			return rc;
		double secs = (double)span * 1e-9;
		if (secs >= target || *k >= TRAIN_MAX) {
			*out = secs / (*k - 1);
			return 0;
		}
		/* Long enough next time by this train's own gap, but between
		 * 2 and 16 times as long: a short train may come in one batch
		 * and show no gap at all. */
		double gap = secs / (*k - 1);
		double nk = gap > 0 ? ceil(1.3 * target / gap) + 1 : 16.0 * *k;
		if (nk < 2.0 * *k)
			nk = 2.0 * *k;
		if (nk > 16.0 * *k)
			nk = 16.0 * *k;
		*k = nk > TRAIN_MAX ? TRAIN_MAX : (uint32_t)nk;
	}
}

static int
payload(size_t m, int32_t tag, grove_packet **out)
{
	uint8_t *b = malloc(m ? m : 1);
	if (!b)
		return GROVE_ENOMEM;
	for (size_t i = 0; i < m; i++)
		b[i] = (uint8_t)(i * 131u + 7u);
	int rc = wire_pack(out, WIRE_T_DATA, 0, tag, 0, 0, "%auc", b,
	    (uint64_t)m);
	free(b);
	return rc;
}

typedef struct samples {
	double *os, *or_, *g, *w; /* [size][rep] */
	double *L;            /* [rep] */
} samples;

static int
measure_rep(side *s, const logp_cfg *cfg, int rep, samples *sm, uint32_t *ks,
    char *err, size_t errlen)
{
	double target = cfg->link == LOGP_WAN ? TRAIN_TARGET_WAN_S :
	    TRAIN_TARGET_S;
	double g_small = 0, x_small = 0;
	int rc = 0;
	for (size_t i = 0; i < cfg->n_sizes && rc == 0; i++) {
		size_t m = cfg->sizes[i];
		grove_packet *sink = NULL, *probe = NULL, *train = NULL;
		double os = 0, or_ = 0, g = 0, x = 0;
		const char *what = "building messages";
		if ((rc = payload(m, T_SINK, &sink)) == 0 &&
		    (rc = payload(m, T_OR_PROBE, &probe)) == 0 &&
		    (rc = payload(m, T_TRAIN, &train)) == 0) {
			/* The first repetition finds each size's train
			 * length from two messages up; the others reuse it. */
			if (!ks[i])
				ks[i] = 2;
			what = "os";
			if ((rc = measure_os(s, sink, &os)) == 0) {
				what = "or";
				rc = measure_or(s, probe, &or_);
			}
			if (rc == 0) {
				what = "g";
				rc = measure_g(s, train, target, &ks[i], &g);
			}
			if (rc == 0) {
				what = "w";
				rc = measure_work(s, sink, &x);
			}
		}
		grove_packet_unref(sink);
		grove_packet_unref(probe);
		grove_packet_unref(train);
		if (rc != 0) {
			snprintf(err, errlen, "%s of %zu bytes: %s (%s)", what, m,
			    grove_strerror(rc), s->closed ? s->why : "");
			return rc;
		}
		sm->os[i * cfg->reps + rep] = os;
		sm->or_[i * cfg->reps + rep] = or_;
		sm->g[i * cfg->reps + rep] = g;
		/* The acknowledgement costs what the smallest message does:
		 * half the smallest size's exchange. */
		if (i == 0) {
			g_small = g;
			x_small = x;
		}
		double w = x - x_small / 2;
		sm->w[i * cfg->reps + rep] = w > 0 ? w : 0;
		if (cfg->verbose)
			fprintf(stderr, "\r  %s rep %d/%d: %zu bytes   ",
			    logp_link_name(cfg->link), rep + 1, cfg->reps, m);
	}
	/* L from the round trip of the smallest message: RTT = 2 (L + g). */
	grove_packet *echo = NULL;
	double rtt = 0;
	if ((rc = payload(cfg->sizes[0], T_ECHO, &echo)) == 0)
		rc = measure_rtt(s, echo, &rtt);
	grove_packet_unref(echo);
	if (rc != 0) {
		snprintf(err, errlen, "round trip: %s (%s)", grove_strerror(rc),
		    s->closed ? s->why : "");
		return rc;
	}
	sm->L[rep] = rtt / 2 - g_small;
	return 0;
}

/* The two ends of the link: for "host" two pipes (or a Unix socket pair
 * with host_socket), as between a node and a child it starts on its own
 * host; loopback TCP otherwise (the peer connects after the fork: *peer
 * closed, *port set). */
static int
open_link(logp_link link, int host_socket, uplink *drv, uplink *peer,
    int *listener, uint16_t *port, char *err, size_t errlen)
{
	drv->rfd = drv->wfd = peer->rfd = peer->wfd = *listener = -1;
	if (link == LOGP_HOST && host_socket) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
			snprintf(err, errlen, "socketpair: %s", strerror(errno));
			return GROVE_ESYS;
		}
		*drv = (uplink){sv[0], sv[0]};
		*peer = (uplink){sv[1], sv[1]};
		return 0;
	}
	if (link == LOGP_HOST) {
		int down[2], up[2];
		if (pipe2(down, O_CLOEXEC) != 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return GROVE_ESYS;
		}
		if (pipe2(up, O_CLOEXEC) != 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			close(down[0]);
			close(down[1]);
			return GROVE_ESYS;
		}
		*drv = (uplink){up[0], down[1]};
		*peer = (uplink){down[0], up[1]};
		return 0;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(fd, 1) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		snprintf(err, errlen, "listen on 127.0.0.1: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return GROVE_ESYS;
	}
	*listener = fd;
	*port = ntohs(sa.sin_port);
	return 0;
}

static int
accept_peer(int listener, char *err, size_t errlen)
{
	struct timeval tv = {10, 0};
	setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "the peer did not connect: %s",
		    strerror(errno));
	return fd < 0 ? GROVE_ESYS : fd;
}

static void
peer_process(const logp_cfg *cfg, uplink *peer, int listener, uint16_t port,
    pid_t parent)
{
	/* Never outlive the driver. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (listener >= 0) {
		char why[256];
		close(listener);
		int fd = sockio_connect("127.0.0.1", port, 10000, why,
		    sizeof why);
		if (fd < 0) {
			fprintf(stderr, "grove logp: peer: %s\n", why);
			_exit(1);
		}
		sockio_tune(fd, 20000);
		*peer = (uplink){fd, fd};
	}
	_exit(peer_main(peer, cfg) == 0 ? 0 : 1);
}

static void
summarise(const logp_cfg *cfg, samples *sm, logp_table *out)
{
	int R = cfg->reps;
	for (size_t i = 0; i < cfg->n_sizes; i++) {
		logp_row *r = &out->rows[i];
		r->size = cfg->sizes[i];
		r->os = median(&sm->os[i * R], (size_t)R);
		r->os_spread = spread(&sm->os[i * R], (size_t)R);
		r->or_ = median(&sm->or_[i * R], (size_t)R);
		r->or_spread = spread(&sm->or_[i * R], (size_t)R);
		r->g = median(&sm->g[i * R], (size_t)R);
		r->g_spread = spread(&sm->g[i * R], (size_t)R);
		r->w = median(&sm->w[i * R], (size_t)R);
		r->w_spread = spread(&sm->w[i * R], (size_t)R);
	}
	out->L = median(sm->L, (size_t)R);
	out->L_spread = spread(sm->L, (size_t)R);
}

int
logp_measure(const logp_cfg *cfg, logp_table *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!cfg->n_sizes || cfg->reps < 1) {
		snprintf(err, errlen, "nothing to measure");
		return GROVE_EINVAL;
	}
	snprintf(out->cls, sizeof out->cls, "%s", logp_link_name(cfg->link));
	size_t n = cfg->n_sizes, R = (size_t)cfg->reps;
	samples sm = {calloc(n * R, sizeof(double)), calloc(n * R,
	    sizeof(double)), calloc(n * R, sizeof(double)), calloc(n * R,
	    sizeof(double)), calloc(R, sizeof(double))};
	uint32_t *ks = calloc(n, sizeof *ks);
	out->rows = calloc(n, sizeof *out->rows);
	out->n = n;
	int rc = 0;
	if (!sm.os || !sm.or_ || !sm.g || !sm.w || !sm.L || !ks ||
	    !out->rows) {
		snprintf(err, errlen, "out of memory");
		rc = GROVE_ENOMEM;
		goto out;
	}
	uplink drv, peer;
	int listener = -1;
	uint16_t port = 0;
	out->host_socket = cfg->link == LOGP_HOST && cfg->host_socket;
	if ((rc = open_link(cfg->link, cfg->host_socket, &drv, &peer, &listener,
	    &port, err, errlen)) != 0)
		goto out;
	double t_start = (double)now_ns() * 1e-9;
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		uplink_close(&drv);
		peer_process(cfg, &peer, listener, port, parent);
	}
	uplink_close(&peer);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		if (listener >= 0)
			close(listener);
		uplink_close(&drv);
		rc = GROVE_ESYS;
		goto out;
	}
	if (listener >= 0) {
		int fd = accept_peer(listener, err, errlen);
		close(listener);
		if (fd < 0)
			rc = fd;
		else
			drv = (uplink){fd, fd};
	}
	side s;
	memset(&s, 0, sizeof s);
	int opened = 0;
	if (rc == 0) {
		rc = side_open(&s, &drv, cfg, 0);
		opened = 1;
		if (rc != 0)
			snprintf(err, errlen, "cannot use the link: %s",
			    grove_strerror(rc));
	}
	for (int rep = 0; rc == 0 && rep < cfg->reps; rep++)
		rc = measure_rep(&s, cfg, rep, &sm, ks, err, errlen);
	if (cfg->verbose)
		fprintf(stderr, "\r%60s\r", "");
	if (opened) {
		if (s.c) {
			send_ctl(&s, T_QUIT, "", 0);
			drain(&s);
		}
		side_close(&s);
	}
	/* The peer leaves on T_QUIT or when its link closes. */
	int st = 0;
	uint64_t until = now_ns() + 5000000000ull;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ns() > until) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		sleep_ns(1000000);
	}
	if (rc == 0)
		summarise(cfg, &sm, out);
	out->seconds = (double)now_ns() * 1e-9 - t_start;
out:
	free(sm.os);
	free(sm.or_);
	free(sm.g);
	free(sm.w);
	free(sm.L);
	free(ks);
	if (rc != 0)
		logp_table_fini(out);
	return rc;
}
