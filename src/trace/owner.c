/* Whose an event space is: see trace/owner.h. */
#define _GNU_SOURCE
#include "trace/owner.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
trace_owner_mine(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

void
trace_owner_describe(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];
	if (getpwuid_r(uid, &pw, tmp, sizeof tmp, &res) == 0 && res &&
	    res->pw_name)
		snprintf(buf, len, "uid %u (%s)", (unsigned)uid, res->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

void
trace_owner_why(const struct stat *st, char *why, size_t len)
{
	if (st->st_uid == geteuid()) {
		snprintf(why, len, "is not a regular file");
		return;
	}
	char who[160];
	trace_owner_describe(st->st_uid, who, sizeof who);
	snprintf(why, len, "belongs to %s, not to this user (uid %u)", who,
	         (unsigned)geteuid());
}

int
trace_owner_check_at(int dfd, const char *name, char *why, size_t len)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return -1;
		if (why && len)
			snprintf(why, len, "cannot be examined (%s)",
			         strerror(errno));
		return 0;
	}
	if (trace_owner_mine(&st))
		return 1;
	if (why && len)
		trace_owner_why(&st, why, len);
	return 0;
}
