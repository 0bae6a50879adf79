/* Shared by the unit tests of the rank side of Grove MPI's BCS mode
 * (src/mpi/bcs_*.c; test_mpi_bcs_rank_*.c), each in one process: rank 0
 * of a job of 4 ranks whose node manager is a thread of the test playing
 * the descriptor protocol (bcs_desc.h) over a real job segment.  The fake
 * node manager matches rank 0's messages to itself in posting order,
 * answers probes and cancels, plays the other three ranks where a
 * collective needs them (a broadcast's root fills a pattern, every rank
 * contributes what rank 0 does, a peer's message is ten in every int),
 * and logs every descriptor, so each test checks both what the MPI call
 * returned and what it asked of the node manager.  Each test program
 * uses part of it, with setup and teardown as its group's. */
#ifndef GROVE_MPI_BCS_FIXTURE_H
#define GROVE_MPI_BCS_FIXTURE_H

#pragma GCC diagnostic ignored "-Wunused-function"
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

/* Starts BCS mode again, with var=value in the environment (var NULL:
 * neither recording nor replaying). */
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

#endif
