/* Benchmarks on grove-agent networks: offered-load (bench_offered.c) and
 * startup (bench_startup.c). */
#ifndef GROVE_TOOLS_BENCH_AGENTS_H
#define GROVE_TOOLS_BENCH_AGENTS_H

/* argv[1] is "offered-load"; returns the exit status. */
int bench_offered_load(int argc, char **argv);
/* argv[1] is "startup"; returns the exit status. */
int bench_startup(int argc, char **argv);

#endif
