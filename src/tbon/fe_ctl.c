/* The front-end's control socket: lets another process of the same user
 * (`grove trace dump --collect`) ask a running front-end to bring every
 * event space of its network home, as grove_net_trace_collect() does.
 *
 * It is the abstract Unix socket "grove.<netid>.ctl": no file to clean
 * up, gone with the process.  Abstract sockets have no permissions, so
 * every client's credentials are checked (SO_PEERCRED): only the
 * front-end's own user, or root, is served; and the client checks the
 * front-end's the same way (tools/trace/cmd_trace.c).  The network id is not
 * secret (/proc/net/unix lists the node sockets that carry it), so the
 * name is bound first thing in grove_net_create, before the id appears
 * anywhere (fe_ctl_bind), and served once the network is up
 * (fe_ctl_open): another user cannot take the name in between.  Like the rest of the
 * front-end it is served inside the tool's Grove calls (no hidden thread);
 * a tool that never calls Grove never answers, and the client times out
 * saying so.
 *
 * A client that has not sent its request line within FE_CTL_REQUEST_MS
 * is told so and closed (a timer runs while any client is reading).
 *
 * Protocol, one line each way:
 *   "collect <timeout_ms>\n"  ->  "ok <copied> <answered> <expected>\n"
 *                                 "timeout <copied> <answered> <expected>\n"
 *                                 "error <text>\n"
 * An event scope's monitor stays connected instead and sends several
 * requests ("scope ...", "pull ...", "detach"; fe_scope.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "net/sockio.h"
#include "net/watch_note.h"
#include "tbon/fe_internal.h"

static void client_close(fe_ctl_client *c);

void
fe_ctl_reply(fe_ctl_client *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0) {
		/* One short line to a fresh socket fits its buffer; a client
		 * that does not read it loses its answer, not our time. */
		ssize_t w = send(c->fd, line, (size_t)n < sizeof line ?
		    (size_t)n : sizeof line - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w;
	}
	client_close(c);
}

static void
on_client_closed(uv_handle_t *h)
{
	fe_ctl_client *c = h->data;
	close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	c->state = FE_CTL_FREE;
}

void
fe_ctl_client_close(fe_ctl_client *c)
{
	client_close(c);
}

static void
client_close(fe_ctl_client *c)
{
	if (c->state == FE_CTL_FREE || c->state == FE_CTL_CLOSING)
		return;
	fe_scope_client_closed(c);
	c->state = FE_CTL_CLOSING;
	uv_poll_stop(&c->poll);
	uv_close((uv_handle_t *)&c->poll, on_client_closed);
}

void
fe_ctl_trace_finished(grove_net *net, int rc)
{
	fe_ctl *ctl = &net->ctl;
	if (!ctl->open) {
		fe_ctl_unbind(net);
		return;
	}
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++) {
		fe_ctl_client *c = &ctl->cl[i];
		if (c->state != FE_CTL_WAITING)
			continue;
		fe_ctl_reply(c, "%s %u %u %u\n", rc == GROVE_ETIMEDOUT ? "timeout" :
		    "ok", net->trace_copied, net->trace_answers,
		    net->trace_expect);
	}
	ctl->collecting = 0;
	uv_timer_stop(&ctl->timer);
}

/* A collection the control socket started: done when everyone answered. */
void
fe_ctl_trace_progress(grove_net *net)
{
	fe_ctl *ctl = &net->ctl;
	if (!ctl->collecting || net->trace_answers < net->trace_expect)
		return;
	net->trace_req = 0;
	fe_ctl_trace_finished(net, 0);
}

static void
on_deadline(uv_timer_t *t)
{
	grove_net *net = t->data;
	if (!net->ctl.collecting)
		return;
	net->trace_req = 0;
	fe_ctl_trace_finished(net, GROVE_ETIMEDOUT);
}

static void
start_collect(grove_net *net, fe_ctl_client *c, long timeout_ms)
{
	fe_ctl *ctl = &net->ctl;
	c->state = FE_CTL_WAITING;
	uv_poll_stop(&c->poll);
	watch_note_changed(&net->n.loop);
	/* A collection already under way (from the API or another client)
	 * answers this client too. */
	if (net->trace_req != 0)
		return;
	int rc = fe_trace_request(net);
	if (rc != 0) {
		fe_ctl_reply(c, "error cannot send the request: %s\n",
		    grove_strerror(rc));
		return;
	}
	ctl->collecting = 1;
	if (net->trace_answers >= net->trace_expect) {
		fe_ctl_trace_progress(net);
		return;
	}
	uv_timer_start(&ctl->timer, on_deadline, (uint64_t)timeout_ms, 0);
}

/* Closes the clients that let their request time run out; stops when
 * no client is left reading. */
static void
on_sweep(uv_timer_t *t)
{
	fe_ctl *ctl = t->data;
	uint64_t now = sockio_now_ms();
	int reading = 0;
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++) {
		fe_ctl_client *c = &ctl->cl[i];
		if (c->state != FE_CTL_READING)
			continue;
		if (now - c->accepted_ms >= FE_CTL_REQUEST_MS)
			fe_ctl_reply(c, "error no request within %d ms\n",
			    FE_CTL_REQUEST_MS);
		else
			reading = 1;
	}
	if (!reading)
		uv_timer_stop(t);
}

static int
peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
		return 0;
	return cr.uid == getuid() || cr.uid == 0;
}

