/* Measured P-LogP tables written as the model's parameter file
 * (grove_logp_params_write: docs/logp.md; microseconds). */
#ifndef GROVE_TOOLS_LOGP_WRITE_H
#define GROVE_TOOLS_LOGP_WRITE_H

#include <stdio.h>

#include "logp_measure.h"

/* Writes the tables (times in seconds) as a parameter file that
 * grove_logp_params_load reads back.  0 or a negative grove_err (err says
 * why for the file variant). */
int logp_write(FILE *f, const logp_table *t, size_t n);
int logp_write_file(const char *path, const logp_table *t, size_t n,
    char *err, size_t errlen);

/* Whether path can be written, checked before a measurement that takes
 * a minute: an existing file is opened for writing (not truncated), a new
 * one is created and removed again.  0, or -1 with err saying why. */
int logp_check_output(const char *path, char *err, size_t errlen);

#endif
