/* grove run: the launcher of Grove MPI jobs (mpiexec, mpirun).
 *
 *   run_opts.c      options, usage, finding PROGRAM
 *   run_main.c      the job's life from start to status
 *   run_loop.c      the event loop: signals, rank exits, output, timers
 *   run_spawn.c     fork/exec of the ranks, their environment
 *   run_io.c        forwarding of the ranks' output, line by line
 *   run_exit.c      what a rank's end means for the job (status rules)
 *   run_wire.c      the front-end of the wire-up (allgather of cards)
 *   run_hosts.c     --hosts: placement, starting ranks on other hosts
 *   run_watchdog.c  the process that cleans up if the launcher dies
 *   stats_report.c  --stats: the statistics report (stats_report.h)
 *
 * See the "Launcher" section of docs/mpi.md.
 */
#ifndef GROVE_TOOLS_RUN_H
#define GROVE_TOOLS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "grove/network.h"
#include "mpi/job.h"

#define RUN_CMD "grove run"
/* Largest -n: the job segment holds n * n rings. */
#define RUN_MAX_RANKS 4096
/* The BCS time slice when --slice is not given (docs/bcs.md says how it
 * was chosen). */
#define RUN_BCS_DEFAULT_SLICE_NS 1000000ull
#define RUN_BCS_DEFAULT_SLICE_TEXT "1ms"

struct run_opts {
	unsigned n;
	bool tag_output;
	bool verbose;
	bool stats;
	bool keep_trace;
	bool bcs;                /* --bcs: buffered coscheduling */
	bool tcp;                /* --transport tcp (or --hosts) */
	const char *hosts;       /* --hosts H1,H2,... */
	const char *hostfile;    /* --hostfile FILE */
	char *hosts_alloc;       /* a Slurm allocation's hosts, owned (hosts
	                            points here then) */
	uint64_t slice_ns;       /* --slice */
	const char *record;      /* --record FILE */
	const char *replay;      /* --replay FILE */
	bool emds;               /* --emds FROM:TO given */
	uint64_t emds_from, emds_to;
	const char *emds_out;    /* --emds-out PREFIX */
	const char *stats_json;  /* --stats-json FILE, or NULL */
	double timeout_s;        /* 0: none */
	/* "VAR=VAL" for the ranks (from -x and --env), in order. */
	char **env_set;
	size_t n_env_set;
	char **argv;             /* PROGRAM ARGS..., NULL-terminated */
	char exe[4096];          /* PROGRAM resolved through PATH */
};

/* Parses the command line: 0, 1 for --help (usage printed, exit 0), or 2
 * after a one-line usage error on standard error. */
int run_parse(int argc, char **argv, struct run_opts *o);
void run_opts_free(struct run_opts *o);

/* Finds PROGRAM as execvp would: 0 with o->exe set, or the exit status
 * (127 not found, 126 not executable) after saying why. */
int run_resolve_program(struct run_opts *o);

/* ---- output forwarding (run_io.c) ---------------------------------- */

/* One output stream of one rank: its pipe and the part of a line not
 * yet written. */
struct run_out {
	int fd;          /* read end, -1 once at end of file */
	char *buf;
	size_t len, cap;
};

struct run_io {
	bool tag;        /* --tag-output */
	bool broken[2];  /* our stdout / stderr failed: drop what comes */
	char *scratch;   /* tagged lines are built here */
	size_t scratch_cap;
};

/* Reads what the (non-blocking) pipe holds, once, and writes the
 * complete lines to standard output (which 1) or standard error (2).
 * Returns 2 when it read something, 1 when nothing was there, 0 at the
 * pipe's end (the rest flushed, fd closed; also when it was closed). */
int run_io_read(struct run_io *io, struct run_out *out, int rank, int which);
/* Writes the last partial line and closes the pipe. */
void run_io_finish(struct run_io *io, struct run_out *out, int rank,
    int which);
void run_io_free(struct run_io *io);

/* ---- ranks ---------------------------------------------------------- */

struct run_rank {
	pid_t pid;       /* 0: not started; for a remote rank its ssh's */
	int host;        /* index in job->hosts, -1 without --hosts */
	bool remote;     /* started through the remote shell */
	bool exited;
	int status;      /* from waitpid */
	struct run_out out[2]; /* [0] stdout, [1] stderr */
};

/* ---- the job -------------------------------------------------------- */

enum run_phase {
	RUN_RUNNING = 0,
	RUN_ENDING,      /* SIGTERM sent to the ranks left; SIGKILL due */
};

struct run_wire;
struct run_bcs;

/* ---- hosts (run_hosts.c) ---------------------------------------------- */

#define RUN_MAX_HOSTS 256
struct run_hosts {
	unsigned n;
	char names[RUN_MAX_HOSTS][256];
	bool local[RUN_MAX_HOSTS];  /* names this machine */
	char self[256];             /* this machine's host name */
};

