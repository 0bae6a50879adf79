/* Real trees of every shape: reductions with every built-in filter,
 * point-to-point requests and a sub-communicator, checked exactly, then a
 * clean shutdown that leaves no process behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define ARRAY_LEN_SMALL 5000 /* elements per BE in the array sum */
#define ARRAY_LEN_LARGE 64
#define CONCAT_ARRAY_LEN 3

/* kary:8 over this many BEs is the "large" case; ASan multiplies the
 * memory of every process, so sanitized builds use fewer. */
#if defined(__SANITIZE_ADDRESS__)
#define LARGE_BACKENDS 256
#else
#define LARGE_BACKENDS 1024 /* the largest tree promised on one machine */
#endif

static void
check_sum_rank(grove_net *net, grove_stream *sum, uint32_t n)
{
	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_RANK, ""));
	int64_t want = (int64_t)n * (n - 1) / 2;
	CHECK_INT_EQ(it_recv_int(net, sum, WORKER_RANK), want);

	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_ECHO, "%d", 7));
	CHECK_INT_EQ(it_recv_int(net, sum, WORKER_ECHO), 7 * (int64_t)n);
}

static void
check_min_max(grove_net *net, uint32_t n)
{
	grove_stream *mx = it_stream(net, NULL, "max", NULL);
	grove_stream *mn = it_stream(net, NULL, "min", NULL);
	CHECK_OK_NET(net, grove_stream_send(mx, WORKER_RANK, ""));
	CHECK_OK_NET(net, grove_stream_send(mn, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, mn, WORKER_RANK), 0);
	CHECK_INT_EQ(it_recv_int(net, mx, WORKER_RANK), n - 1);
	CHECK_OK_NET(net, grove_stream_destroy(mx));
	CHECK_OK_NET(net, grove_stream_destroy(mn));
}

static void
check_avg(grove_net *net, uint32_t n)
{
	grove_stream *s = it_stream(net, NULL, "avg", NULL);
	double v = 0;
	int32_t count = 0;
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_AVG, ""));
	grove_packet *p = it_recv(net, s, WORKER_AVG);
	CHECK_OK(grove_packet_unpack(p, "%lf %d", &v, &count));
	/* mean of rank + 0.5 over 0..n-1 is n / 2 */
	CHECK_DBL_NEAR(v, n / 2.0, 1e-12);
	CHECK_INT_EQ(count, n);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
check_concat(grove_net *net, uint32_t n)
{
	grove_stream *s = it_stream(net, NULL, "concat", NULL);
	it_concat c;

	/* Scalars: one value per BE, in rank order. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	grove_packet *p = it_recv(net, s, WORKER_RANK);
	it_concat_decode(p, &c);
	CHECK_UINT_EQ(c.n, n);
	CHECK(c.rank != NULL);
	for (uint32_t r = 0; r < n; r++) {
		CHECK_INT_EQ(c.val[r], r);
		CHECK_UINT_EQ(c.rank[r], r);
	}
	it_concat_free(&c);
	grove_packet_unref(p);

	/* Arrays: every element tagged with the rank it came from. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ARRAY, "%d",
	    CONCAT_ARRAY_LEN));
	p = it_recv(net, s, WORKER_ARRAY);
	it_concat_decode(p, &c);
	CHECK_UINT_EQ(c.n, (uint64_t)n * CONCAT_ARRAY_LEN);
	CHECK(c.rank != NULL);
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t i = 0; i < CONCAT_ARRAY_LEN; i++) {
			uint64_t k = (uint64_t)r * CONCAT_ARRAY_LEN + i;
			CHECK_INT_EQ(c.val[k], (int32_t)(r * 1000u + i));
			CHECK_UINT_EQ(c.rank[k], r);
		}
	it_concat_free(&c);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
check_array_sum(grove_net *net, grove_stream *sum, uint32_t n, int32_t len)
{
	const int32_t *a = NULL;
	uint64_t count = 0;
	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_ARRAY, "%d", len));
	grove_packet *p = it_recv(net, sum, WORKER_ARRAY);
	CHECK_OK(grove_packet_unpack(p, "%ad", &a, &count));
	CHECK_UINT_EQ(count, (uint64_t)len);
	/* The workers' values wrap like uint32; so does the expected sum. */
	uint32_t base = 0;
	for (uint32_t r = 0; r < n; r++)
		base += r * 1000u;
	for (int32_t i = 0; i < len; i++)
		if (a[i] != (int32_t)(base + n * (uint32_t)i))
			CHECK_INT_EQ(a[i], (int32_t)(base + n * (uint32_t)i));
	grove_packet_unref(p);
}

