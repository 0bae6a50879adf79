/* Removing the event spaces of dead runs (trace/leftover.h): what a
 * header says about its writer, which networks may go, the policy from
 * the environment, the kept mark a writer sets, and the cleaning itself
 * on segments this test makes in /dev/shm (dead, kept, live, with a
 * running front-end, too recent, unreadable, turned off). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "trace/leftover.h"
#include "trace/space.h"

#define SEC 1000000000ll

static int alive_answer;
static int32_t alive_pid_asked;
static uint64_t alive_init_asked;

static int
fake_alive(int32_t pid, uint64_t init_mono_ns)
{
	alive_pid_asked = pid;
	alive_init_asked = init_mono_ns;
	return alive_answer;
}

/* A header of this version as a writer of grove.NET.ROLE.RANK makes it. */
static void
make_header(struct trace_header *h, const char *net, const char *role,
            uint32_t rank, int32_t pid)
{
	memset(h, 0, sizeof *h);
	h->magic = TRACE_MAGIC;
	h->version = TRACE_VERSION;
	h->header_size = TRACE_HEADER_SIZE;
	snprintf(h->network_id, sizeof h->network_id, "%s", net);
	snprintf(h->role, sizeof h->role, "%s", role);
	h->rank = rank;
	h->pid = pid;
	h->calib_init.mono_ns = 12345;
}

static uint64_t fini;

static enum trace_seg_life
life(const struct trace_header *h, size_t got, const char *name, int *kept)
{
	return trace_seg_life_of(h, got, name, fake_alive, kept, &fini);
}

static void
test_life_of_header(void **state)
{
	(void)state;
	struct trace_header h;
	int kept = -1;
	const char *name = "grove.n1.be.3";
	make_header(&h, "n1", "be", 3, 4242);

	alive_answer = 1;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_LIVE);
	assert_int_equal(kept, 0);
	assert_int_equal(alive_pid_asked, 4242);
	assert_int_equal(alive_init_asked, 12345);
	alive_answer = 0;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_DEAD);

	assert_int_equal(fini, 0);

	/* Finished: dead whatever the pid says (a kept segment is read
	 * after its writer left; the pid may be reused), and when. */
	h.finished = 1;
	h.calib_fini.mono_ns = 987654321;
	alive_answer = 1;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_DEAD);
	assert_int_equal(fini, 987654321);
	/* A copy shipped from another host: its clock is not ours. */
	h.align_flags |= TRACE_ALIGN_SHIPPED;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_DEAD);
	assert_int_equal(fini, 0);
	h.align_flags = 0;
	h.kept = 1;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_DEAD);
	assert_int_equal(kept, 1);
	/* A header written before the kept mark existed ends before it. */
	kept = -1;
	assert_int_equal(life(&h, offsetof(struct trace_header, kept), name,
	                      &kept), TRACE_SEG_DEAD);
	assert_int_equal(kept, 0);
}

static void
test_life_of_odd_headers(void **state)
{
	(void)state;
	struct trace_header h;
	int kept;
	const char *name = "grove.n1.cp.0";

	/* A writer inside grove_trace_init: identity and pid, no magic. */
	make_header(&h, "n1", "cp", 0, 77);
	h.magic = 0;
	h.kept = 1; /* not written yet for real: not believed */
	alive_answer = 1;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_LIVE);
	assert_int_equal(alive_init_asked, 0);
	alive_answer = 0;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_DEAD);
	assert_int_equal(kept, 0);

	/* Nothing written yet, or not all of the identity. */
	memset(&h, 0, sizeof h);
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n1", "cp", 0, 77);
	assert_int_equal(life(&h, 0, name, &kept), TRACE_SEG_UNKNOWN);
	assert_int_equal(life(&h, offsetof(struct trace_header, pid), name,
	                      &kept), TRACE_SEG_UNKNOWN);

	/* Another version or layout: not ours to judge. */
	h.version = TRACE_VERSION + 1;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n1", "cp", 0, 77);
	h.header_size = 8192;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n1", "cp", 0, 77);
	h.magic = 0x1234;
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);

	/* A header that is not this name's. */
	make_header(&h, "n1", "cp", 1, 77);
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n2", "cp", 0, 77);
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n1", "be", 0, 77);
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n1", "cp", 0, 0);
	assert_int_equal(life(&h, sizeof h, name, &kept), TRACE_SEG_UNKNOWN);
	make_header(&h, "n1", "cp", 0, 77);
	assert_int_equal(life(&h, sizeof h, "grove.n1.cp", &kept),
	                 TRACE_SEG_UNKNOWN);
}

