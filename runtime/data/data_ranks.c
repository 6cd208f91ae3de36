/*
 * data_ranks.c - the rows of a data set read in byte ranges, moved to the
 * ranks that own them (data_ranks.h).
 *
 * A MatrixMarket or UCI file lists entries in any order, so the lines in
 * a rank's byte range are entries of any rows. The ranks first agree on
 * every row's entry count (one sum over the ranks), split the rows as one
 * process would, then send each entry to its row's rank in one exchange.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "comm.h"
#include "data_ranks.h"
#include "ptm.h"

/* An entry on its way to its row's rank. */
struct entry {
    int64_t row;
    int64_t col;
    double v;
};

static int by_col(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->col > y->col) - (x->col < y->col);
}

int ptm_data_to_ranks(struct ptm_dataset *ds, const char *name, int per_rank, int64_t **bounds,
                      char *err, size_t errlen)
{
    int64_t *given = *bounds;
    struct ptm_csr *a = &ds->csr;
    int R = ptm_comm_size(), me = ptm_comm_rank(), G = R * per_rank;
    int64_t n = a->nrows;
    if (n < G) {
        snprintf(err, errlen, "data '%s' has %lld rows for %d workers (%d ranks x %d): each "
                 "worker needs a row", name, (long long)n, G, R, per_rank);
        return PTM_EDATA;
    }
    /* every row's entries over all ranks, then their offsets */
    int64_t *rp = ptm_malloc((size_t)(n + 1) * sizeof(int64_t));
    int64_t *gb = ptm_malloc(((size_t)G + 1) * sizeof(int64_t));
    struct entry *out = ptm_malloc((size_t)(a->nnz ? a->nnz : 1) * sizeof(struct entry));
    int64_t *at = ptm_malloc(((size_t)R + 1) * sizeof(int64_t));
    if (!rp || !gb || !out || !at) {
        ptm_free(rp);
        ptm_free(gb);
        ptm_free(out);
        ptm_free(at);
        return PTM_ENOMEM;
    }
    rp[0] = 0;
    for (int64_t i = 0; i < n; i++)
        rp[i + 1] = a->rowptr[i + 1] - a->rowptr[i];
    ptm_comm_sum_all_i64v(rp + 1, (size_t)n);
    for (int64_t i = 0; i < n; i++)
        rp[i + 1] += rp[i];
    int rc = 0;
    if (ds->declared_nnz >= 0 && rp[n] < ds->declared_nnz) {
        snprintf(err, errlen, "data '%s' has %lld entries, fewer than its header declares (%lld)",
                 name, (long long)rp[n], (long long)ds->declared_nnz);
        rc = PTM_EDATA;
        goto done;
    }
    if (given)
        memcpy(gb, given, ((size_t)G + 1) * sizeof(int64_t));
    else
        ptm_shard_by_nnz(rp, n, G, gb);
    /* the CSR's rows are in order, so are their ranks: entries go out in
     * the order they are */
    for (int r = 0; r <= R; r++)
        at[r] = a->rowptr[gb[r * per_rank]];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            out[k] = (struct entry){i, a->colind[k], a->val[k]};
    struct entry *in;
    int64_t nin;
    rc = ptm_comm_exchange(out, at, sizeof(struct entry), (void **)&in, &nin);
    if (rc != 0)
        goto done;
    int64_t lo = gb[me * per_rank], hi = gb[(me + 1) * per_rank], m = hi - lo;
    int64_t nnz = rp[hi] - rp[lo];
    struct ptm_csr c = {.nrows = m, .ncols = a->ncols, .nnz = nnz};
    c.rowptr = ptm_malloc((size_t)(m + 1) * sizeof(int64_t));
    c.colind = ptm_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    c.val = ptm_malloc((size_t)(nnz ? nnz : 1) * sizeof(double));
    if (!c.rowptr || !c.colind || !c.val || nin != nnz) {
        rc = nin != nnz ? PTM_EDATA : PTM_ENOMEM;
        if (nin != nnz)
            snprintf(err, errlen, "data '%s': this rank got %lld entries for its rows, not %lld",
                     name, (long long)nin, (long long)nnz);
        ptm_free(in);
        ptm_csr_release(&c);
        goto done;
    }
    /* by row, keeping the order they came in (the ranks' order), into out */
    for (int64_t i = 0; i <= m; i++)
        c.rowptr[i] = rp[lo + i] - rp[lo];
    int64_t *fill = rp + lo; /* reused: the next free slot of each row */
    for (int64_t i = 0; i < m; i++)
        fill[i] = c.rowptr[i];
    struct entry *sorted = out;
    if (nnz > a->nnz) {
        sorted = ptm_realloc(out, (size_t)nnz * sizeof(struct entry));
        if (!sorted) {
            ptm_free(in);
            ptm_csr_release(&c);
            rc = PTM_ENOMEM;
            goto done;
        }
        out = sorted;
    }
    for (int64_t k = 0; k < nin; k++)
        sorted[fill[in[k].row - lo]++] = in[k];
    ptm_free(in);
    /* a row read by several ranks comes in pieces: put it in column order */
    for (int64_t i = 0; i < m && rc == 0; i++) {
        struct entry *e = sorted + c.rowptr[i];
        int64_t len = c.rowptr[i + 1] - c.rowptr[i];
        for (int64_t k = 1; k < len; k++)
            if (e[k].col <= e[k - 1].col) {
                qsort(e, (size_t)len, sizeof(*e), by_col);
                break;
            }
        for (int64_t k = 0; k < len; k++) {
            if (k > 0 && e[k].col == e[k - 1].col) {
                snprintf(err, errlen, "data '%s': entry (%lld, %lld) is given twice", name,
                         (long long)(lo + i + 1), (long long)(e[k].col + 1));
                rc = PTM_EDATA;
                break;
            }
            c.colind[c.rowptr[i] + k] = (int32_t)e[k].col;
            c.val[c.rowptr[i] + k] = e[k].v;
        }
    }
    if (rc != 0) {
        ptm_csr_release(&c);
        goto done;
    }
    ptm_csr_release(a);
    *a = c;
    if (!given) {
        *bounds = gb;
        gb = NULL;
    }
done:
    ptm_free(at);
    ptm_free(rp);
    ptm_free(gb);
    ptm_free(out);
    return rc;
}
