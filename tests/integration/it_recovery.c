/* Surviving lost communication processes (docs/recovery.md): CPs are
 * killed (SIGKILL) one after another, or stopped (SIGSTOP: a silent peer,
 * found by the heartbeat), while back-ends (this program with --seq-be)
 * stream numbered packets up a concat stream.  Every wave is checked by
 * its sequence number: each arrives once, in order, with exactly one
 * value from every back-end, all of that wave's number, and an account
 * that says every member is in it.  Each loss must bring one
 * GROVE_EV_REPARENTED naming the lost CP and, as its new parent, the
 * node it hung from; grove_net_node_parent must then give that node for
 * each of its children.  No back-end may be lost, and no process may be
 * left after the network is destroyed.  Last, the front-end's own loss
 * after re-parenting ends every process within 5 s.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"

/* --seq-be: TAG_RUN "%d %d %d" first, count, pace_us: sends count
 * packets "%d" first, first + 1, ... with TAG_SEQ on the stream it came
 * on; odd ranks sleep pace_us after each, so that waves are always
 * part-way at some CPs when one is lost. */
#define TAG_RUN 11
#define TAG_SEQ 12

static int
seq_be_main(void)
{
	int argc = 0;
	char **argv = NULL;
	grove_be *be = NULL;
	if (grove_be_init(&argc, &argv, &be) != 0)
		return 1;
	uint32_t rank = grove_be_rank(be);
	int rc = 0;
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0, first = 0, count = 0, pace = 0;
		grove_packet *p = NULL;
		if (grove_be_recv(be, &stream, &tag, &p, -1) != 0)
			break;
		int ok = tag == TAG_RUN && grove_packet_unpack(p, "%d %d %d",
		    &first, &count, &pace) == 0;
		grove_packet_unref(p);
		for (int32_t i = 0; ok && i < count; i++) {
			if ((rc = grove_be_send(be, stream, TAG_SEQ, "%d",
			    first + i)) != 0) {
				fprintf(stderr, "seq-be %u: send %d: %s: %s\n", rank,
				    first + i, grove_err_name(rc),
				    grove_be_last_error(be));
				break;
			}
			if (rank % 2 && pace > 0)
				usleep((useconds_t)pace);
		}
	}
	grove_be_destroy(be);
	return 0;
}

/* ---- finding a CP's process by its node id -------------------------- */

/* The pid of CP node `node` of network netid: the process that maps its
 * event space /dev/shm/grove.<netid>.cp.<node>; -1 if none does. */
static pid_t
cp_pid(const char *netid, uint32_t node)
{
	pid_t pids[512];
	size_t n = it_descendants(pids, 512, "grove-commnode");
	char want[128];
	snprintf(want, sizeof want, "/grove.%s.cp.%u\n", netid, node);
	for (size_t i = 0; i < n && i < 512; i++) {
		char path[64], line[1024];
		snprintf(path, sizeof path, "/proc/%d/maps", (int)pids[i]);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		int found = 0;
		while (!found && fgets(line, sizeof line, f)) {
			size_t l = strlen(line), w = strlen(want);
			found = l >= w && !strcmp(line + l - w, want);
		}
		fclose(f);
		if (found)
			return pids[i];
	}
	return -1;
}

/* ---- the victims ------------------------------------------------------ */

/* Every CP of the topology in the order they are lost: under each CP of
 * depth 1, first one of its CP children, then the CP itself (whose other
 * children, the CPs among them, move to the front-end); then the CPs
 * left.  So losses hit leaf CPs, CPs with adopted children, CPs that were
 * adopted themselves, and children of the front-end. */
static size_t
victims(const grove_topo *t, uint32_t *out, size_t cap)
{
	size_t k = 0;
	uint32_t size = grove_topo_size(t);
	unsigned char *taken = calloc(size, 1);
	CHECK(taken != NULL);
	const uint32_t *top = grove_topo_children(t, 0);
	for (uint32_t i = 0; i < grove_topo_node_at(t, 0)->n_children; i++) {
		const grove_topo_node *d = grove_topo_node_at(t, top[i]);
		if (d->role != GROVE_ROLE_CP)
			continue;
		const uint32_t *kids = grove_topo_children(t, d->id);
		for (uint32_t j = 0; j < d->n_children && k < cap; j++)
			if (grove_topo_node_at(t, kids[j])->role == GROVE_ROLE_CP) {
				out[k++] = kids[j];
				taken[kids[j]] = 1;
				break;
			}
		if (k < cap) {
			out[k++] = d->id;
			taken[d->id] = 1;
		}
	}
	for (uint32_t id = 1; id < size && k < cap; id++)
		if (!taken[id] && grove_topo_node_at(t, id)->role == GROVE_ROLE_CP)
			out[k++] = id;
	free(taken);
	return k;
}

