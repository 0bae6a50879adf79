/* Segmented multicast, pure parts: the size decision, cutting a frame into
 * segments, and reassembly, including every way a segment can be wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "tbon/proto.h"
#include "tbon/segment.h"

/* Collects what seg_split emits. */
typedef struct segs {
	grove_packet *p[4096];
	size_t n;
} segs;

static int
collect(void *arg, grove_packet *s)
{
	segs *c = arg;
	if (c->n == sizeof c->p / sizeof c->p[0])
		return GROVE_ENOMEM;
	c->p[c->n++] = grove_packet_ref(s);
	return 0;
}

static void
segs_free(segs *c)
{
	for (size_t i = 0; i < c->n; i++)
		grove_packet_unref(c->p[i]);
	c->n = 0;
}

static grove_packet *
data_packet(uint32_t stream, int32_t tag, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + 3);
	grove_packet *p = NULL;
	assert_int_equal(wire_pack(&p, WIRE_T_DATA, stream, tag, 77, 0,
	    "%d %auc", 5, b, (uint64_t)n), 0);
	free(b);
	return p;
}

/* A SEGMENT packet with arbitrary fields. */
static grove_packet *
seg_packet(uint32_t stream, int32_t tag, uint32_t id, uint64_t off,
    uint64_t total, const uint8_t *b, uint64_t n)
{
	grove_packet *p = NULL;
	assert_int_equal(wire_pack(&p, WIRE_T_SEGMENT, stream, tag, 77, 0,
	    PROTO_SEGMENT, id, off, total, b, n), 0);
	return p;
}

static void
test_size_for(void **state)
{
	(void)state;
	assert_int_equal(seg_size_for(0, NULL, 100), 0);
	assert_int_equal(seg_size_for(0, NULL, SEG_DEFAULT_SIZE), 0);
	assert_int_equal(seg_size_for(0, NULL, SEG_DEFAULT_SIZE + 8),
	    SEG_DEFAULT_SIZE);
	assert_int_equal(seg_auto_size(NULL, SEG_DEFAULT_SIZE + 8),
	    SEG_DEFAULT_SIZE);
	assert_int_equal(seg_size_for(SIZE_MAX, NULL, 1u << 30), 0);
	assert_int_equal(seg_size_for(4096, NULL, 4096), 0);
	assert_int_equal(seg_size_for(4096, NULL, 4104), 4096);
	/* Too small a setting is raised to the minimum. */
	assert_int_equal(seg_size_for(8, NULL, 1000), SEG_MIN_SIZE);
	/* Too large a one is cut so that a segment frame stays within
	 * WIRE_MAX_FRAME: a frame of 1 GiB - 24 bytes in pieces of 1 GiB -
	 * 32 was refused (GROVE_ERANGE) at its first segment. */
	assert_int_equal(seg_size_for(WIRE_MAX_FRAME - 32, NULL,
	    WIRE_MAX_FRAME - 24), SEG_MAX_SIZE);
	assert_int_equal(seg_size_for(SIZE_MAX - 1, NULL, SEG_MAX_SIZE + 8),
	    SEG_MAX_SIZE);
	assert_int_equal(seg_size_for(SIZE_MAX - 1, NULL, SEG_MAX_SIZE), 0);
	/* The room SEG_MAX_SIZE leaves covers a segment's framing. */
	uint8_t piece[1000] = {0};
	grove_packet *p = NULL;
	assert_int_equal(wire_pack(&p, WIRE_T_SEGMENT, 1, 0, 77, 0,
	    PROTO_SEGMENT, (uint32_t)1, (uint64_t)0, (uint64_t)UINT32_MAX,
	    piece, (uint64_t)sizeof piece), 0);
	size_t len;
	wire_packet_bytes(p, &len);
	assert_true(len - sizeof piece <= WIRE_MAX_FRAME - SEG_MAX_SIZE);
	grove_packet_unref(p);
}

/* Parameters of a fast local class and (with wan) a slow emulated one:
 * latency L, a gap of (m + 80) / bandwidth, 5 us of CPU per message. */
