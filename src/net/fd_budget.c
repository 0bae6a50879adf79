/* Descriptors for the links of local children (see fd_budget.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "net/fd_budget.h"

/* Per child: its link pipes and spawn_child's start-up pipes (stdin and
 * the exec-error pipe), all held at once while it starts. */
#define FDS_STARTING 8
/* What the rest of a start-up opens besides links: a connection's
 * accept before it is matched to a child, trace files, log files, the
 * tool's own. */
#define FDS_SPARE 16
/* Without /proc, descriptors up to this are probed one by one. */
#define FDS_PROBE_MAX 65536

static uint64_t
open_count(uint64_t limit)
{
	uint64_t n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		const struct dirent *e;
		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		return n ? n - 1 : 0; /* the directory's own descriptor */
	}
	uint64_t top = limit < FDS_PROBE_MAX ? limit : FDS_PROBE_MAX;
	for (uint64_t fd = 0; fd < top; fd++)
		n += fcntl((int)fd, F_GETFD) != -1;
	return n;
}

void
fd_budget_init(fd_budget *b)
{
	struct rlimit rl;
	b->limit = UINT64_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		b->limit = (uint64_t)rl.rlim_cur;
	b->used = open_count(b->limit);
}

int
fd_budget_pipes_fit(const fd_budget *b, uint32_t after)
{
	if (b->limit == UINT64_MAX)
		return 1;
	return b->used + FDS_STARTING + after + FDS_SPARE <= b->limit;
}

void
fd_budget_take(fd_budget *b, int pipes)
{
	b->used += pipes ? 2 : 1;
}
