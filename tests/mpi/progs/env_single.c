/* grove-mpi-test ranks=1,2,3,4,8 */
/* env_single: env.c with MPI_Init_thread(MPI_THREAD_SINGLE). */
#define ENV_REQUIRED_LEVEL MPI_THREAD_SINGLE
#define ENV_NAME "env_single"
#include "env.c"
