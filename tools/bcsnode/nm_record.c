/* grove run --bcs --record FILE: the schedule that decides what a
 * program sees, per slice, in a text file a person can read and a later
 * run (--replay) can force:
 *   # grove-bcs-record 1
 *   # ranks N slice_ns S
 *   W <slice> <world rank> <k> <source>
 *       the rank's k-th MPI_ANY_SOURCE receive matched comm rank source
 *   T <slice> <world rank> <k> <fn> <count> <mask> <source> <tag>
 *       the rank's test-family call k returned true (fn: the call's
 *       function id; count and mask: what completed; source and tag: a
 *       probe's message)
 * Lines come in slice order.  The ranks read their own lines back in
 * MPI_Init when replaying (src/mpi, bcs_desc.h). */
#include <errno.h>
#include <string.h>

#include "nm_impl.h"

int
nm_record_open(struct nm *nm, char *err, size_t errlen)
{
	if (!nm->o.record)
		return 0;
	nm->record = fopen(nm->o.record, "w");
	if (!nm->record) {
		snprintf(err, errlen, "cannot write the record %s: %s",
		         nm->o.record, strerror(errno));
		return -1;
	}
	fprintf(nm->record, "# grove-bcs-record 1\n# ranks %d slice_ns %llu\n",
	        nm->n, (unsigned long long)nm->o.slice_ns);
	return 0;
}

void
nm_record_wild(struct nm *nm, int rank, int64_t k, int source)
{
	if (nm->record)
		fprintf(nm->record, "W %llu %d %lld %d\n",
		        (unsigned long long)nm->slice, rank, (long long)k, source);
}

void
nm_record_note(struct nm *nm, int rank, const struct bcs_desc *d)
{
	if (nm->record)
		fprintf(nm->record, "T %llu %d %u %d %u %#llx %d %d\n",
		        (unsigned long long)nm->slice, rank, d->seq, d->peer,
		        d->count, (unsigned long long)d->addr, d->peer_world,
		        d->tag);
}

void
nm_record_close(struct nm *nm)
{
	if (!nm->record)
		return;
	if (fclose(nm->record) != 0)
		nm_say("writing the record %s: %s", nm->o.record, strerror(errno));
	nm->record = NULL;
}
