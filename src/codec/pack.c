/* Typed packing (include/grove/pack.h): a packer collects items and
 * builds the packet with the codec's encoder; an unpacker reads the
 * decoded item table of a packet, checking each item's type.
 *
 * The public names are also type-checking macros in C; definitions here
 * put them in parentheses so that the macros do not apply. */
#include "grove/pack.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_err.h"
#include "codec/codec_impl.h"

/* A scalar's value, kept in the packer until finish points its item at
 * it (the value array may move while it grows). */
union pk_val {
	int8_t i8;
	uint8_t u8;
	int16_t i16;
	uint16_t u16;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	float f;
	double d;
};

struct grove_packer {
	grove_item *items;
	union pk_val *vals;
	int n, cap;
	int err; /* first error of the appends since the last finish */
};

int
(grove_packer_create)(grove_packer **out)
{
	if (!out)
		return codec_fail(GROVE_EINVAL, "grove_packer_create: out is "
		    "NULL");
	*out = calloc(1, sizeof **out);
	if (!*out)
		return codec_fail(GROVE_ENOMEM, "grove_packer_create: out of "
		    "memory");
	return 0;
}

void
(grove_packer_destroy)(grove_packer *pk)
{
	if (!pk)
		return;
	free(pk->items);
	free(pk->vals);
	free(pk);
}

void
(grove_packer_reset)(grove_packer *pk)
{
	if (pk) {
		pk->n = 0;
		pk->err = 0;
	}
}

/* Room for one more item: its index, or a negative error (sticky). */
static int
pk_slot(grove_packer *pk, const char *fn)
{
	if (!pk)
		return codec_fail(GROVE_EINVAL, "%s: the packer is NULL", fn);
	if (pk->err)
		return pk->err;
	if (pk->n == pk->cap) {
		int cap = pk->cap ? pk->cap * 2 : 8;
		grove_item *it = realloc(pk->items, (size_t)cap * sizeof *it);
		if (it)
			pk->items = it;
		union pk_val *v = it ? realloc(pk->vals,
		    (size_t)cap * sizeof *v) : NULL;
		if (!it || !v)
			return pk->err = codec_fail(GROVE_ENOMEM, "%s: item %d: "
			    "out of memory", fn, pk->n + 1);
		pk->vals = v;
		pk->cap = cap;
	}
	return pk->n;
}

static int
pk_scalar(grove_packer *pk, const char *fn, grove_type t,
    union pk_val v)
{
	int i = pk_slot(pk, fn);
	if (i < 0)
		return i;
	pk->vals[i] = v;
	/* data is set by finish: vals may still move. */
	pk->items[i] = (grove_item){.type = t, .is_array = 0, .count = 1};
	pk->n++;
	return 0;
}

static int
pk_array(grove_packer *pk, const char *fn, grove_type t, const void *v,
    uint64_t count)
{
	int i = pk_slot(pk, fn);
	if (i < 0)
		return i;
	if (!v && count) {
		char d[48];
		codec_describe(d, sizeof d, t, 1);
		return pk->err = codec_fail(GROVE_EINVAL, "%s: item %d (%s): "
		    "the array is NULL but its count is %llu", fn, i + 1, d,
		    (unsigned long long)count);
	}
	pk->items[i] = (grove_item){.type = t, .is_array = 1, .count = count,
	    .data = v};
	pk->n++;
	return 0;
}

int
(grove_pack_int8)(grove_packer *pk, int8_t v)
{
	return pk_scalar(pk, "grove_pack_int8", GROVE_T_INT8,
	    (union pk_val){.i8 = v});
}

int
(grove_pack_array_int8)(grove_packer *pk, const int8_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_int8", GROVE_T_INT8, v, count);
}

int
(grove_pack_uint8)(grove_packer *pk, uint8_t v)
{
	return pk_scalar(pk, "grove_pack_uint8", GROVE_T_UINT8,
	    (union pk_val){.u8 = v});
}

int
(grove_pack_array_uint8)(grove_packer *pk, const uint8_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_uint8", GROVE_T_UINT8, v, count);
}

