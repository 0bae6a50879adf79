/* grove bench skew (tools/bench/bench_skew.c), dispatched from cmd_bench.c. */
#ifndef GROVE_TOOLS_BENCH_SKEW_H
#define GROVE_TOOLS_BENCH_SKEW_H

int bench_skew(int argc, char **argv);

#endif
