/* Format strings: parsing, canonical form, type sizes. */
#include "codec/codec_impl.h"

#include <string.h>

#include "codec/codec_err.h"
#include "core/log.h"

struct type_info {
	const char *name; /* conversion without '%' and 'a' */
	size_t size;
};

/* Indexed by grove_type. */
static const struct type_info type_info[] = {
	[GROVE_T_INT8] = {"c", 1},
	[GROVE_T_UINT8] = {"uc", 1},
	[GROVE_T_INT16] = {"hd", 2},
	[GROVE_T_UINT16] = {"uhd", 2},
	[GROVE_T_INT32] = {"d", 4},
	[GROVE_T_UINT32] = {"ud", 4},
	[GROVE_T_INT64] = {"ld", 8},
	[GROVE_T_UINT64] = {"uld", 8},
	[GROVE_T_FLOAT] = {"f", 4},
	[GROVE_T_DOUBLE] = {"lf", 8},
	[GROVE_T_STRING] = {"s", 0},
};

size_t
grove_type_size(grove_type t)
{
	if (t < GROVE_T_INT8 || t > GROVE_T_STRING)
		return 0;
	return type_info[t].size;
}

const char *
codec_type_name(grove_type t)
{
	if (t < GROVE_T_INT8 || t > GROVE_T_STRING)
		return NULL;
	return type_info[t].name;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	    c == '\v';
}

/* Why parse_conv refused a conversion. */
enum conv_err {
	CONV_UNKNOWN = 1, /* not one of the table's conversions */
	CONV_TRAIL,       /* a conversion directly followed by other text */
};

/* Parse one conversion at s[i] == '%'.  Returns the bytes consumed, or 0
 * and why in *why (may be NULL) and, for CONV_TRAIL, the conversion's
 * length in *conv_len. */
static size_t
parse_conv_why(const char *s, size_t n, size_t i, wire_fmt_item *it,
    enum conv_err *why, size_t *conv_len)
{
	enum conv_err dummy;
	size_t dummy_len;
	if (!why)
		why = &dummy;
	if (!conv_len)
		conv_len = &dummy_len;
	*why = CONV_UNKNOWN;
	size_t j = i + 1;
	int arr = 0, uns = 0;
	grove_type t;

	if (j < n && s[j] == 'a') {
		arr = 1;
		j++;
	}
	if (j < n && s[j] == 'u') {
		uns = 1;
		j++;
	}
	if (j >= n)
		return 0;
	switch (s[j]) {
	case 'c':
		t = uns ? GROVE_T_UINT8 : GROVE_T_INT8;
		j++;
		break;
	case 'd':
		t = uns ? GROVE_T_UINT32 : GROVE_T_INT32;
		j++;
		break;
	case 'h':
		if (j + 1 >= n || s[j + 1] != 'd')
			return 0;
		t = uns ? GROVE_T_UINT16 : GROVE_T_INT16;
		j += 2;
		break;
	case 'l':
		if (j + 1 >= n)
			return 0;
		if (s[j + 1] == 'd')
			t = uns ? GROVE_T_UINT64 : GROVE_T_INT64;
		else if (s[j + 1] == 'f' && !uns)
			t = GROVE_T_DOUBLE;
		else
			return 0;
		j += 2;
		break;
	case 'f':
		if (uns)
			return 0;
		t = GROVE_T_FLOAT;
		j++;
		break;
	case 's':
		if (uns)
			return 0;
		t = GROVE_T_STRING;
		j++;
		break;
	default:
		return 0;
	}
	/* A conversion ends at a separator, another conversion or the end;
	 * "%dx" is a typo, not "%d" followed by text. */
	if (j < n && !is_space(s[j]) && s[j] != '%') {
		*why = CONV_TRAIL;
		*conv_len = j - i;
		return 0;
	}
	it->type = t;
	it->is_array = arr;
	return j - i;
}

static size_t
parse_conv(const char *s, size_t n, size_t i, wire_fmt_item *it)
{
	return parse_conv_why(s, n, i, it, NULL, NULL);
}

/* The bytes of the token at s[i]: up to the next white space or '%'
 * after its first byte (what a reader sees as one conversion). */
static size_t
token_len(const char *s, size_t n, size_t i)
{
	size_t j = i + 1;
	while (j < n && !is_space(s[j]) && s[j] != '%')
		j++;
	return j - i;
}

/* The last error for a user's format refused at byte i (not called for
 * frames from the wire: a peer's bad frame is a protocol error, logged
 * where it is received). */
