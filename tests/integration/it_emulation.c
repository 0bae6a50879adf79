/* Link emulation through a real tree: a cluster map puts the FE and one
 * CP in one cluster and the rest elsewhere, so each path from the FE to a
 * back-end crosses exactly one emulated wide-area link in each direction.
 * Measured round trips must never beat the configured latency and
 * bandwidth (the emulator never delivers early), and a regression through
 * the fastest round trip of each size must find the configured L and B
 * within a few percent.  Then back-pressure: bytes held by the emulator
 * count as queued, so a sender far ahead of an emulated link waits; and
 * an attached back-end emulates its uplink from its environment.
 * Finally, bad maps fail network creation with a message naming the line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grove/cluster.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* The link under test: large enough to stand out of the machine's noise,
 * small enough to keep the test to seconds. */
#define WAN_LATENCY 0.020
#define WAN_BANDWIDTH 2e6
#define REPS 8
/* "A few percent": the emulator's timers have millisecond granularity
 * and the fastest of REPS samples is within a fraction of that. */
#define TOLERANCE 0.05

/* Replies of WORKER_ARRAY n: 4n payload bytes. */
static const int32_t sizes[] = {0, 4096, 16384, 32768, 65536};

/* last_message: bytes per second of the back-end's emulated uplink. */
#define LAST_BANDWIDTH 1e6
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Tags the workers do not know: they drop such packets (one line on
 * stderr each, which goes to a log file). */
#define TAG_BULK 199

static uint64_t
it_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static double
rtt_array(grove_net *net, uint32_t rank, int32_t n)
{
	uint64_t t0 = it_now_us();
	CHECK_OK_NET(net, grove_net_send_to(net, rank, WORKER_ARRAY, "%d", n));
	grove_stream *s = (grove_stream *)1;
	grove_packet *p = NULL;
	int32_t tag = 0;
	CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, IT_RECV_MS));
	uint64_t t1 = it_now_us();
	CHECK(s == NULL);
	CHECK_INT_EQ(tag, WORKER_ARRAY);
	CHECK_UINT_EQ(grove_packet_src(p), rank);
	const int32_t *a = NULL;
	uint64_t len = 0;
	CHECK_OK(grove_packet_unpack(p, "%ad", &a, &len));
	CHECK_UINT_EQ(len, (uint64_t)n);
	grove_packet_unref(p);
	return (double)(t1 - t0) * 1e-6;
}

/* Least squares y = a + b x. */
static void
fit(const double *x, const double *y, size_t n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	*b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*a = (sy - *b * sx) / n;
}

/* Round trips to one rank: a tiny request down, 4n bytes up, each over
 * one emulated link.  RTT(n) = 2L + (4n + frame overhead)/B + the
 * machine's own (sub-millisecond) costs. */
