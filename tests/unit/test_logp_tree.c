/* Unit tests for broadcast tree construction: every process is reached
 * exactly once, degrees are respected, heights are minimal, the model's
 * latency bound holds for the trees built, and the Grove topologies made
 * from them have the documented shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/logp.h"

struct shape {
	uint32_t max_degree;
	uint32_t height;
};

/* Checks a parent array is a tree rooted at 0 (each process has one
 * parent with a lower index, so following parents reaches the root) and
 * returns its maximal degree and height. */
static struct shape
check_tree(const int32_t *parent, uint32_t P)
{
	uint32_t *deg = calloc(P, sizeof *deg), *depth = calloc(P,
	    sizeof *depth);
	struct shape sh = {0, 0};

	assert_int_equal(parent[0], -1);
	for (uint32_t i = 1; i < P; i++) {
		assert_true(parent[i] >= 0 && (uint32_t)parent[i] < i);
		deg[parent[i]]++;
		depth[i] = depth[parent[i]] + 1;
		if (depth[i] > sh.height)
			sh.height = depth[i];
	}
	for (uint32_t i = 0; i < P; i++)
		if (deg[i] > sh.max_degree)
			sh.max_degree = deg[i];
	free(deg);
	free(depth);
	return sh;
}

/* The time the last process has a segment, children served in index
 * order: child number i of a node that has it at t gets it at
 * t + i s + r. */
static double
simulate_lambda(const int32_t *parent, uint32_t P, const grove_logp_link *l)
{
	double *t = calloc(P, sizeof *t), worst = 0;
	uint32_t *served = calloc(P, sizeof *served);

	for (uint32_t i = 1; i < P; i++) {
		t[i] = t[parent[i]] + served[parent[i]]++ * l->s + l->r;
		if (t[i] > worst)
			worst = t[i];
	}
	free(t);
	free(served);
	return worst;
}

static void
test_kary(void **state)
{
	grove_logp_link l = {.L = 10, .os = 1, .or_ = 1, .g = 3, .s = 3,
	    .r = 13};
	int32_t *parent = malloc(2000 * sizeof *parent);

	(void)state;
	for (uint32_t P = 1; P <= 200; P++) {
		for (uint32_t d = 1; d < P || d == 1; d++) {
			struct shape sh;
			double gamma, lambda;

			assert_int_equal(grove_logp_tree_kary(P, d, parent), 0);
			sh = check_tree(parent, P);
			assert_true(sh.max_degree <= d);
			assert_int_equal(sh.height,
			    grove_logp_min_height(P, d));
			/* The model's lambda is an upper bound of the tree's
			 * real one, and exact for full trees. */
			grove_logp_tree(&l, d, sh.height, &gamma, &lambda);
			assert_true(simulate_lambda(parent, P, &l) <=
			    lambda + 1e-9);
			if (d > 1 && P == 1 + d + d * d)
				assert_float_equal(simulate_lambda(parent, P,
				    &l), lambda, 1e-9);
			if (d >= P)
				break;
		}
	}
	/* 1 + 4 + 16 = 21 processes, degree 4: full, height 2. */
	assert_int_equal(grove_logp_tree_kary(21, 4, parent), 0);
	assert_int_equal(parent[5], 1);
	assert_int_equal(parent[20], 4);
	assert_int_equal(grove_logp_tree_kary(5, 0, parent), GROVE_EINVAL);
	assert_int_equal(grove_logp_tree_kary(0, 2, parent), GROVE_EINVAL);
	assert_int_equal(grove_logp_tree_kary(1, 0, parent), 0);
	free(parent);
}

static void
test_binomial(void **state)
{
	int32_t parent[1100];

	(void)state;
	for (uint32_t P = 1; P <= 1100; P++) {
		struct shape sh;
		uint32_t log2ceil = 0;

		while ((1u << log2ceil) < P)
			log2ceil++;
		assert_int_equal(grove_logp_tree_binomial(P, parent), 0);
		sh = check_tree(parent, P);
		/* Rank v is popcount(v) hops from the root; the root
		 * sends ceil(log2 P) times. */
		uint32_t most_bits = 0;

		for (uint32_t v = 0; v < P; v++)
			if ((uint32_t)__builtin_popcount(v) > most_bits)
				most_bits = (uint32_t)__builtin_popcount(v);
		assert_int_equal(sh.height, most_bits);
		assert_int_equal(sh.max_degree, log2ceil);
	}
	assert_int_equal(parent[6], 4);
	assert_int_equal(parent[7], 6);
	assert_int_equal(parent[8], 0);
}

