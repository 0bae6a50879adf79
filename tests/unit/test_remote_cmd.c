/* Unit tests for the remote command line (src/net/remote_cmd.c): words
 * are single-quoted so that the remote user's shell gives back exactly
 * the word (checked against /bin/sh too), the command is one string, and
 * the remote shell setting splits on blanks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "net/remote_cmd.h"

static void
expect_quote(const char *word, const char *want)
{
	char *q = remote_quote(word);
	assert_non_null(q);
	assert_string_equal(q, want);
	free(q);
}

static void
test_quote(void **state)
{
	(void)state;
	expect_quote("plain", "'plain'");
	expect_quote("/opt/my tools/be", "'/opt/my tools/be'");
	expect_quote("", "''");
	expect_quote("it's", "'it'\\''s'");
	expect_quote("'", "''\\'''");
	expect_quote("x;touch /tmp/pwned", "'x;touch /tmp/pwned'");
	expect_quote("$HOME `id` $(id)", "'$HOME `id` $(id)'");
	expect_quote("a\nb", "'a\nb'");
	expect_quote("\\", "'\\'");
}

/* What sh makes of `printf %s QUOTED`: the word itself, byte for byte. */
static void
expect_shell_gives_back(const char *word)
{
	char *q = remote_quote(word);
	assert_non_null(q);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "printf %%s %s", q);
	free(q);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	char out[1024];
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	assert_int_equal(pclose(f), 0);
	assert_string_equal(out, word);
}

static void
test_shell_reads_back(void **state)
{
	(void)state;
	const char *words[] = {"plain", "two words", "it's", "'", "''",
	    "x; echo injected", "$HOME", "`echo no`", "$(echo no)", "a\nb",
	    "\\n", "*", "-n", "\"double\"", "tab\there", "&|<>!#~"};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		expect_shell_gives_back(words[i]);
}

static void
test_command(void **state)
{
	(void)state;
	char *const argv[] = {"ignored", "a b", "it's", "", "x;y", NULL};
	char *c = remote_command("/opt/be worker", argv);
	assert_non_null(c);
	assert_string_equal(c, "env GROVE_BOOTSTRAP=stdin '/opt/be worker' "
	    "'a b' 'it'\\''s' '' 'x;y'");
	free(c);
	char *const none[] = {"only argv0", NULL};
	c = remote_command("/bin/cn", none);
	assert_non_null(c);
	assert_string_equal(c, "env GROVE_BOOTSTRAP=stdin '/bin/cn'");
	free(c);
	c = remote_command("/bin/cn", NULL);
	assert_non_null(c);
	assert_string_equal(c, "env GROVE_BOOTSTRAP=stdin '/bin/cn'");
	free(c);
}

static void
expect_words(const char *rsh, const char *const *want, size_t n)
{
	char **w = NULL;
	assert_int_equal(remote_shell_words(rsh, &w), 0);
	assert_non_null(w);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(w[i]);
		assert_string_equal(w[i], want[i]);
	}
	assert_null(w[n]);
	free(w);
}

static void
test_shell_words(void **state)
{
	(void)state;
	const char *ssh[] = {"ssh"};
	expect_words("ssh", ssh, 1);
	expect_words("  ssh\t", ssh, 1);
	const char *opts[] = {"ssh", "-o", "BatchMode=yes", "-x"};
	expect_words("ssh -o BatchMode=yes  \t-x", opts, 4);
	/* No quoting rules: quotes are part of the words. */
	const char *quoted[] = {"ssh", "'-o", "A=b'"};
	expect_words("ssh '-o A=b'", quoted, 3);

	char **w = (char **)&w;
	assert_int_equal(remote_shell_words("", &w), GROVE_EINVAL);
	assert_null(w);
	assert_int_equal(remote_shell_words(" \t ", &w), GROVE_EINVAL);
	assert_int_equal(remote_shell_words(NULL, &w), GROVE_EINVAL);
	assert_null(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_shell_reads_back),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_shell_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
