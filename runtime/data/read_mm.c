/*
 * read_mm.c - MatrixMarket coordinate files.
 *
 *   file    := header comment* size entry*
 *   header  := "%%MatrixMarket" "matrix" "coordinate" field symmetry
 *   field   := "real" | "integer" | "pattern"       (any case)
 *   symmetry:= "general" | "symmetric"
 *   comment := "%" anything | blank                 (also between entries)
 *   size    := rows cols entries
 *   entry   := row col [value]                      (1-based; no value for pattern)
 *
 * Entries may come in any order: they are collected with their line
 * numbers and counting-sorted into CSR (data_coo_to_csr), which also finds
 * duplicates. A symmetric file holds the lower triangle; each entry off the
 * diagonal is also stored mirrored.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "data_impl.h"
#include "ptm.h"

enum field { F_REAL, F_INTEGER, F_PATTERN };

struct header {
    enum field field;
    bool symmetric;
    int64_t rows, cols, nnz;
    int64_t size_line; /* line of the size line */
};

static bool word_is(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e - s) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return false;
    }
    return true;
}

/* header := "%%MatrixMarket" "matrix" "coordinate" field symmetry
 * Returns false (reported) when the file cannot be read on. */
static bool parse_banner(struct data_rd *rd, char *line, size_t n, struct header *h)
{
    char *p = line, *e = line + n, *t;
    static const char *const expected =
        "expected '%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric'";
    char *s = data_next_token(&p, e, &t);
    if (s != line || !word_is(s, t, "%%matrixmarket")) {
        data_error(rd, 1, 1, "%s", expected);
        return false;
    }
    char *w[4], *we[4];
    for (int i = 0; i < 4; i++) {
        w[i] = data_next_token(&p, e, &we[i]);
        if (w[i] == we[i]) {
            data_error(rd, 1, 0, "incomplete header: %s", expected);
            return false;
        }
    }
    int64_t col[4];
    for (int i = 0; i < 4; i++)
        col[i] = w[i] - line + 1;
    if (!word_is(w[0], we[0], "matrix")) {
        data_error(rd, 1, col[0], "unsupported object '%s' (only 'matrix')",
                   data_quote(rd, 0, w[0], (size_t)(we[0] - w[0])));
        return false;
    }
    if (word_is(w[1], we[1], "array")) {
        data_error(rd, 1, col[1],
                   "'array' (dense) MatrixMarket files are not supported, only 'coordinate'");
        return false;
    }
    if (!word_is(w[1], we[1], "coordinate")) {
        data_error(rd, 1, col[1], "unknown format '%s' (expected 'coordinate')",
                   data_quote(rd, 0, w[1], (size_t)(we[1] - w[1])));
        return false;
    }
    if (word_is(w[2], we[2], "real"))
        h->field = F_REAL;
    else if (word_is(w[2], we[2], "integer"))
        h->field = F_INTEGER;
    else if (word_is(w[2], we[2], "pattern"))
        h->field = F_PATTERN;
    else {
        data_error(rd, 1, col[2], "unsupported field '%s' (real, integer or pattern)",
                   data_quote(rd, 0, w[2], (size_t)(we[2] - w[2])));
        return false;
    }
    if (word_is(w[3], we[3], "general"))
        h->symmetric = false;
    else if (word_is(w[3], we[3], "symmetric"))
        h->symmetric = true;
    else {
        data_error(rd, 1, col[3], "unsupported symmetry '%s' (general or symmetric)",
                   data_quote(rd, 0, w[3], (size_t)(we[3] - w[3])));
        return false;
    }
    char *x = data_next_token(&p, e, &t);
    if (x != t) {
        data_error(rd, 1, x - line + 1, "unexpected '%s' after the header",
                   data_quote(rd, 0, x, (size_t)(t - x)));
        return false;
    }
    return true;
}

