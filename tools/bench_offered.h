/* grove bench offered-load (tools/bench_offered.c). */
#ifndef GROVE_TOOLS_BENCH_OFFERED_H
#define GROVE_TOOLS_BENCH_OFFERED_H

/* argv[1] is "offered-load"; returns the exit status. */
int bench_offered_load(int argc, char **argv);

#endif
