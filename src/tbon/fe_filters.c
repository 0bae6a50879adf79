/* Front-end API of custom filters: load one on every node, and undo a
 * load that failed anywhere so that the network looks as if it never
 * happened.
 *
 * A name registered on some nodes only would be fatal later: the FE would
 * accept a stream with it and the CPs without it would refuse theirs.  So
 * a load that fails (or times out) anywhere is rolled back everywhere: the
 * FE drops what that load registered and sends FILTER_UNLOAD down, and
 * each CP drops what that same request registered there (node_filters.c).
 * The FE also remembers the names whose load failed, so that a stream
 * naming one is refused with a message that says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/sockio.h"
#include "tbon/fe_internal.h"

static ssize_t
failed_index(const grove_net *net, const char *name)
{
	for (size_t i = 0; i < net->n_failed_filters; i++)
		if (strcmp(net->failed_filters[i], name) == 0)
			return (ssize_t)i;
	return -1;
}

static void
failed_forget(grove_net *net, const char *name)
{
	ssize_t i = failed_index(net, name);
	if (i < 0)
		return;
	free(net->failed_filters[i]);
	net->failed_filters[i] = net->failed_filters[--net->n_failed_filters];
}

/* Best effort: without memory the stream is refused all the same, with
 * the plain "unknown filter" message. */
static void
failed_remember(grove_net *net, const char *name)
{
	if (failed_index(net, name) >= 0)
		return;
	char **a = realloc(net->failed_filters,
	    (net->n_failed_filters + 1) * sizeof *a);
	if (!a)
		return;
	net->failed_filters = a;
	if ((a[net->n_failed_filters] = strdup(name)))
		net->n_failed_filters++;
}

void
fe_filters_free(grove_net *net)
{
	for (size_t i = 0; i < net->n_failed_filters; i++)
		free(net->failed_filters[i]);
	free(net->failed_filters);
	net->failed_filters = NULL;
	net->n_failed_filters = 0;
}

int
fe_filter_usable(grove_net *net, const char *name)
{
	if (!name)
		return 0;
	for (const struct fe_loading *l = net->loading; l; l = l->next)
		if (strcmp(l->name, name) == 0) {
			fe_set_error(net, "filter '%s' is still being loaded "
			    "(grove_net_load_filter has not returned)", name);
			return GROVE_EFILTER;
		}
	if (flt_lookup(net->n.filters, name) || failed_index(net, name) < 0)
		return 0; /* known, or plainly unknown: stream creation says */
	fe_set_error(net, "filter '%s' is not loaded: grove_net_load_filter "
	    "failed on some node and was undone on every node; load it again",
	    name);
	return GROVE_EFILTER;
}

int
grove_net_load_filter(grove_net *net, const char *name, const char *path,
    const char *symbol)
{
	if (!net || !net->n.loop_ready || !name || !path || !symbol)
		return GROVE_EINVAL;
	node *n = &net->n;
	uint32_t req = net->next_req++;
	node_load_req *r = node_filter_load(n, req, name, path, symbol);
	if (!r)
		return GROVE_ENOMEM;
	node_flush_all(n);
	struct fe_loading me = {name, net->loading};
	net->loading = &me;
	uint64_t deadline = sockio_now_ms() + (uint64_t)n->timeout_ms;
	while (!r->done && sockio_now_ms() < deadline)
		fe_run(net, 50);
	/* Loads end in the reverse order they start: one started by a
	 * callback runs inside this one's wait. */
	net->loading = me.next;
	int rc = 0;
	if (!r->done) {
		fe_set_error(net, "loading filter '%s': not every CP answered within "
		    "%d ms", name, n->timeout_ms);
		rc = GROVE_ETIMEDOUT;
	} else if (r->n_errors) {
		size_t o = (size_t)snprintf(net->err, sizeof net->err,
		    "loading filter '%s' (%s:%s) failed on %zu node(s): ", name, path,
		    symbol, r->n_errors);
		for (size_t i = 0; i < r->n_errors && o < sizeof net->err; i++)
			o += (size_t)snprintf(net->err + o, sizeof net->err - o, "%s%s",
			    i ? "; " : "", r->errors[i]);
		rc = GROVE_EFILTER;
	}
	node_load_req_free(n, r);
	if (rc != 0) {
		/* A CP that is gone or slow does not matter: the undo follows
		 * the load on every link, and a lost CP holds nothing. */
		node_filter_unload(n, req, name);
		node_flush_all(n);
		/* A name that stays (another definition that was there
		 * before) is still usable as it was. */
		if (!flt_lookup(n->filters, name))
			failed_remember(net, name);
	} else {
		failed_forget(net, name);
	}
	fe_settle(net);
	return rc;
}
