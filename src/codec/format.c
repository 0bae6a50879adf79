/* Format strings: parsing, canonical form, type sizes. */
#include "codec/codec_impl.h"

#include <string.h>

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

/* Parse one conversion at s[i] == '%'.  Returns the bytes consumed or 0. */
static size_t
parse_conv(const char *s, size_t n, size_t i, wire_fmt_item *it)
{
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
	if (j < n && !is_space(s[j]) && s[j] != '%')
		return 0;
	it->type = t;
	it->is_array = arr;
	return j - i;
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
			return GROVE_EFORMAT;
		}
		if (canon) {
			if (need + 1 > canon_cap)
				return GROVE_EFORMAT;
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
	return GROVE_EFORMAT;
}

int
wire_fmt_parse(const char *fmt, wire_fmt_item *items, int max_items,
    char *canon, size_t canon_cap)
{
	if (!fmt)
		return GROVE_EFORMAT;
	int n = codec_fmt_parse_n(fmt, strlen(fmt), 0, items, max_items,
	    canon, canon_cap);
	if (n > 0 && items && n > max_items)
		return GROVE_EFORMAT;
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
