/* Grove MPI: functions declared in mpi.h so that programs compile and
 * link, but not supported (docs/mpi.md says why): one-sided
 * communication, dynamic processes, MPI-IO.  Each reports
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler of its
 * communicator argument, or of MPI_COMM_WORLD when it has none. */
#include "mpi/mpi_impl.h"

#define UNSUPPORTED(Name, comm)                                            \
	int rc = mpi_check_initialized(MPI_FN_##Name);                      \
	if (rc)                                                             \
		return rc;                                                  \
	MPI_ENTER(Name);                                                    \
	rc = mpi_err(comm, MPI_ERR_UNSUPPORTED_OPERATION, MPI_FN_##Name,    \
	             "MPI_" #Name " is not supported by Grove MPI (see "    \
	             "docs/mpi.md)");                                       \
	MPI_EXIT(Name, -1, 0, 0);                                           \
	return rc

int
PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                MPI_Comm comm, MPI_Win *win)
{
	UNSUPPORTED(Win_create, comm);
}

int
PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                  void *baseptr, MPI_Win *win)
{
	UNSUPPORTED(Win_allocate, comm);
}

int
PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                         MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	UNSUPPORTED(Win_allocate_shared, comm);
}

int
PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                      void *baseptr)
{
	UNSUPPORTED(Win_shared_query, MPI_COMM_NULL);
}

int
PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	UNSUPPORTED(Win_create_dynamic, comm);
}

int
PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	UNSUPPORTED(Win_attach, MPI_COMM_NULL);
}

int
PMPI_Win_detach(MPI_Win win, const void *base)
{
	UNSUPPORTED(Win_detach, MPI_COMM_NULL);
}

int
PMPI_Win_free(MPI_Win *win)
{
	UNSUPPORTED(Win_free, MPI_COMM_NULL);
}

int
PMPI_Win_fence(int assert, MPI_Win win)
{
	UNSUPPORTED(Win_fence, MPI_COMM_NULL);
}

int
PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	UNSUPPORTED(Win_lock, MPI_COMM_NULL);
}

int
PMPI_Win_unlock(int rank, MPI_Win win)
{
	UNSUPPORTED(Win_unlock, MPI_COMM_NULL);
}

int
PMPI_Win_lock_all(int assert, MPI_Win win)
{
	UNSUPPORTED(Win_lock_all, MPI_COMM_NULL);
}

int
PMPI_Win_unlock_all(MPI_Win win)
{
	UNSUPPORTED(Win_unlock_all, MPI_COMM_NULL);
}

int
PMPI_Win_flush(int rank, MPI_Win win)
{
	UNSUPPORTED(Win_flush, MPI_COMM_NULL);
}

int
PMPI_Win_flush_all(MPI_Win win)
{
	UNSUPPORTED(Win_flush_all, MPI_COMM_NULL);
}

int
PMPI_Win_flush_local(int rank, MPI_Win win)
{
	UNSUPPORTED(Win_flush_local, MPI_COMM_NULL);
}

int
PMPI_Win_flush_local_all(MPI_Win win)
{
	UNSUPPORTED(Win_flush_local_all, MPI_COMM_NULL);
}

int
PMPI_Win_sync(MPI_Win win)
{
	UNSUPPORTED(Win_sync, MPI_COMM_NULL);
}

int
PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	UNSUPPORTED(Win_post, MPI_COMM_NULL);
}

int
PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	UNSUPPORTED(Win_start, MPI_COMM_NULL);
}

int
PMPI_Win_complete(MPI_Win win)
{
	UNSUPPORTED(Win_complete, MPI_COMM_NULL);
}

int
PMPI_Win_wait(MPI_Win win)
{
	UNSUPPORTED(Win_wait, MPI_COMM_NULL);
}

int
PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	UNSUPPORTED(Win_get_group, MPI_COMM_NULL);
}

int
PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
	UNSUPPORTED(Win_get_attr, MPI_COMM_NULL);
}

int
PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
	UNSUPPORTED(Win_set_errhandler, MPI_COMM_NULL);
}

int
PMPI_Put(const void *origin_addr, int origin_count,
         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
         int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	UNSUPPORTED(Put, MPI_COMM_NULL);
}

int
PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
         int target_rank, MPI_Aint target_disp, int target_count,
         MPI_Datatype target_datatype, MPI_Win win)
{
	UNSUPPORTED(Get, MPI_COMM_NULL);
}

int
PMPI_Accumulate(const void *origin_addr, int origin_count,
                MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	UNSUPPORTED(Accumulate, MPI_COMM_NULL);
}

int
PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                    MPI_Datatype origin_datatype, void *result_addr,
                    int result_count, MPI_Datatype result_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	UNSUPPORTED(Get_accumulate, MPI_COMM_NULL);
}

int
PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                  MPI_Datatype datatype, int target_rank,
                  MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	UNSUPPORTED(Fetch_and_op, MPI_COMM_NULL);
}

