/* Compare-And-Write.
 *
 * The manager serializes them: one queue, one in flight.  Running one is
 * a multicast of the query down the tree (every node answers, those
 * outside the set with the neutral answer), one reduced answer up (the
 * tree's min filter: "holds" is the minimum of 1/0, the range of the
 * variable is min v and min ~v), then, when it held and writes, a
 * multicast of the write.  A node's Compare-And-Write is a request to the
 * manager, which runs it in turn and sends the result back.  The queue
 * and the single query in flight are what makes every node see the same
 * order of writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcs/bcs_impl.h"
#include "core/log.h"

static int
holds(grove_bcs_cmp cmp, int64_t v, int64_t value)
{
	switch (cmp) {
	case GROVE_BCS_GE:
		return v >= value;
	case GROVE_BCS_LT:
		return v < value;
	case GROVE_BCS_EQ:
		return v == value;
	case GROVE_BCS_NE:
		return v != value;
	}
	return 0;
}

static int
in_set(const grove_bcs_set *s, uint32_t node)
{
	if (!s->nodes)
		return node != GROVE_BCS_MANAGER;
	for (uint32_t i = 0; i < s->count; i++)
		if (s->nodes[i] == node)
			return 1;
	return 0;
}

static int
check_cw(grove_bcs *b, const grove_bcs_cw *cw, const char *w)
{
	if (cw->var >= b->nvars || (cw->write && cw->write_var >= b->nvars)) {
		bcs_set_error(b, "%s: variable %u: the machine has %u", w,
		    cw->var >= b->nvars ? cw->var : cw->write_var, b->nvars);
		return GROVE_ERANGE;
	}
	if ((unsigned)cw->cmp > GROVE_BCS_NE) {
		bcs_set_error(b, "%s: comparison %d is not a grove_bcs_cmp", w,
		    (int)cw->cmp);
		return GROVE_EINVAL;
	}
	if (cw->write && cw->write_event != GROVE_BCS_NO_EVENT &&
	    (cw->write_event < 0 || (uint32_t)cw->write_event >= b->nevents)) {
		bcs_set_error(b, "%s: write event %d: the machine has %u", w,
		    (int)cw->write_event, b->nevents);
		return GROVE_ERANGE;
	}
	return bcs_check_set(b, &cw->on, w);
}

/* ---- the manager's queue ------------------------------------------------ */

static void
op_free(bcs_caw_op *op)
{
	free(op->set_ids);
	free(op);
}

static bcs_caw_op *
op_new(grove_bcs *b, uint32_t origin, uint64_t rid, const grove_bcs_cw *cw)
{
	bcs_caw_op *op = calloc(1, sizeof *op);
	if (!op)
		return NULL;
	op->origin = origin;
	op->rid = rid;
	op->cw = *cw;
	if (cw->on.nodes) {
		op->set_ids = malloc(cw->on.count * sizeof *op->set_ids);
		if (!op->set_ids) {
			free(op);
			return NULL;
		}
		memcpy(op->set_ids, cw->on.nodes,
		    cw->on.count * sizeof *op->set_ids);
		op->cw.on.nodes = op->set_ids;
	}
	/* An explicit set of every node is "all" on the wire. */
	uint32_t nodes_in = 0;
	if (!cw->on.nodes) {
		nodes_in = b->nodes;
	} else {
		uint8_t *seen = calloc(b->nodes, 1);
		for (uint32_t i = 0; seen && i < cw->on.count; i++) {
			uint32_t id = cw->on.nodes[i];
			if (id != GROVE_BCS_MANAGER && !seen[id]) {
				seen[id] = 1;
				nodes_in++;
			}
		}
		free(seen);
	}
	op->all = nodes_in == b->nodes;
	return op;
}

static void
enqueue(grove_bcs *b, bcs_caw_op *op)
{
	op->next = NULL;
	if (b->caw_tail)
		b->caw_tail->next = op;
	else
		b->caw_head = op;
	b->caw_tail = op;
}

static void
unlink_op(grove_bcs *b, bcs_caw_op *op)
{
	bcs_caw_op *prev = NULL;
	for (bcs_caw_op *o = b->caw_head; o; prev = o, o = o->next)
		if (o == op) {
			if (prev)
				prev->next = o->next;
			else
				b->caw_head = o->next;
			if (b->caw_tail == o)
				b->caw_tail = prev;
			break;
		}
	op->next = NULL;
}

