/* Unit tests for the remote command line (src/net/remote_cmd.c): words
 * are single-quoted so that the remote user's shell gives back exactly
 * the word (checked against /bin/sh too), the command is one string that
 * runs its program whatever the program's path (a '=' in it included),
 * and the remote shell setting splits on blanks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	assert_string_equal(c, "env GROVE_BOOTSTRAP=stdin /bin/sh -c "
	    "'exec \"$0\" \"$@\"' '/opt/be worker' 'a b' 'it'\\''s' '' 'x;y'");
	free(c);
	char *const none[] = {"only argv0", NULL};
	c = remote_command("/bin/cn", none);
	assert_non_null(c);
	assert_string_equal(c, "env GROVE_BOOTSTRAP=stdin /bin/sh -c "
	    "'exec \"$0\" \"$@\"' '/bin/cn'");
	free(c);
	c = remote_command("/bin/cn", NULL);
	assert_non_null(c);
	assert_string_equal(c, "env GROVE_BOOTSTRAP=stdin /bin/sh -c "
	    "'exec \"$0\" \"$@\"' '/bin/cn'");
	free(c);
}

/* The command as the remote user's shell runs it, with a program under a
 * directory whose name has a '=' (env reads any such word before the
 * command as an assignment): the program runs, with its arguments and
 * GROVE_BOOTSTRAP, and nothing else is printed. */
static void
test_command_runs_program_with_equals(void **state)
{
	(void)state;
	char dir[] = "/tmp/grove-remote-cmd-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[256], prog[300], out[300];
	snprintf(sub, sizeof sub, "%s/d=1", dir);
	snprintf(prog, sizeof prog, "%s/x=y prog", sub);
	snprintf(out, sizeof out, "%s/out", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	FILE *f = fopen(prog, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nprintf '<%%s>' \"$GROVE_BOOTSTRAP\" \"$@\"\n");
	fclose(f);
	assert_int_equal(chmod(prog, 0700), 0);

	char *const argv[] = {"ignored", "A=1", "it's", "", NULL};
	char *c = remote_command(prog, argv);
	assert_non_null(c);
	/* What ssh does with the command: one string to a shell. */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", c, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	free(c);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	char got[4096] = "";
	f = fopen(out, "r");
	assert_non_null(f);
	size_t n = fread(got, 1, sizeof got - 1, f);
	got[n] = '\0';
	fclose(f);
	assert_string_equal(got, "<stdin><A=1><it's><>");
	unlink(out);
	unlink(prog);
	rmdir(sub);
	rmdir(dir);
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
		cmocka_unit_test(test_command_runs_program_with_equals),
		cmocka_unit_test(test_shell_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
