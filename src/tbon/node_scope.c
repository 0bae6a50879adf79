/* Event scopes through the tree, at every node (see node_scope.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "monitor/share.h"
#include "scope/placement.h"
#include "scope/scope.h"
#include "tbon/node.h"
#include "tbon/node_scope.h"
#include "tbon/proto.h"

typedef struct node_scope {
	uint32_t id;
	struct node_scope_params sp;
	uint64_t used;              /* the pull count when last pulled */
	node *n;
	/* Per topology node: its reader (scope_reader_of), worked out
	 * once: the reader asks it for every space and every link tuple. */
	int64_t *reader;
	uint32_t n_nodes;
	/* The reader (when this node reads anything): its analysis and
	 * the spaces it holds open, kept from pull to pull. */
	int reads;
	struct mon_analysis *a;
	struct scope sc;
	struct mon_share_buf raw;   /* raw kind: this pull's blocks */
	/* The pull under way: its id (0: none), the CP children still to
	 * answer, and what is merged so far. */
	uint32_t pull;
	uint8_t *pending;
	uint32_t waiting, asked, answered;
	struct mon_analysis *merged;
	struct mon_share_buf blocks;
	struct mon_share_counts counts;
	char err[300];
	node_scope_done_fn done;    /* the FE's */
} node_scope;

struct node_scopes {
	node_scope *s[NODE_SCOPE_MAX];
	uint64_t pulls;
};

static int
admit(void *ctx, const char *role, uint32_t rank, int64_t *node_out)
{
	node_scope *s = ctx;
	node *n = s->n;
	int64_t id = scope_node_of(n->topo, role, rank);
	*node_out = id;
	if (id >= 0)
		return id < s->n_nodes && s->reader[id] == (int64_t)n->id;
	/* Another role's space found on this host (a tool's own): the
	 * host's reader takes it. */
	return scope_host_reader(n->topo, n->id) == (int64_t)n->id;
}

/* Whether this reader reads both ends of link from->to. */
static int
both_read_here(void *ctx, int64_t from, int64_t to)
{
	node_scope *s = ctx;
	int64_t me = s->n->id;
	return from >= 0 && to >= 0 && from < s->n_nodes && to < s->n_nodes &&
	       s->reader[from] == me && s->reader[to] == me;
}

/* Whether node n reads anything for this placement: it reads at least
 * its own space when it is a reader at all. */
static int
reads_anything(const node *n, int readers)
{
	return scope_reader_of(n->topo, n->id, readers) == (int64_t)n->id;
}

static void
pull_clear(node_scope *s)
{
	free(s->pending);
	s->pending = NULL;
	mon_analysis_free(s->merged);
	s->merged = NULL;
	mon_share_buf_free(&s->blocks);
	memset(&s->counts, 0, sizeof s->counts);
	s->pull = s->waiting = s->asked = s->answered = 0;
	s->err[0] = '\0';
}

static void
scope_free_one(node_scope *s)
{
	if (!s)
		return;
	pull_clear(s);
	if (s->reads)
		scope_free(&s->sc);
	mon_analysis_free(s->a);
	mon_share_buf_free(&s->raw);
	free(s->reader);
	free(s);
}

static struct node_scopes *
scopes_of(node *n)
{
	if (!n->scopes)
		n->scopes = calloc(1, sizeof *n->scopes);
	return n->scopes;
}

static node_scope *
find(node *n, uint32_t id)
{
	if (!n->scopes)
		return NULL;
	for (int i = 0; i < NODE_SCOPE_MAX; i++)
		if (n->scopes->s[i] && n->scopes->s[i]->id == id)
			return n->scopes->s[i];
	return NULL;
}

/* A new scope: the least recently pulled one makes room when all slots
 * are taken (its monitor most likely left without a word). */
