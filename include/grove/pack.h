/* Grove typed packing: build and read packets with one function per item
 * type, so that the compiler checks every value's type.
 *
 * The format-string API of grove/packet.h (grove_packet_pack, MRNet's
 * style) cannot be checked: C passes "..." arguments unconverted, so an
 * int given for %lf packs garbage and an int given for %s crashes.  Here
 * each item has its own function, and in C each function name is also a
 * macro that refuses, at compile time, a value whose type is not exactly
 * the item's (an int for grove_pack_double, an int64_t for
 * grove_pack_int32, an int * for grove_unpack_int64).  Cast when a
 * conversion is meant: grove_pack_int64(pk, (int64_t)n).  The packets
 * are the same: a packet built here unpacks with grove_packet_unpack and
 * the format its items spell ("%d %lf %s"), and the other way round.
 *
 *   grove_packer *pk;                     // once; reusable
 *   grove_packer_create(&pk);
 *   grove_pack_int32(pk, rank);           // %d
 *   grove_pack_double(pk, mean);          // %lf
 *   grove_pack_array_double(pk, v, n);    // %alf, n of any integer type
 *   rc = grove_packer_finish(pk, stream_id, tag, &p);
 *
 *   grove_unpacker u;                     // a cursor, nothing to free
 *   grove_unpacker_init(&u, p);
 *   grove_unpack_int32(&u, &rank);
 *   grove_unpack_double(&u, &mean);
 *   grove_unpack_array_double(&u, &v, &n); // n: uint64_t, or int
 *   rc = grove_unpacker_finish(&u);       // first error, or 0
 *
 * Errors are sticky: after a failing call the others do nothing and
 * return the same error, and finish returns it, so checking finish is
 * enough.  Each error leaves a message in grove_packet_last_error()
 * (grove/packet.h): which item (counted from 1), the type the packet
 * holds and the type asked for.
 *
 * Array counts: packing takes a uint64_t count, so an int count (MRNet's
 * habit) converts as any argument does; a negative one is refused
 * (GROVE_ERANGE).  Unpacking writes the count to a uint64_t *, or in C
 * also to an int * (a packet is at most 1 GiB, so any count fits).
 *
 * Everything given by pointer (strings, arrays) is read when the packet
 * is built, by grove_packer_finish: it must stay valid until then.
 * Everything unpacked by pointer points into the packet and stays valid
 * until its last reference is dropped.
 *
 * GROVE_PACK(pk, v), GROVE_PACK_ARRAY(pk, v, n) and GROVE_UNPACK(u, &v)
 * (C only) pick the function from v's type; a type with no item type
 * (long long where int64_t is long, a struct) does not compile.
 */
#ifndef GROVE_PACK_H
#define GROVE_PACK_H

#include <stdint.h>

#include "grove/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A packet under construction: owns its item list, reused after each
 * finish. */
typedef struct grove_packer grove_packer;

int grove_packer_create(grove_packer **out);
void grove_packer_destroy(grove_packer *pk); /* NULL is ignored */

/* Build the packet of the items appended so far (*out: a new reference,
 * as grove_packet_pack gives) and empty the packer for the next one,
 * also when it fails.  Returns the first error of the appends, if any. */
int grove_packer_finish(grove_packer *pk, uint32_t stream_id, int32_t tag,
    grove_packet **out);
/* Drop the items appended so far and any error. */
void grove_packer_reset(grove_packer *pk);

/* Append one item (the conversion it packs as in the comment). */
int grove_pack_int8(grove_packer *pk, int8_t v);        /* %c */
int grove_pack_uint8(grove_packer *pk, uint8_t v);      /* %uc */
int grove_pack_int16(grove_packer *pk, int16_t v);      /* %hd */
int grove_pack_uint16(grove_packer *pk, uint16_t v);    /* %uhd */
int grove_pack_int32(grove_packer *pk, int32_t v);      /* %d */
int grove_pack_uint32(grove_packer *pk, uint32_t v);    /* %ud */
int grove_pack_int64(grove_packer *pk, int64_t v);      /* %ld */
int grove_pack_uint64(grove_packer *pk, uint64_t v);    /* %uld */
int grove_pack_float(grove_packer *pk, float v);        /* %f */
int grove_pack_double(grove_packer *pk, double v);      /* %lf */
int grove_pack_string(grove_packer *pk, const char *s); /* %s */
/* Arrays (%a...): count elements at v (NULL allowed for 0). */
int grove_pack_array_int8(grove_packer *pk, const int8_t *v,
    uint64_t count);
