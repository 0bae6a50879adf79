/* Event scopes at the front-end: a monitor attached to the control socket
 * (fe_ctl.c; same user or root only) owns a scope and pulls it through
 * the tree (node_scope.c; docs/monitoring.md, "Event scopes through the
 * tree").
 *
 * Requests, one line each, the next once the last was answered; the
 * client stays connected between them:
 *   "scope <kind> <readers> <op> <layer> <name> <last_only>\n"
 *       kind: analysis | raw; readers: host | node (scope/placement.h);
 *       op: a number (enum grove_trace_op) or -1; layer, name: "-" for
 *       any.  ->  "ok <scope> <nodes> <readers>\n": the scope's id, the
 *       nodes of the tree and the readers of the placement.
 *   "pull <timeout_ms>\n"
 *       ->  "share <bytes> <answered> <asked> <note>\n" and that many
 *       bytes (monitor/share.h): the share of every reader that answered
 *       within the time, answered and asked counting the front-end's CP
 *       children; note is "-" or why some part is missing.
 *   "detach\n"  ->  nothing: the scope ends at every node, the
 *       connection closes.  Closing the connection does the same.
 *   Anything wrong  ->  "error <text>\n", and the connection closes.
 *
 * Attaching and detaching change nothing for the network: its streams,
 * waves and back-ends never see a scope, whose messages travel between
 * the front-end and the CPs only. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "monitor/share.h"
#include "net/sockio.h"
#include "net/watch_note.h"
#include "scope/placement.h"
#include "tbon/fe_internal.h"

#define SCOPE_TICK_MS 20

static fe_ctl_client *
client_of(grove_net *net, uint32_t scope)
{
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++)
		if (net->ctl.cl[i].scope == scope &&
		    (net->ctl.cl[i].state == FE_CTL_SCOPE ||
		     net->ctl.cl[i].state == FE_CTL_PULLING))
			return &net->ctl.cl[i];
	return NULL;
}

void
fe_scope_write(fe_ctl_client *c)
{
	while (c->out && c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off,
		    c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			uv_poll_start(&c->poll, UV_READABLE | UV_WRITABLE,
			    c->poll.poll_cb);
			watch_note_changed(&c->net->n.loop);
			return;
		}
		if (w <= 0) {
			fe_ctl_client_close(c);
			return;
		}
		c->out_off += (size_t)w;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	if (c->state == FE_CTL_SCOPE) {
		uv_poll_start(&c->poll, UV_READABLE, c->poll.poll_cb);
		watch_note_changed(&c->net->n.loop);
	}
}

/* The pull of the scope is complete (or was given up): its answer. */
static void
on_done(node *n, uint32_t scope, uint32_t pull, const uint8_t *share,
    size_t len, uint32_t answered, uint32_t asked, const char *err)
{
	grove_net *net = n->owner;
	fe_ctl_client *c = client_of(net, scope);
	if (!c || c->state != FE_CTL_PULLING || c->pull != pull)
		return;
	if (!share) {
		fe_ctl_reply(c, "error no share: %s\n", err ? err : "?");
		return;
	}
	char head[400];
	char note[300];
	snprintf(note, sizeof note, "%s", err ? err : "-");
	for (char *q = note; *q; q++)
		if (*q == '\n')
			*q = ' ';
	int hl = snprintf(head, sizeof head, "share %zu %u %u %s\n", len,
	    answered, asked, note);
	if (hl < 0 || (size_t)hl >= sizeof head)
		hl = snprintf(head, sizeof head, "share %zu %u %u -\n", len,
		    answered, asked);
	uint8_t *out = malloc((size_t)hl + len);
	if (!out) {
		fe_ctl_reply(c, "error out of memory for a share of %zu "
		    "bytes\n", len);
		return;
	}
	memcpy(out, head, (size_t)hl);
	memcpy(out + hl, share, len);
	free(c->out);
	c->out = out;
	c->out_len = (size_t)hl + len;
	c->out_off = 0;
	c->state = FE_CTL_SCOPE;
	c->pull = 0;
	fe_scope_write(c);
}

/* Pulls whose time ran out are answered with what is there. */
static void
on_tick(uv_timer_t *t)
{
	grove_net *net = t->data;
	uint64_t now = sockio_now_ms();
	int pulling = 0;
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++) {
		fe_ctl_client *c = &net->ctl.cl[i];
		if (c->state != FE_CTL_PULLING)
			continue;
		if (now >= c->pull_deadline_ms)
			node_scope_pull_now(&net->n, c->scope, c->pull);
		else
			pulling = 1;
	}
	if (!pulling)
		uv_timer_stop(t);
}

