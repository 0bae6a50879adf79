/* Tools that put Grove in their own poll loop: a back-end and a front-end
 * driven only by poll() on grove_be_fd() / grove_net_fd() and Grove's
 * non-blocking calls.  Neither ever makes a blocking Grove call, so
 * everything they do must be woken by the descriptor alone: a new link,
 * data on a link, a large reply waiting for the link to take it, a timer
 * of the front-end's loop (a time-out synchronization filter's window).
 *
 * The poll-driven back-end is this program itself, started by Grove with
 * "--poll-be".  With "--flush-be" it is a back-end that, after a large
 * reply, polls grove_be_flush(be, 0) until the reply is written; a
 * front-end likewise polls grove_net_flush(net, 0) and
 * grove_net_wait_sent(net, 0) after a large send.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* The poll-driven back-end's requests (its own protocol). */
enum {
	TAG_RANK = 1,  /* "" -> "%d" rank on the same stream */
	TAG_BULK = 2,  /* "%d" n -> point-to-point "%auc" of n bytes
	                  (rank + i) & 0xff: more than a link takes at once */
	TAG_FLUSHED = 3, /* --flush-be, after TAG_BULK: point-to-point "%d"
	                    what the last grove_be_flush(be, 0) returned */
};

/* --flush-be: grove_be_flush(be, 0) calls at most, 1 ms apart, before it
 * gives up (only a flush that never writes needs them all). */
#define FLUSH_POLLS 20000

#define BULK_BYTES (6u << 20)
/* One poll() waits at most this long; a wait without readiness is never
 * followed by a Grove call, so only the descriptor drives the loop. */
#define POLL_SLICE_MS 500

/* ---- the back-end -------------------------------------------------- */

static int
be_answer(grove_be *be, uint32_t stream, int32_t tag, grove_packet *p)
{
	uint32_t rank = grove_be_rank(be);
	switch (tag) {
	case TAG_RANK:
		return grove_be_send(be, stream, tag, "%d", (int)rank);
	case TAG_BULK: {
		int32_t n = 0;
		if (grove_packet_unpack(p, "%d", &n) != 0 || n <= 0)
			return GROVE_EINVAL;
		uint8_t *b = malloc((size_t)n);
		if (!b)
			return GROVE_ENOMEM;
		for (int32_t i = 0; i < n; i++)
			b[i] = (uint8_t)((rank + (uint32_t)i) & 0xff);
		int rc = grove_be_send(be, 0, tag, "%auc", b, (uint64_t)n);
		free(b);
		return rc;
	}
	default:
		return GROVE_EINVAL;
	}
}

/* Polls grove_be_fd() and receives without blocking until the network
 * closes; gives up (exit 4) when the descriptor stays quiet for
 * IT_RECV_MS. */
static int
poll_be_main(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "poll-be: grove_be_init: %s\n", grove_err_name(rc));
		return 2;
	}
	int fd = grove_be_fd(be);
	if (fd < 0)
		return 3;
	uint64_t deadline = it_now_ms() + IT_RECV_MS;
	for (;;) {
		if (it_now_ms() > deadline) {
			fprintf(stderr, "poll-be %u: grove_be_fd() did not wake it "
			    "for %d ms\n", grove_be_rank(be), IT_RECV_MS);
			return 4;
		}
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int n = poll(&pf, 1, POLL_SLICE_MS);
		if (n <= 0)
			continue;
		deadline = it_now_ms() + IT_RECV_MS;
		/* Everything waiting first, then the answers: a send is the
		 * last Grove call before the next poll, so a write that waits
		 * for room must be in the descriptor's set. */
		struct {
			uint32_t stream;
			int32_t tag;
			grove_packet *p;
		} req[16];
		size_t nreq = 0;
		while (nreq < 16 && (rc = grove_be_recv(be, &req[nreq].stream,
		    &req[nreq].tag, &req[nreq].p, 0)) == 0)
			nreq++;
		if (nreq == 16)
			rc = GROVE_EAGAIN;
		for (size_t i = 0; i < nreq; i++) {
			int a = be_answer(be, req[i].stream, req[i].tag, req[i].p);
			grove_packet_unref(req[i].p);
			if (a < 0) {
				fprintf(stderr, "poll-be %u: answering tag %d: %s\n",
				    grove_be_rank(be), req[i].tag, grove_err_name(a));
				return 5;
			}
		}
		if (rc == GROVE_ECLOSED)
			break;
		if (rc != GROVE_EAGAIN) {
			fprintf(stderr, "poll-be: grove_be_recv: %s\n",
			    grove_err_name(rc));
			return 6;
		}
	}
	grove_be_destroy(be);
	return 0;
}

