/* grove-mpi-test ranks=1,2,3,4,8 */
/* env_funneled: env.c with MPI_Init_thread(MPI_THREAD_FUNNELED). */
#define ENV_REQUIRED_LEVEL MPI_THREAD_FUNNELED
#define ENV_NAME "env_funneled"
#include "env.c"
