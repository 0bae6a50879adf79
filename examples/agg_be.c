/* agg_be: a back-end for the aggregation filters (see agg_protocol.h).
 * Started by Grove (spawn mode); answers until the network shuts down.
 * Bad requests are reported on stderr and skipped.
 */
#include <stdio.h>
#include <unistd.h>

#include "agg_protocol.h"
#include "grove/backend.h"
#include "grove/packet.h"

static void
complain(uint32_t rank, int32_t tag, const char *what, int rc)
{
	fprintf(stderr, "agg_be[%u]: tag %d: %s: %s\n", rank, tag, what,
	    grove_strerror(rc));
}

static int
do_round(grove_be *be, uint32_t rank, uint32_t stream, const grove_packet *p)
{
	uint32_t round, ta_stream;
	int rc = grove_packet_unpack(p, "%ud %ud", &round, &ta_stream);
	if (rc < 0)
		return rc;
	uint64_t cut[AGG_NCUTS];
	agg_sample_cuts(rank, round, cut);
	for (int i = 0; i + 1 < AGG_NCUTS; i++) {
		double v[2];
		agg_sample_values(rank, cut[i], cut[i + 1], v);
		rc = grove_be_send(be, ta_stream, AGG_SAMPLE, "%uld %uld %alf",
		    cut[i], cut[i + 1], v, (uint64_t)2);
		if (rc < 0)
			return rc;
	}
	/* The acknowledgement follows the samples on the same connection,
	 * so when the front-end has every acknowledgement, every sample of
	 * the round has passed the nodes it goes through. */
	return grove_be_send(be, stream, AGG_ROUND, "%d", 1);
}

static int
handle(grove_be *be, uint32_t rank, uint32_t stream, int32_t tag,
    const grove_packet *p)
{
	char host[256] = "unknown";
	gethostname(host, sizeof host - 1);
	switch (tag) {
	case AGG_EQUIV:
		return grove_be_send(be, stream, tag, "%s", agg_class_key(rank));
	case AGG_DETAIL:
		return grove_be_send(be, 0, tag, "%s %ud", agg_class_key(rank),
		    rank);
	case AGG_REPORT:
		if (rank % 2 == 0)
			return grove_be_send(be, stream, tag, "%s %d", host,
			    (int32_t)getpid());
		return grove_be_send(be, stream, tag, "%s %d %lf", host,
		    (int32_t)getpid(), rank * 1.5);
	case AGG_ROUND:
		return do_round(be, rank, stream, p);
	default:
		return GROVE_EINVAL;
	}
}

int
main(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc < 0) {
		fprintf(stderr, "agg_be: cannot join the network: %s\n",
		    grove_strerror(rc));
		if (be)
			grove_be_destroy(be);
		return 1;
	}
	uint32_t rank = grove_be_rank(be);
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		rc = grove_be_recv(be, &stream, &tag, &p, -1);
		if (rc == GROVE_ECLOSED)
			break;
		if (rc < 0) {
			complain(rank, 0, "receive", rc);
			break;
		}
		rc = handle(be, rank, stream, tag, p);
		if (rc < 0)
			complain(rank, tag, "request failed", rc);
		grove_packet_unref(p);
	}
	grove_be_destroy(be);
	return 0;
}