static node_scope *
create(node *n, uint32_t id, const struct node_scope_params *sp)
{
	struct node_scopes *all = scopes_of(n);
	if (!all)
		return NULL;
	int slot = -1;
	for (int i = 0; i < NODE_SCOPE_MAX; i++) {
		if (!all->s[i]) {
			slot = i;
			break;
		}
		if (slot < 0 || all->s[i]->used < all->s[slot]->used)
			slot = i;
	}
	if (all->s[slot]) {
		log_warn("node %u: event scope %u ended to make room for "
		    "scope %u", n->id, all->s[slot]->id, id);
		scope_free_one(all->s[slot]);
		all->s[slot] = NULL;
	}
	node_scope *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->id = id;
	s->sp = *sp;
	s->n = n;
	s->n_nodes = grove_topo_size(n->topo);
	if (!(s->reader = malloc((s->n_nodes ? s->n_nodes : 1) *
	    sizeof *s->reader))) {
		free(s);
		return NULL;
	}
	for (uint32_t i = 0; i < s->n_nodes; i++)
		s->reader[i] = scope_reader_of(n->topo, i, (int)sp->readers);
	if (reads_anything(n, (int)sp->readers)) {
		/* Few spans per process: no timelines are shared.  Few link
		 * ends waiting for their other end: a message between hosts
		 * never finds it here (what does not fit is counted), and a
		 * reader that lives as long as its monitor must not grow
		 * with the messages it saw. */
		struct mon_analysis_opts ao = {.timeline_keep = 16,
		                               .max_pending = 1u << 16,
		                               .link_local = both_read_here,
		                               .link_ctx = s};
		struct scope_select sel = {
			s->sp.layer[0] ? s->sp.layer : NULL,
			s->sp.name[0] ? s->sp.name : NULL, s->sp.op,
			(int)s->sp.last_only};
		if (!(s->a = mon_analysis_new(&ao)) ||
		    scope_init(&s->sc, n->netid, &sel, s->a) != 0) {
			mon_analysis_free(s->a);
			free(s->reader);
			free(s);
			return NULL;
		}
		s->reads = 1;
		s->sc.admit = admit;
		s->sc.admit_ctx = s;
		if (sp->kind == MON_SHARE_RAW)
			s->sc.raw = &s->raw;
	}
	all->s[slot] = s;
	return s;
}

/* This node's own reading, into the pull's merge. */
static int
read_own(node_scope *s)
{
	if (!s->reads)
		return 0;
	s->raw.len = 0;
	int rc = scope_poll(&s->sc);
	if (rc)
		return rc;
	struct mon_share_counts c;
	scope_counts(&s->sc, &c);
	if (s->sp.kind == MON_SHARE_RAW) {
		mon_share_counts_add(&s->counts, &c);
		mon_share_buf_free(&s->blocks);
		s->blocks = s->raw; /* taken over: the reader starts anew */
		memset(&s->raw, 0, sizeof s->raw);
		return 0;
	}
	/* Through its own share, as a child's comes: what a share carries
	 * is merged, not the reader's link ends and spans. */
	uint8_t *own = NULL;
	size_t len = 0;
	int kind;
	char err[256];
	rc = mon_share_encode(&c, s->a, &own, &len);
	if (!rc)
		rc = mon_share_decode(own, len, &s->counts, &kind, s->merged,
		    NULL, err, sizeof err);
	free(own);
	return rc;
}

/* The pull's share, encoded. */
static int
encode(node_scope *s, uint8_t **out, size_t *len)
{
	if (s->sp.kind == MON_SHARE_ANALYSIS && !s->merged)
		return GROVE_ENOMEM; /* pull_begin could not make it */
	if (s->sp.kind == MON_SHARE_RAW)
		return mon_share_raw_encode(&s->counts, &s->blocks, out, len);
	return mon_share_encode(&s->counts, s->merged, out, len);
}

/* Every CP child answered (or was lost): the share goes up, or to the
 * FE's monitor. */
static void
maybe_done(node *n, node_scope *s)
{
	if (!s->pull || s->waiting)
		return;
	uint8_t *share = NULL;
	size_t len = 0;
	int rc = encode(s, &share, &len);
	uint32_t pull = s->pull;
	if (n->id == 0) {
		node_scope_done_fn done = s->done;
		char err[sizeof s->err];
		snprintf(err, sizeof err, "%s", rc ? grove_strerror(rc) : s->err);
		uint32_t answered = s->answered, asked = s->asked;
		pull_clear(s);
		if (done)
			done(n, s->id, pull, rc ? NULL : share, rc ? 0 : len,
			    answered, asked, err[0] ? err : NULL);
	} else if (!rc) {
		node_up_ctl(n, WIRE_T_SCOPE_SHARE, (int32_t)pull,
		    PROTO_SCOPE_SHARE, s->id, share, (uint64_t)len);
		pull_clear(s);
	} else {
		/* Out of memory: the parent counts this subtree as not
		 * answering when it gives up (or when this node is lost). */
		log_warn("node %u: event scope %u: no share: %s", n->id, s->id,
		    grove_strerror(rc));
		pull_clear(s);
	}
	free(share);
}

