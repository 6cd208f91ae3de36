/*
 * test_data.c - the data readers: accepted files per format, every class of
 * rejected input with its whole message, byte ranges, number scanning,
 * the CSC view, storage conversions, sharding and allocation failure.
 *
 * DESIGN: accepted rows carry the matrix they must give as a dense array
 * written by hand (and labels, words); the reader's CSR is compared with it
 * entry by entry, and so is the CSC view after transposing it densely
 * here. Rejected rows carry every message, byte for byte. Each row is read
 * four ways, which must agree: from a file (ptm_data_read), from memory
 * with 1 MiB and with tiny chunks (so that lines straddle chunk
 * boundaries), and from a file by threads in pieces of any byte (libsvm;
 * the others read as from a file). Range reads split each accepted input at every byte k and
 * check that the two parts together give the whole. Numbers are checked
 * against strtod() bit for bit, on a table of hard cases and on random
 * decimals. Files are written to a temporary directory that is the working
 * directory of the tests, so that messages name "in.svm" and not a path.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "data.h"
#include "data_impl.h"
#include "ptm.h"
#include "testutil.h"
#include "wfile.h"

/* A string literal and its length (it may hold NUL bytes). */
#define LIT(s) s, sizeof(s) - 1

enum {
    F_DENSE = 1u << 0,   /* dense storage (else CSR) */
    F_INT = 1u << 1,     /* declared int */
    F_VECTOR = 1u << 2,  /* declared vector */
    F_LABELS = 1u << 3,  /* csv: first column is the labels */
    F_HDR_YES = 1u << 4, /* csv: header line */
    F_HDR_NO = 1u << 5,  /* csv: no header line */
};

static const char *const ext[PLAN_NFORMATS] = {[PLAN_FORMAT_LIBSVM] = "svm",
                                               [PLAN_FORMAT_MM] = "mtx",
                                               [PLAN_FORMAT_UCI] = "txt",
                                               [PLAN_FORMAT_CSV] = "csv"};

/* ---- helpers ------------------------------------------------------------ */

