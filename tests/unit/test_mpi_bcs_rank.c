/* Unit tests of the rank side of Grove MPI's BCS mode (src/mpi/bcs_*.c),
 * in one process: rank 0 of a job of 4 ranks whose node manager is a
 * thread of this test playing the descriptor protocol (bcs_desc.h) over
 * a real job segment.  The fake node manager matches rank 0's messages to
 * itself in posting order, answers probes and cancels, plays the other
 * three ranks where a collective needs them (a broadcast's root fills a
 * pattern, every rank contributes what rank 0 does, a peer's message is
 * ten in every int), and logs every descriptor, so each test checks both
 * what the MPI call returned and what it asked of the node manager. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <mpi.h>

#include "mpi/bcs_rank.h"
#include "mpi/job.h"
#include "mpi/op.h"
#include "mpi/ring.h"

#define NRANKS 4
/* Small rings: 32 descriptors fill one. */
#define RING 4096
#define MAXQ 1024
#define MAXLOG 16384

static struct mpi_job job;

/* ---- the fake node manager -------------------------------------------- */

struct q_entry {
	struct bcs_desc d;
	uint64_t taken_by; /* unexpected sends: the probe that took it */
	bool alive;
};

static struct {
	pthread_t th;
	pthread_mutex_t mu;          /* log, hold, stop */
	bool stop;
	bool hold;                   /* drain only once the ring is full */
	struct bcs_desc log[MAXLOG];
	size_t nlog;
	/* Only the thread touches these. */
	struct q_entry unexp[MAXQ], posted[MAXQ], probes[MAXQ];
	size_t nunexp, nposted, nprobes;
	uint64_t head_cache;
	bool published;
} NM;

static void
complete(const struct bcs_done *dn)
{
	uint32_t cap = job.hdr->bcs_ring_bytes;
	struct mpi_ring_hdr *r = mpi_job_bcs_from_nm(&job, 0);
	struct mpi_wire *w;
	/* Full: the rank drains it, when it runs; wake it and wait. */
	while ((w = mpi_ring_reserve(r, cap, mpi_wire_rec_bytes(sizeof(*dn)),
	                             &NM.head_cache)) == NULL) {
		mpi_wake(0);
		sched_yield();
	}
	w->type = MPI_W_BCS;
	memcpy((char *)w + MPI_WIRE_HDR, dn, sizeof(*dn));
	mpi_ring_commit(r, cap, w);
	NM.published = true;
}

static void
done_simple(const struct bcs_desc *d, uint64_t bytes, int error)
{
	struct bcs_done dn = {.req = d->req, .kind = d->kind, .bytes = bytes,
	                      .source = -1, .tag = -1, .error = error};
	complete(&dn);
}

static bool
matches(const struct bcs_desc *recv, const struct bcs_desc *send)
{
	return recv->ctx == send->ctx && (recv->peer < 0 || recv->peer == send->me) &&
	       (recv->tag < 0 || recv->tag == send->tag);
}

static void
transfer(const struct bcs_desc *send, const struct bcs_desc *recv)
{
	uint64_t n = send->bytes < recv->bytes ? send->bytes : recv->bytes;
	if (n)
		memcpy((void *)(uintptr_t)recv->addr,
		       (const void *)(uintptr_t)send->addr, n);
	struct bcs_done r = {.req = recv->req, .kind = BCS_D_RECV, .bytes = n,
	                     .source = send->me, .tag = send->tag,
	                     .error = send->bytes > recv->bytes ? MPI_ERR_TRUNCATE
	                                                         : 0};
	complete(&r);
	done_simple(send, send->bytes, 0);
}

static void
answer_probe(const struct bcs_desc *d, struct q_entry *m)
{
	struct bcs_done dn = {.req = d->req, .kind = BCS_D_PROBE,
	                      .found = m != NULL, .source = -1, .tag = -1};
	if (m) {
		dn.source = m->d.me;
		dn.tag = m->d.tag;
		dn.bytes = m->d.bytes;
		if (d->flags & BCS_F_TAKE)
			m->taken_by = d->req;
	}
	complete(&dn);
}

static struct q_entry *
find_unexp(const struct bcs_desc *recv)
{
	for (size_t i = 0; i < NM.nunexp; i++)
		if (NM.unexp[i].alive && !NM.unexp[i].taken_by &&
		    matches(recv, &NM.unexp[i].d))
			return &NM.unexp[i];
	return NULL;
}

static void
push(struct q_entry *q, size_t *n, const struct bcs_desc *d)
{
	assert_true(*n < MAXQ);
	q[*n] = (struct q_entry){.d = *d, .alive = true};
	(*n)++;
}

