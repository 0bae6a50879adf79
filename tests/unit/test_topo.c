/* Unit tests for the topology module: generators, host placement, the
 * MRNet parser and its errors, routing and the printers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/topology.h"

/* Structural invariants every topology must satisfy, whatever made it. */
static void
check_invariants(const grove_topo *t)
{
	uint32_t n = grove_topo_size(t), nbe = 0, depth = 0, rank = 0;

	assert_true(n >= 2);
	for (uint32_t i = 0; i < n; i++) {
		const grove_topo_node *nd = grove_topo_node_at(t, i);
		const uint32_t *ch = grove_topo_children(t, i);

		assert_non_null(nd);
		assert_int_equal(nd->id, i);
		assert_non_null(nd->host);
		if (i == 0) {
			assert_int_equal(nd->parent, -1);
			assert_int_equal(nd->role, GROVE_ROLE_FE);
			assert_int_equal(nd->depth, 0);
			assert_true(nd->n_children > 0);
		} else {
			const grove_topo_node *p;

			assert_true(nd->parent >= 0 && (uint32_t)nd->parent < i);
			p = grove_topo_node_at(t, (uint32_t)nd->parent);
			assert_int_equal(nd->depth, p->depth + 1);
			assert_int_equal(nd->role, nd->n_children ?
			    GROVE_ROLE_CP : GROVE_ROLE_BE);
		}
		if (nd->depth > depth)
			depth = nd->depth;
		if (nd->role == GROVE_ROLE_BE) {
			/* Ranks go to leaves in pre-order. */
			assert_int_equal(nd->be_rank, rank);
			assert_int_equal(nd->be_lo, rank);
			assert_int_equal(nd->be_hi, rank + 1);
			assert_int_equal(grove_topo_be_node(t, rank), i);
			rank++;
			nbe++;
		} else {
			uint32_t lo = nd->be_lo;

			assert_int_equal(nd->be_rank, UINT32_MAX);
			assert_int_equal(nd->be_lo, rank);
			/* Children in pre-order: the first is the next id,
			 * ranges are contiguous and cover the parent's. */
			assert_int_equal(ch[0], i + 1);
			for (uint32_t c = 0; c < nd->n_children; c++) {
				const grove_topo_node *cn =
				    grove_topo_node_at(t, ch[c]);

				assert_int_equal(cn->parent, (int32_t)i);
				assert_int_equal(cn->be_lo, lo);
				assert_true(cn->be_hi > cn->be_lo);
				lo = cn->be_hi;
			}
			assert_int_equal(lo, nd->be_hi);
		}
	}
	assert_int_equal(nbe, grove_topo_backends(t));
	assert_int_equal(depth, grove_topo_depth(t));
	assert_int_equal(grove_topo_node_at(t, 0)->be_hi, nbe);
	assert_null(grove_topo_node_at(t, n));
	assert_int_equal(grove_topo_be_node(t, nbe), -1);
}

/* Following grove_topo_route from the FE reaches every BE. */
static void
check_routes(const grove_topo *t)
{
	uint32_t nbe = grove_topo_backends(t);

	for (uint32_t r = 0; r < nbe; r++) {
		int64_t target = grove_topo_be_node(t, r);
		uint32_t id = 0, steps = 0;

		assert_true(target > 0);
		while (id != (uint32_t)target) {
			int c = grove_topo_route(t, id, r);

			assert_true(c >= 0);
			assert_true((uint32_t)c <
			    grove_topo_node_at(t, id)->n_children);
			id = grove_topo_children(t, id)[c];
			assert_true(++steps <= grove_topo_depth(t));
		}
	}
	/* Outside a node's range, or at a leaf, there is no route. */
	assert_int_equal(grove_topo_route(t, 0, nbe), -1);
	assert_int_equal(grove_topo_route(t, grove_topo_size(t), 0), -1);
	assert_int_equal(grove_topo_route(t,
	    (uint32_t)grove_topo_be_node(t, 0), 0), -1);
	if (grove_topo_node_at(t, 1)->role == GROVE_ROLE_CP)
		assert_int_equal(grove_topo_route(t, 1,
		    grove_topo_node_at(t, 1)->be_hi), -1);
}

