/* Removing the event spaces of dead runs from /dev/shm: the scan, the
 * control sockets, the removal (trace/leftover.h; the rule is in
 * leftover_rule.c). */
#define _GNU_SOURCE
#include "trace/leftover.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/envvar.h"
#include "core/log.h"
#include "grove/error.h"
#include "trace/owner.h"
#include "trace/reader.h"
#include "trace/space.h"

void
trace_clean_policy_from_env(struct trace_clean_policy *p)
{
	static const char *const words[] = {"0", "off", "no", "false",
	                                    "1", "on", "yes", "true"};
	p->on = env_word("GROVE_TRACE_CLEAN", words, 8, 4) >= 4;
	p->min_age_ns = (uint64_t)TRACE_CLEAN_AGE_DEFAULT_S * 1000000000u;
	const char *s = getenv("GROVE_TRACE_CLEAN_AGE");
	if (!s || !*s)
		return;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || *s < '0' || *s > '9' ||
	    v > TRACE_CLEAN_AGE_MAX_S) {
		/* Said whatever GROVE_LOG is, as env_word does: a typo must
		 * not silently remove a flight recorder sooner than asked. */
		fprintf(stderr, "grove: GROVE_TRACE_CLEAN_AGE='%s' is not a "
		        "number of seconds in [0, %llu]; using %u\n", s,
		        (unsigned long long)TRACE_CLEAN_AGE_MAX_S,
		        TRACE_CLEAN_AGE_DEFAULT_S);
		return;
	}
	p->min_age_ns = v * 1000000000ull;
}

/* One of this user's segments in /dev/shm. */
struct entry {
	char name[128];
	char net[TRACE_NET_LEN];
	ino_t ino;            /* the file seen, so a replaced one is spared */
	int64_t mtime_ns;
};

static int
entry_cmp(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	return strcmp(a->net, b->net);
}