static void
measure(grove_net *net, uint32_t rank, const char *path)
{
	double best[NSIZES], x[NSIZES];
	rtt_array(net, rank, 16); /* warm up */
	for (size_t i = 0; i < NSIZES; i++)
		best[i] = 1e9;
	for (int r = 0; r < REPS; r++) {
		for (size_t i = 0; i < NSIZES; i++) {
			double t = rtt_array(net, rank, sizes[i]);
			double floor = 2 * WAN_LATENCY + 4.0 * sizes[i] /
			    WAN_BANDWIDTH;
			if (t < floor)
				IT_FAIL("%s: %d-byte reply came back in %.6f s, "
				    "faster than the emulated link allows (%.6f s)",
				    path, 4 * sizes[i], t, floor);
			if (t < best[i])
				best[i] = t;
		}
	}
	for (size_t i = 0; i < NSIZES; i++)
		x[i] = 4.0 * sizes[i];
	double a, b;
	fit(x, best, NSIZES, &a, &b);
	double lat = a / 2, bw = 1 / b;
	it_step("%s: L = %.3f ms (configured %.3f), B = %.4f MB/s "
	    "(configured %.4f); fastest RTT per size: %.2f %.2f %.2f %.2f "
	    "%.2f ms", path, lat * 1e3, WAN_LATENCY * 1e3, bw * 1e-6,
	    WAN_BANDWIDTH * 1e-6, best[0] * 1e3, best[1] * 1e3, best[2] * 1e3,
	    best[3] * 1e3, best[4] * 1e3);
	if (lat < WAN_LATENCY * (1 - TOLERANCE) ||
	    lat > WAN_LATENCY * (1 + TOLERANCE))
		IT_FAIL("%s: measured latency %.3f ms is not within %.0f%% of "
		    "%.3f ms", path, lat * 1e3, TOLERANCE * 100,
		    WAN_LATENCY * 1e3);
	if (bw < WAN_BANDWIDTH * (1 - TOLERANCE) ||
	    bw > WAN_BANDWIDTH * (1 + TOLERANCE))
		IT_FAIL("%s: measured bandwidth %.4f MB/s is not within %.0f%% "
		    "of %.4f MB/s", path, bw * 1e-6, TOLERANCE * 100,
		    WAN_BANDWIDTH * 1e-6);
}

/* Creates a network with its stderr (the workers' drop reports) in a
 * log file. */
static grove_net *
create_quiet(const grove_net_opts *o, const char *log)
{
	int saved = dup(2);
	int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	CHECK(saved >= 0 && lfd >= 0);
	CHECK(dup2(lfd, 2) == 2);
	grove_net *net = NULL;
	int rc = grove_net_create(o, &net);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	close(lfd);
	if (rc != 0)
		IT_FAIL("grove_net_create: %s (%s)", grove_err_name(rc),
		    net ? grove_net_last_error(net) : "");
	return net;
}

/* levels:2x1 is FE(0) -> CP(1) -> BE rank 0 (node 2) and FE(0) -> CP(3)
 * -> BE rank 1 (node 4).  Clusters {0,1} {2} {3,4}: rank 0's WAN link is
 * CP 1 <-> BE (emulated by the CP and the BE), rank 1's is FE <-> CP 3
 * (emulated by the FE and the CP). */
static void
timing(const char *log)
{
	it_step("latency and bandwidth of emulated links (programmatic map)");
	grove_cluster_map *m = NULL;
	CHECK_OK(grove_cluster_map_new(&m));
	grove_link_params wan = {WAN_LATENCY, WAN_BANDWIDTH};
	CHECK_OK(grove_cluster_map_set_link(m, GROVE_LINK_WAN, &wan));
	CHECK_OK(grove_cluster_map_add_range(m, 0, 0, 1));
	CHECK_OK(grove_cluster_map_add_range(m, 1, 2, 2));
	CHECK_OK(grove_cluster_map_add_range(m, 2, 3, 4));
	grove_net_opts o;
	it_net_opts(&o, "levels:2x1", 2);
	o.clusters = m;
	grove_net *net = create_quiet(&o, log);
	grove_cluster_map_destroy(m); /* the network keeps its own copy */
	measure(net, 0, "CP 1 <-> BE 0");
	measure(net, 1, "FE <-> CP 3");
	it_net_destroy(net);
}

#define BP_BANDWIDTH 40e6
#define BP_MSG (256u << 10)
#define BP_COUNT 256                      /* 64 MiB */
#define CONN_HWM_BYTES (8u << 20)         /* src/net/conn.h */

/* The FE sends 64 MiB to a back-end behind a 40 MB/s emulated link.  The
 * marker sent after it cannot come back before all of it crossed the
 * link, and without back-pressure the sends would return at once and
 * hold everything in memory: they may only get ahead of the link by the
 * queues on the way (three links' limits at most). */
