/* grove bench bcs (tools/bench/bench_bcs.c), dispatched from cmd_bench.c. */
#ifndef GROVE_TOOLS_BENCH_BCS_H
#define GROVE_TOOLS_BENCH_BCS_H

int bench_bcs(int argc, char **argv);

#endif
