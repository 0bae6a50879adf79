/* The strobe: sender (manager) and receiver (node); see strobe.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bcs/bcs_impl.h"
#include "bcs/strobe.h"

#define STROBE_STOP 0xff   /* the phase of the last strobe */
#define STROBE_BYTES 16    /* {u64 slice, u32 phase, u32 zero} */
/* A microphase's Compare-And-Write is asked in turns of this long; a
 * lost node is looked for between turns. */
#define STROBE_TURN_MS 50

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t done_var(const grove_bcs *b) { return b->nvars - 1; }
static int32_t strobe_ev(const grove_bcs *b) { return (int32_t)b->nevents - 1; }
static int32_t done_ev(const grove_bcs *b) { return (int32_t)b->nevents - 2; }
static uint64_t strobe_off(const grove_bcs *b) { return b->gmem_bytes - STROBE_BYTES; }

/* The microphase's number over the whole run (> 0). */
static int64_t
seq_of(uint64_t slice, int phase)
{
	return (int64_t)(slice * BCS_MICROPHASES + (uint64_t)phase + 1);
}

static int
check_machine(grove_bcs *b)
{
	if (b->nvars < 1 || b->nevents < 2 || b->gmem_bytes < STROBE_BYTES) {
		bcs_set_error(b, "the strobe needs a variable, two events and "
		    "%d bytes of global memory", STROBE_BYTES);
		return GROVE_EINVAL;
	}
	return 0;
}

/* ---- the sender -------------------------------------------------------- */

static int
strobe(grove_bcs *b, uint64_t slice, uint32_t phase)
{
	uint8_t msg[STROBE_BYTES] = {0};
	memcpy(msg, &slice, 8);
	memcpy(msg + 8, &phase, 4);
	grove_bcs_xfer x = {.to = {NULL, 0}, .src_addr = (uintptr_t)msg,
	    .dst_addr = strobe_off(b), .len = sizeof msg,
	    .local_event = GROVE_BCS_NO_EVENT, .remote_event = strobe_ev(b)};
	return grove_bcs_xfer_and_signal(b, &x);
}

/* Waits until every node is done with (slice, phase): a Compare-And-
 * Write on the done variable, sent right after the (micro)strobe on the
 * same ordered stream.  A node runs the microphase inside the dispatch
 * of the strobe (receiver below), so the query that follows is answered
 * after it: one multicast and one reduction per microphase, and the
 * first Compare-And-Write holds unless a node fell behind.  *usr counts
 * the ones that did not hold, *more whether a node has work. */
static int
wait_done(grove_bcs *b, uint64_t slice, int phase, int timeout_ms,
    uint64_t *usr, bool *more)
{
	static const char *const names[] = {"DEM", "MSM", "P2P", "BBM", "RED"};
	int64_t want = seq_of(slice, phase) << 1;
	grove_bcs_cw cw = {.var = done_var(b), .cmp = GROVE_BCS_GE,
	    .value = want, .write_event = GROVE_BCS_NO_EVENT};
	uint64_t deadline = bcs_now_ms() + (uint64_t)timeout_ms;
	/* The query in flight is not failed when a node dies under it (its
	 * reduction waits for every node): ask in short turns, and between
	 * them look for losses. */
	int turn_ms = timeout_ms < STROBE_TURN_MS ? timeout_ms : STROBE_TURN_MS;
	grove_bcs_set all = {NULL, 0};
	for (;;) {
		int64_t vmin = 0, vmax = 0;
		int rc = bcs_compare_and_write_range(b, &cw, turn_ms, &vmin,
		    &vmax);
		if (rc == GROVE_ETIMEDOUT) {
			rc = bcs_check_alive(b, &all);
			if (rc == 0 && bcs_now_ms() < deadline) {
				(*usr)++;
				continue;
			}
			if (rc == 0) {
				bcs_set_error(b, "strobe: slice %llu: not every node "
				    "finished %s within %d ms",
				    (unsigned long long)slice, names[phase],
				    timeout_ms);
				return GROVE_ETIMEDOUT;
			}
		}
		if (rc == 1) {
			*more = (vmax & 1) != 0;
			return 0;
		}
		if (rc < 0) {
			char why[sizeof b->err];
			memcpy(why, b->err, sizeof why);
			bcs_set_error(b, "strobe: slice %llu, %s: %s",
			    (unsigned long long)slice, names[phase], why);
			return rc;
		}
		(*usr)++;
		if (bcs_now_ms() >= deadline) {
			bcs_set_error(b, "strobe: slice %llu: not every node "
			    "finished %s within %d ms", (unsigned long long)slice,
			    names[phase], timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		/* A node behind: serve the network a moment, then strobe
		 * again (a node runs a microphase once, however many strobes
		 * name it) and ask again (a lost node is found by the next
		 * query). */
		int ev = grove_bcs_test_event(b, done_ev(b), 1);
		if (ev < 0)
			return ev;
		if ((rc = strobe(b, slice, (uint32_t)phase)) != 0)
			return rc;
	}
}

static void
sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000u),
	    (long)(t % 1000000000u)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
}