/* ---- the run ------------------------------------------------------- */

typedef struct run {
	grove_net *net;
	grove_stream *s;
	const grove_topo *t;
	uint32_t nbe;
	uint32_t *parent;      /* per node: the parent it should have now */
	int null_filter;       /* "null" instead of "concat" */
	uint32_t pending;      /* the victim whose REPARENTED is awaited */
	int awaiting;
	uint32_t reparented;
} run;

/* Takes the queued events: a GROVE_EV_REPARENTED must be for the victim
 * awaited, name its parent, and have moved each of its children there;
 * no back-end may be lost. */
static void
take_events(run *r)
{
	grove_event ev;
	while (grove_net_next_event(r->net, &ev, 0) == 0) {
		if (ev.type == GROVE_EV_LOST)
			IT_FAIL("GROVE_EV_LOST for ranks [%u, %u) node %u: %s",
			    ev.rank_lo, ev.rank_hi, ev.node, ev.text);
		if (ev.type != GROVE_EV_REPARENTED) {
			it_step("event %d node %u: %s", (int)ev.type, ev.node,
			    ev.text);
			continue;
		}
		it_step("GROVE_EV_REPARENTED node %u, parent %u: %s", ev.node,
		    ev.parent, ev.text);
		if (!r->awaiting || ev.node != r->pending)
			IT_FAIL("GROVE_EV_REPARENTED for node %u, awaited: %s %u",
			    ev.node, r->awaiting ? "node" : "none", r->pending);
		CHECK_UINT_EQ(ev.parent, r->parent[ev.node]);
		const grove_topo_node *lost = grove_topo_node_at(r->t, ev.node);
		CHECK_UINT_EQ(ev.rank_lo, lost->be_lo);
		CHECK_UINT_EQ(ev.rank_hi, lost->be_hi);
		/* Its children then: the topology's, and those it had
		 * adopted itself. */
		uint32_t moved = 0;
		for (uint32_t id = 1; id < grove_topo_size(r->t); id++) {
			if (r->parent[id] != ev.node)
				continue;
			uint32_t now = 0;
			CHECK_OK_NET(r->net, grove_net_node_parent(r->net, id,
			    &now));
			CHECK_UINT_EQ(now, ev.parent);
			char name[32];
			snprintf(name, sizeof name, " node %u", id);
			if (!strstr(ev.text, name))
				IT_FAIL("the event does not name node %u, a child "
				    "of node %u: %s", id, ev.node, ev.text);
			r->parent[id] = ev.parent;
			moved++;
		}
		CHECK(moved > 0);
		r->parent[ev.node] = UINT32_MAX; /* gone */
		r->awaiting = 0;
		r->reparented++;
	}
}

/* The account of a packet of wave seq: every member in it. */
static void
check_whole(run *r, const grove_packet *p, int32_t seq)
{
	uint32_t in = 0, all = 0;
	CHECK_OK(grove_packet_contributors(p, &in, &all));
	if (in != r->nbe || all != r->nbe || grove_packet_missing(p, NULL,
	    0) != 0) {
		grove_missing m[8];
		int nm = grove_packet_missing(p, m, 8);
		for (int i = 0; i < nm && i < 8; i++)
			fprintf(stderr, "  missing ranks [%u, %u): %s at node %u\n",
			    m[i].rank_lo, m[i].rank_hi,
			    grove_missing_reason_name((int)m[i].reason), m[i].node);
		IT_FAIL("wave %d: %u of %u members contributed, expected all %u",
		    seq, in, all, r->nbe);
	}
}

/* The null filter passes every back-end's packet on: wave seq is nbe
 * packets, one from each back-end (its source), each of value seq (CPs'
 * shares are several packets, announced: so are the ones sent again). */
