/* Names of the broadcast schemes and printing of plans. */
#include <stdio.h>
#include <string.h>

#include "model/model_impl.h"

static const char *const scheme_names[] = {
	[GROVE_LOGP_OPTIMIZED] = "optimized",
	[GROVE_LOGP_ORIGINAL] = "original",
	[GROVE_LOGP_WHOLE_NONBLOCKING] = "whole-nonblocking",
	[GROVE_LOGP_SEQUENTIAL] = "sequential",
};
#define N_SCHEMES (sizeof scheme_names / sizeof scheme_names[0])

const char *
grove_logp_scheme_name(grove_logp_scheme s)
{
	if ((unsigned)s >= N_SCHEMES)
		return NULL;
	return scheme_names[s];
}

int
grove_logp_scheme_parse(const char *name, grove_logp_scheme *out)
{
	if (!name || !out)
		return GROVE_EINVAL;
	for (unsigned i = 0; i < N_SCHEMES; i++) {
		if (!strcmp(name, scheme_names[i])) {
			*out = (grove_logp_scheme)i;
			return 0;
		}
	}
	return GROVE_EINVAL;
}

static void
layer_text(const char *name, const grove_logp_layer *ly, FILE *f)
{
	fprintf(f, "  %s: P %u", name, ly->P);
	if (ly->P <= 1) {
		fprintf(f, " (no tree)\n");
		return;
	}
	fprintf(f, ",%s d %u, h %u, k %llu, m %llu, gamma %.3f us, "
	    "lambda %.3f us\n", ly->binomial ? " binomial," : "",
	    ly->d, ly->h, (unsigned long long)ly->k,
	    (unsigned long long)ly->m, ly->gamma, ly->lambda);
}

static void
layer_json(const char *name, const grove_logp_layer *ly, FILE *f)
{
	fprintf(f, "\"%s\":{\"P\":%u,\"d\":%u,\"h\":%u,\"binomial\":%s,"
	    "\"k\":%llu,\"m\":%llu,\"gamma_us\":%.9g,\"lambda_us\":%.9g}",
	    name, ly->P, ly->d, ly->h, ly->binomial ? "true" : "false",
	    (unsigned long long)ly->k, (unsigned long long)ly->m, ly->gamma,
	    ly->lambda);
}

int
grove_logp_plan_print(const grove_logp_plan *plan, int json, FILE *f)
{
	const char *name;

	if (!plan || !f)
		return GROVE_EINVAL;
	name = grove_logp_scheme_name(plan->scheme);
	if (!name)
		return GROVE_EINVAL;
	if (json) {
		fprintf(f, "{\"scheme\":\"%s\",\"size\":%llu,\"T_us\":%.9g,"
		    "\"gamma_us\":%.9g,\"lambda_us\":%.9g,\"k\":%llu,"
		    "\"m\":%llu,", name, (unsigned long long)plan->size,
		    plan->T, plan->gamma, plan->lambda,
		    (unsigned long long)plan->k, (unsigned long long)plan->m);
		layer_json("wan", &plan->wan, f);
		fputc(',', f);
		layer_json("lan", &plan->lan, f);
		fprintf(f, ",\"evaluated\":%llu}\n",
		    (unsigned long long)plan->evaluated);
	} else {
		fprintf(f, "scheme %s, M = %llu bytes\n", name,
		    (unsigned long long)plan->size);
		fprintf(f, "  T = %.3f us (%.3f ms)\n", plan->T,
		    plan->T / 1000.0);
		fprintf(f, "  k = %llu segment%s of m = %llu bytes\n",
		    (unsigned long long)plan->k, plan->k == 1 ? "" : "s",
		    (unsigned long long)plan->m);
		fprintf(f, "  gamma = %.3f us, lambda = %.3f us%s\n",
		    plan->gamma, plan->lambda,
		    plan->scheme == GROVE_LOGP_SEQUENTIAL ?
		    " (first layer; T = T_wan + T_lan)" : "");
		layer_text("wan", &plan->wan, f);
		layer_text("lan", &plan->lan, f);
		fprintf(f, "  segment cuts evaluated: %llu\n",
		    (unsigned long long)plan->evaluated);
	}
	return ferror(f) ? GROVE_ESYS : 0;
}