static grove_topo *
gen(const char *spec, uint32_t backends)
{
	grove_topo *t = NULL;
	char err[256] = "";
	int rc = grove_topo_generate(spec, backends, NULL, &t, err, sizeof err);

	if (rc)
		fail_msg("generate %s/%u: %s", spec, backends, err);
	check_invariants(t);
	return t;
}

static uint32_t
max_fanout(const grove_topo *t)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < grove_topo_size(t); i++)
		if (grove_topo_node_at(t, i)->n_children > m)
			m = grove_topo_node_at(t, i)->n_children;
	return m;
}

static void
test_flat(void **state)
{
	grove_topo *t = gen("flat", 10);

	assert_int_equal(grove_topo_size(t), 11);
	assert_int_equal(grove_topo_backends(t), 10);
	assert_int_equal(grove_topo_depth(t), 1);
	assert_int_equal(grove_topo_node_at(t, 0)->n_children, 10);
	check_routes(t);
	grove_topo_destroy(t);
}

static void
test_kary_examples(void **state)
{
	grove_topo *t = gen("kary:8", 64);

	/* FE -> 8 CPs -> 8 BEs each. */
	assert_int_equal(grove_topo_size(t), 1 + 8 + 64);
	assert_int_equal(grove_topo_depth(t), 2);
	assert_int_equal(grove_topo_node_at(t, 0)->n_children, 8);
	for (uint32_t c = 0; c < 8; c++) {
		const grove_topo_node *cp = grove_topo_node_at(t,
		    grove_topo_children(t, 0)[c]);

		assert_int_equal(cp->role, GROVE_ROLE_CP);
		assert_int_equal(cp->n_children, 8);
		assert_int_equal(cp->be_lo, 8 * c);
	}
	check_routes(t);
	grove_topo_destroy(t);

	t = gen("kary:4", 256);
	assert_int_equal(grove_topo_size(t), 1 + 4 + 16 + 64 + 256);
	assert_int_equal(grove_topo_depth(t), 4);
	assert_int_equal(max_fanout(t), 4);
	grove_topo_destroy(t);

	t = gen("kary:2", 16);
	assert_int_equal(grove_topo_depth(t), 4);
	assert_int_equal(grove_topo_size(t), 31);
	grove_topo_destroy(t);

	/* N <= K is flat. */
	t = gen("kary:8", 5);
	assert_int_equal(grove_topo_depth(t), 1);
	assert_int_equal(grove_topo_size(t), 6);
	grove_topo_destroy(t);

	t = gen("kary:4", 1);
	assert_int_equal(grove_topo_size(t), 2);
	assert_int_equal(grove_topo_node_at(t, 1)->role, GROVE_ROLE_BE);
	grove_topo_destroy(t);
}

/* Siblings' BE counts differ by at most one, and every BE sits at the
 * same depth. */
static void
check_balanced(const grove_topo *t)
{
	for (uint32_t i = 0; i < grove_topo_size(t); i++) {
		const grove_topo_node *nd = grove_topo_node_at(t, i);
		const uint32_t *ch = grove_topo_children(t, i);
		uint32_t lo = UINT32_MAX, hi = 0;

		if (nd->role == GROVE_ROLE_BE) {
			assert_int_equal(nd->depth, grove_topo_depth(t));
			continue;
		}
		for (uint32_t c = 0; c < nd->n_children; c++) {
			const grove_topo_node *cn = grove_topo_node_at(t, ch[c]);
			uint32_t sz = cn->be_hi - cn->be_lo;

			lo = sz < lo ? sz : lo;
			hi = sz > hi ? sz : hi;
		}
		assert_true(hi - lo <= 1);
	}
}

static void
test_kary_100(void **state)
{
	grove_topo *t = gen("kary:4", 100);

	/* 4^3 = 64 < 100 <= 256 = 4^4 */
	assert_int_equal(grove_topo_depth(t), 4);
	assert_true(max_fanout(t) <= 4);
	check_balanced(t);
	check_routes(t);
	grove_topo_destroy(t);
}

