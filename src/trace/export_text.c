/* Plain text export: one tab-separated line per tuple, per process and
 * ring in recording order, times in ns from the common origin.  Names
 * are escaped (trace_text_field), so a tab or newline in one cannot
 * split a record. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "trace/align.h"
#include "trace/trace_impl.h"

/* A name as one tab-separated field: "-" when there is none. */
static const char *
field(const char *s, char *buf, size_t len)
{
	return s && s[0] ? trace_text_field(s, buf, len) : "-";
}

/* The op field of an MPI call's tuple (k in rs): "MPI_Send peer 3 tag 7
 * 4096 B".  The peer is in the collector's position ("peer:3"), or in a
 * GROVE_OP_MPI_PEER instant that follows the call on its collector; the
 * tag in a GROVE_OP_MPI_TAG instant that follows it (both are stamped
 * with the call's end).  Those instants keep lines of their own. */
static const char *
mpi_call_field(const struct trace_ring_snap *rs, size_t k,
               const struct trace_collector_entry *e, char *buf, size_t len)
{
	const grove_trace_tuple *t = &rs->t[k];
	long peer = -1, tag = -1;
	if (e && !strncmp(e->position, "peer:", 5))
		peer = strtol(e->position + 5, NULL, 10);
	for (size_t j = k + 1; j < rs->n && j <= k + 2; j++) {
		const grove_trace_tuple *u = &rs->t[j];
		if (u->collector != t->collector || u->t_start != t->t_end)
			break;
		if (u->op == GROVE_OP_MPI_TAG)
			tag = u->result;
		else if (u->op == GROVE_OP_MPI_PEER)
			peer = u->result;
		else
			break;
	}
	char name[4 * TRACE_NAME_LEN];
	size_t n = (size_t)snprintf(buf, len, "%s",
	                            e && e->name[0] ? trace_text_field(e->name,
	                            name, sizeof name) : "mpi_call");
	if (peer >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " peer %ld", peer);
	if (tag >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " tag %ld", tag);
	if (n < len)
		snprintf(buf + n, len - n, " %d B", t->result);
	return buf;
}

int
trace_export_text(const struct trace_set *set, FILE *f)
{
	uint64_t origin = trace_set_origin_ns(set);
	int aligned = set->timeline == TRACE_TIMELINE_FRONTEND ||
	              set->timeline == TRACE_TIMELINE_REALTIME;
	fprintf(f, "# grove trace: %zu processes; times in ns from "
	        "%sCLOCK_MONOTONIC %" PRIu64 "\n", set->n,
	        aligned ? "the front-end's " : "", origin);
	if (aligned)
		fprintf(f, "# timeline %s: %zu processes not aligned\n",
		        trace_timeline_name(set->timeline), set->unaligned);
	fprintf(f, "# process ring tid start_ns dur_ns op collector layer "
	        "where seq result\n");
	for (uint32_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		char host[4 * sizeof p->hdr.hostname];
		fprintf(f, "# %s: pid %d host %s, %u rings, %u collectors, "
		        "%" PRIu64 " tuples, %" PRIu64 " lost", p->label,
		        p->hdr.pid, trace_text_field(p->hdr.hostname, host,
		        sizeof host), p->n_rings,
		        p->n_collectors, p->tuples, p->lost);
		/* Threads that found no ring recorded nothing. */
		if (p->hdr.threads_without_ring)
			fprintf(f, ", %u thread(s) found no ring",
			        p->hdr.threads_without_ring);
		fprintf(f, "%s\n", p->alive ? ", running" : "");
		if (aligned)
			fprintf(f, "# %s: clock %s, shift %" PRId64 " ns, "
			        "+-%" PRIu64 " ns\n", p->label,
			        trace_proc_align_name(p->align),
			        p->align_shift_ns, p->align_err_ns);
		for (uint32_t r = 0; r < p->n_rings; r++) {
			const struct trace_ring_snap *rs = &p->rings[r];
			for (size_t k = 0; k < rs->n; k++) {
				const grove_trace_tuple *t = &rs->t[k];
				const struct trace_collector_entry *e =
					trace_proc_collector(p, t->collector);
				char ob[4 * TRACE_NAME_LEN + 64],
				    name[4 * TRACE_NAME_LEN],
				    layer[4 * TRACE_LAYER_LEN],
				    where[4 * TRACE_WHERE_LEN];
				uint64_t s = trace_proc_ns(p, t->t_start);
				uint64_t e_ns = trace_proc_ns(p, t->t_end);
				fprintf(f, "%s\t%u\t%u\t%" PRId64 "\t%" PRId64
				        "\t%s\t%s\t%s\t%s\t%u\t%d\n", p->label, r,
				        rs->tid, (int64_t)(s - origin),
				        (int64_t)(e_ns - s),
				        t->op == GROVE_OP_MPI_CALL
				        ? mpi_call_field(rs, k, e, ob, sizeof ob)
				        : trace_op_name(t->op, ob, sizeof ob),
				        field(e ? e->name : NULL, name, sizeof name),
				        field(e ? e->layer : NULL, layer,
				        sizeof layer),
				        field(e ? e->where : NULL, where,
				        sizeof where), t->seq,
				        t->result);
			}
		}
	}
	return ferror(f) ? GROVE_ESYS : 0;
}
