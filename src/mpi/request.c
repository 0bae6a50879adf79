/* Requests: allocation, the wait and test families, cancel, free,
 * generalized requests. */
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/p2p.h"

MPI_Request
mpi_request_new(enum mpi_req_kind kind)
{
	MPI_Request r = calloc(1, sizeof(*r));
	if (r)
		r->kind = kind;
	return r;
}

void
mpi_request_free_internal(MPI_Request req)
{
	if (!req)
		return;
	if (req->holds_refs) {
		if (req->dt)
			mpi_dt_release(req->dt);
		if (req->comm)
			mpi_comm_release(req->comm);
	}
	free(req->pack);
	free(req);
}

static bool
req_done(void *arg)
{
	return ((MPI_Request)arg)->done;
}

static void
status_out(MPI_Status *st, const MPI_Status *from)
{
	if (st != MPI_STATUS_IGNORE)
		*st = *from;
}

/* An inactive request (MPI_REQUEST_NULL, a persistent request not
 * started) gives the empty status. */
static bool
inactive(MPI_Request r)
{
	return r == MPI_REQUEST_NULL || (r->persistent && !r->active);
}

/* Completes req for the user: its status, and the request released
 * (MPI_REQUEST_NULL) unless persistent.  Returns its error class. */
static int
finish(MPI_Request *slot, MPI_Status *st)
{
	MPI_Request r = *slot;
	if (r->kind == MPI_REQ_GREQ && r->gq) {
		r->gq(r->gstate, &r->status);
	}
	int err = r->status.MPI_ERROR;
	status_out(st, &r->status);
	if (r->persistent) {
		r->active = false;
		return err;
	}
	if (r->kind == MPI_REQ_GREQ && r->gf)
		err = err ? err : r->gf(r->gstate);
	mpi_request_free_internal(r);
	*slot = MPI_REQUEST_NULL;
	return err;
}

static MPI_Comm
req_comm(MPI_Request r)
{
	return r && r->comm ? r->comm : MPI_COMM_WORLD;
}

int
mpi_wait(MPI_Request *req, MPI_Status *status)
{
	if (inactive(*req)) {
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_ANY_SOURCE);
		return MPI_SUCCESS;
	}
	mpi_progress_until(req_done, *req);
	return finish(req, status);
}

static const char *
err_what(int err)
{
	return err == MPI_ERR_TRUNCATE ? "message truncated (the receive "
	                                 "buffer is smaller than the message)"
	                               : "the request failed";
}

int
PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Wait);
	if (rc)
		return rc;
	if (!request)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, MPI_FN_Wait,
		               "request is NULL");
	MPI_ENTER(Wait);
	MPI_Comm comm = req_comm(*request);
	int peer = *request ? (*request)->peer : -1;
	int tag = *request ? (*request)->tag : 0;
	rc = mpi_wait(request, status);
	MPI_EXIT(Wait, peer, tag, 0);
	if (rc)
		return mpi_err(comm, rc, MPI_FN_Wait, "%s", err_what(rc));
	return MPI_SUCCESS;
}

int
PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Test);
	if (rc)
		return rc;
	if (!request || !flag)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Test,
		               "request or flag is NULL");
	MPI_ENTER(Test);
	if (__builtin_expect(mpi_bcs_rr, 0)) {
		rc = mpi_bcs_test(request, flag, status);
		MPI_EXIT(Test, -1, 0, 0);
		return rc;
	}
	if (inactive(*request)) {
		*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_ANY_SOURCE);
		MPI_EXIT(Test, -1, 0, 0);
		return MPI_SUCCESS;
	}
	if (!(*request)->done)
		mpi_progress();
	*flag = (*request)->done;
	MPI_Comm comm = req_comm(*request);
	rc = *flag ? finish(request, status) : MPI_SUCCESS;
	MPI_EXIT(Test, -1, 0, 0);
	if (rc)
		return mpi_err(comm, rc, MPI_FN_Test, "%s", err_what(rc));
	return MPI_SUCCESS;
}

struct reqs {
	int n;
	MPI_Request *r;
	int need; /* how many must be done: n (all) or 1 (any/some) */
};

static bool
reqs_done(void *arg)
{
	struct reqs *q = arg;
	int done = 0, active = 0;
	for (int i = 0; i < q->n; i++) {
		if (inactive(q->r[i]))
			continue;
		active++;
		if (q->r[i]->done)
			done++;
	}
	if (active == 0)
		return true;
	return q->need == 1 ? done > 0 : done == active;
}

static int
check_array(enum mpi_fn fn, int count, MPI_Request *reqs)
{
	if (count < 0)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, fn,
		               "count %d is negative", count);
	if (count > 0 && !reqs)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, fn,
		               "array of requests is NULL");
	return MPI_SUCCESS;
}

/* Finishes every completed request of the array into statuses; returns
 * MPI_ERR_IN_STATUS when one failed (its status says which). */