/* The op is over: its origin learns the result. */
static void
complete(grove_bcs *b, bcs_caw_op *op)
{
	unlink_op(b, op);
	op->done = 1;
	if (op->origin == GROVE_BCS_MANAGER) {
		if (op->abandoned)
			op_free(op);
		return; /* the waiting call takes it */
	}
	if (!op->abandoned && op->origin < b->nodes &&
	    !b->peers[op->origin].lost) {
		bcs_msg m;
		memset(&m, 0, sizeof m);
		m.type = BCS_T_CAW_RESULT;
		m.u.result.id = op->rid;
		m.u.result.result = op->rc;
		m.u.result.msg.p = op->why;
		m.u.result.msg.len = op->rc < 0 ?
		    (uint32_t)strlen(op->why) : 0;
		bcs_mgr_send_to(b, op->origin, &m, NULL, NULL, 0);
	}
	op_free(op);
}

/* The write of an op that held: here, then on the nodes. */
static int
write_all(grove_bcs *b, bcs_caw_op *op)
{
	const grove_bcs_cw *cw = &op->cw;
	if (in_set(&cw->on, GROVE_BCS_MANAGER)) {
		b->vars[cw->write_var] = cw->write_value;
		bcs_event_signal(b, cw->write_event);
	}
	int has_nodes = op->all;
	for (uint32_t i = 0; !has_nodes && cw->on.nodes && i < cw->on.count;
	    i++)
		has_nodes = cw->on.nodes[i] != GROVE_BCS_MANAGER;
	if (!has_nodes)
		return 0;
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_CAW_WRITE;
	m.u.caw.id = op->qid;
	m.u.caw.set.count = op->all ? BCS_SET_ALL : cw->on.count;
	m.u.caw.write = 1;
	m.u.caw.write_var = cw->write_var;
	m.u.caw.write_value = cw->write_value;
	m.u.caw.write_event = cw->write_event;
	bcs_wire_tables t = {.set_ids = cw->on.nodes};
	return bcs_mgr_multicast(b, &m, &t, NULL, 0);
}

/* Starts op: 1 when it finished at once, 0 when its query is out. */
static int
start(grove_bcs *b, bcs_caw_op *op)
{
	const grove_bcs_cw *cw = &op->cw;
	op->started = 1;
	int rc = bcs_check_alive(b, &cw->on);
	if (rc == 0 && b->nlost) {
		/* A node that left answers no query, whatever the set. */
		for (uint32_t i = 0; i < b->nodes && rc == 0; i++)
			if (b->peers[i].left) {
				bcs_set_error(b, "node %u has left the machine: "
				    "no Compare-And-Write can complete", i);
				rc = GROVE_ECLOSED;
			}
	}
	if (rc != 0) {
		op->rc = rc;
		snprintf(op->why, sizeof op->why, "%s", b->err);
		return 1;
	}
	op->vmin = INT64_MAX;
	op->vmax = INT64_MIN;
	int local = 1;
	if (in_set(&cw->on, GROVE_BCS_MANAGER)) {
		int64_t v = b->vars[cw->var];
		local = holds(cw->cmp, v, cw->value);
		op->vmin = op->vmax = v;
	}
	int has_nodes = op->all;
	for (uint32_t i = 0; !has_nodes && cw->on.nodes && i < cw->on.count;
	    i++)
		has_nodes = cw->on.nodes[i] != GROVE_BCS_MANAGER;
	if (!has_nodes) {
		op->rc = local;
		if (local && cw->write && !op->abandoned)
			write_all(b, op);
		return 1;
	}
	op->rc = local; /* the nodes' answer is and-ed in */
	op->qid = b->next_id++;
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_CAW_QUERY;
	m.u.caw.id = op->qid;
	m.u.caw.set.count = op->all ? BCS_SET_ALL : cw->on.count;
	m.u.caw.var = cw->var;
	m.u.caw.cmp = (uint8_t)cw->cmp;
	m.u.caw.value = cw->value;
	bcs_wire_tables t = {.set_ids = cw->on.nodes};
	rc = bcs_mgr_multicast(b, &m, &t, NULL, 0);
	if (rc == 0)
		rc = bcs_mgr_expect_wave(b, op->qid, 1);
	if (rc != 0) {
		op->rc = rc;
		snprintf(op->why, sizeof op->why, "%s", b->err);
		return 1;
	}
	return 0;
}

