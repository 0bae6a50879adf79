/* Peers of another Grove protocol version are refused with both versions
 * named, wherever they meet:
 *
 *   hello    a child (this program, started as a back-end or a CP with
 *            GROVE_IT_FAKE_PEER set) proves the secret with a hello that
 *            claims another protocol: the parent tells it why in a
 *            proven AUTH_REJECT, and the create fails with that reason;
 *   challenge a fake parent's challenge claims another protocol:
 *            grove_be_attach_to fails with GROVE_EPROTO naming both;
 *   connfile a connection file of another protocol, or one without the
 *            protocol line: grove_be_attach refuses it, and a real
 *            back-end still attaches with the front-end's own file;
 *   bootstrap the CP program gets a bootstrap of another protocol (a
 *            wrapper rewrites its first line): it says so on stderr and
 *            exits with status 3, and the front-end's error says why it
 *            never connected.
 */
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/backend.h"
#include "grove/error.h"
#include "helper_common.h"
#include "fake_child.h"
#include "net/auth.h"
#include "tbon/proto.h"

/* ---- the fake child ----------------------------------------------------- */

/* GROVE_IT_FAKE_PEER is "AUX FILE": the hello claims protocol AUX, the
 * parent's reason goes to FILE. */
static int
fake_peer(const char *how)
{
	unsigned aux = 0;
	char path[4096] = "", why[512] = "";
	if (sscanf(how, "%u %4095s", &aux, path) != 2)
		return 2;
	fake_child f;
	int rc = fake_join_as(&f, aux, why, sizeof why);
	if (rc == 0) {
		FILE *o = fopen(path, "w");
		if (!o || fputs(why, o) < 0 || fclose(o) != 0)
			rc = 1;
	}
	fake_leave(&f);
	return rc;
}

/* ---- the test ----------------------------------------------------------- */

static char self_exe[4096];

static void
hello(const char *topology, int fake_cps, uint32_t aux, uint32_t claims)
{
	it_step("--- %s: a %s's hello claims protocol %u", topology,
	    fake_cps ? "CP" : "back-end", claims);
	char out[4200], env[4300];
	snprintf(out, sizeof out, "%s/why-%u", it_tmpdir(), aux);
	unlink(out);
	snprintf(env, sizeof env, "%u %s", aux, out);
	setenv(FAKE_ENV, env, 1);
	grove_net_opts o;
	it_net_opts(&o, topology, 4);
	if (fake_cps)
		o.commnode_exe = self_exe;
	else
		o.be_exe = self_exe;
	grove_net *net = NULL;
	int rc = grove_net_create(&o, &net);
	if (net)
		it_note_network(grove_net_id(net));
	it_step("create: %s: %s", grove_err_name(rc), net ?
	    grove_net_last_error(net) : "(no handle)");
	char want[200];
	snprintf(want, sizeof want, "speaks Grove protocol %u, its parent "
	    "(node 0) speaks %u: install the same Grove version on every "
	    "host", claims, GROVE_PROTOCOL);
	/* The front-end's error says why the child never joined. */
	CHECK_RC(rc, GROVE_ESPAWN);
	CHECK_STR_CONTAINS(grove_net_last_error(net), want);
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
	unsetenv(FAKE_ENV);
	/* What the parent told the child, with its proof. */
	char *why = it_slurp(out);
	it_step("the parent said: %s", why);
	CHECK_STR_CONTAINS(why, want);
	free(why);
}

/* A parent that sends one challenge claiming protocol aux, then waits
 * for the back-end to hang up. */
static void
challenge(uint32_t aux, uint32_t claims)
{
	it_step("--- a parent's challenge claims protocol %u", claims);
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(ls >= 0);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0);
	CHECK(listen(ls, 1) == 0);
	socklen_t sl = sizeof sa;
	CHECK(getsockname(ls, (struct sockaddr *)&sa, &sl) == 0);
	pid_t fake = fork();
	CHECK(fake >= 0);
	if (fake == 0) {
		int fd = accept(ls, NULL, NULL);
		uint8_t np[AUTH_NONCE_LEN] = {1};
		grove_packet *ch = NULL;
		if (fd < 0 || wire_pack(&ch, WIRE_T_AUTH_CHALLENGE, 0, 0,
		    PROTO_NODE_RANK(0), aux, "%auc", np,
		    (uint64_t)AUTH_NONCE_LEN) != 0 || fake_send(fd, ch) != 0)
			_exit(1);
		char b[64];
		while (read(fd, b, sizeof b) > 0)
			;
		_exit(0);
	}
	close(ls);
	char hex[65];
	memset(hex, 'a', 64);
	hex[64] = 0;
	grove_be *be = NULL;
	int rc = grove_be_attach_to("127.0.0.1", ntohs(sa.sin_port), 0, 1, 0,
	    1, hex, &be);
	it_step("attach -> %s: %s", grove_err_name(rc), grove_be_last_error(be));
	CHECK_RC(rc, GROVE_EPROTO);
	char want[300];
	snprintf(want, sizeof want, "the parent speaks Grove protocol %u, this "
	    "%s speaks %u: install the same Grove version on every host",
	    claims, self_exe, GROVE_PROTOCOL);
	CHECK_STR_CONTAINS(grove_be_last_error(be), want);
	grove_be_destroy(be);
	int st = 0;
	CHECK(waitpid(fake, &st, 0) == fake);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Writes text to path. */
