/* The codec's last-error text: what failed and where, for the packet
 * functions, which have no handle to keep it in (see
 * grove_packet_last_error in include/grove/packet.h). */
#ifndef CODEC_ERR_H
#define CODEC_ERR_H

#include <stddef.h>

#include "grove/packet.h"

/* Set this thread's packet last error (printf-style) and return code, so
 * that error paths read `return codec_fail(GROVE_EINVAL, "...", ...);`. */
int codec_fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Write s (n bytes, may lack a NUL) between quote characters qc,
 * escaped, into out (cap bytes, NUL-terminated): %d<tab>%s -> "%d\t%s",
 * cut with "..." after 60 bytes.  Formats in messages are user input: a tab or a control byte
 * must not garble the message. */
void codec_quote(char *out, size_t cap, const char *s, size_t n, char qc);

/* The conversion of a type, with '%' and the 'a' of arrays ("%ald"), and
 * its name in words ("int64", "array of int64"), for messages. */
void codec_describe(char *out, size_t cap, grove_type t, int is_array);

#endif
