/*
 * comm.c - ranks over Open MPI, or one rank without it (comm.h).
 *
 * GLOBAL: the rank and size of this process, set once by ptm_comm_init()
 * before any thread starts and read-only afterwards; the patience and the
 * note of ptm_comm_patience() (the coordinator's); the heartbeat's times
 * (its thread writes, the coordinator reads: atomics).
 *
 * DESIGN: a rank that stops answering (a stopped process, a network cut
 * between hosts) would leave the others blocked in a collective for ever,
 * deaf to SIGTERM: Open MPI notices a process that dies, not one that is
 * silent. So every collective here is started non-blocking and waited for
 * in a loop (wait()) that also watches the clock and the signals; and a
 * heartbeat thread (MPI_THREAD_MULTIPLE, on a communicator of its own)
 * tells every rank every HEARTBEAT seconds that this one lives, so that a
 * waiting rank can tell a slow peer (still beating) from a silent one,
 * and name it.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "comm.h"
#include "ptm.h"

#ifdef PTM_HAVE_MPI
#include <mpi.h>
#endif

static int comm_rank = 0, comm_size = 1;
static bool comm_mpi = false;
static int64_t comm_bytes; /* payload this rank sent to others */
static double comm_patience = PTM_COMM_PATIENCE;
static int (*comm_signal)(void);
static char comm_note[1024];

void ptm_comm_patience(double seconds, int (*signal_seen)(void))
{
    comm_patience = seconds;
    comm_signal = signal_seen;
}

