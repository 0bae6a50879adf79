/* The P-LogP parameter file writer (one small file on purpose: the model
 * module's own save function replaces it once both meet). */
#ifndef GROVE_TOOLS_LOGP_WRITE_H
#define GROVE_TOOLS_LOGP_WRITE_H

#include <stdio.h>

#include "logp_measure.h"

/* Writes
 *     # grove logp parameters v1
 *     class NAME
 *     L <seconds>
 *     # size_bytes os_s or_s g_s
 *     <size> <os> <or> <g>
 * for each table.  0 or a negative grove_err. */
int logp_write(FILE *f, const logp_table *t, size_t n);
int logp_write_file(const char *path, const logp_table *t, size_t n,
    char *err, size_t errlen);

#endif
