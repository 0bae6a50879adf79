/* be_worker: the back-end of `grove demo`, `grove bench micro` and the
 * integration tests.  It answers the requests of worker_protocol.h on the
 * stream they came on (stream 0: point-to-point to the front-end).
 *
 *   be_worker                              started by Grove (spawn mode)
 *   be_worker --attach FILE --rank R       attach mode, connection file
 *                                          (no --rank: the rank srun or
 *                                          mpirun gave, see launcher_rank)
 *   be_worker --attach-to HOST PORT PARENT NODE --rank R --backends N
 *                                          attach mode, the fields of a
 *                                          grove_attach_info record; the
 *                                          secret is one line on stdin
 *
 * Bad requests are reported on stderr and skipped: a worker never dies
 * because of what it was sent, except on WORKER_CRASH, whose job is that.
 * Tests start it a thousand times at once, so it stays small: no threads,
 * no buffers of its own, nothing read at start-up besides the bootstrap.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "grove/backend.h"
#include "grove/packet.h"
#include "../src/proto/worker_protocol.h"

/* Largest WORKER_ARRAY reply: 64 Mi elements (256 MiB) is far beyond what
 * any test asks for and still fails cleanly if memory is short. */
#define WORKER_ARRAY_MAX (64u << 20)

/* Consecutive receive errors (other than a closed network) after which the
 * connection is considered broken rather than momentarily unhappy. */
#define WORKER_MAX_RECV_ERRORS 100

typedef struct worker {
	grove_be *be;
	uint32_t rank;
	int argc;
	char **argv;
} worker;

static void
sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
	    .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void
bad_request(const worker *w, int32_t tag, const char *fmt, int rc)
{
	fprintf(stderr, "be_worker[%u]: tag %d: request is not \"%s\": %s\n",
	    w->rank, tag, fmt, grove_strerror(rc));
}

static void
send_failed(const worker *w, int32_t tag, int rc)
{
	fprintf(stderr, "be_worker[%u]: tag %d: reply failed: %s (%s)\n",
	    w->rank, tag, grove_strerror(rc), grove_be_last_error(w->be));
}

/* Reads the single "%d" argument of a request; 0 or a grove_err. */
static int
arg_int(const worker *w, const grove_packet *p, int32_t tag, int32_t *v)
{
	int rc = grove_packet_unpack(p, "%d", v);
	if (rc < 0)
		bad_request(w, tag, "%d", rc);
	return rc;
}

static void
do_burst(const worker *w, uint32_t stream, int32_t tag, const grove_packet *p)
{
	int32_t count, v;
	int rc = grove_packet_unpack(p, "%d %d", &count, &v);
	if (rc < 0) {
		bad_request(w, tag, "%d %d", rc);
		return;
	}
	if (count < 0) {
		fprintf(stderr, "be_worker[%u]: burst count %d < 0\n",
		    w->rank, count);
		return;
	}
	for (int32_t i = 0; i < count; i++) {
		rc = grove_be_send(w->be, stream, tag, "%d", v);
		if (rc < 0) {
			send_failed(w, tag, rc);
			return;
		}
	}
	rc = grove_be_flush(w->be, -1);
	if (rc < 0)
		send_failed(w, tag, rc);
}

/* WORKER_SEQ: count packets "%d" first, first + 1, ..., then flushed. */
static void
do_seq(const worker *w, uint32_t stream, int32_t tag, const grove_packet *p)
{
	int32_t first, count;
	int rc = grove_packet_unpack(p, "%d %d", &first, &count);
	if (rc < 0) {
		bad_request(w, tag, "%d %d", rc);
		return;
	}
	if (count < 0 || first > INT32_MAX - count) {
		fprintf(stderr, "be_worker[%u]: sequence %d + %d out of range\n",
		    w->rank, first, count);
		return;
	}
	for (int32_t i = 0; i < count; i++) {
		rc = grove_be_send(w->be, stream, tag, "%d", first + i);
		if (rc < 0) {
			send_failed(w, tag, rc);
			return;
		}
	}
	rc = grove_be_flush(w->be, -1);
	if (rc < 0)
		send_failed(w, tag, rc);
}

/* count "%d" 1 packets on stream, then flushed. */
static int
send_ones(const worker *w, uint32_t stream, int32_t tag, int32_t count)
{
	for (int32_t i = 0; i < count; i++) {
		int rc = grove_be_send(w->be, stream, tag, "%d", 1);
		if (rc < 0) {
			send_failed(w, tag, rc);
			return rc;
		}
	}
	return 0;
}

