/* Decoding a "report" result on the front-end (grove/aggregate.h): the
 * report holds a reference on the packet and the offset of each record;
 * taking a record out copies its bytes into a packet of its own, checked
 * like any frame from the network. */
#include <stdlib.h>

#include "codec/wire.h"
#include "filter/report_core.h"
#include "grove/aggregate.h"

struct grove_report {
	grove_packet *p;
	rp_view v;
	uint64_t *off; /* n: where record i starts in v.bytes */
};

int
rp_view_parse(const grove_packet *p, rp_view *v)
{
	uint64_t nl;
	int rc = grove_packet_unpack(p, GROVE_REPORT_FMT, &v->rank, &v->n,
	    &v->len, &nl, &v->bytes, &v->nbytes);
	if (rc < 0)
		return rc;
	if (nl != v->n)
		return GROVE_EFORMAT;
	/* No overflow: n 32-bit lengths in a packet of at most 1 GiB. */
	uint64_t total = 0;
	for (uint64_t i = 0; i < v->n; i++)
		total += v->len[i];
	if (total != v->nbytes)
		return GROVE_EFORMAT;
	return 0;
}

int
grove_report_decode(const grove_packet *p, grove_report **out)
{
	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!p)
		return GROVE_EINVAL;
	rp_view v;
	int rc = rp_view_parse(p, &v);
	if (rc < 0)
		return rc;
	grove_report *r = calloc(1, sizeof *r);
	if (!r)
		return GROVE_ENOMEM;
	r->off = malloc((size_t)(v.n ? v.n : 1) * sizeof *r->off);
	if (!r->off) {
		free(r);
		return GROVE_ENOMEM;
	}
	uint64_t at = 0;
	for (uint64_t i = 0; i < v.n; i++) {
		r->off[i] = at;
		at += v.len[i];
	}
	r->v = v;
	r->p = grove_packet_ref((grove_packet *)p);
	*out = r;
	return 0;
}

void
grove_report_free(grove_report *r)
{
	if (!r)
		return;
	grove_packet_unref(r->p);
	free(r->off);
	free(r);
}

size_t
grove_report_count(const grove_report *r)
{
	return r ? (size_t)r->v.n : 0;
}

int
grove_report_record(const grove_report *r, size_t i, uint32_t *rank,
    grove_packet **rec)
{
	if (rec)
		*rec = NULL;
	if (!r || i >= r->v.n)
		return GROVE_ERANGE;
	if (rank)
		*rank = r->v.rank[i];
	if (!rec)
		return 0;
	grove_packet *q = NULL;
	int rc = wire_packet_from_bytes(r->v.bytes + r->off[i], r->v.len[i], &q);
	if (rc < 0)
		return rc == GROVE_EINVAL ? GROVE_EPROTO : rc;
	if (wire_packet_hdr(q)->type != WIRE_T_DATA) {
		grove_packet_unref(q);
		return GROVE_EPROTO;
	}
	*rec = q;
	return 0;
}
