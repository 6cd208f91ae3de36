/*
 * read_libsvm.c - libsvm/svmlight files: one row per line.
 *
 *   line    := [label [qid] entry*] [comment]     (blank: not a row)
 *   label   := number                             (+1, -1, 0.5, ...)
 *   qid     := "qid:" digits                      (ignored)
 *   entry   := index ":" number                   (index 1-based, increasing)
 *   comment := "#" anything
 *
 * Tokens are separated by spaces or tabs. Rows are appended to the CSR
 * arrays as they come; the matrix has as many columns as the largest
 * index. The first problem of a line is reported and the line dropped.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "arena.h"
#include "data_impl.h"
#include "ptm.h"

/* The CSR arrays being built. */
struct rows {
    int64_t *rowptr, nrows, rcap;
    int32_t *colind;
    double *val;
    int64_t nnz, ecap;
    double *labels;
    int64_t lcap;
    int32_t maxcol; /* largest 1-based index seen */
};

static int grow_entries(struct rows *b, int64_t need)
{
    int64_t cap = b->ecap;
    if (data_grow((void **)&b->colind, &cap, need, sizeof(*b->colind)))
        return PTM_ENOMEM;
    cap = b->ecap;
    if (data_grow((void **)&b->val, &cap, need, sizeof(*b->val)))
        return PTM_ENOMEM;
    b->ecap = cap;
    return 0;
}

static int add_row(struct rows *b, double label)
{
    int64_t cap = b->rcap;
    if (data_grow((void **)&b->rowptr, &cap, b->nrows + 2, sizeof(*b->rowptr)))
        return PTM_ENOMEM;
    b->rcap = cap;
    cap = b->lcap;
    if (data_grow((void **)&b->labels, &cap, b->nrows + 1, sizeof(*b->labels)))
        return PTM_ENOMEM;
    b->lcap = cap;
    b->labels[b->nrows] = label;
    b->rowptr[++b->nrows] = b->nnz;
    return 0;
}

/* Report what is wrong with the "index:value" at tok, whose index did not
 * scan. */
static void bad_index(struct data_rd *rd, char *line, char *e, char *tok, int64_t maxidx)
{
    int64_t ln = rd->in.lineno, col = tok - line + 1;
    char *tokend = data_token_end(tok, e, '#');
    char *colon = memchr(tok, ':', (size_t)(tokend - tok));
    if (!colon) {
        data_error(rd, ln, col, "expected 'index:value', found '%s'",
                   data_quote(rd, 0, tok, (size_t)(tokend - tok)));
        return;
    }
    uint64_t idx;
    const char *qi = data_quote(rd, 0, tok, (size_t)(colon - tok));
    if (data_scan_uint(tok, &idx) != colon)
        data_error(rd, ln, col, "bad index '%s'", qi);
    else if (idx == 0)
        data_error(rd, ln, col, "index '%s' out of range: libsvm indices are 1-based", qi);
    else
        data_error(rd, ln, col, "index '%s' out of range (largest is %" PRId64 ")", qi, maxidx);
}

/* One line; returns 0 or a negative code (a bad line is reported, not an
 * error of the read). */
