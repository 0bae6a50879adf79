/* grove-mpi-test ranks=1,2,3,4,8 */
/* env: the MPI environment.
 * MPI_Initialized/Finalized before and after, MPI_Init_thread (level chosen by
 * ENV_REQUIRED_LEVEL: env_single.c and env_funneled.c include this file with
 * another level), MPI_Query_thread, MPI_Is_thread_main, Wtime/Wtick,
 * Get_processor_name, Get_version (>= 3.0 here; Grove reports 3.1),
 * Get_library_version, Error_string/Error_class, Comm_set/get_errhandler with
 * MPI_ERRORS_RETURN (bad rank, bad tag return error codes with messages),
 * MPI_Comm_get_attr(MPI_TAG_UB) and the MPI_COMM_WORLD/MPI_COMM_SELF basics. */
#include "mpitest.h"

#ifndef ENV_REQUIRED_LEVEL
#define ENV_REQUIRED_LEVEL MPI_THREAD_SERIALIZED
#define ENV_NAME "env"
#endif

static const char *level_name(int l)
{
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
    }
}

static void check_errstring(int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(s, 'x', sizeof s);
    MT_CHECK_EQ(MPI_Error_string(code, s, &len), MPI_SUCCESS);
    MT_CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "code %d: len %d", code, len);
    if (len >= 0 && len < MPI_MAX_ERROR_STRING)
        MT_CHECK(s[len] == '\0' && memchr(s, '\0', (size_t)len) == NULL,
                 "code %d: string not terminated at len %d", code, len);
}

