/* Noting that the set of descriptors a libuv loop watches changed
 * (internal).
 *
 * libuv hands a watcher that was started or changed (uv_read_start,
 * uv_write waiting for the socket, uv_poll_start, uv_accept, ...) to its
 * epoll set only at the start of its next loop pass.  A tool that polls
 * that epoll set itself (tbon/waitfd.h) would not wake for such a
 * watcher, so the code that starts or changes one notes it here and the
 * public call that did it runs one more pass before returning.
 *
 * The note is a flag that the loop's owner points loop->data at (libuv
 * leaves that field to its user); a loop nobody watches from outside
 * (a CP's) leaves it NULL and noting costs one test.
 */
#ifndef GROVE_WATCH_NOTE_H
#define GROVE_WATCH_NOTE_H

#include <stddef.h>
#include <uv.h>

/* Point the loop's note at flag (NULL: nobody is interested). */
static inline void
watch_note_attach(uv_loop_t *loop, int *flag)
{
	loop->data = flag;
}

static inline void
watch_note_changed(uv_loop_t *loop)
{
	int *flag = loop->data;
	if (flag)
		*flag = 1;
}

#endif