/* Fills n bytes at addr with what the fake peers send: ints of ten. */
static void
peer_data(uint64_t addr, uint64_t n)
{
	int ten = 10;
	for (uint64_t off = 0; off + sizeof(int) <= n; off += sizeof(int))
		memcpy((char *)(uintptr_t)addr + off, &ten, sizeof(int));
}

static void
reduce(const struct bcs_desc *d)
{
	if (d->op != MPI_OPI_SUM || d->basic != MPI_B_INT) {
		done_simple(d, d->bytes, MPI_ERR_OP);
		return;
	}
	/* Every rank contributes what rank 0 does. */
	const int *in = (const int *)(uintptr_t)(d->flags & BCS_F_IN_PLACE
	                                         ? d->addr2 : d->addr);
	int *out = (int *)(uintptr_t)d->addr2;
	if (out)
		for (uint32_t i = 0; i < d->count; i++)
			out[i] = NRANKS * in[i];
	done_simple(d, d->bytes, 0);
}

static void
handle(const struct bcs_desc *d)
{
	switch (d->kind) {
	case BCS_D_SEND:
		if (d->peer_world != 0) {
			done_simple(d, d->bytes, 0); /* a fake peer took it */
			return;
		}
		for (size_t i = 0; i < NM.nposted; i++) {
			struct q_entry *q = &NM.posted[i];
			if (q->alive && !(q->d.flags & BCS_F_TAKEN) &&
			    matches(&q->d, d)) {
				q->alive = false;
				transfer(d, &q->d);
				return;
			}
		}
		push(NM.unexp, &NM.nunexp, d);
		return;
	case BCS_D_RECV:
		if (d->flags & BCS_F_TAKEN) {
			for (size_t i = 0; i < NM.nunexp; i++) {
				struct q_entry *m = &NM.unexp[i];
				if (m->alive && m->taken_by == d->addr2) {
					m->alive = false;
					transfer(&m->d, d);
					return;
				}
			}
			done_simple(d, 0, MPI_ERR_REQUEST);
			return;
		}
		if (d->peer > 0) {
			peer_data(d->addr, d->bytes);
			struct bcs_done dn = {.req = d->req, .kind = BCS_D_RECV,
			                      .bytes = d->bytes, .source = d->peer,
			                      .tag = d->tag};
			complete(&dn);
			return;
		}
		struct q_entry *m = find_unexp(d);
		if (m) {
			m->alive = false;
			transfer(&m->d, d);
			return;
		}
		push(NM.posted, &NM.nposted, d);
		return;
	case BCS_D_CANCEL: {
		bool found = false;
		for (size_t i = 0; i < NM.nposted && !found; i++)
			if (NM.posted[i].alive && NM.posted[i].d.req == d->req) {
				NM.posted[i].alive = false;
				found = true;
			}
		struct bcs_done dn = {.req = d->req, .kind = BCS_D_CANCEL,
		                      .found = found, .source = -1, .tag = -1};
		complete(&dn);
		return;
	}
	case BCS_D_PROBE: {
		struct q_entry *m = find_unexp(d);
		if (m || !(d->flags & BCS_F_BLOCKING))
			answer_probe(d, m);
		else
			push(NM.probes, &NM.nprobes, d);
		return;
	}
	case BCS_D_BARRIER:
		done_simple(d, 0, 0);
		return;
	case BCS_D_BCAST:
		if (d->peer != 0)
			for (uint64_t i = 0; i < d->bytes; i++)
				((unsigned char *)(uintptr_t)d->addr)[i] =
					(unsigned char)(0xB0 + i % 16);
		done_simple(d, d->bytes, 0);
		return;
	case BCS_D_REDUCE:
	case BCS_D_ALLREDUCE:
		reduce(d);
		return;
	default: /* notes, finalize: only logged */
		return;
	}
}

static void
waiting_probes(void)
{
	for (size_t i = 0; i < NM.nprobes; i++) {
		struct q_entry *p = &NM.probes[i];
		struct q_entry *m = p->alive ? find_unexp(&p->d) : NULL;
		if (m) {
			p->alive = false;
			answer_probe(&p->d, m);
		}
	}
}

