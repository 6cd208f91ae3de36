/*
 * read_uci.c - UCI bag-of-words: a docword file and its vocabulary.
 *
 *   docword := D NNZ-line W-line entry*     (one number on each of lines 1-3:
 *                                            documents D, words W, entries NNZ)
 *   entry   := doc word count                (1-based; count a positive integer)
 *   vocab   := word*                         (one per line; line k names word k)
 *
 * Blank lines may appear between entries. Entries come in any order and
 * are counting-sorted into a D x W CSR matrix of counts, as in read_mm.c.
 * The vocabulary must have exactly W non-empty lines.
 */
#include <inttypes.h>
#include <string.h>

#include "data_impl.h"
#include "ptm.h"

struct header {
    int64_t docs, words, nnz;
};

static const char *const header_name[3] = {"documents D", "words W", "entries NNZ"};

/* Line i (0, 1, 2) of the header: one number. */
static bool parse_header_line(struct data_rd *rd, int i, char *line, size_t n, uint64_t *v)
{
    char *p = line, *e = line + n;
    while (data_isspace(*p))
        p++;
    char *s = p;
    p = data_scan_uint(p, v);
    char *t = p;
    while (data_isspace(*p))
        p++;
    if (t == s || p != e) {
        char *te = data_token_end(s, e, ' ');
        data_error(rd, i + 1, s - line + 1, "expected the number of %s, found '%s'", header_name[i],
                   data_quote(rd, 0, s, (size_t)(te - s)));
        return false;
    }
    if (i < 2 && *v > (uint64_t)rd->max_dim) {
        data_error(rd, i + 1, s - line + 1, "too many %s '%s' (largest is %" PRId64 ")",
                   i ? "words" : "documents", data_quote(rd, 0, s, (size_t)(t - s)), rd->max_dim);
        return false;
    }
    return true;
}

static bool parse_header(struct data_rd *rd, struct header *h, int *rc)
{
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        char *line;
        size_t n;
        int got = data_next_line(rd, &line, &n);
        *rc = got < 0 ? got : 0;
        if (got < 0 || rd->nerrors) /* a read error, or a too-long line */
            return false;
        if (got == 0) {
            if (rd->in.lineno == 0)
                data_error(rd, 0, 0, "empty file");
            else
                data_error(rd, rd->in.lineno, 0,
                           "file ends in the header (expected D, W and NNZ on lines 1-3)");
            return false;
        }
        if (!parse_header_line(rd, i, line, n, &v[i]))
            return false;
    }
    *rc = 0;
    h->docs = (int64_t)v[0];
    h->words = (int64_t)v[1];
    if (v[2] > (uint64_t)h->docs * (uint64_t)h->words) {
        data_error(rd, 3, 0,
                   "%" PRIu64 " entries do not fit in %" PRId64 " documents x %" PRId64 " words",
                   v[2], h->docs, h->words);
        return false;
    }
    h->nnz = (int64_t)v[2];
    return true;
}

/* entry := doc word count, token by token with a message for what is
 * wrong; returns 1 with the entry, 0 when bad (reported). */
static int parse_entry_slow(struct data_rd *rd, const struct header *h, char *line, size_t n,
                            int64_t *d, int64_t *w, int64_t *count)
{
    char *p = line, *e = line + n;
    int nf = data_count_fields(line, e);
    if (nf != 3) {
        data_error(rd, rd->in.lineno, 0, "expected 3 fields 'doc word count', found %d", nf);
        return 0;
    }
    if ((*d = data_scan_index(rd, line, &p, e, h->docs, "document")) < 0 ||
        (*w = data_scan_index(rd, line, &p, e, h->words, "word")) < 0)
        return 0;
    char *t, *s = data_next_token(&p, e, &t);
    uint64_t v;
    const char *q = data_quote(rd, 0, s, (size_t)(t - s));
    if (data_scan_uint(s, &v) != t || v == 0) {
        data_error(rd, rd->in.lineno, s - line + 1, "bad count '%s' (expected a positive integer)",
                   q);
        return 0;
    }
    if (v > (UINT64_C(1) << 53)) {
        data_error(rd, rd->in.lineno, s - line + 1, "count '%s' is too large (beyond 2^53)", q);
        return 0;
    }
    *count = (int64_t)v;
    return 1;
}

/* entry := doc word count: the common case in one pass, anything unusual
 * (including every error) by parse_entry_slow(). */
