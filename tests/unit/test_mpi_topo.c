/* Grove MPI topologies, pure parts: MPI_Dims_create's balanced
 * factorization, with given entries, and its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mpi/mpi_impl.h"

static void
dims_ok(int nnodes, int ndims, const int *given, const int *want)
{
	int d[8];
	char why[MPI_WHY_LEN] = "";
	memcpy(d, given, (size_t)ndims * sizeof *d);
	int rc = mpi_dims_create(nnodes, ndims, d, why);
	if (rc)
		fail_msg("Dims_create(%d, %d): %d %s", nnodes, ndims, rc, why);
	for (int i = 0; i < ndims; i++)
		if (d[i] != want[i])
			fail_msg("Dims_create(%d, %d): dims[%d] = %d, want %d",
			         nnodes, ndims, i, d[i], want[i]);
}

static void
test_balanced(void **state)
{
	(void)state;
	dims_ok(6, 2, (int[]){0, 0}, (int[]){3, 2});
	dims_ok(12, 2, (int[]){0, 0}, (int[]){4, 3});
	dims_ok(16, 2, (int[]){0, 0}, (int[]){4, 4});
	dims_ok(7, 2, (int[]){0, 0}, (int[]){7, 1});
	dims_ok(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
	dims_ok(8, 3, (int[]){0, 0, 0}, (int[]){2, 2, 2});
	/* A greedy split of the primes gives 12 x 6 here. */
	dims_ok(72, 2, (int[]){0, 0}, (int[]){9, 8});
	dims_ok(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
	dims_ok(5, 1, (int[]){0}, (int[]){5});
	dims_ok(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
	dims_ok(1000000, 2, (int[]){0, 0}, (int[]){1000, 1000});
	dims_ok(2 * 3 * 5 * 7 * 11 * 13, 4, (int[]){0, 0, 0, 0},
	        (int[]){15, 14, 13, 11});
	/* Non-increasing, always. */
	int d[3] = {0, 0, 0};
	char why[MPI_WHY_LEN];
	assert_int_equal(mpi_dims_create(30, 3, d, why), MPI_SUCCESS);
	assert_true(d[0] >= d[1] && d[1] >= d[2]);
	assert_int_equal(d[0] * d[1] * d[2], 30);
}

static void
test_given_entries(void **state)
{
	(void)state;
	dims_ok(12, 2, (int[]){2, 0}, (int[]){2, 6});
	dims_ok(24, 3, (int[]){0, 3, 0}, (int[]){4, 3, 2});
	dims_ok(6, 2, (int[]){3, 2}, (int[]){3, 2});
	dims_ok(16, 3, (int[]){0, 1, 0}, (int[]){4, 1, 4});
}

static void
test_errors(void **state)
{
	(void)state;
	char why[MPI_WHY_LEN];
	int d[3];
	memcpy(d, (int[]){5, 0, 0}, sizeof d);
	assert_int_equal(mpi_dims_create(12, 3, d, why), MPI_ERR_DIMS);
	assert_non_null(strstr(why, "do not divide"));
	memcpy(d, (int[]){3, 3, 0}, sizeof d);
	assert_int_equal(mpi_dims_create(12, 3, d, why), MPI_ERR_DIMS);
	memcpy(d, (int[]){2, 3, 0}, sizeof d);
	assert_int_equal(mpi_dims_create(12, 3, d, why), MPI_SUCCESS);
	assert_int_equal(d[2], 2);
	memcpy(d, (int[]){2, 3, 3}, sizeof d);
	assert_int_equal(mpi_dims_create(12, 3, d, why), MPI_ERR_DIMS);
	memcpy(d, (int[]){-1, 0, 0}, sizeof d);
	assert_int_equal(mpi_dims_create(12, 3, d, why), MPI_ERR_DIMS);
	assert_int_equal(mpi_dims_create(0, 2, d, why), MPI_ERR_ARG);
	assert_int_equal(mpi_dims_create(4, -1, d, why), MPI_ERR_DIMS);
	/* No dimensions: fine for one node only. */
	assert_int_equal(mpi_dims_create(1, 0, NULL, why), MPI_SUCCESS);
	assert_int_equal(mpi_dims_create(2, 0, NULL, why), MPI_ERR_DIMS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced),
		cmocka_unit_test(test_given_entries),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