int grove_pack_array_uint8(grove_packer *pk, const uint8_t *v,
    uint64_t count);
int grove_pack_array_int16(grove_packer *pk, const int16_t *v,
    uint64_t count);
int grove_pack_array_uint16(grove_packer *pk, const uint16_t *v,
    uint64_t count);
int grove_pack_array_int32(grove_packer *pk, const int32_t *v,
    uint64_t count);
int grove_pack_array_uint32(grove_packer *pk, const uint32_t *v,
    uint64_t count);
int grove_pack_array_int64(grove_packer *pk, const int64_t *v,
    uint64_t count);
int grove_pack_array_uint64(grove_packer *pk, const uint64_t *v,
    uint64_t count);
int grove_pack_array_float(grove_packer *pk, const float *v,
    uint64_t count);
int grove_pack_array_double(grove_packer *pk, const double *v,
    uint64_t count);
int grove_pack_array_string(grove_packer *pk, const char *const *v,
    uint64_t count);

/* A read cursor over a packet: caller-owned, nothing to free.  The
 * fields are private; read them through the functions. */
typedef struct grove_unpacker {
	const grove_packet *packet;
	int next; /* index of the next item */
	int err;  /* first error, sticky */
} grove_unpacker;

void grove_unpacker_init(grove_unpacker *u, const grove_packet *p);
/* 0 when every item was read without error; else the first error, or
 * GROVE_EFORMAT when items were left unread (with a message). */
int grove_unpacker_finish(grove_unpacker *u);

/* Read the next item; GROVE_EFORMAT when it has another type or there is
 * none.  NULL outputs skip the value (the type is still checked). */
int grove_unpack_int8(grove_unpacker *u, int8_t *out);
int grove_unpack_uint8(grove_unpacker *u, uint8_t *out);
int grove_unpack_int16(grove_unpacker *u, int16_t *out);
int grove_unpack_uint16(grove_unpacker *u, uint16_t *out);
int grove_unpack_int32(grove_unpacker *u, int32_t *out);
int grove_unpack_uint32(grove_unpacker *u, uint32_t *out);
int grove_unpack_int64(grove_unpacker *u, int64_t *out);
int grove_unpack_uint64(grove_unpacker *u, uint64_t *out);
int grove_unpack_float(grove_unpacker *u, float *out);
int grove_unpack_double(grove_unpacker *u, double *out);
int grove_unpack_string(grove_unpacker *u, const char **out);
int grove_unpack_array_int8(grove_unpacker *u, const int8_t **v,
    uint64_t *count);
int grove_unpack_array_uint8(grove_unpacker *u, const uint8_t **v,
    uint64_t *count);
int grove_unpack_array_int16(grove_unpacker *u, const int16_t **v,
    uint64_t *count);
int grove_unpack_array_uint16(grove_unpacker *u, const uint16_t **v,
    uint64_t *count);
int grove_unpack_array_int32(grove_unpacker *u, const int32_t **v,
    uint64_t *count);
int grove_unpack_array_uint32(grove_unpacker *u, const uint32_t **v,
    uint64_t *count);
int grove_unpack_array_int64(grove_unpacker *u, const int64_t **v,
    uint64_t *count);
int grove_unpack_array_uint64(grove_unpacker *u, const uint64_t **v,
    uint64_t *count);
int grove_unpack_array_float(grove_unpacker *u, const float **v,
    uint64_t *count);
int grove_unpack_array_double(grove_unpacker *u, const double **v,
    uint64_t *count);
int grove_unpack_array_string(grove_unpacker *u, const char *const **v,
    uint64_t *count);
/* An array of element type t with an int count (what the C macros call
 * for an int *count; GROVE_ERANGE if the count exceeded INT_MAX, which
 * the 1 GiB packet limit rules out).  v is
 * the address of a const T * for the type t. */
int grove_unpack_array_icount(grove_unpacker *u, grove_type t, void *v,
    int *count);

#ifdef __cplusplus
}

