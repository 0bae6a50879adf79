/* EMDS: per-slice statistics of the strobe, for a window of slices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcs/emds.h"
#include "grove/error.h"

static const char *const global_names[BCS_EMDS_GLOBAL_N] = {
	"GETTS", "GTDEM", "GTMSM", "GTTS", "USRTS", "USRDEM", "USRMSM",
};
static const char *const local_names[BCS_EMDS_LOCAL_N] = {
	"LETTS", "LTDEM", "LMSM", "LTTS", "NP2PDEM", "NP2PMSM", "NCOLLDEM",
	"NCOLLMSM", "BPTS",
};

int
bcs_emds_init(bcs_emds *e, int local, uint32_t node, uint64_t from,
    uint64_t to, char *err, size_t errlen)
{
	memset(e, 0, sizeof *e);
	if (from > to) {
		snprintf(err, errlen, "EMDS window [%llu, %llu]: the first "
		    "slice is after the last", (unsigned long long)from,
		    (unsigned long long)to);
		return GROVE_EINVAL;
	}
	if (to - from >= BCS_EMDS_MAX_SLICES) {
		snprintf(err, errlen, "EMDS window [%llu, %llu]: %llu slices, "
		    "more than %u", (unsigned long long)from,
		    (unsigned long long)to,
		    (unsigned long long)(to - from + 1), BCS_EMDS_MAX_SLICES);
		return GROVE_ERANGE;
	}
	size_t n = (size_t)(to - from + 1);
	e->vals = calloc(n * BCS_EMDS_COLS, sizeof *e->vals);
	e->have = calloc(n, 1);
	if (!e->vals || !e->have) {
		bcs_emds_fini(e);
		snprintf(err, errlen, "out of memory for %zu EMDS rows", n);
		return GROVE_ENOMEM;
	}
	e->local = local;
	e->node = node;
	e->from = from;
	e->to = to;
	return 0;
}

void
bcs_emds_fini(bcs_emds *e)
{
	free(e->vals);
	free(e->have);
	e->vals = NULL;
	e->have = NULL;
}

void
bcs_emds_record(bcs_emds *e, uint64_t slice, const uint64_t *vals)
{
	if (!e->vals || slice < e->from || slice > e->to)
		return;
	size_t i = (size_t)(slice - e->from);
	int n = e->local ? BCS_EMDS_LOCAL_N : BCS_EMDS_GLOBAL_N;
	memcpy(e->vals + i * BCS_EMDS_COLS, vals, (size_t)n * sizeof *vals);
	e->have[i] = 1;
}

/* Where a global row keeps its strobe time: a column the files do not
 * show (global rows use BCS_EMDS_GLOBAL_N of BCS_EMDS_COLS). */
#define START_COL (BCS_EMDS_COLS - 1)
_Static_assert(BCS_EMDS_GLOBAL_N < BCS_EMDS_COLS, "a spare column");

void
bcs_emds_set_start(bcs_emds *e, uint64_t slice, uint64_t mono_ns)
{
	if (!e->vals || e->local || slice < e->from || slice > e->to)
		return;
	e->vals[(size_t)(slice - e->from) * BCS_EMDS_COLS + START_COL] = mono_ns;
}

int
bcs_emds_row(const bcs_emds *e, uint64_t slice, uint64_t *vals,
    uint64_t *start_ns)
{
	if (!e->vals || slice < e->from || slice > e->to ||
	    !e->have[slice - e->from])
		return 0;
	const uint64_t *row = e->vals + (size_t)(slice - e->from) * BCS_EMDS_COLS;
	int n = e->local ? BCS_EMDS_LOCAL_N : BCS_EMDS_GLOBAL_N;
	memcpy(vals, row, (size_t)n * sizeof *vals);
	if (start_ns)
		*start_ns = e->local ? 0 : row[START_COL];
	return 1;
}

uint64_t
bcs_emds_rows(const bcs_emds *e)
{
	uint64_t n = 0;
	for (uint64_t i = 0; e->have && i <= e->to - e->from; i++)
		n += e->have[i];
	return n;
}

int
bcs_emds_write_csv(const bcs_emds *e, FILE *f)
{
	int n = e->local ? BCS_EMDS_LOCAL_N : BCS_EMDS_GLOBAL_N;
	const char *const *names = e->local ? local_names : global_names;
	fprintf(f, "%sslice", e->local ? "node," : "");
	for (int k = 0; k < n; k++)
		fprintf(f, ",%s", names[k]);
	fputc('\n', f);
	for (uint64_t i = 0; e->have && i <= e->to - e->from; i++) {
		if (!e->have[i])
			continue;
		if (e->local)
			fprintf(f, "%u,", e->node);
		fprintf(f, "%llu", (unsigned long long)(e->from + i));
		const uint64_t *v = e->vals + i * BCS_EMDS_COLS;
		for (int k = 0; k < n; k++)
			fprintf(f, ",%llu", (unsigned long long)v[k]);
		fputc('\n', f);
	}
	return ferror(f) ? GROVE_ESYS : 0;
}

int
bcs_emds_write_json(const bcs_emds *e, FILE *f)
{
	int n = e->local ? BCS_EMDS_LOCAL_N : BCS_EMDS_GLOBAL_N;
	const char *const *names = e->local ? local_names : global_names;
	for (uint64_t i = 0; e->have && i <= e->to - e->from; i++) {
		if (!e->have[i])
			continue;
		fprintf(f, "{");
		if (e->local)
			fprintf(f, "\"node\": %u, ", e->node);
		fprintf(f, "\"slice\": %llu", (unsigned long long)(e->from + i));
		const uint64_t *v = e->vals + i * BCS_EMDS_COLS;
		for (int k = 0; k < n; k++)
			fprintf(f, ", \"%s\": %llu", names[k],
			    (unsigned long long)v[k]);
		fprintf(f, "}\n");
	}
	return ferror(f) ? GROVE_ESYS : 0;
}