static void
do_cross(const worker *w, uint32_t stream, int32_t tag, const grove_packet *p)
{
	int32_t count;
	uint32_t other;
	int rc = grove_packet_unpack(p, "%d %ud", &count, &other);
	if (rc < 0) {
		bad_request(w, tag, "%d %ud", rc);
		return;
	}
	uint32_t first = w->rank % 2 ? other : stream;
	uint32_t second = w->rank % 2 ? stream : other;
	if (send_ones(w, first, tag, count) == 0 &&
	    send_ones(w, second, tag, count) == 0 &&
	    (rc = grove_be_flush(w->be, -1)) < 0)
		send_failed(w, tag, rc);
}

static void
do_big_burst(const worker *w, uint32_t stream, int32_t tag,
    const grove_packet *p)
{
	int32_t count, bytes;
	int rc = grove_packet_unpack(p, "%d %d", &count, &bytes);
	if (rc < 0) {
		bad_request(w, tag, "%d %d", rc);
		return;
	}
	uint8_t *buf = bytes >= 0 ? malloc((size_t)bytes + 1) : NULL;
	if (!buf) {
		fprintf(stderr, "be_worker[%u]: big burst of %d bytes refused\n",
		    w->rank, bytes);
		return;
	}
	memset(buf, 1, (size_t)bytes);
	for (int32_t i = 0; i < count; i++) {
		rc = grove_be_send(w->be, stream, tag, "%auc", buf,
		    (uint64_t)bytes);
		if (rc < 0) {
			send_failed(w, tag, rc);
			break;
		}
	}
	free(buf);
	if (rc >= 0 && (rc = grove_be_flush(w->be, -1)) < 0)
		send_failed(w, tag, rc);
}

static void
do_array(const worker *w, uint32_t stream, int32_t tag, const grove_packet *p)
{
	int32_t n;
	if (arg_int(w, p, tag, &n) < 0)
		return;
	if (n < 0 || (uint32_t)n > WORKER_ARRAY_MAX) {
		fprintf(stderr, "be_worker[%u]: array length %d out of "
		    "[0, %u]\n", w->rank, n, WORKER_ARRAY_MAX);
		return;
	}
	int32_t *a = malloc(((size_t)n + 1) * sizeof *a);
	if (!a) {
		fprintf(stderr, "be_worker[%u]: no memory for %d elements\n",
		    w->rank, n);
		return;
	}
	/* Unsigned arithmetic: large ranks times 1000 wrap instead of being
	 * undefined; the receiver computes the same wrapped values. */
	for (int32_t i = 0; i < n; i++)
		a[i] = (int32_t)(w->rank * 1000u + (uint32_t)i);
	int rc = grove_be_send(w->be, stream, tag, "%ad", a, (uint64_t)n);
	free(a);
	if (rc < 0)
		send_failed(w, tag, rc);
}

static void
do_info(const worker *w, uint32_t stream, int32_t tag)
{
	char host[256];
	double load[1] = {0.0};
	if (gethostname(host, sizeof host) < 0)
		strcpy(host, "?");
	host[sizeof host - 1] = '\0';
	if (getloadavg(load, 1) < 1)
		load[0] = 0.0;
	int rc = grove_be_send(w->be, stream, tag, "%lf %uld %s", load[0],
	    (uint64_t)w->rank, host);
	if (rc < 0)
		send_failed(w, tag, rc);
}

static void
do_args(const worker *w, uint32_t stream, int32_t tag)
{
	size_t n = 1;
	for (int i = 1; i < w->argc; i++)
		n += strlen(w->argv[i]) + 1;
	char *s = malloc(n);
	if (!s) {
		fprintf(stderr, "be_worker[%u]: tag %d: out of memory\n",
		    w->rank, tag);
		return;
	}
	char *p = s;
	for (int i = 1; i < w->argc; i++) {
		size_t l = strlen(w->argv[i]);
		memcpy(p, w->argv[i], l);
		p += l;
		*p++ = '\n';
	}
	*p = '\0';
	int rc = grove_be_send(w->be, stream, tag, "%s", s);
	free(s);
	if (rc < 0)
		send_failed(w, tag, rc);
}

static void
do_digest(const worker *w, uint32_t stream, int32_t tag,
    const grove_packet *p, uint64_t recv_ns)
{
	const uint8_t *b = NULL;
	uint64_t n = 0, at = 0;
	const char *fmt = tag == WORKER_DIGEST_AT ? "%auc %uld" : "%auc";
	int rc = grove_packet_unpack(p, fmt, &b, &n, &at);
	if (rc < 0) {
		bad_request(w, tag, fmt, rc);
		return;
	}
	if (at > recv_ns) {
		/* A leaf: nobody waits for this process meanwhile. */
		struct timespec ts = {(time_t)(at / 1000000000ull),
		    (long)(at % 1000000000ull)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		    NULL) == EINTR)
			;
	}
	rc = grove_be_send(w->be, stream, tag, "%uld %uld %uld", n,
	    worker_digest(b, n), recv_ns);
	if (rc < 0)
		send_failed(w, tag, rc);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Aborts without leaving a core file behind: fault tests kill many
 * workers and only want the parent to see an abrupt end. */
