/* P-LogP parameters measured between two processes over Grove's own
 * connection layer (framing, batching, back-pressure and, for the "wan"
 * class, the link emulator), as `grove logp measure` reports them.  The
 * method is in docs/logp-measure.md. */
#ifndef GROVE_TOOLS_LOGP_MEASURE_H
#define GROVE_TOOLS_LOGP_MEASURE_H

#include <stddef.h>
#include <stdint.h>

typedef enum logp_link {
	LOGP_HOST = 0, /* two pipes (or a Unix socket pair) between two
	                  local processes, as between a node and a child it
	                  starts on its own host (grove_local_link) */
	LOGP_LAN = 1,  /* TCP over loopback */
	LOGP_WAN = 2,  /* TCP over loopback through the link emulator */
} logp_link;

typedef struct logp_cfg {
	logp_link link;
	const size_t *sizes;  /* message sizes (payload bytes), ascending */
	size_t n_sizes;
	int reps;             /* repetitions of the whole measurement */
	double latency_s;     /* wan: emulated latency and bandwidth */
	double bandwidth_Bps;
	int host_socket;      /* host: a Unix socket pair instead of pipes */
	int verbose;          /* progress on stderr */
} logp_cfg;

/* Per size: the median over the repetitions, and the spread over them
 * (the range of the middle half over the median; max - min below four
 * repetitions). */
typedef struct logp_row {
	size_t size;
	double os, or_, g;
	double w; /* CPU work of one message, sender and receiver */
	double os_spread, or_spread, g_spread, w_spread;
} logp_row;

typedef struct logp_table {
	char cls[16];         /* "host", "lan", "wan" */
	double L, L_spread;
	logp_row *rows;       /* n_sizes of them, malloc'd */
	size_t n;
	double seconds;       /* how long the measurement took */
	/* host: w in crowds of crowd_K[k] processes per core at size
	 * rows[i].size is crowd_w[k * n + i] (seconds, < 0 where not
	 * measured; logp_crowd.h).  n_crowds 0 when not measured. */
	size_t n_crowds;
	uint32_t crowd_K[8];
	double *crowd_w;
	int host_socket;      /* host was measured on Unix sockets */
} logp_table;

const char *logp_link_name(logp_link l);
int logp_link_parse(const char *name, logp_link *out);

/* Start the peer process, measure, stop it.  0, or a negative grove_err
 * with err saying why. */
int logp_measure(const logp_cfg *cfg, logp_table *out, char *err,
    size_t errlen);
void logp_table_fini(logp_table *t);

#endif
