/*
 * comm.c - ranks over Open MPI, or one rank without it (comm.h).
 *
 * GLOBAL: the rank and size of this process, set once by ptm_comm_init()
 * before any thread starts and read-only afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "ptm.h"

#ifdef PTM_HAVE_MPI
#include <mpi.h>
#endif

static int comm_rank = 0, comm_size = 1;
static bool comm_mpi = false;
static int64_t comm_bytes; /* payload this rank sent to others */

bool ptm_comm_available(void)
{
#ifdef PTM_HAVE_MPI
    return true;
#else
    return false;
#endif
}

bool ptm_comm_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
           getenv("PMIX_RANK") != NULL;
}

int ptm_comm_launched_size(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v)
        v = getenv("PMI_SIZE");
    long n = v ? strtol(v, NULL, 10) : 1;
    return n > 1 && n < 1 << 24 ? (int)n : 1;
}

int ptm_comm_init(int *argc, char ***argv, bool want, char *err, size_t errlen)
{
    if (!want)
        return 0;
#ifdef PTM_HAVE_MPI
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI could not be started");
        return PTM_EINVAL;
    }
    /* errors end the job: a failed call is never left half-done on one rank */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &comm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &comm_size);
    comm_mpi = true;
    return 0;
#else
    (void)argc;
    (void)argv;
    snprintf(err, errlen,
             "this ptm was built without MPI (install libopenmpi-dev and rebuild, "
             "or run with --backend threads)");
    return PTM_EINVAL;
#endif
}

void ptm_comm_finish(void)
{
#ifdef PTM_HAVE_MPI
    if (comm_mpi)
        MPI_Finalize();
#endif
    comm_mpi = false;
}

int ptm_comm_rank(void)
{
    return comm_rank;
}

int ptm_comm_size(void)
{
    return comm_size;
}

_Noreturn void ptm_comm_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
#ifdef PTM_HAVE_MPI
    if (comm_mpi)
        MPI_Abort(MPI_COMM_WORLD, code);
#endif
    exit(code);
}

void ptm_comm_bcast(void *buf, size_t bytes)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        if (comm_rank == 0)
            comm_bytes += (int64_t)bytes * (comm_size - 1);
        for (size_t at = 0; at < bytes;) {
            size_t n = bytes - at < (size_t)1 << 30 ? bytes - at : (size_t)1 << 30;
            MPI_Bcast((char *)buf + at, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
            at += n;
        }
    }
#else
    (void)buf;
    (void)bytes;
#endif
}

void ptm_comm_sum_to_root(double *buf, size_t n)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        if (comm_rank != 0)
            comm_bytes += (int64_t)(n * sizeof(double));
    }
    if (comm_size > 1)
        for (size_t at = 0; at < n;) {
            size_t k = n - at < (size_t)1 << 27 ? n - at : (size_t)1 << 27;
            MPI_Reduce(comm_rank == 0 ? MPI_IN_PLACE : buf + at, buf + at, (int)k, MPI_DOUBLE,
                       MPI_SUM, 0, MPI_COMM_WORLD);
            at += k;
        }
#else
    (void)buf;
    (void)n;
#endif
}

int64_t ptm_comm_bytes(void)
{
    return comm_bytes;
}

int64_t ptm_comm_sum_i64(int64_t v)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        long long in = v, out;
        MPI_Allreduce(&in, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        return out;
    }
#endif
    return v;
}

int64_t ptm_comm_max_i64(int64_t v)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        long long in = v, out;
        MPI_Allreduce(&in, &out, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        return out;
    }
#endif
    return v;
}

int64_t ptm_comm_prefix_i64(int64_t v)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        long long in = v, out = 0;
        MPI_Exscan(&in, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        return comm_rank == 0 ? 0 : out;
    }
#endif
    (void)v;
    return 0;
}

void ptm_comm_gather(const double *mine, int64_t n, double *all)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        int cnt = (int)n, *counts = NULL, *displs = NULL;
        if (comm_rank == 0) {
            counts = malloc((size_t)comm_size * sizeof(int));
            displs = malloc((size_t)comm_size * sizeof(int));
            if (!counts || !displs)
                ptm_comm_abort(1);
        }
        MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (comm_rank == 0)
            for (int r = 0, at = 0; r < comm_size; r++) {
                displs[r] = at;
                at += counts[r];
            }
        MPI_Gatherv(mine, cnt, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        free(counts);
        free(displs);
        return;
    }
#endif
    memcpy(all, mine, (size_t)n * sizeof(double));
}
