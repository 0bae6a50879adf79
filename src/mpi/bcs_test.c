/* BCS mode: the test family (MPI_Test, Testany, Testall, Testsome, and
 * MPI_Waitany and MPI_Waitsome, whose answer is whatever completed first)
 * under record/replay; request.c hands them here when mpi_bcs_rr is set.
 *
 * What such a call returns depends on when completions arrived, the one
 * thing a later run cannot repeat by itself.  So every call counts
 * (k = 0, 1, ...), and
 *   recording (GROVE_BCS_RECORD): the call decides as always; when it
 *     returns true, the rank tells the node manager (BCS_D_NOTE), which
 *     writes k and what completed into the record with the slice;
 *   replaying (GROVE_BCS_REPLAY): the record decides.  Call k recorded
 *     true waits until the recorded requests have completed and returns
 *     exactly those; a call not recorded returns false even if something
 *     completed (it completes later, at a wait or a later test).
 * A wait always returns true: replaying one with no line has diverged.
 * A call whose answer does not depend on timing (no active request) is
 * neither recorded nor forced. */
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/bcs_replay.h"
#include "mpi/p2p.h"

enum shape {
	ONE,  /* MPI_Test */
	ANY,  /* MPI_Testany: the first completed */
	ALL,  /* MPI_Testall: all or nothing */
	SOME, /* MPI_Testsome: every completed one */
};

/* A call's decision: which of its n requests it reports. */
struct pick {
	uint32_t k;       /* the call's number */
	int n;
	bool *active;     /* [n] */
	bool *sel;        /* [n] */
	int nactive, nsel;
};

static void
pick_free(struct pick *p)
{
	free(p->active);
	free(p->sel);
}

static uint64_t
sel_mask(const struct pick *p)
{
	uint64_t m = 0;
	for (int i = 0; i < p->n && i < 64; i++)
		if (p->sel[i])
			m |= 1ull << i;
	return m;
}

static void
select_idx(struct pick *p, int i)
{
	if (!p->sel[i]) {
		p->sel[i] = true;
		p->nsel++;
	}
}

/* The decision of a call that is not replayed: as request.c decides. */
static void
choose_live(enum shape sh, MPI_Request reqs[], struct pick *p)
{
	int ndone = 0, first = -1;
	for (int i = 0; i < p->n; i++) {
		if (!p->active[i] || !reqs[i]->done)
			continue;
		ndone++;
		if (first < 0)
			first = i;
	}
	if (ndone == 0)
		return;
	if (sh == ONE || sh == ANY) {
		select_idx(p, first);
	} else if (sh == SOME || ndone == p->nactive) {
		for (int i = 0; i < p->n; i++)
			if (p->active[i] && reqs[i]->done)
				select_idx(p, i);
	}
}

/* Replay: what call k must report, and waiting until it can. */
struct replay_wait {
	MPI_Request *reqs;
	int n;
	uint64_t mask;
	int beyond; /* completed requests at index >= 64 (not in the mask) */
	const bool *active;
};

static bool
replay_ready(void *arg)
{
	const struct replay_wait *w = arg;
	for (uint64_t m = w->mask; m; m &= m - 1)
		if (!w->reqs[__builtin_ctzll(m)]->done)
			return false;
	int got = 0;
	for (int i = 64; i < w->n && got < w->beyond; i++)
		if (w->active[i] && w->reqs[i]->done)
			got++;
	return got >= w->beyond;
}

static void
choose_replayed(const struct mpi_bcs_tline *t, enum mpi_fn fn,
                MPI_Request reqs[], struct pick *p)
{
	char why[256];
	if (mpi_bcs_replay_check_reqs(t, fn, p->n, p->active, why,
	                              sizeof(why)) != 0) {
		char where[80];
		snprintf(where, sizeof(where), "test-family call %u (%s)", p->k,
		         mpi_fn_names[fn]);
		mpi_bcs_diverged(where, why);
	}
	struct replay_wait w = {reqs, p->n, t->mask,
	                        (int)t->count - __builtin_popcountll(t->mask),
	                        p->active};
	mpi_progress_until(replay_ready, &w);
	for (uint64_t m = t->mask; m; m &= m - 1)
		select_idx(p, __builtin_ctzll(m));
	/* Past the mask's 64 indices the record says how many, not which:
	 * the lowest completed ones stand in for them. */
	for (int i = 64; i < p->n && w.beyond > 0; i++)
		if (p->active[i] && reqs[i]->done) {
			select_idx(p, i);
			w.beyond--;
		}
}

