/* Which leftover event spaces may go: the pure part of trace/leftover.h. */
#include "trace/leftover.h"

#include <stddef.h>
#include <string.h>

#include "trace/reader.h"
#include "trace/space.h"

enum trace_seg_life
trace_seg_life_of(const void *hdr, size_t got, const char *name,
    int (*alive)(int32_t pid, uint64_t init_mono_ns), int *kept,
    uint64_t *fini_mono_ns)
{
	*kept = 0;
	*fini_mono_ns = 0;
	char net[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
	uint32_t rank;
	if (trace_parse_name(name, net, sizeof net, role, sizeof role, &rank))
		return TRACE_SEG_UNKNOWN;
	/* The identity and the pid come first in the header and are
	 * written before the magic: a writer still in grove_trace_init has
	 * them.  Short reads leave zeros, which match nothing. */
	struct trace_header h;
	memset(&h, 0, sizeof h);
	memcpy(&h, hdr, got < sizeof h ? got : sizeof h);
	h.network_id[sizeof h.network_id - 1] = '\0';
	h.role[sizeof h.role - 1] = '\0';
	if (got < offsetof(struct trace_header, clock) ||
	    strcmp(h.network_id, net) || strcmp(h.role, role) ||
	    h.rank != rank || h.pid <= 0)
		return TRACE_SEG_UNKNOWN;
	if (h.magic == 0)
		return alive(h.pid, 0) ? TRACE_SEG_LIVE : TRACE_SEG_DEAD;
	/* Another version's header may mean other things by the fields
	 * after the pid (whether it is finished, kept): not ours to judge. */
	if (h.magic != TRACE_MAGIC || h.version != TRACE_VERSION ||
	    h.header_size != TRACE_HEADER_SIZE)
		return TRACE_SEG_UNKNOWN;
	/* Written before the kept mark existed, the header reads 0 there. */
	if (got >= offsetof(struct trace_header, kept) + sizeof h.kept)
		*kept = h.kept != 0;
	if (h.finished) {
		if (!(h.align_flags & TRACE_ALIGN_SHIPPED))
			*fini_mono_ns = h.calib_fini.mono_ns;
		return TRACE_SEG_DEAD;
	}
	return alive(h.pid, h.calib_init.mono_ns) ? TRACE_SEG_LIVE :
	       TRACE_SEG_DEAD;
}

int
trace_net_removable(const struct trace_net_facts *f, int64_t now_ns,
    uint64_t min_age_ns)
{
	if (f->segments == 0 || f->live || f->unknown || f->kept ||
	    f->ctl_bound)
		return 0;
	/* A change in the future (a clock stepped back, a touched file)
	 * counts as just now. */
	if (f->newest_ns >= now_ns)
		return min_age_ns == 0;
	return (uint64_t)(now_ns - f->newest_ns) >= min_age_ns;
}
