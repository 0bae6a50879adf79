/* Clock-skew detection (internal): the arithmetic of the four-timestamp
 * exchange (skew_math.c, pure), and the protocol run by every parent of
 * the tree (skew.c).  See docs/clock-skew.md.
 *
 * A parent stamps t1 (its clock) and sends a probe; the child stamps t2
 * on receipt and t3 when it replies; the parent stamps t4 on receipt of
 * the reply.  With the child's clock ahead of the parent's by theta, a
 * forward delay d1 >= 0 and a return delay d2 >= 0:
 *   offset = ((t2 - t1) + (t3 - t4)) / 2 = theta + (d1 - d2) / 2
 *   delay  = (t4 - t1) - (t3 - t2)       = d1 + d2
 * so |offset - theta| <= delay / 2 whatever the split of the delay: the
 * sample with the smallest delay has the smallest guaranteed error.
 */
#ifndef GROVE_TBON_SKEW_H
#define GROVE_TBON_SKEW_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock_inject.h"
#include "grove/packet.h"

/* Rounds when the caller asks for 0, and the most accepted. */
#define SKEW_DEFAULT_ROUNDS 16u
#define SKEW_MAX_ROUNDS 4096u
/* Probes a parent keeps in flight at once within a round (see pump() in
 * skew.c and docs/clock-skew.md). */
#ifndef SKEW_WINDOW
#define SKEW_WINDOW 4u
#endif

/* An error bound that means "no measurement". */
#define SKEW_UNKNOWN UINT64_MAX

/* ---- arithmetic (skew_math.c) ---------------------------------------- */

typedef struct skew_sample {
	int64_t offset_ns;  /* child clock - parent clock */
	uint64_t delay_ns;  /* round trip minus the child's turnaround */
} skew_sample;

/* Offset and delay of one exchange.  GROVE_ERANGE when the stamps are
 * inconsistent (negative delay: a clock stepped during the exchange) or
 * the arithmetic would overflow (stamps from a broken peer). */
int skew_sample_from_stamps(int64_t t1, int64_t t2, int64_t t3, int64_t t4,
    skew_sample *out);

/* The guaranteed bound of a sample: delay / 2, rounded up so that the
 * rounding of the offset to whole nanoseconds stays inside it. */
uint64_t skew_error_of_delay(uint64_t delay_ns);

/* The best (minimum-delay) sample of a link so far. */
typedef struct skew_best {
	uint32_t samples;   /* valid samples seen */
	int64_t offset_ns;
	uint64_t delay_ns;
	uint64_t error_ns;  /* SKEW_UNKNOWN while samples == 0 */
} skew_best;

void skew_best_init(skew_best *b);
/* Keep s if it is the first sample or has a smaller delay (ties keep the
 * earlier one). */
void skew_best_add(skew_best *b, const skew_sample *s);

/* Offset and bound of a BE seen through one more link: the parent knows
 * its child's offset (link_*) and the child knows the BE's (below_*);
 * offsets add, and so do bounds.  GROVE_ERANGE on overflow. */
int skew_accumulate(int64_t link_off, uint64_t link_err, int64_t below_off,
    uint64_t below_err, int64_t *off, uint64_t *err);

/* The validation offset itself (GROVE_CLOCK_INJECT_NS) is parsed by
 * clock_inject_parse (core/clock_inject.h), which the trace layer uses
 * too. */

/* The same for this process, from the environment; a malformed value is
 * logged and ignored (0). */
int64_t skew_inject_from_env(int is_cp, uint32_t id);

/* CLOCK_REALTIME in ns plus inject_ns: the clock every Grove process
 * measures skew with. */
int64_t skew_clock_ns(int64_t inject_ns);

/* ---- protocol (skew.c) ------------------------------------------------ */

struct node;
struct conn;

/* A child's side of a probe: reply on `to` with t1 echoed, t2 (stamped by
 * the caller when the probe arrived) and t3, flushed at once. */
void skew_answer_probe(struct conn *to, grove_packet *probe, int64_t t2,
    int64_t inject_ns, uint32_t src);

/* Node side: SKEW_REQ and SKEW_PROBE from the parent. */
void node_skew_from_parent(struct node *n, grove_packet *p);
/* SKEW_REPLY and SKEW_RESULT from child idx. */
void node_skew_from_child(struct node *n, uint32_t idx, grove_packet *p);
/* Child idx is gone: stop waiting for it. */
void node_skew_child_gone(struct node *n, uint32_t idx);
/* Free the skew state (after the node's loop is closed). */
void node_skew_free(struct node *n);

/* Front-end: start a measurement below this node (the root): phase one on
 * every link, phase two up to here.  budget_ms bounds the whole run. */
int node_skew_start(struct node *n, uint32_t req, uint32_t rounds,
    uint64_t budget_ms);
/* 1 when the run started by node_skew_start has its result. */
int node_skew_done(const struct node *n);
/* Stop waiting (deadline): build the result from what has arrived. */
void node_skew_finish(struct node *n);
/* The root's result: n entries (BE rank, offset to the root, bound),
 * valid until the next start or node_skew_free. */
size_t node_skew_result(const struct node *n, const uint32_t **ranks,
    const int64_t **off, const uint64_t **err);

#endif