int
bcs_strobe_sender_run(grove_bcs *b, const bcs_strobe_cfg *cfg,
    bcs_strobe_result *res)
{
	if (!b || !cfg || !b->open_done || b->role != BCS_ROLE_MANAGER)
		return GROVE_EINVAL;
	int rc = check_machine(b);
	if (rc != 0)
		return rc;
	if (cfg->slice_ns < 250000u || cfg->slice_ns > 10000000000ull) {
		bcs_set_error(b, "strobe: a slice of %llu ns (250 us .. 10 s)",
		    (unsigned long long)cfg->slice_ns);
		return GROVE_ERANGE;
	}
	bcs_strobe_result r = {0, 0, 0, UINT64_MAX};
	int timeout = cfg->phase_timeout_ms > 0 ? cfg->phase_timeout_ms : 10000;
	uint64_t t0 = now_ns() + cfg->slice_ns, prev = 0;
	for (uint64_t i = 0;; i++) {
		if ((cfg->slices && i >= cfg->slices) ||
		    (cfg->stop && cfg->stop(cfg->arg, i)))
			break;
		sleep_until(t0 + i * cfg->slice_ns);
		uint64_t ts = now_ns();
		uint64_t m[BCS_EMDS_GLOBAL_N] = {0};
		m[BCS_GETTS] = prev ? ts - prev : 0;
		prev = ts;
		r.slices++;
		if ((rc = strobe(b, i, BCS_DEM)) != 0)
			break;
		uint64_t t_last = ts;
		for (int p = BCS_DEM; p < BCS_MICROPHASES; p++) {
			uint64_t usr = 0;
			bool more = false;
			if (p > BCS_DEM && (rc = strobe(b, i, (uint32_t)p)) != 0)
				break;
			if ((rc = wait_done(b, i, p, timeout, &usr, &more)) != 0)
				break;
			uint64_t t = now_ns();
			if (p == BCS_DEM) {
				m[BCS_GTDEM] = t - ts;
				m[BCS_USRDEM] = usr;
			} else if (p == BCS_MSM) {
				m[BCS_GTMSM] = t - t_last;
				m[BCS_USRMSM] = usr;
			}
			m[BCS_USRTS] += usr;
			t_last = t;
			/* Nothing anywhere after DEM (no descriptor drained, no
			 * transfer going on) or after MSM (nothing scheduled):
			 * the slice ends here. */
			if ((p == BCS_DEM || p == BCS_MSM) && !more) {
				r.short_slices++;
				break;
			}
		}
		if (rc != 0)
			break;
		m[BCS_GTTS] = t_last - ts;
		r.retries += m[BCS_USRTS];
		if (m[BCS_GTTS] < r.min_gtts_ns)
			r.min_gtts_ns = m[BCS_GTTS];
		if (cfg->emds) {
			bcs_emds_record(cfg->emds, i, m);
			bcs_emds_set_start(cfg->emds, i, ts);
		}
	}
	if (rc == 0 || rc == GROVE_ETIMEDOUT) {
		/* The nodes stop too (those still there). */
		char save[sizeof b->err];
		memcpy(save, b->err, sizeof save);
		grove_bcs_set all = {NULL, 0};
		if (bcs_check_alive(b, &all) == 0)
			strobe(b, r.slices, STROBE_STOP);
		memcpy(b->err, save, sizeof save);
	}
	if (r.min_gtts_ns == UINT64_MAX)
		r.min_gtts_ns = 0;
	if (res)
		*res = r;
	return rc;
}

