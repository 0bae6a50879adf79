/* What the statistics count, read back from text dumps of the trace.
 *
 *  - An API send's span covers the whole call, packing included: a back-end
 *    (this program with --span-be) sends a large "%ac" with grove_be_send,
 *    whose api.send span must start before its link write starts (the
 *    packet is packed in between) and end after it; send calls that fail
 *    after they began (a bad format on the back-end and the front-end, a
 *    rank out of range) are recorded with their error.
 *  - Event spaces shipped at exit (GROVE_TRACE_SHIP=all) hold what local
 *    ones hold: each back-end's api.recv count, its last receive (the one
 *    the SHUTDOWN ends, during which the space is shipped) included, is
 *    the local run's; every link's recorded sends equal its recorded
 *    receives (a CP ships after it forwarded the SHUTDOWN, and the packets
 *    of the collection itself are recorded as trace_send / trace_recv).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define TAG_BIG 1      /* "%d" n -> "%ac" of n bytes, then TAG_BAD */
#define TAG_BAD 2      /* "%d" what grove_be_send with a bad format returned */
#define BIG_BYTES (16u << 20)

/* ---- the back-end ---------------------------------------------------- */

static int
span_be_main(int argc, char **argv)
{
	grove_be *be = NULL;
	if (grove_be_init(&argc, &argv, &be) != 0)
		return 2;
	char *buf = malloc(BIG_BYTES);
	if (!buf)
		return 3;
	memset(buf, 'x', BIG_BYTES);
	for (;;) {
		uint32_t stream;
		int32_t tag, n;
		grove_packet *p = NULL;
		int rc = grove_be_recv(be, &stream, &tag, &p, -1);
		if (rc == GROVE_ECLOSED)
			break;
		if (rc != 0)
			return 4;
		rc = grove_packet_unpack(p, "%d", &n);
		grove_packet_unref(p);
		if (rc < 0 || tag != TAG_BIG || n < 0 || (uint32_t)n > BIG_BYTES)
			return 5;
		if (grove_be_send(be, stream, TAG_BIG, "%ac", buf, (uint64_t)n))
			return 6;
		/* "%q" is no conversion: the packing fails. */
		int bad = grove_be_send(be, stream, TAG_BAD, "%q", 1);
		if (grove_be_send(be, stream, TAG_BAD, "%d", bad))
			return 7;
	}
	free(buf);
	grove_be_destroy(be);
	return 0;
}

/* ---- reading a text dump --------------------------------------------- */

typedef struct row {
	char label[16], op[24], collector[48], where[48];
	long long start, dur;
	int result;
} row;

/* The tuple lines of a text dump (tab-separated: process, ring, tid,
 * start_ns, dur_ns, op, collector, layer, where, seq, result). */
static row *
read_rows(const char *path, size_t *n)
{
	char *text = it_slurp(path);
	size_t cap = 1024, k = 0;
	row *v = malloc(cap * sizeof *v);
	CHECK(v != NULL);
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	    l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#')
			continue;
		char *f[11] = {0}, *fs = NULL;
		f[0] = strtok_r(l, "\t", &fs);
		for (int i = 1; i < 11 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, "\t", &fs);
		if (!f[10])
			IT_FAIL("%s: a tuple line with fewer than 11 fields", path);
		if (k == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof *v);
			CHECK(v != NULL);
		}
		row *r = &v[k++];
		snprintf(r->label, sizeof r->label, "%s", f[0]);
		r->start = atoll(f[3]);
		r->dur = atoll(f[4]);
		snprintf(r->op, sizeof r->op, "%s", f[5]);
		snprintf(r->collector, sizeof r->collector, "%s", f[6]);
		snprintf(r->where, sizeof r->where, "%s", f[8]);
		r->result = atoi(f[10]);
	}
	free(text);
	*n = k;
	return v;
}

/* The row of process label and collector with this result (the first;
 * NULL if none). */
static const row *
find_row(const row *v, size_t n, const char *label, const char *collector,
    int result)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].label, label) &&
		    !strcmp(v[i].collector, collector) && v[i].result == result)
			return &v[i];
	return NULL;
}

/* The row of process label and collector with the largest result. */
static const row *
largest_row(const row *v, size_t n, const char *label, const char *collector)
{
	const row *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].label, label) &&
		    !strcmp(v[i].collector, collector) &&
		    (!best || v[i].result > best->result))
			best = &v[i];
	return best;
}

/* ---- API send spans -------------------------------------------------- */

