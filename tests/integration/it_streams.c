/* Streams: many at once with different filters, destroyed and created at
 * run time, receive on any stream, non-blocking and timed receives, the
 * poll descriptor, tags, and the "timeout" and "dont_wait" synchronization
 * filters.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define NSTREAMS 20
#define SLOW_RANK 3
#define SLOW_MS 1500
#define SYNC_TIMEOUT_MS 500

static const char *const filters[] = {"sum", "min", "max", "avg", "concat",
    "null"};
#define NFILTERS (sizeof filters / sizeof filters[0])

typedef struct st {
	grove_stream *s;
	const char *filter;
	int32_t echo; /* value sent with WORKER_ECHO on sum streams */
} st;

static void
st_open(grove_net *net, st *x, size_t i)
{
	x->filter = filters[i % NFILTERS];
	x->s = it_stream(net, NULL, x->filter, NULL);
	x->echo = (int32_t)(i + 1);
}

static void
st_send(grove_net *net, const st *x)
{
	if (!strcmp(x->filter, "sum"))
		CHECK_OK_NET(net, grove_stream_send(x->s, WORKER_ECHO, "%d",
		    x->echo));
	else if (!strcmp(x->filter, "avg"))
		CHECK_OK_NET(net, grove_stream_send(x->s, WORKER_AVG, ""));
	else
		CHECK_OK_NET(net, grove_stream_send(x->s, WORKER_RANK, ""));
}

/* Receive and check one answer of st_send. */
static void
st_check(grove_net *net, const st *x, uint32_t n)
{
	if (!strcmp(x->filter, "sum")) {
		CHECK_INT_EQ(it_recv_int(net, x->s, WORKER_ECHO),
		    (int64_t)x->echo * n);
	} else if (!strcmp(x->filter, "min")) {
		CHECK_INT_EQ(it_recv_int(net, x->s, WORKER_RANK), 0);
	} else if (!strcmp(x->filter, "max")) {
		CHECK_INT_EQ(it_recv_int(net, x->s, WORKER_RANK), n - 1);
	} else if (!strcmp(x->filter, "avg")) {
		double v;
		int32_t c;
		grove_packet *p = it_recv(net, x->s, WORKER_AVG);
		CHECK_OK(grove_packet_unpack(p, "%lf %d", &v, &c));
		CHECK_DBL_NEAR(v, n / 2.0, 1e-12);
		CHECK_INT_EQ(c, n);
		grove_packet_unref(p);
	} else if (!strcmp(x->filter, "concat")) {
		it_concat c;
		grove_packet *p = it_recv(net, x->s, WORKER_RANK);
		it_concat_decode(p, &c);
		CHECK_UINT_EQ(c.n, n);
		for (uint32_t r = 0; r < n; r++)
			CHECK_INT_EQ(c.val[r], r);
		it_concat_free(&c);
		grove_packet_unref(p);
	} else {
		/* null: every BE's packet arrives as it was sent. */
		uint64_t seen = 0;
		for (uint32_t k = 0; k < n; k++) {
			grove_packet *p = it_recv(net, x->s, WORKER_RANK);
			int32_t v;
			CHECK_OK(grove_packet_unpack(p, "%d", &v));
			CHECK(v >= 0 && (uint32_t)v < n);
			CHECK_UINT_EQ(grove_packet_src(p), v);
			CHECK(!(seen & (1ull << v)));
			seen |= 1ull << v;
			grove_packet_unref(p);
		}
	}
}

static void
concurrent_streams(grove_net *net, uint32_t n)
{
	st x[NSTREAMS];
	it_step("%d concurrent streams", NSTREAMS);
	for (size_t i = 0; i < NSTREAMS; i++)
		st_open(net, &x[i], i);

	/* All requests out before any answer is read; read in reverse. */
	for (size_t i = 0; i < NSTREAMS; i++)
		st_send(net, &x[i]);
	for (size_t i = NSTREAMS; i-- > 0;)
		st_check(net, &x[i], n);

	/* Two requests queued per stream; answers stay in order. */
	for (size_t i = 0; i < NSTREAMS; i++) {
		st_send(net, &x[i]);
		x[i].echo += 100;
		st_send(net, &x[i]);
	}
	for (size_t i = 0; i < NSTREAMS; i++) {
		x[i].echo -= 100;
		st_check(net, &x[i], n);
		x[i].echo += 100;
		st_check(net, &x[i], n);
	}

	it_step("destroy half of the streams, create new ones");
	for (size_t i = 0; i < NSTREAMS; i += 2)
		CHECK_OK_NET(net, grove_stream_destroy(x[i].s));
	for (size_t i = 0; i < NSTREAMS; i += 2)
		st_open(net, &x[i], i + 1); /* another filter than before */
	for (size_t i = 0; i < NSTREAMS; i++)
		st_send(net, &x[i]);
	for (size_t i = 0; i < NSTREAMS; i++)
		st_check(net, &x[i], n);

	/* Stream ids are unique among live streams. */
	for (size_t i = 0; i < NSTREAMS; i++)
		for (size_t j = i + 1; j < NSTREAMS; j++)
			CHECK(grove_stream_id(x[i].s) != grove_stream_id(x[j].s));
	for (size_t i = 0; i < NSTREAMS; i++)
		CHECK_OK_NET(net, grove_stream_destroy(x[i].s));
}

