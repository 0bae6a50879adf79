/* Exporters and statistics over a real multi-process trace: a small tree
 * (fe, cp, 3 back-ends talking over pipes) records into its event spaces,
 * then the snapshot, message matching, Chrome JSON, text, OTF2 and the
 * statistics tables are checked against what the tree did. */
#define _GNU_SOURCE
#include <ftw.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "trace/trace_impl.h"

#define NBE 3
#define WAVES 20 /* as in src/trace/sample.c */

static char net[64];
static struct trace_set set;

static int
setup(void **state)
{
	(void)state;
	snprintf(net, sizeof net, "t%ldx", (long)getpid());
	char why[256];
	if (trace_write_sample(net, NBE, why, sizeof why))
		return -1;
	return trace_set_collect(net, &set);
}

static int
teardown(void **state)
{
	(void)state;
	char **names;
	size_t n;
	trace_set_free(&set);
	if (trace_list(net, stderr, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			shm_unlink(names[i]);
		trace_list_free(names, n);
	}
	return 0;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static uint64_t
total_tuples(void)
{
	uint64_t t = 0;
	for (size_t i = 0; i < set.n; i++)
		t += set.p[i].tuples;
	return t;
}

static void
test_snapshot(void **state)
{
	(void)state;
	assert_int_equal(set.n, 2 + NBE);
	assert_string_equal(set.p[0].label, "fe 0");
	assert_string_equal(set.p[1].label, "cp 0");
	assert_string_equal(set.p[2].label, "be 0");
	for (size_t i = 0; i < set.n; i++) {
		assert_int_equal(set.p[i].lost, 0);
		assert_false(set.p[i].alive);
		assert_true(set.p[i].hdr.finished);
		assert_true(set.p[i].end_ns >= set.p[i].start_ns);
	}
	/* be: api + send per wave; cp: per wave NBE recv + NBE sync +
	 * last-BE mark + transform + wave + send; fe: recv + wave + api. */
	assert_int_equal(set.p[2].tuples, 2 * WAVES);
	assert_int_equal(set.p[1].tuples, (2 * NBE + 4) * WAVES);
	assert_int_equal(set.p[0].tuples, 3 * WAVES);
}

static void
test_matching(void **state)
{
	(void)state;
	struct trace_msg *m;
	size_t n;
	assert_int_equal(trace_match_messages(&set, &m, &n), 0);
	assert_int_equal(n, NBE * WAVES + WAVES);
	for (size_t i = 0; i < n; i++) {
		const grove_trace_tuple *s = trace_ref_tuple(&set, m[i].send);
		const grove_trace_tuple *r = trace_ref_tuple(&set, m[i].recv);
		const struct trace_proc *ps = &set.p[m[i].send.proc];
		const struct trace_proc *pr = &set.p[m[i].recv.proc];
		assert_int_equal(s->op, GROVE_OP_SEND);
		assert_int_equal(r->op, GROVE_OP_RECV);
		assert_int_equal(s->seq, r->seq);
		assert_string_equal(trace_proc_collector(ps, s->collector)->where,
		                    trace_proc_collector(pr, r->collector)->where);
		/* Same host: after calibration a receive cannot end before
		 * its send started. */
		assert_true(trace_proc_ns(pr, r->t_end) >=
		            trace_proc_ns(ps, s->t_start));
	}
	free(m);
}

/* What fn writes for set s, as a string (free it). */
static char *
set_to_string(int (*fn)(const struct trace_set *, FILE *),
              const struct trace_set *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(s, f), 0);
	fclose(f);
	return buf;
}

static char *
run_to_string(int (*fn)(const struct trace_set *, FILE *))
{
	return set_to_string(fn, &set);
}

/* The seq and where of the slice bound to id `id` in direction `dir`. */
static int
bound_slice(const char *s, long id, const char *dir, unsigned *seq,
            char *where, size_t wlen)
{
	char key[64];
	snprintf(key, sizeof key, "\"bind_id\":%ld,\"%s\":true,", id, dir);
	const char *p = strstr(s, key);
	if (!p || strstr(p + 1, key))
		return -1; /* absent, or bound twice */
	const char *q = strstr(p, "\"seq\":"), *w = strstr(p, "\"where\":\"");
	if (!q || !w || sscanf(q, "\"seq\":%u", seq) != 1)
		return -1;
	w += strlen("\"where\":\"");
	size_t n = strcspn(w, "\"");
	if (n >= wlen)
		return -1;
	memcpy(where, w, n);
	where[n] = 0;
	return 0;
}

/* Each arrow starts on a send slice and ends on the receive slice of the
 * same message: the same link ("where") and the same sequence number. */
static void
check_flow_ends(const char *s)
{
	long n = (long)count(s, "\"flow_out\":true");
	for (long id = 1; id <= n; id++) {
		unsigned sseq, rseq;
		char sw[64], rw[64];
		assert_int_equal(bound_slice(s, id, "flow_out", &sseq, sw,
		                             sizeof sw), 0);
		assert_int_equal(bound_slice(s, id, "flow_in", &rseq, rw,
		                             sizeof rw), 0);
		assert_int_equal(sseq, rseq);
		assert_string_equal(sw, rw);
	}
}

static void
test_chrome(void **state)
{
	(void)state;
	char *s = run_to_string(trace_export_chrome);
	assert_true(s[0] == '{');
	assert_int_equal(count(s, "\"ph\":\"X\""), total_tuples());
	/* Every arrow is bound to its own two slices by id, none by time. */
	assert_int_equal(count(s, "\"flow_out\":true"), NBE * WAVES + WAVES);
	assert_int_equal(count(s, "\"flow_in\":true"), NBE * WAVES + WAVES);
	assert_int_equal(count(s, "\"ph\":\"s\""), 0);
	check_flow_ends(s);
	assert_int_equal(count(s, "\"process_name\""), set.n);
	assert_non_null(strstr(s, "{\"name\":\"be 2\"}"));
	assert_non_null(strstr(s, "\"where\":\"link:2->1\""));
	/* Balanced brackets outside strings (a cheap validity check; the
	 * CLI test parses the file with a real JSON parser). */
	int depth = 0, in_str = 0, min = 0;
	for (const char *p = s; *p; p++) {
		if (in_str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = 0;
			continue;
		}
		if (*p == '"')
			in_str = 1;
		else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		if (depth < min)
			min = depth;
	}
	assert_int_equal(depth, 0);
	assert_int_equal(min, 0);
	free(s);
}

/* On a timeline of several hosts a receive can come before its send
 * (within the clocks' bounds); Perfetto then drops the arrow, so the
 * receive says by how much and otherData counts them.  Moving the CP a
 * second back puts every back-end's packet into it before it was sent;
 * its own packets to the front-end stay in order. */
static struct trace_proc *
proc_labelled(const char *label)
{
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.p[i].label, label))
			return &set.p[i];
	fail_msg("no process '%s'", label);
	return NULL;
}

