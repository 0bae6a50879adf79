/* MPI_Bcast between emulated clusters: the MagPIe experiment (the P-LogP
 * paper's Figure 4) with Grove MPI.
 *
 *   bcast_wan [--sizes 1K,4K,...] [--reps N] [--label NAME]
 *
 * Run by scripts/bench-magpie.sh under `grove run` with GROVE_MPI_CLUSTERS
 * (the clusters), GROVE_MPI_WAN (the links between them) and
 * GROVE_MPI_BCAST (the algorithm).  For each size and repetition, rank 0
 * broadcasts a start time on the common monotonic clock (the ranks share
 * one host), every rank waits until then, rank 0 broadcasts `size` bytes,
 * and every rank notes when it has them; the time of the broadcast is
 * the last rank's arrival minus the start.  Every rank checks the data.
 * Rank 0 prints one JSON line per size: the median and minimum over the
 * repetitions, and the P-LogP model's prediction for the algorithm that
 * ran (plogp: the plan; magpie: the model's "original" scheme; binomial:
 * none), made by the library's own planner with the same parameters. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/clusters.h"
#include "mpi/coll_hier.h"

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
sleep_until(double t)
{
	double now = mono_s();
	if (t > now) {
		struct timespec ts = {(time_t)(t - now),
		                      (long)((t - now - (double)(time_t)(t - now)) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static size_t
parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*end == 'K' || *end == 'k')
		v *= 1024;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024;
	return (size_t)v;
}

int
main(int argc, char **argv)
{
	const char *sizes_arg = "1K,4K,16K,64K,256K,1M,4M";
	const char *label = NULL;
	int reps = 3, rank, n, failed = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes_arg = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--label") && i + 1 < argc)
			label = argv[++i];
		else {
			if (rank == 0)
				fprintf(stderr, "usage: bcast_wan [--sizes 1K,4K,...] "
				        "[--reps N] [--label NAME]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (reps < 1)
		reps = 1;
	const char *algo = getenv("GROVE_MPI_BCAST");
	if (!algo || !*algo)
		algo = "plogp";
	int clusters = mpi_clusters_in_job();
	int per = (n + clusters - 1) / clusters;
	double lat_us = 0, bw = 0;
	bool wan = mpi_wan_on(&lat_us, &bw);

	char *list = strdup(sizes_arg);
	double *t = calloc((size_t)reps, sizeof *t);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		size_t bytes = parse_size(tok);
		unsigned char *buf = malloc(bytes ? bytes : 1);
		int bad = 0;
		for (int r = 0; r < reps; r++) {
			for (size_t i = 0; i < bytes; i++)
				buf[i] = rank == 0 ? (unsigned char)(i * 7 + r) : 0;
			/* A common start, late enough for every rank to be
			 * waiting in MPI_Bcast when it comes. */
			double start = rank == 0 ? mono_s() + 0.25 : 0;
			MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			sleep_until(start);
			if (rank == 0)
				start = mono_s();
			MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
			double done = mono_s(), last = 0;
			for (size_t i = 0; i < bytes; i++)
				if (buf[i] != (unsigned char)(i * 7 + r))
					bad = 1;
			MPI_Reduce(&done, &last, 1, MPI_DOUBLE, MPI_MAX, 0,
			           MPI_COMM_WORLD);
			t[r] = (last - start) * 1e6;
		}
		int any_bad = 0;
		MPI_Reduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
		if (rank == 0) {
			double min = t[0];
			for (int r = 1; r < reps; r++)
				if (t[r] < min)
					min = t[r];
			qsort(t, (size_t)reps, sizeof *t, cmp_double);
			double med = reps % 2 ? t[reps / 2]
			                      : (t[reps / 2 - 1] + t[reps / 2]) / 2;
			grove_logp_plan plan;
			char err[160];
			int have = 0;
			if (strcmp(algo, "binomial"))
				have = !mpi_plogp_plan(bytes, (uint32_t)clusters,
				                       (uint32_t)per,
				                       strcmp(algo, "magpie")
				                           ? GROVE_LOGP_OPTIMIZED
				                           : GROVE_LOGP_ORIGINAL,
				                       &plan, err, sizeof err);
			printf("{\"bench\":\"bcast_wan\",\"algo\":\"%s\"%s%s%s,"
			       "\"ranks\":%d,\"clusters\":%d,\"wan_latency_us\":%.0f,"
			       "\"wan_bytes_per_s\":%.0f,\"bytes\":%zu,\"reps\":%d,"
			       "\"median_us\":%.1f,\"min_us\":%.1f,\"ok\":%s",
			       algo, label ? ",\"label\":\"" : "", label ? label : "",
			       label ? "\"" : "", n, clusters, wan ? lat_us : 0,
			       wan ? bw : 0, bytes, reps, med, min,
			       any_bad ? "false" : "true");
			if (have)
				printf(",\"predicted_us\":%.1f,\"segments\":%llu,"
				       "\"segment_bytes\":%llu,\"wan_degree\":%u,"
				       "\"lan_degree\":%u", plan.T,
				       (unsigned long long)plan.k,
				       (unsigned long long)plan.m, plan.wan.d,
				       plan.lan.d);
			printf("}\n");
			fflush(stdout);
			if (any_bad)
				failed = 1;
			if (any_bad)
				fprintf(stderr, "bcast_wan: wrong data at %zu bytes\n",
				        bytes);
		}
		free(buf);
	}
	free(t);
	free(list);
	MPI_Finalize();
	return failed;
}