/* Blocks in grove_be_recv; answers TAG_BULK, then writes the reply by
 * polling grove_be_flush(be, 0) alone (no other Grove call runs the loop
 * meanwhile) and says what the flush returned last. */
static int
flush_be_main(int argc, char **argv)
{
	grove_be *be = NULL;
	if (grove_be_init(&argc, &argv, &be) != 0)
		return 2;
	for (;;) {
		uint32_t stream;
		int32_t tag;
		grove_packet *p = NULL;
		int rc = grove_be_recv(be, &stream, &tag, &p, -1);
		if (rc == GROVE_ECLOSED)
			break;
		if (rc != 0)
			return 3;
		rc = be_answer(be, stream, tag, p);
		grove_packet_unref(p);
		if (rc != 0)
			return 4;
		if (tag != TAG_BULK)
			continue;
		for (int i = 0; i < FLUSH_POLLS; i++) {
			rc = grove_be_flush(be, 0);
			if (rc != GROVE_ETIMEDOUT)
				break;
			usleep(1000);
		}
		if (grove_be_send(be, 0, TAG_FLUSHED, "%d", rc) != 0)
			return 5;
	}
	grove_be_destroy(be);
	return 0;
}

/* ---- case 1: poll-driven back-ends, a front-end that blocks -------- */

static void
poll_be_case(const char *topo, uint32_t n, grove_local_link link)
{
	it_step("--- poll-driven back-ends: %s, %u backends, %s links", topo, n,
	    link == GROVE_LOCAL_LINK_SOCKET ? "socket" : "pipe");
	char exe[4096];
	static char *const argv[] = {"it_poll_loop", "--poll-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, topo, n);
	o.be_exe = it_build_path("it_poll_loop", exe, sizeof exe);
	o.be_argv = argv;
	o.local_link = link;
	grove_net *net = it_net_create(&o);

	/* A reduction: every back-end must be woken by the request. */
	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	for (int round = 0; round < 3; round++) {
		CHECK_OK_NET(net, grove_stream_send(sum, TAG_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, sum, TAG_RANK),
		    (int64_t)n * (n - 1) / 2);
	}
	it_step("sum of ranks, three rounds");

	/* A reply larger than the link takes at once: the rest must go out
	 * when the link has room, woken by the descriptor. */
	CHECK_OK_NET(net, grove_stream_send(sum, TAG_BULK, "%d",
	    (int)BULK_BYTES));
	int *seen = calloc(n, sizeof *seen);
	CHECK(seen != NULL);
	for (uint32_t k = 0; k < n; k++) {
		grove_stream *s = (grove_stream *)1;
		grove_packet *p = NULL;
		int32_t tag = 0;
		CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, IT_RECV_MS));
		CHECK(s == NULL);
		CHECK_INT_EQ(tag, TAG_BULK);
		uint32_t r = grove_packet_src(p);
		CHECK(r < n);
		CHECK_INT_EQ(seen[r], 0);
		seen[r] = 1;
		const uint8_t *b = NULL;
		uint64_t len = 0;
		CHECK_OK(grove_packet_unpack(p, "%auc", &b, &len));
		CHECK_UINT_EQ(len, BULK_BYTES);
		for (uint64_t i = 0; i < len; i++)
			if (b[i] != (uint8_t)((r + i) & 0xff))
				IT_FAIL("rank %u: byte %llu of the bulk reply is %u",
				    r, (unsigned long long)i, b[i]);
		grove_packet_unref(p);
	}
	free(seen);
	it_step("%u bulk replies of %u bytes", n, BULK_BYTES);

	CHECK_OK_NET(net, grove_stream_destroy(sum));
	it_net_destroy(net);
}

