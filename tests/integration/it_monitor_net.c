/* grove monitor --net on a running local network: a kary:2 tree of 4
 * back-ends (2 CPs) doing sum reductions while `grove monitor
 * load-balance --net ID --json --count 3` watches it from another
 * process.  Each view must show the front-end waiting for its CPs and
 * the CPs for their back-ends on the stream, with waves that grow from
 * view to view, while the reductions go on undisturbed (every sum
 * right); the monitor leaves by itself, and the network is destroyed
 * with no process left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* The number after the first `"key":` in line, or -1. */
static long long
json_num(const char *line, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

int
main(void)
{
	it_init("it_monitor_net", 240);
	grove_net *net = it_net_spawn("kary:2", 4);
	const char *id = grove_net_id(net);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	int64_t n = grove_net_backends(net);
	/* Some waves before the monitor attaches: its first view has them. */
	for (int i = 0; i < 10; i++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), n * (n - 1) / 2);
	}

	char grove[4096], out[] = "/tmp/it_monitor_net.XXXXXX";
	it_build_path("grove", grove, sizeof grove);
	int fd = mkstemp(out);
	CHECK(fd >= 0);
	pid_t mon = fork();
	CHECK(mon >= 0);
	if (mon == 0) {
		dup2(fd, STDOUT_FILENO);
		execl(grove, grove, "monitor", "load-balance", "--net", id,
		      "--json", "--count", "3", "--interval", "0.2",
		      (char *)NULL);
		_exit(127);
	}
	close(fd);
	it_step("monitor %ld attached to network %s", (long)mon, id);

	/* Reductions until the monitor has seen its three views. */
	long waves = 0;
	int st = 0;
	for (;;) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), n * (n - 1) / 2);
		waves++;
		pid_t r = waitpid(mon, &st, WNOHANG);
		CHECK(r >= 0);
		if (r == mon)
			break;
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	it_step("%ld reductions while the monitor watched", waves);

	FILE *f = fopen(out, "r");
	CHECK(f != NULL);
	unlink(out);
	char line[65536];
	long long last_waves = 0;
	int views = 0;
	while (fgets(line, sizeof line, f)) {
		views++;
		CHECK(strstr(line, "\"monitor\":\"load-balance\"") != NULL);
		CHECK(strstr(line, "\"scope\":\"stream:") != NULL);
		CHECK(strstr(line, "\"parent\":\"fe 0\",\"child\":\"cp ") != NULL);
		CHECK(strstr(line, "\"parent\":\"cp ") != NULL);
		CHECK(strstr(line, "\"child\":\"be ") != NULL);
		CHECK(json_num(line, "procs") >= 7); /* fe, 2 cps, 4 bes */
		CHECK(json_num(line, "lost") >= 0);
		CHECK_INT_EQ(json_num(line, "unread_nodes"), 0); /* one host */
		long long w = json_num(line, "waves");
		CHECK_INT_LT(last_waves, w);
		last_waves = w;
	}
	fclose(f);
	CHECK_INT_EQ(views, 3);

	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_check_rank_sum(net);
	it_net_destroy(net);
	return it_done();
}