static void *
nm_main(void *arg)
{
	(void)arg;
	uint32_t cap = job.hdr->bcs_ring_bytes;
	struct mpi_ring_hdr *in = mpi_job_bcs_to_nm(&job, 0);
	__atomic_store_n(&job.hdr->bcs_nm_pid, (int32_t)getpid(),
	                 __ATOMIC_RELEASE);
	for (;;) {
		pthread_mutex_lock(&NM.mu);
		bool stop = NM.stop, hold = NM.hold;
		pthread_mutex_unlock(&NM.mu);
		if (stop)
			return NULL;
		if (hold && !__atomic_load_n(&in->want_space, __ATOMIC_ACQUIRE)) {
			sched_yield();
			continue;
		}
		struct mpi_wire *w;
		while ((w = mpi_ring_peek(in, cap)) != NULL) {
			struct bcs_desc d;
			assert_int_equal(w->type, MPI_W_BCS);
			memcpy(&d, (char *)w + MPI_WIRE_HDR, sizeof(d));
			mpi_ring_release(in, cap, w);
			pthread_mutex_lock(&NM.mu);
			assert_true(NM.nlog < MAXLOG);
			NM.log[NM.nlog++] = d;
			NM.hold = false;
			pthread_mutex_unlock(&NM.mu);
			handle(&d);
		}
		waiting_probes();
		if (mpi_ring_space_wanted(in) || NM.published) {
			NM.published = false;
			mpi_wake(0);
		}
		struct timespec ts = {0, 20000};
		nanosleep(&ts, NULL);
	}
}

/* ---- the log, as the tests read it --------------------------------------- */

static size_t
log_mark(void)
{
	pthread_mutex_lock(&NM.mu);
	size_t n = NM.nlog;
	pthread_mutex_unlock(&NM.mu);
	return n;
}

/* The first descriptor of kind logged at or after *from (which moves past
 * it); fails the test when there is none. */
static struct bcs_desc
next_desc(size_t *from, int kind)
{
	pthread_mutex_lock(&NM.mu);
	for (size_t i = *from; i < NM.nlog; i++)
		if (NM.log[i].kind == kind) {
			struct bcs_desc d = NM.log[i];
			*from = i + 1;
			pthread_mutex_unlock(&NM.mu);
			return d;
		}
	pthread_mutex_unlock(&NM.mu);
	fail_msg("no descriptor of kind %d logged from %zu", kind, *from);
	return (struct bcs_desc){0};
}

/* The same for a descriptor posted by a call that does not wait for the
 * node manager (a note): waits until it is logged (no time limit of its
 * own: the test's timeout is the limit). */
static struct bcs_desc
await_desc(size_t *from, int kind)
{
	for (;;) {
		pthread_mutex_lock(&NM.mu);
		for (size_t i = *from; i < NM.nlog; i++)
			if (NM.log[i].kind == kind) {
				struct bcs_desc d = NM.log[i];
				*from = i + 1;
				pthread_mutex_unlock(&NM.mu);
				return d;
			}
		pthread_mutex_unlock(&NM.mu);
		sched_yield();
	}
}

static size_t
count_kind(size_t from, int kind)
{
	size_t n = 0;
	pthread_mutex_lock(&NM.mu);
	for (size_t i = from; i < NM.nlog; i++)
		n += NM.log[i].kind == kind;
	pthread_mutex_unlock(&NM.mu);
	return n;
}

