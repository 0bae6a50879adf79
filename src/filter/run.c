/* Running a transformation filter on a wave, collecting what it emits, and
 * the public helpers (grove_filter_emit*, grove_filter_pack) a filter calls.
 *
 * call->impl_ points at a run context on flt_run's stack: the output lists
 * and the stream, tag and rank packets of this wave must carry.  Nothing
 * here outlives one flt_run call, so filters can run on several streams
 * (or threads) without shared state.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "filter/builtin.h"
#include "filter/filter_impl.h"

typedef struct flt_ctx {
	flt_out *out;
	uint32_t stream;
	int32_t tag;
	uint32_t src;
	int down;      /* a downstream filter: no reverse direction */
} flt_ctx;

void
flt_out_init(flt_out *o)
{
	memset(o, 0, sizeof *o);
}

void
flt_out_reset(flt_out *o)
{
	for (size_t i = 0; i < o->n_up; i++)
		grove_packet_unref(o->up[i]);
	for (size_t i = 0; i < o->n_down; i++)
		grove_packet_unref(o->down[i]);
	o->n_up = 0;
	o->n_down = 0;
}

void
flt_out_fini(flt_out *o)
{
	flt_out_reset(o);
	free(o->up);
	free(o->down);
	memset(o, 0, sizeof *o);
}

static int
out_push(grove_packet ***arr, size_t *n, size_t *cap, grove_packet *p)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		grove_packet **na = realloc(*arr, ncap * sizeof *na);
		if (!na)
			return GROVE_ENOMEM;
		*arr = na;
		*cap = ncap;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

static int
run(const flt_def *f, uint32_t stream, int32_t tag, uint32_t src,
    grove_packet *const *in, const uint32_t *in_child, size_t n_in,
    const grove_packet *params, void **state,
    const grove_filter_place *place, flt_out *out, int down)
{
	if (!f || !f->fn || !out || (n_in && !in))
		return GROVE_EINVAL;
	flt_ctx ctx = {.out = out, .stream = stream, .tag = tag, .src = src,
	               .down = down};
	grove_filter_call call = {
		.abi = GROVE_FILTER_ABI,
		.stream_id = stream,
		.in = in,
		.n_in = n_in,
		.in_child = in_child,
		.params = params,
		.state = state,
		.place = place,
		.impl_ = &ctx,
	};
	return f->fn(&call);
}

int
flt_run(const flt_def *f, uint32_t stream, int32_t tag, uint32_t src,
    grove_packet *const *in, const uint32_t *in_child, size_t n_in,
    const grove_packet *params, void **state,
    const grove_filter_place *place, flt_out *out)
{
	return run(f, stream, tag, src, in, in_child, n_in, params, state,
	    place, out, 0);
}

int
flt_run_down(const flt_def *f, uint32_t stream, int32_t tag, uint32_t src,
    grove_packet *p, const grove_packet *params, void **state,
    const grove_filter_place *place, flt_out *out)
{
	uint32_t none = 0;
	return run(f, stream, tag, src, &p, &none, 1, params, state, place,
	    out, 1);
}

void
flt_state_free(const flt_def *f, void *state)
{
	if (f && f->state_free && state)
		f->state_free(state);
}

static flt_ctx *
call_ctx(grove_filter_call *call)
{
	if (!call || call->abi != GROVE_FILTER_ABI)
		return NULL;
	return call->impl_;
}

/* Give p the wave's stream and tag.  A packet the filter passes through, or
 * built with grove_filter_pack, already has them and is kept as is (no
 * copy).  Anything else is re-encoded from its items, keeping its source
 * rank (the origin of the data does not change by being forwarded), except
 * that one built with grove_packet_pack, which names nobody yet, gets this
 * node's rank as grove_filter_pack would give it. */
static int
rewrap(const flt_ctx *ctx, grove_packet **pp)
{
	grove_packet *p = *pp, *q = NULL;
	int unset = wire_packet_src_unset(p);
	if (grove_packet_stream(p) == ctx->stream &&
	    grove_packet_tag(p) == ctx->tag && !unset)
		return 0;
	int rc = wire_repack(&q, p, WIRE_T_DATA, ctx->stream, ctx->tag,
	    unset ? ctx->src : grove_packet_src(p));
	if (rc < 0)
		return rc;
	grove_packet_unref(p);
	*pp = q;
	return 0;
}

static int
emit(grove_filter_call *call, grove_packet *p, int reverse)
{
	flt_ctx *ctx = call_ctx(call);
	if (!ctx || !p || (reverse && ctx->down)) {
		grove_packet_unref(p);
		return GROVE_EINVAL;
	}
	int rc = rewrap(ctx, &p);
	if (rc == 0) {
		flt_out *o = ctx->out;
		if (reverse)
			rc = out_push(&o->down, &o->n_down, &o->cap_down, p);
		else
			rc = out_push(&o->up, &o->n_up, &o->cap_up, p);
	}
	if (rc < 0)
		grove_packet_unref(p);
	return rc;
}

int
grove_filter_emit(grove_filter_call *call, grove_packet *p)
{
	return emit(call, p, 0);
}

int
grove_filter_emit_reverse(grove_filter_call *call, grove_packet *p)
{
	return emit(call, p, 1);
}

int
grove_filter_pack(grove_filter_call *call, grove_packet **out,
    const char *fmt, ...)
{
	flt_ctx *ctx = call_ctx(call);
	if (!ctx || !out || !fmt)
		return GROVE_EINVAL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(out, WIRE_T_DATA, ctx->stream, ctx->tag, ctx->src,
	    0, fmt, ap);
	va_end(ap);
	return rc;
}

int
flt_emit_items(grove_filter_call *call, const grove_item *items, int nitems)
{
	flt_ctx *ctx = call_ctx(call);
	if (!ctx)
		return GROVE_EINVAL;
	grove_packet *p = NULL;
	int rc = wire_pack_items(&p, WIRE_T_DATA, ctx->stream, ctx->tag,
	    ctx->src, items, nitems);
	if (rc < 0)
		return rc;
	return grove_filter_emit(call, p);
}

int
flt_wave_nitems(const grove_filter_call *call)
{
	if (call->n_in == 0)
		return 0;
	for (size_t i = 0; i < call->n_in; i++)
		if (!call->in[i])
			return GROVE_EINVAL;
	const char *fmt0 = grove_packet_format(call->in[0]);
	if (!fmt0)
		return GROVE_EFORMAT;
	for (size_t i = 1; i < call->n_in; i++)
		if (!wire_packet_same_format(call->in[i], call->in[0]))
			return GROVE_EFORMAT;
	return grove_packet_nitems(call->in[0]);
}
