/* The views of grove monitor (see monitor_view.h). */
#include <stdlib.h>
#include <string.h>

#include "cosched.h"
#include "grove/error.h"
#include "monitor/topo.h"
#include "monitor_view.h"
#include "scope/pace.h"
#include "trace/trace_impl.h"

/* Nodes of the TBON that the links of the spaces read name but whose
 * own space was not read: processes on other hosts (a scope reads this
 * host's), or without an event space.  Their share of the waves is
 * missing from the view, which says so. */
static size_t
unread_nodes(const struct scope *s)
{
	struct mon_topo_node *t;
	size_t n, unread = 0;
	if (s->unread_nodes >= 0)
		return (size_t)s->unread_nodes; /* the tree's own count */
	if (mon_topo_build(&s->a->pm, &t, &n) != 0)
		return 0; /* out of memory: the note is left out */
	for (size_t i = 0; i < n; i++)
		unread += t[i].proc < 0;
	free(t);
	return unread;
}

static void
head_text(FILE *f, const struct scope *s, unsigned i, const char *what)
{
	size_t unread = unread_nodes(s);
	fprintf(f, "grove monitor %s: %s, interval %u, %zu processes\n"
	        "tuples read %llu, selected %llu; lost %llu while attached, "
	        "%llu before%s\n\n", what, s->net, i, scope_procs(s),
	        (unsigned long long)s->read, (unsigned long long)s->selected,
	        (unsigned long long)s->lost,
	        (unsigned long long)s->lost_before,
	        s->gone ? " (some spaces went away)" : "");
	if (s->how && !strncmp(s->how, "hosts", 5)) {
		fprintf(f, "across hosts (%s): %u of %u readers\n\n",
		        strcmp(s->how, "hosts-raw") ? "distributed analysis" :
		        "single scope, raw tuples", s->readers, s->readers_all);
		if (s->unread_hosts && *s->unread_hosts)
			fprintf(f, "hosts not read: %s (their %zu ranks are "
			        "missing from this view)\n\n", s->unread_hosts,
			        unread);
		return;
	} else if (s->how) {
		fprintf(f, "through the tree (%s): %u of %u readers\n\n",
		        strcmp(s->how, "raw") ? "distributed analysis" :
		        "single scope, raw tuples", s->readers, s->readers_all);
	}
	if (unread)
		fprintf(f, "%zu nodes of the tree not read%s\n\n", unread,
		        s->how ? " (a host without a reader, no event space, "
		        "or no answer)" : " here (on other hosts, or without an "
		        "event space)");
}

static void
head_json(FILE *f, const struct monitor_view *v, const struct scope *s,
          unsigned i, const char *what)
{
	fprintf(f, "{\"monitor\":\"%s\",\"net\":", what);
	trace_json_str(f, s->net);
	fprintf(f, ",\"interval\":%u,\"procs\":%zu,\"tuples\":%llu,"
	        "\"selected\":%llu,\"lost\":%llu,\"lost_before_attach\":%llu,"
	        "\"gone\":%llu,\"unread_nodes\":%zu", i, scope_procs(s),
	        (unsigned long long)s->read, (unsigned long long)s->selected,
	        (unsigned long long)s->lost,
	        (unsigned long long)s->lost_before,
	        (unsigned long long)s->gone, unread_nodes(s));
	fprintf(f, ",\"pulls\":%llu", (unsigned long long)s->polls);
	if (v->pace)
		fprintf(f, ",\"pull_period_s\":%.4f", v->pace->next_s);
	if (v->cosched)
		cosched_json(f, v->cosched);
	if (s->how)
		fprintf(f, ",\"event_scope\":\"%s\",\"readers\":%u,"
		        "\"readers_all\":%u,\"sent\":%llu,\"share_bytes\":%llu",
		        s->how, s->readers, s->readers_all,
		        (unsigned long long)s->sent,
		        (unsigned long long)s->share_bytes);
	if (s->unread_hosts) {
		/* Host names hold no comma (grove run refuses them). */
		fputs(",\"unread_hosts\":[", f);
		for (const char *h = s->unread_hosts; *h;) {
			size_t n = strcspn(h, ",");
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)n, h);
			if (h != s->unread_hosts)
				fputc(',', f);
			trace_json_str(f, name);
			h += n + (h[n] == ',');
		}
		fputc(']', f);
	}
}

/* The edge of (scope, parent) starting at e[i] with the most last
 * arrivals, and where the group ends. */
static size_t
group_end(const struct mon_balance_edge *e, size_t n, size_t i, size_t *top)
{
	size_t j = i;
	*top = i;
	while (j < n && !strcmp(e[j].scope, e[i].scope) &&
	       !strcmp(e[j].parent, e[i].parent)) {
		if (e[j].last > e[*top].last)
			*top = j;
		j++;
	}
	return j;
}

