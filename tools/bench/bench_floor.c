/* grove bench floor: what this machine's kernel charges for the micro-
 * benchmark's communication pattern, with no Grove code in the way.
 *
 * The round trip of `grove bench micro` wakes every process of the tree at
 * least once, and on a small shared machine a wake-up costs far more than
 * Grove's own work.  To tell the two apart, this benchmark builds the same
 * tree (same topology module, same fan-outs) out of bare processes: each
 * is fork()ed by its parent, talks to it over two pipes (the transport of
 * Grove's links between a node and the children it starts on its host),
 * and runs the loop Grove's processes run at best: epoll_wait, read,
 * write.  A message is 40 bytes, the size of Grove's packet of one int.
 * A node forwards a message from its parent to all its children; a leaf
 * answers it; a node answers its parent once all its children answered.
 *
 * It reports, measured now on this machine:
 *   fork_tree_s   the tree forked (no exec) until every leaf has reported
 *                 through it: the least an instantiation could cost
 *                 without starting programs
 *   spawn_s       starting and reaping as many trivial programs
 *                 (/bin/true) as the tree has processes, from one parent:
 *                 the price of exec that every real instantiation pays
 *   roundtrip_s   mean of R round trips (min, median too), the floor for
 *                 `grove bench micro`'s round trip on the same topology
 *
 * Clean-up: every process exits at EOF from its parent and has
 * PR_SET_PDEATHSIG, so a killed bench leaves nothing behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_floor.h"
#include "../bench_stats.h"
#include "../cli_opts.h"
#include "grove/grove.h"
#include "net/cpu_share.h"
#include "../toolutil.h"

extern char **environ;

#define FLOOR_MSG 40        /* bytes of Grove's packet of one int */
#define FLOOR_WARMUP 5
#define FLOOR_UP UINT32_MAX /* epoll tag of the parent's link */

/* One link: this process reads rd and writes wr. */
typedef struct floor_link {
	int rd, wr;
} floor_link;

typedef struct floor_cfg {
	const char *spec;
	const char *file;   /* --file: an MRNet topology file, else NULL */
	unsigned backends;
	int rt_iters;
	int bind; /* --cpu-bind subtree */
} floor_cfg;

typedef struct floor_res {
	uint32_t procs, cps, depth;
	double fork_tree_s, spawn_s;
	double rt_mean_s, rt_min_s, rt_median_s, rt_max_s;
} floor_res;

/* Writes all of buf, or fails. */
static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The event loop of one process of the tree.  A message from the parent
 * goes to every child (a leaf answers it at once); once as many messages
 * arrived from the children as there are children, one goes up.  A leaf
 * sends one message when it starts, so the first wave tells the root the
 * tree is up.  Never returns. */
static void
node_loop(floor_link up, const floor_link *kids, uint32_t nkids)
{
	char msg[FLOOR_MSG] = {0};
	char buf[4096];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		_exit(1);
	struct epoll_event e = {.events = EPOLLIN, .data.u32 = FLOOR_UP};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, up.rd, &e) < 0)
		_exit(1);
	for (uint32_t i = 0; i < nkids; i++) {
		e.data.u32 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, kids[i].rd, &e) < 0)
			_exit(1);
	}
	if (nkids == 0 && write_all(up.wr, msg, sizeof msg) < 0)
		_exit(1);
	size_t down_bytes = 0, up_bytes = 0;
	for (;;) {
		struct epoll_event ev[64];
		int n = epoll_wait(ep, ev, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			_exit(1);
		for (int j = 0; j < n; j++) {
			uint32_t id = ev[j].data.u32;
			int fd = id == FLOOR_UP ? up.rd : kids[id].rd;
			ssize_t r = read(fd, buf, sizeof buf);
			if (r <= 0)
				_exit(0); /* a parent or child is gone */
			if (id != FLOOR_UP) {
				up_bytes += (size_t)r;
				while (up_bytes >= (size_t)nkids * FLOOR_MSG) {
					up_bytes -= (size_t)nkids * FLOOR_MSG;
					if (write_all(up.wr, msg, sizeof msg) < 0)
						_exit(0);
				}
				continue;
			}
			for (down_bytes += (size_t)r; down_bytes >= FLOOR_MSG;
			    down_bytes -= FLOOR_MSG) {
				if (nkids == 0 &&
				    write_all(up.wr, msg, sizeof msg) < 0)
					_exit(0);
				for (uint32_t i = 0; i < nkids; i++)
					if (write_all(kids[i].wr, msg,
					    sizeof msg) < 0)
						_exit(0);
			}
		}
	}
}

