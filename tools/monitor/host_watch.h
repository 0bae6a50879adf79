/* grove monitor --job of a job across hosts: this host's spaces read
 * here, every other host's by a reader started there (host_scope.h),
 * their shares merged into each view (docs/monitoring.md, "Jobs across
 * hosts"). */
#ifndef GROVE_TOOLS_MONITOR_HOST_WATCH_H
#define GROVE_TOOLS_MONITOR_HOST_WATCH_H

#include "host_scope.h"
#include "monitor_view.h"
#include "scope/scope.h"

/* Watches job with the readers of h (loaded, not started): starts them,
 * prints a view every interval (pulling every host every pull seconds
 * when shorter) for count views or until the launcher here ends, and
 * ends them.  The exit status: 0 or 1 after saying why. */
int monitor_watch_hosts(struct host_scope *h, const char *job,
                        const struct scope_select *sel,
                        const struct monitor_view *v, double interval,
                        double pull, long count);

#endif
