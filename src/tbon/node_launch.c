/* Starting a node's children and watching them come up (internal). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "grove/error.h"
#include "net/boot.h"
#include "net/cpu_share.h"
#include "net/fd_budget.h"
#include "net/sockio.h"
#include "net/spawn.h"
#include "tbon/node.h"
#include "tbon/proto.h"
#include "trace/space.h"

static const char *
role_name(grove_node_role r)
{
	return r == GROVE_ROLE_BE ? "be" : r == GROVE_ROLE_CP ? "cp" : "fe";
}

/* "node 12 (be rank 5 on localhost)" */
void
node_describe_child(const node *n, const node_child *ch, char *out, size_t len)
{
	if (ch->role == GROVE_ROLE_BE)
		snprintf(out, len, "node %u (be rank %u on %s)", ch->node_id,
		    ch->be_lo, ch->host);
	else
		snprintf(out, len, "node %u (cp for ranks %u..%u on %s)", ch->node_id,
		    ch->be_lo, ch->be_hi ? ch->be_hi - 1 : 0, ch->host);
}

void
node_describe_id(const node *n, uint32_t id, char *out, size_t len)
{
	const grove_topo_node *k = grove_topo_node_at(n->topo, id);
	if (!k) {
		snprintf(out, len, "node %u", id);
		return;
	}
	node_child ch = {.node_id = k->id, .role = k->role, .be_lo = k->be_lo,
	    .be_hi = k->be_hi, .host = k->host};
	node_describe_child(n, &ch, out, len);
}

void
node_launch_fail(node *n, const char *msg)
{
	if (n->launch_failed)
		return;
	n->launch_failed = 1;
	snprintf(n->launch_error, sizeof n->launch_error, "%s", msg);
	log_error("%s", msg);
}

/* The two pipes of a link to a local child: it reads child_r and writes
 * child_w; this process reads mine_r and writes mine_w.  All close-on-
 * exec and at least 3 (the child finds them by number in its bootstrap,
 * and 0-2 are its standard streams); -1 when not used. */
typedef struct child_pipes {
	int child_r, child_w, mine_r, mine_w;
} child_pipes;

