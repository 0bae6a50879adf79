/* Arithmetic built-in filters: sum, min, max (item by item, arrays element
 * by element) and avg (a weighted mean that stays exact across levels).
 *
 * Every numeric type is reduced in its own arithmetic.  Integer sums wrap
 * like unsigned arithmetic: the addition is done on the unsigned type so a
 * signed overflow is never undefined behaviour.  Inputs are read with
 * memcpy because a scalar inside a packet need not be aligned for its type
 * on every path (the compiler turns the copy into a plain load).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmath.h"
#include "filter/builtin.h"

enum { OP_SUM, OP_MIN, OP_MAX, OP_N_ };

/* acc[i] = op(acc[i], in[i]) for i < n. */
typedef void (*fold_fn)(void *acc, const void *in, uint64_t n);
/* acc[i] += in[i] * w (for avg, computed in double). */
typedef void (*wacc_fn)(double *acc, const void *in, uint64_t n, double w);
/* out[i] = acc[i] / total converted to the type (0 if total is 0). */
typedef void (*store_fn)(void *out, const double *acc, uint64_t n,
    double total);

#define DEF_FOLDS(NAME, T, U)                                                  \
	static void fold_sum_##NAME(void *acc, const void *in, uint64_t n)     \
	{                                                                      \
		T *a = acc;                                                    \
		const unsigned char *s = in;                                   \
		for (uint64_t i = 0; i < n; i++) {                             \
			T x;                                                   \
			memcpy(&x, s + i * sizeof x, sizeof x);                \
			a[i] = (T)((U)a[i] + (U)x);                            \
		}                                                              \
	}                                                                      \
	static void fold_min_##NAME(void *acc, const void *in, uint64_t n)     \
	{                                                                      \
		T *a = acc;                                                    \
		const unsigned char *s = in;                                   \
		for (uint64_t i = 0; i < n; i++) {                             \
			T x;                                                   \
			memcpy(&x, s + i * sizeof x, sizeof x);                \
			if (x < a[i])                                          \
				a[i] = x;                                      \
		}                                                              \
	}                                                                      \
	static void fold_max_##NAME(void *acc, const void *in, uint64_t n)     \
	{                                                                      \
		T *a = acc;                                                    \
		const unsigned char *s = in;                                   \
		for (uint64_t i = 0; i < n; i++) {                             \
			T x;                                                   \
			memcpy(&x, s + i * sizeof x, sizeof x);                \
			if (x > a[i])                                          \
				a[i] = x;                                      \
		}                                                              \
	}                                                                      \
	static void wacc_##NAME(double *acc, const void *in, uint64_t n,       \
	    double w)                                                          \
	{                                                                      \
		const unsigned char *s = in;                                   \
		for (uint64_t i = 0; i < n; i++) {                             \
			T x;                                                   \
			memcpy(&x, s + i * sizeof x, sizeof x);                \
			acc[i] += (double)x * w;                               \
		}                                                              \
	}

/* Integer results are rounded to nearest and clamped: double rounding can
 * put a mean of values near the type's limit just outside it, and an
 * out-of-range double-to-integer conversion is undefined. */
#define DEF_STORE_INT(NAME, T, MIN, MAX)                                       \
	static void store_##NAME(void *out, const double *acc, uint64_t n,     \
	    double total)                                                      \
	{                                                                      \
		T *o = out;                                                    \
		for (uint64_t i = 0; i < n; i++) {                             \
			double v = total > 0 ? fm_round(acc[i] / total) : 0;      \
			if (!(v == v))                                         \
				o[i] = 0;                                      \
			else if (v <= (double)(MIN))                           \
				o[i] = (MIN);                                  \
			else if (v >= (double)(MAX))                           \
				o[i] = (MAX);                                  \
			else                                                   \
				o[i] = (T)v;                                   \
		}                                                              \
	}

#define DEF_STORE_FLT(NAME, T)                                                 \
	static void store_##NAME(void *out, const double *acc, uint64_t n,     \
	    double total)                                                      \
	{                                                                      \
		T *o = out;                                                    \
		for (uint64_t i = 0; i < n; i++)                               \
			o[i] = total > 0 ? (T)(acc[i] / total) : (T)0;         \
	}

DEF_FOLDS(i8, int8_t, uint8_t)
DEF_FOLDS(u8, uint8_t, uint8_t)
DEF_FOLDS(i16, int16_t, uint16_t)
DEF_FOLDS(u16, uint16_t, uint16_t)
DEF_FOLDS(i32, int32_t, uint32_t)
DEF_FOLDS(u32, uint32_t, uint32_t)
DEF_FOLDS(i64, int64_t, uint64_t)
DEF_FOLDS(u64, uint64_t, uint64_t)
DEF_FOLDS(f32, float, float)
DEF_FOLDS(f64, double, double)