static void write_file(const char *name, const char *s, size_t n)
{
    FILE *f = fopen(name, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(s, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static void set_opts(struct ptm_data_opts *o, enum plan_format fmt, unsigned flags)
{
    memset(o, 0, sizeof(*o));
    o->format = fmt;
    o->sparse = !(flags & F_DENSE);
    o->integer = flags & F_INT;
    o->vector = flags & F_VECTOR;
    o->csv_labels = flags & F_LABELS;
    o->csv_header = flags & F_HDR_YES  ? PTM_CSV_HEADER_YES
                    : flags & F_HDR_NO ? PTM_CSV_HEADER_NO
                                       : PTM_CSV_HEADER_AUTO;
}

/* Every message, one per line. */
static void join_msgs(const struct ptm_data_diags *dg, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < dg->n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "\n" : "", dg->msg[i].text);
}

/* FROM_PIECES: from a file by 3 threads, in pieces of a byte or more. */
enum how { FROM_FILE, FROM_MEM, FROM_MEM_TINY, FROM_PIECES, NHOW };

/* An input to read, and how. */
struct input {
    enum plan_format fmt;
    unsigned flags;
    const char *in;
    size_t inlen;
    const char *vocab; /* uci: NULL for none */
    size_t vlen;
    size_t line_max;
    int64_t max_dim;
};

/* Read in as in says; messages into msgs. FROM_PIECES with columns_mem
 * > 0 asks for the column view of the pieces (columns_only), in at most
 * that many bytes. */
static int read_input_columns(const struct input *in, enum how how,
                              const struct ptm_byte_range *range, uint64_t columns_mem,
                              struct ptm_dataset **ds, char *msgs, size_t cap)
{
    struct ptm_data_opts o;
    set_opts(&o, in->fmt, in->flags);
    o.range = range;
    o.line_max = in->line_max;
    o.max_dim = in->max_dim;
    char name[16];
    snprintf(name, sizeof(name), "in.%s", ext[in->fmt]);
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    int rc;
    if (how == FROM_FILE || how == FROM_PIECES) {
        write_file(name, in->in, in->inlen);
        if (how == FROM_PIECES) {
            o.threads = 3;
            o.piece_min = 1;
            o.columns_only = columns_mem > 0;
            o.columns_mem = columns_mem;
        }
        if (in->vocab) {
            write_file("in.vocab", in->vocab, in->vlen);
            o.vocab = "in.vocab";
        }
        rc = ptm_data_read(name, &o, &dg, ds);
    } else {
        o.chunk = how == FROM_MEM_TINY ? 3 : 0;
        rc = ptm_data_read_mem(in->in, in->inlen, name, in->vocab, in->vlen, "in.vocab", &o, &dg,
                               ds);
    }
    join_msgs(&dg, msgs, cap);
    ck_assert(!dg.oom);
    ptm_data_diags_release(&dg);
    return rc;
}

static int read_input(const struct input *in, enum how how, const struct ptm_byte_range *range,
                      struct ptm_dataset **ds, char *msgs, size_t cap)
{
    return read_input_columns(in, how, range, 0, ds, msgs, cap);
}

/* Check the CSR invariants: row pointers, columns in range and strictly
 * increasing in each row. */
static void check_csr(const struct ptm_csr *a)
{
    EXPECT(a->rowptr[0] == 0);
    EXPECT(a->rowptr[a->nrows] == a->nnz);
    for (int64_t i = 0; i < a->nrows; i++) {
        EXPECT(a->rowptr[i] <= a->rowptr[i + 1]);
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            EXPECT(a->colind[k] >= 0);
            EXPECT(a->colind[k] < a->ncols);
            if (k > a->rowptr[i])
                EXPECT(a->colind[k - 1] < a->colind[k]);
        }
    }
}

/* The matrix of ds as a dense array (caller frees). */
static double *densify(const struct ptm_dataset *ds)
{
    int64_t r = ptm_dataset_rows(ds), c = ptm_dataset_cols(ds);
    double *d = calloc((size_t)(r * c) + 1, sizeof(*d));
    ck_assert_ptr_nonnull(d);
    if (!ds->sparse) {
        if (r * c > 0)
            memcpy(d, ds->dense.val, (size_t)(r * c) * sizeof(*d));
        return d;
    }
    check_csr(&ds->csr);
    for (int64_t i = 0; i < r; i++)
        for (int64_t k = ds->csr.rowptr[i]; k < ds->csr.rowptr[i + 1]; k++)
            d[i * c + ds->csr.colind[k]] = ds->csr.val[k];
    return d;
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Two data sets hold the same matrix, labels and words, bit for bit. */
static void check_same(const struct ptm_dataset *a, const struct ptm_dataset *b)
{
    EXPECT(a->sparse == b->sparse);
    EXPECT(ptm_dataset_rows(a) == ptm_dataset_rows(b));
    EXPECT(ptm_dataset_cols(a) == ptm_dataset_cols(b));
    if (a->sparse) {
        EXPECT(a->csr.nnz == b->csr.nnz);
        for (int64_t i = 0; i <= a->csr.nrows; i++)
            EXPECT(a->csr.rowptr[i] == b->csr.rowptr[i]);
        for (int64_t k = 0; k < a->csr.nnz; k++) {
            EXPECT(a->csr.colind[k] == b->csr.colind[k]);
            EXPECT(same_bits(a->csr.val[k], b->csr.val[k]));
        }
    } else {
        for (int64_t k = 0; k < a->dense.nrows * a->dense.ncols; k++)
            EXPECT(same_bits(a->dense.val[k], b->dense.val[k]));
    }
    EXPECT(a->has_labels == b->has_labels);
    EXPECT(a->labels.n == b->labels.n);
    for (int64_t i = 0; i < a->labels.n; i++)
        EXPECT(same_bits(a->labels.val[i], b->labels.val[i]));
    EXPECT(a->vocab.n == b->vocab.n);
    for (int64_t i = 0; i < a->vocab.n; i++)
        ck_assert_str_eq(a->vocab.word[i], b->vocab.word[i]);
    EXPECT(a->names.n == b->names.n);
    for (int64_t i = 0; i < a->names.n; i++)
        ck_assert_str_eq(a->names.word[i], b->names.word[i]);
}

/* ---- accepted inputs ---------------------------------------------------- */

struct accept_row {
    const char *what;
    struct input in;
    int64_t rows, cols, nnz; /* nnz: stored entries (CSR), -1 for dense */
    const double *dense;     /* rows x cols, row-major */
    const double *labels;    /* NULL: none */
    const char *words;       /* vocabulary or column names, "|"-separated; NULL: none */
    bool pattern;
};

/* clang-format off */
#define D(...) ((const double[]){__VA_ARGS__})
#define SVM(flags, s) {PLAN_FORMAT_LIBSVM, flags, LIT(s), NULL, 0, 0, 0}
#define MTX(flags, s) {PLAN_FORMAT_MM, flags, LIT(s), NULL, 0, 0, 0}
#define UCI(s, v) {PLAN_FORMAT_UCI, 0, LIT(s), LIT(v), 0, 0}
#define UCI_NOVOCAB(s) {PLAN_FORMAT_UCI, 0, LIT(s), NULL, 0, 0, 0}
#define CSV(flags, s) {PLAN_FORMAT_CSV, flags, LIT(s), NULL, 0, 0, 0}
/* clang-format on */

static const struct accept_row accept_rows[] = {
    /* libsvm */
    {"libsvm basic", SVM(0, "1 1:0.5 3:2\n-1 2:1e3\n"), 2, 3, 3, D(0.5, 0, 2, /**/ 0, 1000, 0),
     D(1, -1), NULL, false},
    {"libsvm comments, qid, blank lines, tabs, +labels",
     SVM(0, "# a header comment\n+1 qid:7 1:1\t4:-2.5 # trailing\n\n  \t\n-1\t2:.5#x\n"
            "0.25 qid:1\n"),
     3, 4, 3, D(1, 0, 0, -2.5, /**/ 0, 0.5, 0, 0, /**/ 0, 0, 0, 0), D(1, -1, 0.25), NULL, false},
    {"libsvm CRLF, no final newline", SVM(0, "2 1:1\r\n3 2:2 3:3\r\n4 1:4"), 3, 3, 4,
     D(1, 0, 0, /**/ 0, 2, 3, /**/ 4, 0, 0), D(2, 3, 4), NULL, false},
    {"libsvm empty rows and trailing spaces", SVM(0, "1 \n2 3:1e-2   \n3\n"), 3, 3, 1,
     D(0, 0, 0, /**/ 0, 0, 0.01, /**/ 0, 0, 0), D(1, 2, 3), NULL, false},
    {"libsvm exponents and signs", SVM(0, "-0 1:+1.5E+2 2:-.25e-1 3:5. 4:007\n"), 1, 4, 4,
     D(150, -0.025, 5, 7), D(-0.0), NULL, false},
    {"libsvm int", SVM(F_INT, "1 1:3 2:-4 3:1e2\n"), 1, 3, 3, D(3, -4, 100), D(1), NULL, false},
    {"libsvm dense", SVM(F_DENSE, "1 2:5\n0 1:1 3:2\n"), 2, 3, -1, D(0, 5, 0, /**/ 1, 0, 2),
     D(1, 0), NULL, false},
    {"libsvm vector", SVM(F_VECTOR, "1 1:5\n2\n3 1:7\n"), 3, 1, 2, D(5, 0, 7), D(1, 2, 3), NULL,
     false},
    {"libsvm explicit zero kept", SVM(0, "1 1:0 2:1\n"), 1, 2, 2, D(0, 1), D(1), NULL, false},

    /* MatrixMarket */
    {"mm general, column-major order",
     MTX(0, "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 5\n"
            "1 1 1.0\n3 1 3.5\n2 2 -2\n1 4 4e1\n3 4 0.125\n"),
     3, 4, 5, D(1, 0, 0, 40, /**/ 0, -2, 0, 0, /**/ 3.5, 0, 0, 0.125), NULL, NULL, false},
    {"mm symmetric: mirrored, diagonal once",
     MTX(0, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 2 3\n"
            "3 3 4\n"),
     3, 3, 6, D(1, 2, 0, /**/ 2, 0, 3, /**/ 0, 3, 4), NULL, NULL, false},
    {"mm pattern: ones",
     MTX(0, "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n2 3\n1 1\n2 1\n"), 2, 3, 3,
     D(1, 0, 0, /**/ 1, 0, 1), NULL, NULL, true},
    {"mm pattern symmetric",
     MTX(0, "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n2 2\n"), 2, 2, 3,
     D(0, 1, /**/ 1, 1), NULL, NULL, true},
    {"mm integer symmetric, negative",
     MTX(0, "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 -7\n2 1 +3\n"), 2, 2, 3,
     D(-7, 3, /**/ 3, 0), NULL, NULL, false},
    {"mm case, CRLF, comments and blank lines among entries, tabs",
     MTX(0, "%%MatrixMarket MATRIX Coordinate REAL General\r\n%c\r\n\r\n2 2 2\r\n1\t2\t5\r\n"
            "%between\r\n\r\n 2 1 6 \r\n"),
     2, 2, 2, D(0, 5, /**/ 6, 0), NULL, NULL, false},
    {"mm no entries", MTX(0, "%%MatrixMarket matrix coordinate real general\n3 2 0\n"), 3, 2, 0,
     D(0, 0, 0, 0, 0, 0), NULL, NULL, false},
    {"mm dense storage",
     MTX(F_DENSE, "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 9"), 2, 2, -1,
     D(0, 0, /**/ 0, 9), NULL, NULL, false},
    {"mm int declared",
     MTX(F_INT, "%%MatrixMarket matrix coordinate real general\n1 2 1\n1 2 4.0\n"), 1, 2, 1,
     D(0, 4), NULL, NULL, false},

    /* UCI */
    {"uci with vocabulary, entries unordered",
     UCI("3\n4\n4\n3 4 1\n1 2 3\n2 1 5\n1 4 2\n", "apple\nbanana\ncherry\ndate\n"), 3, 4, 4,
     D(0, 3, 0, 2, /**/ 5, 0, 0, 0, /**/ 0, 0, 0, 1), NULL, "apple|banana|cherry|date", false},
    {"uci without vocabulary", UCI_NOVOCAB("2\n2\n1\n2 2 7\n"), 2, 2, 1, D(0, 0, /**/ 0, 7), NULL,
     NULL, false},
    {"uci CRLF, blank lines, no final newline",
     UCI("2\r\n3\r\n2\r\n1 3 1\r\n\r\n2 1 2", "x\r\ny y\r\nz"), 2, 3, 2, D(0, 0, 1, /**/ 2, 0, 0),
     NULL, "x|y y|z", false},

    /* CSV */
    {"csv header (auto)", CSV(F_DENSE, "a,b,c\n1,2,3\n4,5,6\n"), 2, 3, -1, D(1, 2, 3, /**/ 4, 5, 6),
     NULL, "a|b|c", false},
    {"csv no header (auto)", CSV(F_DENSE, "1,2\n3.5,-4e2\n"), 2, 2, -1, D(1, 2, /**/ 3.5, -400),
     NULL, NULL, false},
    {"csv labels", CSV(F_DENSE | F_LABELS, "y,x1,x2\n1,0.5,2\n-1,3,4\n"), 2, 2, -1,
     D(0.5, 2, /**/ 3, 4), D(1, -1), "y|x1|x2", false},
    {"csv header forced", CSV(F_DENSE | F_HDR_YES, "1,2\n3,4\n"), 1, 2, -1, D(3, 4), NULL, "1|2",
     false},
    {"csv header refused", CSV(F_DENSE | F_HDR_NO, "1,2\n3,4\n"), 2, 2, -1, D(1, 2, /**/ 3, 4),
     NULL, NULL, false},
    {"csv quoted header", CSV(F_DENSE, "\"a,b\", \"say \"\"hi\"\"\" ,c\n1,2,3\n"), 1, 3, -1,
     D(1, 2, 3), NULL, "a,b|say \"hi\"|c", false},
    {"csv BOM, spaces, blank lines, CRLF",
     CSV(F_DENSE, "\xef\xbb\xbfp , q\r\n\r\n 1 ,\t2 \r\n  \r\n3,4\r\n"), 2, 2, -1,
     D(1, 2, /**/ 3, 4), NULL, "p|q", false},
    {"csv sparse storage drops zeros", CSV(0, "a,b\n0,1\n2,0\n"), 2, 2, 2, D(0, 1, /**/ 2, 0), NULL,
     "a|b", false},
    {"csv vector", CSV(F_DENSE | F_VECTOR, "v\n1\n2\n3"), 3, 1, -1, D(1, 2, 3), NULL, "v", false},
    {"csv labels only", CSV(F_DENSE | F_LABELS, "1\n2\n"), 2, 0, -1, D(0), D(1, 2), NULL, false},
    {"csv empty header names", CSV(F_DENSE, ",b,\n1,2,3\n"), 1, 3, -1, D(1, 2, 3), NULL, "|b|",
     false},
    /* Found by fuzz_data: the range [0, 0) of a file whose only line is data
     * counted as the whole file, so "no rows after the header". */
    {"csv one data line", CSV(F_DENSE, "0,23.5,-3e2\n"), 1, 3, -1, D(0, 23.5, -300), NULL, NULL,
     false},
};

static void check_accept(const struct accept_row *r, const struct ptm_dataset *ds)
{
    ck_assert_int_eq(ptm_dataset_rows(ds), r->rows);
    ck_assert_int_eq(ptm_dataset_cols(ds), r->cols);
    ck_assert_int_eq(ds->sparse, r->nnz >= 0);
    if (r->nnz >= 0)
        ck_assert_int_eq(ds->csr.nnz, r->nnz);
    ck_assert_int_eq(ds->pattern, r->pattern);
    double *d = densify(ds);
    for (int64_t k = 0; k < r->rows * r->cols; k++)
        ck_assert_msg(same_bits(d[k], r->dense[k]), "%s: element %" PRId64 ": %g, expected %g",
                      r->what, k, d[k], r->dense[k]);
    free(d);
    ck_assert_int_eq(ds->has_labels, r->labels != NULL);
    if (r->labels) {
        ck_assert_int_eq(ds->labels.n, r->rows);
        for (int64_t i = 0; i < r->rows; i++)
            ck_assert(same_bits(ds->labels.val[i], r->labels[i]));
    } else {
        ck_assert_int_eq(ds->labels.n, 0);
    }
    const struct ptm_words *w = r->in.fmt == PLAN_FORMAT_UCI ? &ds->vocab : &ds->names;
    char joined[512] = "";
    size_t len = 0;
    for (int64_t i = 0; i < w->n; i++)
        len +=
            (size_t)snprintf(joined + len, sizeof(joined) - len, "%s%s", i ? "|" : "", w->word[i]);
    if (r->words)
        ck_assert_str_eq(joined, r->words);
    else
        ck_assert_int_eq(w->n, 0);
}

START_TEST(test_accept)
{
    const struct accept_row *r = &accept_rows[_i];
    struct ptm_dataset *first = NULL;
    for (int how = 0; how < NHOW; how++) {
        struct ptm_dataset *ds;
        char msgs[4096];
        int rc = read_input(&r->in, how, NULL, &ds, msgs, sizeof(msgs));
        ck_assert_msg(rc == 0, "%s (how %d): rc %d: %s", r->what, how, rc, msgs);
        ck_assert_str_eq(msgs, "");
        check_accept(r, ds);
        if (first) {
            check_same(first, ds);
            ptm_dataset_free(ds);
        } else {
            first = ds;
        }
    }
    ptm_dataset_free(first);
}
END_TEST

/* c2 is c: the same offsets, rows and bits. */
static void expect_same_csc(const struct ptm_csc *c2, const struct ptm_csc *c)
{
    ck_assert_int_eq(c2->nnz, c->nnz);
    for (int64_t j = 0; j <= c->ncols; j++)
        EXPECT(c2->colptr[j] == c->colptr[j]);
    for (int64_t k = 0; k < c->nnz; k++) {
        EXPECT(c2->rowind[k] == c->rowind[k]);
        EXPECT(same_bits(c2->val[k], c->val[k]));
    }
}

/* Whether in is read in pieces from a file (libsvm, sparse): FROM_PIECES
 * then starts threads. */
static bool in_pieces(const struct input *in)
{
    return in->fmt == PLAN_FORMAT_LIBSVM && !(in->flags & F_DENSE);
}

/* The CSC view, transposed densely here, is the matrix; rows increase in
 * each column. */
START_TEST(test_csc)
{
    const struct accept_row *r = &accept_rows[_i];
    if (r->nnz < 0)
        return;
    struct ptm_dataset *ds;
    char msgs[4096];
    ck_assert_int_eq(read_input(&r->in, FROM_MEM, NULL, &ds, msgs, sizeof(msgs)), 0);
    const struct ptm_csc *c, *again;
    ck_assert_int_eq(ptm_dataset_csc(ds, &c), 0);
    ck_assert_int_eq(ptm_dataset_csc(ds, &again), 0);
    ck_assert_ptr_eq(c, again);
    ck_assert_int_eq(c->nrows, r->rows);
    ck_assert_int_eq(c->ncols, r->cols);
    ck_assert_int_eq(c->nnz, r->nnz);
    ck_assert_int_eq(c->colptr[0], 0);
    ck_assert_int_eq(c->colptr[c->ncols], c->nnz);
    double *d = calloc((size_t)(r->rows * r->cols) + 1, sizeof(*d));
    for (int64_t j = 0; j < c->ncols; j++)
        for (int64_t k = c->colptr[j]; k < c->colptr[j + 1]; k++) {
            EXPECT(c->rowind[k] >= 0);
            EXPECT(c->rowind[k] < c->nrows);
            if (k > c->colptr[j])
                EXPECT(c->rowind[k - 1] < c->rowind[k]);
            d[c->rowind[k] * r->cols + j] = c->val[k];
        }
    for (int64_t k = 0; k < r->rows * r->cols; k++)
        EXPECT(same_bits(d[k], r->dense[k]));
    free(d);

    /* the same CSC made from the CSR's own arrays, by one thread in place
     * and by 2 or 3 threads each placing a range of rows; the row entries
     * go */
    for (int threads = 1; ds->sparse && threads <= 3; threads++) {
        struct ptm_dataset *ds2;
        ck_assert_int_eq(read_input(&r->in, FROM_MEM, NULL, &ds2, msgs, sizeof(msgs)), 0);
        int64_t *rowptr = ds2->csr.rowptr;
        const struct ptm_csc *c2;
        ck_assert_int_eq(threads == 1 ? ptm_dataset_csc_only(ds2, &c2)
                                      : ptm_dataset_csc_split(ds2, threads, &c2),
                         0);
        expect_same_csc(c2, c);
        EXPECT(c->nnz == 0 || (ds2->csr.colind == NULL && ds2->csr.val == NULL));
        EXPECT(ds2->csr.rowptr == rowptr && ds2->csr.nnz == c->nnz);
        ptm_dataset_free(ds2);
    }

    /* a libsvm file read in pieces by 3 threads that build the column
     * view of their pieces: the same CSC, and of the rows their offsets
     * and labels as read whole; with too little memory for it, the rows
     * as read whole and no column view */
    for (int cap = 0; ds->sparse && in_pieces(&r->in) && cap < 2; cap++) {
        struct ptm_dataset *ds2;
        ck_assert_int_eq(read_input_columns(&r->in, FROM_PIECES, NULL, cap ? 1 : UINT64_MAX, &ds2,
                                            msgs, sizeof(msgs)),
                         0);
        ck_assert_int_eq(ds2->csr.nrows, ds->csr.nrows);
        ck_assert_int_eq(ds2->csr.ncols, ds->csr.ncols);
        ck_assert_int_eq(ds2->csr.nnz, ds->csr.nnz);
        for (int64_t i = 0; i <= ds->csr.nrows; i++)
            EXPECT(ds2->csr.rowptr[i] == ds->csr.rowptr[i]);
        for (int64_t i = 0; i < ds->labels.n; i++)
            EXPECT(same_bits(ds2->labels.val[i], ds->labels.val[i]));
        if (cap == 0) {
            ck_assert_ptr_nonnull(ds2->csc);
            expect_same_csc(ds2->csc, c);
            EXPECT(ds2->csc->nrows == c->nrows && ds2->csc->ncols == c->ncols);
            EXPECT(ds2->csr.colind == NULL && ds2->csr.val == NULL);
        } else {
            EXPECT(ds2->csc == NULL);
            for (int64_t k = 0; k < ds->csr.nnz; k++) {
                EXPECT(ds2->csr.colind[k] == ds->csr.colind[k]);
                EXPECT(same_bits(ds2->csr.val[k], ds->csr.val[k]));
            }
        }
        ptm_dataset_free(ds2);
    }

    /* its columns' sums and sums of squares by 1 and 3 threads: the same
     * bits, each that of the column's values added in row order */
    for (int threads = 1; threads <= 3; threads += 2) {
        int64_t m = c->ncols ? c->ncols : 1;
        double *sq = calloc((size_t)m, sizeof(*sq)), *sum = calloc((size_t)m, sizeof(*sum));
        ck_assert(sq && sum);
        ptm_csc_colsums(c, threads, sq, sum);
        for (int64_t j = 0; j < c->ncols; j++) {
            double a = 0, b = 0;
            for (int64_t i = 0; i < c->nrows; i++) {
                double v = r->dense[i * r->cols + j];
                a += v * v;
                b += v;
            }
            EXPECT(same_bits(sq[j], a) && same_bits(sum[j], b));
        }
        free(sq);
        free(sum);
    }

    /* and by 1 to 3 threads keeping the rows: the same CSC, the CSR's
     * entries as read (compared with a second read) */
    for (int threads = 1; ds->sparse && threads <= 3; threads++) {
        struct ptm_dataset *ds2;
        ck_assert_int_eq(read_input(&r->in, FROM_MEM, NULL, &ds2, msgs, sizeof(msgs)), 0);
        const struct ptm_csc *c2, *c3;
        ck_assert_int_eq(ptm_dataset_csc_threads(ds2, threads, &c2), 0);
        ck_assert_int_eq(ptm_dataset_csc_threads(ds2, threads, &c3), 0);
        ck_assert_ptr_eq(c2, c3);
        expect_same_csc(c2, c);
        ck_assert_int_eq(ds2->csr.nnz, ds->csr.nnz);
        for (int64_t k = 0; k < ds->csr.nnz; k++) {
            EXPECT(ds2->csr.colind[k] == ds->csr.colind[k]);
            EXPECT(same_bits(ds2->csr.val[k], ds->csr.val[k]));
        }
        ptm_dataset_free(ds2);
    }
    ptm_dataset_free(ds);
}
END_TEST

/* Reading [0, k) and [k, n) gives the whole, for every k: the rows of the
 * two parts stacked (libsvm, csv), or their entries summed (mm, uci). */
START_TEST(test_range)
{
    const struct accept_row *r = &accept_rows[_i];
    if (r->in.flags & F_VECTOR)
        return; /* a part may have no column at all */
    struct input in = r->in;
    in.flags &= ~(unsigned)F_DENSE; /* compare in CSR */
    bool stack = in.fmt == PLAN_FORMAT_LIBSVM || in.fmt == PLAN_FORMAT_CSV;
    struct ptm_dataset *whole;
    char msgs[4096];
    ck_assert_int_eq(read_input(&in, FROM_MEM, NULL, &whole, msgs, sizeof(msgs)), 0);
    double *dw = densify(whole);
    int64_t n = (int64_t)in.inlen;
    for (int64_t k = 0; k <= n + 1; k++) {
        struct ptm_dataset *part[2];
        struct ptm_byte_range range[2] = {{0, k}, {k, n + 3}};
        for (int h = 0; h < 2; h++) {
            enum how how = k % 3 == 0 ? FROM_MEM_TINY : k % 3 == 1 ? FROM_FILE : FROM_PIECES;
            int rc = read_input(&in, how, &range[h], &part[h], msgs, sizeof(msgs));
            ck_assert_msg(rc == 0, "%s: [%" PRId64 ", %" PRId64 "): rc %d: %s", r->what,
                          range[h].begin, range[h].end, rc, msgs);
        }
        int64_t r0 = ptm_dataset_rows(part[0]), r1 = ptm_dataset_rows(part[1]);
        int64_t c0 = ptm_dataset_cols(part[0]), c1 = ptm_dataset_cols(part[1]);
        int64_t cols = ptm_dataset_cols(whole), rows = ptm_dataset_rows(whole);
        double *d0 = densify(part[0]), *d1 = densify(part[1]);
        if (stack) {
            EXPECT(r0 + r1 == rows);
            EXPECT(c0 > c1 ? c0 : c1 == cols);
            for (int64_t i = 0; i < rows; i++)
                for (int64_t j = 0; j < cols; j++) {
                    double v = i < r0 ? (j < c0 ? d0[i * c0 + j] : 0)
                                      : (j < c1 ? d1[(i - r0) * c1 + j] : 0);
                    EXPECT(same_bits(v, dw[i * cols + j]));
                }
            for (int64_t i = 0; i < whole->labels.n; i++)
                EXPECT(same_bits(i < r0 ? part[0]->labels.val[i] : part[1]->labels.val[i - r0],
                                 whole->labels.val[i]));
        } else {
            EXPECT(r0 == rows);
            EXPECT(r1 == rows);
            EXPECT(c0 == cols);
            EXPECT(c1 == cols);
            EXPECT(part[0]->csr.nnz + part[1]->csr.nnz == whole->csr.nnz);
            EXPECT(part[0]->declared_nnz == whole->declared_nnz);
            for (int64_t x = 0; x < rows * cols; x++)
                EXPECT(d0[x] + d1[x] == dw[x]);
        }
        free(d0);
        free(d1);
        ptm_dataset_free(part[0]);
        ptm_dataset_free(part[1]);
    }
    free(dw);
    ptm_dataset_free(whole);
}
END_TEST

/* ---- rejected inputs ---------------------------------------------------- */

struct reject_row {
    struct input in;
    const char *msgs; /* every message, one per line */
    int rc;           /* 0: PTM_EDATA */
};

/* clang-format off */
#define SVM_L(flags, s, line_max, max_dim) {PLAN_FORMAT_LIBSVM, flags, LIT(s), NULL, 0, line_max, max_dim}
#define MM_BANNER "%%MatrixMarket matrix coordinate real general\n"
#define MM_SYM "%%MatrixMarket matrix coordinate real symmetric\n"

#define X5(s) s s s s s
#define BAD25 X5(X5("1 0:1\n"))
/* clang-format on */

static const struct reject_row reject_rows[] = {
    /* libsvm */
    {.in = SVM(0, "1 1:2\n1 0:1\n"),
     .msgs = "in.svm:2:3: error: index '0' out of range: libsvm indices are 1-based"},
    {.in = SVM(0, "1 2:1 1:1\n"),
     .msgs = "in.svm:1:7: error: index '1' after '2': indices must increase"},
    {.in = SVM(0, "1 2:1 2:3\n"), .msgs = "in.svm:1:7: error: duplicate index '2'"},
    {.in = SVM(0, "1 1:nan\n"), .msgs = "in.svm:1:5: error: value 'nan' is not a finite number"},
    {.in = SVM(0, "1 1:-Infinity\n"),
     .msgs = "in.svm:1:5: error: value '-Infinity' is not a finite number"},
    {.in = SVM(0, "inf 1:1\n"), .msgs = "in.svm:1:1: error: label 'inf' is not a finite number"},
    {.in = SVM(0, "1 1:1e999\n"), .msgs = "in.svm:1:5: error: value '1e999' is out of range"},
    {.in = SVM(0, "1 1:1.5x\n"), .msgs = "in.svm:1:5: error: bad value '1.5x'"},
    {.in = SVM(0, "1 1:0x10\n"), .msgs = "in.svm:1:5: error: bad value '0x10'"},
    {.in = SVM(0, "1 1:1e\n"), .msgs = "in.svm:1:5: error: bad value '1e'"},
    {.in = SVM(0, "x 1:1\n"), .msgs = "in.svm:1:1: error: bad label 'x'"},
    {.in = SVM(0, "1,2 3:1\n"), .msgs = "in.svm:1:1: error: bad label '1,2'"},
    {.in = SVM(0, "1 3:\n"), .msgs = "in.svm:1:3: error: missing value after '3:'"},
    {.in = SVM(0, "1 3: 4:1\n"), .msgs = "in.svm:1:3: error: missing value after '3:'"},
    {.in = SVM(0, "1 a:1\n"), .msgs = "in.svm:1:3: error: bad index 'a'"},
    {.in = SVM(0, "1 -1:1\n"), .msgs = "in.svm:1:3: error: bad index '-1'"},
    {.in = SVM(0, "1 7\n"), .msgs = "in.svm:1:3: error: expected 'index:value', found '7'"},
    {.in = SVM(0, "1 1:1 qid:2\n"), .msgs = "in.svm:1:7: error: bad index 'qid'"},
    {.in = SVM(0, "1 qid:x 1:1\n"), .msgs = "in.svm:1:3: error: bad qid 'qid:x'"},
    {.in = SVM(0, "1 2147483648:1\n"),
     .msgs = "in.svm:1:3: error: index '2147483648' out of range (largest is 2147483647)"},
    {.in = SVM(0, "1 99999999999999999999999:1\n"),
     .msgs =
         "in.svm:1:3: error: index '99999999999999999999999' out of range (largest is 2147483647)"},
    {.in = SVM_L(0, "1 11:1\n", 0, 10),
     .msgs = "in.svm:1:3: error: index '11' out of range (largest is 10)"},
    {.in = SVM(0, "1 1:2\x00 2:3\n"), .msgs = "in.svm:1:5: error: bad value '2\\x00'"},
    {.in = SVM(0, "1 1:2\r3:4\n"), .msgs = "in.svm:1:5: error: bad value '2\\x0d3:4'"},
    {.in = SVM(0, "1 1:1 \x00\n"),
     .msgs = "in.svm:1:7: error: expected 'index:value', found '\\x00'"},
    {.in = SVM(F_INT, "1 1:0.5\n"),
     .msgs = "in.svm:1:5: error: value '0.5' is not a whole number (the data is declared int)"},
    {.in = SVM(F_INT, "1 1:1e16\n"),
     .msgs = "in.svm:1:5: error: value '1e16' is too large for an int (beyond 2^53)"},
    {.in = SVM(0, ""), .msgs = "in.svm: error: empty file"},
    {.in = SVM(0, "# only a comment\n\n"), .msgs = "in.svm: error: no rows"},
    {.in = SVM_L(0, "1 1:1\n1 1:22222222222222\n1 2:1\n", 16, 0),
     .msgs = "in.svm:2: error: line longer than 16 bytes"},
    {.in = SVM_L(0, "1 1:1\n1 1:22222222222222", 16, 0),
     .msgs = "in.svm:2: error: line longer than 16 bytes"},
    {.in = SVM(F_VECTOR, "1 1:1 2:2\n"),
     .msgs = "in.svm: error: a vector needs one column, the file has 2"},
    {.in = SVM(0, "1 1:1\nx\n1 2:nan\n\n1 0:1\n"),
     .msgs = "in.svm:2:1: error: bad label 'x'\n"
             "in.svm:3:5: error: value 'nan' is not a finite number\n"
             "in.svm:5:3: error: index '0' out of range: libsvm indices are 1-based"},
    {.in = SVM(0, BAD25),
     .msgs = "in.svm:1:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:2:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:3:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:4:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:5:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:6:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:7:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:8:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:9:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:10:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:11:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:12:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:13:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:14:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:15:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:16:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:17:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:18:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:19:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm:20:3: error: index '0' out of range: libsvm indices are 1-based\n"
             "in.svm: note: too many errors, stopped reading"},

    /* MatrixMarket */
    {.in = MTX(0, ""), .msgs = "in.mtx: error: empty file"},
    {.in = {PLAN_FORMAT_MM, 0, LIT(MM_BANNER), NULL, 0, 16, 0},
     .msgs = "in.mtx:1: error: line longer than 16 bytes"},
    {.in = {PLAN_FORMAT_MM, 0,
            LIT(MM_BANNER "1 1 1\n1 1                                                  1\n"), NULL,
            0, 48, 0},
     .msgs = "in.mtx:3: error: line longer than 48 bytes"},
    {.in = MTX(0, "1 1 1\n"),
     .msgs = "in.mtx:1:1: error: expected '%%MatrixMarket matrix coordinate real|integer|pattern "
             "general|symmetric'"},
    {.in = MTX(0, " %%MatrixMarket matrix coordinate real general\n1 1 0\n"),
     .msgs = "in.mtx:1:1: error: expected '%%MatrixMarket matrix coordinate real|integer|pattern "
             "general|symmetric'"},
    {.in = MTX(0, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"),
     .msgs = "in.mtx:1:23: error: 'array' (dense) MatrixMarket files are not supported, only "
             "'coordinate'"},
    {.in = MTX(0, "%%MatrixMarket vector coordinate real general\n"),
     .msgs = "in.mtx:1:16: error: unsupported object 'vector' (only 'matrix')"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate complex general\n"),
     .msgs = "in.mtx:1:34: error: unsupported field 'complex' (real, integer or pattern)"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate real hermitian\n"),
     .msgs = "in.mtx:1:39: error: unsupported symmetry 'hermitian' (general or symmetric)"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate real skew-symmetric\n"),
     .msgs = "in.mtx:1:39: error: unsupported symmetry 'skew-symmetric' (general or symmetric)"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate real\n"),
     .msgs = "in.mtx:1: error: incomplete header: expected '%%MatrixMarket matrix coordinate "
             "real|integer|pattern general|symmetric'"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate real general extra\n"),
     .msgs = "in.mtx:1:47: error: unexpected 'extra' after the header"},
    {.in = MTX(0, "%%MatrixMarket matrix coordnate real general\n"),
     .msgs = "in.mtx:1:23: error: unknown format 'coordnate' (expected 'coordinate')"},
    {.in = MTX(0, MM_BANNER "% only comments\n"),
     .msgs = "in.mtx:2: error: file ends before the size line"},
    {.in = MTX(0, MM_BANNER "2 2\n"),
     .msgs = "in.mtx:2: error: size line has 2 fields, expected 3: 'rows columns entries'"},
    {.in = MTX(0, MM_BANNER "2 x 1\n"),
     .msgs = "in.mtx:2:3: error: bad size 'x' (expected 'rows columns entries')"},
    {.in = MTX(0, MM_BANNER "2 -2 1\n"),
     .msgs = "in.mtx:2:3: error: bad size '-2' (expected 'rows columns entries')"},
    {.in = MTX(0, MM_BANNER "3000000000 2 1\n"),
     .msgs = "in.mtx:2:1: error: too many rows '3000000000' (largest is 2147483647)"},
    {.in = MTX(0, MM_SYM "2 3 1\n"),
     .msgs = "in.mtx:2: error: a symmetric matrix must be square, the size is 2 x 3"},
    {.in = MTX(0, MM_BANNER "2 3 7\n"),
     .msgs = "in.mtx:2: error: 7 entries do not fit in a 2 x 3 matrix"},
    {.in = MTX(0, MM_SYM "2 2 4\n"),
     .msgs = "in.mtx:2: error: 4 entries do not fit in a symmetric 2 x 2 matrix"},
    {.in = MTX(0, MM_BANNER "2 3 2\n0 1 1\n3 1 1\n"),
     .msgs = "in.mtx:3:1: error: row index '0' out of range 1..2\n"
             "in.mtx:4:1: error: row index '3' out of range 1..2"},
    {.in = MTX(0, MM_BANNER "2 3 1\n1 4 1\n"),
     .msgs = "in.mtx:3:3: error: column index '4' out of range 1..3"},
    {.in = MTX(0, MM_BANNER "2 3 1\n1 x 1\n"), .msgs = "in.mtx:3:3: error: bad column index 'x'"},
    {.in = MTX(0, MM_BANNER "2 3 1\n1 1\n"),
     .msgs = "in.mtx:3: error: expected 3 fields 'row column value', found 2"},
    {.in = MTX(0, MM_BANNER "2 3 1\n1 1 1 1\n"),
     .msgs = "in.mtx:3: error: expected 3 fields 'row column value', found 4"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 1 1\n"),
     .msgs = "in.mtx:3: error: expected 2 fields 'row column', found 3"},
    {.in = MTX(0, "%%MatrixMarket matrix coordinate integer general\n2 3 2\n1 1 1.5\n1 2 1e3\n"),
     .msgs = "in.mtx:3:5: error: bad integer '1.5'\n"
             "in.mtx:4:5: error: bad integer '1e3'"},
    {.in =
         MTX(0, "%%MatrixMarket matrix coordinate integer general\n2 3 1\n1 1 9007199254740993\n"),
     .msgs = "in.mtx:3:5: error: integer '9007199254740993' is too large (beyond 2^53)"},
    {.in = MTX(0, MM_BANNER "2 3 2\n1 1 NaN\n1 2 inf\n"),
     .msgs = "in.mtx:3:5: error: value 'NaN' is not a finite number\n"
             "in.mtx:4:5: error: value 'inf' is not a finite number"},
    {.in = MTX(F_INT, MM_BANNER "2 3 1\n1 1 2.5\n"),
     .msgs = "in.mtx:3:5: error: value '2.5' is not a whole number (the data is declared int)"},
    {.in = MTX(0, MM_SYM "3 3 2\n1 1 1\n1 2 5\n"),
     .msgs = "in.mtx:4: error: entry (1, 2) above the diagonal of a symmetric matrix"},
    {.in = MTX(0, MM_BANNER "2 3 1\n1 1 1\n2 2 2\n2 3 3\n"),
     .msgs = "in.mtx:4: error: more entries than the 1 declared on line 2"},
    {.in = MTX(0, MM_BANNER "2 3 3\n1 1 1\n2 2 2\n"),
     .msgs = "in.mtx:4: error: file ends after 2 of the 3 entries declared on line 2 (truncated?)"},
    {.in = MTX(0, MM_BANNER "2 3 3\n1 1 1\n2 2 2\n1 1 2.5"),
     .msgs = "in.mtx:5: error: duplicate entry (1, 1), first on line 3"},
    /* the lines of entries in order, with comments between, kept as runs
     * until an entry out of order */
    {.in = MTX(0, MM_BANNER "3 3 5\n1 1 1\n%% c\n1 2 2\n\n%% d\n2 1 3\n3 3 5\n1 2 4\n"),
     .msgs = "in.mtx:10: error: duplicate entry (1, 2), first on line 5"},
    {.in = MTX(0, MM_SYM "3 3 4\n2 1 1\n3 3 2\n2 1 3\n3 3 4\n"),
     .msgs = "in.mtx:5: error: duplicate entry (2, 1), first on line 3\n"
             "in.mtx:6: error: duplicate entry (3, 3), first on line 4"},
    {.in = {PLAN_FORMAT_MM, 0, LIT(MM_BANNER "11 2 0\n"), NULL, 0, 0, 10},
     .msgs = "in.mtx:2:1: error: too many rows '11' (largest is 10)"},

    /* UCI */
    {.in = UCI_NOVOCAB(""), .msgs = "in.txt: error: empty file"},
    {.in = UCI_NOVOCAB("3\n4\n"),
     .msgs = "in.txt:2: error: file ends in the header (expected D, W and NNZ on lines 1-3)"},
    {.in = UCI_NOVOCAB("3\nx\n1\n"),
     .msgs = "in.txt:2:1: error: expected the number of words W, found 'x'"},
    {.in = UCI_NOVOCAB("3 4\n4\n1\n"),
     .msgs = "in.txt:1:1: error: expected the number of documents D, found '3'"},
    {.in = UCI_NOVOCAB("3\n4\n-1\n"),
     .msgs = "in.txt:3:1: error: expected the number of entries NNZ, found '-1'"},
    {.in = UCI_NOVOCAB("3\n4\n13\n"),
     .msgs = "in.txt:3: error: 13 entries do not fit in 3 documents x 4 words"},
    {.in = UCI_NOVOCAB("3\n4000000000\n1\n"),
     .msgs = "in.txt:2:1: error: too many words '4000000000' (largest is 2147483647)"},
    {.in = UCI_NOVOCAB("3\n4\n3\n0 1 1\n4 1 1\n1 5 1\n"),
     .msgs = "in.txt:4:1: error: document index '0' out of range 1..3\n"
             "in.txt:5:1: error: document index '4' out of range 1..3\n"
             "in.txt:6:3: error: word index '5' out of range 1..4"},
    {.in = UCI_NOVOCAB("3\n4\n3\n1 1 0\n1 2 1.5\n1 3 -1\n"),
     .msgs = "in.txt:4:5: error: bad count '0' (expected a positive integer)\n"
             "in.txt:5:5: error: bad count '1.5' (expected a positive integer)\n"
             "in.txt:6:5: error: bad count '-1' (expected a positive integer)"},
    {.in = UCI_NOVOCAB("3\n4\n1\n1 1 9007199254740993\n"),
     .msgs = "in.txt:4:5: error: count '9007199254740993' is too large (beyond 2^53)"},
    {.in = UCI_NOVOCAB("3\n4\n2\n1 1\n1 1 1 1\n"),
     .msgs = "in.txt:4: error: expected 3 fields 'doc word count', found 2\n"
             "in.txt:5: error: expected 3 fields 'doc word count', found 4"},
    {.in = UCI_NOVOCAB("3\n4\n1\n1 x 1\n"), .msgs = "in.txt:4:3: error: bad word index 'x'"},
    {.in = UCI_NOVOCAB("3\n4\n1\n1 1 1\n2 2 2\n"),
     .msgs = "in.txt:5: error: more entries than the 1 declared on line 3"},
    {.in = UCI_NOVOCAB("3\n4\n3\n1 1 1\n2 2 2\n"),
     .msgs = "in.txt:5: error: file ends after 2 of the 3 entries declared on line 3 (truncated?)"},
    {.in = UCI_NOVOCAB("3\n4\n3\n1 1 1\n2 2 2\n1 1 4\n"),
     .msgs = "in.txt:6: error: duplicate entry (1, 1), first on line 4"},
    {.in = UCI("2\n3\n1\n1 1 1\n", "a\nb\n"),
     .msgs = "in.vocab: error: 2 words, but in.txt declares W = 3 on line 2"},
    {.in = UCI("2\n3\n1\n1 1 1\n", "a\nb\nc\nd\ne\n"),
     .msgs = "in.vocab:4: error: more words than the 3 of in.txt (W on line 2)"},
    {.in = UCI("2\n3\n1\n1 1 1\n", "a\n\nc\n"), .msgs = "in.vocab:2: error: empty word"},
    {.in = UCI("2\n3\n1\n1 1 1\n", "a\nb\x00x\nc\n"),
     .msgs = "in.vocab:2:2: error: NUL byte in a word"},
    {.in = UCI("2\n3\n1\n1 1 1\n", "a\nb\nc\n\n"),
     .msgs = "in.vocab:4: error: more words than the 3 of in.txt (W on line 2)"},
    {.in = UCI("2\n3\n1\n9 1 1\n", "a\n"),
     .msgs = "in.txt:4:1: error: document index '9' out of range 1..2\n"
             "in.vocab: error: 1 words, but in.txt declares W = 3 on line 2"},

    {.in = {PLAN_FORMAT_UCI, 0, LIT("1\n3\n1\n1 1 1\n"), LIT("a\nbbbbbbbbbbbbbbbbbbbbbbbbb\nc\n"),
            16, 0},
     .msgs = "in.vocab:2: error: line longer than 16 bytes"},
    {.in = {PLAN_FORMAT_UCI, 0, LIT("1\n3\n1\n1 1 1            1\n"), NULL, 0, 16, 0},
     .msgs = "in.txt:4: error: line longer than 16 bytes"},
    {.in = {PLAN_FORMAT_UCI, 0, LIT("1\n3                  \n1\n1 1 1\n"), NULL, 0, 16, 0},
     .msgs = "in.txt:2: error: line longer than 16 bytes"},

    /* CSV */
    {.in = CSV(F_DENSE, ""), .msgs = "in.csv: error: empty file"},
    {.in = {PLAN_FORMAT_CSV, F_DENSE, LIT("a,b\n1,2\n1,                    2\n"), NULL, 0, 16, 0},
     .msgs = "in.csv:3: error: line longer than 16 bytes"},
    {.in = CSV(F_DENSE, "\n  \n"), .msgs = "in.csv: error: empty file"},
    {.in = CSV(F_DENSE, "a,b\n"), .msgs = "in.csv: error: no rows after the header"},
    {.in = CSV(F_DENSE, "a,b,c\n1,2,3\n4,5\n6,7,8,9,10\n"),
     .msgs = "in.csv:3: error: 2 fields, expected 3 (as on line 1)\n"
             "in.csv:4: error: 5 fields, expected 3 (as on line 1)"},
    {.in = CSV(F_DENSE, "a,b\n1,x\n1,nan\n,2\n1, \n\"1\",2\n1 2,3\n"),
     .msgs = "in.csv:2:3: error: bad value 'x'\n"
             "in.csv:3:3: error: value 'nan' is not a finite number\n"
             "in.csv:4:1: error: empty field\n"
             "in.csv:5:4: error: empty field\n"
             "in.csv:6:1: error: quoted field '\"1\"': data fields must be plain numbers\n"
             "in.csv:7:1: error: bad value '1 2'"},
    {.in = CSV(F_DENSE | F_LABELS, "y,x\ninf,1\n"),
     .msgs = "in.csv:2:1: error: label 'inf' is not a finite number"},
    {.in = CSV(F_DENSE | F_INT, "a\n1.5\n"),
     .msgs = "in.csv:2:1: error: value '1.5' is not a whole number (the data is declared int)"},
    {.in = CSV(F_DENSE, "\"a,b\n1\n"),
     .msgs = "in.csv:1:1: error: unterminated quoted field (fields may not span lines)"},
    {.in = CSV(F_DENSE, "\"a\"x,b\n1,2\n"),
     .msgs = "in.csv:1:4: error: unexpected 'x,b' after a quoted field"},
    {.in = CSV(F_DENSE, "a\x00,b\n1,2\n"), .msgs = "in.csv:1:2: error: NUL byte in the header"},
    {.in = CSV(F_DENSE | F_VECTOR, "a,b\n1,2\n"),
     .msgs = "in.csv: error: a vector needs one column, the file has 2"},
    {.in = CSV(F_DENSE | F_HDR_NO, "a,b\n1,2\n"), .msgs = "in.csv:1:1: error: bad value 'a'"},
    {.in = CSV(F_DENSE, "1,2\n1,1e400\n"),
     .msgs = "in.csv:2:3: error: value '1e400' is out of range"},
    {.in = CSV(F_DENSE, "\xef\xbb\xbf\"a\"x,b\n1,2\n"),
     .msgs = "in.csv:1:7: error: unexpected 'x,b' after a quoted field"},
};

START_TEST(test_reject)
{
    const struct reject_row *r = &reject_rows[_i];
    for (int how = 0; how < NHOW; how++) {
        struct ptm_dataset *ds = (struct ptm_dataset *)1;
        char msgs[8192];
        int rc = read_input(&r->in, how, NULL, &ds, msgs, sizeof(msgs));
        if (strcmp(msgs, r->msgs)) {
            fprintf(stderr, "reject row %d (how %d): got\n%s\n", _i, how, msgs);
            ck_assert_str_eq(msgs, r->msgs);
        }
        ck_assert_int_eq(rc, r->rc ? r->rc : PTM_EDATA);
        ck_assert_ptr_null(ds);
    }
}
END_TEST

/* ---- reading details ---------------------------------------------------- */

START_TEST(test_missing_file)
{
    struct ptm_data_opts o;
    set_opts(&o, PLAN_FORMAT_LIBSVM, 0);
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds;
    ck_assert_int_eq(ptm_data_read("nope.svm", &o, &dg, &ds), PTM_ENOENT);
    ck_assert_ptr_null(ds);
    char msgs[256];
    join_msgs(&dg, msgs, sizeof(msgs));
    ck_assert_str_eq(msgs, "nope.svm: error: cannot open: No such file or directory");
    ptm_data_diags_release(&dg);

    /* A missing vocabulary. */
    write_file("in.txt", LIT("1\n1\n1\n1 1 1\n"));
    set_opts(&o, PLAN_FORMAT_UCI, 0);
    o.vocab = "nope.vocab";
    ptm_data_diags_init(&dg);
    ck_assert_int_eq(ptm_data_read("in.txt", &o, &dg, &ds), PTM_ENOENT);
    join_msgs(&dg, msgs, sizeof(msgs));
    ck_assert_str_eq(msgs, "nope.vocab: error: cannot open: No such file or directory");
    ptm_data_diags_release(&dg);

    /* Bad options. */
    ptm_data_diags_init(&dg);
    set_opts(&o, PLAN_FORMAT_LABELS, 0);
    ck_assert_int_eq(ptm_data_read_mem("", 0, "x", NULL, 0, NULL, &o, &dg, &ds), PTM_EINVAL);
    set_opts(&o, PLAN_FORMAT_LIBSVM, 0);
    struct ptm_byte_range bad = {5, 2};
    o.range = &bad;
    ck_assert_int_eq(ptm_data_read_mem("", 0, "x", NULL, 0, NULL, &o, &dg, &ds), PTM_EINVAL);
    ck_assert_uint_eq(dg.n, 0);
    ptm_data_diags_release(&dg);
}
END_TEST

START_TEST(test_print)
{
    struct input in = {PLAN_FORMAT_LIBSVM, 0, LIT("1 0:1\n" BAD25), NULL, 0, 0, 0};
    struct ptm_data_opts o;
    set_opts(&o, in.fmt, 0);
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds;
    ck_assert_int_eq(ptm_data_read_mem(in.in, in.inlen, "x", NULL, 0, NULL, &o, &dg, &ds),
                     PTM_EDATA);
    ck_assert_uint_eq(dg.nerrors, 20);
    ck_assert_uint_eq(dg.n, 21);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ptm_data_diags_print(f, &dg, true);
    fclose(f);
    const char *first = "\033[1mx:1:3: \033[0m\033[1;31merror:\033[0m index '0' out of range: "
                        "libsvm indices are 1-based\n";
    const char *last = "\033[1mx: \033[0m\033[1;36mnote:\033[0m too many errors, stopped reading\n";
    ck_assert(!strncmp(text, first, strlen(first)));
    ck_assert_str_eq(text + len - strlen(last), last);
    free(text);
    /* A second read adds to the same sink. */
    set_opts(&o, PLAN_FORMAT_CSV, F_DENSE);
    ck_assert_int_eq(ptm_data_read_mem(LIT("a\nb\n"), "y", NULL, 0, NULL, &o, &dg, &ds), PTM_EDATA);
    ck_assert_uint_eq(dg.nerrors, 21);
    ck_assert_str_eq(dg.msg[21].text, "y:2:1: error: bad value 'b'");
    ptm_data_diags_release(&dg);
    /* Quiet: counted, not kept. */
    ptm_data_diags_init(&dg);
    dg.quiet = true;
    ck_assert_int_eq(ptm_data_read_mem(LIT("a\nb\n"), "y", NULL, 0, NULL, &o, &dg, &ds), PTM_EDATA);
    ck_assert_uint_eq(dg.nerrors, 1);
    ck_assert_uint_eq(dg.n, 0);
    ptm_data_diags_release(&dg);
}
END_TEST

/* Line numbers in a range read are the file's. */
START_TEST(test_range_lines)
{
    static const char svm[] = "1 1:1\n2 2:2\n3 3:x\n4 4:4\n";
    struct input in = {PLAN_FORMAT_LIBSVM, 0, LIT(svm), NULL, 0, 0, 0};
    struct ptm_dataset *ds;
    char msgs[512];
    struct ptm_byte_range r = {7, 20}; /* from inside line 2 to inside line 4 */
    ck_assert_int_eq(read_input(&in, FROM_FILE, &r, &ds, msgs, sizeof(msgs)), PTM_EDATA);
    ck_assert_str_eq(msgs, "in.svm:3:5: error: bad value 'x'");
    r = (struct ptm_byte_range){0, 12}; /* lines 1-2 */
    ck_assert_int_eq(read_input(&in, FROM_MEM_TINY, &r, &ds, msgs, sizeof(msgs)), 0);
    ck_assert_int_eq(ds->csr.nrows, 2);
    ptm_dataset_free(ds);
    r = (struct ptm_byte_range){18, 1000}; /* line 4 only */
    ck_assert_int_eq(read_input(&in, FROM_MEM, &r, &ds, msgs, sizeof(msgs)), 0);
    ck_assert_int_eq(ds->csr.nrows, 1);
    ck_assert(ds->labels.val[0] == 4);
    ptm_dataset_free(ds);

    /* mm: the header is read whatever the range; a range inside it holds
     * no entries; errors keep their lines. */
    static const char mm[] = MM_BANNER "%c\n3 3 3\n1 1 1\n2 2 x\n3 3 3\n";
    struct input m = {PLAN_FORMAT_MM, 0, LIT(mm), NULL, 0, 0, 0};
    r = (struct ptm_byte_range){10, 20};
    ck_assert_int_eq(read_input(&m, FROM_FILE, &r, &ds, msgs, sizeof(msgs)), 0);
    ck_assert_int_eq(ds->csr.nrows, 3);
    ck_assert_int_eq(ds->csr.nnz, 0);
    ck_assert_int_eq(ds->declared_nnz, 3);
    ptm_dataset_free(ds);
    r = (struct ptm_byte_range){(int64_t)sizeof(mm) - 13, (int64_t)sizeof(mm)};
    ck_assert_int_eq(read_input(&m, FROM_MEM_TINY, &r, &ds, msgs, sizeof(msgs)), PTM_EDATA);
    ck_assert_str_eq(msgs, "in.mtx:5:5: error: bad value 'x'");
    /* A truncated file is only noticed when the range covers it all. */
    static const char mm2[] = MM_BANNER "3 3 3\n1 1 1\n";
    struct input m2 = {PLAN_FORMAT_MM, 0, LIT(mm2), NULL, 0, 0, 0};
    r = (struct ptm_byte_range){0, 50};
    ck_assert_int_eq(read_input(&m2, FROM_MEM, &r, &ds, msgs, sizeof(msgs)), 0);
    ptm_dataset_free(ds);
    r = (struct ptm_byte_range){0, 1000};
    ck_assert_int_eq(read_input(&m2, FROM_MEM, &r, &ds, msgs, sizeof(msgs)), PTM_EDATA);
}
END_TEST

/* A line much longer than the chunk, and many lines: the buffer grows and
 * moves. Values are checked against what was written. */
START_TEST(test_long_lines)
{
    enum { ROWS = 300, COLS = 5000 };
    size_t cap = (size_t)ROWS * COLS * 16 + 1024, len = 0;
    char *text = malloc(cap);
    double *want = calloc((size_t)ROWS * COLS, sizeof(*want));
    uint64_t s = 12345;
    for (int i = 0; i < ROWS; i++) {
        len += (size_t)snprintf(text + len, cap - len, "%d", i);
        int step = i == 7 ? 1 : 1 + (int)(i % 97);
        for (int j = 0; j < COLS; j += step) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            double v = (double)(int64_t)(s >> 20) / 1e6;
            char num[40];
            snprintf(num, sizeof(num), "%.17g", v);
            want[(size_t)i * COLS + j] = strtod(num, NULL);
            len += (size_t)snprintf(text + len, cap - len, " %d:%s", j + 1, num);
        }
        text[len++] = '\n';
    }
    struct input in = {PLAN_FORMAT_LIBSVM, 0, text, len, NULL, 0, 0, 0};
    for (int how = 0; how < NHOW; how++) {
        struct ptm_dataset *ds;
        char msgs[512];
        EXPECT(read_input(&in, how, NULL, &ds, msgs, sizeof(msgs)) == 0);
        EXPECT(ds->csr.nrows == ROWS);
        double *d = densify(ds);
        int64_t c = ds->csr.ncols;
        for (int i = 0; i < ROWS; i++) {
            EXPECT(ds->labels.val[i] == i);
            for (int j = 0; j < c; j++)
                EXPECT(same_bits(d[(size_t)i * c + j], want[(size_t)i * COLS + j]));
        }
        free(d);
        ptm_dataset_free(ds);
    }
    free(text);
    free(want);
}
END_TEST

/* A random MatrixMarket file in shuffled order against the matrix it was
 * written from. */
START_TEST(test_mm_random)
{
    enum { R = 60, C = 45 };
    double want[R][C];
    int cells[R * C], n = 0;
    memset(want, 0, sizeof(want));
    uint64_t s = 99;
    for (int k = 0; k < R * C; k++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        if ((s >> 33) % 5 == 0)
            cells[n++] = k;
    }
    for (int k = n - 1; k > 0; k--) { /* shuffle */
        s = s * 6364136223846793005u + 1442695040888963407u;
        int j = (int)((s >> 33) % (uint64_t)(k + 1)), t = cells[k];
        cells[k] = cells[j];
        cells[j] = t;
    }
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "%s%d %d %d\n", MM_BANNER, R, C, n);
    for (int k = 0; k < n; k++) {
        int i = cells[k] / C, j = cells[k] % C;
        want[i][j] = k + 0.5;
        len += (size_t)snprintf(text + len, cap - len, "%d %d %.1f\n", i + 1, j + 1, k + 0.5);
    }
    struct input in = {PLAN_FORMAT_MM, 0, text, len, NULL, 0, 0, 0};
    struct ptm_dataset *ds;
    char msgs[512];
    int rc = read_input(&in, FROM_MEM_TINY, NULL, &ds, msgs, sizeof(msgs));
    ck_assert_msg(rc == 0, "rc %d: %s", rc, msgs);
    EXPECT(ds->csr.nnz == n);
    double *d = densify(ds);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            EXPECT(d[i * C + j] == want[i][j]);
    free(d);
    /* the CSC made in place: every value where the matrix has it */
    const struct ptm_csc *c;
    ck_assert_int_eq(ptm_dataset_csc_only(ds, &c), 0);
    EXPECT(c->nnz == n);
    for (int j = 0; j < C; j++)
        for (int64_t k = c->colptr[j]; k < c->colptr[j + 1]; k++) {
            EXPECT(k == c->colptr[j] || c->rowind[k - 1] < c->rowind[k]);
            EXPECT(c->val[k] == want[c->rowind[k]][j]);
        }
    ptm_dataset_free(ds);
    free(text);
}
END_TEST

/* ---- numbers ------------------------------------------------------------ */

static const char *const numbers[] = {
    "0",
    "-0",
    "+0",
    "0.0",
    "-0.0e5",
    "0e999",
    "1",
    "-1",
    "+1",
    ".5",
    "5.",
    "-.5e-3",
    "0.1",
    "0.2",
    "0.3",
    "1e22",
    "1e23",
    "1e-22",
    "1e-23",
    "123456789012345678",
    "1234567890123456789",
    "12345678901234567890",
    "123456789012345678901234567890",
    "9007199254740992",
    "9007199254740993",
    "9007199254740994",
    "9007199254740995",
    "18014398509481985",
    "0.000000000000000000000000000001",
    "00000000000000000000000001.5",
    "1.00000000000000000000000000001",
    "0.1000000000000000055511151231257827",
    "0.1000000000000000055511151231257828",
    "2.2250738585072011e-308",
    "2.2250738585072014e-308",
    "4.9e-324",
    "2.4703282292062327e-324",
    "2.4703282292062328e-324",
    "1e-400",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "8.98846567431158e307",
    "3.141592653589793",
    "2.718281828459045235360287",
    "1.23457e-05",
    "0.0123457",
    "-123457",
    "1e+308",
    "7.2057594037927933e16",
    "4503599627370496.5",
    "4503599627370497.5",
    "1.5e10",
    "922337203685477580.7",
    "1e0000000000000000000000001",
    "1e-0000000000000001",
    "0.9999999999999999999999",
    "100000000000000000000000",
    "6.0221409e+23",
};

START_TEST(test_numbers)
{
    /* The scanner, and the libsvm reader, against strtod bit for bit. */
    for (size_t i = 0; i < PTM_ARRAY_LEN(numbers); i++) {
        char buf[128];
        snprintf(buf, sizeof(buf), "%s", numbers[i]);
        double v, ref = strtod(numbers[i], NULL);
        char *e = data_scan_double(buf, &v);
        ck_assert_msg(*e == '\0', "%s: stopped early", numbers[i]);
        ck_assert_msg(same_bits(v, ref), "%s: %.17g, strtod %.17g", numbers[i], v, ref);
        if (!isfinite(ref))
            continue;
        char line[160];
        int n = snprintf(line, sizeof(line), "%s 1:%s\n", numbers[i], numbers[i]);
        struct input in = {PLAN_FORMAT_LIBSVM, 0, line, (size_t)n, NULL, 0, 0, 0};
        struct ptm_dataset *ds;
        char msgs[256];
        ck_assert_int_eq(read_input(&in, FROM_MEM, NULL, &ds, msgs, sizeof(msgs)), 0);
        ck_assert(same_bits(ds->labels.val[0], ref));
        ck_assert(same_bits(ds->csr.val[0], ref));
        ptm_dataset_free(ds);
    }
}
END_TEST

START_TEST(test_numbers_random)
{
    /* Random decimals of every shape the fast path takes or refuses. */
    uint64_t s = 0x9e3779b97f4a7c15u + (uint64_t)_i;
    for (int t = 0; t < 200000; t++) {
        char buf[96];
        size_t n = 0;
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint64_t r = s;
        if (r & 1)
            buf[n++] = '-';
        int intd = (int)((r >> 1) % 12), fracd = (int)((r >> 5) % 22);
        for (int k = 0; k < intd; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            buf[n++] = (char)('0' + s % 10);
        }
        if (fracd || !intd) {
            buf[n++] = '.';
            for (int k = 0; k < fracd || (!intd && k == 0); k++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                buf[n++] = (char)('0' + s % 10);
            }
        }
        if ((r >> 10) % 3 == 0)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "e%d", (int)((r >> 12) % 700) - 350);
        buf[n] = '\0';
        double v, ref = strtod(buf, NULL);
        char *e = data_scan_double(buf, &v);
        ck_assert_msg(*e == '\0' && same_bits(v, ref), "%s: %.17g, strtod %.17g", buf, v, ref);
    }
}
END_TEST

