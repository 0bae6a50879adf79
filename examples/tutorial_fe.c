/* Tutorial front-end: a kary:2 tree of 8 tutorial_be back-ends, two
 * streams (the custom filter "above" and the built-in "sum"), two rounds
 * of requests.  See docs/tutorial.md.
 *
 *   tutorial_fe                      spawn mode: Grove starts everything
 *   tutorial_fe --attach FILE        attach mode: Grove starts the CPs and
 *                                    writes FILE; start the back-ends with
 *                                    tutorial_be --attach FILE --rank R
 *
 * tutorial_be and filter_tutorial.so are looked for next to this program
 * (the build directory); --be PATH and --filter PATH override that.
 * Exits 0 when every back-end answered in both rounds and none was lost.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <grove/grove.h>

#define TUT_BACKENDS 8
#define TUT_TOPOLOGY "kary:2"
#define TUT_TAG_VALUE 1   /* the same number as in tutorial_be.c */
#define TUT_TIMEOUT_MS 20000

/* dir/name into out, dir being this program's directory. */
static int
beside_me(const char *name, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(out, len, "%s/%s", self, name);
	return 0;
}

static void
fail(const char *what, int rc, grove_net *net)
{
	fprintf(stderr, "tutorial_fe: %s: %s%s%s\n", what, grove_strerror(rc),
	    net ? ": " : "", net ? grove_net_last_error(net) : "");
}

/* Reports the events queued so far; returns how many ranks were lost. */
static uint32_t
drain_events(grove_net *net)
{
	uint32_t lost = 0;
	grove_event ev;
	while (grove_net_next_event(net, &ev, 0) == 0) {
		switch (ev.type) {
		case GROVE_EV_LOST:
			lost += ev.rank_hi - ev.rank_lo;
			printf("event: lost ranks %u..%u: %s\n", ev.rank_lo,
			    ev.rank_hi - 1, ev.text);
			break;
		case GROVE_EV_FILTER_ERROR:
			printf("event: filter error on node %u, stream %u: %s\n",
			    ev.node, ev.stream, ev.text);
			break;
		case GROVE_EV_DROPPED:
			printf("event: data dropped on node %u, stream %u: %s\n",
			    ev.node, ev.stream, ev.text);
			break;
		case GROVE_EV_REPARENTED:
			/* A CP was lost; its back-ends are still up. */
			printf("event: %s\n", ev.text);
			break;
		case GROVE_EV_BE_ATTACHED:
			break; /* expected while the network starts */
		}
	}
	return lost;
}

