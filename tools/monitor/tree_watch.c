/* grove monitor --net: the views of a network read through its tree
 * (an event scope pulled through the front-end's control socket: every
 * host's reader analyses its processes' tuples and only merged results,
 * or with --raw the selected tuples, travel; see tree_scope.h and
 * docs/monitoring.md, "Event scopes through the tree"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "grove/error.h"

#include "monitor_view.h"
#include "pull.h"
#include "tree_scope.h"
#include "tree_watch.h"

#define CMD "grove monitor"

/* A pull through the tree, for pull.h. */
struct tree_pull {
	struct tree_scope *t;
	int timeout_ms;
	uint64_t pulls;
	char err[512];
};

static int
tree_pull(void *ctx, double *peak_fill)
{
	struct tree_pull *p = ctx;
	if (tree_scope_pull(p->t, p->timeout_ms, p->err, sizeof p->err))
		return -1;
	p->pulls++;
	/* The busiest reader's ring, as the front-end's share says. */
	*peak_fill = p->t->c.peak_fill / 1024.0;
	return 0;
}

int
monitor_watch_tree(const char *net, const struct scope_select *sel,
                   const struct monitor_view *v, double interval,
                   double pull, long count, int raw, int readers)
{
	struct tree_scope t;
	char err[512];
	if (tree_scope_attach(&t, net, raw ? MON_SHARE_RAW : MON_SHARE_ANALYSIS,
	                      readers, sel, err, sizeof err)) {
		fprintf(stderr, CMD ": %s\n", err);
		return 1;
	}
	/* The front-end waits for its CPs at most this long per pull. */
	struct tree_pull tp = {
	    &t, interval * 1000 > 2000 ? (int)(interval * 1000) : 2000, 0, ""};
	struct monitor_pull mp;
	monitor_pull_default(&mp, interval, pull, tree_pull, &tp);
	struct monitor_view vp = *v;
	vp.pace = &mp.pace;
	int rc = 0;
	for (unsigned i = 1; count <= 0 || i <= (unsigned long)count; i++) {
		if (i == 1 ? monitor_pull_now(&mp)
		           : monitor_pull_for(&mp, interval)) {
			/* After a view, the front-end's leaving is the
			 * network's end: that was its last view. */
			fprintf(stderr, CMD ": %s%s\n", tp.err,
			        i > 1 ? "; the network has ended" : "");
			rc = i > 1 ? 0 : 1;
			break;
		}
		struct scope view;
		scope_init(&view, net, sel, t.a);
		view.read = t.c.read;
		view.selected = t.c.selected;
		view.lost_before = t.c.lost_before;
		view.lost = t.c.lost;
		view.gone = t.c.gone;
		view.sent = t.c.sent;
		view.procs_remote = t.c.procs;
		view.unread_nodes = tree_scope_unread(&t);
		view.readers = t.c.readers;
		view.readers_all = t.readers;
		view.how = raw ? "raw" : "tree";
		view.polls = tp.pulls;
		view.share_bytes = t.bytes;
		if (t.note[0])
			fprintf(stderr, CMD ": view %u: %s\n", i, t.note);
		int r = monitor_view_print(stdout, &vp, &view, i);
		scope_free(&view);
		if (r) {
			fprintf(stderr, CMD ": writing the view: %s\n",
			        grove_strerror(r));
			rc = 1;
			break;
		}
	}
	tree_scope_detach(&t);
	return rc;
}
