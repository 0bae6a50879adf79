/* The two libm functions Grove's own processes need, without libm.
 *
 * grove-commnode and the back-ends are started hundreds of times per
 * network, and loading libm.so costs a process about 60 us of its ~0.6 ms
 * start here (measured: an empty program with and without libm).  They
 * use only round() (averages of integers, link emulation) and log2() (the
 * model's crowd interpolation), so these are defined here in plain C.
 * Both agree with libm (tests/unit/test_fmath.c): fm_round exactly,
 * fm_log2 to within a few ulp.
 */
#ifndef GROVE_CORE_FMATH_H
#define GROVE_CORE_FMATH_H

#include <math.h> /* INFINITY and NAN only: macros, not libm */
#include <stdint.h>
#include <string.h>

/* round(): to nearest, halfway cases away from zero; NaN and infinities
 * are returned as they are. */
static inline double
fm_round(double x)
{
	/* At 2^52 and beyond every double is an integer (and NaN, inf fail
	 * the comparison the same way). */
	if (!(x > -4503599627370496.0 && x < 4503599627370496.0))
		return x;
	double t = (double)(int64_t)x; /* toward zero, exact here */
	double frac = x - t;           /* exact: same binade or below */
	if (frac >= 0.5)
		return t + 1.0;
	if (frac <= -0.5)
		return t - 1.0;
	return t == 0.0 ? 0.0 * x : t; /* keeps the sign of -0.3 -> -0.0 */
}

/* log2(): x <= 0 gives -inf (0) or NaN (negative), like libm. */
static inline double
fm_log2(double x)
{
	if (!(x > 0.0))
		return x == 0.0 ? -INFINITY : NAN;
	if (x == INFINITY)
		return x;
	int scale = 0;
	if (x < 2.2250738585072014e-308) { /* subnormal: make it normal */
		x *= 18014398509481984.0;  /* 2^54 */
		scale = 54;
	}
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int e = (int)((bits >> 52) & 0x7ff) - 1023 - scale;
	bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
	double m; /* x = m * 2^e, m in [1, 2) */
	memcpy(&m, &bits, sizeof m);
	if (m > 1.4142135623730951) { /* m in [sqrt(1/2), sqrt(2)) */
		m *= 0.5;
		e++;
	}
	/* ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m-1)/(m+1),
	 * |s| <= 0.172: fourteen terms leave less than 1e-22. */
	double s = (m - 1.0) / (m + 1.0), s2 = s * s, term = s, sum = s;
	for (int k = 3; k <= 27; k += 2) {
		term *= s2;
		sum += term / k;
	}
	return (double)e + 2.0 * sum * 1.4426950408889634; /* 1/ln 2 */
}

#endif
