/*
 * sched_impl.h - what the files of the dynamic policy share: the conflicts
 * between blocks (conflict.c) that its filter consults, and the edge
 * lists they may be given (the engine's dependency graph, depgraph.h, and
 * the dry run build them too).
 */
#ifndef PTM_SCHED_IMPL_H
#define PTM_SCHED_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scheduler.h"

/* Which pairs of blocks conflict, and the filter of a round. */
struct sched_conflicts;

/* The conflicts of info->bs: none (keep_all, or no depend), the edge list
 * of `depend B from "file"` (read here, once; the path is relative to
 * info->plan->base_dir), or the depend predicate, evaluated on demand with
 * info->env and remembered. maxcand: the most candidates a filter gets.
 * Returns 0, or what ptm_sched_ops.create returns, with err filled the same
 * way. Caller frees with sched_conflicts_free(). */
int sched_conflicts_new(const struct ptm_sched_info *info, bool keep_all, size_t maxcand,
                        struct sched_conflicts **out, char *err, size_t errlen);
void sched_conflicts_free(struct sched_conflicts *c);

/* Visit cand[0 .. n) in order (n <= maxcand, distinct blocks) and keep
 * each candidate that conflicts with no block kept before it; the kept
 * blocks go to kept[0 .. return value), in visiting order. Adds to *evals
 * the predicate evaluations it made (each unordered pair is evaluated at
 * most once while the cache holds it; at most n * kept in all). With
 * moved (not NULL), a kept candidate whose moved[i] is 0 does not count
 * as kept for the candidates after it (sched_pairs). */
size_t sched_conflicts_filter(struct sched_conflicts *c, const int64_t *cand,
                              const unsigned char *moved, size_t n, int64_t *kept, int64_t *evals);

/* Whether x is among a[0 .. n), which is increasing (a binary search). */
bool sched_in_sorted(const int64_t *a, int64_t n, int64_t x);

/* Whether the filter keeps every candidate (keep_all, or no depend). */
bool sched_conflicts_none(const struct sched_conflicts *c);

/* True when blocks a and b conflict (a != b), by the same rule the
 * filter uses; for tests and for drawing the graph. Evaluates the
 * predicate when needed (and remembers the answer). */
bool sched_conflicts_test(struct sched_conflicts *c, int64_t a, int64_t b);

/* An edge list read into adjacency lists: block b's neighbours are
 * adj[off[b] .. off[b + 1]), sorted, without repeats. */
struct sched_edges {
    int64_t nblocks;
    int64_t *off; /* nblocks + 1; owned */
    int64_t *adj; /* owned */
};

/* Errors reported from one edge list before reading stops. */
#define SCHED_MAX_ERRORS 20

/* Read the edge list in f (named name in messages) for a block set of
 * nblocks blocks: spec/language.md 5.6. Returns 0; PTM_EDATA with the
 * diagnostics (at most SCHED_MAX_ERRORS errors, then a note) in err as
 * ptm_sched_ops.create describes; PTM_EIO; or PTM_ENOMEM. */
int sched_edges_read(FILE *f, const char *name, int64_t nblocks, struct sched_edges *out,
                     char *err, size_t errlen);
void sched_edges_release(struct sched_edges *e);
/* Adjacency lists over out->nblocks blocks from pairs[0 .. 2 * np)
 * (1-based, any order, repeats allowed). Returns 0 or PTM_ENOMEM. */
int sched_edges_from_pairs(struct sched_edges *out, const int64_t *pairs, size_t np);

#endif