/* ---- case 1b: a back-end that polls grove_be_flush(be, 0) ----------- */

static void
flush_poll_case(void)
{
	it_step("--- a back-end polling grove_be_flush(be, 0) after a large "
	    "reply");
	char exe[4096];
	static char *const argv[] = {"it_poll_loop", "--flush-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, "flat", 1);
	o.be_exe = it_build_path("it_poll_loop", exe, sizeof exe);
	o.be_argv = argv;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, NULL, NULL);
	/* 6 MiB: under the link's limit, so the send returns with most of
	 * it still queued (the socket takes far less at once). */
	CHECK_OK_NET(net, grove_stream_send(s, TAG_BULK, "%d", (int)BULK_BYTES));
	for (int k = 0; k < 2; k++) {
		grove_stream *from = (grove_stream *)1;
		grove_packet *p = NULL;
		int32_t tag = 0;
		CHECK_OK_NET(net, grove_net_recv(net, &from, &tag, &p,
		    IT_RECV_MS));
		CHECK(from == NULL);
		if (tag == TAG_BULK) {
			CHECK_INT_EQ(k, 0);
			const uint8_t *b = NULL;
			uint64_t len = 0;
			CHECK_OK(grove_packet_unpack(p, "%auc", &b, &len));
			CHECK_UINT_EQ(len, BULK_BYTES);
			for (uint64_t i = 0; i < len; i++)
				if (b[i] != (uint8_t)(i & 0xff))
					IT_FAIL("byte %llu of the reply is %u",
					    (unsigned long long)i, b[i]);
		} else {
			CHECK_INT_EQ(tag, TAG_FLUSHED);
			CHECK_INT_EQ(k, 1);
			int32_t rc = 1;
			CHECK_OK(grove_packet_unpack(p, "%d", &rc));
			/* GROVE_ETIMEDOUT after every poll: the flushes never
			 * wrote, and only the send of this answer moved the
			 * reply. */
			CHECK_INT_EQ(rc, 0);
		}
		grove_packet_unref(p);
	}
	it_step("the reply arrived whole; grove_be_flush(be, 0) returned 0");
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* ---- case 1c: a front-end that polls its flushes with 0 ------------ */

/* Polls flush(net, 0) until it returns something else than
 * GROVE_ETIMEDOUT (at most FLUSH_POLLS times, 1 ms apart); returns that.
 * A poll that never runs the loop never moves a write under way. */
static int
poll_flush(grove_net *net, int (*flush)(grove_net *, int))
{
	int rc = GROVE_ETIMEDOUT;
	for (int i = 0; i < FLUSH_POLLS && rc == GROVE_ETIMEDOUT; i++) {
		rc = flush(net, 0);
		if (rc == GROVE_ETIMEDOUT)
			it_sleep_ms(1);
	}
	return rc;
}

static void
fe_flush_poll_case(void)
{
	it_step("--- a front-end polling grove_net_flush(net, 0) and "
	    "grove_net_wait_sent(net, 0) after a large send");
	grove_net_opts o;
	it_net_opts(&o, "flat", 1);
	grove_net *net = it_net_create(&o);
	uint8_t *b = malloc(BULK_BYTES);
	CHECK(b != NULL);
	for (uint32_t i = 0; i < BULK_BYTES; i++)
		b[i] = (uint8_t)(i * 7);
	int (*const flushes[2])(grove_net *, int) = {grove_net_flush,
	    grove_net_wait_sent};
	for (int k = 0; k < 2; k++) {
		/* Under the link's limit: the send returns with most of it
		 * still queued (a link takes far less at once). */
		CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_DIGEST,
		    "%auc", b, (uint64_t)BULK_BYTES));
		CHECK_OK_NET(net, poll_flush(net, flushes[k]));
		grove_stream *from = (grove_stream *)1;
		grove_packet *p = NULL;
		int32_t tag = 0;
		CHECK_OK_NET(net, grove_net_recv(net, &from, &tag, &p,
		    IT_RECV_MS));
		CHECK(from == NULL);
		CHECK_INT_EQ(tag, WORKER_DIGEST);
		uint64_t len = 0, digest = 0, t = 0;
		CHECK_OK(grove_packet_unpack(p, "%uld %uld %uld", &len, &digest,
		    &t));
		CHECK_UINT_EQ(len, BULK_BYTES);
		CHECK_UINT_EQ(digest, worker_digest(b, BULK_BYTES));
		grove_packet_unref(p);
	}
	free(b);
	it_step("both polls returned 0; the back-end got the bytes whole");
	it_net_destroy(net);
}

