/* Reading a whole file into memory (internal): the loaders of topology
 * files, host lists, cluster maps, P-LogP parameter files and connection
 * files share it, and each checks the text its own way. */
#ifndef GROVE_CORE_TEXTFILE_H
#define GROVE_CORE_TEXTFILE_H

#include <stddef.h>

/* All of path in a malloc'd buffer with a NUL after its *len bytes (the
 * bytes themselves may hold NULs: a caller that wants a C string checks).
 * max > 0 refuses a larger file.  Only regular files are read: a FIFO,
 * device or directory is GROVE_EINVAL ("not a regular file") without
 * waiting for a writer.  Returns 0; GROVE_ENOENT (no such file) or
 * GROVE_ESYS (cannot open or read), GROVE_EINVAL, GROVE_ENOMEM, or
 * GROVE_ERANGE (larger than max); err says which ("cannot open: No such
 * file or directory").  *text is NULL on failure. */
int core_read_file(const char *path, size_t max, char **text, size_t *len,
    char *err, size_t errlen);

#endif