/* Streams created and destroyed many times over, a few alive at once:
 * every node's stream table fills with removed entries, which must
 * neither hang a lookup nor make the table grow without end. */
static void
stream_churn(grove_net *net, uint32_t n)
{
	enum { LIVE = 3, ROUNDS = 200 };
	st x[LIVE];
	it_step("%d streams created and destroyed, %d alive at a time",
	    ROUNDS, LIVE);
	for (size_t i = 0; i < LIVE; i++)
		st_open(net, &x[i], i);
	for (size_t r = 0; r < ROUNDS; r++) {
		st *y = &x[r % LIVE];
		st_send(net, y);
		st_check(net, y, n);
		CHECK_OK_NET(net, grove_stream_destroy(y->s));
		st_open(net, y, r);
	}
	for (size_t i = 0; i < LIVE; i++) {
		st_send(net, &x[i]);
		st_check(net, &x[i], n);
		CHECK_OK_NET(net, grove_stream_destroy(x[i].s));
	}
}

/* What the FE holds for a stream until the tool receives it. */
static void
queued_count(grove_net *net, uint32_t n)
{
	enum { WAVES = 100 };
	it_step("grove_stream_queued counts %d unreceived waves", WAVES);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	size_t bytes = 1;
	CHECK_UINT_EQ(grove_stream_queued(s, &bytes), 0);
	CHECK_UINT_EQ(bytes, 0);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_BURST, "%d %d", WAVES,
	    1));
	uint64_t end = it_now_ms() + IT_RECV_MS;
	while (grove_stream_queued(s, NULL) < WAVES && it_now_ms() < end) {
		CHECK_OK_NET(net, grove_net_progress(net));
		it_sleep_ms(1);
	}
	CHECK_UINT_EQ(grove_stream_queued(s, &bytes), WAVES);
	grove_packet *p = it_recv(net, s, WORKER_BURST);
	size_t one = grove_packet_size(p);
	CHECK(one > 0);
	CHECK_UINT_EQ(bytes, WAVES * one);
	grove_packet_unref(p);
	CHECK_UINT_EQ(grove_stream_queued(s, &bytes), WAVES - 1);
	CHECK_UINT_EQ(bytes, (WAVES - 1) * one);
	for (int i = 1; i < WAVES; i++)
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_BURST), (int64_t)n);
	CHECK_UINT_EQ(grove_stream_queued(s, &bytes), 0);
	CHECK_UINT_EQ(bytes, 0);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
