/* Grove MPI: communicator attributes (caching).
 *
 * Predefined keys (MPI_TAG_UB ...) are answered from constants; user keys
 * come from a process-wide table and their values live in a list on each
 * communicator.  A freed keyval stays in the table while attributes still
 * use it, because their delete callbacks need it. */
#include "mpi/mpi_impl.h"

#include <stdlib.h>
#include <string.h>

struct mpi_attr {
	int key;
	void *val;
	struct mpi_attr *next;
};

struct keyval {
	bool used;      /* the slot holds a keyval */
	bool freed;     /* MPI_Comm_free_keyval was called */
	int refs;       /* attributes that use it, plus 1 until freed */
	MPI_Comm_copy_attr_function *copy;
	MPI_Comm_delete_attr_function *del;
	void *extra;
};

/* User keys start above the predefined ones (MPI_TAG_UB ... MPI_WIN_MODEL). */
#define FIRST_USER_KEY 32

static struct keyval *keyvals; /* indexed by key - FIRST_USER_KEY */
static int nkeyvals;

static struct keyval *
keyval_of(int key)
{
	int i = key - FIRST_USER_KEY;
	if (i < 0 || i >= nkeyvals || !keyvals[i].used)
		return NULL;
	return &keyvals[i];
}

static void
keyval_unref(int key)
{
	struct keyval *kv = keyval_of(key);
	if (kv && --kv->refs <= 0)
		memset(kv, 0, sizeof *kv);
}

int
grove_mpi_comm_dup_fn_(MPI_Comm oldcomm, int keyval, void *extra_state,
                       void *attribute_val_in, void *attribute_val_out,
                       int *flag)
{
	*(void **)attribute_val_out = attribute_val_in;
	*flag = 1;
	return MPI_SUCCESS;
}

static int
create_keyval(enum mpi_fn fn, MPI_Comm_copy_attr_function *copy,
              MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
	if (!keyval)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, fn, "keyval is NULL");
	int i;
	for (i = 0; i < nkeyvals && keyvals[i].used; i++)
		;
	if (i == nkeyvals) {
		int n = nkeyvals ? 2 * nkeyvals : 16;
		struct keyval *t = realloc(keyvals, (size_t)n * sizeof *t);
		if (!t)
			return mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, fn,
			               "%d keyvals", n);
		memset(t + nkeyvals, 0, (size_t)(n - nkeyvals) * sizeof *t);
		keyvals = t;
		nkeyvals = n;
	}
	keyvals[i] = (struct keyval){.used = true, .refs = 1, .copy = copy,
	                             .del = del, .extra = extra};
	*keyval = FIRST_USER_KEY + i;
	return MPI_SUCCESS;
}

static int
free_keyval(enum mpi_fn fn, int *keyval)
{
	struct keyval *kv = keyval ? keyval_of(*keyval) : NULL;
	if (!kv || kv->freed)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, fn,
		               "%d is not a user keyval",
		               keyval ? *keyval : MPI_KEYVAL_INVALID);
	kv->freed = true;
	keyval_unref(*keyval);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

/* Values of the predefined attributes: the standard hands out a pointer
 * to an int that stays valid, so they are static. */
static int tag_ub = 2147483647; /* Grove's tags are int32 */
static int host = MPI_PROC_NULL;
static int io = MPI_ANY_SOURCE; /* every rank can do I/O */
static int wtime_is_global = 0;
static int universe_size;
static int lastusedcode = MPI_ERR_LASTCODE;

