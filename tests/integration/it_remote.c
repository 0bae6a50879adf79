/* Launch on "other hosts": a host list names hosts that are not this one,
 * so Grove starts those processes through the remote shell instead of
 * fork/exec, and they connect back over TCP.  A stand-in remote shell
 * (fake_rsh.sh) runs the command here the way ssh would (the words after
 * the host joined with spaces, given to a shell) and logs which host and
 * options it was asked for.  Checked: back-end arguments with blanks,
 * quotes and shell syntax arrive intact and run nothing, whether the FE
 * or a remote CP starts the back-end; a remote shell setting with options
 * reaches every remote launch, CPs' included; a CP program and a back-end
 * whose paths have a '=' in them run (env would take them for
 * assignments); an empty setting is an error; a remote shell that cannot
 * start the program is reported with the host, and leaves nothing behind.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

static int
count_lines_with(const char *path, const char *word)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512];
	int k = 0;
	while (fgets(line, sizeof line, f))
		k += strstr(line, word) != NULL;
	fclose(f);
	return k;
}

/* Back-end arguments a shell would split, expand or run if they reached
 * it unquoted; each of the commands would create a file in the scratch
 * directory. */
static char pwned[3][4096];
static char inject[3][4200];
static char *be_argv[] = {"be_worker", "two  words", "it's", "",
    inject[0], inject[1], inject[2], "a\"b\\c", "*", "-n", NULL};

static void
make_args(void)
{
	for (int i = 0; i < 3; i++)
		snprintf(pwned[i], sizeof pwned[i], "%s/pwned%d", it_tmpdir(), i);
	snprintf(inject[0], sizeof inject[0], "x;touch %s", pwned[0]);
	snprintf(inject[1], sizeof inject[1], "$(touch %s)", pwned[1]);
	snprintf(inject[2], sizeof inject[2], "`touch %s`'; touch %s; '",
	    pwned[2], pwned[2]);
}

/* Every back-end reports the arguments it was started with. */
static void
check_args(grove_net *net, uint32_t backends)
{
	char want[16384] = "";
	for (int i = 1; be_argv[i]; i++) {
		strcat(want, be_argv[i]);
		strcat(want, "\n");
	}
	for (uint32_t r = 0; r < backends; r++) {
		CHECK_OK_NET(net, grove_net_send_to(net, r, WORKER_ARGS, ""));
		grove_stream *s = (grove_stream *)1;
		grove_packet *p = NULL;
		int32_t tag = 0;
		const char *got = NULL;
		CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, 30000));
		CHECK(s == NULL);
		CHECK_INT_EQ(tag, WORKER_ARGS);
		CHECK_UINT_EQ(grove_packet_src(p), r);
		CHECK_OK(grove_packet_unpack(p, "%s", &got));
		if (strcmp(got, want))
			IT_FAIL("back-end %u has arguments\n%s\nnot\n%s", r, got,
			    want);
		grove_packet_unref(p);
	}
	for (int i = 0; i < 3; i++)
		if (access(pwned[i], F_OK) == 0)
			IT_FAIL("an argument ran a command: %s exists", pwned[i]);
	it_step("%u back-ends have their %zu arguments intact, nothing ran",
	    backends, sizeof be_argv / sizeof *be_argv - 2);
}