static int parse_entry(struct data_rd *rd, const struct header *h, char *line, size_t n, int64_t *d,
                       int64_t *w, int64_t *count)
{
    char *p = line, *e = line + n, *s;
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        while (data_isspace(*p))
            p++;
        p = data_scan_uint(s = p, &v[i]);
        if (p == s || !data_is_delim(p, e, ' '))
            goto slow;
    }
    while (data_isspace(*p))
        p++;
    if (p != e || v[0] == 0 || v[0] > (uint64_t)h->docs || v[1] == 0 || v[1] > (uint64_t)h->words ||
        v[2] == 0 || v[2] > (UINT64_C(1) << 53))
        goto slow;
    *d = (int64_t)v[0];
    *w = (int64_t)v[1];
    *count = (int64_t)v[2];
    return 1;
slow:
    return parse_entry_slow(rd, h, line, n, d, w, count);
}

static bool is_blank(const char *p, const char *e)
{
    while (p < e && data_isspace(*p))
        p++;
    return p == e;
}

/* vocab := word*, exactly h->words lines. */
static int read_vocab(struct data_rd *rd, const struct header *h, struct ptm_words *out)
{
    struct data_lines L;
    struct data_words w;
    memset(&w, 0, sizeof(w));
    const char *name = rd->vocab_name ? rd->vocab_name : "<vocab>";
    int rc = data_lines_open(&L, rd->vocab_f, rd->vocab_mem, rd->vocab_mem ? rd->vocab_len : 0,
                             rd->o->chunk, rd->o->line_max);
    if (rc)
        return rc;
    bool too_many = false;
    while (!rd->stop) {
        char *line;
        size_t n;
        rc = data_lines_next(&L, &line, &n);
        if (rc == DATA_LINE_END || rc < 0)
            break;
        if (rc == DATA_LINE_TOO_LONG) {
            rc = 0;
            data_error_in(rd, name, L.lineno, 0, "line longer than %zu bytes", L.line_max);
            continue;
        }
        rc = 0;
        if (L.lineno > h->words) {
            if (!too_many)
                data_error_in(rd, name, L.lineno, 0,
                              "more words than the %" PRId64 " of %s (W on line 2)", h->words,
                              rd->name);
            too_many = true;
            continue;
        }
        if (n == 0) {
            data_error_in(rd, name, L.lineno, 0, "empty word");
            continue;
        }
        if (memchr(line, '\0', n)) {
            data_error_in(rd, name, L.lineno, (int64_t)strlen(line) + 1, "NUL byte in a word");
            continue;
        }
        if (!rd->nerrors && (rc = data_words_add(&w, line, n)) != 0)
            break;
    }
    if (rc == PTM_EIO)
        data_error_in(rd, name, 0, 0, "read error: %s", strerror(L.ioerr));
    if (!rc && !rd->stop && L.lineno < h->words)
        data_error_in(rd, name, 0, 0,
                      "%" PRId64 " words, but %s declares W = %" PRId64 " on line 2", L.lineno,
                      rd->name, h->words);
    data_lines_close(&L);
    if (rc || rd->nerrors) {
        data_words_release(&w);
        return rc;
    }
    return data_words_finish(&w, out);
}

int data_read_uci(struct data_rd *rd, struct ptm_dataset *ds)
{
    struct data_coo coo;
    memset(&coo, 0, sizeof(coo));
    struct header h;
    int rc;
    if (!parse_header(rd, &h, &rc))
        return rc;
    ds->declared_nnz = h.nnz;
    coo.hint = h.nnz;

    rc = data_range_start(rd);
    char *line;
    size_t n;
    int64_t nread = 0;
    bool too_many = false;
    while (!rc && (rc = data_next_line(rd, &line, &n)) == 1) {
        rc = 0;
        if (is_blank(line, line + n))
            continue;
        if (++nread > h.nnz) {
            if (!too_many)
                data_error(rd, rd->in.lineno, 0,
                           "more entries than the %" PRId64 " declared on line 3", h.nnz);
            too_many = true;
            continue;
        }
        int64_t d, w, count;
        if (parse_entry(rd, &h, line, n, &d, &w, &count))
            rc = data_coo_push(&coo, (int32_t)(d - 1), (int32_t)(w - 1), (double)count,
                               rd->in.lineno);
    }
    if (rc)
        goto out_free;
    if (!rd->nerrors && nread < h.nnz && data_read_whole(rd))
        data_error(rd, rd->in.lineno, 0,
                   "file ends after %" PRId64 " of the %" PRId64
                   " entries declared on line 3 (truncated?)",
                   nread, h.nnz);
    if (!rd->stop && (rd->vocab_f || rd->vocab_mem)) {
        rc = read_vocab(rd, &h, &ds->vocab);
        if (rc)
            goto out_free;
    }
    if (rd->nerrors)
        goto out_free;
    rc = data_coo_to_csr(rd, &coo, h.docs, h.words, false, &ds->csr);
    if (rc == PTM_EDATA)
        rc = 0; /* reported */
    ds->sparse = true;
    return rc;

out_free:
    data_coo_release(&coo);
    return rc;
}
