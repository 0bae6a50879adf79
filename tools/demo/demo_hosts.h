/* grove demo across hosts: where the back-ends say they run, and the
 * back-ends of attach mode.
 *
 * The info replies (WORKER_INFO) carry each back-end's host name; the demo
 * prints which ranks ran on which host, so a tree spread over several
 * hosts shows it did.  In attach mode the demo writes the connection file
 * and waits for back-ends started by someone else (ssh, a job launcher). */
#ifndef GROVE_TOOLS_DEMO_HOSTS_H
#define GROVE_TOOLS_DEMO_HOSTS_H

#include <stdint.h>
#include <stdio.h>

#include "grove/network.h"

typedef struct demo_hosts {
	char **host;   /* per rank, NULL until its reply came */
	uint32_t n;
} demo_hosts;

/* Room for n ranks; 0 or GROVE_ENOMEM. */
int demo_hosts_init(demo_hosts *h, uint32_t n);
/* Rank r said it runs on host (copied; an out-of-range rank or a second
 * reply is ignored). */
void demo_hosts_note(demo_hosts *h, uint32_t r, const char *host);
/* "back-ends by host: h1 ranks 0-1, h2 ranks 2-3" (the first 16 hosts;
 * ranks without a reply are named as such). */
void demo_hosts_print(const demo_hosts *h, FILE *f);
void demo_hosts_free(demo_hosts *h);

/* Attach mode, after grove_net_create wrote the connection file: says
 * how to start the back-ends, then waits up to wait_ms for all of them.
 * 0, or the error of grove_net_wait_backends (grove_net_last_error
 * says which are missing). */
int demo_attach_wait(grove_net *net, const char *file, int wait_ms);

#endif