/* Exports with the CP and the front-end moved by cp_s and fe_s seconds
 * (the sample's receives are spans around blocking reads, which can
 * begin before their send: moving whole processes makes the order
 * certain). */
static char *
export_moved(int cp_s, int fe_s)
{
	struct trace_proc *cp = proc_labelled("cp 0");
	struct trace_proc *fe = proc_labelled("fe 0");
	cp->m0 += (uint64_t)(int64_t)cp_s * 1000000000u;
	fe->m0 += (uint64_t)(int64_t)fe_s * 1000000000u;
	char *s = run_to_string(trace_export_chrome);
	cp->m0 -= (uint64_t)(int64_t)cp_s * 1000000000u;
	fe->m0 -= (uint64_t)(int64_t)fe_s * 1000000000u;
	return s;
}

/* On a timeline of several hosts a receive can come before its send
 * (within the clocks' bounds).  Perfetto would drop such an arrow, so its
 * binding is turned round (flow_out on the receive), the receive says by
 * how much it came first and otherData counts them. */
static void
test_chrome_receive_before_send(void **state)
{
	(void)state;
	/* Every receiver a second after its sender: none first. */
	char *s = export_moved(1, 2);
	assert_int_equal(count(s, "\"receives_before_send\":0,"), 1);
	assert_int_equal(count(s, "before_send_us"), 0);
	free(s);

	/* The CP a second back: every back-end's packet reaches it before
	 * it was sent; the CP's own packets reach the front-end (a second
	 * ahead) after. */
	s = export_moved(-1, 1);
	char want[64];
	snprintf(want, sizeof want, "\"receives_before_send\":%d,",
	         NBE * WAVES);
	assert_int_equal(count(s, want), 1);
	assert_int_equal(count(s, "\"before_send_us\":"), NBE * WAVES);
	/* By about the second the CP was moved (give or take the sample's
	 * latencies and waits, milliseconds). */
	const char *b = strstr(s, "\"before_send_us\":");
	double us = 0;
	assert_int_equal(sscanf(b, "\"before_send_us\":%lf", &us), 1);
	assert_true(us > 900000.0 && us < 1100000.0);
	/* Each of those receives starts its arrow; every arrow still joins
	 * the two ends of one message. */
	for (const char *p = s; (p = strstr(p, "\"before_send_us\":")); p++) {
		const char *slice = p;
		while (slice > s && strncmp(slice, "{\"ph\":\"X\"", 9))
			slice--;
		const char *out = strstr(slice, "\"flow_out\":true");
		assert_true(out && out < p);
	}
	assert_int_equal(count(s, "\"flow_out\":true"), NBE * WAVES + WAVES);
	check_flow_ends(s);
	free(s);
}

