/* Unit tests for the node agent's /proc parsers and amounts
 * (tools/agent/metrics.c), on captured text and on a fake /proc tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/metrics.h"

static const char stat_text[] =
    "cpu  100 5 50 800 20 3 2 0 0 0\n"
    "cpu0 50 2 25 400 10 1 1 0 0 0\n"
    "intr 12345 1 2 3\n"
    "ctxt 987654\n"
    "btime 1700000000\n";

static const char netdev_text[] =
    "Inter-|   Receive                                                |  "
    "Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|"
    "bytes    packets errs drop fifo colls carrier compressed\n"
    "    lo: 5000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0\n"
    "  eth0: 2048 3 0 0 0 0 0 0 1024 2 0 0 0 0 0 0\n"
    "  eth1: 1000 1 0 0 0 0 0 0 24 1 0 0 0 0 0 0\n";

static const char meminfo_text[] =
    "MemTotal:       24000000 kB\n"
    "MemFree:        10000000 kB\n"
    "MemAvailable:   20000000 kB\n";

static void
test_parse_stat(void **state)
{
	(void)state;
	metric_snapshot s = {0};
	char err[128];
	assert_int_equal(metrics_parse_stat(stat_text, &s, err, sizeof err), 0);
	/* total = 100+5+50+800+20+3+2+0 (+0 +0); idle = 800 + 20 iowait */
	assert_int_equal(s.cpu_total, 980);
	assert_int_equal(s.cpu_busy, 160);
	assert_int_equal(s.ctxt, 987654);
}

static void
test_parse_errors(void **state)
{
	(void)state;
	metric_snapshot s = {0};
	char err[128];
	assert_int_equal(metrics_parse_stat("cpu0 1 2 3 4\nctxt 5\n", &s, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "cpu"));
	assert_int_equal(metrics_parse_stat("cpu  1 2\nctxt 5\n", &s, err,
	    sizeof err), -1);
	assert_int_equal(metrics_parse_stat("cpu  1 2 3 4\n", &s, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "ctxt"));
	assert_int_equal(metrics_parse_loadavg("x", &s, err, sizeof err), -1);
	assert_int_equal(metrics_parse_loadavg("-1 2 3", &s, err, sizeof err),
	    -1);
	/* strtod's words for NaN and infinity are no load. */
	const char *nonfinite[] = {"nan 0.10 0.05 1/80 123\n",
	    "inf 0.10 0.05 1/80 123\n", "infinity 1 1\n", "-nan 1 1\n"};
	for (size_t i = 0; i < sizeof nonfinite / sizeof *nonfinite; i++)
		assert_int_equal(metrics_parse_loadavg(nonfinite[i], &s, err,
		    sizeof err), -1);
	assert_int_equal(metrics_parse_meminfo("MemTotal: 5 kB\n", &s, err,
	    sizeof err), -1);
	assert_int_equal(metrics_parse_netdev("no interfaces\n", &s, err,
	    sizeof err), -1);
	assert_int_equal(metrics_parse_netdev("", &s, err, sizeof err), -1);
}

static void
test_parse_others(void **state)
{
	(void)state;
	metric_snapshot s = {0};
	char err[128];
	assert_int_equal(metrics_parse_loadavg("1.50 0.75 0.25 2/300 42\n", &s,
	    err, sizeof err), 0);
	assert_true(s.load1 == 1.5);
	assert_int_equal(metrics_parse_meminfo(meminfo_text, &s, err,
	    sizeof err), 0);
	assert_true(s.mem_used_mib == 4000000.0 / 1024);
	assert_int_equal(metrics_parse_netdev(netdev_text, &s, err,
	    sizeof err), 0);
	/* lo is left out: only eth0 + eth1 */
	assert_int_equal(s.net_rx, 3048);
	assert_int_equal(s.net_tx, 1048);
}

static void
test_amounts(void **state)
{
	(void)state;
	metric_snapshot a = {.t_ns = 1000000000ull, .cpu_busy = 100,
	    .cpu_total = 1000, .ctxt = 50, .load1 = 1, .mem_used_mib = 100,
	    .net_rx = 1024, .net_tx = 4096};
	metric_snapshot b = {.t_ns = 3000000000ull, .cpu_busy = 150,
	    .cpu_total = 1200, .ctxt = 250, .load1 = 2, .mem_used_mib = 300,
	    .net_rx = 3072, .net_tx = 4096};
	double v[METRIC_COUNT];
	metrics_amounts(&a, &b, v);
	/* 50 of 200 jiffies busy = 25 % held for 2 s */
	assert_true(v[METRIC_CPU] == 50.0);
	assert_true(v[METRIC_LOAD] == 4.0);
	assert_true(v[METRIC_MEM] == 600.0);
	assert_true(v[METRIC_CTXSW] == 200.0);
	assert_true(v[METRIC_NET_RX] == 2.0);
	assert_true(v[METRIC_NET_TX] == 0.0);
	/* a counter that went backwards (reset) counts as nothing */
	b.ctxt = 10;
	metrics_amounts(&a, &b, v);
	assert_true(v[METRIC_CTXSW] == 0.0);
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_read_fake_proc(void **state)
{
	(void)state;
	char dir[] = "/tmp/grove-test-proc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char net[600];
	snprintf(net, sizeof net, "%s/net", dir);
	assert_int_equal(mkdir(net, 0700), 0);
	/* A large "intr" line: the reader must not truncate the file. */
	size_t big = 200000;
	char *stat = malloc(big + sizeof stat_text + 16);
	assert_non_null(stat);
	strcpy(stat, "cpu  100 5 50 800 20 3 2 0 0 0\nintr");
	size_t len = strlen(stat);
	while (len < big) {
		memcpy(stat + len, " 0", 2);
		len += 2;
	}
	strcpy(stat + len, "\nctxt 77\n");
	write_file(dir, "stat", stat);
	free(stat);
	write_file(dir, "loadavg", "0.5 0.1 0.1 1/1 1\n");
	write_file(dir, "meminfo", meminfo_text);
	write_file(dir, "net/dev", netdev_text);

	metric_snapshot s;
	char err[256];
	assert_int_equal(metrics_read(dir, 42, &s, err, sizeof err), 0);
	assert_int_equal(s.t_ns, 42);
	assert_int_equal(s.ctxt, 77);
	assert_true(s.load1 == 0.5);

	char path[700];
	snprintf(path, sizeof path, "%s/loadavg", dir);
	unlink(path);
	assert_int_equal(metrics_read(dir, 42, &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "loadavg"));

	snprintf(path, sizeof path, "%s/stat", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/meminfo", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/net/dev", dir);
	unlink(path);
	rmdir(net);
	rmdir(dir);
}

static void
test_real_proc(void **state)
{
	(void)state;
	metric_snapshot s;
	char err[256];
	assert_int_equal(metrics_read("/proc", 1, &s, err, sizeof err), 0);
	assert_true(s.cpu_total > 0);
	assert_true(s.cpu_busy <= s.cpu_total);
	assert_true(s.mem_used_mib > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_others),
		cmocka_unit_test(test_amounts),
		cmocka_unit_test(test_read_fake_proc),
		cmocka_unit_test(test_real_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
