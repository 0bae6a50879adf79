/* Telling a peer of another protocol version (internal).
 *
 * The version itself is GROVE_PROTOCOL (src/codec/wire.h).  A process
 * that meets a peer speaking another one stops there and says so with both
 * numbers, because whatever the peer sends next may mean something else
 * to it: an unknown bootstrap key, a format that does not unpack, a proof
 * that fails would each name the wrong cause.
 */
#ifndef GROVE_PROTOVER_H
#define GROVE_PROTOVER_H

#include <stddef.h>
#include <stdint.h>

/* The version a handshake frame's aux field stands for (aux 0: a Grove
 * from before the number, protocol 1). */
uint32_t protover_of_aux(uint32_t aux);

/* Writes "<them> speaks Grove protocol <theirs>, this <program> speaks
 * <GROVE_PROTOCOL>: install the same Grove version on every host", where
 * program is this process's executable (so that the host's stale install
 * is named), or "program" when it cannot be found. */
void protover_mismatch(char *err, size_t errlen, const char *them,
    uint32_t theirs);

#endif