static uint64_t
id(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ---- set-up ------------------------------------------------------------- */

static int
start_bcs(void)
{
	char err[256];
	if (mpi_bcs_init(&job, 0, NRANKS, 30.0, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpi_bcs_init: %s\n", err);
		return -1;
	}
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	unsetenv("GROVE_BCS_RECORD");
	unsetenv("GROVE_BCS_REPLAY");
	unsetenv("GROVE_MPI_BCS");
	if (mpi_job_create(&job, NRANKS, "bcs-unit", RING) != 0)
		return -1;
	mpi_proc.rank = 0;
	mpi_proc.size = NRANKS;
	mpi_proc.job = &job;
	pthread_mutex_init(&NM.mu, NULL);
	if (pthread_create(&NM.th, NULL, nm_main, NULL) != 0)
		return -1;
	if (start_bcs() != 0 || mpi_comm_init_world(0, NRANKS) != 0)
		return -1;
	mpi_proc.state = 1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	pthread_mutex_lock(&NM.mu);
	NM.stop = true;
	pthread_mutex_unlock(&NM.mu);
	pthread_join(NM.th, NULL);
	mpi_bcs_fini();
	mpi_comm_fini();
	mpi_proc.state = 2;
	mpi_job_close(&job);
	return 0;
}

/* ---- tests --------------------------------------------------------------- */

static void
test_init_needs_a_node_manager(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(mpi_bcs_detect(&job, err, sizeof(err)), 1);
	struct mpi_job direct;
	assert_int_equal(mpi_job_create(&direct, 1, "bcs-unit-direct", 0), 0);
	assert_int_equal(mpi_bcs_detect(&direct, err, sizeof(err)), 0);
	setenv("GROVE_MPI_BCS", "1", 1);
	assert_int_equal(mpi_bcs_detect(&direct, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no BCS area"));
	unsetenv("GROVE_MPI_BCS");
	mpi_job_close(&direct);

	/* A segment no node manager took: a clear error when the wait ends. */
	struct mpi_job alone;
	assert_int_equal(mpi_job_create(&alone, NRANKS, "bcs-unit-alone", RING),
	                 0);
	mpi_bcs_fini();
	assert_int_equal(mpi_bcs_init(&alone, 0, NRANKS, 0.0, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "no node manager took the job"));
	assert_false(mpi_bcs_mode);
	mpi_job_close(&alone);
	assert_int_equal(start_bcs(), 0);
	assert_true(mpi_bcs_mode);
	assert_false(mpi_bcs_rr);
}

static void
test_send_and_receive(void **state)
{
	(void)state;
	size_t from = log_mark();
	int out = 42, in = 0;
	MPI_Request r;
	MPI_Status st;
	assert_int_equal(MPI_Isend(&out, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r), 0);
	uint64_t rid = id(r);
	assert_int_equal(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
	                          MPI_COMM_WORLD, &st),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(in, 42);
	assert_int_equal(st.MPI_SOURCE, 0);
	assert_int_equal(st.MPI_TAG, 5);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 1);

	struct bcs_desc s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.flags, 0);
	assert_int_equal(s.ctx, MPI_COMM_WORLD->ctx_p2p);
	assert_int_equal(s.me, 0);
	assert_int_equal(s.peer, 0);
	assert_int_equal(s.peer_world, 0);
	assert_int_equal(s.tag, 5);
	assert_int_equal(s.bytes, sizeof(int));
	assert_int_equal(s.addr, id(&out));
	assert_int_equal(s.req, rid);
	struct bcs_desc rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.flags, BCS_F_BLOCKING);
	assert_int_equal(rv.peer, -1);
	assert_int_equal(rv.peer_world, -1);
	assert_int_equal(rv.tag, -1);
	assert_int_equal(rv.bytes, sizeof(int));
	assert_int_equal(rv.addr, id(&in));

	/* Synchronous and blocking sends say so. */
	from = log_mark();
	assert_int_equal(MPI_Issend(&out, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(&in, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &st), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.flags, BCS_F_SYNC);
	rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.peer, 0);
	assert_int_equal(rv.peer_world, 0);
	assert_int_equal(rv.tag, 6);
	from = log_mark();
	MPI_Request rr;
	assert_int_equal(MPI_Irecv(&in, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rr), 0);
	assert_int_equal(MPI_Send(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Wait(&rr, MPI_STATUS_IGNORE), 0);
	rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.flags, 0);
	s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.flags, BCS_F_BLOCKING);
}

static void
test_noncontiguous_is_packed(void **state)
{
	(void)state;
	MPI_Datatype vec;
	assert_int_equal(MPI_Type_vector(3, 1, 2, MPI_INT, &vec), 0);
	assert_int_equal(MPI_Type_commit(&vec), 0);
	int out[6] = {10, 11, 12, 13, 14, 15}, in[6] = {0};
	MPI_Request r;
	size_t from = log_mark();
	assert_int_equal(MPI_Isend(out, 1, vec, 0, 8, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(in, 1, vec, 0, 8, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	int want[6] = {10, 0, 12, 0, 14, 0};
	assert_memory_equal(in, want, sizeof(want));
	struct bcs_desc s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.bytes, 3 * sizeof(int));
	assert_int_not_equal(s.addr, id(out));
	struct bcs_desc rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.bytes, 3 * sizeof(int));
	assert_int_not_equal(rv.addr, id(in));
	MPI_Type_free(&vec);
}

static void
test_zero_bytes_and_proc_null(void **state)
{
	(void)state;
	size_t from = log_mark();
	MPI_Request r;
	MPI_Status st;
	assert_int_equal(MPI_Isend(NULL, 0, MPI_INT, 0, 9, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(NULL, 0, MPI_INT, 0, 9, MPI_COMM_WORLD, &st), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	int n = -1;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 0);
	struct bcs_desc s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.bytes, 0);
	next_desc(&from, BCS_D_RECV);

	/* MPI_PROC_NULL posts nothing: only the barrier's descriptor. */
	from = log_mark();
	int x = 1;
	assert_int_equal(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1,
	                          MPI_COMM_WORLD),
	                 0);
	assert_int_equal(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
	                          &st),
	                 0);
	assert_int_equal(st.MPI_SOURCE, MPI_PROC_NULL);
	assert_int_equal(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 1,
	                           MPI_COMM_WORLD, &r),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), 0);
	assert_int_equal(log_mark() - from, 1);
	assert_int_equal(count_kind(from, BCS_D_BARRIER), 1);
}