static void
test_kary_sweep(void **state)
{
	char spec[32];

	for (uint32_t k = 2; k <= 9; k++) {
		snprintf(spec, sizeof spec, "kary:%u", k);
		for (uint32_t n = 1; n <= 150; n++) {
			grove_topo *t = gen(spec, n);
			uint64_t cap = k;
			uint32_t d = 1;

			while (cap < n) {
				cap *= k;
				d++;
			}
			assert_int_equal(grove_topo_backends(t), n);
			assert_int_equal(grove_topo_depth(t), d);
			assert_true(max_fanout(t) <= k);
			check_balanced(t);
			check_routes(t);
			grove_topo_destroy(t);
		}
	}
}

static void
test_knomial(void **state)
{
	grove_topo *t = gen("knomial:2", 16);
	char spec[32];

	/* Binomial over 16: the FE has its own BE plus vertices 1, 2, 4, 8. */
	assert_int_equal(grove_topo_backends(t), 16);
	assert_int_equal(grove_topo_node_at(t, 0)->n_children, 5);
	assert_int_equal(grove_topo_depth(t), 4);
	assert_int_equal(grove_topo_node_at(t, 1)->role, GROVE_ROLE_BE);
	check_routes(t);
	grove_topo_destroy(t);

	for (uint32_t k = 2; k <= 5; k++) {
		snprintf(spec, sizeof spec, "knomial:%u", k);
		for (uint32_t n = 1; n <= 130; n++) {
			uint32_t levels = 0, fe_children = 1;

			/* The FE's children: its own BE, then every vertex
			 * j * K^t below N. */
			for (uint64_t cap = 1; cap < n; cap *= k) {
				levels++;
				for (uint64_t j = 1; j < k; j++)
					fe_children += j * cap < n;
			}
			t = gen(spec, n);
			assert_int_equal(grove_topo_backends(t), n);
			assert_int_equal(grove_topo_node_at(t, 0)->n_children,
			    fe_children);
			assert_true(grove_topo_depth(t) <= levels + 1);
			/* BE ranks are vertex numbers: every BE's parent is
			 * the vertex that owns it or its k-nomial parent. */
			assert_true(max_fanout(t) <= 1 + (k - 1) * levels);
			check_routes(t);
			grove_topo_destroy(t);
		}
	}
}

static void
test_levels(void **state)
{
	grove_topo *t = gen("levels:4x8x8", 0), *u;

	assert_int_equal(grove_topo_size(t), 1 + 4 + 32 + 256);
	assert_int_equal(grove_topo_backends(t), 256);
	assert_int_equal(grove_topo_depth(t), 3);
	assert_int_equal(grove_topo_node_at(t, 0)->n_children, 4);
	assert_int_equal(grove_topo_node_at(t, 1)->n_children, 8);
	assert_int_equal(grove_topo_node_at(t, 2)->n_children, 8);
	check_balanced(t);
	check_routes(t);

	u = gen("4x8x8", 256);
	assert_int_equal(grove_topo_size(u), grove_topo_size(t));
	for (uint32_t i = 0; i < grove_topo_size(t); i++)
		assert_int_equal(grove_topo_node_at(t, i)->parent,
		    grove_topo_node_at(u, i)->parent);
	grove_topo_destroy(u);
	grove_topo_destroy(t);

	t = gen("levels:1x1x3", 0);
	assert_int_equal(grove_topo_size(t), 6);
	assert_int_equal(grove_topo_depth(t), 3);
	grove_topo_destroy(t);
}