static int
attach(fe_ctl_client *c, const char *args)
{
	grove_net *net = c->net;
	char kind[16], readers[16], layer[64], name[64];
	int op;
	unsigned last_only;
	char extra;
	if (c->state != FE_CTL_READING) {
		fe_ctl_reply(c, "error this connection has a scope already\n");
		return 1;
	}
	if (sscanf(args, "%15s %15s %d %63s %63s %u %c", kind, readers, &op,
	    layer, name, &last_only, &extra) != 6) {
		fe_ctl_reply(c, "error expected \"scope <analysis|raw> "
		    "<host|node> <op> <layer|-> <name|-> <0|1>\"\n");
		return 1;
	}
	struct node_scope_params *sp = &c->sp;
	memset(sp, 0, sizeof *sp);
	if (!strcmp(kind, "analysis") || !strcmp(kind, "raw"))
		sp->kind = !strcmp(kind, "raw") ? MON_SHARE_RAW :
		    MON_SHARE_ANALYSIS;
	else {
		fe_ctl_reply(c, "error unknown scope kind \"%s\" (analysis, "
		    "raw)\n", kind);
		return 1;
	}
	if (!strcmp(readers, "host") || !strcmp(readers, "node"))
		sp->readers = !strcmp(readers, "node") ? SCOPE_READERS_NODE :
		    SCOPE_READERS_HOST;
	else {
		fe_ctl_reply(c, "error unknown readers \"%s\" (host, node)\n",
		    readers);
		return 1;
	}
	if (op < -1 || op > 65535 || last_only > 1 ||
	    strlen(layer) >= sizeof sp->layer ||
	    strlen(name) >= sizeof sp->name) {
		fe_ctl_reply(c, "error bad scope selection (op %d, layer of %zu "
		    "bytes, name of %zu)\n", op, strlen(layer), strlen(name));
		return 1;
	}
	sp->op = op;
	sp->last_only = last_only;
	if (strcmp(layer, "-"))
		snprintf(sp->layer, sizeof sp->layer, "%s", layer);
	if (strcmp(name, "-"))
		snprintf(sp->name, sizeof sp->name, "%s", name);
	c->scope = ++net->ctl.scope_next;
	if (!c->scope)
		c->scope = ++net->ctl.scope_next; /* 0 is no scope */
	c->state = FE_CTL_SCOPE;
	char line[128];
	int n = snprintf(line, sizeof line, "ok %u %u %u\n", c->scope,
	    grove_topo_size(net->n.topo),
	    scope_readers_count(net->n.topo, (int)sp->readers));
	c->out = malloc((size_t)n);
	if (!c->out) {
		fe_ctl_reply(c, "error out of memory\n");
		return 1;
	}
	memcpy(c->out, line, (size_t)n);
	c->out_len = (size_t)n;
	c->out_off = 0;
	fe_scope_write(c);
	return 1;
}

static int
pull(fe_ctl_client *c, long ms)
{
	grove_net *net = c->net;
	if (c->state != FE_CTL_SCOPE || c->out) {
		fe_ctl_reply(c, "error %s\n", c->state == FE_CTL_PULLING ?
		    "one pull at a time" : "no scope: send \"scope ...\" first");
		return 1;
	}
	c->pull = ++net->ctl.pull_next;
	if (!c->pull || c->pull > INT32_MAX) {
		net->ctl.pull_next = 1; /* the tag is an int32, > 0 */
		c->pull = 1;
	}
	c->state = FE_CTL_PULLING;
	c->pull_deadline_ms = sockio_now_ms() + (uint64_t)ms;
	int rc = node_scope_pull_start(&net->n, c->scope, c->pull, &c->sp,
	    on_done);
	if (rc) {
		fe_ctl_reply(c, "error cannot pull: %s\n", grove_strerror(rc));
		return 1;
	}
	if (c->state == FE_CTL_PULLING &&
	    !uv_is_active((uv_handle_t *)&net->ctl.scope_timer)) {
		uv_timer_start(&net->ctl.scope_timer, on_tick, SCOPE_TICK_MS,
		    SCOPE_TICK_MS);
		watch_note_changed(&net->n.loop);
	}
	node_flush_all(&net->n);
	return 1;
}

int
fe_scope_request(fe_ctl_client *c, const char *line)
{
	long ms;
	char extra;
	if (!strncmp(line, "scope ", 6))
		return attach(c, line + 6);
	if (sscanf(line, "pull %ld %c", &ms, &extra) == 1) {
		if (ms <= 0 || ms > 3600000) {
			fe_ctl_reply(c, "error pull wants 1 to 3600000 ms\n");
			return 1;
		}
		return pull(c, ms);
	}
	if (!strcmp(line, "detach")) {
		fe_ctl_client_close(c);
		return 1;
	}
	return 0;
}

void
fe_scope_client_closed(fe_ctl_client *c)
{
	if (!c->scope)
		return;
	uint32_t scope = c->scope;
	c->scope = 0;
	c->pull = 0;
	node_scope_end(&c->net->n, scope, 1);
	node_flush_all(&c->net->n);
}
