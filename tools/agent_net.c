#include <stdio.h>
#include <string.h>

#include "agent_net.h"
#include "toolutil.h"

int
agent_net_start(const char *topology, const char *topology_file,
    unsigned backends, const char *hosts_file, grove_net **out, char *err,
    size_t errlen)
{
	static char *const agent_argv[] = {"grove-agent", NULL};
	char agent[4096], why[512];
	tool_programs pg;

	*out = NULL;
	int rc = tool_find_program("grove-agent", "GROVE_AGENT", agent,
	    sizeof agent, err, errlen);
	if (rc < 0)
		return rc;
	memset(&pg, 0, sizeof pg);
	/* Without a grove-commnode beside us the library finds its own. */
	if (tool_find_program("grove-commnode", "GROVE_COMMNODE", pg.commnode,
	    sizeof pg.commnode, why, sizeof why) < 0)
		pg.commnode[0] = '\0';

	grove_net_opts no;
	tool_net_opts(&no, &pg, topology, backends);
	no.be_exe = agent;
	no.be_argv = agent_argv;
	no.topology_file = topology_file;
	no.hosts_file = hosts_file;
	tool_raise_nofile();
	grove_net *net;
	rc = grove_net_create(&no, &net);
	if (rc < 0) {
		snprintf(err, errlen, "cannot start the network: %s",
		    net ? grove_net_last_error(net) : grove_strerror(rc));
		if (net)
			grove_net_destroy(net);
		return rc;
	}
	*out = net;
	return 0;
}

int
agent_net_stream(grove_net *net, const char *up, const char *sync,
    grove_stream **out, char *err, size_t errlen)
{
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = up;
	so.sync_filter = sync;
	int rc = grove_stream_create(net, grove_net_comm_all(net), &so, out);
	if (rc < 0)
		snprintf(err, errlen, "stream with filters %s/%s: %s (%s)", up,
		    sync, grove_strerror(rc), grove_net_last_error(net));
	return rc;
}
