/* The descriptor a tool polls (internal): an epoll set holding the event
 * loop's own descriptor and an eventfd that is kept readable while an
 * application queue holds something. */
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
} waitfd;

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
/* Hand the descriptor to the tool (from now on it is kept in step). */
int waitfd_get(waitfd *w, int pending);

/* Run the loop once: block at most timeout_ms (0: do not block; < 0: until
 * something happens).  t is an initialised timer owned by the caller. */
void loop_run_for(uv_loop_t *loop, uv_timer_t *t, int timeout_ms);

#endif
