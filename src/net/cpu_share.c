#define _GNU_SOURCE /* cpu_set_t */
#include "net/cpu_share.h"

#include <stdio.h>

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

void
cpu_set_text(const cpu_set_t *s, char *out, size_t len)
{
	if (len == 0)
		return;
	out[0] = 0;
	size_t o = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, s))
			continue;
		int last = c;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, s))
			last++;
		int w = last > c ? snprintf(out + o, len - o, "%s%d-%d",
		    o ? "," : "", c, last) : snprintf(out + o, len - o, "%s%d",
		    o ? "," : "", c);
		if (w < 0 || (size_t)w >= len - o) {
			out[o] = 0; /* no half entries */
			return;
		}
		o += (size_t)w;
		c = last;
	}
}