int
(grove_pack_int16)(grove_packer *pk, int16_t v)
{
	return pk_scalar(pk, "grove_pack_int16", GROVE_T_INT16,
	    (union pk_val){.i16 = v});
}

int
(grove_pack_array_int16)(grove_packer *pk, const int16_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_int16", GROVE_T_INT16, v, count);
}

int
(grove_pack_uint16)(grove_packer *pk, uint16_t v)
{
	return pk_scalar(pk, "grove_pack_uint16", GROVE_T_UINT16,
	    (union pk_val){.u16 = v});
}

int
(grove_pack_array_uint16)(grove_packer *pk, const uint16_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_uint16", GROVE_T_UINT16, v, count);
}

int
(grove_pack_int32)(grove_packer *pk, int32_t v)
{
	return pk_scalar(pk, "grove_pack_int32", GROVE_T_INT32,
	    (union pk_val){.i32 = v});
}

int
(grove_pack_array_int32)(grove_packer *pk, const int32_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_int32", GROVE_T_INT32, v, count);
}

int
(grove_pack_uint32)(grove_packer *pk, uint32_t v)
{
	return pk_scalar(pk, "grove_pack_uint32", GROVE_T_UINT32,
	    (union pk_val){.u32 = v});
}

int
(grove_pack_array_uint32)(grove_packer *pk, const uint32_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_uint32", GROVE_T_UINT32, v, count);
}

int
(grove_pack_int64)(grove_packer *pk, int64_t v)
{
	return pk_scalar(pk, "grove_pack_int64", GROVE_T_INT64,
	    (union pk_val){.i64 = v});
}

int
(grove_pack_array_int64)(grove_packer *pk, const int64_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_int64", GROVE_T_INT64, v, count);
}

int
(grove_pack_uint64)(grove_packer *pk, uint64_t v)
{
	return pk_scalar(pk, "grove_pack_uint64", GROVE_T_UINT64,
	    (union pk_val){.u64 = v});
}

int
(grove_pack_array_uint64)(grove_packer *pk, const uint64_t *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_uint64", GROVE_T_UINT64, v, count);
}

int
(grove_pack_float)(grove_packer *pk, float v)
{
	return pk_scalar(pk, "grove_pack_float", GROVE_T_FLOAT,
	    (union pk_val){.f = v});
}

int
(grove_pack_array_float)(grove_packer *pk, const float *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_float", GROVE_T_FLOAT, v, count);
}

int
(grove_pack_double)(grove_packer *pk, double v)
{
	return pk_scalar(pk, "grove_pack_double", GROVE_T_DOUBLE,
	    (union pk_val){.d = v});
}

int
(grove_pack_array_double)(grove_packer *pk, const double *v, uint64_t count)
{
	return pk_array(pk, "grove_pack_array_double", GROVE_T_DOUBLE, v, count);
}

int
(grove_pack_string)(grove_packer *pk, const char *s)
{
	int i = pk_slot(pk, "grove_pack_string");
	if (i < 0)
		return i;
	if (!s)
		return pk->err = codec_fail(GROVE_EINVAL, "grove_pack_string: "
		    "item %d (string (%%s)): the string is NULL", i + 1);
	pk->items[i] = (grove_item){.type = GROVE_T_STRING, .is_array = 0,
	    .count = 1, .data = s};
	pk->n++;
	return 0;
}

int
(grove_pack_array_string)(grove_packer *pk, const char *const *v,
    uint64_t count)
{
	return pk_array(pk, "grove_pack_array_string", GROVE_T_STRING, v,
	    count);
}

