/* Grove MPI: the MPI_Type_* entry points (and MPI_Get_address), thin
 * wrappers over datatype_build.c that check initialization, count the
 * call and report errors through the error handler.
 */
#include "mpi/datatype.h"

#include <limits.h>
#include <string.h>

/* Every entry point here has the same shape; these keep it one line. */
#define DT_BEGIN(name)                                    \
	int rc = mpi_check_initialized(MPI_FN_##name);    \
	if (rc)                                           \
		return rc;                                \
	MPI_ENTER(name);                                  \
	const char *why = ""
#define DT_END(name)                                                    \
	MPI_EXIT(name, -1, 0, 0);                                       \
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_##name, "%s", why) \
	          : MPI_SUCCESS

/* Queries accept any live type, committed or not. */
static int
live(MPI_Datatype dt, const void *out, const char **why)
{
	if (!dt)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
	if (dt->refs <= 0)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype was freed");
	if (!out)
		return mpi_dt_fail(why, MPI_ERR_ARG, "an output argument is NULL");
	return MPI_SUCCESS;
}

int
PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_contiguous);
	rc = mpi_dt_contiguous(count, oldtype, newtype, &why);
	DT_END(Type_contiguous);
}

int
PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                 MPI_Datatype *newtype)
{
	DT_BEGIN(Type_vector);
	rc = mpi_dt_vector(count, blocklength, stride, oldtype, newtype, &why);
	DT_END(Type_vector);
}

int
PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_hvector);
	rc = mpi_dt_hvector(count, blocklength, stride, oldtype, newtype, &why);
	DT_END(Type_create_hvector);
}

int
PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_hvector);
	rc = mpi_dt_hvector(count, blocklength, stride, oldtype, newtype, &why);
	DT_END(Type_hvector);
}

int
PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                  const int array_of_displacements[], MPI_Datatype oldtype,
                  MPI_Datatype *newtype)
{
	DT_BEGIN(Type_indexed);
	rc = mpi_dt_indexed(count, array_of_blocklengths, array_of_displacements,
	                    oldtype, newtype, &why);
	DT_END(Type_indexed);
}

int
PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                          const MPI_Aint array_of_displacements[],
                          MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_hindexed);
	rc = mpi_dt_hindexed(count, array_of_blocklengths, array_of_displacements,
	                     oldtype, newtype, &why);
	DT_END(Type_create_hindexed);
}

int
PMPI_Type_create_indexed_block(int count, int blocklength,
                               const int array_of_displacements[],
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_indexed_block);
	rc = mpi_dt_indexed_block(count, blocklength, array_of_displacements,
	                          oldtype, newtype, &why);
	DT_END(Type_create_indexed_block);
}

int
PMPI_Type_create_hindexed_block(int count, int blocklength,
                                const MPI_Aint array_of_displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_hindexed_block);
	rc = mpi_dt_hindexed_block(count, blocklength, array_of_displacements,
	                           oldtype, newtype, &why);
	DT_END(Type_create_hindexed_block);
}

int
PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                        const MPI_Aint array_of_displacements[],
                        const MPI_Datatype array_of_types[],
                        MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_struct);
	rc = mpi_dt_struct(count, array_of_blocklengths, array_of_displacements,
	                   array_of_types, newtype, &why);
	DT_END(Type_create_struct);
}

int
PMPI_Type_struct(int count, int array_of_blocklengths[],
                 MPI_Aint array_of_displacements[],
                 MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	DT_BEGIN(Type_struct);
	rc = mpi_dt_struct(count, array_of_blocklengths, array_of_displacements,
	                   array_of_types, newtype, &why);
	DT_END(Type_struct);
}

int
PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                          const int array_of_subsizes[],
                          const int array_of_starts[], int order,
                          MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_subarray);
	rc = mpi_dt_subarray(ndims, array_of_sizes, array_of_subsizes,
	                     array_of_starts, order, oldtype, newtype, &why);
	DT_END(Type_create_subarray);
}

int
PMPI_Type_create_darray(int size, int rank, int ndims,
                        const int array_of_gsizes[],
                        const int array_of_distribs[],
                        const int array_of_dargs[], const int array_of_psizes[],
                        int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_darray);
	rc = mpi_dt_fail(&why, MPI_ERR_UNSUPPORTED_OPERATION,
	                 "distributed-array datatypes are not supported by Grove "
	                 "MPI (build one with MPI_Type_create_subarray)");
	DT_END(Type_create_darray);
}

int
PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                         MPI_Datatype *newtype)
{
	DT_BEGIN(Type_create_resized);
	rc = mpi_dt_resized(oldtype, lb, extent, newtype, &why);
	DT_END(Type_create_resized);
}

int
PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	DT_BEGIN(Type_dup);
	rc = mpi_dt_dup(oldtype, newtype, &why);
	DT_END(Type_dup);
}

int
PMPI_Type_commit(MPI_Datatype *datatype)
{
	DT_BEGIN(Type_commit);
	rc = datatype ? mpi_dt_commit(*datatype, &why)
	              : mpi_dt_fail(&why, MPI_ERR_ARG, "datatype pointer is NULL");
	DT_END(Type_commit);
}

int
PMPI_Type_free(MPI_Datatype *datatype)
{
	DT_BEGIN(Type_free);
	rc = mpi_dt_free(datatype, &why);
	DT_END(Type_free);
}

int
PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	DT_BEGIN(Type_size);
	if (!(rc = live(datatype, size, &why)))
		*size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
	DT_END(Type_size);
}

