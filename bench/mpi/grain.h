/* A calibrated amount of real computation, for the benchmarks that need
 * a compute grain between MPI calls (stencil.c, allreduce_heavy.c).
 *
 * The work is a chain of logistic-map steps, x = r x (1 - x): each step
 * depends on the one before, so the compiler can neither vectorize nor
 * drop it, and its cost per step is steady (a few multiplications'
 * latency).  Sleeping would not do: under buffered coscheduling a rank
 * that sleeps leaves the CPU, which is not what a compute phase does.
 *
 * Rank 0 calibrates in CPU time of its own thread, not in wall time: with
 * more ranks than cores the wall time of a calibration depends on who
 * else is running, the CPU time does not.  Every rank then does the same
 * number of steps per grain, so the ranks stay balanced.  Header only, so
 * that each benchmark stays one file that any MPI's compiler wrapper
 * builds. */
#ifndef GROVE_BENCH_GRAIN_H
#define GROVE_BENCH_GRAIN_H

#include <mpi.h>
#include <time.h>

/* Logistic-map steps per unit of work: a unit is a fraction of a
 * microsecond, fine enough for grains of a few microseconds. */
#define GRAIN_STEPS_PER_UNIT 64

/* Does `units` units of work on *x (in (0, 1), and stays there). */
static inline void grain_work(long units, double *x)
{
	double v = *x;
	for (long u = 0; u < units; u++)
		for (int s = 0; s < GRAIN_STEPS_PER_UNIT; s++)
			v = 3.9 * v * (1.0 - v);
	*x = v;
}

/* True when the state is still what the map can produce: a result that
 * is not in (0, 1) means the computation went wrong. */
static inline int grain_state_ok(double x)
{
	return x > 0.0 && x < 1.0;
}

static inline double grain_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Units of work per microsecond of this thread's CPU: doubles the amount
 * until one run takes at least 20 ms, then keeps the fastest of three
 * runs of that amount (the least disturbed). */
static inline double grain_measure_units_per_us(void)
{
	double x = 0.3, t = 0;
	long units = 16;
	for (;;) {
		double t0 = grain_cpu_s();
		grain_work(units, &x);
		t = grain_cpu_s() - t0;
		if (t >= 0.02 || units > (1L << 40))
			break;
		units *= 2;
	}
	for (int i = 0; i < 3; i++) {
		double t0 = grain_cpu_s();
		grain_work(units, &x);
		double ti = grain_cpu_s() - t0;
		if (ti < t)
			t = ti;
	}
	if (!grain_state_ok(x) || t <= 0)
		return 0;
	return (double)units / (t * 1e6);
}

/* Collective over comm: rank 0 measures, everyone gets its figure.
 * Returns units per microsecond (> 0), or 0 when the measurement
 * failed. */
static inline double grain_calibrate(MPI_Comm comm)
{
	int rank;
	double rate = 0;
	MPI_Comm_rank(comm, &rank);
	if (rank == 0)
		rate = grain_measure_units_per_us();
	MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, comm);
	return rate;
}

/* Units of work for a grain of `us` microseconds at `rate` units per
 * microsecond: at least one unit for any positive grain. */
static inline long grain_units(double us, double rate)
{
	if (us <= 0)
		return 0;
	long n = (long)(us * rate + 0.5);
	return n < 1 ? 1 : n;
}

#endif
