/* Collect-and-write helpers for the front-end at exit and the grove tool. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "grove/error.h"
#include "trace/trace_impl.h"

static FILE *
open_out(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "grove trace: cannot write %s: %s\n", path,
		        strerror(errno));
	return f;
}

static int
close_out(FILE *f, int rc)
{
	if (f == stdout)
		return fflush(f) == 0 || rc ? rc : GROVE_ESYS;
	return fclose(f) == 0 || rc ? rc : GROVE_ESYS;
}

/* A snapshot of the network, which must have at least one event space. */
static int
collect_some(const char *network_id, struct trace_set *set)
{
	int rc = trace_set_collect(network_id, set);
	if (rc)
		return rc;
	if (!set->n) {
		fprintf(stderr, "grove trace: no event spaces of network '%s' "
		        "in /dev/shm\n", network_id ? network_id : "*");
		trace_set_free(set);
		return GROVE_ENOENT;
	}
	return 0;
}

int
trace_collect_and_export(const char *network_id, const char *format,
                         const char *path)
{
	struct trace_set set;
	int rc;
	if (!format)
		format = "perfetto";
	int otf2 = !strcmp(format, "otf2");
	int text = !strcmp(format, "text");
	int chrome = !strcmp(format, "perfetto") ||
	             !strcmp(format, "chrome") || !strcmp(format, "json");
	if (!otf2 && !text && !chrome) {
		fprintf(stderr, "grove trace: unknown format '%s' (perfetto, "
		        "otf2, text)\n", format);
		return GROVE_EINVAL;
	}
	if (otf2 && (!path || !strcmp(path, "-"))) {
		fprintf(stderr, "grove trace: otf2 needs an output "
		        "directory (-o DIR)\n");
		return GROVE_EINVAL;
	}
	if (otf2 && !trace_otf2_available()) {
		fprintf(stderr, "grove trace: OTF2 export is not available (Grove "
		        "was built without libotf2-trace-dev, or grove-otf2.so is "
		        "missing beside libgrove)\n");
		return GROVE_ENOTSUP;
	}
	if ((rc = collect_some(network_id, &set)))
		return rc;
	if (otf2) {
		mkdir(path, 0777); /* OTF2 adds its files inside */
		rc = trace_export_otf2(&set, path);
	} else {
		FILE *f = open_out(path);
		if (!f) {
			trace_set_free(&set);
			return GROVE_ESYS;
		}
		rc = chrome ? trace_export_chrome(&set, f) :
		              trace_export_text(&set, f);
		rc = close_out(f, rc);
	}
	trace_set_free(&set);
	return rc;
}

int
trace_stats_write(const char *network_id, const char *path_or_dash, int json)
{
	struct trace_set set;
	int rc = collect_some(network_id, &set);
	if (rc)
		return rc;
	FILE *f = open_out(path_or_dash);
	if (!f) {
		trace_set_free(&set);
		return GROVE_ESYS;
	}
	rc = json ? trace_stats_json(&set, f) : trace_stats_text(&set, f);
	rc = close_out(f, rc);
	trace_set_free(&set);
	return rc;
}
