/*
 * comm.h - the ranks of a run: one process, or several under Open MPI
 * (`mpirun -np N ptm run JOB`).
 *
 * A run has `size` ranks; rank 0 schedules, pulls and writes, every rank
 * holds a row shard of the data and runs its own worker threads. The
 * calls here are what the engine needs from MPI: broadcasts from rank 0,
 * sums to rank 0 and to all, a prefix sum, a gather to rank 0 and an
 * abort that ends every rank. Only the thread that called ptm_comm_init()
 * (the coordinator) calls them. Without MPI (not built with it, or not
 * started by mpirun) there is one rank and they do nothing.
 */
#ifndef PTM_COMM_H
#define PTM_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when this build has MPI support. */
bool ptm_comm_available(void);
/* True when the process was started by mpirun (its environment says so). */
bool ptm_comm_launched(void);
/* The processes mpirun started with this one (1 when not started so). */
int ptm_comm_launched_size(void);

/* Start MPI (want true) or stay one rank. Returns 0, or PTM_EINVAL with a
 * message in err (MPI asked for but not built in, or MPI_Init failed). */
int ptm_comm_init(int *argc, char ***argv, bool want, char *err, size_t errlen);
/* End MPI (after the last call); nothing without it. */
void ptm_comm_finish(void);

int ptm_comm_rank(void);
int ptm_comm_size(void);

/* Seconds a rank waits for one that stopped answering (its heartbeat,
 * every half second, is not heard) before it gives up: exit 1 with a
 * message naming the silent rank and the note; 0: for ever. A signal that
 * signal_seen() reports (SIGINT, SIGTERM) ends a wait on a silent rank at
 * once, and any wait after the patience: exit 128 + the signal. */
#define PTM_COMM_PATIENCE 30.0
void ptm_comm_patience(double seconds, int (*signal_seen)(void));
/* What the message of a rank that gives up adds ("the last checkpoint is
 * ..."); NULL or "": nothing. */
void ptm_comm_note(const char *note);

/* End every rank at once with exit status code (MPI_Abort); without MPI,
 * exit(code). Does not return. */
_Noreturn void ptm_comm_abort(int code);

/* buf (bytes) from rank 0 to every rank. */
void ptm_comm_bcast(void *buf, size_t bytes);
/* buf[0 .. n) summed over the ranks, the sum on rank 0 only (other ranks'
 * buf unchanged). Sums are taken in a fixed order for a given size. */
void ptm_comm_sum_to_root(double *buf, size_t n);
/* Bytes of payload this rank has sent to the others in broadcasts and
 * reductions (a broadcast counts once per receiving rank): what the
 * protocol moves, not what the wire carries. */
int64_t ptm_comm_bytes(void);
/* v summed over the ranks, on every rank. */
int64_t ptm_comm_sum_i64(int64_t v);
/* The largest v over the ranks, on every rank. */
int64_t ptm_comm_max_i64(int64_t v);
/* The sum of v over the ranks before this one (0 on rank 0). */
int64_t ptm_comm_prefix_i64(int64_t v);
/* Rank 0 gets every rank's mine[0 .. n) in rank order into all (which
 * must hold the sum of the n's; ignored elsewhere). */
void ptm_comm_gather(const double *mine, int64_t n, double *all);
/* buf[0 .. n) summed over the ranks, the sum on every rank. */
void ptm_comm_sum_all(double *buf, size_t n);
void ptm_comm_sum_all_i64v(int64_t *buf, size_t n);
void ptm_comm_sum_all_i32v(int32_t *buf, size_t n);
/* Every rank sends send[at[r] .. at[r + 1]) (items of `item` bytes; at has
 * size + 1 entries) to rank r and gets into *recv (allocated with
 * ptm_malloc, caller frees) what the others sent it, in rank order, *nrecv
 * items. Returns 0, PTM_ENOMEM or PTM_ETOOBIG (more than INT_MAX items
 * between two ranks). Every rank calls it. */
int ptm_comm_exchange(const void *send, const int64_t *at, size_t item, void **recv,
                      int64_t *nrecv);

/* A point-to-point message of ptm_comm_post(): bytes of buf to or from
 * rank peer, matched by tag. */
struct ptm_comm_msg {
    void *buf;
    size_t bytes;
    int peer, tag;
    bool send;
};
/* Post every message of msg[0 .. n) at once and return when all are
 * done: the ranks' calls must pair sends with receives of the same tag
 * and size, in the same order between two ranks (any size: big ones go
 * in pieces). */
void ptm_comm_post(const struct ptm_comm_msg *msg, size_t n);

#endif
