/* Collect-and-write helpers for the front-end at exit and the grove tool. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "grove/error.h"
#include "trace/trace_impl.h"

/* How a message names the output: its path, or "standard output". */
static const char *
out_name(const char *path)
{
	return !path || !strcmp(path, "-") ? "standard output" : path;
}

/* An empty path is no file (and an empty OTF2 archive name crashes the
 * OTF2 library): refused before anything is read. */
static int
path_ok(const char *path)
{
	if (path && !*path) {
		fprintf(stderr, "grove trace: the output path is empty\n");
		return 0;
	}
	return 1;
}

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

/* Flushes and closes (stdout: flushes) the output; a write that failed
 * now or earlier (the exporters report those as GROVE_ESYS) is named
 * with its path and reason. */
static int
close_out(FILE *f, const char *path, int rc)
{
	int failed = ferror(f);
	errno = 0;
	int r = f == stdout ? fflush(f) : fclose(f);
	if (r != 0 || failed) {
		/* After an earlier failure the flush tries the same
		 * write again and sets errno; EIO when it had nothing left
		 * to write. */
		int e = errno ? errno : EIO;
		fprintf(stderr, "grove trace: cannot write %s: %s\n",
		        out_name(path), strerror(e));
		return rc ? rc : GROVE_ESYS;
	}
	return rc;
}

/* Running out of memory is the one failure of an export that no helper
 * names (each names its path or file problem where it finds it). */
static void
say_no_memory(int rc, const char *path)
{
	if (rc == GROVE_ENOMEM)
		fprintf(stderr, "grove trace: out of memory while writing %s\n",
		        out_name(path));
}

/* The OTF2 archive directory: made, or already a directory (an archive
 * already in it is refused by the exporter).  Otherwise the path and the
 * reason are said: a plain file there, a parent that does not exist, no
 * permission. */
static int
make_archive_dir(const char *path)
{
	struct stat st;
	int e = 0;
	if (mkdir(path, 0777) != 0) {
		e = errno;
		if (e == EEXIST)
			e = stat(path, &st) != 0 ? errno :
			    S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	}
	if (!e)
		return 0;
	fprintf(stderr, "grove trace: cannot make the OTF2 archive directory "
	        "%s: %s\n", path, strerror(e));
	return GROVE_ESYS;
}

/* A snapshot of the network (and of the segment `also`, when not NULL),
 * which must have at least one event space. */
static int
collect_some(const char *network_id, const char *also, struct trace_set *set)
{
	int rc = trace_set_collect_with(network_id, also, set);
	if (rc) {
		fprintf(stderr, "grove trace: cannot read the event spaces in "
		        "/dev/shm: %s\n", rc == GROVE_ESYS ? strerror(errno) :
		        grove_strerror(rc));
		return rc;
	}
	if (!set->n) {
		fprintf(stderr, "grove trace: no event spaces of network '%s' "
		        "in /dev/shm\n", network_id ? network_id : "*");
		trace_set_free(set);
		return GROVE_ENOENT;
	}
	return 0;
}

int
trace_collect_and_export(const char *network_id, const char *also,
                         const char *format, const char *path)
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
	if (!path_ok(path))
		return GROVE_EINVAL;
	if (otf2 && (!path || !strcmp(path, "-"))) {
		fprintf(stderr, "grove trace: otf2 needs an output "
		        "directory (-o DIR)\n");
		return GROVE_EINVAL;
	}
	if (otf2 && path[strlen(path) - 1] == '/') {
		fprintf(stderr, "grove trace: name the OTF2 archive directory "
		        "without a trailing '/' (%s)\n", path);
		return GROVE_EINVAL;
	}
	if (otf2 && !trace_otf2_available()) {
		fprintf(stderr, "grove trace: OTF2 export is not available (Grove "
		        "was built without libotf2-trace-dev, or its plugin "
		        "grove-otf2.so is not installed; GROVE_OTF2_PLUGIN names "
		        "one)\n");
		return GROVE_ENOTSUP;
	}
	if ((rc = collect_some(network_id, also, &set)))
		return rc;
	if (otf2) {
		/* OTF2 adds its files inside; a path it cannot be made at is
		 * named here, as a file that cannot be written is. */
		rc = make_archive_dir(path);
		if (!rc)
			rc = trace_export_otf2(&set, path);
	} else {
		FILE *f = open_out(path);
		if (!f) {
			trace_set_free(&set);
			return GROVE_ESYS;
		}
		rc = chrome ? trace_export_chrome(&set, f) :
		              trace_export_text(&set, f);
		rc = close_out(f, path, rc);
	}
	say_no_memory(rc, path);
	trace_set_free(&set);
	return rc;
}

int
trace_stats_write(const char *network_id, const char *also,
                  const char *path_or_dash, int json)
{
	struct trace_set set;
	if (!path_ok(path_or_dash))
		return GROVE_EINVAL;
	int rc = collect_some(network_id, also, &set);
	if (rc)
		return rc;
	FILE *f = open_out(path_or_dash);
	if (!f) {
		trace_set_free(&set);
		return GROVE_ESYS;
	}
	rc = json ? trace_stats_json(&set, f) : trace_stats_text(&set, f);
	rc = close_out(f, path_or_dash, rc);
	say_no_memory(rc, path_or_dash);
	trace_set_free(&set);
	return rc;
}