/* ---- case 2: a poll-driven attach-mode front-end -------------------- */

/* Waits on grove_net_fd() until done(net, arg); only a wake-up leads to
 * Grove calls (grove_net_progress, then done's non-blocking ones: they
 * run the loop too, so calling them after a quiet poll would hide a
 * descriptor that failed to wake).  Fails when the descriptor stays
 * quiet for IT_RECV_MS. */
typedef int (*fe_done_fn)(grove_net *net, void *arg);

static void
fe_poll_until(grove_net *net, fe_done_fn done, void *arg, const char *what)
{
	int fd = grove_net_fd(net);
	CHECK(fd >= 0);
	uint64_t deadline = it_now_ms() + IT_RECV_MS;
	for (;;) {
		if (it_now_ms() > deadline)
			IT_FAIL("%s: grove_net_fd() did not wake the front-end "
			    "for %d ms", what, IT_RECV_MS);
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int n = poll(&pf, 1, POLL_SLICE_MS);
		if (n < 0 && errno != EINTR)
			IT_FAIL("poll: %s", strerror(errno));
		if (n <= 0)
			continue;
		deadline = it_now_ms() + IT_RECV_MS;
		CHECK_OK_NET(net, grove_net_progress(net));
		if (done(net, arg))
			return;
	}
}

typedef struct attach_state {
	uint32_t n;
	uint32_t attached;  /* GROVE_EV_BE_ATTACHED events seen */
} attach_state;

static int
all_attached(grove_net *net, void *arg)
{
	attach_state *st = arg;
	grove_event ev;
	int rc;
	while ((rc = grove_net_next_event(net, &ev, 0)) == 0) {
		if (ev.type != GROVE_EV_BE_ATTACHED)
			IT_FAIL("unexpected event %d: %s", (int)ev.type, ev.text);
		st->attached++;
	}
	CHECK_RC_NET(net, rc, GROVE_EAGAIN);
	return st->attached == st->n;
}

typedef struct recv_state {
	grove_stream *s;   /* NULL: point-to-point */
	int32_t tag;
	uint32_t want;     /* packets still to come */
	grove_packet *got[64];
	uint32_t n_got;
} recv_state;

static int
received(grove_net *net, void *arg)
{
	recv_state *st = arg;
	grove_packet *p = NULL;
	int32_t tag = 0;
	int rc;
	while (st->n_got < st->want) {
		grove_stream *from = (grove_stream *)1;
		rc = st->s ? grove_stream_recv(st->s, &tag, &p, 0)
		    : grove_net_recv(net, &from, &tag, &p, 0);
		if (rc == GROVE_EAGAIN)
			return 0;
		CHECK_OK_NET(net, rc);
		if (!st->s)
			CHECK(from == NULL);
		CHECK_INT_EQ(tag, st->tag);
		st->got[st->n_got++] = p;
	}
	return 1;
}

