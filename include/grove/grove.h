/* Grove: everything a tool needs, in one include. */
#ifndef GROVE_H
#define GROVE_H

#include "grove/error.h"
#include "grove/packet.h"
#include "grove/pack.h"
#include "grove/topology.h"
#include "grove/cluster.h"
#include "grove/filter.h"
#include "grove/aggregate.h"
#include "grove/network.h"
#include "grove/backend.h"
#include "grove/trace.h"
#include "grove/aggregate.h"
#include "grove/logp.h"

#endif