static int
fmt_fail(const char *s, size_t n, size_t i)
{
	char q[96], tok[48];
	codec_quote(q, sizeof q, s, n, '"');
	if (s[i] != '%') {
		codec_quote(tok, sizeof tok, s + i, token_len(s, n, i), '\'');
		return codec_fail(GROVE_EFORMAT, "format %s: %s at offset %zu "
		    "is not a conversion (each item is a %%-conversion such as "
		    "%%d, separated by spaces)", q, tok, i);
	}
	if (i + 1 >= n)
		return codec_fail(GROVE_EFORMAT, "format %s: lone '%%' at "
		    "offset %zu (the format ends there)", q, i);
	enum conv_err why;
	size_t clen = 0;
	wire_fmt_item it;
	parse_conv_why(s, n, i, &it, &why, &clen);
	if (why == CONV_TRAIL) {
		codec_quote(tok, sizeof tok, s + i, clen, '\'');
		char rest[32];
		codec_quote(rest, sizeof rest, s + i + clen,
		    token_len(s, n, i + clen), '\'');
		return codec_fail(GROVE_EFORMAT, "format %s: conversion %s at "
		    "offset %zu is followed by %s (separate conversions with "
		    "spaces)", q, tok, i, rest);
	}
	codec_quote(tok, sizeof tok, s + i, token_len(s, n, i), '\'');
	return codec_fail(GROVE_EFORMAT, "format %s: unknown conversion %s at "
	    "offset %zu (known: %%c %%uc %%hd %%uhd %%d %%ud %%ld %%uld %%f "
	    "%%lf %%s, and each with an 'a' prefix for an array)", q, tok, i);
}

int
codec_fmt_parse_n(const char *s, size_t n, int strict, wire_fmt_item *items,
    int max_items, char *canon, size_t canon_cap)
{
	size_t i = 0, clen = 0;
	int count = 0;

	if (strict && n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
		goto bad;
	while (i < n) {
		if (is_space(s[i])) {
			/* Canonical: exactly one ' ' between conversions. */
			if (strict && (s[i] != ' ' || (i + 1 < n && s[i + 1] == ' ')))
				goto bad;
			i++;
			continue;
		}
		if (s[i] != '%')
			goto bad;
		if (strict && i > 0 && s[i - 1] != ' ')
			goto bad;
		wire_fmt_item it;
		size_t used = parse_conv(s, n, i, &it);
		if (!used)
			goto bad;
		/* Canonical length: "%", "a"?, name, and a separating ' '. */
		size_t tlen = 1 + (size_t)it.is_array +
		    strlen(type_info[it.type].name);
		size_t need = clen + (count ? 1 : 0) + tlen;
		if (need > WIRE_MAX_FMT) {
			log_debug("format: longer than %u bytes canonically "
			    "at byte %zu", WIRE_MAX_FMT, i);
			if (strict)
				return GROVE_EFORMAT;
			char q[96];
			codec_quote(q, sizeof q, s, n, '"');
			return codec_fail(GROVE_EFORMAT, "format %s: longer than "
			    "%u bytes in canonical form at item %d (offset %zu): "
			    "too many items for one packet", q, WIRE_MAX_FMT,
			    count + 1, i);
		}
		if (canon) {
			if (need + 1 > canon_cap)
				return codec_fail(GROVE_EFORMAT, "format: the "
				    "canonical form needs more than %zu bytes",
				    canon_cap);
			if (count)
				canon[clen++] = ' ';
			canon[clen++] = '%';
			if (it.is_array)
				canon[clen++] = 'a';
			size_t nl = strlen(type_info[it.type].name);
			memcpy(canon + clen, type_info[it.type].name, nl);
			clen += nl;
		} else {
			clen = need;
		}
		if (items && count < max_items)
			items[count] = it;
		count++;
		i += used;
	}
	if (canon) {
		if (canon_cap < 1)
			return GROVE_EFORMAT;
		canon[clen] = '\0';
	}
	return count;
bad:
	log_debug("format \"%.*s\": bad conversion at byte %zu",
	    (int)(n > 64 ? 64 : n), s, i);
	if (strict)
		return GROVE_EFORMAT;
	/* Leading/trailing space and doubled spaces are refused in strict
	 * mode only, so s[i] here is the start of a bad token. */
	return fmt_fail(s, n, i);
}

int
wire_fmt_parse(const char *fmt, wire_fmt_item *items, int max_items,
    char *canon, size_t canon_cap)
{
	if (!fmt)
		return codec_fail(GROVE_EFORMAT, "format is NULL");
	int n = codec_fmt_parse_n(fmt, strlen(fmt), 0, items, max_items,
	    canon, canon_cap);
	if (n > 0 && items && n > max_items)
		return codec_fail(GROVE_EFORMAT, "format has %d items, more "
		    "than the %d expected here", n, max_items);
	return n;
}

int
codec_fmt_next(const char *fmt, size_t n, size_t *pos, wire_fmt_item *it)
{
	size_t i = *pos;
	while (i < n && is_space(fmt[i]))
		i++;
	if (i >= n) {
		*pos = i;
		return 0;
	}
	size_t used = fmt[i] == '%' ? parse_conv(fmt, n, i, it) : 0;
	if (!used)
		return GROVE_EFORMAT;
	*pos = i + used;
	return 1;
}

int
codec_fmt_kinds(const char *s, size_t n, uint8_t kinds[CODEC_INLINE_ITEMS])
{
	wire_fmt_item it[CODEC_INLINE_ITEMS];
	int count = codec_fmt_parse_n(s, n, 1, it, CODEC_INLINE_ITEMS, NULL, 0);
	for (int i = 0; i < count && i < CODEC_INLINE_ITEMS; i++)
		kinds[i] = codec_kind(it[i].type, it[i].is_array);
	return count;
}