/* Decimals of up to 19 digits that the Clinger path refuses go through
 * data_eisel_lemire(): it must give strtod's bits whenever it answers,
 * and answer for nearly all of them. Checked on mantissas of 15 to 19
 * digits at every exponent of its table and past it, on the text of
 * "%.17g" of random doubles, and on numbers exactly halfway between two
 * doubles (w 5^q of 54 bits, odd: to even) and next to them. */
#ifdef __SIZEOF_INT128__ /* else strtod converts them all */
#include "pow5.h"

static void expect_el(const char *text, uint64_t w, long q, int64_t *answered)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", text);
    double ref = strtod(buf, NULL), v, el;
    char *e = data_scan_double(buf, &v);
    ck_assert_msg(*e == '\0' && same_bits(v, ref), "%s: %.17g, strtod %.17g", text, v, ref);
    if (data_eisel_lemire(w, q, &el)) {
        ck_assert_msg(same_bits(el, fabs(ref)), "%s (w %" PRIu64 ", q %ld): %.17g, strtod %.17g",
                      text, w, q, el, ref);
        (*answered)++;
    }
}

#endif

START_TEST(test_eisel_lemire)
{
#ifdef __SIZEOF_INT128__
    uint64_t s = 0x243f6a8885a308d3u;
    int64_t answered = 0, tried = 0;
    char buf[64];
    for (int t = 0; t < 300000; t++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int digits = 15 + (int)(s % 5);
        uint64_t w = 1 + (s >> 8) % 9;
        for (int k = 1; k < digits; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            w = w * 10 + s % 10;
        }
        long q = (long)((s >> 20) % 141) - 70;
        snprintf(buf, sizeof(buf), "%" PRIu64 "e%ld", w, q);
        expect_el(buf, w, q, &answered);
        tried += q >= -64 && q <= 64;
    }
    /* the rare cases it leaves to strtod are rare */
    ck_assert_msg(answered > tried * 99 / 100, "answered %lld of %lld", (long long)answered,
                  (long long)tried);
    for (int t = 0; t < 200000; t++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        /* a double between about 1e-40 and 1e40, every bit of its
         * mantissa random */
        double d = ldexp(1.0 + (double)(s >> 12) / 4503599627370496.0, (int)(s % 260) - 130);
        snprintf(buf, sizeof(buf), "%.17e", d); /* 18 digits: d.ddddddddddddddddde+X */
        uint64_t w = 0;
        long q = 0, frac = 0;
        bool dot = false;
        const char *c = buf;
        for (; *c && *c != 'e'; c++)
            if (*c == '.')
                dot = true;
            else {
                w = w * 10 + (uint64_t)(*c - '0');
                frac += dot;
            }
        q = strtol(c + 1, NULL, 10) - frac;
        expect_el(buf, w, q, &answered);
        ck_assert(same_bits(strtod(buf, NULL), d)); /* 17 digits after the point: exact */
    }
    for (long q = 0; q <= 23; q++) {
        uint64_t p5 = 1;
        for (long k = 0; k < q; k++)
            p5 *= 5;
        for (int t = 0; t < 2000; t++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            /* a odd, a 5^q of exactly 54 bits: halfway between two doubles */
            uint64_t lo = ((UINT64_C(1) << 53) + p5 - 1) / p5, hi = (UINT64_C(1) << 54) / p5;
            if (hi <= lo)
                continue;
            uint64_t a = (lo + s % (hi - lo)) | 1;
            if ((unsigned __int128)a * p5 >= (unsigned __int128)1 << 54)
                continue;
            for (int d = -1; d <= 1; d++) {
                uint64_t w = a + (uint64_t)(int64_t)d;
                snprintf(buf, sizeof(buf), "%" PRIu64 "e%ld", w, q);
                expect_el(buf, w, q, &answered);
            }
        }
    }
    /* the table's powers of 5 that fit in 128 bits are 5^q itself, shifted
     * to bit 127 */
    for (long q = 0; q <= 55; q++) {
        unsigned __int128 p = 1;
        for (long k = 0; k < q; k++)
            p *= 5;
        while (!(p >> 127))
            p <<= 1;
        ck_assert(data_pow5[q - DATA_POW5_MIN][0] == (uint64_t)(p >> 64));
        ck_assert(data_pow5[q - DATA_POW5_MIN][1] == (uint64_t)p);
    }
    /* the ends of its table, 19 nines, and past them */
    const uint64_t ws[] = {1,
                           9,
                           UINT64_C(9999999999999999999),
                           UINT64_C(9007199254740993),
                           UINT64_C(18014398509481985),
                           UINT64_C(1234567890123456789)};
    for (size_t i = 0; i < PTM_ARRAY_LEN(ws); i++)
        for (long q = -66; q <= 66; q++) {
            snprintf(buf, sizeof(buf), "%" PRIu64 "e%ld", ws[i], q);
            expect_el(buf, ws[i], q, &answered);
        }
#endif
}
END_TEST

