/* grove-bcs-node: the node manager of one host of a BCS job.  grove run
 * --bcs starts it beside the ranks with the job segment's descriptor; it
 * runs the microphases of every time slice on the ranks' descriptors
 * until every rank has finalized.
 *
 *   grove-bcs-node --job-fd FD --slice-ns NS [--record FILE]
 *                  [--replay FILE] [--budget BYTES] [--stall-ms MS]
 *
 * The slices are paced by the node manager's own clock (absolute
 * deadlines, so a late slice does not shift the later ones). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nm.h"

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / 1000000000ull),
		.tv_nsec = (long)(t % 1000000000ull),
	};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int
usage(const char *why)
{
	fprintf(stderr, "grove-bcs-node: %s\nusage: grove-bcs-node --job-fd FD "
	        "--slice-ns NS [--record FILE] [--replay FILE] [--budget BYTES] "
	        "[--stall-ms MS]\n(started by grove run --bcs, not by hand)\n",
	        why);
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

int
main(int argc, char **argv)
{
	struct nm_opts o = { 0 };
	uint64_t fd = UINT64_MAX, stall_ms = 5000;
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
		else if (!strcmp(a, "--record"))
			o.record = v;
		else if (!strcmp(a, "--replay"))
			o.replay = v;
		else {
			char why[160];
			snprintf(why, sizeof why, "bad option or value: %s %s", a, v);
			return usage(why);
		}
		i++;
	}
	if (fd > 65535 || !o.slice_ns)
		return usage("--job-fd and --slice-ns are required");
	o.stall_slices = stall_ms * 1000000ull / o.slice_ns;
	if (o.stall_slices < 100)
		o.stall_slices = 100;

	char err[4096];
	struct nm *nm;
	if (nm_open(&nm, (int)fd, &o, err, sizeof err) != 0) {
		fprintf(stderr, "grove-bcs-node: %s\n", err);
		return 1;
	}
	int rc = 0;
	uint64_t next = now_ns() + o.slice_ns;
	for (uint64_t slice = 1; !nm_done(nm); slice++) {
		sleep_until(next);
		/* Absolute deadlines; after an overrun the next slice starts
		 * at once and the schedule is taken up from there. */
		next += o.slice_ns;
		uint64_t t = now_ns();
		if (next < t)
			next = t + o.slice_ns;
		struct nm_counts c = { 0 };
		bool more = false;
		if (nm_phase(nm, slice, NM_DEM, &more, &c, err, sizeof err) ||
		    nm_phase(nm, slice, NM_MSM, &more, &c, err, sizeof err) ||
		    (more && (nm_phase(nm, slice, NM_P2P, &more, &c, err,
		                       sizeof err) ||
		              nm_phase(nm, slice, NM_BBM, &more, &c, err,
		                       sizeof err) ||
		              nm_phase(nm, slice, NM_RED, &more, &c, err,
		                       sizeof err)))) {
			fprintf(stderr, "grove-bcs-node: slice %llu: %s\n",
			        (unsigned long long)slice, err);
			rc = 1;
			break;
		}
		/* grove run is gone: so is the job. */
		if (getppid() == 1)
			break;
	}
	nm_close(nm);
	return rc;
}
