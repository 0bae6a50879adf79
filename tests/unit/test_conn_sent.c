/* conn_bytes_sent: the bytes a socket has taken, counted while a large
 * write is still in progress.  A leaving process watches it to tell a
 * link that still moves (an event space shipped home, megabytes in one
 * frame) from one that is stuck; the count of whole writes alone stood
 * still until the last byte of the frame was taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "net/conn.h"

#define FRAME (4u << 20)

static void
on_packet(conn *c, grove_packet *p)
{
	(void)c;
	(void)p;
}

static void
on_close(conn *c, int err, const char *why)
{
	(void)c;
	(void)err;
	(void)why;
}

static const conn_ops ops = {on_packet, on_close, NULL};

/* Reads up to n bytes from fd without waiting; the count read. */
static size_t
drain_some(int fd, size_t n)
{
	static char buf[65536];
	size_t got = 0;
	while (got < n) {
		size_t want = n - got < sizeof buf ? n - got : sizeof buf;
		ssize_t k = recv(fd, buf, want, MSG_DONTWAIT);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

static void
test_counts_a_write_in_progress(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	int small = 64 * 1024;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	/* uv_loop_init keeps loop.data, which the connection layer reads
	 * (net/watch_note.h): it must start NULL. */
	uv_loop_t loop;
	memset(&loop, 0, sizeof loop);
	assert_int_equal(uv_loop_init(&loop), 0);
	conn *c = NULL;
	assert_int_equal(conn_open_fd(&loop, sv[0], &ops, NULL, 0, &c), 0);

	char *payload = calloc(1, FRAME);
	assert_non_null(payload);
	grove_packet *p = NULL;
	assert_int_equal(wire_pack(&p, WIRE_T_DATA, 1, 0, 0, 0, "%ac",
	    payload, (int)FRAME), 0);
	free(payload);
	assert_int_equal(conn_send(c, p), 0);
	grove_packet_unref(p);
	assert_int_equal(conn_flush(c), 0);
	/* The socket took what fits; the rest waits in a write request. */
	uint64_t first = conn_bytes_sent(c);
	assert_true(conn_queued(c) > 0);
	assert_true(first < FRAME);

	/* The peer reads a part at a time: the count grows with every part
	 * the socket takes, long before the frame is whole. */
	uint64_t prev = first;
	int grew = 0;
	size_t total = 0;
	for (int i = 0; i < 8; i++) {
		total += drain_some(sv[1], 256 * 1024);
		uv_run(&loop, UV_RUN_NOWAIT);
		uint64_t now = conn_bytes_sent(c);
		assert_true(now >= prev);
		grew += now > prev;
		prev = now;
	}
	assert_true(conn_queued(c) > 0); /* the frame is not through yet */
	assert_true(grew >= 4);
	assert_true(prev > first);
	/* It never counts more than the peer could have been given: what
	 * it read plus what the two socket buffers hold. */
	assert_true(prev <= total + 4u * 1024 * 1024);

	/* Once everything is read, it is the whole frame. */
	for (int i = 0; i < 10000 && conn_queued(c) > 0; i++) {
		total += drain_some(sv[1], FRAME);
		uv_run(&loop, UV_RUN_NOWAIT);
	}
	assert_int_equal(conn_queued(c), 0);
	total += drain_some(sv[1], FRAME);
	assert_int_equal(conn_bytes_sent(c), total);

	conn_close(c, 0, "done");
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	close(sv[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_a_write_in_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
