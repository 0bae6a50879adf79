/* Decoding payloads: the validated item table, unpack and item access.
 *
 * Validation happens once per packet, on first access, and checks every
 * length against the bytes that are really there before looking at them:
 * a corrupt or hostile frame yields GROVE_EPROTO, never a read outside the
 * frame or an allocation larger than the frame justifies.
 */
#include "codec/codec_impl.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_endian.h"
#include "codec/codec_err.h"
#include "core/log.h"

/* %as with no elements: a valid, empty pointer array. */
static const char *const dec_no_strings[1] = {NULL};

static size_t
align_to(size_t o, size_t a)
{
	return (o + a - 1) & ~(a - 1);
}

/* Can the wire bytes at `at` be used in place as host values of size s? */
static int
dec_in_place(const uint8_t *at, size_t s)
{
	if (s <= 1)
		return 1;
	return CODEC_HOST_LE && ((uintptr_t)at & (s - 1)) == 0;
}

/* Check one %s at payload offset *o; returns its bytes or NULL. */
static const char *
dec_string(const uint8_t *P, size_t plen, size_t *o)
{
	size_t q = align_to(*o, 4);
	if (q > plen || plen - q < 4)
		return NULL;
	uint32_t len = codec_ld32(P + q);
	size_t rem = plen - q - 4;
	if (len >= rem) /* need len bytes and the NUL */
		return NULL;
	const char *s = (const char *)P + q + 4;
	if (s[len] != '\0' || memchr(s, '\0', len))
		return NULL;
	*o = q + 4 + (size_t)len + 1;
	return s;
}

/* The kind of item i: kept in the packet for short formats, else parsed
 * from the format (*pos: where item i starts in it). */
static int
dec_item_kind(const grove_packet *p, int i, size_t *pos, wire_fmt_item *f)
{
	if (p->nitems <= CODEC_INLINE_ITEMS) {
		f->type = (grove_type)(p->kinds[i] & ~CODEC_KIND_ARRAY);
		f->is_array = (p->kinds[i] & CODEC_KIND_ARRAY) != 0;
		return 1;
	}
	return codec_fmt_next(p->fmt, p->hdr.fmt_len, pos, f);
}

/* Pass 1: validate the payload, point items into it, and count the
 * scratch bytes pass 2 needs. */
static int
dec_validate(const grove_packet *p, const uint8_t *P, size_t plen,
    codec_table *t, size_t *scratch)
{
	size_t o = 0, scr = 0, pos = 0;
	wire_fmt_item f = {0};
	int i;

	for (i = 0; i < t->n; i++) {
		grove_item *it = &t->items[i];
		if (dec_item_kind(p, i, &pos, &f) != 1)
			return GROVE_EPROTO; /* cannot happen: checked at wrap */
		size_t s = codec_type_size(f.type);
		it->type = f.type;
		it->is_array = f.is_array;
		it->count = 1;
		if (!f.is_array && f.type == GROVE_T_STRING) {
			it->data = dec_string(P, plen, &o);
			if (!it->data)
				goto bad;
		} else if (!f.is_array) {
			o = align_to(o, s);
			if (o > plen || plen - o < s)
				goto bad;
			it->data = P + o;
			if (!dec_in_place(P + o, s))
				scr += 8;
			o += s;
		} else {
			o = wire_pad8(o);
			if (o > plen || plen - o < 8)
				goto bad;
			uint64_t cnt = codec_ld64(P + o);
			o += 8;
			it->count = cnt;
			it->data = P + o;
			if (f.type == GROVE_T_STRING) {
				/* Each string takes at least 5 bytes, which
				 * bounds the pointer array we will allocate. */
				if (cnt > (plen - o) / 5)
					goto bad;
				if (cnt == 0)
					it->data = dec_no_strings;
				for (uint64_t j = 0; j < cnt; j++)
					if (!dec_string(P, plen, &o))
						goto bad;
				scr += wire_pad8((size_t)cnt * sizeof(char *));
			} else {
				if (cnt > (plen - o) / s)
					goto bad;
				if (cnt && !dec_in_place(P + o, s))
					scr += wire_pad8((size_t)cnt * s);
				o += (size_t)cnt * s;
			}
		}
	}
	if (o != plen) {
		log_debug("packet \"%s\": %zu bytes of garbage after the items",
		    p->fmt, plen - o);
		return codec_fail(GROVE_EPROTO, "packet \"%.64s\" is corrupt: "
		    "%zu bytes left over after its items (payload byte %zu)",
		    p->fmt, plen - o, o);
	}
	*scratch = scr;
	return 0;
bad:
	log_debug("packet \"%s\": payload byte %zu: bad or truncated item",
	    p->fmt, o);
	{
		char d[48];
		codec_describe(d, sizeof d, f.type, f.is_array);
		return codec_fail(GROVE_EPROTO, "packet \"%.64s\" is corrupt: "
		    "item %d (%s) at payload byte %zu is bad or truncated",
		    p->fmt, i + 1, d, o);
	}
}

