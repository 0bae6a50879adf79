/* grove run: the ranks' output, forwarded line by line.
 *
 * Every rank has its own pipes, and the launcher writes only whole lines
 * (each batch in one write loop of its own), so a line of one rank is
 * never cut by another's.  A line longer than RUN_IO_MAX is written in
 * pieces of that size; the last partial line of a stream is written when
 * the stream ends. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

#define RUN_IO_MAX (64u << 10)
#define RUN_IO_READ (16u << 10)

/* Writes all of buf to fd (blocking: a slow terminal holds the ranks
 * back through their pipes, which is the back-pressure we want).  A
 * failed descriptor (a closed pipe: `grove run ... | head`) drops the
 * rest of that stream's output; the job goes on. */
static void
write_all(struct run_io *io, int which, const char *buf, size_t len)
{
	int fd = which == 1 ? 1 : 2;
	if (io->broken[which - 1])
		return;
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w > 0) {
			buf += w;
			len -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && errno == EAGAIN) {
			/* Our stdout may be a non-blocking descriptor someone
			 * else shares. */
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			poll(&p, 1, 1000);
		} else {
			io->broken[which - 1] = true;
			return;
		}
	}
}

/* Writes buf[0..len) (whole lines, or a forced piece), tagged if asked. */
static void
emit(struct run_io *io, int rank, int which, const char *buf, size_t len)
{
	if (!io->tag) {
		write_all(io, which, buf, len);
		return;
	}
	char tag[48];
	int tl = snprintf(tag, sizeof tag, "[1,%d]<%s>:", rank,
	    which == 1 ? "stdout" : "stderr");
	/* Room for every line's tag: at most one line per byte. */
	size_t lines = 1;
	for (size_t i = 0; i + 1 < len; i++)
		lines += buf[i] == '\n';
	size_t need = len + lines * (size_t)tl;
	if (need > io->scratch_cap) {
		char *s = realloc(io->scratch, need);
		if (!s) {
			write_all(io, which, buf, len);
			return;
		}
		io->scratch = s;
		io->scratch_cap = need;
	}
	size_t o = 0, start = 0;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n' && i + 1 < len)
			continue;
		memcpy(io->scratch + o, tag, (size_t)tl);
		o += (size_t)tl;
		memcpy(io->scratch + o, buf + start, i + 1 - start);
		o += i + 1 - start;
		start = i + 1;
	}
	write_all(io, which, io->scratch, o);
}

int
run_io_read(struct run_io *io, struct run_out *out, int rank, int which)
{
	if (out->fd < 0)
		return 0;
	if (out->cap - out->len < RUN_IO_READ && out->cap < RUN_IO_MAX) {
		size_t cap = out->cap ? out->cap * 2 : RUN_IO_READ;
		while (cap - out->len < RUN_IO_READ && cap < RUN_IO_MAX)
			cap *= 2;
		if (cap > RUN_IO_MAX)
			cap = RUN_IO_MAX;
		char *b = realloc(out->buf, cap);
		if (!b) {
			/* Without room, pass on what is held as it is. */
			emit(io, rank, which, out->buf, out->len);
			out->len = 0;
		} else {
			out->buf = b;
			out->cap = cap;
		}
	}
	if (out->cap == out->len) {
		/* A line as long as the buffer: its first piece goes now. */
		emit(io, rank, which, out->buf, out->len);
		out->len = 0;
	}
	ssize_t r;
	do
		r = read(out->fd, out->buf + out->len, out->cap - out->len);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return 1;
	if (r <= 0) {
		run_io_finish(io, out, rank, which);
		return 0;
	}
	/* Only the new bytes can hold the last newline. */
	size_t old = out->len;
	out->len += (size_t)r;
	size_t cut = 0;
	for (size_t i = out->len; i > old; i--)
		if (out->buf[i - 1] == '\n') {
			cut = i;
			break;
		}
	if (cut == 0)
		return 2;
	emit(io, rank, which, out->buf, cut);
	memmove(out->buf, out->buf + cut, out->len - cut);
	out->len -= cut;
	return 2;
}

void
run_io_finish(struct run_io *io, struct run_out *out, int rank, int which)
{
	if (out->len)
		emit(io, rank, which, out->buf, out->len);
	free(out->buf);
	out->buf = NULL;
	out->len = out->cap = 0;
	if (out->fd >= 0)
		close(out->fd);
	out->fd = -1;
}

void
run_io_free(struct run_io *io)
{
	free(io->scratch);
	io->scratch = NULL;
	io->scratch_cap = 0;
}
