/* loop_run_for's bounded wait when its caller loses the CPU between
 * arming the timer and libuv's poll.  libuv runs due timers before it
 * polls: a one-shot timer that came due in that gap fired there, and the
 * poll then waited with no limit (a back-end's short receive waited for
 * the next packet; a node agent, which is never sent one, stopped). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <uv.h>

#include "tbon/waitfd.h"

static void
on_async(uv_async_t *a)
{
	(void)a;
}

static void
on_alarm(int sig)
{
	(void)sig;
	/* A wait without a limit: fail instead of hanging the suite. */
	static const char msg[] = "test_loop_wait: the wait had no limit\n";
	(void)!write(2, msg, sizeof msg - 1);
	_exit(1);
}

static void
test_wait_bounded_after_lost_cpu(void **state)
{
	(void)state;
	uv_loop_t loop;
	uv_timer_t t;
	uv_async_t keep; /* an active handle that never fires, like a link */
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(uv_timer_init(&loop, &t), 0);
	assert_int_equal(uv_async_init(&loop, &keep, on_async), 0);
	signal(SIGALRM, on_alarm);
	for (int round = 0; round < 3; round++) {
		uv_update_time(&loop);
		loop_wake_after(&t, 2);
		/* The caller is preempted for longer than its timeout. */
		struct timespec gap = {0, 5 * 1000 * 1000};
		nanosleep(&gap, NULL);
		alarm(10);
		uv_run(&loop, UV_RUN_ONCE);
		alarm(0);
		uv_timer_stop(&t);
		assert_false(uv_is_active((uv_handle_t *)&t));
	}
	/* And the usual case still returns after its timeout. */
	alarm(10);
	loop_run_for(&loop, &t, 2);
	alarm(0);
	assert_false(uv_is_active((uv_handle_t *)&t));
	uv_close((uv_handle_t *)&t, NULL);
	uv_close((uv_handle_t *)&keep, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_bounded_after_lost_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
