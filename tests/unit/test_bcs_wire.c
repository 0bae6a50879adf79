/* Unit tests for the BCS wire messages (src/bcs/wire.c): every type
 * survives a round trip with its tables, sets and payload; truncated,
 * over-long, mis-versioned and out-of-range messages are refused with a
 * message naming the type and what is wrong; the encoder sizes its
 * output and refuses what it cannot write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bcs/wire.h"
#include "grove/error.h"

static size_t
enc(const bcs_msg *m, const bcs_wire_tables *t, uint8_t *buf, size_t cap)
{
	size_t n = bcs_wire_encode(m, t, NULL, 0);
	assert_true(n > 0 && n <= cap);
	assert_int_equal(bcs_wire_encode(m, t, buf, cap), n);
	return n;
}

static void
test_hello(void **state)
{
	(void)state;
	const char *hosts[] = {"127.0.0.1", "node-b.cluster"};
	uint32_t host_of[3] = {0, 1, 1};
	bcs_msg m, d;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_HELLO;
	m.u.hello.machine = 0x1122334455667788ull;
	for (int i = 0; i < BCS_KEY_LEN; i++)
		m.u.hello.key[i] = (uint8_t)i;
	m.u.hello.gmem_bytes = 65536;
	m.u.hello.nvars = 64;
	m.u.hello.nevents = 32;
	m.u.hello.nodes = 3;
	m.u.hello.stream_c = 7;
	m.u.hello.stream_d = 8;
	m.u.hello.nhosts = 2;
	bcs_wire_tables t = {.hosts = hosts, .host_of = host_of};
	uint8_t buf[512];
	size_t n = enc(&m, &t, buf, sizeof buf);
	char err[256];
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	assert_int_equal(d.type, BCS_T_HELLO);
	assert_true(d.u.hello.machine == m.u.hello.machine);
	assert_memory_equal(d.u.hello.key, m.u.hello.key, BCS_KEY_LEN);
	assert_int_equal(d.u.hello.nodes, 3);
	assert_int_equal(d.u.hello.stream_d, 8);
	bcs_str h = bcs_hello_host(&d, bcs_hello_host_of(&d, 2));
	assert_int_equal(h.len, strlen("node-b.cluster"));
	assert_memory_equal(h.p, "node-b.cluster", h.len);
	h = bcs_hello_host(&d, bcs_hello_host_of(&d, 0));
	assert_memory_equal(h.p, "127.0.0.1", h.len);
	/* Every truncation is refused, and says where. */
	for (size_t k = 0; k < n; k++) {
		err[0] = '\0';
		assert_int_equal(bcs_wire_decode(buf, k, NULL, 0, &d, err,
		    sizeof err), GROVE_EPROTO);
		assert_true(err[0] != '\0');
	}
	/* A host index beyond the table. */
	buf[n - 1] = 9;
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	assert_non_null(strstr(err, "host table"));
	/* A host index the encoder cannot write. */
	host_of[1] = 2;
	assert_int_equal(bcs_wire_encode(&m, &t, buf, sizeof buf), 0);
}

static void
test_xfer(void **state)
{
	(void)state;
	uint8_t data[100];
	for (int i = 0; i < 100; i++)
		data[i] = (uint8_t)(i * 3);
	bcs_msg m, d;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_XFER;
	m.u.xfer.id = 42;
	m.u.xfer.src = 3;
	m.u.xfer.ack = BCS_ACK_REDUCE;
	m.u.xfer.dst_pid = 1234;
	m.u.xfer.dst_addr = 0x7fff0000ull;
	m.u.xfer.remote_event = -1;
	m.u.xfer.len = sizeof data;
	uint8_t buf[128];
	size_t n = enc(&m, NULL, buf, sizeof buf);
	char err[256];
	assert_int_equal(bcs_wire_decode(buf, n, data, sizeof data, &d, err,
	    sizeof err), 0);
	assert_int_equal(d.u.xfer.id, 42);
	assert_int_equal(d.u.xfer.remote_event, -1);
	assert_int_equal(d.u.xfer.dst_pid, 1234);
	assert_true(d.u.xfer.data == data);
	/* The payload must be as long as the message says. */
	assert_int_equal(bcs_wire_decode(buf, n, data, 99, &d, err, sizeof err),
	    GROVE_EPROTO);
	assert_non_null(strstr(err, "XFER"));
	/* A bad ack mode. */
	buf[4 + 8 + 4] = 7;
	assert_int_equal(bcs_wire_decode(buf, n, data, sizeof data, &d, err,
	    sizeof err), GROVE_EPROTO);
	assert_non_null(strstr(err, "ack mode"));
	/* Payload on another type. */
	memset(&m, 0, sizeof m);
	m.type = BCS_T_CAW_CANCEL;
	n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, data, 1, &d, err, sizeof err),
	    GROVE_EPROTO);
}

