/* Defaults and fixed limits shared by several modules (internal).
 *
 * Each number is named once here so that the front-end, the CPs, the
 * back-ends and the bootstrap between them cannot drift apart, and so
 * that the documentation can cite a name (docs/api.md, docs/internals.md).
 * Limits that one file alone uses stay in that file; the waits of a
 * process that leaves are in net/exit_wait.h. */
#ifndef GROVE_DEFAULTS_H
#define GROVE_DEFAULTS_H

/* Start-up deadline of a network (grove_net_opts.timeout_ms when 0),
 * also what a CP assumes when its bootstrap names none, and the limit of
 * a back-end's connect to its parent in grove_be_attach_to. */
#define GROVE_DEFAULT_TIMEOUT_MS 30000

/* Heartbeat interval on CP links (grove_net_opts.heartbeat_ms when 0); a
 * CP silent for 5 intervals is lost. */
#define GROVE_DEFAULT_HEARTBEAT_MS 1000

/* Re-parenting (grove_net_opts.reparent_ms when 0 and
 * $GROVE_REPARENT_MS is unset): how long a node waits for a lost CP
 * child's children to come back, and they (plus a heartbeat interval)
 * for an ancestor to take them in (docs/recovery.md). */
#define GROVE_DEFAULT_REPARENT_MS 2000

/* Backlog of a node's listening sockets: a CP with thousands of children
 * on other hosts, or thousands of attaching back-ends, sees them connect
 * at once (the kernel caps it at net.core.somaxconn). */
#define GROVE_LISTEN_BACKLOG 4096

#endif
