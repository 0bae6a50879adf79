/* The TCP transport's data path (tcp_chan.h): send queues, reading
 * records, progress, waiting in poll(), and the orderly end. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mpi/job.h"
#include "mpi/mpi_impl.h"
#include "mpi/tcp_int.h"
#include "mpi/tcp_wire.h"

/* The largest record a peer may send: a DATA chunk or an eager message,
 * with its header.  Anything larger is not Grove MPI speaking. */
static size_t
max_record(void)
{
	size_t m = mpi_tcp.eager > MPI_TCP_CHUNK ? mpi_tcp.eager : MPI_TCP_CHUNK;
	return MPI_WIRE_HDR + ((m + 7) & ~(size_t)7);
}

/* Ends this rank after it lost world rank `cause`: first a BYE marked
 * abort, naming cause, to every peer it is connected to (best effort,
 * without waiting), so that they end too and name the rank that was lost,
 * not this one. */
static void __attribute__((noreturn))
tcp_end(int cause)
{
	for (int w = 0; w < mpi_tcp.n; w++) {
		struct tcp_peer *p = &mpi_tcp.peers[w];
		if (w == cause || p->st != TP_UP || p->fd < 0)
			continue;
		struct mpi_wire *rec = mpi_tcp_reserve(w, 0);
		if (!rec)
			continue;
		rec->type = MPI_W_BYE;
		rec->flags = MPI_W_F_ABORT;
		rec->src = cause;
		p->tx.len += rec->rec_bytes;
		(void)!send(p->fd, p->tx.p + p->tx.off, p->tx.len - p->tx.off,
		            MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	if (mpi_proc.job)
		__atomic_store_n(&mpi_job_ctl(mpi_proc.job,
		                              (uint32_t)mpi_proc.rank)->state,
		                 MPI_RANK_ABORTED, __ATOMIC_RELEASE);
	fflush(stdout);
	fflush(stderr);
	_exit(1);
}

/* Peer w ends the job because it lost `cause`. */
static void __attribute__((noreturn))
peer_aborts(int w, int cause)
{
	fprintf(stderr, "grove-mpi: rank %d: rank %d ends the job: it lost rank "
	        "%d; ending the job\n", mpi_tcp.me, w, cause);
	tcp_end(cause >= 0 && cause < mpi_tcp.n ? cause : w);
}

void
tcp_fatal(int w, const char *fmt, ...)
{
	char why[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	const struct tcp_peer *p = &mpi_tcp.peers[w];
	char ip[INET_ADDRSTRLEN] = "?";
	if (p->have_sa)
		inet_ntop(AF_INET, &p->sa.sin_addr, ip, sizeof ip);
	fprintf(stderr, "grove-mpi: rank %d: TCP connection to rank %d (on %s, "
	        "%s:%u): %s; ending the job\n", mpi_tcp.me, w,
	        p->host[0] ? p->host : "?", ip,
	        p->have_sa ? (unsigned)ntohs(p->sa.sin_port) : 0u, why);
	tcp_end(w);
}

void
tcp_buf_drop(struct tcp_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

/* Room for `need` more bytes after b->len: 0 or -1 (no memory). */
static int
buf_room(struct tcp_buf *b, size_t need)
{
	if (b->cap - b->len >= need)
		return 0;
	if (b->off >= 8) {
		/* Keep the offset's alignment: a partial send leaves off
		 * anywhere, and records start at multiples of 8. */
		size_t keep = b->off & 7;
		memmove(b->p + keep, b->p + b->off, b->len - b->off);
		b->len -= b->off - keep;
		b->off = keep;
		if (b->cap - b->len >= need)
			return 0;
	}
	size_t cap = b->cap ? b->cap : 64 * 1024;
	while (cap - b->len < need)
		cap *= 2;
	char *np = realloc(b->p, cap);
	if (!np)
		return -1;
	b->p = np;
	b->cap = cap;
	return 0;
}

struct mpi_wire *
mpi_tcp_reserve(int w, size_t payload)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	if (p->tx.len - p->tx.off >= MPI_TCP_HWM) {
		tcp_flush(w);
		if (p->tx.len - p->tx.off >= MPI_TCP_HWM)
			return NULL; /* back-pressure: the caller's outbox waits */
	}
	size_t rb = MPI_WIRE_HDR + ((payload + 7) & ~(size_t)7);
	if (buf_room(&p->tx, rb) != 0)
		return NULL;
	struct mpi_wire *rec = (struct mpi_wire *)(p->tx.p + p->tx.len);
	memset(rec, 0, MPI_WIRE_HDR);
	rec->rec_bytes = (uint32_t)rb;
	return rec;
}

void
mpi_tcp_commit(int w, struct mpi_wire *rec)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	if (p->tx.len == p->tx.off)
		mpi_tcp.backlog++;
	p->tx.len += rec->rec_bytes;
	if (p->st == TP_NONE)
		tcp_connect_start(w);
	else if (p->st == TP_UP)
		tcp_flush(w);
	/* Else the handshake is under way: sent once it is up. */
}

void
tcp_flush(int w)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	if (p->st != TP_UP || p->tx.off == p->tx.len)
		return;
	while (p->tx.off < p->tx.len) {
		ssize_t r = send(p->fd, p->tx.p + p->tx.off, p->tx.len - p->tx.off,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r > 0) {
			p->tx.off += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return; /* the rest waits for POLLOUT */
		tcp_fatal(w, "sending failed: %s (did it die?)",
		          r < 0 ? strerror(errno) : "no progress");
	}
	p->tx.off = p->tx.len = 0;
	mpi_tcp.backlog--;
}

/* Hands over the complete records (and handshake messages) at the
 * front of w's receive buffer. */
static int
parse(int w, mpi_tcp_handler h)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	int ev = 0;
	for (;;) {
		if (p->st == TP_HELLO_SENT || p->st == TP_INBOUND_HS) {
			if (!tcp_hs_step(w))
				return ev;
			ev++;
			continue;
		}
		if (p->st != TP_UP)
			return ev;
		size_t avail = p->rx.len - p->rx.off;
		const struct mpi_wire *rec =
			(const struct mpi_wire *)(p->rx.p + p->rx.off);
		long rb = mpi_tcp_record_len(rec, avail, max_record());
		if (rb < 0)
			tcp_fatal(w, "it sent a record of %u bytes (type %u): not "
			          "Grove MPI's protocol", rec->rec_bytes,
			          (unsigned)rec->type);
		if (rb == 0)
			return ev;
		if (rec->type == MPI_W_BYE && (rec->flags & MPI_W_F_ABORT))
			peer_aborts(w, rec->src);
		if (rec->type == MPI_W_BYE)
			p->bye_in = true;
		else
			h(rec, w);
		p->rx.off += (size_t)rb;
		if (p->rx.off == p->rx.len)
			p->rx.off = p->rx.len = 0;
		ev++;
	}
}

/* The peer closed its end (or the connection broke with e != 0). */
static void
peer_gone(int w, int e)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	if (p->st == TP_UP && p->bye_in && e == 0) {
		close(p->fd);
		p->fd = -1;
		p->st = TP_CLOSED;
		return;
	}
	if (p->st == TP_INBOUND_HS) {
		/* Not proved yet: maybe not the peer at all; forget it. */
		close(p->fd);
		p->fd = -1;
		p->rx.off = p->rx.len = 0;
		p->st = TP_NONE;
		if (p->tx.len > p->tx.off)
			tcp_connect_start(w);
		return;
	}
	if (p->st == TP_HELLO_SENT)
		tcp_fatal(w, "it closed the connection during the handshake%s%s",
		          e ? ": " : " (another job's key?)", e ? strerror(e) : "");
	tcp_fatal(w, "%s%s", e ? "the connection broke: " : "it closed the "
	          "connection before MPI_Finalize (did it die?)",
	          e ? strerror(e) : "");
}

