/* The report page: its sections, tables and numbers (see report.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "trace/align.h"

#ifndef GROVE_VERSION
#define GROVE_VERSION "unknown"
#endif

/* Groups drawn as bar charts (hotspot groups first, then the largest). */
#define MAX_GROUP_PICTURES 10
/* Communicators drawn with their trees and orders. */
#define MAX_SCOPES 16

static void
attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	report_esc(f, value);
	fputc('"', f);
}

static void
td_text(FILE *f, const char *s)
{
	fputs("<td>", f);
	report_esc(f, s);
	fputs("</td>", f);
}

static void
td_u64(FILE *f, uint64_t v)
{
	fprintf(f, "<td class=\"num\">%" PRIu64 "</td>", v);
}

static void
td_us(FILE *f, double ns)
{
	fputs("<td class=\"num\">", f);
	report_us(f, ns);
	fputs("</td>", f);
}

/* A number of the summary, with its id. */
static void
summary_item(FILE *f, const char *id, const char *what, uint64_t v)
{
	fprintf(f, "<tr><th>%s</th><td class=\"num\" id=\"%s\" "
	        "data-value=\"%" PRIu64 "\">%" PRIu64 "</td></tr>\n", what, id,
	        v, v);
}

static uint64_t
hotspots(const struct report *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->n_paths; i++)
		n += r->paths[i].hotspot != 0;
	return n;
}

static void
section_summary(FILE *f, const struct report *r)
{
	const struct mon_analysis *a = r->a;
	uint64_t msgs, viol, worst;
	mon_clockcheck_totals(a->clock, &msgs, &viol, &worst);
	fprintf(f, "<section id=\"summary\"><h2>Summary</h2>\n"
	        "<table class=\"summary\">\n");
	summary_item(f, "sum-processes", "processes (event spaces)", a->pm.n);
	summary_item(f, "sum-tuples", "tuples read", a->tuples);
	summary_item(f, "sum-lost", "tuples lost (overwritten before they "
	             "were read)", a->lost);
	summary_item(f, "sum-waves", "collective waves with a last arrival",
	             mon_balance_total(a->balance));
	summary_item(f, "sum-instances", "MPI collective instances complete",
	             r->inst.complete);
	summary_item(f, "sum-incomplete", "MPI collective instances "
	             "incomplete (calls lost)", r->inst.open);
	summary_item(f, "sum-messages", "link messages joined", msgs);
	summary_item(f, "sum-violations", "messages received before they "
	             "were sent", viol);
	summary_item(f, "sum-paths", "paths with statistics", r->n_paths);
	summary_item(f, "sum-hotspots", "hotspots", hotspots(r));
	fprintf(f, "<tr><th>timeline</th><td id=\"sum-timeline\" "
	        "data-value=\"%s\">%s</td></tr>\n</table>\n",
	        trace_timeline_name(r->set->timeline),
	        trace_timeline_name(r->set->timeline));
	fprintf(f, "<h3>Processes</h3>\n<table class=\"sortable\" "
	        "id=\"procs\"><thead><tr><th>process</th><th>host</th>"
	        "<th>pid</th><th>tuples</th><th>lost</th><th>clock</th>"
	        "<th>shift (us)</th><th>bound (us)</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->set->n; i++) {
		const struct trace_proc *p = &r->set->p[i];
		fprintf(f, "<tr class=\"proc-row\"");
		attr(f, "data-proc", p->label);
		attr(f, "data-host", p->hdr.hostname);
		fprintf(f, " data-pid=\"%d\" data-tuples=\"%" PRIu64 "\" "
		        "data-lost=\"%" PRIu64 "\" data-shift-ns=\"%" PRId64 "\" "
		        "data-bound-ns=\"%" PRIu64 "\">", p->hdr.pid, p->tuples,
		        p->lost, p->align_shift_ns, p->align_err_ns);
		td_text(f, p->label);
		td_text(f, p->hdr.hostname);
		fprintf(f, "<td class=\"num\">%d</td>", p->hdr.pid);
		td_u64(f, p->tuples);
		fprintf(f, "<td class=\"num%s\">%" PRIu64 "</td>", p->lost ?
		        " warn" : "", p->lost);
		td_text(f, trace_proc_align_name(p->align));
		td_us(f, (double)p->align_shift_ns);
		td_us(f, (double)p->align_err_ns);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table></section>\n");
}

/* The scopes of the balance, in order, each once. */
static size_t
balance_scopes(const struct report *r, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_edges && n < max; i++)
		if (!n || strcmp(out[n - 1], r->edges[i].scope))
			out[n++] = r->edges[i].scope;
	return n;
}

