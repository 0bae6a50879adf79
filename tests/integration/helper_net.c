/* Shared helpers of the integration tests that build networks of
 * be_worker and talk to them: options, creation and teardown, streams,
 * receives and decoders, attached back-ends, event-space cleanup.
 */
#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* ---- networks --------------------------------------------------------- */

/* argv of spawned workers: the program name only. */
static char *const it_be_argv[] = {"be_worker", NULL};

void
it_net_opts(grove_net_opts *o, const char *topology, uint32_t backends)
{
	grove_net_opts_init(o);
	o->topology = topology;
	o->backends = backends;
	o->mode = GROVE_LAUNCH_SPAWN;
	o->be_exe = it_be_worker_path();
	o->be_argv = it_be_argv;
	o->commnode_exe = it_commnode_path();
}

void
it_attach_opts(grove_net_opts *o, const char *topology, uint32_t backends,
    const char *connect_file)
{
	it_net_opts(o, topology, backends);
	o->mode = GROVE_LAUNCH_ATTACH;
	o->be_exe = NULL;
	o->be_argv = NULL;
	o->connect_file = connect_file;
}

grove_net *
it_net_create(const grove_net_opts *o)
{
	grove_net *net = NULL;
	uint64_t t0 = it_now_ms();
	int rc = grove_net_create(o, &net);
	if (net)
		it_note_network(grove_net_id(net));
	if (rc != 0)
		IT_FAIL("grove_net_create(%s, %u backends%s%s) returned %s: %s",
		    o->topology ? o->topology : "flat", o->backends,
		    o->topology_file ? ", file " : "",
		    o->topology_file ? o->topology_file : "",
		    grove_err_name(rc),
		    net ? grove_net_last_error(net) : "(no network handle)");
	CHECK(net != NULL);
	it_step("network %s: %u backends up in %llu ms",
	    o->topology_file ? o->topology_file :
	    o->topology ? o->topology : "flat",
	    grove_net_backends(net), (unsigned long long)(it_now_ms() - t0));
	return net;
}

grove_net *
it_net_spawn(const char *topology, uint32_t backends)
{
	grove_net_opts o;
	it_net_opts(&o, topology, backends);
	return it_net_create(&o);
}

void
it_net_destroy(grove_net *net)
{
	uint64_t t0 = it_now_ms();
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
	it_step("network destroyed, no process left (%llu ms)",
	    (unsigned long long)(it_now_ms() - t0));
}

grove_stream *
it_stream(grove_net *net, const grove_comm *comm, const char *up,
    const char *sync)
{
	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	if (up)
		so.up_filter = up;
	if (sync)
		so.sync_filter = sync;
	CHECK_OK_NET(net, grove_stream_create(net,
	    comm ? comm : grove_net_comm_all(net), &so, &s));
	CHECK(s != NULL);
	return s;
}

grove_packet *
it_recv(grove_net *net, grove_stream *s, int32_t want_tag)
{
	grove_packet *p = NULL;
	int32_t tag = 0;
	CHECK_OK_NET(net, grove_stream_recv(s, &tag, &p, IT_RECV_MS));
	CHECK(p != NULL);
	CHECK_INT_EQ(tag, want_tag);
	CHECK_INT_EQ(grove_packet_tag(p), want_tag);
	return p;
}

/* The one int of packet p, which is released. */
static int32_t
take_int(grove_packet *p)
{
	int32_t v = 0;
	int rc = grove_packet_unpack(p, "%d", &v);
	if (rc != 0)
		IT_FAIL("unpack \"%%d\" from a \"%s\" packet: %s",
		    grove_packet_format(p), grove_err_name(rc));
	grove_packet_unref(p);
	return v;
}

int32_t
it_recv_int(grove_net *net, grove_stream *s, int32_t want_tag)
{
	grove_packet *p = it_recv(net, s, want_tag);
	return take_int(p);
}

void
it_check_rank_sum(grove_net *net)
{
	int64_t n = grove_net_backends(net);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), n * (n - 1) / 2);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

int32_t
it_recv_p2p_int(grove_net *net, uint32_t rank, int32_t want_tag)
{
	grove_stream *s = (grove_stream *)1;
	grove_packet *p = NULL;
	int32_t tag = 0;
	CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, IT_RECV_MS));
	CHECK(s == NULL);
	CHECK_INT_EQ(tag, want_tag);
	CHECK_UINT_EQ(grove_packet_src(p), rank);
	return take_int(p);
}