static void
child_pipes_close(child_pipes *cp)
{
	int *fds[4] = {&cp->child_r, &cp->child_w, &cp->mine_r, &cp->mine_w};
	for (int i = 0; i < 4; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* A descriptor moved to 3 or above (a process may run with 0-2 closed). */
static int
above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return d;
}

static void
child_pipes_open(child_pipes *cp, int want)
{
	int down[2], up[2];
	cp->child_r = cp->child_w = cp->mine_r = cp->mine_w = -1;
	if (!want || pipe2(down, O_CLOEXEC) != 0)
		return;
	if (pipe2(up, O_CLOEXEC) != 0) {
		close(down[0]);
		close(down[1]);
		return;
	}
	cp->child_r = above_stdio(down[0]);
	cp->mine_w = above_stdio(down[1]);
	cp->mine_r = above_stdio(up[0]);
	cp->child_w = above_stdio(up[1]);
	if (cp->child_r < 0 || cp->child_w < 0 || cp->mine_r < 0 ||
	    cp->mine_w < 0)
		child_pipes_close(cp);
}

/* Whether this process starts child k itself on its own host: not a
 * remote child, and not a BE of an attach-mode network. */
static int
started_here(const grove_topo_node *k, int attach)
{
	return spawn_host_is_local(k->host) &&
	    !(attach && k->role == GROVE_ROLE_BE);
}

/* Subtree binding (GROVE_CPU_BIND_SUBTREE): each child started here gets
 * its share of our CPUs, by its place among those children in topology
 * order.  The CPs that node_fork_local_cps copies and the children that
 * node_launch_children starts walk the same children in the same order,
 * so both hand out the same shares. */
typedef struct cpu_plan {
	int on;          /* 0: every child keeps our CPUs */
	cpu_set_t mine;
	uint32_t nlocal; /* children started here */
	uint32_t next;   /* the next one's place among them */
} cpu_plan;

static void
cpu_plan_init(cpu_plan *p, int bind, const grove_topo *topo, uint32_t id,
    int attach)
{
	p->on = 0;
	p->nlocal = p->next = 0;
	if (!bind || sched_getaffinity(0, sizeof p->mine, &p->mine) != 0)
		return;
	const grove_topo_node *me = grove_topo_node_at(topo, id);
	const uint32_t *kids = grove_topo_children(topo, id);
	for (uint32_t i = 0; i < me->n_children; i++)
		p->nlocal += (uint32_t)started_here(grove_topo_node_at(topo,
		    kids[i]), attach);
	p->on = p->nlocal > 0;
}

/* The CPUs of child k, the next child in topology order (call it for
 * every child, in order); NULL: it keeps ours. */
static const cpu_set_t *
cpu_plan_next(cpu_plan *p, const grove_topo_node *k, int attach,
    cpu_set_t *out)
{
	if (!p->on || !started_here(k, attach))
		return NULL;
	uint32_t place = p->next++;
	return cpu_share_of(&p->mine, p->nlocal, place, out) > 0 ? out : NULL;
}

/* ", CPUs 0-3" for a log line, or "" for a child that keeps ours. */
static void
cpus_suffix(const cpu_set_t *cpus, char *out, size_t len)
{
	out[0] = 0;
	if (cpus && len > 8) {
		memcpy(out, ", CPUs ", 8);
		cpu_set_text(cpus, out + 7, len - 7);
	}
}

/* Largest margin between a node's launch window and a child CP's: with
 * the default 30 s the levels get 25, 20, 15 s...; more would only shorten
 * the windows of deep CPs for nothing. */
#define CHILD_LAUNCH_MARGIN_MAX_MS 5000

int
node_child_launch_timeout(int parent_ms)
{
	if (parent_ms <= 1)
		return 1;
	int margin = parent_ms / 4;
	if (margin > CHILD_LAUNCH_MARGIN_MAX_MS)
		margin = CHILD_LAUNCH_MARGIN_MAX_MS;
	return parent_ms - margin;
}

/* Whether path is the program this process runs. */
static int
is_this_program(const char *path)
{
	struct stat a, b;
	return path && path[0] == '/' && stat(path, &a) == 0 &&
	    stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino;
}

/* Closes every descriptor above 2 but keep_a and keep_b (both > 2). */
static void
close_all_but(int keep_a, int keep_b)
{
	unsigned lo = (unsigned)(keep_a < keep_b ? keep_a : keep_b);
	unsigned hi = (unsigned)(keep_a < keep_b ? keep_b : keep_a);
	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0u, 0);
}

int
node_fork_local_cps(const grove_topo *topo, boot *b, node_forked **out)
{
	*out = NULL;
	const grove_topo_node *me = grove_topo_node_at(topo, b->node);
	if (!me || me->n_children == 0 || b->local_link_socket ||
	    !is_this_program(b->commnode))
		return 0;
	const uint32_t *kids = grove_topo_children(topo, b->node);
	node_forked *forked = NULL;
	/* The copies' pipes stay open in this process for its launch, which
	 * counts them then; the limit may still rise in node_init, so this
	 * only errs towards a child that starts the usual way. */
	fd_budget fds;
	fd_budget_init(&fds);
	cpu_plan plan;
	cpu_plan_init(&plan, b->cpu_bind_subtree, topo, b->node, b->attach);
	for (uint32_t i = 0; i < me->n_children; i++) {
		const grove_topo_node *k = grove_topo_node_at(topo, kids[i]);
		cpu_set_t share;
		const cpu_set_t *cpus = cpu_plan_next(&plan, k, b->attach,
		    &share);
		if (k->role != GROVE_ROLE_CP || !spawn_host_is_local(k->host))
			continue;
		if (!forked && !(forked = calloc(me->n_children, sizeof *forked)))
			break; /* the children are spawned the usual way */
		child_pipes cp;
		child_pipes_open(&cp, fd_budget_pipes_fit(&fds,
		    me->n_children - i - 1));
		if (cp.child_r < 0)
			continue;
		fd_budget_take(&fds, 1);
		/* Nothing buffered twice: the copy would write it again. */
		fflush(NULL);
		pid_t parent = getpid();
		pid_t pid = fork();
		if (pid < 0) {
			child_pipes_close(&cp);
			continue;
		}
		if (pid == 0) {
			/* What spawn_child does for a local child.  The signal
			 * state is grove-commnode's own, which main() reset
			 * (spawn_signals_reset) and nothing has changed since:
			 * SIGPIPE ignored, nothing blocked, SIGTERM at default. */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != parent)
				_exit(1);
			close_all_but(cp.child_r, cp.child_w);
			free(forked);
			/* A placement hint, as for a started child. */
			if (cpus)
				sched_setaffinity(0, sizeof *cpus, cpus);
			b->timeout_ms = node_child_launch_timeout(b->timeout_ms);
			b->parent_node = b->node;
			b->node = k->id;
			b->rank = 0;
			b->parent_rfd = cp.child_r;
			b->parent_wfd = cp.child_w;
			b->parent_unix[0] = 0;
			b->parent_port = 0;
			return 1;
		}
		close(cp.child_r);
		close(cp.child_w);
		forked[i] = (node_forked){pid, cp.mine_r, cp.mine_w};
	}
	*out = forked;
	return 0;
}