static void
test_text(void **state)
{
	(void)state;
	char *s = run_to_string(trace_export_text);
	assert_int_equal(count(s, "\n"), total_tuples() + 2 + set.n);
	assert_non_null(strstr(s, "\tsend\tsend\tnet\tlink:2->1\t"));
	free(s);
}

/* Threads that found no ring recorded nothing: the Perfetto process
 * label and the text header of their process say how many, or their
 * absence reads as idleness. */
static void
test_no_ring_in_exports(void **state)
{
	(void)state;
	char want[160];
	set.p[1].hdr.threads_without_ring = 3;
	char *c = run_to_string(trace_export_chrome);
	snprintf(want, sizeof want, "pid %d, %" PRIu64 " lost, 3 thread(s) "
	         "found no ring", set.p[1].hdr.pid, set.p[1].lost);
	assert_non_null(strstr(c, want));
	assert_int_equal(count(c, "found no ring"), 1);
	free(c);
	char *t = run_to_string(trace_export_text);
	snprintf(want, sizeof want, "# %s: pid %d ", set.p[1].label,
	         set.p[1].hdr.pid);
	const char *line = strstr(t, want);
	assert_non_null(line);
	const char *end = strchr(line, '\n');
	const char *hit = strstr(line, ", 3 thread(s) found no ring");
	assert_non_null(hit);
	assert_true(hit < end);
	assert_int_equal(count(t, "found no ring"), 1);
	free(t);
	set.p[1].hdr.threads_without_ring = 0;
}