static void
section_balance(FILE *f, const struct report *r)
{
	fprintf(f, "<section id=\"balance\"><h2>Load balance: who arrives "
	        "last</h2>\n<p>For every collective wave the participant "
	        "that arrived last, counted per participant: TBON waves as "
	        "each node's synchronization filter recorded them "
	        "(<code>wave.last_be</code>, <code>wave.last_cp</code>), one "
	        "tree per stream; MPI collectives per communicator, the last "
	        "arrival being the rank whose call started last.  The "
	        "thicker and redder an edge, the more often that child was "
	        "the one its parent waited for.</p>\n");
	const char *scope[MAX_SCOPES];
	size_t ns = balance_scopes(r, scope, MAX_SCOPES);
	if (!ns)
		fprintf(f, "<p class=\"none\">No collective waves in these event "
		        "spaces.</p>\n");
	for (size_t k = 0; k < ns; k++) {
		int comm = !strncmp(scope[k], "comm:", 5);
		fprintf(f, "<div class=\"scope\"");
		attr(f, "data-scope", scope[k]);
		fprintf(f, "><h3>%s ", comm ? "communicator" : "stream");
		report_esc(f, scope[k]);
		fprintf(f, "</h3>\n<div class=\"scroll\">");
		if (comm)
			report_svg_comm(f, r, scope[k], scope[k]);
		else if (r->n_topo && report_tree_covers(r, scope[k]))
			report_svg_tree(f, r, scope[k]);
		else
			/* No tree to draw it in: each waiting node with its
			 * children. */
			for (size_t i = 0; i < r->n_edges; i++)
				if (!strcmp(r->edges[i].scope, scope[k]) &&
				    (i == 0 || strcmp(r->edges[i - 1].scope,
				     scope[k]) || strcmp(r->edges[i - 1].parent,
				     r->edges[i].parent)))
					report_svg_comm(f, r, scope[k],
					                r->edges[i].parent);
		fprintf(f, "</div>\n<table class=\"sortable\"><thead><tr>"
		        "<th>waiting</th><th>last arrival</th><th>times last"
		        "</th><th>of waves</th><th>share</th></tr></thead>"
		        "<tbody>\n");
		for (size_t i = 0; i < r->n_edges; i++) {
			const struct mon_balance_edge *e = &r->edges[i];
			if (strcmp(e->scope, scope[k]))
				continue;
			fprintf(f, "<tr class=\"bal-row\"");
			attr(f, "data-scope", e->scope);
			attr(f, "data-parent", e->parent);
			attr(f, "data-child", e->child);
			fprintf(f, " data-last=\"%" PRIu64 "\" data-waves=\"%"
			        PRIu64 "\">", e->last, e->waves);
			td_text(f, e->parent);
			td_text(f, e->child);
			td_u64(f, e->last);
			td_u64(f, e->waves);
			fprintf(f, "<td class=\"num\">%.1f%%</td></tr>\n",
			        e->waves ? 100.0 * (double)e->last /
			        (double)e->waves : 0);
		}
		fprintf(f, "</tbody></table></div>\n");
	}
	fprintf(f, "</section>\n");
}

/* The peer groups to draw: those with a hotspot first, then those where
 * the most time goes (the sum of their paths' durations); groups of one
 * path have no peers to compare, and groups of instants nothing to draw. */
