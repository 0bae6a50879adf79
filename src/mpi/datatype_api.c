/* Grove MPI: MPI_Pack/Unpack/Pack_size and the status queries that read
 * a received byte count through a datatype (Get_count, Get_elements,
 * Status_set_elements).  status->grove_count_ holds the bytes received.
 *
 * The packed format is the data of the type's blocks, in typemap order,
 * in this machine's representation (Grove MPI ranks share one
 * architecture), so MPI_Pack_size is exactly incount * size.
 */
#include "mpi/datatype.h"

#include <limits.h>

#define DT_BEGIN(name)                                    \
	int rc = mpi_check_initialized(MPI_FN_##name);    \
	if (rc)                                           \
		return rc;                                \
	MPI_ENTER(name);                                  \
	const char *why = ""
#define DT_END(name, bytes)                                             \
	MPI_EXIT(name, -1, 0, (bytes));                                 \
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_##name, "%s", why) \
	          : MPI_SUCCESS

static int
check_comm(MPI_Comm comm, const char **why)
{
	if (mpi_comm_check(comm))
		return mpi_dt_fail(why, MPI_ERR_COMM, "%s",
		                   comm == MPI_COMM_NULL ? "MPI_COMM_NULL"
		                                         : "not a valid communicator");
	return MPI_SUCCESS;
}

/* The checks Pack and Unpack share; *bytes gets count * size. */
static int
check_pack(int count, MPI_Datatype dt, int bufsize, const int *position,
           MPI_Comm comm, size_t *bytes, const char **why)
{
	int rc;
	if (count < 0)
		return mpi_dt_fail(why, MPI_ERR_COUNT, "count %d is negative", count);
	if ((rc = mpi_dt_check(dt, why)) || (rc = check_comm(comm, why)))
		return rc;
	if (!position)
		return mpi_dt_fail(why, MPI_ERR_ARG, "position is NULL");
	if (*position < 0 || bufsize < 0)
		return mpi_dt_fail(why, MPI_ERR_ARG,
		                   "position %d or buffer size %d is negative",
		                   *position, bufsize);
	*bytes = (size_t)count * dt->size;
	if (*position > bufsize || *bytes > (size_t)(bufsize - *position))
		return mpi_dt_fail(why, MPI_ERR_TRUNCATE,
		                   "%zu bytes at position %d do not fit in a buffer "
		                   "of %d bytes", *bytes, *position, bufsize);
	return MPI_SUCCESS;
}

int
PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
          int outsize, int *position, MPI_Comm comm)
{
	DT_BEGIN(Pack);
	size_t bytes = 0;
	rc = check_pack(incount, datatype, outsize, position, comm, &bytes, &why);
	if (!rc && bytes) {
		mpi_dt_pack(datatype, inbuf, (size_t)incount,
		            (char *)outbuf + *position, 0, bytes);
		*position += (int)bytes;
	}
	DT_END(Pack, bytes);
}

int
PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
            int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	DT_BEGIN(Unpack);
	size_t bytes = 0;
	rc = check_pack(outcount, datatype, insize, position, comm, &bytes, &why);
	if (!rc && bytes) {
		mpi_dt_unpack(datatype, outbuf, (size_t)outcount,
		              (const char *)inbuf + *position, 0, bytes);
		*position += (int)bytes;
	}
	DT_END(Unpack, bytes);
}

int
PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
	DT_BEGIN(Pack_size);
	if (incount < 0) {
		rc = mpi_dt_fail(&why, MPI_ERR_COUNT, "incount %d is negative", incount);
	} else if (!(rc = mpi_dt_check(datatype, &why)) &&
	           !(rc = check_comm(comm, &why))) {
		size_t bytes = (size_t)incount * datatype->size;
		if (!size)
			rc = mpi_dt_fail(&why, MPI_ERR_ARG, "size is NULL");
		else if (bytes > INT_MAX)
			rc = mpi_dt_fail(&why, MPI_ERR_ARG,
			                 "%zu bytes do not fit in an int", bytes);
		else
			*size = (int)bytes;
	}
	DT_END(Pack_size, 0);
}

/* Get_count and friends take any live type: committing is for
 * communication, and a status is only read here. */
static int
check_status(const MPI_Status *status, MPI_Datatype dt, const void *out,
             const char **why)
{
	if (!status)
		return mpi_dt_fail(why, MPI_ERR_ARG,
		                   "status is NULL (MPI_STATUS_IGNORE has no count)");
	if (!dt)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
	if (dt->refs <= 0)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype was freed");
	if (!out)
		return mpi_dt_fail(why, MPI_ERR_ARG, "count is NULL");
	return MPI_SUCCESS;
}

static int
to_int(MPI_Count c)
{
	return c > INT_MAX ? MPI_UNDEFINED : (int)c;
}

int
PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	DT_BEGIN(Get_count);
	if (!(rc = check_status(status, datatype, count, &why)))
		*count = to_int(mpi_dt_count(datatype, status->grove_count_));
	DT_END(Get_count, 0);
}

int
PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	DT_BEGIN(Get_elements);
	if (!(rc = check_status(status, datatype, count, &why)))
		*count = to_int(mpi_dt_elements(datatype, status->grove_count_));
	DT_END(Get_elements, 0);
}

int
PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                    MPI_Count *count)
{
	DT_BEGIN(Get_elements_x);
	if (!(rc = check_status(status, datatype, count, &why)))
		*count = mpi_dt_elements(datatype, status->grove_count_);
	DT_END(Get_elements_x, 0);
}

static int
set_elements(MPI_Status *status, MPI_Datatype dt, MPI_Count count,
             const char **why)
{
	int rc = check_status(status, dt, status, why);
	if (rc)
		return rc;
	if (count < 0)
		return mpi_dt_fail(why, MPI_ERR_COUNT, "count %lld is negative",
		                   (long long)count);
	MPI_Count bytes = mpi_dt_elements_bytes(dt, count);
	if (bytes < 0)
		return mpi_dt_fail(why, MPI_ERR_ARG,
		                   "%s cannot hold %lld basic elements", dt->name[0] ?
		                   dt->name : "the datatype", (long long)count);
	status->grove_count_ = bytes;
	return MPI_SUCCESS;
}

int
PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
	DT_BEGIN(Status_set_elements);
	rc = set_elements(status, datatype, count, &why);
	DT_END(Status_set_elements, 0);
}

int
PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                           MPI_Count count)
{
	DT_BEGIN(Status_set_elements_x);
	rc = set_elements(status, datatype, count, &why);
	DT_END(Status_set_elements_x, 0);
}