DEF_STORE_INT(i8, int8_t, INT8_MIN, INT8_MAX)
DEF_STORE_INT(u8, uint8_t, 0, UINT8_MAX)
DEF_STORE_INT(i16, int16_t, INT16_MIN, INT16_MAX)
DEF_STORE_INT(u16, uint16_t, 0, UINT16_MAX)
DEF_STORE_INT(i32, int32_t, INT32_MIN, INT32_MAX)
DEF_STORE_INT(u32, uint32_t, 0, UINT32_MAX)
DEF_STORE_INT(i64, int64_t, INT64_MIN, INT64_MAX)
DEF_STORE_INT(u64, uint64_t, 0, UINT64_MAX)
DEF_STORE_FLT(f32, float)
DEF_STORE_FLT(f64, double)

#define TYPE_ROW(T, NAME)                                                      \
	[GROVE_T_##T] = {                                                      \
	    {fold_sum_##NAME, fold_min_##NAME, fold_max_##NAME},               \
	    wacc_##NAME, store_##NAME}

static const struct {
	fold_fn fold[OP_N_];
	wacc_fn wacc;
	store_fn store;
} type_ops[GROVE_T_STRING + 1] = {
	TYPE_ROW(INT8, i8),
	TYPE_ROW(UINT8, u8),
	TYPE_ROW(INT16, i16),
	TYPE_ROW(UINT16, u16),
	TYPE_ROW(INT32, i32),
	TYPE_ROW(UINT32, u32),
	TYPE_ROW(INT64, i64),
	TYPE_ROW(UINT64, u64),
	TYPE_ROW(FLOAT, f32),
	TYPE_ROW(DOUBLE, f64),
};

/* Bytes of result space kept on the stack (a few scalars, short arrays). */
#define SCRATCH_SMALL 512

static int
reduce(grove_filter_call *call, int op)
{
	if (call->n_in == 0)
		return 0;
	int nitems = flt_wave_nitems(call);
	if (nitems < 0)
		return nitems;

	grove_item small_items[FLT_SMALL_ITEMS];
	grove_item *items = small_items;
	_Alignas(16) unsigned char small_buf[SCRATCH_SMALL];
	unsigned char *buf = small_buf;
	int rc = 0;
	if (nitems > FLT_SMALL_ITEMS) {
		items = malloc((size_t)nitems * sizeof *items);
		if (!items)
			return GROVE_ENOMEM;
	}

	/* First input: check types and size the result space. */
	size_t need = 0;
	for (int i = 0; i < nitems; i++) {
		rc = grove_packet_item(call->in[0], i, &items[i]);
		if (rc < 0)
			goto out;
		if (!flt_type_numeric(items[i].type)) {
			rc = GROVE_EFORMAT;
			goto out;
		}
		need += (size_t)items[i].count * grove_type_size(items[i].type);
		need = (need + 7u) & ~(size_t)7u;
	}
	if (need > sizeof small_buf) {
		buf = malloc(need);
		if (!buf) {
			rc = GROVE_ENOMEM;
			goto out;
		}
	}

	size_t off = 0;
	for (int i = 0; i < nitems; i++) {
		grove_item *it = &items[i];
		size_t bytes = (size_t)it->count * grove_type_size(it->type);
		unsigned char *acc = buf + off;
		off = (off + bytes + 7u) & ~(size_t)7u;
		if (bytes)
			memcpy(acc, it->data, bytes);
		fold_fn fold = type_ops[it->type].fold[op];
		for (size_t j = 1; j < call->n_in; j++) {
			grove_item x;
			rc = grove_packet_item(call->in[j], i, &x);
			if (rc < 0)
				goto out;
			if (x.count != it->count) {
				rc = GROVE_EFORMAT;
				goto out;
			}
			fold(acc, x.data, x.count);
		}
		it->data = acc;
	}
	rc = flt_emit_items(call, items, nitems);
out:
	if (buf != small_buf)
		free(buf);
	if (items != small_items)
		free(items);
	return rc;
}

int
flt_builtin_sum(grove_filter_call *call)
{
	return reduce(call, OP_SUM);
}

int
flt_builtin_min(grove_filter_call *call)
{
	return reduce(call, OP_MIN);
}

int
flt_builtin_max(grove_filter_call *call)
{
	return reduce(call, OP_MAX);
}

/* The count of an avg packet as an unsigned number; a negative count is
 * GROVE_ERANGE (a mean over fewer than zero samples means nothing). */
static int
avg_count(const grove_item *it, uint64_t *out)
{
	switch (it->type) {
	case GROVE_T_INT32: {
		int32_t v;
		memcpy(&v, it->data, sizeof v);
		if (v < 0)
			return GROVE_ERANGE;
		*out = (uint64_t)v;
		return 0;
	}
	case GROVE_T_UINT32: {
		uint32_t v;
		memcpy(&v, it->data, sizeof v);
		*out = v;
		return 0;
	}
	case GROVE_T_INT64: {
		int64_t v;
		memcpy(&v, it->data, sizeof v);
		if (v < 0)
			return GROVE_ERANGE;
		*out = (uint64_t)v;
		return 0;
	}
	case GROVE_T_UINT64:
		memcpy(out, it->data, sizeof *out);
		return 0;
	default:
		return GROVE_EFORMAT;
	}
}

static uint64_t
count_max(grove_type t)
{
	switch (t) {
	case GROVE_T_INT32:
		return INT32_MAX;
	case GROVE_T_UINT32:
		return UINT32_MAX;
	case GROVE_T_INT64:
		return INT64_MAX;
	default:
		return UINT64_MAX;
	}
}

/* Doubles of accumulator kept on the stack. */
#define AVG_SMALL 32

int
flt_builtin_avg(grove_filter_call *call)
{
	if (call->n_in == 0)
		return 0;
	int nitems = flt_wave_nitems(call);
	if (nitems < 0)
		return nitems;
	if (nitems != 2)
		return GROVE_EFORMAT;

	grove_item val, cnt;
	int rc = grove_packet_item(call->in[0], 0, &val);
	if (rc == 0)
		rc = grove_packet_item(call->in[0], 1, &cnt);
	if (rc < 0)
		return rc;
	if (!flt_type_numeric(val.type) || cnt.is_array)
		return GROVE_EFORMAT;
	uint64_t dummy;
	if ((rc = avg_count(&cnt, &dummy)) == GROVE_EFORMAT)
		return rc;

	uint64_t n = val.count;
	size_t vbytes = (size_t)n * grove_type_size(val.type);
	double small_acc[AVG_SMALL];
	double *acc = small_acc;
	_Alignas(8) unsigned char small_res[AVG_SMALL * sizeof(uint64_t)];
	unsigned char *res = small_res;
	if (n > AVG_SMALL) {
		acc = calloc((size_t)n, sizeof *acc);
		if (!acc)
			return GROVE_ENOMEM;
	} else {
		memset(small_acc, 0, sizeof small_acc);
	}

	wacc_fn wacc = type_ops[val.type].wacc;
	uint64_t total = 0;
	for (size_t j = 0; j < call->n_in; j++) {
		grove_item v = val, c = cnt;
		if (j > 0) {
			rc = grove_packet_item(call->in[j], 0, &v);
			if (rc == 0)
				rc = grove_packet_item(call->in[j], 1, &c);
			if (rc < 0)
				goto out;
		}
		if (v.count != n) {
			rc = GROVE_EFORMAT;
			goto out;
		}
		uint64_t cj;
		if ((rc = avg_count(&c, &cj)) < 0)
			goto out;
		if (cj > count_max(c.type) - total) {
			rc = GROVE_ERANGE; /* the total count does not fit */
			goto out;
		}
		total += cj;
		if (cj)
			wacc(acc, v.data, n, (double)cj);
	}

	if (vbytes > sizeof small_res) {
		res = malloc(vbytes);
		if (!res) {
			rc = GROVE_ENOMEM;
			goto out;
		}
	}
	type_ops[val.type].store(res, acc, n, (double)total);

	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} tc;
	switch (cnt.type) {
	case GROVE_T_INT32:
		tc.i32 = (int32_t)total;
		break;
	case GROVE_T_UINT32:
		tc.u32 = (uint32_t)total;
		break;
	case GROVE_T_INT64:
		tc.i64 = (int64_t)total;
		break;
	default:
		tc.u64 = total;
		break;
	}
	grove_item outs[2] = {val, cnt};
	outs[0].data = res;
	outs[1].data = &tc;
	rc = flt_emit_items(call, outs, 2);
out:
	if (res != small_res)
		free(res);
	if (acc != small_acc)
		free(acc);
	return rc;
}