static int parse_line(struct data_rd *rd, struct rows *b, char *line, size_t n)
{
    char *p = line, *e = line + n;
    int64_t ln = rd->in.lineno, maxidx = rd->max_dim;
    bool integer = rd->o->integer;
    while (data_isspace(*p))
        p++;
    if (p == e || *p == '#')
        return 0;

    double label;
    char *tok = p;
    p = data_scan_double(tok, &label);
    if (p == tok || !data_is_delim(p, e, '#') || !isfinite(label)) {
        data_check_value(rd, ln, line, tok, data_token_end(tok, e, '#'), p, label, false, "label");
        return 0;
    }
    while (data_isspace(*p))
        p++;
    if (!strncmp(p, "qid:", 4)) {
        tok = p;
        uint64_t qid;
        p = data_scan_uint(p + 4, &qid);
        if (p == tok + 4 || !data_is_delim(p, e, '#')) {
            char *tokend = data_token_end(tok, e, '#');
            data_error(rd, ln, tok - line + 1, "bad qid '%s'",
                       data_quote(rd, 0, tok, (size_t)(tokend - tok)));
            return 0;
        }
        while (data_isspace(*p))
            p++;
    }

    int64_t start = b->nnz;
    uint64_t prev = 0;
    while (p < e && *p != '#') {
        tok = p;
        uint64_t idx;
        p = data_scan_uint(tok, &idx);
        if (p == tok || *p != ':' || idx == 0 || idx > (uint64_t)maxidx) {
            bad_index(rd, line, e, tok, maxidx);
            goto out_drop;
        }
        if (idx <= prev) {
            const char *qi = data_quote(rd, 0, tok, (size_t)(p - tok));
            if (idx == prev)
                data_error(rd, ln, tok - line + 1, "duplicate index '%s'", qi);
            else
                data_error(rd, ln, tok - line + 1,
                           "index '%s' after '%" PRIu64 "': indices must increase", qi, prev);
            goto out_drop;
        }
        prev = idx;
        char *vtok = ++p;
        double v;
        p = data_scan_double(vtok, &v);
        if (p == vtok || !data_is_delim(p, e, '#') || !isfinite(v) ||
            (integer && !data_is_whole(v))) {
            if (data_is_delim(vtok, e, '#'))
                data_error(rd, ln, tok - line + 1, "missing value after '%s'",
                           data_quote(rd, 0, tok, (size_t)(vtok - tok)));
            else
                data_check_value(rd, ln, line, vtok, data_token_end(vtok, e, '#'), p, v, integer,
                                 "value");
            goto out_drop;
        }
        if (b->nnz == b->ecap && grow_entries(b, b->nnz + 1))
            return PTM_ENOMEM;
        b->colind[b->nnz] = (int32_t)(idx - 1);
        b->val[b->nnz++] = v;
        while (data_isspace(*p))
            p++;
    }
    if ((int64_t)prev > b->maxcol)
        b->maxcol = (int32_t)prev;
    return add_row(b, label);

out_drop:
    b->nnz = start;
    return 0;
}

int data_read_libsvm(struct data_rd *rd, struct ptm_dataset *ds)
{
    struct rows b;
    memset(&b, 0, sizeof(b));
    int rc = data_grow((void **)&b.rowptr, &b.rcap, 1, sizeof(*b.rowptr));
    if (rc)
        goto out_free;
    b.rowptr[0] = 0;
    rc = data_range_start(rd);
    char *line;
    size_t n;
    while (!rc && (rc = data_next_line(rd, &line, &n)) == 1)
        rc = parse_line(rd, &b, line, n);
    if (rc)
        goto out_free;
    if (b.nrows == 0 && data_read_whole(rd) && !rd->nerrors) {
        data_error(rd, 0, 0, rd->in.lineno ? "no rows" : "empty file");
        goto out_free;
    }
    data_shrink((void **)&b.colind, b.nnz, sizeof(*b.colind));
    data_shrink((void **)&b.val, b.nnz, sizeof(*b.val));
    data_shrink((void **)&b.rowptr, b.nrows + 1, sizeof(*b.rowptr));
    data_shrink((void **)&b.labels, b.nrows, sizeof(*b.labels));
    ds->sparse = true;
    ds->csr = (struct ptm_csr){.nrows = b.nrows,
                               .ncols = b.maxcol,
                               .nnz = b.nnz,
                               .rowptr = b.rowptr,
                               .colind = b.colind,
                               .val = b.val};
    ds->has_labels = true;
    ds->labels = (struct ptm_vec){.n = b.nrows, .val = b.labels};
    return 0;

out_free:
    ptm_free(b.rowptr);
    ptm_free(b.colind);
    ptm_free(b.val);
    ptm_free(b.labels);
    return rc;
}
