/* The MRNet topology file format, as MRNet's own parser (mrnet/src/
 * parser.y) reads it:
 *
 *   file      := statement*
 *   statement := node '=>' node* ';'    a parent and its children
 *              | node ';'               a lone node ("vm:0 ;")
 *   node      := host ':' instance      host: [A-Za-z0-9._-]+
 *
 * Tokens and what separates them are lex_mrnet.c's.  A statement may span
 * lines and a node may head several statements (its children are
 * appended).  The tree is validated (one parent per node, one root, no
 * cycles, everything reachable, at least one back-end) and renumbered in
 * pre-order, children in the order the file lists them.  Leaves are BEs.
 * Grove also takes "node '=>' ;" (MRNet wants a child there), which says
 * no more than "node ;".
 */
#include <stdlib.h>
#include <string.h>

#include "topo/lex_mrnet.h"
#include "topo/topo_impl.h"

struct pnode {
	uint32_t host;    /* index into parser.hosts */
	uint32_t inst;
	int32_t parent;   /* -1 until a statement lists the node as a child */
	uint32_t pline;   /* line of that listing */
	uint32_t line;    /* first line the node appears on */
	int32_t first, last, next; /* children in file order */
};

struct parser {
	struct topo_lexer lx;
	struct topo_token la; /* a token read ahead, when has_la */
	int has_la;
	uint32_t *kids;       /* the children of the statement being read */
	uint32_t *kid_lines;
	uint32_t n_kids, cap_kids;
	struct pnode *v;
	uint32_t n, cap;
	uint32_t *node_tab; /* open addressing: node index + 1, 0 = empty */
	uint32_t node_tab_cap;
	char **hosts;
	uint32_t n_hosts, cap_hosts;
	uint32_t *host_tab; /* host index + 1, 0 = empty */
	uint32_t host_tab_cap;
	char *err;
	size_t errlen;
};