static void
crash(void)
{
	struct rlimit rl = {0, 0};
	setrlimit(RLIMIT_CORE, &rl);
	abort();
}

/* Handles one request.  Returns 1 when the worker should exit. */
static int
handle(worker *w, uint32_t stream, int32_t tag, grove_packet *p,
    uint64_t recv_ns)
{
	int32_t v;
	int rc = 0;

	switch (tag) {
	case WORKER_ECHO:
		if (arg_int(w, p, tag, &v) < 0)
			return 0;
		/* The request itself goes back up (re-sourced to this rank). */
		rc = grove_be_send_packet(w->be, stream, p);
		break;
	case WORKER_RANK:
		rc = grove_be_send(w->be, stream, tag, "%d", (int)w->rank);
		break;
	case WORKER_SRC:
		rc = grove_be_send(w->be, stream, tag, "%ud",
		                   grove_packet_src(p));
		break;
	case WORKER_ODD_FORMAT: {
		int32_t odd = -1;
		if (grove_packet_unpack(p, "%d", &odd) == 0 &&
		    (uint32_t)odd == w->rank)
			rc = grove_be_send(w->be, stream, tag, "%lf",
			    (double)w->rank);
		else
			rc = grove_be_send(w->be, stream, tag, "%d",
			    (int)w->rank);
		break;
	}
	case WORKER_BURST:
		do_burst(w, stream, tag, p);
		return 0;
	case WORKER_SEQ:
		do_seq(w, stream, tag, p);
		return 0;
	case WORKER_CROSS:
		do_cross(w, stream, tag, p);
		return 0;
	case WORKER_BIG_BURST:
		do_big_burst(w, stream, tag, p);
		return 0;
	case WORKER_CLOCK:
		rc = grove_be_send(w->be, stream, tag, "%ld",
		    grove_be_clock_ns(w->be));
		break;
	case WORKER_AVG:
		rc = grove_be_send(w->be, stream, tag, "%lf %d",
		    (double)w->rank + 0.5, 1);
		break;
	case WORKER_ARRAY:
		do_array(w, stream, tag, p);
		return 0;
	case WORKER_INFO:
		do_info(w, stream, tag);
		return 0;
	case WORKER_ARGS:
		do_args(w, stream, tag);
		return 0;
	case WORKER_SLOW:
		if (arg_int(w, p, tag, &v) < 0)
			return 0;
		if (v < 0) {
			fprintf(stderr, "be_worker[%u]: slow: %d ms < 0\n",
			    w->rank, v);
			return 0;
		}
		sleep_ms(v);
		rc = grove_be_send(w->be, stream, tag, "%d", (int)w->rank);
		break;
	case WORKER_CRASH:
		if (arg_int(w, p, tag, &v) < 0)
			return 0;
		if (v >= 0 && (uint32_t)v == w->rank)
			crash();
		return 0;
	case WORKER_EXIT:
		return 1;
	case WORKER_STALL:
		if (arg_int(w, p, tag, &v) < 0)
			return 0;
		if (v >= 0 && (uint32_t)v == w->rank)
			sleep_ms(3000);
		return 0;
	case WORKER_DIGEST:
	case WORKER_DIGEST_AT:
		do_digest(w, stream, tag, p, recv_ns);
		return 0;
	default:
		fprintf(stderr, "be_worker[%u]: unknown tag %d on stream %u "
		    "(ignored)\n", w->rank, tag, stream);
		return 0;
	}
	if (rc < 0)
		send_failed(w, tag, rc);
	return 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: be_worker                 (started by grove)\n"
	    "       be_worker --attach FILE [--rank R]\n"
	    "                 (no --rank: SLURM_PROCID or OMPI_COMM_WORLD_RANK)\n"
	    "       be_worker --attach-to HOST PORT PARENT NODE --rank R "
	    "--backends N\n"
	    "                 (the network secret: one line on stdin)\n");
	return 2;
}

/* Parses a rank; -1 when it is not a plain decimal number. */
static long
parse_rank(const char *s)
{
	char *end;
	errno = 0;
	unsigned long r = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || r > UINT32_MAX)
		return -1;
	return (long)r;
}

/* --attach without --rank: the rank a parallel launcher gave this
 * process (srun: SLURM_PROCID; Open MPI's mpirun: OMPI_COMM_WORLD_RANK),
 * so that `srun -n N be_worker --attach FILE` starts ranks 0..N-1; -1
 * when none did. */
