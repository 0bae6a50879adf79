/* An event scope through a running network's tree, from the monitor's
 * side: attach to the front-end's control socket (this user's or root's
 * only), pull, detach (src/tbon/fe_scope.c speaks the other side;
 * docs/monitoring.md, "Event scopes through the tree"). */
#ifndef GROVE_TOOLS_MONITOR_TREE_SCOPE_H
#define GROVE_TOOLS_MONITOR_TREE_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/share.h"
#include "scope/placement.h"
#include "scope/scope.h"

struct tree_scope {
	int fd;
	char net[64];
	int kind;                /* enum mon_share_kind */
	uint32_t id;             /* the scope, as the front-end named it */
	uint32_t nodes;          /* of the tree */
	uint32_t readers;        /* of the placement */
	/* After a pull: the analysis of every reader that answered (an
	 * analysis share: the totals of that pull; raw: every tuple
	 * gathered since attaching, fed here), the counts (totals), how
	 * many of the front-end's CP children answered of those asked, and
	 * the front-end's note on what is missing ("" when nothing). */
	struct mon_analysis *a;
	struct mon_share_counts c;
	uint32_t answered, asked;
	uint64_t bytes;          /* share bytes received, all pulls */
	char note[300];
};

/* Attaches to network net's front-end.  kind: enum mon_share_kind;
 * readers: enum scope_readers; sel may be NULL.  0, or 1 with err
 * saying why (no front-end, someone else's socket, refused). */
int tree_scope_attach(struct tree_scope *t, const char *net, int kind,
                      int readers, const struct scope_select *sel,
                      char *err, size_t errlen);

/* One pull: the front-end waits up to timeout_ms for its CPs.  0, or 1
 * with err saying why (the scope is then unusable: detach). */
int tree_scope_pull(struct tree_scope *t, int timeout_ms, char *err,
                    size_t errlen);

/* Nodes of the tree whose space no reader read (no reader for their
 * host, no space, or not answered). */
uint32_t tree_scope_unread(const struct tree_scope *t);

/* Leaves: the scope ends at every node; the network goes on. */
void tree_scope_detach(struct tree_scope *t);

#endif
