/* Event spaces of several hosts on one timeline.  One machine stands for
 * many: GROVE_TRACE_SHIP=all makes every process ship its event space as
 * if it were remote, and GROVE_CLOCK_INJECT_NS shifts each process's
 * realtime clock as if its host's clock were off (back-end r by r x 50 ms,
 * the CPs by -30 and +70 ms).  The true offset between any two of these
 * processes is 0, so:
 *
 *  - on the front-end's timeline (GROVE_TRACE_TIMELINE=frontend) every
 *    process's shift must be within its reported bound of 0, and every
 *    flow arrow (send -> receive) must go forward within the bounds of
 *    its two ends;
 *  - on the uncorrected realtime timeline the injected offsets show:
 *    some arrows go backwards by far more than any bound, which proves
 *    that the first check cannot pass without the correction.
 *
 * Both the live collection (grove_net_trace_collect) and the collection
 * at exit (GROVE_TRACE_DUMP) are covered.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "trace/trace_impl.h"
#include "../../src/proto/worker_protocol.h"

/* kary:2 with 4 BEs: FE 0, CP 1 (BEs 0, 1), CP 4 (BEs 2, 3). */
#define INJECT "1:50000000,2:100000000,3:150000000,cp1:-30000000," \
	"cp4:70000000"
#define NPROC 7
#define MAXFLOW 4096

static const int64_t inject_of[NPROC] = {0, -30000000, 70000000, 0,
	50000000, 100000000, 150000000}; /* by process order fe, cp, be */

struct clock_row {
	char process[32];
	char clock[16];
	int64_t shift_ns;
	uint64_t err_ns;
};

struct flow {
	long id;
	int pid;
	int64_t ts_ns;
};

struct parsed {
	char timeline[16];
	struct clock_row clk[NPROC + 1]; /* by Perfetto pid (1-based) */
	int nclk;
	struct flow s[MAXFLOW], f[MAXFLOW];
	size_t ns, nf;
};


/* "key":-12.345 (us with a ns fraction) -> ns. */
static int64_t
us_field_ns(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	CHECK(p != NULL);
	p += strlen(key);
	int neg = *p == '-';
	if (neg)
		p++;
	unsigned long long us = 0, frac = 0;
	CHECK(sscanf(p, "%llu.%3llu", &us, &frac) == 2);
	int64_t v = (int64_t)(us * 1000 + frac);
	return neg ? -v : v;
}

static int64_t
ts_ns(const char *line)
{
	return us_field_ns(line, "\"ts\":");
}

/* The exporter writes one event (or one otherData clock entry) per line. */
static void
parse(const char *path, struct parsed *out)
{
	memset(out, 0, sizeof *out);
	char *j = it_slurp(path);
	const char *tl = strstr(j, "\"timeline\":\"");
	if (tl)
		sscanf(tl + 12, "%15[a-z]", out->timeline);
	for (char *line = strtok(j, "\n"); line; line = strtok(NULL, "\n")) {
		int pid;
		long id;
		const char *bind = strstr(line, "\"bind_id\":");
		if (!strncmp(line, "{\"ph\":\"X\"", 9) && bind) {
			/* An arrow bound to slices: it leaves the send
			 * slice's start and enters the receive slice's end.
			 * Which end is which comes from the op (the
			 * collection's own packets are trace_send): a receive
			 * placed before its send carries the flow_out. */
			const char *pp = strstr(line, "\"pid\":");
			int out_end = strstr(line, "\"op\":\"send\"") != NULL ||
			    strstr(line, "\"op\":\"trace_send\"") != NULL;
			CHECK(pp && sscanf(bind + 10, "%ld", &id) == 1 &&
			    sscanf(pp + 6, "%d", &pid) == 1);
			struct flow *v = out_end ? out->s : out->f;
			size_t *n = out_end ? &out->ns : &out->nf;
			CHECK(*n < MAXFLOW);
			int64_t at = ts_ns(line);
			if (!out_end)
				at += us_field_ns(line, "\"dur\":");
			v[*n] = (struct flow){id, pid, at};
			(*n)++;
		} else if (!strncmp(line, "{\"ph\":\"s\"", 9) ||
		    !strncmp(line, "{\"ph\":\"f\"", 9)) {
			const char *ip = strstr(line, "\"id\":");
			const char *pp = strstr(line, "\"pid\":");
			CHECK(ip && pp && sscanf(ip + 5, "%ld", &id) == 1 &&
			    sscanf(pp + 6, "%d", &pid) == 1);
			struct flow *v = line[7] == 's' ? out->s : out->f;
			size_t *n = line[7] == 's' ? &out->ns : &out->nf;
			CHECK(*n < MAXFLOW);
			v[*n] = (struct flow){id, pid, ts_ns(line)};
			(*n)++;
		} else if (!strncmp(line, "{\"pid\":", 7) &&
		    strstr(line, "\"clock\":")) {
			struct clock_row r;
			long long shift;
			unsigned long long err;
			CHECK(sscanf(line, "{\"pid\":%d,\"process\":\"%31[^\"]\"",
			    &pid, r.process) == 2);
			const char *c = strstr(line, "\"clock\":\"");
			CHECK(c && sscanf(c, "\"clock\":\"%15[a-z-]\",\"shift_ns\":"
			    "%lld,\"error_ns\":%llu", r.clock, &shift, &err) == 3);
			CHECK(pid >= 1 && pid <= NPROC);
			r.shift_ns = shift;
			r.err_ns = err;
			out->clk[pid] = r;
			out->nclk++;
		}
	}
	free(j);
}