int
(grove_packer_finish)(grove_packer *pk, uint32_t stream_id, int32_t tag,
    grove_packet **out)
{
	if (!out)
		return codec_fail(GROVE_EINVAL, "grove_packer_finish: out is "
		    "NULL");
	*out = NULL;
	if (!pk)
		return codec_fail(GROVE_EINVAL, "grove_packer_finish: the "
		    "packer is NULL");
	int rc = pk->err;
	if (rc == 0) {
		for (int i = 0; i < pk->n; i++)
			if (!pk->items[i].is_array &&
			    pk->items[i].type != GROVE_T_STRING)
				pk->items[i].data = &pk->vals[i];
		rc = wire_pack_items(out, WIRE_T_DATA, stream_id, tag, 0,
		    pk->items, pk->n);
		if (rc == 0)
			(*out)->src_unset = 1; /* as grove_packet_pack's */
	}
	(grove_packer_reset)(pk);
	return rc;
}

/* ---- unpacking ------------------------------------------------------ */

void
(grove_unpacker_init)(grove_unpacker *u, const grove_packet *p)
{
	if (!u)
		return;
	u->packet = p;
	u->next = 0;
	u->err = p ? 0 : codec_fail(GROVE_EINVAL, "grove_unpacker_init: the "
	    "packet is NULL");
}

/* The next item if it has type t (array or not), else a sticky error
 * that names the item and both types. */
static int
up_next(grove_unpacker *u, const char *fn, grove_type t, int is_array,
    const grove_item **out)
{
	if (!u)
		return codec_fail(GROVE_EINVAL, "%s: the unpacker is NULL", fn);
	if (u->err)
		return u->err;
	const grove_packet *p = u->packet;
	char want[48], have[48];
	codec_describe(want, sizeof want, t, is_array);
	if (u->next >= p->nitems)
		return u->err = codec_fail(GROVE_EFORMAT, "%s: item %d: the "
		    "packet \"%.64s\" has only %d item%s, %s asked for", fn,
		    u->next + 1, p->fmt, p->nitems, p->nitems == 1 ? "" : "s",
		    want);
	const codec_table *tab;
	int rc = codec_table_get(p, &tab);
	if (rc < 0)
		return u->err = rc; /* the last error says what is corrupt */
	const grove_item *it = &tab->items[u->next];
	if (it->type != t || (it->is_array != 0) != (is_array != 0)) {
		codec_describe(have, sizeof have, it->type, it->is_array);
		return u->err = codec_fail(GROVE_EFORMAT, "%s: item %d: the "
		    "packet holds %s, the call asks for %s (packet \"%.64s\")",
		    fn, u->next + 1, have, want, p->fmt);
	}
	u->next++;
	*out = it;
	return 0;
}

static int
up_scalar(grove_unpacker *u, const char *fn, grove_type t, void *out)
{
	const grove_item *it = NULL;
	int rc = up_next(u, fn, t, 0, &it);
	if (rc == 0 && out)
		memcpy(out, it->data, codec_type_size(t));
	return rc;
}

static int
up_array(grove_unpacker *u, const char *fn, grove_type t, const void **v,
    uint64_t *count)
{
	const grove_item *it = NULL;
	int rc = up_next(u, fn, t, 1, &it);
	if (rc == 0) {
		if (v)
			*v = it->data;
		if (count)
			*count = it->count;
	}
	return rc;
}

int
(grove_unpack_int8)(grove_unpacker *u, int8_t *out)
{
	return up_scalar(u, "grove_unpack_int8", GROVE_T_INT8, out);
}