static void
test_truncation(void **state)
{
	(void)state;
	int out[4] = {1, 2, 3, 4}, in[4] = {0};
	MPI_Request r;
	MPI_Status st;
	assert_int_equal(MPI_Isend(out, 4, MPI_INT, 0, 10, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(in, 2, MPI_INT, 0, 10, MPI_COMM_WORLD, &st),
	                 MPI_ERR_TRUNCATE);
	assert_int_equal(st.MPI_ERROR, MPI_ERR_TRUNCATE);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 2);
	assert_int_equal(in[0], 1);
	assert_int_equal(in[1], 2);
	assert_int_equal(in[2], 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
}

static void
test_cancel(void **state)
{
	(void)state;
	int x = 17, flag = -1;
	MPI_Request r;
	MPI_Status st;
	size_t from = log_mark();
	assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r), 0);
	uint64_t rid = id(r);
	assert_int_equal(MPI_Cancel(&r), 0);
	assert_int_equal(MPI_Wait(&r, &st), 0);
	MPI_Test_cancelled(&st, &flag);
	assert_int_equal(flag, 1);
	assert_int_equal(x, 17);
	struct bcs_desc c = next_desc(&from, BCS_D_CANCEL);
	assert_int_equal(c.req, rid);
	assert_int_equal(c.ctx, MPI_COMM_WORLD->ctx_p2p);

	/* Too late: the receive completes with its message. */
	int y = 5;
	MPI_Request s;
	assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Isend(&y, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Cancel(&r), 0);
	assert_int_equal(MPI_Wait(&r, &st), 0);
	MPI_Test_cancelled(&st, &flag);
	assert_int_equal(flag, 0);
	assert_int_equal(x, 5);
	/* The "not cancelled" answer comes after the request is gone: it
	 * must not be touched (ASan says when it is). */
	assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), 0);
}

static void
test_iprobe(void **state)
{
	(void)state;
	int v = 77, got = 0, flag = -1;
	MPI_Request s;
	MPI_Status st;
	size_t from = log_mark();
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &s), 0);
	/* The first call asks; the answer comes with a later one. */
	assert_int_equal(MPI_Iprobe(0, 12, MPI_COMM_WORLD, &flag, &st), 0);
	assert_int_equal(flag, 0);
	while (!flag)
		assert_int_equal(MPI_Iprobe(0, 12, MPI_COMM_WORLD, &flag, &st), 0);
	assert_int_equal(st.MPI_SOURCE, 0);
	assert_int_equal(st.MPI_TAG, 12);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 1);
	struct bcs_desc p = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(p.flags, 0);
	assert_int_equal(p.peer, 0);
	assert_int_equal(p.tag, 12);
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 12, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(got, 77);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Nothing there: "no" answers, and each answered call asks anew. */
	from = log_mark();
	while (count_kind(from, BCS_D_PROBE) < 3) {
		assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &flag,
		                            MPI_STATUS_IGNORE),
		                 0);
		assert_int_equal(flag, 0);
	}
	p = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(p.peer, -1);
	assert_int_equal(p.peer_world, -1);
}

static void
test_probe_and_matched_probe(void **state)
{
	(void)state;
	int v[2] = {3, 4}, got[2] = {0};
	MPI_Request s;
	MPI_Status st;
	size_t from = log_mark();
	assert_int_equal(MPI_Isend(v, 2, MPI_INT, 0, 14, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Probe(MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &st), 0);
	assert_int_equal(st.MPI_SOURCE, 0);
	assert_int_equal(st.MPI_TAG, 14);
	struct bcs_desc p = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(p.flags, BCS_F_BLOCKING);

	MPI_Message msg;
	assert_int_equal(MPI_Mprobe(0, 14, MPI_COMM_WORLD, &msg, &st), 0);
	struct bcs_desc mp = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(mp.flags, BCS_F_BLOCKING | BCS_F_TAKE);
	/* Taken: a receive does not get it, only MPI_Mrecv does. */
	assert_int_equal(MPI_Mrecv(got, 2, MPI_INT, &msg, &st), 0);
	assert_true(msg == MPI_MESSAGE_NULL);
	assert_int_equal(got[1], 4);
	struct bcs_desc rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.flags, BCS_F_TAKEN | BCS_F_BLOCKING);
	assert_int_equal(rv.addr2, mp.req);
	assert_int_equal(rv.peer, 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Improbe and Imrecv. */
	int flag = 0;
	assert_int_equal(MPI_Isend(v, 2, MPI_INT, 0, 15, MPI_COMM_WORLD, &s), 0);
	while (!flag)
		assert_int_equal(MPI_Improbe(0, 15, MPI_COMM_WORLD, &flag, &msg, &st),
		                 0);
	MPI_Request r;
	memset(got, 0, sizeof(got));
	assert_int_equal(MPI_Imrecv(got, 2, MPI_INT, &msg, &r), 0);
	assert_int_equal(MPI_Wait(&r, &st), 0);
	assert_int_equal(got[0], 3);
	assert_int_equal(st.MPI_TAG, 15);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
}

static void
test_bsend_completes_at_once(void **state)
{
	(void)state;
	static char buf[1024];
	assert_int_equal(MPI_Buffer_attach(buf, sizeof(buf)), 0);
	int v = 9, got = 0;
	assert_int_equal(MPI_Bsend(&v, 1, MPI_INT, 0, 16, MPI_COMM_WORLD), 0);
	v = 10; /* the message is a copy */
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 16, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(got, 9);
	void *b;
	int size;
	assert_int_equal(MPI_Buffer_detach(&b, &size), 0);
	assert_ptr_equal(b, buf);
}

static void
test_persistent(void **state)
{
	(void)state;
	int out = 0, in = -1;
	MPI_Request rq[2];
	assert_int_equal(MPI_Send_init(&out, 1, MPI_INT, 0, 17, MPI_COMM_WORLD,
	                               &rq[0]),
	                 0);
	assert_int_equal(MPI_Recv_init(&in, 1, MPI_INT, MPI_ANY_SOURCE, 17,
	                               MPI_COMM_WORLD, &rq[1]),
	                 0);
	for (int i = 0; i < 3; i++) {
		out = 100 + i;
		assert_int_equal(MPI_Startall(2, rq), 0);
		assert_int_equal(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), 0);
		assert_int_equal(in, 100 + i);
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);
}