static long
launcher_rank(const char **from)
{
	static const char *const vars[] = {"SLURM_PROCID",
	    "OMPI_COMM_WORLD_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			*from = vars[i];
			return parse_rank(v);
		}
	}
	return -1;
}

/* The secret of --attach-to: one line on stdin, never on the command
 * line, where every user could read it. */
static int
attach_to(char **fields, uint32_t rank, uint32_t backends, grove_be **out)
{
	long port = parse_rank(fields[1]), parent = parse_rank(fields[2]);
	long node = parse_rank(fields[3]);
	if (port < 1 || port > 65535 || parent < 0 || node < 0) {
		fprintf(stderr, "be_worker: bad --attach-to port, parent or "
		    "node\n");
		return GROVE_EINVAL;
	}
	char secret[128] = "";
	if (!fgets(secret, sizeof secret, stdin)) {
		fprintf(stderr, "be_worker: no secret on stdin\n");
		return GROVE_EINVAL;
	}
	secret[strcspn(secret, "\r\n")] = '\0';
	int rc = grove_be_attach_to(fields[0], (uint16_t)port,
	    (uint32_t)parent, (uint32_t)node, rank, backends, secret, out);
	memset(secret, 0, sizeof secret);
	return rc;
}

/* Every large message arrives in a buffer of its own (see
 * grove-commnode's keep_frame_memory): keep freed buffers in the heap so
 * the next message reuses their pages instead of faulting in fresh ones. */
static void
keep_frame_memory(void)
{
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int
main(int argc, char **argv)
{
	const char *attach = NULL;
	char **attach_fields = NULL; /* --attach-to HOST PORT PARENT NODE */
	long rank = -1, backends = -1;
	worker w = {0};
	int rc;

	keep_frame_memory();
	w.argc = argc;
	w.argv = argv;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--attach") && i + 1 < argc) {
			attach = argv[++i];
		} else if (!strcmp(argv[i], "--attach-to") && i + 4 < argc) {
			attach_fields = &argv[i + 1];
			i += 4;
		} else if (!strcmp(argv[i], "--backends") && i + 1 < argc) {
			backends = parse_rank(argv[++i]);
			if (backends < 1) {
				fprintf(stderr, "be_worker: bad back-end count "
				    "'%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--rank") && i + 1 < argc) {
			rank = parse_rank(argv[++i]);
			if (rank < 0) {
				fprintf(stderr, "be_worker: bad rank '%s'\n",
				    argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "-h") ||
		    !strcmp(argv[i], "--help")) {
			usage();
			return 0;
		}
		/* Anything else belongs to the tool that started us. */
	}

	if (attach) {
		const char *from = NULL;
		if (rank < 0 && (rank = launcher_rank(&from)) < 0) {
			if (from)
				fprintf(stderr, "be_worker: bad rank in %s\n", from);
			return usage();
		}
		rc = grove_be_attach(attach, (uint32_t)rank, &w.be);
	} else if (attach_fields) {
		if (rank < 0 || backends < 0)
			return usage();
		rc = attach_to(attach_fields, (uint32_t)rank,
		    (uint32_t)backends, &w.be);
	} else {
		rc = grove_be_init(&argc, &argv, &w.be);
	}
	if (rc < 0) {
		fprintf(stderr, "be_worker: cannot join the network: %s%s%s\n",
		    grove_strerror(rc), w.be ? ": " : "",
		    w.be ? grove_be_last_error(w.be) : "");
		if (rc == GROVE_ENOENT && !attach && !attach_fields)
			fprintf(stderr, "be_worker: not started by grove; "
			    "use --attach FILE --rank R\n");
		if (w.be)
			grove_be_destroy(w.be);
		return 1;
	}
	w.rank = grove_be_rank(w.be);

	int errors = 0, status = 0;
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		rc = grove_be_recv(w.be, &stream, &tag, &p, -1);
		/* Only the digest requests report when they arrived. */
		uint64_t recv_ns = rc == 0 && (tag == WORKER_DIGEST ||
		    tag == WORKER_DIGEST_AT) ? now_ns() : 0;
		if (rc == GROVE_ECLOSED)
			break;
		if (rc < 0) {
			fprintf(stderr, "be_worker[%u]: receive: %s (%s)\n",
			    w.rank, grove_strerror(rc),
			    grove_be_last_error(w.be));
			if (++errors >= WORKER_MAX_RECV_ERRORS) {
				status = 1;
				break;
			}
			continue;
		}
		errors = 0;
		int stop = handle(&w, stream, tag, p, recv_ns);
		grove_packet_unref(p);
		if (stop)
			break;
	}
	grove_be_destroy(w.be);
	return status;
}
