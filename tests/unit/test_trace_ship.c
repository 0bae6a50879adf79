/* Shipped event spaces (src/trace/ship.c): a real snapshot is recreated
 * under a segment name and reads back; bytes whose header a reader would
 * refuse, and names readers would not list, create nothing; an existing
 * copy is kept without replace, replaced with it, and kept when its
 * replacement is refused. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "trace/reader.h"
#include "trace/trace_impl.h"

static char net[64], copy[96];
static uint8_t *snap;
static size_t snap_len;

static int
setup(void **state)
{
	(void)state;
	snprintf(net, sizeof net, "ship%ld", (long)getpid());
	snprintf(copy, sizeof copy, "grove.%sx.be.7", net);
	unsetenv("GROVE_TRACE");
	if (grove_trace_init(net, "be", 0) != 0)
		return -1;
	grove_trace_collector c;
	grove_trace_user_register(&c, "shipped");
	for (int i = 0; i < 5; i++)
		grove_trace_end(&c, GROVE_OP_USER, i, grove_trace_begin());
	char name[128];
	return trace_space_snapshot(name, sizeof name, &snap, &snap_len, 0);
}

static int
teardown(void **state)
{
	(void)state;
	free(snap);
	shm_unlink(copy);
	grove_trace_fini(0);
	return 0;
}

/* Tuples of the user collector in the copy, or -1 when it cannot be
 * read. */
static long
tuples_in(const char *name)
{
	struct trace_seg s;
	char err[256];
	if (trace_seg_open(name, &s, err, sizeof err) != 0)
		return -1;
	struct trace_proc p;
	long n = -1;
	if (trace_proc_read(&s, &p) == 0)
		n = (long)p.tuples;
	trace_proc_free(&p);
	trace_seg_close(&s);
	return n;
}

/* No segment of that name and no staging file left in /dev/shm. */
static void
assert_nothing_left(const char *name)
{
	char path[160];
	snprintf(path, sizeof path, "/dev/shm/%s", name);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof path, "/dev/shm/grove-in.%ld.%s", (long)getpid(),
	    name);
	assert_int_not_equal(access(path, F_OK), 0);
}

static void
test_good_copy(void **state)
{
	(void)state;
	shm_unlink(copy);
	assert_int_equal(trace_space_materialize(copy, snap, snap_len), 0);
	assert_true(tuples_in(copy) >= 5);
	/* Never overwritten without replace... */
	assert_int_equal(trace_space_materialize(copy, snap, snap_len),
	    GROVE_EINVAL);
	/* ...and replaced with it. */
	assert_int_equal(trace_space_materialize_replace(copy, snap, snap_len),
	    0);
	assert_true(tuples_in(copy) >= 5);
	shm_unlink(copy);
}

/* The header chunk is the first after the size; its bytes start at 24. */
static uint8_t *
with_header_bytes(int byte)
{
	uint8_t *b = malloc(snap_len);
	assert_non_null(b);
	memcpy(b, snap, snap_len);
	memset(b + 24, byte, 64);
	return b;
}

static void
test_bad_header(void **state)
{
	(void)state;
	shm_unlink(copy);
	for (int byte = 0; byte < 256; byte += 0xab) {
		uint8_t *b = with_header_bytes(byte);
		assert_int_equal(trace_space_materialize(copy, b, snap_len),
		    GROVE_EPROTO);
		assert_nothing_left(copy);
		free(b);
	}
	/* A refused replacement keeps the copy there was. */
	assert_int_equal(trace_space_materialize(copy, snap, snap_len), 0);
	uint8_t *b = with_header_bytes(0xab);
	assert_int_equal(trace_space_materialize_replace(copy, b, snap_len),
	    GROVE_EPROTO);
	free(b);
	assert_true(tuples_in(copy) >= 5);
	shm_unlink(copy);
}

/* A copy never goes over a file that is not this user's segment, not
 * even one that replaces (the name is not secret: another user may have
 * made it).  A FIFO is such a file for any user; as root, so is a file
 * of another owner. */
static void
test_not_over_a_foreign_file(void **state)
{
	(void)state;
	char path[160];
	snprintf(path, sizeof path, "/dev/shm/%s", copy);
	shm_unlink(copy);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(trace_space_materialize_replace(copy, snap, snap_len),
	    GROVE_EINVAL);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(path);
	if (geteuid() == 0) {
		int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		assert_true(fd >= 0);
		assert_int_equal(fchown(fd, 65534, 65534), 0);
		close(fd);
		assert_int_equal(trace_space_materialize_replace(copy, snap,
		    snap_len), GROVE_EINVAL);
		assert_int_equal(lstat(path, &st), 0);
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_size, 0);
		unlink(path);
	}
	assert_nothing_left(copy);
}

static void
test_bad_names(void **state)
{
	(void)state;
	char name[160];
	const char *bad[] = {"grove.%sx.be.9.x.y", "grove.%sx", "grove....",
	    "grove.%sx.be.", "grove.%sx..3", "grove.%sx.be.1x", "other.%s.be.1",
	    "grove.%s/x.be.1"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(name, sizeof name, bad[i], net);
		assert_int_equal(trace_space_materialize(name, snap, snap_len),
		    GROVE_EINVAL);
		if (!strchr(name, '/'))
			assert_nothing_left(name);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_copy),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_not_over_a_foreign_file),
		cmocka_unit_test(test_bad_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
