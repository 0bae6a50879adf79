/* The wire-up protocol between grove run (the front-end of a flat Grove
 * network in attach mode) and the ranks (its back-ends), shared by
 * src/mpi/wireup.c and tools/run/run_wire.c.
 *
 *   1. every rank attaches as back-end `rank` (grove_be_attach with the
 *      connection file named by GROVE_MPI_CONNECT);
 *   2. once all are up, the launcher creates a stream over all of them
 *      with the "concat" filter and sends MPI_WIRE_TAG_GO ("%ud": ranks);
 *   3. each rank sends its card on that stream (MPI_WIRE_TAG_CARD, "%s",
 *      MPI_WIRE_CARD_FMT), the tree concatenates them ("%as %aud": cards
 *      and their ranks) and the launcher multicasts that packet back
 *      unchanged: an allgather of cards through the tree.
 */
#ifndef GROVE_MPI_WIREUP_H
#define GROVE_MPI_WIREUP_H

#define MPI_WIRE_TAG_GO 0x4d50 /* "MP" */
#define MPI_WIRE_TAG_CARD 0x4d51

/* A card: "pid flags boot-id tcp host".  pid is the rank's (the one it
 * wrote into the job segment); flags MPI_WIRE_F_*; tcp the rank's TCP
 * listener "address:port" ("-" with shared memory); boot-id the first 32 hex
 * digits of /proc/sys/kernel/random/boot_id ("-" when unknown), which,
 * with the host name, tells whether two ranks share a kernel (and so
 * shared memory): containers on one machine may have other host names,
 * machines of a cluster may share one. */
#define MPI_WIRE_F_CMA 0x1 /* Yama lets this rank's peers read it (CMA) */

#endif