/* size := rows cols entries */
static bool parse_size(struct data_rd *rd, char *line, size_t n, struct header *h)
{
    char *p = line, *e = line + n, *t;
    int64_t ln = rd->in.lineno;
    int nf = data_count_fields(line, e);
    if (nf != 3) {
        data_error(rd, ln, 0, "size line has %d field%s, expected 3: 'rows columns entries'", nf,
                   nf == 1 ? "" : "s");
        return false;
    }
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        char *s = data_next_token(&p, e, &t);
        if (data_scan_uint(s, &v[i]) != t || s == t) {
            data_error(rd, ln, s - line + 1, "bad size '%s' (expected 'rows columns entries')",
                       data_quote(rd, 0, s, (size_t)(t - s)));
            return false;
        }
        if (i < 2 && v[i] > (uint64_t)rd->max_dim) {
            data_error(rd, ln, s - line + 1, "too many %s '%s' (largest is %" PRId64 ")",
                       i ? "columns" : "rows", data_quote(rd, 0, s, (size_t)(t - s)), rd->max_dim);
            return false;
        }
    }
    h->rows = (int64_t)v[0];
    h->cols = (int64_t)v[1];
    h->size_line = ln;
    if (h->symmetric && h->rows != h->cols) {
        data_error(rd, ln, 0,
                   "a symmetric matrix must be square, the size is %" PRId64 " x %" PRId64, h->rows,
                   h->cols);
        return false;
    }
    uint64_t cells = (uint64_t)h->rows * (uint64_t)h->cols;
    if (h->symmetric)
        cells = (uint64_t)h->rows * ((uint64_t)h->rows + 1) / 2;
    if (v[2] > cells) {
        data_error(rd, ln, 0,
                   "%" PRIu64 " entries do not fit in a %s%" PRId64 " x %" PRId64 " matrix", v[2],
                   h->symmetric ? "symmetric " : "", h->rows, h->cols);
        return false;
    }
    h->nnz = (int64_t)v[2];
    return true;
}

/* entry := row col [value], token by token with a message for what is
 * wrong; returns 1 with the entry, 0 when bad (reported). */
static int parse_entry_slow(struct data_rd *rd, const struct header *h, char *line, size_t n,
                            int64_t *r, int64_t *c, double *v)
{
    char *p = line, *e = line + n;
    int want = h->field == F_PATTERN ? 2 : 3;
    int nf = data_count_fields(line, e);
    if (nf != want) {
        data_error(rd, rd->in.lineno, 0, "expected %d fields '%s', found %d", want,
                   want == 2 ? "row column" : "row column value", nf);
        return 0;
    }
    if ((*r = data_scan_index(rd, line, &p, e, h->rows, "row")) < 0 ||
        (*c = data_scan_index(rd, line, &p, e, h->cols, "column")) < 0)
        return 0;
    *v = 1;
    if (h->field != F_PATTERN) {
        char *t, *s = data_next_token(&p, e, &t);
        if (h->field == F_INTEGER) {
            char *d = s + (*s == '-' || *s == '+');
            uint64_t u;
            if (data_scan_uint(d, &u) != t || d == t) {
                data_error(rd, rd->in.lineno, s - line + 1, "bad integer '%s'",
                           data_quote(rd, 0, s, (size_t)(t - s)));
                return 0;
            }
            if (u > (UINT64_C(1) << 53)) {
                data_error(rd, rd->in.lineno, s - line + 1,
                           "integer '%s' is too large (beyond 2^53)",
                           data_quote(rd, 0, s, (size_t)(t - s)));
                return 0;
            }
            *v = *s == '-' ? -(double)u : (double)u;
        } else {
            char *ne = data_scan_double(s, v);
            if (ne != t || !isfinite(*v) || (rd->o->integer && !data_is_whole(*v))) {
                data_check_value(rd, rd->in.lineno, line, s, t, ne, *v, rd->o->integer, "value");
                return 0;
            }
        }
    }
    if (h->symmetric && *c > *r) {
        data_error(rd, rd->in.lineno, 0,
                   "entry (%" PRId64 ", %" PRId64 ") above the diagonal of a symmetric matrix", *r,
                   *c);
        return 0;
    }
    return 1;
}

/* entry := row col [value]: the common case in one pass, anything unusual
 * (including every error) by parse_entry_slow(). */