START_TEST(test_put_num)
{
    /* Outputs write numbers with ptm_fput_num: the text of "%.17g" for
     * whole numbers (its own digits) and any other value, and that text
     * reads back to the same bits. */
    static const double edge[] = {0.0, -0.0, 1, -1, 9, 10, 99, 100, -12345, 1e15, -1e15,
                                  9007199254740991.0, -9007199254740991.0, 9007199254740992.0,
                                  9007199254740994.0, 1e16, 1e17, 1e300, -1e300, 0.5, -0.5,
                                  0.1, 1.0000000000000002, 4294967296.0, 2147483648.0,
                                  5e-324, 2.5e-308, 123456789012345.0};
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    double v[4096];
    size_t n = 0;
    for (size_t i = 0; i < PTM_ARRAY_LEN(edge); i++)
        v[n++] = edge[i];
    uint64_t s = 0x2545f4914f6cdd1du;
    while (n < PTM_ARRAY_LEN(v)) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int kind = (int)(s % 4);
        uint64_t u = s >> 8;
        double x = kind == 0 ? (double)(u % 1000)               /* small counts */
                   : kind == 1 ? (double)(int64_t)(u >> 2) - 1e15 /* large, both signs */
                   : kind == 2 ? ldexp((double)(u >> 11), -(int)(s % 60)) /* fractions */
                               : (double)(u % 2000000) / 7.0;
        v[n++] = x;
    }
    for (size_t i = 0; i < n; i++)
        ptm_fput_num(f, v[i], i % 3 == 2 ? '\n' : '\t');
    rewind(f);
    for (size_t i = 0; i < n; i++) {
        char want[64], got[64];
        snprintf(want, sizeof(want), "%.17g%c", v[i], i % 3 == 2 ? '\n' : '\t');
        size_t len = strlen(want);
        ck_assert_uint_eq(fread(got, 1, len, f), len);
        got[len] = '\0';
        ck_assert_msg(strcmp(got, want) == 0, "%.17g: wrote '%s'", v[i], got);
        ck_assert(same_bits(strtod(got, NULL), v[i]));
    }
    ck_assert_int_eq(fgetc(f), EOF);
    fclose(f);
}
END_TEST

