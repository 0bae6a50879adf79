/* The record file of BCS mode read back, and the replay checks (see
 * bcs_replay.h for the format). */
#include "mpi/bcs_replay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 10

/* ---- reading ------------------------------------------------------------ */

struct reader {
	const char *name;
	unsigned line;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 2, 3)))
bad(struct reader *rd, const char *fmt, ...)
{
	int n = snprintf(rd->err, rd->errlen, "%s:%u: ", rd->name, rd->line);
	if (n < 0 || (size_t)n >= rd->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Splits s at blanks in place: the number of tokens (at most max + 1, so
 * that too many is seen). */
static int
split(char *s, char **tok, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t\r\n", &save); t && n <= max;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	return n;
}

static bool
to_u64(const char *s, int base, uint64_t *out)
{
	if (*s == '-' || *s == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

static bool
to_int(const char *s, long lo, long hi, int32_t *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = (int32_t)v;
	return true;
}

static bool
to_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	if (!to_u64(s, 10, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

bool
mpi_bcs_is_test_fn(int fn)
{
	return fn == MPI_FN_Test || fn == MPI_FN_Testany ||
	       fn == MPI_FN_Testall || fn == MPI_FN_Testsome ||
	       fn == MPI_FN_Waitany || fn == MPI_FN_Waitsome ||
	       fn == MPI_FN_Iprobe || fn == MPI_FN_Improbe ||
	       fn == MPI_FN_Probe || fn == MPI_FN_Mprobe;
}

static bool
grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : 64;
	void *p = realloc(*arr, c * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

/* The header lines: "# grove-bcs-record 1", "# ranks N slice_ns S". */
static int
header(struct reader *rd, char *s, struct mpi_bcs_record *out)
{
	char *tok[MAX_TOKENS + 1];
	int n = split(s, tok, MAX_TOKENS);
	if (rd->line == 1) {
		if (n != 3 || strcmp(tok[0], "#") != 0 ||
		    strcmp(tok[1], "grove-bcs-record") != 0)
			return bad(rd, "not a BCS record (the first line must be "
			               "'# grove-bcs-record 1')");
		if (strcmp(tok[2], "1") != 0)
			return bad(rd, "record version %s; this library reads "
			               "version 1", tok[2]);
		return 0;
	}
	int32_t nranks;
	uint64_t ns;
	if (n != 5 || strcmp(tok[0], "#") != 0 || strcmp(tok[1], "ranks") != 0 ||
	    !to_int(tok[2], 1, INT32_MAX, &nranks) ||
	    strcmp(tok[3], "slice_ns") != 0 || !to_u64(tok[4], 10, &ns))
		return bad(rd, "the second line must be '# ranks N slice_ns S'");
	out->nranks = nranks;
	out->slice_ns = ns;
	return 0;
}

static int
line_w(struct reader *rd, char **tok, int n, int rank,
       struct mpi_bcs_record *out, size_t *cap)
{
	struct mpi_bcs_wild w = {.line = rd->line};
	int32_t who;
	if (n != 5)
		return bad(rd, "a W line has 4 numbers: W <slice> <rank> <k> "
		               "<source>; this one has %d", n - 1);
	if (!to_u64(tok[1], 10, &w.slice))
		return bad(rd, "slice '%s' is not a number", tok[1]);
	if (!to_int(tok[2], 0, out->nranks - 1, &who))
		return bad(rd, "rank '%s' is not in [0, %d)", tok[2], out->nranks);
	if (!to_u32(tok[3], &w.k))
		return bad(rd, "receive number '%s' is not a number", tok[3]);
	if (!to_int(tok[4], 0, INT32_MAX, &w.source))
		return bad(rd, "source '%s' is not a rank", tok[4]);
	if (who != rank)
		return 0;
	if (!grow((void **)&out->wild, cap, out->nwild, sizeof(w)))
		return bad(rd, "out of memory");
	out->wild[out->nwild++] = w;
	return 0;
}

static int
line_t(struct reader *rd, char **tok, int n, int rank,
       struct mpi_bcs_record *out, size_t *cap)
{
	struct mpi_bcs_tline t = {.line = rd->line};
	int32_t who;
	if (n != 9)
		return bad(rd, "a T line has 8 numbers: T <slice> <rank> <k> <fn> "
		               "<count> <mask> <source> <tag>; this one has %d",
		           n - 1);
	if (!to_u64(tok[1], 10, &t.slice))
		return bad(rd, "slice '%s' is not a number", tok[1]);
	if (!to_int(tok[2], 0, out->nranks - 1, &who))
		return bad(rd, "rank '%s' is not in [0, %d)", tok[2], out->nranks);
	if (!to_u32(tok[3], &t.k))
		return bad(rd, "call number '%s' is not a number", tok[3]);
	if (!to_int(tok[4], 0, MPI_FN_COUNT_ - 1, &t.fn) ||
	    (!mpi_bcs_is_test_fn(t.fn) && t.fn != MPI_FN_Finalize))
		return bad(rd, "function id '%s' is not one of the test family "
		               "of this library, nor MPI_Finalize", tok[4]);
	if (!to_u32(tok[5], &t.count))
		return bad(rd, "count '%s' is not a number", tok[5]);
	if (!to_u64(tok[6], 0, &t.mask))
		return bad(rd, "mask '%s' is not a number", tok[6]);
	if (!to_int(tok[7], -1, INT32_MAX, &t.source))
		return bad(rd, "source '%s' is not a rank or -1", tok[7]);
	if (!to_int(tok[8], -1, INT32_MAX, &t.tag))
		return bad(rd, "tag '%s' is not a tag or -1", tok[8]);
	if (who != rank)
		return 0;
	if (t.fn == MPI_FN_Finalize) {
		if (out->has_end)
			return bad(rd, "a second end (MPI_Finalize) line for rank %d "
			               "(the first is line %u)", rank, out->end_line);
		out->has_end = true;
		out->end_calls = t.k;
		out->end_wilds = t.count;
		out->end_line = rd->line;
		return 0;
	}
	if (!grow((void **)&out->test, cap, out->ntest, sizeof(t)))
		return bad(rd, "out of memory");
	out->test[out->ntest++] = t;
	return 0;
}

static int
cmp_wild(const void *a, const void *b)
{
	uint32_t x = ((const struct mpi_bcs_wild *)a)->k;
	uint32_t y = ((const struct mpi_bcs_wild *)b)->k;
	return x < y ? -1 : x > y;
}

static int
cmp_test(const void *a, const void *b)
{
	uint32_t x = ((const struct mpi_bcs_tline *)a)->k;
	uint32_t y = ((const struct mpi_bcs_tline *)b)->k;
	return x < y ? -1 : x > y;
}

/* Sorts by k and refuses a k recorded twice. */
static int
finish(struct reader *rd, struct mpi_bcs_record *out, int rank)
{
	if (out->nwild > 1)
		qsort(out->wild, out->nwild, sizeof(*out->wild), cmp_wild);
	if (out->ntest > 1)
		qsort(out->test, out->ntest, sizeof(*out->test), cmp_test);
	for (size_t i = 1; i < out->nwild; i++)
		if (out->wild[i].k == out->wild[i - 1].k) {
			rd->line = out->wild[i].line;
			return bad(rd, "a second W line for rank %d's receive %u "
			               "(the first is line %u)", rank, out->wild[i].k,
			           out->wild[i - 1].line);
		}
	for (size_t i = 1; i < out->ntest; i++)
		if (out->test[i].k == out->test[i - 1].k) {
			rd->line = out->test[i].line;
			return bad(rd, "a second T line for rank %d's call %u (the "
			               "first is line %u)", rank, out->test[i].k,
			           out->test[i - 1].line);
		}
	return 0;
}

int
mpi_bcs_record_read(FILE *f, const char *name, int rank,
                    struct mpi_bcs_record *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct reader rd = {name, 0, err, errlen};
	size_t wcap = 0, tcap = 0;
	char *buf = NULL;
	size_t bufcap = 0;
	ssize_t got;
	int rc = 0;
	while (rc == 0 && (got = getline(&buf, &bufcap, f)) >= 0) {
		rd.line++;
		if ((size_t)got != strlen(buf)) {
			rc = bad(&rd, "a NUL byte in the line");
			break;
		}
		if (rd.line <= 2) {
			rc = header(&rd, buf, out);
			continue;
		}
		char *tok[MAX_TOKENS + 1];
		int n = split(buf, tok, MAX_TOKENS);
		if (n == 0 || tok[0][0] == '#')
			continue;
		if (strcmp(tok[0], "W") == 0)
			rc = line_w(&rd, tok, n, rank, out, &wcap);
		else if (strcmp(tok[0], "T") == 0)
			rc = line_t(&rd, tok, n, rank, out, &tcap);
		else
			rc = bad(&rd, "a line starts with W, T or #, not '%s'", tok[0]);
	}
	free(buf);
	if (rc == 0 && ferror(f)) {
		rd.line++;
		rc = bad(&rd, "read error: %s", strerror(errno));
	}
	if (rc == 0 && rd.line < 2) {
		rd.line++;
		rc = bad(&rd, "the file ends before its header "
		              "('# grove-bcs-record 1', '# ranks N slice_ns S')");
	}
	if (rc == 0 && rank >= out->nranks) {
		rd.line = 2;
		rc = bad(&rd, "the record is of %d ranks; this is rank %d",
		         out->nranks, rank);
	}
	if (rc == 0)
		rc = finish(&rd, out, rank);
	if (rc == 0 && out->has_end &&
	    ((out->ntest && out->test[out->ntest - 1].k >= out->end_calls) ||
	     (out->nwild && out->wild[out->nwild - 1].k >= out->end_wilds))) {
		rd.line = out->end_line;
		rc = bad(&rd, "rank %d's end line counts %u test-family calls and "
		              "%u wildcard receives, fewer than its other lines "
		              "number", rank, out->end_calls, out->end_wilds);
	}
	if (rc != 0)
		mpi_bcs_record_free(out);
	return rc;
}

int
mpi_bcs_record_load(const char *path, int rank, struct mpi_bcs_record *out,
                    char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the record: %s", path,
		         strerror(errno));
		return -1;
	}
	int rc = mpi_bcs_record_read(f, path, rank, out, err, errlen);
	fclose(f);
	return rc;
}

void
mpi_bcs_record_free(struct mpi_bcs_record *r)
{
	free(r->wild);
	free(r->test);
	memset(r, 0, sizeof(*r));
}

const struct mpi_bcs_wild *
mpi_bcs_record_wild(const struct mpi_bcs_record *r, uint32_t k)
{
	size_t lo = 0, hi = r->nwild;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->wild[mid].k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nwild && r->wild[lo].k == k ? &r->wild[lo] : NULL;
}

const struct mpi_bcs_tline *
mpi_bcs_record_test(const struct mpi_bcs_record *r, uint32_t k)
{
	size_t lo = 0, hi = r->ntest;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->test[mid].k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ntest && r->test[lo].k == k ? &r->test[lo] : NULL;
}

/* ---- replay checks -------------------------------------------------------- */

static int __attribute__((format(printf, 3, 4)))
differs(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int
check_fn(const struct mpi_bcs_tline *t, enum mpi_fn fn, char *why, size_t len)
{
	if (t->fn != (int32_t)fn)
		return differs(why, len, "the program calls %s, the record (line "
		               "%u) has %s returning true", mpi_fn_names[fn],
		               t->line, mpi_fn_names[t->fn]);
	return 0;
}

int
mpi_bcs_replay_check_reqs(const struct mpi_bcs_tline *t, enum mpi_fn fn,
                          int n, const bool *active, char *why, size_t len)
{
	if (check_fn(t, fn, why, len))
		return -1;
	int nactive = 0, hi_active = 0;
	uint64_t amask = 0;
	for (int i = 0; i < n; i++) {
		if (!active[i])
			continue;
		nactive++;
		if (i < 64)
			amask |= 1ull << i;
		else
			hi_active++;
	}
	/* Indices the mask names that the call does not have, or that are
	 * not active in it. */
	uint64_t outside = t->mask & ~amask;
	if (outside) {
		int i = __builtin_ctzll(outside);
		return differs(why, len, "the record (line %u) completes request "
		               "%d, which %s", t->line, i,
		               i >= n ? "is beyond the array" : "is not active");
	}
	int named = __builtin_popcountll(t->mask);
	int beyond = (int)t->count - named; /* completed at index >= 64 */
	switch (fn) {
	case MPI_FN_Test:
		if (t->count != 1 || t->mask != 1)
			return differs(why, len, "the record (line %u) has MPI_Test "
			               "completing %u requests (mask %#llx)", t->line,
			               t->count, (unsigned long long)t->mask);
		return 0;
	case MPI_FN_Testany:
	case MPI_FN_Waitany:
		if (t->count != 1 || named > 1 || (named == 0 && hi_active == 0))
			return differs(why, len, "the record (line %u) has %s "
			               "completing %u requests (mask %#llx) of %d "
			               "active", t->line, mpi_fn_names[fn], t->count,
			               (unsigned long long)t->mask, nactive);
		return 0;
	case MPI_FN_Testall:
		if ((int)t->count != nactive || t->mask != amask)
			return differs(why, len, "the record (line %u) has MPI_Testall "
			               "completing %u requests (mask %#llx); the call "
			               "has %d active (mask %#llx)", t->line, t->count,
			               (unsigned long long)t->mask, nactive,
			               (unsigned long long)amask);
		return 0;
	case MPI_FN_Testsome:
	case MPI_FN_Waitsome:
		if (t->count == 0 || beyond < 0 || beyond > hi_active)
			return differs(why, len, "the record (line %u) has %s "
			               "completing %u requests (mask %#llx); the call "
			               "has %d active", t->line, mpi_fn_names[fn],
			               t->count, (unsigned long long)t->mask, nactive);
		return 0;
	default:
		return differs(why, len, "%s is not a test of requests",
		               mpi_fn_names[fn]);
	}
}

int
mpi_bcs_replay_check_probe(const struct mpi_bcs_tline *t, enum mpi_fn fn,
                           int source, int tag, int comm_size, char *why,
                           size_t len)
{
	if (check_fn(t, fn, why, len))
		return -1;
	if (t->count != 1 || t->source < 0 || t->source >= comm_size ||
	    t->tag < 0)
		return differs(why, len, "the record (line %u) has a message from "
		               "rank %d tag %d (count %u) on a communicator of %d "
		               "ranks", t->line, t->source, t->tag, t->count,
		               comm_size);
	if (source != MPI_ANY_SOURCE && source != t->source)
		return differs(why, len, "the program probes for rank %d, the "
		               "record (line %u) has a message from rank %d",
		               source, t->line, t->source);
	if (tag != MPI_ANY_TAG && tag != t->tag)
		return differs(why, len, "the program probes for tag %d, the "
		               "record (line %u) has tag %d", tag, t->line, t->tag);
	return 0;
}

int
mpi_bcs_replay_check_wild(const struct mpi_bcs_wild *w, int comm_size,
                          char *why, size_t len)
{
	if (w->source < 0 || w->source >= comm_size)
		return differs(why, len, "the record (line %u) has it matched by "
		               "rank %d, and its communicator has %d ranks",
		               w->line, w->source, comm_size);
	return 0;
}

int
mpi_bcs_replay_check_end(const struct mpi_bcs_record *r, uint32_t calls,
                         uint32_t wilds, char *where, size_t wlen, char *why,
                         size_t len)
{
	snprintf(where, wlen, "MPI_Finalize");
	if (r->has_end && (calls != r->end_calls || wilds != r->end_wilds))
		return differs(why, len, "the program made %u test-family calls and "
		               "posted %u MPI_ANY_SOURCE receives; the recorded run "
		               "%u and %u (line %u)", calls, wilds, r->end_calls,
		               r->end_wilds, r->end_line);
	/* Sorted by k: the last line has the largest. */
	if (r->ntest && r->test[r->ntest - 1].k >= calls) {
		const struct mpi_bcs_tline *t = NULL;
		for (size_t i = 0; !t && i < r->ntest; i++)
			if (r->test[i].k >= calls)
				t = &r->test[i];
		return differs(why, len, "the record (line %u) has test-family call "
		               "%u (%s) returning true; the program made %u such "
		               "calls", t->line, t->k, mpi_fn_names[t->fn], calls);
	}
	if (r->nwild && r->wild[r->nwild - 1].k >= wilds) {
		const struct mpi_bcs_wild *w = NULL;
		for (size_t i = 0; !w && i < r->nwild; i++)
			if (r->wild[i].k >= wilds)
				w = &r->wild[i];
		return differs(why, len, "the record (line %u) has MPI_ANY_SOURCE "
		               "receive %u matched; the program posted %u such "
		               "receives", w->line, w->k, wilds);
	}
	return 0;
}
