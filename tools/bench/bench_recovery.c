/* grove bench recovery: CPs of a running network are killed (SIGKILL)
 * one after another while every back-end streams packets up a sum
 * stream, and each loss is timed (docs/recovery.md):
 *
 *   reparented   the kill to the front-end's GROVE_EV_REPARENTED
 *   first wave   the kill to the first whole wave received after that
 *                event: the first made with the moved children
 *   stall        the longest gap between two waves from the kill to it
 *
 * Throughput (waves/s) is measured on a burst before the first loss and
 * on one after the last.  Every wave must hold every back-end once (its
 * sum and its account say so) and each burst must bring exactly its
 * waves: a loss or a repeat fails the benchmark.  With --seq the
 * back-ends number their packets and the stream concatenates them: every
 * wave must then hold each back-end's rank once with the wave's own
 * number, which tells a share that moved to another wave from one that
 * was lost or repeated (a sum cannot).
 */
#define _GNU_SOURCE /* strcasestr-free; dirent, kill */
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench_stats.h"
#include "../cli_opts.h"
#include "bench_recovery.h"
#include "grove/grove.h"
#include "../toolutil.h"
#include "proto/worker_protocol.h"

#define RECOVERY_CMD "grove bench recovery"
#define RECOVERY_RECV_MS 60000
#define MAX_KILLS 16

typedef struct recovery_cfg {
	const char *topology;
	const char *file;
	const char *hosts;
	unsigned backends, kills, waves;
	int json;
	uint32_t victim[MAX_KILLS]; /* --victims; n_victims 0: the plan */
	unsigned n_victims;
	int heartbeat_ms;           /* 0: the network's default */
	int stop;                   /* SIGSTOP instead of SIGKILL */
	const char *lose_cmd;       /* a command that loses the CP */
	int seq;                    /* numbered waves, checked rank by rank */
} recovery_cfg;

typedef struct loss {
	uint32_t node, parent, moved_be;
	double reparented_s, first_wave_s, stall_s;
	char text[512]; /* the event's text: why the CP was lost, who moved */
} loss;

typedef struct recovery_res {
	double inst_s;
	double before_wps, after_wps;
	loss l[MAX_KILLS];
	unsigned n;
} recovery_res;

static int
recovery_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench recovery [-t SPEC | -f FILE] [-b N] [-H FILE]\n"
	    "         [--kills K] [--waves W] [-j]\n"
	    "\n"
	    "Kills K CPs (default 3) of a network of N be_workers (default "
	    "512, kary:8)\none after another with SIGKILL, each while the "
	    "back-ends stream a burst of\nW waves (default 2000) up a sum "
	    "stream, and times each loss: the kill to\nthe front-end's "
	    "GROVE_EV_REPARENTED, to the first whole wave after it, and\nthe "
	    "longest stall of the stream; throughput before the first loss "
	    "and after\nthe last.  The victims: a CP above back-ends, then its "
	    "parent (whose\nchildren move to its own parent), then CPs of "
	    "other branches.\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (1..65536)\n"
	    "  -H, --hosts FILE     a host list (docs/hosts.md)\n"
	    "      --kills K        CPs killed (1..16)\n"
	    "      --victims N,...  the CP node ids to lose, in order, instead "
	    "of the plan\n"
	    "      --waves W        waves per burst (100..1000000)\n"
	    "      --heartbeat-ms MS  the network's heartbeat (a silent CP is "
	    "lost after 5)\n"
	    "      --stop           lose a CP by SIGSTOP (silent: found by the "
	    "heartbeat)\n"
	    "      --seq            numbered waves (a concat stream): each "
	    "must hold every\n"
	    "                       back-end's rank once with the wave's "
	    "number\n"
	    "      --lose-cmd CMD   lose a CP by running sh -c CMD, with "
	    "GROVE_LOST_NODE,\n"
	    "                       GROVE_LOST_HOST and GROVE_LOST_PID (empty "
	    "when not\n"
	    "                       found) set, e.g. cutting its host's link "
	    "in a test bed\n"
	    "  -j, --json           one JSON object (with the machine and "
	    "$GROVE_COMMIT)\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 the network, a loss or a wave failed (said "
	    "on standard\nerror), 2 usage error.\n");
	return f == stdout ? 0 : 2;
}

