/* Fuzz hostlist_expand (tools/run/hostlist.h), which reads
 * SLURM_JOB_NODELIST: the input is the list.  Nothing may crash, leak or
 * read out of bounds; an accepted list gives 1..HOSTLIST_MAX non-empty
 * host names without blanks, commas or brackets, a refused one an error
 * message and no hosts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	char **hosts = NULL;
	size_t n = 0;
	char err[256] = "";
	int rc = hostlist_expand(spec, &hosts, &n, err, sizeof err);
	if (rc == 0) {
		if (n < 1 || n > HOSTLIST_MAX || !hosts)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!hosts[i][0] || strpbrk(hosts[i], " ,[]"))
				abort();
	} else if (rc != -1 || hosts || n || !err[0]) {
		abort();
	}
	hostlist_free(hosts, n);
	free(spec);
	return 0;
}