/* ---- the receiver ------------------------------------------------------- */

/* The receiver's state, which the strobe's signal hook updates. */
struct recv {
	bcs_phase_fn phase;
	void *arg;
	bcs_emds *emds;
	uint64_t cur, t_strobe, t_prev, t_last;
	uint32_t last_phase;
	uint64_t m[BCS_EMDS_LOCAL_N];
	bcs_strobe_counts c;
	int rc;
	bool stopped;
};

/* Runs the microphase a strobe starts, inside the dispatch of the strobe
 * message (grove_bcs.on_signal), and sets the done variable that the
 * manager's Compare-And-Write reads next. */
static void
on_strobe(grove_bcs *b, int32_t ev, void *arg)
{
	struct recv *r = arg;
	if (ev != strobe_ev(b) || r->rc || r->stopped)
		return;
	uint64_t slice;
	uint32_t ph;
	memcpy(&slice, b->gmem + strobe_off(b), 8);
	memcpy(&ph, b->gmem + strobe_off(b) + 8, 4);
	if (slice == r->cur && ph == r->last_phase)
		return; /* a signal whose strobe was seen */
	uint64_t t = now_ns();
	if ((ph == BCS_DEM || ph == STROBE_STOP) && r->cur != UINT64_MAX) {
		/* The previous slice is over here. */
		r->m[BCS_LTTS] = r->t_last - r->t_strobe;
		r->m[BCS_NP2PDEM] = r->c.np2pdem;
		r->m[BCS_NP2PMSM] = r->c.np2pmsm;
		r->m[BCS_NCOLLDEM] = r->c.ncolldem;
		r->m[BCS_NCOLLMSM] = r->c.ncollmsm;
		r->m[BCS_BPTS] = r->c.bpts;
		if (r->emds)
			bcs_emds_record(r->emds, r->cur, r->m);
	}
	if (ph == STROBE_STOP) {
		r->stopped = true;
		return;
	}
	if (ph >= BCS_MICROPHASES) {
		bcs_set_error(b, "strobe: node %u: microphase %u from the "
		    "manager", b->self, ph);
		r->rc = GROVE_EPROTO;
		return;
	}
	if (ph == BCS_DEM) {
		memset(r->m, 0, sizeof r->m);
		memset(&r->c, 0, sizeof r->c);
		r->m[BCS_LETTS] = r->t_prev ? t - r->t_prev : 0;
		r->t_prev = r->t_strobe = t;
	}
	r->cur = slice;
	r->last_phase = ph;
	bool more = false;
	int rc = r->phase(r->arg, slice, (int)ph, &more, &r->c);
	if (rc < 0) {
		r->rc = rc;
		return;
	}
	r->t_last = now_ns();
	if (ph == BCS_DEM)
		r->m[BCS_LTDEM] = r->t_last - t;
	else if (ph == BCS_MSM)
		r->m[BCS_LMSM] = r->t_last - t;
	b->vars[done_var(b)] = (seq_of(slice, (int)ph) << 1) | (more ? 1 : 0);
}

int
bcs_strobe_receiver_run(grove_bcs *b, bcs_phase_fn phase, void *arg,
    bcs_emds *emds)
{
	if (!b || !phase || !b->open_done || b->role != BCS_ROLE_NODE)
		return GROVE_EINVAL;
	int rc = check_machine(b);
	if (rc != 0)
		return rc;
	struct recv r = {.phase = phase, .arg = arg, .emds = emds,
	    .cur = UINT64_MAX, .last_phase = UINT32_MAX};
	b->on_signal = on_strobe;
	b->on_signal_arg = &r;
	/* A strobe that came before the hook was in place (with the end of
	 * the machine's opening): its microphase runs now. */
	if (b->events[strobe_ev(b)].signals)
		on_strobe(b, strobe_ev(b), &r);
	for (;;) {
		rc = grove_bcs_test_event(b, strobe_ev(b), -1);
		if (rc < 0)
			break;
		if (r.rc) {
			rc = r.rc;
			break;
		}
		if (r.stopped) {
			rc = 0;
			break;
		}
	}
	b->on_signal = NULL;
	b->on_signal_arg = NULL;
	return rc;
}
