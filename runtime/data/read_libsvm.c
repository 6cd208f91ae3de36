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
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

static void rows_free(struct rows *b)
{
    ptm_free(b->rowptr);
    ptm_free(b->colind);
    ptm_free(b->val);
    ptm_free(b->labels);
    memset(b, 0, sizeof(*b));
}

/* The rows of rd's range into b (emptied first). bytes > 0: about as many
 * bytes hold the range (the file's size), and an entry takes 4 of them at
 * least ("1:2 "), so the entries' arrays are sized for bytes / 4 at once:
 * growing them by doubling moved their mappings (mremap), and threads
 * reading pieces waited on each other's moves. What is not written of
 * them takes no memory, and data_shrink gives it back. */
static int read_rows(struct data_rd *rd, struct rows *b, int64_t bytes)
{
    memset(b, 0, sizeof(*b));
    if (bytes > 0)
        (void)grow_entries(b, bytes / 4 + 16); /* a hint: failing, they grow as they fill */
    int rc = data_grow((void **)&b->rowptr, &b->rcap, 1, sizeof(*b->rowptr));
    if (rc)
        return rc;
    b->rowptr[0] = 0;
    rc = data_range_start(rd);
    char *line;
    size_t n;
    while (!rc && (rc = data_next_line(rd, &line, &n)) == 1)
        rc = parse_line(rd, b, line, n);
    return rc;
}

/* ---- pieces read side by side ------------------------------------------- */

/* A range of rd->piece_min bytes (4 MiB) a thread or more is read by up
 * to rd->threads threads, each the lines that start in its piece of the
 * bytes (the rule by which the ranks of mpirun split a file), into rows of
 * its own, joined in order. A piece knows no line numbers: after any
 * diagnostic or failure the range is read again by one thread, which
 * reports as it always does. */
struct piece {
    const struct data_rd *of; /* the read it is a piece of */
    int64_t size;             /* the file's bytes */
    int64_t begin, end;       /* bytes of the file; end INT64_MAX: to its end */
    struct rows b;
    int rc; /* 0: read, with no diagnostic */
};

static void *read_piece(void *arg)
{
    struct piece *pc = arg;
    const struct data_rd *of = pc->of;
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    dg.quiet = true;
    struct data_rd rd;
    memset(&rd, 0, sizeof(rd));
    rd.o = of->o;
    rd.dg = &dg;
    rd.name = of->name;
    rd.max_dim = of->max_dim;
    rd.int_what = of->int_what;
    pc->rc = PTM_EIO;
    FILE *f = fopen(of->path, "rb");
    /* from the byte before the piece: a line starts at begin if that byte
     * ends one */
    int64_t at = pc->begin > 0 ? pc->begin - 1 : 0;
    if (f && fseeko(f, (off_t)at, SEEK_SET) == 0 &&
        data_lines_open(&rd.in, f, NULL, 0, of->in.chunk, of->in.line_max) == 0) {
        rd.begin = pc->begin - at;
        rd.end = pc->end == INT64_MAX ? INT64_MAX : pc->end - at;
        pc->rc = read_rows(&rd, &pc->b, (pc->end < pc->size ? pc->end : pc->size) - pc->begin);
        if (pc->rc == 0 && (dg.nerrors || dg.n || rd.nerrors))
            pc->rc = PTM_EDATA;
        data_lines_close(&rd.in);
    }
    if (f)
        fclose(f);
    ptm_data_diags_release(&dg);
    return NULL;
}

/* Piece k's rows after those of the pieces before it in b (piece 0's,
 * grown to hold all): their entries too unless !entries, when only the
 * rows' offsets and labels are kept. */
static void join_piece(struct rows *b, const struct rows *k, bool entries)
{
    if (entries && k->nnz > 0) { /* a piece of rows without entries has no arrays */
        memcpy(b->colind + b->nnz, k->colind, (size_t)k->nnz * sizeof(*k->colind));
        memcpy(b->val + b->nnz, k->val, (size_t)k->nnz * sizeof(*k->val));
    }
    if (k->nrows > 0)
        memcpy(b->labels + b->nrows, k->labels, (size_t)k->nrows * sizeof(*k->labels));
    for (int64_t i = 1; i <= k->nrows; i++)
        b->rowptr[b->nrows + i] = b->nnz + k->rowptr[i];
    b->nrows += k->nrows;
    b->nnz += k->nnz;
    if (k->maxcol > b->maxcol)
        b->maxcol = k->maxcol;
}

/* The column view of the T pieces pc (nrows rows, nnz entries in all)
 * into *csc by T threads, and their rows' offsets and labels into b
 * (colind and val NULL): 0, or 1 when the column view would take more
 * than rd->o->columns_mem bytes (b and *csc untouched), or PTM_ENOMEM. */
