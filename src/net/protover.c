#include "net/protover.h"

#include <stdio.h>
#include <unistd.h>

#include "codec/wire.h"

uint32_t
protover_of_aux(uint32_t aux)
{
	return aux == GROVE_PROTOCOL_UNSET ? GROVE_PROTOCOL_FIRST : aux;
}

void
protover_mismatch(char *err, size_t errlen, const char *them,
    uint32_t theirs)
{
	char self[1024];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		snprintf(self, sizeof self, "program");
	else
		self[n] = 0;
	snprintf(err, errlen, "%s speaks Grove protocol %u, this %s speaks %u: "
	    "install the same Grove version on every host", them, theirs, self,
	    GROVE_PROTOCOL);
}
