/* Chrome Trace Event JSON, as opened by ui.perfetto.dev and
 * chrome://tracing: one pid per process, one tid per thread ring, an "X"
 * slice per tuple and a flow arrow per matched message.
 *
 * An arrow is bound to its two slices by id ("bind_id" with "flow_out" on
 * the send, "flow_in" on the receive), not by time: the sends of one
 * writev share their span and the receives of one read their instant, so
 * an "s"/"f" pair placed by timestamp could land on a neighbour of the
 * same batch.  A slice carries one binding per direction; a message whose
 * slice already has one keeps the timestamp form.
 *
 * Perfetto imports the events in time order, drops an arrow whose
 * flow_in it meets before its flow_out, and draws every arrow from the
 * earlier of its slices to the later.  Grove's link receives are
 * instants at the read, after the send on one host; but on a timeline of
 * several hosts a receive can come first, within the error bounds of the
 * two clocks' placement, and a receive span of a tool's collector can
 * begin before the send it waits for.  Such a message's binding is
 * turned round (flow_out on the receive), so that Perfetto keeps the
 * arrow; the receive's slice says by how much it came first
 * (args.before_send_us), and otherData counts them. */
#include <inttypes.h>
#include <stdlib.h>

#include "grove/error.h"
#include "trace/align.h"
#include "trace/trace_impl.h"

/* Microseconds with a nanosecond fraction, relative to the origin. */
static void
put_us(FILE *f, const char *key, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	fprintf(f, "\"%s\":%s%" PRIu64 ".%03u", key, sign, a / 1000,
	        (unsigned)(a % 1000));
}

static void
put_meta(FILE *f, int *first, uint32_t pid, int64_t tid, const char *what,
         const char *key, const char *val, long num)
{
	fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%u,", *first ? "" : ",", pid);
	*first = 0;
	if (tid >= 0)
		fprintf(f, "\"tid\":%" PRId64 ",", tid);
	fprintf(f, "\"name\":\"%s\",\"args\":{\"%s\":", what, key);
	if (val)
		trace_json_str(f, val);
	else
		fprintf(f, "%ld", num);
	fputs("}}", f);
}

/* Thread ids: the kernel tid, or the ring index when a tid repeats. */
static int64_t
ring_tid(const struct trace_proc *p, uint32_t r)
{
	for (uint32_t i = 0; i < r; i++)
		if (p->rings[i].tid == p->rings[r].tid)
			return 1000000000 + r;
	return p->rings[r].tid;
}

/* The message ids bound to each tuple's slice, 0 for none: out[] for the
 * message it sends, in[] for the one it receives, indexed like the
 * tuples of the set (first[proc][ring] + idx). */
struct flow_binds {
	size_t *ring0; /* per process: its first ring's index in first[] */
	size_t *first; /* per (process, ring): offset of its tuples */
	size_t *out, *in;
	/* ns by which a receive's arrow head would come before its tail on
	 * this timeline (0: it does not), indexed like out[] and in[]. */
	uint64_t *early;
};

static size_t
bind_slot(const struct flow_binds *b, struct trace_ref ref)
{
	return b->first[b->ring0[ref.proc] + ref.ring] + ref.idx;
}

static void
flow_binds_fini(struct flow_binds *b)
{
	free(b->ring0);
	free(b->first);
	free(b->out);
	free(b->in);
	free(b->early);
}

static int
flow_binds_init(struct flow_binds *b, const struct trace_set *set)
{
	size_t rings = 0, tuples = 0;
	for (uint32_t i = 0; i < set->n; i++)
		rings += set->p[i].n_rings;
	b->ring0 = malloc((set->n + 1) * sizeof *b->ring0);
	b->first = malloc((rings + 1) * sizeof *b->first);
	size_t k = 0;
	for (uint32_t i = 0; b->ring0 && b->first && i < set->n; i++) {
		b->ring0[i] = k;
		for (uint32_t r = 0; r < set->p[i].n_rings; r++) {
			b->first[k++] = tuples;
			tuples += set->p[i].rings[r].n;
		}
	}
	b->out = calloc(tuples + 1, sizeof *b->out);
	b->in = calloc(tuples + 1, sizeof *b->in);
	b->early = calloc(tuples + 1, sizeof *b->early);
	if (!b->ring0 || !b->first || !b->out || !b->in || !b->early) {
		flow_binds_fini(b);
		return GROVE_ENOMEM;
	}
	return 0;
}

