/* The back-end's handle (internal), shared by be.c and be_recover.c,
 * the back-end's side of re-parenting (docs/recovery.md). */
#ifndef GROVE_TBON_BE_INTERNAL_H
#define GROVE_TBON_BE_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "grove/backend.h"
#include "grove/trace.h"
#include "net/auth.h"
#include "net/conn.h"
#include "tbon/be_streams.h"
#include "tbon/lineage.h"
#include "tbon/pktq.h"
#include "tbon/segment.h"
#include "tbon/share_keep.h"
#include "tbon/waitfd.h"

/* Per stream: what re-parenting needs of what this back-end sent. */
typedef struct be_sent {
	uint32_t stream;
	int counted;        /* a wait_for_all stream: shares numbered, kept */
	uint64_t next;      /* the number of its next packet on the stream */
	uint64_t skip_below; /* packets numbered below are not sent (RESUME) */
	uint64_t down_in;   /* DATA and SEGMENT frames received on it */
	share_keep keep;    /* sent, and not yet held by the grandparent */
} be_sent;

struct grove_be {
	uv_loop_t loop;
	int loop_ready;
	conn *parent;
	uint32_t rank;
	uint32_t backends;
	uint32_t node;
	pktq q;
	/* The streams this back-end is a member of; a send on another one
	 * is refused (streams_unsure: a STREAM_NEW found no memory to be
	 * kept, so none is refused). */
	be_streams streams;
	int streams_unsure;
	seg_reasm reasm;   /* large multicasts arriving in segments */
	uint64_t seq;
	int closed;        /* shutdown received or parent gone */
	int trace_keep;    /* keep the event space at exit (the bootstrap's
	                      trace-keep, or GROVE_TRACE_KEEP when attached) */
	pid_t joiner;      /* the process that joined: a forked child shares
	                      its link, loop and descriptors (see
	                      be_forget) */
	waitfd wfd;
	uv_timer_t wait_timer;
	char err[512];
	grove_trace_collector tc_api_send, tc_api_recv;
	/* The traced API call in progress (be_api_begin): its start, kept
	 * here because a SHUTDOWN that ships the event space arrives inside
	 * the call (its loop runs the handler), and the call's own record
	 * would come after tracing closed.  0: no call, or already recorded
	 * by the handler. */
	uint64_t api_t0;
	uint16_t api_op;       /* GROVE_OP_API_SEND or GROVE_OP_API_RECV */
	int32_t api_sent;      /* a send: the bytes it has queued */
	int64_t clock_inject_ns; /* validation offset (GROVE_CLOCK_INJECT_NS) */
	/* Re-parenting (be_recover.c).  The secret is kept to prove it to
	 * an ancestor; lineage from the parent's LINEAGE; orphaned: the
	 * parent was lost and the next Grove call looks for a new one. */
	uint8_t secret[AUTH_SECRET_LEN];
	lineage lineage;
	uint32_t parent_id;
	int orphaned;
	uint64_t orphan_since_ms;
	uint32_t lost_parent;
	int resumed;        /* the new parent's RESUME came */
	be_sent *sent;
	size_t n_sent, cap_sent;
	uv_timer_t hb_timer; /* the parent's silence, while in a call */
	int hb_on;
	uint64_t hb_last_ms; /* when the check last ran */
};


/* be_recover.c.  Control messages of re-parenting from the parent
 * (LINEAGE, WAVE_ACK, RESUME) and the stream bookkeeping of STREAM_NEW
 * and STREAM_DEL; 1 when p was one of the former (handled). */
int be_recover_on_packet(grove_be *be, grove_packet *p);
/* The parent link closed (err, why): 1 when the back-end may look for a
 * new parent (it is then orphaned, not closed). */
int be_recover_lost(grove_be *be, int err, const char *why);
/* An orphan looks for a new parent, blocking until it has one, RESUME
 * included (0), or gives up (GROVE_ECLOSED, the handle closed with the
 * reason in be->err). */
int be_recover_reparent(grove_be *be);
/* A DATA packet q on stream is about to be sent: numbered and kept when
 * it may have to be sent again; 0 when it must not go now (below the
 * resume point). */
int be_recover_sending(grove_be *be, uint32_t stream, grove_packet *q);
/* The silence check of a parent that is a CP (after LINEAGE). */
void be_recover_watch(grove_be *be);
void be_recover_fini(grove_be *be);

#endif