int
(grove_unpack_array_int8)(grove_unpacker *u, const int8_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_int8", GROVE_T_INT8, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_uint8)(grove_unpacker *u, uint8_t *out)
{
	return up_scalar(u, "grove_unpack_uint8", GROVE_T_UINT8, out);
}

int
(grove_unpack_array_uint8)(grove_unpacker *u, const uint8_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_uint8", GROVE_T_UINT8, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_int16)(grove_unpacker *u, int16_t *out)
{
	return up_scalar(u, "grove_unpack_int16", GROVE_T_INT16, out);
}

int
(grove_unpack_array_int16)(grove_unpacker *u, const int16_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_int16", GROVE_T_INT16, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_uint16)(grove_unpacker *u, uint16_t *out)
{
	return up_scalar(u, "grove_unpack_uint16", GROVE_T_UINT16, out);
}

int
(grove_unpack_array_uint16)(grove_unpacker *u, const uint16_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_uint16", GROVE_T_UINT16, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_int32)(grove_unpacker *u, int32_t *out)
{
	return up_scalar(u, "grove_unpack_int32", GROVE_T_INT32, out);
}

int
(grove_unpack_array_int32)(grove_unpacker *u, const int32_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_int32", GROVE_T_INT32, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_uint32)(grove_unpacker *u, uint32_t *out)
{
	return up_scalar(u, "grove_unpack_uint32", GROVE_T_UINT32, out);
}

int
(grove_unpack_array_uint32)(grove_unpacker *u, const uint32_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_uint32", GROVE_T_UINT32, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_int64)(grove_unpacker *u, int64_t *out)
{
	return up_scalar(u, "grove_unpack_int64", GROVE_T_INT64, out);
}

int
(grove_unpack_array_int64)(grove_unpacker *u, const int64_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_int64", GROVE_T_INT64, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_uint64)(grove_unpacker *u, uint64_t *out)
{
	return up_scalar(u, "grove_unpack_uint64", GROVE_T_UINT64, out);
}

int
(grove_unpack_array_uint64)(grove_unpacker *u, const uint64_t **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_uint64", GROVE_T_UINT64, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_float)(grove_unpacker *u, float *out)
{
	return up_scalar(u, "grove_unpack_float", GROVE_T_FLOAT, out);
}

int
(grove_unpack_array_float)(grove_unpacker *u, const float **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_float", GROVE_T_FLOAT, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_double)(grove_unpacker *u, double *out)
{
	return up_scalar(u, "grove_unpack_double", GROVE_T_DOUBLE, out);
}

int
(grove_unpack_array_double)(grove_unpacker *u, const double **v, uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_double", GROVE_T_DOUBLE, &d, count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_string)(grove_unpacker *u, const char **out)
{
	const grove_item *it = NULL;
	int rc = up_next(u, "grove_unpack_string", GROVE_T_STRING, 0, &it);
	if (rc == 0 && out)
		*out = it->data;
	return rc;
}

int
(grove_unpack_array_string)(grove_unpacker *u, const char *const **v,
    uint64_t *count)
{
	const void *d;
	int rc = up_array(u, "grove_unpack_array_string", GROVE_T_STRING, &d,
	    count);
	if (rc == 0 && v)
		*v = d;
	return rc;
}

int
(grove_unpack_array_icount)(grove_unpacker *u, grove_type t, void *v,
    int *count)
{
	if (!codec_type_name(t))
		return codec_fail(GROVE_EINVAL, "grove_unpack_array_icount: "
		    "%d is not a grove_type", (int)t);
	const grove_item *it = NULL;
	int rc = up_next(u, "grove_unpack_array (int count)", t, 1, &it);
	if (rc < 0)
		return rc;
	/* Cannot happen while frames are at most 1 GiB (WIRE_MAX_FRAME),
	 * but the count is not truncated if that limit ever grows. */
	if (it->count > INT_MAX) {
		char d[48];
		codec_describe(d, sizeof d, t, 1);
		return u->err = codec_fail(GROVE_ERANGE, "unpack: item %d (%s): "
		    "%llu elements do not fit the int count (use a uint64_t)",
		    u->next, d, (unsigned long long)it->count);
	}
	/* v is the address of a const T *: every object pointer has the
	 * representation of a void * on the platforms Grove runs on. */
	if (v)
		memcpy(v, &it->data, sizeof it->data);
	if (count)
		*count = (int)it->count;
	return 0;
}

int
(grove_unpacker_finish)(grove_unpacker *u)
{
	if (!u)
		return codec_fail(GROVE_EINVAL, "grove_unpacker_finish: the "
		    "unpacker is NULL");
	if (u->err)
		return u->err;
	const grove_packet *p = u->packet;
	if (u->next < p->nitems)
		return u->err = codec_fail(GROVE_EFORMAT, "unpack: %d of the %d "
		    "items of packet \"%.64s\" were read, item %d and on were "
		    "not", u->next, p->nitems, p->fmt, u->next + 1);
	return 0;
}
