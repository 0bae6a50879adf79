/* A child's ancestors (src/tbon/lineage.h): the LINEAGE message packed
 * and decoded, and every way a decoder must refuse one; and the search
 * for a new parent when nobody is there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/lineage.h"
#include "tbon/proto.h"

static lineage_hop
hop(uint32_t node, const char *host, uint16_t port, const char *uname)
{
	lineage_hop h;
	memset(&h, 0, sizeof h);
	h.node = node;
	snprintf(h.host, sizeof h.host, "%s", host);
	snprintf(h.addr, sizeof h.addr, "%s.example", host);
	h.port = port;
	snprintf(h.uname, sizeof h.uname, "%s", uname);
	return h;
}

/* The FE's record, then a CP's: what the CP sends its children. */
static void
test_round_trip(void **unused)
{
	(void)unused;
	lineage_hop fe = hop(0, "h1", 4000, "grove.x.0.1");
	lineage_hop cp = hop(3, "h2", 4001, "");
	lineage up = {1000, 2000, &fe, 1};
	grove_packet *p = NULL;
	assert_int_equal(lineage_pack(&up, &cp, 77, &p), 0);
	assert_int_equal(wire_packet_hdr(p)->type, WIRE_T_LINEAGE);
	lineage l;
	memset(&l, 0, sizeof l);
	char why[200];
	assert_int_equal(lineage_from_packet(p, &l, why, sizeof why), 0);
	assert_int_equal(l.heartbeat_ms, 1000);
	assert_int_equal(l.reparent_ms, 2000);
	assert_int_equal(l.n, 2);
	assert_memory_equal(&l.hop[0], &fe, sizeof fe);
	assert_memory_equal(&l.hop[1], &cp, sizeof cp);
	grove_packet_unref(p);
	/* No recovery, no ancestors: a back-end of the FE is told so. */
	lineage none = {500, -1, NULL, 0};
	assert_int_equal(lineage_pack(&none, NULL, 0, &p), 0);
	assert_int_equal(lineage_from_packet(p, &l, why, sizeof why), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.reparent_ms, -1);
	grove_packet_unref(p);
	lineage_fini(&l);
}

/* A LINEAGE that lies is refused, and what was known stays. */
static void
test_refused(void **unused)
{
	(void)unused;
	lineage l;
	memset(&l, 0, sizeof l);
	lineage_hop fe = hop(0, "h1", 4000, "");
	lineage good = {1000, 2000, &fe, 1};
	grove_packet *p = NULL;
	char why[200];
	assert_int_equal(lineage_pack(&good, NULL, 0, &p), 0);
	assert_int_equal(lineage_from_packet(p, &l, why, sizeof why), 0);
	grove_packet_unref(p);

	uint32_t ids[2] = {0, 1}, ports[2] = {1, 70000};
	const char *hosts[2] = {"a", "b"}, *unames[2] = {"", ""};
	char longname[300];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	const char *longs[2] = {"a", longname};
	struct {
		int32_t hb;
		uint64_t n_ids, n_hosts;
		const uint32_t *ports;
		const char *const *addrs;
		const char *want;
	} bad[] = {
		{1000, 2, 1, ports, hosts, "differ in length"},
		{1000, 2, 2, ports, hosts, "has a port out of bounds"},
		{0, 1, 1, ports, hosts, "heartbeat 0"},
		{1000, 2, 2, (uint32_t[]){1, 2}, longs, "has a name out of "
		    "bounds"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(wire_pack(&p, WIRE_T_LINEAGE, 0, 0, 0, 0,
		    PROTO_LINEAGE, bad[i].hb, (int32_t)1, ids, bad[i].n_ids, hosts,
		    bad[i].n_hosts, bad[i].addrs, bad[i].n_ids, bad[i].ports,
		    bad[i].n_ids, unames, bad[i].n_ids), 0);
		why[0] = 0;
		assert_int_equal(lineage_from_packet(p, &l, why, sizeof why),
		    GROVE_EPROTO);
		if (!strstr(why, bad[i].want))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, why,
			    bad[i].want);
		grove_packet_unref(p);
		assert_int_equal(l.n, 1);
		assert_int_equal(l.heartbeat_ms, 1000);
	}
	/* Another format altogether. */
	assert_int_equal(wire_pack(&p, WIRE_T_LINEAGE, 0, 0, 0, 0, "%d", 1), 0);
	assert_int_equal(lineage_from_packet(p, &l, why, sizeof why),
	    GROVE_EPROTO);
	assert_non_null(strstr(why, "does not unpack"));
	grove_packet_unref(p);
	lineage_fini(&l);
}

/* No ancestor above the parent, or none listening: nobody to go to. */
static void
test_nobody_there(void **unused)
{
	(void)unused;
	uint8_t secret[AUTH_SECRET_LEN] = {0};
	uplink up;
	uint32_t which = 9;
	char err[512];
	lineage_hop fe = hop(0, "localhost", 1, "grove.test.none.0");
	lineage_hop parent = hop(2, "localhost", 1, "");
	lineage_hop hops[2] = {fe, parent};
	lineage only_parent = {1000, 2000, &parent, 1};
	assert_int_equal(lineage_reparent(&only_parent, 5, AUTH_NO_RANK, secret,
	    sockio_now_ms() + 2000, &up, &which, err, sizeof err), GROVE_ELOST);
	lineage two = {1000, 2000, hops, 2};
	assert_int_equal(lineage_reparent(&two, 5, AUTH_NO_RANK, secret,
	    sockio_now_ms() + 2000, &up, &which, err, sizeof err), GROVE_ELOST);
	assert_non_null(strstr(err, "node 0: "));
	assert_int_equal(up.rfd, -1);
	/* A deadline already past tries nobody. */
	assert_int_equal(lineage_reparent(&two, 5, AUTH_NO_RANK, secret,
	    sockio_now_ms(), &up, &which, err, sizeof err), GROVE_ETIMEDOUT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_nobody_there),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