static void
test_caw(void **state)
{
	(void)state;
	uint32_t ids[3] = {5, 0, 4294967295u};
	bcs_msg m, d;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_CAW_REQ;
	m.u.caw.id = 9;
	m.u.caw.set.count = 3;
	m.u.caw.var = 2;
	m.u.caw.cmp = 3;
	m.u.caw.value = -5;
	m.u.caw.write = 1;
	m.u.caw.write_var = 1;
	m.u.caw.write_value = INT64_MIN;
	m.u.caw.write_event = -1;
	bcs_wire_tables t = {.set_ids = ids};
	uint8_t buf[128];
	size_t n = enc(&m, &t, buf, sizeof buf);
	char err[256];
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	assert_int_equal(d.u.caw.set.count, 3);
	assert_int_equal(bcs_wset_at(&d.u.caw.set, 0), 5);
	assert_int_equal(bcs_wset_at(&d.u.caw.set, 2), 4294967295u);
	assert_true(bcs_wset_has(&d.u.caw.set, 0));
	assert_false(bcs_wset_has(&d.u.caw.set, 1));
	assert_true(d.u.caw.value == -5);
	assert_true(d.u.caw.write_value == INT64_MIN);
	assert_int_equal(d.u.caw.write_event, -1);
	/* Every node. */
	m.u.caw.set.count = BCS_SET_ALL;
	n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	assert_true(bcs_wset_has(&d.u.caw.set, 12345));
	/* A comparison out of range; a set longer than the message. */
	m.u.caw.cmp = 4;
	n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	assert_non_null(strstr(err, "comparison"));
	m.u.caw.cmp = 0;
	m.u.caw.set.count = 3;
	n = enc(&m, &t, buf, sizeof buf);
	buf[4 + 8] = 200; /* 200 ids */
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	assert_non_null(strstr(err, "set ids"));
}

static void
test_small(void **state)
{
	(void)state;
	uint8_t buf[4096];
	char err[256];
	bcs_msg m, d;
	/* ADDR, ADDRS, XFER_ACK, CAW_RESULT, LOST, BYE, link handshake. */
	memset(&m, 0, sizeof m);
	m.type = BCS_T_ADDR;
	m.u.addr.node = 1;
	m.u.addr.port = 4000;
	m.u.addr.addr.p = "::1";
	m.u.addr.addr.len = 3;
	size_t n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	assert_int_equal(d.u.addr.port, 4000);
	assert_memory_equal(d.u.addr.addr.p, "::1", 3);
	uint16_t ports[2] = {1, 65535};
	const char *addrs[2] = {"127.0.0.1", "10.0.0.2"};
	bcs_wire_tables t = {.ports = ports, .addrs = addrs};
	memset(&m, 0, sizeof m);
	m.type = BCS_T_ADDRS;
	m.u.addrs.nodes = 2;
	n = enc(&m, &t, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	size_t pos = 0;
	uint16_t port;
	bcs_str a;
	bcs_addrs_next(&d, &pos, &port, &a);
	assert_int_equal(port, 1);
	bcs_addrs_next(&d, &pos, &port, &a);
	assert_int_equal(port, 65535);
	assert_memory_equal(a.p, "10.0.0.2", a.len);
	assert_int_equal(pos, n - 8);
	memset(&m, 0, sizeof m);
	m.type = BCS_T_XFER_ACK;
	m.u.ack.status = 1; /* not an error code */
	n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	m.u.ack.status = GROVE_ELOST;
	n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	assert_int_equal(d.u.ack.status, GROVE_ELOST);
	memset(&m, 0, sizeof m);
	m.type = BCS_T_LINK_CHALLENGE;
	memset(m.u.lchal.mac, 0xab, BCS_MAC_LEN);
	n = enc(&m, NULL, buf, sizeof buf);
	assert_int_equal(n, 4 + BCS_NONCE_LEN + BCS_MAC_LEN);
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    0);
	assert_int_equal(d.u.lchal.mac[31], 0xab);
	/* Trailing bytes, another version, a reserved field, an unknown
	 * type. */
	assert_int_equal(bcs_wire_decode(buf, n + 1, NULL, 0, &d, err,
	    sizeof err), GROVE_EPROTO);
	assert_non_null(strstr(err, "left over"));
	buf[1] = 2;
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	assert_non_null(strstr(err, "version"));
	buf[1] = BCS_WIRE_VERSION;
	buf[2] = 1;
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	buf[2] = 0;
	buf[0] = BCS_T_MAX_;
	assert_int_equal(bcs_wire_decode(buf, n, NULL, 0, &d, err, sizeof err),
	    GROVE_EPROTO);
	assert_non_null(strstr(err, "unknown type"));
	/* A string longer than the limit cannot be written. */
	char *big = malloc(BCS_STR_MAX + 1);
	memset(big, 'x', BCS_STR_MAX + 1);
	memset(&m, 0, sizeof m);
	m.type = BCS_T_LOST;
	m.u.lost.why.p = big;
	m.u.lost.why.len = BCS_STR_MAX + 1;
	assert_int_equal(bcs_wire_encode(&m, NULL, buf, sizeof buf), 0);
	free(big);
	assert_string_equal(bcs_wire_type_name(BCS_T_CAW_QUERY), "CAW_QUERY");
	assert_string_equal(bcs_wire_type_name(0), "?");
	uint8_t hdr[BCS_FRAME_HDR];
	uint32_t bl, pl;
	bcs_frame_hdr_put(hdr, 17, 0x01020304u);
	bcs_frame_hdr_get(hdr, &bl, &pl);
	assert_int_equal(bl, 17);
	assert_int_equal(pl, 0x01020304u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_xfer),
		cmocka_unit_test(test_caw),
		cmocka_unit_test(test_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
