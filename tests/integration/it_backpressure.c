/* Flow control: a back-end that stops reading must slow the front-end
 * down, not make it buffer without limit; nothing is lost or reordered.
 * And the other way round: back-ends bursting at a front-end that does
 * not read for a while lose nothing either.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define N 4
#define STALLED_RANK 0
#define BIG_BYTES (64u << 10)
#define BIG_COUNT 3072              /* 192 MiB to every BE */
#define ECHO_EVERY 16               /* an ordered marker every 16 */
#define RSS_BOUND (96ull << 20)     /* allowed FE growth, bytes */
#define BURST 20000
/* A tag the workers do not know: they drop such packets (with a line on
 * stderr, which goes to a log file here). */
#define TAG_BULK 199

static void
downstream(grove_net *net)
{
	it_step("FE sends %d x %u KiB while BE %d stalls", BIG_COUNT,
	    BIG_BYTES >> 10, STALLED_RANK);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	uint8_t *big = malloc(BIG_BYTES);
	CHECK(big != NULL);
	for (uint32_t i = 0; i < BIG_BYTES; i++)
		big[i] = (uint8_t)(i * 31u + 7u);

	/* Warm up: buffers and streams at their working size. */
	CHECK_OK_NET(net, grove_stream_send(s, TAG_BULK, "%auc", big,
	    (uint64_t)BIG_BYTES));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", -1));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), -N);
	size_t base = it_vm_rss(), peak = base;

	CHECK_OK_NET(net, grove_net_send_to(net, STALLED_RANK, WORKER_STALL,
	    "%d", STALLED_RANK));
	uint64_t t0 = it_now_ms();
	int32_t markers = 0;
	for (int i = 0; i < BIG_COUNT; i++) {
		int rc = grove_stream_send(s, TAG_BULK, "%auc", big,
		    (uint64_t)BIG_BYTES);
		if (rc != 0)
			IT_FAIL("send %d of %d failed: %s (%s)", i, BIG_COUNT,
			    grove_err_name(rc), grove_net_last_error(net));
		if (i % ECHO_EVERY == ECHO_EVERY - 1)
			CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO,
			    "%d", markers++));
		if (i % 64 == 0) {
			size_t rss = it_vm_rss();
			if (rss > peak)
				peak = rss;
		}
	}
	CHECK_OK_NET(net, grove_net_flush(net, IT_RECV_MS));
	uint64_t t1 = it_now_ms();
	size_t hwm = it_vm_hwm();
	if (hwm > peak)
		peak = hwm;
	it_step("sent %llu MiB in %llu ms; FE RSS %zu MiB at start, peak "
	    "%zu MiB", (unsigned long long)BIG_COUNT * BIG_BYTES >> 20,
	    (unsigned long long)(t1 - t0), base >> 20, peak >> 20);
	if (peak > base + RSS_BOUND)
		IT_FAIL("FE memory grew by %zu MiB (bound %llu MiB): no "
		    "back-pressure from the stalled BE", (peak - base) >> 20,
		    RSS_BOUND >> 20);

	/* Every marker arrives, complete and in order. */
	for (int32_t m = 0; m < markers; m++) {
		int32_t v = it_recv_int(net, s, WORKER_ECHO);
		if (v != m * N)
			IT_FAIL("marker %d: sum %d, expected %d", m, v, m * N);
	}
	grove_packet *p = NULL;
	CHECK_RC(grove_stream_recv(s, NULL, &p, 100), GROVE_ETIMEDOUT);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), N * (N - 1) / 2);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	free(big);
}