static uint64_t
hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static uint64_t
hash_node(uint32_t host, uint32_t inst)
{
	uint64_t h = ((uint64_t)host << 32 | inst) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

/* Grow an open-addressing table to twice its size (power of two), placing
 * the existing entries with hash(). */
static int
tab_grow(uint32_t **tab, uint32_t *cap, uint32_t count,
    uint64_t (*hash)(const struct parser *, uint32_t), const struct parser *p)
{
	uint32_t ncap = *cap ? *cap * 2 : 256;
	uint32_t *nt;

	if (count < *cap / 2)
		return 0;
	nt = calloc(ncap, sizeof *nt);
	if (!nt)
		return GROVE_ENOMEM;
	for (uint32_t i = 0; i < *cap; i++) {
		uint32_t e = (*tab)[i], j;

		if (!e)
			continue;
		j = (uint32_t)hash(p, e - 1) & (ncap - 1);
		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = e;
	}
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static uint64_t
host_hash_of(const struct parser *p, uint32_t i)
{
	return hash_bytes(p->hosts[i], strlen(p->hosts[i]));
}

static uint64_t
node_hash_of(const struct parser *p, uint32_t i)
{
	return hash_node(p->v[i].host, p->v[i].inst);
}

static int
intern_host(struct parser *p, const char *s, size_t len, uint32_t *out)
{
	uint32_t j;
	int rc = tab_grow(&p->host_tab, &p->host_tab_cap, p->n_hosts,
	    host_hash_of, p);

	if (rc)
		return rc;
	j = (uint32_t)hash_bytes(s, len) & (p->host_tab_cap - 1);
	for (; p->host_tab[j]; j = (j + 1) & (p->host_tab_cap - 1)) {
		const char *h = p->hosts[p->host_tab[j] - 1];

		if (!strncmp(h, s, len) && h[len] == '\0') {
			*out = p->host_tab[j] - 1;
			return 0;
		}
	}
	if (p->n_hosts == p->cap_hosts) {
		uint32_t cap = p->cap_hosts ? p->cap_hosts * 2 : 16;
		char **nh = realloc(p->hosts, cap * sizeof *nh);

		if (!nh)
			return GROVE_ENOMEM;
		p->hosts = nh;
		p->cap_hosts = cap;
	}
	p->hosts[p->n_hosts] = strndup(s, len);
	if (!p->hosts[p->n_hosts])
		return GROVE_ENOMEM;
	p->host_tab[j] = ++p->n_hosts;
	*out = p->n_hosts - 1;
	return 0;
}

static int
intern_node(struct parser *p, uint32_t host, uint32_t inst, uint32_t line,
    uint32_t *out)
{
	uint32_t j;
	struct pnode *nd;
	int rc = tab_grow(&p->node_tab, &p->node_tab_cap, p->n,
	    node_hash_of, p);

	if (rc)
		return rc;
	j = (uint32_t)hash_node(host, inst) & (p->node_tab_cap - 1);
	for (; p->node_tab[j]; j = (j + 1) & (p->node_tab_cap - 1)) {
		nd = &p->v[p->node_tab[j] - 1];
		if (nd->host == host && nd->inst == inst) {
			*out = p->node_tab[j] - 1;
			return 0;
		}
	}
	if (p->n == TOPO_MAX_NODES)
		return GROVE_ERANGE;
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 64;
		struct pnode *nv = realloc(p->v, cap * sizeof *nv);

		if (!nv)
			return GROVE_ENOMEM;
		p->v = nv;
		p->cap = cap;
	}
	nd = &p->v[p->n];
	nd->host = host;
	nd->inst = inst;
	nd->parent = -1;
	nd->pline = 0;
	nd->line = line;
	nd->first = nd->last = nd->next = -1;
	p->node_tab[j] = ++p->n;
	*out = p->n - 1;
	return 0;
}

/* "host:N" of a parsed node into buf. */
static const char *
node_name(const struct parser *p, uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", p->hosts[p->v[i].host], p->v[i].inst);
	return buf;
}

static int
get(struct parser *p, struct topo_token *t)
{
	if (p->has_la) {
		*t = p->la;
		p->has_la = 0;
		return 0;
	}
	return topo_lex_next(&p->lx, t, p->err, p->errlen);
}

static void
unget(struct parser *p, const struct topo_token *t)
{
	p->la = *t;
	p->has_la = 1;
}

static uint32_t last_line(const struct parser *p);

static int
syntax_error(struct parser *p, const struct topo_token *t,
    const char *expected)
{
	char q[200];

	if (t->kind == TOPO_TOK_EOF)
		errfmt(p->err, p->errlen, "line %u: syntax error at end of "
		    "file: expected %s", last_line(p), expected);
	else
		errfmt(p->err, p->errlen, "line %u: syntax error at '%s': "
		    "expected %s", t->line, topo_quote(t->start, t->len, q,
		    sizeof q), expected);
	return GROVE_ETOPO;
}

/* A node, "host:N", whose host word `h` has been read.  As in MRNet's
 * grammar the colon is a token of its own, so blanks may surround it
 * ("vm : 0").  `expected` is what the statement wanted here, for the
 * message when `h` is not followed by ':'.  *line is the line the node
 * ends on. */
static int
parse_node(struct parser *p, const struct topo_token *h, const char *expected,
    uint32_t *node, uint32_t *line)
{
	struct topo_token c, i;
	uint64_t inst = 0;
	uint32_t host;
	char q[200];
	int rc;

	if ((rc = get(p, &c)))
		return rc;
	if (c.kind != TOPO_TOK_COLON) {
		unget(p, &c);
		return syntax_error(p, h, expected);
	}
	if ((rc = get(p, &i)))
		return rc;
	if (i.kind != TOPO_TOK_WORD || strspn(i.start, "0123456789") < i.len) {
		const char *end = i.kind == TOPO_TOK_WORD ? i.start + i.len :
		    c.start + 1;

		errfmt(p->err, p->errlen, "line %u: bad node '%s': expected "
		    "an instance number after ':'", i.kind == TOPO_TOK_WORD ?
		    i.line : c.line, topo_quote(h->start, (size_t)(end -
		    h->start), q, sizeof q));
		return GROVE_ETOPO;
	}
	for (size_t k = 0; k < i.len; k++) {
		inst = inst * 10 + (uint64_t)(i.start[k] - '0');
		if (inst > UINT32_MAX) {
			errfmt(p->err, p->errlen, "line %u: instance number "
			    "in '%.*s:%.*s' is larger than %u", i.line,
			    (int)(h->len < 100 ? h->len : 100), h->start,
			    (int)(i.len < 40 ? i.len : 40), i.start,
			    UINT32_MAX);
			return GROVE_ETOPO;
		}
	}
	if (h->len > TOPO_MAX_HOSTNAME) {
		errfmt(p->err, p->errlen, "line %u: host name longer than "
		    "%d characters", h->line, TOPO_MAX_HOSTNAME);
		return GROVE_ETOPO;
	}
	rc = intern_host(p, h->start, h->len, &host);
	if (!rc)
		rc = intern_node(p, host, (uint32_t)inst, h->line, node);
	*line = i.line;
	return rc;
}

/* "head => k1 k2 k3 ... kN" of the statement being read, for a message;
 * more than 6 children are cut in the middle (missing_semi counts them). */
static const char *
stmt_text(const struct parser *p, uint32_t head, int arrow, char *buf,
    size_t len)
{
	char nm[300];
	size_t off;

	off = (size_t)snprintf(buf, len, "%s%s", node_name(p, head, nm,
	    sizeof nm), arrow ? " =>" : "");
	for (uint32_t k = 0; k < p->n_kids && off < len; k++) {
		if (p->n_kids > 6 && k == 3) {
			off += (size_t)snprintf(buf + off, len - off, " ...");
			k = p->n_kids - 2;
			continue;
		}
		off += (size_t)snprintf(buf + off, len - off, " %s",
		    node_name(p, p->kids[k], nm, sizeof nm));
	}
	return buf;
}

static int
push_kid(struct parser *p, uint32_t node, uint32_t line)
{
	if (p->n_kids == p->cap_kids) {
		uint32_t cap = p->cap_kids ? p->cap_kids * 2 : 64;
		uint32_t *k = realloc(p->kids, cap * sizeof *k);
		uint32_t *l;

		if (!k)
			return GROVE_ENOMEM;
		p->kids = k;
		l = realloc(p->kid_lines, cap * sizeof *l);
		if (!l)
			return GROVE_ENOMEM;
		p->kid_lines = l;
		p->cap_kids = cap;
	}
	p->kids[p->n_kids] = node;
	p->kid_lines[p->n_kids++] = line;
	return 0;
}

/* The statement that began with `head` lacks its ';': it ends on `line`,
 * and `next` (a node followed by '=>', or NULL at the end of the file)
 * is where the next one begins. */
static int
missing_semi(struct parser *p, uint32_t head, int arrow, uint32_t line,
    const struct topo_token *next, uint32_t next_node)
{
	char st[700], nm[300], cnt[40] = "";

	if (p->n_kids > 6)
		snprintf(cnt, sizeof cnt, " (%u children)", p->n_kids);
	if (next)
		errfmt(p->err, p->errlen, "line %u: missing ';' after '%s'%s "
		    "(the next statement, '%s =>', starts at line %u)", line,
		    stmt_text(p, head, arrow, st, sizeof st), cnt,
		    node_name(p, next_node, nm, sizeof nm), next->line);
	else
		errfmt(p->err, p->errlen, "line %u: missing ';' after '%s'%s "
		    "at end of file", line, stmt_text(p, head, arrow, st,
		    sizeof st), cnt);
	return GROVE_ETOPO;
}

static int
add_child(struct parser *p, uint32_t par, uint32_t ch, uint32_t line)
{
	struct pnode *c = &p->v[ch];
	char a[300], b[300];

	if (c->parent == (int32_t)par) {
		errfmt(p->err, p->errlen, "line %u: node '%s' is listed twice "
		    "as a child of '%s' (first at line %u)", line,
		    node_name(p, ch, a, sizeof a), node_name(p, par, b,
		    sizeof b), c->pline);
		return GROVE_ETOPO;
	}
	if (c->parent >= 0) {
		char d[300];

		errfmt(p->err, p->errlen, "line %u: node '%s' has two parents "
		    "('%s' at line %u and '%s')", line,
		    node_name(p, ch, a, sizeof a),
		    node_name(p, (uint32_t)c->parent, b, sizeof b), c->pline,
		    node_name(p, par, d, sizeof d));
		return GROVE_ETOPO;
	}
	c->parent = (int32_t)par;
	c->pline = line;
	if (p->v[par].last >= 0)
		p->v[p->v[par].last].next = (int32_t)ch;
	else
		p->v[par].first = (int32_t)ch;
	p->v[par].last = (int32_t)ch;
	return 0;
}

/* One statement, MRNet's "host '=>' hosts ';'" or "host ';'".  Children
 * are held until the ';' so that a missing ';' is reported as such: the
 * next statement's head, followed by its '=>', would otherwise join the
 * child list and show up later as a node with two parents. */
static int
parse_statement(struct parser *p, const struct topo_token *first)
{
	struct topo_token t, n;
	uint32_t head, line, node, nline;
	char nm[300], nm2[300];
	int rc;

	p->n_kids = 0;
	if (first->kind != TOPO_TOK_WORD)
		return syntax_error(p, first, "a node 'host:N'");
	if ((rc = parse_node(p, first, "a node 'host:N'", &head, &line)))
		return rc;
	if ((rc = get(p, &t)))
		return rc;
	if (t.kind == TOPO_TOK_SEMI)
		return 0; /* a lone node: declared, no children */
	if (t.kind == TOPO_TOK_EOF)
		return missing_semi(p, head, 0, line, NULL, 0);
	if (t.kind == TOPO_TOK_WORD) {
		/* Another node: either this one lacks its '=>' ("a:0 b:0
		 * c:0 ;") or it was a lone node without ';' and the next
		 * statement starts ("a:0 \n b:0 => c:0 ;"). */
		if ((rc = parse_node(p, &t, "'=>' or ';'", &node, &nline)) ||
		    (rc = get(p, &n)))
			return rc;
		if (n.kind == TOPO_TOK_ARROW)
			return missing_semi(p, head, 0, line, &t, node);
		errfmt(p->err, p->errlen, "line %u: missing '=>' after '%s' "
		    "(before '%s' at line %u)", line, node_name(p, head, nm,
		    sizeof nm), node_name(p, node, nm2, sizeof nm2),
		    t.line);
		return GROVE_ETOPO;
	}
	if (t.kind != TOPO_TOK_ARROW)
		return syntax_error(p, &t, "'=>' or ';'");
	line = t.line;
	for (;;) {
		if ((rc = get(p, &t)))
			return rc;
		if (t.kind == TOPO_TOK_SEMI)
			break;
		if (t.kind == TOPO_TOK_EOF)
			return missing_semi(p, head, 1, line, NULL, 0);
		if (t.kind != TOPO_TOK_WORD)
			return syntax_error(p, &t, "a node 'host:N' or ';'");
		if ((rc = parse_node(p, &t, "a node 'host:N' or ';'", &node,
		    &nline)) || (rc = get(p, &n)))
			return rc;
		if (n.kind == TOPO_TOK_ARROW)
			return missing_semi(p, head, 1, line, &t, node);
		unget(p, &n);
		if ((rc = push_kid(p, node, t.line)))
			return rc;
		line = nline;
	}
	for (uint32_t k = 0; k < p->n_kids; k++)
		if ((rc = add_child(p, head, p->kids[k], p->kid_lines[k])))
			return rc;
	return 0;
}

static int
parse_statements(struct parser *p)
{
	struct topo_token t;
	int rc;

	for (;;) {
		if ((rc = get(p, &t)))
			return rc;
		if (t.kind == TOPO_TOK_EOF)
			return 0;
		if ((rc = parse_statement(p, &t)))
			return rc;
	}
}

/* Describe the cycle that the parent chain from `start` runs into, e.g.
 * "b:0 => c:0 => b:0", and return the line of its last-declared edge. */
static uint32_t
describe_cycle(const struct parser *p, uint32_t start, uint8_t *seen,
    char *buf, size_t len)
{
	uint32_t u = start, c, k = 0, line = 0, cnt = 0;
	uint32_t *chain;
	size_t off = 0;
	char nm[300];

	while (!seen[u]) {
		seen[u] = 1;
		u = (uint32_t)p->v[u].parent;
	}
	/* u is on the cycle; its closing edge is the one declared last. */
	start = c = u;
	do {
		cnt++;
		if (p->v[u].pline > line) {
			line = p->v[u].pline;
			c = u;
		}
		u = (uint32_t)p->v[u].parent;
	} while (u != start && cnt <= p->n);
	chain = malloc((cnt + 1) * sizeof *chain);
	if (!chain) {
		snprintf(buf, len, "(out of memory)");
		return line;
	}
	/* Walking up from c and printing backwards reads parent => child,
	 * ending with the edge into c. */
	u = c;
	do {
		chain[k++] = u;
		u = (uint32_t)p->v[u].parent;
	} while (u != c && k < cnt);
	chain[k++] = c;
	buf[0] = '\0';
	for (uint32_t i = k; i-- > 0;) {
		uint32_t shown = k - 1 - i;

		if (off >= len)
			break;
		if (k > 8 && shown == 5) {
			off += (size_t)snprintf(buf + off, len - off,
			    " => ... (%u nodes)", cnt);
			i = 2;
			continue;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    shown ? " => " : "", node_name(p, chain[i], nm,
		    sizeof nm));
		if (off >= len)
			break;
	}
	free(chain);
	return line;
}

static uint32_t
last_line(const struct parser *p)
{
	size_t len = strlen(p->lx.s);

	if (p->lx.line > 1 && len && p->lx.s[len - 1] == '\n')
		return p->lx.line - 1;
	return p->lx.line;
}

/* Check the shape and number the reachable tree in pre-order into order[]
 * (order[k] = parser node of pre-order id k). */
static int
validate(struct parser *p, uint32_t *order)
{
	uint32_t root = UINT32_MAX, k = 0, sp = 0;
	int32_t *stack;
	char a[300], b[300], cyc[1024];

	if (p->n == 0) {
		errfmt(p->err, p->errlen, "line %u: empty topology: no "
		    "'host:N => host:N ... ;' statement", last_line(p));
		return GROVE_ETOPO;
	}
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->v[i].parent >= 0)
			continue;
		if (root != UINT32_MAX) {
			errfmt(p->err, p->errlen, "line %u: second root '%s' "
			    "(the first root is '%s' at line %u); a topology "
			    "has exactly one root", p->v[i].line,
			    node_name(p, i, a, sizeof a),
			    node_name(p, root, b, sizeof b), p->v[root].line);
			return GROVE_ETOPO;
		}
		root = i;
	}
	if (root == UINT32_MAX) {
		uint8_t *seen = calloc(p->n, 1);
		uint32_t line;

		if (!seen)
			return GROVE_ENOMEM;
		line = describe_cycle(p, 0, seen, cyc, sizeof cyc);
		free(seen);
		errfmt(p->err, p->errlen, "line %u: cycle: %s (the topology "
		    "has no root)", line, cyc);
		return GROVE_ETOPO;
	}
	if (p->v[root].first < 0) {
		/* Only the root can be left ("vm:0 ;"): any other node
		 * would have a parent.  MRNet takes such a file for
		 * back-ends that attach to the front-end; Grove's back-ends
		 * are leaves of the topology, attached or not. */
		errfmt(p->err, p->errlen, "line %u: the root '%s' has no "
		    "children: the topology holds only the front-end, and a "
		    "Grove network needs at least one back-end (list them as "
		    "its children, '%s => host:N ... ;')", p->v[root].line,
		    node_name(p, root, a, sizeof a), a);
		return GROVE_ETOPO;
	}
	/* Iterative pre-order: a file may describe a very deep chain. */
	stack = malloc((p->n + 1) * sizeof *stack);
	if (!stack)
		return GROVE_ENOMEM;
	order[k++] = root;
	stack[sp++] = p->v[root].first;
	while (sp) {
		int32_t c = stack[sp - 1];

		if (c < 0) {
			sp--;
			continue;
		}
		stack[sp - 1] = p->v[c].next;
		order[k++] = (uint32_t)c;
		stack[sp++] = p->v[c].first;
	}
	free(stack);
	if (k < p->n) {
		/* Each node has one parent, so whatever the root cannot
		 * reach hangs off a cycle. */
		uint8_t *seen = calloc(p->n, 1);
		uint32_t line, u = 0;

		if (!seen)
			return GROVE_ENOMEM;
		for (uint32_t i = 0; i < k; i++)
			seen[order[i]] = 2;
		while (seen[u])
			u++;
		for (uint32_t i = 0; i < k; i++)
			seen[order[i]] = 0;
		line = describe_cycle(p, u, seen, cyc, sizeof cyc);
		free(seen);
		errfmt(p->err, p->errlen, "line %u: %u node%s not connected "
		    "to the root '%s': cycle %s", line, p->n - k,
		    p->n - k == 1 ? " is" : "s are",
		    node_name(p, root, a, sizeof a), cyc);
		return GROVE_ETOPO;
	}
	return 0;
}