void
bcs_caw_pump(grove_bcs *b)
{
	while (b->caw_head && !b->caw_head->started) {
		bcs_caw_op *op = b->caw_head;
		if (start(b, op) == 0)
			return;
		complete(b, op);
	}
}

void
bcs_caw_wave(grove_bcs *b, uint64_t qid, int status, int64_t a, int64_t nb,
    const grove_missing *miss, int nmiss, const char *why)
{
	bcs_caw_op *op = b->caw_head;
	if (!op || !op->started || op->qid != qid) {
		log_warn("bcs: an answer to query %llu that nobody waits for",
		    (unsigned long long)qid);
		return;
	}
	const grove_bcs_cw *cw = &op->cw;
	for (int i = 0; i < nmiss; i++)
		for (uint32_t r = miss[i].rank_lo; r < miss[i].rank_hi; r++) {
			if (!in_set(&cw->on, r))
				continue;
			op->rc = GROVE_ELOST;
			snprintf(op->why, sizeof op->why, "Compare-And-Write: "
			    "node %u is lost: %s", r, r < b->nodes &&
			    b->peers[r].lost ? b->peers[r].why :
			    grove_missing_reason_name(miss[i].reason));
			complete(b, op);
			bcs_caw_pump(b);
			return;
		}
	/* A wave the tree completed without a lost node may carry no
	 * account of it (a CP with no node left stops counting): what the
	 * manager knows of its nodes counts too. */
	if (b->nlost && bcs_check_alive(b, &cw->on) != 0) {
		op->rc = b->peers[b->first_lost].left ? GROVE_ECLOSED :
		    GROVE_ELOST;
		snprintf(op->why, sizeof op->why, "Compare-And-Write: %s",
		    b->err);
		complete(b, op);
		bcs_caw_pump(b);
		return;
	}
	uint32_t count = cw->on.nodes ? cw->on.count : b->nodes;
	for (uint32_t i = 0; b->nlost && i < count; i++) {
		uint32_t r = cw->on.nodes ? cw->on.nodes[i] : i;
		if (r == GROVE_BCS_MANAGER || !b->peers[r].lost)
			continue;
		op->rc = GROVE_ELOST;
		snprintf(op->why, sizeof op->why, "Compare-And-Write: node %u "
		    "is lost: %s", r, b->peers[r].why);
		complete(b, op);
		bcs_caw_pump(b);
		return;
	}
	if (status < 0) {
		op->rc = status;
		snprintf(op->why, sizeof op->why, "Compare-And-Write: %s",
		    why && why[0] ? why : grove_strerror(status));
	} else {
		op->rc = op->rc && status == 1;
		if (a < op->vmin)
			op->vmin = a;
		if (~nb > op->vmax)
			op->vmax = ~nb;
		if (op->rc == 1 && cw->write && !op->abandoned) {
			int rc = write_all(b, op);
			if (rc != 0) {
				op->rc = rc;
				snprintf(op->why, sizeof op->why, "%s", b->err);
			}
		}
	}
	complete(b, op);
	bcs_caw_pump(b);
}

