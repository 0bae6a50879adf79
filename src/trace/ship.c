/* Recreating event spaces shipped from other hosts (see trace_impl.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "grove/error.h"
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

static int
name_ok(const char *name)
{
	size_t l = strlen(name);
	if (l < 7 || l > 200 || strncmp(name, "grove.", 6))
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
	if (replace)
		shm_unlink(name);
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? GROVE_EINVAL : GROVE_ESYS;
	if (ftruncate(fd, (off_t)size) != 0 || walk(buf, len, size, fd) != 0) {
		close(fd);
		shm_unlink(name);
		return GROVE_ESYS;
	}
	close(fd);
	return 0;
}