recv_any(grove_net *net, uint32_t n)
{
	it_step("receive on any stream");
	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	grove_stream *mx = it_stream(net, NULL, "max", NULL);
	grove_stream *mn = it_stream(net, NULL, "min", NULL);
	CHECK_OK_NET(net, grove_stream_send(mn, WORKER_RANK, ""));
	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_ECHO, "%d", 5));
	CHECK_OK_NET(net, grove_stream_send(mx, WORKER_RANK, ""));
	CHECK_OK_NET(net, grove_net_send_to(net, 1, WORKER_RANK, ""));
	int got_sum = 0, got_mx = 0, got_mn = 0, got_p2p = 0;
	for (int k = 0; k < 4; k++) {
		grove_stream *s = NULL;
		grove_packet *p = NULL;
		int32_t tag = 0, v = 0;
		CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p,
		    IT_RECV_MS));
		CHECK_OK(grove_packet_unpack(p, "%d", &v));
		CHECK_INT_EQ(tag, grove_packet_tag(p));
		if (s == sum) {
			CHECK_INT_EQ(tag, WORKER_ECHO);
			CHECK_INT_EQ(v, 5 * (int64_t)n);
			got_sum++;
		} else if (s == mx) {
			CHECK_INT_EQ(tag, WORKER_RANK);
			CHECK_INT_EQ(v, n - 1);
			got_mx++;
		} else if (s == mn) {
			CHECK_INT_EQ(tag, WORKER_RANK);
			CHECK_INT_EQ(v, 0);
			got_mn++;
		} else {
			CHECK(s == NULL);
			CHECK_INT_EQ(tag, WORKER_RANK);
			CHECK_INT_EQ(v, 1);
			CHECK_UINT_EQ(grove_packet_src(p), 1);
			got_p2p++;
		}
		grove_packet_unref(p);
	}
	CHECK(got_sum == 1 && got_mx == 1 && got_mn == 1 && got_p2p == 1);

	it_step("non-blocking and timed receives on an idle network");
	grove_packet *p = NULL;
	int32_t tag;
	grove_stream *s = NULL;
	CHECK_RC(grove_stream_recv(sum, &tag, &p, 0), GROVE_EAGAIN);
	CHECK(p == NULL);
	CHECK_RC(grove_net_recv(net, &s, &tag, &p, 0), GROVE_EAGAIN);
	CHECK_RC(grove_stream_recv(sum, NULL, &p, 200), GROVE_ETIMEDOUT);
	CHECK_RC(grove_net_recv(net, &s, NULL, &p, 100), GROVE_ETIMEDOUT);
	CHECK(p == NULL);

	/* Still working after the misses. */
	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, sum, WORKER_RANK),
	    (int64_t)n * (n - 1) / 2);

	CHECK_OK_NET(net, grove_stream_destroy(sum));
	CHECK_OK_NET(net, grove_stream_destroy(mx));
	CHECK_OK_NET(net, grove_stream_destroy(mn));
}

/* A tool's own poll loop: only poll() blocks; Grove calls never do. */
static void
poll_loop(grove_net *net, uint32_t n)
{
	it_step("grove_net_fd in a poll loop");
	int fd = grove_net_fd(net);
	CHECK(fd >= 0);
	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	for (int round = 0; round < 3; round++) {
		CHECK_OK_NET(net, grove_stream_send(sum, WORKER_ECHO, "%d",
		    round + 1));
		grove_packet *p = NULL;
		int32_t tag = 0;
		int wakeups = 0;
		uint64_t end = it_now_ms() + IT_RECV_MS;
		while (!p) {
			if (it_now_ms() >= end)
				IT_FAIL("no answer through grove_net_fd after "
				    "%d ms (%d wake-ups)", IT_RECV_MS, wakeups);
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			int r = poll(&pf, 1, 1000);
			CHECK(r >= 0);
			if (r == 0)
				continue;
			CHECK(!(pf.revents & (POLLERR | POLLNVAL)));
			wakeups++;
			int rc = grove_net_progress(net);
			CHECK(rc >= 0);
			rc = grove_stream_recv(sum, &tag, &p, 0);
			if (rc != 0)
				CHECK_RC_NET(net, rc, GROVE_EAGAIN);
		}
		CHECK_INT_EQ(tag, WORKER_ECHO);
		int32_t v;
		CHECK_OK(grove_packet_unpack(p, "%d", &v));
		CHECK_INT_EQ(v, (int64_t)(round + 1) * n);
		grove_packet_unref(p);
	}
	CHECK_OK_NET(net, grove_stream_destroy(sum));
}