/* C++: a value of another type (an int for grove_pack_double) picks the
 * deleted template rather than converting, so it does not compile. */
template <typename T> int grove_pack_int8(grove_packer *, T) = delete;
template <typename T> int grove_pack_uint8(grove_packer *, T) = delete;
template <typename T> int grove_pack_int16(grove_packer *, T) = delete;
template <typename T> int grove_pack_uint16(grove_packer *, T) = delete;
template <typename T> int grove_pack_int32(grove_packer *, T) = delete;
template <typename T> int grove_pack_uint32(grove_packer *, T) = delete;
template <typename T> int grove_pack_int64(grove_packer *, T) = delete;
template <typename T> int grove_pack_uint64(grove_packer *, T) = delete;
template <typename T> int grove_pack_float(grove_packer *, T) = delete;
template <typename T> int grove_pack_double(grove_packer *, T) = delete;
#endif

/* C: the same names as macros that refuse a value of another type (with
 * "_Generic selector of type X is not compatible with any association").
 * A name in parentheses, (grove_pack_int32)(pk, v), calls the function
 * with C's usual conversions. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && \
    __STDC_VERSION__ >= 201112L
#define grove_pack_int8(pk, v) \
	_Generic((v), int8_t: grove_pack_int8)(pk, v)
#define grove_pack_uint8(pk, v) \
	_Generic((v), uint8_t: grove_pack_uint8)(pk, v)
#define grove_pack_int16(pk, v) \
	_Generic((v), int16_t: grove_pack_int16)(pk, v)
#define grove_pack_uint16(pk, v) \
	_Generic((v), uint16_t: grove_pack_uint16)(pk, v)
#define grove_pack_int32(pk, v) \
	_Generic((v), int32_t: grove_pack_int32)(pk, v)
#define grove_pack_uint32(pk, v) \
	_Generic((v), uint32_t: grove_pack_uint32)(pk, v)
#define grove_pack_int64(pk, v) \
	_Generic((v), int64_t: grove_pack_int64)(pk, v)
#define grove_pack_uint64(pk, v) \
	_Generic((v), uint64_t: grove_pack_uint64)(pk, v)
#define grove_pack_float(pk, v) \
	_Generic((v), float: grove_pack_float)(pk, v)
#define grove_pack_double(pk, v) \
	_Generic((v), double: grove_pack_double)(pk, v)
#define grove_pack_string(pk, s) _Generic((s), char *: grove_pack_string, \
	const char *: grove_pack_string, void *: grove_pack_string)(pk, s)
#define grove_pack_array_int8(pk, v, n) _Generic((v), int8_t *: \
	grove_pack_array_int8, const int8_t *: grove_pack_array_int8, \
	void *: grove_pack_array_int8)(pk, v, n)
#define grove_pack_array_uint8(pk, v, n) _Generic((v), uint8_t *: \
	grove_pack_array_uint8, const uint8_t *: grove_pack_array_uint8, \
	void *: grove_pack_array_uint8)(pk, v, n)
#define grove_pack_array_int16(pk, v, n) _Generic((v), int16_t *: \
	grove_pack_array_int16, const int16_t *: grove_pack_array_int16, \
	void *: grove_pack_array_int16)(pk, v, n)
#define grove_pack_array_uint16(pk, v, n) _Generic((v), uint16_t *: \
	grove_pack_array_uint16, const uint16_t *: grove_pack_array_uint16, \
	void *: grove_pack_array_uint16)(pk, v, n)
#define grove_pack_array_int32(pk, v, n) _Generic((v), int32_t *: \
	grove_pack_array_int32, const int32_t *: grove_pack_array_int32, \
	void *: grove_pack_array_int32)(pk, v, n)
#define grove_pack_array_uint32(pk, v, n) _Generic((v), uint32_t *: \
	grove_pack_array_uint32, const uint32_t *: grove_pack_array_uint32, \
	void *: grove_pack_array_uint32)(pk, v, n)
#define grove_pack_array_int64(pk, v, n) _Generic((v), int64_t *: \
	grove_pack_array_int64, const int64_t *: grove_pack_array_int64, \
	void *: grove_pack_array_int64)(pk, v, n)
#define grove_pack_array_uint64(pk, v, n) _Generic((v), uint64_t *: \
	grove_pack_array_uint64, const uint64_t *: grove_pack_array_uint64, \
	void *: grove_pack_array_uint64)(pk, v, n)
#define grove_pack_array_float(pk, v, n) _Generic((v), float *: \
	grove_pack_array_float, const float *: grove_pack_array_float, \
	void *: grove_pack_array_float)(pk, v, n)
#define grove_pack_array_double(pk, v, n) _Generic((v), double *: \
	grove_pack_array_double, const double *: grove_pack_array_double, \
	void *: grove_pack_array_double)(pk, v, n)
/* String arrays: char ** does not convert to const char *const * in C
 * without a cast, which the macro makes once the type is checked. */
