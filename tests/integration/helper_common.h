/* Shared helpers of the integration tests (tests/integration/it_*.c).
 *
 * Every integration test is a plain program that starts real networks on
 * this machine.  A failed check prints both values with file:line, kills
 * every process the test started (directly or not) and exits non-zero; a
 * watchdog does the same when the test hangs.  The test process is made a
 * child subreaper, so processes orphaned by a dying CP or FE stay its
 * descendants and can be found, counted and reaped.
 */
#ifndef GROVE_IT_HELPER_COMMON_H
#define GROVE_IT_HELPER_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "grove/network.h"
#include "grove/packet.h"
#include "grove/topology.h"

/* Default watchdog: a test that is not done by then has hung. */
#define IT_WATCHDOG_S 120

/* Generous bound for one blocking receive: only a hang reaches it. */
#define IT_RECV_MS 30000

/* ---- start and end ------------------------------------------------- */

/* Call first in main: watchdog (seconds; 0: IT_WATCHDOG_S), subreaper,
 * no core files, artefact paths, cleanup at exit.  name labels output. */
void it_init(const char *name, unsigned watchdog_s);
/* Print "name: OK" and return 0 (main returns it). */
int it_done(void);
/* Report progress ("name: what"), flushed at once. */
void it_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Kill every descendant and exit(1) without running atexit handlers. */
void it_fail_exit(void) __attribute__((noreturn));
/* Print "file:line: message" and fail. */
void it_failf(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* ---- checks --------------------------------------------------------- */

#define IT_FAIL(...) it_failf(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond) do { \
	if (!(cond)) \
		IT_FAIL("CHECK(%s) failed", #cond); \
} while (0)

#define CHECK_INT_EQ(a, b) do { \
	long long it_a_ = (long long)(a), it_b_ = (long long)(b); \
	if (it_a_ != it_b_) \
		IT_FAIL("CHECK_INT_EQ(%s, %s) failed: %lld != %lld", \
		    #a, #b, it_a_, it_b_); \
} while (0)

#define CHECK_UINT_EQ(a, b) do { \
	unsigned long long it_a_ = (unsigned long long)(a); \
	unsigned long long it_b_ = (unsigned long long)(b); \
	if (it_a_ != it_b_) \
		IT_FAIL("CHECK_UINT_EQ(%s, %s) failed: %llu != %llu", \
		    #a, #b, it_a_, it_b_); \
} while (0)

#define CHECK_INT_LT(a, b) do { \
	long long it_a_ = (long long)(a), it_b_ = (long long)(b); \
	if (!(it_a_ < it_b_)) \
		IT_FAIL("CHECK_INT_LT(%s, %s) failed: %lld >= %lld", \
		    #a, #b, it_a_, it_b_); \
} while (0)

/* Doubles: |a - b| <= eps * max(1, |b|). */
#define CHECK_DBL_NEAR(a, b, eps) do { \
	double it_a_ = (double)(a), it_b_ = (double)(b); \
	if (!it_dbl_near(it_a_, it_b_, (eps))) \
		IT_FAIL("CHECK_DBL_NEAR(%s, %s) failed: %.17g != %.17g", \
		    #a, #b, it_a_, it_b_); \
} while (0)

#define CHECK_STR_CONTAINS(hay, needle) do { \
	const char *it_h_ = (hay), *it_n_ = (needle); \
	if (!it_h_ || !strstr(it_h_, it_n_)) \
		IT_FAIL("CHECK_STR_CONTAINS(%s, %s) failed: \"%s\" does " \
		    "not contain \"%s\"", #hay, #needle, \
		    it_h_ ? it_h_ : "(null)", it_n_); \
} while (0)

/* A Grove call must return `want` (a grove_err).  net may be NULL; when
 * given, its last error is printed too. */
#define CHECK_RC_NET(net, expr, want) do { \
	int it_rc_ = (expr); \
	if (it_rc_ != (want)) \
		IT_FAIL("%s returned %d (%s), expected %s%s%s", #expr, \
		    it_rc_, grove_err_name(it_rc_), grove_err_name(want), \
		    (net) ? "; last error: " : "", \
		    (net) ? grove_net_last_error(net) : ""); \
} while (0)
#define CHECK_OK_NET(net, expr) CHECK_RC_NET(net, expr, GROVE_OK)
#define CHECK_RC(expr, want) CHECK_RC_NET((grove_net *)NULL, expr, want)
#define CHECK_OK(expr) CHECK_RC(expr, GROVE_OK)

int it_dbl_near(double a, double b, double eps);

/* ---- artefacts -------------------------------------------------------- */

/* $GROVE_BUILD_DIR (else the directory of this executable) and
 * $GROVE_SOURCE_DIR; valid after it_init. */
const char *it_build_dir(void);
const char *it_source_dir(void);
/* "<build dir>/<name>" in a static buffer per call site's choice: the
 * result is written to buf (cap bytes); returns buf. */
char *it_build_path(const char *name, char *buf, size_t cap);

