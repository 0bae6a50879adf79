/* The front-end's exit-time export (GROVE_TRACE_DUMP, GROVE_TRACE_STATS)
 * when the process's event space carries another name than the network:
 * a tool that called grove_trace_init itself before creating the network
 * records everything into its own space (grove.<tool>.tool.0), and a
 * second network's front-end records into the first one's
 * grove.<first>.fe.0.  The export must hold the front-end's tuples (its
 * api.send / api.recv) and whatever else the process recorded there (the
 * tool's user tuples), whether that space is still in use (read as it
 * stands) or was finished by this destroy (read final).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "grove/trace.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* 1 when /dev/shm holds segment grove.<net>.<role>.<rank>. */
static int
segment_exists(const char *net, const char *role, unsigned rank)
{
	char name[160];
	snprintf(name, sizeof name, "/grove.%s.%s.%u", net, role, rank);
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Lines of a text dump whose process label is `label` and whose
 * collector is `collector` (tab-separated fields: label, ring, tid,
 * start, duration, op, collector, layer, where, seq, result). */
static int
rows(const char *dump, const char *label, const char *collector)
{
	int k = 0;
	for (const char *l = dump; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)n, l);
		char *f[7] = {0}, *save = NULL;
		f[0] = strtok_r(line, "\t", &save);
		for (int i = 1; i < 7 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, "\t", &save);
		if (f[6] && !strcmp(f[0], label) && !strcmp(f[6], collector))
			k++;
		l = end ? end + 1 : NULL;
	}
	return k;
}

/* `waves` reductions of the ranks on a new sum stream. */
static void
waves(grove_net *net, int waves)
{
	uint32_t n = grove_net_backends(net);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	for (int i = 0; i < waves; i++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK),
		    (int64_t)n * (n - 1) / 2);
	}
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
dump_to(const char *path)
{
	setenv("GROVE_TRACE_DUMP", path, 1);
	setenv("GROVE_TRACE_FORMAT", "text", 1);
}

static void
no_dump(void)
{
	unsetenv("GROVE_TRACE_DUMP");
	unsetenv("GROVE_TRACE_FORMAT");
	unsetenv("GROVE_TRACE_STATS");
}

/* A tool that opened its own event space before the network.  With
 * fini_first the tool ends its share first, so the network's destroy
 * finishes the space and reads it final; otherwise it reads it while
 * the tool still holds it. */
static void
tool_space(int fini_first)
{
	it_step("--- a tool's own event space, %s", fini_first ?
	    "finished by the network's destroy" : "still the tool's after it");
	char tool[64];
	snprintf(tool, sizeof tool, "itown%d%s", (int)getpid(),
	    fini_first ? "f" : "l");
	/* Removed at exit if the test fails before the space goes. */
	it_note_network(tool);
	CHECK_OK(grove_trace_init(tool, "tool", 0));
	grove_net *net = it_net_spawn("flat", 2);
	char id[64];
	snprintf(id, sizeof id, "%s", grove_net_id(net));
	/* The front-end joined the tool's space. */
	CHECK(segment_exists(tool, "tool", 0));
	CHECK(!segment_exists(id, "fe", 0));
	grove_trace_collector c;
	CHECK_OK(grove_trace_user_register(&c, "it_tool_user"));
	for (int i = 0; i < 5; i++)
		grove_trace_instant(&c, GROVE_OP_USER, i);
	waves(net, 2);
	if (fini_first)
		grove_trace_fini(0);

	char path[4096], stats[4096];
	snprintf(path, sizeof path, "%s/%s.txt", it_tmpdir(), tool);
	snprintf(stats, sizeof stats, "%s/%s.stats", it_tmpdir(), tool);
	dump_to(path);
	setenv("GROVE_TRACE_STATS", stats, 1);
	it_net_destroy(net);
	no_dump();

	char *d = it_slurp(path);
	it_step("dump: %d tool rows of api.send, %d of api.recv, %d user",
	    rows(d, "tool 0", "api.send"), rows(d, "tool 0", "api.recv"),
	    rows(d, "tool 0", "it_tool_user"));
	/* The front-end's calls (two waves) and the tool's five instants,
	 * beside the back-ends. */
	CHECK(rows(d, "tool 0", "api.send") >= 2);
	CHECK(rows(d, "tool 0", "api.recv") >= 2);
	CHECK_INT_EQ(rows(d, "tool 0", "it_tool_user"), 5);
	CHECK(rows(d, "be 0", "api.recv") >= 2);
	CHECK(rows(d, "be 1", "api.recv") >= 2);
	free(d);
	char *st = it_slurp(stats);
	CHECK_STR_CONTAINS(st, "tool 0");
	free(st);

	/* The network's segments are gone; the tool's space is the tool's
	 * until its own fini, or was removed with its last user. */
	CHECK(!segment_exists(id, "be", 0));
	CHECK(!segment_exists(id, "be", 1));
	CHECK_INT_EQ(segment_exists(tool, "tool", 0), !fini_first);
	if (!fini_first) {
		CHECK(grove_trace_enabled());
		grove_trace_fini(0);
		CHECK(!segment_exists(tool, "tool", 0));
	}
	CHECK(!grove_trace_enabled());
}

/* Two networks in one process: the second's front-end records into the
 * first's grove.<a>.fe.0.  Whichever goes first, each export holds the
 * front-end rows of its own network. */
static void
two_networks(int second_first)
{
	it_step("--- two networks, %s destroyed first",
	    second_first ? "the second" : "the first");
	grove_net *a = it_net_spawn("flat", 1);
	grove_net *b = it_net_spawn("flat", 2);
	char ida[64];
	snprintf(ida, sizeof ida, "%s", grove_net_id(a));
	CHECK(segment_exists(ida, "fe", 0));
	CHECK(!segment_exists(grove_net_id(b), "fe", 0));
	/* One wave on a, three on b: b's export holds more front-end sends
	 * than a alone made. */
	waves(a, 1);
	waves(b, 3);

	char pa[4096], pb[4096];
	snprintf(pa, sizeof pa, "%s/two-%d-a.txt", it_tmpdir(), second_first);
	snprintf(pb, sizeof pb, "%s/two-%d-b.txt", it_tmpdir(), second_first);
	grove_net *first = second_first ? b : a;
	grove_net *other = second_first ? a : b;
	/* Not it_net_destroy for the first: the other's processes remain. */
	dump_to(first == a ? pa : pb);
	grove_net_destroy(first);
	CHECK(segment_exists(ida, "fe", 0));
	dump_to(other == a ? pa : pb);
	it_net_destroy(other);
	no_dump();
	CHECK(!segment_exists(ida, "fe", 0));

	char *da = it_slurp(pa), *db = it_slurp(pb);
	it_step("a's dump: %d front-end rows of api.send; b's: %d",
	    rows(da, "fe 0", "api.send"), rows(db, "fe 0", "api.send"));
	CHECK(rows(da, "fe 0", "api.send") >= 1);
	CHECK(rows(db, "fe 0", "api.send") >= 3);
	CHECK(rows(db, "fe 0", "api.recv") >= 3);
	CHECK(rows(db, "be 1", "api.recv") >= 3);
	free(da);
	free(db);
	CHECK(!grove_trace_enabled());
}

int
main(void)
{
	it_init("it_trace_own_space", 200);
	no_dump();
	tool_space(0);
	tool_space(1);
	two_networks(0);
	two_networks(1);
	return it_done();
}