/* Reads what w's socket holds. */
static int
peer_read(int w, mpi_tcp_handler h)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	int ev = 0;
	while (p->fd >= 0 && p->st != TP_CLOSED) {
		size_t want = p->rx.len - p->rx.off;
		want = want >= MPI_WIRE_HDR
		           ? ((const struct mpi_wire *)(p->rx.p + p->rx.off))->rec_bytes
		           : MPI_WIRE_HDR;
		if (want > max_record())
			want = max_record(); /* parse() reports it */
		if (buf_room(&p->rx, want > 65536 ? want : 65536) != 0)
			tcp_fatal(w, "out of memory for its data");
		size_t room = p->rx.cap - p->rx.len;
		ssize_t r = recv(p->fd, p->rx.p + p->rx.len, room, MSG_DONTWAIT);
		if (r > 0) {
			p->rx.len += (size_t)r;
			ev += 1 + parse(w, h);
			if ((size_t)r < room)
				break;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		peer_gone(w, r < 0 ? errno : 0);
		ev++;
		break;
	}
	return ev;
}

/* The poll set: the listener, connections without a HELLO yet, and every
 * peer's socket (POLLOUT while it connects or has bytes queued). */
static nfds_t
pollset(void)
{
	size_t need = 1 + mpi_tcp.npend + (size_t)mpi_tcp.n;
	if (need > mpi_tcp.pfd_cap) {
		struct pollfd *np = realloc(mpi_tcp.pfd, need * sizeof *np);
		int *nw = np ? realloc(mpi_tcp.pfd_who, need * sizeof *nw) : NULL;
		if (np)
			mpi_tcp.pfd = np;
		if (!nw)
			return 0;
		mpi_tcp.pfd_who = nw;
		mpi_tcp.pfd_cap = need;
	}
	nfds_t k = 0;
	if (mpi_tcp.lfd >= 0) {
		mpi_tcp.pfd[k] = (struct pollfd){.fd = mpi_tcp.lfd, .events = POLLIN};
		mpi_tcp.pfd_who[k++] = -1;
	}
	for (size_t i = 0; i < mpi_tcp.npend; i++) {
		mpi_tcp.pfd[k] = (struct pollfd){.fd = mpi_tcp.pend[i].fd,
		                                 .events = POLLIN};
		mpi_tcp.pfd_who[k++] = -2;
	}
	for (int w = 0; w < mpi_tcp.n; w++) {
		const struct tcp_peer *p = &mpi_tcp.peers[w];
		if (p->fd < 0 || p->st == TP_CLOSED)
			continue;
		short ev = POLLIN;
		if (p->st == TP_CONNECTING)
			ev = POLLOUT;
		else if (p->st == TP_UP && p->tx.len > p->tx.off)
			ev |= POLLOUT;
		mpi_tcp.pfd[k] = (struct pollfd){.fd = p->fd, .events = ev};
		mpi_tcp.pfd_who[k++] = w;
	}
	return k;
}

