/* Attach mode: Grove builds the CPs and writes a connection file; the test
 * starts the back-ends itself, as a job launcher would, and the FE learns
 * of each arrival.  Then the same without a file: the FE takes each BE's
 * record and the secret from the API (grove_net_attach_info,
 * grove_net_attach_secret) and hands them to the BEs it starts; a BE with
 * a wrong secret is turned away.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/backend.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* The first line of a connection file of this Grove's protocol
 * (src/tbon/connfile.h), GROVE_PROTOCOL from the wire format. */
static char conn_head[64];
#define CONN_HEAD (conn_head[0] ? conn_head : (snprintf(conn_head, \
    sizeof conn_head, "# grove connection file, protocol %u\n", \
    GROVE_PROTOCOL), conn_head))

#define MAX_BE 64

typedef struct attach_log {
	uint32_t n;
	int seen[MAX_BE];
	int other; /* events that are not attachments */
} attach_log;

static void
on_event(grove_net *net, const grove_event *ev, void *arg)
{
	attach_log *log = arg;
	if (ev->type == GROVE_EV_BE_ATTACHED && ev->rank_lo < log->n)
		log->seen[ev->rank_lo]++;
	else
		log->other++;
}


/* The connection file: "secret HEX", "backends N", then "rank host port
 * parent node" for every rank, matching grove_net_attach_info(). */
static void
check_connect_file(grove_net *net, const char *path, uint32_t n)
{
	struct stat st;
	CHECK(stat(path, &st) == 0);
	CHECK(S_ISREG(st.st_mode));
	if ((st.st_mode & 0777) != 0600)
		IT_FAIL("connection file %s has mode %03o, expected 600", path,
		    (unsigned)(st.st_mode & 0777));

	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	char line[512], word[32], secret[128];
	/* The protocol line first, then "secret HEX". */
	CHECK(fgets(line, sizeof line, f) != NULL);
	if (strcmp(line, CONN_HEAD))
		IT_FAIL("connection file line 1 \"%s\" is not \"%s\"", line,
		    CONN_HEAD);
	CHECK(fgets(line, sizeof line, f) != NULL);
	CHECK(sscanf(line, "%31s %127s", word, secret) == 2);
	CHECK(strcmp(word, "secret") == 0);
	CHECK_UINT_EQ(strlen(secret), 64);
	CHECK_UINT_EQ(strspn(secret, "0123456789abcdefABCDEF"), 64);

	/* "backends N" */
	unsigned nb = 0;
	CHECK(fgets(line, sizeof line, f) != NULL);
	if (sscanf(line, "backends %u", &nb) != 1)
		IT_FAIL("connection file line 3 \"%s\" is not \"backends N\"",
		    line);
	CHECK_UINT_EQ(nb, n);

	int *listed = calloc(n, sizeof *listed);
	CHECK(listed != NULL);
	uint32_t lines = 0;
	const grove_topo *t = grove_net_topology(net);
	while (fgets(line, sizeof line, f)) {
		unsigned rank, port, parent, node;
		char host[256];
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (sscanf(line, "%u %255s %u %u %u", &rank, host, &port,
		    &parent, &node) != 5)
			IT_FAIL("connection file line \"%s\" is not "
			    "\"rank host port parent node\"", line);
		CHECK(rank < n);
		CHECK_INT_EQ(listed[rank], 0);
		listed[rank] = 1;
		lines++;

		grove_attach_info ai;
		CHECK_OK_NET(net, grove_net_attach_info(net, rank, &ai));
		CHECK_UINT_EQ(ai.rank, rank);
		CHECK(ai.host && strcmp(ai.host, host) == 0);
		CHECK_UINT_EQ(ai.port, port);
		CHECK(port > 0);
		CHECK_UINT_EQ(ai.parent, parent);
		CHECK_UINT_EQ(ai.node, node);
		/* Both match the topology. */
		CHECK_INT_EQ(grove_topo_be_node(t, rank), node);
		CHECK_INT_EQ(grove_topo_node_at(t, node)->parent, parent);
	}
	fclose(f);
	CHECK_UINT_EQ(lines, n);
	free(listed);

	grove_attach_info ai;
	CHECK(grove_net_attach_info(net, n, &ai) < 0);
}

