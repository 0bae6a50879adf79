/* BCS wire messages: encoding and the validating decoder (see wire.h). */
#include <stdio.h>
#include <string.h>

#include "bcs/wire.h"
#include "grove/error.h"

/* ---- little-endian helpers --------------------------------------------- */

static void
put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* ---- writer: counts past cap so the caller learns the size ------------- */

typedef struct wr {
	uint8_t *buf;
	size_t cap, len;
	int bad;
} wr;

static void
w_bytes(wr *w, const void *p, size_t n)
{
	if (w->len + n <= w->cap && n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
w_int(wr *w, uint64_t v, int n)
{
	uint8_t t[8];
	put_le(t, v, n);
	w_bytes(w, t, (size_t)n);
}

static void
w_str(wr *w, bcs_str s)
{
	if (s.len > BCS_STR_MAX || (s.len && !s.p)) {
		w->bad = 1;
		return;
	}
	w_int(w, s.len, 2);
	w_bytes(w, s.p, s.len);
}

static void
w_cstr(wr *w, const char *s)
{
	bcs_str t = {s, s ? (uint32_t)strnlen(s, BCS_STR_MAX + 1) : 0};
	w_str(w, t);
}

static void
w_caw(wr *w, const bcs_caw_body *c, const bcs_wire_tables *t)
{
	w_int(w, c->id, 8);
	w_int(w, c->set.count, 4);
	if (c->set.count != BCS_SET_ALL) {
		if (c->set.count > BCS_NODES_MAX ||
		    (c->set.count && (!t || !t->set_ids))) {
			w->bad = 1;
			return;
		}
		for (uint32_t i = 0; i < c->set.count; i++)
			w_int(w, t->set_ids[i], 4);
	}
	w_int(w, c->var, 4);
	w_int(w, c->cmp, 1);
	w_int(w, (uint64_t)c->value, 8);
	w_int(w, c->write, 1);
	w_int(w, c->write_var, 4);
	w_int(w, (uint64_t)c->write_value, 8);
	w_int(w, (uint32_t)c->write_event, 4);
}

size_t
bcs_wire_encode(const bcs_msg *m, const bcs_wire_tables *t, uint8_t *buf,
    size_t cap)
{
	wr w = {buf, buf ? cap : 0, 0, 0};
	if (!m || m->type == 0 || m->type >= BCS_T_MAX_)
		return 0;
	w_int(&w, m->type, 1);
	w_int(&w, BCS_WIRE_VERSION, 1);
	w_int(&w, 0, 2);
	switch (m->type) {
	case BCS_T_HELLO:
		if (!t || (m->u.hello.nhosts && !t->hosts) ||
		    (m->u.hello.nodes && !t->host_of) ||
		    m->u.hello.nodes > BCS_NODES_MAX ||
		    m->u.hello.nhosts > BCS_NODES_MAX)
			return 0;
		w_int(&w, m->u.hello.machine, 8);
		w_bytes(&w, m->u.hello.key, BCS_KEY_LEN);
		w_int(&w, m->u.hello.gmem_bytes, 8);
		w_int(&w, m->u.hello.nvars, 4);
		w_int(&w, m->u.hello.nevents, 4);
		w_int(&w, m->u.hello.nodes, 4);
		w_int(&w, m->u.hello.stream_c, 4);
		w_int(&w, m->u.hello.stream_d, 4);
		w_int(&w, m->u.hello.nhosts, 4);
		for (uint32_t i = 0; i < m->u.hello.nhosts; i++)
			w_cstr(&w, t->hosts[i]);
		for (uint32_t i = 0; i < m->u.hello.nodes; i++) {
			if (t->host_of[i] >= m->u.hello.nhosts)
				return 0;
			w_int(&w, t->host_of[i], 4);
		}
		break;
	case BCS_T_ADDR:
		w_int(&w, m->u.addr.node, 4);
		w_int(&w, (uint32_t)m->u.addr.status, 4);
		w_int(&w, m->u.addr.port, 2);
		w_str(&w, m->u.addr.addr);
		w_str(&w, m->u.addr.msg);
		break;
	case BCS_T_ADDRS:
		if (m->u.addrs.nodes > BCS_NODES_MAX ||
		    (m->u.addrs.nodes && (!t || !t->ports || !t->addrs)))
			return 0;
		w_int(&w, m->u.addrs.nodes, 4);
		for (uint32_t i = 0; i < m->u.addrs.nodes; i++) {
			w_int(&w, t->ports[i], 2);
			w_cstr(&w, t->addrs[i]);
		}
		break;
	case BCS_T_XFER:
		if (m->u.xfer.ack > BCS_ACK_SINGLE ||
		    m->u.xfer.len > BCS_XFER_MAX)
			return 0;
		w_int(&w, m->u.xfer.id, 8);
		w_int(&w, m->u.xfer.src, 4);
		w_int(&w, m->u.xfer.ack, 1);
		w_int(&w, (uint32_t)m->u.xfer.dst_pid, 4);
		w_int(&w, m->u.xfer.dst_addr, 8);
		w_int(&w, (uint32_t)m->u.xfer.remote_event, 4);
		w_int(&w, m->u.xfer.len, 8);
		break;
	case BCS_T_XFER_ACK:
		w_int(&w, m->u.ack.id, 8);
		w_int(&w, m->u.ack.from, 4);
		w_int(&w, (uint32_t)m->u.ack.status, 4);
		w_str(&w, m->u.ack.msg);
		break;
	case BCS_T_CAW_QUERY:
	case BCS_T_CAW_WRITE:
	case BCS_T_CAW_REQ:
		w_caw(&w, &m->u.caw, t);
		break;
	case BCS_T_CAW_RESULT:
		w_int(&w, m->u.result.id, 8);
		w_int(&w, (uint32_t)m->u.result.result, 4);
		w_str(&w, m->u.result.msg);
		break;
	case BCS_T_CAW_CANCEL:
		w_int(&w, m->u.cancel.id, 8);
		break;
	case BCS_T_LOST:
		w_int(&w, m->u.lost.node, 4);
		w_str(&w, m->u.lost.why);
		break;
	case BCS_T_BYE:
		w_int(&w, m->u.bye.node, 4);
		break;
	case BCS_T_LINK_HELLO:
		w_int(&w, m->u.lhello.machine, 8);
		w_int(&w, m->u.lhello.from, 4);
		w_int(&w, m->u.lhello.to, 4);
		w_bytes(&w, m->u.lhello.nonce, BCS_NONCE_LEN);
		break;
	case BCS_T_LINK_CHALLENGE:
		w_bytes(&w, m->u.lchal.nonce, BCS_NONCE_LEN);
		w_bytes(&w, m->u.lchal.mac, BCS_MAC_LEN);
		break;
	case BCS_T_LINK_PROOF:
		w_bytes(&w, m->u.lproof.mac, BCS_MAC_LEN);
		break;
	}
	return w.bad ? 0 : w.len;
}

/* ---- reader: every get checks the room left ----------------------------- */

typedef struct rd {
	const uint8_t *p;
	size_t len, off;
	int bad;
	const char *what; /* the field that did not fit */
} rd;

static uint64_t
r_int(rd *r, int n, const char *what)
{
	if (r->bad)
		return 0;
	if (r->len - r->off < (size_t)n) {
		r->bad = 1;
		r->what = what;
		return 0;
	}
	uint64_t v = get_le(r->p + r->off, n);
	r->off += (size_t)n;
	return v;
}

static const uint8_t *
r_bytes(rd *r, size_t n, const char *what)
{
	if (r->bad)
		return NULL;
	if (r->len - r->off < n) {
		r->bad = 1;
		r->what = what;
		return NULL;
	}
	const uint8_t *p = r->p + r->off;
	r->off += n;
	return p;
}

static bcs_str
r_str(rd *r, const char *what)
{
	bcs_str s = {"", 0};
	uint32_t n = (uint32_t)r_int(r, 2, what);
	if (!r->bad && n > BCS_STR_MAX) {
		r->bad = 1;
		r->what = what;
		return s;
	}
	const uint8_t *p = r_bytes(r, n, what);
	if (p) {
		s.p = (const char *)p;
		s.len = n;
	}
	return s;
}

static void
r_copy(rd *r, void *dst, size_t n, const char *what)
{
	const uint8_t *p = r_bytes(r, n, what);
	if (p)
		memcpy(dst, p, n);
	else
		memset(dst, 0, n);
}

static int
fail(char *err, size_t errlen, const char *type, const char *fmt, size_t a,
    const char *b)
{
	char msg[200];
	snprintf(msg, sizeof msg, fmt, a, b);
	if (err && errlen)
		snprintf(err, errlen, "bad BCS %s message: %s", type, msg);
	return GROVE_EPROTO;
}

static void
r_caw(rd *r, bcs_caw_body *c)
{
	c->id = r_int(r, 8, "id");
	c->set.count = (uint32_t)r_int(r, 4, "set count");
	c->set.ids = NULL;
	if (!r->bad && c->set.count != BCS_SET_ALL) {
		if (c->set.count > BCS_NODES_MAX) {
			r->bad = 1;
			r->what = "set count";
			return;
		}
		c->set.ids = r_bytes(r, (size_t)c->set.count * 4, "set ids");
	}
	c->var = (uint32_t)r_int(r, 4, "var");
	c->cmp = (uint8_t)r_int(r, 1, "cmp");
	c->value = (int64_t)r_int(r, 8, "value");
	c->write = (uint8_t)r_int(r, 1, "write");
	c->write_var = (uint32_t)r_int(r, 4, "write var");
	c->write_value = (int64_t)r_int(r, 8, "write value");
	c->write_event = (int32_t)(uint32_t)r_int(r, 4, "write event");
}

int
bcs_wire_decode(const uint8_t *blob, size_t len, const uint8_t *payload,
    size_t plen, bcs_msg *out, char *err, size_t errlen)
{
	rd r = {blob, blob ? len : 0, 0, 0, NULL};
	memset(out, 0, sizeof *out);
	if (!blob || len < 4)
		return fail(err, errlen, "?", "%zu bytes, shorter than the "
		    "4-byte header%s", len, "");
	uint8_t type = (uint8_t)r_int(&r, 1, "type");
	uint8_t version = (uint8_t)r_int(&r, 1, "version");
	uint16_t resv = (uint16_t)r_int(&r, 2, "reserved");
	if (type == 0 || type >= BCS_T_MAX_)
		return fail(err, errlen, "?", "unknown type %zu%s", type, "");
	const char *tn = bcs_wire_type_name(type);
	if (version != BCS_WIRE_VERSION)
		return fail(err, errlen, tn, "wire version %zu, this node "
		    "speaks " "1%s", version, "");
	if (resv != 0)
		return fail(err, errlen, tn, "reserved field is %zu, not 0%s",
		    resv, "");
	out->type = type;
	if (type != BCS_T_XFER && plen != 0)
		return fail(err, errlen, tn, "%zu payload bytes where none "
		    "belong%s", plen, "");
	switch (type) {
	case BCS_T_HELLO: {
		out->u.hello.machine = r_int(&r, 8, "machine id");
		r_copy(&r, out->u.hello.key, BCS_KEY_LEN, "key");
		out->u.hello.gmem_bytes = r_int(&r, 8, "gmem bytes");
		out->u.hello.nvars = (uint32_t)r_int(&r, 4, "nvars");
		out->u.hello.nevents = (uint32_t)r_int(&r, 4, "nevents");
		out->u.hello.nodes = (uint32_t)r_int(&r, 4, "nodes");
		out->u.hello.stream_c = (uint32_t)r_int(&r, 4, "stream c");
		out->u.hello.stream_d = (uint32_t)r_int(&r, 4, "stream d");
		out->u.hello.nhosts = (uint32_t)r_int(&r, 4, "host count");
		if (r.bad)
			break;
		if (out->u.hello.nodes > BCS_NODES_MAX ||
		    out->u.hello.nhosts > BCS_NODES_MAX)
			return fail(err, errlen, tn, "%zu nodes or hosts is "
			    "more than %s", (size_t)out->u.hello.nodes +
			    out->u.hello.nhosts, "2^24");
		out->u.hello.hosts = r.p + r.off;
		for (uint32_t i = 0; i < out->u.hello.nhosts && !r.bad; i++)
			r_str(&r, "host name");
		out->u.hello.host_of = r_bytes(&r,
		    (size_t)out->u.hello.nodes * 4, "host of node");
		for (uint32_t i = 0; !r.bad && i < out->u.hello.nodes; i++)
			if (get_le(out->u.hello.host_of + 4 * i, 4) >=
			    out->u.hello.nhosts)
				return fail(err, errlen, tn, "node %zu's host "
				    "index is beyond the host table%s", i, "");
		break;
	}
	case BCS_T_ADDR:
		out->u.addr.node = (uint32_t)r_int(&r, 4, "node");
		out->u.addr.status = (int32_t)(uint32_t)r_int(&r, 4, "status");
		out->u.addr.port = (uint16_t)r_int(&r, 2, "port");
		out->u.addr.addr = r_str(&r, "address");
		out->u.addr.msg = r_str(&r, "message");
		break;
	case BCS_T_ADDRS:
		out->u.addrs.nodes = (uint32_t)r_int(&r, 4, "nodes");
		if (!r.bad && out->u.addrs.nodes > BCS_NODES_MAX)
			return fail(err, errlen, tn, "%zu nodes is more than "
			    "%s", out->u.addrs.nodes, "2^24");
		out->u.addrs.tab = r.p + r.off;
		for (uint32_t i = 0; i < out->u.addrs.nodes && !r.bad; i++) {
			r_int(&r, 2, "port");
			r_str(&r, "address");
		}
		break;
	case BCS_T_XFER:
		out->u.xfer.id = r_int(&r, 8, "id");
		out->u.xfer.src = (uint32_t)r_int(&r, 4, "source");
		out->u.xfer.ack = (uint8_t)r_int(&r, 1, "ack");
		out->u.xfer.dst_pid = (int32_t)(uint32_t)r_int(&r, 4, "dst pid");
		out->u.xfer.dst_addr = r_int(&r, 8, "dst addr");
		out->u.xfer.remote_event = (int32_t)(uint32_t)r_int(&r, 4,
		    "remote event");
		out->u.xfer.len = r_int(&r, 8, "length");
		if (r.bad)
			break;
		if (out->u.xfer.ack > BCS_ACK_SINGLE)
			return fail(err, errlen, tn, "ack mode %zu is not 0-2%s",
			    out->u.xfer.ack, "");
		if (out->u.xfer.len != plen)
			return fail(err, errlen, tn, "says %zu bytes, the "
			    "payload has %s", (size_t)out->u.xfer.len,
			    plen == 0 ? "none" : "another length");
		if (out->u.xfer.len > BCS_XFER_MAX)
			return fail(err, errlen, tn, "%zu bytes is more than "
			    "the limit%s", (size_t)out->u.xfer.len, "");
		out->u.xfer.data = plen ? payload : NULL;
		if (plen && !payload)
			return fail(err, errlen, tn, "%zu payload bytes "
			    "missing%s", plen, "");
		break;
	case BCS_T_XFER_ACK:
		out->u.ack.id = r_int(&r, 8, "id");
		out->u.ack.from = (uint32_t)r_int(&r, 4, "from");
		out->u.ack.status = (int32_t)(uint32_t)r_int(&r, 4, "status");
		out->u.ack.msg = r_str(&r, "message");
		if (!r.bad && out->u.ack.status > 0)
			return fail(err, errlen, tn, "status %zu is neither 0 "
			    "nor an error%s", (size_t)out->u.ack.status, "");
		break;
	case BCS_T_CAW_QUERY:
	case BCS_T_CAW_WRITE:
	case BCS_T_CAW_REQ:
		r_caw(&r, &out->u.caw);
		if (!r.bad && out->u.caw.cmp > 3)
			return fail(err, errlen, tn, "comparison %zu is not "
			    "0-3%s", out->u.caw.cmp, "");
		if (!r.bad && out->u.caw.write > 1)
			return fail(err, errlen, tn, "write flag %zu is not "
			    "0 or 1%s", out->u.caw.write, "");
		break;
	case BCS_T_CAW_RESULT:
		out->u.result.id = r_int(&r, 8, "id");
		out->u.result.result = (int32_t)(uint32_t)r_int(&r, 4, "result");
		out->u.result.msg = r_str(&r, "message");
		if (!r.bad && out->u.result.result > 1)
			return fail(err, errlen, tn, "result %zu is not 0, 1 "
			    "or an error%s", (size_t)out->u.result.result, "");
		break;
	case BCS_T_CAW_CANCEL:
		out->u.cancel.id = r_int(&r, 8, "id");
		break;
	case BCS_T_LOST:
		out->u.lost.node = (uint32_t)r_int(&r, 4, "node");
		out->u.lost.why = r_str(&r, "reason");
		break;
	case BCS_T_BYE:
		out->u.bye.node = (uint32_t)r_int(&r, 4, "node");
		break;
	case BCS_T_LINK_HELLO:
		out->u.lhello.machine = r_int(&r, 8, "machine id");
		out->u.lhello.from = (uint32_t)r_int(&r, 4, "from");
		out->u.lhello.to = (uint32_t)r_int(&r, 4, "to");
		r_copy(&r, out->u.lhello.nonce, BCS_NONCE_LEN, "nonce");
		break;
	case BCS_T_LINK_CHALLENGE:
		r_copy(&r, out->u.lchal.nonce, BCS_NONCE_LEN, "nonce");
		r_copy(&r, out->u.lchal.mac, BCS_MAC_LEN, "proof");
		break;
	case BCS_T_LINK_PROOF:
		r_copy(&r, out->u.lproof.mac, BCS_MAC_LEN, "proof");
		break;
	}
	if (r.bad)
		return fail(err, errlen, tn, "%zu bytes end inside its %s",
		    len, r.what ? r.what : "fields");
	if (r.off != len)
		return fail(err, errlen, tn, "%zu bytes left over after its "
		    "last field%s", len - r.off, "");
	return 0;
}

const char *
bcs_wire_type_name(int type)
{
	static const char *const names[BCS_T_MAX_] = {
		"?", "HELLO", "ADDR", "ADDRS", "XFER", "XFER_ACK", "CAW_QUERY",
		"CAW_WRITE", "CAW_REQ", "CAW_RESULT", "CAW_CANCEL", "LOST",
		"BYE", "LINK_HELLO", "LINK_CHALLENGE", "LINK_PROOF",
	};
	return type > 0 && type < BCS_T_MAX_ ? names[type] : "?";
}

uint32_t
bcs_wset_at(const bcs_wset *s, uint32_t i)
{
	return (uint32_t)get_le(s->ids + 4 * (size_t)i, 4);
}

int
bcs_wset_has(const bcs_wset *s, uint32_t node)
{
	if (s->count == BCS_SET_ALL)
		return 1;
	for (uint32_t i = 0; i < s->count; i++)
		if (bcs_wset_at(s, i) == node)
			return 1;
	return 0;
}

bcs_str
bcs_hello_host(const bcs_msg *m, uint32_t i)
{
	const uint8_t *p = m->u.hello.hosts;
	for (uint32_t k = 0; k < i; k++)
		p += 2 + get_le(p, 2);
	bcs_str s = {(const char *)p + 2, (uint32_t)get_le(p, 2)};
	return s;
}

uint32_t
bcs_hello_host_of(const bcs_msg *m, uint32_t node)
{
	return (uint32_t)get_le(m->u.hello.host_of + 4 * (size_t)node, 4);
}

void
bcs_addrs_next(const bcs_msg *m, size_t *pos, uint16_t *port, bcs_str *addr)
{
	const uint8_t *p = m->u.addrs.tab + *pos;
	*port = (uint16_t)get_le(p, 2);
	addr->len = (uint32_t)get_le(p + 2, 2);
	addr->p = (const char *)p + 4;
	*pos += 4 + addr->len;
}

void
bcs_frame_hdr_put(uint8_t hdr[BCS_FRAME_HDR], uint32_t blob_len,
    uint32_t payload_len)
{
	put_le(hdr, blob_len, 4);
	put_le(hdr + 4, payload_len, 4);
}

void
bcs_frame_hdr_get(const uint8_t hdr[BCS_FRAME_HDR], uint32_t *blob_len,
    uint32_t *payload_len)
{
	*blob_len = (uint32_t)get_le(hdr, 4);
	*payload_len = (uint32_t)get_le(hdr + 4, 4);
}