static void
backpressure(const char *log, const char *map_path)
{
	it_step("back-pressure through an emulated link ($GROVE_CLUSTER_MAP)");
	FILE *f = fopen(map_path, "w");
	CHECK(f != NULL);
	fprintf(f, "# rank 0's back-end alone in cluster 1\n"
	    "wan latency 5ms bandwidth 40MB/s\n"
	    "cluster 0 nodes 0-1,3-4\ncluster 1 nodes 2\n");
	CHECK(fclose(f) == 0);
	CHECK(setenv("GROVE_CLUSTER_MAP", map_path, 1) == 0);
	grove_net_opts o;
	it_net_opts(&o, "levels:2x1", 2);
	grove_net *net = create_quiet(&o, log);
	CHECK(unsetenv("GROVE_CLUSTER_MAP") == 0);
	uint8_t *big = calloc(1, BP_MSG);
	CHECK(big != NULL);
	size_t rss0 = it_vm_rss();
	uint64_t t0 = it_now_us();
	for (int i = 0; i < BP_COUNT; i++)
		CHECK_OK_NET(net, grove_net_send_to(net, 0, TAG_BULK, "%auc", big,
		    (uint64_t)BP_MSG));
	uint64_t t_sent = it_now_us();
	CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_p2p_int(net, 0, WORKER_RANK), 0);
	uint64_t t_back = it_now_us();
	size_t rss1 = it_vm_hwm();
	double total = (double)BP_COUNT * BP_MSG;
	double sent_s = (double)(t_sent - t0) * 1e-6;
	double back_s = (double)(t_back - t0) * 1e-6;
	double min_back = total / BP_BANDWIDTH;
	double min_sent = (total - 3.0 * CONN_HWM_BYTES) / BP_BANDWIDTH;
	it_step("64 MiB: sends returned after %.3f s (the link allows no "
	    "less than %.3f), marker back after %.3f s (no less than %.3f); "
	    "FE memory %zu -> %zu MiB", sent_s, min_sent, back_s, min_back,
	    rss0 >> 20, rss1 >> 20);
	if (back_s < min_back)
		IT_FAIL("the marker overtook %.0f bytes on a %.0f B/s link",
		    total, BP_BANDWIDTH);
	if (sent_s < min_sent)
		IT_FAIL("sends got %.3f s ahead of the emulated link: bytes "
		    "held by the emulator do not push back", min_back - sent_s);
	free(big);
	it_net_destroy(net);
}

/* A back-end's last message, sent just before it leaves, takes longer
 * than the 2 s a leaving back-end gives a link that takes nothing: an
 * emulated line holds a frame whole until its due time, so no byte shows
 * progress meanwhile.  The back-end waits for it all the same (it gave
 * up after 2 s, and the reply was lost). */
static void
last_message(const char *log, const char *map_path)
{
	it_step("a slow last message before the back-end leaves");
	FILE *f = fopen(map_path, "w");
	CHECK(f != NULL);
	fprintf(f, "wan latency 10ms bandwidth %.0fB/s\n"
	    "cluster 0 nodes 0\ncluster 1 nodes 1\n", LAST_BANDWIDTH);
	CHECK(fclose(f) == 0);
	grove_net_opts o;
	it_net_opts(&o, "flat", 1);
	o.cluster_map_file = map_path;
	grove_net *net = create_quiet(&o, log);
	/* A reply of about 3 MB (3 s on the line), then leave at once. */
	int32_t n = (int32_t)(3.0 * LAST_BANDWIDTH / 4);
	uint64_t t0 = it_now_us();
	CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_ARRAY, "%d", n));
	CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_EXIT, ""));
	grove_stream *s = (grove_stream *)1;
	grove_packet *p = NULL;
	int32_t tag = 0;
	CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, 30000));
	CHECK_INT_EQ(tag, WORKER_ARRAY);
	const int32_t *a = NULL;
	uint64_t len = 0;
	CHECK_OK(grove_packet_unpack(p, "%ad", &a, &len));
	CHECK_UINT_EQ(len, (uint64_t)n);
	grove_packet_unref(p);
	it_step("%d elements arrived after %.2f s", n,
	    (double)(it_now_us() - t0) * 1e-6);
	it_net_destroy(net);
}

