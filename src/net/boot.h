/* The bootstrap a parent hands to a child it starts (internal).
 *
 * It travels on the child's standard input (a pipe, or ssh's stdin for
 * remote hosts), so the network secret never appears on a command line or
 * in the environment.  Text: "grove-bootstrap protocol N" (the
 * GROVE_PROTOCOL of the parent), then one "key value" per line; the topology is a
 * byte-counted block in MRNet format, and so is the cluster map of the link
 * emulator when there is one; the parent closes the pipe after it.
 */
#ifndef GROVE_BOOT_H
#define GROVE_BOOT_H

#include <stddef.h>
#include <stdint.h>

#define BOOT_MAX_ARGS 256
/* grove-commnode's exit status when its bootstrap is of another protocol
 * version.  Like the first line, every version keeps it: the parent that
 * reaps the CP (which may be of either version) can then say why it never
 * connected, even when the CP's standard error went elsewhere. */
#define BOOT_EXIT_PROTOCOL 3

typedef struct boot {
	uint32_t protocol;      /* the parent's, from the first line (0: none
	                           read); boot_parse refuses any but
	                           GROVE_PROTOCOL */
	char secret_hex[65];
	char netid[40];
	char parent_host[256];
	uint16_t parent_port;
	char parent_unix[96];   /* local parent: its Unix socket name */
	int parent_rfd;         /* a parent that started this process on */
	int parent_wfd;         /* its own host: the pipes to it, or -1 */
	int local_link_socket;  /* local children use the Unix socket */
	int cp_sched_batch;     /* CPs run under SCHED_BATCH */
	int cpu_bind_subtree;   /* local children get a share of our CPUs */
	int tsc_invariant;      /* the parent's answer on the same host (0 or
	                           1; -1: ask the CPU), see trace_tsc_hint */
	int trace_keep;         /* keep the event space at exit: the FE will
	                           collect it from this host's /dev/shm */
	uint32_t node;          /* the child's topology node id */
	uint32_t rank;          /* BE rank (BEs only) */
	uint32_t parent_node;   /* the parent's topology node id */
	uint32_t backends;      /* BEs in the network */
	int attach;             /* BEs attach instead of being spawned */
	int timeout_ms;
	int heartbeat_ms;
	/* How long a node waits for a lost CP child's children to come
	 * back, and they for an ancestor (docs/recovery.md); < 0: no
	 * recovery.  Also whether a CP starts its children without the
	 * parent-death signal. */
	int reparent_ms;
	char bind_addr[64];
	char rsh[256];
	char commnode[1024];
	char be_exe[1024];
	int be_argc;
	char *be_argv[BOOT_MAX_ARGS]; /* malloc'd */
	char *topology;         /* MRNet text, malloc'd; NULL for BEs */
	char *clusters;         /* cluster map text (link emulation) for
	                           every child, malloc'd; NULL: none */
	int log_level;
} boot;

void boot_init(boot *b);
void boot_fini(boot *b);
/* Serialise into a malloc'd buffer; with_topology = 0 for BEs. */
int boot_write(const boot *b, int with_topology, char **out, size_t *len);
/* Parse text of the given length; err says which line is wrong.
 * GROVE_ENOENT: not a Grove bootstrap; GROVE_EPROTO: malformed, or (with
 * b->protocol set to the parent's, not GROVE_PROTOCOL) written by a
 * parent of another protocol version, which err names with this one. */
int boot_parse(const char *text, size_t len, boot *b, char *err, size_t errlen);
/* Read all of fd (until EOF) and parse it. */
int boot_read_fd(int fd, boot *b, char *err, size_t errlen);

#endif
