/* Waits that nothing can satisfy any more end instead of blocking forever.
 * A receive with no time limit returns GROVE_ECLOSED once no back-end that
 * could send to it is up or can still attach (packets already queued are
 * delivered first), also in trees whose CPs outlive their back-ends;
 * grove_net_wait_backends returns GROVE_ERANGE for more back-ends than the
 * network has and GROVE_ELOST for more than can still be connected.  A
 * wave the FE releases at its timeout still arrives, and in attach mode
 * ranks that have not attached yet keep both waiting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define NB 4
/* A watchdog well below ctest's: a wait that does not end is the bug. */
#define WATCHDOG_S 90

/* Takes events until every rank in [lo, hi) has been reported lost (by
 * events this call takes). */
static void
wait_lost(grove_net *net, uint32_t lo, uint32_t hi)
{
	int lost[NB] = {0};
	for (;;) {
		uint32_t r = lo;
		while (r < hi && lost[r])
			r++;
		if (r == hi)
			return;
		grove_event ev;
		CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
		if (ev.type != GROVE_EV_LOST)
			continue;
		it_step("lost: %s", ev.text);
		for (uint32_t k = ev.rank_lo; k < ev.rank_hi && k < NB; k++)
			lost[k] = 1;
	}
}

/* ---- spawn mode: every back-end exits --------------------------------- */

static void
all_exit(const char *topo)
{
	it_step("--- %s: every back-end exits after answering", topo);
	grove_net *net = it_net_spawn(topo, NB);
	/* dont_wait: a lost child's packets still waiting for their wave
	 * would be dropped with its slot (docs/filters.md). */
	grove_stream *s = it_stream(net, NULL, NULL, "dont_wait");
	grove_stream *other = it_stream(net, NULL, "sum", NULL);

	/* Answers first, then the exit: the answers are queued at the FE
	 * when the losses are known, and must still be handed out. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_EXIT, ""));
	wait_lost(net, 0, NB);
	CHECK_UINT_EQ(grove_net_backends_up(net), 0);

	int seen[NB] = {0};
	for (int i = 0; i < NB; i++) {
		int32_t tag = 0, v = -1;
		grove_packet *p = NULL;
		CHECK_OK_NET(net, grove_stream_recv(s, &tag, &p, -1));
		CHECK_INT_EQ(tag, WORKER_RANK);
		CHECK_OK(grove_packet_unpack(p, "%d", &v));
		grove_packet_unref(p);
		CHECK(v >= 0 && v < NB);
		seen[v]++;
	}
	for (int r = 0; r < NB; r++)
		CHECK_INT_EQ(seen[r], 1);

	int32_t tag = 0;
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_stream_recv(s, &tag, &p, -1), GROVE_ECLOSED);
	CHECK_RC_NET(net, grove_stream_recv(other, &tag, &p, -1),
	    GROVE_ECLOSED);
	grove_stream *any = NULL;
	CHECK_RC_NET(net, grove_net_recv(net, &any, &tag, &p, -1),
	    GROVE_ECLOSED);
	/* Not even a network this small waits for a back-end that left. */
	CHECK_RC_NET(net, grove_net_wait_backends(net, 1, -1), GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "4 lost");
	it_net_destroy(net);
}

/* ---- spawn mode: some back-ends exit -------------------------------- */

