/* The schedule engine of the collectives (see coll_sched.h) and the
 * argument checks they share. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/coll_sched.h"

/* Yields before a collective's wait sleeps, when ranks outnumber cores.
 * A rank that sleeps on its futex leaves its core idle when nothing else
 * is runnable there, and waking an idle core costs tens of microseconds
 * (an interrupt to another CPU; far more in a virtual machine): measured
 * with 8 ranks on 2 cores, a barrier took 35-50 us sleeping at once and
 * 6-15 us with a few yields first, which hand the core straight to the
 * ranks the collective waits for.  Bounded, so a long wait still sleeps
 * after a few microseconds; any count from 1 to 64 measured the same.
 * A schedule's wait yields again each time one of its rounds completes
 * (allreduce of 256 KiB, 8 ranks on 2 cores: 1250 -> 500 us). */
#define COLL_YIELDS 8

/* Rounds completed by any schedule so far (mpi_coll_wait). */
static uint64_t sched_moves;

/* Schedules started and not finished, oldest first: the progress engine
 * advances them in the order they were started. */
static struct mpi_sched *active_head, *active_tail;
/* Set while a schedule advances: posting a send may run the progress
 * engine, which must not re-enter a schedule half-way through a step. */
static bool advancing;

/* ---- building ----------------------------------------------------------- */

struct mpi_sched *
mpi_sched_new(MPI_Comm comm, enum mpi_fn fn)
{
	struct mpi_sched *s = calloc(1, sizeof *s);
	/* The tag is taken even when out of memory, so that this rank's
	 * later collectives keep the numbers its peers use. */
	uint32_t seq = comm->coll_seq++;
	if (!s)
		return NULL;
	s->comm = comm;
	/* Tags are non-negative ints; the sequence wraps long after any
	 * collective that could still be in flight is done. */
	s->tag = (int)(seq & 0x3fffffff);
	s->fn = fn;
	return s;
}

static void
release_types(struct mpi_step *st)
{
	if (st->dt && !st->dt->predefined)
		mpi_dt_release(st->dt);
	if (st->ddt && !st->ddt->predefined)
		mpi_dt_release(st->ddt);
}

void
mpi_sched_free(struct mpi_sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsteps; i++)
		release_types(&s->steps[i]);
	for (size_t i = 0; i < s->npending; i++)
		mpi_request_free_internal(s->pending[i]);
	while (s->bufs) {
		struct mpi_sched_buf *b = s->bufs;
		s->bufs = b->next;
		free(b);
	}
	free(s->steps);
	free(s->pending);
	free(s);
}

static struct mpi_step *
add_step(struct mpi_sched *s, enum mpi_step_kind kind)
{
	if (s->err)
		return NULL;
	if (s->nsteps == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct mpi_step *n = realloc(s->steps, cap * sizeof *n);
		if (!n) {
			s->err = MPI_ERR_INTERN;
			return NULL;
		}
		s->steps = n;
		s->cap = cap;
	}
	struct mpi_step *st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof *st);
	st->kind = kind;
	return st;
}

/* A non-blocking collective may outlive the user's handle of a derived
 * type (MPI_Type_free is allowed while operations use it): each step
 * holds a reference. */
static MPI_Datatype
hold(MPI_Datatype dt)
{
	if (dt && !dt->predefined)
		mpi_dt_retain(dt);
	return dt;
}

void
mpi_sched_send(struct mpi_sched *s, const void *buf, size_t count,
               MPI_Datatype dt, int peer)
{
	struct mpi_step *st = add_step(s, MPI_STEP_SEND);
	if (!st)
		return;
	st->src = buf;
	st->count = count;
	st->dt = hold(dt);
	st->peer = peer;
}

void
mpi_sched_send_blocking(struct mpi_sched *s, const void *buf, size_t count,
                        MPI_Datatype dt, int peer)
{
	mpi_sched_send(s, buf, count, dt, peer);
	if (!s->err)
		s->steps[s->nsteps - 1].mode = MPI_FN_Send;
}

void
mpi_sched_recv(struct mpi_sched *s, void *buf, size_t count, MPI_Datatype dt,
               int peer)
{
	struct mpi_step *st = add_step(s, MPI_STEP_RECV);
	if (!st)
		return;
	st->dst = buf;
	st->count = count;
	st->dt = hold(dt);
	st->peer = peer;
}

void
mpi_sched_copy(struct mpi_sched *s, const void *src, size_t scount,
               MPI_Datatype sdt, void *dst, size_t dcount, MPI_Datatype ddt)
{
	if (scount == 0 || dcount == 0 || src == dst)
		return;
	struct mpi_step *st = add_step(s, MPI_STEP_COPY);
	if (!st)
		return;
	st->src = src;
	st->count = scount;
	st->dt = hold(sdt);
	st->dst = dst;
	st->dcount = dcount;
	st->ddt = hold(ddt);
}

