/* Arrival and departure order per collective instance (virtual event
 * space paper, "Views"; EventSpace monitoring paper, section 3;
 * internal, src/monitor).
 *
 * For each complete instance (instances.h) the members arrive in the
 * order their calls started and depart in the order they ended.  Per
 * communicator and member this accumulates the arrival and departure
 * order distributions (how often the member was the first, second ...
 * to arrive or leave; kept for communicators of up to
 * MON_ORDER_HIST_MAX members), how often it arrived first and last, its
 * arrival wait (how long it waited for the last arrival: t_last -
 * t_arrive) and departure wait (how long after the first departure it
 * left: t_depart - t_first_departure); and it keeps the newest instances
 * whole, for diagrams.
 *
 * TBON waves record only who completed each wave (balance.h), not every
 * child's arrival, so this view is Grove MPI's. */
#ifndef GROVE_MONITOR_ORDER_H
#define GROVE_MONITOR_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/instances.h"
#include "monitor/welford.h"

#define MON_ORDER_HIST_MAX 64u

struct mon_order_member {
	char label[MON_LABEL_LEN];
	uint64_t first, last;       /* arrivals as first / last */
	/* arrive_pos[k]: arrivals as the (k+1)-th; depart_pos likewise;
	 * NULL for communicators above MON_ORDER_HIST_MAX. */
	uint64_t *arrive_pos, *depart_pos;
	struct mon_welford arrive_wait, depart_wait;
};

/* One instance as kept for diagrams. */
struct mon_order_instance {
	uint32_t seq;
	char fn[MON_NAME_LEN];      /* the function of member 0's call */
	uint64_t *arrive, *depart;  /* size entries, by rank in the scope */
};

struct mon_order_scope {
	char scope[MON_WHERE_LEN];
	uint32_t size;
	uint64_t instances;
	struct mon_order_member *m; /* size entries (label "" for a member
	                               never seen) */
	size_t n_recent;            /* newest last */
	const struct mon_order_instance *recent;
};

struct mon_order;

/* keep: instances kept whole per communicator (0: 16). */
struct mon_order *mon_order_new(size_t keep);
void mon_order_free(struct mon_order *o);

int mon_order_instance(struct mon_order *o, const struct mon_instance *in);

/* mon_order_instance in two steps, for a feeder that keeps each
 * communicator's state instead of finding it by name per instance (the
 * analysis's routes): the state of scope, made for size members when new
 * (NULL: out of memory, or *clash when the scope was seen with another
 * size: such instances are left out), whose address stays valid until o
 * is freed; and one instance of it (in->size the state's size, > 0). */
struct mon_order_st;
struct mon_order_st *mon_order_at(struct mon_order *o, const char *scope,
                                  uint32_t size, int *clash);
int mon_order_instance_at(struct mon_order *o, struct mon_order_st *s,
                          const struct mon_instance *in);
int mon_order_merge(struct mon_order *a, const struct mon_order *b);

/* The communicators, sorted by name; the array is malloc'ed (free it),
 * what it points to stays valid until the next change of o.
 * GROVE_ENOMEM. */
int mon_order_scopes(struct mon_order *o, struct mon_order_scope **out,
                     size_t *n);

#endif
