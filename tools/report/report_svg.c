/* The report's pictures, as inline SVG (see report.h).  Each element that
 * stands for a measured number carries it in a data attribute, and its
 * <title> says it in words (the browser shows it on hover). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Opens an <svg> of class cls, w x h pixels, leaving the tag open for
 * the caller's attributes.  The namespace lets a picture be saved from
 * the page as an SVG file of its own. */
static void
svg_open(FILE *f, const char *cls, double w, double h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" "
	        "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\"",
	        cls, w, h, w, h);
}

/* ---- the load-balance trees ------------------------------------------- */

/* The edge (scope, parent, child) of the balance, or NULL. */
static const struct mon_balance_edge *
edge_of(const struct report *r, const char *scope, const char *parent,
        const char *child)
{
	for (size_t i = 0; i < r->n_edges; i++) {
		const struct mon_balance_edge *e = &r->edges[i];
		if (!strcmp(e->scope, scope) && !strcmp(e->parent, parent) &&
		    !strcmp(e->child, child))
			return e;
	}
	return NULL;
}

/* The balance edge of scope from topology node p to its child c.  A
 * wave.last_be names a back-end by its rank ("be 3"); a back-end whose
 * event space has another role (a rank of grove run is "mpi 3") is the
 * same rank. */
static const struct mon_balance_edge *
child_edge(const struct report *r, const char *scope,
           const struct mon_topo_node *p, const struct mon_topo_node *c)
{
	const struct mon_balance_edge *e = edge_of(r, scope, p->label,
	                                           c->label);
	if (e || c->proc < 0)
		return e;
	const struct mon_proc *q = &r->a->pm.p[c->proc];
	if (!strcmp(q->role, "cp") || !strcmp(q->role, "be"))
		return NULL;
	char be[MON_LABEL_LEN];
	snprintf(be, sizeof be, "be %" PRIu32, q->rank);
	return edge_of(r, scope, p->label, be);
}

/* Waves counted at (scope, parent). */
static uint64_t
waves_of(const struct report *r, const char *scope, const char *parent)
{
	for (size_t i = 0; i < r->n_edges; i++)
		if (!strcmp(r->edges[i].scope, scope) &&
		    !strcmp(r->edges[i].parent, parent))
			return r->edges[i].waves;
	return 0;
}

/* An edge from (x0, y0) to (x1, y1) carrying `last` of `waves`: the
 * thicker and redder, the more often the child was the last in. */
static void
weighted_edge(FILE *f, const char *scope, const char *parent,
              const char *child, uint64_t last, uint64_t waves, double x0,
              double y0, double x1, double y1)
{
	double share = waves ? (double)last / (double)waves : 0;
	int red = (int)(80 + 175 * share), gb = (int)(150 - 120 * share);
	fprintf(f, "<g class=\"bal-edge\" data-scope=\"");
	report_esc(f, scope);
	fprintf(f, "\" data-parent=\"");
	report_esc(f, parent);
	fprintf(f, "\" data-child=\"");
	report_esc(f, child);
	fprintf(f, "\" data-last=\"%" PRIu64 "\" data-waves=\"%" PRIu64
	        "\"><title>", last, waves);
	report_esc(f, child);
	fprintf(f, " was the last to arrive at ");
	report_esc(f, parent);
	fprintf(f, " in %" PRIu64 " of %" PRIu64 " waves (%.1f%%)</title>",
	        last, waves, 100 * share);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	        "stroke=\"rgb(%d,%d,%d)\" stroke-width=\"%.1f\"/>", x0, y0, x1,
	        y1, red, gb, gb, 1 + 7 * share);
	fprintf(f, "<text class=\"edge-count\" x=\"%.1f\" y=\"%.1f\">%" PRIu64
	        "</text></g>\n", (x0 + x1) / 2 + 3, (y0 + y1) / 2, last);
}

