/* Fuzz the bootstrap parser: the text a child reads on its standard input
 * (from a pipe, or through ssh for another host).  Any input must give an
 * error with a message, or a bootstrap that writes back out and parses
 * again to the same fields; never a crash or a leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/boot.h"

#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_boot.c:%d: invariant broken\n", line);
	abort();
}

static int
same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	boot b;
	char err[256] = "";
	boot_init(&b);
	if (boot_parse((const char *)data, size, &b, err, sizeof err) != 0) {
		if (!err[0])
			fz_fail(); /* every refusal says why */
		boot_fini(&b);
		return 0;
	}
	/* What parsed writes back out and parses to the same bootstrap. */
	char *text = NULL;
	size_t len = 0;
	int with_topology = b.topology != NULL;
	if (boot_write(&b, with_topology, &text, &len) == 0) {
		boot c;
		boot_init(&c);
		if (boot_parse(text, len, &c, err, sizeof err) != 0)
			fz_fail();
		if (strcmp(b.secret_hex, c.secret_hex) || strcmp(b.netid, c.netid) ||
		    b.node != c.node || b.rank != c.rank ||
		    b.parent_port != c.parent_port || b.be_argc != c.be_argc ||
		    strcmp(b.be_exe, c.be_exe) || !same_text(b.topology, c.topology))
			fz_fail();
		for (int i = 0; i < b.be_argc; i++)
			if (!same_text(b.be_argv[i], c.be_argv[i]))
				fz_fail();
		boot_fini(&c);
		free(text);
	}
	boot_fini(&b);
	return 0;
}
