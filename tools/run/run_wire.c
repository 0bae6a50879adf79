/* grove run as the front-end of the ranks' wire-up: a flat Grove network
 * in attach mode whose back-ends are the ranks (protocol in
 * src/mpi/wireup.h).  Driven from the launcher's event loop without ever
 * blocking, so that output and rank exits are served while it runs. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "mpi/wireup.h"
#include "run.h"
#include "../toolutil.h"

enum wire_phase {
	WIRE_WAIT = 0,   /* waiting for every rank to attach */
	WIRE_GATHER,     /* go sent; waiting for the concatenated cards */
	WIRE_DONE,       /* cards multicast; nothing more to do */
	WIRE_FAILED,     /* a rank was lost first: its exit says why */
};

struct run_wire {
	grove_net *net;
	grove_stream *st;
	enum wire_phase phase;
	unsigned n;
	double t0;
};

int
run_wire_create(struct run_job *job)
{
	struct run_wire *w = calloc(1, sizeof *w);
	if (!w) {
		fprintf(stderr, "%s: out of memory\n", RUN_CMD);
		return -1;
	}
	w->n = job->n;
	w->t0 = tool_now();
	job->wire = w;
	grove_net_opts o;
	grove_net_opts_init(&o);
	o.topology = "flat";
	o.backends = job->n;
	o.mode = GROVE_LAUNCH_ATTACH;
	o.connect_file = job->connect;
	/* Ranks on other hosts attach over TCP from there. */
	if (job->hosts)
		o.bind_addr = "0.0.0.0";
	int rc = grove_net_create(&o, &w->net);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot create the job's Grove network: %s\n",
		    RUN_CMD, w->net ? grove_net_last_error(w->net)
		    : grove_strerror(rc));
		return -1;
	}
	return 0;
}

int
run_wire_fd(const struct run_wire *w)
{
	return w && w->net ? grove_net_fd((grove_net *)w->net) : -1;
}

bool
run_wire_busy(const struct run_wire *w)
{
	return w && w->net && (w->phase == WIRE_WAIT || w->phase == WIRE_GATHER);
}

unsigned
run_wire_backends_up(const struct run_wire *w)
{
	return w && w->net ? grove_net_backends_up(w->net) : 0;
}

/* Events matter only for ranks that exited without MPI_Init: a rank
 * that attaches then waits for them forever.  A back-end that leaves is
 * a rank in MPI_Finalize, or one whose exit the loop reports. */
static void
drain_events(struct run_job *job)
{
	grove_event ev;
	while (grove_net_next_event(job->wire->net, &ev, 0) == 0)
		if (ev.type == GROVE_EV_BE_ATTACHED)
			run_exit_check_noinit(job);
}

static int
wire_fail(struct run_job *job, const char *what, int rc)
{
	struct run_wire *w = job->wire;
	w->phase = WIRE_FAILED;
	run_end_job(job, 1, "wire-up: %s: %s", what,
	    grove_net_last_error(w->net)[0] ? grove_net_last_error(w->net)
	    : grove_strerror(rc));
	return -1;
}

int
run_wire_progress(struct run_job *job)
{
	struct run_wire *w = job->wire;
	if (!w || !w->net)
		return 0;
	int rc;
	if (w->phase == WIRE_WAIT) {
		/* Serves the handshakes that are ready. */
		rc = grove_net_wait_backends(w->net, w->n, 0);
		drain_events(job);
		if (rc == GROVE_ETIMEDOUT || rc == GROVE_EAGAIN)
			return 0;
		if (rc == GROVE_ELOST) {
			/* A rank left before all attached: it died, and its
			 * exit ends the job with the message that matters. */
			w->phase = WIRE_FAILED;
			return 0;
		}
		if (rc != 0)
			return wire_fail(job, "waiting for the ranks", rc);
		grove_stream_opts so;
		grove_stream_opts_init(&so);
		so.up_filter = "concat";
		so.sync_filter = "wait_for_all";
		if ((rc = grove_stream_create(w->net, grove_net_comm_all(w->net),
		    &so, &w->st)) != 0)
			return wire_fail(job, "creating the stream", rc);
		if ((rc = grove_stream_send(w->st, MPI_WIRE_TAG_GO, "%ud",
		    (uint32_t)w->n)) != 0)
			return wire_fail(job, "sending go", rc);
		w->phase = WIRE_GATHER;
		if (job->o->verbose)
			fprintf(stderr, "%s: %u ranks attached %.1f ms after the "
			    "launch\n", RUN_CMD, w->n,
			    (tool_now() - job->t_start) * 1e3);
	}
	if (w->phase == WIRE_GATHER) {
		int32_t tag;
		grove_packet *p = NULL;
		rc = grove_stream_recv(w->st, &tag, &p, 0);
		if (rc == GROVE_EAGAIN || rc == GROVE_ETIMEDOUT) {
			drain_events(job);
			return 0;
		}
		if (rc == GROVE_ECLOSED || rc == GROVE_ELOST) {
			w->phase = WIRE_FAILED;
			return 0;
		}
		if (rc != 0)
			return wire_fail(job, "gathering the cards", rc);
		/* The concatenation goes back down as it came up: every rank
		 * gets every card. */
		rc = grove_stream_send_packet(w->st, p);
		grove_packet_unref(p);
		if (rc != 0)
			return wire_fail(job, "multicasting the cards", rc);
		w->phase = WIRE_DONE;
		if (job->o->verbose)
			fprintf(stderr, "%s: wire-up of %u ranks done %.1f ms after "
			    "the launch\n", RUN_CMD, w->n,
			    (tool_now() - job->t_start) * 1e3);
	}
	/* Done or failed: keep the links served (ranks leaving). */
	grove_net_progress(w->net);
	drain_events(job);
	return 0;
}

void
run_wire_destroy(struct run_wire *w)
{
	if (!w)
		return;
	/* The network frees its streams. */
	if (w->net)
		grove_net_destroy(w->net);
	free(w);
}