static void
node_box(FILE *f, const char *label, double x, double y, int lost)
{
	fprintf(f, "<g class=\"node%s\" data-node=\"", lost ? " missing" : "");
	report_esc(f, label);
	fprintf(f, "\"><rect x=\"%.1f\" y=\"%.1f\" width=\"60\" height=\"20\" "
	        "rx=\"4\"/><text x=\"%.1f\" y=\"%.1f\">", x - 30, y - 10, x,
	        y + 4);
	report_esc(f, label);
	fprintf(f, "</text></g>\n");
}

/* x of every node of the topology: leaves side by side in depth-first
 * order, a parent over the middle of its children. */
static void
layout(const struct mon_topo_node *t, size_t n, double *x, double dx)
{
	double next = 40;
	/* Depth first: a stack of node indices. */
	size_t *stack = malloc((n ? n : 1) * sizeof *stack);
	size_t *kids = malloc((n ? n : 1) * sizeof *kids);
	if (!stack || !kids) {
		for (size_t i = 0; i < n; i++)
			x[i] = 40 + dx * (double)i;
		free(stack);
		free(kids);
		return;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = -1;
	for (size_t root = 0; root < n; root++) {
		if (t[root].parent >= 0)
			continue;
		size_t sp = 0;
		stack[sp++] = root;
		while (sp) {
			size_t k = stack[--sp];
			size_t nk = 0;
			for (size_t j = k + 1; j < n; j++)
				if (t[j].parent == (int64_t)k)
					kids[nk++] = j;
			if (!nk) {
				x[k] = next;
				next += dx;
				continue;
			}
			/* Children in reverse, so the first is placed first. */
			while (nk)
				stack[sp++] = kids[--nk];
		}
	}
	/* Parents after their children: the array has parents first. */
	for (size_t i = n; i-- > 0;) {
		if (x[i] >= 0)
			continue;
		double lo = 1e300, hi = -1e300;
		for (size_t j = i + 1; j < n; j++)
			if (t[j].parent == (int64_t)i) {
				lo = x[j] < lo ? x[j] : lo;
				hi = x[j] > hi ? x[j] : hi;
			}
		x[i] = lo <= hi ? (lo + hi) / 2 : next;
	}
	free(stack);
	free(kids);
}

void
report_svg_tree(FILE *f, const struct report *r, const char *scope)
{
	size_t n = r->n_topo;
	double *x = malloc((n ? n : 1) * sizeof *x);
	if (!x)
		return;
	layout(r->topo, n, x, 70);
	double w = 80, h = 60;
	for (size_t i = 0; i < n; i++) {
		w = x[i] + 40 > w ? x[i] + 40 : w;
		double y = 30 + 80.0 * r->topo[i].depth;
		h = y + 30 > h ? y + 30 : h;
	}
	svg_open(f, "tree", w, h);
	fprintf(f, " data-scope=\"");
	report_esc(f, scope);
	fprintf(f, "\">\n");
	for (size_t i = 0; i < n; i++) {
		const struct mon_topo_node *c = &r->topo[i];
		if (c->parent < 0)
			continue;
		const struct mon_topo_node *p = &r->topo[c->parent];
		const struct mon_balance_edge *e = child_edge(r, scope, p, c);
		weighted_edge(f, scope, p->label, e ? e->child : c->label,
		              e ? e->last : 0,
		              e ? e->waves : waves_of(r, scope, p->label),
		              x[c->parent], 30 + 80.0 * p->depth + 10, x[i],
		              30 + 80.0 * c->depth - 10);
	}
	for (size_t i = 0; i < n; i++)
		node_box(f, r->topo[i].label, x[i], 30 + 80.0 * r->topo[i].depth,
		         r->topo[i].proc < 0);
	fprintf(f, "</svg>\n");
	free(x);
}

/* A node and its children in a row under it, each edge weighted by its
 * last arrivals: a communicator and its ranks (parent == scope), or a
 * TBON node of a stream whose tree the links do not show. */
void
report_svg_comm(FILE *f, const struct report *r, const char *scope,
                const char *parent)
{
	/* A communicator's members come from the order view (every rank,
	 * also those never last); otherwise the balance's children. */
	const struct mon_order_scope *os = NULL;
	for (size_t i = 0; !strcmp(scope, parent) && i < r->n_scopes; i++)
		if (!strcmp(r->scopes[i].scope, scope))
			os = &r->scopes[i];
	size_t n = 0;
	const char **label = malloc((r->n_edges + (os ? os->size : 0) + 1) *
	                            sizeof *label);
	if (!label)
		return;
	for (uint32_t i = 0; os && i < os->size; i++)
		if (os->m[i].label[0])
			label[n++] = os->m[i].label;
	/* Children of the balance the members do not name (none, when the
	 * order view has the communicator). */
	for (size_t i = 0; i < r->n_edges; i++) {
		const struct mon_balance_edge *e = &r->edges[i];
		if (strcmp(e->scope, scope) || strcmp(e->parent, parent))
			continue;
		size_t k = 0;
		while (k < n && strcmp(label[k], e->child))
			k++;
		if (k == n)
			label[n++] = e->child;
	}
	double w = 200 + 70.0 * (double)n, h = 130, root = w / 2;
	svg_open(f, "tree", w, h);
	fprintf(f, " data-scope=\"");
	report_esc(f, scope);
	fprintf(f, "\" data-parent=\"");
	report_esc(f, parent);
	fprintf(f, "\">\n");
	uint64_t waves = waves_of(r, scope, parent);
	for (size_t i = 0; i < n; i++) {
		const struct mon_balance_edge *e = edge_of(r, scope, parent,
		                                           label[i]);
		weighted_edge(f, scope, parent, label[i], e ? e->last : 0, waves,
		              root, 40, 100 + 70.0 * (double)i, 100);
	}
	fprintf(f, "<g class=\"node root\"><rect x=\"%.1f\" y=\"10\" "
	        "width=\"160\" height=\"20\" rx=\"4\"/><text x=\"%.1f\" "
	        "y=\"24\">", root - 80, root);
	report_esc(f, parent);
	if (os)
		fprintf(f, " (%" PRIu32 " ranks)", os->size);
	fprintf(f, "</text></g>\n");
	for (size_t i = 0; i < n; i++)
		node_box(f, label[i], 100 + 70.0 * (double)i, 110, 0);
	fprintf(f, "</svg>\n");
	free(label);
}

/* 1 when every balance edge of scope is an edge of the TBON tree: the
 * tree's edges that have one are counted (each balance edge is at most
 * one tree edge: a child has one parent). */
int
report_tree_covers(const struct report *r, const char *scope)
{
	size_t want = 0, found = 0;
	for (size_t i = 0; i < r->n_edges; i++)
		want += !strcmp(r->edges[i].scope, scope);
	for (size_t k = 0; k < r->n_topo; k++) {
		const struct mon_topo_node *c = &r->topo[k];
		found += c->parent >= 0 &&
		         child_edge(r, scope, &r->topo[c->parent], c) != NULL;
	}
	return found == want;
}

/* ---- path statistics: one peer group ---------------------------------- */

static int
mean_desc(const void *x, const void *y)
{
	const struct mon_path_stats *const *a = x, *const *b = y;
	return (*a)->mean_ns < (*b)->mean_ns ? 1 : (*a)->mean_ns > (*b)->mean_ns
	                                              ? -1 : 0;
}

/* Rows drawn per group: the slowest paths (and every hotspot). */
#define GROUP_ROWS 40

void
report_svg_group(FILE *f, const struct report *r, uint32_t group)
{
	const struct mon_path_stats **row = malloc((r->n_paths + 1) *
	                                           sizeof *row);
	if (!row)
		return;
	size_t n = 0;
	double top = 1, sum = 0;
	uint64_t cnt = 0;
	for (size_t i = 0; i < r->n_paths; i++)
		if (r->paths[i].group == group) {
			const struct mon_path_stats *p = &r->paths[i];
			row[n++] = p;
			sum += p->mean_ns * (double)p->count;
			cnt += p->count;
			if (p->mean_ns + p->sd_ns > top)
				top = p->mean_ns + p->sd_ns;
		}
	qsort(row, n, sizeof *row, mean_desc);
	/* Keep the hotspots among the rows shown. */
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		if (i < GROUP_ROWS || row[i]->hotspot)
			row[shown++] = row[i];
	double lw = 300, bw = 460, rh = 16;
	double h = 30 + rh * (double)shown;
	svg_open(f, "bars", lw + bw + 90, h);
	fprintf(f, " data-group=\"%" PRIu32 "\">\n", group);
	double mean = cnt ? sum / (double)cnt : 0;
	double gx = lw + bw * mean / top;
	for (size_t i = 0; i < shown; i++) {
		const struct mon_path_stats *p = row[i];
		double y = 10 + rh * (double)i;
		fprintf(f, "<g class=\"bar%s\" data-proc=\"", p->hotspot > 0 ?
		        " hot" : p->hotspot < 0 ? " cold" : "");
		report_esc(f, p->proc);
		fprintf(f, "\" data-where=\"");
		report_esc(f, p->where);
		fprintf(f, "\" data-mean-ns=\"%.1f\" data-hotspot=\"%d\"><title>",
		        p->mean_ns, p->hotspot);
		report_esc(f, p->proc);
		fputc(' ', f);
		report_esc(f, p->where);
		fprintf(f, ": mean ");
		report_us(f, p->mean_ns);
		fprintf(f, " us, sd ");
		report_us(f, p->sd_ns);
		fprintf(f, " us, %" PRIu64 " samples; peers ", p->count);
		report_us(f, p->peers_mean_ns);
		fprintf(f, " us (z %.2f)</title>", p->z);
		fprintf(f, "<text class=\"lbl\" x=\"%.0f\" y=\"%.1f\">", lw - 6,
		        y + 11);
		report_esc(f, p->proc);
		fputc(' ', f);
		report_esc(f, p->where[0] ? p->where : p->name);
		fprintf(f, "</text>");
		double bx = bw * p->mean_ns / top;
		double s0 = bw * (p->mean_ns - p->sd_ns) / top;
		double s1 = bw * (p->mean_ns + p->sd_ns) / top;
		fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" "
		        "height=\"%.1f\"/>", lw, y + 2, bx > 0.5 ? bx : 0.5,
		        rh - 4);
		fprintf(f, "<line class=\"sd\" x1=\"%.1f\" x2=\"%.1f\" "
		        "y1=\"%.1f\" y2=\"%.1f\"/>", lw + (s0 > 0 ? s0 : 0),
		        lw + s1, y + rh / 2, y + rh / 2);
		fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">",
		        lw + bw + 4, y + 11);
		report_us(f, p->mean_ns);
		fprintf(f, " us</text></g>\n");
	}
	fprintf(f, "<line class=\"gmean\" x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" "
	        "y2=\"%.1f\"><title>mean of the group's samples: ", gx, gx,
	        h - 16);
	report_us(f, mean);
	fprintf(f, " us</title></line>\n<text class=\"axis\" x=\"%.0f\" "
	        "y=\"%.0f\">0</text><text class=\"axis\" x=\"%.0f\" "
	        "y=\"%.0f\">", lw, h - 4, lw + bw, h - 4);
	report_us(f, top);
	fprintf(f, " us</text></svg>\n");
	free(row);
}

