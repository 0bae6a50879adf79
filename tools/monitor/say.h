/* The error message of grove monitor's scope code: formats into the
 * caller's err buffer and returns 1, so that a failure is said and
 * returned in one statement (return say(err, errlen, ...)).  Header
 * only: the unit tests compile tree_scope.c without the tool's other
 * sources. */
#ifndef GROVE_TOOLS_MONITOR_SAY_H
#define GROVE_TOOLS_MONITOR_SAY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int
say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 1;
}

#endif