struct any_wait {
	int n;
	MPI_Request *reqs;
	const bool *active;
};

static bool
any_done(void *arg)
{
	const struct any_wait *w = arg;
	for (int i = 0; i < w->n; i++)
		if (w->active[i] && w->reqs[i]->done)
			return true;
	return false;
}

/* Decides call fn over reqs[0..n), which waits for something to complete
 * when block: 0, or MPI_ERR_NO_MEM. */
static int
decide(enum mpi_fn fn, enum shape sh, int n, MPI_Request reqs[],
       struct pick *p, bool block)
{
	memset(p, 0, sizeof(*p));
	p->k = mpi_bcs_next_call(fn);
	p->n = n;
	p->active = calloc(n ? (size_t)n : 1, sizeof(bool));
	p->sel = calloc(n ? (size_t)n : 1, sizeof(bool));
	if (!p->active || !p->sel) {
		pick_free(p);
		return MPI_ERR_NO_MEM;
	}
	for (int i = 0; i < n; i++)
		if ((p->active[i] = !mpi_request_inactive(reqs[i])))
			p->nactive++;
	if (p->nactive == 0)
		return MPI_SUCCESS;
	const struct mpi_bcs_record *rec = mpi_bcs_replay();
	if (rec) {
		const struct mpi_bcs_tline *t = mpi_bcs_record_test(rec, p->k);
		if (t) {
			choose_replayed(t, fn, reqs, p);
		} else if (block) {
			char where[80];
			snprintf(where, sizeof(where), "test-family call %u (%s)",
			         p->k, mpi_fn_names[fn]);
			mpi_bcs_diverged(where, "the record has no line for it, and "
			                        "a wait always completes something");
		} else {
			mpi_progress(); /* completions go on arriving */
		}
		return MPI_SUCCESS;
	}
	if (block) {
		struct any_wait w = {n, reqs, p->active};
		mpi_progress_until(any_done, &w);
	}
	choose_live(sh, reqs, p);
	if (p->nsel == 0) {
		mpi_progress();
		choose_live(sh, reqs, p);
	}
	return MPI_SUCCESS;
}

static const char *
err_what(int err)
{
	return err == MPI_ERR_TRUNCATE ? "message truncated (the receive "
	                                 "buffer is smaller than the message)"
	                               : "the request failed";
}

static MPI_Comm
req_comm(MPI_Request r)
{
	return r && r->comm ? r->comm : MPI_COMM_WORLD;
}

static int
no_mem(enum mpi_fn fn)
{
	return mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
}

int
mpi_bcs_test(MPI_Request *request, int *flag, MPI_Status *status)
{
	struct pick p;
	if (decide(MPI_FN_Test, ONE, 1, request, &p, false) != 0)
		return no_mem(MPI_FN_Test);
	int rc = MPI_SUCCESS;
	if (p.nactive == 0) {
		*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_ANY_SOURCE);
	} else if (p.nsel == 0) {
		*flag = 0;
	} else {
		*flag = 1;
		MPI_Comm comm = req_comm(*request);
		int e = mpi_request_finish(request, status);
		mpi_bcs_note(MPI_FN_Test, p.k, 1, 1, -1, -1);
		if (e)
			rc = mpi_err(comm, e, MPI_FN_Test, "%s", err_what(e));
	}
	pick_free(&p);
	return rc;
}

/* MPI_Testany (flag set) and MPI_Waitany (flag NULL). */
static int
any_rr(enum mpi_fn fn, int count, MPI_Request reqs[], int *index, int *flag,
       MPI_Status *status)
{
	struct pick p;
	if (decide(fn, ANY, count, reqs, &p, flag == NULL) != 0)
		return no_mem(fn);
	int rc = MPI_SUCCESS;
	*index = MPI_UNDEFINED;
	if (p.nactive == 0) {
		if (flag)
			*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_ANY_SOURCE);
	} else if (p.nsel == 0) {
		if (flag) /* (a wait always selects one) */
			*flag = 0;
	} else {
		int i = 0;
		while (!p.sel[i])
			i++;
		if (flag)
			*flag = 1;
		*index = i;
		MPI_Comm comm = req_comm(reqs[i]);
		int e = mpi_request_finish(&reqs[i], status);
		mpi_bcs_note(fn, p.k, 1, sel_mask(&p), -1, -1);
		if (e)
			rc = mpi_err(comm, e, fn, "%s", err_what(e));
	}
	pick_free(&p);
	return rc;
}