#define GROVE_STRV_(v) _Generic((v), char **: (const char *const *)(v), \
	const char **: (const char *const *)(v), \
	char *const *: (const char *const *)(v), \
	const char *const *: (const char *const *)(v), \
	void *: (const char *const *)(v))
#define grove_pack_array_string(pk, v, n) \
	grove_pack_array_string(pk, GROVE_STRV_(v), n)
#define grove_unpack_int8(u, out) \
	_Generic((out), int8_t *: grove_unpack_int8, \
	void *: grove_unpack_int8)(u, out)
#define grove_unpack_uint8(u, out) \
	_Generic((out), uint8_t *: grove_unpack_uint8, \
	void *: grove_unpack_uint8)(u, out)
#define grove_unpack_int16(u, out) \
	_Generic((out), int16_t *: grove_unpack_int16, \
	void *: grove_unpack_int16)(u, out)
#define grove_unpack_uint16(u, out) \
	_Generic((out), uint16_t *: grove_unpack_uint16, \
	void *: grove_unpack_uint16)(u, out)
#define grove_unpack_int32(u, out) \
	_Generic((out), int32_t *: grove_unpack_int32, \
	void *: grove_unpack_int32)(u, out)
#define grove_unpack_uint32(u, out) \
	_Generic((out), uint32_t *: grove_unpack_uint32, \
	void *: grove_unpack_uint32)(u, out)
#define grove_unpack_int64(u, out) \
	_Generic((out), int64_t *: grove_unpack_int64, \
	void *: grove_unpack_int64)(u, out)
#define grove_unpack_uint64(u, out) \
	_Generic((out), uint64_t *: grove_unpack_uint64, \
	void *: grove_unpack_uint64)(u, out)
#define grove_unpack_float(u, out) \
	_Generic((out), float *: grove_unpack_float, \
	void *: grove_unpack_float)(u, out)
#define grove_unpack_double(u, out) \
	_Generic((out), double *: grove_unpack_double, \
	void *: grove_unpack_double)(u, out)
#define grove_unpack_string(u, out) \
	_Generic((out), const char **: grove_unpack_string, \
	void *: grove_unpack_string)(u, out)
/* Arrays: the element pointer must be exactly const T ** (the elements
 * are the packet's, which is immutable); the count a uint64_t * or an
 * int *.  NULL (void *) is accepted wherever the functions take it. */
#define GROVE_UNPACK_ARRAY_(u, v, n, T, t, fn) _Generic((v), \
	T: GROVE_UNPACK_COUNT_(u, v, n, T, t, fn), \
	void *: GROVE_UNPACK_COUNT_(u, v, n, T, t, fn))
#define GROVE_UNPACK_COUNT_(u, v, n, T, t, fn) _Generic((n), \
	uint64_t *: fn(u, (T)(v), (uint64_t *)(void *)(n)), \
	void *: fn(u, (T)(v), (uint64_t *)(void *)(n)), \
	int *: grove_unpack_array_icount(u, t, (void *)(v), \
	    (int *)(void *)(n)))