static void
test_full_ring_waits_for_room(void **state)
{
	(void)state;
	enum { N = 100 }; /* more than three rings' worth */
	int out[N], in[N];
	MPI_Request s[N];
	pthread_mutex_lock(&NM.mu);
	NM.hold = true;
	pthread_mutex_unlock(&NM.mu);
	for (int i = 0; i < N; i++) {
		out[i] = i;
		assert_int_equal(MPI_Isend(&out[i], 1, MPI_INT, 0, 18, MPI_COMM_WORLD,
		                           &s[i]),
		                 0);
	}
	/* In order: the ring never reorders descriptors. */
	for (int i = 0; i < N; i++)
		assert_int_equal(MPI_Recv(&in[i], 1, MPI_INT, 0, 18, MPI_COMM_WORLD,
		                          MPI_STATUS_IGNORE),
		                 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(in[i], i);
	assert_int_equal(MPI_Waitall(N, s, MPI_STATUSES_IGNORE), 0);
}

static void
test_collectives_are_descriptors(void **state)
{
	(void)state;
	MPI_Comm w = MPI_COMM_WORLD;
	uint32_t seq = w->coll_seq;
	size_t from = log_mark();
	assert_int_equal(MPI_Barrier(w), 0);
	struct bcs_desc d = next_desc(&from, BCS_D_BARRIER);
	/* MPI_COMM_WORLD's rank 0 is world rank 0: ctx is ctx_coll itself. */
	assert_int_equal(d.ctx, w->ctx_coll);
	assert_int_equal(d.seq, seq);
	assert_int_equal(d.tag, NRANKS);
	assert_int_equal(d.me, 0);
	assert_int_equal(d.peer, -1);
	assert_int_equal(d.flags, BCS_F_BLOCKING);
	MPI_Request r;
	assert_int_equal(MPI_Ibarrier(w, &r), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	d = next_desc(&from, BCS_D_BARRIER);
	assert_int_equal(d.seq, seq + 1);
	assert_int_equal(d.flags, 0);

	/* Broadcast from rank 2 (the fake root's pattern). */
	unsigned char b[20] = {0};
	assert_int_equal(MPI_Bcast(b, 5, MPI_INT, 2, w), 0);
	for (int i = 0; i < 20; i++)
		assert_int_equal(b[i], 0xB0 + i % 16);
	d = next_desc(&from, BCS_D_BCAST);
	assert_int_equal(d.seq, seq + 2);
	assert_int_equal(d.peer, 2);
	assert_int_equal(d.peer_world, 2);
	assert_int_equal(d.bytes, 20);
	assert_int_equal(d.addr, id(b));
	/* A non-contiguous datatype: packed at the root, unpacked elsewhere. */
	MPI_Datatype vec;
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	int v[4] = {1, 2, 3, 4};
	assert_int_equal(MPI_Bcast(v, 1, vec, 0, w), 0);
	d = next_desc(&from, BCS_D_BCAST);
	assert_int_not_equal(d.addr, id(v));
	assert_int_equal(v[1], 2);
	assert_int_equal(MPI_Ibcast(v, 1, vec, 1, w, &r), 0);
	MPI_Type_free(&vec); /* the request keeps it */
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	unsigned char pat[8] = {0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7};
	assert_memory_equal(&v[0], pat, 4);
	assert_int_equal(v[1], 2);
	assert_memory_equal(&v[2], pat + 4, 4);

	/* Reductions of predefined ops on basic types. */
	int in[3] = {1, 2, 3}, out[3] = {0};
	assert_int_equal(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, 0, w), 0);
	assert_int_equal(out[2], 12);
	d = next_desc(&from, BCS_D_REDUCE);
	assert_int_equal(d.op, MPI_OPI_SUM);
	assert_int_equal(d.basic, MPI_B_INT);
	assert_int_equal(d.count, 3);
	assert_int_equal(d.bytes, 12);
	assert_int_equal(d.peer, 0);
	assert_int_equal(d.addr, id(in));
	assert_int_equal(d.addr2, id(out));
	assert_int_equal(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, 1, w), 0);
	d = next_desc(&from, BCS_D_REDUCE);
	assert_int_equal(d.addr2, 0);
	int io[2] = {5, 6};
	assert_int_equal(MPI_Allreduce(MPI_IN_PLACE, io, 2, MPI_INT, MPI_SUM, w),
	                 0);
	assert_int_equal(io[0], 20);
	d = next_desc(&from, BCS_D_ALLREDUCE);
	assert_int_equal(d.flags, BCS_F_BLOCKING | BCS_F_IN_PLACE);
	assert_int_equal(d.addr, 0);
	assert_int_equal(d.addr2, id(io));
	MPI_Datatype pair;
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	int pin[4] = {1, 2, 3, 4}, pout[4] = {0};
	assert_int_equal(MPI_Iallreduce(pin, pout, 2, pair, MPI_SUM, w, &r), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(pout[3], 16);
	d = next_desc(&from, BCS_D_ALLREDUCE);
	assert_int_equal(d.count, 4);
	assert_int_equal(d.flags, 0);
	MPI_Type_free(&pair);
	assert_int_equal(w->coll_seq, seq + 9);
}

static void
user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void
test_user_op_runs_as_a_schedule(void **state)
{
	(void)state;
	MPI_Op op;
	assert_int_equal(MPI_Op_create(user_sum, 1, &op), 0);
	int in[3] = {1, 2, 3}, out[3] = {0};
	size_t from = log_mark();
	MPI_Request r;
	assert_int_equal(MPI_Ireduce(in, out, 3, MPI_INT, op, 0, MPI_COMM_WORLD,
	                             &r),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	/* Binomial tree rooted at 0: ten from ranks 1 and 2 each. */
	assert_int_equal(out[0], 21);
	assert_int_equal(out[2], 23);
	assert_int_equal(count_kind(from, BCS_D_REDUCE), 0);
	struct bcs_desc d = next_desc(&from, BCS_D_RECV);
	assert_int_equal(d.ctx, MPI_COMM_WORLD->ctx_coll);
	assert_int_equal(d.peer, 1);
	d = next_desc(&from, BCS_D_RECV);
	assert_int_equal(d.peer, 2);
	MPI_Op_free(&op);
}

static void
restart(const char *var, const char *value)
{
	mpi_bcs_fini();
	unsetenv("GROVE_BCS_RECORD");
	unsetenv("GROVE_BCS_REPLAY");
	if (var)
		setenv(var, value, 1);
	assert_int_equal(start_bcs(), 0);
}

static void
test_record_notes_what_tests_return(void **state)
{
	(void)state;
	restart("GROVE_BCS_RECORD", "1");
	assert_true(mpi_bcs_rr);
	size_t from = log_mark();
	int v = 1, got = 0, flag = 0, calls = 0;
	MPI_Request rq[3];
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &rq[1]),
	                 0);
	while (!flag) {
		assert_int_equal(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE), 0);
		calls++;
	}
	struct bcs_desc n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Test);
	assert_int_equal(n.count, 1);
	assert_int_equal(n.addr, 1);
	assert_int_equal(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), 0);

	/* Testany: the index in the mask. */
	rq[0] = MPI_REQUEST_NULL;
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &rq[2]),
	                 0);
	assert_int_equal(MPI_Wait(&rq[2], MPI_STATUS_IGNORE), 0);
	int idx = -1;
	flag = 0;
	while (!flag) {
		assert_int_equal(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE), 0);
		calls++;
	}
	assert_int_equal(idx, 1);
	n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Testany);
	assert_int_equal(n.addr, 2);

	/* Waitany: what completed first. */
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 33, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 34, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Send(&v, 1, MPI_INT, 0, 34, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE), 0);
	calls++;
	assert_int_equal(idx, 1);
	n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Waitany);
	assert_int_equal(n.addr, 2);
	assert_int_equal(MPI_Cancel(&rq[0]), 0);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);

	/* Iprobe: the message's envelope. */
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 32, MPI_COMM_WORLD, &rq[0]),
	                 0);
	flag = 0;
	while (!flag) {
		assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
		                            &flag, MPI_STATUS_IGNORE),
		                 0);
		calls++;
	}
	n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Iprobe);
	assert_int_equal(n.peer_world, 0);
	assert_int_equal(n.tag, 32);
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 32, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);
	/* Tests of nothing active are the same in every run: not noted. */
	rq[0] = rq[1] = MPI_REQUEST_NULL;
	size_t notes = count_kind(from, BCS_D_NOTE);
	assert_int_equal(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), 0);
	assert_int_equal(count_kind(from, BCS_D_NOTE), notes);
	restart(NULL, NULL);
}

