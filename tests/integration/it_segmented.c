/* Segmented multicast: large packets sent on a stream travel as segments
 * that the CPs forward as they arrive, and every back-end gets them back
 * byte for byte, with their tag, format and stream, in stream order.
 *
 * Each back-end answers a WORKER_DIGEST request with the length and hash
 * of the bytes it received; the test compares them with what it sent.
 * Sizes: 1 byte, a frame just below, at and just above the segment size,
 * an odd size and 4 MiB; flat and deep trees; explicit, automatic and
 * "whole" segment settings; several large messages in flight while small
 * messages on another stream interleave with them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/cluster.h"
#include "grove/logp.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define SEG 4096u          /* explicit segment size of the tests */
#define BIG (4u << 20)     /* 4 MiB */
#define ODD 1000003u       /* a prime: no segment boundary lines up */
#define INFLIGHT 3


/* Deterministic bytes that differ per message (seed). */
static uint8_t *
make_bytes(size_t n, uint32_t seed)
{
	uint8_t *b = malloc(n ? n : 1);
	CHECK(b != NULL);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
	return b;
}

/* Payload length whose "%auc" frame is exactly frame_len bytes (frames
 * are padded to 8, so frame_len must be a multiple of 8). */
static size_t
payload_for_frame(size_t frame_len)
{
	grove_packet *p = NULL;
	uint8_t one = 0;
	CHECK_OK(grove_packet_pack(&p, 0, 0, "%auc", &one, (uint64_t)1));
	size_t overhead = grove_packet_size(p) - 8; /* 1 byte padded to 8 */
	grove_packet_unref(p);
	CHECK(frame_len > overhead && frame_len % 8 == 0);
	return frame_len - overhead;
}

typedef struct sent {
	uint64_t len, hash;
} sent;

static void
send_bytes(grove_net *net, grove_stream *s, size_t n, uint32_t seed,
    sent *out)
{
	uint8_t *b = make_bytes(n, seed);
	out->len = n;
	out->hash = worker_digest(b, n);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_DIGEST, "%auc", b,
	    (uint64_t)n));
	free(b);
}

/* Receives one answer per back-end for each of want[0..k), in order per
 * back-end (a null upstream filter passes them one by one). */
static void
check_digests(grove_net *net, grove_stream *s, const sent *want, size_t k)
{
	uint32_t nb = grove_net_backends(net);
	size_t *next = calloc(nb, sizeof *next);
	CHECK(next != NULL);
	for (size_t i = 0; i < (size_t)nb * k; i++) {
		grove_packet *p = it_recv(net, s, WORKER_DIGEST);
		uint64_t len, hash, t;
		CHECK_OK(grove_packet_unpack(p, "%uld %uld %uld", &len, &hash, &t));
		uint32_t r = grove_packet_src(p);
		CHECK(r < nb);
		CHECK(next[r] < k);
		CHECK_UINT_EQ(len, want[next[r]].len);
		CHECK_UINT_EQ(hash, want[next[r]].hash);
		next[r]++;
		grove_packet_unref(p);
	}
	for (uint32_t r = 0; r < nb; r++)
		CHECK_UINT_EQ(next[r], k);
	free(next);
}

static void
one(grove_net *net, grove_stream *s, size_t n, uint32_t seed)
{
	sent w;
	send_bytes(net, s, n, seed, &w);
	check_digests(net, s, &w, 1);
}

static void
sizes(grove_net *net, const char *name)
{
	grove_stream *s = it_stream(net, NULL, "null", "dont_wait");
	CHECK_OK_NET(net, grove_stream_set_segment_size(s, SEG));
	size_t at = payload_for_frame(SEG);
	it_step("%s: 1 byte, frames of %u-8, %u, %u+8 bytes (segment size %u)",
	    name, SEG, SEG, SEG, SEG);
	one(net, s, 1, 1);
	one(net, s, at - 8, 2);   /* frame SEG - 8: whole */
	one(net, s, at - 1, 3);   /* frame SEG: whole (fits one segment) */
	one(net, s, at, 4);       /* frame SEG: whole */
	one(net, s, at + 1, 5);   /* frame SEG + 8: two segments */
	one(net, s, at + 8, 6);
	it_step("%s: odd size %u and %u bytes", name, ODD, BIG);
	one(net, s, ODD, 7);
	one(net, s, BIG, 8);
	it_step("%s: automatic segment size", name);
	CHECK_OK_NET(net, grove_stream_set_segment_size(s, GROVE_SEGMENT_AUTO));
	one(net, s, ODD, 9);
	one(net, s, BIG, 10);
	it_step("%s: segmentation off", name);
	CHECK_OK_NET(net, grove_stream_set_segment_size(s, GROVE_SEGMENT_WHOLE));
	one(net, s, ODD, 11);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* Large messages in flight on one stream while small ones on another
 * stream go between them: each stream keeps its own order. */
static void
interleaved(grove_net *net, const char *name)
{
	it_step("%s: %d large messages in flight, small ones between them",
	    name, INFLIGHT);
	uint32_t nb = grove_net_backends(net);
	grove_stream *big = it_stream(net, NULL, "null", "dont_wait");
	grove_stream *small = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_set_segment_size(big, 16384));
	static const size_t len[INFLIGHT] = {ODD, 300001, 2u << 20};
	sent w[INFLIGHT];
	for (int i = 0; i < INFLIGHT; i++) {
		CHECK_OK_NET(net, grove_stream_send(small, WORKER_ECHO, "%d", i + 1));
		send_bytes(net, big, len[i], 100 + (uint32_t)i, &w[i]);
	}
	CHECK_OK_NET(net, grove_stream_send(small, WORKER_ECHO, "%d", 99));
	for (int i = 0; i < INFLIGHT; i++)
		CHECK_INT_EQ(it_recv_int(net, small, WORKER_ECHO),
		    (int64_t)(i + 1) * nb);
	CHECK_INT_EQ(it_recv_int(net, small, WORKER_ECHO), 99 * (int64_t)nb);
	check_digests(net, big, w, INFLIGHT);
	CHECK_OK_NET(net, grove_stream_destroy(big));
	CHECK_OK_NET(net, grove_stream_destroy(small));
}