static void
dont_wait(grove_net *net, uint32_t n)
{
	it_step("dont_wait: one wave per packet");
	grove_stream *s = it_stream(net, NULL, "sum", "dont_wait");
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	uint64_t seen = 0;
	for (uint32_t k = 0; k < n; k++) {
		int32_t v = it_recv_int(net, s, WORKER_RANK);
		CHECK(v >= 0 && (uint32_t)v < n);
		CHECK(!(seen & (1ull << v)));
		seen |= 1ull << v;
	}
	grove_packet *p = NULL;
	CHECK_RC(grove_stream_recv(s, NULL, &p, 200), GROVE_ETIMEDOUT);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* A concat stream over every back-end under a "timeout" window of a
 * minute: longer than any test waits, so only a change of it releases a
 * wave early. */
static grove_stream *
minute_window_stream(grove_net *net)
{
	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = "concat";
	so.sync_filter = "timeout";
	so.sync_timeout_ms = 60000;
	CHECK_OK_NET(net, grove_stream_create(net, grove_net_comm_all(net),
	    &so, &s));
	return s;
}

/* One slow BE on a "timeout" stream: the others arrive as an earlier
 * partial wave, the slow one later as a wave of its own.  The stream is
 * created with a long timeout and shortened with stream parameters, so
 * the parameters must reach every node.  strict: the tree is flat, so
 * the fast BEs form exactly one wave. */
static void
timeout_sync(grove_net *net, uint32_t n, int strict)
{
	it_step("timeout sync filter (%s)", strict ? "flat" : "tree");
	grove_stream *s = minute_window_stream(net);
	CHECK_OK_NET(net, grove_stream_set_params(s, GROVE_FILTER_SYNC, "%ud",
	    (unsigned)SYNC_TIMEOUT_MS));

	/* The slow BE sleeps before it sees the stream request. */
	CHECK_OK_NET(net, grove_net_send_to(net, SLOW_RANK, WORKER_SLOW, "%d",
	    SLOW_MS));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));

	uint32_t *wave_of = calloc(n, sizeof *wave_of);
	uint32_t got = 0, waves = 0, last_size = 0;
	CHECK(wave_of != NULL);
	while (got < n) {
		grove_packet *p = it_recv(net, s, WORKER_RANK);
		it_concat c;
		it_concat_decode(p, &c);
		waves++;
		CHECK(c.n >= 1);
		for (uint64_t i = 0; i < c.n; i++) {
			int64_t r = c.val[i];
			CHECK(r >= 0 && r < n);
			CHECK_UINT_EQ(wave_of[r], 0); /* each rank once */
			wave_of[r] = waves;
		}
		got += (uint32_t)c.n;
		last_size = (uint32_t)c.n;
		it_concat_free(&c);
		grove_packet_unref(p);
	}
	CHECK_UINT_EQ(got, n);
	/* The slow one is alone in the last wave, everyone else earlier. */
	CHECK_UINT_EQ(wave_of[SLOW_RANK], waves);
	CHECK_UINT_EQ(last_size, 1);
	CHECK(waves >= 2);
	if (strict)
		CHECK_UINT_EQ(waves, 2);
	free(wave_of);

	/* The slow BE's own point-to-point answer is there too. */
	CHECK_INT_EQ(it_recv_p2p_int(net, SLOW_RANK, WORKER_SLOW), SLOW_RANK);

	/* With every BE on time, a timeout stream gives full waves. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 2));
	grove_packet *p = it_recv(net, s, WORKER_ECHO);
	it_concat c;
	it_concat_decode(p, &c);
	if (strict)
		CHECK_UINT_EQ(c.n, n);
	for (uint64_t i = 0; i < c.n; i++)
		CHECK_INT_EQ(c.val[i], 2);
	uint64_t total = c.n;
	it_concat_free(&c);
	grove_packet_unref(p);
	while (total < n) {
		p = it_recv(net, s, WORKER_ECHO);
		it_concat_decode(p, &c);
		total += c.n;
		it_concat_free(&c);
		grove_packet_unref(p);
	}
	CHECK_UINT_EQ(total, n);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* A timeout shortened while a wave waits applies to that wave at once.
 * Flat tree, so the FE itself holds the wave: the slow back-end stops
 * reading, the others answer on a stream whose window is a minute; a
 * second stream over the fast ones only proves (links keep order) that
 * the FE has read their answers.  Setting the window to 0 must release
 * the waiting wave within that call: a non-blocking receive finds it. */
static void
timeout_shortened(grove_net *net)
{
	it_step("timeout sync filter shortened while a wave waits");
	uint32_t n = grove_net_backends(net);
	grove_stream *s = minute_window_stream(net), *f = NULL;
	uint32_t fast[64];
	size_t nf = 0;
	for (uint32_t r = 0; r < n && nf < 64; r++)
		if (r != SLOW_RANK)
			fast[nf++] = r;
	grove_comm *fc = NULL;
	CHECK_OK_NET(net, grove_comm_create(net, fast, nf, &fc));
	f = it_stream(net, fc, "sum", NULL);
	CHECK_OK_NET(net, grove_net_send_to(net, SLOW_RANK, WORKER_STALL, "%d",
	    SLOW_RANK));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_OK_NET(net, grove_stream_send(f, WORKER_RANK, ""));
	grove_packet *p = it_recv(net, f, WORKER_RANK);
	grove_packet_unref(p);

	CHECK_OK_NET(net, grove_stream_set_params(s, GROVE_FILTER_SYNC, "%ud",
	    0u));
	CHECK_OK_NET(net, grove_stream_recv(s, NULL, &p, 0));
	it_concat c;
	it_concat_decode(p, &c);
	CHECK_UINT_EQ(c.n, nf);
	for (uint64_t i = 0; i < c.n; i++)
		CHECK(c.val[i] != SLOW_RANK);
	it_concat_free(&c);
	grove_packet_unref(p);
	/* The slow one comes alone when it reads again. */
	p = it_recv(net, s, WORKER_RANK);
	it_concat_decode(p, &c);
	CHECK_UINT_EQ(c.n, 1);
	CHECK_INT_EQ(c.val[0], SLOW_RANK);
	it_concat_free(&c);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(f));
	grove_comm_destroy(fc);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* Packets built by the tool and sent as they are: the FE re-addresses one
 * built for no stream; the workers echo WORKER_ECHO by sending the very
 * packet they received (grove_be_send_packet), so each echo is re-sourced
 * to the worker's rank. */
