/* Grove MPI datatypes: what datatype*.c share beyond mpi_impl.h.
 *
 * A derived datatype is one allocation: the public object first (so an
 * MPI_Datatype points at it), then what only this module needs: packed
 * offsets of the blocks (chunked pack finds its place by bisection), the
 * sticky bound markers, the alignment, the element runs (MPI_Get_elements)
 * and the constructor's arguments (MPI_Type_get_contents).
 *
 * The constructors below validate their arguments and return 0 or an
 * error class with the reason in *why (static storage, valid until the
 * next call), so the PMPI_ layer reports it and the unit tests call them
 * without MPI_Init.
 */
#ifndef GROVE_MPI_DATATYPE_H
#define GROVE_MPI_DATATYPE_H

#include "mpi/mpi_impl.h"

/* A run of n items of one type in typemap order: element counting only
 * needs the order of the types, not where they lie. */
struct mpi_dt_run {
	size_t n;
	MPI_Datatype type;
};

struct mpi_dt_ext {
	struct grove_mpi_datatype_s dt; /* first: the handle points here */
	size_t *offs;        /* packed offset of each block, nblocks + 1 */
	bool sticky_lb, sticky_ub; /* bounds set by MPI_LB/UB or resized */
	size_t align;        /* strictest alignment of its basic parts */
	MPI_Count nelems;    /* basic elements in one item */
	size_t nruns;
	struct mpi_dt_run *runs;
	/* MPI_Type_get_contents; the types are retained. */
	int ni, na, nd;
	int *ints;
	MPI_Aint *addrs;
	MPI_Datatype *types;
};

static inline struct mpi_dt_ext *
mpi_dt_ext(MPI_Datatype dt)
{
	return dt->predefined ? NULL : (struct mpi_dt_ext *)dt;
}

/* ---- datatype.c: facts about predefined types ---------------------- */

/* The predefined type of a basic kind (MPI_INT for MPI_B_INT), or NULL. */
MPI_Datatype mpi_dt_of_basic(enum mpi_basic b);
/* Alignment, basic elements per item, sticky markers of any type. */
size_t mpi_dt_align(MPI_Datatype dt);
MPI_Count mpi_dt_nelems(MPI_Datatype dt);
bool mpi_dt_sticky_lb(MPI_Datatype dt);
bool mpi_dt_sticky_ub(MPI_Datatype dt);
/* True for MPI_LB and MPI_UB (bound markers with no data). */
bool mpi_dt_is_marker(MPI_Datatype dt);
/* Size of the first member of a pair type (MPI_DOUBLE_INT: 8), 0 else. */
size_t mpi_dt_pair_first(enum mpi_basic b);

/* ---- datatype_build.c: constructors -------------------------------- */

int mpi_dt_contiguous(int count, MPI_Datatype old, MPI_Datatype *out,
                      const char **why);
int mpi_dt_vector(int count, int blocklen, int stride, MPI_Datatype old,
                  MPI_Datatype *out, const char **why);
int mpi_dt_hvector(int count, int blocklen, MPI_Aint stride,
                   MPI_Datatype old, MPI_Datatype *out, const char **why);
int mpi_dt_indexed(int count, const int *blocklens, const int *disps,
                   MPI_Datatype old, MPI_Datatype *out, const char **why);
int mpi_dt_hindexed(int count, const int *blocklens, const MPI_Aint *disps,
                    MPI_Datatype old, MPI_Datatype *out, const char **why);
int mpi_dt_indexed_block(int count, int blocklen, const int *disps,
                         MPI_Datatype old, MPI_Datatype *out,
                         const char **why);
int mpi_dt_hindexed_block(int count, int blocklen, const MPI_Aint *disps,
                          MPI_Datatype old, MPI_Datatype *out,
                          const char **why);
int mpi_dt_struct(int count, const int *blocklens, const MPI_Aint *disps,
                  const MPI_Datatype *types, MPI_Datatype *out,
                  const char **why);
int mpi_dt_subarray(int ndims, const int *sizes, const int *subsizes,
                    const int *starts, int order, MPI_Datatype old,
                    MPI_Datatype *out, const char **why);
int mpi_dt_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                   MPI_Datatype *out, const char **why);
int mpi_dt_dup(MPI_Datatype old, MPI_Datatype *out, const char **why);
int mpi_dt_commit(MPI_Datatype dt, const char **why);
/* MPI_Type_free: refuses predefined types; sets *dt to NULL. */
int mpi_dt_free(MPI_Datatype *dt, const char **why);
void mpi_dt_envelope(MPI_Datatype dt, int *ni, int *na, int *nd,
                     int *combiner);
int mpi_dt_contents(MPI_Datatype dt, int maxi, int maxa, int maxd,
                    int *ints, MPI_Aint *addrs, MPI_Datatype *types,
                    const char **why);
int mpi_dt_set_name(MPI_Datatype dt, const char *name, const char **why);

/* ---- datatype_pack.c: counting ------------------------------------- */

/* Basic elements in the first `bytes` bytes of a stream of dt items;
 * MPI_UNDEFINED when bytes ends inside an element. */
MPI_Count mpi_dt_elements(MPI_Datatype dt, MPI_Count bytes);
/* The bytes that hold the first `elements` basic elements of a stream of
 * dt items (the inverse, for MPI_Status_set_elements); -1 if it cannot. */
MPI_Count mpi_dt_elements_bytes(MPI_Datatype dt, MPI_Count elements);
/* Whole items of dt in bytes, MPI_UNDEFINED when it is not whole. */
MPI_Count mpi_dt_count(MPI_Datatype dt, MPI_Count bytes);

/* Formats *why into this module's message buffer; returns errclass. */
int mpi_dt_fail(const char **why, int errclass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
