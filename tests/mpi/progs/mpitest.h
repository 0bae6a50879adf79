/* mpitest.h: small helpers shared by Grove's MPI conformance programs.
 *
 * Only static inline functions and macros, so each program stays one C file.
 * Usage:
 *   int main(int argc, char **argv) {
 *       mt_init(&argc, &argv, "p2p_basic");
 *       mt_section("ssend ring");            // names the sub-test in messages
 *       MT_CHECK_EQ(got, want);              // integers compared exactly
 *       MT_CHECK(cond, "fmt %d", x);         // free-form check
 *       return mt_finish();                  // allreduce of failures, "OK name"
 *   }
 * A failed check prints "FAIL <prog> [<section>] rank R/N: file:line: ..." on
 * stderr and is counted; mt_finish() returns 1 on every rank if any rank failed.
 * MT_FATAL() aborts the whole job at once (for states where going on would
 * only hang).
 */
#ifndef GROVE_MPITEST_H
#define GROVE_MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Known deviations of the peer libraries the programs are compared with.
 * Checks that a peer gets wrong are skipped only for that peer (and say so
 * in a comment); Grove's mpi.h defines neither macro, so Grove is held to
 * the standard everywhere. */
#if defined(OPEN_MPI)
#define MT_PEER_OMPI 1
#else
#define MT_PEER_OMPI 0
#endif
#if defined(MPICH_VERSION)
#define MT_PEER_MPICH 1
#else
#define MT_PEER_MPICH 0
#endif

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1 and its prototypes carry
 * array sizes, so GCC >= 11 reports a false -Wstringop-overflow for every
 * MPI_Waitall(..., MPI_STATUSES_IGNORE). Silence only that, only there. */
#if MT_PEER_MPICH && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

typedef struct mt_state {
    const char *prog;
    char section[160];
    int rank, size;
    long failures;
} mt_state;

static inline mt_state *mt_st(void)
{
    static mt_state st = {"?", "", 0, 1, 0};
    return &st;
}

static inline int mt_rank(void) { return mt_st()->rank; }
static inline int mt_size(void) { return mt_st()->size; }

/* Name the sub-test that the following checks belong to (printf format). */
static inline void mt_section(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mt_st()->section, sizeof mt_st()->section, fmt, ap);
    va_end(ap);
    /* MT_TRACE=1 in the environment: print every section as it starts (to
     * find where a program hangs or crashes). */
    static int trace = -1;
    if (trace < 0) trace = getenv("MT_TRACE") != NULL;
    if (trace) {
        fprintf(stderr, "[%s rank %d] %s\n", mt_st()->prog, mt_st()->rank, mt_st()->section);
        fflush(stderr);
    }
}

static inline void mt_vfail(const char *file, int line, const char *fmt, va_list ap)
{
    mt_state *st = mt_st();
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "FAIL %s [%s] rank %d/%d: %s:%d: %s\n", st->prog, st->section,
            st->rank, st->size, file, line, msg);
    fflush(stderr);
    st->failures++;
}

static inline void mt_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_vfail(file, line, fmt, ap);
    va_end(ap);
}

static inline void mt_fatal_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_vfail(file, line, fmt, ap);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static inline int mt_check_at(const char *file, int line, int ok, const char *cond,
                              const char *fmt, ...)
{
    if (ok) return 1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mt_fail_at(file, line, "check '%s' failed: %s", cond, msg);
    return 0;
}
/* Returns 1 when the check passed (so callers can stop after a failure). */
#define MT_CHECK(cond, ...) mt_check_at(__FILE__, __LINE__, !!(cond), #cond, __VA_ARGS__)