static void
parser_free(struct parser *p)
{
	for (uint32_t i = 0; i < p->n_hosts; i++)
		free(p->hosts[i]);
	free(p->hosts);
	free(p->host_tab);
	free(p->node_tab);
	free(p->kids);
	free(p->kid_lines);
	free(p->v);
}

static int
build(struct parser *p, const uint32_t *order, grove_topo **out)
{
	uint32_t *newid = malloc(p->n * sizeof *newid);
	int32_t *parent = malloc(p->n * sizeof *parent);
	grove_topo *t = NULL;
	int rc = GROVE_ENOMEM;

	if (!newid || !parent)
		goto out;
	for (uint32_t k = 0; k < p->n; k++)
		newid[order[k]] = k;
	for (uint32_t k = 0; k < p->n; k++) {
		int32_t par = p->v[order[k]].parent;

		parent[k] = par < 0 ? -1 : (int32_t)newid[par];
	}
	rc = topo_create(p->n, parent, &t);
	if (rc)
		goto out;
	/* Hand the interned names over instead of copying them. */
	t->hosts = p->hosts;
	t->n_hosts = p->n_hosts;
	t->cap_hosts = p->cap_hosts;
	p->hosts = NULL;
	p->n_hosts = p->cap_hosts = 0;
	t->root_line = p->v[order[0]].line;
	for (uint32_t k = 0; k < t->n; k++) {
		t->nodes[k].host = t->hosts[p->v[order[k]].host];
		t->nodes[k].instance = p->v[order[k]].inst;
	}
	*out = t;
out:
	free(newid);
	free(parent);
	return rc;
}

