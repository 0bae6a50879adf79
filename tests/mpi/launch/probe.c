/* A rank for the launcher's tests (tests/cli/mpi_run*.sh): does what its
 * arguments say, so that one program covers every way a rank can behave
 * under grove run.
 *
 *   probe TAG MODE [ARGS]
 *
 * TAG is any word (the tests use it to find their processes with pgrep).
 * Modes (R is a rank; the others just initialize and finalize):
 *   hello             print "hello R of N" and finalize
 *   env VAR           print "R VAR=value" (or "R VAR unset")
 *   cwd               print "R cwd"
 *   stdin             rank 0 copies its standard input to standard output
 *                     as "0 stdin: LINE"; the others print "R stdin: eof"
 *                     when theirs is at its end at once (/dev/null)
 *   lines K           every rank writes K lines, each in three write()s
 *                     with pauses between, to standard output and error
 *   partial           rank 0 writes "partial R" without a newline
 *   segv R            rank R raises SIGSEGV after MPI_Init
 *   abort R CODE      rank R calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   exit R CODE       rank R exits CODE without MPI_Finalize
 *   sleep R S         rank R computes (sleeps) S seconds, then everyone
 *                     meets in MPI_Barrier and finalizes
 *   hang              every rank waits in MPI_Barrier after rank 0 has
 *                     entered a pause() that never ends
 *   pids              print "R pid PID" and finalize
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
say(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: probe TAG MODE [ARGS]\n");
		return 2;
	}
	const char *mode = argv[2];
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int who = argc > 3 ? atoi(argv[3]) : -1;
	int arg = argc > 4 ? atoi(argv[4]) : 0;
	char line[512];
	if (!strcmp(mode, "hello")) {
		printf("hello %d of %d\n", rank, size);
	} else if (!strcmp(mode, "env") && argc > 3) {
		const char *v = getenv(argv[3]);
		if (v)
			printf("%d %s=%s\n", rank, argv[3], v);
		else
			printf("%d %s unset\n", rank, argv[3]);
	} else if (!strcmp(mode, "cwd")) {
		char d[4096];
		printf("%d %s\n", rank, getcwd(d, sizeof d) ? d : "?");
	} else if (!strcmp(mode, "stdin")) {
		if (rank == 0) {
			while (fgets(line, sizeof line, stdin))
				printf("0 stdin: %s", line);
		} else {
			char c;
			if (read(0, &c, 1) == 0)
				printf("%d stdin: eof\n", rank);
			else
				printf("%d stdin: data\n", rank);
		}
	} else if (!strcmp(mode, "lines")) {
		int k = who > 0 ? who : 10;
		for (int i = 0; i < k; i++) {
			for (int fd = 1; fd <= 2; fd++) {
				char a[64], b[200];
				snprintf(a, sizeof a, "rank %d line %d ", rank, i);
				memset(b, 'a' + rank % 26, sizeof b - 1);
				b[sizeof b - 1] = '\0';
				say(fd, a);
				usleep(200);
				say(fd, b);
				usleep(200);
				say(fd, " end\n");
			}
		}
	} else if (!strcmp(mode, "partial")) {
		if (rank == 0) {
			snprintf(line, sizeof line, "partial %d", rank);
			say(1, line);
		}
	} else if (!strcmp(mode, "segv")) {
		if (rank == who) {
			usleep(100 * 1000);
			raise(SIGSEGV);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "abort")) {
		if (rank == who)
			MPI_Abort(MPI_COMM_WORLD, arg);
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "exit")) {
		if (rank == who)
			exit(arg);
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "sleep")) {
		if (rank == who)
			sleep((unsigned)arg);
		MPI_Barrier(MPI_COMM_WORLD);
		printf("%d done\n", rank);
	} else if (!strcmp(mode, "hang")) {
		printf("%d waiting\n", rank);
		fflush(stdout);
		if (rank == 0)
			for (;;)
				pause();
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "pids")) {
		printf("%d pid %d\n", rank, (int)getpid());
	}
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