void
mpi_sched_reduce(struct mpi_sched *s, const void *src, void *dst,
                 size_t count, MPI_Datatype dt, MPI_Op op)
{
	if (count == 0)
		return;
	struct mpi_step *st = add_step(s, MPI_STEP_REDUCE);
	if (!st)
		return;
	st->src = src;
	st->dst = dst;
	st->count = count;
	st->dt = hold(dt);
	st->op = op;
}

void
mpi_sched_fence(struct mpi_sched *s)
{
	/* Two fences in a row, or one at the start, wait for nothing. */
	if (s->nsteps == 0 || s->steps[s->nsteps - 1].kind == MPI_STEP_FENCE)
		return;
	add_step(s, MPI_STEP_FENCE);
}

void *
mpi_sched_alloc(struct mpi_sched *s, size_t bytes)
{
	if (s->err)
		return NULL;
	struct mpi_sched_buf *b = malloc(sizeof *b + (bytes ? bytes : 1));
	if (!b) {
		s->err = MPI_ERR_INTERN;
		return NULL;
	}
	b->next = s->bufs;
	s->bufs = b;
	return b->data;
}

void *
mpi_sched_tmpbuf(struct mpi_sched *s, size_t count, MPI_Datatype dt)
{
	if (count == 0)
		return mpi_sched_alloc(s, 1);
	/* The span the items touch: from the first item's true lower bound
	 * to the last item's true upper bound. */
	size_t span = (size_t)dt->true_extent +
	              (count - 1) * (size_t)(dt->extent < 0 ? -dt->extent
	                                                    : dt->extent);
	char *p = mpi_sched_alloc(s, span);
	if (!p)
		return NULL;
	if (dt->extent < 0)
		p += (count - 1) * (size_t)-dt->extent;
	return p - dt->true_lb;
}

/* ---- local steps ----------------------------------------------------------- */

void
mpi_coll_copy(const void *src, size_t scount, MPI_Datatype sdt, void *dst,
              size_t dcount, MPI_Datatype ddt)
{
	size_t bytes = scount * sdt->size;
	if (dcount * ddt->size < bytes)
		bytes = dcount * ddt->size;
	if (bytes == 0)
		return;
	bool sc = mpi_dt_is_contig(sdt, scount);
	bool dc = mpi_dt_is_contig(ddt, dcount);
	if (sc && dc) {
		memmove((char *)dst + ddt->true_lb,
		        (const char *)src + sdt->true_lb, bytes);
	} else if (dc) {
		mpi_dt_pack(sdt, src, scount, (char *)dst + ddt->true_lb, 0,
		            bytes);
	} else if (sc) {
		mpi_dt_unpack(ddt, dst, dcount, (const char *)src + sdt->true_lb,
		              0, bytes);
	} else {
		/* Through a bounce buffer, a chunk at a time. */
		char tmp[4096];
		for (size_t off = 0; off < bytes; off += sizeof tmp) {
			size_t len = bytes - off < sizeof tmp ? bytes - off
			                                      : sizeof tmp;
			mpi_dt_pack(sdt, src, scount, tmp, off, len);
			mpi_dt_unpack(ddt, dst, dcount, tmp, off, len);
		}
	}
}

static void
set_err(struct mpi_sched *s, int rc)
{
	if (rc != MPI_SUCCESS && s->err == MPI_SUCCESS)
		s->err = rc;
}

static int
post(struct mpi_sched *s, struct mpi_step *st)
{
	if (s->npending == s->pcap) {
		size_t cap = s->pcap ? 2 * s->pcap : 8;
		MPI_Request *n = realloc(s->pending, cap * sizeof *n);
		if (!n)
			return MPI_ERR_INTERN;
		s->pending = n;
		s->pcap = cap;
	}
	MPI_Request r = MPI_REQUEST_NULL;
	int rc;
	if (st->kind == MPI_STEP_SEND)
		rc = mpi_isend_ctx(st->src, st->count, st->dt, st->peer, s->tag,
		                   s->comm, s->comm->ctx_coll,
		                   st->mode ? st->mode : MPI_FN_Isend, &r);
	else
		rc = mpi_irecv_ctx(st->dst, st->count, st->dt, st->peer, s->tag,
		                   s->comm, s->comm->ctx_coll, &r);
	if (rc == MPI_SUCCESS && r != MPI_REQUEST_NULL)
		s->pending[s->npending++] = r;
	return rc;
}

/* Frees the requests of the round that completed; true when none is
 * left. */