static void check_error_class(int code, int want_class, const char *what)
{
    int cls = -1;
    MT_CHECK(code != MPI_SUCCESS, "%s succeeded; expected an error", what);
    if (code == MPI_SUCCESS) return;
    MT_CHECK_EQ(MPI_Error_class(code, &cls), MPI_SUCCESS);
    MT_CHECK(cls == want_class, "%s: error class %d, expected %d", what, cls, want_class);
    check_errstring(code);
}

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, rank, size;

    /* Before MPI_Init_thread: both queries work and say "no". */
    MPI_Initialized(&flag);
    int init_before = flag;
    MPI_Finalized(&flag);
    int fin_before = flag;

    MPI_Init_thread(&argc, &argv, ENV_REQUIRED_LEVEL, &provided);
    mt_attach(ENV_NAME);
    rank = mt_rank();
    size = mt_size();

    mt_section("initialized/finalized before init");
    MT_CHECK_EQ(init_before, 0);
    MT_CHECK_EQ(fin_before, 0);
    MPI_Initialized(&flag);
    MT_CHECK_EQ(flag, 1);
    MPI_Finalized(&flag);
    MT_CHECK_EQ(flag, 0);

    mt_section("init_thread required=%s", level_name(ENV_REQUIRED_LEVEL));
    MT_CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
                 provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
             "provided %d", provided);
    MT_CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
                 MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
                 MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
             "thread level constants not monotonic");
    MT_CHECK(provided >= MPI_THREAD_SINGLE, "provided %d", provided);
    int q = -1;
    MPI_Query_thread(&q);
    MT_CHECK_EQ(q, provided);
    MPI_Is_thread_main(&flag);
    MT_CHECK_EQ(flag, 1);

    mt_section("comm world/self");
    MT_CHECK(rank >= 0 && rank < size, "rank %d size %d", rank, size);
    int srank = -1, ssize = -1;
    MPI_Comm_rank(MPI_COMM_SELF, &srank);
    MPI_Comm_size(MPI_COMM_SELF, &ssize);
    MT_CHECK_EQ(srank, 0);
    MT_CHECK_EQ(ssize, 1);

    mt_section("version");
    int ver = -1, sub = -1;
    MPI_Get_version(&ver, &sub);
    MT_CHECK(ver > 3 || (ver == 3 && sub >= 0), "MPI_Get_version %d.%d < 3.0", ver, sub);
    MT_CHECK(MPI_VERSION >= 3, "MPI_VERSION %d", MPI_VERSION);
    MT_CHECK(ver == MPI_VERSION && sub == MPI_SUBVERSION, "runtime %d.%d vs header %d.%d",
             ver, sub, MPI_VERSION, MPI_SUBVERSION);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen = -1;
    MPI_Get_library_version(lib, &liblen);
    MT_CHECK(liblen > 0 && liblen < MPI_MAX_LIBRARY_VERSION_STRING, "library version len %d",
             liblen);
    if (liblen > 0 && liblen < MPI_MAX_LIBRARY_VERSION_STRING)
        /* Open MPI 4.1 counts the terminating NUL in liblen; accept that. */
        MT_CHECK((int)strlen(lib) == liblen || (int)strlen(lib) == liblen - 1,
                 "strlen %zu != %d", strlen(lib), liblen);

    mt_section("processor name");
    char name[MPI_MAX_PROCESSOR_NAME];
    int namelen = -1;
    MPI_Get_processor_name(name, &namelen);
    MT_CHECK(namelen > 0 && namelen < MPI_MAX_PROCESSOR_NAME, "len %d", namelen);
    if (namelen > 0 && namelen < MPI_MAX_PROCESSOR_NAME)
        MT_CHECK((int)strlen(name) == namelen, "strlen %zu != %d", strlen(name), namelen);

    mt_section("wtime/wtick");
    double tick = MPI_Wtick();
    MT_CHECK(tick > 0.0 && tick <= 0.01, "MPI_Wtick %g", tick);
    double t0 = MPI_Wtime(), prev = t0;
    int backwards = 0;
    for (int i = 0; i < 1000; i++) {
        double t = MPI_Wtime();
        if (t < prev) backwards++;
        prev = t;
    }
    MT_CHECK_EQ(backwards, 0);
    while (MPI_Wtime() - t0 < 0.002) { /* spin 2 ms */ }
    double dt = MPI_Wtime() - t0;
    MT_CHECK(dt >= 0.002 && dt < 5.0, "elapsed %g s after a 2 ms spin", dt);

    mt_section("tag_ub attribute");
    int *tag_ub = NULL;
    flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    MT_CHECK_EQ(flag, 1);
    if (flag && tag_ub) MT_CHECK(*tag_ub >= 32767, "MPI_TAG_UB %d", *tag_ub);

    mt_section("error strings and classes");
    check_errstring(MPI_SUCCESS);
    const int classes[] = {MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG,
                           MPI_ERR_COMM, MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT,
                           MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_ARG, MPI_ERR_TRUNCATE,
                           MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_PENDING, MPI_ERR_IN_STATUS,
                           MPI_ERR_UNKNOWN};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        int cls = -1;
        MT_CHECK(classes[i] > MPI_SUCCESS && classes[i] <= MPI_ERR_LASTCODE,
                 "class %d outside (0, MPI_ERR_LASTCODE=%d]", classes[i], MPI_ERR_LASTCODE);
        MPI_Error_class(classes[i], &cls);
        MT_CHECK(cls == classes[i], "MPI_Error_class(%d) = %d", classes[i], cls);
        check_errstring(classes[i]);
    }
    int cls = -1;
    MPI_Error_class(MPI_SUCCESS, &cls);
    MT_CHECK_EQ(cls, MPI_SUCCESS);

    mt_section("errhandler");
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    MT_CHECK(eh == MPI_ERRORS_ARE_FATAL, "default errhandler of MPI_COMM_WORLD");
    if (eh != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    MT_CHECK(eh == MPI_ERRORS_RETURN, "errhandler after set");
    if (eh != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&eh);

    int v = 1;
    mt_section("errors_return: send to rank=size");
    check_error_class(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
                      "MPI_Send to rank size");
    mt_section("errors_return: recv from rank=-5");
    check_error_class(MPI_Recv(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                      MPI_ERR_RANK, "MPI_Recv from rank -5");
    mt_section("errors_return: send with tag=-3");
    check_error_class(MPI_Send(&v, 1, MPI_INT, rank, -3, MPI_COMM_WORLD), MPI_ERR_TAG,
                      "MPI_Send tag -3");
    mt_section("errors_return: bcast with root=size");
    check_error_class(MPI_Bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT,
                      "MPI_Bcast root size");
    /* Communication still works after the errors. */
    mt_section("after errors");
    int sum = 0;
    MT_CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_EQ(sum, size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* The errhandler of a dup is inherited; COMM_SELF is independent. */
    mt_section("errhandler inherited by dup");
    MPI_Comm dup;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Comm_get_errhandler(dup, &eh);
    MT_CHECK(eh == MPI_ERRORS_RETURN, "dup of COMM_SELF lost MPI_ERRORS_RETURN");
    if (eh != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&eh);
    check_error_class(MPI_Send(&v, 1, MPI_INT, 1, 0, dup), MPI_ERR_RANK,
                      "MPI_Send to rank 1 of a 1-rank comm");
    MPI_Comm_free(&dup);
    MT_CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

    /* Finish by hand: the checks after MPI_Finalize are local. */
    mt_section("finish");
    long all = mt_global_failures();
    MPI_Finalize();
    long local = 0;
    MPI_Finalized(&flag);
    if (flag != 1) {
        fprintf(stderr, "FAIL %s [after finalize] rank %d: MPI_Finalized = %d\n", ENV_NAME,
                rank, flag);
        local++;
    }
    MPI_Initialized(&flag);
    if (flag != 1) {
        fprintf(stderr, "FAIL %s [after finalize] rank %d: MPI_Initialized = %d\n",
                ENV_NAME, rank, flag);
        local++;
    }
    if (rank == 0) {
        if (all == 0 && local == 0) printf("OK %s\n", ENV_NAME);
        else printf("FAILED %s: %ld failed check(s)\n", ENV_NAME, all + local);
    }
    return (all == 0 && local == 0) ? 0 : 1;
}