static void
upstream(grove_net *net)
{
	it_step("BEs burst %d packets each while the FE does not read",
	    BURST);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_BURST, "%d %d", BURST,
	    3));
	CHECK_OK_NET(net, grove_net_flush(net, IT_RECV_MS));
	it_sleep_ms(1000);
	for (int i = 0; i < BURST; i++) {
		int32_t v = it_recv_int(net, s, WORKER_BURST);
		if (v != 3 * N)
			IT_FAIL("wave %d of the burst: sum %d, expected %d", i,
			    v, 3 * N);
	}
	grove_packet *p = NULL;
	CHECK_RC(grove_stream_recv(s, NULL, &p, 100), GROVE_ETIMEDOUT);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* Heartbeats and paused reads.  With 200 ms heartbeats a CP is lost after
 * 1 s of silence; neither a busy tool nor Grove's own back-pressure may
 * look like silence. */
#define HB_MS 200

/* The tool does not call Grove for longer than the silence limit before
 * its network's first tick was due: its children's times are stale, they
 * are not silent. */
static void
busy_before_first_tick(void)
{
	it_step("the tool is busy for %d ms right after creating its network",
	    12 * HB_MS);
	grove_net_opts o;
	it_net_opts(&o, "kary:2", N);
	o.heartbeat_ms = HB_MS;
	grove_net *net = it_net_create(&o);
	it_sleep_ms(12 * HB_MS);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), N * (N - 1) / 2);
	grove_event ev;
	CHECK_RC(grove_net_next_event(net, &ev, 0), GROVE_EAGAIN);
	it_net_destroy(net);
}

/* A wait_for_all stream at the FE holds many waves from one CP while the
 * other CP's subtree is held up (one of its BEs stalls for 3 s): the FE
 * stops reading the first CP, whose heartbeats then wait unread.  That
 * CP must not be declared silent; every wave arrives whole. */
static void
paused_is_not_silent(void)
{
	enum { WAVES = 12000 };
	it_step("FE pauses a CP for %d s on a wait_for_all stream", 3);
	grove_net_opts o;
	it_net_opts(&o, "kary:2", N);
	o.heartbeat_ms = HB_MS;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	/* kary:2 with 4 BEs: CP 1 leads to ranks 0-1, CP 4 to ranks 2-3. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_STALL, "%d", N - 1));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_BURST, "%d %d", WAVES,
	    1));
	for (int i = 0; i < WAVES; i++) {
		int32_t v = it_recv_int(net, s, WORKER_BURST);
		if (v != N)
			IT_FAIL("wave %d: sum %d, expected %d", i, v, N);
	}
	grove_event ev;
	int rc = grove_net_next_event(net, &ev, 0);
	if (rc == 0)
		IT_FAIL("unexpected event %d (node %u, ranks %u..%u): %s",
		    (int)ev.type, ev.node, ev.rank_lo, ev.rank_hi, ev.text);
	CHECK_RC(rc, GROVE_EAGAIN);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* Two wait_for_all streams fed in opposite orders: BE 0 sends CROSS
 * packets on A then on B, BE 1 on B then on A.  Each stream's first wave
 * needs a packet that waits behind the other stream's in some link, so
 * the FE must hold one stream's packets to complete the other's waves:
 * pausing BE 0 for A while pausing BE 1 for B would hang both. */
static void
cross_streams(void)
{
	enum { COUNT = 6000 };
	it_step("two streams fed in opposite orders, %d packets each", COUNT);
	grove_net *net = it_net_spawn("flat", 2);
	grove_stream *a = it_stream(net, NULL, "sum", NULL);
	grove_stream *b = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(a, WORKER_CROSS, "%d %ud", COUNT,
	    grove_stream_id(b)));
	for (int i = 0; i < COUNT; i++)
		CHECK_INT_EQ(it_recv_int(net, a, WORKER_CROSS), 2);
	for (int i = 0; i < COUNT; i++)
		CHECK_INT_EQ(it_recv_int(net, b, WORKER_CROSS), 2);
	grove_event ev;
	CHECK_RC(grove_net_next_event(net, &ev, 0), GROVE_EAGAIN);
	it_net_destroy(net);
}

/* Large packets: a wait_for_all queue is bounded in bytes, not only in
 * packets.  BE 1 stalls for 3 s while BE 0 sends 100 MB in 100 KB packets
 * (far fewer than the packet mark): the FE stops reading BE 0 at 8 MiB.
 * The bound leaves room for ASan's quarantine (16 MiB here). */