static bool
reap(struct mpi_sched *s, int *ev)
{
	size_t keep = 0;
	for (size_t i = 0; i < s->npending; i++) {
		MPI_Request r = s->pending[i];
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
			set_err(s, r->status.MPI_ERROR);
			mpi_request_free_internal(r);
			(*ev)++;
		} else {
			s->pending[keep++] = r;
		}
	}
	s->npending = keep;
	return keep == 0;
}

/* Runs steps until the schedule ends or waits on a round; returns the
 * number of things that happened (0: nothing). */
static int
advance(struct mpi_sched *s)
{
	int ev = 0;
	while (!s->finished) {
		if (s->next == s->nsteps ||
		    s->steps[s->next].kind == MPI_STEP_FENCE) {
			if (!reap(s, &ev))
				return ev;
			sched_moves++;
			if (s->next == s->nsteps) {
				s->finished = true;
				return ev + 1;
			}
			s->next++;
			continue;
		}
		struct mpi_step *st = &s->steps[s->next++];
		const char *why = NULL;
		switch (st->kind) {
		case MPI_STEP_SEND:
		case MPI_STEP_RECV:
			set_err(s, post(s, st));
			break;
		case MPI_STEP_COPY:
			mpi_coll_copy(st->src, st->count, st->dt, st->dst,
			              st->dcount, st->ddt);
			break;
		case MPI_STEP_REDUCE:
			/* Checked before the schedule was built; an error here
			 * still completes the schedule so the peers do not
			 * hang. */
			set_err(s, mpi_op_apply(st->op, st->src, st->dst,
			                        st->count, st->dt, &why));
			break;
		case MPI_STEP_FENCE:
			break;
		}
		ev++;
	}
	return ev;
}

static void
unlink_active(struct mpi_sched *s)
{
	if (s->prev_active)
		s->prev_active->next_active = s->next_active;
	else
		active_head = s->next_active;
	if (s->next_active)
		s->next_active->prev_active = s->prev_active;
	else
		active_tail = s->prev_active;
	s->prev_active = s->next_active = NULL;
}

/* Ends a finished schedule: takes it off the active list; a non-blocking
 * one also fills and completes its request and is freed (a blocking one
 * is freed by mpi_sched_run, which reads its error). */
static void
complete(struct mpi_sched *s)
{
	MPI_Request req = s->req;
	unlink_active(s);
	if (!req)
		return;
	req->status.MPI_SOURCE = MPI_ANY_SOURCE;
	req->status.MPI_TAG = MPI_ANY_TAG;
	req->status.MPI_ERROR = s->err;
	req->status.grove_cancelled_ = 0;
	req->status.grove_count_ = 0;
	req->sched = NULL;
	mpi_sched_free(s);
	__atomic_store_n(&req->done, true, __ATOMIC_RELEASE);
	/* Freeing an active collective request is erroneous, but if a
	 * program did, the request is not leaked. */
	if (req->freed && !req->persistent)
		mpi_request_free_internal(req);
}

int
mpi_sched_progress_all(void)
{
	if (advancing || !active_head)
		return 0;
	advancing = true;
	int ev = 0;
	struct mpi_sched *s = active_head;
	while (s) {
		struct mpi_sched *next = s->next_active;
		ev += advance(s);
		if (s->finished)
			complete(s);
		s = next;
	}
	advancing = false;
	return ev;
}

/* Puts a schedule on the active list and runs its first round, so that
 * its first messages leave before the call returns. */
static void
activate(struct mpi_sched *s)
{
	s->started = true;
	s->prev_active = active_tail;
	s->next_active = NULL;
	if (active_tail)
		active_tail->next_active = s;
	else
		active_head = s;
	active_tail = s;
	if (!advancing) {
		advancing = true;
		advance(s);
		advancing = false;
		if (s->finished)
			complete(s);
	}
}

int
mpi_sched_start(struct mpi_sched *s, MPI_Request *out)
{
	if (s->err) {
		int rc = s->err;
		mpi_sched_free(s);
		return rc;
	}
	MPI_Request req = mpi_request_new(MPI_REQ_COLL);
	if (!req) {
		mpi_sched_free(s);
		return MPI_ERR_INTERN;
	}
	/* The request keeps the communicator alive until it is freed, so a
	 * program may free its handle while the collective runs (the
	 * requests of a round hold references too, but not between
	 * rounds). */
	req->comm = s->comm;
	mpi_comm_retain(s->comm);
	req->holds_refs = true;
	req->sched = s;
	req->done = false;
	s->req = req;
	*out = req;
	activate(s); /* may complete (and free) s at once */
	return MPI_SUCCESS;
}

struct coll_wait {
	bool (*done)(void *);
	void *arg;
	uint64_t mark;
};

/* Done, or a schedule moved on (the next round may have a peer that is
 * runnable on this core: worth yielding again before sleeping). */
static bool
done_or_moved(void *p)
{
	struct coll_wait *w = p;
	return w->done(w->arg) || sched_moves != w->mark;
}

