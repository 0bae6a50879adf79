/* Grove MPI: the C interface of the MPI 3.1 standard (MPI_VERSION 3,
 * MPI_SUBVERSION 1), as implemented by libgrove-mpi.
 *
 * Handles are pointers to opaque objects, comparable with ==; the
 * predefined ones (MPI_COMM_WORLD, MPI_INT, MPI_SUM, ...) are addresses of
 * objects inside the library, so they are constant for the life of a
 * process but are not integer constant expressions (as in Open MPI).
 *
 * Every function exists twice: MPI_Xxx and PMPI_Xxx (the profiling
 * interface).  MPI_Xxx is a weak alias of PMPI_Xxx, so a tool may define
 * its own MPI_Xxx and call PMPI_Xxx.  docs/mpi.md lists what is
 * supported; a function declared here but not supported returns
 * MPI_ERR_UNSUPPORTED_OPERATION through the communicator's error handler,
 * with a message naming it.
 */
#ifndef GROVE_MPI_H
#define GROVE_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define GROVE_MPI 1

/* ---- types ----------------------------------------------------------- */

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct grove_mpi_comm_s *MPI_Comm;
typedef struct grove_mpi_datatype_s *MPI_Datatype;
typedef struct grove_mpi_op_s *MPI_Op;
typedef struct grove_mpi_group_s *MPI_Group;
typedef struct grove_mpi_request_s *MPI_Request;
typedef struct grove_mpi_errhandler_s *MPI_Errhandler;
typedef struct grove_mpi_info_s *MPI_Info;
typedef struct grove_mpi_win_s *MPI_Win;
typedef struct grove_mpi_file_s *MPI_File;
typedef struct grove_mpi_message_s *MPI_Message;

typedef struct MPI_Status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	int grove_cancelled_; /* not API: MPI_Test_cancelled */
	MPI_Count grove_count_; /* not API: bytes received; MPI_Get_count */
} MPI_Status;

typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef void MPI_File_errhandler_function(MPI_File *, int *, ...);
typedef int MPI_Comm_copy_attr_function(MPI_Comm, int, void *, void *,
                                        void *, int *);
typedef int MPI_Comm_delete_attr_function(MPI_Comm, int, void *, void *);
typedef int MPI_Type_copy_attr_function(MPI_Datatype, int, void *, void *,
                                        void *, int *);
typedef int MPI_Type_delete_attr_function(MPI_Datatype, int, void *, void *);
typedef int MPI_Win_copy_attr_function(MPI_Win, int, void *, void *, void *,
                                       int *);
typedef int MPI_Win_delete_attr_function(MPI_Win, int, void *, void *);
typedef int MPI_Grequest_query_function(void *, MPI_Status *);
typedef int MPI_Grequest_free_function(void *);
typedef int MPI_Grequest_cancel_function(void *, int);
typedef int MPI_Datarep_conversion_function(void *, MPI_Datatype, int,
                                            void *, MPI_Offset, void *);
typedef int MPI_Datarep_extent_function(MPI_Datatype, MPI_Aint *, void *);
/* MPI-1 names, still used by old programs. */
typedef int MPI_Copy_function(MPI_Comm, int, void *, void *, void *, int *);
typedef int MPI_Delete_function(MPI_Comm, int, void *, void *);

/* ---- predefined objects (not API: use the MPI_ names) ---------------- */

#define GROVE_MPI_PREDEF_(type, obj) ((type)&(obj))

extern struct grove_mpi_comm_s grove_mpi_comm_world_, grove_mpi_comm_self_,
	grove_mpi_comm_null_;
#define MPI_COMM_WORLD GROVE_MPI_PREDEF_(MPI_Comm, grove_mpi_comm_world_)
#define MPI_COMM_SELF GROVE_MPI_PREDEF_(MPI_Comm, grove_mpi_comm_self_)
#define MPI_COMM_NULL ((MPI_Comm)0)

