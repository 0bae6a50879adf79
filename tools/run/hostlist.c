/* Slurm host-list expansion (see hostlist.h). */
#define _GNU_SOURCE
#include "hostlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_MAX 256 /* longest host name made */

struct out {
	char **v;
	size_t n, cap;
};

static int
push(struct out *o, const char *s, char *err, size_t errlen)
{
	if (o->n >= HOSTLIST_MAX) {
		snprintf(err, errlen, "more than %d hosts", HOSTLIST_MAX);
		return -1;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		char **v = realloc(o->v, cap * sizeof *v);
		if (!v) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		o->v = v;
		o->cap = cap;
	}
	if (!(o->v[o->n] = strdup(s))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	o->n++;
	return 0;
}

/* A decimal number of at most 9 digits at s (so that ranges fit an int);
 * its end in *end, its digit count in *digits. */
static int
number(const char *s, const char **end, long *v, int *digits)
{
	int d = 0;
	long x = 0;
	while (s[d] >= '0' && s[d] <= '9') {
		if (d == 9)
			return -1;
		x = x * 10 + (s[d] - '0');
		d++;
	}
	if (d == 0)
		return -1;
	*end = s + d;
	*v = x;
	*digits = d;
	return 0;
}

/* Expands item[0..len) with `made` (the text before it, made_len bytes)
 * in front: text up to the next '[', then each value of the group, each
 * followed by the rest of the item. */
static int
expand_item(const char *spec, const char *item, size_t len, char *made,
    size_t made_len, struct out *o, char *err, size_t errlen)
{
	const char *open = memchr(item, '[', len);
	size_t plain = open ? (size_t)(open - item) : len;
	const char *close_br = open ? memchr(open, ']', len - plain) : NULL;
	for (size_t i = 0; i < plain; i++)
		if (item[i] == ']') {
			snprintf(err, errlen, "']' without '[' at character %zu",
			    (size_t)(item + i - spec) + 1);
			return -1;
		}
	if (made_len + plain >= HOST_MAX) {
		snprintf(err, errlen, "host name longer than %d characters at "
		    "character %zu", HOST_MAX - 1, (size_t)(item - spec) + 1);
		return -1;
	}
	memcpy(made + made_len, item, plain);
	made_len += plain;
	made[made_len] = '\0';
	if (!open)
		return made_len ? push(o, made, err, errlen) : 0;
	if (!close_br) {
		snprintf(err, errlen, "'[' at character %zu is not closed",
		    (size_t)(open - spec) + 1);
		return -1;
	}
	const char *rest = close_br + 1;
	size_t rest_len = len - (size_t)(rest - item);
	const char *p = open + 1;
	if (p == close_br) {
		snprintf(err, errlen, "empty '[]' at character %zu",
		    (size_t)(open - spec) + 1);
		return -1;
	}
	while (p < close_br) {
		long lo, hi;
		int wlo, whi;
		const char *e;
		if (number(p, &e, &lo, &wlo)) {
			snprintf(err, errlen, "a number (at most 9 digits) expected at "
			    "character %zu", (size_t)(p - spec) + 1);
			return -1;
		}
		hi = lo;
		if (*e == '-') {
			const char *q = e + 1;
			if (number(q, &e, &hi, &whi)) {
				snprintf(err, errlen, "a number (at most 9 digits) "
				    "expected at character %zu", (size_t)(q - spec) + 1);
				return -1;
			}
			if (hi < lo) {
				snprintf(err, errlen, "range %ld-%ld at character %zu "
				    "goes down", lo, hi, (size_t)(p - spec) + 1);
				return -1;
			}
		}
		if (e != close_br && *e != ',') {
			snprintf(err, errlen, "unexpected '%c' at character %zu", *e,
			    (size_t)(e - spec) + 1);
			return -1;
		}
		/* Leading zeros fix the width ("08"); "8" has none. */
		int width = p[0] == '0' ? wlo : 0;
		for (long v = lo; v <= hi; v++) {
			char num[16];
			int k = snprintf(num, sizeof num, "%0*ld", width, v);
			if (made_len + (size_t)k >= HOST_MAX) {
				snprintf(err, errlen, "host name longer than %d "
				    "characters", HOST_MAX - 1);
				return -1;
			}
			memcpy(made + made_len, num, (size_t)k + 1);
			if (expand_item(spec, rest, rest_len, made,
			    made_len + (size_t)k, o, err, errlen))
				return -1;
			if (o->n >= HOSTLIST_MAX && v < hi) {
				snprintf(err, errlen, "more than %d hosts", HOSTLIST_MAX);
				return -1;
			}
		}
		p = *e == ',' ? e + 1 : e;
		if (*e == ',' && p == close_br) {
			snprintf(err, errlen, "a number expected at character %zu",
			    (size_t)(p - spec) + 1);
			return -1;
		}
	}
	return 0;
}

int
hostlist_expand(const char *spec, char ***hosts, size_t *n, char *err,
    size_t errlen)
{
	struct out o = {0};
	*hosts = NULL;
	*n = 0;
	const char *s = spec;
	char made[HOST_MAX];
	for (;;) {
		/* The item ends at a comma outside brackets. */
		const char *e = s;
		int depth = 0;
		for (; *e && (*e != ',' || depth); e++) {
			if (*e == '[' && depth++) {
				snprintf(err, errlen, "'[' inside '[' at character "
				    "%zu", (size_t)(e - spec) + 1);
				goto fail;
			}
			if (*e == ']' && depth)
				depth--;
		}
		if (e == s) {
			snprintf(err, errlen, "empty host name at character %zu",
			    (size_t)(s - spec) + 1);
			goto fail;
		}
		for (const char *c = s; c < e; c++)
			if ((unsigned char)*c <= ' ' || *c == '/') {
				snprintf(err, errlen, "'%s' at character %zu cannot be "
				    "in a host name", *c == '/' ? "/" : "blank",
				    (size_t)(c - spec) + 1);
				goto fail;
			}
		if (expand_item(spec, s, (size_t)(e - s), made, 0, &o, err,
		    errlen))
			goto fail;
		if (!*e)
			break;
		s = e + 1;
	}
	*hosts = o.v;
	*n = o.n;
	return 0;
fail:
	hostlist_free(o.v, o.n);
	return -1;
}

void
hostlist_free(char **hosts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(hosts[i]);
	free(hosts);
}
