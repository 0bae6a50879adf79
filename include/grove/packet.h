/* Grove packets: typed payloads described by printf-like format strings.
 *
 * Formats are space-separated conversions:
 *   %c  %uc   int8_t / uint8_t          %hd %uhd  int16_t / uint16_t
 *   %d  %ud   int32_t / uint32_t        %ld %uld  int64_t / uint64_t
 *   %f  %lf   float / double            %s        NUL-terminated string
 * and arrays of each with an "a" prefix: %ac %auc %ahd %auhd %ad %aud %ald
 * %auld %af %alf %as.  Arrays have a 64-bit element count.
 *
 * Packing (grove_packet_pack) takes values by value for scalars
 * (int for %c/%hd/%d as usual for varargs, double for %f), and for arrays a
 * pointer followed by a uint64_t count (%as: const char *const *, count).
 *
 * MRNet users: array counts are uint64_t, not int.  Through "..." the
 * compiler cannot convert an int count: cast it, (uint64_t)n, and unpack
 * counts into a uint64_t.  Likewise C cannot check that an argument has
 * the type its conversion names (an int for %lf is read as garbage, an
 * int for %s crashes): the typed API of grove/pack.h (grove_pack_double,
 * grove_unpack_int32, ...) lets the compiler refuse such mistakes, and
 * takes int counts as they are.
 *
 * Unpacking (grove_packet_unpack) takes pointers: scalars are stored through
 * the pointer (int8_t *, float *, ...), strings as const char ** pointing
 * into the packet, arrays as (const T **, uint64_t *count) pointing into the
 * packet, %as as (const char *const **, uint64_t *).  Everything that points
 * into a packet stays valid until the packet's last reference is dropped.
 * A format that does not match the packet returns GROVE_EFORMAT; a corrupt
 * payload returns GROVE_EPROTO.  Neither ever crashes.
 *
 * Errors: every failing packet function (here and in grove/pack.h) leaves
 * a message in grove_packet_last_error() saying what and where: a bad
 * format string and the byte offset of the bad conversion, the item
 * (counted from 1) whose type the packet and the format disagree on, with
 * both types, the NULL string or too-large array.
 *
 * Packets are reference counted and immutable once built; a communication
 * process forwards the very same bytes to each child.
 */
#ifndef GROVE_PACKET_H
#define GROVE_PACKET_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "grove/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grove_packet grove_packet;

/* Element types of a format conversion. */
typedef enum grove_type {
	GROVE_T_INT8 = 1,
	GROVE_T_UINT8,
	GROVE_T_INT16,
	GROVE_T_UINT16,
	GROVE_T_INT32,
	GROVE_T_UINT32,
	GROVE_T_INT64,
	GROVE_T_UINT64,
	GROVE_T_FLOAT,
	GROVE_T_DOUBLE,
	GROVE_T_STRING,
} grove_type;

/* One decoded item of a packet (see grove_packet_item). */
typedef struct grove_item {
	grove_type type;
	int is_array;
	uint64_t count;    /* 1 for scalars; element count for arrays */
	const void *data;  /* scalars and numeric arrays: the values;
	                      %s: const char *; %as: const char *const * */
} grove_item;

/* Build a packet.  *out gets a new reference. */
int grove_packet_pack(grove_packet **out, uint32_t stream_id, int32_t tag,
    const char *fmt, ...);
int grove_packet_vpack(grove_packet **out, uint32_t stream_id, int32_t tag,
    const char *fmt, va_list ap);

/* Decode a packet against a format (see above for argument types). */
int grove_packet_unpack(const grove_packet *p, const char *fmt, ...);
int grove_packet_vunpack(const grove_packet *p, const char *fmt, va_list ap);

/* Random access to the decoded items: the number of items, and item i.
 * Returns GROVE_ERANGE for a bad index, GROVE_EPROTO for a corrupt payload. */
int grove_packet_nitems(const grove_packet *p);
int grove_packet_item(const grove_packet *p, int i, grove_item *out);

grove_packet *grove_packet_ref(grove_packet *p);
void grove_packet_unref(grove_packet *p);

const char *grove_packet_format(const grove_packet *p); /* canonical form */
uint32_t grove_packet_stream(const grove_packet *p);
int32_t grove_packet_tag(const grove_packet *p);
uint32_t grove_packet_src(const grove_packet *p); /* originating rank */
size_t grove_packet_size(const grove_packet *p);  /* bytes on the wire */

/* Size in bytes of one element of a type (strings: 0). */
size_t grove_type_size(grove_type t);

/* What the last failing packet function of this thread (packing,
 * unpacking, item access, grove/pack.h, and the format-string sends
 * grove_stream_send, grove_be_send, grove_net_send_to) said went wrong,
 * e.g. "format \"%d %q\": unknown conversion \"%q\" at offset 3 ...".
 * Per thread, since these functions have no handle to keep it in; only
 * meaningful right after an error return (success does not clear it).
 * Never NULL; "" before any error. */
const char *grove_packet_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
