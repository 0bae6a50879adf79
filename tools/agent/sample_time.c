#include "sample_time.h"

uint64_t
agent_sample_end(uint64_t now, uint64_t interval_ns)
{
	return interval_ns ? now / interval_ns * interval_ns : now;
}

double
agent_sample_scale(uint64_t start, uint64_t end, uint64_t read_start,
    uint64_t read_end)
{
	if (end <= start || read_end <= read_start)
		return 0;
	double stamped = (double)(end - start);
	double read = (double)(read_end - read_start);
	if (2 * read < stamped)
		return 0;
	return stamped / read;
}

int
agent_sample_amounts(const metric_snapshot *prev, uint64_t prev_end,
    const metric_snapshot *cur, uint64_t end, double *out)
{
	double scale = agent_sample_scale(prev_end, end, prev->t_ns,
	    cur->t_ns);
	if (scale <= 0)
		return 0;
	metrics_amounts(prev, cur, out);
	for (int i = 0; i < METRIC_COUNT; i++)
		out[i] *= scale;
	return 1;
}
