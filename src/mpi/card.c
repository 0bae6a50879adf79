/* A rank's card: made, written and parsed (the format is in card.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi/card.h"

/* The first 32 hex digits of the kernel's boot id, or "-". */
static void
boot_id(char *out, size_t len)
{
	snprintf(out, len, "-");
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char b[64];
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	size_t o = 0;
	for (ssize_t i = 0; i < n && o + 1 < len && o < 32; i++)
		if ((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f'))
			out[o++] = b[i];
	if (o)
		out[o] = '\0';
}

/* Whether Yama lets a rank read a sibling's memory (CMA): scope 0, or 1
 * with the PR_SET_PTRACER that MPI_Init sets; 2 and 3 forbid it. */
static unsigned
cma_flag(void)
{
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return MPI_CARD_F_CMA; /* no Yama */
	char c = '0';
	ssize_t n = read(fd, &c, 1);
	close(fd);
	return n == 1 && c >= '2' ? 0 : MPI_CARD_F_CMA;
}

static void
host_name(char *out, size_t len)
{
	if (gethostname(out, len - 1) != 0 || !out[0])
		snprintf(out, len, "localhost");
	out[len - 1] = '\0';
	/* A card's fields are separated by blanks. */
	for (char *p = out; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n')
			*p = '_';
}

void
mpi_card_mine(struct mpi_card *c, const char *tcp)
{
	c->pid = (long)getpid();
	c->flags = cma_flag();
	boot_id(c->boot, sizeof c->boot);
	snprintf(c->tcp, sizeof c->tcp, "%s", tcp ? tcp : "-");
	host_name(c->host, sizeof c->host);
}

void
mpi_card_format(const struct mpi_card *c, char *out, size_t len)
{
	snprintf(out, len, "%ld %u %s %s %s", c->pid, c->flags, c->boot, c->tcp,
	    c->host);
}

int
mpi_card_parse(const char *text, struct mpi_card *c)
{
	/* The widths keep sscanf inside the fields' arrays; a field longer
	 * than its array would end where the width does, not at a blank,
	 * and shift the fields after it: refused.  The host is all that
	 * follows the fourth field. */
	int e_pid = 0, e_flags = 0, e_boot = 0, e_tcp = 0, used = 0;
	if (sscanf(text, "%ld%n %u%n %39s%n %63s%n %n", &c->pid, &e_pid,
	    &c->flags, &e_flags, c->boot, &e_boot, c->tcp, &e_tcp, &used) < 4 ||
	    used <= 0 || !text[used] || c->pid <= 0)
		return -1;
	if (!isspace((unsigned char)text[e_pid]) ||
	    !isspace((unsigned char)text[e_flags]) ||
	    !isspace((unsigned char)text[e_boot]) ||
	    !isspace((unsigned char)text[e_tcp]))
		return -1;
	snprintf(c->host, sizeof c->host, "%s", text + used);
	return 0;
}

bool
mpi_card_same_kernel(const struct mpi_card *a, const struct mpi_card *b)
{
	return !strcmp(a->host, b->host) &&
	    (!strcmp(a->boot, "-") || !strcmp(b->boot, "-") ||
	     !strcmp(a->boot, b->boot));
}
