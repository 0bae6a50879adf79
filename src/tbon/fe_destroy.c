/* Front-end API: shutting a network down (grove_net_destroy): the
 * children told to leave and waited for, the trace collected, what the
 * network left in /dev/shm and on disk removed; or, in a forked copy of
 * the creator, only this process's copies closed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/trace.h"
#include "net/exit_wait.h"
#include "net/sockio.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"
#include "tbon/segment.h"
#include "trace/align.h"
#include "trace/owner.h"
#include "trace/space.h"
#include "trace/trace_impl.h"


/* Remove the event spaces of a network that were kept for collection,
 * except keep_name: the process's own space while another user (a second
 * network, a back-end) still records into it.  Only this user's files: a
 * file of that name made by another user (the network id is not secret)
 * is left alone, even by root, and named unless `quiet` (a collection
 * named it already). */
static void
remove_segments(const char *netid, const char *keep_name, int quiet)
{
	char prefix[64];
	int pl = snprintf(prefix, sizeof prefix, "grove.%s.", netid);
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)pl) ||
		    !strcmp(e->d_name, keep_name))
			continue;
		char why[200];
		int mine = trace_owner_check_at(dirfd(d), e->d_name, why,
		                                sizeof why);
		if (mine > 0)
			unlinkat(dirfd(d), e->d_name, 0);
		else if (mine == 0 && !quiet)
			log_warn("trace: left /dev/shm/%s: it %s", e->d_name,
			         why);
	}
	closedir(d);
}

/* Children still connected when the wait for them ended are killed:
 * say which, and that their event spaces (and those of the processes
 * below them) may be missing from a trace collected now. */
static void
warn_children_left(const node *n, int collecting)
{
	for (uint32_t i = 0; i < n->n_children; i++) {
		const node_child *ch = &n->children[i];
		if (!ch->c)
			continue;
		char who[128];
		node_describe_child(n, ch, who, sizeof who);
		log_warn("%s did not leave in time; killed%s", who, collecting ?
		    ": the event spaces of its subtree may be missing" : "");
	}
}

/* Shut the network down: tell the children, wait for them (killing the
 * late ones), finish this process's share of the event space, export it
 * if asked, and remove what the network left in /dev/shm and on disk. */
static void
net_shutdown(grove_net *net)
{
	node *n = &net->n;
	const char *dump = getenv("GROVE_TRACE_DUMP");
	const char *stats = getenv("GROVE_TRACE_STATS");
	if (n->loop_ready) {
		fe_ctl_close(net);
		/* When the traces are collected, processes on other hosts send
		 * their event spaces up with their last message. */
		grove_packet *bye = NULL;
		if ((dump && *dump) || (stats && *stats)) {
			/* Before the event spaces leave their hosts. */
			fe_trace_offsets_measure(net, FE_TRACE_SKEW_MS);
			char host[256] = "";
			gethostname(host, sizeof host - 1);
			const char *ship = getenv("GROVE_TRACE_SHIP");
			wire_pack(&bye, WIRE_T_SHUTDOWN, 0, PROTO_SHUTDOWN_SHIP, n->rank,
			    0, PROTO_SHUTDOWN, host,
			    (int32_t)(ship && !strcmp(ship, "all")));
		}
		int collecting = bye != NULL;
		node_shutdown_children(n, bye);
		grove_packet_unref(bye);
		/* The children leave once their subtrees have; event spaces
		 * shipped home can take a while, so the wait goes on while
		 * bytes arrive (exit_wait.h).  A child that has exited is
		 * reaped at once: a process it forked may hold its link open,
		 * and no bytes would come. */
		struct exit_wait w;
		exit_wait_start(&w, sockio_now_ms(), node_link_bytes(n));
		while (node_children_connected(n) > 0 &&
		    exit_wait_idle(&w, sockio_now_ms(), node_link_bytes(n)) <=
		    EXIT_WAIT_IDLE_MS) {
			fe_run(net, 50);
			node_reap_exited(n);
		}
		/* Children that did not leave within the grace period die. */
		if (node_children_connected(n) > 0)
			warn_children_left(n, collecting);
		node_reap_children_wait(n, node_children_connected(n) ? 0 :
		    EXIT_WAIT_CHILD_GRACE_MS);
	} else {
		fe_ctl_unbind(net); /* a create that failed early */
	}
	/* Our own event space must be final before it is read (when this
	 * network is its last user; otherwise it is read as it stands). */
	char space[128] = "";
	int closed = net->trace_joined ?
	    trace_space_release(1, space, sizeof space) : 0;
	char live[128] = "";
	if (!closed && trace_space_name(live, sizeof live) != 0)
		live[0] = 0;
	/* The space this front-end recorded into: the process's, which is
	 * named after whoever opened it first (a tool's own
	 * grove_trace_init, another network) and then is none of this
	 * network's segments.  The collection takes it by name as well;
	 * when it is this network's own, that changes nothing. */
	const char *own = !net->trace_joined ? NULL : closed ? space : live;
	if (own && !own[0])
		own = NULL;
	if (dump && *dump) {
		const char *fmt = getenv("GROVE_TRACE_FORMAT");
		if (trace_collect_and_export(net->netid, own, fmt && *fmt ? fmt :
		    "perfetto", dump) != 0)
			log_warn("trace export to %s failed", dump);
	}
	if (stats && *stats)
		trace_stats_write(net->netid, own, stats,
		    getenv("GROVE_TRACE_STATS_JSON") != NULL);
	if ((dump && *dump) || (stats && *stats))
		fe_trace_missing_report(net, own);
	if (net->connect_file[0])
		unlink(net->connect_file);
	/* The event spaces of the whole network go away with it, including
	 * those of children that were killed before they could clean up,
	 * but not the process's space while another user records into it
	 * (live).  The last user removes that space, whichever network
	 * named it.  Another user's files are left (named unless the
	 * collection above named them already). */
	remove_segments(net->netid, live,
	                (dump && *dump) || (stats && *stats));
	if (closed && space[0])
		shm_unlink(space);
}

