/* grove monitor --serve-share: the reader of one host of a grove run job
 * that runs on several hosts, started by the monitor over the remote
 * shell (host_scope.h; docs/monitoring.md, "Jobs across hosts"). */
#ifndef GROVE_TOOLS_MONITOR_HOST_SERVE_H
#define GROVE_TOOLS_MONITOR_HOST_SERVE_H

#include <stdint.h>

#include "scope/scope.h"

/* Ranks first .. first + n - 1 of a job: the ranks a host's reader
 * reads (the launcher's placement, grove run's DIR/hosts). */
struct host_ranks {
	uint32_t first, n;
};

/* Reads nothing until a line "pull" arrives on standard input; then
 * reads this host's event spaces of job's ranks r (a scope with the
 * selection sel), and writes one share frame (monitor/share_frame.h) to
 * standard output: the analysis's accumulators, or with raw the
 * selected tuples of this pull.  Returns when standard input ends: 0;
 * or 1 after saying on standard error, with this host's name, why
 * (another line than "pull", reading failed, the monitor went away). */
int monitor_serve_share(const char *job, const struct scope_select *sel,
                        int raw, struct host_ranks r);

#endif
