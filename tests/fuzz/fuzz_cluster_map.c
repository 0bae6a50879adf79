/* libFuzzer target: the cluster map parser must reject any input with an
 * error, never crash; a map it accepts prints and parses back to the same
 * clusters and link parameters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grove/cluster.h"

static void
same_params(const grove_link_params *a, const grove_link_params *b)
{
	if (a->latency_s != b->latency_s || a->bandwidth_Bps != b->bandwidth_Bps)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char err[512];
	grove_cluster_map *m = NULL;
	if (grove_cluster_map_parse_string(text, &m, err, sizeof err) == 0) {
		char *s = NULL;
		grove_cluster_map *u = NULL;
		if (grove_cluster_map_to_string(m, &s) != 0)
			abort();
		if (grove_cluster_map_parse_string(s, &u, err, sizeof err) != 0)
			abort();
		int64_t max = grove_cluster_map_max_node(m);
		if (max != grove_cluster_map_max_node(u))
			abort();
		/* Probe around every range boundary the input can name. */
		for (int64_t node = 0; node <= max + 1 && node < 4096; node++) {
			grove_link_params a, b;
			if (grove_cluster_map_cluster_of(m, (uint32_t)node) !=
			    grove_cluster_map_cluster_of(u, (uint32_t)node))
				abort();
			if (grove_cluster_map_link(m, 0, (uint32_t)node, &a) !=
			    grove_cluster_map_link(u, 0, (uint32_t)node, &b))
				abort();
			same_params(&a, &b);
		}
		free(s);
		grove_cluster_map_destroy(u);
		grove_cluster_map_destroy(m);
	} else if (m != NULL) {
		abort();
	}
	free(text);
	return 0;
}