/* ---- timelines ---------------------------------------------------------- */

#define TL_COLS 1000
#define TL_LABEL 110
#define TL_ROW 16

static const char *const kind_class[MON_SPAN_KINDS] = {"call", "filter",
                                                       "link"};

void
report_svg_timelines(FILE *f, const struct report *r)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	for (size_t i = 0; i < r->n_tl; i++) {
		if (r->tl[i].first < t0)
			t0 = r->tl[i].first;
		if (r->tl[i].last > t1)
			t1 = r->tl[i].last;
	}
	if (t0 >= t1)
		t1 = t0 + 1;
	double span = (double)(t1 - t0);
	double w = TL_LABEL + TL_COLS + 20;
	double h = 30 + TL_ROW * (double)r->n_tl;
	svg_open(f, "timeline", w, h);
	fprintf(f, " data-t0-ns=\"%" PRIu64 "\" "
	        "data-t1-ns=\"%" PRIu64 "\">\n", t0 - r->origin, t1 - r->origin);
	unsigned char col[MON_SPAN_KINDS][TL_COLS];
	for (size_t i = 0; i < r->n_tl; i++) {
		const struct mon_proc_timeline *p = &r->tl[i];
		double y = 6 + TL_ROW * (double)i;
		memset(col, 0, sizeof col);
		for (size_t k = 0; k < p->n; k++) {
			const struct mon_span *s = &p->span[k];
			size_t c0 = (size_t)((double)(s->t0 - t0) / span *
			                     (TL_COLS - 1));
			size_t c1 = (size_t)((double)(s->t1 - t0) / span *
			                     (TL_COLS - 1));
			for (size_t c = c0; c <= c1 && c < TL_COLS; c++)
				col[s->kind][c] = 1;
		}
		fprintf(f, "<g class=\"tl-row\" data-proc=\"");
		report_esc(f, p->label);
		fprintf(f, "\" data-calls=\"%" PRIu64 "\" data-call-ns=\"%" PRIu64
		        "\" data-gap-ns=\"%" PRIu64 "\" data-spans=\"%zu\" "
		        "data-dropped=\"%" PRIu64 "\"><title>", p->count[0],
		        p->busy_ns[0], p->gap_ns, p->n, p->dropped);
		report_esc(f, p->label);
		fprintf(f, ": %" PRIu64 " calls, ", p->count[0]);
		report_us(f, (double)p->busy_ns[0]);
		fprintf(f, " us in calls, ");
		report_us(f, (double)p->gap_ns);
		fprintf(f, " us between them</title><text class=\"lbl\" "
		        "x=\"%d\" y=\"%.1f\">", TL_LABEL - 6, y + 10);
		report_esc(f, p->label);
		fprintf(f, "</text><rect class=\"bg\" x=\"%d\" y=\"%.1f\" "
		        "width=\"%d\" height=\"%d\"/>", TL_LABEL, y, TL_COLS,
		        TL_ROW - 3);
		for (int k = MON_SPAN_KINDS - 1; k >= 0; k--)
			for (size_t c = 0; c < TL_COLS;) {
				if (!col[k][c]) {
					c++;
					continue;
				}
				size_t e = c;
				while (e < TL_COLS && col[k][e])
					e++;
				fprintf(f, "<rect class=\"%s\" x=\"%zu\" "
				        "y=\"%.1f\" width=\"%zu\" height=\"%d\"/>",
				        kind_class[k], TL_LABEL + c, y, e - c,
				        TL_ROW - 3);
				c = e;
			}
		fprintf(f, "</g>\n");
	}
	/* The time axis: ms from the trace's origin. */
	for (int k = 0; k <= 4; k++) {
		double x = TL_LABEL + TL_COLS * k / 4.0;
		double ms = ((double)(t0 - r->origin) + span * k / 4.0) / 1e6;
		fprintf(f, "<text class=\"axis\" x=\"%.0f\" y=\"%.0f\"%s>%.3f "
		        "ms</text>", x, h - 6, k == 4 ? " text-anchor=\"end\"" :
		        k == 0 ? " text-anchor=\"start\"" : "", ms);
	}
	fprintf(f, "</svg>\n");
}

