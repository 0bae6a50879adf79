/* WAN emulation inside Grove MPI (GROVE_MPI_WAN, docs/mpi.md "Clusters").
 *
 * Clusters emulated on one host (GROVE_MPI_CLUSTERS) talk through shared
 * memory in microseconds; to study wide-area broadcasts (the P-LogP
 * paper's Figure 4: 10 ms, 1 MB/s between clusters) every send to a rank
 * of another cluster goes through this shaper instead.
 *
 * The model is the paper's system (its Figure 1): clusters joined by a
 * fully connected WAN, one link of that latency and bandwidth between
 * every two clusters.  Here each rank has its own outgoing link to each
 * other cluster, a link with a serialising sender: a message of b bytes
 * posted at t starts when that link is free (start = max(t, link_free)),
 * leaves it after b / bandwidth (link_free = start + b / bandwidth), and
 * reaches the peer one latency later.  Messages to different clusters
 * use different links and overlap, as the paper's segmented broadcast
 * requires; what is not modelled is two ranks of one cluster sharing
 * their gateway's link to a third (in the broadcasts measured no two
 * ranks of a cluster send to one other cluster at the same time), nor
 * the receiving side (a rank receives from one peer at a time there).
 *
 * The data is copied when the send is posted (the gateway takes it: the
 * sender's overhead os) and handed to the shared-memory transport at
 * arrival time, so the receiver cannot see it earlier.  Release times on
 * a link grow with posting order and messages are released in posting
 * order, so messages to a peer keep MPI's order.  When the send request
 * completes depends on the kind of send, as over a real WAN:
 *   non-blocking (MPI_Isend, the steps of schedules): at once, the link
 *     queues the message (P-LogP's s_w = os);
 *   blocking (MPI_Send, MPI_Rsend, MPI_Sendrecv, mpi_sched_send_blocking
 *     steps): when its last byte has left the link (g_w);
 *   synchronous (MPI_Ssend, MPI_Issend): once the receiver matched it.
 *
 * Process-wide on purpose: the link is this process's. */
#include <stdio.h>
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
	int64_t *link_free_ns; /* per destination cluster */
	int nlinks;
	struct wan_msg *head, *tail;
	uint64_t sent, sent_bytes; /* told by GROVE_MPI_VERBOSE at the end */
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
	W.nlinks = mpi_clusters_in_job();
	W.link_free_ns = calloc((size_t)W.nlinks, sizeof *W.link_free_ns);
	return W.link_free_ns ? 0 : -1;
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
	if (W.on && mpi_proc.verbose)
		fprintf(stderr, "grove-mpi: rank %d: %llu messages, %llu bytes "
		        "over the emulated WAN\n", mpi_proc.rank,
		        (unsigned long long)W.sent,
		        (unsigned long long)W.sent_bytes);
	W.sent = W.sent_bytes = 0;
	while (W.head) {
		struct wan_msg *m = W.head;
		W.head = m->next;
		msg_free(m);
	}
	W.tail = NULL;
	W.on = false;
	free(W.link_free_ns);
	W.link_free_ns = NULL;
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
	W.sent++;
	W.sent_bytes += req->bytes;
	m->comm = req->comm;
	mpi_comm_retain(m->comm);
	m->peer = req->peer;
	m->tag = req->tag;
	m->ctx = req->ctx;
	m->sync = req->mode == MPI_FN_Ssend || req->mode == MPI_FN_Issend ||
	          req->mode == MPI_FN_Ssend_init;
	m->user = req;
	bool blocking = req->mode == MPI_FN_Send || req->mode == MPI_FN_Rsend ||
	                req->mode == MPI_FN_Sendrecv ||
	                req->mode == MPI_FN_Sendrecv_replace;
	int64_t t = now_ns();
	int c = mpi_cluster_of_world(mpi_comm_world_rank(req->comm, req->peer));
	int64_t *link = &W.link_free_ns[c >= 0 && c < W.nlinks ? c : 0];
	int64_t start = t > *link ? t : *link;
	m->done_ns = start + (int64_t)((double)req->bytes * W.ns_per_byte);
	m->release_ns = m->done_ns + (int64_t)W.latency_ns;
	*link = m->done_ns;
	if (W.tail)
		W.tail->next = m;
	else
		W.head = m;
	W.tail = m;
	if (!blocking && !m->sync) {
		m->user = NULL;
		mpi_request_complete(req);
	} else {
		req->state = MPI_RS_SEND_QUEUED;
	}
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