int
PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                      void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	UNSUPPORTED(Compare_and_swap, MPI_COMM_NULL);
}

int
PMPI_Rput(const void *origin_addr, int origin_count,
          MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
          int target_count, MPI_Datatype target_datatype, MPI_Win win,
          MPI_Request *request)
{
	UNSUPPORTED(Rput, MPI_COMM_NULL);
}

int
PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
          int target_rank, MPI_Aint target_disp, int target_count,
          MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	UNSUPPORTED(Rget, MPI_COMM_NULL);
}

int
PMPI_Raccumulate(const void *origin_addr, int origin_count,
                 MPI_Datatype origin_datatype, int target_rank,
                 MPI_Aint target_disp, int target_count,
                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                 MPI_Request *request)
{
	UNSUPPORTED(Raccumulate, MPI_COMM_NULL);
}

int
PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
                MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
                int array_of_errcodes[])
{
	UNSUPPORTED(Comm_spawn, comm);
}

int
PMPI_Comm_spawn_multiple(int count, char *array_of_commands[],
                         char **array_of_argv[],
                         const int array_of_maxprocs[],
                         const MPI_Info array_of_info[], int root,
                         MPI_Comm comm, MPI_Comm *intercomm,
                         int array_of_errcodes[])
{
	UNSUPPORTED(Comm_spawn_multiple, comm);
}

int
PMPI_Comm_get_parent(MPI_Comm *parent)
{
	UNSUPPORTED(Comm_get_parent, MPI_COMM_NULL);
}

int
PMPI_Comm_accept(const char *port_name, MPI_Info info, int root,
                 MPI_Comm comm, MPI_Comm *newcomm)
{
	UNSUPPORTED(Comm_accept, comm);
}

int
PMPI_Comm_connect(const char *port_name, MPI_Info info, int root,
                  MPI_Comm comm, MPI_Comm *newcomm)
{
	UNSUPPORTED(Comm_connect, comm);
}

int
PMPI_Open_port(MPI_Info info, char *port_name)
{
	UNSUPPORTED(Open_port, MPI_COMM_NULL);
}

int
PMPI_Close_port(const char *port_name)
{
	UNSUPPORTED(Close_port, MPI_COMM_NULL);
}

int
PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
               MPI_File *fh)
{
	UNSUPPORTED(File_open, comm);
}

int
PMPI_File_close(MPI_File *fh)
{
	UNSUPPORTED(File_close, MPI_COMM_NULL);
}

int
PMPI_File_delete(const char *filename, MPI_Info info)
{
	UNSUPPORTED(File_delete, MPI_COMM_NULL);
}

int
PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                   MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
	UNSUPPORTED(File_set_view, MPI_COMM_NULL);
}

int
PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
               MPI_Status *status)
{
	UNSUPPORTED(File_read, MPI_COMM_NULL);
}

int
PMPI_File_write(MPI_File fh, const void *buf, int count,
                MPI_Datatype datatype, MPI_Status *status)
{
	UNSUPPORTED(File_write, MPI_COMM_NULL);
}

int
PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                  MPI_Datatype datatype, MPI_Status *status)
{
	UNSUPPORTED(File_read_at, MPI_COMM_NULL);
}

int
PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                   MPI_Datatype datatype, MPI_Status *status)
{
	UNSUPPORTED(File_write_at, MPI_COMM_NULL);
}

int
PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status)
{
	UNSUPPORTED(File_read_all, MPI_COMM_NULL);
}

int
PMPI_File_write_all(MPI_File fh, const void *buf, int count,
                    MPI_Datatype datatype, MPI_Status *status)
{
	UNSUPPORTED(File_write_all, MPI_COMM_NULL);
}

int
PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status)
{
	UNSUPPORTED(File_read_at_all, MPI_COMM_NULL);
}

int
PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                       int count, MPI_Datatype datatype, MPI_Status *status)
{
	UNSUPPORTED(File_write_at_all, MPI_COMM_NULL);
}

int
PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
	UNSUPPORTED(File_get_size, MPI_COMM_NULL);
}

int
PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
	UNSUPPORTED(File_set_size, MPI_COMM_NULL);
}

int
PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
	UNSUPPORTED(File_seek, MPI_COMM_NULL);
}

int
PMPI_File_sync(MPI_File fh)
{
	UNSUPPORTED(File_sync, MPI_COMM_NULL);
}

int
PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
	UNSUPPORTED(File_set_errhandler, MPI_COMM_NULL);
}

int
PMPI_Register_datarep(const char *datarep,
                      MPI_Datarep_conversion_function *read_conversion_fn,
                      MPI_Datarep_conversion_function *write_conversion_fn,
                      MPI_Datarep_extent_function *dtype_file_extent_fn,
                      void *extra_state)
{
	UNSUPPORTED(Register_datarep, MPI_COMM_NULL);
}