static int
balance(FILE *f, const struct monitor_view *v, const struct scope *s,
        unsigned i)
{
	struct mon_balance_edge *e;
	size_t n;
	int rc = mon_balance_edges(s->a->balance, &e, &n);
	if (rc)
		return rc;
	struct mon_instances_counts ic;
	mon_instances_counts(s->a->inst, &ic);
	uint64_t waves = mon_balance_total(s->a->balance);
	if (v->json) {
		head_json(f, v, s, i, "load-balance");
		fprintf(f, ",\"waves\":%llu,\"instances\":{\"complete\":%llu,"
		        "\"incomplete\":%llu},\"balance\":[",
		        (unsigned long long)waves,
		        (unsigned long long)ic.complete,
		        (unsigned long long)ic.open);
		for (size_t k = 0, top; k < n;) {
			size_t end = group_end(e, n, k, &top);
			for (; k < end; k++) {
				fputs(k ? ",{\"scope\":" : "{\"scope\":", f);
				trace_json_str(f, e[k].scope);
				fputs(",\"parent\":", f);
				trace_json_str(f, e[k].parent);
				fputs(",\"child\":", f);
				trace_json_str(f, e[k].child);
				fprintf(f, ",\"last\":%llu,\"waves\":%llu,"
				        "\"most\":%s}",
				        (unsigned long long)e[k].last,
				        (unsigned long long)e[k].waves,
				        k == top ? "true" : "false");
			}
		}
		fputs("]}\n", f);
	} else {
		head_text(f, s, i, "load-balance");
		fprintf(f, "waves %llu; MPI collectives complete %llu, "
		        "incomplete %llu\n\n", (unsigned long long)waves,
		        (unsigned long long)ic.complete,
		        (unsigned long long)ic.open);
		fprintf(f, "%-20s %-12s %-10s %10s %10s %7s\n", "scope",
		        "waiting", "last", "count", "of waves", "share");
		for (size_t k = 0, top; k < n;) {
			size_t end = group_end(e, n, k, &top);
			for (; k < end; k++)
				fprintf(f, "%-20s %-12s %-10s %10llu %10llu "
				        "%6.1f%%%s\n", e[k].scope, e[k].parent,
				        e[k].child,
				        (unsigned long long)e[k].last,
				        (unsigned long long)e[k].waves,
				        e[k].waves ? 100.0 * (double)e[k].last /
				                     (double)e[k].waves : 0.0,
				        k == top ? "  <- last most often" : "");
		}
		if (!n)
			fputs("(no collective waves yet)\n", f);
	}
	free(e);
	return 0;
}

/* Text rows: hotspots first, then by time spent (count x mean). */
static int
path_cmp(const void *pa, const void *pb)
{
	const struct mon_path_stats *a = pa, *b = pb;
	if ((a->hotspot != 0) != (b->hotspot != 0))
		return a->hotspot ? -1 : 1;
	double ta = a->mean_ns * (double)a->count;
	double tb = b->mean_ns * (double)b->count;
	return ta > tb ? -1 : ta < tb;
}

static int
stats(FILE *f, const struct monitor_view *v, const struct scope *s,
      unsigned i)
{
	struct mon_path_stats *p;
	size_t n;
	int rc = mon_pathstats_results(s->a->stats, v->sigma, v->min_count,
	                               &p, &n);
	if (rc)
		return rc;
	size_t hot = 0;
	for (size_t k = 0; k < n; k++)
		hot += p[k].hotspot != 0;
	if (v->json) {
		head_json(f, v, s, i, "stats");
		fprintf(f, ",\"hotspots\":%zu,\"paths\":[", hot);
		for (size_t k = 0; k < n; k++) {
			fputs(k ? ",{\"proc\":" : "{\"proc\":", f);
			trace_json_str(f, p[k].proc);
			fputs(",\"name\":", f);
			trace_json_str(f, p[k].name);
			fputs(",\"layer\":", f);
			trace_json_str(f, p[k].layer);
			fputs(",\"where\":", f);
			trace_json_str(f, p[k].where);
			fputs(",\"op\":", f);
			trace_json_str(f, p[k].op);
			fprintf(f, ",\"count\":%llu,\"mean_ns\":%.1f,"
			        "\"sd_ns\":%.1f,\"min_ns\":%llu,\"max_ns\":%llu,"
			        "\"peers\":%u,\"z\":%.2f,\"hotspot\":%d}",
			        (unsigned long long)p[k].count, p[k].mean_ns,
			        p[k].sd_ns, (unsigned long long)p[k].min_ns,
			        (unsigned long long)p[k].max_ns, p[k].peers,
			        p[k].z, p[k].hotspot);
		}
		fputs("]}\n", f);
	} else {
		head_text(f, s, i, "stats");
		qsort(p, n, sizeof *p, path_cmp);
		fprintf(f, "%zu paths, %zu hotspots (! slower than its peers, "
		        "- faster)\n\n", n, hot);
		fprintf(f, "  %-8s %-16s %-22s %9s %10s %10s %10s %10s\n",
		        "process", "name", "where", "count", "mean us", "sd us",
		        "min us", "max us");
		for (size_t k = 0; k < n && k < v->rows; k++)
			fprintf(f, "%c %-8s %-16.16s %-22.22s %9llu %10.2f "
			        "%10.2f %10.2f %10.2f\n",
			        p[k].hotspot > 0 ? '!' : p[k].hotspot < 0 ? '-'
			                                                  : ' ',
			        p[k].proc, p[k].name, p[k].where,
			        (unsigned long long)p[k].count,
			        p[k].mean_ns / 1e3, p[k].sd_ns / 1e3,
			        (double)p[k].min_ns / 1e3,
			        (double)p[k].max_ns / 1e3);
		if (n > v->rows)
			fprintf(f, "(%zu more paths; --rows N shows more)\n",
			        n - v->rows);
	}
	free(p);
	return 0;
}

int
monitor_view_print(FILE *f, const struct monitor_view *v,
                   const struct scope *s, unsigned i)
{
	if (!v->json && v->redraw)
		fputs("\033[H\033[2J", f);
	else if (!v->json && i > 1)
		fputc('\n', f);
	int rc = v->kind == MONITOR_BALANCE ? balance(f, v, s, i)
	                                    : stats(f, v, s, i);
	if (!rc && (fflush(f) != 0 || ferror(f)))
		rc = GROVE_ESYS;
	return rc;
}
