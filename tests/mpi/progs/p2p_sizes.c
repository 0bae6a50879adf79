/* grove-mpi-test ranks=1,2,3,4,8 */
/* p2p_sizes: message sizes around likely protocol thresholds (eager cells,
 * eager/rendezvous switch, pipeline chunks) up to 4 MiB, with MPI_BYTE and
 * MPI_INT counts, receive buffers larger than the message, Send, Ssend,
 * Isend/Irecv both ways at once (a rendezvous must not deadlock when both
 * sides send first), MPI_ANY_SOURCE, and messages to self. */
#include "mpitest.h"

static const int sizes[] = {0,     1,     7,     64,    1023,  1024,    1025,
                            4095,  4096,  4097,  8191,  8192,  8193,    16383,
                            16384, 16385, 32768, 65535, 65536, 65537,   131073,
                            1 << 20, (1 << 22) - 1, 1 << 22, (1 << 22) + 3};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXN ((1 << 22) + 3)
#define SLACK 64

static int rank, size, left, right;
static unsigned char *sbuf, *rbuf;

static unsigned seed(int r, int i) { return (unsigned)(r * 977 + i * 13 + 5); }

static void check_recv(const MPI_Status *st, int src, int tag, int n, int i)
{
    int count = -1;
    MT_CHECK_EQ(st->MPI_SOURCE, src);
    MT_CHECK_EQ(st->MPI_TAG, tag);
    MPI_Get_count(st, MPI_BYTE, &count);
    MT_CHECK_EQ(count, n);
    MT_CHECK_PAT(rbuf, (size_t)n, seed(src, i));
    MT_CHECK_BYTE_RANGE(rbuf, (size_t)n, (size_t)n + SLACK, 0xA5);
}

/* Ring shift with Irecv + blocking send (Send or Ssend). */
static void ring_blocking(int ssend)
{
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i];
        MPI_Request req;
        MPI_Status st;
        mt_section("%s ring n=%d", ssend ? "MPI_Ssend" : "MPI_Send", n);
        mt_fill(sbuf, (size_t)n, seed(rank, i));
        memset(rbuf, 0xA5, (size_t)n + SLACK);
        MPI_Irecv(rbuf, n + SLACK, MPI_BYTE, left, i, MPI_COMM_WORLD, &req);
        if (ssend) MPI_Ssend(sbuf, n, MPI_BYTE, right, i, MPI_COMM_WORLD);
        else MPI_Send(sbuf, n, MPI_BYTE, right, i, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        check_recv(&st, left, i, n, i);
    }
}

/* Pairs exchange with Isend first, then Irecv (both sides send before either
 * receives), MPI_INT counts (sizes rounded down to whole ints). */
static void pair_exchange(void)
{
    int partner = size == 1 ? 0 : (rank ^ 1);
    if (partner >= size) partner = rank; /* odd size: the last rank talks to itself */
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i] / (int)sizeof(int), nb = n * (int)sizeof(int);
        MPI_Request r[2];
        MPI_Status st[2];
        int count = -1;
        mt_section("Isend-before-Irecv pair exchange %d ints", n);
        mt_fill(sbuf, (size_t)nb, seed(rank, i));
        memset(rbuf, 0xA5, (size_t)nb + SLACK);
        MPI_Isend(sbuf, n, MPI_INT, partner, 100 + i, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(rbuf, n + SLACK / 4, MPI_INT, partner, 100 + i, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, st);
        MPI_Get_count(&st[1], MPI_INT, &count);
        MT_CHECK_EQ(count, n);
        check_recv(&st[1], partner, 100 + i, nb, i);
    }
}

/* Everybody sends to rank 0 (size-1 messages per size); rank 0 receives them
 * with MPI_ANY_SOURCE and checks each against its source. */
static void any_source_fan_in(void)
{
    static const int fan_sizes[] = {0, 4097, 65537, 1 << 20};
    for (int k = 0; k < 4; k++) {
        int n = fan_sizes[k], tag = 300 + k;
        mt_section("MPI_ANY_SOURCE fan-in n=%d", n);
        if (rank != 0) {
            mt_fill(sbuf, (size_t)n, seed(rank, 1000 + k));
            MPI_Send(sbuf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
            continue;
        }
        char *seen = calloc((size_t)size, 1);
        for (int m = 1; m < size; m++) {
            MPI_Status st;
            memset(rbuf, 0xA5, (size_t)n + SLACK);
            MPI_Recv(rbuf, n + SLACK, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE;
            if (!MT_CHECK(src > 0 && src < size && !seen[src], "bad or repeated source %d", src))
                continue;
            seen[src] = 1;
            check_recv(&st, src, tag, n, 1000 + k);
        }
        free(seen);
    }
}

/* Blocking Send to self after an Irecv, including 4 MiB. */
static void self_messages(void)
{
    for (int i = 0; i < NSIZES; i += 3) {
        int n = sizes[i];
        MPI_Request req;
        MPI_Status st;
        mt_section("message to self n=%d", n);
        mt_fill(sbuf, (size_t)n, seed(rank, i));
        memset(rbuf, 0xA5, (size_t)n + SLACK);
        MPI_Irecv(rbuf, n + SLACK, MPI_BYTE, rank, 400 + i, MPI_COMM_WORLD, &req);
        MPI_Send(sbuf, n, MPI_BYTE, rank, 400 + i, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        check_recv(&st, rank, 400 + i, n, i);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_sizes");
    rank = mt_rank();
    size = mt_size();
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    sbuf = mt_malloc(MAXN + SLACK);
    rbuf = mt_malloc(MAXN + SLACK);
    ring_blocking(0);
    ring_blocking(1);
    pair_exchange();
    any_source_fan_in();
    self_messages();
    free(sbuf);
    free(rbuf);
    return mt_finish();
}
