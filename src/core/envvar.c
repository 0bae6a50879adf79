/* See envvar.h. */
#include "core/envvar.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int
env_word(const char *name, const char *const *words, int n, int dflt)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return dflt;
	for (int i = 0; i < n; i++)
		if (strcasecmp(s, words[i]) == 0)
			return i;
	char list[256];
	size_t o = 0;
	for (int i = 0; i < n && o < sizeof list; i++)
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s",
		    i ? ", " : "", words[i]);
	fprintf(stderr, "grove: %s='%s' is none of: %s; ignored\n", name, s,
	    list);
	return dflt;
}
