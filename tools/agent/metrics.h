/* Node metrics for `grove top`: what a node agent reads from /proc and how
 * it turns two readings into per-interval amounts.
 *
 * Every metric travels as an AMOUNT over the sample's interval (a counter
 * delta, or a gauge integrated over time), because that is what the
 * "timealign" filter can split proportionally and sum without losing
 * anything.  The front-end turns an aggregated amount back into a rate or
 * an average level by dividing by the output interval's length in
 * seconds: CPU busy percent, load, MiB used, switches per second, KiB per
 * second.
 */
#ifndef GROVE_AGENT_METRICS_H
#define GROVE_AGENT_METRICS_H

#include <stddef.h>
#include <stdint.h>

enum {
	METRIC_CPU = 0,   /* percent of all CPUs busy */
	METRIC_LOAD,      /* 1-minute load average */
	METRIC_MEM,       /* MiB in use (MemTotal - MemAvailable) */
	METRIC_CTXSW,     /* context switches per second */
	METRIC_NET_RX,    /* KiB/s received, all interfaces but lo */
	METRIC_NET_TX,    /* KiB/s sent, all interfaces but lo */
	METRIC_COUNT
};

typedef struct metric_desc {
	const char *name;  /* short, for the table and JSON keys */
	const char *unit;
	const char *what;  /* one line for --help */
} metric_desc;

/* Names and units, indexed by METRIC_*. */
const metric_desc *metric_table(void);

/* One reading of the node's counters and gauges. */
typedef struct metric_snapshot {
	uint64_t t_ns;          /* when it was taken (the agent's clock) */
	uint64_t cpu_busy;      /* jiffies, all CPUs: total - idle - iowait */
	uint64_t cpu_total;
	uint64_t ctxt;          /* context switches since boot */
	double load1;
	double mem_used_mib;
	uint64_t net_rx, net_tx; /* bytes since boot, all interfaces but lo */
} metric_snapshot;

/* Parsers of the /proc files' text (pure: tested on captured text).
 * Each returns 0, or -1 with a reason in err when the text does not have
 * what it needs. */
int metrics_parse_stat(const char *text, metric_snapshot *s, char *err,
    size_t errlen);
int metrics_parse_loadavg(const char *text, metric_snapshot *s, char *err,
    size_t errlen);
int metrics_parse_meminfo(const char *text, metric_snapshot *s, char *err,
    size_t errlen);
int metrics_parse_netdev(const char *text, metric_snapshot *s, char *err,
    size_t errlen);

/* Reads all of them from proc_root ("/proc" normally), stamping t_ns. */
int metrics_read(const char *proc_root, uint64_t t_ns, metric_snapshot *s,
    char *err, size_t errlen);

/* The amounts of every metric over [a->t_ns, b->t_ns): out[METRIC_COUNT].
 * Counters that went backwards (a reset) count as zero. */
void metrics_amounts(const metric_snapshot *a, const metric_snapshot *b,
    double *out);

#endif