/* Pass 2: move what cannot be used in place into scratch. */
static void
dec_fill_scratch(const uint8_t *P, codec_table *t)
{
	uint8_t *scr = t->scratch;
	size_t off = 0;

	for (int i = 0; i < t->n; i++) {
		grove_item *it = &t->items[i];
		size_t s = codec_type_size(it->type);
		if (it->type == GROVE_T_STRING) {
			if (!it->is_array || it->count == 0)
				continue;
			const char **v = (const char **)(void *)(scr + off);
			size_t q = (size_t)((const uint8_t *)it->data - P);
			for (uint64_t j = 0; j < it->count; j++) {
				q = align_to(q, 4);
				uint32_t len = codec_ld32(P + q);
				v[j] = (const char *)P + q + 4;
				q += 4 + (size_t)len + 1;
			}
			it->data = v;
			off += wire_pad8((size_t)it->count * sizeof(char *));
		} else if (it->count && !dec_in_place(it->data, s)) {
			codec_copy_elems(scr + off, it->data, it->count, s);
			it->data = scr + off;
			off += wire_pad8((size_t)it->count * s);
		}
	}
}

static int
dec_table(const grove_packet *p, codec_table *t)
{
	size_t fpad = wire_pad8(p->hdr.fmt_len);
	const uint8_t *P = p->frame + WIRE_HDR_SIZE + fpad;
	size_t plen = p->hdr.len - WIRE_HDR_SIZE - fpad;
	size_t scr = 0;

	int rc = dec_validate(p, P, plen, t, &scr);
	if (rc < 0)
		return rc;
	if (scr) {
		t->scratch = malloc(scr);
		if (!t->scratch)
			return codec_fail(GROVE_ENOMEM, "packet: no memory to "
			    "decode (%zu bytes)", scr);
		dec_fill_scratch(P, t);
	}
	return 0;
}

void
codec_table_free(grove_packet *p, codec_table *t)
{
	if (t->scratch)
		free(t->scratch);
	if (t != &p->inline_tab)
		free(t);
}

int
codec_table_get(const grove_packet *cp, const codec_table **out)
{
	/* The table is a cache: filling it does not change what the packet
	 * is, so it is done through const packets. */
	grove_packet *p = (grove_packet *)cp;
	codec_table *t = atomic_load_explicit(&p->table, memory_order_acquire);
	if (t) {
		*out = t;
		return 0;
	}
	int err = atomic_load_explicit(&p->decode_err, memory_order_relaxed);
	if (err)
		return codec_fail(err, "packet \"%.64s\" is corrupt: its "
		    "payload does not match its format (found at its first "
		    "decoding)", p->fmt);

	int n = p->nitems;
	if (n <= CODEC_INLINE_ITEMS &&
	    !atomic_flag_test_and_set_explicit(&p->inline_claim,
	    memory_order_acquire)) {
		t = &p->inline_tab;
	} else {
		t = malloc(sizeof *t + (size_t)n * sizeof(grove_item));
		if (!t)
			return codec_fail(GROVE_ENOMEM, "packet: no memory to "
			    "decode %d items", n);
		t->items = (grove_item *)(t + 1);
	}
	t->n = n;
	t->scratch = NULL;
	int rc = dec_table(p, t);
	if (rc < 0) {
		codec_table_free(p, t);
		if (rc == GROVE_EPROTO)
			atomic_store_explicit(&p->decode_err, rc,
			    memory_order_relaxed);
		return rc;
	}
	codec_table *expected = NULL;
	if (atomic_compare_exchange_strong_explicit(&p->table, &expected, t,
	    memory_order_acq_rel, memory_order_acquire)) {
		*out = t;
	} else {
		/* Another thread published first; its table is identical. */
		codec_table_free(p, t);
		*out = expected;
	}
	return 0;
}