static void
test_net_removable(void **state)
{
	(void)state;
	int64_t now = 1000 * SEC;
	uint64_t age = 60 * SEC;
	struct trace_net_facts f = {.segments = 3, .newest_ns = now - 61 * SEC};
	assert_int_equal(trace_net_removable(&f, now, age), 1);

	struct trace_net_facts g = f;
	g.live = 1;
	assert_int_equal(trace_net_removable(&g, now, age), 0);
	g = f;
	g.unknown = 1;
	assert_int_equal(trace_net_removable(&g, now, age), 0);
	g = f;
	g.kept = 1;
	assert_int_equal(trace_net_removable(&g, now, age), 0);
	g = f;
	g.ctl_bound = 1;
	assert_int_equal(trace_net_removable(&g, now, age), 0);
	g = f;
	g.segments = 0;
	assert_int_equal(trace_net_removable(&g, now, age), 0);

	/* Age: at least min_age since the newest change. */
	g = f;
	g.newest_ns = now - 60 * SEC;
	assert_int_equal(trace_net_removable(&g, now, age), 1);
	g.newest_ns = now - 59 * SEC;
	assert_int_equal(trace_net_removable(&g, now, age), 0);
	assert_int_equal(trace_net_removable(&g, now, 0), 1);
	/* A change in the future is recent. */
	g.newest_ns = now + 3600 * SEC;
	assert_int_equal(trace_net_removable(&g, now, age), 0);
	assert_int_equal(trace_net_removable(&g, now, 0), 1);
}

static void
test_policy_from_env(void **state)
{
	(void)state;
	struct trace_clean_policy p;
	unsetenv("GROVE_TRACE_CLEAN");
	unsetenv("GROVE_TRACE_CLEAN_AGE");
	trace_clean_policy_from_env(&p);
	assert_int_equal(p.on, 1);
	assert_int_equal(p.min_age_ns,
	                 (uint64_t)TRACE_CLEAN_AGE_DEFAULT_S * SEC);

	const char *off[] = {"0", "off", "NO", "false"};
	for (size_t i = 0; i < 4; i++) {
		setenv("GROVE_TRACE_CLEAN", off[i], 1);
		trace_clean_policy_from_env(&p);
		assert_int_equal(p.on, 0);
	}
	setenv("GROVE_TRACE_CLEAN", "on", 1);
	trace_clean_policy_from_env(&p);
	assert_int_equal(p.on, 1);
	/* Not a word it knows: said on stderr, and the default (on). */
	setenv("GROVE_TRACE_CLEAN", "sometimes", 1);
	trace_clean_policy_from_env(&p);
	assert_int_equal(p.on, 1);
	unsetenv("GROVE_TRACE_CLEAN");

	setenv("GROVE_TRACE_CLEAN_AGE", "0", 1);
	trace_clean_policy_from_env(&p);
	assert_int_equal(p.min_age_ns, 0);
	setenv("GROVE_TRACE_CLEAN_AGE", "3600", 1);
	trace_clean_policy_from_env(&p);
	assert_int_equal(p.min_age_ns, 3600 * SEC);
	/* Not seconds: the default, never something shorter. */
	const char *bad[] = {"5m", "-1", "1e3", " 7", "99999999999999999999",
	                     "31622401"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("GROVE_TRACE_CLEAN_AGE", bad[i], 1);
		trace_clean_policy_from_env(&p);
		assert_int_equal(p.min_age_ns,
		                 (uint64_t)TRACE_CLEAN_AGE_DEFAULT_S * SEC);
	}
	setenv("GROVE_TRACE_CLEAN_AGE", "31622400", 1); /* the largest */
	trace_clean_policy_from_env(&p);
	assert_int_equal(p.min_age_ns, 31622400ull * SEC);
	unsetenv("GROVE_TRACE_CLEAN_AGE");
}