static void
link_close(floor_link *l)
{
	if (l->rd >= 0)
		close(l->rd);
	if (l->wr >= 0)
		close(l->wr);
	l->rd = l->wr = -1;
}

/* Forks the children of node id, each with two pipes to this process;
 * fills kids[] with this side's ends.  In a child it never returns: it
 * forks its own subtree and runs node_loop.  *inherited (may be NULL) is
 * the link to this process's parent, which a child must not keep
 * (otherwise EOF would not reach a process whose parent died).  bind: each
 * child gets its share of this process's CPUs, as Grove's
 * GROVE_CPU_BIND_SUBTREE gives it. */
static int fork_children(const grove_topo *t, uint32_t id, floor_link *kids,
    floor_link *inherited, int bind);

static void
become_node(const grove_topo *t, uint32_t id, floor_link up, int bind)
{
	const grove_topo_node *nd = grove_topo_node_at(t, id);
	floor_link *kids = calloc(nd->n_children ? nd->n_children : 1,
	    sizeof *kids);
	if (!kids || fork_children(t, id, kids, &up, bind) < 0)
		_exit(1);
	node_loop(up, kids, nd->n_children);
}

static int
fork_children(const grove_topo *t, uint32_t id, floor_link *kids,
    floor_link *inherited, int bind)
{
	const grove_topo_node *nd = grove_topo_node_at(t, id);
	const uint32_t *ch = grove_topo_children(t, id);
	pid_t self = getpid();
	cpu_set_t mine;
	if (bind && sched_getaffinity(0, sizeof mine, &mine) != 0)
		bind = 0;
	for (uint32_t i = 0; i < nd->n_children; i++) {
		int down[2], up[2];
		if (pipe2(down, O_CLOEXEC) < 0)
			return -1;
		if (pipe2(up, O_CLOEXEC) < 0) {
			close(down[0]);
			close(down[1]);
			return -1;
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(down[0]);
			close(down[1]);
			close(up[0]);
			close(up[1]);
			return -1;
		}
		if (pid == 0) {
			/* Dies with its parent even if the parent is killed
			 * before the EOF could tell it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			close(down[1]);
			close(up[0]);
			for (uint32_t k = 0; k < i; k++)
				link_close(&kids[k]);
			if (inherited)
				link_close(inherited);
			cpu_set_t share;
			if (bind && cpu_share_of(&mine, nd->n_children, i,
			    &share) > 0)
				sched_setaffinity(0, sizeof share, &share);
			become_node(t, ch[i], (floor_link){down[0], up[1]}, bind);
		}
		close(down[0]);
		close(up[1]);
		kids[i] = (floor_link){up[0], down[1]};
	}
	return 0;
}

/* Reads from the root's children until `want` messages arrived in all. */
static int
root_collect(int ep, const floor_link *kids, uint32_t want)
{
	char buf[4096];
	size_t got = 0;
	while (got < (size_t)want * FLOOR_MSG) {
		struct epoll_event ev[64];
		int n = epoll_wait(ep, ev, 64, 60000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (int j = 0; j < n; j++) {
			ssize_t r = read(kids[ev[j].data.u32].rd, buf,
			    sizeof buf);
			if (r <= 0)
				return -1;
			got += (size_t)r;
		}
	}
	return 0;
}

/* Starts and reaps n trivial programs from this process: the cost of
 * fork+exec+exit on this machine, without any program of Grove's. */
static int
spawn_trivial(uint32_t n, double *secs)
{
	char *argv[] = {"true", NULL};
	double t0 = tool_now();
	uint32_t started = 0;
	int rc = 0;
	for (; started < n; started++) {
		pid_t pid;
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv,
		    environ) != 0) {
			rc = -1;
			break;
		}
	}
	for (uint32_t i = 0; i < started; i++)
		while (wait(NULL) < 0 && errno == EINTR)
			;
	*secs = tool_now() - t0;
	return rc;
}

static int
floor_run(const floor_cfg *c, floor_res *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	grove_topo *t = NULL;
	if (c->file ? grove_topo_parse_file(c->file, &t, err, errlen) != 0 :
	    grove_topo_generate(c->spec, c->backends, NULL, &t, err,
	    errlen) != 0)
		return -1;
	r->procs = grove_topo_size(t) - 1;
	r->cps = r->procs - grove_topo_backends(t);
	r->depth = grove_topo_depth(t);

	if (spawn_trivial(r->procs, &r->spawn_s) < 0) {
		snprintf(err, errlen, "cannot start /bin/true: %s",
		    strerror(errno));
		grove_topo_destroy(t);
		return -1;
	}

	const grove_topo_node *root = grove_topo_node_at(t, 0);
	uint32_t k = root->n_children;
	floor_link *kids = calloc(k ? k : 1, sizeof *kids);
	double *rt = calloc((size_t)c->rt_iters, sizeof *rt);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int rc = -1;
	if (!kids || !rt || ep < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < k; i++)
		kids[i] = (floor_link){-1, -1};
	double t0 = tool_now();
	if (fork_children(t, 0, kids, NULL, c->bind) < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto out;
	}
	for (uint32_t i = 0; i < k; i++) {
		struct epoll_event e = {.events = EPOLLIN, .data.u32 = i};
		epoll_ctl(ep, EPOLL_CTL_ADD, kids[i].rd, &e);
	}
	if (root_collect(ep, kids, k) < 0) {
		snprintf(err, errlen, "the process tree did not come up");
		goto out;
	}
	r->fork_tree_s = tool_now() - t0;

	char msg[FLOOR_MSG] = {0};
	for (int it = -FLOOR_WARMUP; it < c->rt_iters; it++) {
		double a = tool_now();
		for (uint32_t i = 0; i < k; i++)
			if (write_all(kids[i].wr, msg, sizeof msg) < 0)
				goto lost;
		if (root_collect(ep, kids, k) < 0)
			goto lost;
		if (it >= 0)
			rt[it] = tool_now() - a;
	}
	double sum = 0;
	for (int i = 0; i < c->rt_iters; i++)
		sum += rt[i];
	r->rt_mean_s = sum / c->rt_iters;
	bench_dist d = bench_dist_of(rt, (size_t)c->rt_iters);
	r->rt_min_s = d.min;
	r->rt_median_s = d.median;
	r->rt_max_s = d.max;
	rc = 0;
	goto out;
lost:
	snprintf(err, errlen, "a process of the tree is gone");
out:
	/* Closing the root's pipes ends the whole tree: every process exits
	 * at EOF from its parent and closes its children in turn. */
	if (kids)
		for (uint32_t i = 0; i < k; i++)
			link_close(&kids[i]);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	if (ep >= 0)
		close(ep);
	free(kids);
	free(rt);
	grove_topo_destroy(t);
	return rc;
}

#define FLOOR_CMD "grove bench floor"

static int
floor_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench floor [-t SPEC | -f FILE] [-b N] "
	    "[--rt-iters R] [-j]\n"
	    "                         [--cpu-bind none|subtree]\n"
	    "\n"
	    "The micro-benchmark's pattern on bare processes (fork, pipes, "
	    "epoll,\n"
	    "40-byte messages; no Grove code): the floor this machine "
	    "puts\n"
	    "under `grove bench micro` right now.  Reports the time to fork "
	    "the tree,\n"
	    "to start as many trivial programs (/bin/true), and the round "
	    "trip\n"
	    "(mean of R, default 200, after %d warm-ups).  Defaults: kary:8, "
	    "64 back-ends.\n"
	    "--cpu-bind subtree: every subtree keeps to its share of the "
	    "CPUs, as\n"
	    "grove_net_opts.cpu_bind gives it to a network.\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (1..65536)\n"
	    "      --rt-iters R     round trips to time (1..100000000)\n"
	    "      --cpu-bind none|subtree  default none\n"
	    "  -j, --json           one JSON object\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 a bad tree or the process tree failed (said "
	    "on standard\nerror), 2 usage error.\n", FLOOR_WARMUP);
	return f == stdout ? 0 : 2;
}

