/* Another local user around a network.  The network id is not secret: the
 * node sockets that carry it are listed in /proc/net/unix.
 *
 * - The front-end's control socket (@grove.<netid>.ctl) is bound before
 *   the front-end's node socket shows the id, so nobody can bind the name
 *   first: a thread watches /proc/net/unix while grove_net_create runs.
 * - `grove trace dump --collect` talks only to a control socket of its own
 *   user (or root): one bound by a process of another uid (nobody) is
 *   refused with a message, and that process gets no request.
 * - The front-end's clean-up at exit (with a collection asked for) leaves
 *   a file named like one of its segments that another user owns.
 * The last two need another uid, which only root can take or give; as
 * any other user they say so and are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"

#define OTHER_UID 65534 /* nobody */

/* ---- the control socket is there before the id shows ---- */

struct watch {
	volatile int stop;
	int seen;          /* the FE's node socket was seen */
	int ctl_there;     /* ... and the control socket was there then */
	int during_create; /* ... while grove_net_create had not returned */
	volatile int created;
	char netid[64];
};

/* The whole of /proc/net/unix (malloc'd). */
static char *
unix_sockets(void)
{
	FILE *f = fopen("/proc/net/unix", "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - 1 - len, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* The network id of this process's front-end node socket
 * (@grove.<netid>.0.<pid>) in the listing s, or 0. */
static int
fe_node_socket(const char *s, char *netid, size_t len)
{
	char tail[32];
	snprintf(tail, sizeof tail, ".0.%d\n", (int)getpid());
	for (const char *p = strstr(s, "@grove."); p; p = strstr(p + 1,
	    "@grove.")) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		const char *id = p + 7, *dot = strchr(id, '.');
		size_t tl = strlen(tail);
		if (dot && dot < nl && (size_t)(nl + 1 - dot) == tl &&
		    !strncmp(dot, tail, tl) && (size_t)(dot - id) < len) {
			memcpy(netid, id, (size_t)(dot - id));
			netid[dot - id] = 0;
			return 1;
		}
	}
	return 0;
}

static void *
watcher(void *arg)
{
	struct watch *w = arg;
	while (!w->stop) {
		int during = !w->created;
		char *s = unix_sockets();
		char id[64];
		if (s && fe_node_socket(s, id, sizeof id)) {
			/* The listing is not one snapshot: read again, so that
			 * a control socket bound before the node socket is
			 * surely in it. */
			free(s);
			s = unix_sockets();
			char want[96];
			snprintf(want, sizeof want, "@grove.%s.ctl\n", id);
			w->ctl_there = s && strstr(s, want) != NULL;
			w->during_create = during;
			snprintf(w->netid, sizeof w->netid, "%s", id);
			w->seen = 1;
			free(s);
			return NULL;
		}
		free(s);
	}
	return NULL;
}

static void
ctl_before_id(void)
{
	it_step("the control socket is bound before the id shows");
	struct watch w;
	memset(&w, 0, sizeof w);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, watcher, &w) == 0);
	grove_net *net = it_net_spawn("kary:2", 8);
	w.created = 1;
	/* Seen at the latest now: the node socket stays while the network
	 * runs. */
	uint64_t until = it_now_ms() + 10000;
	while (!w.seen && it_now_ms() < until)
		usleep(1000);
	w.stop = 1;
	pthread_join(t, NULL);
	CHECK(w.seen);
	CHECK(strcmp(w.netid, grove_net_id(net)) == 0);
	CHECK(w.ctl_there);
	if (!w.during_create)
		it_step("(the node socket was first seen after create "
		    "returned: the order was not observed this time)");
	it_net_destroy(net);
}

/* ---- a control socket of another user ---- */