extern struct grove_mpi_group_s grove_mpi_group_empty_;
#define MPI_GROUP_EMPTY GROVE_MPI_PREDEF_(MPI_Group, grove_mpi_group_empty_)
#define MPI_GROUP_NULL ((MPI_Group)0)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_INFO_NULL ((MPI_Info)0)
extern struct grove_mpi_info_s grove_mpi_info_env_;
#define MPI_INFO_ENV GROVE_MPI_PREDEF_(MPI_Info, grove_mpi_info_env_)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
extern struct grove_mpi_message_s grove_mpi_message_no_proc_;
#define MPI_MESSAGE_NO_PROC \
	GROVE_MPI_PREDEF_(MPI_Message, grove_mpi_message_no_proc_)

extern struct grove_mpi_errhandler_s grove_mpi_errors_are_fatal_,
	grove_mpi_errors_return_;
#define MPI_ERRORS_ARE_FATAL \
	GROVE_MPI_PREDEF_(MPI_Errhandler, grove_mpi_errors_are_fatal_)
#define MPI_ERRORS_RETURN \
	GROVE_MPI_PREDEF_(MPI_Errhandler, grove_mpi_errors_return_)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)

/* Datatypes: one object each.  The list (name, C type) is also used by
 * the library to define them. */
#define GROVE_MPI_DATATYPES_(X)                                            \
	X(CHAR) X(SIGNED_CHAR) X(UNSIGNED_CHAR) X(BYTE) X(WCHAR) X(SHORT)   \
	X(UNSIGNED_SHORT) X(INT) X(UNSIGNED) X(LONG) X(UNSIGNED_LONG)       \
	X(LONG_LONG_INT) X(UNSIGNED_LONG_LONG) X(FLOAT) X(DOUBLE)           \
	X(LONG_DOUBLE) X(C_BOOL) X(INT8_T) X(INT16_T) X(INT32_T) X(INT64_T) \
	X(UINT8_T) X(UINT16_T) X(UINT32_T) X(UINT64_T) X(AINT) X(OFFSET)    \
	X(COUNT) X(PACKED) X(C_FLOAT_COMPLEX) X(C_DOUBLE_COMPLEX)           \
	X(C_LONG_DOUBLE_COMPLEX) X(FLOAT_INT) X(DOUBLE_INT) X(LONG_INT)     \
	X(2INT) X(SHORT_INT) X(LONG_DOUBLE_INT) X(UB) X(LB)

#define GROVE_MPI_DECLARE_DT_(n) \
	extern struct grove_mpi_datatype_s grove_mpi_dt_##n##_;
GROVE_MPI_DATATYPES_(GROVE_MPI_DECLARE_DT_)
#undef GROVE_MPI_DECLARE_DT_

