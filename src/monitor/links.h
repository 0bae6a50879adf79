/* Messages on the TBON's links: each packet's send tuple joined with its
 * receive tuple through the pathmap (internal, src/monitor).
 *
 * Both ends of a link name it alike ("link:<sender node>-><receiver
 * node>") and each records every packet of it once, in order, on its
 * link.send / link.recv collector, whose seq counts them; so a send
 * (GROVE_OP_SEND or GROVE_OP_TRACE_SEND) and a receive (GROVE_OP_RECV or
 * GROVE_OP_TRACE_RECV) with the same place and seq are one message, as
 * trace_match_messages pairs them for the exporters.  Either end may come
 * first; an end waits in a table until the other arrives.  Ends whose
 * other end never comes (lost, or recorded by a process whose event space
 * is missing) stay unmatched and are counted. */
#ifndef GROVE_MONITOR_LINKS_H
#define GROVE_MONITOR_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/pathmap.h"

/* One end of a message. */
struct mon_msg_end {
	uint64_t t_start, t_end;
	char label[MON_LABEL_LEN];
	char role[MON_ROLE_LEN];
	char host[MON_HOST_LEN];
};

struct mon_msg {
	const char *where;        /* "link:5->1" */
	uint32_t seq;
	int trace;                /* the tracing machinery's own packet */
	struct mon_msg_end send, recv;
};

typedef int (*mon_msg_fn)(void *ctx, const struct mon_msg *m);

struct mon_links;

/* fn gets every message as soon as both its ends are in (its return
 * value, when not 0, is returned by the feed or merge).  max_pending
 * bounds the ends waiting (0: 1 << 22); further ones are dropped and
 * counted.  NULL: out of memory. */
struct mon_links *mon_links_new(mon_msg_fn fn, void *ctx, size_t max_pending);
void mon_links_free(struct mon_links *l);

int mon_links_feed(struct mon_links *l, const struct mon_pathmap *pm,
                   uint32_t proc, const struct mon_tuple *t);
/* a := a and b: b's waiting ends meet a's.  GROVE_ENOMEM. */
int mon_links_merge(struct mon_links *a, const struct mon_links *b);

struct mon_links_counts {
	uint64_t matched;
	uint64_t sends_waiting;   /* sends whose receive is not (yet) in */
	uint64_t recvs_waiting;
	uint64_t dropped;         /* ends not kept: max_pending reached */
	uint64_t duplicates;      /* a second end of the same kind */
};
void mon_links_counts(const struct mon_links *l, struct mon_links_counts *out);

#endif
