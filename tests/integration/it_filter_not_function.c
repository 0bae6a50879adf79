/* Custom filters whose symbols are not functions: a variable named as
 * the filter, and a function whose "_state_free" companion is a variable.
 * Either would crash every node that runs the filter, so the load must
 * fail on the FE and on every CP, each node saying which library, which
 * symbol and why, and the network must keep working.
 */
#include <stdio.h>
#include <string.h>

#include "helper_common.h"
#include "grove/topology.h"
#include "../../src/proto/worker_protocol.h"

/* The error must name the library, the symbol, say "not a function", and
 * come from every node that loads filters: the FE and each CP. */
static void
check_refused(grove_net *net, const char *lib, const char *symbol)
{
	const char *e = grove_net_last_error(net);
	it_step("error text: %s", e ? e : "(null)");
	CHECK(e != NULL);
	if (!strstr(e, lib) || !strstr(e, symbol) ||
	    !strstr(e, "not a function"))
		IT_FAIL("last error \"%s\" does not name '%s', '%s' and "
		    "\"not a function\"", e, lib, symbol);
	const grove_topo *t = grove_net_topology(net);
	uint32_t loaders = 0;
	for (uint32_t id = 0; id < grove_topo_size(t); id++)
		if (grove_topo_node_at(t, id)->role != GROVE_ROLE_BE)
			loaders++;
	/* Every node failed the same way: one group, the front-end and the
	 * CPs named once. */
	char count[64];
	snprintf(count, sizeof count, "on %u of %u node(s); %u nodes (fe 0, "
	    "cp ", loaders, loaders, loaders);
	if (!strstr(e, count))
		IT_FAIL("last error \"%s\" does not say \"%s\"", e, count);
}

/* A stream on a filter that was refused cannot be created. */
static void
not_usable(grove_net *net, const char *name)
{
	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = name;
	int rc = grove_stream_create(net, grove_net_comm_all(net), &so, &s);
	if (rc >= 0)
		IT_FAIL("stream with refused filter \"%s\" was created", name);
	CHECK(rc == GROVE_ENOENT || rc == GROVE_EFILTER);
}

int
main(void)
{
	char bad[4096], good[4096];
	it_init("it_filter_not_function", 120);
	it_build_path("filter_not_function.so", bad, sizeof bad);
	it_build_path("filter_intmaxloc.so", good, sizeof good);

	grove_net *net = it_net_spawn("kary:2", 4);
	uint32_t n = grove_net_backends(net);

	it_step("a variable named as the filter");
	CHECK_RC_NET(net, grove_net_load_filter(net, "data", bad,
	    "not_a_filter"), GROVE_EFILTER);
	check_refused(net, bad, "not_a_filter");
	not_usable(net, "data");

	it_step("a function whose _state_free companion is a variable");
	CHECK_RC_NET(net, grove_net_load_filter(net, "companion", bad,
	    "good_entry"), GROVE_EFILTER);
	check_refused(net, bad, "good_entry_state_free");
	not_usable(net, "companion");

	it_step("the network still works: built-in and custom filters");
	it_check_rank_sum(net);
	CHECK_OK_NET(net, grove_net_load_filter(net, "intmaxloc", good,
	    "intmaxloc"));
	grove_stream *s = it_stream(net, NULL, "intmaxloc", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	grove_packet *p = it_recv(net, s, WORKER_RANK);
	int32_t v = 0;
	uint32_t rank = 0;
	CHECK_OK(grove_packet_unpack(p, "%d %ud", &v, &rank));
	CHECK_INT_EQ(v, n - 1);
	CHECK_UINT_EQ(rank, n - 1);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	/* The refused name is free: a good definition may take it. */
	CHECK_OK_NET(net, grove_net_load_filter(net, "data", good,
	    "intmaxloc"));
	it_check_rank_sum(net);

	it_net_destroy(net);
	return it_done();
}