/* Attach mode: the back-end gets no bootstrap; it emulates its uplink
 * from $GROVE_CLUSTER_MAP in its own environment.  A round trip through
 * the CP -> BE link (emulated by the CP, from the FE's map) and back
 * (emulated by the BE) takes at least twice the latency. */
static pid_t
start_attached_be(const char *file)
{
	char exe[4096];
	it_build_path("be_worker", exe, sizeof exe);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		execl(exe, "be_worker", "--attach", file, "--rank", "0",
		    (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void
attached(const char *dir)
{
	it_step("an attached back-end emulates its uplink ($GROVE_CLUSTER_MAP)");
	char map[4096], conn_file[4096];
	snprintf(map, sizeof map, "%s/attach.map", dir);
	snprintf(conn_file, sizeof conn_file, "%s/attach.conn", dir);
	FILE *f = fopen(map, "w");
	CHECK(f != NULL);
	fprintf(f, "wan latency 20ms\ncluster 0 nodes 0-1\ncluster 1 nodes 2\n");
	CHECK(fclose(f) == 0);
	CHECK(setenv("GROVE_CLUSTER_MAP", map, 1) == 0);
	grove_net_opts o;
	it_attach_opts(&o, "levels:1x1", 1, conn_file);
	grove_net *net = it_net_create(&o);
	pid_t be = start_attached_be(conn_file);
	CHECK(unsetenv("GROVE_CLUSTER_MAP") == 0);
	CHECK_OK_NET(net, grove_net_wait_backends(net, 1, IT_RECV_MS));
	double best = 1e9;
	for (int i = 0; i < 4; i++) {
		uint64_t t0 = it_now_us();
		CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_p2p_int(net, 0, WORKER_RANK), 0);
		double t = (double)(it_now_us() - t0) * 1e-6;
		if (t < best)
			best = t;
	}
	it_step("fastest round trip %.3f ms (both ways emulated: no less "
	    "than 40 ms)", best * 1e3);
	if (best < 0.040)
		IT_FAIL("round trip %.3f ms: one direction is not emulated",
		    best * 1e3);
	it_net_destroy(net);
	CHECK(it_wait_gone(&be, 1, 5000) == 0);
}

/* Bad maps: nothing is started, the message says what and where. */
static void
bad_maps(const char *dir)
{
	it_step("bad cluster maps fail network creation");
	char path[4096];
	snprintf(path, sizeof path, "%s/bad.map", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f, "wan latency 10ms bandwidth 1MB/s\ncluster 0 nodes 0-2\n"
	    "cluster 1 nodes 2-4\n");
	CHECK(fclose(f) == 0);
	grove_net_opts o;
	it_net_opts(&o, "levels:2x1", 2);
	o.cluster_map_file = path;
	grove_net *net = NULL;
	CHECK_RC(grove_net_create(&o, &net), GROVE_ETOPO);
	char want[4200];
	snprintf(want, sizeof want, "%s:3: node 2 is already in cluster 0", path);
	CHECK_STR_CONTAINS(grove_net_last_error(net), want);
	grove_net_destroy(net);

	f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f, "cluster 0 nodes 0-4\ncluster 1 nodes 5\n");
	CHECK(fclose(f) == 0);
	net = NULL;
	CHECK_RC(grove_net_create(&o, &net), GROVE_ETOPO);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "node 5 is not in the "
	    "topology (nodes 0..4)");
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 2000);
}

int
main(void)
{
	it_init("it_emulation", 150);
	char log[4096], map[4096];
	snprintf(log, sizeof log, "%s/network.log", it_tmpdir());
	snprintf(map, sizeof map, "%s/clusters.map", it_tmpdir());
	bad_maps(it_tmpdir());
	timing(log);
	backpressure(log, map);
	last_message(log, map);
	attached(it_tmpdir());
	return it_done();
}
