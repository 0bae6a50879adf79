/* grove_net_create with back-ends that never connect: the call fails with
 * GROVE_ESPAWN once the create timeout has passed, the error names the
 * back-ends that never came ("be rank N"), and grove_net_destroy leaves no
 * process of the tree behind.
 *
 * In a deep tree the CP that started those back-ends must be the one that
 * reports them: every level gives its child CPs a shorter launch window
 * than its own, so the deepest CP times out first.  Were the windows
 * equal, the FE would time out first and could only say that a CP's
 * "subtree is not ready".
 */
#include <stdio.h>
#include <string.h>

#include "helper_common.h"

/* Short, so the test is quick; long enough to start a small tree. */
#define TIMEOUT_MS 1500

/* Only a hang reaches this: create must return soon after its timeout. */
#define HANG_MS (TIMEOUT_MS + 20000)

/* A back-end that runs but never connects. */
static char *const sleep_argv[] = {"sleep", "100", NULL};

static void
hung_backends(const char *topo, uint32_t n, int from_a_cp)
{
	it_step("--- %s, %u back-ends that never connect, timeout %d ms",
	    topo, n, TIMEOUT_MS);
	grove_net_opts o;
	it_net_opts(&o, topo, n);
	o.be_exe = "/bin/sleep";
	o.be_argv = sleep_argv;
	o.timeout_ms = TIMEOUT_MS;
	grove_net *net = NULL;
	uint64_t t0 = it_now_ms();
	int rc = grove_net_create(&o, &net);
	uint64_t took = it_now_ms() - t0;
	CHECK(net != NULL);
	const char *e = grove_net_last_error(net);
	it_step("%s after %llu ms: %s", grove_err_name(rc),
	    (unsigned long long)took, e);
	CHECK_RC_NET(net, rc, GROVE_ESPAWN);
	if (took > HANG_MS)
		IT_FAIL("grove_net_create took %llu ms with a %d ms timeout",
		    (unsigned long long)took, TIMEOUT_MS);
	if (!strstr(e, "be rank ") || !strstr(e, "never connected"))
		IT_FAIL("error \"%s\" names no back-end that never connected",
		    e);
	if (from_a_cp && (!strstr(e, "(cp on ") ||
	    strstr(e, "subtree is not ready")))
		IT_FAIL("error \"%s\" is not the report of the CP that "
		    "started the back-ends", e);
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
	it_step("destroyed, no process left");
}

int
main(void)
{
	it_init("it_create_timeout", 120);
	/* The FE's own children: it names them itself. */
	hung_backends("flat", 4, 0);
	/* Two levels of CPs: the leaf CPs name their back-ends. */
	hung_backends("kary:2", 8, 1);
	/* One level of CPs. */
	hung_backends("kary:2", 4, 1);
	return it_done();
}
