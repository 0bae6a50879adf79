/* Host lists ("host[:slots]" per line) and placing a tree's nodes on them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textfile.h"
#include "topo/topo_impl.h"

static int
hl_add(grove_hostlist *hl, const char *name, size_t len, uint32_t slots,
    uint32_t line)
{
	struct topo_host *h;

	if (hl->n == hl->cap) {
		uint32_t cap = hl->cap ? hl->cap * 2 : 16;
		struct topo_host *v = realloc(hl->v, cap * sizeof *v);

		if (!v)
			return GROVE_ENOMEM;
		hl->v = v;
		hl->cap = cap;
	}
	h = &hl->v[hl->n];
	h->name = strndup(name, len);
	if (!h->name)
		return GROVE_ENOMEM;
	h->slots = slots;
	h->line = line;
	hl->n++;
	return 0;
}

/* One line without its comment: blank, or "host" or "host:slots". */
static int
hl_line(grove_hostlist *hl, const char *s, size_t len, uint32_t line,
    char *err, size_t errlen)
{
	size_t i = 0, hs, he;
	uint64_t slots = 1;

	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	while (len > i && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
	    s[len - 1] == '\r'))
		len--;
	if (i == len)
		return 0;
	hs = i;
	while (i < len && topo_is_host_char((unsigned char)s[i]))
		i++;
	he = i;
	if (he == hs || (i < len && s[i] != ':')) {
		errfmt(err, errlen, "line %u: bad host entry '%.*s' "
		    "(expected 'host' or 'host:slots')", line,
		    (int)(len - hs > 64 ? 64 : len - hs), s + hs);
		return GROVE_ETOPO;
	}
	if (he - hs > TOPO_MAX_HOSTNAME) {
		errfmt(err, errlen, "line %u: host name longer than %d "
		    "characters", line, TOPO_MAX_HOSTNAME);
		return GROVE_ETOPO;
	}
	if (i < len) {
		size_t ds = ++i;

		slots = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' &&
		    slots <= UINT32_MAX)
			slots = slots * 10 + (uint64_t)(s[i++] - '0');
		if (i == ds || i < len || slots == 0 || slots > UINT32_MAX) {
			errfmt(err, errlen, "line %u: bad slot count '%.*s' "
			    "for host '%.*s' (expected a number >= 1)", line,
			    (int)(len - ds > 32 ? 32 : len - ds), s + ds,
			    (int)(he - hs), s + hs);
			return GROVE_ETOPO;
		}
	}
	return hl_add(hl, s + hs, he - hs, (uint32_t)slots, line);
}

int
grove_hostlist_parse_string(const char *text, grove_hostlist **out,
    char *err, size_t errlen)
{
	grove_hostlist *hl;
	const char *p = text;
	uint32_t line = 0;
	int rc = 0;

	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!text) {
		errfmt(err, errlen, "no host list text");
		return GROVE_EINVAL;
	}
	hl = calloc(1, sizeof *hl);
	if (!hl)
		return GROVE_ENOMEM;
	while (*p && !rc) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *hash = memchr(p, '#', (size_t)(end - p));

		line++;
		rc = hl_line(hl, p, (size_t)((hash ? hash : end) - p), line,
		    err, errlen);
		p = nl ? nl + 1 : end;
	}
	if (!rc && hl->n == 0) {
		errfmt(err, errlen, "line %u: the host list names no host",
		    line ? line : 1);
		rc = GROVE_ETOPO;
	}
	if (rc) {
		if (rc == GROVE_ENOMEM)
			errfmt(err, errlen, "out of memory");
		grove_hostlist_destroy(hl);
		return rc;
	}
	*out = hl;
	return 0;
}

/* NUL bytes inside are an error because every consumer treats the text as
 * a C string. */
int
topo_read_file(const char *path, char **text, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc = core_read_file(path, 0, &buf, &len, err, errlen);

	*text = NULL;
	if (rc != 0)
		return rc;
	if (strlen(buf) != len) {
		size_t at = strlen(buf);
		uint32_t line = 1;

		for (size_t i = 0; i < at; i++)
			line += buf[i] == '\n';
		errfmt(err, errlen, "line %u: NUL byte in text file", line);
		free(buf);
		return GROVE_ETOPO;
	}
	*text = buf;
	return 0;
}

int
grove_hostlist_parse_file(const char *path, grove_hostlist **out,
    char *err, size_t errlen)
{
	char *text;
	int rc;

	if (!out || !path)
		return GROVE_EINVAL;
	*out = NULL;
	rc = topo_read_file(path, &text, err, errlen);
	if (rc)
		return rc;
	rc = grove_hostlist_parse_string(text, out, err, errlen);
	free(text);
	return rc;
}

uint32_t
grove_hostlist_size(const grove_hostlist *hl)
{
	return hl ? hl->n : 0;
}

uint64_t
grove_hostlist_slots(const grove_hostlist *hl)
{
	uint64_t total = 0;
	for (uint32_t i = 0; hl && i < hl->n; i++)
		total += hl->v[i].slots;
	return total;
}

void
grove_hostlist_destroy(grove_hostlist *hl)
{
	if (!hl)
		return;
	for (uint32_t i = 0; i < hl->n; i++)
		free(hl->v[i].name);
	free(hl->v);
	free(hl);
}

struct hl_sorted {
	const char *name;
	uint32_t entry;
};

static int
hl_cmp(const void *a, const void *b)
{
	const struct hl_sorted *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The FE takes the first slot of the first host; then nodes in pre-order
 * fill each host's slots before moving to the next host, wrapping around.
 * A host listed on several lines is one host: its instance numbers keep
 * counting, so every host:instance pair stays unique. */
int
topo_place_hosts(grove_topo *t, const grove_hostlist *hl)
{
	struct hl_sorted *s;
	uint32_t *uniq, *next_inst, n_uniq = 0, e = 0, used = 0;
	const char **names;
	int rc = GROVE_ENOMEM;

	if (!hl || hl->n == 0)
		return GROVE_EINVAL;
	s = malloc(hl->n * sizeof *s);
	uniq = malloc(hl->n * sizeof *uniq);
	next_inst = calloc(hl->n, sizeof *next_inst);
	names = malloc(hl->n * sizeof *names);
	if (!s || !uniq || !next_inst || !names)
		goto out;
	/* Sort to find duplicate names in O(n log n), whatever the list
	 * length. */
	for (uint32_t i = 0; i < hl->n; i++) {
		s[i].name = hl->v[i].name;
		s[i].entry = i;
	}
	qsort(s, hl->n, sizeof *s, hl_cmp);
	for (uint32_t i = 0; i < hl->n; i++) {
		if (i == 0 || strcmp(s[i].name, s[i - 1].name)) {
			names[n_uniq] = topo_add_host(t, s[i].name,
			    strlen(s[i].name));
			if (!names[n_uniq])
				goto out;
			n_uniq++;
		}
		uniq[s[i].entry] = n_uniq - 1;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t u;

		if (i > 0 && used >= hl->v[e].slots) {
			e = (e + 1) % hl->n;
			used = 0;
		}
		used++;
		u = uniq[e];
		t->nodes[i].host = names[u];
		t->nodes[i].instance = next_inst[u]++;
	}
	rc = 0;
out:
	free(s);
	free(uniq);
	free(next_inst);
	free(names);
	return rc;
}