static void
send_packets(grove_net *net, uint32_t n)
{
	it_step("--- tool-built packets");
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	grove_packet *p = NULL;
	CHECK_OK(grove_packet_pack(&p, 0, WORKER_ECHO, "%d", 7));
	CHECK_OK_NET(net, grove_stream_send_packet(s, p));
	grove_packet_unref(p);
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 7 * (int64_t)n);
	grove_stream *c = it_stream(net, NULL, "concat", NULL);
	CHECK_OK(grove_packet_pack(&p, grove_stream_id(c), WORKER_ECHO, "%d", 3));
	CHECK_OK_NET(net, grove_stream_send_packet(c, p));
	grove_packet_unref(p);
	grove_packet *r = it_recv(net, c, WORKER_ECHO);
	it_concat cc;
	it_concat_decode(r, &cc);
	CHECK_UINT_EQ(cc.n, n);
	for (uint32_t i = 0; i < n; i++)
		CHECK_UINT_EQ(cc.rank[i], i);
	it_concat_free(&cc);
	grove_packet_unref(r);

	/* The source rank the back-ends see: the front-end's, whether it
	 * sent with grove_stream_send or sent a packet it built (src 0 until
	 * sent, which would name back-end 0). */
	CHECK_OK_NET(net, grove_stream_send(c, WORKER_SRC, ""));
	r = it_recv(net, c, WORKER_SRC);
	it_concat_decode(r, &cc);
	CHECK_UINT_EQ(cc.n, n);
	int64_t fe_src = cc.val[0];
	CHECK(fe_src >= n);
	it_concat_free(&cc);
	grove_packet_unref(r);
	CHECK_OK(grove_packet_pack(&p, 0, WORKER_SRC, ""));
	CHECK_UINT_EQ(grove_packet_src(p), 0);
	CHECK_OK_NET(net, grove_stream_send_packet(c, p));
	CHECK_UINT_EQ(grove_packet_src(p), 0); /* the caller's copy is as built */
	grove_packet_unref(p);
	r = it_recv(net, c, WORKER_SRC);
	it_concat_decode(r, &cc);
	CHECK_UINT_EQ(cc.n, n);
	for (uint32_t i = 0; i < n; i++)
		CHECK_INT_EQ(cc.val[i], fe_src);
	it_concat_free(&cc);
	grove_packet_unref(r);

	/* A packet the FE received and sends on keeps its origin: back-end
	 * 2's answer, passed to every back-end, names back-end 2. */
	CHECK_OK_NET(net, grove_net_send_to(net, 2, WORKER_SRC, ""));
	grove_packet *from2 = NULL;
	grove_stream *none = NULL;
	CHECK_OK_NET(net, grove_net_recv(net, &none, NULL, &from2, IT_RECV_MS));
	CHECK_UINT_EQ(grove_packet_src(from2), 2);
	CHECK_OK_NET(net, grove_stream_send_packet(c, from2));
	grove_packet_unref(from2);
	r = it_recv(net, c, WORKER_SRC);
	it_concat_decode(r, &cc);
	CHECK_UINT_EQ(cc.n, n);
	for (uint32_t i = 0; i < n; i++)
		CHECK_INT_EQ(cc.val[i], 2);
	it_concat_free(&cc);
	grove_packet_unref(r);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	CHECK_OK_NET(net, grove_stream_destroy(c));
}

int
main(void)
{
	it_init("it_streams", 150);

	grove_net *net = it_net_spawn("kary:2", 8);
	uint32_t n = grove_net_backends(net);
	CHECK_UINT_EQ(n, 8);
	concurrent_streams(net, n);
	stream_churn(net, n);
	queued_count(net, n);
	recv_any(net, n);
	poll_loop(net, n);
	dont_wait(net, n);
	timeout_sync(net, n, 0);
	send_packets(net, n);
	it_net_destroy(net);

	net = it_net_spawn("flat", 8);
	timeout_sync(net, 8, 1);
	timeout_shortened(net);
	it_net_destroy(net);
	return it_done();
}
