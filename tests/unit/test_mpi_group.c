/* Grove MPI groups, pure parts: incl/excl (and their range forms), the set
 * operations with their order rules, compare and translate_ranks, without
 * MPI_Init. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mpi/mpi_impl.h"

static MPI_Group
group_of(int n, const int *world)
{
	MPI_Group g = mpi_group_new(n, world);
	assert_non_null(g);
	return g;
}

static void
assert_members(MPI_Group g, int n, const int *world)
{
	assert_int_equal(g->size, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(g->world[i], world[i]);
}

static void
test_new_and_my_rank(void **state)
{
	(void)state;
	mpi_proc.rank = 5;
	int w[] = {7, 5, 1};
	MPI_Group g = group_of(3, w);
	assert_int_equal(g->my_rank, 1);
	mpi_proc.rank = 2;
	MPI_Group h = group_of(3, w);
	assert_int_equal(h->my_rank, MPI_UNDEFINED);
	assert_ptr_equal(mpi_group_new(0, NULL), MPI_GROUP_EMPTY);
	mpi_group_release(g);
	mpi_group_release(h);
	mpi_proc.rank = 0;
}

static void
test_incl_excl(void **state)
{
	(void)state;
	char why[MPI_WHY_LEN];
	int w[] = {10, 11, 12, 13, 14, 15};
	MPI_Group g = group_of(6, w), o;
	int r[] = {4, 0, 2};
	assert_int_equal(mpi_group_incl(g, 3, r, &o, why), MPI_SUCCESS);
	assert_members(o, 3, (int[]){14, 10, 12});
	mpi_group_release(o);
	/* excl keeps the group's order. */
	assert_int_equal(mpi_group_excl(g, 3, r, &o, why), MPI_SUCCESS);
	assert_members(o, 3, (int[]){11, 13, 15});
	mpi_group_release(o);
	assert_int_equal(mpi_group_incl(g, 0, NULL, &o, why), MPI_SUCCESS);
	assert_ptr_equal(o, MPI_GROUP_EMPTY);
	/* Out of range and duplicates are errors. */
	assert_int_equal(mpi_group_incl(g, 1, (int[]){6}, &o, why), MPI_ERR_RANK);
	assert_non_null(strstr(why, "not in [0, 6)"));
	assert_int_equal(mpi_group_incl(g, 2, (int[]){1, 1}, &o, why),
	                 MPI_ERR_RANK);
	assert_int_equal(mpi_group_excl(g, 1, (int[]){-1}, &o, why),
	                 MPI_ERR_RANK);
	assert_int_equal(mpi_group_incl(g, 7, r, &o, why), MPI_ERR_ARG);
	mpi_group_release(g);
}

static void
test_ranges(void **state)
{
	(void)state;
	char why[MPI_WHY_LEN];
	int w[10];
	for (int i = 0; i < 10; i++)
		w[i] = 100 + i;
	MPI_Group g = group_of(10, w), o;
	int rg[][3] = {{0, 6, 3}, {9, 7, -1}};
	assert_int_equal(mpi_group_range_incl(g, 2, rg, &o, why), MPI_SUCCESS);
	assert_members(o, 6, (int[]){100, 103, 106, 109, 108, 107});
	mpi_group_release(o);
	assert_int_equal(mpi_group_range_excl(g, 2, rg, &o, why), MPI_SUCCESS);
	assert_members(o, 4, (int[]){101, 102, 104, 105});
	mpi_group_release(o);
	int bad[][3] = {{0, 10, 1}};
	assert_int_equal(mpi_group_range_incl(g, 1, bad, &o, why), MPI_ERR_RANK);
	int zero[][3] = {{0, 3, 0}};
	assert_int_equal(mpi_group_range_incl(g, 1, zero, &o, why), MPI_ERR_ARG);
	int overlap[][3] = {{0, 3, 1}, {3, 4, 1}};
	assert_int_equal(mpi_group_range_incl(g, 2, overlap, &o, why),
	                 MPI_ERR_RANK);
	mpi_group_release(g);
}

