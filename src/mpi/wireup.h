/* The wire-up protocol between grove run (the front-end of a flat Grove
 * network in attach mode) and the ranks (its back-ends), shared by
 * src/mpi/wireup.c and tools/run/run_wire.c.
 *
 *   1. every rank attaches as back-end `rank` (grove_be_attach with the
 *      connection file named by GROVE_MPI_CONNECT);
 *   2. once all are up, the launcher creates a stream over all of them
 *      with the "concat" filter and sends MPI_WIRE_TAG_GO ("%ud": ranks);
 *   3. each rank sends its card on that stream (MPI_WIRE_TAG_CARD, "%s",
 *      the format of card.h), the tree concatenates them ("%as %aud":
 *      cards and their ranks) and the launcher multicasts that packet
 *      back unchanged: an allgather of cards through the tree.
 */
#ifndef GROVE_MPI_WIREUP_H
#define GROVE_MPI_WIREUP_H

#define MPI_WIRE_TAG_GO 0x4d50 /* "MP" */
#define MPI_WIRE_TAG_CARD 0x4d51

#endif
