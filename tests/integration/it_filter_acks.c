/* Filter-load answers a node must not take at their word.  Every child
 * knows the network secret, so a node counts one answer from each CP
 * child it asked, and no answer from anyone else.  The children here are
 * fakes: this program, started by the front-end as its CPs
 * (GROVE_IT_FAKE_PEER says how to misbehave), proves the secret like a
 * real CP and then answers a load as no real CP does.  kary:2 with 4
 * back-ends: CPs 1 and 4; CP 4 answers late, with an error, so that the
 * result says whether the load waited for it.
 *
 *   ack2      CP 1 answers twice with success: its second answer must not
 *             stand for CP 4's, the load waits and fails with CP 4's error;
 *   ackdie    CP 1 answers and then exits: it is not lost "before
 *             answering", and the load still waits for CP 4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "grove/topology.h"
#include "helper_common.h"
#include "fake_child.h"
#include "tbon/proto.h"

/* ---- the fake child ----------------------------------------------------- */

static int
filter_ack(int fd, int32_t tag, uint32_t src, uint32_t ok, const char *err)
{
	const char *e[1] = {err};
	grove_packet *q = NULL;
	wire_pack(&q, WIRE_T_FILTER_ACK, 0, tag, src, 0, PROTO_FILTER_ACK, ok,
	    err ? e : (const char *const *)NULL, (uint64_t)(err ? 1 : 0));
	return fake_send(fd, q);
}

/* A CP's answer to a filter load. */
static int
cp_on_filter_load(const char *how, const boot *b, int fd, int32_t tag,
    uint32_t src)
{
	if (b->node != 1) {
		/* CP 4: slow, and fails, so that the result says whether
		 * the load waited for it. */
		sleep(1);
		return filter_ack(fd, tag, src, 0, "node 4: cannot load it here");
	}
	if (!strcmp(how, "ack2"))
		return filter_ack(fd, tag, src, 1, NULL) ||
		    filter_ack(fd, tag, src, 1, NULL);
	if (!strcmp(how, "ackdie")) {
		filter_ack(fd, tag, src, 1, NULL);
		_exit(0);
	}
	return 0;
}

static int
on_frame(fake_child *f, grove_packet *p, void *arg)
{
	if (wire_packet_hdr(p)->type != WIRE_T_FILTER_LOAD || !f->is_cp)
		return 0;
	return cp_on_filter_load(arg, &f->b, f->up.wfd,
	    wire_packet_hdr(p)->tag, f->src);
}

static int
fake_peer(const char *how)
{
	fake_child f;
	int rc = fake_join(&f);
	if (rc != 0)
		return rc;
	if (f.is_cp)
		rc = fake_send_ready(f.up.wfd, f.src, f.below, f.b.node, 1);
	if (rc == 0)
		fake_serve(&f, on_frame, (void *)how);
	fake_leave(&f);
	return 0;
}

/* ---- the test ----------------------------------------------------------- */

static char self_exe[4096];

static grove_net *
fake_net(const char *how, const char *topology, uint32_t backends)
{
	it_step("--- %s: %s, %u back-ends", how, topology, backends);
	setenv(FAKE_ENV, how, 1);
	grove_net_opts o;
	it_net_opts(&o, topology, backends);
	o.commnode_exe = self_exe;
	return it_net_create(&o);
}

static void
fake_done(grove_net *net)
{
	it_net_destroy(net);
	unsetenv(FAKE_ENV);
}

/* The load must wait for CP 4 and fail with its error, and only with it. */
static void
load_waits_for_cp4(const char *how)
{
	grove_net *net = fake_net(how, "kary:2", 4);
	char lib[512];
	it_build_path("filter_intmaxloc.so", lib, sizeof lib);
	int rc = grove_net_load_filter(net, "intmaxloc", lib, "intmaxloc");
	it_step("%s: %s", grove_err_name(rc), grove_net_last_error(net));
	CHECK_INT_EQ(rc, GROVE_EFILTER);
	const char *err = grove_net_last_error(net);
	CHECK_STR_CONTAINS(err, "on 1 of 3 node(s)");
	CHECK_STR_CONTAINS(err, "node 4: cannot load it here");
	CHECK(strstr(err, "lost before answering") == NULL);
	fake_done(net);
}

/* With an argument, only the case of that name runs. */
static int
want(int argc, char **argv, const char *how)
{
	return argc < 2 || strcmp(argv[1], how) == 0;
}

int
main(int argc, char **argv)
{
	const char *how = getenv(FAKE_ENV);
	if (how)
		return fake_peer(how);
	it_init("it_filter_acks", 240);
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	CHECK(n > 0);
	self_exe[n] = '\0';

	if (want(argc, argv, "ack2"))
		load_waits_for_cp4("ack2");
	if (want(argc, argv, "ackdie"))
		load_waits_for_cp4("ackdie");
	return it_done();
}
