/* Grove MPI: error classes, their strings, and error handlers.
 *
 * Every error goes through mpi_err, which formats one message
 * ("MPI_Send: invalid rank: 9 is not in [0, 4)"), keeps it as the last
 * error of the process and runs the communicator's handler. */
#include "mpi/mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grove_mpi_errhandler_s grove_mpi_errors_are_fatal_ = {
	.refs = 1, .predefined = true, .kind = 0,
};
struct grove_mpi_errhandler_s grove_mpi_errors_return_ = {
	.refs = 1, .predefined = true, .kind = 1,
};

/* What each class means, as MPI_Error_string gives it and as the middle
 * part of mpi_err's messages. */
static const char *const class_text[] = {
	[MPI_SUCCESS] = "no error",
	[MPI_ERR_BUFFER] = "invalid buffer pointer",
	[MPI_ERR_COUNT] = "invalid count",
	[MPI_ERR_TYPE] = "invalid datatype",
	[MPI_ERR_TAG] = "invalid tag",
	[MPI_ERR_COMM] = "invalid communicator",
	[MPI_ERR_RANK] = "invalid rank",
	[MPI_ERR_REQUEST] = "invalid request",
	[MPI_ERR_ROOT] = "invalid root",
	[MPI_ERR_GROUP] = "invalid group",
	[MPI_ERR_OP] = "invalid reduction operation",
	[MPI_ERR_TOPOLOGY] = "invalid topology",
	[MPI_ERR_DIMS] = "invalid dimensions",
	[MPI_ERR_ARG] = "invalid argument",
	[MPI_ERR_UNKNOWN] = "unknown error",
	[MPI_ERR_TRUNCATE] = "message truncated",
	[MPI_ERR_OTHER] = "other error",
	[MPI_ERR_INTERN] = "internal error",
	[MPI_ERR_IN_STATUS] = "error code in status",
	[MPI_ERR_PENDING] = "pending request",
	[MPI_ERR_ACCESS] = "permission denied",
	[MPI_ERR_AMODE] = "invalid file access mode",
	[MPI_ERR_ASSERT] = "invalid assert argument",
	[MPI_ERR_BAD_FILE] = "invalid file name",
	[MPI_ERR_BASE] = "invalid base address",
	[MPI_ERR_CONVERSION] = "data conversion error",
	[MPI_ERR_DISP] = "invalid displacement",
	[MPI_ERR_DUP_DATAREP] = "data representation already defined",
	[MPI_ERR_FILE_EXISTS] = "file exists",
	[MPI_ERR_FILE_IN_USE] = "file in use",
	[MPI_ERR_FILE] = "invalid file handle",
	[MPI_ERR_INFO_KEY] = "invalid info key",
	[MPI_ERR_INFO_NOKEY] = "info key not defined",
	[MPI_ERR_INFO_VALUE] = "invalid info value",
	[MPI_ERR_INFO] = "invalid info object",
	[MPI_ERR_IO] = "I/O error",
	[MPI_ERR_KEYVAL] = "invalid attribute key",
	[MPI_ERR_LOCKTYPE] = "invalid lock type",
	[MPI_ERR_NAME] = "name not published",
	[MPI_ERR_NO_MEM] = "out of memory",
	[MPI_ERR_NOT_SAME] = "arguments differ between processes",
	[MPI_ERR_NO_SPACE] = "no space left",
	[MPI_ERR_NO_SUCH_FILE] = "no such file",
	[MPI_ERR_PORT] = "invalid port name",
	[MPI_ERR_QUOTA] = "quota exceeded",
	[MPI_ERR_READ_ONLY] = "read-only file or file system",
	[MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
	[MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
	[MPI_ERR_SERVICE] = "invalid service name",
	[MPI_ERR_SIZE] = "invalid size",
	[MPI_ERR_SPAWN] = "could not spawn processes",
	[MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
	[MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
	[MPI_ERR_WIN] = "invalid window",
	[MPI_T_ERR_MEMORY] = "MPI_T: out of memory",
	[MPI_T_ERR_NOT_INITIALIZED] = "MPI_T: not initialized",
	[MPI_T_ERR_CANNOT_INIT] = "MPI_T: cannot initialize",
	[MPI_T_ERR_INVALID_INDEX] = "MPI_T: invalid index",
	[MPI_T_ERR_INVALID_ITEM] = "MPI_T: invalid item",
	[MPI_T_ERR_INVALID_HANDLE] = "MPI_T: invalid handle",
	[MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T: out of handles",
	[MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T: out of sessions",
	[MPI_T_ERR_INVALID_SESSION] = "MPI_T: invalid session",
	[MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T: variable cannot be set now",
	[MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T: variable cannot be set",
	[MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T: variable cannot be started",
	[MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T: variable cannot be written",
	[MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T: variable cannot be read atomically",
	[MPI_ERR_RMA_RANGE] = "target memory outside the window",
	[MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
	[MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
	[MPI_ERR_RMA_SHARED] = "memory cannot be shared",
	[MPI_T_ERR_INVALID] = "MPI_T: invalid use of the interface",
};

static const char *
text_of(int code)
{
	if (code >= 0 && code < (int)(sizeof class_text / sizeof class_text[0]) &&
	    class_text[code])
		return class_text[code];
	if (code > 0 && code <= MPI_ERR_LASTCODE)
		return "unused error code";
	return NULL;
}

/* Kept per process: MPI's state is per process, and the message is only
 * read back by the thread that made the error (at most SERIALIZED). */
static char last_error[MPI_MAX_ERROR_STRING];

const char *
mpi_last_error(void)
{
	return last_error;
}

/* The communicator whose handler runs: MPI_COMM_WORLD for errors that
 * belong to no (valid) communicator, as the standard says. */
static MPI_Comm
handler_comm(MPI_Comm comm)
{
	if (comm == MPI_COMM_NULL || mpi_comm_check(comm) != MPI_SUCCESS)
		return MPI_COMM_WORLD;
	return comm;
}

static int
run_handler(MPI_Comm comm, int code)
{
	MPI_Errhandler eh = comm->errhandler;
	if (!eh || eh->kind == 0) {
		fprintf(stderr, "grove-mpi: rank %d: %s\n", mpi_proc.rank,
		        last_error[0] ? last_error : text_of(code) ? text_of(code)
		                                                  : "error");
		fflush(stderr);
		mpi_abort_job(code);
	}
	if (eh->kind == 2 && eh->fn) {
		/* The standard passes handles by address; the copies keep the
		 * caller's variables out of the handler's reach. */
		MPI_Comm c = comm;
		int e = code;
		eh->fn(&c, &e);
	}
	return code;
}

int
mpi_err(MPI_Comm comm, int errclass, enum mpi_fn fn, const char *fmt, ...)
{
	const char *name = fn >= 0 && fn < MPI_FN_COUNT_ && mpi_fn_names[fn]
	                           ? mpi_fn_names[fn]
	                           : "MPI";
	const char *what = text_of(errclass);
	int n = snprintf(last_error, sizeof last_error, "%s: %s", name,
	                 what ? what : "error");
	if (n > 0 && (size_t)n < sizeof last_error - 2 && fmt && fmt[0]) {
		va_list ap;
		va_start(ap, fmt);
		memcpy(last_error + n, ": ", 3);
		vsnprintf(last_error + n + 2, sizeof last_error - (size_t)n - 2,
		          fmt, ap);
		va_end(ap);
	}
	return run_handler(handler_comm(comm), errclass);
}

/* ---- error classes and strings --------------------------------------- */

int
PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
	/* Allowed before MPI_Init (a program may report a failed init). */
	if (!string || !resultlen)
		return MPI_ERR_ARG;
	const char *t = text_of(errorcode);
	if (!t) {
		snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d",
		         errorcode);
		*resultlen = (int)strlen(string);
		return MPI_ERR_ARG;
	}
	snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
	*resultlen = (int)strlen(string);
	return MPI_SUCCESS;
}

int
PMPI_Error_class(int errorcode, int *errorclass)
{
	/* Grove's codes are its classes. */
	if (!errorclass)
		return MPI_ERR_ARG;
	if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) {
		*errorclass = MPI_ERR_UNKNOWN;
		return MPI_ERR_ARG;
	}
	*errorclass = errorcode;
	return MPI_SUCCESS;
}

/* ---- handlers ------------------------------------------------------- */

void
mpi_errhandler_retain(MPI_Errhandler eh)
{
	if (eh && !eh->predefined)
		eh->refs++;
}

void
mpi_errhandler_release(MPI_Errhandler eh)
{
	if (eh && !eh->predefined && --eh->refs <= 0)
		free(eh);
}

static int
set_handler(enum mpi_fn fn, MPI_Comm comm, MPI_Errhandler errhandler)
{
	if (mpi_comm_check(comm))
		return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
		               comm ? "not a communicator" : "MPI_COMM_NULL");
	if (errhandler == MPI_ERRHANDLER_NULL)
		return mpi_err(comm, MPI_ERR_ARG, fn, "the handler is "
		                                      "MPI_ERRHANDLER_NULL");
	mpi_errhandler_retain(errhandler);
	mpi_errhandler_release(comm->errhandler);
	comm->errhandler = errhandler;
	return MPI_SUCCESS;
}

static int
get_handler(enum mpi_fn fn, MPI_Comm comm, MPI_Errhandler *errhandler)
{
	if (mpi_comm_check(comm))
		return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
		               comm ? "not a communicator" : "MPI_COMM_NULL");
	if (!errhandler)
		return mpi_err(comm, MPI_ERR_ARG, fn, "errhandler is NULL");
	/* A new reference: the caller frees it with MPI_Errhandler_free. */
	mpi_errhandler_retain(comm->errhandler);
	*errhandler = comm->errhandler;
	return MPI_SUCCESS;
}

int
PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_set_errhandler);
	if (rc)
		return rc;
	MPI_ENTER(Comm_set_errhandler);
	rc = set_handler(MPI_FN_Comm_set_errhandler, comm, errhandler);
	MPI_EXIT(Comm_set_errhandler, -1, 0, 0);
	return rc;
}

int
PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
	int rc = mpi_check_initialized(MPI_FN_Errhandler_set);
	if (rc)
		return rc;
	MPI_ENTER(Errhandler_set);
	rc = set_handler(MPI_FN_Errhandler_set, comm, errhandler);
	MPI_EXIT(Errhandler_set, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_get_errhandler);
	if (rc)
		return rc;
	MPI_ENTER(Comm_get_errhandler);
	rc = get_handler(MPI_FN_Comm_get_errhandler, comm, errhandler);
	MPI_EXIT(Comm_get_errhandler, -1, 0, 0);
	return rc;
}

int
PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	int rc = mpi_check_initialized(MPI_FN_Errhandler_get);
	if (rc)
		return rc;
	MPI_ENTER(Errhandler_get);
	rc = get_handler(MPI_FN_Errhandler_get, comm, errhandler);
	MPI_EXIT(Errhandler_get, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                            MPI_Errhandler *errhandler)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_create_errhandler);
	if (rc)
		return rc;
	MPI_ENTER(Comm_create_errhandler);
	if (!fn || !errhandler) {
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		             MPI_FN_Comm_create_errhandler, "%s is NULL",
		             fn ? "errhandler" : "the function");
	} else {
		MPI_Errhandler eh = calloc(1, sizeof *eh);
		if (!eh) {
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
			             MPI_FN_Comm_create_errhandler, "%zu bytes",
			             sizeof *eh);
		} else {
			eh->refs = 1;
			eh->kind = 2;
			eh->fn = fn;
			*errhandler = eh;
		}
	}
	MPI_EXIT(Comm_create_errhandler, -1, 0, 0);
	return rc;
}

int
PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
	int rc = mpi_check_initialized(MPI_FN_Comm_call_errhandler);
	if (rc)
		return rc;
	MPI_ENTER(Comm_call_errhandler);
	if (mpi_comm_check(comm)) {
		rc = mpi_err(comm, MPI_ERR_COMM, MPI_FN_Comm_call_errhandler, "%s",
		             comm ? "not a communicator" : "MPI_COMM_NULL");
	} else {
		/* The message a fatal handler prints names the call and the
		 * code the program raised. */
		const char *t = text_of(errorcode);
		snprintf(last_error, sizeof last_error,
		         "MPI_Comm_call_errhandler: error code %d (%s)", errorcode,
		         t ? t : "not an MPI error code");
		run_handler(comm, errorcode);
		/* The standard: MPI_SUCCESS when the handler returns. */
		rc = MPI_SUCCESS;
	}
	MPI_EXIT(Comm_call_errhandler, -1, 0, 0);
	return rc;
}

int
PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
	int rc = mpi_check_initialized(MPI_FN_Errhandler_free);
	if (rc)
		return rc;
	MPI_ENTER(Errhandler_free);
	if (!errhandler || *errhandler == MPI_ERRHANDLER_NULL) {
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Errhandler_free,
		             "the handler is MPI_ERRHANDLER_NULL");
	} else {
		/* Communicators that use it keep their own references. */
		mpi_errhandler_release(*errhandler);
		*errhandler = MPI_ERRHANDLER_NULL;
	}
	MPI_EXIT(Errhandler_free, -1, 0, 0);
	return rc;
}
