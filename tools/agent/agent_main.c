/* grove-agent: the node agent behind `grove top` and `grove bench
 * offered-load` (protocol in agent_proto.h).  Started by Grove as a
 * back-end; waits for AGENT_START, then samples at a fixed rate until the
 * network shuts down.
 *
 * It stays single-threaded and lets Grove's receive call be its timer: the
 * wait for the next sample is a grove_be_recv() with a timeout, so probes
 * and requests from the tree are answered while it sleeps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "grove/backend.h"
#include "grove/packet.h"
#include "metrics.h"
#include "sample_time.h"

typedef struct agent {
	grove_be *be;
	uint32_t rank;
	int mode;                 /* 0 until AGENT_START */
	uint64_t interval_ns;
	uint32_t nstreams;
	uint32_t streams[AGENT_MAX_STREAMS];
	uint32_t metrics;         /* values per LOAD sample stream: 1 */
	uint64_t next_ns;         /* when the next sample is due */
	uint64_t last_ns;         /* end of the previous sample */
	metric_snapshot prev;     /* t_ns: when it was really read */
	uint64_t prev_end;        /* prev's stamp (see sample_time.h) */
	int have_prev;
	uint64_t sent, send_errors;
} agent;

/* Grove's clock, the one grove_net_clock_skew() measures: a validation
 * offset injected into this back-end shows in its samples too. */
static uint64_t
agent_clock_ns(const agent *a)
{
	int64_t t = grove_be_clock_ns(a->be);
	return t > 0 ? (uint64_t)t : 0;
}

static void
agent_warn(const agent *a, const char *what, int rc)
{
	fprintf(stderr, "grove-agent[%u]: %s: %s (%s)\n", a->rank, what,
	    grove_strerror(rc), grove_be_last_error(a->be));
}

static void
send_equiv(agent *a, uint32_t stream)
{
	struct utsname u;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof u.release, "unknown");
	int rc = grove_be_send(a->be, stream, AGENT_TAG_EQUIV, "%s", u.release);
	if (rc < 0)
		agent_warn(a, "equivalence key", rc);
}

static void
send_report(agent *a, uint32_t stream)
{
	struct utsname u;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof u.release, "unknown");
	char host[256];
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = '\0';
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t mib = pages > 0 && psz > 0 ?
	    (uint64_t)pages * (uint64_t)psz >> 20 : 0;

	int rc = grove_be_send(a->be, stream, AGENT_TAG_REPORT,
	    AGENT_REPORT_FMT, host, (uint32_t)getpid(), u.release, (uint32_t)(cpus > 0 ? cpus : 0), mib);
	if (rc < 0)
		agent_warn(a, "report", rc);
}

static int
on_start(agent *a, const grove_packet *p)
{
	int32_t mode;
	uint64_t interval, n;
	uint32_t metrics;
	const uint32_t *ids;
	int rc = grove_packet_unpack(p, AGENT_START_FMT, &mode, &interval,
	    &metrics, &ids, &n);
	if (rc < 0) {
		fprintf(stderr, "grove-agent[%u]: start request is not \"%s\": "
		    "%s\n", a->rank, AGENT_START_FMT, grove_strerror(rc));
		return rc;
	}
	int ok = interval >= AGENT_MIN_INTERVAL_NS &&
	    interval <= AGENT_MAX_INTERVAL_NS && n <= AGENT_MAX_STREAMS &&
	    ((mode == AGENT_MODE_TOP && n == AGENT_TOP_NSTREAMS) ||
	    (mode == AGENT_MODE_LOAD && n >= 1));
	if (!ok) {
		fprintf(stderr, "grove-agent[%u]: bad start request: mode %d, "
		    "interval %" PRIu64 " ns, %" PRIu64 " streams\n", a->rank,
		    mode, interval, n);
		return GROVE_EINVAL;
	}
	a->mode = mode;
	a->interval_ns = interval;
	a->metrics = metrics;
	a->nstreams = (uint32_t)n;
	memcpy(a->streams, ids, n * sizeof *ids);
	uint64_t now = agent_clock_ns(a);
	a->last_ns = now;
	a->prev_end = now;
	/* The first sample ends at the next interval boundary and starts
	 * now, so the tree has real splitting to do for it; later ones
	 * cover whole grid intervals (see sample_time.h). */
	a->next_ns = (now / interval + 1) * interval;
	if (mode == AGENT_MODE_TOP) {
		char err[256];
		if (metrics_read("/proc", now, &a->prev, err, sizeof err) < 0)
			fprintf(stderr, "grove-agent[%u]: %s\n", a->rank, err);
		else
			a->have_prev = 1;
		send_equiv(a, a->streams[AGENT_TOP_EQUIV]);
		send_report(a, a->streams[AGENT_TOP_REPORT]);
	}
	return 0;
}

