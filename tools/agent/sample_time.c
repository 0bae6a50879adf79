#include "sample_time.h"

uint64_t
agent_sample_end(uint64_t now, uint64_t interval_ns)
{
	return interval_ns ? now / interval_ns * interval_ns : now;
}
