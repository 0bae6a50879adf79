/* Choosing the network whose event spaces a command reads, and asking
 * its running front-end to bring home those of other hosts: shared by
 * `grove trace` and `grove report`.  Each says what went wrong on
 * standard error, prefixed by cmd ("grove trace", "grove report"). */
#ifndef GROVE_TOOLS_TRACE_SELECT_H
#define GROVE_TOOLS_TRACE_SELECT_H

#include <stddef.h>

/* 0 when `net` can name a network's event spaces ([A-Za-z0-9_-], 1 to
 * TRACE_NET_LEN - 1 characters); else 2 after saying so.  Checked before
 * use, so that a long id is refused rather than cut to one that may name
 * another network. */
int tool_check_net(const char *cmd, const char *net);

/* The network to work on, into out: `given` (checked already), or the
 * only one with event spaces in /dev/shm.  0, or 1 after saying why
 * (several networks, none, /dev/shm unreadable). */
int tool_pick_net(const char *cmd, const char *given, char *out, size_t len);

/* Why /dev/shm could not be listed (rc from trace_list). */
void tool_say_no_list(const char *cmd, int rc);

/* Asks the running front-end of network `net` (its control socket, this
 * user's or root's only) to collect every event space now.  0 when the
 * processes answered (or some did within timeout_ms: it says how many),
 * 1 after saying why not. */
int tool_collect_live(const char *cmd, const char *net, int timeout_ms);

#endif
