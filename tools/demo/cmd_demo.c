/* grove demo: start a tree of be_worker back-ends (or, in attach mode,
 * its CPs, and wait for back-ends started elsewhere), send a broadcast
 * request, then run several reductions on concurrent streams (all created,
 * all requests sent, then all replies received) and print what came back
 * next to what should have, with timings, and which host each back-end
 * ran on.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/grove.h"
#include "../cli_opts.h"
#include "../toolutil.h"
#include "demo_hosts.h"
#include "proto/worker_protocol.h"

#define DEMO_MAX_JOBS 12
#define DEMO_ECHO_VALUE 42
#define DEMO_ARRAY_LEN 4
/* The slow back-end sleeps well past the time-out so its reply cannot make
 * the first wave, and the demo still finishes in well under a second. */
#define DEMO_SLOW_MS 300
#define DEMO_TIMEOUT_MS 100
#define DEMO_WAIT_MS 20000
/* Attach mode: how long the back-ends have to attach (started by hand or
 * over ssh on other hosts). */
#define DEMO_ATTACH_WAIT_MS 120000

typedef enum job_kind {
	J_ECHO,    /* broadcast echo, summed */
	J_SCALAR,  /* one int32 reduced value */
	J_AVG,     /* avg filter: mean of rank + 0.5 */
	J_CONCAT,  /* "%ad %aud": every rank once, value == rank */
	J_ARRAY,   /* element-wise sum of arrays */
	J_GATHER,  /* null filter: one packet per back-end */
	J_P2P,     /* point-to-point to one back-end */
	J_TIMEOUT, /* time-out sync filter with a slow back-end */
} job_kind;

typedef struct job {
	job_kind kind;
	const char *request;
	const char *filters;
	char members[24];
	grove_comm *comm;   /* owned when not the broadcast communicator */
	grove_stream *s;    /* NULL: point-to-point */
	int32_t tag;
	int64_t want;       /* J_SCALAR, J_ECHO, J_P2P */
	double t0, t1;
	int done, ok;
	char result[40], expected[40];
	/* progress of multi-packet jobs */
	uint8_t *seen;      /* per rank (J_GATHER, J_TIMEOUT) */
	uint32_t nseen;
	int dup, waves, slow_early, slow_reply;
	uint32_t slow_last_wave; /* the slow rank came in the last wave */
	/* Back-ends in the waves it took (grove_packet_contributors): the
	 * fewest and most, of members; in_seen: a packet had an account. */
	uint32_t in_min, in_max, in_of;
	int in_seen;
	char missing[96];   /* the first partial wave's missing runs */
} job;

typedef struct demo {
	grove_net *net;
	uint32_t n;
	uint32_t p2p_rank, slow_rank;
	job jobs[DEMO_MAX_JOBS];
	int njobs;
	int unexpected;
	demo_hosts hosts;   /* from the info replies */
} demo;

static int
demo_usage(FILE *f)
{
	fprintf(f, "usage: grove demo [-t SPEC | -f FILE] [-b N] [-H FILE] "
	    "[-a FILE]\n\n"
	    "Starts a tree running be_worker, runs reductions on "
	    "concurrent\nstreams and prints the results and the host of "
	    "every back-end.\n\n"
	    CLI_HELP_TREE
	    "                       (default kary:4 with 16 back-ends; "
	    "1..65536)\n"
	    "  -H, --hosts FILE     host list, \"host[:slots]\" per line, for "
	    "--topology\n"
	    "                       (default: all local); other hosts are "
	    "reached with\n"
	    "                       $GROVE_RSH, else ssh\n"
	    "  -a, --attach FILE    attach mode: start the CPs, write the "
	    "connection file\n"
	    "                       FILE, wait up to %d s for back-ends "
	    "started elsewhere\n"
	    "                       (be_worker --attach FILE --rank R on "
	    "their hosts)\n"
	    "  -h, --help           show this help\n\n"
	    "The back-end program be_worker is $GROVE_WORKER, else beside "
	    "grove (the\nbuild tree), else in " GROVE_WORKER_REL_DIR
	    " relative to grove's directory\n(installed).\n\n"
	    "Exit status: 0 ok, 1 the network or a reduction failed (said on "
	    "standard\nerror), 2 usage error.\n", DEMO_ATTACH_WAIT_MS / 1000);
	return f == stdout ? 0 : 2;
}

