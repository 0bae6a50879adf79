/* grove demo: start a tree of be_worker back-ends (or, in attach mode,
 * its CPs, and wait for back-ends started elsewhere), send a broadcast
 * request, then run several reductions on concurrent streams (all created,
 * all requests sent, then all replies received) and print what came back
 * next to what should have, with timings, and which host each back-end
 * ran on.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/grove.h"
#include "../cli_opts.h"
#include "../toolutil.h"
#include "demo_hosts.h"
#include "demo_jobs.h"

/* Attach mode: how long the back-ends have to attach (started by hand or
 * over ssh on other hosts). */
#define DEMO_ATTACH_WAIT_MS 120000

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
		job *j = demo_find_job(d, s, tag);
		if (!j || j->done) {
			fprintf(stderr, "grove demo: unexpected packet: "
			    "stream %u tag %d from rank %u\n",
			    s ? grove_stream_id(s) : 0, tag,
			    grove_packet_src(p));
			d->unexpected++;
		} else {
			demo_take(d, j, p, s == NULL);
		}
		grove_packet_unref(p);
	}
	for (int i = 0; i < d->njobs; i++) {
		job *j = &d->jobs[i];
		if (!j->done) {
			if (!j->result[0])
				demo_setf(j->result, sizeof j->result, "no reply");
			else
				strncat(j->result, " (late)",
				    sizeof j->result - strlen(j->result) - 1);
			demo_job_finish(j, 0);
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
		demo_setf(in, sizeof in, "%u/%u", j->in_min, j->in_of);
	else if (j->in_seen)
		demo_setf(in, sizeof in, "%u-%u/%u", j->in_min, j->in_max, j->in_of);
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
	rc = demo_broadcast(&d, &bc);
	if (rc == 0)
		rc = demo_make_jobs(&d);
	if (rc == 0)
		rc = demo_send_all(&d);
	if (rc == 0)
		recv_all(&d);
	double all_ms = (tool_now() - t_all) * 1e3;

	if (rc == 0) {
		printf("broadcast request, then %d requests in flight at once "
		    "(%d streams + point-to-point):\n\n", d.njobs,
		    d.njobs - 1);
		print_header();
		char sid[16];
		demo_setf(sid, sizeof sid, "%u", grove_stream_id(bc.s));
		print_row(0, sid, &bc);
		bad += !bc.ok;
		for (int i = 0; i < d.njobs; i++) {
			job *j = &d.jobs[i];
			if (j->s)
				demo_setf(sid, sizeof sid, "%u",
				    grove_stream_id(j->s));
			else
				demo_setf(sid, sizeof sid, "p2p");
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
