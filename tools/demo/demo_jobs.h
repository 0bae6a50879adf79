/* grove demo's jobs: the requests it sends, one stream each (or
 * point-to-point), what each should get back, and the check of every
 * reply against it (cmd_demo.c runs them and prints the table). */
#ifndef GROVE_TOOLS_DEMO_JOBS_H
#define GROVE_TOOLS_DEMO_JOBS_H

#include <stdint.h>

#include "grove/grove.h"
#include "demo_hosts.h"

#define DEMO_MAX_JOBS 12
#define DEMO_ECHO_VALUE 42
#define DEMO_ARRAY_LEN 4
/* The slow back-end sleeps well past the time-out so its reply cannot make
 * the first wave, and the demo still finishes in well under a second. */
#define DEMO_SLOW_MS 300
#define DEMO_TIMEOUT_MS 100
#define DEMO_WAIT_MS 20000

typedef enum job_kind {
	J_ECHO,    /* broadcast echo, summed */
	J_SCALAR,  /* one int32 reduced value */
	J_AVG,     /* avg filter: mean of rank + 0.5 */
	J_CONCAT,  /* "%ad %aud": every rank once, value == rank */
	J_ARRAY,   /* element-wise sum of arrays */
	J_GATHER,  /* null filter: one packet per back-end */
	J_P2P,     /* point-to-point to one back-end */
	J_TIMEOUT, /* time-out sync filter with a slow back-end */
} job_kind;

typedef struct job {
	job_kind kind;
	const char *request;
	const char *filters;
	char members[24];
	grove_comm *comm;   /* owned when not the broadcast communicator */
	grove_stream *s;    /* NULL: point-to-point */
	int32_t tag;
	int64_t want;       /* J_SCALAR, J_ECHO, J_P2P */
	double t0, t1;
	int done, ok;
	char result[40], expected[40];
	/* progress of multi-packet jobs */
	uint8_t *seen;      /* per rank (J_GATHER, J_TIMEOUT) */
	uint32_t nseen;
	int dup, waves, slow_early, slow_reply;
	uint32_t slow_last_wave; /* the slow rank came in the last wave */
	/* Back-ends in the waves it took (grove_packet_contributors): the
	 * fewest and most, of members; in_seen: a packet had an account. */
	uint32_t in_min, in_max, in_of;
	int in_seen;
	char missing[96];   /* the first partial wave's missing runs */
} job;

typedef struct demo {
	grove_net *net;
	uint32_t n;
	uint32_t p2p_rank, slow_rank;
	job jobs[DEMO_MAX_JOBS];
	int njobs;
	int unexpected;
	demo_hosts hosts;   /* from the info replies */
} demo;

/* snprintf that returns nothing: results are cut to their field. */
void demo_setf(char *dst, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The job is over (ok: its result is what was expected). */
void demo_job_finish(job *j, int ok);

/* The broadcast request, before the concurrent part: one round trip into
 * j.  0, or the error of creating its stream (said on standard error); a
 * failed round trip is the job's MISMATCH, not an error. */
int demo_broadcast(demo *d, job *j);
/* Adds the concurrent jobs and creates their streams (and the even
 * ranks' communicator): 0, or an error said on standard error. */
int demo_make_jobs(demo *d);
/* Sends every job's request: the slow one last, so that the slow
 * back-end has answered everything else before it goes to sleep. */
int demo_send_all(demo *d);
/* The job a packet on stream s (NULL: point-to-point) with tag is for,
 * or NULL. */
job *demo_find_job(demo *d, const grove_stream *s, int32_t tag);
/* Checks a reply for j (p2p: it came point-to-point) and finishes j
 * when it has all it waits for. */
void demo_take(demo *d, job *j, const grove_packet *p, int p2p);

#endif