/* A name that means this machine only to itself. */
static int
loopback_name(const char *h)
{
	return !strcmp(h, "localhost") || !strncmp(h, "127.", 4) ||
	    !strcmp(h, "::1");
}

/* The topology name of a node on every interface may be "localhost" (a
 * host list whose first line is the FE's own machine): a child on another
 * host would connect to itself. */
void
node_parent_name_for(const node *n, const char *my_host, const char *child_host,
    char *out, size_t len)
{
	const char *ph = my_host;
	if (strcmp(n->bind_addr, "0.0.0.0") && strcmp(n->bind_addr, "::"))
		ph = n->bind_addr;
	else if (loopback_name(my_host) &&
	    (!child_host || !spawn_host_is_local(child_host))) {
		char self[256] = "";
		struct addrinfo hints, *ai = NULL;
		memset(&hints, 0, sizeof hints);
		hints.ai_socktype = SOCK_STREAM;
		if (gethostname(self, sizeof self - 1) == 0 && self[0] &&
		    getaddrinfo(self, NULL, &hints, &ai) == 0) {
			freeaddrinfo(ai);
			snprintf(out, len, "%s", self);
			return;
		}
	}
	snprintf(out, len, "%s", ph);
}

int
node_launch_children(node *n, const boot *tmpl, char *err, size_t errlen)
{
	const grove_topo_node *me = grove_topo_node_at(n->topo, n->id);
	n->launch_deadline_ms = sockio_now_ms() + (uint64_t)tmpl->timeout_ms;
	cpu_plan plan;
	cpu_plan_init(&plan, tmpl->cpu_bind_subtree, n->topo, n->id, n->attach);
	const uint32_t *kids = grove_topo_children(n->topo, n->id);
	fd_budget fds;
	fd_budget_init(&fds);
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		cpu_set_t share;
		const cpu_set_t *cpus = cpu_plan_next(&plan,
		    grove_topo_node_at(n->topo, kids[i]), n->attach, &share);
		if (n->attach && ch->role == GROVE_ROLE_BE) {
			fd_budget_take(&fds, 0); /* it connects to us */
			continue;
		}
		node_forked *fk = n->forked ? &n->forked[i] : NULL;
		if (fk && fk->pid > 0) {
			/* Its pipes were open, and counted, already. */
			ch->pid = fk->pid;
			int rc = node_adopt_child_pipes(n, fk->rfd, fk->wfd);
			fk->rfd = fk->wfd = -1;
			if (rc != 0) {
				char who[128];
				node_describe_child(n, ch, who, sizeof who);
				snprintf(err, errlen, "%s: cannot watch its pipes",
				    who);
				node_launch_fail(n, err);
				return rc;
			}
			char on[64];
			cpus_suffix(cpus, on, sizeof on);
			log_debug("forked cp node %u pid %d%s", ch->node_id,
			    (int)ch->pid, on);
			continue;
		}
		boot b = *tmpl;
		b.be_argc = 0;
		b.topology = NULL;
		b.node = ch->node_id;
		b.rank = ch->role == GROVE_ROLE_BE ? ch->be_lo : 0;
		/* A child CP must give up on its own children first, so
		 * that it, not we, names the ones that never came. */
		if (ch->role == GROVE_ROLE_CP)
			b.timeout_ms = node_child_launch_timeout(tmpl->timeout_ms);
		b.parent_port = n->port;
		b.parent_node = n->id;
		if (n->uname[0] && spawn_host_is_local(ch->host))
			snprintf(b.parent_unix, sizeof b.parent_unix, "%s", n->uname);
		else
			b.parent_unix[0] = 0;
		/* A local child's link is a pair of pipes made here, unless
		 * the network asked for sockets (grove_local_link); without
		 * them it connects to the socket: when pipes would leave too
		 * few descriptors for the children after it (fd_budget.h), or
		 * pipe2 fails. */
		child_pipes cp;
		child_pipes_open(&cp, spawn_host_is_local(ch->host) &&
		    !n->local_link_socket &&
		    fd_budget_pipes_fit(&fds, n->n_children - i - 1));
		fd_budget_take(&fds, cp.child_r >= 0);
		b.parent_rfd = cp.child_r;
		b.parent_wfd = cp.child_w;
		/* Same host, same CPU: spare the child its CPUIDs. */
		b.tsc_invariant = spawn_host_is_local(ch->host) ?
		    trace_tsc_known() : -1;
		/* The FE collects event spaces from its own host's /dev/shm
		 * only: a child on another host ships its own instead, and
		 * one it kept there would stay for good. */
		b.trace_keep = tmpl->trace_keep &&
		    spawn_host_is_local(ch->host);
		node_parent_name_for(n, me->host, ch->host, b.parent_host,
		    sizeof b.parent_host);
		char *text = NULL;
		size_t len = 0;
		int is_cp = ch->role == GROVE_ROLE_CP;
		if (is_cp) {
			b.be_argc = tmpl->be_argc;
			for (int a = 0; a < tmpl->be_argc; a++)
				b.be_argv[a] = tmpl->be_argv[a];
			b.topology = tmpl->topology;
		}
		int rc = boot_write(&b, is_cp, &text, &len);
		if (rc != 0) {
			child_pipes_close(&cp);
			snprintf(err, errlen, "out of memory");
			return rc;
		}
		char *cp_argv[2] = {(char *)tmpl->commnode, NULL};
		char **be_argv = NULL;
		if (!is_cp) {
			be_argv = calloc((size_t)tmpl->be_argc + 2, sizeof *be_argv);
			if (!be_argv) {
				child_pipes_close(&cp);
				free(text);
				return GROVE_ENOMEM;
			}
			be_argv[0] = (char *)tmpl->be_exe;
			for (int a = 0; a < tmpl->be_argc; a++)
				be_argv[a + 1] = tmpl->be_argv[a];
		}
		char why[600];
		int keep[2] = {cp.child_r, cp.child_w};
		spawn_local how = {keep, cp.child_r >= 0 ? 2 : 0, cpus};
		rc = spawn_child(ch->host, tmpl->rsh, is_cp ? tmpl->commnode :
		    tmpl->be_exe, is_cp ? cp_argv : be_argv, text, len,
		    n->launch_deadline_ms, &how, &ch->pid, why, sizeof why);
		free(text);
		free(be_argv);
		if (rc == 0 && cp.child_r >= 0) {
			/* The child holds its ends now; ours alone carry EOF. */
			close(cp.child_r);
			close(cp.child_w);
			cp.child_r = cp.child_w = -1;
			rc = node_adopt_child_pipes(n, cp.mine_r, cp.mine_w);
			cp.mine_r = cp.mine_w = -1;
			if (rc != 0)
				snprintf(why, sizeof why, "cannot watch its pipes");
		}
		child_pipes_close(&cp);
		if (rc != 0) {
			char who[128];
			node_describe_child(n, ch, who, sizeof who);
			/* A bare name failed on PATH: the copies beside Grove
			 * that were passed over say what to fix. */
			if (is_cp && n->commnode_refused[0] &&
			    spawn_host_is_local(ch->host))
				snprintf(err, errlen, "%s: %s (grove-commnode not "
				    "found: %s; set GROVE_COMMNODE to use another)",
				    who, why, n->commnode_refused);
			else
				snprintf(err, errlen, "%s: %s", who, why);
			node_launch_fail(n, err);
			return rc;
		}
		char on[64];
		cpus_suffix(cpus, on, sizeof on);
		log_debug("started %s node %u pid %d on %s%s", role_name(ch->role),
		    ch->node_id, (int)ch->pid, ch->host, on);
	}
	node_pending_restart_clock(n);
	return 0;
}

