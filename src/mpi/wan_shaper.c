/* WAN emulation inside Grove MPI (GROVE_MPI_WAN, docs/mpi.md "Clusters").
 *
 * Clusters emulated on one host (GROVE_MPI_CLUSTERS) talk through shared
 * memory in microseconds; to study wide-area broadcasts (the P-LogP
 * paper's Figure 4: 10 ms, 1 MB/s between clusters) every send to a rank
 * of another cluster goes through this shaper instead.
 *
 * The model: each rank has one outgoing wide-area link with a
 * serialising sender.  A message of b bytes posted at t starts when the
 * link is free (start = max(t, link_free)), leaves it after b / bandwidth
 * (link_free = start + b / bandwidth), and reaches the peer one latency
 * later.  The send request completes when the last byte has left (the
 * sender may reuse its buffer and send again: the gap g of P-LogP), a
 * synchronous send (MPI_Ssend ...) only once the receiver matched it; the
 * data, copied when the send was posted, is handed to the shared-memory
 * transport at arrival time, so the receiver cannot see it earlier.
 * Release times grow with posting order, so messages to a peer keep
 * MPI's order.  Receiving is not shaped: in the broadcasts studied a
 * rank receives from one peer at a time.
 *
 * Process-wide on purpose: the link is this process's. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/clusters.h"
#include "mpi/p2p.h"

struct wan_msg {
	struct wan_msg *next;
	MPI_Request user;    /* completed at done_ns (NULL once it is) */
	int64_t done_ns;     /* the last byte left the link */
	int64_t release_ns;  /* arrival: handed to the transport */
	MPI_Request real;    /* the transport's send, once released */
	MPI_Comm comm;       /* a reference held until the real send ends */
	int peer, tag;
	bool sync;           /* the user's request waits for the match */
	uint32_t ctx;
	size_t bytes;
	void *data;
};

static struct {
	bool on;
	bool releasing;      /* mpi_wan_progress is handing a message over */
	double latency_ns, ns_per_byte;
	double latency_us, bytes_per_s;
	int64_t link_free_ns;
	struct wan_msg *head, *tail;
} W;

static int64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
mpi_wan_setup(double latency_us, double bytes_per_s)
{
	W.on = true;
	W.latency_us = latency_us;
	W.bytes_per_s = bytes_per_s;
	W.latency_ns = latency_us * 1e3;
	W.ns_per_byte = 1e9 / bytes_per_s;
	W.link_free_ns = 0;
	return 0;
}

static void
msg_free(struct wan_msg *m)
{
	if (m->real)
		mpi_request_free_internal(m->real);
	if (m->comm)
		mpi_comm_release(m->comm);
	free(m->data);
	free(m);
}

void
mpi_wan_fini(void)
{
	while (W.head) {
		struct wan_msg *m = W.head;
		W.head = m->next;
		msg_free(m);
	}
	W.tail = NULL;
	W.on = false;
}

bool
mpi_wan_on(double *latency_us, double *bytes_per_s)
{
	if (W.on) {
		*latency_us = W.latency_us;
		*bytes_per_s = W.bytes_per_s;
	}
	return W.on;
}

bool
mpi_wan_crosses(int world_rank)
{
	return W.on && !W.releasing &&
	       mpi_cluster_of_world(world_rank) !=
	           mpi_cluster_of_world(mpi_proc.rank);
}

int
mpi_wan_defer(MPI_Request req)
{
	struct wan_msg *m = calloc(1, sizeof *m);
	if (!m)
		return MPI_ERR_NO_MEM;
	if (req->bytes) {
		m->data = malloc(req->bytes);
		if (!m->data) {
			free(m);
			return MPI_ERR_NO_MEM;
		}
		mpi_dt_pack(req->dt, req->buf, req->count, m->data, 0,
		            req->bytes);
	}
	m->bytes = req->bytes;
	m->comm = req->comm;
	mpi_comm_retain(m->comm);
	m->peer = req->peer;
	m->tag = req->tag;
	m->ctx = req->ctx;
	m->sync = req->mode == MPI_FN_Ssend || req->mode == MPI_FN_Issend ||
	          req->mode == MPI_FN_Ssend_init;
	m->user = req;
	int64_t t = now_ns();
	int64_t start = t > W.link_free_ns ? t : W.link_free_ns;
	m->done_ns = start + (int64_t)((double)req->bytes * W.ns_per_byte);
	m->release_ns = m->done_ns + (int64_t)W.latency_ns;
	W.link_free_ns = m->done_ns;
	req->state = MPI_RS_SEND_QUEUED;
	if (W.tail)
		W.tail->next = m;
	else
		W.head = m;
	W.tail = m;
	return MPI_SUCCESS;
}

int
mpi_wan_progress(void)
{
	if (!W.head)
		return 0;
	int ev = 0;
	int64_t t = now_ns();
	struct wan_msg **pp = &W.head, *last = NULL;
	while (*pp) {
		struct wan_msg *m = *pp;
		if (m->user && t >= m->done_ns &&
		    (!m->sync || (m->real && m->real->done))) {
			MPI_Request u = m->user;
			m->user = NULL;
			mpi_request_complete(u);
			ev++;
		}
		if (!m->real && t >= m->release_ns) {
			W.releasing = true;
			int rc = mpi_isend_ctx(m->data, m->bytes, MPI_BYTE, m->peer,
			                       m->tag, m->comm, m->ctx,
			                       m->sync ? MPI_FN_Issend : MPI_FN_Isend,
			                       &m->real);
			W.releasing = false;
			if (rc != MPI_SUCCESS)
				m->real = NULL; /* out of memory: try again later */
			else
				ev++;
		}
		if (!m->user && m->real && m->real->done) {
			*pp = m->next;
			msg_free(m);
			ev++;
			continue;
		}
		last = m;
		pp = &m->next;
		if (t < m->done_ns && !m->sync)
			break; /* later ones are due later still */
	}
	if (!W.head)
		W.tail = NULL;
	else if (!*pp)
		W.tail = last;
	return ev;
}

int64_t
mpi_wan_next_due_ns(void)
{
	int64_t t = now_ns(), next = -1;
	for (struct wan_msg *m = W.head; m; m = m->next) {
		int64_t due = m->user && t < m->done_ns ? m->done_ns
		              : !m->real ? m->release_ns : -1;
		if (due < 0)
			continue; /* the transport wakes us */
		if (next < 0 || due < next)
			next = due;
	}
	if (next < 0)
		return -1;
	return next > t ? next - t : 0;
}

bool
mpi_wan_idle(void)
{
	return W.head == NULL;
}
