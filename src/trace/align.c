/* Readers' side of the host alignment: which timeline, and the shift of
 * each process onto it (see trace/align.h). */
#include "trace/align.h"

#include <stdlib.h>
#include <string.h>

#include "grove/error.h"

static const char *const timeline_names[] = {
	[TRACE_TIMELINE_AUTO] = "auto",
	[TRACE_TIMELINE_LOCAL] = "local",
	[TRACE_TIMELINE_FRONTEND] = "frontend",
	[TRACE_TIMELINE_REALTIME] = "realtime",
};

static const char *const align_names[] = {
	[TRACE_PROC_OWN] = "own",
	[TRACE_PROC_REFERENCE] = "reference",
	[TRACE_PROC_SAME_HOST] = "same-host",
	[TRACE_PROC_SKEW] = "skew",
	[TRACE_PROC_REALTIME] = "realtime",
	[TRACE_PROC_UNALIGNED] = "unknown",
};

int
trace_timeline_parse(const char *s, enum trace_timeline *out)
{
	for (int i = 0; s && i <= TRACE_TIMELINE_REALTIME; i++)
		if (!strcmp(s, timeline_names[i])) {
			*out = (enum trace_timeline)i;
			return 0;
		}
	return GROVE_EINVAL;
}

const char *
trace_timeline_name(int timeline)
{
	return timeline >= 0 && timeline <= TRACE_TIMELINE_REALTIME
	       ? timeline_names[timeline] : "?";
}

const char *
trace_proc_align_name(int align)
{
	return align >= 0 && align <= TRACE_PROC_UNALIGNED
	       ? align_names[align] : "?";
}

enum trace_timeline
trace_timeline_env(void)
{
	const char *s = getenv("GROVE_TRACE_TIMELINE");
	enum trace_timeline t = TRACE_TIMELINE_AUTO;
	if (s && *s && trace_timeline_parse(s, &t) != 0)
		fprintf(stderr, "grove trace: GROVE_TRACE_TIMELINE='%s' is not "
		        "auto, local, frontend or realtime; using auto\n", s);
	return t;
}

int
trace_rt_of(const struct trace_header *h, struct trace_rt *out)
{
	/* As with calib_fini: only a finished header's fini reading is
	 * whole (the writer sets `finished` after it). */
	if ((h->align_flags & TRACE_ALIGN_RT_FINI) && h->finished)
		*out = h->rt_fini;
	else if (h->align_flags & TRACE_ALIGN_RT_INIT)
		*out = h->rt_init;
	else
		return GROVE_ENOENT;
	return 0;
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int
trace_align_shift(const struct trace_rt *p, int64_t offset_ns,
                  uint64_t offset_err_ns, const struct trace_rt *fe,
                  int64_t *shift_ns, uint64_t *err_ns)
{
	int64_t a;
	if (__builtin_sub_overflow(p->rt_minus_mono_ns, offset_ns, &a) ||
	    __builtin_sub_overflow(a, fe->rt_minus_mono_ns, shift_ns))
		return GROVE_ERANGE;
	*err_ns = add_sat(add_sat(p->err_ns, offset_err_ns), fe->err_ns);
	return 0;
}

int
trace_host_offset(int64_t be_offset_ns, int64_t be_inject_ns,
                  int64_t inject_ns, int64_t *out)
{
	int64_t host;
	if (__builtin_sub_overflow(be_offset_ns, be_inject_ns, &host) ||
	    __builtin_add_overflow(host, inject_ns, out))
		return GROVE_ERANGE;
	return 0;
}

static int
several_hosts(const struct trace_set *set)
{
	for (size_t i = 1; i < set->n; i++)
		if (strcmp(set->p[i].hdr.hostname, set->p[0].hdr.hostname))
			return 1;
	return 0;
}

static struct trace_proc *
find_fe(struct trace_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->p[i].hdr.role, "fe"))
			return &set->p[i];
	return NULL;
}

/* Where one process goes; *shift and *err say by how much. */
static int
place(const struct trace_proc *p, const struct trace_proc *fe,
      const struct trace_rt *fe_rt, enum trace_timeline mode, int forced,
      int64_t *shift, uint64_t *err)
{
	const struct trace_header *h = &p->hdr;
	struct trace_rt rt = {0};
	int have_rt = trace_rt_of(h, &rt) == 0;
	int same_host = fe && !strcmp(h->hostname, fe->hdr.hostname);
	int have_off = (h->align_flags & TRACE_ALIGN_FE_OFFSET) != 0;
	*shift = 0;
	*err = 0;
	if (mode == TRACE_TIMELINE_FRONTEND) {
		if (have_rt && have_off && (forced || !same_host) &&
		    trace_align_shift(&rt, h->fe_offset_ns, h->fe_offset_err_ns,
		                      fe_rt, shift, err) == 0)
			return TRACE_PROC_SKEW;
		if (same_host)
			return TRACE_PROC_SAME_HOST;
	}
	if (have_rt && trace_align_shift(&rt, 0, 0, fe_rt, shift, err) == 0)
		return TRACE_PROC_REALTIME;
	*shift = 0;
	*err = 0;
	return TRACE_PROC_UNALIGNED;
}

