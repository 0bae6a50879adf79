/* Fuzz the BCS wire decoder (src/bcs/wire.c): what a node or the manager
 * reads from the tree and from direct links.  The input's first byte
 * splits it into blob and payload.  Any input must give an error with a
 * message, or a message that encodes again to the same blob; the
 * iterators over its tables stay inside the blob.  Never a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcs/wire.h"

#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_bcs_wire.c:%d: invariant broken\n", line);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t split = data[0];
	data++;
	size--;
	if (split > size)
		split = size;
	/* Copies, so that a read past either part is caught. */
	uint8_t *blob = malloc(split ? split : 1);
	uint8_t *pay = malloc(size - split ? size - split : 1);
	memcpy(blob, data, split);
	memcpy(pay, data + split, size - split);
	bcs_msg m;
	char err[256] = "";
	if (bcs_wire_decode(blob, split, pay, size - split, &m, err,
	    sizeof err) != 0) {
		if (!err[0])
			fz_fail();
		free(blob);
		free(pay);
		return 0;
	}
	/* Walk the tables, and write the message back out. */
	bcs_wire_tables t;
	memset(&t, 0, sizeof t);
	const char **strs = NULL;
	uint32_t *u32 = NULL;
	uint16_t *ports = NULL;
	char **owned = NULL;
	uint32_t nown = 0;
	int nul = 0; /* a table string holds a NUL: strndup cuts it */
	if (m.type == BCS_T_HELLO) {
		strs = calloc(m.u.hello.nhosts + 1u, sizeof *strs);
		owned = calloc(m.u.hello.nhosts + 1u, sizeof *owned);
		u32 = calloc(m.u.hello.nodes + 1u, sizeof *u32);
		for (uint32_t i = 0; i < m.u.hello.nhosts; i++) {
			bcs_str s = bcs_hello_host(&m, i);
			owned[nown] = strndup(s.p, s.len);
			nul |= strlen(owned[nown]) != s.len;
			strs[i] = owned[nown++];
		}
		for (uint32_t i = 0; i < m.u.hello.nodes; i++)
			u32[i] = bcs_hello_host_of(&m, i);
		t.hosts = strs;
		t.host_of = u32;
	} else if (m.type == BCS_T_ADDRS) {
		strs = calloc(m.u.addrs.nodes + 1u, sizeof *strs);
		owned = calloc(m.u.addrs.nodes + 1u, sizeof *owned);
		ports = calloc(m.u.addrs.nodes + 1u, sizeof *ports);
		size_t pos = 0;
		for (uint32_t i = 0; i < m.u.addrs.nodes; i++) {
			bcs_str s;
			bcs_addrs_next(&m, &pos, &ports[i], &s);
			owned[nown] = strndup(s.p, s.len);
			nul |= strlen(owned[nown]) != s.len;
			strs[i] = owned[nown++];
		}
		t.addrs = strs;
		t.ports = ports;
	} else if ((m.type == BCS_T_CAW_QUERY || m.type == BCS_T_CAW_WRITE ||
	    m.type == BCS_T_CAW_REQ) && m.u.caw.set.count != BCS_SET_ALL) {
		u32 = calloc(m.u.caw.set.count + 1u, sizeof *u32);
		for (uint32_t i = 0; i < m.u.caw.set.count; i++)
			u32[i] = bcs_wset_at(&m.u.caw.set, i);
		t.set_ids = u32;
	}
	size_t n = bcs_wire_encode(&m, &t, NULL, 0);
	if (n == 0)
		fz_fail();
	uint8_t *out = malloc(n);
	if (bcs_wire_encode(&m, &t, out, n) != n)
		fz_fail();
	if (!nul && (n != split || memcmp(out, blob, n)))
		fz_fail();
	free(out);
	for (uint32_t i = 0; i < nown; i++)
		free(owned[i]);
	free(owned);
	free(strs);
	free(u32);
	free(ports);
	free(blob);
	free(pay);
	return 0;
}