/* This user's segments in /dev/shm, sorted by network. */
static int
scan(struct entry **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return GROVE_ESYS;
	struct entry *v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		char role[TRACE_ROLE_LEN];
		uint32_t rank;
		struct entry e;
		struct stat st;
		if (trace_parse_name(de->d_name, e.net, sizeof e.net, role,
		                     sizeof role, &rank) ||
		    strlen(de->d_name) >= sizeof e.name ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !trace_owner_mine(&st))
			continue; /* not an event space of this user's */
		snprintf(e.name, sizeof e.name, "%s", de->d_name);
		e.ino = st.st_ino;
		e.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		             st.st_mtim.tv_nsec;
		if (cnt == cap) {
			cap = cap ? 2 * cap : 32;
			struct entry *nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				rc = GROVE_ENOMEM;
				break;
			}
			v = nv;
		}
		v[cnt++] = e;
	}
	closedir(d);
	if (rc) {
		free(v);
		return rc;
	}
	if (cnt)
		qsort(v, cnt, sizeof *v, entry_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

/* The networks whose front-end's control socket, the abstract Unix socket
 * "grove.<netid>.ctl" (tbon/fe_ctl.c), is bound: /proc/net/unix lists
 * them as "@grove.<netid>.ctl".  The whole file, NUL-free, in *text. */
static int
read_ctl_sockets(char **text)
{
	*text = NULL;
	FILE *f = fopen("/proc/net/unix", "re");
	if (!f)
		return GROVE_ESYS;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = m ? 0 : GROVE_ENOMEM;
	char chunk[8192];
	size_t got;
	while (rc == 0 && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (fwrite(chunk, 1, got, m) != got)
			rc = GROVE_ENOMEM;
	if (rc == 0 && ferror(f))
		rc = GROVE_ESYS;
	fclose(f);
	if (m && fclose(m) != 0 && rc == 0)
		rc = GROVE_ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	*text = buf;
	return 0;
}

/* 1 when "@grove.<net>.ctl" ends a line of /proc/net/unix. */
static int
ctl_bound(const char *text, const char *net)
{
	char want[TRACE_NET_LEN + 16];
	int n = snprintf(want, sizeof want, " @grove.%s.ctl", net);
	if (n <= 0 || (size_t)n >= sizeof want)
		return 1; /* cannot tell: count it as running */
	for (const char *p = text; (p = strstr(p, want)); p += n)
		if (p[n] == '\n' || p[n] == '\0')
			return 1;
	return 0;
}

/* What one segment's header says (trace_seg_life_of), read through a
 * descriptor that must still be the file scanned. */
static enum trace_seg_life
seg_life(const struct entry *e, int *kept, uint64_t *fini_mono_ns)
{
	*kept = 0;
	*fini_mono_ns = 0;
	int fd = shm_open(e->name, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0)
		/* Gone meanwhile counts as dead; anything else is unknown. */
		return errno == ENOENT ? TRACE_SEG_DEAD : TRACE_SEG_UNKNOWN;
	struct stat st;
	struct trace_header h;
	ssize_t got = -1;
	if (fstat(fd, &st) == 0 && trace_owner_mine(&st) && st.st_ino == e->ino)
		got = pread(fd, &h, sizeof h, 0);
	close(fd);
	if (got < 0)
		return TRACE_SEG_UNKNOWN;
	return trace_seg_life_of(&h, (size_t)got, e->name, trace_writer_alive,
	    kept, fini_mono_ns);
}

static void
note_removed(struct trace_clean_result *r, const char *net)
{
	size_t used = strlen(r->names);
	if (used + strlen(net) + 3 > sizeof r->names)
		return;
	snprintf(r->names + used, sizeof r->names - used, "%s%s",
	    used ? ", " : "", net);
	r->named++;
}

/* Removes the network's segments [v, v + n) that are still the files
 * scanned. */
static void
remove_net(const struct entry *v, size_t n, struct trace_clean_result *r)
{
	unsigned removed = 0;
	for (size_t i = 0; i < n; i++) {
		char path[160];
		struct stat st;
		snprintf(path, sizeof path, "/dev/shm/%s", v[i].name);
		/* A writer that replaced the file since (a new run that
		 * reused the name) keeps it. */
		if (lstat(path, &st) != 0 || st.st_ino != v[i].ino ||
		    !trace_owner_mine(&st))
			continue;
		if (shm_unlink(v[i].name) == 0)
			removed++;
		else if (errno != ENOENT)
			log_debug("trace: cannot remove leftover /dev/shm/%s: %s",
			    v[i].name, strerror(errno));
	}
	if (removed) {
		r->networks++;
		r->segments += removed;
		note_removed(r, v[0].net);
	}
}

int
trace_leftovers_clean(const struct trace_clean_policy *p,
    struct trace_clean_result *r)
{
	memset(r, 0, sizeof *r);
	if (!p->on)
		return 0;
	struct entry *v;
	size_t n;
	int rc = scan(&v, &n);
	if (rc) {
		snprintf(r->error, sizeof r->error, "cannot list /dev/shm: %s",
		    rc == GROVE_ESYS ? strerror(errno) : grove_strerror(rc));
		return rc;
	}
	char *ctl = NULL;
	struct timespec now, mono;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	int64_t now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	uint64_t mono_ns = (uint64_t)mono.tv_sec * 1000000000u +
	                   (uint64_t)mono.tv_nsec;
	for (size_t i = 0; i < n && rc == 0;) {
		size_t j = i;
		struct trace_net_facts f = {.newest_ns = INT64_MIN};
		for (; j < n && !strcmp(v[j].net, v[i].net); j++) {
			f.segments++;
			if (v[j].mtime_ns > f.newest_ns)
				f.newest_ns = v[j].mtime_ns;
		}
		/* Too recent for any of its headers to matter: not read. */
		if (!trace_net_removable(&f, now_ns, p->min_age_ns)) {
			i = j;
			continue;
		}
		for (size_t k = i; k < j && !f.live && !f.unknown && !f.kept;
		     k++) {
			int kept;
			uint64_t fini;
			enum trace_seg_life l = seg_life(&v[k], &kept, &fini);
			f.live += l == TRACE_SEG_LIVE;
			f.unknown += l == TRACE_SEG_UNKNOWN;
			f.kept += kept != 0;
			/* The fini on the realtime clock; one "later" than
			 * now (not this boot's) counts as now. */
			int64_t at = !fini ? INT64_MIN : fini >= mono_ns ?
			    now_ns : now_ns - (int64_t)(mono_ns - fini);
			if (at > f.newest_ns)
				f.newest_ns = at;
		}
		/* Read once, and only when some network may go. */
		if (!f.live && !f.unknown && !f.kept && !ctl &&
		    (rc = read_ctl_sockets(&ctl)) != 0) {
			snprintf(r->error, sizeof r->error, "cannot read "
			    "/proc/net/unix: %s", rc == GROVE_ESYS ?
			    strerror(errno) : grove_strerror(rc));
			break;
		}
		f.ctl_bound = ctl && ctl_bound(ctl, v[i].net);
		if (trace_net_removable(&f, now_ns, p->min_age_ns))
			remove_net(v + i, j - i, r);
		i = j;
	}
	free(ctl);
	free(v);
	return rc;
}

void
trace_leftovers_clean_auto(void)
{
	struct trace_clean_policy p;
	struct trace_clean_result r;
	trace_clean_policy_from_env(&p);
	if (trace_leftovers_clean(&p, &r) != 0)
		log_debug("trace: leftover event spaces not cleaned: %s",
		    r.error);
	if (r.segments)
		log_info("trace: removed %u leftover event space%s of %u "
		    "network%s whose processes are gone (%s%s)", r.segments,
		    r.segments == 1 ? "" : "s", r.networks,
		    r.networks == 1 ? "" : "s", r.names,
		    r.named < r.networks ? ", ..." : "");
}