static void
test_big(void **state)
{
	grove_topo *t = gen("kary:8", 100000);

	assert_int_equal(grove_topo_backends(t), 100000);
	assert_int_equal(grove_topo_depth(t), 6);
	check_routes(t);
	grove_topo_destroy(t);

	t = gen("flat", 100000);
	assert_int_equal(grove_topo_size(t), 100001);
	check_routes(t);
	grove_topo_destroy(t);

	t = gen("knomial:4", 100000);
	assert_int_equal(grove_topo_backends(t), 100000);
	check_routes(t);
	grove_topo_destroy(t);

	t = gen("kary:32", 1024);
	assert_int_equal(grove_topo_size(t), 1 + 32 + 1024);
	grove_topo_destroy(t);
}

static void
expect_bad_spec(const char *spec, uint32_t backends, const char *needle)
{
	grove_topo *t = (grove_topo *)1;
	char err[256] = "";
	int rc = grove_topo_generate(spec, backends, NULL, &t, err, sizeof err);

	assert_int_equal(rc, GROVE_ETOPO);
	assert_null(t);
	if (!strstr(err, needle))
		fail_msg("spec '%s': message '%s' lacks '%s'", spec, err,
		    needle);
}

static void
test_bad_specs(void **state)
{
	grove_topo *t;

	expect_bad_spec("kary:0", 8, "K must be at least 2");
	expect_bad_spec("kary:1", 8, "K must be at least 2");
	expect_bad_spec("kary:x", 8, "'x' is not a number");
	expect_bad_spec("kary:", 8, "is not a number");
	expect_bad_spec("kary:4x", 8, "is not a number");
	expect_bad_spec("knomial:1", 8, "K must be at least 2");
	expect_bad_spec("kary:99999999999", 8, "is not a number");
	expect_bad_spec("levels:4x0", 0, "level 2 fan-out must be at least 1");
	expect_bad_spec("levels:4xx8", 0, "level 2 fan-out '' is not a number");
	expect_bad_spec("levels:", 0, "level 1 fan-out");
	expect_bad_spec("4x8", 30, "makes 32 back-ends, not 30");
	expect_bad_spec("levels:4096x4096x4096", 0, "more than");
	expect_bad_spec("kary:4", 0, "needs a back-end count");
	expect_bad_spec("flat", 0, "needs a back-end count");
	expect_bad_spec("flat:3", 3, "unknown topology spec 'flat:3'");
	expect_bad_spec("tree", 3, "unknown topology spec");
	expect_bad_spec("", 3, "unknown topology spec");
	expect_bad_spec("kary:4", 1u << 30, "limit");
	/* No error buffer is fine. */
	assert_int_equal(grove_topo_generate("kary:0", 3, NULL, &t, NULL, 0),
	    GROVE_ETOPO);
	assert_int_equal(grove_topo_generate(NULL, 3, NULL, &t, NULL, 0),
	    GROVE_EINVAL);
}

static void
test_hosts_default(void **state)
{
	grove_topo *t = gen("kary:2", 4);

	for (uint32_t i = 0; i < grove_topo_size(t); i++) {
		assert_string_equal(grove_topo_node_at(t, i)->host,
		    "localhost");
		assert_int_equal(grove_topo_node_at(t, i)->instance, i);
	}
	grove_topo_destroy(t);
}