static void
setf(char *dst, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
setf(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

static void
job_finish(job *j, int ok)
{
	j->done = 1;
	j->ok = ok;
	j->t1 = tool_now();
}

/* The sum of the ranks 0, 2, 4 ... below n. */
static int64_t
even_sum(uint32_t n)
{
	int64_t k = (n + 1) / 2;
	return k * (k - 1);
}

static void
take_int(job *j, const grove_packet *p)
{
	int32_t v;
	int rc = grove_packet_unpack(p, "%d", &v);
	if (rc < 0) {
		setf(j->result, sizeof j->result, "bad reply: %s",
		    grove_err_name(rc));
		job_finish(j, 0);
		return;
	}
	setf(j->result, sizeof j->result, "%" PRId32, v);
	int ok = v == j->want;
	if (j->kind == J_P2P && grove_packet_src(p) != (uint32_t)j->want)
		ok = 0;
	job_finish(j, ok);
}

static void
take_avg(demo *d, job *j, const grove_packet *p)
{
	grove_item v, c;
	double mean;
	int rc = grove_packet_item(p, 0, &v);
	if (rc == 0)
		rc = grove_packet_item(p, 1, &c);
	if (rc < 0 || v.type != GROVE_T_DOUBLE || v.is_array ||
	    c.type != GROVE_T_INT32 || c.is_array) {
		setf(j->result, sizeof j->result, "bad reply: %s",
		    rc < 0 ? grove_err_name(rc) : grove_packet_format(p));
		job_finish(j, 0);
		return;
	}
	int32_t count;
	/* Items may be unaligned inside the packet. */
	memcpy(&mean, v.data, sizeof mean);
	memcpy(&count, c.data, sizeof count);
	double want = d->n / 2.0;
	setf(j->result, sizeof j->result, "%.4f (n=%" PRId32 ")", mean,
	    count);
	double err = mean > want ? mean - want : want - mean;
	job_finish(j, err < 1e-9 * (want + 1) && count == (int32_t)d->n);
}

/* Reads element i of an int32 or uint32 array item. */
static uint32_t
elem32(const grove_item *it, uint64_t i)
{
	uint32_t v;
	memcpy(&v, (const char *)it->data + i * 4, 4);
	return v;
}

static void
take_concat(demo *d, job *j, const grove_packet *p)
{
	grove_item v, r;
	int rc = grove_packet_item(p, 0, &v);
	if (rc == 0)
		rc = grove_packet_item(p, 1, &r);
	if (rc < 0 || v.type != GROVE_T_INT32 || !v.is_array ||
	    r.type != GROVE_T_UINT32 || r.count != v.count) {
		setf(j->result, sizeof j->result, "bad reply: %s",
		    rc < 0 ? grove_err_name(rc) : grove_packet_format(p));
		job_finish(j, 0);
		return;
	}
	int ok = v.count == d->n;
	uint8_t *seen = calloc(d->n ? d->n : 1, 1);
	for (uint64_t i = 0; ok && i < v.count; i++) {
		uint32_t val = elem32(&v, i), rank = elem32(&r, i);
		if (val != rank || rank >= d->n || !seen || seen[rank])
			ok = 0;
		else
			seen[rank] = 1;
	}
	free(seen);
	if (v.count <= 4) {
		/* Short enough to print whole. */
		size_t off = snprintf(j->result, sizeof j->result, "[");
		for (uint64_t i = 0; i < v.count; i++)
			off += snprintf(j->result + off, sizeof j->result - off,
			    "%s%" PRId32, i ? "," : "",
			    (int32_t)elem32(&v, i));
		snprintf(j->result + off, sizeof j->result - off, "]");
	} else {
		setf(j->result, sizeof j->result,
		    "[%" PRId32 ",%" PRId32 ",...,%" PRId32 "] (%" PRIu64 ")",
		    (int32_t)elem32(&v, 0), (int32_t)elem32(&v, 1),
		    (int32_t)elem32(&v, v.count - 1), v.count);
	}
	job_finish(j, ok);
}

static void
take_array(demo *d, job *j, const grove_packet *p)
{
	grove_item v;
	int rc = grove_packet_item(p, 0, &v);
	if (rc < 0 || v.type != GROVE_T_INT32 || !v.is_array ||
	    grove_packet_nitems(p) != 1) {
		setf(j->result, sizeof j->result, "bad reply: %s",
		    rc < 0 ? grove_err_name(rc) : grove_packet_format(p));
		job_finish(j, 0);
		return;
	}
	int64_t base = 1000 * (int64_t)d->n * (d->n - 1) / 2;
	int ok = v.count == DEMO_ARRAY_LEN;
	for (uint64_t i = 0; ok && i < v.count; i++)
		if ((int32_t)elem32(&v, i) != base + (int64_t)d->n * (int64_t)i)
			ok = 0;
	if (v.count >= 2)
		setf(j->result, sizeof j->result,
		    "[%" PRId32 ",%" PRId32 ",...] (%" PRIu64 ")",
		    (int32_t)elem32(&v, 0), (int32_t)elem32(&v, 1), v.count);
	else
		setf(j->result, sizeof j->result, "%" PRIu64 " elements",
		    v.count);
	job_finish(j, ok);
}

/* Marks rank r as seen by a multi-packet job. */
static void
job_mark(demo *d, job *j, uint32_t r)
{
	if (r >= d->n || j->seen[r]) {
		j->dup = 1;
		return;
	}
	j->seen[r] = 1;
	j->nseen++;
}

static void
take_gather(demo *d, job *j, const grove_packet *p)
{
	double load;
	uint64_t rank;
	const char *host;
	int rc = grove_packet_unpack(p, "%lf %uld %s", &load, &rank, &host);
	if (rc < 0) {
		setf(j->result, sizeof j->result, "bad reply: %s",
		    grove_err_name(rc));
		job_finish(j, 0);
		return;
	}
	job_mark(d, j, rank > UINT32_MAX ? UINT32_MAX : (uint32_t)rank);
	if (rank < d->n)
		demo_hosts_note(&d->hosts, (uint32_t)rank, host);
	if (j->nseen == d->n || j->dup) {
		setf(j->result, sizeof j->result, "%" PRIu32 " from %.20s%s",
		    j->nseen, host, j->dup ? " (dup)" : "");
		job_finish(j, !j->dup);
	}
}

static void
take_timeout(demo *d, job *j, const grove_packet *p, int p2p)
{
	if (p2p) {
		j->slow_reply = 1;
	} else {
		grove_item v, r;
		int rc = grove_packet_item(p, 0, &v);
		if (rc == 0)
			rc = grove_packet_item(p, 1, &r);
		if (rc < 0 || v.type != GROVE_T_INT32 || !v.is_array ||
		    r.type != GROVE_T_UINT32 || r.count != v.count) {
			setf(j->result, sizeof j->result, "bad reply: %s",
			    rc < 0 ? grove_err_name(rc) :
			    grove_packet_format(p));
			job_finish(j, 0);
			return;
		}
		j->waves++;
		j->slow_last_wave = 0;
		for (uint64_t i = 0; i < r.count; i++) {
			uint32_t rank = elem32(&r, i);
			if (elem32(&v, i) != rank)
				j->dup = 1;
			if (rank == d->slow_rank) {
				j->slow_last_wave = 1;
				if (j->waves == 1)
					j->slow_early = 1;
			}
			job_mark(d, j, rank);
		}
		size_t off = strlen(j->result);
		if (off + 12 < sizeof j->result)
			snprintf(j->result + off, sizeof j->result - off,
			    "%s%" PRIu64, j->waves > 1 ? "+" : "waves ",
			    r.count);
	}
	if ((j->nseen == d->n && j->slow_reply) || j->dup)
		job_finish(j, !j->dup && !j->slow_early && j->waves >= 2 &&
		    j->slow_last_wave);
}

static job *
find_job(demo *d, const grove_stream *s, int32_t tag)
{
	for (int i = 0; i < d->njobs; i++) {
		job *j = &d->jobs[i];
		if (s && j->s == s)
			return j;
		if (!s && !j->s && j->tag == tag)
			return j;
		if (!s && j->kind == J_TIMEOUT && tag == WORKER_SLOW)
			return j;
	}
	return NULL;
}

/* Notes who is in the wave p came from: the table's "in" column, and the
 * missing ranks of the first partial wave. */
static void
take_account(job *j, const grove_packet *p)
{
	uint32_t in = 0, of = 0;
	if (grove_packet_contributors(p, &in, &of) != 0)
		return;
	if (!j->in_seen || in < j->in_min)
		j->in_min = in;
	if (!j->in_seen || in > j->in_max)
		j->in_max = in;
	j->in_of = of;
	j->in_seen = 1;
	grove_missing m;
	if (in < of && !j->missing[0] && grove_packet_missing(p, &m, 1) > 0) {
		if (m.rank_hi - m.rank_lo == 1)
			setf(j->missing, sizeof j->missing, "rank %u: %s at node "
			    "%u", m.rank_lo, grove_missing_reason_name(m.reason),
			    m.node);
		else
			setf(j->missing, sizeof j->missing, "ranks %u-%u: %s at "
			    "node %u", m.rank_lo, m.rank_hi - 1,
			    grove_missing_reason_name(m.reason), m.node);
	}
}

static void
take(demo *d, job *j, const grove_packet *p, int p2p)
{
	take_account(j, p);
	switch (j->kind) {
	case J_ECHO:
	case J_SCALAR:
	case J_P2P:
		take_int(j, p);
		break;
	case J_AVG:
		take_avg(d, j, p);
		break;
	case J_CONCAT:
		take_concat(d, j, p);
		break;
	case J_ARRAY:
		take_array(d, j, p);
		break;
	case J_GATHER:
		take_gather(d, j, p);
		break;
	case J_TIMEOUT:
		take_timeout(d, j, p, p2p);
		break;
	}
}

static job *
job_add(demo *d, job_kind kind, const char *request, const char *filters,
    int32_t tag)
{
	job *j = &d->jobs[d->njobs++];
	memset(j, 0, sizeof *j);
	j->kind = kind;
	j->request = request;
	j->filters = filters;
	j->tag = tag;
	setf(j->members, sizeof j->members, "%" PRIu32 " (all)", d->n);
	return j;
}

/* Creates the stream of a job over comm (NULL: all back-ends). */
static int
job_stream(demo *d, job *j, const char *up, const char *sync,
    uint32_t timeout_ms)
{
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = up;
	so.sync_filter = sync;
	so.sync_timeout_ms = timeout_ms;
	const grove_comm *c = j->comm ? j->comm : grove_net_comm_all(d->net);
	int rc = grove_stream_create(d->net, c, &so, &j->s);
	if (rc < 0)
		fprintf(stderr, "grove demo: stream '%s' (%s): %s: %s\n",
		    j->request, j->filters, grove_strerror(rc),
		    grove_net_last_error(d->net));
	return rc;
}

static int
make_jobs(demo *d)
{
	job *j;
	int rc = 0;

	j = job_add(d, J_SCALAR, "rank", "sum / wait_for_all", WORKER_RANK);
	j->want = (int64_t)d->n * (d->n - 1) / 2;
	rc |= job_stream(d, j, "sum", "wait_for_all", 0);

	j = job_add(d, J_SCALAR, "rank", "max / wait_for_all", WORKER_RANK);
	j->want = d->n - 1;
	rc |= job_stream(d, j, "max", "wait_for_all", 0);

	j = job_add(d, J_SCALAR, "rank", "min / wait_for_all", WORKER_RANK);
	j->want = 0;
	rc |= job_stream(d, j, "min", "wait_for_all", 0);

	j = job_add(d, J_AVG, "rank+0.5", "avg / wait_for_all", WORKER_AVG);
	setf(j->expected, sizeof j->expected, "%.4f (n=%" PRIu32 ")",
	    d->n / 2.0, d->n);
	rc |= job_stream(d, j, "avg", "wait_for_all", 0);

	j = job_add(d, J_CONCAT, "rank", "concat / wait_for_all",
	    WORKER_RANK);
	setf(j->expected, sizeof j->expected, "[0..%" PRIu32 "], value=rank",
	    d->n - 1);
	rc |= job_stream(d, j, "concat", "wait_for_all", 0);

	/* Element-wise sums of int32 arrays; skipped when they would not
	 * fit in an int32. */
	int64_t base = 1000 * (int64_t)d->n * (d->n - 1) / 2;
	if (base + (int64_t)d->n * DEMO_ARRAY_LEN <= INT32_MAX) {
		j = job_add(d, J_ARRAY, "array[4]", "sum / wait_for_all",
		    WORKER_ARRAY);
		setf(j->expected, sizeof j->expected,
		    "[%" PRId64 ",%" PRId64 ",...] (%d)", base,
		    base + d->n, DEMO_ARRAY_LEN);
		rc |= job_stream(d, j, "sum", "wait_for_all", 0);
	}

	j = job_add(d, J_GATHER, "info", "null / dont_wait", WORKER_INFO);
	setf(j->expected, sizeof j->expected, "%" PRIu32 " replies", d->n);
	j->seen = calloc(d->n, 1);
	if (!j->seen)
		return GROVE_ENOMEM;
	rc |= job_stream(d, j, "null", "dont_wait", 0);

	/* A sub-communicator: the even ranks. */
	j = job_add(d, J_SCALAR, "rank", "sum / wait_for_all", WORKER_RANK);
	j->want = even_sum(d->n);
	{
		uint32_t k = (d->n + 1) / 2;
		uint32_t *ranks = malloc(k * sizeof *ranks);
		if (!ranks)
			return GROVE_ENOMEM;
		for (uint32_t i = 0; i < k; i++)
			ranks[i] = 2 * i;
		int r = grove_comm_create(d->net, ranks, k, &j->comm);
		free(ranks);
		if (r < 0) {
			fprintf(stderr, "grove demo: even communicator: %s: "
			    "%s\n", grove_strerror(r),
			    grove_net_last_error(d->net));
			return r;
		}
		setf(j->members, sizeof j->members, "%zu (even)",
		    grove_comm_size(j->comm));
	}
	rc |= job_stream(d, j, "sum", "wait_for_all", 0);

	j = job_add(d, J_P2P, "rank", "point-to-point", WORKER_RANK);
	j->want = d->p2p_rank;
	setf(j->members, sizeof j->members, "rank %" PRIu32, d->p2p_rank);

	/* The slow back-end: the time-out releases a partial wave first. */
	if (d->n >= 2) {
		j = job_add(d, J_TIMEOUT, "rank, 1 slow", "concat / timeout",
		    WORKER_RANK);
		setf(j->expected, sizeof j->expected, "partial, then %" PRIu32,
		    d->slow_rank);
		j->seen = calloc(d->n, 1);
		if (!j->seen)
			return GROVE_ENOMEM;
		rc |= job_stream(d, j, "concat", "timeout", DEMO_TIMEOUT_MS);
	}
	for (int i = 0; i < d->njobs; i++) {
		j = &d->jobs[i];
		if (j->kind == J_SCALAR || j->kind == J_P2P)
			setf(j->expected, sizeof j->expected, "%" PRId64,
			    j->want);
	}
	return rc < 0 ? GROVE_EINVAL : 0;
}

/* Sends every request: the slow one last, so that the slow back-end has
 * answered everything else before it goes to sleep. */
static int
send_all(demo *d)
{
	int rc = 0;
	for (int i = 0; i < d->njobs && rc == 0; i++) {
		job *j = &d->jobs[i];
		j->t0 = tool_now();
		switch (j->kind) {
		case J_ARRAY:
			rc = grove_stream_send(j->s, j->tag, "%d",
			    DEMO_ARRAY_LEN);
			break;
		case J_P2P:
			rc = grove_net_send_to(d->net, d->p2p_rank, j->tag,
			    "");
			break;
		case J_TIMEOUT:
			rc = grove_net_send_to(d->net, d->slow_rank,
			    WORKER_SLOW, "%d", DEMO_SLOW_MS);
			if (rc == 0)
				rc = grove_stream_send(j->s, j->tag, "");
			break;
		default:
			rc = grove_stream_send(j->s, j->tag, "");
			break;
		}
	}
	if (rc < 0)
		fprintf(stderr, "grove demo: send: %s: %s\n",
		    grove_strerror(rc), grove_net_last_error(d->net));
	return rc;
}

static int
pending(const demo *d)
{
	int n = 0;
	for (int i = 0; i < d->njobs; i++)
		n += !d->jobs[i].done;
	return n;
}

static void
recv_all(demo *d)
{
	double deadline = tool_now() + DEMO_WAIT_MS / 1000.0;
	while (pending(d)) {
		int left = (int)((deadline - tool_now()) * 1000);
		if (left <= 0)
			break;
		grove_stream *s = NULL;
		int32_t tag = 0;
		grove_packet *p = NULL;
		int rc = grove_net_recv(d->net, &s, &tag, &p, left);
		if (rc == GROVE_ETIMEDOUT)
			break;
		if (rc == GROVE_EFILTER || rc == GROVE_ELOST) {
			/* A wave that failed: said, and its job stays open. */
			fprintf(stderr, "grove demo: a wave failed: %s: %s\n",
			    grove_strerror(rc), grove_net_last_error(d->net));
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "grove demo: receive: %s: %s\n",
			    grove_strerror(rc), grove_net_last_error(d->net));
			break;
		}
		job *j = find_job(d, s, tag);
		if (!j || j->done) {
			fprintf(stderr, "grove demo: unexpected packet: "
			    "stream %u tag %d from rank %u\n",
			    s ? grove_stream_id(s) : 0, tag,
			    grove_packet_src(p));
			d->unexpected++;
		} else {
			take(d, j, p, s == NULL);
		}
		grove_packet_unref(p);
	}
	for (int i = 0; i < d->njobs; i++) {
		job *j = &d->jobs[i];
		if (!j->done) {
			if (!j->result[0])
				setf(j->result, sizeof j->result, "no reply");
			else
				strncat(j->result, " (late)",
				    sizeof j->result - strlen(j->result) - 1);
			job_finish(j, 0);
		}
	}
}

static void
print_row(int idx, const char *sid, const job *j)
{
	/* Back-ends in the results: "16/16", "15-16/16" when waves differed,
	 * "-" for point-to-point. */
	char in[24] = "-";
	if (j->in_seen && j->in_min == j->in_max)
		setf(in, sizeof in, "%u/%u", j->in_min, j->in_of);
	else if (j->in_seen)
		setf(in, sizeof in, "%u-%u/%u", j->in_min, j->in_max, j->in_of);
	printf("%3d %-5s %-13s %-22s %-10s %-26s %-26s %-11s %-8s %8.2f\n",
	    idx, sid, j->request, j->filters, j->members, j->result,
	    j->expected, in, j->ok ? "OK" : "MISMATCH", (j->t1 - j->t0) * 1e3);
}

static void
print_header(void)
{
	printf("%3s %-5s %-13s %-22s %-10s %-26s %-26s %-11s %-8s %8s\n", "#",
	    "strm", "request", "filters (up / sync)", "members", "result",
	    "expected", "in", "status", "ms");
}

static void
print_topology(const grove_net *net, const char *spec, double create_s,
    int attach)
{
	const grove_topo *t = grove_net_topology(net);
	uint32_t nodes = grove_topo_size(t), be = grove_topo_backends(t);
	uint32_t fanout = 0;
	for (uint32_t i = 0; i < nodes; i++) {
		const grove_topo_node *nd = grove_topo_node_at(t, i);
		if (nd && nd->n_children > fanout)
			fanout = nd->n_children;
	}
	if (nodes <= 40) {
		/* Small enough to show whole (the text form ends with the
		 * node counts). */
		printf("topology %s:\n", spec);
		grove_topo_print(t, GROVE_TOPO_TEXT, stdout);
	} else {
		printf("topology %s: 1 front-end, %" PRIu32 " communication "
		    "processes, %" PRIu32 " back-ends; depth %" PRIu32
		    ", widest fan-out %" PRIu32 "\n", spec, nodes - 1 - be,
		    be, grove_topo_depth(t), fanout);
	}
	printf("network %s up in %.1f ms (%s mode, all %" PRIu32
	    " back-ends %s)\n\n", grove_net_id(net), create_s * 1e3,
	    attach ? "attach" : "spawn", grove_net_backends_up(net),
	    attach ? "attached" : "connected");
}

/* The broadcast request, before the concurrent part: one round trip. */
static int
broadcast(demo *d, job *j)
{
	memset(j, 0, sizeof *j);
	j->kind = J_ECHO;
	j->request = "echo 42";
	j->filters = "sum / wait_for_all";
	j->tag = WORKER_ECHO;
	j->want = (int64_t)DEMO_ECHO_VALUE * d->n;
	setf(j->members, sizeof j->members, "%" PRIu32 " (all)", d->n);
	setf(j->expected, sizeof j->expected, "%" PRId64, j->want);
	int rc = job_stream(d, j, "sum", "wait_for_all", 0);
	if (rc < 0)
		return rc;
	j->t0 = tool_now();
	rc = grove_stream_send(j->s, j->tag, "%d", DEMO_ECHO_VALUE);
	grove_packet *p = NULL;
	int32_t tag;
	if (rc == 0)
		rc = grove_stream_recv(j->s, &tag, &p, DEMO_WAIT_MS);
	if (rc < 0) {
		setf(j->result, sizeof j->result, "%s", grove_err_name(rc));
		fprintf(stderr, "grove demo: broadcast: %s: %s\n",
		    grove_strerror(rc), grove_net_last_error(d->net));
		job_finish(j, 0);
		return 0;
	}
	take_int(j, p);
	grove_packet_unref(p);
	return 0;
}

static void
drain_events(grove_net *net)
{
	grove_event ev;
	while (grove_net_next_event(net, &ev, 0) == 0) {
		switch (ev.type) {
		case GROVE_EV_LOST:
			printf("event: ranks [%u, %u) lost (node %u) %s\n",
			    ev.rank_lo, ev.rank_hi, ev.node, ev.text);
			break;
		case GROVE_EV_FILTER_ERROR:
			printf("event: filter error on node %u, stream %u: "
			    "%s\n", ev.node, ev.stream, ev.text);
			break;
		default:
			break;
		}
	}
}

static void
demo_free(demo *d)
{
	for (int i = 0; i < d->njobs; i++) {
		job *j = &d->jobs[i];
		if (j->s)
			grove_stream_destroy(j->s);
		if (j->comm)
			grove_comm_destroy(j->comm);
		free(j->seen);
	}
	demo_hosts_free(&d->hosts);
}

int
cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_HOSTS,
		{"attach", required_argument, NULL, 'a'}, CLI_OPT_HELP,
		{NULL, 0, NULL, 0},
	};
	cli_tree tree = {.spec = "kary:4", .backends = 16};
	const char *hosts = NULL, *attach = NULL;
	int c, usage;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:f:b:H:a:h", opts, NULL)) !=
	    -1) {
		if (cli_tree_opt("grove demo", c, optarg, 65536, &tree,
		    &usage)) {
			if (usage)
				return usage;
		} else if (c == 'H') {
			hosts = optarg;
		} else if (c == 'a') {
			attach = optarg;
		} else if (c == 'h') {
			return demo_usage(stdout);
		} else {
			return cli_opt_error("grove demo", c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error("grove demo", "unexpected argument",
		    argv[optind]);
	if (tree.file && hosts)
		return tool_usage_error("grove demo", "--hosts goes with "
		    "--topology; a topology file names its own hosts", NULL);
	/* A levels: spec or a file says how many back-ends it has, within
	 * the same limit. */
	usage = cli_tree_resolve("grove demo", &tree, 65536);
	if (usage)
		return usage;
	const char *spec = tree.file ? tree.file : tree.spec;
	unsigned nb = tree.backends;

	tool_programs pg;
	char err[512];
	if (tool_find_programs(&pg, err, sizeof err) < 0) {
		fprintf(stderr, "grove demo: %s\n", err);
		return 1;
	}
	tool_raise_nofile();

	grove_net_opts o;
	tool_net_opts(&o, &pg, tree.spec, nb);
	o.topology_file = tree.file;
	o.hosts_file = hosts;
	if (attach) {
		o.mode = GROVE_LAUNCH_ATTACH;
		o.connect_file = attach;
		o.be_exe = NULL;
		o.be_argv = NULL;
	}
	demo d;
	memset(&d, 0, sizeof d);
	double t0 = tool_now();
	int rc = grove_net_create(&o, &d.net);
	const char *what = "cannot start the network";
	if (rc == 0 && attach) {
		rc = demo_attach_wait(d.net, attach, DEMO_ATTACH_WAIT_MS);
		what = "the back-ends did not attach";
	}
	double create_s = tool_now() - t0;
	if (rc == 0)
		rc = demo_hosts_init(&d.hosts, grove_net_backends(d.net));
	if (rc < 0) {
		fprintf(stderr, "grove demo: %s: %s%s%s\n", what,
		    grove_strerror(rc), d.net ? ": " : "",
		    d.net ? grove_net_last_error(d.net) : "");
		if (d.net)
			grove_net_destroy(d.net);
		return 1;
	}
	d.n = grove_net_backends(d.net);
	d.slow_rank = d.n - 1;
	d.p2p_rank = d.n / 2 != d.slow_rank ? d.n / 2 : 0;
	print_topology(d.net, spec, create_s, attach != NULL);

	job bc;
	int bad = 0;
	double t_all = tool_now();
	rc = broadcast(&d, &bc);
	if (rc == 0)
		rc = make_jobs(&d);
	if (rc == 0)
		rc = send_all(&d);
	if (rc == 0)
		recv_all(&d);
	double all_ms = (tool_now() - t_all) * 1e3;

	if (rc == 0) {
		printf("broadcast request, then %d requests in flight at once "
		    "(%d streams + point-to-point):\n\n", d.njobs,
		    d.njobs - 1);
		print_header();
		char sid[16];
		setf(sid, sizeof sid, "%u", grove_stream_id(bc.s));
		print_row(0, sid, &bc);
		bad += !bc.ok;
		for (int i = 0; i < d.njobs; i++) {
			job *j = &d.jobs[i];
			if (j->s)
				setf(sid, sizeof sid, "%u",
				    grove_stream_id(j->s));
			else
				setf(sid, sizeof sid, "p2p");
			print_row(i + 1, sid, j);
			bad += !j->ok;
		}
		printf("\nin: the back-ends whose share is in the results, of "
		    "the stream's members\n(grove_packet_contributors).\n");
		if (d.n >= 2) {
			printf("\ntime-out stream: %u ms time-out, rank %u "
			    "answers after %d ms;\nthe waves show the partial "
			    "result first, then the late contribution.\n",
			    DEMO_TIMEOUT_MS, d.slow_rank, DEMO_SLOW_MS);
			for (int i = 0; i < d.njobs; i++)
				if (d.jobs[i].kind == J_TIMEOUT &&
				    d.jobs[i].missing[0])
					printf("the partial wave says who is "
					    "missing: %s\n", d.jobs[i].missing);
		}
		printf("\n");
		demo_hosts_print(&d.hosts, stdout);
	}
	drain_events(d.net);
	if (bc.s)
		grove_stream_destroy(bc.s);
	demo_free(&d);
	t0 = tool_now();
	grove_net_destroy(d.net);
	double destroy_ms = (tool_now() - t0) * 1e3;

	printf("\ninstantiation %.1f ms, requests %.1f ms, shutdown %.1f ms\n",
	    create_s * 1e3, all_ms, destroy_ms);
	if (rc < 0) {
		printf("FAILED: %s\n", grove_strerror(rc));
		return 1;
	}
	if (d.unexpected)
		printf("%d unexpected packet(s)\n", d.unexpected);
	if (bad || d.unexpected) {
		printf("%d result(s) MISMATCH\n", bad);
		return 1;
	}
	printf("all %d results OK\n", d.njobs + 1);
	if (!getenv("GROVE_TRACE_DUMP"))
		printf("\nto see inside the tree: GROVE_TRACE_DUMP=trace.json grove "
		    "demo, then open trace.json in ui.perfetto.dev\n");
	return 0;
}