static void
attach_case(const char *topo, uint32_t n)
{
	char path[4096];
	attach_log log;
	pid_t pids[MAX_BE];

	CHECK(n <= MAX_BE);
	it_step("--- attach, %s with %u backends", topo, n);
	snprintf(path, sizeof path, "%s/%s-%u.conn", it_tmpdir(),
	    strchr(topo, ':') ? "tree" : topo, n);

	/* A link planted where the file is written first (PATH.tmp) is not
	 * followed: the file it points to keeps its content. */
	char tmp[4200], victim[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	snprintf(victim, sizeof victim, "%s.victim", path);
	FILE *vf = fopen(victim, "w");
	CHECK(vf != NULL);
	fputs("victim\n", vf);
	fclose(vf);
	CHECK(symlink(victim, tmp) == 0);

	grove_net_opts o;
	it_attach_opts(&o, topo, n, path);
	grove_net *net = NULL;
	CHECK_OK_NET(net, grove_net_create(&o, &net));
	CHECK(net != NULL);
	CHECK_UINT_EQ(grove_net_backends(net), n);
	CHECK_UINT_EQ(grove_net_backends_up(net), 0);
	check_connect_file(net, path, n);
	char *v = it_slurp(victim);
	CHECK(strcmp(v, "victim\n") == 0);
	free(v);
	CHECK(access(tmp, F_OK) != 0);
	unlink(victim);

	memset(&log, 0, sizeof log);
	log.n = n;
	int rc;
	grove_net_on_event(net, on_event, &log);

	/* All but one first: waiting for all of them times out. */
	for (uint32_t r = 0; r + 1 < n; r++)
		pids[r] = it_start_attached_be(path, r);
	CHECK_OK_NET(net, grove_net_wait_backends(net, n - 1, IT_RECV_MS));
	CHECK_RC_NET(net, grove_net_wait_backends(net, n, 200),
	    GROVE_ETIMEDOUT);
	CHECK_UINT_EQ(grove_net_backends_up(net), n - 1);
	/* A rank that may still attach is not lost: try again later. */
	CHECK_RC_NET(net, grove_net_send_to(net, n - 1, WORKER_RANK, ""),
	    GROVE_EAGAIN);
	CHECK(strstr(grove_net_last_error(net), "not attached") != NULL);
	pids[n - 1] = it_start_attached_be(path, n - 1);
	/* A tool that polls with 0 (and runs no other call) still gets the
	 * handshake served. */
	for (int i = 0; i < IT_RECV_MS / 10; i++) {
		rc = grove_net_wait_backends(net, n, 0);
		if (rc != GROVE_ETIMEDOUT)
			break;
		it_sleep_ms(10);
	}
	CHECK_OK_NET(net, rc);
	CHECK_UINT_EQ(grove_net_backends_up(net), n);

	for (uint32_t r = 0; r < n; r++)
		if (log.seen[r] != 1)
			IT_FAIL("rank %u: %d GROVE_EV_BE_ATTACHED events, "
			    "expected 1", r, log.seen[r]);
	CHECK_INT_EQ(log.other, 0);

	/* The same events are queued for grove_net_next_event. */
	int queued[MAX_BE] = {0};
	grove_event ev;
	while ((rc = grove_net_next_event(net, &ev, 0)) == 0)
		if (ev.type == GROVE_EV_BE_ATTACHED && ev.rank_lo < n)
			queued[ev.rank_lo]++;
	CHECK_RC_NET(net, rc, GROVE_EAGAIN);
	for (uint32_t r = 0; r < n; r++)
		CHECK_INT_EQ(queued[r], 1);

	grove_stream *sum = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(sum, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, sum, WORKER_RANK),
	    (int64_t)n * (n - 1) / 2);
	CHECK_OK_NET(net, grove_net_send_to(net, n - 1, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_p2p_int(net, n - 1, WORKER_RANK), n - 1);
	CHECK_OK_NET(net, grove_stream_destroy(sum));

	/* Shutting down ends the attached BEs too: they exit cleanly. */
	grove_net_destroy(net);
	it_wait_attached_exit(pids, n, 5000);
	it_check_no_procs(NULL, 0, 5000);
	it_step("destroyed; attached BEs exited");
}

/* Waits for `pid` to exit while the FE keeps serving its links (a BE whose
 * parent is the FE needs it to answer the handshake); returns its status. */
static int
wait_exit_serving(grove_net *net, pid_t pid, const char *what)
{
	uint64_t end = it_now_ms() + IT_RECV_MS;
	int status = 0;
	pid_t w;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 &&
	    it_now_ms() < end) {
		CHECK_OK_NET(net, grove_net_progress(net));
		it_sleep_ms(5);
	}
	if (w != pid)
		IT_FAIL("%s (pid %d) still running after %d ms", what,
		    (int)pid, IT_RECV_MS);
	return status;
}