void
bcs_caw_request(grove_bcs *b, uint32_t from, const bcs_msg *m)
{
	const bcs_caw_body *c = &m->u.caw;
	grove_bcs_cw cw;
	memset(&cw, 0, sizeof cw);
	cw.var = c->var;
	cw.cmp = (grove_bcs_cmp)c->cmp;
	cw.value = c->value;
	cw.write = c->write != 0;
	cw.write_var = c->write_var;
	cw.write_value = c->write_value;
	cw.write_event = c->write_event;
	uint32_t *ids = NULL;
	if (c->set.count != BCS_SET_ALL) {
		ids = malloc((c->set.count ? c->set.count : 1) * sizeof *ids);
		for (uint32_t i = 0; ids && i < c->set.count; i++)
			ids[i] = bcs_wset_at(&c->set, i);
		cw.on.nodes = ids;
		cw.on.count = c->set.count;
	}
	char save[sizeof b->err];
	memcpy(save, b->err, sizeof save);
	int rc = c->set.count != BCS_SET_ALL && !ids ? GROVE_ENOMEM :
	    check_cw(b, &cw, "Compare-And-Write");
	bcs_caw_op *op = rc == 0 ? op_new(b, from, c->id, &cw) : NULL;
	if (rc == 0 && !op)
		rc = GROVE_ENOMEM;
	if (rc != 0) {
		bcs_msg r;
		memset(&r, 0, sizeof r);
		r.type = BCS_T_CAW_RESULT;
		r.u.result.id = c->id;
		r.u.result.result = rc;
		r.u.result.msg.p = b->err;
		r.u.result.msg.len = (uint32_t)strlen(b->err);
		bcs_mgr_send_to(b, from, &r, NULL, NULL, 0);
		memcpy(b->err, save, sizeof save);
		free(ids);
		return;
	}
	free(ids);
	enqueue(b, op);
	bcs_caw_pump(b);
}

void
bcs_caw_cancel(grove_bcs *b, uint32_t from, uint64_t rid)
{
	for (bcs_caw_op *op = b->caw_head; op; op = op->next)
		if (op->origin == from && op->rid == rid) {
			if (op->started) {
				op->abandoned = 1;
			} else {
				unlink_op(b, op);
				op_free(op);
			}
			return;
		}
}

/* The requests of a node that is gone are dropped (a started one is
 * finished by its wave, unanswered). */
void
bcs_caw_node_gone(grove_bcs *b, uint32_t node)
{
	bcs_caw_op *op = b->caw_head;
	while (op) {
		bcs_caw_op *next = op->next;
		if (op->origin == node) {
			if (op->started) {
				op->abandoned = 1;
			} else {
				unlink_op(b, op);
				op_free(op);
			}
		}
		op = next;
	}
}

void
bcs_caw_free_all(grove_bcs *b)
{
	while (b->caw_head) {
		bcs_caw_op *op = b->caw_head;
		b->caw_head = op->next;
		if (op->origin == GROVE_BCS_MANAGER && !op->abandoned)
			continue; /* a call on the stack owns it */
		op_free(op);
	}
	b->caw_tail = NULL;
}

/* ---- the nodes' side ------------------------------------------------------ */

void
bcs_caw_answer(grove_bcs *b, const bcs_msg *m)
{
	const bcs_caw_body *c = &m->u.caw;
	int32_t status = 1;
	int64_t v = INT64_MAX, nv = INT64_MAX; /* neutral for min */
	if (bcs_wset_has(&c->set, b->self)) {
		if (c->var >= b->nvars) {
			status = GROVE_ERANGE;
		} else {
			v = b->vars[c->var];
			nv = ~v;
			status = holds((grove_bcs_cmp)c->cmp, v, c->value);
		}
	}
	int rc = grove_be_send(b->be, b->sc_id, BCS_TAG_REPLY, BCS_REPLY_FMT,
	    c->id, status, v, nv);
	if (rc == GROVE_ECLOSED)
		bcs_manager_gone(b, "the link to the manager is closed");
}

void
bcs_caw_write(grove_bcs *b, const bcs_msg *m)
{
	const bcs_caw_body *c = &m->u.caw;
	if (!bcs_wset_has(&c->set, b->self))
		return;
	if (c->write_var >= b->nvars) {
		log_warn("bcs: node %u: a write of variable %u (of %u)",
		    b->self, c->write_var, b->nvars);
		return;
	}
	b->vars[c->write_var] = c->write_value;
	bcs_event_signal(b, c->write_event);
}

void
bcs_caw_result(grove_bcs *b, const bcs_msg *m)
{
	if (m->u.result.id != b->caw_waiting)
		return; /* a request it gave up on */
	b->caw_rid_done = m->u.result.id;
	b->caw_result = m->u.result.result;
	snprintf(b->caw_why, sizeof b->caw_why, "%.*s",
	    (int)m->u.result.msg.len, m->u.result.msg.p);
}

/* ---- the call ------------------------------------------------------------ */