static int
get_attr(enum mpi_fn fn, MPI_Comm comm, int key, void *val, int *flag)
{
	if (mpi_comm_check(comm))
		return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
		               comm ? "not a valid communicator" : "MPI_COMM_NULL");
	if (!val || !flag)
		return mpi_err(comm, MPI_ERR_ARG, fn, "%s is NULL",
		               val ? "flag" : "attribute_val");
	int *p = NULL;
	*flag = 0;
	switch (key) {
	case MPI_TAG_UB: p = &tag_ub; break;
	case MPI_HOST: p = &host; break;
	case MPI_IO: p = &io; break;
	case MPI_WTIME_IS_GLOBAL: p = &wtime_is_global; break;
	case MPI_UNIVERSE_SIZE:
		universe_size = mpi_proc.size;
		p = &universe_size;
		break;
	case MPI_LASTUSEDCODE: p = &lastusedcode; break;
	case MPI_APPNUM:
	case MPI_WIN_BASE:
	case MPI_WIN_SIZE:
	case MPI_WIN_DISP_UNIT:
	case MPI_WIN_CREATE_FLAVOR:
	case MPI_WIN_MODEL:
		return MPI_SUCCESS; /* not set */
	default: {
		if (!keyval_of(key))
			return mpi_err(comm, MPI_ERR_KEYVAL, fn,
			               "%d is not a keyval", key);
		for (struct mpi_attr *a = comm->attrs; a; a = a->next)
			if (a->key == key) {
				*(void **)val = a->val;
				*flag = 1;
				break;
			}
		return MPI_SUCCESS;
	}
	}
	*(void **)val = p;
	*flag = 1;
	return MPI_SUCCESS;
}

/* Removes key's attribute from comm, running its delete callback. */
static int
remove_attr(MPI_Comm comm, int key, bool *found)
{
	*found = false;
	for (struct mpi_attr **pp = &comm->attrs; *pp; pp = &(*pp)->next) {
		struct mpi_attr *a = *pp;
		if (a->key != key)
			continue;
		*found = true;
		struct keyval *kv = keyval_of(key);
		int rc = MPI_SUCCESS;
		if (kv && kv->del)
			rc = kv->del(comm, key, a->val, kv->extra);
		if (rc)
			return rc; /* the standard: the attribute stays */
		*pp = a->next;
		free(a);
		keyval_unref(key);
		return MPI_SUCCESS;
	}
	return MPI_SUCCESS;
}

static int
put(MPI_Comm comm, int key, void *val)
{
	struct mpi_attr *a = malloc(sizeof *a);
	if (!a)
		return MPI_ERR_NO_MEM;
	a->key = key;
	a->val = val;
	a->next = comm->attrs;
	comm->attrs = a;
	keyval_of(key)->refs++;
	return MPI_SUCCESS;
}

static int
set_attr(enum mpi_fn fn, MPI_Comm comm, int key, void *val)
{
	if (mpi_comm_check(comm))
		return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
		               comm ? "not a valid communicator" : "MPI_COMM_NULL");
	struct keyval *kv = keyval_of(key);
	if (!kv || kv->freed)
		return mpi_err(comm, MPI_ERR_KEYVAL, fn,
		               "%d is not a user keyval (predefined attributes "
		               "cannot be set)", key);
	/* A new value replaces the old one through its delete callback. */
	bool found;
	int rc = remove_attr(comm, key, &found);
	if (rc)
		return mpi_err(comm, rc, fn, "the delete callback of keyval %d "
		                             "failed", key);
	if ((rc = put(comm, key, val)))
		return mpi_err(comm, rc, fn, "attribute of keyval %d", key);
	return MPI_SUCCESS;
}

static int
delete_attr(enum mpi_fn fn, MPI_Comm comm, int key)
{
	if (mpi_comm_check(comm))
		return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
		               comm ? "not a valid communicator" : "MPI_COMM_NULL");
	if (!keyval_of(key))
		return mpi_err(comm, MPI_ERR_KEYVAL, fn, "%d is not a user keyval",
		               key);
	bool found;
	int rc = remove_attr(comm, key, &found);
	if (rc)
		return mpi_err(comm, rc, fn, "the delete callback of keyval %d "
		                             "failed", key);
	if (!found)
		return mpi_err(comm, MPI_ERR_KEYVAL, fn,
		               "keyval %d has no attribute on this communicator",
		               key);
	return MPI_SUCCESS;
}