int
main(void)
{
	char hosts[4096], rsh[4096], rsh_opts[4200], log[4096];
	it_init("it_remote", 120);
	make_args();
	snprintf(hosts, sizeof hosts, "%s/hosts", it_tmpdir());
	snprintf(log, sizeof log, "%s/rsh.log", it_tmpdir());
	snprintf(rsh, sizeof rsh, "%s/tests/integration/fake_rsh.sh",
	    it_source_dir());
	snprintf(rsh_opts, sizeof rsh_opts, " %s -o BatchMode=yes\t-x ", rsh);
	FILE *f = fopen(hosts, "w");
	CHECK(f != NULL);
	/* The FE stays on the first host; the rest go round-robin. */
	fprintf(f, "localhost:1\nfar-a.example.org:100\nfar-b.example.org:100\n");
	fclose(f);
	setenv("GROVE_FAKE_RSH_LOG", log, 1);

	it_step("--- kary:2, 8 back-ends on two remote hosts, rsh with options");
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 8);
	o.hosts_file = hosts;
	o.rsh = rsh_opts;
	o.be_argv = be_argv;
	o.bind_addr = "127.0.0.1"; /* the "remote" hosts are this machine */
	grove_net *net = it_net_create(&o);
	CHECK_UINT_EQ(grove_net_backends_up(net), 8);
	int far = count_lines_with(log, "far-a") + count_lines_with(log, "far-b");
	it_step("remote shell started %d processes", far);
	/* Every node but the FE is on a far host: 6 CPs and 8 BEs, the BEs
	 * started by remote CPs, which use the FE's options too. */
	CHECK_INT_EQ(far, 14);
	CHECK_INT_EQ(count_lines_with(log, "options: -o BatchMode=yes -x"), 14);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 28);
	CHECK_OK_NET(net, grove_net_send_to(net, 5, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_p2p_int(net, 5, WORKER_RANK), 5);
	check_args(net, 8);
	it_net_destroy(net);

	it_step("--- flat, 4 back-ends started by the FE through $GROVE_RSH");
	unlink(log);
	it_net_opts(&o, "flat", 4);
	o.hosts_file = hosts;
	o.be_argv = be_argv;
	o.bind_addr = "127.0.0.1";
	setenv("GROVE_RSH", rsh, 1);
	net = it_net_create(&o);
	unsetenv("GROVE_RSH");
	CHECK_INT_EQ(count_lines_with(log, "far-"), 4);
	CHECK_INT_EQ(count_lines_with(log, "options"), 0);
	check_args(net, 4);
	it_net_destroy(net);

	/* env, which sets GROVE_BOOTSTRAP on the remote host, takes any
	 * word with a '=' before the command for one more assignment, even
	 * a quoted path: such a program must still be the one that runs. */
	it_step("--- kary:2, 4 back-ends, grove-commnode and the back-end "
	    "under a directory named d=1");
	char eqdir[4200], eq_be[4300], eq_cn[4300];
	snprintf(eqdir, sizeof eqdir, "%s/d=1", it_tmpdir());
	snprintf(eq_be, sizeof eq_be, "%s/be=worker", eqdir);
	snprintf(eq_cn, sizeof eq_cn, "%s/grove-commnode", eqdir);
	CHECK(mkdir(eqdir, 0700) == 0);
	CHECK(symlink(it_be_worker_path(), eq_be) == 0);
	CHECK(symlink(it_commnode_path(), eq_cn) == 0);
	unlink(log);
	it_net_opts(&o, "kary:2", 4);
	o.hosts_file = hosts;
	o.rsh = rsh;
	o.be_exe = eq_be;
	o.be_argv = be_argv;
	o.commnode_exe = eq_cn;
	o.bind_addr = "127.0.0.1";
	net = it_net_create(&o);
	CHECK_INT_EQ(count_lines_with(log, "far-"), 2 + 4);
	it_check_rank_sum(net);
	check_args(net, 4);
	it_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
	/* The scratch directory is emptied of files only. */
	unlink(eq_be);
	unlink(eq_cn);
	rmdir(eqdir);

	/* The "far" hosts are this machine under other names: its children
	 * are not told to keep their event spaces (the FE keeps only its own
	 * host's), so at exit they must ship them, though their host name is
	 * the FE's.  Every process must be in the dump. */
	it_step("--- trace dump at exit with children on \"other\" hosts");
	char dump[4200];
	snprintf(dump, sizeof dump, "%s/trace.txt", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", dump, 1);
	setenv("GROVE_TRACE_FORMAT", "text", 1);
	it_net_opts(&o, "kary:2", 4);
	o.hosts_file = hosts;
	o.rsh = rsh;
	o.bind_addr = "127.0.0.1";
	net = it_net_create(&o);
	it_check_rank_sum(net);
	grove_net_destroy(net);
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_FORMAT");
	it_check_no_procs(NULL, 0, 5000);
	int procs = count_lines_with(dump, " pid ");
	it_step("processes in the dump: %d", procs);
	CHECK_INT_EQ(procs, 1 + 2 + 4);

	/* A remote shell that never reads its stdin (ssh stuck connecting),
	 * and a bootstrap larger than a pipe holds (the whole topology goes
	 * to a CP): create fails at its deadline, naming the host. */
	it_step("--- a remote shell that never reads, a 2.6 MB bootstrap");
	char hang[4200];
	snprintf(hang, sizeof hang, "%s/rsh_hang.sh", it_tmpdir());
	f = fopen(hang, "w");
	CHECK(f != NULL);
	fprintf(f, "#!/bin/sh\nexec sleep 1000\n");
	fclose(f);
	CHECK(chmod(hang, 0755) == 0);
	it_net_opts(&o, "kary:2", 65536);
	o.hosts_file = hosts;
	o.rsh = hang;
	o.bind_addr = "127.0.0.1";
	o.timeout_ms = 3000;
	grove_net *hung = NULL;
	uint64_t t0 = it_now_ms();
	int hrc = grove_net_create(&o, &hung);
	it_step("after %llu ms: %s: %s", (unsigned long long)(it_now_ms() - t0),
	    grove_err_name(hrc), grove_net_last_error(hung));
	CHECK_INT_EQ(hrc, GROVE_ESPAWN);
	CHECK(strstr(grove_net_last_error(hung), "far-") != NULL);
	grove_net_destroy(hung);
	it_check_no_procs(NULL, 0, 5000);

	it_step("--- an empty remote shell setting");
	it_net_opts(&o, "flat", 2);
	o.hosts_file = hosts;
	o.rsh = " \t";
	o.bind_addr = "127.0.0.1";
	grove_net *bad = NULL;
	int rc = grove_net_create(&o, &bad);
	CHECK_INT_EQ(rc, GROVE_EINVAL);
	it_step("error: %s", grove_net_last_error(bad));
	CHECK_STR_CONTAINS(grove_net_last_error(bad), "remote shell");
	CHECK_STR_CONTAINS(grove_net_last_error(bad), "empty");
	grove_net_destroy(bad);
	it_check_no_procs(NULL, 0, 5000);

	it_step("--- a remote shell that cannot start the program");
	it_net_opts(&o, "flat", 2);
	o.hosts_file = hosts;
	o.rsh = "/nonexistent/rsh -o BatchMode=yes";
	o.bind_addr = "127.0.0.1";
	o.timeout_ms = 5000;
	bad = NULL;
	rc = grove_net_create(&o, &bad);
	CHECK(rc != 0);
	const char *e = grove_net_last_error(bad);
	it_step("error: %s", e);
	CHECK(strstr(e, "far-") != NULL);
	CHECK_STR_CONTAINS(e, "/nonexistent/rsh");
	grove_net_destroy(bad);
	it_check_no_procs(NULL, 0, 5000);
	return it_done();
}
