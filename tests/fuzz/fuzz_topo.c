/* libFuzzer target: the topology file parser, the host-list parser and the
 * spec generator must reject any input with an error, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grove/topology.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char err[512];
	grove_topo *t = NULL;
	if (grove_topo_parse_string(text, &t, err, sizeof err) == 0) {
		/* A parsed topology prints and parses back. */
		char *s = NULL;
		if (grove_topo_to_string(t, GROVE_TOPO_MRNET, &s) == 0) {
			grove_topo *u = NULL;
			if (grove_topo_parse_string(s, &u, err, sizeof err) != 0)
				abort();
			if (grove_topo_size(u) != grove_topo_size(t))
				abort();
			grove_topo_destroy(u);
			free(s);
		}
		grove_topo_destroy(t);
	}
	grove_hostlist *hl = NULL;
	if (grove_hostlist_parse_string(text, &hl, err, sizeof err) == 0) {
		if (grove_topo_generate("kary:3", 20, hl, &t, err, sizeof err) == 0)
			grove_topo_destroy(t);
		grove_hostlist_destroy(hl);
	}
	/* The first line as a spec, with a small back-end count. */
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	if (strlen(text) < 64 &&
	    grove_topo_generate(text, 1 + (size % 50), NULL, &t, err,
	    sizeof err) == 0)
		grove_topo_destroy(t);
	free(text);
	return 0;
}
