/* Grove MPI reduction operators: what op*.c share beyond mpi_impl.h. */
#ifndef GROVE_MPI_OP_H
#define GROVE_MPI_OP_H

#include "mpi/datatype.h"

/* Index of a predefined operator (grove_mpi_op_s.which), in
 * GROVE_MPI_OPS_ order. */
enum mpi_op_index {
#define MPI_OPI_ENUM_(n) MPI_OPI_##n,
	GROVE_MPI_OPS_(MPI_OPI_ENUM_)
#undef MPI_OPI_ENUM_
	MPI_OPI_COUNT_
};

/* User operators are reference counted so that a non-blocking reduction
 * keeps its operator alive after MPI_Op_free; predefined ones are
 * untouched. */
void mpi_op_retain(MPI_Op op);
/* The predefined operator of index which (enum mpi_op_index), or NULL
 * when there is none (BCS mode: descriptors carry the index). */
MPI_Op mpi_op_of_index(int which);
void mpi_op_release(MPI_Op op);

#endif