/* A column view of 2^20 non-zeros and more, whose column sums
 * ptm_csc_colsums() takes by threads: 1, 2 and 3 of them give the same
 * bits, each a sum in row order computed here. */
START_TEST(test_colsums_threads)
{
    int64_t n = 300, d = 4000; /* 1.2 M entries: every one */
    struct ptm_csc c = {.nrows = n, .ncols = d, .nnz = n * d};
    c.colptr = malloc((size_t)(d + 1) * sizeof(*c.colptr));
    c.rowind = malloc((size_t)(n * d) * sizeof(*c.rowind));
    c.val = malloc((size_t)(n * d) * sizeof(*c.val));
    double *sq = malloc((size_t)d * sizeof(*sq)), *sum = malloc((size_t)d * sizeof(*sum));
    ck_assert(c.colptr && c.rowind && c.val && sq && sum);
    uint64_t x = 88172645463325252u;
    for (int64_t j = 0; j <= d; j++)
        c.colptr[j] = j * n;
    for (int64_t k = 0; k < n * d; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c.rowind[k] = (int32_t)(k % n);
        c.val[k] = (double)(x >> 11) / 9007199254740992.0 - 0.3;
    }
    for (int threads = 1; threads <= 3; threads++) {
        for (int64_t j = 0; j < d; j++)
            sq[j] = sum[j] = NAN;
        ptm_csc_colsums(&c, threads, sq, threads == 2 ? NULL : sum);
        for (int64_t j = 0; j < d; j++) {
            double a = 0, b = 0;
            for (int64_t k = c.colptr[j]; k < c.colptr[j + 1]; k++) {
                a += c.val[k] * c.val[k];
                b += c.val[k];
            }
            EXPECT(same_bits(sq[j], a));
            EXPECT(threads == 2 ? isnan(sum[j]) : same_bits(sum[j], b));
        }
    }
    free(c.colptr);
    free(c.rowind);
    free(c.val);
    free(sq);
    free(sum);
}
END_TEST

