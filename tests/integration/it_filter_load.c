/* Custom filters: a good library loaded on the FE and every CP and used on
 * a stream; a missing library and a missing symbol reported with where and
 * why, leaving the network usable; a library that loads on the FE but not
 * on the CPs leaves its name unused everywhere, so that a stream cannot
 * use it and a good library can take it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* The entry point of examples/filter_intmaxloc.c. */
#define MAXLOC_SYMBOL "intmaxloc"

/* examples/filter_fe_only.c calls this: this program exports it (see
 * tests/tests.cmake), grove-commnode does not, so that library loads here
 * and fails to load on every CP. */
int fe_only_base(void);

int
fe_only_base(void)
{
	return 0;
}

/* Case-insensitive substring test. */
static int
contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/* The message must say where (a node, CP or the FE) and why. */
static void
check_where_why(grove_net *net, const char *why1, const char *why2)
{
	const char *e = grove_net_last_error(net);
	it_step("error text: %s", e ? e : "(null)");
	CHECK(e != NULL);
	if (!contains_ci(e, "node") && !contains_ci(e, "cp") &&
	    !contains_ci(e, "front-end") && !strstr(e, "FE"))
		IT_FAIL("last error \"%s\" does not name the node", e);
	if (!contains_ci(e, why1) && !(why2 && contains_ci(e, why2)))
		IT_FAIL("last error \"%s\" does not say why (\"%s\"%s%s%s)",
		    e, why1, why2 ? " or \"" : "", why2 ? why2 : "",
		    why2 ? "\"" : "");
}

static void
sum_works(grove_net *net, uint32_t n)
{
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK),
	    (int64_t)n * (n - 1) / 2);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
