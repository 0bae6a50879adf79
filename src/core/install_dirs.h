/* Where Grove finds its own files (internal): grove-commnode, the OTF2
 * plugin and the data in share/.
 *
 * Everything is found from the file that holds the running Grove code:
 * libgrove.so, or the program itself when Grove is linked statically (the
 * grove command, a tool linked with libgrove.a).  An installed copy uses
 * the relative paths between the install directories it was configured
 * with (bin, lib or lib/<multiarch>, share), so a tree moved as a whole
 * or installed with `cmake --install --prefix` still finds its own files.
 * The build tree Grove was built in is used only when that file lives in
 * it: an installed library never runs the build tree's programs. */
#ifndef GROVE_CORE_INSTALL_DIRS_H
#define GROVE_CORE_INSTALL_DIRS_H

#include <stddef.h>

/* The file that holds Grove's code in this process. */
struct install_self {
	char dir[4096];     /* its directory, symbolic links resolved */
	int is_program;     /* it is the executable, not a shared library */
	int in_build_tree;  /* dir is the build directory or inside it */
};

/* 0, or GROVE_ENOENT when the loader cannot say (the caller then falls
 * back to the configured install directories and PATH). */
int install_self(struct install_self *self);

/* A Grove program (grove-commnode): the build directory's when Grove
 * runs from the build tree; else the bin directory relative to the
 * library (beside it for a program); else the configured bin directory.
 * 0 with out set; or, when none of these is executable, GROVE_ENOENT
 * with out the bare name (for PATH) and refused (may be NULL) naming
 * each candidate and why it was refused ("path: reason; ..."), for the
 * error should the name not be on PATH either. */
int install_find_program(const char *name, char *out, size_t len,
    char *refused, size_t rlen);

/* A plugin (grove-otf2.so): beside libgrove.so; for a program, the build
 * directory, else the lib directory relative to it, else the configured
 * one.  The first candidate when none exists (for the error message). */
void install_find_plugin(const char *name, char *out, size_t len);

/* A data file, rel relative to Grove's share directory (e.g.
 * "logp/default.params"): the source tree's share/ when Grove runs from
 * the build tree, else share/grove relative to the library or program,
 * else the configured one.  0, or GROVE_ENOENT (out holds the last
 * place tried). */
int install_find_data(const char *rel, char *out, size_t len);

#endif
