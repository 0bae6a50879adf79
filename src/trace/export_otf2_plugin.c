/* Finding and calling the OTF2 exporter plugin (see trace_impl.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "grove/error.h"
#include "trace/trace_impl.h"

typedef int (*otf2_export_fn)(const struct trace_set *, const char *);

static void *
open_plugin(void)
{
	const char *env = getenv("GROVE_OTF2_PLUGIN");
	if (env && *env)
		return dlopen(env, RTLD_NOW | RTLD_LOCAL);
	Dl_info di;
	if (!dladdr((void *)trace_export_otf2, &di) || !di.dli_fname)
		return NULL;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s", di.dli_fname);
	char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path + 1) : 0;
	snprintf(path + dir, sizeof path - dir, "grove-otf2.so");
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

int
trace_otf2_available(void)
{
	void *h = open_plugin();
	if (h)
		dlclose(h);
	return h != NULL;
}

int
trace_export_otf2(const struct trace_set *set, const char *dir)
{
	void *h = open_plugin();
	if (!h) {
		log_warn("OTF2 export: no plugin (%s)", dlerror());
		return GROVE_ENOTSUP;
	}
	otf2_export_fn fn = (otf2_export_fn)(uintptr_t)dlsym(h,
	    "trace_export_otf2_impl");
	int rc = fn ? fn(set, dir) : GROVE_ENOTSUP;
	dlclose(h);
	return rc;
}