int
PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	DT_BEGIN(Type_size_x);
	if (!(rc = live(datatype, size, &why)))
		*size = (MPI_Count)datatype->size;
	DT_END(Type_size_x);
}

int
PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	DT_BEGIN(Type_get_extent);
	if (!(rc = live(datatype, lb && extent ? lb : NULL, &why))) {
		*lb = datatype->lb;
		*extent = datatype->extent;
	}
	DT_END(Type_get_extent);
}

int
PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	DT_BEGIN(Type_get_extent_x);
	if (!(rc = live(datatype, lb && extent ? lb : NULL, &why))) {
		*lb = datatype->lb;
		*extent = datatype->extent;
	}
	DT_END(Type_get_extent_x);
}

int
PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                          MPI_Aint *true_extent)
{
	DT_BEGIN(Type_get_true_extent);
	if (!(rc = live(datatype, true_lb && true_extent ? true_lb : NULL, &why))) {
		*true_lb = datatype->true_lb;
		*true_extent = datatype->true_extent;
	}
	DT_END(Type_get_true_extent);
}

int
PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                            MPI_Count *true_extent)
{
	DT_BEGIN(Type_get_true_extent_x);
	if (!(rc = live(datatype, true_lb && true_extent ? true_lb : NULL, &why))) {
		*true_lb = datatype->true_lb;
		*true_extent = datatype->true_extent;
	}
	DT_END(Type_get_true_extent_x);
}

int
PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	DT_BEGIN(Type_extent);
	if (!(rc = live(datatype, extent, &why)))
		*extent = datatype->extent;
	DT_END(Type_extent);
}

int
PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
	DT_BEGIN(Type_lb);
	if (!(rc = live(datatype, displacement, &why)))
		*displacement = datatype->lb;
	DT_END(Type_lb);
}

int
PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
	DT_BEGIN(Type_ub);
	if (!(rc = live(datatype, displacement, &why)))
		*displacement = datatype->lb + datatype->extent;
	DT_END(Type_ub);
}

int
PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	DT_BEGIN(Type_get_name);
	if (!(rc = live(datatype, type_name && resultlen ? type_name : NULL, &why))) {
		size_t n = strlen(datatype->name);
		memcpy(type_name, datatype->name, n + 1);
		*resultlen = (int)n;
	}
	DT_END(Type_get_name);
}

int
PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	DT_BEGIN(Type_set_name);
	rc = mpi_dt_set_name(datatype, type_name, &why);
	DT_END(Type_set_name);
}

int
PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                       int *num_addresses, int *num_datatypes, int *combiner)
{
	DT_BEGIN(Type_get_envelope);
	bool outs = num_integers && num_addresses && num_datatypes && combiner;
	if (!(rc = live(datatype, outs ? combiner : NULL, &why)))
		mpi_dt_envelope(datatype, num_integers, num_addresses,
		                num_datatypes, combiner);
	DT_END(Type_get_envelope);
}

int
PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
                       int max_addresses, int max_datatypes,
                       int array_of_integers[], MPI_Aint array_of_addresses[],
                       MPI_Datatype array_of_datatypes[])
{
	DT_BEGIN(Type_get_contents);
	rc = mpi_dt_contents(datatype, max_integers, max_addresses, max_datatypes,
	                     array_of_integers, array_of_addresses,
	                     array_of_datatypes, &why);
	DT_END(Type_get_contents);
}

int
PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	DT_BEGIN(Type_match_size);
	MPI_Datatype t = MPI_DATATYPE_NULL;
	/* The C types of each class, in order; the first of the size wins. */
	MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
	MPI_Datatype ints[] = {MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG,
	                       MPI_LONG_LONG_INT};
	MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
	                       MPI_C_LONG_DOUBLE_COMPLEX};
	MPI_Datatype *list = NULL;
	size_t n = 0;
	switch (typeclass) {
	case MPI_TYPECLASS_REAL: list = reals; n = 3; break;
	case MPI_TYPECLASS_INTEGER: list = ints; n = 5; break;
	case MPI_TYPECLASS_COMPLEX: list = cplx; n = 3; break;
	}
	for (size_t i = 0; i < n && !t; i++)
		if ((int)list[i]->size == size)
			t = list[i];
	if (!datatype)
		rc = mpi_dt_fail(&why, MPI_ERR_ARG, "datatype is NULL");
	else if (!list)
		rc = mpi_dt_fail(&why, MPI_ERR_ARG, "typeclass %d is not "
		                 "MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
	else if (!t)
		rc = mpi_dt_fail(&why, MPI_ERR_ARG, "no type of that class has size %d",
		                 size);
	else
		*datatype = t;
	DT_END(Type_match_size);
}

/* Allowed before MPI_Init: it only converts a pointer. */
int
PMPI_Get_address(const void *location, MPI_Aint *address)
{
	MPI_ENTER(Get_address);
	int rc = MPI_SUCCESS;
	if (address)
		*address = (MPI_Aint)(uintptr_t)location;
	else
		rc = MPI_ERR_ARG;
	MPI_EXIT(Get_address, -1, 0, 0);
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_Get_address,
	                    "address is NULL")
	          : MPI_SUCCESS;
}

int
PMPI_Address(void *location, MPI_Aint *address)
{
	MPI_ENTER(Address);
	int rc = MPI_SUCCESS;
	if (address)
		*address = (MPI_Aint)(uintptr_t)location;
	else
		rc = MPI_ERR_ARG;
	MPI_EXIT(Address, -1, 0, 0);
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_Address, "address is NULL")
	          : MPI_SUCCESS;
}
