/* The registry of transformation filters: the built-ins, plus custom
 * filters loaded from shared libraries with dlopen/dlsym.
 *
 * Lookups happen when a stream is created, not per wave, and a network
 * holds a few dozen filters at most, so a flat array searched linearly is
 * enough.  Each definition has its own allocation because streams keep
 * pointers to them while more filters get loaded.
 */
#define _GNU_SOURCE /* dladdr1, RTLD_DL_SYMENT */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/builtin.h"
#include "filter/filter_impl.h"

struct flt_registry {
	flt_def **defs;
	size_t n, cap;
};

static const struct {
	const char *name;
	grove_filter_fn fn;
	grove_filter_state_free_fn state_free; /* for per-stream state */
} builtins[] = {
	{"null", flt_builtin_null, NULL},
	{"sum", flt_builtin_sum, NULL},
	{"min", flt_builtin_min, NULL},
	{"max", flt_builtin_max, NULL},
	{"avg", flt_builtin_avg, NULL},
	{"concat", flt_builtin_concat, NULL},
	{"timealign", flt_builtin_timealign, flt_timealign_state_free},
	{"equiv", flt_builtin_equiv, NULL},
	{"report", flt_builtin_report, NULL},
};

static flt_def *
reg_add(flt_registry *r)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 16;
		flt_def **nd = realloc(r->defs, ncap * sizeof *nd);
		if (!nd)
			return NULL;
		r->defs = nd;
		r->cap = ncap;
	}
	flt_def *d = calloc(1, sizeof *d);
	if (d)
		r->defs[r->n++] = d;
	return d;
}

flt_registry *
flt_registry_new(void)
{
	flt_registry *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
		flt_def *d = reg_add(r);
		if (!d) {
			flt_registry_destroy(r);
			return NULL;
		}
		snprintf(d->name, sizeof d->name, "%s", builtins[i].name);
		d->fn = builtins[i].fn;
		d->state_free = builtins[i].state_free;
	}
	return r;
}

void
flt_registry_destroy(flt_registry *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		if (r->defs[i]->dl_handle)
			dlclose(r->defs[i]->dl_handle);
		free(r->defs[i]);
	}
	free(r->defs);
	free(r);
}

const flt_def *
flt_lookup(const flt_registry *r, const char *name)
{
	if (!r || !name)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->defs[i]->name, name) == 0)
			return r->defs[i];
	return NULL;
}

static int
fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* 1 when addr, found by dlsym, is the start of a function (or of an
 * indirect function, which dlsym has already resolved).  Anything else
 * (a variable, a TLS object, an untyped label) would be called as a filter
 * and crash the node on the first wave, on the FE and on every CP, so it is
 * refused at load time.  An address the loader cannot map back to a symbol
 * is refused too: there is no way to tell it is safe to call. */
static int
is_function(void *addr)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return 0;
	if (info.dli_saddr != addr)
		return 0; /* inside something else, not the start of a symbol */
	unsigned type = ELF64_ST_TYPE(sym->st_info);
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

int
flt_load(flt_registry *r, const char *name, const char *path,
    const char *symbol, uint32_t origin, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!r || !name || !path || !symbol)
		return fail(err, errlen, GROVE_EINVAL,
		    "filter load: missing name, path or symbol");
	if (!name[0] || strlen(name) >= sizeof ((flt_def *)0)->name)
		return fail(err, errlen, GROVE_EINVAL,
		    "filter name '%.80s' is empty or longer than %zu bytes",
		    name, sizeof ((flt_def *)0)->name - 1);
	if (!path[0] || strlen(path) >= sizeof ((flt_def *)0)->path)
		return fail(err, errlen, GROVE_EINVAL,
		    "filter '%s': library path is empty or longer than %zu "
		    "bytes", name, sizeof ((flt_def *)0)->path - 1);
	/* Leave room for the "_state_free" suffix looked up below. */
	if (!symbol[0] || strlen(symbol) + sizeof "_state_free" >
	    sizeof ((flt_def *)0)->symbol)
		return fail(err, errlen, GROVE_EINVAL,
		    "filter '%s': symbol '%.80s' is empty or too long", name,
		    symbol);

	const flt_def *old = flt_lookup(r, name);
	if (old) {
		if (old->dl_handle && strcmp(old->path, path) == 0 &&
		    strcmp(old->symbol, symbol) == 0)
			return 0;
		if (!old->dl_handle)
			return fail(err, errlen, GROVE_EINVAL,
			    "filter name '%s' is a built-in filter", name);
		return fail(err, errlen, GROVE_EINVAL,
		    "filter name '%s' is already loaded as '%s' from '%s'",
		    name, old->symbol, old->path);
	}

	dlerror();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		return fail(err, errlen, GROVE_EFILTER,
		    "filter '%s': cannot load library '%s': %s", name, path,
		    e ? e : "unknown dlopen error");
	}
	dlerror();
	void *sym = dlsym(h, symbol);
	const char *e = dlerror();
	if (e || !sym) {
		int rc = fail(err, errlen, GROVE_EFILTER,
		    "filter '%s': symbol '%s' not found in '%s': %s", name,
		    symbol, path, e ? e : "symbol is NULL");
		dlclose(h);
		return rc;
	}
	if (!is_function(sym)) {
		int rc = fail(err, errlen, GROVE_EFILTER,
		    "filter '%s': symbol '%s' in '%s' is not a function", name,
		    symbol, path);
		dlclose(h);
		return rc;
	}
	char free_sym[sizeof ((flt_def *)0)->symbol];
	snprintf(free_sym, sizeof free_sym, "%s_state_free", symbol);
	dlerror();
	void *fsym = dlsym(h, free_sym);
	dlerror(); /* the state-free function is optional */
	if (fsym && !is_function(fsym)) {
		int rc = fail(err, errlen, GROVE_EFILTER,
		    "filter '%s': symbol '%s' in '%s' is not a function", name,
		    free_sym, path);
		dlclose(h);
		return rc;
	}

	flt_def *d = reg_add(r);
	if (!d) {
		dlclose(h);
		return fail(err, errlen, GROVE_ENOMEM,
		    "filter '%s': out of memory", name);
	}
	snprintf(d->name, sizeof d->name, "%s", name);
	snprintf(d->path, sizeof d->path, "%s", path);
	snprintf(d->symbol, sizeof d->symbol, "%s", symbol);
	/* POSIX guarantees function pointers round-trip through void *
	 * (dlsym's own contract); the memcpy avoids the ISO C warning. */
	memcpy(&d->fn, &sym, sizeof d->fn);
	if (fsym)
		memcpy(&d->state_free, &fsym, sizeof d->state_free);
	d->dl_handle = h;
	d->origin = origin;
	return 0;
}

int
flt_unload(flt_registry *r, const char *name, uint32_t origin)
{
	if (!r || !name)
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		flt_def *d = r->defs[i];
		if (strcmp(d->name, name) != 0)
			continue;
		if (!d->dl_handle || d->origin != origin)
			return 0;
		dlclose(d->dl_handle);
		free(d);
		/* Order does not matter (names are unique): the last fills
		 * the hole. */
		r->defs[i] = r->defs[--r->n];
		return 1;
	}
	return 0;
}
