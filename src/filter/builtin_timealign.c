/* The "timealign" filter: time-aligned aggregation of performance samples
 * (MRNet paper, section 3.2 and Figure 6), on top of timealign_core.c.
 *
 * Parameters (optional): "%uld %ud" = interval width in ns, max_lag in
 * intervals, or "%uld %ud %ud" = the same and M, the values per sample
 * (inputs with another M are then refused).  Input: raw samples "%uld %uld %alf" (start, end, amounts)
 * from back-ends, or intervals in the output format from nodes below
 * (only from a node: source rank not a back-end's):
 *   "%uld %uld %ud %alf %alf %aud %alf %aud"
 *   start, end, count, sum[M], min[M], min_rank[M], max[M], max_rank[M]
 * Meant for the "dont_wait" sync filter: every packet is handed over as it
 * arrives and the state (one per stream and node) decides what is
 * complete.  See docs/filters.md for the semantics and the lag policy.
 */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "filter/builtin.h"
#include "filter/timealign_core.h"
#include "grove/aggregate.h"

typedef struct ta_filter {
	ta_state *ta;
	uint64_t late_reported; /* ta_late_pieces() at the last warning */
	uint64_t early_reported; /* ta_early_inputs() at the last warning */
	uint64_t refused;       /* bad inputs skipped */
	uint64_t refused_reported;
} ta_filter;

void
flt_timealign_state_free(void *state)
{
	ta_filter *f = state;
	if (!f)
		return;
	ta_free(f->ta);
	free(f);
}

/* Width, lag and M (0: not given) from the stream parameters, or the
 * defaults. */
static int
ta_params(const grove_packet *params, uint64_t *width, uint32_t *lag,
    uint32_t *m)
{
	*width = TA_DEFAULT_WIDTH_NS;
	*lag = TA_DEFAULT_MAX_LAG;
	*m = 0;
	if (!params)
		return 0;
	const char *fmt = grove_packet_format(params);
	int rc;
	if (fmt && strcmp(fmt, GROVE_TIMEALIGN_PARAMS_M_FMT) == 0) {
		rc = grove_packet_unpack(params, GROVE_TIMEALIGN_PARAMS_M_FMT,
		    width, lag, m);
		if (rc == 0 && (*m == 0 || *m > TA_MAX_VALUES))
			return GROVE_EINVAL;
	} else {
		rc = grove_packet_unpack(params, GROVE_TIMEALIGN_PARAMS_FMT,
		    width, lag);
	}
	if (rc < 0)
		return rc;
	if (*width == 0 || *lag == 0)
		return GROVE_EINVAL;
	return 0;
}

static int
ta_add_packet(const grove_filter_call *call, ta_state *ta, uint32_t child,
    const grove_packet *p)
{
	const char *fmt = grove_packet_format(p);
	if (!fmt)
		return GROVE_EFORMAT;
	if (strcmp(fmt, GROVE_TIMEALIGN_SAMPLE_FMT) == 0) {
		uint64_t start, end, n;
		const double *v;
		int rc = grove_packet_unpack(p, GROVE_TIMEALIGN_SAMPLE_FMT, &start, &end, &v, &n);
		if (rc < 0)
			return rc;
		if (n > TA_MAX_VALUES)
			return GROVE_EFORMAT;
		return ta_add_sample(ta, child, grove_packet_src(p), start, end,
		    v, (uint32_t)n);
	}
	/* An interval is a node's result; a back-end sending one would
	 * speak for ranks it is not (flt_src_is_node). */
	if (strcmp(fmt, GROVE_TIMEALIGN_FMT) == 0 && flt_src_is_node(call, p)) {
		grove_timealign_interval t;
		int rc = grove_timealign_decode(p, &t);
		if (rc < 0)
			return rc;
		if (t.m > TA_MAX_VALUES)
			return GROVE_EFORMAT;
		ta_agg a = {.start = t.start_ns, .end = t.end_ns,
		    .count = t.count, .m = (uint32_t)t.m, .sum = t.sum,
		    .min = t.min, .min_rank = t.min_rank, .max = t.max,
		    .max_rank = t.max_rank};
		return ta_add_interval(ta, child, &a);
	}
	return GROVE_EFORMAT;
}

