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

/* One node's error, "node N (cp on HOST): REASON" (node_filters.c), cut
 * into its parts; 0 when it is not of that form (then it is all
 * reason). */
static int
load_error_parts(const char *e, uint32_t *id, const char **host,
    size_t *host_len, const char **reason)
{
	unsigned u = 0;
	int at = 0;
	const char *on, *end;
	if (sscanf(e, "node %u (%n", &u, &at) != 1 || at == 0 ||
	    !(end = strstr(e, "): ")) || !(on = strstr(e + at, " on ")) ||
	    on > end)
		return 0;
	*id = u;
	*host = on + 4;
	*host_len = (size_t)(end - *host);
	*reason = end + 3;
	return 1;
}

/* Appends to out (cap, at *len) at most max bytes of text, cut at a word
 * boundary and marked when cut. */
static void
append_cut(char *out, size_t cap, size_t *len, const char *text, size_t max)
{
	size_t n = strlen(text);
	if (n > max) {
		n = max;
		while (n > max / 2 && text[n] != ' ')
			n--;
	}
	if (*len < cap)
		*len += (size_t)snprintf(out + *len, cap - *len, "%.*s%s", (int)n,
		    text, n < strlen(text) ? " [...]" : "");
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Appends the run of node ids lo..prev to ids ("1-63", ",70"); returns
 * the new length. */
static size_t
ids_put(char *ids, size_t cap, size_t il, uint32_t lo, uint32_t prev,
    int comma)
{
	if (il >= cap)
		return il;
	int k = prev == lo ? snprintf(ids + il, cap - il, "%s%u",
	    comma ? "," : "", lo) : snprintf(ids + il, cap - il, "%s%u-%u",
	    comma ? "," : "", lo, prev);
	return k > 0 ? il + (size_t)k : il;
}

/* The last error of a load that failed on some nodes: the nodes that
 * failed for the same reason are named once, together ("63 nodes (1-63,
 * on host): REASON"), so that a load failing on a whole tree gives one
 * readable message instead of the same text per node, cut off at the
 * buffer's end.  Groups come in the order of their first node's error. */
static void
load_errors_grouped(grove_net *net, const char *name, const char *path,
    const char *symbol, const node_load_req *r)
{
	char *out = net->err;
	size_t cap = sizeof net->err, len = 0;
	size_t n = r->n_errors;
	unsigned char *done = calloc(n ? n : 1, 1);
	uint32_t *group = malloc((n ? n : 1) * sizeof *group);
	len += (size_t)snprintf(out, cap, "cannot load filter '%s' (%s:%s) on "
	    "%zu of %u node(s)", name, path, symbol, n, r->ok + (uint32_t)n);
	for (size_t i = 0; done && group && i < n && len < cap; i++) {
		if (done[i])
			continue;
		uint32_t id = 0;
		const char *host = NULL, *reason = r->errors[i];
		size_t hl = 0;
		int parts = load_error_parts(r->errors[i], &id, &host, &hl, &reason);
		/* The nodes with the same reason, their ids in runs. */
		size_t count = 0;
		int hosts_differ = 0;
		char ids[256] = "";
		for (size_t j = i; j < n; j++) {
			uint32_t jid = 0;
			const char *jh = NULL, *jr = r->errors[j];
			size_t jhl = 0;
			int jp = load_error_parts(r->errors[j], &jid, &jh, &jhl, &jr);
			if (done[j] || jp != parts || strcmp(jr, reason) != 0)
				continue;
			done[j] = 1;
			if (parts && (jhl != hl || strncmp(jh, host, hl) != 0))
				hosts_differ = 1;
			if (parts)
				group[count] = jid;
			count++;
		}
		if (parts) {
			/* The front-end (node 0) is named as such, the CPs
			 * in runs of ids: "fe 0, cp 1-2,5". */
			qsort(group, count, sizeof *group, cmp_u32);
			size_t il = 0, a = 0;
			if (group[0] == 0) {
				il = (size_t)snprintf(ids, sizeof ids, "fe 0%s",
				    count > 1 ? ", " : "");
				a = 1;
			}
			if (a < count && il < sizeof ids)
				il += (size_t)snprintf(ids + il, sizeof ids - il,
				    "cp ");
			size_t start = il;
			for (size_t b = a + 1; a < count && b <= count; b++)
				if (b == count || group[b] != group[b - 1] + 1) {
					il = ids_put(ids, sizeof ids, il, group[a],
					    group[b - 1], il > start);
					a = b;
				}
		}
		if (!parts)
			len += (size_t)snprintf(out + len, cap - len, "; %zu node%s: ",
			    count, count == 1 ? "" : "s");
		else if (hosts_differ)
			len += (size_t)snprintf(out + len, cap - len, "; %zu node%s "
			    "(%s, on several hosts): ", count, count == 1 ? "" : "s",
			    ids);
		else
			len += (size_t)snprintf(out + len, cap - len, "; %zu node%s "
			    "(%s, on %.*s): ", count, count == 1 ? "" : "s", ids,
			    (int)hl, host);
		append_cut(out, cap, &len, reason, 600);
	}
	free(done);
	free(group);
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
		load_errors_grouped(net, name, path, symbol, r);
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
