/* Whose an event space is (internal).
 *
 * Event spaces are per user.  A segment's name (grove.<net>.<role>.<rank>)
 * proves nothing: the network id is not secret (the abstract socket
 * names in /proc/net/unix carry it) and /dev/shm is writable by every
 * local user.  So a reader takes only segments owned by its effective
 * uid, and a writer never takes over a file of another owner.  The
 * owner is read with fstat on the opened descriptor where a file is
 * read or written, so that the name cannot be swapped in between. */
#ifndef GROVE_TRACE_OWNER_H
#define GROVE_TRACE_OWNER_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* 1 when st is a regular file owned by this process's effective uid. */
int trace_owner_mine(const struct stat *st);

/* "uid 65534 (nobody)", or "uid 65534" when the uid has no name. */
void trace_owner_describe(uid_t uid, char *buf, size_t len);

/* Why st is not mine, to follow a file's name in a message: "belongs to
 * uid 65534 (nobody), not to this user (uid 1000)" or "is not a regular
 * file". */
void trace_owner_why(const struct stat *st, char *why, size_t len);

/* The owner check of a listing, on the name (fstatat, not following a
 * symbolic link) in the directory dfd: 1 mine, 0 not mine (the reason in
 * why, as trace_owner_why, when why is not NULL), -1 gone meanwhile.
 * Only a filter: whoever opens the file checks again on the descriptor. */
int trace_owner_check_at(int dfd, const char *name, char *why, size_t len);

#endif
