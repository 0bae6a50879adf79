/* The descriptor a tool polls (internal): an epoll set holding the event
 * loop's own descriptor, an eventfd that is kept readable while an
 * application queue holds something, and a timerfd set to the loop's next
 * timer (heartbeats, a time-out synchronization filter's window), so that
 * a tool that only polls also runs Grove when a timer is due. */
#ifndef GROVE_WAITFD_H
#define GROVE_WAITFD_H

#include <uv.h>

typedef struct waitfd {
	int ep;
	int ev;
	int signalled;
	int used;   /* the tool asked for the descriptor; until then keeping
	               the eventfd in step would cost two system calls per
	               packet for nothing */
	int watchers_changed; /* the loop's note (net/watch_note.h): a
	                         watcher changed that libuv's epoll set will
	                         only hold after one more pass */
	uv_loop_t *loop;
	int in_pass;  /* the loop is running: a callback's Grove call must
	                 not run it again (uv_run is not reentrant); the
	                 outer call settles */
	int tf;           /* timerfd: readable when the loop's next timer is due */
	uint64_t tf_due;  /* loop time (ms) it is set for; UINT64_MAX: unset */
} waitfd;

/* Also points the loop's watcher note at w (until waitfd_fini). */
int waitfd_init(waitfd *w, uv_loop_t *loop);
void waitfd_fini(waitfd *w);
void waitfd_update_(waitfd *w, int pending);

/* Make the descriptor readable (pending = 1) or not.  Inline: the back-end
 * and front-end call it for every packet, and it has nothing to do
 * unless the tool asked for the descriptor and the state changes. */
static inline void
waitfd_set(waitfd *w, int pending)
{
	if (w->used && pending != w->signalled)
		waitfd_update_(w, pending);
}
/* Hand the descriptor to the tool (from now on it is kept in step).  The
 * caller then settles it (waitfd_stale). */
int waitfd_get(waitfd *w, int pending);

/* Whether the loop must run one more non-blocking pass before control
 * goes back to a tool that polls the descriptor: a watcher was started or
 * changed since the last pass, and libuv adds it to the epoll set the
 * tool polls only when its loop runs again.  Clears the note (a pass may
 * note new changes: ask again after it).  Inline and free of system
 * calls: public calls ask it on every return, and only a tool that has
 * the descriptor ever gets a yes. */
static inline int
waitfd_stale(waitfd *w)
{
	if (!w->used || !w->watchers_changed || w->in_pass)
		return 0;
	w->watchers_changed = 0;
	return 1;
}

void waitfd_arm_timer_(waitfd *w);

/* Sets the timerfd to the loop's next timer, or clears it when there is
 * none.  Called where a public call returns to the tool, after the last
 * loop pass.  Inline: nothing to do until the tool asked for the
 * descriptor; after that, a system call only when the next timer changed
 * or has come due (re-arming also makes a fired timerfd quiet). */
static inline void
waitfd_arm_timer(waitfd *w)
{
	if (w->used && !w->in_pass)
		waitfd_arm_timer_(w);
}

/* Run the loop once: block at most timeout_ms (0: do not block; < 0: until
 * something happens).  t is an initialised timer owned by the caller. */
void loop_run_for(uv_loop_t *loop, uv_timer_t *t, int timeout_ms);
/* Arms t (an initialised timer of the loop) to end a UV_RUN_ONCE wait
 * timeout_ms (> 0) from the loop's time, and again every ms after that:
 * the wait ends even when the first firing comes before it starts.  The
 * caller stops t after uv_run.  (loop_run_for's timer.) */
void loop_wake_after(uv_timer_t *t, int timeout_ms);

#endif
