/* grove monitor's views of a network through its tree (tree_watch.c). */
#ifndef GROVE_TOOLS_MONITOR_TREE_WATCH_H
#define GROVE_TOOLS_MONITOR_TREE_WATCH_H

#include "monitor_view.h"
#include "scope/scope.h"

/* Attaches to network net's front-end, prints a view every interval
 * (count views, or until the network ends), pulling as paced in between
 * (pull.h; pull: --pull, 0 auto), and detaches.  raw: the single scope
 * (tuples gathered unreduced) instead of the distributed analysis;
 * readers: enum scope_readers.  The exit status: 0 or 1 after saying
 * why. */
int monitor_watch_tree(const char *net, const struct scope_select *sel,
                       const struct monitor_view *v, double interval,
                       double pull, long count, int raw, int readers);

#endif