static void
poll_fe_case(uint32_t n)
{
	it_step("--- poll-driven attach-mode front-end: flat, %u backends", n);
	CHECK(n <= 64);
	char path[4096];
	snprintf(path, sizeof path, "%s/poll-fe.conn", it_tmpdir());
	grove_net_opts o;
	it_attach_opts(&o, "flat", n, path);
	grove_net *net = it_net_create(&o);
	/* The descriptor before anyone connects, as a tool would take it. */
	CHECK(grove_net_fd(net) >= 0);

	/* One at a time, as a launcher that starts them in turn would: no
	 * other arrival wakes the front-end for the one that connects. */
	pid_t pids[64];
	attach_state at = {0};
	for (uint32_t r = 0; r < n; r++) {
		pids[r] = it_start_attached_be(path, r);
		at.n = r + 1;
		fe_poll_until(net, all_attached, &at, "admitting a back-end");
	}
	CHECK_UINT_EQ(grove_net_backends_up(net), n);
	it_step("%u back-ends admitted", n);

	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_RANK, ""));
	recv_state rs = {.s = sum, .tag = WORKER_RANK, .want = 1};
	fe_poll_until(net, received, &rs, "sum of ranks");
	int32_t v = -1;
	CHECK_OK(grove_packet_unpack(rs.got[0], "%d", &v));
	CHECK_INT_EQ(v, (int64_t)n * (n - 1) / 2);
	grove_packet_unref(rs.got[0]);
	it_step("sum of ranks");

	/* Requests larger than a link takes at once: the front-end's rest
	 * must go out when the links have room, woken by the descriptor. */
	uint8_t *b = malloc(BULK_BYTES);
	CHECK(b != NULL);
	for (uint32_t i = 0; i < BULK_BYTES; i++)
		b[i] = (uint8_t)(i * 7u);
	uint64_t digest = worker_digest(b, BULK_BYTES);
	for (uint32_t r = 0; r < n; r++)
		CHECK_OK_NET(net, grove_net_send_to(net, r, WORKER_DIGEST, "%auc",
		    b, (uint64_t)BULK_BYTES));
	free(b);
	recv_state ds = {.s = NULL, .tag = WORKER_DIGEST, .want = n};
	fe_poll_until(net, received, &ds, "digests of large requests");
	for (uint32_t k = 0; k < n; k++) {
		uint64_t len = 0, h = 0, t = 0;
		CHECK_OK(grove_packet_unpack(ds.got[k], "%uld %uld %uld", &len, &h,
		    &t));
		CHECK_UINT_EQ(len, BULK_BYTES);
		CHECK_UINT_EQ(h, digest);
		grove_packet_unref(ds.got[k]);
	}
	it_step("%u large requests arrived whole", n);
	CHECK_OK_NET(net, grove_stream_destroy(sum));

	grove_net_destroy(net);
	it_wait_attached_exit(pids, n, 5000);
	it_check_no_procs(NULL, 0, 5000);
	it_step("destroyed; attached BEs exited");
}

/* A wave that only a timer can release: a "timeout" stream over two
 * back-ends of which one never attaches.  Its window closes on a timer
 * in the front-end's loop, with no data arriving anywhere; the descriptor
 * must wake the tool for it, which then gets the partial wave (rank 0's
 * value alone). */