static int columns_of_pieces(struct data_rd *rd, struct piece *pc, int T, int64_t nrows,
                             int64_t nnz, struct rows *b, struct ptm_csc **csc)
{
    int32_t maxcol = 0;
    for (int k = 0; k < T; k++)
        if (pc[k].b.maxcol > maxcol)
            maxcol = pc[k].b.maxcol;
    double need = 12.0 * (double)nnz + 8.0 * T * (double)maxcol;
    if (T > PTM_CSC_THREADS_MAX || need > (double)rd->o->columns_mem)
        return 1;
    struct data_csc_part t[PTM_CSC_THREADS_MAX];
    int64_t row0 = 0;
    for (int k = 0; k < T; k++) {
        /* the pieces' entries as long as they are: the pages past them,
         * a huge page's part touched, go back before the columns take
         * their own */
        data_shrink((void **)&pc[k].b.colind, pc[k].b.nnz, sizeof(*pc[k].b.colind));
        data_shrink((void **)&pc[k].b.val, pc[k].b.nnz, sizeof(*pc[k].b.val));
        pc[k].b.ecap = pc[k].b.nnz;
        t[k] = (struct data_csc_part){.rowptr = pc[k].b.rowptr,
                                      .colind = pc[k].b.colind,
                                      .val = pc[k].b.val,
                                      .r0 = 0,
                                      .r1 = pc[k].b.nrows,
                                      .row0 = row0};
        row0 += pc[k].b.nrows;
    }
    int rc = data_csc_parts(t, T, nrows, maxcol, nnz, csc);
    if (rc)
        return rc;
    /* the rows: piece 0's offsets and labels, grown to hold all */
    *b = pc[0].b;
    memset(&pc[0].b, 0, sizeof(pc[0].b));
    ptm_free(b->colind);
    ptm_free(b->val);
    b->colind = NULL;
    b->val = NULL;
    b->ecap = 0;
    if (data_grow((void **)&b->rowptr, &b->rcap, nrows + 1, sizeof(*b->rowptr)) ||
        data_grow((void **)&b->labels, &b->lcap, nrows, sizeof(*b->labels))) {
        rows_free(b);
        ptm_csc_release(*csc);
        ptm_free(*csc);
        *csc = NULL;
        return PTM_ENOMEM;
    }
    for (int k = 1; k < T; k++)
        join_piece(b, &pc[k].b, false);
    return 0;
}

/* The range read in pieces into b: 0, or non-zero with b empty when it
 * must be read again by one thread. With rd->o->columns_only, *csc may
 * come back too: the column view, b then without entries. */
static int read_pieces(struct data_rd *rd, const struct stat *st, struct rows *b,
                       struct ptm_csc **csc)
{
    memset(b, 0, sizeof(*b));
    *csc = NULL;
    if (!rd->path || rd->threads < 2)
        return -1;
    int64_t lo = rd->begin, hi = rd->end < (int64_t)st->st_size ? rd->end : (int64_t)st->st_size;
    int T = rd->threads;
    if ((hi - lo) / T < rd->piece_min)
        T = (int)((hi - lo) / rd->piece_min);
    if (T < 2)
        return -1;
    struct piece *pc = ptm_calloc((size_t)T, sizeof(*pc));
    int rc = pc ? 0 : PTM_ENOMEM;
    for (int k = 0; k < T && !rc; k++) {
        pc[k].of = rd;
        pc[k].size = (int64_t)st->st_size;
        pc[k].begin = lo + (hi - lo) / T * k;
        pc[k].end = k + 1 < T ? lo + (hi - lo) / T * (k + 1) : rd->end;
    }
    if (!rc)
        data_run_parts(pc, sizeof(*pc), T, read_piece);
    int64_t nrows = 0, nnz = 0;
    for (int k = 0; k < T && !rc; k++) {
        rc = pc[k].rc;
        nrows += pc[k].b.nrows;
        nnz += pc[k].b.nnz;
    }
    if (!rc && nrows == 0)
        rc = -1; /* one thread says what is wrong with the file */
    if (!rc && rd->o->columns_only && rd->o->sparse &&
        (rc = columns_of_pieces(rd, pc, T, nrows, nnz, b, csc)) == 1)
        rc = 0; /* too big: the pieces are joined */
    if (!rc && !*csc) {
        *b = pc[0].b;
        memset(&pc[0].b, 0, sizeof(pc[0].b));
        if (grow_entries(b, nnz) ||
            data_grow((void **)&b->rowptr, &b->rcap, nrows + 1, sizeof(*b->rowptr)) ||
            data_grow((void **)&b->labels, &b->lcap, nrows, sizeof(*b->labels)))
            rc = PTM_ENOMEM;
        for (int k = 1; k < T && !rc; k++) {
            join_piece(b, &pc[k].b, true);
            rows_free(&pc[k].b);
        }
        if (rc)
            rows_free(b);
    }
    for (int k = 0; pc && k < T; k++)
        rows_free(&pc[k].b);
    ptm_free(pc);
    return rc;
}

int data_read_libsvm(struct data_rd *rd, struct ptm_dataset *ds)
{
    struct rows b;
    struct ptm_csc *csc = NULL;
    int rc = 0;
    struct stat st;
    bool file = rd->in.f && fstat(fileno(rd->in.f), &st) == 0 && S_ISREG(st.st_mode);
    if (!file || read_pieces(rd, &st, &b, &csc) != 0) {
        int64_t bytes = 0;
        if (file && rd->begin < (int64_t)st.st_size)
            bytes = (rd->end < (int64_t)st.st_size ? rd->end : (int64_t)st.st_size) - rd->begin;
        rc = read_rows(rd, &b, bytes);
        if (rc)
            goto out_free;
        if (b.nrows == 0 && data_read_whole(rd) && !rd->nerrors) {
            data_error(rd, 0, 0, rd->in.lineno ? "no rows" : "empty file");
            goto out_free;
        }
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
    ds->csc = csc;
    return 0;

out_free:
    rows_free(&b);
    return rc;
}
