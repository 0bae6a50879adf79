/* Starting a network of grove-agent back-ends (grove top, grove bench
 * offered-load, grove bench startup). */
#ifndef GROVE_TOOLS_AGENT_NET_H
#define GROVE_TOOLS_AGENT_NET_H

#include <stddef.h>

#include "grove/network.h"

/* Spawns `backends` grove-agents ($GROVE_AGENT, else beside this
 * executable) under a tree of the given topology spec, on the hosts of
 * hosts_file (NULL: all local); or under the tree of the MRNet topology
 * file topology_file when it is not NULL.  On failure writes why into err
 * and returns a grove_err; *out is NULL then. */
int agent_net_start(const char *topology, const char *topology_file,
    unsigned backends, const char *hosts_file, grove_net **out, char *err,
    size_t errlen);

/* Creates a stream over all back-ends with these filters; on failure
 * writes why into err. */
int agent_net_stream(grove_net *net, const char *up, const char *sync,
    grove_stream **out, char *err, size_t errlen);

#endif