static void
put_slice(FILE *f, const struct trace_set *set, uint32_t pi, uint32_t r,
          const grove_trace_tuple *t, uint64_t origin, size_t out_id,
          size_t in_id, uint64_t early_ns)
{
	const struct trace_proc *p = &set->p[pi];
	const struct trace_collector_entry *e =
		trace_proc_collector(p, t->collector);
	char opbuf[32];
	const char *op = trace_op_name(t->op, opbuf, sizeof opbuf);
	uint64_t s = trace_proc_ns(p, t->t_start);
	uint64_t d = trace_proc_ns(p, t->t_end) - s;
	if ((int64_t)d < 0)
		d = 0;
	fputs(",\n{\"ph\":\"X\",\"name\":", f);
	trace_json_str(f, e && e->name[0] ? e->name : op);
	fputs(",\"cat\":", f);
	/* A collector registered with an empty layer has an empty
	 * category; only a tuple of no registered collector (id 0, or one
	 * the registry does not hold) is "unregistered". */
	trace_json_str(f, e ? e->layer : "unregistered");
	fprintf(f, ",\"pid\":%u,\"tid\":%" PRId64 ",", pi + 1, ring_tid(p, r));
	put_us(f, "ts", (int64_t)(s - origin));
	fputc(',', f);
	put_us(f, "dur", (int64_t)d);
	if (out_id || in_id)
		fprintf(f, ",\"bind_id\":%zu,\"%s\":true", out_id ? out_id : in_id,
		        out_id ? "flow_out" : "flow_in");
	fprintf(f, ",\"args\":{\"op\":\"%s\",\"seq\":%u,\"result\":%d,"
	        "\"collector\":", op, t->seq, t->result);
	trace_json_str(f, e ? e->name : "");
	fputs(",\"where\":", f);
	trace_json_str(f, e ? e->where : "");
	fputs(",\"position\":", f);
	trace_json_str(f, e ? e->position : "");
	if (early_ns) {
		fputc(',', f);
		put_us(f, "before_send_us", (int64_t)early_ns);
	}
	fputs("}}", f);
}

/* Where the timestamp form places an arrow's tail (the send's start) or
 * head (the receive's end). */
static uint64_t
flow_end_ns(const struct trace_proc *p, const grove_trace_tuple *t, int tail)
{
	return trace_proc_ns(p, tail ? t->t_start : t->t_end);
}

/* By how much the head of message m's arrow would come before its tail
 * in Perfetto's import order (by start, the longer slice first on a
 * tie), in ns; 0 when it does not.  by_time: the timestamp form. */
static uint64_t
arrow_early_ns(const struct trace_set *set, const struct trace_msg *m,
               int by_time)
{
	const struct trace_proc *ps = &set->p[m->send.proc];
	const struct trace_proc *pr = &set->p[m->recv.proc];
	const grove_trace_tuple *ts = trace_ref_tuple(set, m->send);
	const grove_trace_tuple *tr = trace_ref_tuple(set, m->recv);
	uint64_t tail, head;
	if (by_time) {
		tail = flow_end_ns(ps, ts, 1);
		head = flow_end_ns(pr, tr, 0);
	} else {
		tail = trace_proc_ns(ps, ts->t_start);
		head = trace_proc_ns(pr, tr->t_start);
		uint64_t ds = trace_proc_ns(ps, ts->t_end) - tail;
		uint64_t dr = trace_proc_ns(pr, tr->t_end) - head;
		/* A tie goes to the longer slice: a longer receive would be
		 * imported first.  One ns stands for "by nothing". */
		if (head == tail && (int64_t)dr > (int64_t)ds)
			return 1;
	}
	return head < tail ? tail - head : 0;
}

static void
put_flow(FILE *f, const struct trace_set *set, struct trace_ref ref,
         const char *ph, size_t id, uint64_t origin)
{
	const struct trace_proc *p = &set->p[ref.proc];
	const grove_trace_tuple *t = trace_ref_tuple(set, ref);
	/* "s" sits at the send's start, "f" at the receive's end; "bp":"e"
	 * binds the arrow head to the slice enclosing that instant. */
	uint64_t at = flow_end_ns(p, t, ph[0] == 's');
	fprintf(f, ",\n{\"ph\":\"%s\",\"name\":\"message\",\"cat\":\"link\","
	        "\"id\":%zu,\"pid\":%u,\"tid\":%" PRId64 ",", ph, id,
	        ref.proc + 1, ring_tid(p, ref.ring));
	put_us(f, "ts", (int64_t)(at - origin));
	fputs(ph[0] == 'f' ? ",\"bp\":\"e\"}" : "}", f);
}

/* ", clock skew +-12.345 us" for the process's label. */
static void
clock_label(char *buf, size_t len, const struct trace_proc *p)
{
	if (p->align == TRACE_PROC_SKEW || p->align == TRACE_PROC_REALTIME)
		snprintf(buf, len, ", clock %s +-%" PRIu64 ".%03u us",
		         trace_proc_align_name(p->align), p->align_err_ns / 1000,
		         (unsigned)(p->align_err_ns % 1000));
	else
		snprintf(buf, len, ", clock %s", trace_proc_align_name(p->align));
}

/* How each process was placed on the timeline, in otherData: "clock" is
 * reference, same-host, skew (corrected by the measured offset),
 * realtime (its realtime clock as is) or unknown (its own monotonic
 * clock); error_ns bounds the placement, shift_ns is what was added to
 * its monotonic times. */