/* Lists the processes in one state on warn, at most a few by name. */
static void
warn_list(FILE *warn, const struct trace_set *set, int align,
          const char *what)
{
	size_t k = 0;
	for (size_t i = 0; i < set->n; i++)
		k += set->p[i].align == align;
	if (!warn || !k)
		return;
	fprintf(warn, "grove trace: %zu process%s %s:", k, k > 1 ? "es" : "",
	        what);
	size_t shown = 0;
	for (size_t i = 0; i < set->n && shown < 8; i++)
		if (set->p[i].align == align) {
			fprintf(warn, "%s %s", shown ? "," : "", set->p[i].label);
			shown++;
		}
	fprintf(warn, "%s\n", k > shown ? ", ..." : "");
}

/* A realtime clock stepped during a run makes its two relations differ
 * by more than their bounds: the later one is used; say so. */
static void
warn_steps(FILE *warn, const struct trace_set *set)
{
	for (size_t i = 0; warn && i < set->n; i++) {
		const struct trace_header *h = &set->p[i].hdr;
		uint32_t both = TRACE_ALIGN_RT_INIT | TRACE_ALIGN_RT_FINI;
		int64_t d;
		if ((h->align_flags & both) != both || !h->finished ||
		    __builtin_sub_overflow(h->rt_fini.rt_minus_mono_ns,
		                           h->rt_init.rt_minus_mono_ns, &d))
			continue;
		uint64_t ad = d < 0 ? -(uint64_t)d : (uint64_t)d;
		if (ad > add_sat(h->rt_init.err_ns, h->rt_fini.err_ns))
			fprintf(warn, "grove trace: %s: realtime clock moved by "
			        "%lld ns against the monotonic clock during the "
			        "run (stepped?); aligned with the later reading\n",
			        set->p[i].label, (long long)d);
	}
}

void
trace_set_align(struct trace_set *set, enum trace_timeline mode, FILE *warn)
{
	int forced = mode == TRACE_TIMELINE_FRONTEND;
	if (mode == TRACE_TIMELINE_AUTO)
		mode = several_hosts(set) ? TRACE_TIMELINE_FRONTEND
		                          : TRACE_TIMELINE_LOCAL;
	set->timeline = mode;
	set->unaligned = 0;
	for (size_t i = 0; i < set->n; i++) {
		set->p[i].align = TRACE_PROC_OWN;
		set->p[i].align_shift_ns = 0;
		set->p[i].align_err_ns = 0;
	}
	if (mode == TRACE_TIMELINE_LOCAL)
		return;
	struct trace_proc *fe = find_fe(set);
	/* Without the front-end's relation the timeline is its realtime
	 * clock (offsets are measured against that); its own events, if
	 * any, then cannot be placed. */
	struct trace_rt fe_rt = {0, 0};
	int fe_ok = fe && trace_rt_of(&fe->hdr, &fe_rt) == 0;
	if (!fe_ok && warn)
		fprintf(warn, "grove trace: %s; times are on the front-end's "
		        "realtime clock\n", fe ? "the front-end's event space "
		        "does not relate its clocks" : "no front-end event space");
	for (size_t i = 0; i < set->n; i++) {
		struct trace_proc *p = &set->p[i];
		int64_t shift = 0;
		uint64_t err = 0;
		if (p == fe)
			p->align = fe_ok ? TRACE_PROC_REFERENCE
			                 : TRACE_PROC_UNALIGNED;
		else
			p->align = place(p, fe, &fe_rt, mode, forced, &shift,
			                 &err);
		p->align_shift_ns = shift;
		p->align_err_ns = err;
		/* Unsigned: wraps, as the exporters' differences expect. */
		p->m0 += (uint64_t)shift;
		p->start_ns += (uint64_t)shift;
		p->end_ns += (uint64_t)shift;
		if (p->align == TRACE_PROC_UNALIGNED ||
		    (mode == TRACE_TIMELINE_FRONTEND &&
		     p->align == TRACE_PROC_REALTIME))
			set->unaligned++;
	}
	if (mode == TRACE_TIMELINE_FRONTEND)
		warn_list(warn, set, TRACE_PROC_REALTIME, "with no measured "
		          "offset to the front-end, on their own realtime "
		          "clock (not corrected)");
	warn_list(warn, set, TRACE_PROC_UNALIGNED, "without a realtime "
	          "relation, on their own monotonic clock (not aligned)");
	warn_steps(warn, set);
}