static void
recv_null_wave(run *r, int32_t seq)
{
	unsigned char *seen = calloc(r->nbe, 1);
	CHECK(seen != NULL);
	for (uint32_t i = 0; i < r->nbe; i++) {
		grove_packet *p = it_recv(r->net, r->s, TAG_SEQ);
		check_whole(r, p, seq);
		int32_t v = 0;
		CHECK_OK(grove_packet_unpack(p, "%d", &v));
		uint32_t src = grove_packet_src(p);
		if (v != seq)
			IT_FAIL("wave %d: rank %u sent %d (a wave lost or "
			    "delivered twice)", seq, src, v);
		if (src >= r->nbe || seen[src]++)
			IT_FAIL("wave %d: rank %u twice or out of range", seq, src);
		grove_packet_unref(p);
	}
	free(seen);
	take_events(r);
}

/* Receives wave `seq`: one value from every back-end, all equal to seq,
 * and an account with every member in it. */
static void
recv_wave(run *r, int32_t seq)
{
	if (r->null_filter) {
		recv_null_wave(r, seq);
		return;
	}
	grove_packet *p = it_recv(r->net, r->s, TAG_SEQ);
	check_whole(r, p, seq);
	it_concat c;
	it_concat_decode(p, &c);
	if (c.n != r->nbe || !c.rank)
		IT_FAIL("wave %d: %llu values, expected %u with ranks", seq,
		    (unsigned long long)c.n, r->nbe);
	unsigned char *seen = calloc(r->nbe, 1);
	CHECK(seen != NULL);
	for (uint64_t i = 0; i < c.n; i++) {
		if (c.val[i] != seq)
			IT_FAIL("wave %d: rank %u sent %lld (a wave lost or "
			    "delivered twice)", seq, c.rank[i],
			    (long long)c.val[i]);
		if (c.rank[i] >= r->nbe || seen[c.rank[i]]++)
			IT_FAIL("wave %d: rank %u twice or out of range", seq,
			    c.rank[i]);
	}
	free(seen);
	it_concat_free(&c);
	grove_packet_unref(p);
	take_events(r);
}

/* Waits, receiving nothing, until the REPARENTED awaited has come. */
static void
await_reparented(run *r)
{
	uint64_t end = it_now_ms() + IT_RECV_MS;
	while (r->awaiting) {
		if (it_now_ms() > end)
			IT_FAIL("no GROVE_EV_REPARENTED for node %u within %d ms",
			    r->pending, IT_RECV_MS);
		/* Runs the network; the event is taken by take_events. */
		CHECK_RC_NET(r->net, grove_net_progress(r->net), 0);
		take_events(r);
		it_sleep_ms(2);
	}
}

/* Loses node `victim` with sig (SIGKILL, or SIGSTOP for a silent peer:
 * the stopped process's pid goes to *stopped). */
static void
lose(run *r, uint32_t victim, int sig, pid_t *stopped)
{
	pid_t pid = cp_pid(grove_net_id(r->net), victim);
	if (pid < 0)
		IT_FAIL("no process maps the event space of CP node %u", victim);
	it_step("%s node %u (pid %d), its parent now node %u",
	    sig == SIGKILL ? "SIGKILL" : "SIGSTOP", victim, (int)pid,
	    r->parent[victim]);
	CHECK_OK(kill(pid, sig));
	if (stopped)
		*stopped = pid;
	r->pending = victim;
	r->awaiting = 1;
}

#define ROUND 300

/* One network of nbe back-ends on topology; loses up to max_victims CPs
 * by sig (one SIGSTOP victim at the end too, when stop_last). */
