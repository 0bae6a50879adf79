/* The TCP transport's set-up: which transport the job uses, the
 * listener, the job key, and where the peers listen. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi/tcp_int.h"

struct tcp_state mpi_tcp = {.lfd = -1};

bool
mpi_tcp_active(void)
{
	return mpi_tcp.active;
}

const char *
mpi_tcp_endpoint(void)
{
	return mpi_tcp.active ? mpi_tcp.endpoint : "-";
}

uint32_t
mpi_tcp_eager(void)
{
	return mpi_tcp.eager;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The job key: HMAC-SHA256 keyed with the secret of grove run's
 * connection file (its "secret HEX" line, docs/api.md) over a label and
 * the job id, so the key proves membership of this job without reusing
 * the tree's secret as such.  No file or no secret: no key (the
 * handshake then checks the job id only). */
static void
load_key(void)
{
	const char *cf = getenv("GROVE_MPI_CONNECT");
	if (!cf || !*cf)
		return;
	FILE *f = fopen(cf, "re");
	if (!f)
		return;
	char line[256];
	unsigned char secret[32];
	bool have = false;
	while (!have && fgets(line, sizeof line, f)) {
		if (strncmp(line, "secret ", 7) != 0)
			continue;
		const char *h = line + 7;
		have = true;
		for (size_t i = 0; i < sizeof secret && have; i++) {
			int a = hexval(h[2 * i]), b = a < 0 ? -1 : hexval(h[2 * i + 1]);
			if (a < 0 || b < 0)
				have = false;
			else
				secret[i] = (unsigned char)(a << 4 | b);
		}
	}
	fclose(f);
	sodium_memzero(line, sizeof line);
	if (!have)
		return;
	char label[80];
	int n = snprintf(label, sizeof label, "grove-mpi tcp %s", mpi_tcp.jobid);
	crypto_auth_hmacsha256(mpi_tcp.key, (const unsigned char *)label,
	                       (unsigned long long)n, secret);
	sodium_memzero(secret, sizeof secret);
	mpi_tcp.keyed = true;
}

/* The address to listen on and to put on the card. */
static int
listen_addr(struct in_addr *out, char *err, size_t errlen)
{
	const char *a = getenv("GROVE_MPI_TCP_ADDR");
	if (a && *a) {
		if (inet_pton(AF_INET, a, out) != 1) {
			snprintf(err, errlen, "GROVE_MPI_TCP_ADDR=%s is not an IPv4 "
			         "address", a);
			return -1;
		}
		return 0;
	}
	const char *h = getenv("GROVE_MPI_TCP_HOST");
	if (h && *h) {
		struct addrinfo hints = {.ai_family = AF_INET,
		                         .ai_socktype = SOCK_STREAM};
		struct addrinfo *res = NULL;
		int rc = getaddrinfo(h, NULL, &hints, &res);
		if (rc != 0 || !res) {
			snprintf(err, errlen, "GROVE_MPI_TCP_HOST=%s does not resolve "
			         "to an IPv4 address: %s", h, gai_strerror(rc));
			return -1;
		}
		*out = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
		freeaddrinfo(res);
		if ((ntohl(out->s_addr) >> 24) == 127) {
			/* The other hosts would connect to themselves. */
			snprintf(err, errlen, "this host's name %s resolves to a "
			         "loopback address here, which ranks on other hosts "
			         "cannot reach: list hosts by names that resolve to "
			         "their network addresses (/etc/hosts, DNS)", h);
			return -1;
		}
		return 0;
	}
	out->s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

int
mpi_tcp_setup(int rank, int size, const char *jobid, char *err, size_t errlen)
{
	const char *t = getenv("GROVE_MPI_TRANSPORT");
	if (!t || !*t || !strcmp(t, "shm"))
		return 0;
	if (strcmp(t, "tcp") != 0) {
		snprintf(err, errlen, "GROVE_MPI_TRANSPORT=%s: the transports are "
		         "tcp and shm", t);
		return -1;
	}
	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium cannot start");
		return -1;
	}
	memset(&mpi_tcp, 0, sizeof mpi_tcp);
	mpi_tcp.lfd = -1;
	mpi_tcp.me = rank;
	mpi_tcp.n = size;
	snprintf(mpi_tcp.jobid, sizeof mpi_tcp.jobid, "%s", jobid);
	mpi_tcp.eager = MPI_TCP_EAGER_DEFAULT;
	const char *e = getenv("GROVE_MPI_TCP_EAGER");
	if (e && *e) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(e, &end, 10);
		if (errno || *end || v > MPI_TCP_EAGER_MAX) {
			snprintf(err, errlen, "GROVE_MPI_TCP_EAGER=%s: want bytes in "
			         "0..%u", e, MPI_TCP_EAGER_MAX);
			return -1;
		}
		mpi_tcp.eager = (uint32_t)v;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET};
	if (listen_addr(&sa.sin_addr, err, errlen) != 0)
		return -1;
	mpi_tcp.peers = calloc((size_t)size, sizeof *mpi_tcp.peers);
	if (!mpi_tcp.peers) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < size; i++)
		mpi_tcp.peers[i].fd = -1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	socklen_t sl = sizeof sa;
	char ip[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(fd, 128) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", ip,
		         strerror(errno));
		if (fd >= 0)
			close(fd);
		free(mpi_tcp.peers);
		mpi_tcp.peers = NULL;
		return -1;
	}
	mpi_tcp.lfd = fd;
	snprintf(mpi_tcp.endpoint, sizeof mpi_tcp.endpoint, "%s:%u", ip,
	         (unsigned)ntohs(sa.sin_port));
	load_key();
	mpi_tcp.active = true;
	return 0;
}

int
mpi_tcp_set_peer(int rank, const char *endpoint, const char *host, char *err,
                 size_t errlen)
{
	if (!mpi_tcp.active || rank < 0 || rank >= mpi_tcp.n)
		return 0;
	struct tcp_peer *p = &mpi_tcp.peers[rank];
	snprintf(p->host, sizeof p->host, "%s", host);
	const char *colon = strrchr(endpoint, ':');
	char ip[64];
	unsigned long port = 0;
	char *end = NULL;
	if (colon && (size_t)(colon - endpoint) < sizeof ip) {
		memcpy(ip, endpoint, (size_t)(colon - endpoint));
		ip[colon - endpoint] = '\0';
		port = strtoul(colon + 1, &end, 10);
	}
	p->sa.sin_family = AF_INET;
	if (!colon || !end || *end || port == 0 || port > 65535 ||
	    inet_pton(AF_INET, ip, &p->sa.sin_addr) != 1) {
		snprintf(err, errlen, "rank %d's card has no TCP endpoint "
		         "('%.60s'): was it started with another transport?",
		         rank, endpoint);
		return -1;
	}
	p->sa.sin_port = htons((uint16_t)port);
	p->have_sa = true;
	return 0;
}

void
mpi_tcp_say(FILE *f)
{
	fprintf(f, "grove-mpi: %d ranks over TCP (rank 0 at %s%s); eager up to "
	        "%u B, larger messages by rendezvous in %u KiB chunks; "
	        "connections made at the first message; waits sleep in poll() "
	        "on the sockets\n", mpi_tcp.n, mpi_tcp.endpoint,
	        mpi_tcp.keyed ? ", handshakes keyed by the job's secret" : "",
	        mpi_tcp.eager, MPI_TCP_CHUNK >> 10);
}
