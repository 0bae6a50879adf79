/* grove_net_create refuses bad options with a clear message, and the
 * half-built network it leaves for grove_net_last_error is freed cleanly
 * by grove_net_destroy (run under ASan in CI). */
#include <stdio.h>
#include <string.h>

#include "helper_common.h"

static void
expect_fail(const char *what, grove_net_opts *o, int want, const char *text)
{
	grove_net *net = NULL;
	int rc = grove_net_create(o, &net);
	const char *e = grove_net_last_error(net);
	it_step("%s: %s: %s", what, grove_err_name(rc), e);
	CHECK_INT_EQ(rc, want);
	if (!strstr(e, text))
		IT_FAIL("%s: message \"%s\" lacks \"%s\"", what, e, text);
	grove_net_destroy(net);
}

int
main(void)
{
	grove_net_opts o;
	it_init("it_create_errors", 60);

	it_net_opts(&o, "flat", 4);
	o.be_exe = NULL;
	expect_fail("no back-end program", &o, GROVE_EINVAL, "be_exe");

	it_net_opts(&o, "kary:0", 4);
	expect_fail("bad spec", &o, GROVE_ETOPO, "kary:0");

	it_net_opts(&o, "flat", 4);
	o.topology_file = "/nonexistent/grove.top";
	expect_fail("missing topology file", &o, GROVE_ENOENT,
	    "/nonexistent/grove.top");

	/* The root of a topology file is the front-end, this process: a
	 * file that puts it on another host is refused, not ignored. */
	char top[4096];
	snprintf(top, sizeof top, "%s/elsewhere.top", it_tmpdir());
	FILE *f = fopen(top, "w");
	CHECK(f != NULL);
	CHECK(fputs("# the root is not this host\n"
	    "fe.invalid:0 => localhost:1 localhost:2 ;\n", f) >= 0);
	CHECK(fclose(f) == 0);
	it_net_opts(&o, NULL, 0);
	o.topology_file = top;
	expect_fail("topology file with a remote root", &o, GROVE_ETOPO,
	    "line 2: the root 'fe.invalid:0' is the front-end, which is the "
	    "process creating the network");

	/* So is a host list whose first host, the FE's slot, is another
	 * machine (a list of compute nodes only). */
	char hosts[4096];
	snprintf(hosts, sizeof hosts, "%s/elsewhere.hosts", it_tmpdir());
	f = fopen(hosts, "w");
	CHECK(f != NULL);
	CHECK(fputs("node01.invalid:4\nlocalhost:4\n", f) >= 0);
	CHECK(fclose(f) == 0);
	it_net_opts(&o, "flat", 4);
	o.hosts_file = hosts;
	expect_fail("host list without this host first", &o, GROVE_ETOPO,
	    "its first host 'node01.invalid' takes the front-end, which is "
	    "the process creating the network");

	it_net_opts(&o, "flat", 4);
	o.bind_addr = "not-an-address";
	expect_fail("bad bind address", &o, GROVE_EINVAL, "not-an-address");

	it_net_opts(&o, "flat", 2);
	o.be_exe = "/nonexistent/backend";
	o.timeout_ms = 5000;
	expect_fail("missing back-end program", &o, GROVE_ESPAWN,
	    "/nonexistent/backend");

	it_check_no_procs(NULL, 0, 5000);
	return it_done();
}
