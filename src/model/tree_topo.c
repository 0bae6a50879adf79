/* Broadcast trees as Grove topologies.
 *
 * A Grove tree has the FE at the root, CPs inside and BEs at the leaves;
 * a broadcast tree has processes that both receive and forward.  The map:
 * process 0 (the root, which has the data) is the FE; a process with
 * children becomes a CP that forwards to them and, as its last child, to
 * a BE that stands for the process itself; a process without children is
 * a BE.  So every process but the root gets exactly one BE, and a CP's
 * fan-out is the process's degree plus one.
 *
 * A node serves its children in list order, so the lists follow the
 * order the model assumes: largest subtree first, ties by index.  For the
 * trees of tree.c that is a coordinator's WAN children before its LAN
 * children, a binomial tree's highest mask first and a d-ary tree's index
 * order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_impl.h"

/* The MRNet output puts this many children on a line. */
#define PER_LINE 8

struct edge {
	uint32_t parent, size, child;
};

static int
edge_order(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->child < y->child ? -1 : x->child > y->child;
}

static int
check_tree(const int32_t *parent, uint32_t P, const char *host, char *err,
    size_t errlen)
{
	if (!parent || P < 2) {
		errfmt(err, errlen, "a topology needs a tree of at least 2 "
		    "processes (the root and a receiver)");
		return GROVE_EINVAL;
	}
	if (P > (uint32_t)INT32_MAX / 2) {
		errfmt(err, errlen, "too many processes: %u", P);
		return GROVE_EINVAL;
	}
	if (parent[0] != -1) {
		errfmt(err, errlen, "process 0 must be the root (parent -1)");
		return GROVE_EINVAL;
	}
	for (uint32_t i = 1; i < P; i++) {
		if (parent[i] < 0 || (uint32_t)parent[i] >= i) {
			errfmt(err, errlen, "process %u: parent %d is not in "
			    "[0, %u)", i, parent[i], i);
			return GROVE_EINVAL;
		}
	}
	if (!host[0] || strspn(host, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(host)) {
		errfmt(err, errlen, "bad host name '%.60s'", host);
		return GROVE_EINVAL;
	}
	return 0;
}

int
grove_logp_tree_to_mrnet(const int32_t *parent, uint32_t P,
    const char *host, char **out, char *err, size_t errlen)
{
	uint32_t *first = NULL, *size = NULL;
	struct edge *e = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!out) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	*out = NULL;
	if (!host)
		host = "localhost";
	rc = check_tree(parent, P, host, err, errlen);
	if (rc)
		return rc;
	/* Subtree sizes (parents have lower indices, so one backward
	 * pass), then the children lists sorted by parent and serving
	 * order: e[first[u] .. first[u+1]) are u's children. */
	first = calloc((size_t)P + 1, sizeof *first);
	size = malloc((size_t)P * sizeof *size);
	e = malloc((size_t)P * sizeof *e);
	f = open_memstream(&buf, &len);
	if (!first || !size || !e || !f) {
		rc = GROVE_ENOMEM;
		errfmt(err, errlen, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < P; i++)
		size[i] = 1;
	for (uint32_t i = P - 1; i >= 1; i--)
		size[parent[i]] += size[i];
	for (uint32_t i = 1; i < P; i++) {
		e[i - 1] = (struct edge){(uint32_t)parent[i], size[i], i};
		first[parent[i] + 1]++;
	}
	qsort(e, P - 1, sizeof *e, edge_order);
	for (uint32_t i = 0; i < P; i++)
		first[i + 1] += first[i];

	fprintf(f, "# broadcast tree over %u processes: FE = process 0, "
	    "CP %s:i forwards for process i,\n# BE %s:i (leaf) or %s:%u+i "
	    "(beside its CP) is process i\n", P, host, host, host, P);
	for (uint32_t u = 0; u < P; u++) {
		uint32_t n = first[u + 1] - first[u], col = 0;

		if (n == 0)
			continue;
		fprintf(f, "%s:%u =>", host, u);
		for (uint32_t c = first[u]; c < first[u + 1]; c++) {
			if (col++ == PER_LINE) {
				fprintf(f, "\n\t");
				col = 1;
			}
			fprintf(f, " %s:%u", host, e[c].child);
		}
		/* The CP's own process, as a BE. */
		if (u != 0) {
			if (col == PER_LINE)
				fprintf(f, "\n\t");
			fprintf(f, " %s:%u", host, P + u);
		}
		fprintf(f, " ;\n");
	}
	if (fclose(f)) {
		f = NULL;
		rc = GROVE_ENOMEM;
		errfmt(err, errlen, "out of memory");
		goto out;
	}
	f = NULL;
	*out = buf;
	buf = NULL;
out:
	if (f)
		fclose(f);
	free(buf);
	free(first);
	free(size);
	free(e);
	return rc;
}

int
grove_logp_tree_to_topo(const int32_t *parent, uint32_t P,
    const char *host, grove_topo **out, char *err, size_t errlen)
{
	char *text = NULL;
	int rc;

	if (!out) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	*out = NULL;
	rc = grove_logp_tree_to_mrnet(parent, P, host, &text, err, errlen);
	if (rc)
		return rc;
	rc = grove_topo_parse_string(text, out, err, errlen);
	free(text);
	return rc;
}
