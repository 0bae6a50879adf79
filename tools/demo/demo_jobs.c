/* grove demo's jobs: what each sends and expects, and the check of its
 * replies (demo_jobs.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/grove.h"
#include "../toolutil.h"
#include "demo_jobs.h"
#include "proto/worker_protocol.h"

void
demo_setf(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

void
demo_job_finish(job *j, int ok)
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
		demo_setf(j->result, sizeof j->result, "bad reply: %s",
		    grove_err_name(rc));
		demo_job_finish(j, 0);
		return;
	}
	demo_setf(j->result, sizeof j->result, "%" PRId32, v);
	int ok = v == j->want;
	if (j->kind == J_P2P && grove_packet_src(p) != (uint32_t)j->want)
		ok = 0;
	demo_job_finish(j, ok);
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
		demo_setf(j->result, sizeof j->result, "bad reply: %s",
		    rc < 0 ? grove_err_name(rc) : grove_packet_format(p));
		demo_job_finish(j, 0);
		return;
	}
	int32_t count;
	/* Items may be unaligned inside the packet. */
	memcpy(&mean, v.data, sizeof mean);
	memcpy(&count, c.data, sizeof count);
	double want = d->n / 2.0;
	demo_setf(j->result, sizeof j->result, "%.4f (n=%" PRId32 ")", mean,
	    count);
	double err = mean > want ? mean - want : want - mean;
	demo_job_finish(j, err < 1e-9 * (want + 1) && count == (int32_t)d->n);
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
		demo_setf(j->result, sizeof j->result, "bad reply: %s",
		    rc < 0 ? grove_err_name(rc) : grove_packet_format(p));
		demo_job_finish(j, 0);
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
		demo_setf(j->result, sizeof j->result,
		    "[%" PRId32 ",%" PRId32 ",...,%" PRId32 "] (%" PRIu64 ")",
		    (int32_t)elem32(&v, 0), (int32_t)elem32(&v, 1),
		    (int32_t)elem32(&v, v.count - 1), v.count);
	}
	demo_job_finish(j, ok);
}

static void
take_array(demo *d, job *j, const grove_packet *p)
{
	grove_item v;
	int rc = grove_packet_item(p, 0, &v);
	if (rc < 0 || v.type != GROVE_T_INT32 || !v.is_array ||
	    grove_packet_nitems(p) != 1) {
		demo_setf(j->result, sizeof j->result, "bad reply: %s",
		    rc < 0 ? grove_err_name(rc) : grove_packet_format(p));
		demo_job_finish(j, 0);
		return;
	}
	int64_t base = 1000 * (int64_t)d->n * (d->n - 1) / 2;
	int ok = v.count == DEMO_ARRAY_LEN;
	for (uint64_t i = 0; ok && i < v.count; i++)
		if ((int32_t)elem32(&v, i) != base + (int64_t)d->n * (int64_t)i)
			ok = 0;
	if (v.count >= 2)
		demo_setf(j->result, sizeof j->result,
		    "[%" PRId32 ",%" PRId32 ",...] (%" PRIu64 ")",
		    (int32_t)elem32(&v, 0), (int32_t)elem32(&v, 1), v.count);
	else
		demo_setf(j->result, sizeof j->result, "%" PRIu64 " elements",
		    v.count);
	demo_job_finish(j, ok);
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
		demo_setf(j->result, sizeof j->result, "bad reply: %s",
		    grove_err_name(rc));
		demo_job_finish(j, 0);
		return;
	}
	job_mark(d, j, rank > UINT32_MAX ? UINT32_MAX : (uint32_t)rank);
	if (rank < d->n)
		demo_hosts_note(&d->hosts, (uint32_t)rank, host);
	if (j->nseen == d->n || j->dup) {
		demo_setf(j->result, sizeof j->result, "%" PRIu32 " from %.20s%s",
		    j->nseen, host, j->dup ? " (dup)" : "");
		demo_job_finish(j, !j->dup);
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
			demo_setf(j->result, sizeof j->result, "bad reply: %s",
			    rc < 0 ? grove_err_name(rc) :
			    grove_packet_format(p));
			demo_job_finish(j, 0);
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
		demo_job_finish(j, !j->dup && !j->slow_early && j->waves >= 2 &&
		    j->slow_last_wave);
}

