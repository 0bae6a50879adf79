#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../agent/metrics.h"
#include "top_view.h"

int
top_sample_decode(const grove_packet *p, top_sample *s)
{
	uint64_t n[5];
	memset(s, 0, sizeof *s);
	int rc = grove_packet_unpack(p, TOP_SAMPLE_FMT, &s->start_ns,
	    &s->end_ns, &s->count, &s->sum, &n[0], &s->min, &n[1],
	    &s->min_rank, &n[2], &s->max, &n[3], &s->max_rank, &n[4]);
	if (rc < 0)
		return rc;
	for (int i = 1; i < 5; i++)
		if (n[i] != n[0])
			return GROVE_EPROTO;
	if (s->end_ns <= s->start_ns)
		return GROVE_EPROTO;
	s->n = n[0];
	return 0;
}

void
top_sample_row(const top_sample *s, uint64_t i, top_row *r)
{
	double secs = (double)(s->end_ns - s->start_ns) / 1e9;
	r->min = s->min[i] / secs;
	r->max = s->max[i] / secs;
	r->avg = s->count ? s->sum[i] / s->count / secs : 0;
	r->min_rank = s->min_rank[i];
	r->max_rank = s->max_rank[i];
}

top_pick
top_pick_interval(uint64_t seen, int once, uint32_t count, uint32_t up,
    uint32_t max_wait)
{
	if (seen == 0)
		return TOP_SKIP;
	if (!once || count >= up)
		return TOP_SHOW;
	return seen < max_wait ? TOP_SKIP : TOP_SHOW_INCOMPLETE;
}

void
top_bar(char *out, int width, double lo, double mid, double hi, double full)
{
	if (!(full > 0))
		full = 1;
	int a = (int)floor(lo / full * (width - 1));
	int b = (int)ceil(hi / full * (width - 1));
	int m = (int)lround(mid / full * (width - 1));
	for (int i = 0; i < width; i++) {
		char c = i >= a && i <= b ? '=' : '.';
		if (i == m)
			c = '|';
		out[i] = c;
	}
	out[width] = '\0';
}

/* A value in at most 9 columns: plain for ordinary magnitudes, with a k/M
 * suffix for big rates. */
static void
fmt_val(char *out, size_t len, double v)
{
	double a = fabs(v);
	if (a >= 1e7)
		snprintf(out, len, "%.1fM", v / 1e6);
	else if (a >= 1e5)
		snprintf(out, len, "%.1fk", v / 1e3);
	else if (a >= 99.995) /* what "%.2f" would print as 100.00 */
		snprintf(out, len, "%.0f", v);
	else
		snprintf(out, len, "%.2f", v);
}

void
top_render_table(FILE *f, const char *title, const top_sample *s,
    double *scale_max, uint32_t live, uint32_t lost)
{
	const metric_desc *md = metric_table();
	fprintf(f, "%s\n", title);
	/* An agent lost during the interval may still have data in it:
	 * then more report than are live now. */
	if (s->count <= live)
		fprintf(f, "interval %.3f s, %u of %u agents reporting",
		    (double)(s->end_ns - s->start_ns) / 1e9, s->count, live);
	else
		fprintf(f, "interval %.3f s, %u agents reporting (%u live)",
		    (double)(s->end_ns - s->start_ns) / 1e9, s->count, live);
	/* Say why some are missing: data of a node that lags (stalled, or
	 * a clock far behind the others, or dead and not yet reported
	 * lost) is left out, and what it sends later is dropped as late,
	 * not shown.  The lost ones are counted apart: they are known to
	 * be gone. */
	if (s->count < live)
		fprintf(f, " (%u missing: lagging, or data dropped as late)",
		    live - s->count);
	if (lost)
		fprintf(f, ", %u lost", lost);
	fprintf(f, "\n\n");
	fprintf(f, "%-14s %9s %9s %9s  %-22s %7s %7s\n", "metric", "min",
	    "avg", "max", "spread (min|avg max)", "min@", "max@");
	for (uint64_t i = 0; i < s->n && i < METRIC_COUNT; i++) {
		top_row r;
		top_sample_row(s, i, &r);
		/* CPU percent has a natural full scale; the others grow to
		 * the largest value seen so the bar does not jump around. */
		double full = i == METRIC_CPU ? 100 : scale_max[i];
		if (r.max > full)
			full = scale_max[i] = r.max * 1.25;
		char bar[32], lo[16], avg[16], hi[16], name[32];
		top_bar(bar, 20, r.min, r.avg, r.max, full);
		fmt_val(lo, sizeof lo, r.min);
		fmt_val(avg, sizeof avg, r.avg);
		fmt_val(hi, sizeof hi, r.max);
		snprintf(name, sizeof name, "%s %s", md[i].name, md[i].unit);
		fprintf(f, "%-14s %9s %9s %9s  [%s] %7u %7u\n", name, lo, avg,
		    hi, bar, r.min_rank, r.max_rank);
	}
}

/* A number JSON can carry: NaN and the infinities (an agent's counter gone
 * wrong, a metric divided by nothing) have no JSON form, so they are null,
 * and the rest of the object stays readable. */
static void
json_num(FILE *f, const char *key, double v)
{
	if (isfinite(v))
		fprintf(f, "\"%s\":%.6g", key, v);
	else
		fprintf(f, "\"%s\":null", key);
}

void
top_render_json(FILE *f, const top_sample *s, uint32_t backends,
    uint32_t lost, const char *classes_json, const char *skew_json)
{
	const metric_desc *md = metric_table();
	fprintf(f, "{\"interval_start_ns\":%" PRIu64 ",\"interval_end_ns\":%"
	    PRIu64 ",\"interval_s\":%.6f,\"backends\":%u,\"contributors\":%u,"
	    "\"missing\":%u,\"lost\":%u,\"metrics\":{", s->start_ns,
	    s->end_ns, (double)(s->end_ns - s->start_ns) / 1e9, backends,
	    s->count, backends > s->count ? backends - s->count : 0, lost);
	for (uint64_t i = 0; i < s->n && i < METRIC_COUNT; i++) {
		top_row r;
		top_sample_row(s, i, &r);
		fprintf(f, "%s\"%s\":{\"unit\":\"%s\",", i ? "," : "",
		    md[i].name, md[i].unit);
		json_num(f, "min", r.min);
		fprintf(f, ",\"min_rank\":%u,", r.min_rank);
		json_num(f, "avg", r.avg);
		fputc(',', f);
		json_num(f, "max", r.max);
		fprintf(f, ",\"max_rank\":%u}", r.max_rank);
	}
	fprintf(f, "}");
	if (classes_json)
		fprintf(f, ",%s", classes_json);
	if (skew_json)
		fprintf(f, ",\"skew\":%s", skew_json);
	fprintf(f, "}");
}
