/* BCS wire messages (internal): what the machine manager and the nodes
 * say to each other, through the tree and over the direct links between
 * nodes.
 *
 * A message is a header blob (this file's encoding: little-endian, fixed
 * field order, strings and tables counted) plus, for XFER only, a payload
 * (the data).  Through the tree a message is a Grove packet "%auc %auc"
 * (blob, payload) whose tag is BCS_TAG(type); over a direct link it is a
 * frame: u32 blob length, u32 payload length, blob, payload.  One decoder
 * serves both and checks everything a peer could get wrong (lengths,
 * enum values, counts, trailing bytes): it never trusts the sender.
 *
 * Pure code: no I/O, no allocation (decoded strings, sets and tables
 * point into the blob; the iterators below walk validated tables).
 */
#ifndef GROVE_BCS_WIRE_H
#define GROVE_BCS_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Bumped with any change of a message's layout. */
#define BCS_WIRE_VERSION 1

/* Grove tags of BCS packets: tools that share a network with BCS keep
 * away from this range. */
#define BCS_TAG_BASE 0x42430000
#define BCS_TAG(type) (BCS_TAG_BASE + (int32_t)(type))

enum bcs_type {
	BCS_T_HELLO = 1,     /* manager -> all: machine parameters, key */
	BCS_T_ADDR,          /* node -> manager: its direct-link address */
	BCS_T_ADDRS,         /* manager -> all: every node's address */
	BCS_T_XFER,          /* Xfer-And-Signal data (+ payload) */
	BCS_T_XFER_ACK,      /* its destination's answer */
	BCS_T_CAW_QUERY,     /* manager -> all: compare */
	BCS_T_CAW_WRITE,     /* manager -> all: the write of a CAW that held */
	BCS_T_CAW_REQ,       /* node -> manager: run this CAW for me */
	BCS_T_CAW_RESULT,    /* manager -> node: its CAW's result */
	BCS_T_CAW_CANCEL,    /* node -> manager: I gave up waiting */
	BCS_T_LOST,          /* manager -> all: a node is lost */
	BCS_T_BYE,           /* closing: manager -> all, or node -> manager */
	BCS_T_LINK_HELLO,    /* direct link, connecting side: who, nonce */
	BCS_T_LINK_CHALLENGE,/* accepting side: its nonce and proof */
	BCS_T_LINK_PROOF,    /* connecting side: its proof */
	BCS_T_MAX_
};

/* Tag of the nodes' answers to manager multicasts that want one (CAW
 * queries, Xfer-And-Signal to all with a local event): format
 * BCS_REPLY_FMT, reduced by the tree's min filter. */
#define BCS_TAG_REPLY BCS_TAG(BCS_T_MAX_)
/* id, status, a, b.  CAW: status 1 holds / 0 not / < 0 error; a = the
 * variable, b = ~the variable (min of ~v is ~max v).  Xfer: status 0 or
 * the worst error, a = the lowest node that failed (else INT64_MAX). */
#define BCS_REPLY_FMT "%uld %d %ld %ld"

/* Limits the decoder enforces. */
#define BCS_KEY_LEN 32
#define BCS_NONCE_LEN 16
#define BCS_MAC_LEN 32
#define BCS_STR_MAX 1024           /* strings: addresses, messages */
#define BCS_SET_ALL UINT32_MAX     /* a set's count meaning "every node" */
#define BCS_XFER_MAX ((1ull << 30) - 65536) /* payload bytes */
#define BCS_NODES_MAX (1u << 24)

/* How the destination of an XFER answers. */
enum bcs_ack {
	BCS_ACK_NONE = 0,    /* nobody waits for it */
	BCS_ACK_REDUCE = 1,  /* a reply on the reduction stream (to-all) */
	BCS_ACK_SINGLE = 2,  /* an XFER_ACK to the source */
};

typedef struct bcs_str {
	const char *p; /* not NUL-terminated */
	uint32_t len;
} bcs_str;

/* A set of node ids on the wire: count ids (u32 LE each), or every node
 * (count BCS_SET_ALL, ids NULL). */
typedef struct bcs_wset {
	uint32_t count;
	const uint8_t *ids;
} bcs_wset;

typedef struct bcs_caw_body {
	uint64_t id;
	bcs_wset set;
	uint32_t var;
	uint8_t cmp;
	int64_t value;
	uint8_t write;
	uint32_t write_var;
	int64_t write_value;
	int32_t write_event;
} bcs_caw_body;