/* In a process forked from the creator, the network's sockets, pids and
 * files are the creator's: close this process's copies of the descriptors
 * and nothing else (no SHUTDOWN, no kill, no file removed).  The libuv
 * loop's epoll instance is shared with the creator too, so it is renewed
 * first: closing the handles would otherwise take the creator's sockets
 * out of the creator's epoll set. */
static void
net_forget(grove_net *net)
{
	node *n = &net->n;
	if (!n->loop_ready) {
		fe_ctl_unbind(net); /* a create that failed early */
		return;
	}
	fe_ctl *ctl = &net->ctl;
	if (uv_loop_fork(&n->loop) != 0) {
		/* Without a loop of its own the copy cannot be closed safely:
		 * its memory and descriptors stay until the process exits. */
		n->loop_ready = 0;
		ctl->open = 0;
		return;
	}
	if (ctl->open) {
		for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++)
			if (ctl->cl[i].state != FE_CTL_FREE && ctl->cl[i].fd >= 0)
				close(ctl->cl[i].fd);
		close(ctl->lfd);
		ctl->lfd = -1;
		ctl->open = 0;
	} else {
		fe_ctl_unbind(net); /* bound, never served */
	}
}

void
grove_net_destroy(grove_net *net)
{
	if (!net)
		return;
	node *n = &net->n;
	/* Callbacks would see a network half taken down. */
	net->destroying = 1;
	if (net->creator == getpid())
		net_shutdown(net);
	else
		net_forget(net);
	for (grove_stream *s = net->streams, *next; s; s = next) {
		next = s->next;
		pktq_fini(&s->q);
		wave_note_unref(s->whole);
		free(s->members);
		free(s);
	}
	pktq_fini(&net->p2p);
	seg_model_free(net->seg_model);
	waitfd_fini(&net->wfd);
	if (n->loop_ready)
		node_fini(n);
	else
		grove_topo_destroy(net->topo);
	boot_fini(&net->b);
	free(net->all.ranks);
	free(net->events);
	free(net->cb_events);
	free(net->be_state);
	free(net->trace_pending);
	free(net->node_lost);
	free(net->node_parent);
	trace_fe_offsets_free(net->trace_offsets);
	fe_filters_free(net);
	free(net);
}