/* A pull at this node: passed on to the CP children, then the node's
 * own reading. */
static void
pull_begin(node *n, node_scope *s, uint32_t pull, grove_packet *req)
{
	pull_clear(s); /* an older pull nobody waits for any more */
	s->pull = pull;
	s->used = ++n->scopes->pulls;
	if (s->sp.kind == MON_SHARE_ANALYSIS &&
	    !(s->merged = mon_analysis_new(NULL)))
		snprintf(s->err, sizeof s->err, "node %u: out of memory", n->id);
	if (n->cap_children && !(s->pending = calloc(n->cap_children, 1)))
		snprintf(s->err, sizeof s->err, "node %u: out of memory", n->id);
	for (uint32_t c = 0; c < n->n_children && s->pending; c++) {
		node_child *ch = &n->children[c];
		if (ch->role != GROVE_ROLE_CP || !ch->c ||
		    ch->state == CHILD_GONE)
			continue;
		node_send(n, ch->c, req);
		s->pending[c] = 1;
		s->waiting++;
		s->asked++;
	}
	int rc = s->err[0] ? 0 : read_own(s);
	if (rc)
		snprintf(s->err, sizeof s->err, "node %u: reading its event "
		    "spaces: %s", n->id, grove_strerror(rc));
	maybe_done(n, s);
}

static void
params_from(struct node_scope_params *sp, uint32_t kind, uint32_t readers,
    int32_t op, const char *layer, const char *name, uint32_t last_only)
{
	memset(sp, 0, sizeof *sp);
	sp->kind = kind;
	sp->readers = readers;
	sp->op = op;
	snprintf(sp->layer, sizeof sp->layer, "%s", layer);
	snprintf(sp->name, sizeof sp->name, "%s", name);
	sp->last_only = last_only;
}

int
node_scope_pull_start(node *n, uint32_t scope, uint32_t pull,
    const struct node_scope_params *sp, node_scope_done_fn done)
{
	node_scope *s = find(n, scope);
	if (!s && !(s = create(n, scope, sp)))
		return GROVE_ENOMEM;
	s->done = done;
	grove_packet *req = NULL;
	int rc = wire_pack(&req, WIRE_T_SCOPE_PULL, 0, (int32_t)pull, n->rank,
	    0, PROTO_SCOPE_PULL, scope, sp->kind, sp->readers, sp->op,
	    sp->layer, sp->name, sp->last_only);
	if (rc)
		return rc;
	pull_begin(n, s, pull, req);
	grove_packet_unref(req);
	return 0;
}

void
node_scope_pull_now(node *n, uint32_t scope, uint32_t pull)
{
	node_scope *s = find(n, scope);
	if (!s || s->pull != pull)
		return;
	if (!s->err[0])
		snprintf(s->err, sizeof s->err, "%u of %u CPs below the "
		    "front-end did not answer in time", s->waiting, s->asked);
	s->waiting = 0;
	maybe_done(n, s);
}

void
node_scope_end(node *n, uint32_t scope, int forward)
{
	if (forward) {
		grove_packet *p = NULL;
		if (wire_pack(&p, WIRE_T_SCOPE_END, 0, 0, n->rank, 0,
		    PROTO_SCOPE_END, scope) == 0) {
			node_send_down(n, NULL, p, 1);
			grove_packet_unref(p);
		}
	}
	if (!n->scopes)
		return;
	for (int i = 0; i < NODE_SCOPE_MAX; i++)
		if (n->scopes->s[i] && n->scopes->s[i]->id == scope) {
			scope_free_one(n->scopes->s[i]);
			n->scopes->s[i] = NULL;
		}
}

