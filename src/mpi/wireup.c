/* Wire-up of a rank started by grove run, through Grove's tree: the rank
 * joins the launcher's network as back-end `rank` and takes part in one
 * allgather of cards (protocol in wireup.h).
 *
 * What it gives MPI_Init: when mpi_wireup returns, every rank of the job
 * has attached the job segment and written its control block (it sends
 * its card only after that), and, with shared memory, every rank is
 * known to run on this host.  With the TCP transport (tcp_chan.h) each
 * card carries the rank's listening address, handed to the transport
 * here; ranks may then run on several hosts, each with a job segment of
 * its own host.  Ranks on several hosts without TCP are refused with a
 * clear error.
 *
 * The back-end stays joined until MPI_Finalize but makes no Grove call
 * in between: a back-end has no timers, and the tree declares only
 * communication processes lost when they are silent (heartbeats go to
 * CP children only), so a rank that computes for hours or sleeps on a
 * futex stays a member.  mpi_wireup_fini leaves the network.
 *
 * The rank's event space is opened here, before the back-end joins, so
 * that its name is the job's (/dev/shm/grove.<jobid>.mpi.<rank>, the
 * name `grove trace` and grove run's clean-up look for): the back-end
 * and the statistics join it.  The last fini, in mpi_wireup_fini, keeps
 * it when grove run --keep-trace asked (GROVE_MPI_TRACE_KEEP). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <grove/backend.h>
#include <grove/trace.h>

#include "mpi/card.h"
#include "mpi/clusters.h"
#include "mpi/job.h"
#include "mpi/mpi_impl.h"
#include "mpi/tcp_chan.h"
#include "mpi/wireup.h"

/* Process-wide on purpose, like mpi_proc: one MPI_Init per process, and
 * the back-end lives from MPI_Init to MPI_Finalize. */
static grove_be *wire_be;
static int wire_traced;
/* The lowest world rank on this rank's host (MPI_COMM_TYPE_SHARED). */
static int host_leader;

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Receives the next packet of tag `want`, whatever else comes first
 * (nothing else is sent to a rank during the wire-up). */
static int
recv_tag(int32_t want, uint32_t *stream, grove_packet **p, char *err,
    size_t errlen, const char *what)
{
	for (;;) {
		int32_t tag = 0;
		int rc = grove_be_recv(wire_be, stream, &tag, p, -1);
		if (rc != 0) {
			snprintf(err, errlen, "waiting for %s from grove run: %s%s%s",
			    what, grove_strerror(rc),
			    grove_be_last_error(wire_be)[0] ? ": " : "",
			    grove_be_last_error(wire_be));
			return -1;
		}
		if (tag == want)
			return 0;
		grove_packet_unref(*p);
		*p = NULL;
	}
}

/* Checks the gathered cards: one per rank, every rank on this host, the
 * pids those the ranks wrote into the job segment. */
static int
check_cards(struct mpi_job *job, int rank, int size, const char *const *cards,
    uint64_t ncards, const uint32_t *ranks, uint64_t nranks,
    const struct mpi_card *mine, char *err, size_t errlen)
{
	if (ncards != nranks || ncards != (uint64_t)size) {
		snprintf(err, errlen, "got %llu cards for %d ranks",
		    (unsigned long long)ncards, size);
		return -1;
	}
	char *seen = calloc((size_t)size, 1);
	if (!seen) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = 0;
	int other = -1;
	struct mpi_card oc = {0};
	host_leader = rank;
	for (uint64_t i = 0; i < ncards && rc == 0; i++) {
		struct mpi_card c;
		uint32_t r = ranks[i];
		if (r >= (uint32_t)size || seen[r] ||
		    mpi_card_parse(cards[i], &c)) {
			snprintf(err, errlen, "bad card %llu (rank %u): '%.80s'",
			    (unsigned long long)i, r, cards[i]);
			rc = -1;
			break;
		}
		seen[r] = 1;
		bool same_host = mpi_card_same_kernel(&c, mine);
		if (!same_host && other < 0) {
			other = (int)r;
			oc = c;
		}
		if (same_host && (int)r < host_leader)
			host_leader = (int)r;
		if (mpi_tcp_active()) {
			/* Ranks need not share a segment: the sockets join
			 * them. */
			if (r != (uint32_t)rank && mpi_tcp_set_peer((int)r, c.tcp,
			    c.host, err, errlen) != 0)
				rc = -1;
			continue;
		}
		int32_t seg_pid = __atomic_load_n(&mpi_job_ctl(job, r)->pid,
		    __ATOMIC_ACQUIRE);
		if (same_host && seg_pid != (int32_t)c.pid) {
			snprintf(err, errlen, "rank %u has pid %ld but the job "
			    "segment says %d: the ranks do not share one job "
			    "segment", r, c.pid, (int)seg_pid);
			rc = -1;
		}
	}
	free(seen);
	if (rc == 0 && other >= 0 && !mpi_tcp_active()) {
		snprintf(err, errlen, "rank %d runs on %s and rank %d on %s%s: "
		    "ranks on several hosts need the TCP transport (grove run "
		    "--hosts, or --transport tcp)", rank,
		    mine->host, other, oc.host,
		    strcmp(oc.host, mine->host) ? "" : " (another kernel)");
		rc = -1;
	}
	return rc;
}

