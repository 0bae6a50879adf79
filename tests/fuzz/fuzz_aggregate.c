/* Fuzz the aggregation decoders and filters: the input is one frame (a
 * packet as it would come off the network).  It goes to the three
 * front-end decoders (grove_timealign_decode, grove_equiv_decode with
 * every accessor, grove_report_decode with every record unpacked), and as
 * input to the "timealign", "equiv" and "report" filters, alone and next
 * to a valid packet.  Nothing may crash, leak or read out of bounds; a
 * decoded result must keep the invariants its decoder promises.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "filter/filter_impl.h"
#include "grove/aggregate.h"

#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_aggregate.c:%d: invariant broken\n", line);
	abort();
}

/* Touch every byte a decoder hands out, so the sanitizer sees reads past
 * the packet. */
static volatile uint64_t fz_sink;

static void
fz_touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		fz_sink += b[i];
}

static void
fz_timealign(const grove_packet *p)
{
	grove_timealign_interval t;
	if (grove_timealign_decode(p, &t) != 0)
		return;
	if (t.end_ns <= t.start_ns)
		fz_fail();
	fz_touch(t.sum, t.m * sizeof *t.sum);
	fz_touch(t.min, t.m * sizeof *t.min);
	fz_touch(t.max, t.m * sizeof *t.max);
	fz_touch(t.min_rank, t.m * sizeof *t.min_rank);
	fz_touch(t.max_rank, t.m * sizeof *t.max_rank);
}

static void
fz_equiv(const grove_packet *p)
{
	grove_equiv_set *e = NULL;
	if (grove_equiv_decode(p, &e) != 0) {
		if (e)
			fz_fail();
		return;
	}
	size_t n = grove_equiv_count(e);
	for (size_t c = 0; c < n; c++) {
		const char *k = grove_equiv_key(e, c);
		if (!k)
			fz_fail();
		fz_touch(k, strlen(k));
		uint32_t rep, lo, hi;
		if (grove_equiv_representative(e, c, &rep) != 0)
			fz_fail();
		if (!grove_equiv_contains(e, c, rep))
			fz_fail();
		if (grove_equiv_members(e, c) == 0)
			fz_fail();
		size_t nr = grove_equiv_nranges(e, c);
		for (size_t i = 0; i < nr; i++) {
			if (grove_equiv_range(e, c, i, &lo, &hi) != 0 || lo >= hi)
				fz_fail();
			if (!grove_equiv_contains(e, c, lo) ||
			    !grove_equiv_contains(e, c, hi - 1))
				fz_fail();
		}
		if (grove_equiv_range(e, c, nr, &lo, &hi) != GROVE_ERANGE)
			fz_fail();
		(void)grove_equiv_class_of(e, rep);
	}
	if (grove_equiv_key(e, n) != NULL)
		fz_fail();
	grove_equiv_free(e);
}

static void
fz_report(const grove_packet *p)
{
	grove_report *r = NULL;
	if (grove_report_decode(p, &r) != 0) {
		if (r)
			fz_fail();
		return;
	}
	size_t n = grove_report_count(r);
	for (size_t i = 0; i <= n; i++) {
		uint32_t rank;
		grove_packet *rec = NULL;
		int rc = grove_report_record(r, i, &rank, &rec);
		if (i == n && rc != GROVE_ERANGE)
			fz_fail();
		if (rc != 0) {
			if (rec)
				fz_fail();
			continue;
		}
		int items = grove_packet_nitems(rec);
		for (int k = 0; k < items; k++) {
			grove_item it;
			if (grove_packet_item(rec, k, &it) != 0)
				break;
			if (it.type == GROVE_T_STRING && !it.is_array)
				fz_touch(it.data, strlen(it.data));
			else if (it.type != GROVE_T_STRING)
				fz_touch(it.data, (size_t)it.count *
				    grove_type_size(it.type));
		}
		grove_packet_unref(rec);
	}
	grove_report_free(r);
}

/* The registry of built-ins, made once: a fuzzer runs millions of inputs
 * in one process and the registry never changes. */
static flt_registry *fz_registry;

static const grove_filter_place fz_place = {
	.node_id = 1, .depth = 1, .n_children = 2,
	.be_lo = 0, .be_hi = 4, .n_backends = 4, .is_fe = 0,
};

/* Run a filter on the wave in[0..n) with state; every emitted packet must
 * decode with the filter's own decoder. */
static void
fz_run(const char *name, grove_packet **in, size_t n, void **state)
{
	const flt_def *f = flt_lookup(fz_registry, name);
	if (!f)
		fz_fail();
	uint32_t child[2] = {0, 1};
	flt_out out;
	flt_out_init(&out);
	(void)flt_run(f, 7, 3, 0x80000001u, in, child, n, NULL, state,
	    &fz_place, &out);
	for (size_t i = 0; i < out.n_up; i++) {
		int rc;
		if (strcmp(name, "timealign") == 0) {
			grove_timealign_interval t;
			rc = grove_timealign_decode(out.up[i], &t);
		} else if (strcmp(name, "equiv") == 0) {
			grove_equiv_set *e = NULL;
			rc = grove_equiv_decode(out.up[i], &e);
			grove_equiv_free(e);
		} else {
			grove_report *r = NULL;
			rc = grove_report_decode(out.up[i], &r);
			grove_report_free(r);
		}
		if (rc != 0)
			fz_fail();
	}
	flt_out_fini(&out);
}

static void
fz_filters(grove_packet *p)
{
	static const char *const names[] = {"timealign", "equiv", "report"};
	double v[1] = {1};
	grove_packet *ok[3] = {NULL, NULL, NULL};
	/* A valid input of each filter, from back-end 2. */
	if (wire_pack(&ok[0], WIRE_T_DATA, 7, 3, 2, 0, "%uld %uld %alf",
	    (uint64_t)0, (uint64_t)2500000000u, v, (uint64_t)1) != 0 ||
	    wire_pack(&ok[1], WIRE_T_DATA, 7, 3, 2, 0, "%s", "key") != 0 ||
	    wire_pack(&ok[2], WIRE_T_DATA, 7, 3, 2, 0, "%d", 5) != 0)
		goto out;
	for (size_t i = 0; i < 3; i++) {
		void *state = NULL;
		grove_packet *in[2] = {p, ok[i]};
		fz_run(names[i], in, 1, &state);
		fz_run(names[i], in, 2, &state);
		in[0] = ok[i];
		in[1] = p;
		fz_run(names[i], in, 2, &state);
		flt_state_free(flt_lookup(fz_registry, names[i]), state);
	}
out:
	for (size_t i = 0; i < 3; i++)
		grove_packet_unref(ok[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fz_registry && !(fz_registry = flt_registry_new()))
		return 0;
	grove_packet *p = NULL;
	if (wire_packet_from_bytes(data, size, &p) != 0)
		return 0;
	fz_timealign(p);
	fz_equiv(p);
	fz_report(p);
	fz_filters(p);
	grove_packet_unref(p);
	return 0;
}
