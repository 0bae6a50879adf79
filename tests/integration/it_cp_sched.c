/* grove_net_opts.cp_sched_batch: the CPs of the network, and only they,
 * run under SCHED_BATCH, by the option or by $GROVE_CP_SCHED=batch; by
 * default everything keeps the normal policy.  A reduction over the tree
 * is right either way.
 */
#define _GNU_SOURCE /* SCHED_BATCH */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "helper_common.h"

#define BACKENDS 8 /* kary:2: 6 CPs on two levels */

/* Every process named `name` below the test has policy `want`; returns
 * how many there are. */
static size_t
check_policy(const char *name, int want)
{
	pid_t pids[64];
	size_t n = it_descendants(pids, 64, name);
	for (size_t i = 0; i < n; i++) {
		int pol = sched_getscheduler(pids[i]);
		if (pol != want)
			IT_FAIL("%s pid %d has policy %d, wanted %d", name,
			    (int)pids[i], pol, want);
	}
	return n;
}

static void
check(int opt, int want_cp)
{
	grove_net_opts o;
	it_net_opts(&o, "kary:2", BACKENDS);
	o.cp_sched_batch = opt;
	grove_net *net = it_net_create(&o);
	CHECK_UINT_EQ(check_policy("grove-commnode", want_cp), 6);
	CHECK_UINT_EQ(check_policy("be_worker", SCHED_OTHER), BACKENDS);
	it_check_rank_sum(net);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_cp_sched", 0);
	unsetenv("GROVE_CP_SCHED");
	it_step("default: normal policy everywhere");
	check(0, SCHED_OTHER);
	it_step("option: CPs under SCHED_BATCH");
	check(1, SCHED_BATCH);
	setenv("GROVE_CP_SCHED", "batch", 1);
	it_step("GROVE_CP_SCHED=batch: CPs under SCHED_BATCH");
	check(0, SCHED_BATCH);
	unsetenv("GROVE_CP_SCHED");
	return it_done();
}
