/* A rank's card: what the ranks of a job tell each other at start-up,
 * whichever way they exchange it (through grove run's tree, wireup.c;
 * through a launcher's key-value space, boot.c) and what the cluster map
 * takes the host names from (clusters.c).  One format and one parser
 * (card.c, pure: usable without MPI_Init), so that writers and readers
 * cannot disagree on where a field starts.
 *
 * On the wire a card is one line of text, "pid flags boot-id tcp host":
 *   pid      the rank's process id (the one it wrote into the job
 *            segment), > 0
 *   flags    MPI_CARD_F_*, decimal
 *   boot-id  the first 32 hex digits of /proc/sys/kernel/random/boot_id
 *            ("-" when unknown); with the host name it tells whether two
 *            ranks share a kernel, and so shared memory: containers on
 *            one machine may have other host names, machines of a
 *            cluster may share one
 *   tcp      the rank's TCP listener "address:port", "-" without TCP
 *   host     the host name, the rest of the line (its blanks made '_',
 *            so that it is one field)
 */
#ifndef GROVE_MPI_CARD_H
#define GROVE_MPI_CARD_H

#include <stdbool.h>
#include <stddef.h>

#define MPI_CARD_F_CMA 0x1 /* Yama lets this rank's peers read it (CMA) */

/* Room for any card's text, its terminating NUL included. */
#define MPI_CARD_MAX 400

struct mpi_card {
	long pid;
	unsigned flags;
	char boot[40];
	char tcp[64];
	char host[256];
};

/* This process's card, tcp being its listener ("-" when NULL). */
void mpi_card_mine(struct mpi_card *c, const char *tcp);
/* The card's text in out (len >= MPI_CARD_MAX always has room). */
void mpi_card_format(const struct mpi_card *c, char *out, size_t len);
/* Parses a card's text: 0, or -1 when it is not one (a field missing or
 * too long, a pid <= 0, no host). */
int mpi_card_parse(const char *text, struct mpi_card *c);
/* Whether two cards' ranks run under one kernel: the same host name and
 * the same boot id, when both are known. */
bool mpi_card_same_kernel(const struct mpi_card *a, const struct mpi_card *b);

#endif
