/* `grove logp measure` results as a P-LogP parameter file, through the
 * model's own API, so `grove model` and the optimizer read exactly what
 * was measured. */
#include "logp_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grove/error.h"
#include "grove/logp.h"

/* Seconds in the tables, microseconds in the model's files. */
#define US_PER_S 1e6

static int
tables_to_params(const logp_table *t, size_t n, grove_logp_params **out,
    char *err, size_t errlen)
{
	grove_logp_params *p;
	int rc = grove_logp_params_create(&p);
	if (rc < 0) {
		snprintf(err, errlen, "%s", grove_strerror(rc));
		return rc;
	}
	for (size_t c = 0; c < n && rc == 0; c++) {
		grove_logp_class cls;
		if (grove_logp_class_parse(t[c].cls, &cls) < 0) {
			snprintf(err, errlen, "unknown link class '%s'", t[c].cls);
			rc = GROVE_EINVAL;
			break;
		}
		grove_logp_sample *s = calloc(t[c].n ? t[c].n : 1, sizeof *s);
		if (!s) {
			rc = GROVE_ENOMEM;
			break;
		}
		for (size_t i = 0; i < t[c].n; i++) {
			s[i].size = t[c].rows[i].size;
			s[i].os = t[c].rows[i].os * US_PER_S;
			s[i].or_ = t[c].rows[i].or_ * US_PER_S;
			s[i].g = t[c].rows[i].g * US_PER_S;
			s[i].w = t[c].rows[i].w * US_PER_S;
		}
		char why[256];
		rc = grove_logp_params_set_class(p, cls, t[c].L * US_PER_S, s,
		    t[c].n, why, sizeof why);
		for (size_t k = 0; rc == 0 && k < t[c].n_crowds; k++) {
			size_t m = 0;
			for (size_t i = 0; i < t[c].n; i++) {
				double w = t[c].crowd_w[k * t[c].n + i];
				if (w < 0)
					continue;
				s[m].size = t[c].rows[i].size;
				s[m].w = w * US_PER_S;
				m++;
			}
			if (m)
				rc = grove_logp_params_set_crowd(p, cls,
				    t[c].crowd_K[k], s, m, why, sizeof why);
		}
		if (rc < 0)
			snprintf(err, errlen, "class %s: %s", t[c].cls, why);
		free(s);
	}
	/* A machine fact the model's host CPU bound needs. */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (rc == 0 && cores > 0 && cores <= (long)GROVE_LOGP_MAX_CORES)
		rc = grove_logp_params_set_cores(p, (uint32_t)cores);
	int sock = 0;
	for (size_t c = 0; c < n; c++)
		sock |= t[c].host_socket;
	if (rc == 0)
		rc = grove_logp_params_set_note(p, sock ?
		    "measured by grove logp measure (docs/logp-measure.md); "
		    "host links: Unix sockets" :
		    "measured by grove logp measure (docs/logp-measure.md); "
		    "host links: pipes");
	if (rc < 0) {
		grove_logp_params_destroy(p);
		return rc;
	}
	*out = p;
	return 0;
}

int
logp_write(FILE *f, const logp_table *t, size_t n)
{
	char err[512];
	grove_logp_params *p;
	int rc = tables_to_params(t, n, &p, err, sizeof err);
	if (rc < 0)
		return rc;
	rc = grove_logp_params_write(p, f);
	grove_logp_params_destroy(p);
	return rc;
}

int
logp_write_file(const char *path, const logp_table *t, size_t n, char *err,
    size_t errlen)
{
	grove_logp_params *p;
	int rc = tables_to_params(t, n, &p, err, errlen);
	if (rc < 0)
		return rc;
	rc = grove_logp_params_save(p, path, err, errlen);
	grove_logp_params_destroy(p);
	return rc;
}

int
logp_check_output(const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO without a reader fails instead of hanging. */
	int fd = open(path, O_WRONLY | O_NONBLOCK);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == ENOENT) {
		/* Exclusive, so that only a file made here is removed. */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd >= 0) {
			close(fd);
			unlink(path);
			return 0;
		}
	}
	snprintf(err, errlen, "cannot create: %s", strerror(errno));
	return -1;
}