static void
poll_fe_timer_case(void)
{
	it_step("--- poll-driven front-end: a wave released by its timeout");
	char path[4096];
	snprintf(path, sizeof path, "%s/poll-timer.conn", it_tmpdir());
	grove_net_opts o;
	it_attach_opts(&o, "flat", 2, path);
	grove_net *net = it_net_create(&o);
	pid_t pid = it_start_attached_be(path, 0);
	attach_state at = {.n = 1};
	fe_poll_until(net, all_attached, &at, "admitting rank 0");

	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = "sum";
	so.sync_filter = "timeout";
	so.sync_timeout_ms = 300;
	CHECK_OK_NET(net, grove_stream_create(net, grove_net_comm_all(net),
	    &so, &s));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	recv_state rs = {.s = s, .tag = WORKER_RANK, .want = 1};
	fe_poll_until(net, received, &rs, "the timed-out wave");
	int32_t v = -1;
	CHECK_OK(grove_packet_unpack(rs.got[0], "%d", &v));
	CHECK_INT_EQ(v, 0);
	grove_packet_unref(rs.got[0]);
	it_step("the timeout released rank 0's value alone");
	CHECK_OK_NET(net, grove_stream_destroy(s));
	grove_net_destroy(net);
	it_wait_attached_exit(&pid, 1, 5000);
	it_check_no_procs(NULL, 0, 5000);
}

/* A tool told of events by its callback, polling the descriptor: once
 * the callback has run, the queued copies of those events must not keep
 * the descriptor readable (a busy loop: hundreds of thousands of
 * wake-ups a second), yet grove_net_next_event still returns them. */
static void
count_event(grove_net *net, const grove_event *ev, void *arg)
{
	(void)net;
	if (ev->type == GROVE_EV_BE_ATTACHED)
		(*(uint32_t *)arg)++;
}

static int
callback_saw_all(grove_net *net, void *arg)
{
	(void)net;
	return *(uint32_t *)arg == 2;
}

static void
poll_fe_callback_case(void)
{
	it_step("--- poll-driven front-end with an event callback");
	char path[4096];
	snprintf(path, sizeof path, "%s/poll-cb.conn", it_tmpdir());
	grove_net_opts o;
	it_attach_opts(&o, "flat", 2, path);
	grove_net *net = it_net_create(&o);
	uint32_t seen = 0;
	grove_net_on_event(net, count_event, &seen);
	pid_t pids[2];
	for (uint32_t r = 0; r < 2; r++)
		pids[r] = it_start_attached_be(path, r);
	fe_poll_until(net, callback_saw_all, &seen, "arrivals by callback");

	/* A second of polling with nothing happening: only the loop's own
	 * timers (heartbeats) may wake the tool. */
	int fd = grove_net_fd(net);
	unsigned wakeups = 0;
	uint64_t end = it_now_ms() + 1000;
	while (it_now_ms() < end) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int n = poll(&pf, 1, 100);
		if (n < 0 && errno != EINTR)
			IT_FAIL("poll: %s", strerror(errno));
		if (n > 0) {
			wakeups++;
			CHECK_OK_NET(net, grove_net_progress(net));
		}
	}
	it_step("%u wake-ups in a quiet second", wakeups);
	CHECK(wakeups < 100);
	/* Without the callback, the descriptor is how the tool learns of
	 * events, the queued ones included. */
	grove_net_on_event(net, NULL, NULL);
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	CHECK(poll(&pf, 1, 0) == 1);
	grove_event ev;
	for (int i = 0; i < 2; i++) {
		CHECK_OK_NET(net, grove_net_next_event(net, &ev, 0));
		CHECK_INT_EQ(ev.type, GROVE_EV_BE_ATTACHED);
	}
	CHECK_RC_NET(net, grove_net_next_event(net, &ev, 0), GROVE_EAGAIN);
	grove_net_destroy(net);
	it_wait_attached_exit(pids, 2, 5000);
	it_check_no_procs(NULL, 0, 5000);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--poll-be"))
		return poll_be_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--flush-be"))
		return flush_be_main(argc, argv);
	it_init("it_poll_loop", 240);
	poll_be_case("flat", 4, GROVE_LOCAL_LINK_PIPE);
	poll_be_case("flat", 4, GROVE_LOCAL_LINK_SOCKET);
	poll_be_case("kary:2", 6, GROVE_LOCAL_LINK_DEFAULT);
	flush_poll_case();
	fe_flush_poll_case();
	poll_fe_case(4);
	poll_fe_timer_case();
	poll_fe_callback_case();
	return it_done();
}
