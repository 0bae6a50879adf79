/* Printing topologies: an indented text tree, Graphviz DOT and the MRNet
 * file format (which grove_topo_parse_* reads back to the same tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_impl.h"

/* Past this depth the text tree stops indenting and prints the depth, so a
 * long chain does not produce quadratic output. */
#define TEXT_MAX_INDENT 40

/* MRNet output puts this many children on a line. */
#define MRNET_PER_LINE 8

static const char *
role_name(grove_node_role r)
{
	switch (r) {
	case GROVE_ROLE_FE:
		return "FE";
	case GROVE_ROLE_CP:
		return "CP";
	default:
		return "BE";
	}
}

static void
print_ranks(const grove_topo_node *nd, FILE *out)
{
	if (nd->role == GROVE_ROLE_BE)
		fprintf(out, "rank %u", nd->be_rank);
	else if (nd->be_hi - nd->be_lo == 1)
		fprintf(out, "ranks %u", nd->be_lo);
	else
		fprintf(out, "ranks %u-%u", nd->be_lo, nd->be_hi - 1);
}

static void
print_text(const grove_topo *t, FILE *out)
{
	uint32_t n_cp = 0;

	for (uint32_t i = 0; i < t->n; i++) {
		const grove_topo_node *nd = &t->nodes[i];
		uint32_t ind = nd->depth > TEXT_MAX_INDENT ? TEXT_MAX_INDENT :
		    nd->depth;

		n_cp += nd->role == GROVE_ROLE_CP;
		fprintf(out, "%*s", (int)(2 * ind), "");
		if (nd->depth > TEXT_MAX_INDENT)
			fprintf(out, "(depth %u) ", nd->depth);
		fprintf(out, "%s %s:%u [node %u] ", role_name(nd->role),
		    nd->host ? nd->host : "?", nd->instance, nd->id);
		print_ranks(nd, out);
		fputc('\n', out);
	}
	fprintf(out, "nodes %u, CPs %u, BEs %u, depth %u, max fan-out %u\n",
	    t->n, n_cp, t->n_be, t->depth, t->max_fanout);
}

/* Host names are restricted to [A-Za-z0-9._-] by the parsers, but a label
 * is quoted properly anyway. */
static void
dot_str(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void
print_dot(const grove_topo *t, FILE *out)
{
	fprintf(out, "digraph grove_topology {\n"
	    "\tnode [shape=box];\n");
	for (uint32_t i = 0; i < t->n; i++) {
		const grove_topo_node *nd = &t->nodes[i];

		fprintf(out, "\tn%u [label=\"%s\\n", i, role_name(nd->role));
		dot_str(nd->host ? nd->host : "?", out);
		fprintf(out, ":%u\\n", nd->instance);
		print_ranks(nd, out);
		fprintf(out, "\"%s];\n", nd->role == GROVE_ROLE_BE ?
		    ", shape=ellipse" : nd->role == GROVE_ROLE_FE ?
		    ", shape=doubleoctagon" : "");
		if (nd->parent >= 0)
			fprintf(out, "\tn%d -> n%u;\n", nd->parent, i);
	}
	fprintf(out, "}\n");
}

static void
print_mrnet(const grove_topo *t, FILE *out)
{
	fprintf(out, "# grove topology: %u nodes, %u back-ends, depth %u\n",
	    t->n, t->n_be, t->depth);
	for (uint32_t i = 0; i < t->n; i++) {
		const grove_topo_node *nd = &t->nodes[i];
		const uint32_t *ch = t->children + nd->first_child;
		int wrap = nd->n_children > MRNET_PER_LINE;

		if (!nd->n_children)
			continue;
		fprintf(out, "%s:%u =>", nd->host, nd->instance);
		for (uint32_t c = 0; c < nd->n_children; c++) {
			const grove_topo_node *cn = &t->nodes[ch[c]];

			fputs(wrap && c % MRNET_PER_LINE == 0 ? "\n\t" :
			    " ", out);
			fprintf(out, "%s:%u", cn->host, cn->instance);
		}
		fputs(" ;\n", out);
	}
}

int
grove_topo_print(const grove_topo *t, grove_topo_format f, FILE *out)
{
	if (!t || !out)
		return GROVE_EINVAL;
	switch (f) {
	case GROVE_TOPO_TEXT:
		print_text(t, out);
		break;
	case GROVE_TOPO_DOT:
		print_dot(t, out);
		break;
	case GROVE_TOPO_MRNET:
		print_mrnet(t, out);
		break;
	default:
		return GROVE_EINVAL;
	}
	return ferror(out) ? GROVE_ESYS : 0;
}

int
grove_topo_to_string(const grove_topo *t, grove_topo_format f, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	m = open_memstream(&buf, &len);
	if (!m)
		return GROVE_ENOMEM;
	rc = grove_topo_print(t, f, m);
	if (fclose(m) && !rc)
		rc = GROVE_ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

int
grove_topo_format_parse(const char *name, grove_topo_format *out)
{
	static const struct {
		const char *name;
		grove_topo_format f;
	} names[] = {
		{"text", GROVE_TOPO_TEXT},
		{"dot", GROVE_TOPO_DOT},
		{"mrnet", GROVE_TOPO_MRNET},
	};

	if (!name || !out)
		return GROVE_EINVAL;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!strcmp(name, names[i].name)) {
			*out = names[i].f;
			return 0;
		}
	}
	return GROVE_EINVAL;
}