static int
service(nfds_t k, mpi_tcp_handler h)
{
	int ev = 0;
	bool pending = false;
	for (nfds_t i = 0; i < k; i++) {
		short re = mpi_tcp.pfd[i].revents;
		int who = mpi_tcp.pfd_who[i];
		if (!re)
			continue;
		if (who == -1) {
			ev += tcp_accept_all();
			continue;
		}
		if (who == -2) {
			pending = true;
			continue;
		}
		struct tcp_peer *p = &mpi_tcp.peers[who];
		if (p->fd != mpi_tcp.pfd[i].fd)
			continue; /* replaced during this pass */
		if (p->st == TP_CONNECTING) {
			tcp_connect_done(who);
			ev++;
			continue;
		}
		if (re & (POLLIN | POLLERR | POLLHUP))
			ev += peer_read(who, h);
		if ((re & POLLOUT) && p->st == TP_UP && p->fd >= 0) {
			size_t before = p->tx.len - p->tx.off;
			tcp_flush(who);
			ev += p->tx.len - p->tx.off != before;
		}
	}
	if (pending) {
		/* Backwards: a removal moves the last entry, already seen. */
		for (size_t i = mpi_tcp.npend; i-- > 0;)
			ev += tcp_pending_read(i);
	}
	return ev;
}

int
mpi_tcp_progress(mpi_tcp_handler h)
{
	if (!mpi_tcp.active)
		return 0;
	nfds_t k = pollset();
	if (k == 0 || poll(mpi_tcp.pfd, k, 0) <= 0)
		return 0;
	return service(k, h);
}

bool
mpi_tcp_backlogged(void)
{
	return mpi_tcp.backlog > 0;
}

int
mpi_tcp_wait(int timeout_ms)
{
	if (!mpi_tcp.active)
		return 0;
	nfds_t k = pollset();
	int r = poll(mpi_tcp.pfd, k, timeout_ms);
	return r > 0 ? r : 0;
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether w needs nothing more from the end: never connected, closed,
 * or its BYE is in and ours is out. */
static bool
peer_finished(const struct tcp_peer *p)
{
	return p->st == TP_NONE || p->st == TP_CLOSED ||
	       (p->st == TP_UP && p->bye_in && p->bye_out &&
	        p->tx.len == p->tx.off);
}

void
mpi_tcp_fini(mpi_tcp_handler h)
{
	if (!mpi_tcp.active)
		return;
	mpi_tcp.finishing = true;
	/* After the final barrier every rank comes here soon; a peer that
	 * does not finish its side within this long has a problem of its
	 * own, which its own exit reports. */
	double deadline = now_s() + 30;
	for (;;) {
		mpi_tcp_progress(h);
		bool all = true;
		for (int w = 0; w < mpi_tcp.n; w++) {
			struct tcp_peer *p = &mpi_tcp.peers[w];
			if (p->st == TP_UP && !p->bye_out) {
				struct mpi_wire *rec = mpi_tcp_reserve(w, 0);
				if (rec) {
					rec->type = MPI_W_BYE;
					mpi_tcp_commit(w, rec);
					p->bye_out = true;
				}
			}
			if (!peer_finished(p))
				all = false;
		}
		if (all)
			break;
		if (now_s() > deadline) {
			fprintf(stderr, "grove-mpi: rank %d: MPI_Finalize: some TCP "
			        "peers did not finish their connections within 30 s; "
			        "closing them\n", mpi_tcp.me);
			break;
		}
		mpi_tcp_wait(100);
	}
	for (int w = 0; w < mpi_tcp.n; w++) {
		struct tcp_peer *p = &mpi_tcp.peers[w];
		if (p->fd >= 0)
			close(p->fd);
		tcp_buf_drop(&p->tx);
		tcp_buf_drop(&p->rx);
	}
	tcp_pending_close_all();
	if (mpi_tcp.lfd >= 0)
		close(mpi_tcp.lfd);
	free(mpi_tcp.peers);
	free(mpi_tcp.pfd);
	free(mpi_tcp.pfd_who);
	memset(&mpi_tcp, 0, sizeof mpi_tcp);
	mpi_tcp.lfd = -1;
}