static const struct flow *
find_recv(const struct parsed *t, long id)
{
	for (size_t i = 0; i < t->nf; i++)
		if (t->f[i].id == id)
			return &t->f[i];
	return NULL;
}

/* Arrows that go backwards by more than the bounds of their two ends;
 * also checks every process takes part in some arrow. */
static size_t
backward_arrows(const struct parsed *t, int64_t *worst)
{
	size_t back = 0;
	int seen[NPROC + 1] = {0};
	*worst = INT64_MAX;
	CHECK(t->ns > 0);
	CHECK_INT_EQ(t->ns, t->nf);
	for (size_t i = 0; i < t->ns; i++) {
		const struct flow *s = &t->s[i], *f = find_recv(t, s->id);
		CHECK(f != NULL);
		CHECK(s->pid >= 1 && s->pid <= NPROC && f->pid >= 1 &&
		    f->pid <= NPROC);
		seen[s->pid] = seen[f->pid] = 1;
		int64_t slack = (int64_t)(t->clk[s->pid].err_ns +
		    t->clk[f->pid].err_ns);
		int64_t d = f->ts_ns - s->ts_ns;
		if (d + slack < *worst)
			*worst = d + slack;
		if (d < -slack)
			back++;
	}
	for (int p = 1; p <= NPROC; p++)
		if (!seen[p])
			IT_FAIL("process %s has no flow arrow", t->clk[p].process);
	return back;
}

static void
export_as(grove_net *net, const char *timeline, const char *name,
    struct parsed *t)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.json", it_tmpdir(), name);
	setenv("GROVE_TRACE_TIMELINE", timeline, 1);
	CHECK_INT_EQ(trace_collect_and_export(grove_net_id(net), NULL, "perfetto",
	    path), 0);
	unsetenv("GROVE_TRACE_TIMELINE");
	parse(path, t);
}

/* On the front-end's timeline: every copy was corrected by a measured
 * offset, each shift is within its bound of the truth (0), and no arrow
 * goes backwards beyond the bounds. */
