/* The fast-path microbenchmark behind `grove bench trace`: the real
 * inline record path of grove/trace.h, in loops of LOOP records, minimum
 * over REPS repetitions (the minimum is the cost without interference on
 * a shared machine).  Besides a whole span (two clock reads and a record)
 * it measures its two parts, which is what the tuples of the hot paths
 * cost: most share their clock reads with others. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "grove/error.h"
#include "trace/trace_impl.h"

#define LOOP 1000000
#define REPS 15

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* noinline: the loop measured is what a hot path of the library pays. */
static __attribute__((noinline)) double
loop_ns(grove_trace_collector *c)
{
	double t0 = mono_s();
	for (int i = 0; i < LOOP; i++) {
		uint64_t t = grove_trace_begin();
		/* Keeps the compiler from merging or hoisting iterations:
		 * each one re-reads the enabled flag, as real code does. */
		__asm__ volatile("" ::: "memory");
		grove_trace_end(c, GROVE_OP_USER, i, t);
	}
	return (mono_s() - t0) * 1e9 / LOOP;
}

/* A tuple that shares its timestamps with others (the packets of one
 * batch): the record alone, without a clock read. */
static __attribute__((noinline)) double
loop_store_ns(grove_trace_collector *c)
{
	uint64_t t = grove_trace_now();
	double t0 = mono_s();
	for (int i = 0; i < LOOP; i++) {
		__asm__ volatile("" ::: "memory");
		grove_trace_record(c, GROVE_OP_USER, i, t, t);
	}
	return (mono_s() - t0) * 1e9 / LOOP;
}

/* One clock read alone (what each tuple with its own timestamp adds). */
static __attribute__((noinline)) double
loop_clock_ns(grove_trace_collector *c)
{
	uint64_t sum = 0;
	(void)c;
	double t0 = mono_s();
	for (int i = 0; i < LOOP; i++) {
		sum += grove_trace_now();
		__asm__ volatile("" : "+r"(sum) :: "memory");
	}
	return (mono_s() - t0) * 1e9 / LOOP;
}

static double
min_of(double (*loop)(grove_trace_collector *), grove_trace_collector *c)
{
	double best = 1e30;
	for (int r = 0; r < REPS; r++) {
		double v = loop(c);
		if (v < best)
			best = v;
	}
	return best;
}

static double
min_ns(grove_trace_collector *c)
{
	return min_of(loop_ns, c);
}

int
trace_bench_fastpath(double *ns_per_event, double *ns_disabled,
                     double *ns_store, double *ns_clock)
{
	int own = 0, rc;
	int was_on = grove_trace_enabled();
	if (!trace_space_active()) {
		/* No event space in this process: open a private one. */
		char id[48];
		snprintf(id, sizeof id, "bench%ld", (long)getpid());
		/* Each init, refused or not, is matched by one fini. */
		if ((rc = grove_trace_init(id, "bench", 0))) {
			grove_trace_fini(0);
			return rc;
		}
		if (!grove_trace_enabled()) {
			grove_trace_fini(0);
			return GROVE_ENOTSUP; /* GROVE_TRACE=0 */
		}
		own = 1;
	}
	grove_trace_collector c;
	if ((rc = grove_trace_user_register(&c, "bench")) && rc != GROVE_ERANGE)
		goto out;
	rc = 0;
	grove_trace_set_enabled(1);
	(void)min_ns(&c); /* warm the ring pages and caches */
	*ns_per_event = min_ns(&c);
	if (ns_store)
		*ns_store = min_of(loop_store_ns, &c);
	if (ns_clock)
		*ns_clock = min_of(loop_clock_ns, &c);
	grove_trace_set_enabled(0);
	*ns_disabled = min_ns(&c);
	grove_trace_set_enabled(was_on);
out:
	if (own)
		grove_trace_fini(0);
	return rc;
}