/* Runs `grove ARGS...` with stderr into err_path; its exit status. */
static int
run_grove(const char *const *args, const char *err_path)
{
	char grove[4096];
	it_build_path("grove", grove, sizeof grove);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		char *argv[16];
		int i = 0;
		argv[i++] = grove;
		for (; args[i - 1] && i < 15; i++)
			argv[i] = (char *)args[i - 1];
		argv[i] = NULL;
		execv(grove, argv);
		_exit(127);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The squatter: as OTHER_UID, binds @name, says 'R' on ready, then
 * answers one client "ok 7 7 7" and reports on report what that client
 * sent ("" when it sent nothing before closing). */
static void
squatter(const char *name, int ready, int report)
{
	if (setgroups(0, NULL) != 0 || setresgid(OTHER_UID, OTHER_UID,
	    OTHER_UID) != 0 || setresuid(OTHER_UID, OTHER_UID, OTHER_UID) != 0)
		_exit(3);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	size_t n = strlen(name);
	memcpy(sa.sun_path + 1, name, n);
	if (l < 0 || bind(l, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0 ||
	    listen(l, 4) != 0)
		_exit(4);
	if (write(ready, "R", 1) != 1)
		_exit(5);
	int c = accept(l, NULL, NULL);
	if (c < 0)
		_exit(6);
	char req[128];
	ssize_t got = 0, r;
	/* Whatever the client sends before it closes (or 5 s of silence:
	 * only a bound on a hang; the client decides before it writes). */
	struct pollfd p = {c, POLLIN, 0};
	while (got < (ssize_t)sizeof req - 1 && poll(&p, 1, 5000) == 1 &&
	    (r = read(c, req + got, sizeof req - 1 - (size_t)got)) > 0) {
		got += r;
		if (memchr(req, '\n', (size_t)got)) {
			const char *ans = "ok 7 7 7\n";
			if (write(c, ans, strlen(ans)) < 0)
				break;
		}
	}
	if (write(report, req, (size_t)got) < 0)
		_exit(7);
	_exit(0);
}

static void
foreign_ctl(void)
{
	it_step("a control socket held by another user is refused");
	char net[64], name[96], err[4096], path[4096];
	snprintf(net, sizeof net, "itfu%dx%lx", (int)getpid(),
	    (unsigned long)it_now_ms());
	snprintf(name, sizeof name, "grove.%s.ctl", net);
	snprintf(err, sizeof err, "%s/collect.err", it_tmpdir());
	snprintf(path, sizeof path, "%s/collect.json", it_tmpdir());
	int ready[2], report[2];
	CHECK(pipe(ready) == 0 && pipe(report) == 0);
	pid_t sq = fork();
	CHECK(sq >= 0);
	if (sq == 0) {
		close(ready[0]);
		close(report[0]);
		squatter(name, ready[1], report[1]);
	}
	close(ready[1]);
	close(report[1]);
	char c = 0;
	CHECK_INT_EQ(read(ready[0], &c, 1), 1);
	const char *args[] = {"trace", "dump", "--net", net, "--collect",
	    "--timeout", "1000", "-o", path, NULL};
	int rc = run_grove(args, err);
	char *msg = it_slurp(err);
	CHECK_INT_EQ(rc, 1);
	CHECK_STR_CONTAINS(msg, "is someone else's");
	char who[64];
	snprintf(who, sizeof who, "uid %d", OTHER_UID);
	CHECK_STR_CONTAINS(msg, who);
	free(msg);
	char req[128];
	ssize_t got = read(report[0], req, sizeof req - 1);
	CHECK(got >= 0);
	req[got] = 0;
	if (got)
		IT_FAIL("the other user's socket was asked: \"%s\"", req);
	int st;
	CHECK(waitpid(sq, &st, 0) == sq);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(ready[0]);
	close(report[0]);
}

/* ---- the front-end's clean-up at exit ---- */

static void
foreign_segment_at_exit(void)
{
	it_step("the clean-up at exit leaves another user's file");
	char dump[4096], seg[256];
	snprintf(dump, sizeof dump, "%s/exit.json", it_tmpdir());
	setenv("GROVE_TRACE_DUMP", dump, 1);
	grove_net *net = it_net_spawn("flat", 2);
	snprintf(seg, sizeof seg, "/dev/shm/grove.%s.be.9", grove_net_id(net));
	int fd = open(seg, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	CHECK(fchown(fd, OTHER_UID, OTHER_UID) == 0);
	close(fd);
	it_net_destroy(net);
	unsetenv("GROVE_TRACE_DUMP");
	struct stat st;
	int there = stat(seg, &st) == 0;
	unlink(seg);
	CHECK(there);
	CHECK_INT_EQ(st.st_uid, OTHER_UID);
	/* The network's own event spaces went as before. */
	char *j = it_slurp(dump);
	CHECK_STR_CONTAINS(j, "\"be 1\"");
	free(j);
}

int
main(void)
{
	it_init("it_foreign_user", 0);
	ctl_before_id();
	if (geteuid() != 0) {
		it_step("skipped the rest: only root can act as another user");
		return it_done();
	}
	foreign_ctl();
	foreign_segment_at_exit();
	return it_done();
}