static void
test_two_layer(void **state)
{
	const uint32_t shapes[][4] = {
		/* clusters, per cluster, d_w, d_l (0: binomial) */
		{1, 1, 1, 1}, {1, 9, 1, 2}, {7, 1, 2, 1}, {4, 16, 3, 4},
		{8, 8, 2, 0}, {5, 3, 1, 1}, {16, 4, 15, 3},
	};
	int32_t parent[512];

	(void)state;
	for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		uint32_t C = shapes[s][0], Pl = shapes[s][1];
		uint32_t dw = shapes[s][2], dl = shapes[s][3];
		uint32_t P = C * Pl, *wdeg = calloc(P, sizeof *wdeg);
		uint32_t *ldeg = calloc(P, sizeof *ldeg);

		assert_int_equal(grove_logp_tree_two_layer(C, Pl, dw, dl,
		    parent), 0);
		check_tree(parent, P);
		for (uint32_t i = 1; i < P; i++) {
			uint32_t c = i / Pl, pc = (uint32_t)parent[i] / Pl;

			if (i % Pl == 0) {
				/* A coordinator hangs below a coordinator. */
				assert_int_equal(parent[i] % Pl, 0);
				wdeg[parent[i]]++;
			} else {
				/* Everyone else stays in its cluster. */
				assert_int_equal(pc, c);
				ldeg[parent[i]]++;
			}
		}
		for (uint32_t i = 0; i < P; i++) {
			assert_true(wdeg[i] <= dw);
			if (dl)
				assert_true(ldeg[i] <= dl);
		}
		free(wdeg);
		free(ldeg);
	}
	assert_int_equal(grove_logp_tree_two_layer(0, 4, 1, 1, parent),
	    GROVE_EINVAL);
	assert_int_equal(grove_logp_tree_two_layer(3, 0, 1, 1, parent),
	    GROVE_EINVAL);
	assert_int_equal(grove_logp_tree_two_layer(3, 2, 0, 1, parent),
	    GROVE_EINVAL);
}

static void
test_tree_for_plan(void **state)
{
	grove_logp_plan plan;
	grove_logp_system sys = {3, 5, GROVE_LOGP_LAN, GROVE_LOGP_WAN, 0, 0};
	int32_t parent[15];
	struct shape sh;

	(void)state;
	memset(&plan, 0, sizeof plan);
	plan.wan.P = 3;
	plan.wan.d = 2;
	plan.lan.P = 5;
	plan.lan.d = 4;
	assert_int_equal(grove_logp_tree_for_plan(&plan, &sys, parent), 0);
	sh = check_tree(parent, 15);
	/* The root: 2 WAN + 4 LAN children; height 1 + 1. */
	assert_int_equal(sh.max_degree, 6);
	assert_int_equal(sh.height, 2);
	plan.lan.binomial = 1;
	plan.lan.d = 3;
	assert_int_equal(grove_logp_tree_for_plan(&plan, &sys, parent), 0);
	sh = check_tree(parent, 15);
	assert_int_equal(sh.height, 1 + 2); /* rank 3 of 5 is 2 hops down */
	plan.lan.P = 4;
	assert_int_equal(grove_logp_tree_for_plan(&plan, &sys, parent),
	    GROVE_EINVAL);
}