static void
test_hosts_placement(void **state)
{
	static const char *list =
	    "# cluster\n"
	    "a:2\n"
	    "\n"
	    "b   # one slot\n"
	    "c.example.org:3\n";
	static const struct {
		const char *host;
		uint32_t inst;
	} want[] = {
		{"a", 0}, {"a", 1}, {"b", 0}, {"c.example.org", 0},
		{"c.example.org", 1}, {"c.example.org", 2}, {"a", 2},
		{"a", 3}, {"b", 1},
	};
	grove_hostlist *hl = NULL;
	grove_topo *t = NULL;
	char err[256] = "";

	assert_int_equal(grove_hostlist_parse_string(list, &hl, err,
	    sizeof err), 0);
	assert_int_equal(grove_hostlist_size(hl), 3);
	assert_int_equal(grove_hostlist_slots(hl), 6);
	assert_int_equal(grove_hostlist_slots(NULL), 0);
	assert_int_equal(grove_topo_generate("flat", 8, hl, &t, err,
	    sizeof err), 0);
	check_invariants(t);
	for (uint32_t i = 0; i < 9; i++) {
		assert_string_equal(grove_topo_node_at(t, i)->host,
		    want[i].host);
		assert_int_equal(grove_topo_node_at(t, i)->instance,
		    want[i].inst);
	}
	grove_topo_destroy(t);
	grove_hostlist_destroy(hl);

	/* A host on several lines is one host: instances stay unique. */
	assert_int_equal(grove_hostlist_parse_string("x\ny\nx\n", &hl, err,
	    sizeof err), 0);
	assert_int_equal(grove_topo_generate("kary:2", 8, hl, &t, err,
	    sizeof err), 0);
	for (uint32_t i = 0; i < grove_topo_size(t); i++)
		for (uint32_t j = 0; j < i; j++)
			assert_false(grove_topo_node_at(t, i)->instance ==
			    grove_topo_node_at(t, j)->instance &&
			    !strcmp(grove_topo_node_at(t, i)->host,
			    grove_topo_node_at(t, j)->host));
	grove_topo_destroy(t);
	grove_hostlist_destroy(hl);
}

static void
expect_bad_hostlist(const char *text, const char *needle)
{
	grove_hostlist *hl = (grove_hostlist *)1;
	char err[256] = "";

	assert_int_equal(grove_hostlist_parse_string(text, &hl, err,
	    sizeof err), GROVE_ETOPO);
	assert_null(hl);
	if (!strstr(err, needle))
		fail_msg("hostlist: message '%s' lacks '%s'", err, needle);
}

static void
test_hosts_bad(void **state)
{
	expect_bad_hostlist("a\nb:0\n", "line 2: bad slot count '0'");
	expect_bad_hostlist("a:x\n", "line 1: bad slot count 'x'");
	expect_bad_hostlist("a\n\n  a b\n", "line 3: bad host entry 'a b'");
	expect_bad_hostlist("# nothing\n\n", "names no host");
	expect_bad_hostlist("", "names no host");
	expect_bad_hostlist("h@st\n", "line 1: bad host entry");
}

static grove_topo *
parse_ok(const char *text)
{
	grove_topo *t = NULL;
	char err[512] = "";

	if (grove_topo_parse_string(text, &t, err, sizeof err))
		fail_msg("parse failed: %s", err);
	check_invariants(t);
	check_routes(t);
	return t;
}

static void
test_parse_good(void **state)
{
	grove_topo *t = parse_ok(
	    "# comment line\n"
	    "node01.cluster.example.org:0 => n-2.example.org:0 # cp\n"
	    "    n-3.example.org:0 ;\n"
	    "n-2.example.org:0 => n-2.example.org:1 n-2.example.org:2;\n"
	    "n-3.example.org:0=>n-3.example.org:1 ;\n"
	    "n-2.example.org:0 => leaf_x:5 ;   # appended\n");
	const grove_topo_node *nd;

	assert_int_equal(grove_topo_size(t), 7);
	assert_int_equal(grove_topo_backends(t), 4);
	nd = grove_topo_node_at(t, 0);
	assert_string_equal(nd->host, "node01.cluster.example.org");
	assert_int_equal(nd->role, GROVE_ROLE_FE);
	nd = grove_topo_node_at(t, 1);
	assert_string_equal(nd->host, "n-2.example.org");
	assert_int_equal(nd->role, GROVE_ROLE_CP);
	assert_int_equal(nd->n_children, 3);
	/* Children keep file order, across statements. */
	nd = grove_topo_node_at(t, 4);
	assert_string_equal(nd->host, "leaf_x");
	assert_int_equal(nd->instance, 5);
	assert_int_equal(nd->be_rank, 2);
	nd = grove_topo_node_at(t, 5);
	assert_string_equal(nd->host, "n-3.example.org");
	assert_int_equal(nd->instance, 0);
	grove_topo_destroy(t);

	/* Children may be listed before their own statement's parent is
	 * reached in the file. */
	t = parse_ok("b:0 => c:0 ;\na:0 => b:0 d:0 ;\n");
	assert_string_equal(grove_topo_node_at(t, 0)->host, "a");
	assert_string_equal(grove_topo_node_at(t, 2)->host, "c");
	grove_topo_destroy(t);
}

