/* grove bench bcast (tools/bench/bench_bcast.c): the P-LogP paper's broadcast
 * experiment.  argv[1] is "bcast"; returns the exit status. */
#ifndef GROVE_TOOLS_BENCH_BCAST_H
#define GROVE_TOOLS_BENCH_BCAST_H

int bench_bcast(int argc, char **argv);

#endif
