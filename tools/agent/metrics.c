#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static const metric_desc table[METRIC_COUNT] = {
	[METRIC_CPU] = {"cpu", "%", "CPU busy, percent of all CPUs"},
	[METRIC_LOAD] = {"load", "", "1-minute load average"},
	[METRIC_MEM] = {"mem", "MiB", "memory in use (total - available)"},
	[METRIC_CTXSW] = {"ctxsw", "/s", "context switches per second"},
	[METRIC_NET_RX] = {"net_rx", "KiB/s", "bytes received, not lo"},
	[METRIC_NET_TX] = {"net_tx", "KiB/s", "bytes sent, not lo"},
};

const metric_desc *
metric_table(void)
{
	return table;
}

/* The line of text that starts with key (at a line start), or NULL. */
static const char *
find_line(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, klen))
			return p + klen;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int
metrics_parse_stat(const char *text, metric_snapshot *s, char *err,
    size_t errlen)
{
	const char *cpu = find_line(text, "cpu ");
	if (!cpu) {
		snprintf(err, errlen, "stat: no aggregate \"cpu\" line");
		return -1;
	}
	/* user nice system idle iowait irq softirq steal [guest guest_nice]:
	 * guest time is already counted in user, so it is not added again. */
	unsigned long long v[8];
	int n = sscanf(cpu, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4) {
		snprintf(err, errlen, "stat: \"cpu\" line has %d fields, "
		    "need at least 4", n < 0 ? 0 : n);
		return -1;
	}
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		total += v[i];
	uint64_t idle = v[3] + (n > 4 ? v[4] : 0);
	s->cpu_total = total;
	s->cpu_busy = total - idle;

	const char *ctxt = find_line(text, "ctxt ");
	unsigned long long c;
	if (!ctxt || sscanf(ctxt, "%llu", &c) != 1) {
		snprintf(err, errlen, "stat: no \"ctxt\" line");
		return -1;
	}
	s->ctxt = c;
	return 0;
}

int
metrics_parse_loadavg(const char *text, metric_snapshot *s, char *err,
    size_t errlen)
{
	double l;
	/* strtod reads "nan" and "inf" too: not a load. */
	if (sscanf(text, "%lf", &l) != 1 || !isfinite(l) || l < 0) {
		snprintf(err, errlen, "loadavg: no 1-minute load first");
		return -1;
	}
	s->load1 = l;
	return 0;
}

static int
meminfo_kib(const char *text, const char *key, unsigned long long *out)
{
	const char *p = find_line(text, key);
	return p && sscanf(p, " %llu", out) == 1 ? 0 : -1;
}

int
metrics_parse_meminfo(const char *text, metric_snapshot *s, char *err,
    size_t errlen)
{
	unsigned long long total, avail;
	if (meminfo_kib(text, "MemTotal:", &total) < 0 ||
	    meminfo_kib(text, "MemAvailable:", &avail) < 0) {
		snprintf(err, errlen, "meminfo: MemTotal or MemAvailable "
		    "missing");
		return -1;
	}
	s->mem_used_mib = avail > total ? 0 : (double)(total - avail) / 1024;
	return 0;
}

int
metrics_parse_netdev(const char *text, metric_snapshot *s, char *err,
    size_t errlen)
{
	/* Two header lines, then "  name: rx_bytes rx_packets ... (8 receive
	 * fields) tx_bytes ...". */
	uint64_t rx = 0, tx = 0;
	int lines = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'),
	    p = p ? p + 1 : NULL) {
		const char *colon = strchr(p, ':');
		const char *nl = strchr(p, '\n');
		if (!colon || (nl && colon > nl))
			continue;
		const char *name = p;
		while (*name == ' ')
			name++;
		unsigned long long f[9];
		if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu "
		    "%llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
		    &f[7], &f[8]) != 9)
			continue; /* the "face |bytes" header */
		lines++;
		if (colon - name == 2 && !strncmp(name, "lo", 2))
			continue;
		rx += f[0];
		tx += f[8];
	}
	if (!lines) {
		snprintf(err, errlen, "net/dev: no interface lines");
		return -1;
	}
	s->net_rx = rx;
	s->net_tx = tx;
	return 0;
}

/* Reads a /proc file whole into a malloc'ed, NUL-terminated buffer:
 * /proc/stat's "intr" line alone can be tens of KiB on a large node. */
static char *
slurp(const char *root, const char *name, char *err, size_t errlen)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		len += fread(buf + len, 1, cap - 1 - len, f);
		if (len < cap - 1)
			break;
		char *bigger = realloc(buf, cap * 2);
		if (!bigger) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	fclose(f);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

typedef int (*parse_fn)(const char *, metric_snapshot *, char *, size_t);

static int
read_one(const char *root, const char *name, parse_fn parse,
    metric_snapshot *s, char *err, size_t errlen)
{
	char *text = slurp(root, name, err, errlen);
	if (!text)
		return -1;
	int rc = parse(text, s, err, errlen);
	free(text);
	return rc;
}

int
metrics_read(const char *proc_root, uint64_t t_ns, metric_snapshot *s,
    char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->t_ns = t_ns;
	if (read_one(proc_root, "stat", metrics_parse_stat, s, err,
	    errlen) < 0 ||
	    read_one(proc_root, "loadavg", metrics_parse_loadavg, s, err,
	    errlen) < 0 ||
	    read_one(proc_root, "meminfo", metrics_parse_meminfo, s, err,
	    errlen) < 0 ||
	    read_one(proc_root, "net/dev", metrics_parse_netdev, s, err,
	    errlen) < 0)
		return -1;
	return 0;
}

static double
delta(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) : 0;
}

void
metrics_amounts(const metric_snapshot *a, const metric_snapshot *b,
    double *out)
{
	double dt = b->t_ns > a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9 : 0;
	double total = delta(a->cpu_total, b->cpu_total);
	double busy = delta(a->cpu_busy, b->cpu_busy);
	/* Busy percent held over dt seconds: the front-end divides by the
	 * interval length and gets the percent back. */
	out[METRIC_CPU] = total > 0 ? 100.0 * busy / total * dt : 0;
	/* Gauges: the level at the end of the interval, held over it. */
	out[METRIC_LOAD] = b->load1 * dt;
	out[METRIC_MEM] = b->mem_used_mib * dt;
	out[METRIC_CTXSW] = delta(a->ctxt, b->ctxt);
	out[METRIC_NET_RX] = delta(a->net_rx, b->net_rx) / 1024;
	out[METRIC_NET_TX] = delta(a->net_tx, b->net_tx) / 1024;
}