static void
check_p2p(grove_net *net, uint32_t n)
{
	uint32_t ranks[] = {0, n / 2, n - 1, n / 3};
	for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
		CHECK_OK_NET(net, grove_net_send_to(net, ranks[i], WORKER_RANK,
		    ""));
		CHECK_INT_EQ(it_recv_p2p_int(net, ranks[i], WORKER_RANK),
		    ranks[i]);
	}
	/* A rank outside the network is refused, not sent anywhere. */
	CHECK(grove_net_send_to(net, n, WORKER_RANK, "") < 0);
}

static void
check_subcomm(grove_net *net, uint32_t n)
{
	uint32_t *odd = calloc(n / 2 + 1, sizeof *odd);
	size_t k = 0;
	int64_t want = 0;
	grove_comm *c = NULL;
	CHECK(odd != NULL);
	for (uint32_t r = 1; r < n; r += 2) {
		odd[k++] = r;
		want += r;
	}
	CHECK_OK_NET(net, grove_comm_create(net, odd, k, &c));
	CHECK_UINT_EQ(grove_comm_size(c), k);
	grove_stream *s = it_stream(net, c, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), want);
	/* Only the members answered: the count of an echo is k. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 3));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 3 * (int64_t)k);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	grove_comm_destroy(c);
	free(odd);
}

static void
run_tree(grove_net *net, uint32_t want_n, uint32_t min_depth, int large)
{
	uint32_t n = grove_net_backends(net);
	CHECK_UINT_EQ(n, want_n);
	CHECK_UINT_EQ(grove_net_backends_up(net), want_n);
	CHECK_UINT_EQ(grove_comm_size(grove_net_comm_all(net)), want_n);
	const grove_topo *t = grove_net_topology(net);
	CHECK(t != NULL);
	CHECK_UINT_EQ(grove_topo_backends(t), want_n);
	if (grove_topo_depth(t) < min_depth)
		IT_FAIL("topology depth %u < %u", grove_topo_depth(t),
		    min_depth);

	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	check_sum_rank(net, sum, n);
	check_min_max(net, n);
	check_avg(net, n);
	check_concat(net, n);
	check_array_sum(net, sum, n, large ? ARRAY_LEN_LARGE :
	    ARRAY_LEN_SMALL);
	check_p2p(net, n);
	check_subcomm(net, n);
	/* The first stream still works after others came and went. */
	check_sum_rank(net, sum, n);
	CHECK_OK_NET(net, grove_stream_destroy(sum));
}

static void
spec_case(const char *spec, uint32_t n, uint32_t min_depth, int large)
{
	it_step("--- %s, %u backends", spec, n);
	grove_net *net = it_net_spawn(spec, n);
	run_tree(net, n, min_depth, large);
	it_net_destroy(net);
}

/* An MRNet-style file with CPs at two depths and uneven fan-out:
 *   FE -> a (CP: c (CP: 2 BEs), 1 BE), b (3 BEs), d (1 BE)  = 7 BEs */
static const char topo_file_text[] =
    "# integration test topology: uneven, CPs at two depths\n"
    "localhost:0 => localhost:1 localhost:2 localhost:3 ;\n"
    "localhost:1 => localhost:4 localhost:5 ;\n"
    "localhost:4 => localhost:10\n"
    "               localhost:11 ;   # continued line\n"
    "localhost:2 => localhost:6 localhost:7 localhost:8 ;\n"
    "localhost:3 => localhost:9 ;\n";

static void
file_case(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tree.top", it_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	CHECK(fputs(topo_file_text, f) >= 0);
	CHECK(fclose(f) == 0);

	it_step("--- topology file, 7 backends");
	grove_net_opts o;
	it_net_opts(&o, NULL, 0);
	o.topology_file = path;
	grove_net *net = it_net_create(&o);
	run_tree(net, 7, 3, 0);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_trees", 240);
	uint32_t large = LARGE_BACKENDS;
	const char *env = getenv("GROVE_IT_LARGE_BACKENDS");
	if (env && atoi(env) > 0)
		large = (uint32_t)atoi(env);

	spec_case("flat", 8, 1, 0);
	spec_case("kary:2", 16, 4, 0);
	spec_case("kary:8", 64, 2, 0);
	spec_case("knomial:2", 16, 2, 0);
	spec_case("levels:2x3x4", 24, 3, 0);
	file_case();
	spec_case("kary:8", large, 3, 1);
	return it_done();
}