static size_t
groups_to_draw(const struct report *r, uint32_t *out, size_t max)
{
	uint32_t ng = 0;
	for (size_t i = 0; i < r->n_paths; i++)
		if (r->paths[i].group + 1 > ng)
			ng = r->paths[i].group + 1;
	double *score = calloc(ng ? ng : 1, sizeof *score);
	if (!score)
		return 0;
	for (size_t i = 0; i < r->n_paths; i++) {
		const struct mon_path_stats *p = &r->paths[i];
		if (p->peers)
			score[p->group] += p->mean_ns * (double)p->count +
			                   (p->hotspot ? 1e30 : 0);
	}
	size_t n = 0;
	while (n < max) {
		uint32_t best = 0;
		double bs = 0;
		for (uint32_t g = 0; g < ng; g++)
			if (score[g] > bs) {
				bs = score[g];
				best = g;
			}
		if (!(bs > 0))
			break;
		out[n++] = best;
		score[best] = 0;
	}
	free(score);
	return n;
}

static void
section_stats(FILE *f, const struct report *r)
{
	fprintf(f, "<section id=\"stats\"><h2>Latency per path, and "
	        "hotspots</h2>\n<p>Per path (a collector of one process, one "
	        "operation; a link's messages, from the send to the receive): "
	        "count, mean, standard deviation, minimum and maximum of the "
	        "tuples' durations.  A path's peers are the paths with the "
	        "same collector name, layer and operation in processes of the "
	        "same role; it is a <span class=\"hot\">hotspot</span> when "
	        "its mean is more than <span id=\"sigma\" data-value=\"%g\">"
	        "%g</span> standard deviations of its peers' samples away "
	        "from their mean (paths and peers with at least <span "
	        "id=\"min-count\" data-value=\"%" PRIu64 "\">%" PRIu64
	        "</span> samples).  The pictures: the peer groups with "
	        "hotspots, then those where the most time goes; the table: "
	        "every path.</p>\n", r->opts.sigma, r->opts.sigma,
	        r->opts.min_count, r->opts.min_count);
	uint32_t g[MAX_GROUP_PICTURES];
	size_t ng = groups_to_draw(r, g, MAX_GROUP_PICTURES);
	for (size_t k = 0; k < ng; k++) {
		const struct mon_path_stats *any = NULL;
		for (size_t i = 0; i < r->n_paths && !any; i++)
			if (r->paths[i].group == g[k])
				any = &r->paths[i];
		fprintf(f, "<div class=\"group\" data-group=\"%" PRIu32 "\"><h3>",
		        g[k]);
		report_esc(f, any->name);
		fputs(" (", f);
		report_esc(f, any->layer);
		fputs(", ", f);
		report_esc(f, any->op);
		fputs(") in processes of role ", f);
		report_esc(f, any->role);
		fprintf(f, "</h3><div class=\"scroll\">");
		report_svg_group(f, r, g[k]);
		fprintf(f, "</div></div>\n");
	}
	fprintf(f, "<p><input id=\"path-filter\" type=\"search\" "
	        "placeholder=\"filter paths\"></p>\n<table class=\"sortable\" "
	        "id=\"paths\"><thead><tr><th>process</th><th>collector</th>"
	        "<th>layer</th><th>where</th><th>op</th><th>count</th>"
	        "<th>mean (us)</th><th>sd (us)</th><th>min (us)</th>"
	        "<th>max (us)</th><th>peers' mean (us)</th><th>z</th>"
	        "</tr></thead><tbody>\n");
	for (size_t i = 0; i < r->n_paths; i++) {
		const struct mon_path_stats *p = &r->paths[i];
		fprintf(f, "<tr class=\"path-row%s\"", p->hotspot > 0 ? " hot" :
		        p->hotspot < 0 ? " cold" : "");
		attr(f, "data-proc", p->proc);
		attr(f, "data-name", p->name);
		attr(f, "data-layer", p->layer);
		attr(f, "data-where", p->where);
		attr(f, "data-op", p->op);
		fprintf(f, " data-count=\"%" PRIu64 "\" data-mean-ns=\"%.3f\" "
		        "data-sd-ns=\"%.3f\" data-min-ns=\"%" PRIu64 "\" "
		        "data-max-ns=\"%" PRIu64 "\" data-group=\"%" PRIu32 "\" "
		        "data-peers=\"%" PRIu32 "\" data-z=\"%.3f\" "
		        "data-hotspot=\"%d\">", p->count, p->mean_ns, p->sd_ns,
		        p->min_ns, p->max_ns, p->group, p->peers, p->z,
		        p->hotspot);
		td_text(f, p->proc);
		td_text(f, p->name);
		td_text(f, p->layer);
		td_text(f, p->where);
		td_text(f, p->op);
		td_u64(f, p->count);
		td_us(f, p->mean_ns);
		td_us(f, p->sd_ns);
		td_us(f, (double)p->min_ns);
		td_us(f, (double)p->max_ns);
		if (p->peers)
			td_us(f, p->peers_mean_ns);
		else
			fputs("<td></td>", f);
		fprintf(f, "<td class=\"num\">%.2f</td></tr>\n", p->z);
	}
	fprintf(f, "</tbody></table></section>\n");
}