static int
ta_emit(void *arg, const ta_agg *o)
{
	grove_filter_call *call = arg;
	grove_packet *p = NULL;
	uint64_t m = o->m;
	int rc = grove_filter_pack(call, &p, GROVE_TIMEALIGN_FMT, o->start,
	    o->end, o->count, o->sum, m, o->min, m, o->min_rank, m, o->max, m,
	    o->max_rank, m);
	if (rc < 0)
		return rc;
	return grove_filter_emit(call, p);
}

int
flt_builtin_timealign(grove_filter_call *call)
{
	if (call->n_in == 0)
		return 0; /* nothing new can complete an interval */
	uint64_t width;
	uint32_t lag, m;
	int rc = ta_params(call->params, &width, &lag, &m);
	if (rc < 0)
		return rc;
	ta_filter *f = *call->state;
	if (!f) {
		f = calloc(1, sizeof *f);
		if (!f)
			return GROVE_ENOMEM;
		f->ta = ta_new(width, lag,
		    call->place ? call->place->n_children : 0);
		if (!f->ta) {
			free(f);
			return GROVE_ENOMEM;
		}
		*call->state = f;
	}
	/* The grid cannot move under open intervals, nor M under what was
	 * aggregated with it; the lag can change. */
	if (ta_width(f->ta) != width)
		return GROVE_EINVAL;
	if (m && (rc = ta_fix_m(f->ta, m)) < 0)
		return rc;
	ta_set_max_lag(f->ta, lag);

	/* A bad input is refused on its own (ta_add_* change nothing on
	 * error): under dont_wait a wave holds whatever arrived, and one bad
	 * sample must not cost the good ones beside it.  The error is
	 * returned only when no input was taken, so a wave with a good input
	 * still closes (a filter error would discard what it emits). */
	int first_err = 0;
	size_t taken = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		uint32_t child = call->in_child ? call->in_child[i] : 0;
		rc = call->in[i] ? ta_add_packet(call, f->ta, child,
		    call->in[i]) :
		    GROVE_EINVAL;
		if (rc < 0) {
			f->refused++;
			if (!first_err)
				first_err = rc;
			continue;
		}
		taken++;
	}
	/* A lone first input dropped for the next one's M counts as
	 * refused too (ta_fix_m). */
	uint64_t refused = f->refused + ta_discarded_inputs(f->ta);
	if (refused > f->refused_reported &&
	    refused >= 2 * f->refused_reported) {
		log_warn("timealign stream %u: %llu bad inputs refused (last: "
		    "%s)", call->stream_id, (unsigned long long)refused,
		    first_err ? grove_strerror(first_err) :
		    "a first input with another M than the next");
		f->refused_reported = refused;
	}
	if (taken == 0)
		return first_err;
	rc = ta_close(f->ta, ta_emit, call);

	/* Late data is expected after a lagging child comes back, so it is
	 * not an error; say so in the log, less often as it repeats. */
	uint64_t late = ta_late_pieces(f->ta);
	if (late > f->late_reported && late >= 2 * f->late_reported) {
		log_warn("timealign stream %u: %llu late sample pieces dropped "
		    "(their intervals were closed already)", call->stream_id,
		    (unsigned long long)late);
		f->late_reported = late;
	}
	uint64_t early = ta_early_inputs(f->ta);
	if (early > f->early_reported && early >= 2 * f->early_reported) {
		log_warn("timealign stream %u: %llu inputs dropped as more than "
		    "%u intervals ahead of the other children's (a clock far "
		    "off?)", call->stream_id, (unsigned long long)early,
		    TA_MAX_AHEAD);
		f->early_reported = early;
	}
	return rc;
}