static void
send_spans(void)
{
	it_step("--- api.send spans cover packing and failed calls");
	char path[4096], exe[4096];
	snprintf(path, sizeof path, "%s/spans.txt", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", path, 1);
	setenv("GROVE_TRACE_FORMAT", "text", 1);
	static char *const argv[] = {"it_trace_counts", "--span-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, "flat", 1);
	o.be_exe = it_build_path("it_trace_counts", exe, sizeof exe);
	o.be_argv = argv;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, NULL, NULL);
	CHECK_OK_NET(net, grove_stream_send(s, TAG_BIG, "%d", (int)BIG_BYTES));
	grove_packet *p = it_recv(net, s, TAG_BIG);
	CHECK(grove_packet_size(p) > BIG_BYTES);
	grove_packet_unref(p);
	CHECK_INT_EQ(it_recv_int(net, s, TAG_BAD), GROVE_EFORMAT);
	/* Failed sends of the front-end's own. */
	CHECK_RC_NET(net, grove_stream_send(s, 3, "%q", 1), GROVE_EFORMAT);
	/* The network's last error says what is wrong and where. */
	CHECK(strstr(grove_net_last_error(net), "unknown conversion '%q'") != NULL);
	CHECK_RC_NET(net, grove_net_send_to(net, 7, 3, "%d", 1), GROVE_ERANGE);
	it_net_destroy(net);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_FORMAT");

	size_t n = 0;
	row *v = read_rows(path, &n);
	const row *api = largest_row(v, n, "be 0", "api.send");
	const row *link = largest_row(v, n, "be 0", "link.send");
	CHECK(api != NULL && link != NULL);
	CHECK(api->result > (int)BIG_BYTES);
	CHECK_INT_EQ(link->result, api->result);
	it_step("be 0: api.send at %lld for %lld ns, its link.send at %lld for "
	    "%lld ns", api->start, api->dur, link->start, link->dur);
	/* Packing the 16 MiB lies between the call's start and the write's:
	 * the two cannot start together. */
	CHECK_INT_LT(api->start, link->start);
	CHECK(api->start + api->dur >= link->start + link->dur);
	/* Calls that began and failed are in the trace with their error. */
	CHECK(find_row(v, n, "be 0", "api.send", GROVE_EFORMAT) != NULL);
	CHECK(find_row(v, n, "fe 0", "api.send", GROVE_EFORMAT) != NULL);
	CHECK(find_row(v, n, "fe 0", "api.send", GROVE_ERANGE) != NULL);
	free(v);
}

/* ---- shipped event spaces -------------------------------------------- */

#define SHIP_BES 4
#define SHIP_WAVES 3

/* One run of the workload on kary:2 with 4 BEs; api_recv[r] gets each
 * BE's api.recv count.  Checks that each BE's last receive ended with
 * GROVE_ECLOSED and that every link's sends equal its receives. */
static void
ship_run(int ship, int api_recv[SHIP_BES])
{
	char path[4096];
	snprintf(path, sizeof path, "%s/ship-%d.txt", it_tmpdir(), ship);
	setenv("GROVE_TRACE_DUMP", path, 1);
	setenv("GROVE_TRACE_FORMAT", "text", 1);
	if (ship)
		setenv("GROVE_TRACE_SHIP", "all", 1);
	else
		unsetenv("GROVE_TRACE_SHIP");
	grove_net_opts o;
	it_net_opts(&o, "kary:2", SHIP_BES);
	/* No heartbeats: a late one could be sent and not read before the
	 * reader leaves, in either mode. */
	o.heartbeat_ms = 600000;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	for (int w = 0; w < SHIP_WAVES; w++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK),
		    SHIP_BES * (SHIP_BES - 1) / 2);
	}
	it_net_destroy(net);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_FORMAT");
	unsetenv("GROVE_TRACE_SHIP");

	size_t n = 0;
	row *v = read_rows(path, &n);
	for (int r = 0; r < SHIP_BES; r++) {
		char label[16];
		snprintf(label, sizeof label, "be %d", r);
		const row *last = NULL;
		api_recv[r] = 0;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(v[i].label, label) &&
			    !strcmp(v[i].collector, "api.recv")) {
				api_recv[r]++;
				if (!last || v[i].start > last->start)
					last = &v[i];
			}
		it_step("%s: be %d has %d api.recv", ship ? "shipped" : "local",
		    r, api_recv[r]);
		CHECK(last != NULL);
		CHECK_INT_EQ(last->result, GROVE_ECLOSED);
	}
	/* The collection's own packets are in the trace, apart: the FE
	 * received the shipped spaces. */
	if (ship) {
		int k = 0;
		for (size_t i = 0; i < n; i++)
			k += !strcmp(v[i].label, "fe 0") &&
			    !strcmp(v[i].op, "trace_recv");
		it_step("shipped: fe 0 has %d trace_recv", k);
		CHECK(k >= 2 + SHIP_BES);
	}
	/* Per link: the workload's sends and receives, each counted where it
	 * was recorded (the sender's and the receiver's space). */
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].op, "send"))
			continue;
		int sends = 0, recvs = 0, seen = 0;
		for (size_t j = 0; j < n; j++) {
			if (strcmp(v[j].where, v[i].where))
				continue;
			seen |= j < i && !strcmp(v[j].op, "send");
			sends += !strcmp(v[j].op, "send");
			recvs += !strcmp(v[j].op, "recv");
		}
		if (seen)
			continue;
		it_step("%s: %s: %d sends, %d receives", ship ? "shipped" :
		    "local", v[i].where, sends, recvs);
		if (sends != recvs)
			IT_FAIL("%s: link %s: %d sends recorded, %d receives",
			    ship ? "shipped" : "local", v[i].where, sends, recvs);
	}
	free(v);
}

static void
shipped_counts(void)
{
	it_step("--- shipped event spaces count what local ones do");
	int local[SHIP_BES], shipped[SHIP_BES];
	ship_run(0, local);
	ship_run(1, shipped);
	for (int r = 0; r < SHIP_BES; r++)
		if (local[r] != shipped[r])
			IT_FAIL("be %d: %d api.recv when kept, %d when shipped", r,
			    local[r], shipped[r]);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--span-be"))
		return span_be_main(argc, argv);
	it_init("it_trace_counts", 240);
	send_spans();
	shipped_counts();
	return it_done();
}
