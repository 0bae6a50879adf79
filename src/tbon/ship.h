/* Event spaces travelling to the front-end at shutdown (internal). */
#ifndef GROVE_SHIP_H
#define GROVE_SHIP_H

#include <stdint.h>

#include "grove/packet.h"

/* 1 if this SHUTDOWN asks this process to ship its event space. */
int ship_wanted(grove_packet *shutdown);
/* Finish this process's event space and pack it as TRACE_DATA. */
int ship_event_space(uint32_t src, grove_packet **out);
/* FE: recreate a shipped event space of network netid on this host. */
int ship_receive(const char *netid, grove_packet *p);

#endif