static void
test_set_operations(void **state)
{
	(void)state;
	MPI_Group a = group_of(4, (int[]){3, 1, 4, 5});
	MPI_Group b = group_of(4, (int[]){9, 5, 2, 3});
	MPI_Group o;
	/* Union: a's order, then b's members not in a, in b's order. */
	assert_int_equal(mpi_group_union(a, b, &o), MPI_SUCCESS);
	assert_members(o, 6, (int[]){3, 1, 4, 5, 9, 2});
	mpi_group_release(o);
	/* Intersection and difference: in a's order. */
	assert_int_equal(mpi_group_intersection(a, b, &o), MPI_SUCCESS);
	assert_members(o, 2, (int[]){3, 5});
	mpi_group_release(o);
	assert_int_equal(mpi_group_difference(a, b, &o), MPI_SUCCESS);
	assert_members(o, 2, (int[]){1, 4});
	mpi_group_release(o);
	assert_int_equal(mpi_group_difference(a, a, &o), MPI_SUCCESS);
	assert_ptr_equal(o, MPI_GROUP_EMPTY);
	assert_int_equal(mpi_group_union(MPI_GROUP_EMPTY, b, &o), MPI_SUCCESS);
	assert_members(o, 4, (int[]){9, 5, 2, 3});
	mpi_group_release(o);
	assert_int_equal(mpi_group_intersection(a, MPI_GROUP_EMPTY, &o),
	                 MPI_SUCCESS);
	assert_ptr_equal(o, MPI_GROUP_EMPTY);
	mpi_group_release(a);
	mpi_group_release(b);
}

static void
test_compare(void **state)
{
	(void)state;
	MPI_Group a = group_of(3, (int[]){0, 1, 2});
	MPI_Group b = group_of(3, (int[]){0, 1, 2});
	MPI_Group c = group_of(3, (int[]){2, 0, 1});
	MPI_Group d = group_of(3, (int[]){2, 0, 3});
	MPI_Group e = group_of(2, (int[]){0, 1});
	assert_int_equal(mpi_group_compare(a, a), MPI_IDENT);
	assert_int_equal(mpi_group_compare(a, b), MPI_IDENT);
	assert_int_equal(mpi_group_compare(a, c), MPI_SIMILAR);
	assert_int_equal(mpi_group_compare(a, d), MPI_UNEQUAL);
	assert_int_equal(mpi_group_compare(a, e), MPI_UNEQUAL);
	assert_int_equal(mpi_group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY),
	                 MPI_IDENT);
	MPI_Group g[] = {a, b, c, d, e};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		mpi_group_release(g[i]);
}

static void
test_translate(void **state)
{
	(void)state;
	char why[MPI_WHY_LEN];
	MPI_Group a = group_of(4, (int[]){8, 6, 4, 2});
	MPI_Group b = group_of(3, (int[]){2, 9, 8});
	int r1[] = {0, 1, 3, MPI_PROC_NULL}, r2[4];
	assert_int_equal(mpi_group_translate(a, 4, r1, b, r2, why), MPI_SUCCESS);
	assert_int_equal(r2[0], 2);
	assert_int_equal(r2[1], MPI_UNDEFINED);
	assert_int_equal(r2[2], 0);
	assert_int_equal(r2[3], MPI_PROC_NULL);
	int bad[] = {4};
	assert_int_equal(mpi_group_translate(a, 1, bad, b, r2, why),
	                 MPI_ERR_RANK);
	assert_int_equal(mpi_group_translate(a, 0, NULL, b, NULL, why),
	                 MPI_SUCCESS);
	/* Into the empty group: nobody is there. */
	assert_int_equal(mpi_group_translate(a, 1, r1, MPI_GROUP_EMPTY, r2, why),
	                 MPI_SUCCESS);
	assert_int_equal(r2[0], MPI_UNDEFINED);
	mpi_group_release(a);
	mpi_group_release(b);
}

static void
test_refs(void **state)
{
	(void)state;
	MPI_Group a = group_of(2, (int[]){0, 1});
	mpi_group_retain(a);
	assert_int_equal(a->refs, 2);
	mpi_group_release(a);
	assert_int_equal(a->refs, 1);
	mpi_group_release(a);
	/* The predefined group is never freed. */
	mpi_group_release(MPI_GROUP_EMPTY);
	mpi_group_retain(MPI_GROUP_EMPTY);
	assert_int_equal(MPI_GROUP_EMPTY->size, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_my_rank),
		cmocka_unit_test(test_incl_excl),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_set_operations),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_translate),
		cmocka_unit_test(test_refs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