/* ---- conversions and sharding ------------------------------------------- */

START_TEST(test_convert)
{
    /* dense -> CSR -> dense, and CSR -> CSC of an empty matrix. */
    double v[] = {0, 1, 0, /**/ 2, 0, 3, /**/ 0, 0, 0, /**/ -0.0, 0, 4};
    struct ptm_dense a = {4, 3, v}, back;
    struct ptm_csr c;
    ck_assert_int_eq(ptm_dense_to_csr(&a, &c), 0);
    check_csr(&c);
    ck_assert_int_eq(c.nnz, 4);
    ck_assert_int_eq(ptm_csr_to_dense(&c, &back), 0);
    for (int k = 0; k < 12; k++)
        ck_assert(back.val[k] == v[k]);
    ptm_dense_release(&back);
    ptm_csr_release(&c);
    struct ptm_dense empty = {0, 0, NULL};
    ck_assert_int_eq(ptm_dense_to_csr(&empty, &c), 0);
    struct ptm_csc t;
    ck_assert_int_eq(ptm_csr_to_csc(&c, &t), 0);
    ck_assert_int_eq(t.nnz, 0);
    ck_assert_int_eq(t.colptr[0], 0);
    ptm_csc_release(&t);
    ptm_csr_release(&c);
    int64_t rp[1] = {0};
    struct ptm_csr huge = {INT64_C(1) << 40, INT64_C(1) << 40, 0, rp, NULL, NULL};
    ck_assert_int_eq(ptm_csr_to_dense(&huge, &back), PTM_ETOOBIG);
}
END_TEST