static void
attach_api_case(const char *topo, uint32_t n)
{
	pid_t pids[MAX_BE];
	attach_log log;

	CHECK(n <= MAX_BE);
	it_step("--- attach through the API only, %s with %u backends",
	    topo, n);
	grove_net_opts o;
	it_attach_opts(&o, topo, n, NULL);
	grove_net *net = NULL;
	CHECK_OK_NET(net, grove_net_create(&o, &net));
	CHECK(net != NULL);
	memset(&log, 0, sizeof log);
	log.n = n;
	grove_net_on_event(net, on_event, &log);

	/* The caller's buffer: too small is refused and left alone. */
	char secret[GROVE_SECRET_HEX_LEN + 1];
	memset(secret, 'x', sizeof secret);
	CHECK_RC_NET(net, grove_net_attach_secret(net, secret,
	    GROVE_SECRET_HEX_LEN), GROVE_ERANGE);
	CHECK_INT_EQ(secret[0], 'x');
	CHECK_RC_NET(net, grove_net_attach_secret(net, NULL, sizeof secret),
	    GROVE_EINVAL);
	CHECK_OK_NET(net, grove_net_attach_secret(net, secret, sizeof secret));
	CHECK_UINT_EQ(strlen(secret), GROVE_SECRET_HEX_LEN);
	CHECK_UINT_EQ(strspn(secret, "0123456789abcdef"),
	    GROVE_SECRET_HEX_LEN);

	/* A wrong secret (one digit changed): the parent rejects the BE,
	 * which cannot join, and the FE never counts it. */
	grove_attach_info ai;
	CHECK_OK_NET(net, grove_net_attach_info(net, 0, &ai));
	char wrong[sizeof secret];
	memcpy(wrong, secret, sizeof secret);
	wrong[GROVE_SECRET_HEX_LEN - 1] =
	    wrong[GROVE_SECRET_HEX_LEN - 1] == '0' ? '1' : '0';
	pid_t bad = it_start_attached_be_to(&ai, n, wrong);
	int status = wait_exit_serving(net, bad, "BE with a wrong secret");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
		IT_FAIL("BE with a wrong secret ended with status 0x%x, "
		    "expected exit 1 (cannot join)", (unsigned)status);
	CHECK_UINT_EQ(grove_net_backends_up(net), 0);
	it_step("BE with a wrong secret rejected");

	/* The right one: every BE joins and a reduction covers them all. */
	for (uint32_t r = 0; r < n; r++) {
		CHECK_OK_NET(net, grove_net_attach_info(net, r, &ai));
		pids[r] = it_start_attached_be_to(&ai, grove_net_backends(net),
		    secret);
	}
	memset(secret, 0, sizeof secret);
	CHECK_OK_NET(net, grove_net_wait_backends(net, n, IT_RECV_MS));
	CHECK_UINT_EQ(grove_net_backends_up(net), n);
	for (uint32_t r = 0; r < n; r++)
		CHECK_INT_EQ(log.seen[r], 1);
	CHECK_INT_EQ(log.other, 0);
	it_check_rank_sum(net);

	grove_net_destroy(net);
	it_wait_attached_exit(pids, n, 5000);
	it_check_no_procs(NULL, 0, 5000);
	it_step("destroyed; attached BEs exited");
}

