/* Whether a topology's root can be the front-end of a network started
 * here.
 *
 * The front-end is the process that calls grove_net_create: Grove cannot
 * start it elsewhere, so a topology file whose root names another host
 * would be silently wrong (children told to connect to that host, or the
 * name ignored).  The network refuses such a file instead; grove topo,
 * which only reads and prints a file, does not ask.
 */
#ifndef GROVE_TOPO_FE_HOST_H
#define GROVE_TOPO_FE_HOST_H

#include <stddef.h>

#include "grove/topology.h"

/* 0 when is_local(root's host) says the host is this machine; else
 * GROVE_ETOPO and "line N: the root 'h:0' is the front-end ..." in err
 * (the line is the root's first line in the file it was parsed from, and
 * left out for a generated topology).  is_local is passed in to keep
 * this module free of the network layer (the FE passes
 * spawn_host_is_local). */
int topo_check_fe_host(const grove_topo *t, int (*is_local)(const char *host),
    char *err, size_t errlen);

#endif