static inline int mt_check_eq_at(const char *file, int line, const char *what,
                                 long long got, long long want)
{
    if (got == want) return 1;
    mt_fail_at(file, line, "%s: got %lld, expected %lld", what, got, want);
    return 0;
}
#define MT_CHECK_EQ(got, want) \
    mt_check_eq_at(__FILE__, __LINE__, #got, (long long)(got), (long long)(want))

/* Exact comparison of floating values (the programs only use exactly
 * representable values, so == is the right test). */
static inline int mt_check_feq_at(const char *file, int line, const char *what,
                                  long double got, long double want)
{
    if (got == want) return 1;
    mt_fail_at(file, line, "%s: got %.21Lg, expected %.21Lg", what, got, want);
    return 0;
}
#define MT_CHECK_FEQ(got, want) \
    mt_check_feq_at(__FILE__, __LINE__, #got, (long double)(got), (long double)(want))

static inline int mt_check_rc_at(const char *file, int line, const char *call, int rc)
{
    if (rc == MPI_SUCCESS) return 1;
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    s[0] = '\0';
    MPI_Error_string(rc, s, &len);
    mt_fail_at(file, line, "%s returned %d (%s)", call, rc, s);
    return 0;
}
/* For calls made while MPI_ERRORS_RETURN is set (with the default handler an
 * error aborts the job before this can see it). */
#define MT_CHECK_RC(call) mt_check_rc_at(__FILE__, __LINE__, #call, (call))

#define MT_FATAL(...) mt_fatal_at(__FILE__, __LINE__, __VA_ARGS__)

static inline void mt_init(int *argc, char ***argv, const char *prog)
{
    mt_state *st = mt_st();
    MPI_Init(argc, argv);
    st->prog = prog;
    MPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st->size);
    mt_section("init");
}

/* Call after MPI_Init_thread when the program initialises MPI itself. */
static inline void mt_attach(const char *prog)
{
    mt_state *st = mt_st();
    st->prog = prog;
    MPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st->size);
    mt_section("init");
}

/* Stop early (returning 0 after MPI_Finalize) if fewer ranks than needed. */
static inline int mt_need_ranks(int n)
{
    if (mt_size() >= n) return 1;
    if (mt_rank() == 0)
        fprintf(stderr, "%s: needs at least %d ranks, got %d\n", mt_st()->prog, n, mt_size());
    return 0;
}

/* Sum of failures over all ranks (collective over COMM_WORLD). */
static inline long mt_global_failures(void)
{
    long mine = mt_st()->failures, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* Collective: finalize and return the exit status for main(). */
static inline int mt_finish(void)
{
    mt_section("finish");
    long all = mt_global_failures();
    if (mt_rank() == 0) {
        if (all == 0) printf("OK %s\n", mt_st()->prog);
        else printf("FAILED %s: %ld failed check(s)\n", mt_st()->prog, all);
        fflush(stdout);
    }
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}

/* ---- patterns ------------------------------------------------------------ */

/* Byte i of a buffer tagged with seed (seed usually encodes sender, message). */
static inline unsigned char mt_pat(unsigned seed, size_t i)
{
    uint32_t x = (uint32_t)seed * 2654435761u + (uint32_t)i * 40503u + (uint32_t)(i >> 12);
    return (unsigned char)(x ^ (x >> 13));
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) p[i] = mt_pat(seed, i);
}

/* Returns 1 if buf holds the pattern; otherwise reports the first bad byte. */
#define MT_CHECK_PAT(buf, n, seed) mt_check_pat_at(__FILE__, __LINE__, (buf), (n), (seed))
static inline int mt_check_pat_at(const char *file, int line, const void *buf, size_t n,
                                  unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != mt_pat(seed, i)) {
            mt_fail_at(file, line, "pattern(seed %u, %zu bytes): byte %zu is %u, expected %u",
                       seed, n, i, p[i], mt_pat(seed, i));
            return 0;
        }
    }
    return 1;
}

/* Integer pattern: element i from rank r (exact in int and in double). */
static inline int mt_ival(int r, int i) { return (r + 1) * 1000 + (i % 997); }

#define MT_CHECK_BYTE_RANGE(buf, from, to, val) \
    mt_check_byte_range_at(__FILE__, __LINE__, (buf), (from), (to), (val))
/* Checks bytes [from,to) all equal val (guard regions that must stay intact). */
static inline int mt_check_byte_range_at(const char *file, int line, const void *buf,
                                         size_t from, size_t to, unsigned char val)
{
    const unsigned char *p = buf;
    for (size_t i = from; i < to; i++) {
        if (p[i] != val) {
            mt_fail_at(file, line, "guard byte %zu is %u, expected %u", i, p[i], val);
            return 0;
        }
    }
    return 1;
}

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) MT_FATAL("out of memory (%zu bytes)", n);
    return p;
}

#endif /* GROVE_MPITEST_H */
