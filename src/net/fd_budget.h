/* Whether a local child's link can be a pair of pipes (internal).
 *
 * Pipes take two descriptors per child for good, and four while it is
 * being started, besides the four that spawn_child takes for its own
 * start-up; a Unix socket takes one.  A parent that gave pipes to its
 * first children until pipe2 failed would then have nothing left for the
 * next child's start-up, nor for the sockets of the rest, and the whole
 * launch would fail where sockets for all would have worked.  So pipes go
 * to a child only while, after it, every child still to come can have a
 * socket and the start-up its descriptors. */
#ifndef GROVE_FD_BUDGET_H
#define GROVE_FD_BUDGET_H

#include <stdint.h>

/* Descriptors a launch may take: the soft RLIMIT_NOFILE, and how many
 * are open or promised to children already started. */
typedef struct fd_budget {
	uint64_t limit; /* UINT64_MAX: no limit */
	uint64_t used;
} fd_budget;

/* Counts what is open now (call right before starting the children). */
void fd_budget_init(fd_budget *b);

/* 1 if the next child may have pipes when `after` children come after it
 * (each of them needs at least a socket). */
int fd_budget_pipes_fit(const fd_budget *b, uint32_t after);

/* Records the next child's link: pipes (two descriptors) or a socket
 * (one, when it connects). */
void fd_budget_take(fd_budget *b, int pipes);

#endif
