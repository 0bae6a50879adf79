/* A grove run job across hosts, from the monitor's side: the hosts of
 * the job (the placement grove run --hosts writes to its directory,
 * DIR/hosts), a reader started on each other host over the remote shell
 * ($GROVE_RSH, else ssh; grove monitor --serve-share, host_serve.h), and
 * a pull that asks every reader for its share and checks what comes
 * back (docs/monitoring.md, "Jobs across hosts"). */
#ifndef GROVE_TOOLS_MONITOR_HOST_SCOPE_H
#define GROVE_TOOLS_MONITOR_HOST_SCOPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host_serve.h"
#include "monitor/share.h"
#include "scope/scope.h"

struct host_reader {
	char host[256];
	struct host_ranks ranks;
	pid_t pid;               /* the remote shell; 0 once reaped */
	int to, from;            /* its standard input and output; -1 */
	int failed;              /* never asked again: see why */
	int answered;            /* answered the last pull */
	/* The last share that was read: an analysis share's accumulators
	 * (totals since the reader started) and its counts (totals). */
	struct mon_analysis *a;
	struct mon_share_counts c;
	char why[512];           /* what went wrong, naming the host */
};

struct host_scope {
	char job[64];
	int kind;                /* enum mon_share_kind */
	struct host_reader *r;   /* the hosts other than this one */
	size_t n;
	struct host_ranks *local; /* ranks on this machine's hosts */
	size_t n_local;
	uint64_t bytes;          /* share bytes received, all pulls */
};

/* Reads job's placement: 0 with h->n readers to start (0: the job runs
 * on this host only, or was not started with --hosts: no DIR/hosts), or
 * 1 with err saying what was wrong with the file.  Nothing is started. */
int host_scope_load(struct host_scope *h, const char *job, int kind,
                    char *err, size_t errlen);

/* Whether the space of (role, rank) is this host's to read: the
 * launcher and the ranks placed on this machine.  ctx: the host_scope. */
int host_scope_admit_local(void *ctx, const char *role, uint32_t rank,
                           int64_t *node);

/* Starts a reader on every other host, with the selection sel (its op,
 * layer, name and last_only).  Nothing is read there before the first
 * pull.  A reader that cannot be started is failed, with why.  0, or
 * 1 with err (a selection the remote command cannot carry). */
int host_scope_start(struct host_scope *h, const struct scope_select *sel,
                     char *err, size_t errlen);

/* One pull: every reader not failed is asked, then its frame is read
 * (waiting up to timeout_ms for all) and checked.  A reader that
 * answers nothing in time, ends, or sends what is not a share is failed
 * with why (said on standard error once) and its remote shell ended.
 * Raw shares' tuples are fed into raw_into.  Returns the readers that
 * answered. */
size_t host_scope_pull(struct host_scope *h, struct mon_analysis *raw_into,
                       int timeout_ms);

/* Ends every reader (their standard input closes, so the remote reader
 * ends; the remote shell is then waited for) and frees h. */
void host_scope_stop(struct host_scope *h);

#endif
