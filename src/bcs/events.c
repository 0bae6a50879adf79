/* Events and Test-Event.  An event counts its signals; a failed signal
 * (a transfer whose destination was lost) is kept apart with its error,
 * and a test returns it before the good ones. */
#include <stdio.h>
#include <string.h>

#include "bcs/bcs_impl.h"

void
bcs_event_signal(grove_bcs *b, int32_t ev)
{
	if (ev >= 0 && (uint32_t)ev < b->nevents) {
		b->events[ev].signals++;
		if (b->on_signal)
			b->on_signal(b, ev, b->on_signal_arg);
	}
}

void
bcs_event_fail(grove_bcs *b, int32_t ev, int rc, const char *why)
{
	if (ev < 0 || (uint32_t)ev >= b->nevents)
		return;
	bcs_event *e = &b->events[ev];
	e->failures++;
	e->fail_rc = rc;
	snprintf(e->fail_why, sizeof e->fail_why, "%s", why);
}

static int
check_event(grove_bcs *b, int32_t ev, const char *what)
{
	if (ev < 0 || (uint32_t)ev >= b->nevents) {
		bcs_set_error(b, "%s: event %d: this machine has %u (0-%u)",
		    what, (int)ev, b->nevents, b->nevents ? b->nevents - 1 : 0);
		return GROVE_ERANGE;
	}
	return 0;
}

/* 1 (taken), an error (a failed signal, taken), or 0. */
static int
take(grove_bcs *b, int32_t ev)
{
	bcs_event *e = &b->events[ev];
	if (e->failures) {
		e->failures--;
		bcs_set_error(b, "event %d: %s", (int)ev, e->fail_why);
		return e->fail_rc;
	}
	if (e->signals) {
		e->signals--;
		return 1;
	}
	return 0;
}

/* Whether one of this handle's own transfers will still signal ev. */
static int
pending_local(grove_bcs *b, int32_t ev)
{
	for (bcs_xfer_wait *x = b->xfers; x; x = x->next)
		if (x->local_event == ev)
			return 1;
	return 0;
}

/* A wait without a time limit for a signal that no transfer of ours
 * will bring ends once the machine has lost a node (or a node its
 * manager): the signal may have been the lost one's to send. */
static int
unbounded_wait_over(grove_bcs *b, int32_t ev)
{
	if (pending_local(b, ev))
		return 0;
	if (b->role == BCS_ROLE_NODE && b->manager_gone) {
		bcs_set_error(b, "event %d: node %u: %s", (int)ev, b->self,
		    b->manager_why);
		return GROVE_ECLOSED;
	}
	if (b->nlost) {
		bcs_set_error(b, "event %d: node %u %s while waiting for it "
		    "without a time limit: %s", (int)ev, b->first_lost,
		    b->peers[b->first_lost].left ? "left" : "is lost",
		    b->peers[b->first_lost].why);
		return GROVE_ELOST;
	}
	return 0;
}

int
grove_bcs_test_event(grove_bcs *b, int32_t ev, int timeout_ms)
{
	if (!b || !b->open_done)
		return GROVE_EINVAL;
	int rc = check_event(b, ev, "grove_bcs_test_event");
	if (rc != 0)
		return rc;
	if ((rc = take(b, ev)) != 0)
		return rc;
	uint64_t deadline = timeout_ms > 0 ?
	    bcs_now_ms() + (uint64_t)timeout_ms : 0;
	for (;;) {
		if ((rc = bcs_poll(b)) != 0)
			return rc;
		if ((rc = take(b, ev)) != 0)
			return rc;
		/* Without its manager a node's machine is over: nothing it
		 * could wait for will come. */
		if (b->role == BCS_ROLE_NODE && b->manager_gone &&
		    !pending_local(b, ev)) {
			bcs_set_error(b, "event %d: node %u: %s", (int)ev,
			    b->self, b->manager_why);
			return GROVE_ECLOSED;
		}
		if (timeout_ms == 0)
			return 0;
		if (timeout_ms < 0 && (rc = unbounded_wait_over(b, ev)) != 0)
			return rc;
		int left = bcs_left(deadline, timeout_ms);
		if (left == 0)
			return 0;
		bcs_block(b, left);
	}
}

int
grove_bcs_signal(grove_bcs *b, int32_t ev)
{
	if (!b || !b->open_done)
		return GROVE_EINVAL;
	int rc = check_event(b, ev, "grove_bcs_signal");
	if (rc != 0)
		return rc;
	bcs_event_signal(b, ev);
	return 0;
}