maxloc(grove_net *net, uint32_t n, const char *name)
{
	grove_stream *s = it_stream(net, NULL, name, NULL);
	uint32_t rank = 0;
	int32_t v = 0;

	/* Highest rank holds the highest value. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	grove_packet *p = it_recv(net, s, WORKER_RANK);
	CHECK_OK(grove_packet_unpack(p, "%d %ud", &v, &rank));
	CHECK_INT_EQ(v, n - 1);
	CHECK_UINT_EQ(rank, n - 1);
	grove_packet_unref(p);

	/* All equal: ties go to the lowest rank whatever the tree. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 42));
	p = it_recv(net, s, WORKER_ECHO);
	CHECK_OK(grove_packet_unpack(p, "%d %ud", &v, &rank));
	CHECK_INT_EQ(v, 42);
	CHECK_UINT_EQ(rank, 0);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

typedef struct load_cb_state {
	grove_net *net;
	int loading;
	unsigned during;
	int rc;
} load_cb_state;

static void
create_during_load(grove_net *net, const grove_event *ev, void *arg)
{
	(void)ev;
	load_cb_state *st = arg;
	if (!st->loading)
		return;
	st->during++;
	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = "partial2";
	st->rc = grove_stream_create(net, grove_net_comm_all(net), &so, &s);
	if (st->rc >= 0)
		grove_stream_destroy(s);
}

int
main(void)
{
	char lib[4096], missing[4096];
	it_init("it_filter_load", 120);
	it_build_path("filter_intmaxloc.so", lib, sizeof lib);
	snprintf(missing, sizeof missing, "%s/no_such_filter.so",
	    it_tmpdir());

	grove_net *net = it_net_spawn("kary:2", 8);
	uint32_t n = grove_net_backends(net);

	it_step("good library");
	CHECK_OK_NET(net, grove_net_load_filter(net, "intmaxloc", lib,
	    MAXLOC_SYMBOL));
	maxloc(net, n, "intmaxloc");
	/* Loading the same definition again is harmless. */
	CHECK_OK_NET(net, grove_net_load_filter(net, "intmaxloc", lib,
	    MAXLOC_SYMBOL));
	maxloc(net, n, "intmaxloc");

	it_step("missing library");
	CHECK_RC_NET(net, grove_net_load_filter(net, "nolib", missing,
	    MAXLOC_SYMBOL), GROVE_EFILTER);
	check_where_why(net, "no such file", "cannot open");

	it_step("missing symbol");
	CHECK_RC_NET(net, grove_net_load_filter(net, "nosym", lib,
	    "no_such_symbol_here"), GROVE_EFILTER);
	check_where_why(net, "no_such_symbol_here", "undefined symbol");

	it_step("failed filters are not usable; the rest still works");
	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = "nosym";
	int rc = grove_stream_create(net, grove_net_comm_all(net), &so, &s);
	if (rc >= 0)
		IT_FAIL("stream with unloaded filter \"nosym\" was created");
	CHECK(rc == GROVE_ENOENT || rc == GROVE_EFILTER);
	sum_works(net, n);
	maxloc(net, n, "intmaxloc");

	/* A second name for the same code works as well. */
	CHECK_OK_NET(net, grove_net_load_filter(net, "maxloc2", lib,
	    MAXLOC_SYMBOL));
	maxloc(net, n, "maxloc2");

	/* Loads on the FE (it has fe_only_base), fails on every CP. */
	it_step("a load that fails on the CPs only is undone everywhere");
	char fe_only[4096];
	it_build_path("filter_fe_only.so", fe_only, sizeof fe_only);
	CHECK_RC_NET(net, grove_net_load_filter(net, "partial", fe_only,
	    "fe_only_sum"), GROVE_EFILTER);
	check_where_why(net, "fe_only_base", "undefined symbol");
	CHECK_STR_CONTAINS(grove_net_last_error(net), "cp");
	/* The FE refuses the name at once: a stream the CPs refused would
	 * leave its waves waiting for them. */
	s = NULL;
	so.up_filter = "partial";
	rc = grove_stream_create(net, grove_net_comm_all(net), &so, &s);
	if (rc >= 0) {
		grove_stream_destroy(s);
		IT_FAIL("stream with partly loaded filter \"partial\" was "
		    "created");
	}
	CHECK_INT_EQ(rc, GROVE_EFILTER);
	check_where_why(net, "partial", NULL);
	/* The name is free again: a good library takes it and runs on every
	 * node. */
	CHECK_OK_NET(net, grove_net_load_filter(net, "partial", lib,
	    MAXLOC_SYMBOL));
	maxloc(net, n, "partial");
	sum_works(net, n);

	it_step("a name in use, for another definition or a built-in");
	CHECK_RC_NET(net, grove_net_load_filter(net, "maxloc2", lib,
	    "no_such_symbol_here"), GROVE_EFILTER);
	check_where_why(net, "already loaded", NULL);
	CHECK_RC_NET(net, grove_net_load_filter(net, "sum", lib,
	    MAXLOC_SYMBOL), GROVE_EFILTER);
	check_where_why(net, "built-in", NULL);
	/* Neither refusal replaced what was there. */
	maxloc(net, n, "maxloc2");
	sum_works(net, n);

	it_net_destroy(net);

	/* A callback run while a load waits (here for a back-end killed
	 * just before: its CP reports the loss before it answers the load)
	 * must not get a stream with the name, which the failed load then
	 * frees. */
	it_step("a stream created by a callback during a failing load");
	net = it_net_spawn("kary:2", 4);
	load_cb_state lst = {.net = net};
	grove_net_on_event(net, create_during_load, &lst);
	pid_t bes[8];
	CHECK(it_descendants(bes, 8, "be_worker") == 4);
	CHECK(kill(bes[0], SIGKILL) == 0);
	lst.loading = 1;
	CHECK_RC_NET(net, grove_net_load_filter(net, "partial2", fe_only,
	    "fe_only_sum"), GROVE_EFILTER);
	lst.loading = 0;
	grove_event lost;
	CHECK_OK_NET(net, grove_net_next_event(net, &lost, IT_RECV_MS));
	CHECK_INT_EQ(lost.type, GROVE_EV_LOST);
	grove_net_on_event(net, NULL, NULL);
	it_step("the callback ran %u time(s) during the load", lst.during);
	if (lst.during)
		CHECK_INT_EQ(lst.rc, GROVE_EFILTER);
	it_net_destroy(net);

	/* A load that times out is undone too: the CP that did not answer
	 * in time loads the library when it runs again, then drops it (the
	 * undo follows the load on its link), so the name is free for a
	 * later load that reaches every node. */
	it_step("a load that times out is undone everywhere");
	grove_net_opts to;
	it_net_opts(&to, "kary:2", 4);
	to.timeout_ms = 1500;
	net = it_net_create(&to);
	pid_t cps[8];
	size_t ncp = it_descendants(cps, 8, "grove-commnode");
	CHECK(ncp >= 1);
	CHECK(kill(cps[0], SIGSTOP) == 0);
	CHECK_RC_NET(net, grove_net_load_filter(net, "late", lib,
	    MAXLOC_SYMBOL), GROVE_ETIMEDOUT);
	CHECK(kill(cps[0], SIGCONT) == 0);
	s = NULL;
	so.up_filter = "late";
	CHECK_RC_NET(net, grove_stream_create(net, grove_net_comm_all(net),
	    &so, &s), GROVE_EFILTER);
	CHECK_OK_NET(net, grove_net_load_filter(net, "late", lib,
	    MAXLOC_SYMBOL));
	maxloc(net, 4, "late");
	it_net_destroy(net);

	/* A filter's own error code reaches the FE in the event's text,
	 * with the node and the stream. */
	it_step("a failing filter: GROVE_EV_FILTER_ERROR names its code");
	char fail[4096];
	it_build_path("filter_fail.so", fail, sizeof fail);
	net = it_net_spawn("flat", 2);
	CHECK_OK_NET(net, grove_net_load_filter(net, "fail", fail,
	    "fail_always"));
	grove_stream *fs = it_stream(net, NULL, "fail", NULL);
	CHECK_OK_NET(net, grove_stream_send(fs, WORKER_RANK, ""));
	grove_event ev;
	CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
	it_step("event %d on stream %u: %s", (int)ev.type, ev.stream,
	    ev.text);
	CHECK_INT_EQ(ev.type, GROVE_EV_FILTER_ERROR);
	CHECK_UINT_EQ(ev.stream, grove_stream_id(fs));
	CHECK_STR_CONTAINS(ev.text, "'fail'");
	CHECK_STR_CONTAINS(ev.text, "(-42)");
	CHECK_OK_NET(net, grove_stream_destroy(fs));
	it_check_rank_sum(net);
	it_net_destroy(net);

	/* Parameters come from the front-end: their source is its rank, never
	 * a back-end's (they said rank 0, so a filter that passed them on
	 * forged data of back-end 0). */
	it_step("stream parameters carry the front-end's rank");
	char psrc[4096];
	it_build_path("filter_params_src.so", psrc, sizeof psrc);
	net = it_net_spawn("flat", 2);
	CHECK_OK_NET(net, grove_net_load_filter(net, "params_src", psrc,
	    "params_src"));
	grove_stream *ps = it_stream(net, NULL, "params_src", NULL);
	CHECK_OK_NET(net, grove_stream_set_params(ps, GROVE_FILTER_UP, "%d",
	    5));
	CHECK_OK_NET(net, grove_stream_send(ps, WORKER_RANK, ""));
	grove_packet *pp = NULL;
	CHECK_OK_NET(net, grove_stream_recv(ps, NULL, &pp, IT_RECV_MS));
	uint32_t psrc_rank = 0;
	int32_t pval = 0;
	CHECK_OK(grove_packet_unpack(pp, "%ud %d", &psrc_rank, &pval));
	it_step("parameter %d from rank 0x%x", (int)pval, psrc_rank);
	CHECK_INT_EQ(pval, 5);
	CHECK(psrc_rank >= 0x80000000u && psrc_rank != UINT32_MAX);
	grove_packet_unref(pp);
	CHECK_OK_NET(net, grove_stream_destroy(ps));
	it_net_destroy(net);

	/* A filter loaded on a deep tree runs on every level. */
	net = it_net_spawn("kary:2", 16);
	CHECK_OK_NET(net, grove_net_load_filter(net, "intmaxloc", lib,
	    MAXLOC_SYMBOL));
	maxloc(net, 16, "intmaxloc");
	it_net_destroy(net);

	/* A reverse output travels down the real tree: the CPs right above
	 * the back-ends ask them once more, so one request brings two waves
	 * of ranks (0 + 1 + ... + 7 = 28 each) and no third. */
	it_step("reverse output: CPs above back-ends ask them again");
	char again[4096];
	it_build_path("filter_ask_again.so", again, sizeof again);
	net = it_net_spawn("kary:2", 8);
	CHECK_OK_NET(net, grove_net_load_filter(net, "ask_again", again,
	    "ask_again"));
	grove_stream *as = it_stream(net, NULL, "ask_again", NULL);
	CHECK_OK_NET(net, grove_stream_send(as, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, as, WORKER_RANK), 28);
	CHECK_INT_EQ(it_recv_int(net, as, WORKER_RANK), 28);
	grove_packet *extra = NULL;
	CHECK_RC_NET(net, grove_stream_recv(as, NULL, &extra, 300),
	    GROVE_ETIMEDOUT);
	it_net_destroy(net);
	return it_done();
}