int
mpi_wireup(struct mpi_job *job, int rank, int size, char *err, size_t errlen)
{
	double t0 = now_ms();
	const char *cf = getenv("GROVE_MPI_CONNECT");
	if (!cf || !*cf) {
		snprintf(err, errlen, "GROVE_MPI_CONNECT is not set (grove run "
		    "sets it; was this rank started by another launcher?)");
		return -1;
	}
	if (!wire_traced) {
		grove_trace_init(job->hdr->jobid, "mpi", (uint32_t)rank);
		wire_traced = 1;
	}
	int rc = grove_be_attach(cf, (uint32_t)rank, &wire_be);
	if (rc != 0) {
		snprintf(err, errlen, "cannot join grove run's network (%s): %s",
		    cf, wire_be && grove_be_last_error(wire_be)[0]
		    ? grove_be_last_error(wire_be) : grove_strerror(rc));
		grove_be_destroy(wire_be);
		wire_be = NULL;
		return -1;
	}
	if (grove_be_backends(wire_be) != (uint32_t)size) {
		snprintf(err, errlen, "grove run's network has %u back-ends for "
		    "%d ranks", grove_be_backends(wire_be), size);
		return -1;
	}
	double t_att = now_ms();
	uint32_t stream = 0;
	grove_packet *p = NULL;
	if (recv_tag(MPI_WIRE_TAG_GO, &stream, &p, err, errlen, "the start"))
		return -1;
	grove_packet_unref(p);
	struct mpi_card mine;
	mpi_card_mine(&mine, mpi_tcp_endpoint());
	char card[MPI_CARD_MAX];
	mpi_card_format(&mine, card, sizeof card);
	if ((rc = grove_be_send(wire_be, stream, MPI_WIRE_TAG_CARD, "%s", card))) {
		snprintf(err, errlen, "sending this rank's card: %s",
		    grove_strerror(rc));
		return -1;
	}
	if (recv_tag(MPI_WIRE_TAG_CARD, &stream, &p, err, errlen, "the cards"))
		return -1;
	const char *const *cards = NULL;
	const uint32_t *ranks = NULL;
	uint64_t ncards = 0, nranks = 0;
	rc = grove_packet_unpack(p, "%as %aud", &cards, &ncards, &ranks, &nranks);
	if (rc != 0) {
		snprintf(err, errlen, "the cards came as '%s': %s",
		    grove_packet_format(p), grove_strerror(rc));
		grove_packet_unref(p);
		return -1;
	}
	rc = check_cards(job, rank, size, cards, ncards, ranks, nranks, &mine,
	    err, errlen);
	if (rc == 0)
		mpi_clusters_note_cards(cards, ranks, ncards, size);
	grove_packet_unref(p);
	if (rc == 0 && rank == 0 && getenv("GROVE_MPI_VERBOSE"))
		fprintf(stderr, "grove-mpi: wire-up of %d ranks through the tree: "
		    "%.2f ms in rank 0 (%.2f ms to attach)\n", size,
		    now_ms() - t0, t_att - t0);
	return rc;
}

int
mpi_wireup_host_leader(void)
{
	return host_leader;
}

void
mpi_wireup_fini(void)
{
	if (wire_be) {
		grove_be_destroy(wire_be);
		wire_be = NULL;
	}
	if (wire_traced) {
		wire_traced = 0;
		/* The last user of the event space decides whether it stays. */
		grove_trace_fini(getenv("GROVE_MPI_TRACE_KEEP") != NULL);
	}
}