static void
on_client_readable(uv_poll_t *p, int status, int events)
{
	fe_ctl_client *c = p->data;
	grove_net *net = c->net;
	if (status < 0) {
		client_close(c);
		return;
	}
	if (events & UV_WRITABLE)
		fe_scope_write(c);
	if (!(events & UV_READABLE) || c->state == FE_CTL_FREE ||
	    c->state == FE_CTL_CLOSING)
		return;
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len,
	    MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	char *nl = strchr(c->buf, '\n');
	if (!nl) {
		if (c->len == sizeof c->buf - 1)
			fe_ctl_reply(c, "error request line too long\n");
		return;
	}
	*nl = '\0';
	long ms;
	char extra;
	if (c->state == FE_CTL_READING &&
	    sscanf(c->buf, "collect %ld %c", &ms, &extra) == 1 && ms > 0 &&
	    ms <= 3600000) {
		start_collect(net, c, ms);
		return;
	}
	if (fe_scope_request(c, c->buf)) {
		/* A scope's monitor stays: the next request line follows. */
		size_t used = (size_t)(nl + 1 - c->buf);
		memmove(c->buf, nl + 1, c->len - used + 1);
		c->len -= used;
		return;
	}
	fe_ctl_reply(c, "error unknown request \"%.60s\" (expected \"collect "
	    "<timeout_ms>\" or an event scope's \"scope ...\")\n", c->buf);
}

static void
on_listen_readable(uv_poll_t *p, int status, int events)
{
	grove_net *net = p->data;
	fe_ctl *ctl = &net->ctl;
	(void)events;
	if (status < 0)
		return;
	for (;;) {
		int fd = accept4(ctl->lfd, NULL, NULL, SOCK_CLOEXEC |
		    SOCK_NONBLOCK);
		if (fd < 0)
			return;
		if (!peer_allowed(fd)) {
			log_warn("control socket: refused a client of another "
			    "user");
			close(fd);
			continue;
		}
		fe_ctl_client *c = NULL;
		for (int i = 0; i < FE_CTL_MAX_CLIENTS && !c; i++)
			if (ctl->cl[i].state == FE_CTL_FREE)
				c = &ctl->cl[i];
		if (!c) {
			static const char busy[] = "error front-end busy\n";
			ssize_t w = send(fd, busy, sizeof busy - 1,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			(void)w;
			close(fd);
			continue;
		}
		memset(c, 0, sizeof *c);
		c->net = net;
		c->fd = fd;
		c->accepted_ms = sockio_now_ms();
		if (uv_poll_init(&net->n.loop, &c->poll, fd) != 0) {
			close(fd);
			c->fd = -1;
			continue;
		}
		c->poll.data = c;
		c->state = FE_CTL_READING;
		uv_poll_start(&c->poll, UV_READABLE, on_client_readable);
		if (!uv_is_active((uv_handle_t *)&ctl->sweep))
			uv_timer_start(&ctl->sweep, on_sweep, FE_CTL_REQUEST_MS,
			    FE_CTL_REQUEST_MS / 2);
		watch_note_changed(&net->n.loop);
	}
}

int
fe_ctl_bind(grove_net *net)
{
	fe_ctl *ctl = &net->ctl;
	char name[96], err[256];
	snprintf(name, sizeof name, "grove.%s.ctl", net->netid);
	ctl->lfd = sockio_listen_unix(name, err, sizeof err);
	if (ctl->lfd < 0) {
		int e = errno;
		if (e == EADDRINUSE)
			log_warn("no control socket: another process already "
			    "holds the name '%s', although this network's id "
			    "was not published yet; grove trace dump "
			    "--collect cannot reach this front-end", name);
		else
			log_warn("no control socket (grove trace dump --collect "
			    "cannot reach this front-end): %s", err);
		ctl->lfd = -1;
		return GROVE_ESYS;
	}
	return 0;
}

void
fe_ctl_unbind(grove_net *net)
{
	fe_ctl *ctl = &net->ctl;
	if (ctl->open || ctl->lfd < 0)
		return;
	close(ctl->lfd);
	ctl->lfd = -1;
}

int
fe_ctl_open(grove_net *net)
{
	fe_ctl *ctl = &net->ctl;
	if (ctl->lfd < 0)
		return GROVE_ESYS; /* fe_ctl_bind said why */
	if (uv_poll_init(&net->n.loop, &ctl->lpoll, ctl->lfd) != 0) {
		close(ctl->lfd);
		ctl->lfd = -1;
		return GROVE_ESYS;
	}
	ctl->lpoll.data = net;
	uv_timer_init(&net->n.loop, &ctl->timer);
	ctl->timer.data = net;
	uv_timer_init(&net->n.loop, &ctl->sweep);
	ctl->sweep.data = ctl;
	uv_timer_init(&net->n.loop, &ctl->scope_timer);
	ctl->scope_timer.data = net;
	uv_poll_start(&ctl->lpoll, UV_READABLE, on_listen_readable);
	watch_note_changed(&net->n.loop);
	ctl->open = 1;
	return 0;
}

void
fe_ctl_close(grove_net *net)
{
	fe_ctl *ctl = &net->ctl;
	if (!ctl->open) {
		fe_ctl_unbind(net);
		return;
	}
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++)
		if (ctl->cl[i].state == FE_CTL_WAITING)
			fe_ctl_reply(&ctl->cl[i], "error the network is shutting "
			    "down\n");
		else
			client_close(&ctl->cl[i]);
	uv_poll_stop(&ctl->lpoll);
	uv_close((uv_handle_t *)&ctl->lpoll, NULL);
	uv_close((uv_handle_t *)&ctl->timer, NULL);
	uv_close((uv_handle_t *)&ctl->sweep, NULL);
	uv_close((uv_handle_t *)&ctl->scope_timer, NULL);
	/* Let the closes finish before the descriptors go. */
	uv_run(&net->n.loop, UV_RUN_NOWAIT);
	close(ctl->lfd);
	ctl->lfd = -1;
	ctl->open = 0;
}