static void node_scope_share(node *n, uint32_t idx, grove_packet *p);
static void node_scope_child_gone(node *n, uint32_t idx);
static void node_scope_fini(node *n);

static void
node_scope_from_parent(node *n, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	uint32_t scope = 0, kind = 0, readers = 0, last_only = 0;
	int32_t op = -1;
	const char *layer = NULL, *name = NULL;
	if (h->type == WIRE_T_SCOPE_END) {
		if (grove_packet_unpack(p, PROTO_SCOPE_END, &scope) == 0)
			node_scope_end(n, scope, 1);
		return;
	}
	if (grove_packet_unpack(p, PROTO_SCOPE_PULL, &scope, &kind, &readers,
	    &op, &layer, &name, &last_only) != 0 ||
	    (kind != MON_SHARE_ANALYSIS && kind != MON_SHARE_RAW) ||
	    (readers != SCOPE_READERS_HOST && readers != SCOPE_READERS_NODE) ||
	    h->tag <= 0) {
		log_warn("node %u: malformed SCOPE_PULL from the parent dropped",
		    n->id);
		return;
	}
	struct node_scope_params sp;
	params_from(&sp, kind, readers, op, layer, name, last_only);
	node_scope *s = find(n, scope);
	if (!s && !(s = create(n, scope, &sp))) {
		log_warn("node %u: event scope %u: out of memory", n->id, scope);
		return;
	}
	pull_begin(n, s, (uint32_t)h->tag, p);
}

static void
node_scope_share(node *n, uint32_t idx, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	uint32_t scope = 0;
	const uint8_t *bytes = NULL;
	uint64_t len = 0;
	node_child *ch = &n->children[idx];
	if (grove_packet_unpack(p, PROTO_SCOPE_SHARE, &scope, &bytes, &len)
	    != 0) {
		log_warn("node %u: malformed SCOPE_SHARE from node %u dropped",
		    n->id, ch->node_id);
		return;
	}
	node_scope *s = find(n, scope);
	/* One answer per CP child asked, to the pull under way: a late
	 * answer to a pull given up, or a second one, is no answer. */
	if (!s || !s->pull || (uint32_t)h->tag != s->pull || !s->pending ||
	    !s->pending[idx]) {
		log_debug("node %u: event scope %u: share from node %u for a "
		    "pull not waiting for it dropped", n->id, scope,
		    ch->node_id);
		return;
	}
	s->pending[idx] = 0;
	s->waiting--;
	int kind = 0;
	char err[256];
	int rc = mon_share_decode(bytes, (size_t)len, &s->counts, &kind,
	    s->merged, s->sp.kind == MON_SHARE_RAW ? &s->blocks : NULL, err,
	    sizeof err);
	if (!rc && kind != (int)s->sp.kind) {
		rc = GROVE_EFORMAT;
		snprintf(err, sizeof err, "a share of another kind");
	}
	if (rc) {
		log_warn("node %u: event scope %u: the share of node %u left "
		    "out: %s", n->id, scope, ch->node_id, err);
		if (!s->err[0])
			snprintf(s->err, sizeof s->err, "the share of node %u "
			    "was left out: %s", ch->node_id, err);
	} else {
		s->answered++;
	}
	maybe_done(n, s);
}

static void
node_scope_child_gone(node *n, uint32_t idx)
{
	if (!n->scopes)
		return;
	for (int i = 0; i < NODE_SCOPE_MAX; i++) {
		node_scope *s = n->scopes->s[i];
		if (!s || !s->pull || !s->pending || !s->pending[idx])
			continue;
		s->pending[idx] = 0;
		s->waiting--;
		if (!s->err[0])
			snprintf(s->err, sizeof s->err, "node %u was lost before "
			    "it answered", n->children[idx].node_id);
		maybe_done(n, s);
	}
}

static void
node_scope_fini(node *n)
{
	if (!n->scopes)
		return;
	for (int i = 0; i < NODE_SCOPE_MAX; i++)
		scope_free_one(n->scopes->s[i]);
	free(n->scopes);
	n->scopes = NULL;
}

static const struct node_scope_ops ops = {
	node_scope_from_parent, node_scope_share, node_scope_child_gone,
	node_scope_fini,
};

void
node_scope_enable(node *n)
{
	n->scope_ops = &ops;
}
