/* Filters (internal): the registry of transformation filters, running one
 * on a wave, and the synchronization filters that form waves.
 *
 * Everything here is pure (no I/O, no clocks: time is passed in), so it is
 * unit-tested without processes.  The TBON node code owns one sync_state and
 * one transformation filter instance per stream.
 */
#ifndef GROVE_FILTER_IMPL_H
#define GROVE_FILTER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "grove/filter.h"
#include "grove/packet.h"

/* ---- transformation filters ---------------------------------------- */

typedef struct flt_def {
	char name[64];
	grove_filter_fn fn;
	grove_filter_state_free_fn state_free; /* may be NULL */
	void *dl_handle;                       /* NULL for built-ins */
	char path[256];                        /* library path, custom only */
	char symbol[128];
	/* Who registered it: the caller's tag (the TBON: the id of the load
	 * request), so that undoing a failed load removes only what that
	 * load added, never an earlier identical definition. */
	uint32_t origin;
} flt_def;

typedef struct flt_registry flt_registry;

/* A registry holding the built-ins ("null", "sum", "min", "max", "avg",
 * "concat", "timealign", "equiv", "report"). */
flt_registry *flt_registry_new(void);
void flt_registry_destroy(flt_registry *r); /* dlcloses custom filters */
const flt_def *flt_lookup(const flt_registry *r, const char *name);

/* dlopen(path) and dlsym(symbol) (and symbol "_state_free" if present) and
 * register it as `name`, tagged with origin.  Loading the same name with
 * the same path and symbol again succeeds and keeps the first origin; a
 * different definition under a taken name is GROVE_EINVAL.  Both symbols
 * must be functions: a variable under either name is GROVE_EFILTER ("not
 * a function").  On failure err says why (dlerror text, or the check that
 * failed). */
int flt_load(flt_registry *r, const char *name, const char *path,
    const char *symbol, uint32_t origin, char *err, size_t errlen);

/* Remove the custom filter `name` if it was registered with this origin,
 * and dlclose its library.  Built-ins and definitions of another origin
 * stay.  The caller guarantees no stream uses it (flt_lookup results
 * become dangling).  Returns 1 when it was removed, 0 otherwise. */
int flt_unload(flt_registry *r, const char *name, uint32_t origin);

/* Packets produced by one filter run. */
typedef struct flt_out {
	grove_packet **up;
	size_t n_up, cap_up;
	grove_packet **down;   /* reverse direction */
	size_t n_down, cap_down;
} flt_out;

void flt_out_init(flt_out *o);
void flt_out_reset(flt_out *o); /* unref what is left, keep the arrays */
void flt_out_fini(flt_out *o);

/* Run f on a wave.  stream/tag are the wave's, src the rank this node puts
 * in packets it builds.  Emitted packets are appended to out.  Returns the
 * filter's result (0 or a negative grove_err); on error, out may still hold
 * packets emitted before the failure (the caller drops them). */
int flt_run(const flt_def *f, uint32_t stream, int32_t tag, uint32_t src,
    grove_packet *const *in, const uint32_t *in_child, size_t n_in,
    const grove_packet *params, void **state,
    const grove_filter_place *place, flt_out *out);

/* The same for a downstream filter on one packet going down: what it
 * emits goes on down (out->up); there is no reverse direction, and
 * grove_filter_emit_reverse fails with GROVE_EINVAL. */
int flt_run_down(const flt_def *f, uint32_t stream, int32_t tag,
    uint32_t src, grove_packet *p, const grove_packet *params, void **state,
    const grove_filter_place *place, flt_out *out);

/* Free per-stream state through the filter's state_free, if any. */
void flt_state_free(const flt_def *f, void *state);

/* ---- synchronization filters ---------------------------------------- */

typedef enum sync_kind {
	SYNC_WAIT_FOR_ALL = 0,
	SYNC_TIMEOUT = 1,
	SYNC_DONT_WAIT = 2,
} sync_kind;

int sync_kind_parse(const char *name, sync_kind *out); /* GROVE_ENOENT */
const char *sync_kind_name(sync_kind k);

typedef struct sync_state sync_state;

/* nslots: children that take part in the stream at this node; slots are
 * 0..nslots-1.  timeout_ms is used by SYNC_TIMEOUT. */
sync_state *sync_new(sync_kind k, uint32_t nslots, uint32_t timeout_ms);
void sync_destroy(sync_state *s); /* unrefs queued packets */
void sync_set_timeout(sync_state *s, uint32_t timeout_ms);

/* Queue a packet from slot; takes ownership in every case (on error the
 * packet is unreffed).  GROVE_ERANGE for a bad slot; a packet from a slot
 * marked gone is dropped (returns GROVE_ECLOSED). */
int sync_push(sync_state *s, uint32_t slot, grove_packet *p, uint64_t now_ns);

