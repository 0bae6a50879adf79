#include "tbon/waitfd.h"

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "net/watch_note.h"

int
waitfd_init(waitfd *w, uv_loop_t *loop)
{
	w->signalled = 0;
	/* The loop already watches descriptors that it may not have handed
	 * to its epoll set yet. */
	w->watchers_changed = 1;
	w->loop = loop;
	watch_note_attach(loop, &w->watchers_changed);
	w->tf_due = UINT64_MAX;
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	w->ev = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->tf = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (w->ep < 0 || w->ev < 0 || w->tf < 0)
		return -1;
	struct epoll_event e = {.events = EPOLLIN};
	e.data.fd = w->ev;
	epoll_ctl(w->ep, EPOLL_CTL_ADD, w->ev, &e);
	e.data.fd = w->tf;
	epoll_ctl(w->ep, EPOLL_CTL_ADD, w->tf, &e);
	e.data.fd = uv_backend_fd(loop);
	epoll_ctl(w->ep, EPOLL_CTL_ADD, e.data.fd, &e);
	return 0;
}

void
waitfd_fini(waitfd *w)
{
	if (w->loop)
		watch_note_attach(w->loop, NULL);
	w->loop = NULL;
	if (w->ep >= 0)
		close(w->ep);
	if (w->ev >= 0)
		close(w->ev);
	if (w->tf >= 0)
		close(w->tf);
	w->ep = w->ev = w->tf = -1;
}

void
waitfd_update_(waitfd *w, int pending)
{
	if (!w->used || pending == w->signalled || w->ev < 0)
		return;
	uint64_t v = 1;
	if (pending) {
		if (write(w->ev, &v, sizeof v) < 0)
			return;
	} else if (read(w->ev, &v, sizeof v) < 0) {
		return;
	}
	w->signalled = pending;
}

void
waitfd_arm_timer_(waitfd *w)
{
	if (w->tf < 0 || !w->loop)
		return;
	/* libuv's timers run on its cached loop time, in ms. */
	int t = uv_backend_timeout(w->loop);
	uint64_t now = uv_now(w->loop);
	uint64_t due = t < 0 ? UINT64_MAX : now + (uint64_t)t;
	int fired = w->tf_due != UINT64_MAX && now >= w->tf_due;
	if (due == w->tf_due && !fired)
		return;
	/* A zero it_value would disarm: "due now" is 1 ns. */
	struct itimerspec its = {{0, 0}, {0, 0}};
	if (t >= 0) {
		its.it_value.tv_sec = t / 1000;
		its.it_value.tv_nsec = (long)(t % 1000) * 1000000L + (t == 0);
	}
	if (timerfd_settime(w->tf, 0, &its, NULL) == 0)
		w->tf_due = due;
}

int
waitfd_get(waitfd *w, int pending)
{
	w->used = 1;
	waitfd_set(w, pending);
	return w->ep;
}

static void
on_wake(uv_timer_t *t)
{
	(void)t;
}

void
loop_wake_after(uv_timer_t *t, int timeout_ms)
{
	/* The timer bounds the wait of UV_RUN_ONCE.  It repeats: a caller
	 * that loses the CPU for timeout_ms before uv_run gets there sees the
	 * first firing in uv_run's timers, before its poll, and a one-shot
	 * timer then left the poll unbounded (a back-end's receive of 2 ms
	 * waited for the next packet, for ever when none came). */
	uv_timer_start(t, on_wake, (uint64_t)timeout_ms, 1);
}

void
loop_run_for(uv_loop_t *loop, uv_timer_t *t, int timeout_ms)
{
	if (timeout_ms == 0) {
		uv_run(loop, UV_RUN_NOWAIT);
		return;
	}
	if (timeout_ms > 0) {
		uv_update_time(loop);
		loop_wake_after(t, timeout_ms);
	}
	uv_run(loop, UV_RUN_ONCE);
	if (timeout_ms > 0)
		uv_timer_stop(t);
}