typedef struct bcs_msg {
	uint8_t type;
	union {
		struct {
			uint64_t machine;
			uint8_t key[BCS_KEY_LEN];
			uint64_t gmem_bytes;
			uint32_t nvars, nevents, nodes;
			uint32_t stream_c, stream_d;
			uint32_t nhosts;
			const uint8_t *hosts; /* nhosts counted strings */
			const uint8_t *host_of; /* nodes u32: index into hosts */
		} hello;
		struct {
			uint32_t node;
			int32_t status; /* 0, or why the node cannot join */
			uint16_t port;
			bcs_str addr, msg;
		} addr;
		struct {
			uint32_t nodes;
			const uint8_t *tab; /* nodes x (u16 port, str addr) */
		} addrs;
		struct {
			uint64_t id;
			uint32_t src;
			uint8_t ack;
			int32_t dst_pid;
			uint64_t dst_addr;
			int32_t remote_event;
			uint64_t len;
			const uint8_t *data; /* the payload */
		} xfer;
		struct {
			uint64_t id;
			uint32_t from;
			int32_t status;
			bcs_str msg;
		} ack;
		bcs_caw_body caw; /* QUERY, WRITE, REQ */
		struct {
			uint64_t id;
			int32_t result;
			bcs_str msg;
		} result;
		struct {
			uint64_t id;
		} cancel;
		struct {
			uint32_t node;
			bcs_str why;
		} lost;
		struct {
			uint32_t node;
		} bye;
		struct {
			uint64_t machine;
			uint32_t from, to;
			uint8_t nonce[BCS_NONCE_LEN];
		} lhello;
		struct {
			uint8_t nonce[BCS_NONCE_LEN];
			uint8_t mac[BCS_MAC_LEN];
		} lchal;
		struct {
			uint8_t mac[BCS_MAC_LEN];
		} lproof;
	} u;
} bcs_msg;

/* What the encoder needs beyond bcs_msg for the tables it writes. */
typedef struct bcs_wire_tables {
	/* HELLO: nhosts host names, and host_of[nodes] */
	const char *const *hosts;
	const uint32_t *host_of;
	/* ADDRS: per node its port and address */
	const uint16_t *ports;
	const char *const *addrs;
	/* CAW bodies: the set's ids (count in the body; NULL for all) */
	const uint32_t *set_ids;
} bcs_wire_tables;

/* Encodes m into buf (cap bytes): returns the blob's length, which may be
 * more than cap (nothing useful written then: call again with room), or
 * 0 when m cannot be encoded (a bad type, a string or table too long).
 * Strings of m (bcs_str) are taken as they are; tables from t (may be
 * NULL when m has none).  The XFER payload is not part of the blob. */
size_t bcs_wire_encode(const bcs_msg *m, const bcs_wire_tables *t,
    uint8_t *buf, size_t cap);

/* Decodes a blob and its payload into out (pointing into both).  0, or
 * GROVE_EPROTO with err saying what is wrong and at which byte. */
int bcs_wire_decode(const uint8_t *blob, size_t len, const uint8_t *payload,
    size_t plen, bcs_msg *out, char *err, size_t errlen);

/* Name of a message type ("XFER"), for messages. */
const char *bcs_wire_type_name(int type);

/* Element i of a decoded set (i < count; not for BCS_SET_ALL). */
uint32_t bcs_wset_at(const bcs_wset *s, uint32_t i);
/* Whether node is in the set. */
int bcs_wset_has(const bcs_wset *s, uint32_t node);

/* Host i of a decoded HELLO (i < nhosts), and the host index of node. */
bcs_str bcs_hello_host(const bcs_msg *m, uint32_t i);
uint32_t bcs_hello_host_of(const bcs_msg *m, uint32_t node);

/* Walks a decoded ADDRS table: start with *pos = 0; each call gives the
 * next node's port and address. */
void bcs_addrs_next(const bcs_msg *m, size_t *pos, uint16_t *port,
    bcs_str *addr);

/* Length-prefixed frame header of a direct link. */
#define BCS_FRAME_HDR 8
void bcs_frame_hdr_put(uint8_t hdr[BCS_FRAME_HDR], uint32_t blob_len,
    uint32_t payload_len);
void bcs_frame_hdr_get(const uint8_t hdr[BCS_FRAME_HDR], uint32_t *blob_len,
    uint32_t *payload_len);
/* Largest blob a frame may announce (payloads: BCS_XFER_MAX). */
#define BCS_BLOB_MAX (1u << 20)

#endif
