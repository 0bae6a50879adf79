/* Fuzz Grove MPI's wire-up card parser (src/mpi/card.c): cards come
 * from other processes (through grove run's tree or a launcher's
 * key-value space).  Any input must parse or be refused, never crash;
 * a card that parses has a pid > 0 and a host, and writing it and
 * parsing it again gives the same fields.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/card.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct mpi_card c, back;
	if (mpi_card_parse(text, &c) == 0) {
		if (c.pid <= 0 || !c.host[0])
			abort();
		char out[MPI_CARD_MAX];
		mpi_card_format(&c, out, sizeof out);
		if (mpi_card_parse(out, &back) != 0 || back.pid != c.pid ||
		    back.flags != c.flags || strcmp(back.boot, c.boot) ||
		    strcmp(back.tcp, c.tcp) || strcmp(back.host, c.host))
			abort();
	}
	free(text);
	return 0;
}