static void
put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	CHECK(fputs(text, f) >= 0);
	CHECK(fclose(f) == 0);
}

static void
connfile(void)
{
	it_step("--- connection files of another protocol");
	char file[4200], other[4300];
	snprintf(file, sizeof file, "%s/net.conn", it_tmpdir());
	snprintf(other, sizeof other, "%s/other.conn", it_tmpdir());
	grove_net_opts o;
	it_attach_opts(&o, "kary:2", 2, file);
	grove_net *net = it_net_create(&o);
	char *text = it_slurp(file);
	char *rest = strchr(text, '\n');
	CHECK(rest != NULL);
	char *edited = malloc(strlen(text) + 64);
	CHECK(edited != NULL);
	/* A later protocol, and none at all. */
	struct {
		const char *first; /* NULL: no protocol line */
		char says[256];
	} cases[2] = {{NULL, ""}, {NULL, ""}};
	char later[64];
	snprintf(later, sizeof later, "# grove connection file, protocol %u",
	    GROVE_PROTOCOL + 1);
	cases[0].first = later;
	snprintf(cases[0].says, sizeof cases[0].says, "written by Grove "
	    "protocol %u, this back-end speaks %u: install the same Grove "
	    "version on every host", GROVE_PROTOCOL + 1, GROVE_PROTOCOL);
	snprintf(cases[1].says, sizeof cases[1].says, "line 1: not '# grove "
	    "connection file, protocol %u' (a file from a Grove before protocol "
	    "2, or written by hand without that line)", GROVE_PROTOCOL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sprintf(edited, "%s%s", cases[i].first ? cases[i].first : "",
		    cases[i].first ? rest : rest + 1);
		put_file(other, edited);
		grove_be *be = NULL;
		int rc = grove_be_attach(other, 0, &be);
		it_step("attach -> %s: %s", grove_err_name(rc),
		    grove_be_last_error(be));
		CHECK_RC(rc, GROVE_EPROTO);
		char want[4600];
		snprintf(want, sizeof want, "connection file %s: %s", other,
		    cases[i].says);
		CHECK_STR_CONTAINS(grove_be_last_error(be), want);
		grove_be_destroy(be);
	}
	unlink(other);
	free(edited);
	free(text);
	/* Nothing was dialled: the real back-ends take both ranks. */
	pid_t be[2];
	for (uint32_t r = 0; r < 2; r++)
		be[r] = it_start_attached_be(file, r);
	CHECK_OK_NET(net, grove_net_wait_backends(net, 2, IT_RECV_MS));
	it_check_rank_sum(net);
	grove_net_destroy(net);
	it_wait_attached_exit(be, 2, 10000);
	it_check_no_procs(NULL, 0, 5000);
}

static void
bootstrap(void)
{
	it_step("--- a CP program of another protocol");
	char wrapper[4200], err[4200], real[PATH_MAX], script[9000];
	snprintf(wrapper, sizeof wrapper, "%s/commnode-99", it_tmpdir());
	snprintf(err, sizeof err, "%s/commnode-99.err", it_tmpdir());
	CHECK(realpath(it_commnode_path(), real) != NULL);
	/* To the CP its parent seems to speak protocol 99. */
	snprintf(script, sizeof script, "#!/bin/sh\n"
	    "{ read -r first; echo 'grove-bootstrap protocol 99'; cat; } | "
	    "'%s' 2>'%s'\n", real, err);
	put_file(wrapper, script);
	CHECK(chmod(wrapper, 0700) == 0);
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 4);
	o.commnode_exe = wrapper;
	grove_net *net = NULL;
	int rc = grove_net_create(&o, &net);
	if (net)
		it_note_network(grove_net_id(net));
	it_step("create: %s: %s", grove_err_name(rc), net ?
	    grove_net_last_error(net) : "(no handle)");
	CHECK_RC(rc, GROVE_ESPAWN);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "exited with status 3 "
	    "before connecting (its grove-commnode speaks another Grove "
	    "protocol and refused the bootstrap: install the same Grove "
	    "version on every host)");
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
	char *said = it_slurp(err);
	it_step("the CP said: %s", said);
	char want[PATH_MAX + 200];
	snprintf(want, sizeof want, "grove-commnode: the parent speaks Grove "
	    "protocol 99, this %s speaks %u: install the same Grove version "
	    "on every host\n", real, GROVE_PROTOCOL);
	CHECK_STR_CONTAINS(said, want);
	free(said);
}

int
main(void)
{
	const char *how = getenv(FAKE_ENV);
	if (how)
		return fake_peer(how);
	it_init("it_protocol", 240);
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	CHECK(n > 0);
	self_exe[n] = '\0';

	hello("flat", 0, GROVE_PROTOCOL + 1, GROVE_PROTOCOL + 1);
	/* aux 0: a Grove from before the number. */
	hello("kary:2", 1, 0, 1);
	challenge(GROVE_PROTOCOL + 1, GROVE_PROTOCOL + 1);
	challenge(0, 1);
	connfile();
	bootstrap();
	return it_done();
}
