/* Event spaces collected at the front-end when the network shuts down:
 * local processes keep theirs for the FE to read; processes on other hosts
 * ship theirs through the tree.  GROVE_TRACE_SHIP=all makes every process
 * ship (and drop its own copy first), so one machine exercises the remote
 * path: every process must still appear in the exported trace.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "trace/trace_impl.h"
#include "../../src/proto/worker_protocol.h"


/* Segments of a network left in /dev/shm. */
/* The front-end's links in run("slow"): the two CPs' event spaces and
 * their back-ends' (tens of KiB each) take more than 5 s to cross them,
 * one frame at a time, each in less. */
#define SLOW_BANDWIDTH "4KB/s"

static int
segments_left(const char *netid)
{
	char prefix[64];
	int pl = snprintf(prefix, sizeof prefix, "grove.%s.", netid);
	int k = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d)))
		k += !strncmp(e->d_name, prefix, (size_t)pl);
	if (d)
		closedir(d);
	return k;
}

/* mode: "local"; "ship" (every process ships its event space); "slow":
 * shipping as well, over emulated links into the front-end slow enough
 * that the event spaces take several seconds longer to arrive than the
 * 5 s a leaving process once gave its children (the front-end killed the
 * CPs then, and their subtrees' spaces were missing). */
static void
run(const char *mode)
{
	char path[4096], netid[64], map[4096];
	snprintf(path, sizeof path, "%s/trace-%s.json", it_tmpdir(), mode);
	setenv("GROVE_TRACE_DUMP", path, 1);
	if (strcmp(mode, "local"))
		setenv("GROVE_TRACE_SHIP", "all", 1);
	else
		unsetenv("GROVE_TRACE_SHIP");
	it_step("--- collection at exit, %s", mode);
	unsetenv("GROVE_TRACE_KEEP");
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 4);
	if (!strcmp(mode, "slow")) {
		snprintf(map, sizeof map, "%s/slow.map", it_tmpdir());
		FILE *f = fopen(map, "w");
		CHECK(f != NULL);
		fprintf(f, "wan latency 1ms bandwidth %s\ncluster 0 nodes 0\n"
		    "cluster 1 nodes 1-6\n", SLOW_BANDWIDTH);
		CHECK(fclose(f) == 0);
		o.cluster_map_file = map;
	}
	grove_net *net = it_net_create(&o);
	snprintf(netid, sizeof netid, "%s", grove_net_id(net));
	/* The children are told to keep their event spaces in their
	 * bootstrap: the tool's environment stays as it was. */
	CHECK(getenv("GROVE_TRACE_KEEP") == NULL);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	uint64_t t0 = it_now_ms();
	it_net_destroy(net);
	it_step("%s: shut down in %llu ms", mode,
	    (unsigned long long)(it_now_ms() - t0));

	char *j = it_slurp(path);
	/* kary:2 with 4 BEs: the FE, CPs 1 and 4, BEs 0..3. */
	const char *procs[] = {"\"fe 0\"", "\"cp 1\"", "\"cp 4\"", "\"be 0\"",
	    "\"be 1\"", "\"be 2\"", "\"be 3\""};
	for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
		if (!strstr(j, procs[i]))
			IT_FAIL("%s: trace has no process %s", mode, procs[i]);
	/* Flow arrows need both ends of a link: BE sends reach the CPs. */
	CHECK(strstr(j, "\"flow_out\":true") != NULL); /* arrows, bound to slices */
	CHECK(strstr(j, "\"flow_in\":true") != NULL);
	/* Each CP names the back-end that completed its wave. */
	CHECK(strstr(j, "\"wave.last_be\"") != NULL);
	CHECK(strstr(j, "\"wave.last_cp\"") != NULL);
	free(j);
	CHECK_INT_EQ(segments_left(netid), 0);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_SHIP");
}

/* While the network runs: every process answers the request, and with
 * GROVE_TRACE_SHIP=all every one sends its event space. */
static void
live(void)
{
	it_step("--- collection while running");
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	/* Everything is on this host: nothing to copy, but all answer. */
	CHECK_INT_EQ(grove_net_trace_collect(net, 10000), 0);
	setenv("GROVE_TRACE_SHIP", "all", 1);
	/* 2 CPs and 4 BEs. */
	CHECK_INT_EQ(grove_net_trace_collect(net, 10000), 6);
	/* Again: copies replace the earlier ones; they read back. */
	CHECK_INT_EQ(grove_net_trace_collect(net, 10000), 6);
	unsetenv("GROVE_TRACE_SHIP");
	char path[4096];
	snprintf(path, sizeof path, "%s/live.json", it_tmpdir());
	CHECK_INT_EQ(trace_collect_and_export(grove_net_id(net), NULL, "perfetto",
	    path), 0);
	char *j = it_slurp(path);
	CHECK(strstr(j, "\"cp 4\"") != NULL);
	CHECK(strstr(j, "\"be 3\"") != NULL);
	free(j);
	/* The network goes on working. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	it_net_destroy(net);
}

/* Runs `grove trace ARGS...` while this front-end keeps calling Grove,
 * so its control socket is served; returns the command's exit status. */
static int
grove_cli_while_serving(grove_net *net, const char *const *args)
{
	char grove[4096];
	it_build_path("grove", grove, sizeof grove);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char *argv[16];
		int i = 0;
		argv[i++] = grove;
		argv[i++] = "trace";
		for (; args[i - 2] && i < 15; i++)
			argv[i] = (char *)args[i - 2];
		argv[i] = NULL;
		execv(grove, argv);
		_exit(127);
	}
	uint64_t until = it_now_ms() + 60000;
	int status = -1;
	while (it_now_ms() < until) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		grove_stream *s;
		int32_t tag;
		grove_packet *p;
		if (grove_net_recv(net, &s, &tag, &p, 20) == 0)
			grove_packet_unref(p);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	IT_FAIL("grove trace did not finish within 60 s");
	return -1;
}

/* `grove trace dump --collect`: another process asks this front-end to
 * collect, then dumps; every process of the tree is in the result. */
static void
live_cli(void)
{
	it_step("--- collection asked for by grove trace dump --collect");
	setenv("GROVE_TRACE_SHIP", "all", 1);
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	char path[4096];
	snprintf(path, sizeof path, "%s/cli.json", it_tmpdir());
	const char *args[] = {"dump", "--net", grove_net_id(net), "--collect",
	    "--timeout", "20000", "-o", path, NULL};
	CHECK_INT_EQ(grove_cli_while_serving(net, args), 0);
	char *j = it_slurp(path);
	CHECK(strstr(j, "\"cp 4\"") != NULL);
	CHECK(strstr(j, "\"be 3\"") != NULL);
	free(j);
	/* stats the same way */
	const char *sargs[] = {"stats", "--net", grove_net_id(net),
	    "--collect", "--json", "-o", path, NULL};
	CHECK_INT_EQ(grove_cli_while_serving(net, sargs), 0);
	/* A request for a network that has no front-end fails clearly. */
	const char *bad[] = {"dump", "--net", "0123456789abcdef", "--collect",
	    "-o", path, NULL};
	CHECK(grove_cli_while_serving(net, bad) != 0);
	unsetenv("GROVE_TRACE_SHIP");
	/* The network goes on working. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 6);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_trace_collect", 120);
	run("local");
	run("ship");
	run("slow");
	live();
	live_cli();
	return it_done();
}
