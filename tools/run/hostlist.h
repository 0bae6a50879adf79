/* Slurm's compressed host lists ("h[1-3,5],x7", "rack[1-2]-n[01-02]"),
 * as in SLURM_JOB_NODELIST, expanded into host names.  Pure: no
 * environment, no I/O. */
#ifndef GROVE_RUN_HOSTLIST_H
#define GROVE_RUN_HOSTLIST_H

#include <stddef.h>

/* The most hosts an expansion may give (a bound on a typo such as
 * "n[1-999999999]"). */
#define HOSTLIST_MAX 65536

/* Expands spec: 0 with *hosts (n malloc'd strings in an array the caller
 * frees with hostlist_free) in the list's order, or -1 with err saying
 * what is wrong and at which character.  Grammar: items separated by
 * commas outside brackets; an item is text with bracket groups, each a
 * comma list of numbers or ranges lo-hi (lo <= hi); several groups
 * multiply ("a[1-2]b[1-2]": a1b1 a1b2 a2b1 a2b2); a range keeps the
 * width of its lower bound when that has leading zeros ("n[08-10]":
 * n08 n09 n10). */
int hostlist_expand(const char *spec, char ***hosts, size_t *n, char *err,
    size_t errlen);
void hostlist_free(char **hosts, size_t n);

#endif