/* A spawned network has no secret to give: nothing is meant to join it. */
static void
spawn_has_no_secret(void)
{
	it_step("--- no secret from a network in spawn mode");
	grove_net *net = it_net_spawn("flat", 1);
	char secret[GROVE_SECRET_HEX_LEN + 1];
	CHECK_RC_NET(net, grove_net_attach_secret(net, secret, sizeof secret),
	    GROVE_ENOTSUP);
	it_net_destroy(net);
}

/* grove_be_attach with a connection file it cannot use: the error code,
 * and a text that names the file, the line and what is wrong. */
static void
bad_connect_files(void)
{
	it_step("--- connection files grove_be_attach cannot use");
	static const struct {
		const char *text;
		int rc;
		const char *says;
	} cases[] = {
		{"secret 00\nbackends 1\n0 127.0.0.1 1 0 1\n", GROVE_EPROTO,
		    "line 2: 'secret' wants 64 hex digits"},
		{"backends 1\n0 127.0.0.1 1 0 1\n", GROVE_EPROTO,
		    "no 'secret' line"},
		{"secret 9c4501729be35f54c9aa43ad1f2ced6bac3b5fc186064a1cbd3928e"
		    "886713820\nbackends 1\n0 127.0.0.1 70000 0 1\n",
		    GROVE_EPROTO, "line 4: expected"},
		{"secret 9c4501729be35f54c9aa43ad1f2ced6bac3b5fc186064a1cbd3928e"
		    "886713820\nbackends 2\n1 127.0.0.1 7000 0 1\n",
		    GROVE_ENOENT, "no record for rank 0"},
		{"secret 9c4501729be35f54c9aa43ad1f2ced6bac3b5fc186064a1cbd3928e"
		    "886713820\nbackends 1\n0 127.0.0.1 7000 0 1\n"
		    "3 127.0.0.1 7000 0 1\n", GROVE_EPROTO,
		    "line 5: rank 3, but 'backends' is 1"},
		{"secret 9c4501729be35f54c9aa43ad1f2ced6bac3b5fc186064a1cbd3928e"
		    "886713820\n0 127.0.0.1 7000 0 1\n", GROVE_EPROTO,
		    "no 'backends' line"},
	};
	char path[4200];
	snprintf(path, sizeof path, "%s/bad.conn", it_tmpdir());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		fputs(CONN_HEAD, f);
		fputs(cases[i].text, f);
		fclose(f);
		grove_be *be = NULL;
		CHECK_INT_EQ(grove_be_attach(path, 0, &be), cases[i].rc);
		CHECK(be != NULL);
		const char *e = grove_be_last_error(be);
		it_step("error: %s", e);
		CHECK_STR_CONTAINS(e, path);
		CHECK_STR_CONTAINS(e, cases[i].says);
		grove_be_destroy(be);
	}
	unlink(path);
	grove_be *be = NULL;
	CHECK_INT_EQ(grove_be_attach(path, 0, &be), GROVE_ENOENT);
	CHECK(be != NULL);
	CHECK_STR_CONTAINS(grove_be_last_error(be), "No such file");
	grove_be_destroy(be);
}

int
main(void)
{
	it_init("it_attach", 120);
	bad_connect_files();
	attach_case("flat", 4);
	attach_case("kary:2", 8);
	attach_case("kary:4", 32);
	attach_api_case("flat", 3);
	attach_api_case("kary:2", 8);
	spawn_has_no_secret();
	return it_done();
}
