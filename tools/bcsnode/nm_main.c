/* grove-bcs-node: the node manager of one host of a BCS job.  grove run
 * --bcs starts it beside the ranks with the job segment's descriptor and
 * the connection file of its BCS machine (a Grove network whose
 * front-end, grove run, is the strobe sender); it joins as node NODE and
 * runs the microphases of every slice the strobe starts, until the
 * strobe stops.
 *
 *   grove-bcs-node --job-fd FD --slice-ns NS --connect FILE [--node N]
 *                  [--record FILE] [--replay FILE] [--budget BYTES]
 *                  [--stall-ms MS] [--emds FROM:TO --emds-out PREFIX]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcs/emds.h"
#include "bcs/strobe.h"
#include "grove/backend.h"
#include "grove/bcs.h"
#include "nm.h"

/* What a slice's microphase callback needs. */
struct nm_run {
	struct nm *nm;
	bool failed;     /* nm_phase failed and said why */
	char err[4096];
};

static int
usage(const char *why)
{
	fprintf(stderr, "grove-bcs-node: %s\nusage: grove-bcs-node --job-fd FD "
	        "--slice-ns NS --connect FILE [--node N] [--record FILE] "
	        "[--replay FILE] [--budget BYTES] [--stall-ms MS] "
	        "[--emds FROM:TO --emds-out PREFIX]\n"
	        "(started by grove run --bcs, not by hand)\n", why);
	return 2;
}

static bool
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return false;
	*out = v;
	return true;
}

static bool
parse_window(const char *s, uint64_t *from, uint64_t *to)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s", s);
	char *colon = strchr(buf, ':');
	if (!colon)
		return false;
	*colon = '\0';
	return parse_u64(buf, from) && parse_u64(colon + 1, to) && *from <= *to;
}

static int
phase(void *arg, uint64_t slice, int microphase, bool *more,
      bcs_strobe_counts *c)
{
	struct nm_run *run = arg;
	struct nm_counts nc = {
		.np2pdem = c->np2pdem, .ncolldem = c->ncolldem,
		.np2pmsm = c->np2pmsm, .ncollmsm = c->ncollmsm, .bpts = c->bpts,
	};
	bool m = false;
	int rc = nm_phase(run->nm, slice, (enum nm_phase)microphase, &m, &nc,
	                  run->err, sizeof run->err);
	c->np2pdem = nc.np2pdem;
	c->ncolldem = nc.ncolldem;
	c->np2pmsm = nc.np2pmsm;
	c->ncollmsm = nc.ncollmsm;
	c->bpts = nc.bpts;
	if (microphase == NM_DEM || microphase == NM_MSM)
		*more = m;
	if (rc != 0) {
		fprintf(stderr, "grove-bcs-node: slice %" PRIu64 ": %s\n", slice,
		        run->err);
		run->failed = true;
		return GROVE_EINVAL;
	}
	return 0;
}