enum { OPT_RT_ITERS = 256, OPT_CPU_BIND };

/* -1 to go on; else the exit status (0 after --help). */
static int
floor_parse(int argc, char **argv, floor_cfg *c, int *json)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_JSON,
		CLI_OPT_HELP,
		{"rt-iters", required_argument, NULL, OPT_RT_ITERS},
		{"cpu-bind", required_argument, NULL, OPT_CPU_BIND},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->spec, .backends = c->backends};
	int ch, rc;

	optind = 1;
	opterr = 0;
	/* argv + 1: argv[1] is the benchmark's name. */
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(FLOOR_CMD, ch, optarg, 65536, &t, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (ch) {
		case 'j':
			*json = 1;
			break;
		case 'h':
			return floor_usage(stdout);
		case OPT_CPU_BIND:
			if (strcmp(optarg, "none") && strcmp(optarg, "subtree"))
				return tool_usage_error(FLOOR_CMD, "--cpu-bind "
				    "wants none or subtree, not", optarg);
			c->bind = optarg[0] == 's';
			break;
		case OPT_RT_ITERS: {
			long x = tool_parse_count(optarg, 100000000);
			if (x < 0)
				return tool_count_error(FLOOR_CMD, "--rt-iters",
				    optarg, 100000000);
			c->rt_iters = (int)x;
			break;
		}
		default:
			return cli_opt_error(FLOOR_CMD, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(FLOOR_CMD, "unexpected argument",
		    argv[optind + 1]);
	rc = cli_tree_resolve(FLOOR_CMD, &t, 65536);
	c->spec = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	return rc ? rc : -1;
}

int
bench_floor(int argc, char **argv)
{
	floor_cfg c = {.spec = "kary:8", .backends = 64, .rt_iters = 200};
	int json = 0;
	int rc = floor_parse(argc, argv, &c, &json);
	if (rc >= 0)
		return rc;
	/* The tree as the output names it: the file, else the spec. */
	const char *tree = c.file ? c.file : c.spec;
	tool_raise_nofile();
	floor_res r;
	char err[512];
	if (floor_run(&c, &r, err, sizeof err) < 0) {
		fprintf(stderr, "grove bench floor (%s, %u back-ends): %s\n",
		    tree, c.backends, err);
		return 1;
	}
	if (json) {
		printf("{\"topology\": ");
		tool_json_str(tree);
		printf(", \"backends\": %u, \"cps\": %u, \"depth\": %u"
		    ", \"processes\": %u, \"fork_tree_s\": %.6f"
		    ", \"spawn_s\": %.6f, \"roundtrip_s\": %.9f"
		    ", \"roundtrip_min_s\": %.9f, \"roundtrip_median_s\": %.9f"
		    ", \"roundtrip_max_s\": %.9f, \"rt_iters\": %d"
		    ", \"cpu_bind\": \"%s\"",
		    c.backends, r.cps, r.depth, r.procs, r.fork_tree_s,
		    r.spawn_s, r.rt_mean_s, r.rt_min_s, r.rt_median_s,
		    r.rt_max_s, c.rt_iters, c.bind ? "subtree" : "none");
		tool_json_machine();
		printf("}\n");
		return 0;
	}
	printf("grove bench floor: topology %s, %u back-ends (%u processes, "
	    "depth %u), bare processes%s\n", tree, c.backends, r.procs,
	    r.depth, c.bind ? ", subtrees bound to CPUs" : "");
	printf("  fork the tree   %10.2f ms\n", r.fork_tree_s * 1e3);
	printf("  spawn %u x true %8.2f ms\n", r.procs, r.spawn_s * 1e3);
	printf("  round trip      %10.3f ms   mean of %d (min %.3f, median "
	    "%.3f, max %.3f)\n", r.rt_mean_s * 1e3, c.rt_iters,
	    r.rt_min_s * 1e3, r.rt_median_s * 1e3, r.rt_max_s * 1e3);
	return 0;
}