static void
test_parse_deep_chain(void **state)
{
	/* Deep files must not recurse: a 20000-long chain. */
	size_t cap = 20000 * 32;
	char *text = malloc(cap), *p = text;
	grove_topo *t;

	assert_non_null(text);
	for (int i = 0; i < 20000; i++)
		p += sprintf(p, "h:%d => h:%d ;\n", i, i + 1);
	t = parse_ok(text);
	assert_int_equal(grove_topo_depth(t), 20000);
	assert_int_equal(grove_topo_backends(t), 1);
	free(text);
	grove_topo_destroy(t);
}

static void
expect_bad_file(const char *text, const char *line, const char *needle)
{
	grove_topo *t = (grove_topo *)1;
	char err[512] = "";

	assert_int_equal(grove_topo_parse_string(text, &t, err, sizeof err),
	    GROVE_ETOPO);
	assert_null(t);
	if (strncmp(err, line, strlen(line)) || !strstr(err, needle))
		fail_msg("message '%s' does not start with '%s' or lacks '%s'",
		    err, line, needle);
}

static void
test_parse_errors(void **state)
{
	expect_bad_file("a:0 => b:0 ;\na:0 => c:0 d ;\n", "line 2: ",
	    "syntax error at 'd'");
	expect_bad_file("a:0 => b:0 ;\n\n\nb:0 -> c:0 ;\n", "line 4: ",
	    "syntax error at '->': expected '=>' or ';'");
	expect_bad_file("a:0 => b:x ;\n", "line 1: ", "bad node 'b:x'");
	expect_bad_file("a:0 => b:0c ;\n", "line 1: ", "bad node 'b:0c'");
	expect_bad_file("=> b:0 ;\n", "line 1: ",
	    "syntax error at '=>': expected a node");
	expect_bad_file("a:0 => b:0 ;\n;\n", "line 2: ", "syntax error at ';'");
	expect_bad_file("a:0 => b:0 ;\na:0 =>\n b:1\n", "line 3: ",
	    "missing ';' after 'a:0 => b:1' at end of file");
	expect_bad_file("a:0 => b:99999999999 ;\n", "line 1: ",
	    "larger than");
	/* Two parents. */
	expect_bad_file("r:0 => a:0 b:0 ;\na:0 => c:0 ;\n# x\nb:0 => c:0 ;\n",
	    "line 4: ", "node 'c:0' has two parents ('a:0' at line 2 and "
	    "'b:0')");
	expect_bad_file("r:0 => a:0 a:0 ;\n", "line 1: ",
	    "listed twice as a child of 'r:0'");
	/* Two roots. */
	expect_bad_file("a:0 => b:0 ;\n\nc:0 => d:0 ;\n", "line 3: ",
	    "second root 'c:0' (the first root is 'a:0' at line 1)");
	/* A cycle and nothing else: no root. */
	expect_bad_file("a:0 => b:0 ;\nb:0 => a:0 ;\n", "line 2: ",
	    "cycle: a:0 => b:0 => a:0 (the topology has no root)");
	expect_bad_file("a:0 => a:0 ;\n", "line 1: ", "cycle: a:0 => a:0");
	/* A root, and a cycle it cannot reach. */
	expect_bad_file("r:0 => l:0 ;\nx:0 => y:0 ;\ny:0 => z:0 x:0 ;\n",
	    "line 3: ", "3 nodes are not connected to the root 'r:0': "
	    "cycle x:0 => y:0 => x:0");
	/* Empty files. */
	expect_bad_file("", "line 1: ", "empty topology");
	expect_bad_file("# just\n# comments\n", "line 2: ", "empty topology");
	/* A root without children has no BE. */
	expect_bad_file("r:0 => ;\n", "line 1: ", "has no children");
	/* Long host name. */
	{
		char buf[600];

		memset(buf, 'h', 300);
		strcpy(buf + 300, ":0 => b:0 ;\n");
		expect_bad_file(buf, "line 1: ", "longer than");
	}
}