#define grove_unpack_array_int8(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const int8_t **, GROVE_T_INT8, grove_unpack_array_int8)
#define grove_unpack_array_uint8(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const uint8_t **, GROVE_T_UINT8, grove_unpack_array_uint8)
#define grove_unpack_array_int16(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const int16_t **, GROVE_T_INT16, grove_unpack_array_int16)
#define grove_unpack_array_uint16(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const uint16_t **, GROVE_T_UINT16, grove_unpack_array_uint16)
#define grove_unpack_array_int32(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const int32_t **, GROVE_T_INT32, grove_unpack_array_int32)
#define grove_unpack_array_uint32(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const uint32_t **, GROVE_T_UINT32, grove_unpack_array_uint32)
#define grove_unpack_array_int64(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const int64_t **, GROVE_T_INT64, grove_unpack_array_int64)
#define grove_unpack_array_uint64(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const uint64_t **, GROVE_T_UINT64, grove_unpack_array_uint64)
#define grove_unpack_array_float(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const float **, GROVE_T_FLOAT, grove_unpack_array_float)
#define grove_unpack_array_double(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const double **, GROVE_T_DOUBLE, grove_unpack_array_double)
#define grove_unpack_array_string(u, v, n) GROVE_UNPACK_ARRAY_(u, v, n, \
	const char *const **, GROVE_T_STRING, grove_unpack_array_string)

/* Type-generic forms: the item type is the value's C type. */
#define GROVE_PACK(pk, v) _Generic((v), \
	int8_t: grove_pack_int8, \
	uint8_t: grove_pack_uint8, \
	int16_t: grove_pack_int16, \
	uint16_t: grove_pack_uint16, \
	int32_t: grove_pack_int32, \
	uint32_t: grove_pack_uint32, \
	int64_t: grove_pack_int64, \
	uint64_t: grove_pack_uint64, \
	float: grove_pack_float, \
	double: grove_pack_double, \
	char: grove_pack_int8, \
	char *: grove_pack_string, \
	const char *: grove_pack_string)(pk, v)
#define GROVE_PACK_ARRAY(pk, v, n) _Generic((v), \
	int8_t *: grove_pack_array_int8(pk, (const int8_t *)(v), n), \
	const int8_t *: grove_pack_array_int8(pk, (const int8_t *)(v), n), \
	uint8_t *: grove_pack_array_uint8(pk, (const uint8_t *)(v), n), \
	const uint8_t *: grove_pack_array_uint8(pk, (const uint8_t *)(v), n), \
	int16_t *: grove_pack_array_int16(pk, (const int16_t *)(v), n), \
	const int16_t *: grove_pack_array_int16(pk, (const int16_t *)(v), n), \
	uint16_t *: grove_pack_array_uint16(pk, (const uint16_t *)(v), n), \
	const uint16_t *: grove_pack_array_uint16(pk, (const uint16_t *)(v), n), \
	int32_t *: grove_pack_array_int32(pk, (const int32_t *)(v), n), \
	const int32_t *: grove_pack_array_int32(pk, (const int32_t *)(v), n), \
	uint32_t *: grove_pack_array_uint32(pk, (const uint32_t *)(v), n), \
	const uint32_t *: grove_pack_array_uint32(pk, (const uint32_t *)(v), n), \
	int64_t *: grove_pack_array_int64(pk, (const int64_t *)(v), n), \
	const int64_t *: grove_pack_array_int64(pk, (const int64_t *)(v), n), \
	uint64_t *: grove_pack_array_uint64(pk, (const uint64_t *)(v), n), \
	const uint64_t *: grove_pack_array_uint64(pk, (const uint64_t *)(v), n), \
	float *: grove_pack_array_float(pk, (const float *)(v), n), \
	const float *: grove_pack_array_float(pk, (const float *)(v), n), \
	double *: grove_pack_array_double(pk, (const double *)(v), n), \
	const double *: grove_pack_array_double(pk, (const double *)(v), n), \
	char **: grove_pack_array_string(pk, (const char *const *)(v), n), \
	const char **: \
	    grove_pack_array_string(pk, (const char *const *)(v), n), \
	const char *const *: \
	    grove_pack_array_string(pk, (const char *const *)(v), n))
#define GROVE_UNPACK(u, out) _Generic((out), \
	int8_t *: grove_unpack_int8, \
	uint8_t *: grove_unpack_uint8, \
	int16_t *: grove_unpack_int16, \
	uint16_t *: grove_unpack_uint16, \
	int32_t *: grove_unpack_int32, \
	uint32_t *: grove_unpack_uint32, \
	int64_t *: grove_unpack_int64, \
	uint64_t *: grove_unpack_uint64, \
	float *: grove_unpack_float, \
	double *: grove_unpack_double, \
	const char **: grove_unpack_string)(u, out)
#endif

#endif