/* The be_worker and grove-commnode programs of the build under test. */
const char *it_be_worker_path(void);
const char *it_commnode_path(void);
/* A fresh private directory (mkdtemp), removed with its files at exit. */
/* The test created network netid: its event spaces are removed when the
 * test ends, whether it passed or failed (it_net_create notes its
 * networks itself). */
void it_note_network(const char *netid);
const char *it_tmpdir(void);

/* The whole file, NUL-terminated (malloc'd; the test fails if it cannot
 * be read). */
char *it_slurp(const char *path);

/* Starts be_worker in attach mode as back-end `rank`, with the
 * connection file `file`; returns its pid (the caller reaps it). */
pid_t it_start_attached_be(const char *file, uint32_t rank);
/* ... or with the fields of a grove_attach_info record, the BE count and
 * the secret, as a tool without a connection file does: the secret goes
 * through a pipe to the worker's stdin, never on its command line. */
pid_t it_start_attached_be_to(const grove_attach_info *ai, uint32_t backends,
    const char *secret_hex);

/* Removes the event spaces of network `netid` from /dev/shm (for tests
 * whose front-end is killed and so cannot remove them itself). */
void it_remove_segments(const char *netid);

/* ---- networks --------------------------------------------------------- */

/* Options for a network of be_worker back-ends started by Grove. */
void it_net_opts(grove_net_opts *o, const char *topology, uint32_t backends);
/* it_net_opts for attach mode: Grove starts no BE, and writes the
 * connection file to connect_file (NULL: none). */
void it_attach_opts(grove_net_opts *o, const char *topology, uint32_t backends,
    const char *connect_file);
/* Create a network from o; fails the test with the last error otherwise. */
grove_net *it_net_create(const grove_net_opts *o);
/* it_net_opts + it_net_create. */
grove_net *it_net_spawn(const char *topology, uint32_t backends);
/* Destroy and check that no process of the test remains within 5 s. */
void it_net_destroy(grove_net *net);

/* A stream on comm (NULL: all BEs) with an upstream filter and a sync
 * filter (NULL: defaults). */
grove_stream *it_stream(grove_net *net, const grove_comm *comm,
    const char *up, const char *sync);
/* Receive one packet on s within IT_RECV_MS, checking the tag. */
grove_packet *it_recv(grove_net *net, grove_stream *s, int32_t want_tag);
/* Receive a "%d" packet on s and return its value. */
int32_t it_recv_int(grove_net *net, grove_stream *s, int32_t want_tag);
/* Asks every back-end for its rank on a new sum stream and checks the
 * result, 0 + 1 + ... + (n - 1); the stream is destroyed after. */
void it_check_rank_sum(grove_net *net);
/* A TCP connection to host:port (a Grove listening port, for tests that
 * play a misbehaving peer); fails the test if it cannot be made. */
int it_dial(const char *host, uint16_t port);
/* Receive a point-to-point reply ("%d") from rank; returns the value. */
int32_t it_recv_p2p_int(grove_net *net, uint32_t rank, int32_t want_tag);

/* A concat result: values (as int64) and per-element source ranks. */
typedef struct it_concat {
	int64_t *val;
	uint32_t *rank; /* NULL when the result carries no ranks */
	uint64_t n;
} it_concat;
/* Decode a concat result of an integer array; frees with it_concat_free. */
void it_concat_decode(const grove_packet *p, it_concat *out);
void it_concat_free(it_concat *c);

/* ---- processes -------------------------------------------------------- */

/* Live (not zombie) descendants of this process: fills pids (up to cap)
 * and returns how many there are.  name_filter (may be NULL) keeps only
 * processes whose command line contains it. */
size_t it_descendants(pid_t *pids, size_t cap, const char *name_filter);
/* Live descendants of pid (its whole subtree, pid excluded). */
size_t it_descendants_of(pid_t root, pid_t *pids, size_t cap,
    const char *name_filter);
/* The parent of pid, or -1. */
pid_t it_ppid(pid_t pid);
/* 1 when pid exists and is not a zombie. */
int it_alive(pid_t pid);
/* The state letter of /proc/PID/stat ('T': stopped), '?' if none. */
char it_proc_state(pid_t pid);
/* Reap zombie children that nobody else waits for (orphans reparented
 * to this subreaper). */
void it_reap_zombies(void);
/* Wait up to ms until none of pids[0..n) is alive (reaping zombies);
 * returns how many are still alive. */
size_t it_wait_gone(const pid_t *pids, size_t n, int ms);
/* Wait up to ms until this process has no live descendant except those
 * in keep[0..nkeep); fails the test listing the survivors otherwise. */
void it_check_no_procs(const pid_t *keep, size_t nkeep, int ms);
/* Attached BEs the test started (pids[0..n), index = rank) must all exit
 * with status 0 within ms after grove_net_destroy; fails the test naming
 * the first that does not. */
void it_wait_attached_exit(const pid_t *pids, uint32_t n, int ms);
/* SIGKILL every descendant (and their process groups). */
void it_kill_descendants(void);

/* Resident set size of this process, bytes (VmRSS / VmHWM). */
size_t it_vm_rss(void);
size_t it_vm_hwm(void);

/* Milliseconds on a monotonic clock. */
uint64_t it_now_ms(void);
void it_sleep_ms(long ms);

#endif
