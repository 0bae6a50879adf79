/* The codec's last-error text (see codec_err.h). */
#include "codec/codec_err.h"

#include <stdarg.h>
#include <stdio.h>

#include "codec/codec_impl.h"

/* Per thread: the packet functions take no handle that could hold the
 * text, and two threads packing at once must not see each other's
 * errors.  It is the one mutable static of the codec; only error paths
 * write it. */
static _Thread_local char last_err[512];

const char *
grove_packet_last_error(void)
{
	return last_err;
}

int
codec_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_err, sizeof last_err, fmt, ap);
	va_end(ap);
	return code;
}

void
codec_quote(char *out, size_t cap, const char *s, size_t n, char qc)
{
	size_t o = 0;
	if (cap < 8) {
		if (cap)
			out[0] = '\0';
		return;
	}
	out[o++] = qc;
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		int len;
		if (i == 60) {
			len = snprintf(esc, sizeof esc, "...");
		} else if (c == (unsigned char)qc || c == '\\') {
			len = snprintf(esc, sizeof esc, "\\%c", c);
		} else if (c == '\t') {
			len = snprintf(esc, sizeof esc, "\\t");
		} else if (c == '\n') {
			len = snprintf(esc, sizeof esc, "\\n");
		} else if (c < 0x20 || c >= 0x7f) {
			len = snprintf(esc, sizeof esc, "\\x%02x", c);
		} else {
			esc[0] = (char)c;
			len = 1;
		}
		if (o + (size_t)len + 2 > cap)
			break;
		for (int k = 0; k < len; k++)
			out[o++] = esc[k];
		if (i == 60)
			break;
	}
	out[o++] = qc;
	out[o] = '\0';
}

static const char *const type_words[] = {
	[GROVE_T_INT8] = "int8", [GROVE_T_UINT8] = "uint8",
	[GROVE_T_INT16] = "int16", [GROVE_T_UINT16] = "uint16",
	[GROVE_T_INT32] = "int32", [GROVE_T_UINT32] = "uint32",
	[GROVE_T_INT64] = "int64", [GROVE_T_UINT64] = "uint64",
	[GROVE_T_FLOAT] = "float", [GROVE_T_DOUBLE] = "double",
	[GROVE_T_STRING] = "string",
};

void
codec_describe(char *out, size_t cap, grove_type t, int is_array)
{
	const char *name = codec_type_name(t);
	if (!name) {
		snprintf(out, cap, "type %d", (int)t);
		return;
	}
	snprintf(out, cap, "%s%s (%%%s%s)", is_array ? "array of " : "",
	    type_words[t], is_array ? "a" : "", name);
}
