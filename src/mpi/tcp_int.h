/* The TCP transport's state, shared by its files:
 *   tcp_setup.c  transport choice, listener, job key, peers' addresses
 *   tcp_hs.c     connecting, accepting, the handshake
 *   tcp_chan.c   send queues, reading records, progress, waiting, the end
 */
#ifndef GROVE_MPI_TCP_INT_H
#define GROVE_MPI_TCP_INT_H

#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi/tcp_chan.h"

enum tcp_peer_state {
	TP_NONE = 0,     /* no connection */
	TP_CONNECTING,   /* our connect() in progress */
	TP_HELLO_SENT,   /* our HELLO sent, waiting for the peer's CHAL */
	TP_WAIT_INBOUND, /* our connection lost the tie: the peer's comes */
	TP_INBOUND_HS,   /* the peer's HELLO taken, waiting for its PROOF */
	TP_UP,           /* records flow */
	TP_CLOSED,       /* closed after both BYEs (MPI_Finalize) */
};

/* Bytes [off, len) of p are pending (send queue) or unread (receive). */
struct tcp_buf {
	char *p;
	size_t off, len, cap;
};

struct tcp_peer {
	int fd;
	enum tcp_peer_state st;
	struct sockaddr_in sa;     /* where it listens (its card) */
	bool have_sa;
	char host[64];             /* its host, for messages */
	unsigned char nonce_mine[16], nonce_theirs[16];
	struct tcp_buf tx, rx;
	bool bye_in;               /* it sent BYE: nothing more comes */
	bool bye_out;              /* we queued ours */
};

/* An accepted connection before its HELLO names the peer. */
struct tcp_pending {
	int fd;
	size_t got;
	unsigned char buf[80];
};

/* Handshake messages: sizes multiples of 8, so records after them stay
 * aligned in the receive buffer. */
#define TCP_MAGIC 0x4776546370494d50ull /* fixed text, in native order */
#define TCP_VERSION 1
struct tcp_hello {
	uint64_t magic;
	uint32_t version;
	int32_t from, to;
	char jobid[40];
	unsigned char nonce[16];
	uint32_t pad;
};
enum { TCP_OK = 1, TCP_TIE_LOST = 2 };
struct tcp_chal {
	uint64_t magic;
	uint32_t verdict;
	uint32_t pad;
	unsigned char nonce[16];
	unsigned char mac[32];
};
struct tcp_proof {
	uint64_t magic;
	unsigned char mac[32];
};
_Static_assert(sizeof(struct tcp_hello) == 80, "hello is 80 bytes");
_Static_assert(sizeof(struct tcp_chal) == 64, "chal is 64 bytes");
_Static_assert(sizeof(struct tcp_proof) == 40, "proof is 40 bytes");

/* The transport's state: per process, like mpi_proc (one MPI_Init). */
struct tcp_state {
	bool active;
	int me, n;
	int lfd;                   /* listener */
	char endpoint[64];
	uint32_t eager;
	bool keyed;
	unsigned char key[32];
	char jobid[40];
	struct tcp_peer *peers;
	struct tcp_pending *pend;
	size_t npend, cappend;
	struct pollfd *pfd;        /* poll set, rebuilt per poll */
	int *pfd_who;              /* >= 0 peer, -1 listener, -2 - i pending i */
	size_t pfd_cap;
	size_t backlog;            /* peers whose send queue is not empty */
	bool finishing;            /* in mpi_tcp_fini */
};
extern struct tcp_state mpi_tcp;

/* tcp_hs.c */
/* Starts connecting to w (state NONE): never blocks. */
void tcp_connect_start(int w);
/* Our connect() finished (POLLOUT): sends HELLO. */
void tcp_connect_done(int w);
/* Accepts what the listener has. */
int tcp_accept_all(void);
/* Reads pending connection i's HELLO; true when it was removed. */
bool tcp_pending_read(size_t i);
/* Consumes a handshake message at the front of w's receive buffer when
 * complete (states HELLO_SENT and INBOUND_HS): 1 done, 0 wait, the
 * state may have changed. */
int tcp_hs_step(int w);
void tcp_pending_close_all(void);

/* tcp_chan.c */
/* Writes what the socket takes of w's queue (state UP). */
void tcp_flush(int w);
/* Ends this rank: a message naming peer w, then _exit(1). */
void tcp_fatal(int w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void tcp_buf_drop(struct tcp_buf *b);
/* Socket options of every connection: no Nagle, keepalive. */
void tcp_sock_opts(int fd);

#endif
