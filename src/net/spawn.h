/* Starting child processes (internal).
 *
 * Local children are started with vfork+exec (cheap even from a large
 * front-end) and die with their parent (PR_SET_PDEATHSIG), so a crashed
 * parent leaves no orphans (a child that may re-parent clears it itself
 * once it is in the network, docs/recovery.md); they do not inherit the tool's blocked
 * signals or ignored SIGTERM (spawn_signals_reset).  Remote children are started through a remote
 * shell: its words, the host, and the command quoted for the remote
 * user's shell as one argument (ssh host "env GROVE_BOOTSTRAP=stdin
 * /bin/sh -c ... 'exe' 'arg'...", see remote_cmd.h).  Either way the
 * bootstrap text is written to the child's stdin and the pipe is closed.
 */
#ifndef GROVE_SPAWN_H
#define GROVE_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
/* cpu_set_t: the includer defines _GNU_SOURCE. */
#include <sched.h>

/* 1 if host names this machine ("localhost", 127.x, or our hostname). */
int spawn_host_is_local(const char *host);

/* Local children start under SCHED_OTHER even though this process runs
 * under another policy (a CP under SCHED_BATCH, which children would
 * inherit).  Call once, before starting any. */
void spawn_children_sched_other(void);

/* Gives the calling process the signal state a child of ours starts
 * with, whatever the tool's is: no signal blocked, and every signal at its
 * default action, but for those a terminal sends to the whole process
 * group (SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU), which stay
 * ignored if they are.  A blocked or ignored SIGTERM would keep a child
 * alive past its parent's death (PR_SET_PDEATHSIG), an ignored SIGCHLD
 * would take a CP its children's exit statuses.  Async-signal-safe (a
 * vfork child runs it). */
void spawn_signals_reset(void);

/* What a child on this host gets besides its program; ignored for a
 * remote host. */
typedef struct spawn_local {
	/* keep[0..nkeep): close-on-exec descriptors the child inherits under
	 * the same numbers (its link to this process). */
	const int *keep;
	int nkeep;
	/* The CPUs the child may run on (set before it runs anything, so its
	 * own children inherit them); NULL: ours. */
	const cpu_set_t *cpus;
} spawn_local;

/* Start exe with argv (argv[0] included, NULL-terminated) on host; rsh
 * is the remote shell setting, split on blanks into words (used only for
 * a remote host); local (may be NULL) applies to a local child.  Returns 0 and *pid, or an error with err
 * naming the host and the reason: GROVE_ESPAWN (with the program and,
 * e.g., exec's errno), GROVE_EINVAL (rsh has no word, or a remote host
 * name starts with '-'), GROVE_ENOMEM.  boot goes to the child's stdin;
 * when it does not take all of it by deadline_ms (sockio_now_ms() time;
 * 0: no deadline), as a remote shell stuck connecting would not, the
 * child is killed and the call fails with GROVE_ESPAWN. */
int spawn_child(const char *host, const char *rsh, const char *exe,
    char *const argv[], const char *boot, size_t boot_len,
    uint64_t deadline_ms, const spawn_local *local, pid_t *pid, char *err,
    size_t errlen);

#endif
