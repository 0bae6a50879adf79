#include "net/emu.h"

#include <math.h>
#include <stdlib.h>

#include "core/fmath.h"
#include "grove/error.h"

int
emu_params_off(const grove_link_params *p)
{
	return !p || (p->latency_s <= 0 && p->bandwidth_Bps <= 0);
}

int
emu_line_init(emu_line *l, const grove_link_params *p)
{
	if (!p || !isfinite(p->latency_s) || !isfinite(p->bandwidth_Bps) ||
	    p->latency_s < 0 || p->bandwidth_Bps < 0 || p->latency_s > 3600)
		return GROVE_EINVAL;
	l->latency_ns = (uint64_t)fm_round(p->latency_s * 1e9);
	l->ns_per_byte = p->bandwidth_Bps > 0 ? 1e9 / p->bandwidth_Bps : 0;
	l->busy_until = 0;
	return 0;
}

uint64_t
emu_schedule(emu_line *l, uint64_t now, size_t bytes)
{
	uint64_t start = now > l->busy_until ? now : l->busy_until;
	/* Rounded per message: the error is below a nanosecond each, far
	 * under any clock this is compared with. */
	uint64_t tx = (uint64_t)fm_round((double)bytes * l->ns_per_byte);
	l->busy_until = start + tx;
	return l->busy_until + l->latency_ns;
}

int
emu_queue_push(emu_queue *q, grove_packet *p, uint64_t due)
{
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 64;
		emu_held *nv = malloc(nc * sizeof *nv);
		if (!nv)
			return GROVE_ENOMEM;
		for (size_t i = 0; i < q->n; i++)
			nv[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = nv;
		q->cap = nc;
		q->head = 0;
	}
	q->v[(q->head + q->n) % q->cap] = (emu_held){p, due};
	q->n++;
	q->bytes += grove_packet_size(p);
	return 0;
}

grove_packet *
emu_queue_pop_due(emu_queue *q, uint64_t now)
{
	if (!q->n || q->v[q->head].due > now)
		return NULL;
	grove_packet *p = q->v[q->head].p;
	q->head = (q->head + 1) % q->cap;
	q->n--;
	q->bytes -= grove_packet_size(p);
	return p;
}

uint64_t
emu_queue_next_due(const emu_queue *q)
{
	return q->n ? q->v[q->head].due : UINT64_MAX;
}

void
emu_queue_fini(emu_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		grove_packet_unref(q->v[(q->head + i) % q->cap].p);
	free(q->v);
	q->v = NULL;
	q->head = q->n = q->cap = 0;
	q->bytes = 0;
}