static grove_logp_params *
params(int wan)
{
	grove_logp_params *p = NULL;
	grove_logp_sample host[24], w[24];
	for (int i = 0; i < 24; i++) {
		double m = (double)(1ull << i);
		host[i].size = w[i].size = 1ull << i;
		host[i].os = host[i].or_ = w[i].os = w[i].or_ = 5 + m / 4000;
		host[i].g = 10 + m / 1000;
		w[i].g = (m + 80) / 1.0; /* 1 MB/s: 1 byte per microsecond */
		host[i].w = w[i].w = 0;
	}
	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_HOST, 30, host,
	    24, NULL, 0), 0);
	if (wan)
		assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_WAN,
		    10000, w, 24, NULL, 0), 0);
	return p;
}

/* Automatic sizes from the model follow the tree: pipelining pays on a
 * deep tree, not on a flat one whose links are all independent. */
static void
test_model_size(void **state)
{
	(void)state;
	char err[300];
	grove_topo *deep = NULL, *flat = NULL;
	assert_int_equal(grove_topo_generate("kary:2", 16, NULL, &deep, err,
	    sizeof err), 0);
	assert_int_equal(grove_topo_generate("flat", 3, NULL, &flat, err,
	    sizeof err), 0);
	grove_logp_params *local = params(0), *both = params(1);

	/* One cluster, a tree of depth 4 over a fast local network. */
	seg_model *sm = NULL;
	assert_int_equal(seg_model_new(local, deep, NULL, &sm, err, sizeof err),
	    0);
	assert_int_equal(sm->sys.clusters, 1);
	assert_int_equal(sm->sys.per_cluster, 17);
	assert_int_equal(sm->d_l, 2);
	size_t big = 4u << 20;
	size_t seg = seg_model_size(sm, big);
	assert_true(seg >= SEG_MIN_SIZE && seg < big);
	assert_int_equal(seg_auto_size(sm, big), seg);
	assert_int_equal(seg_size_for(0, sm, big), seg);
	/* A frame too small for two minimum segments goes whole. */
	assert_int_equal(seg_model_size(sm, 2 * SEG_MIN_SIZE - 8), 0);
	/* An explicit setting wins over the model. */
	assert_int_equal(seg_size_for(4096, sm, big), 4096);
	seg_model_free(sm);

	/* The FE in one cluster, each back-end in its own, behind the WAN:
	 * every WAN link is its own line, so segments save little (the
	 * receivers' copying overlaps) and cost a header each on the slow
	 * line: whole for a few KB, few and large segments for megabytes. */
	grove_cluster_map *m = NULL;
	assert_int_equal(grove_cluster_map_new(&m), 0);
	for (uint32_t id = 0; id < 4; id++)
		assert_int_equal(grove_cluster_map_add_range(m, id, id, id), 0);
	assert_int_equal(seg_model_new(both, flat, m, &sm, err, sizeof err), 0);
	assert_int_equal(sm->sys.clusters, 4);
	assert_int_equal(sm->sys.per_cluster, 1);
	assert_int_equal(sm->d_w, 3);
	assert_int_equal(seg_model_size(sm, 4096), 0);
	seg = seg_model_size(sm, big);
	assert_true(seg == 0 || seg >= big / 32);
	seg_model_free(sm);

	/* Clusters need a wan class. */
	assert_int_equal(seg_model_new(local, flat, m, &sm, err, sizeof err),
	    GROVE_ENOENT);
	assert_null(sm);
	assert_non_null(strstr(err, "do not describe"));
	grove_cluster_map_destroy(m);
	grove_logp_params_destroy(local);
	grove_logp_params_destroy(both);
	grove_topo_destroy(deep);
	grove_topo_destroy(flat);
}