enum { OPT_KILLS = 256, OPT_WAVES, OPT_VICTIMS, OPT_HEARTBEAT, OPT_STOP,
	OPT_LOSE_CMD, OPT_SEQ };

/* --victims: node ids separated by commas, at most MAX_KILLS. */
static int
parse_victims(const char *v, recovery_cfg *c)
{
	const char *p = v;
	c->n_victims = 0;
	while (*p) {
		char *end = NULL;
		long x = strtol(p, &end, 10);
		if (end == p || x <= 0 || x > 0x7fffffffL ||
		    (*end && *end != ',') || c->n_victims == MAX_KILLS)
			return tool_usage_error(RECOVERY_CMD, "--victims wants CP "
			    "node ids (at most 16) separated by commas", v);
		c->victim[c->n_victims++] = (uint32_t)x;
		p = *end ? end + 1 : end;
	}
	return c->n_victims ? -1 : tool_usage_error(RECOVERY_CMD,
	    "--victims names no node", v);
}

/* -1 to go on; else the exit status (0 after --help). */
static int
parse(int argc, char **argv, recovery_cfg *c)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_HOSTS,
		CLI_OPT_JSON, CLI_OPT_HELP,
		{"kills", required_argument, NULL, OPT_KILLS},
		{"waves", required_argument, NULL, OPT_WAVES},
		{"victims", required_argument, NULL, OPT_VICTIMS},
		{"heartbeat-ms", required_argument, NULL, OPT_HEARTBEAT},
		{"stop", no_argument, NULL, OPT_STOP},
		{"lose-cmd", required_argument, NULL, OPT_LOSE_CMD},
		{"seq", no_argument, NULL, OPT_SEQ},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->topology, .backends = c->backends};
	int ch, rc;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:H:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(RECOVERY_CMD, ch, optarg, 65536, &t, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (ch) {
		case 'H':
			c->hosts = optarg;
			break;
		case 'j':
			c->json = 1;
			break;
		case 'h':
			return recovery_usage(stdout);
		case OPT_KILLS: {
			long x = tool_parse_count(optarg, MAX_KILLS);
			if (x < 0)
				return tool_count_error(RECOVERY_CMD, "--kills", optarg,
				    MAX_KILLS);
			c->kills = (unsigned)x;
			break;
		}
		case OPT_WAVES: {
			long x = tool_parse_count(optarg, 1000000);
			if (x < 100)
				return tool_usage_error(RECOVERY_CMD, "--waves wants a "
				    "number in 100..1000000", optarg);
			c->waves = (unsigned)x;
			break;
		}
		case OPT_VICTIMS:
			if ((rc = parse_victims(optarg, c)) >= 0)
				return rc;
			break;
		case OPT_HEARTBEAT: {
			long x = tool_parse_count(optarg, 3600000);
			if (x < 0)
				return tool_count_error(RECOVERY_CMD, "--heartbeat-ms",
				    optarg, 3600000);
			c->heartbeat_ms = (int)x;
			break;
		}
		case OPT_STOP:
			c->stop = 1;
			break;
		case OPT_LOSE_CMD:
			c->lose_cmd = optarg;
			break;
		case OPT_SEQ:
			c->seq = 1;
			break;
		default:
			return cli_opt_error(RECOVERY_CMD, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(RECOVERY_CMD, "unexpected argument",
		    argv[optind + 1]);
	if (c->stop && c->lose_cmd)
		return tool_usage_error(RECOVERY_CMD, "--stop and --lose-cmd "
		    "are two ways to lose a CP: give one", "--stop");
	rc = cli_tree_resolve(RECOVERY_CMD, &t, 65536);
	c->topology = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	return rc ? rc : -1;
}

/* ---- the victims --------------------------------------------------- */

/* A CP with CP children and, below its first one, the CP's first child
 * CP: both as the plan kills them (the child, then the parent whose
 * children then move up); then the first CP of each other branch below
 * the front-end, deepest first.  Up to cap ids into out. */
static unsigned
victims(const grove_topo *t, uint32_t *out, unsigned cap)
{
	unsigned k = 0;
	const grove_topo_node *fe = grove_topo_node_at(t, 0);
	const uint32_t *top = grove_topo_children(t, 0);
	for (uint32_t i = 0; i < fe->n_children && k < cap; i++) {
		const grove_topo_node *d = grove_topo_node_at(t, top[i]);
		if (d->role != GROVE_ROLE_CP)
			continue;
		const uint32_t *kids = grove_topo_children(t, d->id);
		uint32_t leaf = 0;
		for (uint32_t j = 0; j < d->n_children && !leaf; j++)
			if (grove_topo_node_at(t, kids[j])->role == GROVE_ROLE_CP)
				leaf = kids[j];
		if (leaf)
			out[k++] = leaf;
		if (i == 0 && k < cap)
			out[k++] = d->id;
	}
	return k;
}

/* The pid of CP node `node` of network netid on this machine: the
 * process that maps its event space /dev/shm/grove.<netid>.cp.<node>
 * (hosts of a test bed share this machine's processes); -1 if none. */
static pid_t
cp_pid(const char *netid, uint32_t node)
{
	char want[128];
	snprintf(want, sizeof want, "/grove.%s.cp.%u\n", netid, node);
	size_t wl = strlen(want);
	DIR *d = opendir("/proc");
	pid_t found = -1;
	struct dirent *e;
	while (d && found < 0 && (e = readdir(d))) {
		char *end = NULL;
		long pid = strtol(e->d_name, &end, 10);
		if (pid <= 0 || *end)
			continue;
		char path[64], line[1024];
		snprintf(path, sizeof path, "/proc/%ld/maps", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof line, f)) {
			size_t l = strlen(line);
			if (l >= wl && !strcmp(line + l - wl, want)) {
				found = (pid_t)pid;
				break;
			}
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* ---- the run ------------------------------------------------------- */

typedef struct run {
	grove_net *net;
	grove_stream *s;
	unsigned nbe;
	int32_t v;        /* this burst's value: a wave sums to v * nbe */
	int32_t next_seq; /* --seq: the number of the next wave */
	unsigned char *seen; /* --seq: ranks met in the wave being checked */
	char *err;
	size_t errlen;
	/* The event of the loss being timed, as the callback saw it: when,
	 * and the new parent; lost: a GROVE_EV_LOST came. */
	uint32_t victim;
	double t_event;
	uint32_t parent;
	char text[512];
	char lost[256];
	const recovery_cfg *c;
	pid_t stopped[MAX_KILLS]; /* resumed and ended at the end */
	unsigned n_stopped;
} run;

/* Called inside the Grove call whose loop pass brought the event: the
 * time is when the front-end had it, not when a receive returned. */
static void
on_event(grove_net *net, const grove_event *ev, void *arg)
{
	run *r = arg;
	(void)net;
	if (ev->type == GROVE_EV_LOST && !r->lost[0])
		snprintf(r->lost, sizeof r->lost, "%s", ev->text);
	if (ev->type == GROVE_EV_REPARENTED && ev->node == r->victim &&
	    !r->t_event) {
		r->t_event = tool_now();
		r->parent = ev->parent;
		snprintf(r->text, sizeof r->text, "%s", ev->text);
	}
}

static int
failed(run *r, const char *what, int rc)
{
	snprintf(r->err, r->errlen, "%s: %s: %s", what, grove_strerror(rc),
	    grove_net_last_error(r->net));
	return rc < 0 ? rc : GROVE_EPROTO;
}

/* --seq: wave p, expected to be number want, holds every rank once,
 * each with the value want. */
static int
check_numbered(run *r, const grove_packet *p, int32_t want)
{
	grove_item v, rk;
	if (grove_packet_nitems(p) != 2 || grove_packet_item(p, 0, &v) != 0 ||
	    grove_packet_item(p, 1, &rk) != 0 || !v.is_array || !rk.is_array ||
	    v.type != GROVE_T_INT32 || rk.type != GROVE_T_UINT32 ||
	    v.count != rk.count) {
		snprintf(r->err, r->errlen, "wave %d: not a concat result of "
		    "numbers and ranks (format \"%s\")", want,
		    grove_packet_format(p));
		return GROVE_EPROTO;
	}
	if (v.count != r->nbe) {
		snprintf(r->err, r->errlen, "wave %d: %llu shares, expected %u "
		    "(a share lost or delivered twice)", want,
		    (unsigned long long)v.count, r->nbe);
		return GROVE_EPROTO;
	}
	memset(r->seen, 0, r->nbe);
	for (uint64_t k = 0; k < v.count; k++) {
		int32_t x = ((const int32_t *)v.data)[k];
		uint32_t rank = ((const uint32_t *)rk.data)[k];
		if (rank >= r->nbe || r->seen[rank]) {
			snprintf(r->err, r->errlen, "wave %d: rank %u twice or out "
			    "of range", want, rank);
			return GROVE_EPROTO;
		}
		r->seen[rank] = 1;
		if (x != want) {
			snprintf(r->err, r->errlen, "wave %d: rank %u's share is "
			    "number %d (a wave skipped, repeated or mixed)", want,
			    rank, x);
			return GROVE_EPROTO;
		}
	}
	return 0;
}

/* Receives one wave: whole, of this burst. */
static int
one_wave(run *r, unsigned i)
{
	grove_packet *p = NULL;
	int32_t v = 0;
	uint32_t in = 0, all = 0;
	int rc = grove_stream_recv(r->s, NULL, &p, RECOVERY_RECV_MS);
	if (rc < 0)
		return failed(r, "receive", rc);
	if (r->c->seq) {
		int32_t want = r->next_seq++;
		rc = check_numbered(r, p, want);
		if (rc == 0 && (grove_packet_contributors(p, &in, &all) < 0 ||
		    in != r->nbe || all != r->nbe)) {
			snprintf(r->err, r->errlen, "wave %d: %u of %u contributors, "
			    "expected %u", want, in, all, r->nbe);
			rc = GROVE_EPROTO;
		}
		grove_packet_unref(p);
		return rc;
	}
	rc = grove_packet_unpack(p, "%d", &v);
	if (rc == 0)
		rc = grove_packet_contributors(p, &in, &all);
	grove_packet_unref(p);
	if (rc < 0)
		return failed(r, "a wave", rc);
	if (v != r->v * (int32_t)r->nbe || in != r->nbe || all != r->nbe) {
		snprintf(r->err, r->errlen, "wave %u of burst %d: sum %d of %u "
		    "contributors, expected %d of %u (a share lost or counted "
		    "twice)", i, r->v, v, in, r->v * (int32_t)r->nbe, r->nbe);
		return GROVE_EPROTO;
	}
	return 0;
}

/* Loses CP node victim as the options say: SIGKILL, SIGSTOP, or the
 * --lose-cmd command. */
static int
lose(run *r, uint32_t victim)
{
	pid_t pid = cp_pid(grove_net_id(r->net), victim);
	if (r->c->lose_cmd) {
		const grove_topo_node *v = grove_topo_node_at(
		    grove_net_topology(r->net), victim);
		char node[16], spid[16];
		snprintf(node, sizeof node, "%u", victim);
		snprintf(spid, sizeof spid, "%d", pid > 0 ? (int)pid : 0);
		setenv("GROVE_LOST_NODE", node, 1);
		setenv("GROVE_LOST_HOST", v ? v->host : "", 1);
		setenv("GROVE_LOST_PID", pid > 0 ? spid : "", 1);
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "%s", r->c->lose_cmd);
		int st = system(cmd);
		if (st != 0) {
			snprintf(r->err, r->errlen, "--lose-cmd for node %u exited "
			    "with status %d", victim, st);
			return GROVE_ESYS;
		}
		return 0;
	}
	if (pid < 0) {
		snprintf(r->err, r->errlen, "no process of CP node %u found "
		    "(its event space is not mapped: tracing off?)", victim);
		return GROVE_ENOENT;
	}
	if (r->c->stop) {
		r->stopped[r->n_stopped++] = pid;
		kill(pid, SIGSTOP);
	} else {
		kill(pid, SIGKILL);
	}
	return 0;
}

/* A burst of waves; with victim != 0, killed a quarter of the way in and
 * timed.  *wps: the burst's waves per second. */
static int
burst(run *r, unsigned waves, uint32_t victim, loss *l, double *wps)
{
	r->v++;
	r->victim = victim;
	r->t_event = 0;
	double t0 = tool_now();
	int rc = r->c->seq ?
	    grove_stream_send(r->s, WORKER_SEQ, "%d %d", r->next_seq,
	    (int32_t)waves) :
	    grove_stream_send(r->s, WORKER_BURST, "%d %d", (int32_t)waves,
	    r->v);
	if (rc < 0)
		return failed(r, "the burst's request", rc);
	double t_kill = 0, last = 0;
	for (unsigned i = 0; i < waves; i++) {
		if (victim && i == waves / 4) {
			t_kill = last = tool_now();
			if ((rc = lose(r, victim)) != 0)
				return rc;
		}
		if ((rc = one_wave(r, i)) != 0)
			return rc;
		if (r->lost[0]) {
			snprintf(r->err, r->errlen, "back-ends lost: %s", r->lost);
			return GROVE_ELOST;
		}
		double now = tool_now();
		if (t_kill && !l->first_wave_s) {
			if (now - last > l->stall_s)
				l->stall_s = now - last;
			last = now;
			/* A wave received after the event: made with the
			 * moved children. */
			if (r->t_event && now > r->t_event)
				l->first_wave_s = now - t_kill;
		}
	}
	*wps = waves / (tool_now() - t0);
	/* The burst ended first: the event may still be on its way. */
	while (victim && !r->t_event &&
	    tool_now() - t_kill < RECOVERY_RECV_MS / 1e3) {
		if ((rc = grove_net_progress(r->net)) < 0)
			return failed(r, "waiting for the event", rc);
		usleep(1000);
	}
	if (victim && !r->t_event) {
		snprintf(r->err, r->errlen, "no GROVE_EV_REPARENTED for node %u",
		    victim);
		return GROVE_ETIMEDOUT;
	}
	if (victim) {
		l->node = victim;
		l->parent = r->parent;
		l->reparented_s = r->t_event - t_kill;
		snprintf(l->text, sizeof l->text, "%s", r->text);
		if (!l->first_wave_s)
			l->first_wave_s = l->reparented_s;
	}
	/* Exactly the burst's waves: nothing more comes. */
	grove_packet *extra = NULL;
	rc = grove_stream_recv(r->s, NULL, &extra, 200);
	if (rc == 0) {
		grove_packet_unref(extra);
		snprintf(r->err, r->errlen, "a wave more than the %u of burst %d",
		    waves, r->v);
		return GROVE_EPROTO;
	}
	return 0;
}

static int
run_bench(const recovery_cfg *c, recovery_res *res, char *err, size_t errlen)
{
	tool_programs pg;
	if (tool_find_programs(&pg, err, errlen) != 0)
		return GROVE_ENOENT;
	tool_raise_nofile();
	grove_net_opts o;
	tool_net_opts(&o, &pg, c->topology, c->backends);
	o.topology_file = c->file;
	o.hosts_file = c->hosts;
	o.heartbeat_ms = c->heartbeat_ms;
	run r = {.nbe = c->backends, .err = err, .errlen = errlen, .c = c};
	double t0 = tool_now();
	int rc = grove_net_create(&o, &r.net);
	res->inst_s = tool_now() - t0;
	if (rc == 0) {
		grove_net_on_event(r.net, on_event, &r);
		r.nbe = grove_net_backends(r.net);
		grove_stream_opts so;
		grove_stream_opts_init(&so);
		so.up_filter = c->seq ? "concat" : "sum";
		if (c->seq && !(r.seen = calloc(r.nbe ? r.nbe : 1, 1)))
			rc = GROVE_ENOMEM;
		if (rc == 0)
			rc = grove_stream_create(r.net, grove_net_comm_all(r.net),
			    &so, &r.s);
	}
	if (rc != 0) {
		snprintf(err, errlen, "create: %s: %s", grove_strerror(rc),
		    r.net ? grove_net_last_error(r.net) : "");
		grove_net_destroy(r.net);
		free(r.seen);
		return rc;
	}
	uint32_t vict[MAX_KILLS];
	unsigned nv = c->n_victims;
	const grove_topo *t = grove_net_topology(r.net);
	if (nv)
		memcpy(vict, c->victim, nv * sizeof *vict);
	else
		nv = victims(t, vict, c->kills);
	for (unsigned k = 0; k < nv; k++) {
		const grove_topo_node *v = grove_topo_node_at(t, vict[k]);
		if (!v || v->role != GROVE_ROLE_CP || vict[k] == 0) {
			snprintf(err, errlen, "node %u is not a CP of the tree",
			    vict[k]);
			grove_net_destroy(r.net);
			free(r.seen);
			return GROVE_EINVAL;
		}
	}
	double wps = 0;
	loss unused = {0};
	rc = burst(&r, c->waves, 0, &unused, &res->before_wps);
	for (unsigned k = 0; rc == 0 && k < nv; k++) {
		const grove_topo_node *v = grove_topo_node_at(
		    grove_net_topology(r.net), vict[k]);
		res->l[k].moved_be = v->be_hi - v->be_lo;
		rc = burst(&r, c->waves, vict[k], &res->l[k], &wps);
		res->n = k + 1;
	}
	if (rc == 0)
		rc = burst(&r, c->waves, 0, &unused, &res->after_wps);
	if (rc == 0 && !c->n_victims && nv < c->kills)
		fprintf(stderr, "%s: the tree has room for %u losses, not %u\n",
		    RECOVERY_CMD, nv, c->kills);
	grove_net_destroy(r.net);
	free(r.seen);
	/* Stopped CPs were lost and their links closed: resumed, they find
	 * nobody to take them back and leave. */
	for (unsigned k = 0; k < r.n_stopped; k++)
		kill(r.stopped[k], SIGCONT);
	return rc;
}

int
bench_recovery(int argc, char **argv)
{
	recovery_cfg c = {.topology = "kary:8", .backends = 512, .kills = 3,
	    .waves = 2000};
	int rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	const char *tree = c.file ? c.file : c.topology;
	char err[1024] = "";
	recovery_res r;
	memset(&r, 0, sizeof r);
	if (run_bench(&c, &r, err, sizeof err) < 0) {
		fprintf(stderr, "%s (%s, %u back-ends): %s\n", RECOVERY_CMD, tree,
		    c.backends, err);
		return 1;
	}
	if (c.json) {
		printf("{\"benchmark\": \"recovery\", \"topology\": ");
		tool_json_str(tree);
		printf(", \"backends\": %u, \"hosts\": ", c.backends);
		tool_json_str(c.hosts ? c.hosts : "");
		printf(", \"lost_by\": \"%s\", \"heartbeat_ms\": %d, "
		    "\"numbered\": %s", c.lose_cmd ? "command" : c.stop ?
		    "SIGSTOP" : "SIGKILL", c.heartbeat_ms, c.seq ? "true" :
		    "false");
		printf(", \"waves\": %u, \"instantiation_s\": %.4f, "
		    "\"before_wps\": %.1f, \"after_wps\": %.1f, \"losses\": [",
		    c.waves, r.inst_s, r.before_wps, r.after_wps);
		for (unsigned k = 0; k < r.n; k++) {
			printf("%s{\"node\": %u, \"new_parent\": %u, "
			    "\"backends_moved\": %u, \"reparented_ms\": %.2f, "
			    "\"first_wave_ms\": %.2f, \"stall_ms\": %.2f, "
			    "\"text\": ", k ? ", " : "", r.l[k].node, r.l[k].parent,
			    r.l[k].moved_be, r.l[k].reparented_s * 1e3,
			    r.l[k].first_wave_s * 1e3, r.l[k].stall_s * 1e3);
			tool_json_str(r.l[k].text);
			printf("}");
		}
		printf("]");
		tool_json_machine();
		printf("}\n");
		return 0;
	}
	printf("recovery of %u back-ends, %s tree%s%s: bursts of %u waves, CPs "
	    "lost by %s\n", c.backends, tree, c.hosts ? ", hosts " : "",
	    c.hosts ? c.hosts : "", c.waves, c.lose_cmd ? "a command" :
	    c.stop ? "SIGSTOP" : "SIGKILL");
	printf("  instantiation         %8.1f ms\n", r.inst_s * 1e3);
	printf("  throughput before     %8.0f waves/s\n", r.before_wps);
	for (unsigned k = 0; k < r.n; k++)
		printf("  loss of node %-4u (%3u back-ends below, to node %u): "
		    "reparented %.1f ms, first wave %.1f ms, stall %.1f ms\n",
		    r.l[k].node, r.l[k].moved_be, r.l[k].parent,
		    r.l[k].reparented_s * 1e3, r.l[k].first_wave_s * 1e3,
		    r.l[k].stall_s * 1e3);
	printf("  throughput after      %8.0f waves/s\n", r.after_wps);
	return 0;
}
