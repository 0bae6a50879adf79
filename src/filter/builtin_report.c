/* The "report" filter: concatenation of back-end reports (MRNet paper,
 * section 4.2.1, ReportSelf): every back-end sends one record of any
 * format (host name, pid, whatever the tool packs); the front-end gets one
 * packet holding every record with its rank, and decodes each record with
 * its own format (grove_report_record).
 *
 * A record is the back-end packet's frame exactly as it came in (header,
 * format and payload), so nothing is re-encoded on the way up.  Output:
 * "%aud %aud %auc" = ranks[N], record lengths[N], the records back to back,
 * ordered by rank.  A node's own results are input to its parent: a packet
 * of that format whose source is not a back-end rank (it was made by a
 * node) is taken apart; anything else is a record, including a back-end's
 * own packet that happens to have the same format.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "filter/builtin.h"
#include "filter/report_core.h"
#include "grove/aggregate.h"

typedef struct rp_rec {
	uint32_t rank;
	uint32_t len;
	const uint8_t *bytes;
	size_t seq;         /* position in the wave, for equal ranks */
} rp_rec;

static int
rp_is_result(const grove_filter_call *call, const grove_packet *p)
{
	const char *f = grove_packet_format(p);
	return f && strcmp(f, GROVE_REPORT_FMT) == 0 &&
	    flt_src_is_node(call, p);
}

static int
rp_cmp(const void *a, const void *b)
{
	const rp_rec *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/* Same rank twice (a back-end sent two records in one wave):
	 * keep them in the order they came, which qsort alone does not (nor
	 * do their addresses: the packets lie wherever they were
	 * allocated). */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int
flt_builtin_report(grove_filter_call *call)
{
	if (call->n_in == 0)
		return 0;
	uint64_t n = 0, nbytes = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		if (!call->in[i])
			return GROVE_EINVAL;
		if (rp_is_result(call, call->in[i])) {
			rp_view v;
			int rc = rp_view_parse(call->in[i], &v);
			if (rc < 0)
				return rc;
			n += v.n;
			nbytes += v.nbytes;
		} else {
			size_t len;
			wire_packet_bytes(call->in[i], &len);
			n++;
			nbytes += len;
		}
	}
	if (nbytes > WIRE_MAX_FRAME || n > WIRE_MAX_FRAME)
		return GROVE_ERANGE;

	rp_rec *recs = malloc((size_t)(n ? n : 1) * sizeof *recs);
	uint32_t *ranks = malloc((size_t)(n ? n : 1) * sizeof *ranks);
	uint32_t *lens = malloc((size_t)(n ? n : 1) * sizeof *lens);
	uint8_t *bytes = malloc((size_t)nbytes + 1);
	int rc = GROVE_ENOMEM;
	if (!recs || !ranks || !lens || !bytes)
		goto out;
	size_t k = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		const grove_packet *p = call->in[i];
		if (rp_is_result(call, p)) {
			rp_view v;
			rp_view_parse(p, &v); /* checked in the first pass */
			const uint8_t *at = v.bytes;
			for (uint64_t j = 0; j < v.n; j++) {
				recs[k] = (rp_rec){v.rank[j], v.len[j], at, k};
				k++;
				at += v.len[j];
			}
		} else {
			size_t len;
			const uint8_t *b = wire_packet_bytes(p, &len);
			recs[k] = (rp_rec){grove_packet_src(p),
			    (uint32_t)len, b, k};
			k++;
		}
	}
	qsort(recs, k, sizeof *recs, rp_cmp);
	size_t off = 0;
	for (size_t j = 0; j < k; j++) {
		ranks[j] = recs[j].rank;
		lens[j] = recs[j].len;
		if (recs[j].len)
			memcpy(bytes + off, recs[j].bytes, recs[j].len);
		off += recs[j].len;
	}
	grove_packet *out = NULL;
	rc = grove_filter_pack(call, &out, GROVE_REPORT_FMT, ranks, (uint64_t)k,
	    lens, (uint64_t)k, bytes, (uint64_t)off);
	if (rc == 0)
		rc = grove_filter_emit(call, out);
out:
	free(recs);
	free(ranks);
	free(lens);
	free(bytes);
	return rc;
}