/* Most packets one share may hold: a CP's filter that emits more for one
 * wave fails on it (a share is never paused part-way, so its size is what
 * the parent must be ready to hold). */
#define SYNC_MAX_SHARE (1u << 24)

/* The next share of slot (its contribution to one wave) is npackets
 * packets rather than one: the following npackets pushes form it, and 0
 * is an empty share, complete at once (it counts as one queued packet in
 * sync_queued).  1 changes nothing, and dont_wait ignores shares.
 * GROVE_EPROTO when an announced share is still incomplete; GROVE_ERANGE
 * above SYNC_MAX_SHARE or for a bad slot; GROVE_ECLOSED as for
 * sync_push. */
int sync_push_share(sync_state *s, uint32_t slot, uint32_t npackets,
    uint64_t now_ns);

/* sync_push_share, with what the child said of that share: info (a
 * packet, owned by s from here on, also on error; NULL: nothing) comes
 * out with the share in sync_wave_parts.  A share of one packet with
 * info is announced like any other (the next push is the share). */
int sync_push_share_info(sync_state *s, uint32_t slot, uint32_t npackets,
    grove_packet *info, uint64_t now_ns);

/* After sync_pop_wave released a wave (not dont_wait): took[slot] is 1
 * for each slot that gave a share to it (also an empty one), and
 * info[slot] the info of that share, or NULL.  The caller takes the
 * infos it wants (unref them and set the entries to NULL); the rest are
 * dropped at the next pop.  0 for dont_wait (no waves to account for). */
int sync_wave_parts(sync_state *s, const unsigned char **took,
    grove_packet ***info);

/* A slot's child is gone: waves no longer wait for it.  What it sent in
 * full stays queued and goes out in the next waves (its packets, under
 * dont_wait; its complete shares); a share it had not finished is
 * dropped. */
void sync_slot_gone(sync_state *s, uint32_t slot);

/* Take the next released wave, if any.  *wave and *slots get arrays owned
 * by s, valid until the next call on s, of *n packets and the slot each
 * came from (a slot's packets are adjacent); ownership of the packets
 * passes to the caller.  Returns 1 if a wave was released, 0 if none is
 * ready.  A released wave may hold no packet (every share in it empty).
 *   wait_for_all: ready when every live slot has a complete share.
 *   timeout: as wait_for_all, or when now_ns >= the first complete share's
 *            arrival + timeout: then one share from each slot that has
 *            a complete one.
 *   dont_wait: each packet is its own wave, in arrival order.
 * When every slot is gone, the shares still queued are released, one
 * wave at a time, and then nothing more. */
int sync_pop_wave(sync_state *s, uint64_t now_ns, grove_packet ***wave,
    uint32_t **slots, size_t *n);

/* 1 when sync_pop_wave(s, now_ns, ...) would release a wave, without
 * changing anything: lets the caller time only the calls that release. */
int sync_wave_ready(const sync_state *s, uint64_t now_ns);

/* When the next timeout falls (ns, same clock as now_ns), or UINT64_MAX:
 * for SYNC_TIMEOUT with packets queued, the oldest queued packet's arrival
 * plus the timeout; UINT64_MAX for the other kinds (their waves depend on
 * arrivals only, so pop after every push). */
uint64_t sync_next_deadline(const sync_state *s);

/* Packets queued for a slot (for back-pressure), their bytes on the
 * wire, and packets in total. */
size_t sync_queued(const sync_state *s, uint32_t slot);
size_t sync_queued_bytes(const sync_state *s, uint32_t slot);
/* 1 when a wave is held up by this live slot alone or with others: under
 * wait_for_all the slot has no complete share while another one does, and
 * under any kind but dont_wait the slot is part-way through a share.  Its
 * producer must then not be paused (it would never deliver the packets
 * the wave needs). */
int sync_waits_on(const sync_state *s, uint32_t slot);
size_t sync_queued_total(const sync_state *s);
/* 1 when slot has a complete share queued (a wave would take it now). */
int sync_has_share(const sync_state *s, uint32_t slot);
uint32_t sync_live_slots(const sync_state *s);

/* Re-parenting (docs/recovery.md).  A slot added after creation (a
 * child adopted from a lost CP): live, nothing queued; returns its index
 * or a negative grove_err. */
int sync_add_slot(sync_state *s);
/* wait_for_all only: queue n placeholder shares in slot (complete,
 * empty, without info, not counted by sync_shares_in), so that the
 * slot's first real share goes into the n-th wave after those its
 * queue already feeds.  GROVE_EINVAL for another kind (n > 0),
 * GROVE_EPROTO for a slot gone or part-way through a share. */
int sync_pad(sync_state *s, uint32_t slot, uint64_t n);
/* The complete shares slot has received so far (placeholders aside);
 * 0 under dont_wait. */
uint64_t sync_shares_in(const sync_state *s, uint32_t slot);

#endif
