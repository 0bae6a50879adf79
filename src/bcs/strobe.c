/* The strobe: sender (manager) and receiver (node); see strobe.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bcs/bcs_impl.h"
#include "bcs/strobe.h"

#define STROBE_STOP 0xff   /* the phase of the last strobe */
#define STROBE_BYTES 16    /* {u64 slice, u32 phase, u32 zero} */

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

/* Waits until every node is done with (slice, phase): its done event
 * from each, then a Compare-And-Write proves it.  *usr counts the
 * Compare-And-Writes that failed, *more whether a node has work. */
static int
wait_done(grove_bcs *b, uint64_t slice, int phase, int timeout_ms,
    uint64_t *usr, bool *more)
{
	static const char *const names[] = {"DEM", "MSM", "P2P", "BBM", "RED"};
	int64_t want = seq_of(slice, phase) << 1;
	grove_bcs_cw cw = {.var = done_var(b), .cmp = GROVE_BCS_GE,
	    .value = want, .write_event = GROVE_BCS_NO_EVENT};
	uint32_t got = 0;
	uint64_t deadline = bcs_now_ms() + (uint64_t)timeout_ms;
	/* Between checks, wait for done events at most this long: a lost
	 * node sends none, and the check is what finds it lost. */
	int poll_ms = 2;
	for (;;) {
		int rc;
		if (got < b->nodes) {
			rc = grove_bcs_test_event(b, done_ev(b), poll_ms);
			if (rc == 1) {
				got++;
				continue;
			}
			if (rc < 0)
				return rc;
		}
		int64_t vmin = 0, vmax = 0;
		rc = bcs_compare_and_write_range(b, &cw, timeout_ms, &vmin,
		    &vmax);
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
		got = 0; /* the events counted were stale */
		if (bcs_now_ms() >= deadline) {
			bcs_set_error(b, "strobe: slice %llu: not every node "
			    "finished %s within %d ms", (unsigned long long)slice,
			    names[phase], timeout_ms);
			return GROVE_ETIMEDOUT;
		}
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
			if (p == BCS_MSM && !more) {
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
		if (cfg->emds)
			bcs_emds_record(cfg->emds, i, m);
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

static int
report_done(grove_bcs *b, uint64_t slice, int phase, bool more)
{
	b->vars[done_var(b)] = (seq_of(slice, phase) << 1) | (more ? 1 : 0);
	uint32_t mgr = GROVE_BCS_MANAGER;
	grove_bcs_xfer x = {.to = {&mgr, 1}, .src_addr = (uintptr_t)b,
	    .len = 0, .local_event = GROVE_BCS_NO_EVENT,
	    .remote_event = done_ev(b)};
	return grove_bcs_xfer_and_signal(b, &x);
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
	uint64_t cur = UINT64_MAX, t_strobe = 0, t_prev = 0, t_last = 0;
	uint32_t last_phase = UINT32_MAX;
	uint64_t m[BCS_EMDS_LOCAL_N] = {0};
	bcs_strobe_counts c = {0, 0, 0, 0, 0};
	for (;;) {
		rc = grove_bcs_test_event(b, strobe_ev(b), -1);
		if (rc < 0)
			break;
		uint64_t slice;
		uint32_t ph;
		memcpy(&slice, b->gmem + strobe_off(b), 8);
		memcpy(&ph, b->gmem + strobe_off(b) + 8, 4);
		if (slice == cur && ph == last_phase)
			continue; /* a signal whose strobe was seen */
		uint64_t t = now_ns();
		if ((ph == BCS_DEM || ph == STROBE_STOP) &&
		    cur != UINT64_MAX) {
			/* The previous slice is over here. */
			m[BCS_LTTS] = t_last - t_strobe;
			m[BCS_NP2PDEM] = c.np2pdem;
			m[BCS_NP2PMSM] = c.np2pmsm;
			m[BCS_NCOLLDEM] = c.ncolldem;
			m[BCS_NCOLLMSM] = c.ncollmsm;
			m[BCS_BPTS] = c.bpts;
			if (emds)
				bcs_emds_record(emds, cur, m);
		}
		if (ph == STROBE_STOP) {
			rc = 0;
			break;
		}
		if (ph >= BCS_MICROPHASES) {
			bcs_set_error(b, "strobe: node %u: microphase %u from the "
			    "manager", b->self, ph);
			rc = GROVE_EPROTO;
			break;
		}
		if (ph == BCS_DEM) {
			memset(m, 0, sizeof m);
			memset(&c, 0, sizeof c);
			m[BCS_LETTS] = t_prev ? t - t_prev : 0;
			t_prev = t_strobe = t;
		}
		cur = slice;
		last_phase = ph;
		bool more = false;
		rc = phase(arg, slice, (int)ph, &more, &c);
		if (rc < 0)
			break;
		t_last = now_ns();
		if (ph == BCS_DEM)
			m[BCS_LTDEM] = t_last - t;
		else if (ph == BCS_MSM)
			m[BCS_LMSM] = t_last - t;
		if ((rc = report_done(b, slice, (int)ph, more)) != 0)
			break;
	}
	return rc;
}
