/* Fuzz Grove MPI's GROVE_MPI_CLUSTERS and GROVE_MPI_WAN parsers
 * (src/mpi/cluster_map.c): the first byte picks the job size (1-64), the
 * rest is the text.  Any input must give a map or an error with a
 * message, never a crash; a map must put every rank in one of its
 * clusters and use every cluster; a WAN must have positive figures.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/cluster_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int n = data[0] % 64 + 1;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	int cl[64], nc = -1, used[64] = {0};
	char why[200] = "";
	if (mpi_cluster_parse(text, n, cl, &nc, why, sizeof why) == 0) {
		if (nc < 1 || nc > n)
			abort();
		for (int r = 0; r < n; r++) {
			if (cl[r] < 0 || cl[r] >= nc)
				abort();
			used[cl[r]] = 1;
		}
		for (int c = 0; c < nc; c++)
			if (!used[c])
				abort();
	} else if (!why[0]) {
		abort();
	}
	double lat = 0, bw = 0;
	why[0] = 0;
	if (mpi_wan_parse(text, &lat, &bw, why, sizeof why) == 0) {
		if (!(lat > 0) || !(bw > 0))
			abort();
	} else if (!why[0]) {
		abort();
	}
	free(text);
	return 0;
}
