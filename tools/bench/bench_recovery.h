/* grove bench recovery (bench_recovery.c): the time a network takes to
 * go on after a CP is lost, and its throughput before and after. */
#ifndef GROVE_TOOLS_BENCH_RECOVERY_H
#define GROVE_TOOLS_BENCH_RECOVERY_H

/* argv[1] is "recovery"; returns the exit status. */
int bench_recovery(int argc, char **argv);

#endif
