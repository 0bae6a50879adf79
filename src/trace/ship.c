/* Recreating event spaces shipped from other hosts (see trace_impl.h). */
#define _GNU_SOURCE /* renameat2 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "grove/error.h"
#include "trace/owner.h"
#include "trace/reader.h"
#include "trace/space.h"
#include "trace/trace_impl.h"

/* Larger shipped segments are refused (64 rings of 2^22 tuples fit). */
#define SHIP_MAX_SIZE (16ull << 30)

static uint64_t
get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* A segment name readers list: "grove.<net>.<role>.<rank>", in
 * characters that are safe in a file name. */
static int
name_ok(const char *name)
{
	size_t l = strlen(name);
	char net[128], role[64];
	uint32_t rank;
	if (l < 7 || l > 120 || trace_parse_name(name, net, sizeof net, role,
	    sizeof role, &rank) != 0)
		return 0;
	for (size_t i = 0; i < l; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

/* Walks the chunks; with fd >= 0 also writes them. */
static int
walk(const uint8_t *buf, size_t len, uint64_t size, int fd)
{
	size_t pos = 8;
	int saw_header = 0;
	while (pos < len) {
		if (len - pos < 16)
			return GROVE_EPROTO;
		uint64_t off = get_u64(buf + pos), n = get_u64(buf + pos + 8);
		pos += 16;
		if (n > len - pos || off > size || n > size - off)
			return GROVE_EPROTO;
		if (off == 0 && n >= TRACE_HEADER_SIZE)
			saw_header = 1;
		if (fd >= 0 && n && pwrite(fd, buf + pos, (size_t)n, (off_t)off) !=
		    (ssize_t)n)
			return GROVE_ESYS;
		pos += (size_t)n;
	}
	return saw_header ? 0 : GROVE_EPROTO;
}

static int materialize(const char *name, const uint8_t *buf, size_t len,
                       int replace);

int
trace_space_materialize(const char *name, const uint8_t *buf, size_t len)
{
	return materialize(name, buf, len, 0);
}

int
trace_space_materialize_replace(const char *name, const uint8_t *buf,
                                size_t len)
{
	return materialize(name, buf, len, 1);
}

/* The bytes are written under a staging name that readers do not list,
 * checked as a reader checks a segment (trace_seg_open: magic, version,
 * every size and offset against the file), and only then renamed to
 * `name`: a bad snapshot never appears, and a replacement that fails
 * leaves the previous copy in place. */
static int
materialize(const char *name, const uint8_t *buf, size_t len, int replace)
{
	if (!name || !buf || !name_ok(name))
		return GROVE_EINVAL;
	if (len < 8)
		return GROVE_EPROTO;
	uint64_t size = get_u64(buf);
	if (size < TRACE_HEADER_SIZE || size > SHIP_MAX_SIZE)
		return GROVE_EPROTO;
	int rc = walk(buf, len, size, -1);
	if (rc != 0)
		return rc;
	char stage[160], from[180], to[180];
	snprintf(stage, sizeof stage, "grove-in.%ld.%s", (long)getpid(), name);
	snprintf(from, sizeof from, "/dev/shm/%s", stage);
	snprintf(to, sizeof to, "/dev/shm/%s", name);
	shm_unlink(stage); /* left by a copy that died half-way */
	/* Above the file size limit ftruncate would raise SIGXFSZ. */
	if (trace_fsize_fits(size) != 0)
		return GROVE_ESYS;
	int fd = shm_open(stage, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return GROVE_ESYS;
	rc = ftruncate(fd, (off_t)size) != 0 ? GROVE_ESYS :
	    walk(buf, len, size, fd);
	close(fd);
	if (rc == 0) {
		struct trace_seg seg;
		char why[256];
		if (trace_seg_open(stage, &seg, why, sizeof why) != 0)
			rc = GROVE_EPROTO;
		else
			trace_seg_close(&seg);
	}
	/* Never over another user's file (trace/owner.h), root or not: a
	 * copy that replaces goes over an existing segment only once that
	 * one is seen to be this user's (which no other user can remove or
	 * swap in sticky /dev/shm). */
	if (rc == 0 && renameat2(AT_FDCWD, from, AT_FDCWD, to,
	    RENAME_NOREPLACE) != 0) {
		rc = errno == EEXIST ? GROVE_EINVAL : GROVE_ESYS;
		if (rc == GROVE_EINVAL && replace) {
			char why[200];
			int mine = trace_owner_check_at(AT_FDCWD, to, why,
			                                sizeof why);
			if (mine > 0)
				rc = rename(from, to) == 0 ? 0 : GROVE_ESYS;
			else if (mine == 0)
				fprintf(stderr, "grove trace: not replacing %s: it "
				        "%s\n", to, why);
		}
	}
	if (rc != 0)
		shm_unlink(stage);
	return rc;
}
