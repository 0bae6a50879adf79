/* Launch on "other hosts": a host list names hosts that are not this one,
 * so Grove starts those processes through the remote shell instead of
 * fork/exec, and they connect back over TCP.  A stand-in remote shell
 * (fake_rsh.sh) runs the command here and logs which host it was asked
 * for.  Also: a remote shell that cannot start the program is reported
 * with the host, and leaves nothing behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "../../examples/worker_protocol.h"

static int
count_lines_with(const char *path, const char *word)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[256];
	int k = 0;
	while (fgets(line, sizeof line, f))
		k += strstr(line, word) != NULL;
	fclose(f);
	return k;
}

int
main(void)
{
	char hosts[4096], rsh[4096], log[4096];
	it_init("it_remote", 120);
	snprintf(hosts, sizeof hosts, "%s/hosts", it_tmpdir());
	snprintf(log, sizeof log, "%s/rsh.log", it_tmpdir());
	snprintf(rsh, sizeof rsh, "%s/tests/integration/fake_rsh.sh",
	    it_source_dir());
	FILE *f = fopen(hosts, "w");
	CHECK(f != NULL);
	/* The FE stays on the first host; the rest go round-robin. */
	fprintf(f, "localhost:1\nfar-a.example.org:100\nfar-b.example.org:100\n");
	fclose(f);
	setenv("GROVE_FAKE_RSH_LOG", log, 1);

	it_step("--- kary:2, 8 back-ends on two remote hosts");
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 8);
	o.hosts_file = hosts;
	o.rsh = rsh;
	o.bind_addr = "127.0.0.1"; /* the "remote" hosts are this machine */
	grove_net *net = it_net_create(&o);
	CHECK_UINT_EQ(grove_net_backends_up(net), 8);
	int far = count_lines_with(log, "far-a") + count_lines_with(log, "far-b");
	it_step("remote shell started %d processes", far);
	/* Every node but the FE is on a far host: 6 CPs and 8 BEs. */
	CHECK_INT_EQ(far, 14);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 28);
	CHECK_OK_NET(net, grove_net_send_to(net, 5, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_p2p_int(net, 5, WORKER_RANK), 5);
	it_net_destroy(net);

	it_step("--- a remote shell that cannot start the program");
	it_net_opts(&o, "flat", 2);
	o.hosts_file = hosts;
	o.rsh = "/nonexistent/rsh";
	o.bind_addr = "127.0.0.1";
	o.timeout_ms = 5000;
	grove_net *bad = NULL;
	int rc = grove_net_create(&o, &bad);
	CHECK(rc != 0);
	const char *e = grove_net_last_error(bad);
	it_step("error: %s", e);
	CHECK(strstr(e, "far-") != NULL);
	grove_net_destroy(bad);
	it_check_no_procs(NULL, 0, 5000);
	return it_done();
}