struct run_job {
	struct run_opts *o;
	unsigned n;
	struct run_rank *ranks;
	struct mpi_job seg;          /* the job segment */
	char jobid[40];              /* names the job's event spaces */
	char dir[4096];              /* private directory (0700) */
	char connect[4200];          /* its connection file */
	struct run_wire *wire;
	struct run_io io;
	int sigfd;                   /* signalfd: SIGCHLD, SIGINT, SIGTERM... */
	int epfd;
	pid_t watchdog;
	int watchdog_fd;             /* write end of its pipe, -1 if none */
	unsigned live;               /* ranks not reaped yet */
	unsigned open_pipes;         /* output pipes not at end of file */
	unsigned exited_noinit;      /* exited 0 without MPI_Init */
	int first_noinit;            /* the first of those, -1 if none */
	/* How the job ends. */
	enum run_phase phase;
	int status;                  /* exit status of grove run */
	bool failed;                 /* status decided by a failure */
	double t_start, t_spawned, t_kill; /* tool_now(); t_kill: SIGKILL due */
	double deadline;             /* --timeout, 0: none */
	/* BCS mode: the node manager (0: none or reaped) and the machine. */
	pid_t bcs_nm;
	struct run_bcs *bcs;
	/* --hosts: the hosts, and the read end of the pipe every remote
	 * shell has as standard input (its write end, rsh_keep, is held
	 * until the launcher exits: the remote ranks end when it closes). */
	struct run_hosts *hosts;
	int rsh_stdin, rsh_keep;
	/* pid -> rank, sorted by pid, for reaping. */
	struct run_pidx { pid_t pid; unsigned rank; } *pidx;
};

/* run_bcs.c: the BCS machine of a --bcs job.  run_bcs_start (before
 * the ranks) makes its network, starts the node manager (grove-bcs-node)
 * and the strobe thread: 0, or -1 after saying why. */
int run_bcs_start(struct run_job *job);
/* A descriptor the event loop watches (-1 without --bcs); readable when
 * the strobe failed: run_bcs_failed then ends the job saying why. */
int run_bcs_fd(const struct run_job *job);
void run_bcs_failed(struct run_job *job);
/* What the node manager's end means for the job (from the reaper). */
void run_bcs_exited(struct run_job *job, int status);
/* The job is over: stops the strobe, writes the EMDS files, ends the
 * node manager and frees the machine.  -1 when a file could not be
 * written (said). */
int run_bcs_stop(struct run_job *job);

/* run_hosts.c.  Reads --hosts and --hostfile: 0, or -1 after saying why. */
int run_hosts_load(const struct run_opts *o, struct run_hosts *h);
/* The host of rank r of n (blocks, in the order listed). */
unsigned run_hosts_of_rank(const struct run_hosts *h, unsigned n, unsigned r);
/* The name a host's ranks listen at (this machine's own name for a
 * local host, so that the other hosts can reach it). */
const char *run_hosts_tcp_name(const struct run_hosts *h, unsigned host);
/* The remote shell's argument vector that starts rank r on host
 * (NULL-terminated, malloc'd; NULL when out of memory). */
char **run_hosts_argv(const struct run_job *job, unsigned r, unsigned host);
void run_hosts_argv_free(char **argv);
/* Writes the job's placement to DIR/hosts for grove monitor --job (one
 * line a host: "HOST FIRST_RANK RANKS local|remote", after a comment
 * line), when a host is not this machine; nothing otherwise.  0, or -1
 * after saying why. */
int run_hosts_write_file(const struct run_job *job);

/* run_spawn.c: whether entry ("VAR=VAL") is a variable grove run sets
 * itself for the ranks. */
bool run_spawn_ours(const char *entry);
/* run_spawn.c: starts every rank (n forks); 0, or -1 after saying why
 * (the ranks started so far are in job->ranks and are ended by the
 * caller). */
int run_spawn(struct run_job *job);
/* Sends sig to every rank not reaped yet. */
void run_signal_all(struct run_job *job, int sig);

/* run_loop.c: runs until every rank is reaped and its output drained;
 * returns the job's exit status. */
int run_loop(struct run_job *job);

/* run_exit.c: a rank was reaped (status from waitpid).  Decides what it
 * means for the job: fine, or the failure that ends it (one message). */
void run_exit_rank(struct run_job *job, unsigned rank, int status);
/* Starts ending the job (if not yet): the status and a message, unless
 * the job already failed; SIGTERM now, SIGKILL at t_kill. */
void run_end_job(struct run_job *job, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A back-end attached: a rank that exited without MPI_Init leaves the
 * others waiting in it forever. */
void run_exit_check_noinit(struct run_job *job);

/* ---- wire-up, front-end side (run_wire.c) ---------------------------- */

/* Creates the front-end network (attach mode, flat, n back-ends) whose
 * connection file is job->connect; 0, or -1 after saying why. */
int run_wire_create(struct run_job *job);
int run_wire_fd(const struct run_wire *w);
/* Whether the wire-up still runs (the loop then also calls
 * run_wire_progress every RUN_WIRE_TICK_MS, see run_loop.c). */
bool run_wire_busy(const struct run_wire *w);
#define RUN_WIRE_TICK_MS 5
/* Back-ends attached now (0 for NULL). */
unsigned run_wire_backends_up(const struct run_wire *w);
/* Makes whatever progress the network allows without blocking: waits
 * for the back-ends, starts the allgather, multicasts its result.
 * Returns 0, or -1 when the wire-up failed (said why; the job ends). */
int run_wire_progress(struct run_job *job);
/* Leaves the network (after the ranks exited). */
void run_wire_destroy(struct run_wire *w);

/* ---- watchdog (run_watchdog.c) -------------------------------------- */

/* Forks the watchdog (its own process group, stdio on /dev/null): 0 with
 * *pid and *fd (the write end of its pipe, close-on-exec), or -1. */
int run_watchdog_start(pid_t *pid, int *fd);
/* Tells it a line ("dir PATH", "job ID", "keep",
 * "pids P P ..."). */
int run_watchdog_tell(int fd, const char *line);
/* Normal end: it exits without touching anything; reaps it. */
void run_watchdog_done(pid_t pid, int fd);
/* Removes the event spaces /dev/shm/grove.<id>.* (id NULL or "": none;
 * keep_trace: none) and the directory dir (NULL: none) with what is in
 * it.  Used by both the launcher and the watchdog. */
void run_cleanup_files(const char *jobid, const char *dir, bool keep_trace);


#endif
