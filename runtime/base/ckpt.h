/*
 * ckpt.h - the state stream of a checkpoint (spec/runtime.md,
 * Checkpoints): every part of a run that changes from round to round
 * (the engine's counters and tables, a scheduler, an update rule, the
 * parameter store) says what it keeps in ONE function that both saves and
 * loads, calling ptm_ck_bytes() on each piece in a fixed order. Saving
 * writes the pieces; loading reads them back into the same places of a
 * run set up the same way (same plan, data and workers), so the two
 * directions cannot drift apart.
 *
 * Sizes that set-up fixes are not in question on load, but a checkpoint
 * read into a run set up otherwise must fail cleanly: ptm_ck_size()
 * writes such a size and, on load, checks it. Counts that vary (a queue's
 * length) go through ptm_ck_count(), which checks them against the room
 * the loading run has. Errors are sticky, as a FILE's are: a state
 * function makes its calls without checking, and the caller reads
 * ck->err at the end (a failed load leaves the run unusable; the caller
 * then frees it).
 *
 * Only plain values go through: never a pointer, never a struct holding
 * one (its address differs in the loading process).
 */
#ifndef PTM_CKPT_H
#define PTM_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ptm_ckpt {
    FILE *f;       /* the part file being written or read */
    bool load;     /* loading (else saving) */
    int err;       /* 0, or the first failure: PTM_EIO, PTM_EDATA (the stream
                      does not fit this run), PTM_ENOMEM */
    char msg[512]; /* its message */
    uint32_t crc;  /* CRC-32 of the bytes so far */
    uint64_t bytes;
};

/* Save or load n bytes at p. */
void ptm_ck_bytes(struct ptm_ckpt *ck, void *p, size_t n);
/* A size set-up fixed: saved; on load, read and compared with n (what
 * names it in the message). */
void ptm_ck_size(struct ptm_ckpt *ck, int64_t n, const char *what);
/* A label that opens a part's state ("sched dynamic"): saved; on load it
 * must be the same (a checkpoint of another policy, rule or model). */
void ptm_ck_tag(struct ptm_ckpt *ck, const char *tag);
/* A count that varies, *n <= cap: saved; on load read into *n and checked
 * against cap. The caller then moves the elements. */
void ptm_ck_count(struct ptm_ckpt *ck, size_t *n, size_t cap, const char *what);
/* Record a failure (the first one stays). */
void ptm_ck_fail(struct ptm_ckpt *ck, int err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* One value, or n values of an array. */
#define PTM_CK(ck, x) ptm_ck_bytes((ck), &(x), sizeof(x))
#define PTM_CK_ARRAY(ck, p, n) ptm_ck_bytes((ck), (p), (size_t)(n) * sizeof(*(p)))

/* CRC-32 (zlib's) of n bytes at p, continuing crc (0 to start). */
uint32_t ptm_crc32(uint32_t crc, const void *p, size_t n);

#endif
