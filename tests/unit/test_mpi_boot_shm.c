/* Unit tests for the named job segment of srun and mpirun start-ups
 * (src/mpi/boot_shm.c): its name from any job id, creation that refuses
 * an existing name, opening by a second mapping that sees the first's
 * writes, removal of the name with the mappings kept. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mpi/boot.h"
#include "mpi/job.h"

static void
test_name(void **state)
{
	(void)state;
	char n[128];
	assert_int_equal(mpi_boot_shm_name(n, sizeof n, "pmi2-12.0", 4711), 0);
	assert_string_equal(n, "/grove-mpi.pmi2-12.0.4711");
	/* Slashes and blanks of a namespace never make a path. */
	assert_int_equal(mpi_boot_shm_name(n, sizeof n, "pmix-a/b c@1", 7), 0);
	assert_string_equal(n, "/grove-mpi.pmix-a_b_c_1.7");
	assert_int_equal(mpi_boot_shm_name(n, sizeof n, "", 7), 0);
	assert_string_equal(n, "/grove-mpi.job.7");
	/* Too small a buffer is an error, not a cut name. */
	assert_int_equal(mpi_boot_shm_name(n, 12, "pmi2-12.0", 4711), -1);
}

static void
test_create_open_unlink(void **state)
{
	(void)state;
	char name[128], err[256] = "";
	mpi_boot_shm_name(name, sizeof name, "unit-test", (long)getpid());
	mpi_boot_shm_unlink(name);
	struct mpi_job a, b, c;
	assert_int_equal(mpi_boot_shm_create(&a, name, 4, "unit-test", err,
	    sizeof err), 0);
	assert_int_equal(a.hdr->nranks, 4);
	assert_string_equal(a.hdr->jobid, "unit-test");
	/* Only this user may map it. */
	char path[160];
	snprintf(path, sizeof path, "/dev/shm%s", name);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* A second creation under the name is refused by name. */
	assert_int_equal(mpi_boot_shm_create(&c, name, 4, "unit-test", err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "cannot create the job segment"));
	assert_non_null(strstr(err, name));
	/* Another rank's mapping sees this one's writes. */
	assert_int_equal(mpi_boot_shm_open(&b, name, err, sizeof err), 0);
	assert_int_equal(b.hdr->nranks, 4);
	mpi_job_ctl(&a, 2)->pid = 12345;
	assert_int_equal(mpi_job_ctl(&b, 2)->pid, 12345);
	/* The name goes, the mappings stay. */
	assert_int_equal(mpi_boot_shm_unlink(name), 0);
	assert_int_not_equal(stat(path, &st), 0);
	mpi_job_ctl(&b, 3)->pid = 777;
	assert_int_equal(mpi_job_ctl(&a, 3)->pid, 777);
	assert_int_equal(mpi_boot_shm_open(&c, name, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open the job segment"));
	mpi_job_close(&a);
	mpi_job_close(&b);
}

/* A name that exists but is not a job segment is refused on opening. */
static void
test_open_foreign(void **state)
{
	(void)state;
	char name[128], err[256] = "";
	mpi_boot_shm_name(name, sizeof name, "unit-foreign", (long)getpid());
	char path[160];
	snprintf(path, sizeof path, "/dev/shm%s", name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	char zeros[8192] = {0};
	fwrite(zeros, 1, sizeof zeros, f);
	fclose(f);
	struct mpi_job j;
	assert_int_equal(mpi_boot_shm_open(&j, name, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a Grove MPI job segment"));
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_create_open_unlink),
		cmocka_unit_test(test_open_foreign),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
