/* Shared by the filter unit tests (test_filter*.c): packet builders for
 * every numeric type, running a filter on a wave, and where the build puts
 * the example filter module.  Each test program uses part of it. */
#ifndef GROVE_FILTER_FIXTURE_H
#define GROVE_FILTER_FIXTURE_H

#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "filter/filter_impl.h"

enum { STREAM = 7, TAG = 3, MYRANK = 99 };

/* Directory of this program: the build directory, where the example
 * filter module is built too. */
static char build_dir[PATH_MAX];

static const grove_filter_place place = {
	.node_id = 1, .depth = 1, .n_children = 4,
	.be_lo = 0, .be_hi = 16, .n_backends = 16, .is_fe = 0,
};

static const grove_type num_types[] = {
	GROVE_T_INT8, GROVE_T_UINT8, GROVE_T_INT16, GROVE_T_UINT16,
	GROVE_T_INT32, GROVE_T_UINT32, GROVE_T_INT64, GROVE_T_UINT64,
	GROVE_T_FLOAT, GROVE_T_DOUBLE,
};
#define N_NUM_TYPES (sizeof num_types / sizeof num_types[0])

static int
type_signed(grove_type t)
{
	return t == GROVE_T_INT8 || t == GROVE_T_INT16 || t == GROVE_T_INT32 ||
	    t == GROVE_T_INT64 || t == GROVE_T_FLOAT || t == GROVE_T_DOUBLE;
}

static int
type_float(grove_type t)
{
	return t == GROVE_T_FLOAT || t == GROVE_T_DOUBLE;
}

static void
put_elem(grove_type t, void *base, size_t i, double v)
{
	switch (t) {
	case GROVE_T_INT8: ((int8_t *)base)[i] = (int8_t)v; break;
	case GROVE_T_UINT8: ((uint8_t *)base)[i] = (uint8_t)v; break;
	case GROVE_T_INT16: ((int16_t *)base)[i] = (int16_t)v; break;
	case GROVE_T_UINT16: ((uint16_t *)base)[i] = (uint16_t)v; break;
	case GROVE_T_INT32: ((int32_t *)base)[i] = (int32_t)v; break;
	case GROVE_T_UINT32: ((uint32_t *)base)[i] = (uint32_t)v; break;
	case GROVE_T_INT64: ((int64_t *)base)[i] = (int64_t)v; break;
	case GROVE_T_UINT64: ((uint64_t *)base)[i] = (uint64_t)v; break;
	case GROVE_T_FLOAT: ((float *)base)[i] = (float)v; break;
	case GROVE_T_DOUBLE: ((double *)base)[i] = v; break;
	default: fail_msg("not numeric: %d", (int)t);
	}
}

#define GET(T) do { T x; memcpy(&x, (const char *)base + i * sizeof x, \
	sizeof x); return (double)x; } while (0)

static double
get_elem(grove_type t, const void *base, size_t i)
{
	switch (t) {
	case GROVE_T_INT8: GET(int8_t);
	case GROVE_T_UINT8: GET(uint8_t);
	case GROVE_T_INT16: GET(int16_t);
	case GROVE_T_UINT16: GET(uint16_t);
	case GROVE_T_INT32: GET(int32_t);
	case GROVE_T_UINT32: GET(uint32_t);
	case GROVE_T_INT64: GET(int64_t);
	case GROVE_T_UINT64: GET(uint64_t);
	case GROVE_T_FLOAT: GET(float);
	case GROVE_T_DOUBLE: GET(double);
	default: fail_msg("not numeric: %d", (int)t);
	}
	return 0;
}

static grove_packet *
mk(uint32_t src, const char *fmt, ...)
{
	grove_packet *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(&p, WIRE_T_DATA, STREAM, TAG, src, 0, fmt, ap);
	va_end(ap);
	assert_int_equal(rc, 0);
	assert_non_null(p);
	return p;
}

static grove_packet *
mk_items(uint32_t src, const grove_item *items, int n)
{
	grove_packet *p = NULL;
	assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, STREAM, TAG, src,
	    items, n), 0);
	return p;
}

/* One numeric item of type t (scalar if !is_array, then n must be 1). */
static grove_packet *
mk_num(uint32_t src, grove_type t, int is_array, const double *v, size_t n)
{
	_Alignas(8) unsigned char buf[8 * 32];
	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++)
		put_elem(t, buf, i, v[i]);
	grove_item it = {.type = t, .is_array = is_array, .count = n,
	    .data = buf};
	return mk_items(src, &it, 1);
}

/* An avg input: value (scalar or array of vt) and a scalar count of ct. */
static grove_packet *
mk_avg(uint32_t src, grove_type vt, int is_array, const double *v, size_t n,
    grove_type ct, double count)
{
	_Alignas(8) unsigned char vbuf[8 * 32], cbuf[8];
	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++)
		put_elem(vt, vbuf, i, v[i]);
	put_elem(ct, cbuf, 0, count);
	grove_item it[2] = {
		{.type = vt, .is_array = is_array, .count = n, .data = vbuf},
		{.type = ct, .is_array = 0, .count = 1, .data = cbuf},
	};
	return mk_items(src, it, 2);
}

static void
unref_all(grove_packet **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		grove_packet_unref(p[i]);
}

static int
setup(void **st)
{
	flt_registry *r = flt_registry_new();
	if (!r)
		return -1;
	*st = r;
	return 0;
}

static int
teardown(void **st)
{
	flt_registry_destroy(*st);
	return 0;
}

static int
run_def(const flt_def *f, grove_packet **in, size_t n, void **state,
    flt_out *out)
{
	uint32_t child[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++)
		child[i] = (uint32_t)i;
	return flt_run(f, STREAM, TAG, MYRANK, in, child, n, NULL, state,
	    &place, out);
}

/* Run a registered filter with a throw-away state. */
static int
run(void **st, const char *name, grove_packet **in, size_t n, flt_out *out)
{
	const flt_def *f = flt_lookup(*st, name);
	assert_non_null(f);
	void *state = NULL;
	int rc = run_def(f, in, n, &state, out);
	assert_null(state);
	return rc;
}

/* The single upstream output, with the wave's header checked. */
static grove_packet *
only_up(const flt_out *out)
{
	assert_int_equal(out->n_up, 1);
	assert_int_equal(out->n_down, 0);
	grove_packet *p = out->up[0];
	assert_int_equal(grove_packet_stream(p), STREAM);
	assert_int_equal(grove_packet_tag(p), TAG);
	assert_int_equal(grove_packet_src(p), MYRANK);
	return p;
}

static void
get_item(const grove_packet *p, int i, grove_item *it)
{
	assert_int_equal(grove_packet_item(p, i, it), 0);
}

/* Test programs are built in the build directory, next to the example
 * filter module: remember that directory in build_dir. */
static void
find_build_dir(const char *argv0)
{
	char self[PATH_MAX];
	if (!realpath(argv0, self)) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n < 0)
			n = 0;
		self[n] = '\0';
	}
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(self, sizeof self, ".");
	snprintf(build_dir, sizeof build_dir, "%s", self);
}

/* The filter must refuse the wave with GROVE_EFORMAT and emit nothing. */
static void
expect_eformat(void **st, const char *name, grove_packet **in, size_t n)
{
	flt_out out;
	flt_out_init(&out);
	int rc = run(st, name, in, n, &out);
	if (rc != GROVE_EFORMAT)
		fail_msg("%s: got %s, want GROVE_EFORMAT", name,
		    grove_err_name(rc));
	assert_int_equal(out.n_up, 0);
	flt_out_fini(&out);
}

#endif
