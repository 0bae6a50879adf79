/* The front-end's host in a topology: see fe_host.h. */
#include <stdio.h>
#include <unistd.h>

#include "topo/fe_host.h"
#include "topo/topo_impl.h"

int
topo_check_fe_host(const grove_topo *t, int (*is_local)(const char *host),
    char *err, size_t errlen)
{
	const grove_topo_node *fe = grove_topo_node_at(t, 0);
	char here[256] = "", at[32] = "";

	if (!fe || !is_local)
		return GROVE_EINVAL;
	if (is_local(fe->host))
		return 0;
	if (gethostname(here, sizeof here - 1) != 0 || !here[0])
		snprintf(here, sizeof here, "unknown");
	if (t->root_line)
		snprintf(at, sizeof at, "line %u: ", t->root_line);
	errfmt(err, errlen, "%sthe root '%s:%u' is the front-end, which is the "
	    "process creating the network, on this host ('%s'); Grove cannot "
	    "start it on '%s': write this host's name or 'localhost' as the "
	    "root's host", at, fe->host, fe->instance, here, fe->host);
	return GROVE_ETOPO;
}
