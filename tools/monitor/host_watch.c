/* grove monitor --job across hosts (see host_watch.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grove/error.h"
#include "host_watch.h"
#include "pull.h"

#define CMD "grove monitor"

/* One pull of every host: this one's spaces here, the others' shares;
 * a monitor_pull_fn (pull.h). */
struct hosts_pull {
	struct host_scope *h;
	struct scope *s;
	struct mon_analysis *raw;
	int timeout_ms;
};

static int
pull_all(void *ctx, double *peak_fill)
{
	struct hosts_pull *p = ctx;
	int rc = scope_poll(p->s);
	if (rc)
		fprintf(stderr, CMD ": reading the event spaces of %s here: "
		        "%s\n", p->s->net, grove_strerror(rc));
	(void)host_scope_pull(p->h, p->raw, p->timeout_ms);
	/* The busiest ring of any host paces the next pull. */
	*peak_fill = p->s->peak_fill;
	for (size_t k = 0; k < p->h->n; k++)
		if (p->h->r[k].answered &&
		    p->h->r[k].c.peak_fill / 1024.0 > *peak_fill)
			*peak_fill = p->h->r[k].c.peak_fill / 1024.0;
	return rc;
}

/* The view of this pull: s's counts and those of every reader whose
 * share is in the view's analysis, the hosts not read named. */
static int
print_view(struct host_scope *h, struct scope *s, struct mon_analysis *va,
           const struct monitor_view *v, unsigned i, int raw)
{
	struct scope view;
	struct mon_share_counts c, sum;
	scope_counts(s, &sum);
	scope_init(&view, s->net, &s->sel, va);
	size_t cap = 1;
	for (size_t k = 0; k < h->n; k++)
		cap += strlen(h->r[k].host) + 1;
	char *unread = calloc(cap, 1);
	if (!unread)
		return GROVE_ENOMEM;
	uint32_t answered = 0;
	/* The ranks are the nodes of the launcher's flat network: those of
	 * the hosts not read are its nodes not read. */
	view.unread_nodes = 0;
	for (size_t k = 0; k < h->n; k++) {
		const struct host_reader *r = &h->r[k];
		answered += r->answered != 0;
		/* Raw: the tuples of a reader that failed since are in the
		 * analysis, and so are its counts of them. */
		if (r->answered || (raw && r->c.readers))
			mon_share_counts_add(&sum, &r->c);
		if (r->failed || !r->answered) {
			view.unread_nodes += r->ranks.n;
			if (*unread)
				strcat(unread, ",");
			strcat(unread, r->host);
		}
	}
	c = sum;
	view.read = c.read;
	view.selected = c.selected;
	view.lost_before = c.lost_before;
	view.lost = c.lost;
	view.gone = c.gone;
	view.sent = c.sent;
	view.polls = s->polls;
	view.procs_remote = c.procs;
	view.readers = 1 + answered;
	view.readers_all = 1 + (uint32_t)h->n;
	view.how = raw ? "hosts-raw" : "hosts";
	view.unread_hosts = unread;
	int rc = monitor_view_print(stdout, v, &view, i);
	view.a = NULL;
	scope_free(&view);
	free(unread);
	return rc;
}

int
monitor_watch_hosts(struct host_scope *h, const char *job,
                    const struct scope_select *sel,
                    const struct monitor_view *v, double interval,
                    double pull, long count)
{
	int raw = h->kind == MON_SHARE_RAW;
	/* The first pull also waits for the remote shells to log in. */
	int timeout_ms = interval * 2000 > 10000 ? (int)(interval * 2000)
	                                         : 10000;
	struct mon_analysis_opts ao = {.timeline_keep = 16};
	struct mon_analysis *a = mon_analysis_new(&ao);
	struct scope s;
	char err[512];
	if (!a || scope_init(&s, job, sel, a) != 0) {
		fprintf(stderr, CMD ": out of memory\n");
		mon_analysis_free(a);
		return 1;
	}
	s.admit = host_scope_admit_local;
	s.admit_ctx = h;
	if (host_scope_start(h, sel, err, sizeof err)) {
		fprintf(stderr, CMD ": %s\n", err);
		scope_free(&s);
		mon_analysis_free(a);
		return 1;
	}
	struct hosts_pull hp = {h, &s, raw ? a : NULL, timeout_ms};
	struct monitor_pull mp;
	monitor_pull_default(&mp, interval, pull, pull_all, &hp);
	struct monitor_view vp = *v;
	vp.pace = &mp.pace;
	int rc = 0;
	for (unsigned i = 1; count <= 0 || i <= (unsigned long)count; i++) {
		int r = i == 1 ? monitor_pull_now(&mp)
		               : monitor_pull_for(&mp, interval);
		/* The launcher ended since the last pull: every host's last
		 * tuples are read before the last view. */
		int over = !r && !scope_running(&s);
		if (over)
			r = monitor_pull_now(&mp);
		if (r) {
			rc = 1;
			break;
		}
		/* The distributed analysis: this host's accumulators merged
		 * with the shares of the hosts that answered. */
		struct mon_analysis *va = a;
		if (!raw) {
			va = mon_analysis_new(&ao);
			r = va ? mon_analysis_merge(va, a) : GROVE_ENOMEM;
			for (size_t k = 0; !r && k < h->n; k++)
				if (h->r[k].answered)
					r = mon_analysis_merge(va, h->r[k].a);
		}
		if (!r)
			r = print_view(h, &s, va, &vp, i, raw);
		if (va != a)
			mon_analysis_free(va);
		if (r) {
			fprintf(stderr, CMD ": the view: %s\n",
			        grove_strerror(r));
			rc = 1;
			break;
		}
		/* The launcher's space is on this host: its end is the
		 * job's. */
		if (over)
			break;
	}
	host_scope_stop(h);
	scope_free(&s);
	mon_analysis_free(a);
	return rc;
}