static void
losses(const char *topology, uint32_t nbe, size_t max_victims, int stop_last,
    const char *filter)
{
	it_step("--- %s, %u back-ends, %s: %zu CPs killed%s under load",
	    topology, nbe, filter, max_victims, stop_last ?
	    ", then one stopped" : "");
	char exe[4096];
	char *argv[] = {"it_recovery", "--seq-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, topology, nbe);
	o.be_exe = it_build_path("it_recovery", exe, sizeof exe);
	o.be_argv = argv;
	/* A stopped CP is found after 5 intervals: 1 s. */
	o.heartbeat_ms = 200;
	run r;
	memset(&r, 0, sizeof r);
	r.net = it_net_create(&o);
	r.t = grove_net_topology(r.net);
	r.nbe = nbe;
	r.null_filter = !strcmp(filter, "null");
	r.s = it_stream(r.net, NULL, filter, NULL);
	uint32_t size = grove_topo_size(r.t);
	r.parent = calloc(size, sizeof *r.parent);
	CHECK(r.parent != NULL);
	for (uint32_t id = 1; id < size; id++)
		CHECK_OK_NET(r.net, grove_net_node_parent(r.net, id,
		    &r.parent[id]));
	uint32_t vict[64];
	size_t nv = victims(r.t, vict, 64);
	if (nv > max_victims + (stop_last ? 1 : 0))
		nv = max_victims + (stop_last ? 1 : 0);
	pid_t stopped = -1;
	int32_t seq = 0;
	uint64_t t0 = it_now_ms();
	for (size_t round = 0; round <= nv; round++) {
		CHECK_OK_NET(r.net, grove_stream_send(r.s, TAG_RUN, "%d %d %d",
		    seq, ROUND, 100));
		for (int i = 0; i < ROUND; i++) {
			/* A loss a third of the way into each round but the
			 * last, once the one before has been dealt with. */
			if (round < nv && i == ROUND / 3) {
				int stop = stop_last && round == nv - 1;
				await_reparented(&r);
				lose(&r, vict[round], stop ? SIGSTOP : SIGKILL,
				    stop ? &stopped : NULL);
			}
			recv_wave(&r, seq++);
		}
	}
	await_reparented(&r);
	CHECK_UINT_EQ(r.reparented, nv);
	CHECK_UINT_EQ(grove_net_backends_up(r.net), nbe);
	it_step("%d waves whole and in order through %zu losses in %llu ms",
	    seq, nv, (unsigned long long)(it_now_ms() - t0));
	if (stopped > 0) {
		/* Resumed, it finds its links closed and nobody who takes it
		 * back (its parent declared it lost): it leaves on its own,
		 * and takes none of its former children with it. */
		CHECK_OK(kill(stopped, SIGCONT));
		if (it_wait_gone(&stopped, 1, 10000))
			IT_FAIL("the stopped CP (pid %d) is still alive 10 s "
			    "after it was resumed", (int)stopped);
	}
	/* A new stream reaches every back-end through the moved ones (and
	 * no back-end was lost meanwhile: take_events). */
	grove_stream *s2 = it_stream(r.net, NULL, filter, NULL);
	grove_stream *keep = r.s;
	r.s = s2;
	CHECK_OK_NET(r.net, grove_stream_send(s2, TAG_RUN, "%d %d %d", 0, 20,
	    0));
	for (int32_t i = 0; i < 20; i++)
		recv_wave(&r, i);
	CHECK_OK_NET(r.net, grove_stream_destroy(s2));
	r.s = keep;
	CHECK_UINT_EQ(grove_net_backends_up(r.net), nbe);
	CHECK_OK_NET(r.net, grove_stream_destroy(r.s));
	free(r.parent);
	it_net_destroy(r.net);
}

/* ---- a child that does not come back ------------------------------- */

/* A leaf CP is killed while one of its two back-ends is stopped: the
 * other one moves, the stopped one is given up after reparent_ms.  The
 * event names the lost CP and only the child that moved, a
 * GROVE_EV_LOST names the one that did not, and every wave after the
 * loss is honest: all but that rank, which its account says is lost,
 * at its own node. */
static void
partial_return(void)
{
	it_step("--- a CP lost while one of its back-ends cannot come back");
	char exe[4096];
	char *argv[] = {"it_recovery", "--seq-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 8);
	o.be_exe = it_build_path("it_recovery", exe, sizeof exe);
	o.be_argv = argv;
	o.reparent_ms = 500;
	grove_net *net = it_net_create(&o);
	const grove_topo *t = grove_net_topology(net);
	grove_stream *s = it_stream(net, NULL, "concat", NULL);
	run r;
	memset(&r, 0, sizeof r);
	r.net = net;
	r.t = t;
	r.nbe = 8;
	r.s = s;
	/* A round first: every process knows its ancestors. */
	CHECK_OK_NET(net, grove_stream_send(s, TAG_RUN, "%d %d %d", 0, 10, 0));
	for (int32_t i = 0; i < 10; i++)
		recv_wave(&r, i);
	/* kary:2 over 8: node 2 is a CP of ranks 0-1 (nodes 3, 4). */
	const grove_topo_node *cp = grove_topo_node_at(t, 2);
	CHECK(cp->role == GROVE_ROLE_CP && cp->be_lo == 0 && cp->be_hi == 2);
	pid_t cpid = cp_pid(grove_net_id(net), 2);
	CHECK(cpid > 0);
	pid_t bes[4];
	CHECK_UINT_EQ(it_descendants_of(cpid, bes, 4, "--seq-be"), 2);
	/* Which of them is rank 1: the one that maps be.1's space. */
	char want[96];
	snprintf(want, sizeof want, "/grove.%s.be.1\n", grove_net_id(net));
	pid_t stopped = -1;
	for (int i = 0; i < 2 && stopped < 0; i++) {
		char path[64], line[1024];
		snprintf(path, sizeof path, "/proc/%d/maps", (int)bes[i]);
		FILE *f = fopen(path, "r");
		CHECK(f != NULL);
		while (fgets(line, sizeof line, f)) {
			size_t l = strlen(line), w = strlen(want);
			if (l >= w && !strcmp(line + l - w, want)) {
				stopped = bes[i];
				break;
			}
		}
		fclose(f);
	}
	CHECK(stopped > 0);
	CHECK_OK(kill(stopped, SIGSTOP));
	CHECK_OK(kill(cpid, SIGKILL));
	it_step("stopped rank 1 (pid %d), killed node 2 (pid %d)",
	    (int)stopped, (int)cpid);
	CHECK_OK_NET(net, grove_stream_send(s, TAG_RUN, "%d %d %d", 10, 20, 0));
	int reparented = 0, lost = 0;
	for (int32_t seq = 10; seq < 30; seq++) {
		grove_packet *p = it_recv(net, s, TAG_SEQ);
		uint32_t in = 0, all = 0;
		CHECK_OK(grove_packet_contributors(p, &in, &all));
		CHECK_UINT_EQ(all, 8);
		CHECK_UINT_EQ(in, 7);
		grove_missing m[4];
		CHECK_INT_EQ(grove_packet_missing(p, m, 4), 1);
		CHECK_UINT_EQ(m[0].rank_lo, 1);
		CHECK_UINT_EQ(m[0].rank_hi, 2);
		CHECK_INT_EQ(m[0].reason, GROVE_MISSING_LOST);
		CHECK_UINT_EQ(m[0].node, 4);
		it_concat c;
		it_concat_decode(p, &c);
		CHECK_UINT_EQ(c.n, 7);
		for (uint64_t i = 0; i < c.n; i++) {
			CHECK_INT_EQ(c.val[i], seq);
			CHECK(c.rank[i] != 1);
		}
		it_concat_free(&c);
		grove_packet_unref(p);
	}
	grove_event ev;
	while (grove_net_next_event(net, &ev, 0) == 0) {
		it_step("event %d node %u: %s", (int)ev.type, ev.node, ev.text);
		if (ev.type == GROVE_EV_REPARENTED) {
			CHECK_UINT_EQ(ev.node, 2);
			CHECK_UINT_EQ(ev.parent, 1);
			CHECK_STR_CONTAINS(ev.text, "now under node 1: node 3");
			CHECK(!strstr(ev.text, "node 4"));
			reparented++;
		} else if (ev.type == GROVE_EV_LOST) {
			CHECK_UINT_EQ(ev.node, 4);
			CHECK_UINT_EQ(ev.rank_lo, 1);
			CHECK_UINT_EQ(ev.rank_hi, 2);
			CHECK_STR_CONTAINS(ev.text, "did not come back");
			lost++;
		}
	}
	CHECK_INT_EQ(reparented, 1);
	CHECK_INT_EQ(lost, 1);
	CHECK_UINT_EQ(grove_net_backends_up(net), 7);
	uint32_t parent = 0;
	CHECK_OK_NET(net, grove_net_node_parent(net, 3, &parent));
	CHECK_UINT_EQ(parent, 1);
	/* Resumed, it finds its parent gone and nobody who takes it back
	 * (it was given up): its receive ends and it leaves. */
	CHECK_OK(kill(stopped, SIGCONT));
	if (it_wait_gone(&stopped, 1, 10000))
		IT_FAIL("the given-up back-end (pid %d) is still alive 10 s "
		    "after it was resumed", (int)stopped);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* ---- the front-end's loss after re-parenting ---------------------- */

static void
fe_lost_after_moves(void)
{
	it_step("--- the FE is killed after CPs were lost and re-parented");
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t fe = fork();
	CHECK(fe >= 0);
	if (fe == 0) {
		close(pfd[0]);
		char exe[4096];
		char *argv[] = {"it_recovery", "--seq-be", NULL};
		grove_net_opts o;
		it_net_opts(&o, "kary:2", 8);
		o.be_exe = it_build_path("it_recovery", exe, sizeof exe);
		o.be_argv = argv;
		run r;
		memset(&r, 0, sizeof r);
		r.net = it_net_create(&o);
		r.t = grove_net_topology(r.net);
		r.nbe = 8;
		r.s = it_stream(r.net, NULL, "concat", NULL);
		uint32_t size = grove_topo_size(r.t);
		r.parent = calloc(size, sizeof *r.parent);
		for (uint32_t id = 1; id < size; id++)
			grove_net_node_parent(r.net, id, &r.parent[id]);
		/* A round first: every process has had the ancestors it was
		 * sent once the network was up (docs/recovery.md). */
		CHECK_OK_NET(r.net, grove_stream_send(r.s, TAG_RUN, "%d %d %d",
		    0, 10, 0));
		for (int32_t i = 0; i < 10; i++)
			recv_wave(&r, i);
		/* A child of the FE: its CPs and their back-ends move to the
		 * FE, which did not start them. */
		uint32_t vict[8];
		victims(r.t, vict, 8);
		lose(&r, vict[1], SIGKILL, NULL);
		await_reparented(&r);
		CHECK_OK_NET(r.net, grove_stream_send(r.s, TAG_RUN, "%d %d %d",
		    10, 10, 0));
		for (int32_t i = 10; i < 20; i++)
			recv_wave(&r, i);
		char id[64] = "";
		snprintf(id, sizeof id, "%s", grove_net_id(r.net));
		if (write(pfd[1], id, sizeof id) != (ssize_t)sizeof id)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
	CHECK(poll(&pf, 1, 60000) == 1);
	char netid[64] = "";
	CHECK(read(pfd[0], netid, sizeof netid) == (ssize_t)sizeof netid);
	CHECK(netid[0] != '\0' && memchr(netid, '\0', sizeof netid));
	close(pfd[0]);
	pid_t procs[256];
	size_t n = it_descendants(procs, 256, NULL);
	CHECK(n <= 256);
	it_step("%zu processes (the FE and its network)", n);
	CHECK_OK(kill(fe, SIGKILL));
	int st;
	CHECK(waitpid(fe, &st, 0) == fe);
	uint64_t t0 = it_now_ms();
	size_t left = it_wait_gone(procs, n, 5000);
	if (left) {
		for (size_t i = 0; i < n; i++)
			if (it_alive(procs[i]))
				fprintf(stderr, "  still alive: pid %d\n",
				    (int)procs[i]);
		IT_FAIL("%zu of %zu processes outlived their FE by 5 s", left, n);
	}
	it_step("all gone %llu ms after the FE died",
	    (unsigned long long)(it_now_ms() - t0));
	it_check_no_procs(NULL, 0, 5000);
	it_remove_segments(netid);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--seq-be"))
		return seq_be_main();
	it_init("it_recovery", 280);
	/* Depth 3: every CP lost in turn, the last one stopped. */
	losses("kary:2", 8, 5, 1, "concat");
	/* Wider: leaf CPs with four back-ends, CPs with four CP children;
	 * the null filter makes every CP's share several packets,
	 * announced, and sent again so. */
	losses("kary:4", 64, 4, 0, "null");
	partial_return();
	fe_lost_after_moves();
	return it_done();
}
