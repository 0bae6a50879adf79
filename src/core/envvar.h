/* Reading a GROVE_* switch from the environment: one of a few words.
 * A value that is none of them is not silently taken as the default: the
 * process says so on stderr (logging, off by default, would hide it). */
#ifndef GROVE_CORE_ENVVAR_H
#define GROVE_CORE_ENVVAR_H

/* The index in words[0..n) of $name's value (case-insensitive), or dflt
 * when it is unset or empty, or is none of the words (then with a line on
 * stderr naming the variable, its value and the words). */
int env_word(const char *name, const char *const *words, int n, int dflt);

#endif