static int64_t
item_int(const grove_item *it, uint64_t i)
{
	switch (it->type) {
	case GROVE_T_INT8: return ((const int8_t *)it->data)[i];
	case GROVE_T_UINT8: return ((const uint8_t *)it->data)[i];
	case GROVE_T_INT16: return ((const int16_t *)it->data)[i];
	case GROVE_T_UINT16: return ((const uint16_t *)it->data)[i];
	case GROVE_T_INT32: return ((const int32_t *)it->data)[i];
	case GROVE_T_UINT32: return ((const uint32_t *)it->data)[i];
	case GROVE_T_INT64: return ((const int64_t *)it->data)[i];
	case GROVE_T_UINT64: return (int64_t)((const uint64_t *)it->data)[i];
	default: IT_FAIL("concat item of non-integer type %d", it->type);
	}
}

void
it_concat_decode(const grove_packet *p, it_concat *out)
{
	grove_item v, r;
	memset(out, 0, sizeof *out);
	int n = grove_packet_nitems(p);
	if (n < 1)
		IT_FAIL("concat result \"%s\" has %d items",
		    grove_packet_format(p), n);
	CHECK_OK(grove_packet_item(p, 0, &v));
	if (!v.is_array)
		IT_FAIL("concat result \"%s\": item 0 is not an array",
		    grove_packet_format(p));
	out->n = v.count;
	out->val = calloc(v.count + 1, sizeof *out->val);
	CHECK(out->val != NULL);
	for (uint64_t i = 0; i < v.count; i++)
		out->val[i] = item_int(&v, i);
	if (n >= 2) {
		CHECK_OK(grove_packet_item(p, 1, &r));
		if (!r.is_array || r.count != v.count)
			IT_FAIL("concat result \"%s\": item 1 has %llu ranks "
			    "for %llu values", grove_packet_format(p),
			    (unsigned long long)r.count,
			    (unsigned long long)v.count);
		out->rank = calloc(r.count + 1, sizeof *out->rank);
		CHECK(out->rank != NULL);
		for (uint64_t i = 0; i < r.count; i++)
			out->rank[i] = (uint32_t)item_int(&r, i);
	}
}

void
it_concat_free(it_concat *c)
{
	free(c->val);
	free(c->rank);
	memset(c, 0, sizeof *c);
}

void
it_wait_attached_exit(const pid_t *pids, uint32_t n, int ms)
{
	uint64_t end = it_now_ms() + (uint64_t)ms;
	for (uint32_t r = 0; r < n; r++) {
		int status = 0;
		pid_t w;
		while ((w = waitpid(pids[r], &status, WNOHANG)) == 0 &&
		    it_now_ms() < end)
			it_sleep_ms(10);
		if (w != pids[r])
			IT_FAIL("attached BE rank %u (pid %d) still running "
			    "%d ms after grove_net_destroy", r, (int)pids[r], ms);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			IT_FAIL("attached BE rank %u ended with status 0x%x",
			    r, (unsigned)status);
	}
}

void
it_remove_segments(const char *netid)
{
	char prefix[96];
	int pl = snprintf(prefix, sizeof prefix, "grove.%s.", netid);
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, (size_t)pl))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

pid_t
it_start_attached_be(const char *file, uint32_t rank)
{
	char exe[4096], r[16];
	it_build_path("be_worker", exe, sizeof exe);
	snprintf(r, sizeof r, "%u", rank);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		execl(exe, "be_worker", "--attach", file, "--rank", r,
		    (char *)NULL);
		_exit(127);
	}
	return pid;
}

pid_t
it_start_attached_be_to(const grove_attach_info *ai, uint32_t backends,
    const char *secret_hex)
{
	char exe[4096], port[16], parent[16], node[16], rank[16], nb[16];
	it_build_path("be_worker", exe, sizeof exe);
	snprintf(port, sizeof port, "%u", (unsigned)ai->port);
	snprintf(parent, sizeof parent, "%u", ai->parent);
	snprintf(node, sizeof node, "%u", ai->node);
	snprintf(rank, sizeof rank, "%u", ai->rank);
	snprintf(nb, sizeof nb, "%u", backends);
	int fds[2];
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(fds[1]);
		if (dup2(fds[0], 0) < 0)
			_exit(127);
		close(fds[0]);
		execl(exe, "be_worker", "--attach-to", ai->host, port, parent,
		    node, "--rank", rank, "--backends", nb, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	/* One short line: it fits the pipe's buffer, so this never blocks. */
	size_t len = strlen(secret_hex);
	int ok = write(fds[1], secret_hex, len) == (ssize_t)len &&
	    write(fds[1], "\n", 1) == 1;
	close(fds[1]);
	CHECK(ok);
	return pid;
}

int
it_dial(const char *host, uint16_t port)
{
	char ps[16];
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	snprintf(ps, sizeof ps, "%u", port);
	int rc = getaddrinfo(host, ps, &hints, &ai);
	if (rc != 0)
		IT_FAIL("getaddrinfo(%s): %s", host, gai_strerror(rc));
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		IT_FAIL("connect %s:%s: %s", host, ps, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}
