/* Starting a node's children and watching them come up (internal). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/log.h"
#include "grove/error.h"
#include "net/boot.h"
#include "net/sockio.h"
#include "net/spawn.h"
#include "tbon/node.h"
#include "tbon/proto.h"

static const char *
role_name(grove_node_role r)
{
	return r == GROVE_ROLE_BE ? "be" : r == GROVE_ROLE_CP ? "cp" : "fe";
}

/* "node 12 (be rank 5 on localhost)" */
void
node_describe_child(const node *n, const node_child *ch, char *out, size_t len)
{
	if (ch->role == GROVE_ROLE_BE)
		snprintf(out, len, "node %u (be rank %u on %s)", ch->node_id,
		    ch->be_lo, ch->host);
	else
		snprintf(out, len, "node %u (cp for ranks %u..%u on %s)", ch->node_id,
		    ch->be_lo, ch->be_hi ? ch->be_hi - 1 : 0, ch->host);
}

void
node_launch_fail(node *n, const char *msg)
{
	if (n->launch_failed)
		return;
	n->launch_failed = 1;
	snprintf(n->launch_error, sizeof n->launch_error, "%s", msg);
	log_error("%s", msg);
}

int
node_launch_children(node *n, const boot *tmpl, char *err, size_t errlen)
{
	const grove_topo_node *me = grove_topo_node_at(n->topo, n->id);
	n->launch_deadline_ms = sockio_now_ms() + (uint64_t)tmpl->timeout_ms;
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (n->attach && ch->role == GROVE_ROLE_BE)
			continue;
		boot b = *tmpl;
		b.be_argc = 0;
		b.topology = NULL;
		b.node = ch->node_id;
		b.rank = ch->role == GROVE_ROLE_BE ? ch->be_lo : 0;
		b.parent_port = n->port;
		b.parent_node = n->id;
		if (n->uname[0] && spawn_host_is_local(ch->host))
			snprintf(b.parent_unix, sizeof b.parent_unix, "%s", n->uname);
		else
			b.parent_unix[0] = 0;
		/* Children reach us at the bound address, or our host name when
		 * we listen on every interface. */
		const char *ph = strcmp(n->bind_addr, "0.0.0.0") &&
		    strcmp(n->bind_addr, "::") ? n->bind_addr : me->host;
		snprintf(b.parent_host, sizeof b.parent_host, "%s", ph);
		char *text = NULL;
		size_t len = 0;
		int is_cp = ch->role == GROVE_ROLE_CP;
		if (is_cp) {
			b.be_argc = tmpl->be_argc;
			for (int a = 0; a < tmpl->be_argc; a++)
				b.be_argv[a] = tmpl->be_argv[a];
			b.topology = tmpl->topology;
		}
		int rc = boot_write(&b, is_cp, &text, &len);
		if (rc != 0) {
			snprintf(err, errlen, "out of memory");
			return rc;
		}
		char *cp_argv[2] = {(char *)tmpl->commnode, NULL};
		char **be_argv = NULL;
		if (!is_cp) {
			be_argv = calloc((size_t)tmpl->be_argc + 2, sizeof *be_argv);
			if (!be_argv) {
				free(text);
				return GROVE_ENOMEM;
			}
			be_argv[0] = (char *)tmpl->be_exe;
			for (int a = 0; a < tmpl->be_argc; a++)
				be_argv[a + 1] = tmpl->be_argv[a];
		}
		char why[600];
		rc = spawn_child(ch->host, tmpl->rsh, is_cp ? tmpl->commnode :
		    tmpl->be_exe, is_cp ? cp_argv : be_argv, text, len, &ch->pid, why,
		    sizeof why);
		free(text);
		free(be_argv);
		if (rc != 0) {
			char who[128];
			node_describe_child(n, ch, who, sizeof who);
			snprintf(err, errlen, "%s: %s", who, why);
			node_launch_fail(n, err);
			return rc;
		}
		log_debug("started %s node %u pid %d on %s", role_name(ch->role),
		    ch->node_id, (int)ch->pid, ch->host);
	}
	return 0;
}

/* Children that exited before connecting, and the launch deadline.
 * Returns 1 when the launch has failed (n->launch_error says why). */
int
node_check_launch(node *n)
{
	if (n->launch_failed)
		return 1;
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (ch->pid <= 0)
			continue;
		int st = 0;
		pid_t r = waitpid(ch->pid, &st, WNOHANG);
		if (r != ch->pid)
			continue;
		ch->pid = 0;
		if (ch->state != CHILD_PENDING)
			continue; /* its connection reports the loss */
		char who[128], msg[300];
		node_describe_child(n, ch, who, sizeof who);
		if (WIFEXITED(st))
			/* ssh exits 255 for its own failures (unknown host,
			 * refused, no key): say so, the child never ran. */
			snprintf(msg, sizeof msg, "%s exited with status %d before "
			    "connecting%s", who, WEXITSTATUS(st),
			    WEXITSTATUS(st) == 255 && !spawn_host_is_local(ch->host) ?
			    " (the remote shell's own failure: is the host "
			    "reachable?)" : "");
		else
			snprintf(msg, sizeof msg, "%s was killed by signal %d before "
			    "connecting", who, WTERMSIG(st));
		node_launch_fail(n, msg);
		return 1;
	}
	if (!node_children_ready(n) && n->launch_deadline_ms &&
	    sockio_now_ms() > n->launch_deadline_ms) {
		char msg[600];
		size_t o = (size_t)snprintf(msg, sizeof msg, "not up within %d ms:",
		    n->timeout_ms);
		int shown = 0;
		for (uint32_t i = 0; i < n->n_children && o < sizeof msg - 80; i++) {
			node_child *ch = &n->children[i];
			if (ch->state == CHILD_READY || (n->attach &&
			    ch->role == GROVE_ROLE_BE))
				continue;
			char who[128];
			node_describe_child(n, ch, who, sizeof who);
			o += (size_t)snprintf(msg + o, sizeof msg - o, "%s %s%s",
			    shown ? "," : "", who, ch->state == CHILD_PENDING ?
			    " never connected" : " connected but its subtree is not "
			    "ready");
			shown++;
		}
		node_launch_fail(n, msg);
		return 1;
	}
	return 0;
}
