/* libFuzzer target: the P-LogP parameter file parser must reject any bad
 * input with an error, never crash; what it accepts writes out and parses
 * back to the same values, and the model can be evaluated on it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/logp.h"

static void
check_round_trip(const grove_logp_params *p)
{
	grove_logp_params *q = NULL;
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	if (grove_logp_params_write(p, f) != 0)
		abort();
	fclose(f);
	if (grove_logp_params_parse_string(buf, &q, err, sizeof err) != 0)
		abort();
	for (unsigned c = 0; c < GROVE_LOGP_NCLASSES; c++) {
		const grove_logp_sample *a, *b;
		double La, Lb;
		size_t na = grove_logp_params_samples(p, c, &a, &La);
		size_t nb = grove_logp_params_samples(q, c, &b, &Lb);

		if (na != nb || La != Lb)
			abort();
		for (size_t i = 0; i < na; i++)
			if (a[i].size != b[i].size || a[i].os != b[i].os ||
			    a[i].or_ != b[i].or_ || a[i].g != b[i].g ||
			    a[i].w != b[i].w)
				abort();
	}
	for (unsigned c = 0; c < GROVE_LOGP_NCLASSES; c++) {
		uint32_t Ka[GROVE_LOGP_MAX_CROWDS], Kb[GROVE_LOGP_MAX_CROWDS];
		size_t n = grove_logp_params_crowds(p, c, Ka);

		if (n != grove_logp_params_crowds(q, c, Kb))
			abort();
		for (size_t k = 0; k < n; k++) {
			const grove_logp_sample *a, *b;
			size_t na = grove_logp_params_crowd_samples(p, c,
			    Ka[k], &a);

			if (Ka[k] != Kb[k] || na !=
			    grove_logp_params_crowd_samples(q, c, Kb[k], &b))
				abort();
			for (size_t i = 0; i < na; i++)
				if (a[i].size != b[i].size || a[i].w != b[i].w)
					abort();
		}
	}
	if (grove_logp_params_cores(p) != grove_logp_params_cores(q))
		abort();
	grove_logp_params_destroy(q);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	grove_logp_params *p = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (grove_logp_params_parse_string(text, &p, err, sizeof err) == 0) {
		/* With the file's cores, so the host CPU bound is evaluated
		 * on whatever w it has. */
		grove_logp_system sys = {3, 4, GROVE_LOGP_LAN, GROVE_LOGP_WAN,
		    grove_logp_params_cores(p), 1};
		double w;

		/* crowds, where a file has them, are in the host class */
		if (grove_logp_params_has(p, GROVE_LOGP_HOST)) {
			sys.local = GROVE_LOGP_HOST;
			if (grove_logp_params_work_at(p, GROVE_LOGP_HOST,
			    size, (double)size / 7, &w) != 0 || !(w >= 0))
				abort();
		}
		grove_logp_plan plan;

		check_round_trip(p);
		/* Whatever the values, the optimizer terminates and the
		 * error paths for missing classes hold. */
		for (unsigned s = 0; s < 4; s++)
			for (unsigned how = 0; how < 3; how++)
				(void)grove_logp_bcast_plan(p, &sys,
				    (grove_logp_scheme)s, 1000 + size, 1,
				    (grove_logp_search)how, &plan, err,
				    sizeof err);
		grove_logp_params_destroy(p);
	}
	free(text);
	return 0;
}
