/* Finding Grove's own files from where the running code is (see
 * install_dirs.h). */
#define _GNU_SOURCE /* dladdr1, RTLD_DL_LINKMAP */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/install_dirs.h"
#include "grove/error.h"

/* Set by the build (CMakeLists.txt) for this file only.  The *_REL_*
 * paths are relative between the configured install directories; the
 * absolute ones are the configured install directories themselves and the
 * build and source trees. */
#ifndef GROVE_BUILD_BIN_DIR
#error "GROVE_BUILD_BIN_DIR is set by the build"
#endif

/* 1 when dir is base or below it. */
static int
is_below(const char *dir, const char *base)
{
	size_t n = strlen(base);
	return n && !strncmp(dir, base, n) && (dir[n] == '\0' ||
	    dir[n] == '/' || base[n - 1] == '/');
}

int
install_self(struct install_self *self)
{
	Dl_info di;
	struct link_map *map = NULL;
	char real[PATH_MAX];

	memset(self, 0, sizeof *self);
	if (!dladdr1((void *)install_self, &di, (void **)&map,
	    RTLD_DL_LINKMAP) || !map)
		return GROVE_ENOENT;
	/* The program's own map has no name (dladdr would give argv[0],
	 * which may be relative or have been found on PATH). */
	self->is_program = !map->l_name || !map->l_name[0];
	if (!realpath(self->is_program ? "/proc/self/exe" : map->l_name, real))
		return GROVE_ENOENT;
	char *slash = strrchr(real, '/');
	if (!slash)
		return GROVE_ENOENT;
	*slash = '\0';
	snprintf(self->dir, sizeof self->dir, "%s", real[0] ? real : "/");
	char build[PATH_MAX];
	self->in_build_tree = realpath(GROVE_BUILD_BIN_DIR, build) &&
	    is_below(self->dir, build);
	return 0;
}

/* out = dir/rel/name (rel may be empty); 1 when it is accessible in mode,
 * and out is then without "..", for the logs and the processes' names. */
static int
try_path(char *out, size_t len, const char *dir, const char *rel,
    const char *name, int mode)
{
	char real[PATH_MAX];
	snprintf(out, len, "%s%s%s/%s", dir, rel[0] ? "/" : "", rel, name);
	if (access(out, mode) != 0)
		return 0;
	if (realpath(out, real) && strlen(real) < len)
		snprintf(out, len, "%s", real);
	return 1;
}

/* try_path for a program; a candidate it refuses is added to refused
 * ("path: reason", separated by "; "). */
static int
try_program(char *out, size_t len, const char *dir, const char *rel,
    const char *name, char *refused, size_t rlen)
{
	if (try_path(out, len, dir, rel, name, X_OK))
		return 1;
	int e = errno;
	size_t used = strlen(refused);
	if (used < rlen)
		snprintf(refused + used, rlen - used, "%s%s: %s", used ? "; " : "",
		    out, strerror(e));
	return 0;
}

int
install_find_program(const char *name, char *out, size_t len, char *refused,
    size_t rlen)
{
	struct install_self s;
	char none[1];
	if (!refused || !rlen) {
		refused = none;
		rlen = sizeof none;
	}
	refused[0] = '\0';
	if (install_self(&s) == 0) {
		if (s.in_build_tree && try_program(out, len, GROVE_BUILD_BIN_DIR,
		    "", name, refused, rlen))
			return 0;
		if (!s.in_build_tree && s.is_program &&
		    try_program(out, len, s.dir, "", name, refused, rlen))
			return 0;
		if (!s.in_build_tree && !s.is_program &&
		    (try_program(out, len, s.dir, GROVE_REL_LIB_TO_BIN, name,
		    refused, rlen) ||
		    try_program(out, len, s.dir, "", name, refused, rlen)))
			return 0;
	}
	if (try_program(out, len, GROVE_INSTALL_BIN_DIR, "", name, refused,
	    rlen))
		return 0;
	snprintf(out, len, "%s", name);
	return GROVE_ENOENT;
}

void
install_find_plugin(const char *name, char *out, size_t len)
{
	struct install_self s;
	char first[PATH_MAX] = "";
	if (install_self(&s) == 0) {
		if (!s.is_program) {
			if (try_path(out, len, s.dir, "", name, R_OK))
				return;
		} else if (s.in_build_tree) {
			if (try_path(out, len, GROVE_BUILD_BIN_DIR, "", name,
			    R_OK))
				return;
		} else if (try_path(out, len, s.dir, GROVE_REL_BIN_TO_LIB,
		    name, R_OK)) {
			return;
		}
		snprintf(first, sizeof first, "%s", out);
	}
	if (try_path(out, len, GROVE_INSTALL_LIB_DIR, "", name, R_OK))
		return;
	if (first[0])
		snprintf(out, len, "%s", first);
}

int
install_find_data(const char *rel, char *out, size_t len)
{
	struct install_self s;
	if (install_self(&s) == 0) {
		if (s.in_build_tree) {
			if (try_path(out, len, GROVE_SOURCE_DATA_DIR, "", rel,
			    R_OK))
				return 0;
		} else if (try_path(out, len, s.dir, s.is_program ?
		    GROVE_REL_BIN_TO_DATA : GROVE_REL_LIB_TO_DATA, rel,
		    R_OK)) {
			return 0;
		}
	}
	return try_path(out, len, GROVE_INSTALL_DATA_DIR, "", rel, R_OK) ?
	    0 : GROVE_ENOENT;
}