void
mpi_coll_wait(bool (*done)(void *), void *arg)
{
	/* BCS mode: nothing completes before the node manager's next slice,
	 * so yielding to the ranks of the collective buys nothing. */
	if (mpi_spin_budget() > 0 || mpi_bcs_mode) {
		mpi_progress_until(done, arg);
		return;
	}
	struct coll_wait w = {done, arg, 0};
	while (!done(arg)) {
		for (int i = 0; i < COLL_YIELDS; i++) {
			mpi_progress();
			if (done(arg))
				return;
			sched_yield();
		}
		w.mark = sched_moves;
		mpi_progress_until(done_or_moved, &w);
	}
}

static bool
sched_done(void *arg)
{
	return ((struct mpi_sched *)arg)->finished;
}

int
mpi_sched_run(struct mpi_sched *s)
{
	if (s->err) {
		int rc = s->err;
		mpi_sched_free(s);
		return rc;
	}
	/* On the active list like a non-blocking one: mpi_progress advances
	 * it with the others (and counts what it did, so the waiting loop
	 * does not sleep while the schedule moves). */
	activate(s);
	mpi_coll_wait(sched_done, s);
	int rc = s->err;
	mpi_sched_free(s);
	return rc;
}

/* ---- argument checks ------------------------------------------------------- */

int
mpi_coll_check_comm(MPI_Comm comm, enum mpi_fn fn)
{
	if (comm == MPI_COMM_NULL || mpi_comm_check(comm) != MPI_SUCCESS)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_COMM, fn,
		               "invalid communicator");
	/* Every collective checks its communicator first: the event space
	 * learns here which one the call is on. */
	mpi_call_comm(comm);
	return MPI_SUCCESS;
}

int
mpi_coll_check_count(MPI_Comm comm, enum mpi_fn fn, int count,
                     const char *what)
{
	if (count < 0)
		return mpi_err(comm, MPI_ERR_COUNT, fn, "%s %d is negative",
		               what, count);
	return MPI_SUCCESS;
}

int
mpi_coll_check_type(MPI_Comm comm, enum mpi_fn fn, MPI_Datatype dt,
                    const char *what)
{
	const char *why = NULL;
	if (dt == MPI_DATATYPE_NULL)
		return mpi_err(comm, MPI_ERR_TYPE, fn, "%s is MPI_DATATYPE_NULL",
		               what);
	if (mpi_dt_check(dt, &why) != MPI_SUCCESS)
		return mpi_err(comm, MPI_ERR_TYPE, fn, "%s: %s", what,
		               why ? why : "invalid datatype");
	return MPI_SUCCESS;
}

int
mpi_coll_check_buf(MPI_Comm comm, enum mpi_fn fn, int count, MPI_Datatype dt,
                   const char *what)
{
	char name[48];
	snprintf(name, sizeof name, "%s count", what);
	int rc = mpi_coll_check_count(comm, fn, count, name);
	if (rc)
		return rc;
	snprintf(name, sizeof name, "%s datatype", what);
	return mpi_coll_check_type(comm, fn, dt, name);
}

int
mpi_coll_check_root(MPI_Comm comm, enum mpi_fn fn, int root)
{
	if (root < 0 || root >= comm->size)
		return mpi_err(comm, MPI_ERR_ROOT, fn, "root %d is not in [0, %d)",
		               root, comm->size);
	return MPI_SUCCESS;
}

int
mpi_coll_check_op(MPI_Comm comm, enum mpi_fn fn, MPI_Op op, MPI_Datatype dt)
{
	const char *why = NULL;
	if (op == MPI_OP_NULL)
		return mpi_err(comm, MPI_ERR_OP, fn, "op is MPI_OP_NULL");
	if (mpi_op_check(op, dt, &why) != MPI_SUCCESS)
		return mpi_err(comm, MPI_ERR_OP, fn, "%s",
		               why ? why : "op does not apply to the datatype");
	return MPI_SUCCESS;
}

int
mpi_coll_check_request(MPI_Comm comm, enum mpi_fn fn, const MPI_Request *req)
{
	if (!req) {
		/* comm may be invalid too: then MPI_COMM_WORLD's handler. */
		if (comm == MPI_COMM_NULL || mpi_comm_check(comm) != MPI_SUCCESS)
			comm = MPI_COMM_NULL;
		return mpi_err(comm, MPI_ERR_REQUEST, fn,
		               "request pointer is NULL");
	}
	return MPI_SUCCESS;
}

int
mpi_coll_err_in_place(MPI_Comm comm, enum mpi_fn fn, const char *what)
{
	return mpi_err(comm, MPI_ERR_BUFFER, fn,
	               "MPI_IN_PLACE is not allowed as %s here", what);
}