static void
section_timelines(FILE *f, const struct report *r)
{
	fprintf(f, "<section id=\"timelines\"><h2>Computation and "
	        "communication per process</h2>\n<p>Each row is a process "
	        "on the common timeline: <span class=\"k-call\">calls</span> "
	        "into Grove or Grove MPI (communication), and the gaps "
	        "between them (computation).  A process that makes no calls "
	        "(a CP) shows what its loop did: <span class=\"k-filter\">"
	        "filter runs</span> and <span class=\"k-link\">link "
	        "batches</span> written and read.  Spans closer than a "
	        "pixel merge.</p>\n");
	if (!r->n_tl) {
		fprintf(f, "<p class=\"none\">No spans to show.</p></section>\n");
		return;
	}
	fprintf(f, "<div class=\"scroll\">");
	report_svg_timelines(f, r);
	fprintf(f, "</div>\n<table class=\"sortable\" id=\"tl\"><thead><tr>"
	        "<th>process</th><th>calls</th><th>in calls (us)</th>"
	        "<th>between calls (us)</th><th>in calls</th><th>filter runs"
	        "</th><th>link batches</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->n_tl; i++) {
		const struct mon_proc_timeline *p = &r->tl[i];
		uint64_t in = p->busy_ns[MON_SPAN_CALL];
		fprintf(f, "<tr class=\"tl-stat\"");
		attr(f, "data-proc", p->label);
		fprintf(f, " data-calls=\"%" PRIu64 "\" data-call-ns=\"%" PRIu64
		        "\" data-gap-ns=\"%" PRIu64 "\">", p->count[MON_SPAN_CALL],
		        in, p->gap_ns);
		td_text(f, p->label);
		td_u64(f, p->count[MON_SPAN_CALL]);
		td_us(f, (double)in);
		td_us(f, (double)p->gap_ns);
		fprintf(f, "<td class=\"num\">%.1f%%</td>", in + p->gap_ns ?
		        100.0 * (double)in / (double)(in + p->gap_ns) : 0);
		td_u64(f, p->count[MON_SPAN_FILTER]);
		td_u64(f, p->count[MON_SPAN_LINK]);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table></section>\n");
}

/* Shade of a cell holding count of total: darker for more. */
static void
heat_cell(FILE *f, const char *scope, uint32_t rank, uint64_t count,
          uint64_t total, uint32_t pos)
{
	double x = total ? (double)count / (double)total : 0;
	fprintf(f, "<td class=\"num heat\"");
	attr(f, "data-scope", scope);
	fprintf(f, " data-rank=\"%" PRIu32 "\" data-pos=\"%" PRIu32 "\" "
	        "data-count=\"%" PRIu64 "\" style=\"background:rgba(40,90,200,"
	        "%.2f)\">%" PRIu64 "</td>", rank, pos, count, 0.08 + 0.8 * x,
	        count);
}

static void
section_orders(FILE *f, const struct report *r)
{
	fprintf(f, "<section id=\"orders\"><h2>Arrival and departure order"
	        "</h2>\n<p>Per MPI collective instance, the ranks in the order "
	        "their calls started (arrival) and ended (departure), joined "
	        "through each communicator's collector.  Pictures: the "
	        "newest instances, one row per rank from its arrival "
	        "(dot; red: the last) to its departure.  Tables: how often "
	        "each rank arrived first, second ...; its mean wait for the "
	        "last arrival.  TBON waves record only who completed each "
	        "wave (see load balance).</p>\n");
	if (!r->n_scopes)
		fprintf(f, "<p class=\"none\">No MPI collective instances.</p>\n");
	for (size_t k = 0; k < r->n_scopes && k < MAX_SCOPES; k++) {
		const struct mon_order_scope *s = &r->scopes[k];
		fprintf(f, "<div class=\"order\"");
		attr(f, "data-scope", s->scope);
		fprintf(f, " data-size=\"%" PRIu32 "\" data-instances=\"%" PRIu64
		        "\"><h3>communicator ", s->size, s->instances);
		report_esc(f, s->scope);
		fprintf(f, ": %" PRIu32 " ranks, %" PRIu64 " instances</h3>\n"
		        "<div class=\"scroll\">", s->size, s->instances);
		report_svg_orders(f, s, r->origin);
		fprintf(f, "</div>\n<table class=\"dist\"><thead><tr><th>rank"
		        "</th><th>first</th><th>last</th><th>mean wait for the "
		        "last (us)</th><th>mean wait after the first departure "
		        "(us)</th>");
		int hist = s->size <= MON_ORDER_HIST_MAX;
		for (uint32_t p = 0; hist && p < s->size; p++)
			fprintf(f, "<th>arr. %" PRIu32 "</th>", p + 1);
		fprintf(f, "</tr></thead><tbody>\n");
		for (uint32_t m = 0; m < s->size; m++) {
			const struct mon_order_member *mm = &s->m[m];
			fprintf(f, "<tr class=\"order-row\"");
			attr(f, "data-proc", mm->label);
			fprintf(f, " data-rank=\"%" PRIu32 "\" data-first=\"%" PRIu64
			        "\" data-last=\"%" PRIu64 "\" data-wait-ns="
			        "\"%.1f\">", m, mm->first, mm->last,
			        mm->arrive_wait.mean);
			fprintf(f, "<td>%" PRIu32 " (", m);
			report_esc(f, mm->label);
			fprintf(f, ")</td>");
			td_u64(f, mm->first);
			td_u64(f, mm->last);
			td_us(f, mm->arrive_wait.mean);
			td_us(f, mm->depart_wait.mean);
			for (uint32_t p = 0; hist && mm->arrive_pos &&
			     p < s->size; p++)
				heat_cell(f, s->scope, m, mm->arrive_pos[p],
				          s->instances, p);
			fprintf(f, "</tr>\n");
		}
		fprintf(f, "</tbody></table></div>\n");
	}
	fprintf(f, "</section>\n");
}

static void
bound_table(FILE *f, const struct mon_clock_bound *b, size_t n,
            const char *id, const char *kind)
{
	fprintf(f, "<table class=\"sortable\" id=\"%s\"><thead><tr><th>%s"
	        "</th><th>messages</th><th>received before sent</th>"
	        "<th>largest violation (us)</th><th>smallest in (us)</th>"
	        "<th>smallest out (us)</th><th>between hosts</th></tr>"
	        "</thead><tbody>\n", id, kind);
	for (size_t i = 0; i < n; i++) {
		const struct mon_clock_bound *c = &b[i];
		fprintf(f, "<tr class=\"clock-row%s\" data-kind=\"%s\"",
		        c->violations ? " hot" : "", kind);
		attr(f, "data-name", c->name);
		fprintf(f, " data-messages=\"%" PRIu64 "\" data-violations=\"%"
		        PRIu64 "\" data-worst-ns=\"%" PRIu64 "\"", c->messages,
		        c->violations, c->worst_ns);
		if (c->min_in_ns != MON_CLOCK_NONE)
			fprintf(f, " data-min-in-ns=\"%" PRId64 "\"",
			        c->min_in_ns);
		if (c->min_out_ns != MON_CLOCK_NONE)
			fprintf(f, " data-min-out-ns=\"%" PRId64 "\"",
			        c->min_out_ns);
		fprintf(f, ">");
		td_text(f, c->name);
		td_u64(f, c->messages);
		td_u64(f, c->violations);
		td_us(f, (double)c->worst_ns);
		if (c->min_in_ns != MON_CLOCK_NONE)
			td_us(f, (double)c->min_in_ns);
		else
			fputs("<td></td>", f);
		if (c->min_out_ns != MON_CLOCK_NONE)
			td_us(f, (double)c->min_out_ns);
		else
			fputs("<td></td>", f);
		td_text(f, c->cross ? "yes" : "no");
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table>\n");
}

static void
section_clock(FILE *f, const struct report *r)
{
	fprintf(f, "<section id=\"clock\"><h2>Clock accuracy</h2>\n<p>On a "
	        "right timeline no message is received before it was sent.  "
	        "For every link message joined through the pathmap, d = "
	        "receive - send on the common timeline (%s); d &lt; 0 is a "
	        "violation.  A host whose clock is still off by e after the "
	        "correction sees its incoming messages' d grow by e and its "
	        "outgoing ones' shrink by e, so -min d(out) &lt; e &lt; min "
	        "d(in): the green bar.  With several hosts a host's bound "
	        "comes from the messages it exchanges with the others; on "
	        "one host from all of its messages (one clock: the smallest "
	        "latency seen).</p>\n", trace_timeline_name(r->set->timeline));
	if (!r->n_hosts) {
		fprintf(f, "<p class=\"none\">No link messages joined.</p>"
		        "</section>\n");
		return;
	}
	fprintf(f, "<h3>Per host</h3><div class=\"scroll\">");
	report_svg_clock(f, r->hosts, r->n_hosts, "host");
	fprintf(f, "</div>\n");
	bound_table(f, r->hosts, r->n_hosts, "clock-hosts", "host");
	fprintf(f, "<h3>Per process</h3>\n");
	bound_table(f, r->procs, r->n_procs, "clock-procs", "process");
	fprintf(f, "</section>\n");
}

static void
section_lost(FILE *f, const struct report *r)
{
	fprintf(f, "<section id=\"lost\"><h2>What is missing</h2>\n<table "
	        "class=\"summary\">\n");
	summary_item(f, "lost-tuples", "tuples lost before they were read",
	             r->a->lost);
	summary_item(f, "lost-sends", "link sends without their receive",
	             r->links.sends_waiting);
	summary_item(f, "lost-recvs", "link receives without their send",
	             r->links.recvs_waiting);
	summary_item(f, "lost-instances", "MPI collective instances missing "
	             "calls", r->inst.open);
	summary_item(f, "lost-unpaired", "communicator instants without "
	             "their call", r->inst.unpaired);
	fprintf(f, "</table>\n<p>A ring that is written faster than it is "
	        "read loses its oldest tuples; the counts are exact (each "
	        "ring's head counts every tuple written).  The analysis uses "
	        "what is left: a wave or instance whose tuples are gone is not "
	        "counted, a message whose other end is gone is not joined."
	        "</p></section>\n");
}

int
report_write_html(FILE *f, const struct report *r)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	        "charset=\"utf-8\"><title>grove report: ");
	report_esc(f, r->net);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>"
	        "grove report <span id=\"net\"", report_css);
	attr(f, "data-value", r->net);
	fputc('>', f);
	report_esc(f, r->net);
	fprintf(f, "</span></h1><p>The event spaces of network or job ");
	report_esc(f, r->net);
	fprintf(f, ", analysed by grove %s: load balance, latency per path "
	        "and hotspots, timelines, arrival orders and clock accuracy "
	        "(docs/monitoring.md).</p>\n<nav><a href=\"#summary\">summary"
	        "</a> <a href=\"#balance\">load balance</a> <a href=\"#stats\">"
	        "latency</a> <a href=\"#timelines\">timelines</a> <a "
	        "href=\"#orders\">orders</a> <a href=\"#clock\">clocks</a> "
	        "<a href=\"#lost\">missing</a></nav></header>\n<main>\n",
	        GROVE_VERSION);
	section_summary(f, r);
	section_balance(f, r);
	section_stats(f, r);
	section_timelines(f, r);
	section_orders(f, r);
	section_clock(f, r);
	section_lost(f, r);
	fprintf(f, "</main>\n<script>%s</script>\n</body></html>\n", report_js);
	return ferror(f) ? -1 : 0;
}