static void
bad_settings(grove_net *net)
{
	it_step("segment sizes below the minimum are refused");
	grove_stream *s = it_stream(net, NULL, "null", NULL);
	CHECK_RC_NET(net, grove_stream_set_segment_size(s, GROVE_SEGMENT_MIN - 1),
	    GROVE_EINVAL);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "minimum");
	CHECK_RC(grove_stream_set_segment_size(NULL, SEG), GROVE_EINVAL);
	CHECK_OK_NET(net, grove_stream_set_segment_size(s, GROVE_SEGMENT_MIN));
	one(net, s, 5000, 42); /* about 20 segments of the smallest size */
	CHECK_OK_NET(net, grove_stream_destroy(s));

	it_step("a stream with a downstream filter sends whole packets");
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.sync_filter = "dont_wait";
	so.down_filter = "max";
	CHECK_OK_NET(net, grove_stream_create(net, grove_net_comm_all(net), &so,
	    &s));
	CHECK_RC_NET(net, grove_stream_set_segment_size(s, SEG), GROVE_EINVAL);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "downstream filter 'max'");
	CHECK_OK_NET(net, grove_stream_set_segment_size(s, GROVE_SEGMENT_AUTO));
	one(net, s, BIG, 43); /* whole, through the filter */
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* Automatic sizes from the model: the sizes it picks reassemble like any
 * other, and parameters that do not cover the network are refused. */
static void
model_sizes(grove_net *net, const char *name)
{
	it_step("%s: automatic segment sizes from P-LogP parameters", name);
	static const char host[] = "grove-logp 1\nclass host\nL 30\n"
	    "1 5 5 10\n1048576 270 270 1060\n";
	static const char wan_only[] = "grove-logp 1\nclass wan\nL 10000\n"
	    "1 5 5 81\n1048576 270 270 1048656\n";
	grove_logp_params *p = NULL, *bad = NULL;
	char err[256];
	CHECK_OK(grove_logp_params_parse_string(host, &p, err, sizeof err));
	CHECK_OK(grove_logp_params_parse_string(wan_only, &bad, err, sizeof err));
	CHECK_RC_NET(net, grove_net_set_logp(net, bad), GROVE_ENOENT);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "do not describe");
	CHECK_OK_NET(net, grove_net_set_logp(net, p));
	grove_logp_params_destroy(p); /* the network keeps a copy */
	grove_logp_params_destroy(bad);
	grove_stream *s = it_stream(net, NULL, "null", "dont_wait");
	one(net, s, ODD, 20);
	one(net, s, BIG, 21);
	one(net, s, 100, 22);
	CHECK_OK_NET(net, grove_net_set_logp(net, NULL));
	one(net, s, ODD, 23);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

/* Over emulated WAN links (FE in one cluster, the back-ends in another):
 * segments arrive whole and in order, and grove_net_wait_sent waits for
 * the emulated line.  100 KB at 50 KB/s keep the line busy for 2 s, far
 * longer than a send takes to return, so the first check cannot race. */
static void
emulated(void)
{
	it_step("segments over emulated WAN links; waiting for the line");
	grove_cluster_map *m = NULL;
	grove_link_params wan = {0.005, 50e3};
	CHECK_OK(grove_cluster_map_new(&m));
	CHECK_OK(grove_cluster_map_set_link(m, GROVE_LINK_WAN, &wan));
	CHECK_OK(grove_cluster_map_add_range(m, 0, 0, 0));
	CHECK_OK(grove_cluster_map_add_range(m, 1, 1, 3));
	grove_net_opts o;
	it_net_opts(&o, "flat", 3);
	o.clusters = m;
	grove_net *net = it_net_create(&o);
	grove_cluster_map_destroy(m);
	grove_stream *s = it_stream(net, NULL, "null", "dont_wait");
	/* The stream's creation went down the emulated links too. */
	CHECK_OK_NET(net, grove_net_wait_sent(net, -1));
	CHECK_OK_NET(net, grove_net_wait_sent(net, 0));
	CHECK_OK_NET(net, grove_stream_set_segment_size(s, 8192));
	sent w;
	send_bytes(net, s, 100000, 77, &w);
	CHECK_RC_NET(net, grove_net_wait_sent(net, 0), GROVE_ETIMEDOUT);
	CHECK_OK_NET(net, grove_net_wait_sent(net, -1));
	CHECK_OK_NET(net, grove_net_wait_sent(net, 0));
	check_digests(net, s, &w, 1);
	CHECK_RC(grove_net_wait_sent(NULL, 0), GROVE_EINVAL);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_segmented", 240);

	grove_net *net = it_net_spawn("flat", 4);
	sizes(net, "flat");
	interleaved(net, "flat");
	bad_settings(net);
	it_net_destroy(net);

	net = it_net_spawn("kary:2", 8);
	sizes(net, "kary:2");
	interleaved(net, "kary:2");
	model_sizes(net, "kary:2");
	it_net_destroy(net);

	net = it_net_spawn("knomial:2", 6);
	sizes(net, "knomial:2");
	it_net_destroy(net);

	emulated();
	return it_done();
}