static int
finish_all(int count, MPI_Request reqs[], MPI_Status statuses[],
           MPI_Comm *errcomm)
{
	int rc = MPI_SUCCESS;
	for (int i = 0; i < count; i++) {
		MPI_Status tmp;
		MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? &tmp : &statuses[i];
		if (inactive(reqs[i])) {
			mpi_status_empty(st, MPI_ANY_SOURCE);
			continue;
		}
		MPI_Comm c = req_comm(reqs[i]);
		int e = finish(&reqs[i], st);
		st->MPI_ERROR = e;
		if (e) {
			rc = MPI_ERR_IN_STATUS;
			*errcomm = c;
		}
	}
	return rc;
}

int
PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	int rc = mpi_check_initialized(MPI_FN_Waitall);
	if (rc || (rc = check_array(MPI_FN_Waitall, count, reqs)))
		return rc;
	MPI_ENTER(Waitall);
	struct reqs q = {count, reqs, count};
	mpi_progress_until(reqs_done, &q);
	MPI_Comm ec = MPI_COMM_WORLD;
	rc = finish_all(count, reqs, statuses, &ec);
	MPI_EXIT(Waitall, -1, 0, 0);
	if (rc)
		return mpi_err(ec, rc, MPI_FN_Waitall,
		               "a request failed (see its status's MPI_ERROR)");
	return MPI_SUCCESS;
}

int
PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	int rc = mpi_check_initialized(MPI_FN_Testall);
	if (rc || (rc = check_array(MPI_FN_Testall, count, reqs)))
		return rc;
	MPI_ENTER(Testall);
	if (__builtin_expect(mpi_bcs_rr, 0)) {
		rc = mpi_bcs_testall(count, reqs, flag, statuses);
		MPI_EXIT(Testall, -1, 0, 0);
		return rc;
	}
	struct reqs q = {count, reqs, count};
	if (!reqs_done(&q))
		mpi_progress();
	*flag = reqs_done(&q);
	MPI_Comm ec = MPI_COMM_WORLD;
	rc = *flag ? finish_all(count, reqs, statuses, &ec) : MPI_SUCCESS;
	MPI_EXIT(Testall, -1, 0, 0);
	if (rc)
		return mpi_err(ec, rc, MPI_FN_Testall,
		               "a request failed (see its status's MPI_ERROR)");
	return MPI_SUCCESS;
}

/* The first completed request of the array, or MPI_UNDEFINED when none
 * is active. */
static int
first_done(int count, MPI_Request reqs[], bool *any_active)
{
	*any_active = false;
	for (int i = 0; i < count; i++) {
		if (inactive(reqs[i]))
			continue;
		*any_active = true;
		if (reqs[i]->done)
			return i;
	}
	return MPI_UNDEFINED;
}

static int
any_common(enum mpi_fn fn, int count, MPI_Request reqs[], int *index,
           int *flag, MPI_Status *status, bool block)
{
	bool active;
	if (block) {
		struct reqs q = {count, reqs, 1};
		mpi_progress_until(reqs_done, &q);
	} else if (first_done(count, reqs, &active) == MPI_UNDEFINED) {
		mpi_progress();
	}
	int i = first_done(count, reqs, &active);
	if (!active) {
		*index = MPI_UNDEFINED;
		if (flag)
			*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_ANY_SOURCE);
		return MPI_SUCCESS;
	}
	if (i == MPI_UNDEFINED) {
		*index = MPI_UNDEFINED;
		*flag = 0;
		return MPI_SUCCESS;
	}
	if (flag)
		*flag = 1;
	*index = i;
	MPI_Comm c = req_comm(reqs[i]);
	int e = finish(&reqs[i], status);
	if (e)
		return mpi_err(c, e, fn, "%s", err_what(e));
	return MPI_SUCCESS;
}

int
PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Waitany);
	if (rc || (rc = check_array(MPI_FN_Waitany, count, reqs)))
		return rc;
	MPI_ENTER(Waitany);
	if (__builtin_expect(mpi_bcs_rr, 0))
		rc = mpi_bcs_waitany(count, reqs, index, status);
	else
		rc = any_common(MPI_FN_Waitany, count, reqs, index, NULL, status,
		                true);
	MPI_EXIT(Waitany, -1, 0, 0);
	return rc;
}

int
PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
             MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Testany);
	if (rc || (rc = check_array(MPI_FN_Testany, count, reqs)))
		return rc;
	MPI_ENTER(Testany);
	if (__builtin_expect(mpi_bcs_rr, 0))
		rc = mpi_bcs_testany(count, reqs, index, flag, status);
	else
		rc = any_common(MPI_FN_Testany, count, reqs, index, flag, status, false);
	MPI_EXIT(Testany, -1, 0, 0);
	return rc;
}