static void
test_stats(void **state)
{
	(void)state;
	char *t = run_to_string(trace_stats_text);
	assert_non_null(strstr(t, "@--- Primitive summary"));
	assert_non_null(strstr(t, "Comp Granularity"));
	assert_non_null(strstr(t, "Comm Overhead"));
	assert_non_null(strstr(t, "@--- Computation granularity distribution"));
	free(t);
	char *j = run_to_string(trace_stats_json);
	char want[160];
	snprintf(want, sizeof want, "{\"name\":\"send\",\"op\":\"send\","
	         "\"layer\":\"net\",\"all\":{\"count\":%d,",
	         NBE * WAVES + WAVES);
	assert_non_null(strstr(j, want));
	snprintf(want, sizeof want, "{\"name\":\"filter_transform\",\"op\":"
	         "\"filter_transform\",\"layer\":\"filter\",\"all\":"
	         "{\"count\":%d,", WAVES);
	assert_non_null(strstr(j, want));
	/* The waves (CP and FE: one each per wave) and the CP's last-BE
	 * marks are rows of their own, not one "wave" row. */
	snprintf(want, sizeof want, "{\"name\":\"wave\",\"op\":\"wave\","
	         "\"layer\":\"tbon\",\"all\":{\"count\":%d,", 2 * WAVES);
	assert_non_null(strstr(j, want));
	snprintf(want, sizeof want, "{\"name\":\"wave.last_be\",\"op\":"
	         "\"wave\",\"layer\":\"tbon\",\"all\":{\"count\":%d,",
	         WAVES);
	assert_non_null(strstr(j, want));
	/* api_send runs on every back-end: the spread covers all three. */
	const char *a = strstr(j, "{\"name\":\"api_send\"");
	assert_non_null(a);
	assert_non_null(strstr(a, "\"spread\":{\"procs\":3,"));
	/* Overhead samples: one per API call (be sends, fe receives). */
	snprintf(want, sizeof want, "\"overhead\":{\"summary\":{\"count\":%d,",
	         NBE * WAVES + WAVES);
	assert_non_null(strstr(j, want));
	assert_int_equal(count(j, "\"threads_without_ring\":0,"), set.n);
	free(j);

	/* Threads that recorded nowhere are reported, in text and JSON. */
	set.p[1].hdr.threads_without_ring = 2;
	t = run_to_string(trace_stats_text);
	snprintf(want, sizeof want, "@ Not recorded : %s: 2 thread(s) found "
	         "no ring", set.p[1].label);
	assert_non_null(strstr(t, want));
	free(t);
	j = run_to_string(trace_stats_json);
	assert_int_equal(count(j, "\"threads_without_ring\":2,"), 1);
	free(j);
	set.p[1].hdr.threads_without_ring = 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void
test_otf2(void **state)
{
	(void)state;
	char dir[] = "/tmp/grove-otf2-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int rc = trace_export_otf2(&set, dir);
	if (rc == GROVE_ENOTSUP) {
		rmdir(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	char anchor[256];
	struct stat st;
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
	assert_int_equal(stat(anchor, &st), 0);
	/* A second export must not overwrite the archive. */
	assert_int_equal(trace_export_otf2(&set, dir), GROVE_EINVAL);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether the file at path holds the bytes of s. */
static int
file_has(const char *path, const char *s)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = NULL;
	size_t len = 0, cap = 0, k;
	char chunk[4096];
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (len + k > cap) {
			cap = (len + k) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		memcpy(buf + len, chunk, k);
		len += k;
	}
	fclose(f);
	int found = buf && memmem(buf, len, s, strlen(s)) != NULL;
	free(buf);
	return found;
}

/* Exports s as OTF2 into a fresh directory and calls check with the path
 * of its definitions file; nothing when OTF2 export is not built. */
static void
with_otf2_defs(const struct trace_set *s, void (*check)(const char *defs))
{
	char dir[] = "/tmp/grove-otf2-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int rc = trace_export_otf2(s, dir);
	if (rc != GROVE_ENOTSUP) {
		assert_int_equal(rc, 0);
		char defs[256];
		snprintf(defs, sizeof defs, "%s/traces.def", dir);
		check(defs);
	}
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The set of this process's own event space "grove.<own>.be.0", which
 * the caller has recorded and finished; drop_own removes it. */
static void
collect_own(const char *own, struct trace_set *s)
{
	assert_int_equal(trace_set_collect(own, s), 0);
	assert_int_equal(s->n, 1);
}

static void
drop_own(const char *own, struct trace_set *s)
{
	trace_set_free(s);
	char seg[128];
	snprintf(seg, sizeof seg, "grove.%s.be.0", own);
	shm_unlink(seg);
}

static void
two_ops_regions(const char *defs)
{
	assert_true(file_has(defs, "user:a"));
	assert_true(file_has(defs, "user:b"));
	assert_true(file_has(defs, "unregistered:user+0"));
	assert_true(file_has(defs, "unregistered:user+1"));
}

/* The statistics and the OTF2 regions look a collector's primitive or
 * region up once and remember it: a collector that records another op,
 * and tuples of no registered collector, still land where they belong. */
static void
test_collector_with_two_ops(void **state)
{
	(void)state;
	char own[64];
	snprintf(own, sizeof own, "t%ldm", (long)getpid());
	grove_trace_collector a, b, none = {0, 0};
	assert_int_equal(grove_trace_init(own, "be", 0), 0);
	assert_int_equal(grove_trace_user_register(&a, "a"), 0);
	assert_int_equal(grove_trace_user_register(&b, "b"), 0);
	grove_trace_instant(&a, GROVE_OP_USER, 1);
	grove_trace_instant(&a, GROVE_OP_USER + 1, 1);
	grove_trace_instant(&a, GROVE_OP_USER, 1);
	grove_trace_instant(&b, GROVE_OP_USER, 1);
	grove_trace_instant(&none, GROVE_OP_USER, 1);
	grove_trace_instant(&none, GROVE_OP_USER + 1, 1);
	grove_trace_instant(&a, GROVE_OP_USER + 1, 1);
	grove_trace_instant(&a, GROVE_OP_USER + 1, 1);
	grove_trace_fini(1);
	struct trace_set own_set;
	collect_own(own, &own_set);

	char *buf = set_to_string(trace_stats_json, &own_set);
	static const char *const want[] = {
		"{\"name\":\"a\",\"op\":\"user+0\",\"layer\":\"user\","
		"\"all\":{\"count\":2,",
		"{\"name\":\"a\",\"op\":\"user+1\",\"layer\":\"user\","
		"\"all\":{\"count\":3,",
		"{\"name\":\"b\",\"op\":\"user+0\",\"layer\":\"user\","
		"\"all\":{\"count\":1,",
		"{\"name\":\"user+0\",\"op\":\"user+0\",\"layer\":\"-\","
		"\"all\":{\"count\":1,",
		"{\"name\":\"user+1\",\"op\":\"user+1\",\"layer\":\"-\","
		"\"all\":{\"count\":1,",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		if (count(buf, want[i]) != 1)
			fail_msg("stats lack %s in %s", want[i], buf);
	free(buf);
	with_otf2_defs(&own_set, two_ops_regions);
	drop_own(own, &own_set);
}

/* OTF2 regions: "name" alone, and "unregistered:op". */
static void
empty_layer_regions(const char *defs)
{
	assert_true(file_has(defs, "nolayer"));
	assert_false(file_has(defs, ":nolayer"));
	assert_true(file_has(defs, "unregistered:user+1"));
}

/* A collector registered with an empty layer is not "unregistered":
 * that is for tuples of no registered collector (id 0). */
static void
test_empty_layer_not_unregistered(void **state)
{
	(void)state;
	char own[64];
	snprintf(own, sizeof own, "t%ldl", (long)getpid());
	grove_trace_collector c, none = {0, 0};
	assert_int_equal(grove_trace_init(own, "be", 0), 0);
	assert_int_equal(grove_trace_collector_register(&c, "nolayer", "",
	                                                "", ""), 0);
	grove_trace_instant(&c, GROVE_OP_USER, 1);
	grove_trace_instant(&none, GROVE_OP_USER + 1, 2);
	grove_trace_fini(1);
	struct trace_set own_set;
	collect_own(own, &own_set);

	char *buf = set_to_string(trace_export_chrome, &own_set);
	assert_int_equal(count(buf, "\"name\":\"nolayer\",\"cat\":\"\","), 1);
	assert_int_equal(count(buf, "\"name\":\"user+1\",\"cat\":"
	                            "\"unregistered\","), 1);
	free(buf);
	with_otf2_defs(&own_set, empty_layer_regions);
	drop_own(own, &own_set);
}

/* A process of the sample whose event space cannot be opened (its name is
 * taken by a live process: this one) exits at once; the others must see
 * their pipes close and finish, not wait forever for it.  The sample then
 * fails as one whose event space could not be made, not as a process
 * that could not start, and leaves no event space of its own. */
static void
test_sample_child_fails(void **state)
{
	(void)state;
	char other[64];
	snprintf(other, sizeof other, "f%ldx", (long)getpid());
	/* Hold be 1's name; our own space is this test's, not the set's. */
	int was_active = trace_space_active();
	assert_false(was_active);
	assert_int_equal(grove_trace_init(other, "be", 1), 0);
	alarm(60); /* a hang fails the test instead of stalling the suite */
	char why[256];
	int rc = trace_write_sample(other, 2, why, sizeof why);
	alarm(0);
	/* be 1 could not make its event space (and said so); what the
	 * others made is gone with the failed sample, be 1's name is still
	 * this process's. */
	assert_int_equal(rc, GROVE_ESYS);
	assert_string_equal(why, ""); /* be 1 said why itself */
	char **names;
	size_t n;
	assert_int_equal(trace_list(other, stderr, &names, &n), 0);
	assert_int_equal(n, 1);
	char mine[128];
	snprintf(mine, sizeof mine, "grove.%s.be.1", other);
	assert_string_equal(names[0], mine);
	trace_list_free(names, n);
	grove_trace_fini(0);
	if (trace_list(other, stderr, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			shm_unlink(names[i]);
		trace_list_free(names, n);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_chrome),
		cmocka_unit_test(test_chrome_receive_before_send),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_no_ring_in_exports),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_otf2),
		cmocka_unit_test(test_empty_layer_not_unregistered),
		cmocka_unit_test(test_collector_with_two_ops),
		cmocka_unit_test(test_sample_child_fails),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