/* The kept mark of the segment name, as a reader sees it. */
static uint32_t
kept_mark(const char *name)
{
	char path[160];
	snprintf(path, sizeof path, "/dev/shm/%s", name);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct trace_header h;
	assert_int_equal(pread(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
	close(fd);
	return h.kept;
}

static void
test_keep_mark(void **state)
{
	(void)state;
	char net[64], name[128];
	unsetenv("GROVE_TRACE");
	unsetenv("GROVE_TRACE_KEEP");
	unsetenv("GROVE_MPI_TRACE_KEEP");
	assert_int_equal(trace_space_keep(), GROVE_ENOENT);

	snprintf(net, sizeof net, "lk%lda", (long)getpid());
	snprintf(name, sizeof name, "grove.%s.fe.0", net);
	assert_int_equal(grove_trace_init(net, "fe", 0), 0);
	assert_int_equal(kept_mark(name), 0);
	assert_int_equal(trace_space_keep(), 0);
	assert_int_equal(kept_mark(name), 1);
	grove_trace_fini(1);
	assert_int_equal(kept_mark(name), 1);
	shm_unlink(name);

	/* From the environment at init: the TBON's and grove run's. */
	const char *vars[] = {"GROVE_TRACE_KEEP", "GROVE_MPI_TRACE_KEEP"};
	for (int i = 0; i < 2; i++) {
		snprintf(net, sizeof net, "lk%ldb%d", (long)getpid(), i);
		snprintf(name, sizeof name, "grove.%s.mpi.1", net);
		setenv(vars[i], "1", 1);
		assert_int_equal(grove_trace_init(net, "mpi", 1), 0);
		unsetenv(vars[i]);
		assert_int_equal(kept_mark(name), 1);
		grove_trace_fini(1);
		shm_unlink(name);
	}
}

/* ---- the cleaning, on segments made here ---- */

static char nets[8][64];

/* A pid that no process has (a child that has been reaped). */
static int32_t
dead_pid(void)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return (int32_t)p;
}

/* Makes /dev/shm/grove.NET.ROLE.RANK with header h (NULL: a header page
 * of zeros), last changed `age_s` seconds ago (negative: in the future). */
static void
make_seg(const char *net, const char *role, uint32_t rank,
         const struct trace_header *h, long age_s)
{
	char path[160];
	snprintf(path, sizeof path, "/dev/shm/grove.%s.%s.%u", net, role, rank);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	static char page[TRACE_HEADER_SIZE];
	memset(page, 0, sizeof page);
	if (h)
		memcpy(page, h, sizeof *h);
	assert_int_equal(write(fd, page, sizeof page), (ssize_t)sizeof page);
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age_s;
	t[1] = t[0];
	assert_int_equal(futimens(fd, t), 0);
	close(fd);
}

static int
seg_there(const char *net, const char *role, uint32_t rank)
{
	char path[160];
	snprintf(path, sizeof path, "/dev/shm/grove.%s.%s.%u", net, role, rank);
	return access(path, F_OK) == 0;
}

static void
dead_seg(const char *net, const char *role, uint32_t rank, int32_t pid,
         int finished, int kept, long age_s)
{
	struct trace_header h;
	make_header(&h, net, role, rank, pid);
	h.finished = (uint32_t)finished;
	h.kept = (uint32_t)kept;
	make_seg(net, role, rank, &h, age_s);
}

static int
remove_all(void **state)
{
	(void)state;
	const char *roles[] = {"fe", "cp", "be", "mpi", "run"};
	for (size_t i = 0; i < 8; i++)
		for (size_t r = 0; r < 5; r++)
			for (uint32_t k = 0; k < 3; k++) {
				char name[160];
				snprintf(name, sizeof name, "grove.%s.%s.%u",
				         nets[i], roles[r], k);
				shm_unlink(name);
			}
	return 0;
}

static void
test_clean(void **state)
{
	(void)state;
	for (int i = 0; i < 8; i++)
		snprintf(nets[i], sizeof nets[i], "lc%ldn%d", (long)getpid(), i);
	remove_all(NULL);
	int32_t gone = dead_pid();
	int32_t me = (int32_t)getpid();

	/* 0: a killed run, long ago: fe and a back-end dead, a CP finished
	 * (kept for a front-end that was killed before it read it). */
	dead_seg(nets[0], "fe", 0, gone, 0, 0, 3600);
	dead_seg(nets[0], "cp", 0, gone, 1, 0, 3600);
	dead_seg(nets[0], "be", 0, gone, 0, 0, 7200);
	/* 1: the same, but one segment is kept (a grove run --keep-trace
	 * job: the ranks kept, the launcher's not marked). */
	dead_seg(nets[1], "run", 0, gone, 1, 0, 3600);
	dead_seg(nets[1], "mpi", 0, gone, 1, 1, 3600);
	/* 2: one process still runs (this one, which started before the
	 * segment was made: not a later process that got the pid). */
	dead_seg(nets[2], "fe", 0, gone, 0, 0, 3600);
	struct trace_header h;
	struct timespec mono;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	make_header(&h, nets[2], "be", 1, me);
	h.calib_init.mono_ns = (uint64_t)mono.tv_sec * SEC + (uint64_t)mono.tv_nsec;
	make_seg(nets[2], "be", 1, &h, 3600);
	/* 3: all dead, but its front-end runs: its control socket is bound
	 * (a front-end recording into a space of another name). */
	dead_seg(nets[3], "be", 0, gone, 1, 0, 3600);
	int ctl = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(ctl >= 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "grove.%s.ctl",
	                 nets[3]);
	assert_int_equal(bind(ctl, (struct sockaddr *)&a,
	                      (socklen_t)(offsetof(struct sockaddr_un,
	                      sun_path) + 1 + (size_t)n)), 0);
	assert_int_equal(listen(ctl, 1), 0);
	/* 4: dead, but one segment changed recently (in the future here, so
	 * that no slowness of the test can make it old). */
	dead_seg(nets[4], "fe", 0, gone, 0, 0, 3600);
	dead_seg(nets[4], "be", 0, gone, 0, 0, -3600);
	/* 5: a header nothing can be told from. */
	make_seg(nets[5], "be", 0, NULL, 3600);
	/* 6: dead, alone: removed too. */
	dead_seg(nets[6], "be", 2, gone, 0, 0, 3600);
	/* 7: old files, but one finished just now (a child that kept its
	 * space for a front-end that reads it now, its control socket
	 * already closed). */
	dead_seg(nets[7], "be", 0, gone, 0, 0, 3600);
	make_header(&h, nets[7], "be", 1, gone);
	h.finished = 1;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	h.calib_fini.mono_ns = (uint64_t)mono.tv_sec * SEC + (uint64_t)mono.tv_nsec;
	make_seg(nets[7], "be", 1, &h, 3600);

	struct trace_clean_policy p = {.on = 0, .min_age_ns = 60 * SEC};
	struct trace_clean_result r;
	/* Off: nothing goes. */
	assert_int_equal(trace_leftovers_clean(&p, &r), 0);
	assert_int_equal(r.segments, 0);
	assert_true(seg_there(nets[0], "fe", 0));

	p.on = 1;
	assert_int_equal(trace_leftovers_clean(&p, &r), 0);
	/* Other tests' leftovers may go too: only ours are counted here. */
	assert_true(r.networks >= 2 && r.segments >= 4);
	assert_false(seg_there(nets[0], "fe", 0));
	assert_false(seg_there(nets[0], "cp", 0));
	assert_false(seg_there(nets[0], "be", 0));
	assert_false(seg_there(nets[6], "be", 2));
	assert_true(seg_there(nets[1], "run", 0));
	assert_true(seg_there(nets[1], "mpi", 0));
	assert_true(seg_there(nets[2], "fe", 0));
	assert_true(seg_there(nets[2], "be", 1));
	assert_true(seg_there(nets[3], "be", 0));
	assert_true(seg_there(nets[4], "fe", 0));
	assert_true(seg_there(nets[4], "be", 0));
	assert_true(seg_there(nets[5], "be", 0));
	assert_true(seg_there(nets[7], "be", 0));
	assert_true(seg_there(nets[7], "be", 1));

	/* Its front-end gone, network 3 goes at the next cleaning.  (No
	 * cleaning here runs without a minimum age: it would remove what
	 * other tests running now have just made.) */
	close(ctl);
	assert_int_equal(trace_leftovers_clean(&p, &r), 0);
	assert_false(seg_there(nets[3], "be", 0));
	assert_true(seg_there(nets[4], "be", 0));
	assert_true(seg_there(nets[1], "mpi", 0));
	assert_true(seg_there(nets[2], "be", 1));
	assert_true(seg_there(nets[5], "be", 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_life_of_header),
		cmocka_unit_test(test_life_of_odd_headers),
		cmocka_unit_test(test_net_removable),
		cmocka_unit_test(test_policy_from_env),
		cmocka_unit_test(test_keep_mark),
		cmocka_unit_test_teardown(test_clean, remove_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
