/* Grove MPI: user operators (MPI_Op_create/free/commutative) and
 * MPI_Reduce_local, over op.c.
 */
#include "mpi/op.h"

#include <stdlib.h>
#include <string.h>

int
PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
	int rc = mpi_check_initialized(MPI_FN_Op_create);
	if (rc)
		return rc;
	MPI_ENTER(Op_create);
	const char *why = "";
	struct grove_mpi_op_s *o = NULL;
	if (!user_fn || !op) {
		rc = MPI_ERR_ARG;
		why = user_fn ? "op is NULL" : "user_fn is NULL";
	} else if (!(o = calloc(1, sizeof *o))) {
		rc = MPI_ERR_NO_MEM;
		why = "out of memory for an operator";
	} else {
		o->predefined = false;
		o->commute = commute != 0;
		o->refs = 1;
		o->which = -1;
		o->user = user_fn;
		strcpy(o->name, "user operator");
		*op = o;
	}
	MPI_EXIT(Op_create, -1, 0, 0);
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_Op_create, "%s", why)
	          : MPI_SUCCESS;
}

int
PMPI_Op_free(MPI_Op *op)
{
	int rc = mpi_check_initialized(MPI_FN_Op_free);
	if (rc)
		return rc;
	MPI_ENTER(Op_free);
	const char *why = "";
	if (!op || !*op || (*op)->refs <= 0) {
		rc = MPI_ERR_OP;
		why = !op ? "op is NULL" : !*op ? "op is MPI_OP_NULL" : "op was freed";
	} else if ((*op)->predefined) {
		rc = MPI_ERR_OP;
		why = "a predefined operator cannot be freed";
	} else {
		/* A pending non-blocking reduction may still hold it. */
		mpi_op_release(*op);
		*op = MPI_OP_NULL;
	}
	MPI_EXIT(Op_free, -1, 0, 0);
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_Op_free, "%s", why)
	          : MPI_SUCCESS;
}

int
PMPI_Op_commutative(MPI_Op op, int *commute)
{
	int rc = mpi_check_initialized(MPI_FN_Op_commutative);
	if (rc)
		return rc;
	MPI_ENTER(Op_commutative);
	const char *why = "";
	if (!op || op->refs <= 0) {
		rc = MPI_ERR_OP;
		why = op ? "op was freed" : "op is MPI_OP_NULL";
	} else if (!commute) {
		rc = MPI_ERR_ARG;
		why = "commute is NULL";
	} else {
		*commute = op->commute;
	}
	MPI_EXIT(Op_commutative, -1, 0, 0);
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_Op_commutative, "%s", why)
	          : MPI_SUCCESS;
}

int
PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                  MPI_Datatype datatype, MPI_Op op)
{
	int rc = mpi_check_initialized(MPI_FN_Reduce_local);
	if (rc)
		return rc;
	MPI_ENTER(Reduce_local);
	const char *why = "";
	if (count < 0) {
		rc = MPI_ERR_COUNT;
		why = "count is negative";
	} else if (count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)) {
		rc = MPI_ERR_BUFFER;
		why = "MPI_IN_PLACE is not allowed here";
	} else {
		rc = mpi_op_apply(op, inbuf, inoutbuf, (size_t)count, datatype, &why);
	}
	size_t bytes = !rc && datatype ? (size_t)count * datatype->size : 0;
	MPI_EXIT(Reduce_local, -1, 0, bytes);
	return rc ? mpi_err(MPI_COMM_NULL, rc, MPI_FN_Reduce_local, "%s", why)
	          : MPI_SUCCESS;
}