static void
check_frontend(const struct parsed *t, const char *what)
{
	CHECK(!strcmp(t->timeline, "frontend"));
	CHECK_INT_EQ(t->nclk, NPROC);
	CHECK(!strcmp(t->clk[1].process, "fe 0"));
	CHECK(!strcmp(t->clk[1].clock, "reference"));
	for (int p = 2; p <= NPROC; p++) {
		const struct clock_row *c = &t->clk[p];
		if (strcmp(c->clock, "skew"))
			IT_FAIL("%s: %s is on clock '%s', not corrected", what,
			    c->process, c->clock);
		int64_t a = c->shift_ns < 0 ? -c->shift_ns : c->shift_ns;
		it_step("%s: %s shift %+" PRId64 " ns, bound %" PRIu64 " ns", what,
		    c->process, c->shift_ns, c->err_ns);
		if ((uint64_t)a > c->err_ns)
			IT_FAIL("%s: %s shifted by %" PRId64 " ns, beyond its bound "
			    "%" PRIu64 " ns of the true 0", what, c->process,
			    c->shift_ns, c->err_ns);
	}
	int64_t worst;
	size_t back = backward_arrows(t, &worst);
	it_step("%s: %zu arrows, %zu backwards; smallest (latency + bounds) "
	    "%" PRId64 " ns", what, t->ns, back, worst);
	CHECK_INT_EQ(back, 0);
}

/* Without the correction the injected offsets show up whole: each
 * process is shifted by its injected offset (within its small bound) and
 * BE -> CP arrows go backwards by tens of ms. */
static void
check_uncorrected(const struct parsed *t, const char *what)
{
	CHECK(!strcmp(t->timeline, "realtime"));
	for (int p = 2; p <= NPROC; p++) {
		const struct clock_row *c = &t->clk[p];
		CHECK(!strcmp(c->clock, "realtime"));
		int64_t d = c->shift_ns - inject_of[p - 1];
		if ((uint64_t)(d < 0 ? -d : d) > c->err_ns)
			IT_FAIL("%s: %s shifted by %" PRId64 " ns, not its injected "
			    "%" PRId64 " ns (bound %" PRIu64 ")", what, c->process,
			    c->shift_ns, inject_of[p - 1], c->err_ns);
	}
	int64_t worst;
	size_t back = backward_arrows(t, &worst);
	it_step("%s: %zu arrows, %zu backwards (worst by %" PRId64 " ns)", what,
	    t->ns, back, -worst);
	CHECK(back > 0);
	CHECK(worst < -10000000); /* BE 1 -> CP 1 alone is 80 ms back */
}

static grove_net *
spawn_traced(void)
{
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	for (int i = 0; i < 3; i++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	}
	return net;
}

static void
live(void)
{
	it_step("--- live collection, offsets injected: " INJECT);
	grove_net *net = spawn_traced();
	/* Every process on this host and nothing forced: the single-host
	 * timeline, unchanged. */
	struct parsed *t = calloc(1, sizeof *t);
	CHECK(t != NULL);
	export_as(net, "auto", "auto", t);
	CHECK(t->timeline[0] == 0 && t->nclk == 0);
	CHECK_INT_EQ(backward_arrows(t, &(int64_t){0}), 0);

	setenv("GROVE_TRACE_SHIP", "all", 1);
	CHECK_INT_EQ(grove_net_trace_collect(net, 20000), NPROC - 1);
	unsetenv("GROVE_TRACE_SHIP");
	export_as(net, "frontend", "frontend", t);
	check_frontend(t, "live");
	export_as(net, "realtime", "realtime", t);
	check_uncorrected(t, "live, uncorrected");
	free(t);
	it_net_destroy(net);
}

static void
at_exit(void)
{
	it_step("--- collection at exit, offsets injected: " INJECT);
	char path[4096];
	snprintf(path, sizeof path, "%s/exit.json", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", path, 1);
	setenv("GROVE_TRACE_SHIP", "all", 1);
	setenv("GROVE_TRACE_TIMELINE", "frontend", 1);
	grove_net *net = spawn_traced();
	it_net_destroy(net);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_SHIP");
	unsetenv("GROVE_TRACE_TIMELINE");
	struct parsed *t = calloc(1, sizeof *t);
	CHECK(t != NULL);
	parse(path, t);
	check_frontend(t, "exit");
	free(t);
}

int
main(void)
{
	it_init("it_trace_align", 120);
	setenv("GROVE_CLOCK_INJECT_NS", INJECT, 1);
	live();
	at_exit();
	unsetenv("GROVE_CLOCK_INJECT_NS");
	return it_done();
}
