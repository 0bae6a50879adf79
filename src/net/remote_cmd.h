/* The command line of a remote child (internal, pure functions).
 *
 * ssh does not pass an argument vector to the other host: it joins the
 * words after the host name with spaces and hands the string to the remote
 * user's shell.  So every word of the remote command is quoted here, and
 * the command travels as one argument: an argument with a space, a quote
 * or a ';' arrives as itself and runs nothing.
 *
 * The remote shell setting ("ssh", "ssh -o BatchMode=yes") is split on
 * blanks into words, without quoting rules: a word cannot contain a blank.
 */
#ifndef GROVE_REMOTE_CMD_H
#define GROVE_REMOTE_CMD_H

/* word in POSIX single quotes, each ' written as '\'' ("" becomes '').
 * Returns a malloc'd string the caller frees, or NULL if out of memory. */
char *remote_quote(const char *word);

/* "env GROVE_BOOTSTRAP=stdin /bin/sh -c 'exec "$0" "$@"' 'exe' 'argv[1]'
 * ..." (argv[0] is not sent: exe takes its place; argv may be NULL).  sh,
 * not env, runs exe, so an exe with a '=' in its path still runs.
 * Returns a malloc'd string the caller frees, or NULL if out of memory. */
char *remote_command(const char *exe, char *const argv[]);

/* Splits rsh on blanks (spaces and tabs) into a NULL-terminated vector
 * in *words: one allocation, freed with free(*words).  Returns 0,
 * GROVE_EINVAL if rsh (or NULL) has no word, GROVE_ENOMEM. */
int remote_shell_words(const char *rsh, char ***words);

#endif
