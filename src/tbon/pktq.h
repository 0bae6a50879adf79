/* A FIFO of packets with arrival numbers (internal), for the receive
 * queues of the front-end and back-end APIs. */
#ifndef GROVE_PKTQ_H
#define GROVE_PKTQ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "grove/packet.h"

typedef struct pktq {
	grove_packet **pkts;
	uint64_t *seq;
	size_t head, n, cap; /* ring */
	size_t bytes;        /* of the packets held, on the wire */
} pktq;

static inline int
pktq_push(pktq *q, grove_packet *p, uint64_t seq)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		grove_packet **np = malloc(cap * sizeof *np);
		uint64_t *ns = malloc(cap * sizeof *ns);
		if (!np || !ns) {
			free(np);
			free(ns);
			return -1;
		}
		for (size_t i = 0; i < q->n; i++) {
			np[i] = q->pkts[(q->head + i) % q->cap];
			ns[i] = q->seq[(q->head + i) % q->cap];
		}
		free(q->pkts);
		free(q->seq);
		q->pkts = np;
		q->seq = ns;
		q->cap = cap;
		q->head = 0;
	}
	size_t t = (q->head + q->n) % q->cap;
	q->pkts[t] = p;
	q->seq[t] = seq;
	q->n++;
	q->bytes += grove_packet_size(p);
	return 0;
}

static inline uint64_t
pktq_head_seq(const pktq *q)
{
	return q->n ? q->seq[q->head] : UINT64_MAX;
}

static inline grove_packet *
pktq_pop(pktq *q)
{
	if (!q->n)
		return NULL;
	grove_packet *p = q->pkts[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	q->bytes -= grove_packet_size(p);
	return p;
}

static inline void
pktq_fini(pktq *q)
{
	grove_packet *p;
	while ((p = pktq_pop(q)))
		grove_packet_unref(p);
	free(q->pkts);
	free(q->seq);
	q->pkts = NULL;
	q->seq = NULL;
	q->cap = 0;
}

#endif