/* Split and reassemble frames of many sizes and segment sizes. */
static void
test_roundtrip(void **state)
{
	(void)state;
	static const size_t lens[] = {0, 1, 7, 100, 1000, 4095, 4096, 4097,
	    65536, 100003};
	static const size_t sizes[] = {256, 264, 1000, 4096, 65536};
	static segs c;
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
			grove_packet *p = data_packet(3, 9, lens[i]);
			size_t total;
			const uint8_t *b = wire_packet_bytes(p, &total);
			assert_int_equal(seg_split(p, 42, sizes[j], collect, &c), 0);
			assert_int_equal(c.n, (total + sizes[j] - 1) / sizes[j]);
			seg_reasm r;
			seg_reasm_init(&r);
			char err[300];
			grove_packet *whole = NULL;
			for (size_t k = 0; k < c.n; k++) {
				const wire_hdr *h = wire_packet_hdr(c.p[k]);
				assert_int_equal(h->type, WIRE_T_SEGMENT);
				assert_int_equal(h->stream, 3);
				assert_int_equal(h->tag, 9);
				int rc = seg_reasm_push(&r, c.p[k], &whole, err,
				    sizeof err);
				assert_int_equal(rc, k + 1 == c.n ? 1 : 0);
			}
			assert_non_null(whole);
			size_t wl;
			const uint8_t *wb = wire_packet_bytes(whole, &wl);
			assert_int_equal(wl, total);
			assert_memory_equal(wb, b, total);
			assert_int_equal(grove_packet_stream(whole), 3);
			assert_int_equal(grove_packet_tag(whole), 9);
			assert_int_equal(grove_packet_src(whole), 77);
			int32_t five;
			const uint8_t *arr;
			uint64_t n;
			assert_int_equal(grove_packet_unpack(whole, "%d %auc", &five,
			    &arr, &n), 0);
			assert_int_equal(five, 5);
			assert_int_equal(n, lens[i]);
			assert_int_equal(r.n, 0);
			assert_int_equal(r.pending, 0);
			grove_packet_unref(whole);
			seg_reasm_fini(&r);
			segs_free(&c);
			grove_packet_unref(p);
		}
	}
	/* Only DATA frames are segmented. */
	grove_packet *hb = NULL;
	assert_int_equal(wire_pack(&hb, WIRE_T_HEARTBEAT, 0, 0, 0, 0, ""), 0);
	assert_int_equal(seg_split(hb, 1, 256, collect, &c), GROVE_EINVAL);
	grove_packet_unref(hb);
}

/* Two messages on two streams, their segments interleaved. */
static void
test_interleaved(void **state)
{
	(void)state;
	static segs a, b;
	grove_packet *pa = data_packet(1, 1, 3000), *pb = data_packet(2, 2, 5000);
	assert_int_equal(seg_split(pa, 7, 512, collect, &a), 0);
	assert_int_equal(seg_split(pb, 7, 512, collect, &b), 0);
	seg_reasm r;
	seg_reasm_init(&r);
	char err[300];
	grove_packet *w = NULL;
	int done_a = 0, done_b = 0;
	for (size_t k = 0; k < a.n || k < b.n; k++) {
		if (k < a.n && seg_reasm_push(&r, a.p[k], &w, err, sizeof err) == 1) {
			done_a++;
			assert_int_equal(grove_packet_size(w), grove_packet_size(pa));
			grove_packet_unref(w);
		}
		if (k < b.n && seg_reasm_push(&r, b.p[k], &w, err, sizeof err) == 1) {
			done_b++;
			assert_int_equal(grove_packet_size(w), grove_packet_size(pb));
			grove_packet_unref(w);
		}
	}
	assert_int_equal(done_a, 1);
	assert_int_equal(done_b, 1);
	seg_reasm_fini(&r);
	segs_free(&a);
	segs_free(&b);
	grove_packet_unref(pa);
	grove_packet_unref(pb);
}

/* Pushes s and expects a protocol error whose text contains want. */
static void
expect_error(seg_reasm *r, grove_packet *s, const char *want)
{
	char err[300] = "";
	grove_packet *w = NULL;
	assert_int_equal(seg_reasm_push(r, s, &w, err, sizeof err), GROVE_EPROTO);
	assert_null(w);
	assert_non_null(strstr(err, want));
	grove_packet_unref(s);
}

