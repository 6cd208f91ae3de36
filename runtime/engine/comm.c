/*
 * comm.c - ranks over Open MPI, or one rank without it (comm.h).
 *
 * GLOBAL: the rank and size of this process, set once by ptm_comm_init()
 * before any thread starts and read-only afterwards.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
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
    /* Open MPI unloads its components in MPI_Finalize while a thread of its
     * own may still be ending in one of them (seen: a rare segfault in
     * libgcc_s's unwinder at exit); keeping them loaded avoids that. The
     * user's own setting wins. */
    setenv("OMPI_MCA_mca_base_component_disable_dlclose", "1", 0);
    /* a round's messages (its schedule and new values, its sums) are a few
     * KiB: sent eagerly over shared memory rather than by rendezvous (the
     * default limit, 4 KiB, cost 15-20% of a Lasso round's time) */
    setenv("OMPI_MCA_btl_vader_eager_limit", "65536", 0);
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

#ifdef PTM_HAVE_MPI
/* buf[0 .. n) (items of `size` bytes, MPI type t) summed over the ranks,
 * on every rank, in chunks that fit an int. */
static void sum_all(void *buf, size_t n, size_t size, MPI_Datatype t)
{
    if (comm_size < 2)
        return;
    comm_bytes += (int64_t)(n * size);
    for (size_t at = 0; at < n;) {
        size_t k = n - at < (size_t)1 << 27 ? n - at : (size_t)1 << 27;
        MPI_Allreduce(MPI_IN_PLACE, (char *)buf + at * size, (int)k, t, MPI_SUM, MPI_COMM_WORLD);
        at += k;
    }
}
#endif

void ptm_comm_sum_all(double *buf, size_t n)
{
#ifdef PTM_HAVE_MPI
    sum_all(buf, n, sizeof(double), MPI_DOUBLE);
#else
    (void)buf;
    (void)n;
#endif
}

void ptm_comm_sum_all_i64v(int64_t *buf, size_t n)
{
#ifdef PTM_HAVE_MPI
    sum_all(buf, n, sizeof(int64_t), MPI_INT64_T);
#else
    (void)buf;
    (void)n;
#endif
}

void ptm_comm_sum_all_i32v(int32_t *buf, size_t n)
{
#ifdef PTM_HAVE_MPI
    sum_all(buf, n, sizeof(int32_t), MPI_INT32_T);
#else
    (void)buf;
    (void)n;
#endif
}

int ptm_comm_exchange(const void *send, const int64_t *at, size_t item, void **recv,
                      int64_t *nrecv)
{
    *recv = NULL;
    *nrecv = 0;
#ifdef PTM_HAVE_MPI
    if (comm_size > 1) {
        size_t R = (size_t)comm_size;
        long long *sc = malloc(2 * R * sizeof(long long));
        int *cnt = malloc(4 * R * sizeof(int));
        if (!sc || !cnt) {
            free(sc);
            free(cnt);
            return PTM_ENOMEM;
        }
        long long *rc = sc + R;
        int *sdis = cnt + R, *rcnt = cnt + 2 * R, *rdis = cnt + 3 * R;
        for (size_t r = 0; r < R; r++)
            sc[r] = at[r + 1] - at[r];
        MPI_Alltoall(sc, 1, MPI_LONG_LONG, rc, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
        /* counts and displacements in items of one MPI type: past INT_MAX
         * items the exchange would need chunks */
        int64_t total = 0;
        bool big = at[R] > INT_MAX;
        for (size_t r = 0; r < R; r++) {
            big = big || total + rc[r] > INT_MAX;
            total += rc[r];
        }
        int bad = big, any;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        void *buf = any ? NULL : ptm_malloc((size_t)(total ? total : 1) * item);
        int nomem = !any && !buf, oom;
        MPI_Allreduce(&nomem, &oom, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any || oom) {
            ptm_free(buf);
            free(sc);
            free(cnt);
            return any ? PTM_ETOOBIG : PTM_ENOMEM;
        }
        for (size_t r = 0, a = 0; r < R; r++) {
            cnt[r] = (int)sc[r];
            sdis[r] = (int)at[r];
            rcnt[r] = (int)rc[r];
            rdis[r] = (int)a;
            a += (size_t)rc[r];
            if (r != (size_t)comm_rank)
                comm_bytes += sc[r] * (int64_t)item;
        }
        MPI_Datatype t;
        MPI_Type_contiguous((int)item, MPI_BYTE, &t);
        MPI_Type_commit(&t);
        MPI_Alltoallv(send, cnt, sdis, t, buf, rcnt, rdis, t, MPI_COMM_WORLD);
        MPI_Type_free(&t);
        free(sc);
        free(cnt);
        *recv = buf;
        *nrecv = total;
        return 0;
    }
#endif
    size_t n = (size_t)(at[1] - at[0]);
    void *buf = ptm_malloc((n ? n : 1) * item);
    if (!buf)
        return PTM_ENOMEM;
    if (n)
        memcpy(buf, (const char *)send + (size_t)at[0] * item, n * item);
    *recv = buf;
    *nrecv = (int64_t)n;
    return 0;
}

void ptm_comm_post(const struct ptm_comm_msg *msg, size_t n)
{
#ifdef PTM_HAVE_MPI
    if (comm_size > 1 && n > 0) {
        /* a message past an int's bytes goes in pieces, which pair up in
         * order between two ranks */
        const size_t piece = (size_t)1 << 30;
        size_t nreq = 0;
        for (size_t i = 0; i < n; i++)
            nreq += msg[i].bytes ? (msg[i].bytes + piece - 1) / piece : 1;
        MPI_Request *req = malloc(nreq * sizeof(MPI_Request));
        if (!req)
            ptm_comm_abort(1);
        /* receives first, so that no send waits for its match to be posted */
        size_t k = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < n; i++) {
                if (msg[i].send != (pass == 1))
                    continue;
                size_t at = 0;
                do {
                    size_t len = msg[i].bytes - at < piece ? msg[i].bytes - at : piece;
                    char *p = (char *)msg[i].buf + at;
                    if (msg[i].send)
                        MPI_Isend(p, (int)len, MPI_BYTE, msg[i].peer, msg[i].tag, MPI_COMM_WORLD,
                                  &req[k++]);
                    else
                        MPI_Irecv(p, (int)len, MPI_BYTE, msg[i].peer, msg[i].tag, MPI_COMM_WORLD,
                                  &req[k++]);
                    at += len;
                } while (at < msg[i].bytes);
                if (msg[i].send)
                    comm_bytes += (int64_t)msg[i].bytes;
            }
        MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE);
        free(req);
    }
#else
    (void)msg;
    (void)n;
#endif
}