/* One round: ask every back-end for its value on both streams. */
static int
run_round(grove_net *net, grove_stream *s_above, grove_stream *s_sum,
    int32_t round, int32_t threshold)
{
	int rc;
	/* Parameters reach every node of the stream before the request
	 * does, and this round's answers are in before the next round
	 * changes them: the whole wave sees this threshold. */
	if ((rc = grove_stream_set_params(s_above, GROVE_FILTER_UP, "%d",
	    threshold)) < 0 ||
	    (rc = grove_stream_send(s_above, TUT_TAG_VALUE, "%d", round)) < 0 ||
	    (rc = grove_stream_send(s_sum, TUT_TAG_VALUE, "%d", round)) < 0) {
		fail("send", rc, net);
		return rc;
	}

	grove_packet *p;
	uint32_t above_n, seen_n;
	uint64_t total;
	rc = grove_stream_recv(s_above, NULL, &p, TUT_TIMEOUT_MS);
	if (rc < 0) {
		fail("receive on the \"above\" stream", rc, net);
		return rc;
	}
	rc = grove_packet_unpack(p, "%ud %ud %uld", &above_n, &seen_n, &total);
	grove_packet_unref(p);
	if (rc < 0) {
		fail("unpack \"above\" result", rc, net);
		return rc;
	}
	printf("round %d: above(%d) = %u of %u values, %llu so far\n", round,
	    threshold, above_n, seen_n, (unsigned long long)total);

	int32_t sum;
	rc = grove_stream_recv(s_sum, NULL, &p, TUT_TIMEOUT_MS);
	if (rc < 0) {
		fail("receive on the \"sum\" stream", rc, net);
		return rc;
	}
	rc = grove_packet_unpack(p, "%d", &sum);
	grove_packet_unref(p);
	if (rc < 0) {
		fail("unpack \"sum\" result", rc, net);
		return rc;
	}
	printf("round %d: sum = %d\n", round, sum);

	uint32_t lost = drain_events(net);
	if (lost || seen_n != TUT_BACKENDS) {
		printf("round %d: incomplete: %u of %u back-ends answered\n",
		    round, seen_n, TUT_BACKENDS);
		return GROVE_ELOST;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *attach_file = NULL;
	char be_path[PATH_MAX] = "", filter_path[PATH_MAX] = "";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--attach") && i + 1 < argc)
			attach_file = argv[++i];
		else if (!strcmp(argv[i], "--be") && i + 1 < argc)
			snprintf(be_path, sizeof be_path, "%s", argv[++i]);
		else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
			snprintf(filter_path, sizeof filter_path, "%s", argv[++i]);
		else {
			fprintf(stderr, "usage: tutorial_fe [--attach FILE] "
			    "[--be PATH] [--filter PATH]\n");
			return 2;
		}
	}
	if ((!be_path[0] && beside_me("tutorial_be", be_path,
	    sizeof be_path) < 0) || (!filter_path[0] &&
	    beside_me("filter_tutorial.so", filter_path,
	    sizeof filter_path) < 0)) {
		fprintf(stderr, "tutorial_fe: cannot find my directory; "
		    "use --be and --filter\n");
		return 2;
	}

	/* 1. The network. */
	grove_net_opts o;
	grove_net_opts_init(&o);
	o.topology = TUT_TOPOLOGY;
	o.backends = TUT_BACKENDS;
	char *be_argv[] = {"tutorial_be", NULL};
	if (attach_file) {
		o.mode = GROVE_LAUNCH_ATTACH;
		o.connect_file = attach_file;
	} else {
		o.mode = GROVE_LAUNCH_SPAWN;
		o.be_exe = be_path;
		o.be_argv = be_argv;
	}
	grove_net *net = NULL;
	int rc = grove_net_create(&o, &net);
	if (rc < 0) {
		fail("cannot create the network", rc, net);
		grove_net_destroy(net); /* net may be set on failure */
		return 1;
	}
	if (attach_file) {
		printf("waiting for %d back-ends (connection file %s)\n",
		    TUT_BACKENDS, attach_file);
		fflush(stdout);
		rc = grove_net_wait_backends(net, TUT_BACKENDS, 60000);
		if (rc < 0) {
			fail("waiting for back-ends", rc, net);
			grove_net_destroy(net);
			return 1;
		}
	}
	printf("network %s: %u back-ends, topology %s\n", grove_net_id(net),
	    grove_net_backends_up(net), TUT_TOPOLOGY);

	/* 2. The custom filter, on the FE and every CP. */
	rc = grove_net_load_filter(net, "above", filter_path, "above");
	if (rc < 0) {
		fail("cannot load the filter", rc, net);
		grove_net_destroy(net);
		return 1;
	}

	/* 3. Two streams over every back-end. */
	grove_stream_opts so;
	grove_stream *s_above = NULL, *s_sum = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = "above";
	rc = grove_stream_create(net, grove_net_comm_all(net), &so, &s_above);
	if (rc == 0) {
		grove_stream_opts_init(&so);
		so.up_filter = "sum";
		rc = grove_stream_create(net, grove_net_comm_all(net), &so,
		    &s_sum);
	}
	if (rc < 0) {
		fail("cannot create a stream", rc, net);
		grove_net_destroy(net);
		return 1;
	}

	/* 4. Two rounds with different thresholds. */
	int status = 0;
	if (run_round(net, s_above, s_sum, 1, 35) < 0 ||
	    run_round(net, s_above, s_sum, 2, 15) < 0)
		status = 1;

	/* 5. Shut down: streams (their filter state is freed on every
	 * node), then the network (CPs and back-ends exit). */
	grove_stream_destroy(s_above);
	grove_stream_destroy(s_sum);
	grove_net_destroy(net);
	printf("%s\n", status ? "failed" : "done");
	return status;
}