static void
test_errors(void **state)
{
	(void)state;
	static segs c;
	grove_packet *p = data_packet(4, 1, 2000);
	size_t total;
	const uint8_t *b = wire_packet_bytes(p, &total);
	assert_int_equal(seg_split(p, 1, 512, collect, &c), 0);
	seg_reasm r;
	seg_reasm_init(&r);
	char err[300];
	grove_packet *w = NULL;

	/* Not a segment, or a segment with the wrong payload. */
	expect_error(&r, grove_packet_ref(p), "malformed");
	grove_packet *bad = NULL;
	assert_int_equal(wire_pack(&bad, WIRE_T_SEGMENT, 4, 1, 77, 0, "%d", 1), 0);
	expect_error(&r, bad, "malformed");

	/* A message that starts in the middle. */
	expect_error(&r, seg_packet(4, 1, 1, 512, total, b + 512, 512),
	    "never begun");
	/* Impossible totals. */
	expect_error(&r, seg_packet(4, 1, 1, 0, 10, b, 8), "impossible");
	expect_error(&r, seg_packet(4, 1, 1, 0, total + 4, b, 8), "impossible");
	expect_error(&r, seg_packet(4, 1, 1, 0, (uint64_t)WIRE_MAX_FRAME + 8, b,
	    8), "impossible");
	assert_int_equal(r.n, 0);

	/* First segment fine, then a gap, a repeat, a changed total, an
	 * overrun, an empty segment: each drops the message. */
	static const struct {
		uint64_t off, total, len;
		int32_t tag;
		const char *want;
	} cases[] = {
		{1024, 0, 512, 1, "expected 512"},
		{0, 0, 512, 1, "expected 512"},
		{512, 8, 512, 1, "changes"},
		{512, 0, 512, 2, "changes"},
		{512, 0, 0, 1, "carries 0 bytes"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(seg_reasm_push(&r, c.p[0], &w, err, sizeof err), 0);
		assert_int_equal(r.n, 1);
		expect_error(&r, seg_packet(4, cases[i].tag, 1, cases[i].off,
		    total + cases[i].total, b + 512, cases[i].len), cases[i].want);
		assert_int_equal(r.n, 0);
		assert_int_equal(r.pending, 0);
	}
	/* More bytes than the total. */
	assert_int_equal(seg_reasm_push(&r, c.p[0], &w, err, sizeof err), 0);
	uint8_t *big = calloc(1, total);
	assert_non_null(big);
	expect_error(&r, seg_packet(4, 1, 1, 512, total, big, total), "carries");

	/* Bytes that complete the length but are not the announced frame:
	 * a frame of another stream, and garbage. */
	grove_packet *other = data_packet(5, 1, 2000);
	const uint8_t *ob = wire_packet_bytes(other, NULL);
	grove_packet *first = seg_packet(4, 1, 1, 0, total, ob, 512);
	assert_int_equal(seg_reasm_push(&r, first, &w, err, sizeof err), 0);
	grove_packet_unref(first);
	expect_error(&r, seg_packet(4, 1, 1, 512, total, ob + 512, total - 512),
	    "did not announce");
	expect_error(&r, seg_packet(4, 1, 1, 0, total, big, total), "one frame");
	free(big);
	grove_packet_unref(other);

	/* Too many messages in progress. */
	for (uint32_t id = 0; id < SEG_MAX_MSGS; id++) {
		grove_packet *s = seg_packet(4, 1, id + 100, 0, total, b, 512);
		assert_int_equal(seg_reasm_push(&r, s, &w, err, sizeof err), 0);
		grove_packet_unref(s);
	}
	expect_error(&r, seg_packet(4, 1, 99, 0, total, b, 512), "limits");
	assert_int_equal(r.n, SEG_MAX_MSGS);
	seg_reasm_fini(&r);
	assert_int_equal(r.n, 0);
	segs_free(&c);
	grove_packet_unref(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_for),
		cmocka_unit_test(test_model_size),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
