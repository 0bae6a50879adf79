/* grove-mpi-test ranks=2,3 */
/* p2p_flood: a sender far ahead of its receiver.  Rank 0 sends 600
 * messages of 60000 bytes (36 MB, below the TCP transport's eager limit,
 * above shared memory's) with MPI_Isend to rank 1, which computes
 * (sleeps) half a second before it receives any: the sender's channel
 * fills (a full ring, or over TCP a socket that takes no more and a send
 * queue over its high-water mark), later sends wait in order, and the
 * sender's MPI_Waitall completes only as the receiver drains.  Every
 * message arrives intact and in order.  Other ranks only take part in the
 * final barrier. */
#include <unistd.h>

#include "mpitest.h"

#define NMSG 600
#define LEN 60000

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_flood");
    int rank = mt_rank();
    if (mt_size() < 2) {
        mt_section("needs 2 ranks");
        return mt_finish();
    }
    mt_section("flood of %d x %d B from 0 to 1", NMSG, LEN);
    if (rank == 0) {
        unsigned char *buf = mt_malloc((size_t)NMSG * LEN);
        MPI_Request *r = mt_malloc(NMSG * sizeof *r);
        for (int k = 0; k < NMSG; k++) {
            unsigned char *b = buf + (size_t)k * LEN;
            mt_fill(b, LEN, (unsigned)k);
            memcpy(b, &k, sizeof k);
            MPI_Isend(b, LEN, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r[k]);
        }
        MT_CHECK_EQ(MPI_Waitall(NMSG, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        free(buf);
        free(r);
    } else if (rank == 1) {
        usleep(500000);
        unsigned char *b = mt_malloc(LEN);
        for (int k = 0; k < NMSG; k++) {
            MPI_Status st;
            MPI_Recv(b, LEN, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
            int seq = -1, count = -1;
            memcpy(&seq, b, sizeof seq);
            MPI_Get_count(&st, MPI_BYTE, &count);
            if (!MT_CHECK(seq == k && count == LEN, "message %d: seq %d, %d bytes",
                          k, seq, count))
                break;
            int bad = 0;
            for (int i = (int)sizeof seq; i < LEN && !bad; i++)
                bad = b[i] != mt_pat((unsigned)k, (size_t)i);
            if (!MT_CHECK(!bad, "message %d corrupt", k))
                break;
        }
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return mt_finish();
}