static int
write_emds(const bcs_emds *e, const char *prefix)
{
	char path[4096];
	int rc = 0;
	for (int json = 0; json < 2; json++) {
		snprintf(path, sizeof path, "%s.local.%s", prefix,
		         json ? "json" : "csv");
		FILE *f = fopen(path, "w");
		if (!f || (json ? bcs_emds_write_json(e, f)
		                : bcs_emds_write_csv(e, f)) != 0) {
			fprintf(stderr, "grove-bcs-node: cannot write %s: %s\n", path,
			        strerror(errno));
			rc = -1;
		}
		if (f && fclose(f) != 0)
			rc = -1;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	struct nm_opts o = { 0 };
	uint64_t fd = UINT64_MAX, stall_ms = 5000, node = 0;
	uint64_t emds_from = 0, emds_to = 0;
	const char *connect = NULL, *emds_out = NULL;
	bool emds = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;
		if (!v)
			return usage("an option without its value");
		if (!strcmp(a, "--job-fd") && parse_u64(v, &n))
			fd = n;
		else if (!strcmp(a, "--slice-ns") && parse_u64(v, &n) && n)
			o.slice_ns = n;
		else if (!strcmp(a, "--budget") && parse_u64(v, &n))
			o.budget_bytes = n;
		else if (!strcmp(a, "--stall-ms") && parse_u64(v, &n))
			stall_ms = n;
		else if (!strcmp(a, "--node") && parse_u64(v, &n) && n < UINT32_MAX)
			node = n;
		else if (!strcmp(a, "--connect"))
			connect = v;
		else if (!strcmp(a, "--record"))
			o.record = v;
		else if (!strcmp(a, "--replay"))
			o.replay = v;
		else if (!strcmp(a, "--emds") && parse_window(v, &emds_from, &emds_to))
			emds = true;
		else if (!strcmp(a, "--emds-out"))
			emds_out = v;
		else {
			char why[160];
			snprintf(why, sizeof why, "bad option or value: %s %s", a, v);
			return usage(why);
		}
		i++;
	}
	if (fd > 65535 || !o.slice_ns || !connect)
		return usage("--job-fd, --slice-ns and --connect are required");
	if (emds && !emds_out)
		return usage("--emds needs --emds-out");
	o.stall_slices = stall_ms * 1000000ull / o.slice_ns;
	if (o.stall_slices < 100)
		o.stall_slices = 100;
	/* A slice moves at most what the copy engine moves in about half a
	 * slice (measured: 2 bytes/ns or more through the bounce buffer),
	 * so that a large message does not stretch its slice. */
	if (!o.budget_bytes)
		o.budget_bytes = o.slice_ns;

	struct nm_run run = { 0 };
	bcs_emds local;
	memset(&local, 0, sizeof local);
	if (emds && bcs_emds_init(&local, 1, (uint32_t)node, emds_from, emds_to,
	                          run.err, sizeof run.err) != 0) {
		fprintf(stderr, "grove-bcs-node: --emds: %s\n", run.err);
		return 2;
	}
	if (nm_open(&run.nm, (int)fd, &o, run.err, sizeof run.err) != 0) {
		fprintf(stderr, "grove-bcs-node: %s\n", run.err);
		bcs_emds_fini(&local);
		return 1;
	}
	/* The node manager does the NIC's work of bcs-mpi.txt: a slice's
	 * microphases should not wait for a core behind the ranks.  Real-
	 * time priority 1 when allowed (see grove run's strobe thread). */
	const char *rt = getenv("GROVE_BCS_RT");
	if (!rt || strcmp(rt, "0") != 0) {
		struct sched_param sp = {.sched_priority = 1};
		(void)sched_setscheduler(0, SCHED_FIFO, &sp);
	}
	int status = 1;
	grove_be *be = NULL;
	grove_bcs *bcs = NULL;
	int rc = grove_be_attach(connect, (uint32_t)node, &be);
	if (rc != 0) {
		fprintf(stderr, "grove-bcs-node: joining the strobe's network (%s): "
		        "%s\n", connect, be ? grove_be_last_error(be)
		                           : grove_strerror(rc));
		goto out;
	}
	grove_bcs_opts bo;
	grove_bcs_opts_init(&bo);
	if ((rc = grove_bcs_node_open(be, &bo, &bcs)) != 0) {
		fprintf(stderr, "grove-bcs-node: opening the BCS machine: %s\n",
		        bcs ? grove_bcs_last_error(bcs) : grove_strerror(rc));
		goto out;
	}
	rc = bcs_strobe_receiver_run(bcs, phase, &run, emds ? &local : NULL);
	if (rc == 0)
		status = 0;
	else if (!run.failed) /* else phase() said why already */
		fprintf(stderr, "grove-bcs-node: the strobe: %s\n",
		        grove_bcs_last_error(bcs));
	if (emds && write_emds(&local, emds_out) != 0)
		status = 1;
out:
	grove_bcs_close(bcs);
	grove_be_destroy(be);
	nm_close(run.nm);
	bcs_emds_fini(&local);
	return status;
}
