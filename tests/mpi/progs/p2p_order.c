/* grove-mpi-test ranks=1,2,3,4,8 */
/* p2p_order: MPI's non-overtaking rule. Many messages from one source with
 * one tag, sizes mixed across the eager/rendezvous boundary (0 B .. 70 KB),
 * are received in send order: by pre-posted receives, by receives posted
 * after the messages were sent (unexpected queue), half and half, with
 * MPI_ANY_TAG (order across tags from one source), with MPI_ANY_SOURCE
 * (order per source while sources interleave), with MPI_Isend, MPI_Send and
 * MPI_Ssend senders. Each message carries its source and sequence number in
 * its first 8 bytes (and in its length, so zero-byte ones count too). */
#include "mpitest.h"

#define NMSG 48
#define MAXLEN 70000
static int rank, size, left, right;
static unsigned char *sb[NMSG], *rb[NMSG];

/* Length in bytes of message k (sizes cycle across thresholds; the cycle
 * is 12 long so zero-byte messages are told apart by position). */
static int msg_len(int k)
{
    static const int lens[] = {0, 4, 8, 4096, 12, 70000, 4097, 0, 16385, 100, 65537, 8};
    return lens[k % 12];
}

static void fill_msg(unsigned char *b, int src, int k)
{
    int n = msg_len(k);
    mt_fill(b, (size_t)n, (unsigned)(src * 1000 + k));
    if (n >= 8) {
        int hdr[2] = {src, k};
        memcpy(b, hdr, sizeof hdr);
    }
}

/* Checks that message (src, k) arrived intact in b with status st. */
static void check_msg(const unsigned char *b, const MPI_Status *st, int src, int k, int tag)
{
    int n = msg_len(k), count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (!MT_CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n,
                  "message %d: expected source %d tag %d len %d, got source %d tag %d len %d",
                  k, src, tag, n, st->MPI_SOURCE, st->MPI_TAG, count))
        return;
    if (n >= 8) {
        int hdr[2];
        memcpy(hdr, b, sizeof hdr);
        if (!MT_CHECK(hdr[0] == src && hdr[1] == k, "message %d: carries source %d seq %d", k,
                      hdr[0], hdr[1]))
            return;
        for (int i = 8; i < n; i++) {
            if (b[i] != mt_pat((unsigned)(src * 1000 + k), (size_t)i)) {
                MT_CHECK(0, "message %d from %d: byte %d corrupt", k, src, i);
                return;
            }
        }
    }
}

static void isend_all(int dest, int tagmod, MPI_Comm comm, MPI_Request *sr)
{
    for (int k = 0; k < NMSG; k++) {
        fill_msg(sb[k], rank, k);
        MPI_Isend(sb[k], msg_len(k), MPI_BYTE, dest, tagmod ? k % tagmod : 7, comm, &sr[k]);
    }
}

static void phase_preposted(void)
{
    MPI_Request rr[NMSG], sr[NMSG];
    MPI_Status st[NMSG];
    mt_section("pre-posted receives, Isend sender");
    for (int k = 0; k < NMSG; k++)
        MPI_Irecv(rb[k], MAXLEN, MPI_BYTE, left, 7, MPI_COMM_WORLD, &rr[k]);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted before any send */
    isend_all(right, 0, MPI_COMM_WORLD, sr);
    MPI_Waitall(NMSG, rr, st);
    for (int k = 0; k < NMSG; k++) check_msg(rb[k], &st[k], left, k, 7);
    MPI_Waitall(NMSG, sr, MPI_STATUSES_IGNORE);
}

static void phase_unexpected(void)
{
    MPI_Request sr[NMSG];
    MPI_Status st;
    mt_section("receives posted after the sends (unexpected), blocking Recv");
    isend_all(right, 0, MPI_COMM_WORLD, sr);
    MPI_Barrier(MPI_COMM_WORLD); /* every send started before any receive */
    for (int k = 0; k < NMSG; k++) {
        MPI_Recv(rb[0], MAXLEN, MPI_BYTE, left, 7, MPI_COMM_WORLD, &st);
        check_msg(rb[0], &st, left, k, 7);
    }
    MPI_Waitall(NMSG, sr, MPI_STATUSES_IGNORE);
}

static void phase_half(void)
{
    MPI_Request rr[NMSG], sr[NMSG];
    MPI_Status st[NMSG];
    mt_section("half pre-posted, half unexpected");
    for (int k = 0; k < NMSG / 2; k++)
        MPI_Irecv(rb[k], MAXLEN, MPI_BYTE, left, 7, MPI_COMM_WORLD, &rr[k]);
    isend_all(right, 0, MPI_COMM_WORLD, sr);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = NMSG / 2; k < NMSG; k++)
        MPI_Irecv(rb[k], MAXLEN, MPI_BYTE, left, 7, MPI_COMM_WORLD, &rr[k]);
    MPI_Waitall(NMSG, rr, st);
    for (int k = 0; k < NMSG; k++) check_msg(rb[k], &st[k], left, k, 7);
    MPI_Waitall(NMSG, sr, MPI_STATUSES_IGNORE);
}