static int
node_caw(grove_bcs *b, const grove_bcs_cw *cw, int timeout_ms)
{
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_CAW_REQ;
	bcs_caw_body *c = &m.u.caw;
	c->id = b->next_id++;
	c->set.count = cw->on.nodes ? cw->on.count : BCS_SET_ALL;
	c->var = cw->var;
	c->cmp = (uint8_t)cw->cmp;
	c->value = cw->value;
	c->write = cw->write;
	c->write_var = cw->write_var;
	c->write_value = cw->write_value;
	c->write_event = cw->write_event;
	bcs_wire_tables t = {.set_ids = cw->on.nodes};
	int rc = bcs_node_send_up(b, b->sd_id, &m, &t, NULL, 0);
	if (rc != 0)
		return rc;
	b->caw_waiting = c->id;
	uint64_t deadline = timeout_ms > 0 ?
	    bcs_now_ms() + (uint64_t)timeout_ms : 0;
	for (;;) {
		bcs_node_poll(b);
		if (b->caw_rid_done == c->id) {
			b->caw_waiting = 0;
			if (b->caw_result < 0)
				bcs_set_error(b, "node %u: %s", b->self,
				    b->caw_why);
			return b->caw_result;
		}
		if (b->manager_gone) {
			b->caw_waiting = 0;
			bcs_set_error(b, "node %u: Compare-And-Write: %s",
			    b->self, b->manager_why);
			return GROVE_ECLOSED;
		}
		int left = bcs_left(deadline, timeout_ms);
		if (left == 0) {
			b->caw_waiting = 0;
			memset(&m, 0, sizeof m);
			m.type = BCS_T_CAW_CANCEL;
			m.u.cancel.id = c->id;
			bcs_node_send_up(b, b->sd_id, &m, NULL, NULL, 0);
			bcs_set_error(b, "node %u: Compare-And-Write: no result "
			    "from the manager within %d ms (it may still take "
			    "effect)", b->self, timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		bcs_node_block(b, left);
	}
}

static int
manager_caw(grove_bcs *b, const grove_bcs_cw *cw, int timeout_ms,
    int64_t *vmin, int64_t *vmax)
{
	bcs_caw_op *op = op_new(b, GROVE_BCS_MANAGER, 0, cw);
	if (!op) {
		bcs_set_error(b, "out of memory");
		return GROVE_ENOMEM;
	}
	enqueue(b, op);
	bcs_caw_pump(b);
	uint64_t deadline = timeout_ms > 0 ?
	    bcs_now_ms() + (uint64_t)timeout_ms : 0;
	while (!op->done) {
		int rc = bcs_mgr_poll(b);
		if (rc != 0 && !op->done) {
			if (op->started)
				op->abandoned = 1;
			else {
				unlink_op(b, op);
				op_free(op);
			}
			return rc;
		}
		if (op->done)
			break;
		int left = bcs_left(deadline, timeout_ms);
		if (left == 0) {
			if (op->started) {
				op->abandoned = 1; /* its wave frees it */
			} else {
				unlink_op(b, op);
				op_free(op);
			}
			bcs_set_error(b, "Compare-And-Write: no answer within "
			    "%d ms", timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		bcs_mgr_block(b, left);
	}
	int rc = op->rc;
	if (rc < 0)
		bcs_set_error(b, "%s", op->why);
	if (vmin)
		*vmin = op->vmin;
	if (vmax)
		*vmax = op->vmax;
	op_free(op);
	return rc;
}

int
bcs_compare_and_write_range(grove_bcs *b, const grove_bcs_cw *cw,
    int timeout_ms, int64_t *vmin, int64_t *vmax)
{
	if (!b || !cw || !b->open_done)
		return GROVE_EINVAL;
	int rc = check_cw(b, cw, "grove_bcs_compare_and_write");
	if (rc == 0)
		rc = bcs_check_alive(b, &cw->on);
	if (rc != 0)
		return rc;
	if (b->role == BCS_ROLE_MANAGER)
		return manager_caw(b, cw, timeout_ms, vmin, vmax);
	if (vmin)
		*vmin = INT64_MIN;
	if (vmax)
		*vmax = INT64_MAX;
	return node_caw(b, cw, timeout_ms);
}

int
grove_bcs_compare_and_write(grove_bcs *b, const grove_bcs_cw *cw,
    int timeout_ms)
{
	return bcs_compare_and_write_range(b, cw, timeout_ms, NULL, NULL);
}