#define GROVE_MPI_DT_(n) GROVE_MPI_PREDEF_(MPI_Datatype, grove_mpi_dt_##n##_)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR GROVE_MPI_DT_(CHAR)
#define MPI_SIGNED_CHAR GROVE_MPI_DT_(SIGNED_CHAR)
#define MPI_UNSIGNED_CHAR GROVE_MPI_DT_(UNSIGNED_CHAR)
#define MPI_BYTE GROVE_MPI_DT_(BYTE)
#define MPI_WCHAR GROVE_MPI_DT_(WCHAR)
#define MPI_SHORT GROVE_MPI_DT_(SHORT)
#define MPI_UNSIGNED_SHORT GROVE_MPI_DT_(UNSIGNED_SHORT)
#define MPI_INT GROVE_MPI_DT_(INT)
#define MPI_UNSIGNED GROVE_MPI_DT_(UNSIGNED)
#define MPI_LONG GROVE_MPI_DT_(LONG)
#define MPI_UNSIGNED_LONG GROVE_MPI_DT_(UNSIGNED_LONG)
#define MPI_LONG_LONG_INT GROVE_MPI_DT_(LONG_LONG_INT)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG GROVE_MPI_DT_(UNSIGNED_LONG_LONG)
#define MPI_FLOAT GROVE_MPI_DT_(FLOAT)
#define MPI_DOUBLE GROVE_MPI_DT_(DOUBLE)
#define MPI_LONG_DOUBLE GROVE_MPI_DT_(LONG_DOUBLE)
#define MPI_C_BOOL GROVE_MPI_DT_(C_BOOL)
#define MPI_INT8_T GROVE_MPI_DT_(INT8_T)
#define MPI_INT16_T GROVE_MPI_DT_(INT16_T)
#define MPI_INT32_T GROVE_MPI_DT_(INT32_T)
#define MPI_INT64_T GROVE_MPI_DT_(INT64_T)
#define MPI_UINT8_T GROVE_MPI_DT_(UINT8_T)
#define MPI_UINT16_T GROVE_MPI_DT_(UINT16_T)
#define MPI_UINT32_T GROVE_MPI_DT_(UINT32_T)
#define MPI_UINT64_T GROVE_MPI_DT_(UINT64_T)
#define MPI_AINT GROVE_MPI_DT_(AINT)
#define MPI_OFFSET GROVE_MPI_DT_(OFFSET)
#define MPI_COUNT GROVE_MPI_DT_(COUNT)
#define MPI_PACKED GROVE_MPI_DT_(PACKED)
#define MPI_C_COMPLEX GROVE_MPI_DT_(C_FLOAT_COMPLEX)
#define MPI_C_FLOAT_COMPLEX GROVE_MPI_DT_(C_FLOAT_COMPLEX)
#define MPI_C_DOUBLE_COMPLEX GROVE_MPI_DT_(C_DOUBLE_COMPLEX)
#define MPI_C_LONG_DOUBLE_COMPLEX GROVE_MPI_DT_(C_LONG_DOUBLE_COMPLEX)
#define MPI_FLOAT_INT GROVE_MPI_DT_(FLOAT_INT)
#define MPI_DOUBLE_INT GROVE_MPI_DT_(DOUBLE_INT)
#define MPI_LONG_INT GROVE_MPI_DT_(LONG_INT)
#define MPI_2INT GROVE_MPI_DT_(2INT)
#define MPI_SHORT_INT GROVE_MPI_DT_(SHORT_INT)
#define MPI_LONG_DOUBLE_INT GROVE_MPI_DT_(LONG_DOUBLE_INT)
#define MPI_UB GROVE_MPI_DT_(UB)
#define MPI_LB GROVE_MPI_DT_(LB)

#define GROVE_MPI_OPS_(X)                                                  \
	X(MAX) X(MIN) X(SUM) X(PROD) X(LAND) X(BAND) X(LOR) X(BOR) X(LXOR)  \
	X(BXOR) X(MINLOC) X(MAXLOC) X(REPLACE) X(NO_OP)
#define GROVE_MPI_DECLARE_OP_(n) extern struct grove_mpi_op_s grove_mpi_op_##n##_;
GROVE_MPI_OPS_(GROVE_MPI_DECLARE_OP_)
#undef GROVE_MPI_DECLARE_OP_
#define GROVE_MPI_OP_(n) GROVE_MPI_PREDEF_(MPI_Op, grove_mpi_op_##n##_)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX GROVE_MPI_OP_(MAX)
#define MPI_MIN GROVE_MPI_OP_(MIN)
#define MPI_SUM GROVE_MPI_OP_(SUM)
#define MPI_PROD GROVE_MPI_OP_(PROD)
#define MPI_LAND GROVE_MPI_OP_(LAND)
#define MPI_BAND GROVE_MPI_OP_(BAND)
#define MPI_LOR GROVE_MPI_OP_(LOR)
#define MPI_BOR GROVE_MPI_OP_(BOR)
#define MPI_LXOR GROVE_MPI_OP_(LXOR)
#define MPI_BXOR GROVE_MPI_OP_(BXOR)
#define MPI_MINLOC GROVE_MPI_OP_(MINLOC)
#define MPI_MAXLOC GROVE_MPI_OP_(MAXLOC)
#define MPI_REPLACE GROVE_MPI_OP_(REPLACE)
#define MPI_NO_OP GROVE_MPI_OP_(NO_OP)

/* ---- constants ------------------------------------------------------- */

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 128
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 64
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 1024
#define MPI_MAX_DATAREP_STRING 128

#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)

