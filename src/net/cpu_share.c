#define _GNU_SOURCE /* cpu_set_t */
#include "net/cpu_share.h"

/* The CPU of `all` with position pos (0-based) in increasing order, or
 * -1. */
static int
nth_cpu(const cpu_set_t *all, int pos)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, all) && pos-- == 0)
			return c;
	return -1;
}

int
cpu_share_of(const cpu_set_t *all, uint32_t nchildren, uint32_t index,
    cpu_set_t *out)
{
	CPU_ZERO(out);
	uint64_t ncpus = (uint64_t)CPU_COUNT(all);
	if (ncpus == 0 || index >= nchildren)
		return 0;
	/* Child i gets positions [i*m/k, (i+1)*m/k), at least one: the
	 * runs tile 0..m-1 when m >= k; when m < k, child i gets position
	 * floor(i*m/k), which every CPU gets for floor(k/m) or ceil(k/m)
	 * children. */
	uint64_t lo = index * ncpus / nchildren;
	uint64_t hi = ((uint64_t)index + 1) * ncpus / nchildren;
	if (hi <= lo)
		hi = lo + 1;
	int n = 0;
	for (uint64_t p = lo; p < hi; p++) {
		int c = nth_cpu(all, (int)p);
		if (c >= 0) {
			CPU_SET(c, out);
			n++;
		}
	}
	return n;
}
