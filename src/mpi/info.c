/* Grove MPI: info objects, kept as a small list of key/value strings.
 * Grove reads no hint, so the objects are only stored and handed back. */
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct info_kv {
	char *key, *val;
};

struct grove_mpi_info_s {
	bool predefined;
	int n, cap;
	struct info_kv *kv;
};

/* MPI_INFO_ENV: filled at its first use, when MPI_Init has run. */
struct grove_mpi_info_s grove_mpi_info_env_ = {.predefined = true};

static int
check_info(MPI_Info info, enum mpi_fn fn)
{
	if (info == MPI_INFO_NULL)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, fn, "MPI_INFO_NULL");
	return MPI_SUCCESS;
}

static int
check_key(const char *key, enum mpi_fn fn)
{
	if (!key || !key[0])
		return mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, fn,
		               "the key is %s", key ? "empty" : "NULL");
	if (strlen(key) > MPI_MAX_INFO_KEY)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, fn,
		               "the key is longer than MPI_MAX_INFO_KEY (%d)",
		               MPI_MAX_INFO_KEY);
	return MPI_SUCCESS;
}

static struct info_kv *
find(MPI_Info info, const char *key)
{
	for (int i = 0; i < info->n; i++)
		if (strcmp(info->kv[i].key, key) == 0)
			return &info->kv[i];
	return NULL;
}

static int
put(MPI_Info info, const char *key, const char *val)
{
	struct info_kv *kv = find(info, key);
	char *v = strdup(val);
	if (!v)
		return MPI_ERR_NO_MEM;
	if (kv) {
		free(kv->val);
		kv->val = v;
		return MPI_SUCCESS;
	}
	if (info->n == info->cap) {
		int cap = info->cap ? 2 * info->cap : 8;
		struct info_kv *t = realloc(info->kv, (size_t)cap * sizeof *t);
		if (!t) {
			free(v);
			return MPI_ERR_NO_MEM;
		}
		info->kv = t;
		info->cap = cap;
	}
	char *k = strdup(key);
	if (!k) {
		free(v);
		return MPI_ERR_NO_MEM;
	}
	info->kv[info->n++] = (struct info_kv){k, v};
	return MPI_SUCCESS;
}

/* The environment of the start (MPI 3.1 section 9.1.2), as far as Grove
 * knows it. */
static void
fill_env(void)
{
	MPI_Info e = MPI_INFO_ENV;
	if (e->n)
		return;
	char buf[64];
	snprintf(buf, sizeof buf, "%d", mpi_proc.size);
	put(e, "maxprocs", buf);
	static const char *const levels[] = {
		"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
		"MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
	if (mpi_proc.thread_level >= 0 && mpi_proc.thread_level <= 3)
		put(e, "thread_level", levels[mpi_proc.thread_level]);
	if (mpi_proc.processor_name[0])
		put(e, "host", mpi_proc.processor_name);
}

#define INFO_BEGIN(Name)                                                    \
	int rc = mpi_check_initialized(MPI_FN_##Name);                      \
	if (rc)                                                             \
		return rc;                                                  \
	MPI_ENTER(Name)
#define INFO_END(Name)                                                      \
	MPI_EXIT(Name, -1, 0, 0);                                           \
	return rc

int
PMPI_Info_create(MPI_Info *info)
{
	INFO_BEGIN(Info_create);
	MPI_Info i = info ? calloc(1, sizeof *i) : NULL;
	if (!info)
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Info_create,
		             "info is NULL");
	else if (!i)
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, MPI_FN_Info_create,
		             "info object");
	else
		*info = i;
	INFO_END(Info_create);
}

int
PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	INFO_BEGIN(Info_set);
	if (!(rc = check_info(info, MPI_FN_Info_set)) &&
	    !(rc = check_key(key, MPI_FN_Info_set))) {
		if (info->predefined)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, MPI_FN_Info_set,
			             "MPI_INFO_ENV cannot be changed");
		else if (!value || strlen(value) > MPI_MAX_INFO_VAL)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_VALUE,
			             MPI_FN_Info_set, "the value is %s",
			             value ? "longer than MPI_MAX_INFO_VAL" : "NULL");
		else if ((rc = put(info, key, value)))
			rc = mpi_err(MPI_COMM_NULL, rc, MPI_FN_Info_set, "key %s",
			             key);
	}
	INFO_END(Info_set);
}

