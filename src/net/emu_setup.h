/* Link emulation for the links a process opens itself (internal). */
#ifndef GROVE_EMU_SETUP_H
#define GROVE_EMU_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "net/conn.h"

/* Emulate the link from node `from` (this process) to node `to` on c as
 * the cluster map says: the map's text (from the bootstrap), or when text
 * is NULL and use_env is set, the file $GROVE_CLUSTER_MAP names (for
 * back-ends that attach on their own).  No map: nothing to do.  A bad map
 * is an error (err says why and where). */
int emu_setup_conn(conn *c, const char *text, int use_env, uint32_t from,
    uint32_t to, char *err, size_t errlen);

#endif