static void
big_packets_bounded(void)
{
	enum { COUNT = 1000, BYTES = 100000 };
	it_step("BE 0 sends %d x %d bytes while BE 1 stalls", COUNT, BYTES);
	grove_net *net = it_net_spawn("flat", 2);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	size_t base = it_vm_hwm();
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_STALL, "%d", 1));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_BIG_BURST, "%d %d",
	    COUNT, BYTES));
	for (int i = 0; i < COUNT; i++) {
		grove_packet *p = it_recv(net, s, WORKER_BIG_BURST);
		grove_item it;
		CHECK_OK(grove_packet_item(p, 0, &it));
		CHECK(it.is_array && it.count == BYTES);
		const uint8_t *v = it.data;
		CHECK(v[0] == 2 && v[BYTES - 1] == 2);
		grove_packet_unref(p);
	}
	size_t peak = it_vm_hwm();
	it_step("FE peak RSS grew by %zu MiB for %d MiB sent",
	    (peak - base) >> 20, COUNT * BYTES >> 20);
	if (peak > base + (48u << 20))
		IT_FAIL("FE memory grew by %zu MiB: no byte bound on the "
		    "wait_for_all queue", (peak - base) >> 20);
	it_net_destroy(net);
}

/* Lines of the network's log that are not the expected drops. */
static void
show_log(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int shown = 0, dropped = 0;
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, "unknown tag")) {
			dropped++;
			continue;
		}
		if (shown++ < 20)
			fprintf(stderr, "network log: %s", line);
	}
	fclose(f);
	it_step("network log: %d bulk drops reported, %d other lines",
	    dropped, shown);
}

/* grove_net_opts.send_timeout_ms: with a back-end that does not read,
 * sends give up (GROVE_ETIMEDOUT after the timeout, or GROVE_EAGAIN at
 * once) with a message naming the full link, and have queued nothing:
 * once the back-end reads again it answers every send that succeeded,
 * exactly once, and a retried send goes through. */