static void
some_exit(void)
{
	it_step("--- kary:2: the back-ends of one CP exit");
	grove_net *net = it_net_spawn("kary:2", NB);
	const uint32_t first[] = {0, 1}, rest[] = {2, 3};
	grove_comm *cf = NULL, *cr = NULL;
	CHECK_OK_NET(net, grove_comm_create(net, first, 2, &cf));
	CHECK_OK_NET(net, grove_comm_create(net, rest, 2, &cr));
	grove_stream *sf = it_stream(net, cf, "sum", NULL);
	grove_stream *sr = it_stream(net, cr, "sum", NULL);

	CHECK_RC_NET(net, grove_net_wait_backends(net, NB + 1, -1),
	    GROVE_ERANGE);
	CHECK_OK_NET(net, grove_net_wait_backends(net, NB, -1));

	CHECK_OK_NET(net, grove_stream_send(sf, WORKER_EXIT, ""));
	wait_lost(net, 0, 2);
	CHECK_UINT_EQ(grove_net_backends_up(net), 2);

	/* The stream of the ranks that left is closed; the others' is not,
	 * and a wait for more back-ends than remain ends at once. */
	int32_t tag = 0;
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_stream_recv(sf, &tag, &p, -1), GROVE_ECLOSED);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "every member is lost");
	CHECK_RC_NET(net, grove_stream_recv(sr, &tag, &p, 0), GROVE_EAGAIN);
	grove_stream *any = NULL;
	CHECK_RC_NET(net, grove_net_recv(net, &any, &tag, &p, 0),
	    GROVE_EAGAIN);
	CHECK_RC_NET(net, grove_net_wait_backends(net, 3, -1), GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "2 lost");
	CHECK_OK_NET(net, grove_net_wait_backends(net, 2, -1));

	CHECK_OK_NET(net, grove_stream_send(sr, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, sr, WORKER_RANK), 2 + 3);
	CHECK_OK_NET(net, grove_net_send_to(net, 3, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_p2p_int(net, 3, WORKER_RANK), 3);

	CHECK_OK_NET(net, grove_stream_destroy(sf));
	CHECK_OK_NET(net, grove_stream_destroy(sr));
	grove_comm_destroy(cf);
	grove_comm_destroy(cr);
	it_net_destroy(net);
}

/* ---- a wave the FE still holds ------------------------------------------ */

/* Long enough that every loss is known at the FE before the wave is due,
 * so the receive meets them while the FE holds the wave.  On a machine
 * too slow for that the wave is merely queued earlier. */
#define HELD_MS 3000

static void
held_wave(void)
{
	it_step("--- kary:2: a timeout wave held at the FE outlives its members");
	grove_net *net = it_net_spawn("kary:2", NB);
	/* One member under each CP: each CP's wave is its one member's
	 * packet, passed on as it arrives. */
	const uint32_t members[] = {0, 2}, rest[] = {2, 3};
	grove_comm *cm = NULL, *cr = NULL;
	CHECK_OK_NET(net, grove_comm_create(net, members, 2, &cm));
	CHECK_OK_NET(net, grove_comm_create(net, rest, 2, &cr));
	grove_stream *sr = it_stream(net, cr, NULL, NULL);
	grove_stream *sa = it_stream(net, NULL, NULL, NULL);
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = "sum";
	so.sync_filter = "timeout";
	so.sync_timeout_ms = HELD_MS;
	grove_stream *s = NULL;
	CHECK_OK_NET(net, grove_stream_create(net, cm, &so, &s));

	/* The second CP keeps running without back-ends: the FE's wave
	 * waits for it until the timeout, while rank 0 answers and leaves
	 * with the others. */
	CHECK_OK_NET(net, grove_stream_send(sr, WORKER_EXIT, ""));
	wait_lost(net, 2, NB);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 7));
	CHECK_OK_NET(net, grove_stream_send(sa, WORKER_EXIT, ""));
	wait_lost(net, 0, 2);
	CHECK_UINT_EQ(grove_net_backends_up(net), 0);

	int32_t tag = 0, v = -1;
	grove_packet *p = NULL;
	grove_stream *any = NULL;
	CHECK_OK_NET(net, grove_net_recv(net, &any, &tag, &p, -1));
	CHECK(any == s);
	CHECK_INT_EQ(tag, WORKER_ECHO);
	CHECK_OK(grove_packet_unpack(p, "%d", &v));
	grove_packet_unref(p);
	CHECK_INT_EQ(v, 7);
	CHECK_RC_NET(net, grove_stream_recv(s, &tag, &p, -1), GROVE_ECLOSED);
	CHECK_RC_NET(net, grove_net_recv(net, &any, &tag, &p, -1),
	    GROVE_ECLOSED);
	grove_comm_destroy(cm);
	grove_comm_destroy(cr);
	it_net_destroy(net);
}