int
PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
              int *flag)
{
	INFO_BEGIN(Info_get);
	if (!(rc = check_info(info, MPI_FN_Info_get)) &&
	    !(rc = check_key(key, MPI_FN_Info_get))) {
		if (info->predefined)
			fill_env();
		struct info_kv *kv = find(info, key);
		if (!flag || valuelen < 0 || (kv && valuelen > 0 && !value)) {
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Info_get,
			             "flag, valuelen or value is invalid");
		} else if (!kv) {
			*flag = 0;
		} else {
			/* value has room for valuelen characters and a NUL;
			 * longer values are cut, as the standard says. */
			*flag = 1;
			if (value)
				snprintf(value, (size_t)valuelen + 1, "%s", kv->val);
		}
	}
	INFO_END(Info_get);
}

int
PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
                       int *flag)
{
	INFO_BEGIN(Info_get_valuelen);
	if (!(rc = check_info(info, MPI_FN_Info_get_valuelen)) &&
	    !(rc = check_key(key, MPI_FN_Info_get_valuelen))) {
		if (info->predefined)
			fill_env();
		struct info_kv *kv = find(info, key);
		if (!flag || !valuelen)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
			             MPI_FN_Info_get_valuelen,
			             "%s is NULL", flag ? "valuelen" : "flag");
		else {
			*flag = kv != NULL;
			if (kv)
				*valuelen = (int)strlen(kv->val);
		}
	}
	INFO_END(Info_get_valuelen);
}

int
PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	INFO_BEGIN(Info_get_nkeys);
	if (!(rc = check_info(info, MPI_FN_Info_get_nkeys))) {
		if (info->predefined)
			fill_env();
		if (!nkeys)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Info_get_nkeys,
			             "nkeys is NULL");
		else
			*nkeys = info->n;
	}
	INFO_END(Info_get_nkeys);
}

int
PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	INFO_BEGIN(Info_get_nthkey);
	if (!(rc = check_info(info, MPI_FN_Info_get_nthkey))) {
		if (info->predefined)
			fill_env();
		if (n < 0 || n >= info->n)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
			             MPI_FN_Info_get_nthkey,
			             "n = %d is not in [0, %d)", n, info->n);
		else if (!key)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
			             MPI_FN_Info_get_nthkey, "key is NULL");
		else
			snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", info->kv[n].key);
	}
	INFO_END(Info_get_nthkey);
}

int
PMPI_Info_delete(MPI_Info info, const char *key)
{
	INFO_BEGIN(Info_delete);
	if (!(rc = check_info(info, MPI_FN_Info_delete)) &&
	    !(rc = check_key(key, MPI_FN_Info_delete))) {
		struct info_kv *kv = find(info, key);
		if (info->predefined)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, MPI_FN_Info_delete,
			             "MPI_INFO_ENV cannot be changed");
		else if (!kv)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_NOKEY,
			             MPI_FN_Info_delete, "no key %s", key);
		else {
			free(kv->key);
			free(kv->val);
			/* Keys keep their order: MPI_Info_get_nthkey sees it. */
			int i = (int)(kv - info->kv);
			memmove(kv, kv + 1,
			        (size_t)(info->n - i - 1) * sizeof *kv);
			info->n--;
		}
	}
	INFO_END(Info_delete);
}

static void
info_destroy(MPI_Info info)
{
	for (int i = 0; i < info->n; i++) {
		free(info->kv[i].key);
		free(info->kv[i].val);
	}
	free(info->kv);
	free(info);
}

int
PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	INFO_BEGIN(Info_dup);
	if (!(rc = check_info(info, MPI_FN_Info_dup))) {
		if (info->predefined)
			fill_env();
		MPI_Info c = newinfo ? calloc(1, sizeof *c) : NULL;
		for (int i = 0; c && i < info->n && !rc; i++)
			rc = put(c, info->kv[i].key, info->kv[i].val);
		if (!newinfo)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Info_dup,
			             "newinfo is NULL");
		else if (!c || rc) {
			if (c)
				info_destroy(c);
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, MPI_FN_Info_dup,
			             "copy of %d keys", info->n);
		} else
			*newinfo = c;
	}
	INFO_END(Info_dup);
}

int
PMPI_Info_free(MPI_Info *info)
{
	INFO_BEGIN(Info_free);
	if (!info || *info == MPI_INFO_NULL)
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, MPI_FN_Info_free,
		             "MPI_INFO_NULL");
	else if ((*info)->predefined)
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, MPI_FN_Info_free,
		             "MPI_INFO_ENV cannot be freed");
	else {
		info_destroy(*info);
		*info = MPI_INFO_NULL;
	}
	INFO_END(Info_free);
}
