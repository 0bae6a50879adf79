/* grove bench align (tools/bench/bench_align.c), dispatched from cmd_bench.c. */
#ifndef GROVE_TOOLS_BENCH_ALIGN_H
#define GROVE_TOOLS_BENCH_ALIGN_H

int bench_align(int argc, char **argv);

#endif