static int
some_common(enum mpi_fn fn, int incount, MPI_Request reqs[], int *outcount,
            int indices[], MPI_Status statuses[], bool block)
{
	bool active;
	if (block) {
		struct reqs q = {incount, reqs, 1};
		mpi_progress_until(reqs_done, &q);
	} else if (first_done(incount, reqs, &active) == MPI_UNDEFINED) {
		mpi_progress();
	}
	first_done(incount, reqs, &active);
	if (!active) {
		*outcount = MPI_UNDEFINED;
		return MPI_SUCCESS;
	}
	int n = 0, rc = MPI_SUCCESS;
	MPI_Comm ec = MPI_COMM_WORLD;
	for (int i = 0; i < incount; i++) {
		if (inactive(reqs[i]) || !reqs[i]->done)
			continue;
		MPI_Status tmp;
		MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? &tmp : &statuses[n];
		MPI_Comm c = req_comm(reqs[i]);
		int e = finish(&reqs[i], st);
		st->MPI_ERROR = e;
		if (e) {
			rc = MPI_ERR_IN_STATUS;
			ec = c;
		}
		indices[n++] = i;
	}
	*outcount = n;
	if (rc)
		return mpi_err(ec, rc, fn, "a request failed (see its status's "
		                           "MPI_ERROR)");
	return MPI_SUCCESS;
}

int
PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
              MPI_Status statuses[])
{
	int rc = mpi_check_initialized(MPI_FN_Waitsome);
	if (rc || (rc = check_array(MPI_FN_Waitsome, incount, reqs)))
		return rc;
	MPI_ENTER(Waitsome);
	if (__builtin_expect(mpi_bcs_rr, 0))
		rc = mpi_bcs_waitsome(incount, reqs, outcount, indices, statuses);
	else
		rc = some_common(MPI_FN_Waitsome, incount, reqs, outcount, indices,
		                 statuses, true);
	MPI_EXIT(Waitsome, -1, 0, 0);
	return rc;
}

int
PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
              MPI_Status statuses[])
{
	int rc = mpi_check_initialized(MPI_FN_Testsome);
	if (rc || (rc = check_array(MPI_FN_Testsome, incount, reqs)))
		return rc;
	MPI_ENTER(Testsome);
	if (__builtin_expect(mpi_bcs_rr, 0))
		rc = mpi_bcs_testsome(incount, reqs, outcount, indices, statuses);
	else
		rc = some_common(MPI_FN_Testsome, incount, reqs, outcount, indices,
		                 statuses, false);
	MPI_EXIT(Testsome, -1, 0, 0);
	return rc;
}

int
PMPI_Request_free(MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Request_free);
	if (rc)
		return rc;
	if (!request || *request == MPI_REQUEST_NULL)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, MPI_FN_Request_free,
		               "the request is MPI_REQUEST_NULL");
	MPI_Request r = *request;
	*request = MPI_REQUEST_NULL;
	if (r->persistent && r->active && !r->done) {
		/* Freed while running: released when it completes. */
		r->persistent = false;
		r->freed = true;
	} else if (r->done || (r->persistent && !r->active)) {
		mpi_request_free_internal(r);
	} else {
		r->freed = true; /* the engine frees it at completion */
	}
	return MPI_SUCCESS;
}

int
PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Request_get_status);
	if (rc)
		return rc;
	if (inactive(request)) {
		*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_ANY_SOURCE);
		return MPI_SUCCESS;
	}
	if (!request->done)
		mpi_progress();
	*flag = request->done;
	if (*flag)
		status_out(status, &request->status);
	return MPI_SUCCESS;
}

int
PMPI_Cancel(MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Cancel);
	if (rc)
		return rc;
	if (!request || inactive(*request))
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, MPI_FN_Cancel,
		               "the request is not active");
	MPI_Request r = *request;
	if (r->kind == MPI_REQ_RECV)
		mpi_p2p_cancel_recv(r);
	else if (r->kind == MPI_REQ_GREQ && r->gc)
		r->gc(r->gstate, r->done);
	/* A send is never cancelled: once started it is delivered (allowed:
	 * MPI_Test_cancelled then says false). */
	return MPI_SUCCESS;
}

int
PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	if (!status || !flag)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Test_cancelled,
		               "status or flag is NULL");
	*flag = status->grove_cancelled_;
	return MPI_SUCCESS;
}

int
PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	if (!status)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		               MPI_FN_Status_set_cancelled, "status is NULL");
	status->grove_cancelled_ = flag != 0;
	return MPI_SUCCESS;
}

int
PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                    MPI_Grequest_free_function *free_fn,
                    MPI_Grequest_cancel_function *cancel_fn,
                    void *extra_state, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Grequest_start);
	if (rc)
		return rc;
	MPI_Request r = mpi_request_new(MPI_REQ_GREQ);
	if (!r)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, MPI_FN_Grequest_start,
		               "out of memory");
	r->gq = query_fn;
	r->gf = free_fn;
	r->gc = cancel_fn;
	r->gstate = extra_state;
	r->peer = MPI_ANY_SOURCE;
	mpi_status_empty(&r->status, MPI_ANY_SOURCE);
	*request = r;
	return MPI_SUCCESS;
}

int
PMPI_Grequest_complete(MPI_Request request)
{
	if (!request || request->kind != MPI_REQ_GREQ)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		               MPI_FN_Grequest_complete,
		               "not a generalized request");
	request->done = true;
	return MPI_SUCCESS;
}

/* For the test family of BCS mode's record/replay (bcs_test.c). */
bool
mpi_request_inactive(MPI_Request r)
{
	return inactive(r);
}

int
mpi_request_finish(MPI_Request *slot, MPI_Status *st)
{
	return finish(slot, st);
}