static int parse_entry(struct data_rd *rd, const struct header *h, char *line, size_t n, int64_t *r,
                       int64_t *c, double *v)
{
    char *p = line, *e = line + n, *s;
    uint64_t ur, uc;
    while (data_isspace(*p))
        p++;
    p = data_scan_uint(s = p, &ur);
    if (p == s || !data_isspace(*p))
        goto slow;
    while (data_isspace(*p))
        p++;
    p = data_scan_uint(s = p, &uc);
    if (p == s || !data_is_delim(p, e, ' '))
        goto slow;
    *v = 1;
    if (h->field != F_PATTERN) {
        while (data_isspace(*p))
            p++;
        s = p;
        if (h->field == F_INTEGER) {
            char *d = s + (*s == '-' || *s == '+');
            uint64_t u;
            p = data_scan_uint(d, &u);
            if (p == d || u > (UINT64_C(1) << 53))
                goto slow;
            *v = *s == '-' ? -(double)u : (double)u;
        } else {
            p = data_scan_double(s, v);
            if (p == s || !isfinite(*v) || (rd->o->integer && !data_is_whole(*v)))
                goto slow;
        }
    }
    while (data_isspace(*p))
        p++;
    if (p != e || ur == 0 || ur > (uint64_t)h->rows || uc == 0 || uc > (uint64_t)h->cols ||
        (h->symmetric && uc > ur))
        goto slow;
    *r = (int64_t)ur;
    *c = (int64_t)uc;
    return 1;
slow:
    return parse_entry_slow(rd, h, line, n, r, c, v);
}

static bool is_comment(const char *line, const char *e)
{
    while (line < e && data_isspace(*line))
        line++;
    return line == e || *line == '%';
}

int data_read_mm(struct data_rd *rd, struct ptm_dataset *ds)
{
    struct data_coo coo;
    memset(&coo, 0, sizeof(coo));
    struct header h;
    memset(&h, 0, sizeof(h));
    char *line;
    size_t n;
    int rc = data_next_line(rd, &line, &n);
    if (rc <= 0) {
        if (rc == 0 && !rd->nerrors)
            data_error(rd, 0, 0, "empty file");
        return rc;
    }
    if (rd->nerrors || !parse_banner(rd, line, n, &h)) /* a too-long line 1, or bad */
        return 0;
    while ((rc = data_next_line(rd, &line, &n)) == 1 && is_comment(line, line + n))
        ;
    if (rc <= 0) {
        if (rc == 0 && !rd->stop)
            data_error(rd, rd->in.lineno, 0, "file ends before the size line");
        return rc;
    }
    if (!parse_size(rd, line, n, &h))
        return 0;
    ds->declared_nnz = h.nnz;
    ds->pattern = h.field == F_PATTERN;
    coo.hint = h.symmetric ? 2 * h.nnz : h.nnz;

    rc = data_range_start(rd);
    int64_t nread = 0;
    bool too_many = false;
    while (!rc && (rc = data_next_line(rd, &line, &n)) == 1) {
        rc = 0;
        if (is_comment(line, line + n))
            continue;
        if (++nread > h.nnz) {
            if (!too_many)
                data_error(rd, rd->in.lineno, 0,
                           "more entries than the %" PRId64 " declared on line %" PRId64, h.nnz,
                           h.size_line);
            too_many = true;
            continue;
        }
        int64_t r, c;
        double v;
        if (!parse_entry(rd, &h, line, n, &r, &c, &v))
            continue;
        rc = data_coo_push(&coo, (int32_t)(r - 1), (int32_t)(c - 1), v, rd->in.lineno);
        if (!rc && h.symmetric && r != c)
            rc = data_coo_push(&coo, (int32_t)(c - 1), (int32_t)(r - 1), v, rd->in.lineno);
    }
    if (rc)
        goto out_free;
    if (!rd->nerrors && nread < h.nnz && data_read_whole(rd))
        data_error(rd, rd->in.lineno, 0,
                   "file ends after %" PRId64 " of the %" PRId64
                   " entries declared on line %" PRId64 " (truncated?)",
                   nread, h.nnz, h.size_line);
    if (rd->nerrors)
        goto out_free;
    rc = data_coo_to_csr(rd, &coo, h.rows, h.cols, h.symmetric, &ds->csr);
    if (rc == PTM_EDATA)
        rc = 0; /* reported */
    ds->sparse = true;
    return rc;

out_free:
    data_coo_release(&coo);
    return rc;
}
