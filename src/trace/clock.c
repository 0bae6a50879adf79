/* The event space's clocks: whether the TSC can be used, the pairs of
 * readings that relate it to CLOCK_MONOTONIC, and the relation of
 * CLOCK_REALTIME to CLOCK_MONOTONIC (see trace/space.h). */
#include "trace/space.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdint.h>
#include <time.h>

/* This process's answer to "is the TSC invariant?": -1 until asked or
 * told.  Process-wide because the CPU's answer is: a parent that asked
 * passes it to the children it starts on its host (trace_tsc_hint), and
 * each CPUID traps to the hypervisor of a virtual machine (6-10 us here),
 * hundreds of times per network start. */
static int tsc_answer = -1;

int
trace_tsc_invariant(void)
{
	int known = __atomic_load_n(&tsc_answer, __ATOMIC_RELAXED);
	if (known >= 0)
		return known;
	int inv = 0;
#ifdef GROVE_TRACE_HAVE_TSC_
	/* CPUID 0x80000007, EDX bit 8: the TSC runs at a constant rate in
	 * every P-, C- and T-state, which is what the kernel reports as
	 * constant_tsc and nonstop_tsc.  Asked of the CPU: /proc/cpuinfo
	 * took about 60 us to read here.  Two CPUIDs (the highest extended
	 * leaf, then the leaf); __get_cpuid would ask for the first twice. */
	unsigned int eax, ebx, ecx, edx;
	if ((unsigned int)__get_cpuid_max(0x80000000u, NULL) >= 0x80000007u) {
		__cpuid(0x80000007u, eax, ebx, ecx, edx);
		(void)eax, (void)ebx, (void)ecx;
		inv = (edx >> 8) & 1;
	}
#endif
	__atomic_store_n(&tsc_answer, inv, __ATOMIC_RELAXED);
	return inv;
}

void
trace_tsc_hint(int invariant)
{
	if (invariant == 0 || invariant == 1)
		__atomic_store_n(&tsc_answer, invariant, __ATOMIC_RELAXED);
}

int
trace_tsc_known(void)
{
	return __atomic_load_n(&tsc_answer, __ATOMIC_RELAXED);
}

uint64_t
grove_trace_mono_ns_(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
mono_ns(void)
{
	return grove_trace_mono_ns_();
}

void
trace_calib_now(int tsc, struct trace_calib *out)
{
#ifdef GROVE_TRACE_HAVE_TSC_
	if (tsc) {
		/* Bracket the clock_gettime between two TSC reads and keep
		 * the tightest of a few tries: the pair is then accurate to
		 * half that gap (tens of ns). */
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < 8; i++) {
			uint64_t a = __rdtsc();
			uint64_t m = mono_ns();
			uint64_t b = __rdtsc();
			if (b - a < best) {
				best = b - a;
				out->ticks = a + (b - a) / 2;
				out->mono_ns = m;
			}
		}
		return;
	}
#endif
	(void)tsc;
	out->mono_ns = mono_ns();
	out->ticks = out->mono_ns;
}

static int64_t
realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
trace_rt_now(int64_t inject_ns, struct trace_rt *out)
{
	/* The realtime reading happened somewhere between the two monotonic
	 * ones: taking their midpoint is off by at most half their gap.  The
	 * tightest of a few tries dodges a preemption in between. */
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = mono_ns();
		int64_t r = realtime_ns();
		uint64_t b = mono_ns();
		if (b - a < best) {
			best = b - a;
			out->rt_minus_mono_ns = r - (int64_t)(a + (b - a) / 2);
			out->err_ns = (b - a + 1) / 2 + 1;
		}
	}
	out->rt_minus_mono_ns += inject_ns;
}