struct shard_row {
    int64_t nrows;
    const int64_t *rownnz; /* NULL: random */
    uint64_t seed;
};

#define NNZ(...) ((const int64_t[]){__VA_ARGS__})
static const struct shard_row shard_rows[] = {
    {5, NNZ(1, 1, 1, 1, 1), 0},
    {6, NNZ(0, 0, 0, 0, 0, 0), 0},
    {4, NNZ(100, 1, 1, 1), 0},
    {4, NNZ(1, 1, 1, 100), 0},
    {7, NNZ(0, 5, 0, 0, 9, 0, 0), 0},
    {1, NNZ(42), 0},
    {0, NNZ(0), 0},
    {3, NNZ(3, 2000000000000, 7), 0},
    {1000, NULL, 1},
    {1000, NULL, 2},
    {517, NULL, 3},
    {33, NULL, 4},
};

START_TEST(test_shard)
{
    const struct shard_row *r = &shard_rows[_i];
    int64_t *rowptr = malloc((size_t)(r->nrows + 1) * sizeof(*rowptr)), maxrow = 0;
    uint64_t s = r->seed * 0x9e3779b97f4a7c15u + 1;
    rowptr[0] = 0;
    for (int64_t i = 0; i < r->nrows; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int64_t k = r->rownnz ? r->rownnz[i] : (s % 8 == 0 ? 0 : (int64_t)(s % 1000));
        if (!r->rownnz && s % 97 == 0)
            k = 50000; /* a heavy row now and then */
        rowptr[i + 1] = rowptr[i] + k;
        if (k > maxrow)
            maxrow = k;
    }
    int64_t nnz = rowptr[r->nrows];
    for (int P = 1; P <= 9; P++) {
        int64_t bounds[10], even[10];
        ptm_shard_by_nnz(rowptr, r->nrows, P, bounds);
        ptm_shard_even(r->nrows, P, even);
        ck_assert_int_eq(bounds[0], 0);
        ck_assert_int_eq(bounds[P], r->nrows);
        ck_assert_int_eq(even[0], 0);
        ck_assert_int_eq(even[P], r->nrows);
        for (int p = 0; p < P; p++) {
            ck_assert_int_le(bounds[p], bounds[p + 1]);
            int64_t q = r->nrows / P;
            ck_assert_int_eq(even[p + 1] - even[p], q + (p < r->nrows % P));
            if (nnz == 0)
                continue;
            /* |shard nnz - nnz / P| <= the nnz of the largest row, exactly:
             * |P * shard - nnz| <= P * maxrow. */
            double shard = (double)(rowptr[bounds[p + 1]] - rowptr[bounds[p]]);
            double dev = fabs(shard * P - (double)nnz);
            ck_assert_msg(dev <= (double)maxrow * P, "P %d shard %d: %g nnz, ideal %g", P, p, shard,
                          (double)nnz / P);
        }
        /* blocks for a rotation: never empty when there are enough items,
         * and off the balanced cut only where it had an empty block */
        int64_t cut[10];
        ptm_cut_blocks(rowptr, r->nrows, P, cut);
        ck_assert_int_eq(cut[0], 0);
        ck_assert_int_eq(cut[P], r->nrows);
        bool empty = false;
        for (int p = 0; p < P; p++)
            empty |= bounds[p + 1] == bounds[p];
        for (int p = 0; p < P; p++) {
            if (r->nrows >= P)
                ck_assert_int_lt(cut[p], cut[p + 1]);
            else
                ck_assert_int_le(cut[p], cut[p + 1]);
            if (!empty || r->nrows < P)
                ck_assert_int_eq(cut[p + 1], bounds[p + 1]);
        }
    }
    free(rowptr);
}
END_TEST