/* ---- attach mode ------------------------------------------------------- */

/* Reaps the attached BE `pid`, which must exit with status 0, while the
 * FE keeps serving its links. */
static void
reap_attached(grove_net *net, pid_t pid)
{
	uint64_t end = it_now_ms() + IT_RECV_MS;
	int status = 0;
	pid_t w;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && it_now_ms() < end) {
		CHECK_OK_NET(net, grove_net_progress(net));
		it_sleep_ms(5);
	}
	if (w != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		IT_FAIL("attached BE pid %d: did not exit cleanly (status 0x%x)",
		    (int)pid, (unsigned)status);
}

static void
attach(void)
{
	it_step("--- attach, kary:2: ranks that have not attached yet");
	char path[4096];
	snprintf(path, sizeof path, "%s/lost-waits.conn", it_tmpdir());
	grove_net_opts o;
	it_attach_opts(&o, "kary:2", NB, path);
	grove_net *net = it_net_create(&o);
	pid_t pids[NB];

	CHECK_RC_NET(net, grove_net_wait_backends(net, NB + 1, -1),
	    GROVE_ERANGE);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "has 4 back-ends");

	/* Rank 0 attaches and leaves: nothing is up, but three ranks can
	 * still come. */
	pids[0] = it_start_attached_be(path, 0);
	CHECK_OK_NET(net, grove_net_wait_backends(net, 1, IT_RECV_MS));
	const uint32_t zero = 0;
	grove_comm *c0 = NULL;
	CHECK_OK_NET(net, grove_comm_create(net, &zero, 1, &c0));
	grove_stream *s0 = it_stream(net, c0, NULL, NULL);
	grove_stream *all = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s0, WORKER_EXIT, ""));
	wait_lost(net, 0, 1);
	reap_attached(net, pids[0]);
	CHECK_UINT_EQ(grove_net_backends_up(net), 0);

	int32_t tag = 0;
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_stream_recv(s0, &tag, &p, -1), GROVE_ECLOSED);
	CHECK_RC_NET(net, grove_stream_recv(all, &tag, &p, 100),
	    GROVE_ETIMEDOUT);
	grove_stream *any = NULL;
	CHECK_RC_NET(net, grove_net_recv(net, &any, &tag, &p, 100),
	    GROVE_ETIMEDOUT);
	CHECK_RC_NET(net, grove_net_wait_backends(net, NB, -1), GROVE_ELOST);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "1 lost");
	CHECK_RC_NET(net, grove_net_wait_backends(net, NB - 1, 100),
	    GROVE_ETIMEDOUT);

	/* The others arrive and answer. */
	for (uint32_t r = 1; r < NB; r++)
		pids[r] = it_start_attached_be(path, r);
	CHECK_OK_NET(net, grove_net_wait_backends(net, NB - 1, -1));
	CHECK_OK_NET(net, grove_stream_send(all, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, all, WORKER_RANK), 1 + 2 + 3);

	/* Then they leave too: no rank is left to send or to come. */
	CHECK_OK_NET(net, grove_stream_send(all, WORKER_EXIT, ""));
	wait_lost(net, 1, NB);
	for (uint32_t r = 1; r < NB; r++)
		reap_attached(net, pids[r]);
	CHECK_RC_NET(net, grove_stream_recv(all, &tag, &p, -1), GROVE_ECLOSED);
	CHECK_RC_NET(net, grove_net_recv(net, &any, &tag, &p, -1),
	    GROVE_ECLOSED);
	CHECK_RC_NET(net, grove_net_wait_backends(net, 1, -1), GROVE_ELOST);

	grove_comm_destroy(c0);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_lost_waits", WATCHDOG_S);
	all_exit("flat");
	all_exit("kary:2");
	some_exit();
	held_wave();
	attach();
	return it_done();
}
