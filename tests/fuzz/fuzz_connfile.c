/* Fuzz the attach-mode connection file parser: the first four bytes pick
 * the rank to look for, the rest is the file.  Any input must give a
 * record or an error with a message; never a crash.  A record found must
 * hold a 64-digit secret and a host word.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "tbon/connfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	uint32_t rank = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
	    (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	/* Ranks past a few are rarely in a small input: fold them. */
	rank %= 8;
	connfile_record r;
	char err[256] = "";
	int rc = connfile_find((const char *)data + 4, size - 4, rank, &r, err,
	    sizeof err);
	if (rc == 0) {
		if (strlen(r.secret_hex) != 64 || !r.host[0] ||
		    strchr(r.host, ' '))
			abort();
	} else if ((rc != GROVE_ENOENT && rc != GROVE_EPROTO &&
	    rc != GROVE_ENOMEM) || !err[0]) {
		abort();
	}
	return 0;
}
