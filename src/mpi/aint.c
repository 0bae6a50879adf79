/* MPI_Aint_add and MPI_Aint_diff (MPI 3.1): address arithmetic that is
 * plain integer arithmetic on Grove's platforms, where an MPI_Aint is the
 * address itself (MPI_Get_address). */
#include "mpi/mpi_impl.h"

MPI_Aint
PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint
PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