/* ---- arrival and departure orders ------------------------------------- */

/* Instances drawn per communicator (the newest), and their size limit. */
#define ORDER_PANELS 8
#define ORDER_MAX_RANKS 64

void
report_svg_orders(FILE *f, const struct mon_order_scope *s, uint64_t origin)
{
	if (!s->n_recent || s->size > ORDER_MAX_RANKS)
		return;
	size_t first = s->n_recent > ORDER_PANELS ?
	               s->n_recent - ORDER_PANELS : 0;
	double pw = 300, ph = 34 + 12.0 * s->size;
	size_t np = s->n_recent - first;
	double w = 10 + (pw + 10) * (double)(np < 4 ? np : 4);
	double h = 10 + (ph + 10) * (double)((np + 3) / 4);
	svg_open(f, "orders", w, h);
	fprintf(f, " data-scope=\"");
	report_esc(f, s->scope);
	fprintf(f, "\">\n");
	for (size_t i = first; i < s->n_recent; i++) {
		const struct mon_order_instance *in = &s->recent[i];
		uint64_t a0 = UINT64_MAX, d1 = 0;
		uint32_t last = 0;
		for (uint32_t m = 0; m < s->size; m++) {
			if (in->arrive[m] < a0)
				a0 = in->arrive[m];
			if (in->depart[m] > d1)
				d1 = in->depart[m];
			if (in->arrive[m] > in->arrive[last])
				last = m;
		}
		double len = d1 > a0 ? (double)(d1 - a0) : 1;
		double px = 10 + (pw + 10) * (double)((i - first) % 4);
		double py = 10 + (ph + 10) * (double)((i - first) / 4);
		fprintf(f, "<g class=\"instance\" data-seq=\"%" PRIu32 "\" "
		        "data-last=\"", in->seq);
		report_esc(f, s->m[last].label);
		fprintf(f, "\" data-order=\"");
		/* The ranks in arrival order (ties: the lower rank first). */
		for (uint32_t k = 0; k < s->size; k++) {
			uint32_t who = 0, pos;
			for (uint32_t m = 0; m < s->size; m++) {
				pos = 0;
				for (uint32_t j = 0; j < s->size; j++)
					pos += in->arrive[j] < in->arrive[m] ||
					       (in->arrive[j] == in->arrive[m] &&
					        j < m);
				if (pos == k)
					who = m;
			}
			fprintf(f, "%s%" PRIu32, k ? "," : "", who);
		}
		fprintf(f, "\" transform=\"translate(%.0f,%.0f)\">"
		        "<rect class=\"panel\" width=\"%.0f\" height=\"%.0f\"/>"
		        "<text class=\"ptitle\" x=\"6\" y=\"14\">#%" PRIu32 " ",
		        px, py, pw, ph, in->seq);
		report_esc(f, in->fn);
		fprintf(f, " at %.3f ms, ", (double)(a0 - origin) / 1e6);
		report_us(f, len);
		fprintf(f, " us</text>\n");
		for (uint32_t m = 0; m < s->size; m++) {
			double y = 26 + 12.0 * m;
			double xa = 50 + (pw - 60) * (double)(in->arrive[m] - a0) /
			            len;
			double xd = 50 + (pw - 60) * (double)(in->depart[m] - a0) /
			            len;
			fprintf(f, "<g class=\"member%s\" data-rank=\"%" PRIu32
			        "\" data-arrive-ns=\"%" PRIu64 "\" data-depart-ns="
			        "\"%" PRIu64 "\"><title>", m == last ? " last" : "",
			        m, in->arrive[m] - a0, in->depart[m] - a0);
			report_esc(f, s->m[m].label);
			fprintf(f, ": arrived at +");
			report_us(f, (double)(in->arrive[m] - a0));
			fprintf(f, " us, left at +");
			report_us(f, (double)(in->depart[m] - a0));
			fprintf(f, " us</title><text class=\"lbl\" x=\"44\" "
			        "y=\"%.1f\">%" PRIu32 "</text><line x1=\"%.1f\" "
			        "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><circle "
			        "cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/><rect x=\"%.1f\" "
			        "y=\"%.1f\" width=\"2\" height=\"8\"/></g>\n", y + 4,
			        m, xa, xd, y, y, xa, y, xd - 1, y - 4);
		}
		fprintf(f, "</g>\n");
	}
	fprintf(f, "</svg>\n");
}