static void phase_any_tag(void)
{
    MPI_Request rr[NMSG], sr[NMSG];
    MPI_Status st[NMSG], s1;
    mt_section("MPI_ANY_TAG, 5 tags interleaved, blocking Recv");
    isend_all(right, 5, MPI_COMM_WORLD, sr);
    for (int k = 0; k < NMSG; k++) {
        MPI_Recv(rb[0], MAXLEN, MPI_BYTE, left, MPI_ANY_TAG, MPI_COMM_WORLD, &s1);
        check_msg(rb[0], &s1, left, k, k % 5);
    }
    MPI_Waitall(NMSG, sr, MPI_STATUSES_IGNORE);

    mt_section("MPI_ANY_TAG pre-posted, MPI_Send sender");
    for (int k = 0; k < NMSG; k++)
        MPI_Irecv(rb[k], MAXLEN, MPI_BYTE, left, MPI_ANY_TAG, MPI_COMM_WORLD, &rr[k]);
    for (int k = 0; k < NMSG; k++) {
        fill_msg(sb[k], rank, k);
        MPI_Send(sb[k], msg_len(k), MPI_BYTE, right, 100 + k % 3, MPI_COMM_WORLD);
    }
    MPI_Waitall(NMSG, rr, st);
    for (int k = 0; k < NMSG; k++) check_msg(rb[k], &st[k], left, k, 100 + k % 3);

    mt_section("specific tag skips earlier messages with other tags");
    /* Left sends tags 0,1,2,0,1,2...; receive all tag-2 ones first, then
     * tag 1, then tag 0: each tag's messages still come in order. */
    isend_all(right, 3, MPI_COMM_WORLD, sr);
    for (int t = 2; t >= 0; t--)
        for (int k = t; k < NMSG; k += 3) {
            MPI_Recv(rb[0], MAXLEN, MPI_BYTE, left, t, MPI_COMM_WORLD, &s1);
            check_msg(rb[0], &s1, left, k, t);
        }
    MPI_Waitall(NMSG, sr, MPI_STATUSES_IGNORE);
}

/* Every rank sends PER messages to every rank (itself included); each rank
 * receives them all with MPI_ANY_SOURCE (and MPI_ANY_TAG in the second
 * round) and checks that each source's messages come in order. */
static void phase_any_source(void)
{
    enum { PER = 12 };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Request *sr = mt_malloc(sizeof(MPI_Request) * (size_t)(size * PER));
    unsigned char *sbig = mt_malloc((size_t)PER * MAXLEN);
    int *next = mt_malloc(sizeof(int) * (size_t)size);
    for (int round = 0; round < 2; round++) {
        int any_tag = round == 1;
        mt_section("MPI_ANY_SOURCE%s fan-in from all ranks", any_tag ? " + MPI_ANY_TAG" : "");
        for (int k = 0; k < PER; k++) fill_msg(sbig + (size_t)k * MAXLEN, rank, k);
        for (int d = 0; d < size; d++) {
            int dest = (rank + d) % size;
            for (int k = 0; k < PER; k++)
                MPI_Isend(sbig + (size_t)k * MAXLEN, msg_len(k), MPI_BYTE, dest,
                          any_tag ? 20 + k % 4 : 20, comm, &sr[d * PER + k]);
        }
        memset(next, 0, sizeof(int) * (size_t)size);
        for (int m = 0; m < size * PER; m++) {
            MPI_Status st;
            MPI_Recv(rb[0], MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, any_tag ? MPI_ANY_TAG : 20, comm,
                     &st);
            int src = st.MPI_SOURCE;
            if (!MT_CHECK(src >= 0 && src < size && next[src] < PER, "unexpected source %d",
                          src))
                break;
            int k = next[src]++;
            check_msg(rb[0], &st, src, k, any_tag ? 20 + k % 4 : 20);
        }
        MPI_Waitall(size * PER, sr, MPI_STATUSES_IGNORE);
        MPI_Barrier(comm); /* no round-2 message may meet a round-1 receive */
    }
    free(next);
    free(sbig);
    free(sr);
    MPI_Comm_free(&comm);
}

static void phase_ssend(void)
{
    MPI_Request rr[NMSG];
    MPI_Status st[NMSG];
    mt_section("MPI_Ssend sender, pre-posted receives");
    for (int k = 0; k < NMSG; k++)
        MPI_Irecv(rb[k], MAXLEN, MPI_BYTE, left, 9, MPI_COMM_WORLD, &rr[k]);
    for (int k = 0; k < NMSG; k++) {
        fill_msg(sb[k], rank, k);
        MPI_Ssend(sb[k], msg_len(k), MPI_BYTE, right, 9, MPI_COMM_WORLD);
    }
    MPI_Waitall(NMSG, rr, st);
    for (int k = 0; k < NMSG; k++) check_msg(rb[k], &st[k], left, k, 9);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_order");
    rank = mt_rank();
    size = mt_size();
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    for (int k = 0; k < NMSG; k++) {
        sb[k] = mt_malloc(MAXLEN);
        rb[k] = mt_malloc(MAXLEN);
    }
    phase_preposted();
    phase_unexpected();
    phase_half();
    phase_any_tag();
    phase_any_source();
    phase_ssend();
    for (int k = 0; k < NMSG; k++) {
        free(sb[k]);
        free(rb[k]);
    }
    return mt_finish();
}
