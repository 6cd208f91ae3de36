/*
 * fuzz_data.c - libFuzzer target for the data readers.
 *
 * Input: two option bytes, then the file.
 *   byte 0: bits 0-1 the format (libsvm, mm, uci, csv) unless the
 *           environment variable PTM_FUZZ_FORMAT names one; bit 2 dense
 *           storage; bit 3 declared int; bit 4 csv: label column, uci: the
 *           file is "DOCWORD\0VOCAB"; bit 5 declared vector; bits 6-7 csv
 *           header: auto, yes, no, auto.
 *   byte 1: bits 0-3 chunk size - 1 (tiny reads) unless bit 4 (4 KiB);
 *           bit 5: lines longer than 64 bytes are errors; bits 6-7 with
 *           the input pick the split point of the range check.
 * Sizes are capped (max_dim) so that a header cannot ask for gigabytes.
 *
 * Besides crashes, leaks and undefined behaviour, it aborts when a result
 * breaks the contract: a read that fails returns nothing and reports at
 * least one error; a matrix that is returned is a valid CSR (or dense)
 * within its limits with finite values (whole ones when declared int), and
 * its CSC view holds the same entries; and when the whole file reads
 * cleanly, the ranges [0, k) and [k, n) read cleanly too and together give
 * the same rows (libsvm, csv) or entries (mm, uci). Each finding becomes a
 * row of tests/test_data.c.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "ptm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* GLOBAL: set once from the environment before fuzzing starts. */
static int forced_format = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *f = getenv("PTM_FUZZ_FORMAT");
    static const char *const names[] = {"libsvm", "mm", "uci", "csv"};
    for (int i = 0; f && i < 4; i++)
        if (!strcmp(f, names[i]))
            forced_format = i;
    return 0;
}

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "fuzz_data: %s:%d: broken: %s\n", __FILE__, __LINE__, #c);             \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static const enum plan_format formats[4] = {PLAN_FORMAT_LIBSVM, PLAN_FORMAT_MM, PLAN_FORMAT_UCI,
                                            PLAN_FORMAT_CSV};

struct input {
    const char *text, *vocab;
    size_t len, vlen;
};

static int read_it(const struct input *in, const struct ptm_data_opts *o, bool quiet,
                   struct ptm_dataset **ds)
{
    static FILE *sink; /* GLOBAL: opened once per fuzzing process */
    if (!sink)
        sink = fopen("/dev/null", "w");
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    dg.quiet = quiet;
    int rc = ptm_data_read_mem(in->text, in->len, "in", in->vocab, in->vlen, "vocab", o, &dg, ds);
    CHECK(rc == 0 ? *ds != NULL : *ds == NULL);
    CHECK(rc != PTM_EDATA || dg.nerrors > 0);
    CHECK(rc != 0 || dg.nerrors == 0);
    CHECK(rc == 0 || rc == PTM_EDATA); /* no allocation failures, no bad options here */
    if (!quiet && sink)
        ptm_data_diags_print(sink, &dg, dg.n % 2);
    ptm_data_diags_release(&dg);
    return rc;
}

static void check_matrix(struct ptm_dataset *ds, const struct ptm_data_opts *o)
{
    int64_t rows = ptm_dataset_rows(ds), cols = ptm_dataset_cols(ds);
    CHECK(rows >= 0 && cols >= 0 && cols <= o->max_dim);
    CHECK(!o->vector || cols == 1);
    CHECK(ds->sparse == o->sparse);
    CHECK(!ds->has_labels || ds->labels.n == rows);
    for (int64_t i = 0; i < ds->labels.n; i++)
        CHECK(isfinite(ds->labels.val[i]));
    if (!ds->sparse) {
        for (int64_t k = 0; k < rows * cols; k++) {
            double v = ds->dense.val[k];
            CHECK(isfinite(v) && (!o->integer || v == floor(v)));
        }
        return;
    }
    const struct ptm_csr *a = &ds->csr;
    CHECK(a->rowptr[0] == 0 && a->rowptr[rows] == a->nnz);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            CHECK(a->colind[k] >= 0 && a->colind[k] < cols);
            CHECK(k == a->rowptr[i] || a->colind[k - 1] < a->colind[k]);
            CHECK(isfinite(a->val[k]) && (!o->integer || a->val[k] == floor(a->val[k])));
        }
    const struct ptm_csc *c;
    CHECK(ptm_dataset_csc(ds, &c) == 0);
    CHECK(c->nnz == a->nnz && c->colptr[0] == 0 && c->colptr[cols] == c->nnz);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t k = c->colptr[j]; k < c->colptr[j + 1]; k++) {
            int64_t i = c->rowind[k];
            CHECK(i >= 0 && i < rows);
            CHECK(k == c->colptr[j] || c->rowind[k - 1] < i);
            /* The same entry in the row. */
            int64_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (a->colind[mid] < j)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            CHECK(lo < a->rowptr[i + 1] && a->colind[lo] == j);
            CHECK(memcmp(&a->val[lo], &c->val[k], sizeof(double)) == 0);
        }
}