job *
demo_find_job(demo *d, const grove_stream *s, int32_t tag)
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
			demo_setf(j->missing, sizeof j->missing, "rank %u: %s at node "
			    "%u", m.rank_lo, grove_missing_reason_name(m.reason),
			    m.node);
		else
			demo_setf(j->missing, sizeof j->missing, "ranks %u-%u: %s at "
			    "node %u", m.rank_lo, m.rank_hi - 1,
			    grove_missing_reason_name(m.reason), m.node);
	}
}

void
demo_take(demo *d, job *j, const grove_packet *p, int p2p)
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
	demo_setf(j->members, sizeof j->members, "%" PRIu32 " (all)", d->n);
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

int
demo_make_jobs(demo *d)
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
	demo_setf(j->expected, sizeof j->expected, "%.4f (n=%" PRIu32 ")",
	    d->n / 2.0, d->n);
	rc |= job_stream(d, j, "avg", "wait_for_all", 0);

	j = job_add(d, J_CONCAT, "rank", "concat / wait_for_all",
	    WORKER_RANK);
	demo_setf(j->expected, sizeof j->expected, "[0..%" PRIu32 "], value=rank",
	    d->n - 1);
	rc |= job_stream(d, j, "concat", "wait_for_all", 0);

	/* Element-wise sums of int32 arrays; skipped when they would not
	 * fit in an int32. */
	int64_t base = 1000 * (int64_t)d->n * (d->n - 1) / 2;
	if (base + (int64_t)d->n * DEMO_ARRAY_LEN <= INT32_MAX) {
		j = job_add(d, J_ARRAY, "array[4]", "sum / wait_for_all",
		    WORKER_ARRAY);
		demo_setf(j->expected, sizeof j->expected,
		    "[%" PRId64 ",%" PRId64 ",...] (%d)", base,
		    base + d->n, DEMO_ARRAY_LEN);
		rc |= job_stream(d, j, "sum", "wait_for_all", 0);
	}

	j = job_add(d, J_GATHER, "info", "null / dont_wait", WORKER_INFO);
	demo_setf(j->expected, sizeof j->expected, "%" PRIu32 " replies", d->n);
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
		demo_setf(j->members, sizeof j->members, "%zu (even)",
		    grove_comm_size(j->comm));
	}
	rc |= job_stream(d, j, "sum", "wait_for_all", 0);

	j = job_add(d, J_P2P, "rank", "point-to-point", WORKER_RANK);
	j->want = d->p2p_rank;
	demo_setf(j->members, sizeof j->members, "rank %" PRIu32, d->p2p_rank);

	/* The slow back-end: the time-out releases a partial wave first. */
	if (d->n >= 2) {
		j = job_add(d, J_TIMEOUT, "rank, 1 slow", "concat / timeout",
		    WORKER_RANK);
		demo_setf(j->expected, sizeof j->expected, "partial, then %" PRIu32,
		    d->slow_rank);
		j->seen = calloc(d->n, 1);
		if (!j->seen)
			return GROVE_ENOMEM;
		rc |= job_stream(d, j, "concat", "timeout", DEMO_TIMEOUT_MS);
	}
	for (int i = 0; i < d->njobs; i++) {
		j = &d->jobs[i];
		if (j->kind == J_SCALAR || j->kind == J_P2P)
			demo_setf(j->expected, sizeof j->expected, "%" PRId64,
			    j->want);
	}
	return rc < 0 ? GROVE_EINVAL : 0;
}

/* Sends every request: the slow one last, so that the slow back-end has
 * answered everything else before it goes to sleep. */
int
demo_send_all(demo *d)
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

/* The broadcast request, before the concurrent part: one round trip. */
int
demo_broadcast(demo *d, job *j)
{
	memset(j, 0, sizeof *j);
	j->kind = J_ECHO;
	j->request = "echo 42";
	j->filters = "sum / wait_for_all";
	j->tag = WORKER_ECHO;
	j->want = (int64_t)DEMO_ECHO_VALUE * d->n;
	demo_setf(j->members, sizeof j->members, "%" PRIu32 " (all)", d->n);
	demo_setf(j->expected, sizeof j->expected, "%" PRId64, j->want);
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
		demo_setf(j->result, sizeof j->result, "%s", grove_err_name(rc));
		fprintf(stderr, "grove demo: broadcast: %s: %s\n",
		    grove_strerror(rc), grove_net_last_error(d->net));
		demo_job_finish(j, 0);
		return 0;
	}
	take_int(j, p);
	grove_packet_unref(p);
	return 0;
}
