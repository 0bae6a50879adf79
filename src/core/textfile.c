#include "core/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errfmt.h"
#include "grove/error.h"

int
core_read_file(const char *path, size_t max, char **text, size_t *len,
    char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		errfmt(err, errlen, "cannot open: %s", strerror(e));
		return e == ENOENT ? GROVE_ENOENT : GROVE_ESYS;
	}
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (cap - n < 4096) {
			size_t nc = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, nc);
			if (!nb) {
				errfmt(err, errlen, "out of memory");
				rc = GROVE_ENOMEM;
				break;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (max && n > max) {
			errfmt(err, errlen, "larger than %zu bytes", max);
			rc = GROVE_ERANGE;
			break;
		}
		if (got == 0)
			break;
	}
	if (rc == 0 && ferror(f)) {
		errfmt(err, errlen, "read error: %s", strerror(errno));
		rc = GROVE_ESYS;
	}
	fclose(f);
	if (rc != 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}