static void
put_clocks(FILE *f, const struct trace_set *set)
{
	fprintf(f, ",\"timeline\":\"%s\",\"unaligned\":%zu,\"clocks\":[",
	        trace_timeline_name(set->timeline), set->unaligned);
	for (size_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		fprintf(f, "%s\n{\"pid\":%zu,\"process\":", i ? "," : "", i + 1);
		trace_json_str(f, p->label);
		fputs(",\"host\":", f);
		trace_json_str(f, p->hdr.hostname);
		fprintf(f, ",\"clock\":\"%s\",\"shift_ns\":%" PRId64
		        ",\"error_ns\":%" PRIu64 "}",
		        trace_proc_align_name(p->align), p->align_shift_ns,
		        p->align_err_ns);
	}
	fputs("]", f);
}

int
trace_export_chrome(const struct trace_set *set, FILE *f)
{
	struct trace_msg *msgs;
	size_t nmsg;
	int rc = trace_match_messages(set, &msgs, &nmsg);
	if (rc)
		return rc;
	struct flow_binds binds;
	rc = flow_binds_init(&binds, set);
	if (rc) {
		free(msgs);
		return rc;
	}
	/* Bind each message to its slices where both are free; the id space
	 * is shared by both forms, so ids stay unique either way. */
	unsigned char *by_time = calloc(nmsg + 1, 1);
	if (!by_time) {
		flow_binds_fini(&binds);
		free(msgs);
		return GROVE_ENOMEM;
	}
	size_t n_early = 0;
	for (size_t m = 0; m < nmsg; m++) {
		size_t so = bind_slot(&binds, msgs[m].send);
		size_t ri = bind_slot(&binds, msgs[m].recv);
		by_time[m] = binds.out[so] || binds.in[so] || binds.out[ri] ||
		             binds.in[ri];
		uint64_t e = arrow_early_ns(set, &msgs[m], by_time[m]);
		if (e) {
			binds.early[ri] = e;
			n_early++;
		}
		if (by_time[m])
			continue;
		/* Perfetto starts an arrow at whichever end it meets first
		 * and draws it from the earlier slice to the later: an
		 * arrow whose receive comes first starts there, or is
		 * dropped. */
		binds.out[e ? ri : so] = m + 1;
		binds.in[e ? so : ri] = m + 1;
	}
	uint64_t origin = trace_set_origin_ns(set);
	uint64_t lost = 0;
	int first = 1;
	int aligned = set->timeline == TRACE_TIMELINE_FRONTEND ||
	              set->timeline == TRACE_TIMELINE_REALTIME;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	for (uint32_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		char lab[160];
		lost += p->lost;
		put_meta(f, &first, i + 1, -1, "process_name", "name",
		         p->label, 0);
		put_meta(f, &first, i + 1, -1, "process_sort_index",
		         "sort_index", NULL, (long)i);
		int n = snprintf(lab, sizeof lab, "pid %d%s, %" PRIu64 " lost",
		                 p->hdr.pid, p->alive ? " (running)" : "",
		                 p->lost);
		/* Threads that found no ring recorded nothing: without this
		 * their absence reads as idleness. */
		if (p->hdr.threads_without_ring && n > 0 &&
		    (size_t)n < sizeof lab)
			n += snprintf(lab + n, sizeof lab - (size_t)n, ", %u "
			              "thread(s) found no ring",
			              p->hdr.threads_without_ring);
		if (aligned && n > 0 && (size_t)n < sizeof lab)
			clock_label(lab + n, sizeof lab - (size_t)n, p);
		put_meta(f, &first, i + 1, -1, "process_labels", "labels",
		         lab, 0);
		for (uint32_t r = 0; r < p->n_rings; r++) {
			snprintf(lab, sizeof lab, "thread %u (ring %u)",
			         p->rings[r].tid, r);
			put_meta(f, &first, i + 1, ring_tid(p, r),
			         "thread_name", "name", lab, 0);
		}
	}
	if (first) /* no process: keep the array well formed */
		fputs("\n{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\","
		      "\"args\":{\"name\":\"(no event spaces)\"}}", f);
	size_t slot = 0;
	for (uint32_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		for (uint32_t r = 0; r < p->n_rings; r++)
			for (size_t k = 0; k < p->rings[r].n; k++, slot++)
				put_slice(f, set, i, r, &p->rings[r].t[k],
				          origin, binds.out[slot],
				          binds.in[slot], binds.early[slot]);
	}
	for (size_t m = 0; m < nmsg; m++)
		if (by_time[m]) {
			put_flow(f, set, msgs[m].send, "s", m + 1, origin);
			put_flow(f, set, msgs[m].recv, "f", m + 1, origin);
		}
	fprintf(f, "\n],\"otherData\":{\"processes\":%zu,\"messages\":%zu,"
	        "\"receives_before_send\":%zu,"
	        "\"lost\":%" PRIu64 ",\"origin_mono_ns\":%" PRIu64,
	        set->n, nmsg, n_early, lost, origin);
	if (aligned)
		put_clocks(f, set);
	fputs("}}\n", f);
	free(by_time);
	flow_binds_fini(&binds);
	free(msgs);
	return ferror(f) ? GROVE_ESYS : 0;
}