/* "process exited with status N" or "process killed by signal S". */
static void
exit_text(int st, char *out, size_t len)
{
	if (WIFEXITED(st))
		snprintf(out, len, "process exited with status %d",
		    WEXITSTATUS(st));
	else
		snprintf(out, len, "process killed by signal %d", WTERMSIG(st));
}

int
node_child_exit_status(node *n, uint32_t idx, char *out, size_t len)
{
	node_child *ch = &n->children[idx];
	if (ch->pid <= 0 || !spawn_host_is_local(ch->host))
		return 0;
	int st = 0;
	pid_t r;
	do
		r = waitpid(ch->pid, &st, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != ch->pid)
		return 0;
	ch->pid = 0;
	exit_text(st, out, len);
	return 1;
}

void
node_reap_exited(node *n)
{
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (ch->pid <= 0)
			continue;
		int st = 0;
		pid_t r = waitpid(ch->pid, &st, WNOHANG);
		/* ECHILD: the child is gone and someone else had its status
		 * (the tool ignores SIGCHLD, or its handler reaps every child). */
		int unknown = r < 0 && errno == ECHILD;
		if (r != ch->pid && !unknown)
			continue;
		ch->pid = 0;
		char who[128], msg[400];
		if (ch->state != CHILD_PENDING) {
			/* Its link closes when its last holder goes, which need
			 * not be it: a process it forked without exec (a daemon)
			 * keeps copies of its descriptors, and the loss would
			 * never be seen.  A remote child's pid is its remote
			 * shell's, whose exit says nothing certain of the child;
			 * an unknown status may be a process that is not ours
			 * (this is a forked copy of the FE): both are left to the
			 * link. */
			if (unknown || !ch->c || !spawn_host_is_local(ch->host))
				continue;
			exit_text(st, msg, sizeof msg);
			node_child_exited(n, i, msg);
			continue;
		}
		node_describe_child(n, ch, who, sizeof who);
		if (unknown)
			snprintf(msg, sizeof msg, "%s exited before connecting (its "
			    "status went to another waiter: is SIGCHLD ignored or "
			    "reaped by a handler?)", who);
		else if (WIFEXITED(st))
			/* ssh exits 255 for its own failures (unknown host,
			 * refused, no key): say so, the child never ran.  A CP
			 * of another protocol version refused its bootstrap:
			 * its own message may be on a remote host's stderr. */
			snprintf(msg, sizeof msg, "%s exited with status %d before "
			    "connecting%s", who, WEXITSTATUS(st),
			    WEXITSTATUS(st) == 255 && !spawn_host_is_local(ch->host) ?
			    " (the remote shell's own failure: is the host "
			    "reachable?)" : WEXITSTATUS(st) == BOOT_EXIT_PROTOCOL &&
			    ch->role == GROVE_ROLE_CP ? " (its grove-commnode "
			    "speaks another Grove protocol and refused the "
			    "bootstrap: install the same Grove version on every "
			    "host)" : "");
		else
			snprintf(msg, sizeof msg, "%s was killed by signal %d before "
			    "connecting", who, WTERMSIG(st));
		/* The first reason is kept; the other children are reaped
		 * all the same. */
		node_launch_fail(n, msg);
	}
}

