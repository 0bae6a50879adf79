#include "core/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errfmt.h"
#include "grove/error.h"

int
core_read_file(const char *path, size_t max, char **text, size_t *len,
    char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a
	 * writer, maybe forever (a back-end stuck in grove_be_attach).  Only
	 * regular files are read: a FIFO, a device or a directory is never
	 * one of Grove's text files, and reading one could block or never
	 * end.  The flag does nothing to a regular file's reads. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		errfmt(err, errlen, "cannot open: %s", strerror(e));
		return e == ENOENT ? GROVE_ENOENT : GROVE_ESYS;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errfmt(err, errlen, "cannot stat: %s", strerror(e));
		return GROVE_ESYS;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errfmt(err, errlen, "not a regular file");
		return GROVE_EINVAL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		int e = errno;
		close(fd);
		errfmt(err, errlen, "cannot open: %s", strerror(e));
		return e == ENOMEM ? GROVE_ENOMEM : GROVE_ESYS;
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