int
mpi_bcs_testany(int count, MPI_Request reqs[], int *index, int *flag,
                MPI_Status *status)
{
	return any_rr(MPI_FN_Testany, count, reqs, index, flag, status);
}

int
mpi_bcs_waitany(int count, MPI_Request reqs[], int *index,
                MPI_Status *status)
{
	return any_rr(MPI_FN_Waitany, count, reqs, index, NULL, status);
}

/* Finishes reqs[i] into st (its MPI_ERROR set): true when it failed. */
static bool
finish_one(MPI_Request reqs[], int i, MPI_Status *st, MPI_Comm *errcomm)
{
	MPI_Comm c = req_comm(reqs[i]);
	int e = mpi_request_finish(&reqs[i], st);
	st->MPI_ERROR = e;
	if (e)
		*errcomm = c;
	return e != 0;
}

int
mpi_bcs_testall(int count, MPI_Request reqs[], int *flag,
                MPI_Status statuses[])
{
	struct pick p;
	if (decide(MPI_FN_Testall, ALL, count, reqs, &p, false) != 0)
		return no_mem(MPI_FN_Testall);
	*flag = p.nactive == 0 || p.nsel > 0;
	bool failed = false;
	MPI_Comm ec = MPI_COMM_WORLD;
	for (int i = 0; *flag && i < count; i++) {
		MPI_Status tmp;
		MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? &tmp : &statuses[i];
		if (!p.active[i])
			mpi_status_empty(st, MPI_ANY_SOURCE);
		else
			failed |= finish_one(reqs, i, st, &ec);
	}
	if (p.nsel > 0)
		mpi_bcs_note(MPI_FN_Testall, p.k, (uint32_t)p.nsel, sel_mask(&p),
		             -1, -1);
	pick_free(&p);
	if (failed)
		return mpi_err(ec, MPI_ERR_IN_STATUS, MPI_FN_Testall,
		               "a request failed (see its status's MPI_ERROR)");
	return MPI_SUCCESS;
}

/* MPI_Testsome and MPI_Waitsome (block). */
static int
some_rr(enum mpi_fn fn, bool block, int incount, MPI_Request reqs[],
        int *outcount, int indices[], MPI_Status statuses[])
{
	struct pick p;
	if (decide(fn, SOME, incount, reqs, &p, block) != 0)
		return no_mem(fn);
	if (p.nactive == 0) {
		*outcount = MPI_UNDEFINED;
		pick_free(&p);
		return MPI_SUCCESS;
	}
	int n = 0;
	bool failed = false;
	MPI_Comm ec = MPI_COMM_WORLD;
	uint64_t mask = sel_mask(&p);
	for (int i = 0; i < incount; i++) {
		if (!p.sel[i])
			continue;
		MPI_Status tmp;
		MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? &tmp : &statuses[n];
		failed |= finish_one(reqs, i, st, &ec);
		indices[n++] = i;
	}
	*outcount = n;
	if (n > 0)
		mpi_bcs_note(fn, p.k, (uint32_t)n, mask, -1, -1);
	pick_free(&p);
	if (failed)
		return mpi_err(ec, MPI_ERR_IN_STATUS, fn,
		               "a request failed (see its status's MPI_ERROR)");
	return MPI_SUCCESS;
}

int
mpi_bcs_testsome(int incount, MPI_Request reqs[], int *outcount,
                 int indices[], MPI_Status statuses[])
{
	return some_rr(MPI_FN_Testsome, false, incount, reqs, outcount, indices,
	               statuses);
}

int
mpi_bcs_waitsome(int incount, MPI_Request reqs[], int *outcount,
                 int indices[], MPI_Status statuses[])
{
	return some_rr(MPI_FN_Waitsome, true, incount, reqs, outcount, indices,
	               statuses);
}