static void
test_parse_long_cycle(void **state)
{
	/* A long cycle is abbreviated, and its closing edge is reported. */
	char text[4096], *p = text;
	grove_topo *t;
	char err[512];

	for (int i = 0; i < 20; i++)
		p += sprintf(p, "c:%d => c:%d ;\n", i, (i + 1) % 20);
	assert_int_equal(grove_topo_parse_string(text, &t, err, sizeof err),
	    GROVE_ETOPO);
	assert_non_null(strstr(err, "line 20: cycle: c:0 => c:1"));
	assert_non_null(strstr(err, "(20 nodes)"));
	assert_non_null(strstr(err, "c:19 => c:0"));
}

static void
assert_same(const grove_topo *a, const grove_topo *b)
{
	assert_int_equal(grove_topo_size(a), grove_topo_size(b));
	assert_int_equal(grove_topo_backends(a), grove_topo_backends(b));
	assert_int_equal(grove_topo_depth(a), grove_topo_depth(b));
	for (uint32_t i = 0; i < grove_topo_size(a); i++) {
		const grove_topo_node *x = grove_topo_node_at(a, i);
		const grove_topo_node *y = grove_topo_node_at(b, i);

		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->role, y->role);
		assert_string_equal(x->host, y->host);
		assert_int_equal(x->instance, y->instance);
		assert_int_equal(x->n_children, y->n_children);
		assert_int_equal(x->be_lo, y->be_lo);
		assert_int_equal(x->be_hi, y->be_hi);
		assert_int_equal(x->be_rank, y->be_rank);
	}
}

static void
round_trip(const grove_topo *t)
{
	char *s1 = NULL, *s2 = NULL, err[512] = "";
	grove_topo *u = NULL;

	assert_int_equal(grove_topo_to_string(t, GROVE_TOPO_MRNET, &s1), 0);
	if (grove_topo_parse_string(s1, &u, err, sizeof err))
		fail_msg("re-parse failed: %s", err);
	assert_same(t, u);
	assert_int_equal(grove_topo_to_string(u, GROVE_TOPO_MRNET, &s2), 0);
	assert_string_equal(s1, s2);
	free(s1);
	free(s2);
	grove_topo_destroy(u);
}

static void
test_round_trip(void **state)
{
	static const char *specs[] = {"flat", "kary:2", "kary:4", "kary:16",
	    "knomial:2", "knomial:3"};
	grove_hostlist *hl = NULL;
	grove_topo *t;
	char err[256];

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		t = gen(specs[i], 77);
		round_trip(t);
		grove_topo_destroy(t);
	}
	t = gen("3x1x4", 0);
	round_trip(t);
	grove_topo_destroy(t);

	assert_int_equal(grove_hostlist_parse_string(
	    "n1.example.org:4\nn2.example.org:4\n", &hl, err, sizeof err), 0);
	assert_int_equal(grove_topo_generate("kary:3", 40, hl, &t, err,
	    sizeof err), 0);
	round_trip(t);
	grove_topo_destroy(t);
	grove_hostlist_destroy(hl);

	t = parse_ok("z:9 => y:1 x:2 ;\ny:1 => w:0 ;\nx:2 => v:0 u:0 ;\n");
	round_trip(t);
	grove_topo_destroy(t);
}

static size_t
count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void
test_dot(void **state)
{
	grove_topo *t = gen("kary:3", 9);
	char *s = NULL;

	assert_int_equal(grove_topo_to_string(t, GROVE_TOPO_DOT, &s), 0);
	assert_true(!strncmp(s, "digraph ", 8));
	assert_true(!strcmp(s + strlen(s) - 2, "}\n"));
	assert_int_equal(count(s, "->"), grove_topo_size(t) - 1);
	assert_int_equal(count(s, "[label="), grove_topo_size(t));
	assert_non_null(strstr(s, "n0 [label=\"FE\\nlocalhost:0\\nranks 0-8\""));
	assert_non_null(strstr(s, "[label=\"BE\\nlocalhost:2\\nrank 0\""));
	assert_non_null(strstr(s, "n1 -> n2;"));
	assert_int_equal(count(s, "{"), count(s, "}"));
	free(s);
	grove_topo_destroy(t);
}

