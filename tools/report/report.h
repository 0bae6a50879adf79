/* grove report: one self-contained HTML file of what the analysis
 * (src/monitor) finds in a network's or a job's event spaces.
 *
 *   cmd_report.c     options, choosing and reading the event spaces
 *   report_feed.c    the event spaces into the analysis
 *   report_html.c    the page: sections, tables, numbers
 *   report_svg.c     the pictures (trees, bars, timelines, orders, clocks)
 *   report_assets.c  the page's inline style sheet and script
 *   report_esc.c     text and numbers as HTML
 *
 * Every number the page shows is the measured one, carried also in a
 * data attribute (data-last, data-count, data-mean-ns ...) of an element
 * a test can find by its class or id. */
#ifndef GROVE_TOOLS_REPORT_H
#define GROVE_TOOLS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "monitor/analysis.h"
#include "monitor/topo.h"
#include "trace/reader.h"

struct report_opts {
	double sigma;        /* hotspot threshold, peer standard deviations */
	uint64_t min_count;  /* samples a path and its peers need */
};

/* Everything the page shows, read from the analysis once. */
struct report {
	const char *net;
	const struct trace_set *set;
	struct mon_analysis *a;
	struct report_opts opts;
	uint64_t origin;     /* ns: the common timeline's zero */
	struct mon_balance_edge *edges;
	size_t n_edges;
	struct mon_path_stats *paths;
	size_t n_paths;
	struct mon_proc_timeline *tl;
	size_t n_tl;
	struct mon_order_scope *scopes;
	size_t n_scopes;
	struct mon_clock_bound *hosts, *procs;
	size_t n_hosts, n_procs;
	struct mon_topo_node *topo;
	size_t n_topo;
	struct mon_instances_counts inst;
	struct mon_links_counts links;
};

/* Feeds every process of set into a (processes, collectors, tuples on
 * the set's timeline, lost counts).  GROVE_ENOMEM. */
int report_feed(const struct trace_set *set, struct mon_analysis *a);

/* Reads the results of r->a into r (r->net, set, a, opts set).
 * GROVE_ENOMEM; report_free releases what was read. */
int report_gather(struct report *r);
void report_free(struct report *r);

/* Writes the page to f; 0, or -1 when a write failed (ferror). */
int report_write_html(FILE *f, const struct report *r);

/* ---- pictures (report_svg.c) ---- */
void report_svg_tree(FILE *f, const struct report *r, const char *scope);
void report_svg_comm(FILE *f, const struct report *r, const char *scope,
                     const char *parent);
int report_tree_covers(const struct report *r, const char *scope);
void report_svg_group(FILE *f, const struct report *r, uint32_t group);
void report_svg_timelines(FILE *f, const struct report *r);
void report_svg_orders(FILE *f, const struct mon_order_scope *s,
                       uint64_t origin);
void report_svg_clock(FILE *f, const struct mon_clock_bound *b, size_t n,
                      const char *kind);

/* ---- text (report_esc.c) ---- */
/* s as HTML text or attribute value: & < > " ' escaped, bytes that are
 * not UTF-8 and control characters as U+FFFD. */
void report_esc(FILE *f, const char *s);
/* ns as microseconds with 3 decimals ("12.345"). */
void report_us(FILE *f, double ns);

/* ---- assets (report_assets.c) ---- */
extern const char report_css[];
extern const char report_js[];

#endif