int
grove_packet_item(const grove_packet *p, int i, grove_item *out)
{
	const codec_table *t;

	if (!p || !out)
		return codec_fail(GROVE_EINVAL, "grove_packet_item: %s is NULL",
		    p ? "out" : "the packet");
	if (i < 0 || i >= p->nitems)
		return codec_fail(GROVE_ERANGE, "grove_packet_item: index %d "
		    "outside the %d items of packet \"%.64s\"", i, p->nitems,
		    p->fmt);
	int rc = codec_table_get(p, &t);
	if (rc < 0)
		return rc;
	*out = t->items[i];
	return 0;
}

/* strcmp(a, b) == 0 without a call: formats are a few bytes long. */
static int
fmt_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* memcpy for the four scalar sizes, each a single move. */
static void
dec_copy_scalar(void *d, const void *s, size_t size)
{
	switch (size) {
	case 1:
		memcpy(d, s, 1);
		break;
	case 2:
		memcpy(d, s, 2);
		break;
	case 4:
		memcpy(d, s, 4);
		break;
	default:
		memcpy(d, s, 8);
		break;
	}
}

/* The last error for a valid format fmt that is not the packet's:
 * the first item where they differ, with both types. */
static int
dec_mismatch(const grove_packet *p, const char *fmt)
{
	char qf[96], qp[96], dp[48], df[48];
	codec_quote(qf, sizeof qf, fmt, strlen(fmt), '"');
	codec_quote(qp, sizeof qp, p->fmt, strlen(p->fmt), '"');
	size_t fn = strlen(fmt), pn = strlen(p->fmt), fpos = 0, ppos = 0;
	for (int i = 1;; i++) {
		wire_fmt_item a, b;
		int ha = codec_fmt_next(p->fmt, pn, &ppos, &a);
		int hb = codec_fmt_next(fmt, fn, &fpos, &b);
		if (ha != 1 || hb != 1) {
			int np = p->nitems, nf = wire_fmt_parse(fmt, NULL, 0,
			    NULL, 0);
			return codec_fail(GROVE_EFORMAT, "unpack: the packet "
			    "holds %d item%s (%s), the format %s asks for %d",
			    np, np == 1 ? "" : "s", qp, qf, nf);
		}
		if (a.type != b.type || a.is_array != b.is_array) {
			codec_describe(dp, sizeof dp, a.type, a.is_array);
			codec_describe(df, sizeof df, b.type, b.is_array);
			return codec_fail(GROVE_EFORMAT, "unpack: item %d: the "
			    "packet holds %s, the format asks for %s (packet "
			    "%s, format %s)", i, dp, df, qp, qf);
		}
	}
}

int
grove_packet_vunpack(const grove_packet *p, const char *fmt, va_list ap)
{
	const codec_table *t;

	if (!p || !fmt)
		return codec_fail(GROVE_EINVAL, "unpack: %s is NULL",
		    p ? "the format" : "the packet");
	/* The usual case is the very same canonical string; only otherwise
	 * canonicalize the caller's spelling. */
	if (!fmt_equal(fmt, p->fmt)) {
		char canon[WIRE_MAX_FMT + 1];
		if (wire_fmt_parse(fmt, NULL, 0, canon, sizeof canon) < 0)
			return GROVE_EFORMAT; /* the last error says why */
		if (strcmp(canon, p->fmt) != 0)
			return dec_mismatch(p, canon);
	}
	int rc = codec_table_get(p, &t);
	if (rc < 0)
		return rc;
	for (int i = 0; i < t->n; i++) {
		const grove_item *it = &t->items[i];
		if (it->is_array) {
			const void **d = va_arg(ap, const void **);
			uint64_t *c = va_arg(ap, uint64_t *);
			if (d)
				*d = it->data;
			if (c)
				*c = it->count;
		} else if (it->type == GROVE_T_STRING) {
			const char **d = va_arg(ap, const char **);
			if (d)
				*d = it->data;
		} else {
			void *d = va_arg(ap, void *);
			if (d)
				dec_copy_scalar(d, it->data,
				    codec_type_size(it->type));
		}
	}
	return 0;
}

int
grove_packet_unpack(const grove_packet *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = grove_packet_vunpack(p, fmt, ap);
	va_end(ap);
	return rc;
}