int
grove_topo_parse_string(const char *text, grove_topo **out, char *err,
    size_t errlen)
{
	struct parser p = {0};
	uint32_t *order = NULL;
	int rc;

	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!text) {
		errfmt(err, errlen, "no topology text");
		return GROVE_EINVAL;
	}
	topo_lex_init(&p.lx, text);
	p.err = err;
	p.errlen = errlen;
	rc = parse_statements(&p);
	if (!rc) {
		order = malloc((p.n ? p.n : 1) * sizeof *order);
		rc = order ? validate(&p, order) : GROVE_ENOMEM;
	}
	if (!rc)
		rc = build(&p, order, out);
	if (rc == GROVE_ENOMEM)
		errfmt(err, errlen, "line %u: out of memory", p.lx.line);
	else if (rc == GROVE_ERANGE)
		errfmt(err, errlen, "line %u: more than %u nodes", p.lx.line,
		    TOPO_MAX_NODES);
	if (rc == GROVE_ERANGE)
		rc = GROVE_ETOPO;
	free(order);
	parser_free(&p);
	return rc;
}

int
grove_topo_parse_file(const char *path, grove_topo **out, char *err,
    size_t errlen)
{
	char *text;
	int rc;

	if (!out || !path)
		return GROVE_EINVAL;
	*out = NULL;
	rc = topo_read_file(path, &text, err, errlen);
	if (rc)
		return rc;
	rc = grove_topo_parse_string(text, out, err, errlen);
	free(text);
	return rc;
}
