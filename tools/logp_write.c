/* The P-LogP parameter file writer (see logp_write.h). */
#include "logp_write.h"

#include <errno.h>
#include <string.h>

#include "grove/error.h"

int
logp_write(FILE *f, const logp_table *t, size_t n)
{
	fprintf(f, "# grove logp parameters v1\n");
	for (size_t c = 0; c < n; c++) {
		fprintf(f, "class %s\nL %.9g\n# size_bytes os_s or_s g_s\n",
		    t[c].cls, t[c].L);
		for (size_t i = 0; i < t[c].n; i++) {
			const logp_row *r = &t[c].rows[i];
			fprintf(f, "%zu %.9g %.9g %.9g\n", r->size, r->os, r->or_,
			    r->g);
		}
	}
	return ferror(f) ? GROVE_ESYS : 0;
}

int
logp_write_file(const char *path, const logp_table *t, size_t n, char *err,
    size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return GROVE_ESYS;
	}
	int rc = logp_write(f, t, n);
	if (fclose(f) != 0 || rc != 0) {
		snprintf(err, errlen, "%s: write failed", path);
		return GROVE_ESYS;
	}
	return 0;
}
