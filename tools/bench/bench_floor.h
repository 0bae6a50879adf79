/* grove bench floor (tools/bench/bench_floor.c), dispatched from cmd_bench.c. */
#ifndef GROVE_TOOLS_BENCH_FLOOR_H
#define GROVE_TOOLS_BENCH_FLOOR_H

int bench_floor(int argc, char **argv);

#endif