/* Thread support levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare / MPI_Group_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Topologies. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
#define MPI_COMM_TYPE_SHARED 1

/* Predefined attribute keys. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12

/* Type constructors (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16
#define MPI_ORDER_C 0
#define MPI_ORDER_FORTRAN 1
#define MPI_DISTRIBUTE_BLOCK 0
#define MPI_DISTRIBUTE_CYCLIC 1
#define MPI_DISTRIBUTE_NONE 2
#define MPI_DISTRIBUTE_DFLT_DARG (-1)
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* One-sided and I/O (declared so programs compile; see docs/mpi.md). */
#define MPI_LOCK_EXCLUSIVE 1
#define MPI_LOCK_SHARED 2
#define MPI_MODE_NOCHECK 1
#define MPI_MODE_NOSTORE 2
#define MPI_MODE_NOPUT 4
#define MPI_MODE_NOPRECEDE 8
#define MPI_MODE_NOSUCCEED 16
#define MPI_MODE_RDONLY 2
#define MPI_MODE_RDWR 8
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 1
#define MPI_MODE_EXCL 64
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)

/* Error classes (also the codes Grove returns). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_ASSERT 22
#define MPI_ERR_BAD_FILE 23
#define MPI_ERR_BASE 24
#define MPI_ERR_CONVERSION 25
#define MPI_ERR_DISP 26
#define MPI_ERR_DUP_DATAREP 27
#define MPI_ERR_FILE_EXISTS 28
#define MPI_ERR_FILE_IN_USE 29
#define MPI_ERR_FILE 30
#define MPI_ERR_INFO_KEY 31
#define MPI_ERR_INFO_NOKEY 32
#define MPI_ERR_INFO_VALUE 33
#define MPI_ERR_INFO 34
#define MPI_ERR_IO 35
#define MPI_ERR_KEYVAL 36
#define MPI_ERR_LOCKTYPE 37
#define MPI_ERR_NAME 38
#define MPI_ERR_NO_MEM 39
#define MPI_ERR_NOT_SAME 40
#define MPI_ERR_NO_SPACE 41
#define MPI_ERR_NO_SUCH_FILE 42
#define MPI_ERR_PORT 43
#define MPI_ERR_QUOTA 44
#define MPI_ERR_READ_ONLY 45
#define MPI_ERR_RMA_CONFLICT 46
#define MPI_ERR_RMA_SYNC 47
#define MPI_ERR_SERVICE 48
#define MPI_ERR_SIZE 49
#define MPI_ERR_SPAWN 50
#define MPI_ERR_UNSUPPORTED_DATAREP 51
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ERR_WIN 53
#define MPI_T_ERR_MEMORY 54
#define MPI_T_ERR_NOT_INITIALIZED 55
#define MPI_T_ERR_CANNOT_INIT 56
#define MPI_T_ERR_INVALID_INDEX 57
#define MPI_T_ERR_INVALID_ITEM 58
#define MPI_T_ERR_INVALID_HANDLE 59
#define MPI_T_ERR_OUT_OF_HANDLES 60
#define MPI_T_ERR_OUT_OF_SESSIONS 61
#define MPI_T_ERR_INVALID_SESSION 62
#define MPI_T_ERR_CVAR_SET_NOT_NOW 63
#define MPI_T_ERR_CVAR_SET_NEVER 64
#define MPI_T_ERR_PVAR_NO_STARTSTOP 65
#define MPI_T_ERR_PVAR_NO_WRITE 66
#define MPI_T_ERR_PVAR_NO_ATOMIC 67
#define MPI_ERR_RMA_RANGE 68
#define MPI_ERR_RMA_ATTACH 69
#define MPI_ERR_RMA_FLAVOR 70
#define MPI_ERR_RMA_SHARED 71
#define MPI_T_ERR_INVALID 72
#define MPI_ERR_LASTCODE 92

/* Attribute copy/delete callbacks. */
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
int grove_mpi_comm_dup_fn_(MPI_Comm, int, void *, void *, void *, int *);
#define MPI_COMM_DUP_FN grove_mpi_comm_dup_fn_
#define MPI_DUP_FN grove_mpi_comm_dup_fn_

/* ---- functions --------------------------------------------------------
 * GROVE_MPI_API_(ret, Name, (args)) declares MPI_Name and PMPI_Name.  The
 * build reads this list to make the weak aliases and the per-function
 * statistics, so keep one declaration per line-start. */
#define GROVE_MPI_API_(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

#include "grove_mpi_functions.h"

#ifdef __cplusplus
}
#endif
#endif