static void
test_replay_forces_tests_and_wildcards(void **state)
{
	(void)state;
	char path[] = "/tmp/test_mpi_bcs_rank.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	/* Call 0 (MPI_Test) true; call 1 not recorded (false); call 2
	 * (MPI_Testany) true with index 1; call 3 (MPI_Iprobe) true with a
	 * message from 0, tag 24; call 4 (MPI_Waitany) index 1.  The first
	 * wildcard receive matched 0. */
	fprintf(f, "# grove-bcs-record 1\n# ranks %d slice_ns 1000000\n"
	           "W 2 0 0 0\n"
	           "T 3 0 0 %d 1 0x1 -1 -1\n"
	           "T 5 0 2 %d 1 0x2 -1 -1\n"
	           "T 6 0 3 %d 1 0x1 0 24\n"
	           "T 7 0 4 %d 1 0x2 -1 -1\n",
	        NRANKS, MPI_FN_Test, MPI_FN_Testany, MPI_FN_Iprobe,
	        MPI_FN_Waitany);
	fclose(f);
	restart("GROVE_BCS_REPLAY", path);
	assert_true(mpi_bcs_rr);

	/* Call 0: recorded true, so it waits; the wildcard receive asked
	 * the node manager for source 0. */
	size_t from = log_mark();
	int v = 3, got = 0, flag = 0;
	MPI_Request r, s;
	MPI_Status st;
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 20,
	                           MPI_COMM_WORLD, &r),
	                 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Test(&r, &flag, &st), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(got, 3);
	assert_int_equal(st.MPI_SOURCE, 0);
	struct bcs_desc d = next_desc(&from, BCS_D_RECV);
	assert_int_equal(d.peer, 0);
	assert_int_equal(d.peer_world, 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Call 1: not recorded: false although the receive completed. */
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &s), 0);
	flag = 0;
	while (!flag)
		assert_int_equal(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE),
		                 0);
	assert_int_equal(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), 0);
	assert_int_equal(flag, 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Call 2: index 1, even though index 0 completes first. */
	MPI_Request rq[2];
	int g0 = 0, g1 = 0, idx = -1;
	assert_int_equal(MPI_Irecv(&g0, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Irecv(&g1, 1, MPI_INT, 0, 23, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Send(&v, 1, MPI_INT, 0, 22, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 23, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(idx, 1);
	assert_int_equal(g1, 3);
	assert_true(rq[0] != MPI_REQUEST_NULL);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Call 3: the recorded message, found by its envelope. */
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 24, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
	                            &flag, &st),
	                 0);
	assert_int_equal(flag, 1);
	assert_int_equal(st.MPI_TAG, 24);
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 24, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
	/* Call 4: index 1, though index 0 completed first. */
	assert_int_equal(MPI_Irecv(&g0, 1, MPI_INT, 0, 25, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Irecv(&g1, 1, MPI_INT, 0, 26, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Send(&v, 1, MPI_INT, 0, 25, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 26, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE), 0);
	assert_int_equal(idx, 1);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
	/* Call 5, past the record: false. */
	assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
	                            &flag, &st),
	                 0);
	assert_int_equal(flag, 0);
	unlink(path);
	restart(NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_needs_a_node_manager),
		cmocka_unit_test(test_send_and_receive),
		cmocka_unit_test(test_noncontiguous_is_packed),
		cmocka_unit_test(test_zero_bytes_and_proc_null),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_iprobe),
		cmocka_unit_test(test_probe_and_matched_probe),
		cmocka_unit_test(test_bsend_completes_at_once),
		cmocka_unit_test(test_persistent),
		cmocka_unit_test(test_full_ring_waits_for_room),
		cmocka_unit_test(test_collectives_are_descriptors),
		cmocka_unit_test(test_user_op_runs_as_a_schedule),
		cmocka_unit_test(test_record_notes_what_tests_return),
		cmocka_unit_test(test_replay_forces_tests_and_wildcards),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
