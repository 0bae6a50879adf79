/* Error messages into a caller's buffer: the pure modules (topology,
 * model) say why something failed in text the caller passes in. */
#ifndef GROVE_CORE_ERRFMT_H
#define GROVE_CORE_ERRFMT_H

#include <stddef.h>

/* printf into err; nothing when err is NULL or errlen 0 (the caller did
 * not ask why). */
void errfmt(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
