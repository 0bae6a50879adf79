/* Helpers shared by the grove subcommands: where the companion programs
 * are, back-end counts, a clock, resource limits, option errors, output
 * that must reach its file. */
#ifndef GROVE_TOOLS_TOOLUTIL_H
#define GROVE_TOOLS_TOOLUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grove/network.h"

/* The back-end count a topology spec fixes itself (`levels:AxB`, `AxB`):
 * the product of its fan-outs, read from the spec without building the
 * tree; 0 for a spec that needs a count (flat, kary:K, knomial:K) and for
 * a bad spec, which creating the network reports. */
uint32_t tool_spec_backends(const char *spec);

/* The back-end count a tool starts from spec: *n holds --backends when
 * given is nonzero, else the tool's default, which a spec that fixes its
 * own count replaces.  A spec's count is held to the range of --backends,
 * 1..max: beyond it, says so on standard error, prefixed by cmd, and
 * returns 2 (the exit status of a usage error); else 0. */
int tool_resolve_backends(const char *cmd, const char *spec, int given,
    unsigned max, unsigned *n);

/* Says on standard error that option opt of cmd wants a number in
 * 1..max, not v, in the style of tool_usage_error; returns 2. */
int tool_count_error(const char *cmd, const char *opt, const char *v,
    long max);

/* Ends output to f, a file named path or standard output (path NULL):
 * flushes it, and closes a file.  rc is what the writes so far returned
 * (nonzero: one failed).  Returns 0; or, when a write failed, says
 * "CMD: PATH: write failed: why" ("standard output" for PATH; why when
 * it is still known) on standard error and returns 1, the exit status. */
int tool_finish_output(const char *cmd, FILE *f, const char *path, int rc);

/* Where be_worker is installed relative to grove's directory (set by the
 * build from the configured install directories). */
#ifndef GROVE_WORKER_REL_DIR
#define GROVE_WORKER_REL_DIR "../libexec/grove"
#endif

/* Paths found by tool_find_programs(), owned by the caller. */
typedef struct tool_programs {
	char worker[4096];   /* the example back-end, be_worker */
	char commnode[4096]; /* grove-commnode, or "" for the library default */
} tool_programs;

/* Finds be_worker ($GROVE_WORKER, else beside this executable as in the
 * build tree, else in GROVE_WORKER_REL_DIR relative to it as installed) and
 * grove-commnode ($GROVE_COMMNODE wins inside the library; else beside this
 * executable when it is there).  On failure writes why into err and returns
 * GROVE_ENOENT. */
int tool_find_programs(tool_programs *pg, char *err, size_t errlen);

/* Finds program `name`: $env_var if set, else beside this executable.
 * Writes the path into out; on failure writes why into err and returns
 * GROVE_ENOENT. */
int tool_find_program(const char *name, const char *env_var, char *out,
    size_t len, char *err, size_t errlen);

/* Fills the spawn-mode options of a local network running be_worker. */
void tool_net_opts(grove_net_opts *o, const tool_programs *pg,
    const char *topology, unsigned backends);

/* Raises the open-file limit to its hard maximum: a flat tree of 1024
 * back-ends needs more descriptors than the usual soft limit of 1024. */
void tool_raise_nofile(void);

/* CPU time (user + system) of this process so far, in seconds. */
double tool_cpu_self(void);

/* Monotonic time in seconds. */
double tool_now(void);

/* Parses a positive decimal number no larger than max; -1 if it is not. */
long tool_parse_count(const char *s, long max);

/* A usage error of command `cmd` ("grove topo", "grove trace dump"):
 * says "CMD: MSG[: ARG]; try 'CMD --help'" on standard error; returns 2,
 * the exit status. */
int tool_usage_error(const char *cmd, const char *msg, const char *arg);

/* --inject-step NS of the clock benchmarks: nanoseconds in [-1e12, 1e12]
 * into *out; 0, or 2 after a usage error (tool_usage_error). */
int tool_parse_inject_step(const char *cmd, const char *v, int64_t *out);

/* Creates a local network of be_worker back-ends (tool_net_opts) whose
 * rank r's clock reads r * step ns off (GROVE_CLOCK_INJECT_NS, which each
 * process reads when it starts): the tree of the MRNet topology file file,
 * or of spec topology when file is NULL.  grove_net_create's result; on
 * failure says why on standard error, prefixed by cmd. */
int tool_net_create_injected(const char *cmd, const tool_programs *pg,
    const char *topology, const char *file, unsigned backends, int64_t step,
    grove_net **out);

/* Prints s as a JSON string (quoted, escaped) on standard output. */
void tool_json_str(const char *s);

/* Prints the fields that say where a benchmark ran, each preceded by
 * ", ": "cpu" (model), "cpus", and "commit" when $GROVE_COMMIT is set. */
void tool_json_machine(void);

#endif