static void
test_text(void **state)
{
	grove_topo *t = gen("kary:8", 64);
	char *s = NULL;

	assert_int_equal(grove_topo_to_string(t, GROVE_TOPO_TEXT, &s), 0);
	assert_true(!strncmp(s, "FE localhost:0 [node 0] ranks 0-63\n"
	    "  CP localhost:1 [node 1] ranks 0-7\n"
	    "    BE localhost:2 [node 2] rank 0\n", 100));
	assert_non_null(strstr(s, "\nnodes 73, CPs 8, BEs 64, depth 2, "
	    "max fan-out 8\n"));
	free(s);
	grove_topo_destroy(t);
}

static void
test_formats_and_args(void **state)
{
	grove_topo_format f;
	grove_topo *t;
	char *s;

	assert_int_equal(grove_topo_format_parse("text", &f), 0);
	assert_int_equal(f, GROVE_TOPO_TEXT);
	assert_int_equal(grove_topo_format_parse("dot", &f), 0);
	assert_int_equal(f, GROVE_TOPO_DOT);
	assert_int_equal(grove_topo_format_parse("mrnet", &f), 0);
	assert_int_equal(f, GROVE_TOPO_MRNET);
	assert_int_equal(grove_topo_format_parse("xml", &f), GROVE_EINVAL);
	assert_int_equal(grove_topo_to_string(NULL, GROVE_TOPO_TEXT, &s),
	    GROVE_EINVAL);
	assert_null(s);
	t = gen("flat", 2);
	assert_int_equal(grove_topo_to_string(t, (grove_topo_format)9, &s),
	    GROVE_EINVAL);
	grove_topo_destroy(t);
	assert_int_equal(grove_topo_size(NULL), 0);
	assert_null(grove_topo_node_at(NULL, 0));
	assert_int_equal(grove_topo_route(NULL, 0, 0), -1);
	assert_int_equal(grove_topo_parse_string(NULL, &t, NULL, 0),
	    GROVE_EINVAL);
	assert_int_equal(grove_topo_parse_file("/nonexistent/x.top", &t, NULL,
	    0), GROVE_ENOENT);
	grove_topo_destroy(NULL);
	grove_hostlist_destroy(NULL);
}

static void
test_parse_file(void **state)
{
	char dir[] = "/tmp/grove_topo_XXXXXX", path[64], err[256] = "";
	grove_topo *t = NULL;
	grove_hostlist *hl = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/a.top", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# file\nfe:0 => be:0 be:1 ;\n", f);
	fclose(f);
	assert_int_equal(grove_topo_parse_file(path, &t, err, sizeof err), 0);
	assert_int_equal(grove_topo_backends(t), 2);
	grove_topo_destroy(t);
	assert_int_equal(grove_hostlist_parse_file(path, &hl, err, sizeof err),
	    GROVE_ETOPO);
	assert_non_null(strstr(err, "line 2: bad slot count"));

	f = fopen(path, "w");
	assert_non_null(f);
	fwrite("fe:0 => be:0\0 ;\n", 1, 16, f);
	fclose(f);
	assert_int_equal(grove_topo_parse_file(path, &t, err, sizeof err),
	    GROVE_ETOPO);
	assert_non_null(strstr(err, "NUL byte"));
	remove(path);
	remove(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_kary_examples),
		cmocka_unit_test(test_kary_100),
		cmocka_unit_test(test_kary_sweep),
		cmocka_unit_test(test_knomial),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_hosts_default),
		cmocka_unit_test(test_hosts_placement),
		cmocka_unit_test(test_hosts_bad),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_deep_chain),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_long_cycle),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_formats_and_args),
		cmocka_unit_test(test_parse_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
