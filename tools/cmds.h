/* Subcommands of the grove tool; each lives in tools/<name>/cmd_<name>.c and
 * returns the process exit status (0 ok, 1 failure, 2 usage error). */
#ifndef GROVE_TOOLS_CMDS_H
#define GROVE_TOOLS_CMDS_H

int cmd_topo(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_logp(int argc, char **argv);
int cmd_run(int argc, char **argv); /* tools/run/run_main.c */
int cmd_report(int argc, char **argv);
int cmd_monitor(int argc, char **argv);

#endif