static void
sample_top(agent *a, uint64_t now)
{
	char err[256];
	metric_snapshot cur;
	uint64_t end = agent_sample_end(now, a->interval_ns);
	if (metrics_read("/proc", now, &cur, err, sizeof err) < 0) {
		/* A missing /proc file is not worth dying for: skip the
		 * sample, the tree's lag policy covers the gap. */
		fprintf(stderr, "grove-agent[%u]: %s\n", a->rank, err);
		return;
	}
	/* The clock went backwards (or this grid step was read already):
	 * [prev_end, end) would be empty or negative, which the tree
	 * refuses.  Skip the sample and start the next one here.  So does
	 * a sample whose reads cover too little of its stamp (after a
	 * stall): the rank is missing from that interval rather than shown
	 * wrong. */
	double v[METRIC_COUNT];
	if (a->have_prev &&
	    agent_sample_amounts(&a->prev, a->prev_end, &cur, end, v)) {
		int rc = grove_be_send(a->be, a->streams[AGENT_TOP_SAMPLES],
		    AGENT_TAG_SAMPLE, AGENT_SAMPLE_FMT, a->prev_end, end, v,
		    (uint64_t)METRIC_COUNT);
		if (rc < 0) {
			a->send_errors++;
			agent_warn(a, "sample", rc);
		} else {
			a->sent++;
		}
	}
	a->prev = cur;
	a->prev_end = end;
	a->have_prev = 1;
}

static void
sample_load(agent *a, uint64_t now)
{
	static const double one = 1.0;
	if (now <= a->last_ns) {
		/* The clock went backwards: skip, and start again here. */
		a->last_ns = now;
		return;
	}
	for (uint32_t i = 0; i < a->nstreams; i++) {
		int rc = grove_be_send(a->be, a->streams[i], AGENT_TAG_SAMPLE,
		    AGENT_SAMPLE_FMT, a->last_ns, now, &one, (uint64_t)1);
		if (rc < 0) {
			a->send_errors++;
			if (a->send_errors == 1)
				agent_warn(a, "sample", rc);
			return;
		}
		a->sent++;
	}
	a->last_ns = now;
}

static void
sample_due(agent *a)
{
	uint64_t now = agent_clock_ns(a);
	if (a->mode == AGENT_MODE_TOP)
		sample_top(a, now);
	else
		sample_load(a, now);
	a->next_ns += a->interval_ns;
	/* After a stall (a stopped agent, back-pressure) skip the missed
	 * samples instead of sending a burst of them. */
	if (a->next_ns <= now)
		a->next_ns = (now / a->interval_ns + 1) * a->interval_ns;
}

static int
timeout_ms(const agent *a)
{
	if (!a->mode)
		return -1;
	uint64_t now = agent_clock_ns(a);
	if (a->next_ns <= now)
		return 0;
	uint64_t ms = (a->next_ns - now + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}

int
main(int argc, char **argv)
{
	agent a = {0};
	int rc = grove_be_init(&argc, &argv, &a.be);
	if (rc < 0) {
		fprintf(stderr, "grove-agent: %s: start me through grove top "
		    "or grove bench offered-load (%s)\n", grove_strerror(rc),
		    a.be ? grove_be_last_error(a.be) : "no bootstrap");
		grove_be_destroy(a.be);
		return 1;
	}
	a.rank = grove_be_rank(a.be);
	for (;;) {
		uint32_t stream;
		int32_t tag;
		grove_packet *p = NULL;
		rc = grove_be_recv(a.be, &stream, &tag, &p, timeout_ms(&a));
		if (rc == GROVE_ECLOSED)
			break;
		if (rc == GROVE_EAGAIN || rc == GROVE_ETIMEDOUT) {
			if (a.mode && agent_clock_ns(&a) >= a.next_ns)
				sample_due(&a);
			continue;
		}
		if (rc < 0) {
			agent_warn(&a, "receive", rc);
			break;
		}
		uint32_t to;
		if (tag == AGENT_TAG_START && on_start(&a, p) < 0)
			a.mode = 0;
		else if ((tag == AGENT_TAG_EQUIV_REQ ||
		    tag == AGENT_TAG_REPORT_REQ) &&
		    grove_packet_unpack(p, "%ud", &to) == 0)
			(tag == AGENT_TAG_EQUIV_REQ ? send_equiv :
			    send_report)(&a, to);
		grove_packet_unref(p);
		if (a.mode && agent_clock_ns(&a) >= a.next_ns)
			sample_due(&a);
	}
	grove_be_destroy(a.be);
	return 0;
}