int
node_check_launch(node *n)
{
	node_reap_exited(n);
	if (n->launch_failed)
		return 1;
	/* A child lost since is an event, not a launch that never ends. */
	if (n->launched)
		return 0;
	if (!node_children_ready(n) && n->launch_deadline_ms &&
	    sockio_now_ms() > n->launch_deadline_ms) {
		char msg[600];
		/* A CP says who it is: its report reaches the FE's error. */
		size_t o = n->id == 0 ? (size_t)snprintf(msg, sizeof msg,
		    "not up within %d ms:", n->timeout_ms) :
		    (size_t)snprintf(msg, sizeof msg, "node %u (cp on %s): "
		    "children not up within %d ms:", n->id,
		    grove_topo_node_at(n->topo, n->id)->host, n->timeout_ms);
		int shown = 0;
		for (uint32_t i = 0; i < n->n_children && o < sizeof msg - 80; i++) {
			node_child *ch = &n->children[i];
			if (ch->state == CHILD_READY || (n->attach &&
			    ch->role == GROVE_ROLE_BE))
				continue;
			char who[128];
			node_describe_child(n, ch, who, sizeof who);
			o += (size_t)snprintf(msg + o, sizeof msg - o, "%s %s%s",
			    shown ? "," : "", who, ch->state == CHILD_PENDING ?
			    " never connected" : " connected but its subtree is not "
			    "ready");
			shown++;
		}
		node_launch_fail(n, msg);
		return 1;
	}
	return 0;
}