/* ---- clock accuracy ----------------------------------------------------- */

void
report_svg_clock(FILE *f, const struct mon_clock_bound *b, size_t n,
                 const char *kind)
{
	double top = 1;
	for (size_t i = 0; i < n; i++) {
		if (b[i].min_in_ns != MON_CLOCK_NONE &&
		    fabs((double)b[i].min_in_ns) > top)
			top = fabs((double)b[i].min_in_ns);
		if (b[i].min_out_ns != MON_CLOCK_NONE &&
		    fabs((double)b[i].min_out_ns) > top)
			top = fabs((double)b[i].min_out_ns);
		if ((double)b[i].worst_ns > top)
			top = (double)b[i].worst_ns;
	}
	double lw = 140, aw = 600, rh = 18, mid = lw + aw / 2;
	double h = 30 + rh * (double)n;
	svg_open(f, "clock", lw + aw + 20, h);
	fprintf(f, " data-kind=\"%s\">\n", kind);
	for (size_t i = 0; i < n; i++) {
		const struct mon_clock_bound *c = &b[i];
		double y = 8 + rh * (double)i;
		/* The offset the messages allow: (-min out, +min in). */
		double lo = c->min_out_ns == MON_CLOCK_NONE ? 0 :
		            -(double)c->min_out_ns;
		double hi = c->min_in_ns == MON_CLOCK_NONE ? 0 :
		            (double)c->min_in_ns;
		fprintf(f, "<g class=\"bound%s\" data-name=\"", c->violations ?
		        " violated" : "");
		report_esc(f, c->name);
		fprintf(f, "\"><title>");
		report_esc(f, c->name);
		fprintf(f, ": %" PRIu64 " messages, %" PRIu64 " received before "
		        "they were sent", c->messages, c->violations);
		if (c->violations) {
			fprintf(f, " (by up to ");
			report_us(f, (double)c->worst_ns);
			fprintf(f, " us)");
		}
		fprintf(f, "; the clock may be off by ");
		report_us(f, lo);
		fprintf(f, " to +");
		report_us(f, hi);
		fprintf(f, " us</title><text class=\"lbl\" x=\"%.0f\" "
		        "y=\"%.1f\">", lw - 6, y + 11);
		report_esc(f, c->name);
		double x0 = mid + aw / 2 * (lo < hi ? lo : hi) / top;
		double x1 = mid + aw / 2 * (lo < hi ? hi : lo) / top;
		fprintf(f, "</text><rect class=\"slack\" x=\"%.1f\" y=\"%.1f\" "
		        "width=\"%.1f\" height=\"%.1f\"/>", x0, y + 2,
		        x1 - x0 > 1 ? x1 - x0 : 1, rh - 6);
		if (c->violations)
			fprintf(f, "<rect class=\"viol\" x=\"%.1f\" y=\"%.1f\" "
			        "width=\"%.1f\" height=\"%.1f\"/>", mid, y + 2,
			        aw / 2 * (double)c->worst_ns / top, rh - 6);
		fprintf(f, "</g>\n");
	}
	fprintf(f, "<line class=\"zero\" x1=\"%.0f\" x2=\"%.0f\" y1=\"2\" "
	        "y2=\"%.0f\"/><text class=\"axis\" x=\"%.0f\" y=\"%.0f\">-",
	        mid, mid, h - 18, lw, h - 4);
	report_us(f, top);
	fprintf(f, " us</text><text class=\"axis\" x=\"%.0f\" y=\"%.0f\">0"
	        "</text><text class=\"axis\" x=\"%.0f\" y=\"%.0f\">+", mid,
	        h - 4, lw + aw, h - 4);
	report_us(f, top);
	fprintf(f, " us</text></svg>\n");
}