int
mpi_attr_copy_all(MPI_Comm from, MPI_Comm to)
{
	/* The list is newest first; copying from the oldest keeps that
	 * order in the copy. */
	int n = 0;
	for (struct mpi_attr *a = from->attrs; a; a = a->next)
		n++;
	struct mpi_attr **v = malloc((size_t)(n ? n : 1) * sizeof *v);
	if (!v)
		return MPI_ERR_NO_MEM;
	int i = n;
	for (struct mpi_attr *a = from->attrs; a; a = a->next)
		v[--i] = a;
	int rc = MPI_SUCCESS;
	for (i = 0; i < n && !rc; i++) {
		struct keyval *kv = keyval_of(v[i]->key);
		if (!kv || !kv->copy)
			continue; /* MPI_COMM_NULL_COPY_FN: not copied */
		void *out = NULL;
		int flag = 0;
		rc = kv->copy(from, v[i]->key, kv->extra, v[i]->val, &out, &flag);
		if (!rc && flag)
			rc = put(to, v[i]->key, out);
	}
	free(v);
	return rc;
}

int
mpi_attr_delete_all(MPI_Comm comm)
{
	int first = MPI_SUCCESS;
	while (comm->attrs) {
		struct mpi_attr *a = comm->attrs;
		struct keyval *kv = keyval_of(a->key);
		int rc = kv && kv->del ? kv->del(comm, a->key, a->val, kv->extra)
		                       : MPI_SUCCESS;
		if (rc && !first)
			first = rc;
		/* Gone even when its callback failed: the communicator is. */
		comm->attrs = a->next;
		int key = a->key;
		free(a);
		keyval_unref(key);
	}
	return first;
}

/* ---- entry points --------------------------------------------------- */

#define ATTR_ENTRY(Name, call)                                              \
	int rc = mpi_check_initialized(MPI_FN_##Name);                      \
	if (rc)                                                             \
		return rc;                                                  \
	MPI_ENTER(Name);                                                    \
	rc = call;                                                          \
	MPI_EXIT(Name, -1, 0, 0);                                           \
	return rc

int
PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                        MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                        int *comm_keyval, void *extra_state)
{
	ATTR_ENTRY(Comm_create_keyval,
	           create_keyval(MPI_FN_Comm_create_keyval, comm_copy_attr_fn,
	                         comm_delete_attr_fn, comm_keyval,
	                         extra_state));
}

int
PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                   int *keyval, void *extra_state)
{
	/* MPI-1's callbacks have the same types as MPI-2's. */
	ATTR_ENTRY(Keyval_create,
	           create_keyval(MPI_FN_Keyval_create, copy_fn, delete_fn,
	                         keyval, extra_state));
}

int
PMPI_Comm_free_keyval(int *comm_keyval)
{
	ATTR_ENTRY(Comm_free_keyval,
	           free_keyval(MPI_FN_Comm_free_keyval, comm_keyval));
}

int
PMPI_Keyval_free(int *keyval)
{
	ATTR_ENTRY(Keyval_free, free_keyval(MPI_FN_Keyval_free, keyval));
}

int
PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                   int *flag)
{
	ATTR_ENTRY(Comm_get_attr, get_attr(MPI_FN_Comm_get_attr, comm,
	                                   comm_keyval, attribute_val, flag));
}

int
PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	ATTR_ENTRY(Attr_get,
	           get_attr(MPI_FN_Attr_get, comm, keyval, attribute_val, flag));
}

int
PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
	ATTR_ENTRY(Comm_set_attr, set_attr(MPI_FN_Comm_set_attr, comm,
	                                   comm_keyval, attribute_val));
}

int
PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
	ATTR_ENTRY(Attr_put, set_attr(MPI_FN_Attr_put, comm, keyval,
	                              attribute_val));
}

int
PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
	ATTR_ENTRY(Comm_delete_attr,
	           delete_attr(MPI_FN_Comm_delete_attr, comm, comm_keyval));
}

int
PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
	ATTR_ENTRY(Attr_delete, delete_attr(MPI_FN_Attr_delete, comm, keyval));
}
