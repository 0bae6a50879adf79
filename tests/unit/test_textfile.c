/* Unit tests for core_read_file (src/core/textfile.c), the reader behind
 * topology files, host lists, cluster maps, P-LogP parameter files and
 * connection files: whole regular files byte for byte, and the paths
 * that are not one (missing, a FIFO with no writer, a directory, a
 * device), each refused at once with the reason, through each loader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "core/textfile.h"
#include "grove/backend.h"
#include "grove/cluster.h"
#include "grove/error.h"
#include "grove/logp.h"
#include "grove/topology.h"
#include "tbon/connfile.h"

static char dir[64];
static char path[128];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/grove_textfile_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	char p[128];
	const char *names[] = {"text", "fifo", "fifo2", "subdir", "big"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		if (unlink(p) != 0)
			rmdir(p);
	}
	rmdir(dir);
	return 0;
}

static const char *
in_dir(const char *name)
{
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

static void
write_file(const char *p, const char *bytes, size_t n)
{
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void
test_regular_file(void **state)
{
	(void)state;
	const char bytes[] = "line 1\nwith\0a NUL\n";
	write_file(in_dir("text"), bytes, sizeof bytes - 1);
	char *text = NULL, err[200] = "";
	size_t len = 0;
	assert_int_equal(core_read_file(in_dir("text"), 0, &text, &len, err,
	    sizeof err), 0);
	assert_int_equal(len, sizeof bytes - 1);
	assert_memory_equal(text, bytes, len);
	assert_int_equal(text[len], '\0');
	free(text);

	/* An empty file is read as empty text. */
	write_file(in_dir("text"), "", 0);
	assert_int_equal(core_read_file(in_dir("text"), 0, &text, &len, err,
	    sizeof err), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
}

static void
test_too_large(void **state)
{
	(void)state;
	size_t n = 100000;
	char *big = malloc(n);
	assert_non_null(big);
	memset(big, 'x', n);
	write_file(in_dir("big"), big, n);
	free(big);
	char *text = (char *)1, err[200] = "";
	size_t len = 1;
	assert_int_equal(core_read_file(in_dir("big"), n - 1, &text, &len,
	    err, sizeof err), GROVE_ERANGE);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_string_equal(err, "larger than 99999 bytes");
	assert_int_equal(core_read_file(in_dir("big"), n, &text, &len, err,
	    sizeof err), 0);
	assert_int_equal(len, n);
	free(text);
}

static void
test_missing(void **state)
{
	(void)state;
	char *text = NULL, err[200] = "";
	size_t len = 0;
	assert_int_equal(core_read_file(in_dir("no-such-file"), 0, &text,
	    &len, err, sizeof err), GROVE_ENOENT);
	assert_null(text);
	assert_string_equal(err, "cannot open: No such file or directory");
}

/* Opening a FIFO for reading used to wait for a writer that never came. */
static void
test_fifo(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(in_dir("fifo"), 0600), 0);
	char *text = (char *)1, err[200] = "";
	size_t len = 1;
	assert_int_equal(core_read_file(in_dir("fifo"), 0, &text, &len, err,
	    sizeof err), GROVE_EINVAL);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_string_equal(err, "not a regular file");
}

static void
test_directory_and_device(void **state)
{
	(void)state;
	assert_int_equal(mkdir(in_dir("subdir"), 0700), 0);
	char *text = NULL, err[200] = "";
	size_t len = 0;
	assert_int_equal(core_read_file(in_dir("subdir"), 0, &text, &len, err,
	    sizeof err), GROVE_EINVAL);
	assert_string_equal(err, "not a regular file");
	err[0] = '\0';
	assert_int_equal(core_read_file("/dev/null", 0, &text, &len, err,
	    sizeof err), GROVE_EINVAL);
	assert_string_equal(err, "not a regular file");
	assert_null(text);
}

/* Every file a user names goes through core_read_file: each loader
 * refuses a FIFO at once and says so. */
static void
test_callers_refuse_fifo(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(in_dir("fifo2"), 0600), 0);
	const char *fifo = in_dir("fifo2");
	char err[512] = "";

	grove_topo *t = NULL;
	assert_int_equal(grove_topo_parse_file(fifo, &t, err, sizeof err),
	    GROVE_EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	grove_hostlist *hl = NULL;
	err[0] = '\0';
	assert_int_equal(grove_hostlist_parse_file(fifo, &hl, err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	grove_cluster_map *cm = NULL;
	err[0] = '\0';
	assert_int_equal(grove_cluster_map_parse_file(fifo, &cm, err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	grove_logp_params *lp = NULL;
	err[0] = '\0';
	assert_int_equal(grove_logp_params_load(fifo, &lp, err, sizeof err),
	    GROVE_EINVAL);
	assert_non_null(strstr(err, "not a regular file"));

	/* A back-end given a FIFO as its connection file used to wait in
	 * grove_be_attach for a writer, forever. */
	grove_be *be = NULL;
	assert_int_equal(grove_be_attach(fifo, 0, &be), GROVE_EINVAL);
	assert_non_null(be);
	char want[256];
	snprintf(want, sizeof want, "connection file %s: not a regular file",
	    fifo);
	assert_string_equal(grove_be_last_error(be), want);
	grove_be_destroy(be);
}

/* The repeated rank of a connection file reaches the back-end's error. */
static void
test_attach_repeated_rank(void **state)
{
	(void)state;
	char t[300];
	snprintf(t, sizeof t, "%s %u\nsecret "
	    "abababababababababababababababababababababababababababababababab"
	    "\n0 127.0.0.1 1 0 1\n0 127.0.0.1 2 0 1\n", CONNFILE_FIRST_LINE,
	    GROVE_PROTOCOL);
	write_file(in_dir("text"), t, strlen(t));
	grove_be *be = NULL;
	assert_int_equal(grove_be_attach(in_dir("text"), 0, &be),
	    GROVE_EPROTO);
	char want[256];
	snprintf(want, sizeof want, "connection file %s: line 4: rank 0 "
	    "again (first on line 3)", in_dir("text"));
	assert_string_equal(grove_be_last_error(be), want);
	grove_be_destroy(be);
}

/* A connection file of another protocol version is refused naming both
 * versions and the file, before anything is dialled. */
static void
test_attach_other_protocol(void **state)
{
	(void)state;
	char t[300], want[600];
	snprintf(t, sizeof t, "%s %u\nsecret "
	    "abababababababababababababababababababababababababababababababab"
	    "\nbackends 1\n0 127.0.0.1 1 0 1\n", CONNFILE_FIRST_LINE,
	    GROVE_PROTOCOL + 1);
	write_file(in_dir("text"), t, strlen(t));
	grove_be *be = NULL;
	assert_int_equal(grove_be_attach(in_dir("text"), 0, &be),
	    GROVE_EPROTO);
	snprintf(want, sizeof want, "connection file %s: written by Grove "
	    "protocol %u, this back-end speaks %u: install the same Grove "
	    "version on every host", in_dir("text"), GROVE_PROTOCOL + 1,
	    GROVE_PROTOCOL);
	assert_string_equal(grove_be_last_error(be), want);
	grove_be_destroy(be);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_file),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_directory_and_device),
		cmocka_unit_test(test_callers_refuse_fifo),
		cmocka_unit_test(test_attach_repeated_rank),
		cmocka_unit_test(test_attach_other_protocol),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
