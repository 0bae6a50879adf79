/* Listing the event spaces in /dev/shm: segment names, their order, and
 * which of them are this user's (trace/reader.h). */
#define _GNU_SOURCE
#include "trace/reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "trace/owner.h"

int
trace_parse_name(const char *name, char *net, size_t netlen, char *role,
                 size_t rolelen, uint32_t *rank)
{
	if (strncmp(name, "grove.", 6) != 0)
		return GROVE_EINVAL;
	const char *a = name + 6;
	const char *b = strchr(a, '.');
	const char *c = b ? strchr(b + 1, '.') : NULL;
	if (!b || !c || b == a || c == b + 1 || strchr(c + 1, '.'))
		return GROVE_EINVAL;
	char *end;
	errno = 0;
	unsigned long r = strtoul(c + 1, &end, 10);
	if (errno || *end || end == c + 1 || r > UINT32_MAX)
		return GROVE_EINVAL;
	if ((size_t)(b - a) >= netlen || (size_t)(c - b - 1) >= rolelen)
		return GROVE_EINVAL;
	memcpy(net, a, (size_t)(b - a));
	net[b - a] = 0;
	memcpy(role, b + 1, (size_t)(c - b - 1));
	role[c - b - 1] = 0;
	*rank = (uint32_t)r;
	return 0;
}

static int
role_order(const char *role)
{
	return !strcmp(role, "fe") ? 0 : !strcmp(role, "cp") ? 1 :
	       !strcmp(role, "be") ? 2 : 3;
}

static int
name_cmp(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	char na[TRACE_NET_LEN], nb[TRACE_NET_LEN];
	char ra[TRACE_ROLE_LEN], rb[TRACE_ROLE_LEN];
	uint32_t ka = 0, kb = 0;
	trace_parse_name(a, na, sizeof na, ra, sizeof ra, &ka);
	trace_parse_name(b, nb, sizeof nb, rb, sizeof rb, &kb);
	int c = strcmp(na, nb);
	if (c)
		return c;
	if (role_order(ra) != role_order(rb))
		return role_order(ra) - role_order(rb);
	if ((c = strcmp(ra, rb)))
		return c;
	return ka < kb ? -1 : ka > kb;
}

int
trace_list(const char *network_id, FILE *warn, char ***names, size_t *n)
{
	return trace_list_with(network_id, NULL, warn, names, n);
}

int
trace_list_with(const char *network_id, const char *also, FILE *warn,
                char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return GROVE_ESYS;
	size_t cap = 0, cnt = 0;
	char **v = NULL;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		char net[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
		uint32_t rank;
		if (trace_parse_name(e->d_name, net, sizeof net, role,
		                     sizeof role, &rank))
			continue;
		if (network_id && strcmp(net, network_id) &&
		    !(also && !strcmp(e->d_name, also)))
			continue;
		char why[200];
		int mine = trace_owner_check_at(dirfd(d), e->d_name, why,
		                                sizeof why);
		if (mine < 0)
			continue; /* removed meanwhile */
		if (!mine) {
			if (warn)
				fprintf(warn, "grove trace: ignoring /dev/shm/%s: "
				        "it %s\n", e->d_name, why);
			continue;
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				rc = GROVE_ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(v[cnt] = strdup(e->d_name))) {
			rc = GROVE_ENOMEM;
			break;
		}
		cnt++;
	}
	closedir(d);
	if (rc) {
		trace_list_free(v, cnt);
		return rc;
	}
	if (cnt)
		qsort(v, cnt, sizeof *v, name_cmp);
	*names = v;
	*n = cnt;
	return 0;
}

void
trace_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