static void
send_gives_up(int timeout_ms)
{
	enum { MIB = 1u << 20 };
	it_step("--- send_timeout_ms %d: BE 1 stalls, sends give up", timeout_ms);
	grove_net_opts o;
	it_net_opts(&o, "flat", 2);
	o.send_timeout_ms = timeout_ms;
	grove_net *net = it_net_create(&o);
	uint8_t *b = malloc(MIB);
	CHECK(b != NULL);
	for (uint32_t i = 0; i < MIB; i++)
		b[i] = (uint8_t)(i * 13u);
	uint64_t digest = worker_digest(b, MIB);
	CHECK_OK_NET(net, grove_net_send_to(net, 1, WORKER_STALL, "%d", 1));
	int rc = 0;
	unsigned sent = 0;
	while (sent < 64 && (rc = grove_net_send_to(net, 1, WORKER_DIGEST,
	    "%auc", b, (uint64_t)MIB)) == 0)
		sent++;
	CHECK_RC_NET(net, rc, timeout_ms < 0 ? GROVE_EAGAIN : GROVE_ETIMEDOUT);
	const char *e = grove_net_last_error(net);
	if (!strstr(e, "nothing sent") || !strstr(e, "back-end 1"))
		IT_FAIL("the error does not name the full link: %s", e);
	it_step("%u sends went through, then: %s", sent, e);
	CHECK(sent >= 8); /* the link's limit is 8 MiB */

	/* After the stall: a retry goes through once the link has room. */
	int retries = 0;
	while ((rc = grove_net_send_to(net, 1, WORKER_DIGEST, "%auc", b,
	    (uint64_t)MIB)) != 0) {
		CHECK_RC_NET(net, rc, timeout_ms < 0 ? GROVE_EAGAIN :
		    GROVE_ETIMEDOUT);
		CHECK(++retries < 200);
		usleep(50000);
		CHECK_OK_NET(net, grove_net_progress(net));
	}
	sent++;
	for (unsigned k = 0; k < sent; k++) {
		grove_stream *from = NULL;
		int32_t tag = 0;
		grove_packet *p = NULL;
		CHECK_OK_NET(net, grove_net_recv(net, &from, &tag, &p, IT_RECV_MS));
		CHECK_INT_EQ(tag, WORKER_DIGEST);
		uint64_t len = 0, h = 0, t = 0;
		CHECK_OK(grove_packet_unpack(p, "%uld %uld %uld", &len, &h, &t));
		CHECK_UINT_EQ(len, MIB);
		CHECK_UINT_EQ(h, digest);
		grove_packet_unref(p);
	}
	grove_stream *from = NULL;
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_net_recv(net, &from, NULL, &p, 300),
	    GROVE_ETIMEDOUT);
	it_step("%u answers, none twice", sent);

	/* A message cut into segments does not stop halfway, nor wait past
	 * the timeout: once its first segment is queued, the rest follows
	 * without waiting, and it arrives whole. */
	if (timeout_ms > 0) {
		enum { BIG = 24u << 20 };
		grove_stream_opts so;
		grove_stream *s = NULL;
		grove_stream_opts_init(&so);
		so.up_filter = "null";
		so.sync_filter = "dont_wait";
		CHECK_OK_NET(net, grove_stream_create(net,
		    grove_net_comm_all(net), &so, &s));
		uint8_t *big = malloc(BIG);
		CHECK(big != NULL);
		for (uint32_t i = 0; i < BIG; i++)
			big[i] = (uint8_t)(i * 7u);
		uint64_t big_digest = worker_digest(big, BIG);
		/* Stopped, the back-ends read nothing until the send has
		 * returned: a send that waited for them would hang here. */
		pid_t kids[4];
		size_t nk = it_descendants(kids, 4, NULL);
		CHECK(nk == 2);
		for (size_t i = 0; i < nk; i++)
			CHECK(kill(kids[i], SIGSTOP) == 0);
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_DIGEST, "%auc",
		    big, (uint64_t)BIG));
		for (size_t i = 0; i < nk; i++)
			CHECK(kill(kids[i], SIGCONT) == 0);
		free(big);
		for (int k = 0; k < 2; k++) {
			p = it_recv(net, s, WORKER_DIGEST);
			uint64_t len = 0, h = 0, t = 0;
			CHECK_OK(grove_packet_unpack(p, "%uld %uld %uld", &len,
			    &h, &t));
			CHECK_UINT_EQ(len, BIG);
			CHECK_UINT_EQ(h, big_digest);
			grove_packet_unref(p);
		}
		it_step("a segmented message sent past a stalled back-end "
		    "arrived whole at both");
		CHECK_OK_NET(net, grove_stream_destroy(s));
	}
	free(b);
	it_net_destroy(net);
}

int
main(void)
{
	char log[4096];
	it_init("it_backpressure", 150);
	/* First: it compares the process's peak memory before and after. */
	big_packets_bounded();
	cross_streams();

	/* The workers report every dropped bulk packet on stderr: send the
	 * network's stderr to a file, keep ours. */
	snprintf(log, sizeof log, "%s/network.log", it_tmpdir());
	int saved = dup(2);
	int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(saved >= 0 && lfd >= 0);
	CHECK(dup2(lfd, 2) == 2);
	grove_net_opts o;
	it_net_opts(&o, "kary:2", N);
	grove_net *net = NULL;
	int rc = grove_net_create(&o, &net);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	close(lfd);
	if (rc != 0)
		IT_FAIL("grove_net_create: %s (%s)", grove_err_name(rc),
		    net ? grove_net_last_error(net) : "");

	downstream(net);
	upstream(net);
	it_net_destroy(net);
	show_log(log);
	busy_before_first_tick();
	paused_is_not_silent();
	send_gives_up(300);
	send_gives_up(-1);
	return it_done();
}
