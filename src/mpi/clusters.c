/* The job's cluster map (cluster_map.h says how it is made).
 *
 * Process-wide on purpose: the map is a fact of the job, the same for
 * every communicator, made once in MPI_Init and read by the collectives
 * and the WAN emulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/card.h"
#include "mpi/cluster_map.h"
#include "mpi/clusters.h"
#include "mpi/coll_hier.h"

static struct {
	int size;
	char **hosts;     /* per world rank, from the cards; NULL: none */
	int *cluster_of;  /* per world rank; NULL: one cluster */
	int nclusters;
	enum mpi_bcast_algo bcast;
} C;

static void
free_hosts(void)
{
	if (C.hosts) {
		for (int r = 0; r < C.size; r++)
			free(C.hosts[r]);
		free(C.hosts);
		C.hosts = NULL;
	}
}

void
mpi_clusters_note_cards(const char *const *cards, const uint32_t *ranks,
                        uint64_t n, int size)
{
	free_hosts();
	C.size = size;
	C.hosts = calloc((size_t)size, sizeof *C.hosts);
	if (!C.hosts)
		return; /* then the default is one cluster */
	for (uint64_t i = 0; i < n; i++) {
		struct mpi_card c;
		if (ranks[i] < (uint32_t)size && !C.hosts[ranks[i]] &&
		    mpi_card_parse(cards[i], &c) == 0)
			C.hosts[ranks[i]] = strdup(c.host);
	}
	for (int r = 0; r < size; r++)
		if (!C.hosts[r]) {
			free_hosts();
			return;
		}
}

int
mpi_clusters_init(int size, char *err, size_t errlen)
{
	char why[200];
	C.size = size;
	C.nclusters = 1;
	const char *spec = getenv("GROVE_MPI_CLUSTERS");
	if ((spec && *spec) || C.hosts) {
		C.cluster_of = malloc((size_t)size * sizeof *C.cluster_of);
		if (!C.cluster_of) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (spec && *spec) {
		if (mpi_cluster_parse(spec, size, C.cluster_of, &C.nclusters, why,
		                      sizeof why)) {
			snprintf(err, errlen, "GROVE_MPI_CLUSTERS='%s': %s", spec,
			         why);
			return -1;
		}
	} else if (C.hosts) {
		mpi_cluster_from_hosts((const char *const *)C.hosts, size,
		                       C.cluster_of, &C.nclusters);
	}
	free_hosts();
	if (C.nclusters <= 1) {
		free(C.cluster_of);
		C.cluster_of = NULL;
		C.nclusters = 1;
	}
	const char *wan = getenv("GROVE_MPI_WAN");
	if (wan && *wan) {
		double lat, bw;
		if (mpi_wan_parse(wan, &lat, &bw, why, sizeof why)) {
			snprintf(err, errlen, "GROVE_MPI_WAN='%s': %s", wan, why);
			return -1;
		}
		if (mpi_wan_setup(lat, bw)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	const char *algo = getenv("GROVE_MPI_BCAST");
	if (mpi_bcast_algo_parse(algo, &C.bcast)) {
		snprintf(err, errlen, "GROVE_MPI_BCAST='%s': expected plogp, "
		         "binomial or magpie", algo);
		return -1;
	}
	/* Bad P-LogP parameters are an error of the start, not of the
	 * first broadcast. */
	if (C.nclusters > 1 && !mpi_plogp_params(why, sizeof why)) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	double lat, bw;
	if (mpi_proc.verbose && mpi_proc.rank == 0 && C.nclusters > 1) {
		const char *names[] = {"plogp", "binomial", "magpie"};
		fprintf(stderr, "grove-mpi: %d clusters (%s); broadcasts between "
		        "them: %s", C.nclusters,
		        spec && *spec ? "GROVE_MPI_CLUSTERS" : "by host",
		        names[C.bcast]);
		if (mpi_wan_on(&lat, &bw))
			fprintf(stderr, "; emulated WAN: %.0f us, %.0f B/s", lat,
			        bw);
		fputc('\n', stderr);
	}
	return 0;
}

enum mpi_bcast_algo
mpi_bcast_algo(void)
{
	return C.bcast;
}

void
mpi_clusters_fini(void)
{
	mpi_plogp_fini();
	mpi_wan_fini();
	free_hosts();
	free(C.cluster_of);
	C.cluster_of = NULL;
	C.nclusters = 1;
}

int
mpi_cluster_of_world(int w)
{
	return C.cluster_of && w >= 0 && w < C.size ? C.cluster_of[w] : 0;
}

int
mpi_clusters_in_job(void)
{
	return C.nclusters;
}

bool
mpi_hier_spans(MPI_Comm comm)
{
	if (!C.cluster_of || comm->size < 2)
		return false;
	int first = C.cluster_of[mpi_comm_world_rank(comm, 0)];
	for (int r = 1; r < comm->size; r++)
		if (C.cluster_of[mpi_comm_world_rank(comm, r)] != first)
			return true;
	return false;
}