static bool same_entry(const struct ptm_csr *a, int64_t ka, const struct ptm_csr *b, int64_t kb)
{
    return a->colind[ka] == b->colind[kb] && !memcmp(&a->val[ka], &b->val[kb], sizeof(double));
}

/* [0, k) and [k, n) together are the whole. */
static void check_ranges(const struct input *in, struct ptm_data_opts *o, size_t k,
                         const struct ptm_dataset *whole)
{
    struct ptm_byte_range r[2] = {{0, (int64_t)k}, {(int64_t)k, (int64_t)in->len}};
    struct ptm_dataset *p[2];
    o->chunk = 61;
    for (int h = 0; h < 2; h++) {
        o->range = &r[h];
        CHECK(read_it(in, o, true, &p[h]) == 0);
    }
    o->range = NULL;
    const struct ptm_csr *w = &whole->csr, *a = &p[0]->csr, *b = &p[1]->csr;
    if (o->format == PLAN_FORMAT_LIBSVM || o->format == PLAN_FORMAT_CSV) {
        CHECK(a->nrows + b->nrows == w->nrows);
        CHECK((a->ncols > b->ncols ? a->ncols : b->ncols) == w->ncols ||
              o->format == PLAN_FORMAT_CSV);
        for (int64_t i = 0; i < w->nrows; i++) {
            const struct ptm_csr *s = i < a->nrows ? a : b;
            const struct ptm_dataset *ps = i < a->nrows ? p[0] : p[1];
            int64_t si = i < a->nrows ? i : i - a->nrows;
            CHECK(s->rowptr[si + 1] - s->rowptr[si] == w->rowptr[i + 1] - w->rowptr[i]);
            for (int64_t x = 0; x < w->rowptr[i + 1] - w->rowptr[i]; x++)
                CHECK(same_entry(s, s->rowptr[si] + x, w, w->rowptr[i] + x));
            CHECK(ps->has_labels == whole->has_labels);
            if (whole->has_labels)
                CHECK(!memcmp(&ps->labels.val[si], &whole->labels.val[i], sizeof(double)));
        }
    } else {
        CHECK(a->nrows == w->nrows && b->nrows == w->nrows);
        CHECK(a->ncols == w->ncols && b->ncols == w->ncols);
        CHECK(a->nnz + b->nnz == w->nnz);
        for (int64_t i = 0; i < w->nrows; i++) {
            int64_t ka = a->rowptr[i], kb = b->rowptr[i];
            for (int64_t kw = w->rowptr[i]; kw < w->rowptr[i + 1]; kw++) {
                if (ka < a->rowptr[i + 1] && same_entry(a, ka, w, kw))
                    ka++;
                else if (kb < b->rowptr[i + 1] && same_entry(b, kb, w, kw))
                    kb++;
                else
                    CHECK(!"an entry of the whole is in neither part");
            }
        }
    }
    ptm_dataset_free(p[0]);
    ptm_dataset_free(p[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t b0 = data[0], b1 = data[1];
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.format = formats[forced_format >= 0 ? forced_format : b0 & 3];
    o.sparse = !(b0 & 4);
    o.integer = b0 & 8;
    o.csv_labels = b0 & 16;
    o.vector = b0 & 32;
    o.csv_header = (enum ptm_csv_header)((b0 >> 6) % 3);
    o.chunk = b1 & 16 ? 4096 : (size_t)(b1 & 15) + 1;
    o.line_max = b1 & 32 ? 64 : 0;
    o.max_dim = o.sparse ? 1 << 16 : 1 << 8;

    struct input in = {(const char *)data + 2, NULL, size - 2, 0};
    if (o.format == PLAN_FORMAT_UCI && (b0 & 16)) {
        const char *nul = memchr(in.text, '\0', in.len);
        if (nul) {
            in.vocab = nul + 1;
            in.vlen = in.len - (size_t)(nul - in.text) - 1;
            in.len = (size_t)(nul - in.text);
        } else {
            in.vocab = "";
        }
    }

    struct ptm_dataset *ds;
    int rc = read_it(&in, &o, size % 8 != 0, &ds);
    if (rc)
        return 0;
    check_matrix(ds, &o);
    ptm_dataset_free(ds);

    /* The range check, in CSR and without the vector rule (a part may have
     * no column). */
    o.sparse = true;
    o.vector = false;
    o.max_dim = 1 << 16;
    CHECK(read_it(&in, &o, true, &ds) == 0);
    size_t k = (size_t)(b1 >> 6) * 7919u;
    for (size_t i = 0; i < size && i < 16; i++)
        k = k * 31 + data[i];
    k %= in.len + 1;
    check_ranges(&in, &o, k, ds);
    ptm_dataset_free(ds);
    return 0;
}