static void
test_to_topo(void **state)
{
	int32_t parent[64];
	grove_topo *t = NULL;
	char err[256], *text = NULL;
	uint32_t interior = 0;

	(void)state;
	/* 21 processes, degree 4: FE, 4 CPs (each with 4 BEs and its own),
	 * 20 BEs. */
	assert_int_equal(grove_logp_tree_kary(21, 4, parent), 0);
	assert_int_equal(grove_logp_tree_to_topo(parent, 21, NULL, &t, err,
	    sizeof err), 0);
	assert_int_equal(grove_topo_backends(t), 20);
	assert_int_equal(grove_topo_size(t), 1 + 4 + 20);
	assert_int_equal(grove_topo_depth(t), 2);
	assert_int_equal(grove_topo_node_at(t, 0)->n_children, 4);
	for (uint32_t i = 0; i < grove_topo_size(t); i++) {
		const grove_topo_node *nd = grove_topo_node_at(t, i);

		assert_string_equal(nd->host, "localhost");
		if (nd->role == GROVE_ROLE_CP) {
			const uint32_t *ch = grove_topo_children(t, i);
			const grove_topo_node *last = grove_topo_node_at(t,
			    ch[nd->n_children - 1]);

			interior++;
			assert_int_equal(nd->n_children, 5);
			/* The CP's own process is its last child, a BE
			 * numbered P + i. */
			assert_int_equal(last->role, GROVE_ROLE_BE);
			assert_int_equal(last->instance, 21 + nd->instance);
		}
	}
	assert_int_equal(interior, 4);
	grove_topo_destroy(t);

	/* A chain of 4 on a named host: CPs nest, each BE of its own. */
	assert_int_equal(grove_logp_tree_kary(4, 1, parent), 0);
	assert_int_equal(grove_logp_tree_to_mrnet(parent, 4, "n-1.example",
	    &text, err, sizeof err), 0);
	assert_non_null(strstr(text, "n-1.example:0 => n-1.example:1 ;\n"));
	assert_non_null(strstr(text, "n-1.example:1 => n-1.example:2 "
	    "n-1.example:5 ;\n"));
	assert_non_null(strstr(text, "n-1.example:2 => n-1.example:3 "
	    "n-1.example:6 ;\n"));
	assert_int_equal(grove_topo_parse_string(text, &t, err, sizeof err),
	    0);
	assert_int_equal(grove_topo_backends(t), 3);
	assert_int_equal(grove_topo_depth(t), 3);
	grove_topo_destroy(t);
	free(text);

	/* Serving order: a coordinator's WAN children (whole clusters
	 * below them) before its LAN children. */
	assert_int_equal(grove_logp_tree_two_layer(3, 3, 2, 2, parent), 0);
	assert_int_equal(grove_logp_tree_to_mrnet(parent, 9, NULL, &text, err,
	    sizeof err), 0);
	assert_non_null(strstr(text, "\nlocalhost:0 => localhost:3 "
	    "localhost:6 localhost:1 localhost:2 ;\n"));
	assert_non_null(strstr(text, "\nlocalhost:3 => localhost:4 "
	    "localhost:5 localhost:12 ;\n"));
	free(text);

	/* Wide fan-out wraps lines and still parses. */
	assert_int_equal(grove_logp_tree_kary(40, 39, parent), 0);
	assert_int_equal(grove_logp_tree_to_topo(parent, 40, "h", &t, err,
	    sizeof err), 0);
	assert_int_equal(grove_topo_backends(t), 39);
	grove_topo_destroy(t);
}

static void
test_to_topo_errors(void **state)
{
	int32_t parent[4] = {-1, 0, 0, 0};
	grove_topo *t = (grove_topo *)parent;
	char err[256];

	(void)state;
	assert_int_equal(grove_logp_tree_to_topo(parent, 1, NULL, &t, err,
	    sizeof err), GROVE_EINVAL);
	assert_null(t);
	assert_non_null(strstr(err, "at least 2"));
	assert_int_equal(grove_logp_tree_to_topo(parent, 4, "bad host", &t,
	    err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "bad host name"));
	parent[2] = 3;
	assert_int_equal(grove_logp_tree_to_topo(parent, 4, NULL, &t, err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "process 2: parent 3"));
	parent[2] = 0;
	parent[0] = 0;
	assert_int_equal(grove_logp_tree_to_topo(parent, 4, NULL, &t, err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "process 0 must be the root"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kary),
		cmocka_unit_test(test_binomial),
		cmocka_unit_test(test_two_layer),
		cmocka_unit_test(test_tree_for_plan),
		cmocka_unit_test(test_to_topo),
		cmocka_unit_test(test_to_topo_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