/* ---- allocation failure ------------------------------------------------- */

/* Fail the nth allocation and all later ones, for n = 1, 2, ... until a
 * read makes fewer than n: each failure is a clean PTM_ENOMEM with nothing
 * returned (ASan finds leaks), or, when only shrinking an array to its
 * final size failed, the right data. */
START_TEST(test_fault)
{
    const struct accept_row *r = &accept_rows[_i];
    unsigned long n;
    for (n = 1;; n++) {
        struct ptm_dataset *ds = (struct ptm_dataset *)1;
        const struct ptm_csc *c = NULL;
        struct ptm_data_opts o;
        set_opts(&o, r->in.fmt, r->in.flags);
        o.chunk = 4;
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        ptm_fault_inject(n);
        int rc = ptm_data_read_mem(r->in.in, r->in.inlen, "in", r->in.vocab, r->in.vlen, "v", &o,
                                   &dg, &ds);
        if (rc == 0 && ds->sparse)
            rc = ptm_dataset_csc(ds, &c);
        unsigned long calls = ptm_fault_inject(0);
        ptm_data_diags_release(&dg);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            check_accept(r, ds);
            ptm_dataset_free(ds);
            break;
        }
        if (rc == 0) { /* only shrinking an array failed: harmless */
            check_accept(r, ds);
            ptm_dataset_free(ds);
            continue;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "%s: allocation %lu failed: rc %d", r->what, n, rc);
        if (ds)
            ptm_dataset_free(ds); /* the CSC failed: the data set is still whole */
    }
    ck_assert_uint_ge(n, 3);
}
END_TEST

/* ---- parameter values (read_values.c) ----------------------------------- */

struct values_row {
    const char *in;
    size_t inlen;
    bool integer;
    int64_t lo, hi, cols;  /* the rows kept; the columns wanted (0: any) */
    int rc;                /* 0 or PTM_EDATA */
    int64_t rows, ncols;   /* what the file holds */
    const double *val;     /* the rows kept, row-major; NULL: none */
    const char *msgs;      /* every message, joined by newlines */
};

/* clang-format off */
static const double v_all[] = {1, 2.5, -3, 4e-300, 0.1, 6};
static const double v_mid[] = {-3, 4e-300};
static const struct values_row values_rows[] = {
    /* as outputs.c writes: tabs, %.17g, a row a line */
    {LIT("1\t2.5\n-3\t4.0000000000000001e-300\n0.10000000000000001\t6\n"), false, 0, 3, 2,
     0, 3, 2, v_all, ""},
    /* spaces, CRLF, no final newline; a shard's rows */
    {LIT("1  2.5\r\n -3 4e-300 \r\n0.1\t 6"), false, 1, 2, 2, 0, 3, 2, v_mid, ""},
    /* a vector */
    {LIT("1\n2.5\n-3\n"), true, 0, 3, 1, PTM_EDATA, 3, 1, NULL,
     "v.tsv:2:1: error: value '2.5' is not a whole number (the parameter is declared int)"},
    {LIT("7\n-8\n"), true, 0, 2, 1, 0, 2, 1, (const double[]){7, -8}, ""},
    /* another width than wanted: counted, nothing kept */
    {LIT("1\t2\n3\t4\n"), false, 0, 2, 3, 0, 2, 2, NULL, ""},
    {LIT(""), false, 0, 5, 1, 0, 0, 0, NULL, ""},
    /* bad values and lines */
    {LIT("1\t2\n3\tx4\n"), false, 0, 2, 2, PTM_EDATA, 2, 2, NULL,
     "v.tsv:2:3: error: bad value 'x4'"},
    {LIT("1\nnan\n-inf\n1e999\n"), false, 0, 4, 1, PTM_EDATA, 4, 1, NULL,
     "v.tsv:2:1: error: value 'nan' is not a finite number\n"
     "v.tsv:3:1: error: value '-inf' is not a finite number\n"
     "v.tsv:4:1: error: value '1e999' is out of range"},
    {LIT("1\t2\n3\n4\t5\t6\n"), false, 0, 3, 2, PTM_EDATA, 3, 2, NULL,
     "v.tsv:2: error: 1 value on this line, 2 on line 1\n"
     "v.tsv:3: error: 3 values on this line, 2 on line 1"},
    {LIT("1\n\n2\n"), false, 0, 2, 1, PTM_EDATA, 2, 1, NULL,
     "v.tsv:2: error: blank line: every line is a row of values"},
    {LIT("1\n1e300000000000\n1e17\n"), true, 0, 3, 1, PTM_EDATA, 3, 1, NULL,
     "v.tsv:2:1: error: value '1e300000000000' is out of range\n"
     "v.tsv:3:1: error: value '1e17' is too large for an int (beyond 2^53)"},
    {LIT("1\0002\n"), false, 0, 1, 1, PTM_EDATA, 1, 1, NULL,
     "v.tsv:1:1: error: bad value '1\\x002'"},
};
/* clang-format on */

START_TEST(test_values)
{
    const struct values_row *r = &values_rows[_i];
    write_file("v.tsv", r->in, r->inlen);
    for (int how = 0; how < 3; how++) {
        struct ptm_values_opts o = {
            .integer = r->integer, .lo = r->lo, .hi = r->hi, .cols = r->cols,
            .chunk = how == 2 ? 3 : 0};
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        struct ptm_values v;
        int rc = how == 0 ? ptm_data_read_values("v.tsv", NULL, &o, &dg, &v)
                          : ptm_data_read_values_mem(r->in, r->inlen, "v.tsv", &o, &dg, &v);
        char msgs[4096];
        join_msgs(&dg, msgs, sizeof(msgs));
        if (strcmp(msgs, r->msgs))
            fprintf(stderr, "values row %d (how %d): got\n%s\n", _i, how, msgs);
        ck_assert_str_eq(msgs, r->msgs);
        ck_assert_int_eq(rc, r->rc);
        if (rc == 0) {
            ck_assert_int_eq(v.rows, r->rows);
            ck_assert_int_eq(v.cols, r->ncols);
            int64_t kept = (r->hi < v.rows ? r->hi : v.rows) - r->lo;
            if (r->val) {
                ck_assert_ptr_nonnull(v.val);
                for (int64_t e = 0; e < kept * v.cols; e++)
                    ck_assert_msg(v.val[e] == r->val[e], "row %d: value %lld is %.17g", _i,
                                  (long long)e, v.val[e]);
            } else {
                ck_assert_ptr_null(v.val);
            }
        } else {
            ck_assert_ptr_null(v.val);
        }
        ptm_free(v.val);
        ptm_data_diags_release(&dg);
    }
}
END_TEST

START_TEST(test_values_missing)
{
    struct ptm_values_opts o = {.hi = 1};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_values v;
    ck_assert_int_eq(ptm_data_read_values("nope.tsv", NULL, &o, &dg, &v), PTM_ENOENT);
    char msgs[256];
    join_msgs(&dg, msgs, sizeof(msgs));
    ck_assert_str_eq(msgs, "nope.tsv: error: cannot open: No such file or directory");
    ck_assert_ptr_null(v.val);
    ptm_data_diags_release(&dg);
}
END_TEST

/* ---- the suite ---------------------------------------------------------- */

#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))




/* csv_label: the label column by its header name, anywhere in the row. */
START_TEST(test_csv_label_column)
{
    static const char text[] = "a,price,b\n1,10,2\n3,30,4\n";
    struct ptm_data_opts o;
    set_opts(&o, PLAN_FORMAT_CSV, F_DENSE);
    o.csv_labels = true;
    o.csv_label = "price";
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds = NULL;
    ck_assert_int_eq(ptm_data_read_mem(text, sizeof(text) - 1, "t.csv", NULL, 0, NULL, &o, &dg, &ds), 0);
    ck_assert_int_eq(ds->dense.nrows, 2);
    ck_assert_int_eq(ds->dense.ncols, 2);
    ck_assert(ds->has_labels && ds->labels.n == 2);
    ck_assert(ds->labels.val[0] == 10 && ds->labels.val[1] == 30);
    ck_assert(ds->dense.val[0] == 1 && ds->dense.val[1] == 2 && ds->dense.val[2] == 3 &&
              ds->dense.val[3] == 4);
    ck_assert_int_eq(ds->names.n, 3);
    ptm_dataset_free(ds);
    o.csv_label = "prize";
    ck_assert_int_eq(ptm_data_read_mem(text, sizeof(text) - 1, "t.csv", NULL, 0, NULL, &o, &dg, &ds), PTM_EDATA);
    ck_assert_str_eq(dg.msg[0].text,
                     "t.csv:1: error: no column 'prize' in the header (it has 'a', 'price', 'b')");
    ptm_data_diags_release(&dg);
    ptm_data_diags_init(&dg);
    o.csv_label = "price";
    ck_assert_int_eq(ptm_data_read_mem("1,2\n3,4\n", 8, "n.csv", NULL, 0, NULL, &o, &dg, &ds), PTM_EDATA);
    ck_assert_str_eq(dg.msg[0].text,
                     "n.csv:1: error: the label column 'price' is named, but the file has no header line");
    ptm_data_diags_release(&dg);
}
END_TEST

static Suite *data_suite(void)
{
    Suite *s = suite_create("data");
    TCase *tc;

    tc = tcase_create("accept");
    add_rows(tc, test_accept, accept_rows);
    add_rows(tc, test_csc, accept_rows);
    tcase_add_test(tc, test_long_lines);
    tcase_add_test(tc, test_mm_random);
    tcase_add_test(tc, test_colsums_threads);
    tcase_add_test(tc, test_eisel_lemire);
    suite_add_tcase(s, tc);

    tc = tcase_create("reject");
    add_rows(tc, test_reject, reject_rows);
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_print);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    add_rows(tc, test_values, values_rows);
    tcase_add_test(tc, test_values_missing);
    suite_add_tcase(s, tc);

    tc = tcase_create("range");
    tcase_set_timeout(tc, 60);
    add_rows(tc, test_range, accept_rows);
    tcase_add_test(tc, test_range_lines);
    suite_add_tcase(s, tc);

    tc = tcase_create("numbers");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_numbers);
    tcase_add_loop_test(tc, test_numbers_random, 0, 4);
    tcase_add_test(tc, test_put_num);
    suite_add_tcase(s, tc);

    tc = tcase_create("label column");
    tcase_add_test(tc, test_csv_label_column);
    suite_add_tcase(s, tc);

    tc = tcase_create("matrices");
    tcase_add_test(tc, test_convert);
    add_rows(tc, test_shard, shard_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_set_timeout(tc, 30);
    add_rows(tc, test_fault, accept_rows);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-data.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_data: temporary directory");
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(data_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