void ptm_comm_note(const char *note)
{
    snprintf(comm_note, sizeof(comm_note), "%s", note ? note : "");
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifdef PTM_HAVE_MPI
/* Seconds between heartbeats. */
#define HEARTBEAT 0.5

static MPI_Comm hb_comm;
static pthread_t hb_thread;
static atomic_bool hb_on, hb_stop;
static _Atomic double *hb_heard; /* per rank: when it was last heard (mono()) */

static void *heartbeat(void *arg)
{
    (void)arg;
    int R = comm_size;
    MPI_Request *rq = malloc(2 * (size_t)R * sizeof(MPI_Request));
    char *in = calloc((size_t)R, 1), out = 1;
    if (!rq || !in) {
        free(rq);
        free(in);
        return NULL;
    }
    for (int r = 0; r < R; r++) {
        rq[r] = rq[R + r] = MPI_REQUEST_NULL;
        if (r != comm_rank)
            MPI_Irecv(&in[r], 1, MPI_CHAR, r, 1, hb_comm, &rq[r]);
    }
    double next = 0;
    while (!atomic_load(&hb_stop)) {
        double now = mono();
        for (int r = 0; r < R; r++) {
            int got = 0;
            if (rq[r] == MPI_REQUEST_NULL)
                continue;
            MPI_Test(&rq[r], &got, MPI_STATUS_IGNORE);
            if (got) {
                atomic_store(&hb_heard[r], now);
                MPI_Irecv(&in[r], 1, MPI_CHAR, r, 1, hb_comm, &rq[r]);
            }
        }
        if (now >= next) { /* a beat to every rank whose last one has left */
            for (int r = 0; r < R; r++) {
                int sent = 1;
                if (r == comm_rank)
                    continue;
                if (rq[R + r] != MPI_REQUEST_NULL)
                    MPI_Test(&rq[R + r], &sent, MPI_STATUS_IGNORE);
                if (sent)
                    MPI_Isend(&out, 1, MPI_CHAR, r, 1, hb_comm, &rq[R + r]);
            }
            next = now + HEARTBEAT;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (int r = 0; r < R; r++)
        if (rq[r] != MPI_REQUEST_NULL) {
            MPI_Cancel(&rq[r]);
            MPI_Wait(&rq[r], MPI_STATUS_IGNORE);
        }
    free(rq);
    free(in);
    return NULL;
}

/* The rank heard from longest ago (not this one), and how long ago. */
static int most_silent(double now, double *silent)
{
    int who = -1;
    *silent = 0;
    for (int r = 0; hb_heard && r < comm_size; r++) {
        double s = now - atomic_load(&hb_heard[r]);
        if (r != comm_rank && s > *silent) {
            *silent = s;
            who = r;
        }
    }
    return who;
}

/* Give up waiting: say why, and end this rank at once (mpirun ends the
 * others; a rank cut off ends itself the same way). */
static _Noreturn void give_up(int code, const char *why)
{
    fprintf(stderr, "ptm: error: rank %d: %s%s%s\n", comm_rank, why, comm_note[0] ? "; " : "",
            comm_note);
    fflush(stderr);
    _exit(code);
}

/* Wait for n requests, watching the heartbeats and the signals: a rank
 * silent for longer than the patience, or a signal while a rank is
 * silent (or the wait is longer than the patience), ends this rank. */
static void comm_wait(MPI_Request *req, int n)
{
    int done = 0;
    MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    if (done)
        return;
    double t0 = mono(), last = t0;
    for (unsigned long spin = 1;; spin++) {
        MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (done)
            return;
        if (spin % 256)
            continue;
        double now = mono(), waited = now - t0, silent;
        if (now - last > 1 && hb_heard) {
            /* this process did not run for a while (it was stopped
             * itself): what it did not hear meanwhile says nothing */
            for (int r = 0; r < comm_size; r++)
                atomic_store(&hb_heard[r], now);
            t0 = now;
        }
        last = now;
        int who = atomic_load(&hb_on) ? most_silent(now, &silent) : -1;
        if (who < 0)
            silent = waited; /* no heartbeat: only the wait itself tells */
        int sig = comm_signal ? comm_signal() : 0;
        char why[256];
        if (comm_patience > 0 && silent > comm_patience) {
            if (who >= 0)
                snprintf(why, sizeof(why), "no word from rank %d for %.0f s (stopped, or cut "
                         "off from this host); giving up after %.0f s (--rank-timeout)",
                         who, silent, comm_patience);
            else
                snprintf(why, sizeof(why), "the other ranks did not answer for %.0f s; giving "
                         "up (--rank-timeout)", waited);
            give_up(1, why);
        }
        if (sig && waited > 2 && (silent > 2 * HEARTBEAT + 1 || waited > comm_patience)) {
            const char *what = sig == SIGTERM ? "terminated" : "interrupted";
            if (who >= 0)
                snprintf(why, sizeof(why), "%s while waiting for rank %d", what, who);
            else
                snprintf(why, sizeof(why), "%s while waiting for the other ranks", what);
            give_up(128 + sig, why);
        }
        if (waited > 0.01) { /* a long wait need not burn the core */
            struct timespec ts = {0, 100 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

static void start_heartbeat(void)
{
    if (comm_size < 2 || MPI_Comm_dup(MPI_COMM_WORLD, &hb_comm) != MPI_SUCCESS)
        return;
    hb_heard = calloc((size_t)comm_size, sizeof(*hb_heard));
    if (!hb_heard)
        return;
    double now = mono();
    for (int r = 0; r < comm_size; r++)
        atomic_store(&hb_heard[r], now);
    if (pthread_create(&hb_thread, NULL, heartbeat, NULL) == 0)
        atomic_store(&hb_on, true);
}

static void stop_heartbeat(void)
{
    if (atomic_load(&hb_on)) {
        atomic_store(&hb_stop, true);
        pthread_join(hb_thread, NULL);
        atomic_store(&hb_on, false);
    }
    free((void *)hb_heard);
    hb_heard = NULL;
}
#endif

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
    /* the coordinator makes the calls, and the heartbeat's thread its own */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI could not be started");
        return PTM_EINVAL;
    }
    /* errors end the job: a failed call is never left half-done on one rank */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &comm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &comm_size);
    comm_mpi = true;
    if (provided >= MPI_THREAD_MULTIPLE)
        start_heartbeat();
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
    if (comm_mpi) {
        /* no rank stops beating before every rank is here */
        MPI_Request r;
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        comm_wait(&r, 1);
        stop_heartbeat();
        MPI_Finalize();
    }
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
            MPI_Request r;
            MPI_Ibcast((char *)buf + at, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
            comm_wait(&r, 1);
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
            MPI_Request r;
            MPI_Ireduce(comm_rank == 0 ? MPI_IN_PLACE : buf + at, buf + at, (int)k, MPI_DOUBLE,
                        MPI_SUM, 0, MPI_COMM_WORLD, &r);
            comm_wait(&r, 1);
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
        MPI_Request r;
        MPI_Iallreduce(&in, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
        comm_wait(&r, 1);
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
        MPI_Request r;
        MPI_Iallreduce(&in, &out, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD, &r);
        comm_wait(&r, 1);
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
        MPI_Request r;
        MPI_Iexscan(&in, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
        comm_wait(&r, 1);
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
        MPI_Request rq;
        MPI_Igather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
        comm_wait(&rq, 1);
        if (comm_rank == 0)
            for (int r = 0, at = 0; r < comm_size; r++) {
                displs[r] = at;
                at += counts[r];
            }
        MPI_Igatherv(mine, cnt, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD,
                     &rq);
        comm_wait(&rq, 1);
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
        MPI_Request r;
        MPI_Iallreduce(MPI_IN_PLACE, (char *)buf + at * size, (int)k, t, MPI_SUM, MPI_COMM_WORLD,
                       &r);
        comm_wait(&r, 1);
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
        MPI_Request rq;
        MPI_Ialltoall(sc, 1, MPI_LONG_LONG, rc, 1, MPI_LONG_LONG, MPI_COMM_WORLD, &rq);
        comm_wait(&rq, 1);
        /* counts and displacements in items of one MPI type: past INT_MAX
         * items the exchange would need chunks */
        int64_t total = 0;
        bool big = at[R] > INT_MAX;
        for (size_t r = 0; r < R; r++) {
            big = big || total + rc[r] > INT_MAX;
            total += rc[r];
        }
        int bad = big, any;
        MPI_Iallreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
        comm_wait(&rq, 1);
        void *buf = any ? NULL : ptm_malloc((size_t)(total ? total : 1) * item);
        int nomem = !any && !buf, oom;
        MPI_Iallreduce(&nomem, &oom, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
        comm_wait(&rq, 1);
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
        MPI_Ialltoallv(send, cnt, sdis, t, buf, rcnt, rdis, t, MPI_COMM_WORLD, &rq);
        comm_wait(&rq, 1);
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
        comm_wait(req, (int)k);
        free(req);
    }
#else
    (void)msg;
    (void)n;
#endif
}
