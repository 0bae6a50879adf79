/* Finding and calling the OTF2 exporter plugin (see trace_impl.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/install_dirs.h"
#include "grove/error.h"
#include "trace/trace_impl.h"

typedef int (*otf2_export_fn)(const struct trace_set *, const char *,
    const struct trace_otf2_host *);

static const struct trace_otf2_host host = {
	.match_messages = trace_match_messages,
	.op_name = trace_op_name,
	.set_origin_ns = trace_set_origin_ns,
};

static void *
open_plugin(void)
{
	const char *env = getenv("GROVE_OTF2_PLUGIN");
	if (env && *env)
		return dlopen(env, RTLD_NOW | RTLD_LOCAL);
	char path[PATH_MAX];
	install_find_plugin("grove-otf2.so", path, sizeof path);
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* The plugin's entry point, or NULL with the reason on stderr (an export
 * was asked for: saying nothing would leave no trace and no clue). */
static otf2_export_fn
open_entry(void **h)
{
	*h = open_plugin();
	if (!*h) {
		fprintf(stderr, "grove: OTF2 export: cannot load the plugin: %s\n",
		    dlerror());
		return NULL;
	}
	otf2_export_fn fn = (otf2_export_fn)(uintptr_t)dlsym(*h,
	    TRACE_OTF2_ENTRY);
	if (!fn) {
		fprintf(stderr, "grove: OTF2 export: the plugin has no %s (not "
		    "Grove's OTF2 plugin, or built for another version)\n",
		    TRACE_OTF2_ENTRY);
		dlclose(*h);
		*h = NULL;
	}
	return fn;
}

int
trace_otf2_available(void)
{
	void *h;
	otf2_export_fn fn = open_entry(&h);
	if (h)
		dlclose(h);
	return fn != NULL;
}

int
trace_export_otf2(const struct trace_set *set, const char *dir)
{
	void *h;
	otf2_export_fn fn = open_entry(&h);
	if (!fn)
		return GROVE_ENOTSUP;
	int rc = fn(set, dir, &host);
	dlclose(h);
	return rc;
}
