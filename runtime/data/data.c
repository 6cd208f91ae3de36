/*
 * data.c - data sets in memory, and what every reader shares: the error
 * sink, the chunked line reader with byte ranges, number scanning, growable
 * arrays, the COO-to-CSR counting sort, the CSC view, storage conversions,
 * sharding, and the entry points that pick a format.
 *
 * DESIGN: a reader never holds a whole file. data_lines reads chunks
 * (1 MiB by default) into one buffer and hands out each line in place; a
 * line that straddles two chunks is moved to the front of the buffer, which
 * grows only for a line longer than a chunk. Ordered formats (libsvm, csv)
 * append rows as they come. Unordered ones (mm, uci) collect entries with
 * their line numbers and sort them with two stable counting sorts, by
 * column then by row, which leaves the entries of each row in column order
 * and duplicates next to each other, in file order, in O(nnz + rows + cols).
 *
 * Any error means nothing is returned: the readers fill a data set that
 * ptm_data_read() frees unless the read was clean.
 */
#include "data.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "data_impl.h"
#include "pow5.h"
#include "ptm.h"

/* ---- the error sink ----------------------------------------------------- */

void ptm_data_diags_init(struct ptm_data_diags *d)
{
    memset(d, 0, sizeof(*d));
}

void ptm_data_diags_release(struct ptm_data_diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        ptm_free(d->msg[i].text);
    ptm_free(d->msg);
    memset(d, 0, sizeof(*d));
}

void ptm_data_diags_print(FILE *out, const struct ptm_data_diags *d, bool color)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct ptm_data_diag *g = &d->msg[i];
        if (!color) {
            fprintf(out, "%s\n", g->text);
            continue;
        }
        const char *sev = g->note ? "note:" : "error:";
        size_t sevlen = strlen(sev);
        fprintf(out, "\033[1m%.*s\033[0m%s%s\033[0m%s\n", (int)g->where, g->text,
                g->note ? "\033[1;36m" : "\033[1;31m", sev, g->text + g->where + sevlen);
    }
}

/* Store "WHERE: SEV: MESSAGE". Never fails: without memory, ->oom is set. */
static void diags_add(struct ptm_data_diags *d, bool note, const char *where, const char *fmt,
                      va_list ap)
{
    if (!note)
        d->nerrors++;
    if (d->quiet)
        return;
    const char *sev = note ? "note: " : "error: ";
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        d->oom = true;
        return;
    }
    size_t wlen = strlen(where), slen = strlen(sev), len = wlen + slen + (size_t)n;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 8;
        struct ptm_data_diag *m = ptm_realloc(d->msg, cap * sizeof(*m));
        if (!m) {
            d->oom = true;
            return;
        }
        d->msg = m;
        d->cap = cap;
    }
    char *text = ptm_malloc(len + 1);
    if (!text) {
        d->oom = true;
        return;
    }
    memcpy(text, where, wlen);
    memcpy(text + wlen, sev, slen);
    vsnprintf(text + wlen + slen, (size_t)n + 1, fmt, ap);
    d->msg[d->n++] = (struct ptm_data_diag){.text = text, .where = (uint32_t)wlen, .note = note};
}

static void add_note(struct ptm_data_diags *d, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_note(struct ptm_data_diags *d, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diags_add(d, true, where, fmt, ap);
    va_end(ap);
}

void ptm_data_diags_note(struct ptm_data_diags *d, const char *file, const char *fmt, ...)
{
    char where[512];
    snprintf(where, sizeof(where), "%s: ", file);
    va_list ap;
    va_start(ap, fmt);
    diags_add(d, true, where, fmt, ap);
    va_end(ap);
}

static void error_v(struct data_rd *rd, const char *name, int64_t line, int64_t col,
                    const char *fmt, va_list ap)
{
    if (rd->stop)
        return;
    char where[512];
    if (line > 0 && col > 0)
        snprintf(where, sizeof(where), "%s:%" PRId64 ":%" PRId64 ": ", name, line, col);
    else if (line > 0)
        snprintf(where, sizeof(where), "%s:%" PRId64 ": ", name, line);
    else
        snprintf(where, sizeof(where), "%s: ", name);
    diags_add(rd->dg, false, where, fmt, ap);
    if (++rd->nerrors >= PTM_DATA_MAX_ERRORS) {
        rd->stop = true;
        snprintf(where, sizeof(where), "%s: ", name);
        add_note(rd->dg, where, "too many errors, stopped reading");
    }
}

void data_error(struct data_rd *rd, int64_t line, int64_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(rd, rd->name, line, col, fmt, ap);
    va_end(ap);
}

void data_error_in(struct data_rd *rd, const char *name, int64_t line, int64_t col, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(rd, name, line, col, fmt, ap);
    va_end(ap);
}

const char *data_quote(struct data_rd *rd, int slot, const char *s, size_t n)
{
    enum { SHOW = 40 };
    char *q = rd->quote[slot], *e = q + sizeof(rd->quote[slot]) - 8;
    size_t i;
    for (i = 0; i < n && i < SHOW && q < e; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            *q++ = (char)c;
        } else if (c == '\\') {
            *q++ = '\\';
            *q++ = '\\';
        } else {
            snprintf(q, 5, "\\x%02x", c);
            q += 4;
        }
    }
    if (i < n) {
        memcpy(q, "...", 3);
        q += 3;
    }
    *q = '\0';
    return rd->quote[slot];
}

/* ---- lines -------------------------------------------------------------- */

int data_lines_open(struct data_lines *L, FILE *f, const char *mem, size_t memlen, size_t chunk,
                    size_t line_max)
{
    memset(L, 0, sizeof(*L));
    L->f = f;
    L->mem = mem;
    L->memlen = memlen;
    L->chunk = chunk ? chunk : (size_t)1 << 20;
    L->line_max = line_max ? line_max : PTM_DATA_LINE_MAX;
    L->cap = L->chunk + 1;
    L->buf = ptm_malloc(L->cap);
    if (!L->buf)
        return PTM_ENOMEM;
    L->at_line_start = true;
    L->end = INT64_MAX;
    return 0;
}

void data_lines_close(struct data_lines *L)
{
    ptm_free(L->buf);
    L->buf = NULL;
}

/* Read one more chunk after the unread bytes. Returns the bytes read (0 at
 * the end of the input or on a read error, which sets ->eof) or
 * PTM_ENOMEM. */
static int64_t lines_fill(struct data_lines *L)
{
    if (L->pos > 0) {
        memmove(L->buf, L->buf + L->pos, L->len - L->pos);
        L->base += (int64_t)L->pos;
        L->len -= L->pos;
        L->scan -= L->pos;
        L->pos = 0;
    }
    if (L->cap - L->len < L->chunk + 1) {
        size_t cap = L->cap * 2;
        if (cap < L->len + L->chunk + 1)
            cap = L->len + L->chunk + 1;
        char *nb = ptm_realloc(L->buf, cap);
        if (!nb)
            return PTM_ENOMEM;
        L->buf = nb;
        L->cap = cap;
    }
    size_t n;
    if (L->f) {
        n = fread(L->buf + L->len, 1, L->chunk, L->f);
        if (n == 0 && ferror(L->f))
            L->ioerr = errno ? errno : EIO;
    } else {
        n = L->memlen - L->mempos;
        if (n > L->chunk)
            n = L->chunk;
        if (n)
            memcpy(L->buf + L->len, L->mem + L->mempos, n);
        L->mempos += n;
    }
    if (n == 0)
        L->eof = true;
    L->len += n;
    return (int64_t)n;
}

/* Skip the rest of the current line, counting it, to the start of the next
 * (or to the end of the input). */
static int lines_skip_line(struct data_lines *L)
{
    for (;;) {
        char *nl = memchr(L->buf + L->pos, '\n', L->len - L->pos);
        if (nl || L->eof) {
            L->pos = L->scan = nl ? (size_t)(nl - L->buf) + 1 : L->len;
            L->lineno++;
            L->at_line_start = true;
            return L->ioerr ? PTM_EIO : 0;
        }
        L->pos = L->scan = L->len;
        int64_t got = lines_fill(L);
        if (got < 0)
            return (int)got;
    }
}

int data_lines_next(struct data_lines *L, char **line, size_t *n)
{
    for (;;) {
        if (L->pos == L->len && L->eof)
            return L->ioerr ? PTM_EIO : DATA_LINE_END;
        if (L->base + (int64_t)L->pos >= L->end) {
            /* Past the range: was anything left out? */
            if (!L->cut && L->pos == L->len && !L->eof) {
                int64_t got = lines_fill(L);
                if (got < 0)
                    return (int)got;
            }
            L->cut = L->cut || L->pos < L->len;
            return L->ioerr ? PTM_EIO : DATA_LINE_END;
        }
        char *nl = memchr(L->buf + L->scan, '\n', L->len - L->scan);
        size_t stop;
        if (nl) {
            stop = (size_t)(nl - L->buf);
        } else if (L->eof) {
            if (L->ioerr)
                return PTM_EIO;
            stop = L->len; /* the last line has no newline */
        } else if (L->len - L->pos > L->line_max) {
            /* Too long: skip through its newline. */
            L->start = L->base + (int64_t)L->pos;
            int rc = lines_skip_line(L);
            return rc ? rc : DATA_LINE_TOO_LONG;
        } else {
            L->scan = L->len;
            int64_t got = lines_fill(L);
            if (got < 0)
                return (int)got;
            continue;
        }
        size_t len = stop - L->pos;
        L->start = L->base + (int64_t)L->pos;
        L->lineno++;
        L->at_line_start = true;
        if (len > L->line_max) {
            L->pos = L->scan = stop < L->len ? stop + 1 : stop;
            return DATA_LINE_TOO_LONG;
        }
        char *s = L->buf + L->pos;
        if (len > 0 && s[len - 1] == '\r')
            len--;
        /* buf[stop] is the newline, or the spare byte after the data. */
        L->buf[stop] = '\0';
        s[len] = '\0';
        L->pos = L->scan = stop < L->len ? stop + 1 : stop;
        *line = s;
        *n = len;
        return DATA_LINE_OK;
    }
}

/* Count the newlines before offset begin and move to the first line that
 * starts at or after it. */
static int lines_skip_to(struct data_lines *L, int64_t begin)
{
    while (L->base + (int64_t)L->pos < begin) {
        if (L->pos == L->len) {
            if (L->eof)
                return L->ioerr ? PTM_EIO : 0;
            int64_t got = lines_fill(L);
            if (got < 0)
                return (int)got;
            continue;
        }
        int64_t want = begin - L->base;
        size_t stop = want < (int64_t)L->len ? (size_t)want : L->len;
        const char *p = L->buf + L->pos, *e = L->buf + stop;
        while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
            L->lineno++;
            p++;
        }
        L->at_line_start = L->buf[stop - 1] == '\n';
        L->pos = L->scan = stop;
    }
    if (!L->at_line_start)
        return lines_skip_line(L);
    return 0;
}

int data_next_line(struct data_rd *rd, char **line, size_t *n)
{
    for (;;) {
        if (rd->stop)
            return 0;
        int rc = data_lines_next(&rd->in, line, n);
        if (rc == DATA_LINE_OK)
            return 1;
        if (rc == DATA_LINE_END)
            return 0;
        if (rc == DATA_LINE_TOO_LONG) {
            data_error(rd, rd->in.lineno, 0, "line longer than %zu bytes", rd->in.line_max);
            continue;
        }
        if (rc == PTM_EIO)
            data_error(rd, 0, 0, "read error: %s", strerror(rd->in.ioerr));
        return rc;
    }
}

int data_range_start(struct data_rd *rd)
{
    int rc = lines_skip_to(&rd->in, rd->begin);
    if (rc == PTM_EIO)
        data_error(rd, 0, 0, "read error: %s", strerror(rd->in.ioerr));
    rd->in.end = rd->end;
    return rc;
}

bool data_read_whole(const struct data_rd *rd)
{
    return rd->begin == 0 && !rd->in.cut;
}

/* ---- numbers ------------------------------------------------------------ */

const double data_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool data_eisel_lemire(uint64_t w, long q, double *out)
{
#ifdef __SIZEOF_INT128__
    if (w == 0 || q < DATA_POW5_MIN || q > DATA_POW5_MAX)
        return false;
    const uint64_t *c = data_pow5[q - DATA_POW5_MIN];
    int lz = __builtin_clzll(w);
    w <<= lz;
    /* w times the top 64 bits of 5^q; its lower 128 bits too when the
     * bits below the 55 that count are all ones (they could carry) */
    unsigned __int128 pr = (unsigned __int128)w * c[0];
    uint64_t hi = (uint64_t)(pr >> 64), lo = (uint64_t)pr;
    if ((hi & 0x1FF) == 0x1FF) {
        uint64_t add = (uint64_t)(((unsigned __int128)w * c[1]) >> 64);
        lo += add;
        hi += lo < add;
    }
    if (lo == UINT64_MAX)
        return false; /* a carry the 128 bits cannot settle */
    int upper = (int)(hi >> 63), shift = upper + 9;
    uint64_t m = hi >> shift;
    /* the biased binary exponent: floor(log2(10^q)) = (217706 q) >> 16 */
    int64_t e2 = ((INT64_C(217706) * q) >> 16) + 63 + upper - lz + 1023;
    if (e2 <= 0)
        return false; /* subnormal, or 0: strtod says */
    /* exactly halfway (possible only for -4 <= q <= 23, where the product
     * can be exact): to even, not up */
    if (lo <= 1 && q >= -4 && q <= 23 && (m & 3) == 1 && (m << shift) == hi)
        m &= ~UINT64_C(1);
    m += m & 1;
    m >>= 1;
    if (m >= UINT64_C(1) << 53) { /* rounded up to the next power of 2 */
        m = UINT64_C(1) << 52;
        e2++;
    }
    if (e2 >= 2047)
        return false; /* infinite */
    uint64_t bits = (m & ~(UINT64_C(1) << 52)) | (uint64_t)e2 << 52;
    memcpy(out, &bits, sizeof(bits));
    return true;
#else
    (void)w;
    (void)q;
    (void)out;
    return false;
#endif
}

double data_strtod(char *s, char *e)
{
    char c = *e;
    *e = '\0';
    double v = strtod(s, NULL);
    *e = c;
    return v;
}

char *data_token_end(char *p, const char *e, char stop)
{
    while (p < e && !data_isspace(*p) && *p != stop)
        p++;
    return p;
}

char *data_next_token(char **p, const char *e, char **end)
{
    char *s = *p;
    while (s < e && data_isspace(*s))
        s++;
    char *t = data_token_end(s, e, ' ');
    *p = *end = t;
    return s;
}

int data_count_fields(char *p, const char *e)
{
    int n = 0;
    for (;;) {
        char *t, *s = data_next_token(&p, e, &t);
        if (s == t)
            return n;
        n++;
    }
}

/* inf, infinity, nan, with a sign, in any case. */
static bool is_nonfinite_word(const char *p, const char *e)
{
    if (p < e && (*p == '+' || *p == '-'))
        p++;
    size_t n = (size_t)(e - p);
    char w[9];
    if (n < 3 || n > 8)
        return false;
    for (size_t i = 0; i < n; i++)
        w[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
    w[n] = '\0';
    return !strcmp(w, "inf") || !strcmp(w, "infinity") || !strcmp(w, "nan");
}

bool data_check_value(struct data_rd *rd, int64_t line, const char *linestart, char *tok,
                      char *tokend, char *numend, double v, bool integer, const char *what)
{
    int64_t col = tok - linestart + 1;
    const char *q = data_quote(rd, 0, tok, (size_t)(tokend - tok));
    if (numend == tok || numend != tokend) {
        if (is_nonfinite_word(tok, tokend))
            data_error(rd, line, col, "%s '%s' is not a finite number", what, q);
        else if (tokend == tok)
            data_error(rd, line, col, "missing %s", what);
        else
            data_error(rd, line, col, "bad %s '%s'", what, q);
        return false;
    }
    if (!isfinite(v)) { /* the decimal overflowed */
        data_error(rd, line, col, "%s '%s' is out of range", what, q);
        return false;
    }
    if (integer && !data_is_whole(v)) {
        if (v > 9007199254740992.0 || v < -9007199254740992.0)
            data_error(rd, line, col, "%s '%s' is too large for an int (beyond 2^53)", what, q);
        else
            data_error(rd, line, col, "%s '%s' is not a whole number (%s is declared int)", what,
                       q, rd->int_what ? rd->int_what : "the data");
        return false;
    }
    return true;
}

/* ---- arrays ------------------------------------------------------------- */

int data_alloc(void **p, int64_t n, size_t elem)
{
    *p = NULL;
    if (n <= 0)
        return 0;
    if ((uint64_t)n > SIZE_MAX / elem)
        return PTM_ETOOBIG;
    *p = ptm_malloc((size_t)n * elem);
    return *p ? 0 : PTM_ENOMEM;
}

int data_grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int64_t c = *cap < 16 ? 16 : *cap;
    while (c < need)
        c = c > INT64_MAX / 2 ? need : c * 2;
    if ((uint64_t)c > SIZE_MAX / elem)
        return PTM_ENOMEM;
    void *q = ptm_realloc(*p, (size_t)c * elem);
    if (!q)
        return PTM_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

void data_shrink(void **p, int64_t n, size_t elem)
{
    if (!*p)
        return;
    if (n == 0) {
        ptm_free(*p);
        *p = NULL;
        return;
    }
    void *q = ptm_realloc(*p, (size_t)n * elem);
    if (q)
        *p = q;
}

/* ---- COO ---------------------------------------------------------------- */

int data_coo_push_slow(struct data_coo *c)
{
    int64_t cap = c->cap ? 2 * c->cap : 4096;
    if (c->hint > c->cap && cap > c->hint)
        cap = c->hint; /* the header's count: an honest file needs exactly that */
    if (cap <= c->n)
        cap = c->n + 1;
    int64_t ncap;
    ncap = c->cap;
    if (data_grow((void **)&c->row, &ncap, cap, sizeof(*c->row)))
        return PTM_ENOMEM;
    ncap = c->cap;
    if (data_grow((void **)&c->col, &ncap, cap, sizeof(*c->col)))
        return PTM_ENOMEM;
    ncap = c->cap;
    if (data_grow((void **)&c->val, &ncap, cap, sizeof(*c->val)))
        return PTM_ENOMEM;
    ncap = c->cap;
    if (c->line && data_grow((void **)&c->line, &ncap, cap, sizeof(*c->line)))
        return PTM_ENOMEM;
    c->cap = cap;
    return 0;
}

int data_coo_line_slow(struct data_coo *c, int64_t line)
{
    if (!c->unsorted_rc) { /* a new run */
        int64_t need = 2 * (c->nruns + 1), rcap = 2 * c->runcap;
        if (data_grow((void **)&c->runs, &rcap, need, sizeof(*c->runs)))
            return PTM_ENOMEM;
        c->runcap = rcap / 2;
        c->runs[2 * c->nruns] = c->n;
        c->runs[2 * c->nruns + 1] = line;
        c->nruns++;
        return 0;
    }
    /* out of order: a line an entry from now on */
    int rc = data_alloc((void **)&c->line, c->cap, sizeof(*c->line));
    if (rc)
        return rc;
    for (int64_t r = 0; r < c->nruns; r++) {
        int64_t end = r + 1 < c->nruns ? c->runs[2 * r + 2] : c->n;
        for (int64_t k = c->runs[2 * r]; k < end; k++)
            c->line[k] = c->runs[2 * r + 1] + (k - c->runs[2 * r]);
    }
    ptm_free(c->runs);
    c->runs = NULL;
    c->nruns = c->runcap = 0;
    c->line[c->n] = line;
    return 0;
}

void data_coo_release(struct data_coo *c)
{
    ptm_free(c->row);
    ptm_free(c->col);
    ptm_free(c->val);
    ptm_free(c->line);
    ptm_free(c->runs);
    memset(c, 0, sizeof(*c));
}

/* Report duplicates: equal (row, col) next to each other, in file order. */
static int report_duplicates(struct data_rd *rd, const struct ptm_csr *a, const int64_t *line,
                             bool symmetric)
{
    int found = 0;
    for (int64_t i = 0; i < a->nrows && !rd->stop; i++)
        for (int64_t k = a->rowptr[i] + 1; k < a->rowptr[i + 1]; k++) {
            if (a->colind[k] != a->colind[k - 1] || (symmetric && a->colind[k] > i))
                continue;
            int64_t first = k - 1;
            while (first > a->rowptr[i] && a->colind[first - 1] == a->colind[k])
                first--;
            data_error(rd, line[k], 0,
                       "duplicate entry (%" PRId64 ", %" PRId32 "), first on line %" PRId64, i + 1,
                       a->colind[k] + 1, line[first]);
            found = 1;
            if (rd->stop)
                break;
        }
    return found ? PTM_EDATA : 0;
}

/* Row pointers of nrows rows from the row of each entry. */
static int count_rows(const int32_t *row, int64_t n, int64_t nrows, int64_t **rowptr)
{
    int rc = data_alloc((void **)rowptr, nrows + 1, sizeof(**rowptr));
    if (rc)
        return rc;
    int64_t *rp = *rowptr;
    memset(rp, 0, (size_t)(nrows + 1) * sizeof(*rp));
    for (int64_t k = 0; k < n; k++)
        rp[row[k] + 1]++;
    for (int64_t i = 0; i < nrows; i++)
        rp[i + 1] += rp[i];
    return 0;
}

int data_coo_to_csr(struct data_rd *rd, struct data_coo *c, int64_t nrows, int64_t ncols,
                    bool symmetric, struct ptm_csr *out)
{
    int64_t n = c->n;
    int64_t *colptr = NULL, *tline = NULL, *line = NULL;
    int32_t *trow = NULL;
    double *tval = NULL;
    memset(out, 0, sizeof(*out));
    /* the size a header claims, whatever the entries: its row and column
     * indexes alone must fit in the machine's memory */
    double index = ((double)nrows + (double)ncols + 2) * sizeof(int64_t);
    unsigned long long avail = ptm_mem_available();
    if (avail && index > (double)avail) {
        char need[32], have[32];
        ptm_human_bytes(index, need, sizeof(need));
        ptm_human_bytes((double)avail, have, sizeof(have));
        data_error(rd, 0, 0,
                   "the header's size, %lld x %lld, needs %s for the row and column indexes "
                   "alone (%lld entries were read), more than the %s this machine has "
                   "available",
                   (long long)nrows, (long long)ncols, need, (long long)n, have);
        data_coo_release(c); /* as on every path: the caller gave it away */
        return PTM_EDATA;
    }
    out->nrows = nrows;
    out->ncols = ncols;
    out->nnz = n;

    if (!c->unsorted_rc) { /* CSR order already, without duplicates */
        int rc = count_rows(c->row, n, nrows, &out->rowptr);
        if (rc) {
            data_coo_release(c);
            return rc;
        }
        data_shrink((void **)&c->col, n, sizeof(*c->col));
        data_shrink((void **)&c->val, n, sizeof(*c->val));
        out->colind = c->col;
        out->val = c->val;
        c->col = NULL;
        c->val = NULL;
        data_coo_release(c);
        return 0;
    }

    int rc = count_rows(c->row, n, nrows, &out->rowptr);
    if (!rc)
        rc = data_alloc((void **)&out->colind, n, sizeof(*out->colind));
    if (!rc)
        rc = data_alloc((void **)&out->val, n, sizeof(*out->val));
    if (rc)
        goto out_free;
    int64_t *rp = out->rowptr;

    if (!c->unsorted_cr) {
        /* Column order already, without duplicates: one stable pass by row. */
        for (int64_t k = 0; k < n; k++) {
            int64_t at = rp[c->row[k]]++;
            out->colind[at] = c->col[k];
            out->val[at] = c->val[k];
        }
    } else {
        /* By column, stable: column j in [colptr[j], colptr[j + 1]). */
        rc = data_alloc((void **)&colptr, ncols + 1, sizeof(*colptr));
        if (!rc)
            rc = data_alloc((void **)&trow, n, sizeof(*trow));
        if (!rc)
            rc = data_alloc((void **)&tval, n, sizeof(*tval));
        if (!rc)
            rc = data_alloc((void **)&tline, n, sizeof(*tline));
        if (!rc)
            rc = data_alloc((void **)&line, n, sizeof(*line));
        if (rc)
            goto out_free;
        memset(colptr, 0, (size_t)(ncols + 1) * sizeof(*colptr));
        for (int64_t k = 0; k < n; k++)
            colptr[c->col[k] + 1]++;
        for (int64_t j = 0; j < ncols; j++)
            colptr[j + 1] += colptr[j];
        for (int64_t k = 0; k < n; k++) {
            int64_t at = colptr[c->col[k]]++;
            trow[at] = c->row[k];
            tval[at] = c->val[k];
            tline[at] = c->line[k];
        }
        data_coo_release(c);
        /* By row, stable, walking the columns in order. */
        for (int64_t j = 0, k = 0; j < ncols; j++)
            for (; k < colptr[j]; k++) {
                int64_t at = rp[trow[k]]++;
                out->colind[at] = (int32_t)j;
                out->val[at] = tval[k];
                line[at] = tline[k];
            }
    }
    /* rp[i] is now the end of row i: shift back to starts. */
    for (int64_t i = nrows; i > 0; i--)
        rp[i] = rp[i - 1];
    rp[0] = 0;
    if (line)
        rc = report_duplicates(rd, out, line, symmetric);

out_free:
    data_coo_release(c);
    ptm_free(colptr);
    ptm_free(trow);
    ptm_free(tval);
    ptm_free(tline);
    ptm_free(line);
    if (rc)
        ptm_csr_release(out);
    return rc;
}

/* ---- words -------------------------------------------------------------- */

int data_words_add(struct data_words *w, const char *s, size_t n)
{
    if (data_grow((void **)&w->text, &w->cap, w->len + (int64_t)n + 1, 1) ||
        data_grow((void **)&w->off, &w->ncap, w->n + 1, sizeof(*w->off)))
        return PTM_ENOMEM;
    w->off[w->n++] = w->len;
    memcpy(w->text + w->len, s, n);
    w->len += (int64_t)n;
    w->text[w->len++] = '\0';
    return 0;
}

void data_words_release(struct data_words *w)
{
    ptm_free(w->text);
    ptm_free(w->off);
    memset(w, 0, sizeof(*w));
}

int data_words_finish(struct data_words *w, struct ptm_words *out)
{
    memset(out, 0, sizeof(*out));
    int rc = data_alloc((void **)&out->word, w->n, sizeof(*out->word));
    if (rc) {
        data_words_release(w);
        return rc;
    }
    data_shrink((void **)&w->text, w->len, 1);
    for (int64_t i = 0; i < w->n; i++)
        out->word[i] = w->text + w->off[i];
    out->n = w->n;
    out->text = w->text;
    w->text = NULL;
    data_words_release(w);
    return 0;
}

void data_ptm_words_release(struct ptm_words *w)
{
    ptm_free(w->word);
    ptm_free(w->text);
    memset(w, 0, sizeof(*w));
}

/* ---- matrices ----------------------------------------------------------- */

void ptm_csr_release(struct ptm_csr *a)
{
    ptm_free(a->rowptr);
    ptm_free(a->colind);
    ptm_free(a->val);
    memset(a, 0, sizeof(*a));
}

void ptm_csc_release(struct ptm_csc *a)
{
    ptm_free(a->colptr);
    ptm_free(a->rowind);
    ptm_free(a->val);
    memset(a, 0, sizeof(*a));
}

void ptm_dense_release(struct ptm_dense *a)
{
    ptm_free(a->val);
    memset(a, 0, sizeof(*a));
}

int ptm_csr_to_csc(const struct ptm_csr *a, struct ptm_csc *out)
{
    memset(out, 0, sizeof(*out));
    int rc = data_alloc((void **)&out->colptr, a->ncols + 1, sizeof(*out->colptr));
    if (!rc)
        rc = data_alloc((void **)&out->rowind, a->nnz, sizeof(*out->rowind));
    if (!rc)
        rc = data_alloc((void **)&out->val, a->nnz, sizeof(*out->val));
    if (rc) {
        ptm_csc_release(out);
        return rc;
    }
    out->nrows = a->nrows;
    out->ncols = a->ncols;
    out->nnz = a->nnz;
    int64_t *cp = out->colptr;
    memset(cp, 0, (size_t)(a->ncols + 1) * sizeof(*cp));
    for (int64_t k = 0; k < a->nnz; k++)
        cp[a->colind[k] + 1]++;
    for (int64_t j = 0; j < a->ncols; j++)
        cp[j + 1] += cp[j];
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int64_t at = cp[a->colind[k]]++;
            out->rowind[at] = (int32_t)i;
            out->val[at] = a->val[k];
        }
    for (int64_t j = a->ncols; j > 0; j--)
        cp[j] = cp[j - 1];
    cp[0] = 0;
    return 0;
}

int ptm_csr_to_dense(const struct ptm_csr *a, struct ptm_dense *out)
{
    memset(out, 0, sizeof(*out));
    if (a->ncols > 0 && (uint64_t)a->nrows > SIZE_MAX / sizeof(double) / (uint64_t)a->ncols)
        return PTM_ETOOBIG;
    int rc = data_alloc((void **)&out->val, a->nrows * a->ncols, sizeof(*out->val));
    if (rc)
        return rc;
    out->nrows = a->nrows;
    out->ncols = a->ncols;
    if (out->val)
        memset(out->val, 0, (size_t)(a->nrows * a->ncols) * sizeof(*out->val));
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            out->val[i * a->ncols + a->colind[k]] = a->val[k];
    return 0;
}

int ptm_dense_to_csr(const struct ptm_dense *a, struct ptm_csr *out)
{
    memset(out, 0, sizeof(*out));
    int64_t cells = a->nrows * a->ncols, nnz = 0;
    for (int64_t k = 0; k < cells; k++)
        nnz += a->val[k] != 0;
    int rc = data_alloc((void **)&out->rowptr, a->nrows + 1, sizeof(*out->rowptr));
    if (!rc)
        rc = data_alloc((void **)&out->colind, nnz, sizeof(*out->colind));
    if (!rc)
        rc = data_alloc((void **)&out->val, nnz, sizeof(*out->val));
    if (rc) {
        ptm_csr_release(out);
        return rc;
    }
    out->nrows = a->nrows;
    out->ncols = a->ncols;
    out->nnz = nnz;
    int64_t at = 0;
    out->rowptr[0] = 0;
    for (int64_t i = 0; i < a->nrows; i++) {
        for (int64_t j = 0; j < a->ncols; j++) {
            double v = a->val[i * a->ncols + j];
            if (v != 0) {
                out->colind[at] = (int32_t)j;
                out->val[at++] = v;
            }
        }
        out->rowptr[i + 1] = at;
    }
    return 0;
}

/* ---- sharding ----------------------------------------------------------- */

void ptm_shard_even(int64_t n, int P, int64_t *bounds)
{
    PTM_ASSERT(P >= 1 && n >= 0);
    int64_t q = n / P, r = n % P;
    bounds[0] = 0;
    for (int p = 0; p < P; p++)
        bounds[p + 1] = bounds[p] + q + (p < r);
}

void ptm_shard_by_nnz(const int64_t *rowptr, int64_t nrows, int P, int64_t *bounds)
{
    PTM_ASSERT(P >= 1 && nrows >= 0);
    int64_t nnz = rowptr[nrows];
    if (nnz == 0) {
        ptm_shard_even(nrows, P, bounds);
        return;
    }
    /* Boundary p is the row boundary nearest the ideal p * nnz / P =
     * T + f / P (T whole, 0 <= f < P), computed without overflow. */
    int64_t q = nnz / P, r = nnz % P;
    bounds[0] = 0;
    for (int p = 1; p < P; p++) {
        int64_t T = p * q + (p * r) / P, f = (p * r) % P;
        /* The last lo with rowptr[lo] <= T (so rowptr[lo] <= ideal). */
        int64_t lo = bounds[p - 1], hi = nrows + 1;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (rowptr[mid] <= T)
                lo = mid;
            else
                hi = mid;
        }
        /* Move past lo when rowptr[lo + 1] is nearer: (T - a) P + f > (b - T) P - f. */
        if (lo < nrows && (T - rowptr[lo]) * P + f > (rowptr[lo + 1] - T) * P - f)
            lo++;
        bounds[p] = lo;
    }
    bounds[P] = nrows;
}

void ptm_cut_blocks(const int64_t *cum, int64_t n, int P, int64_t *bounds)
{
    ptm_shard_by_nnz(cum, n, P, bounds);
    if (n < P)
        return;
    for (int p = 1; p < P; p++) /* at least one item before each boundary */
        if (bounds[p] < bounds[p - 1] + 1)
            bounds[p] = bounds[p - 1] + 1;
    for (int p = P - 1; p >= 1; p--) /* and one after it */
        if (bounds[p] > bounds[p + 1] - 1)
            bounds[p] = bounds[p + 1] - 1;
}

/* ---- threads ------------------------------------------------------------ */

void data_run_parts(void *parts, size_t size, int n, void *(*fn)(void *))
{
    pthread_t *tid = ptm_calloc((size_t)n, sizeof(*tid));
    bool *started = ptm_calloc((size_t)n, sizeof(*started));
    char *at = parts;
    for (int k = 1; k < n && tid && started; k++)
        started[k] = pthread_create(&tid[k], NULL, fn, at + (size_t)k * size) == 0;
    fn(at);
    for (int k = 1; k < n; k++) {
        if (started && started[k])
            pthread_join(tid[k], NULL);
        else
            fn(at + (size_t)k * size);
    }
    ptm_free(tid);
    ptm_free(started);
}

/* ---- data sets ---------------------------------------------------------- */

int64_t ptm_dataset_rows(const struct ptm_dataset *ds)
{
    return ds->sparse ? ds->csr.nrows : ds->dense.nrows;
}

int64_t ptm_dataset_cols(const struct ptm_dataset *ds)
{
    return ds->sparse ? ds->csr.ncols : ds->dense.ncols;
}

int ptm_dataset_csc(struct ptm_dataset *ds, const struct ptm_csc **out)
{
    *out = NULL;
    if (!ds->sparse)
        return PTM_EINVAL;
    if (!ds->csc) {
        struct ptm_csc *c = ptm_malloc(sizeof(*c));
        if (!c)
            return PTM_ENOMEM;
        int rc = ptm_csr_to_csc(&ds->csr, c);
        if (rc) {
            ptm_free(c);
            return rc;
        }
        ds->csc = c;
    }
    *out = ds->csc;
    return 0;
}

/* val[perm[e]] = val[e] for every e, in place, along perm's cycles;
 * perm[e] becomes -1 - perm[e].
 *
 * A cycle is a chain of dependent loads, each a cache miss on a big
 * array; one chain at a time leaves the memory idle. So CHAINS chains run
 * side by side, each a step at a time with its next places prefetched.
 * A chain starts at any place not yet done, marking it done at once; as
 * it moves it marks every place it fills; it ends at a marked place:
 * its own start, or the start of another chain in the same cycle, which
 * took that place's value with it when it started. */
#define CHAINS 16
static void move_along(double *val, int32_t *perm, int64_t nnz)
{
    int64_t next[CHAINS];
    double carry[CHAINS];
    int live = 0, s = 0;
    for (;;) {
        /* start chains while there are places left */
        while (live < CHAINS) {
            while (s < nnz && perm[s] < 0)
                s++;
            if (s == nnz)
                break;
            next[live] = perm[s];
            perm[s] = -1 - perm[s];
            carry[live] = val[s];
            __builtin_prefetch(&perm[next[live]], 1);
            __builtin_prefetch(&val[next[live]], 1);
            live++;
            s++;
        }
        if (live == 0)
            return;
        for (int k = 0; k < live; k++) {
            int64_t x = next[k];
            int32_t p = perm[x];
            double t = val[x];
            val[x] = carry[k];
            if (p < 0) { /* done: the last chain takes k's slot */
                live--;
                next[k] = next[live];
                carry[k] = carry[live];
                k--;
                continue;
            }
            perm[x] = -1 - p;
            carry[k] = t;
            next[k] = p;
            __builtin_prefetch(&perm[p], 1);
            __builtin_prefetch(&val[p], 1);
        }
    }
}

int ptm_dataset_csc_only(struct ptm_dataset *ds, const struct ptm_csc **out)
{
    *out = NULL;
    if (!ds->sparse)
        return PTM_EINVAL;
    struct ptm_csr *a = &ds->csr;
    if (ds->csc || !a->colind || a->nnz >= INT32_MAX)
        return ptm_dataset_csc(ds, out);
    int64_t n = a->nrows, d = a->ncols, nnz = a->nnz;
    struct ptm_csc *c = ptm_malloc(sizeof(*c));
    int64_t *colptr = ptm_malloc((size_t)(d + 1) * sizeof(int64_t));
    int64_t *pos = ptm_malloc((size_t)(d + 1) * sizeof(int64_t));
    int32_t *perm = ptm_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    if (!c || !colptr || !pos || !perm) {
        ptm_free(c);
        ptm_free(colptr);
        ptm_free(pos);
        ptm_free(perm);
        return PTM_ENOMEM;
    }
    memset(colptr, 0, (size_t)(d + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < nnz; e++)
        colptr[a->colind[e] + 1]++;
    for (int64_t j = 0; j < d; j++)
        colptr[j + 1] += colptr[j];
    memcpy(pos, colptr, (size_t)(d + 1) * sizeof(int64_t));
    /* perm[e]: where CSR entry e goes in column order; rows ascend, so
     * every column's row indices ascend too */
    for (int64_t e = 0; e < nnz; e++)
        perm[e] = (int32_t)pos[a->colind[e]]++;
    ptm_free(pos);
    /* colind is not read any more: it becomes rowind */
    int32_t *rowind = a->colind;
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
            rowind[perm[e]] = (int32_t)i;
    move_along(a->val, perm, nnz);
    double *val = a->val;
    ptm_free(perm);
    *c = (struct ptm_csc){
        .nrows = n, .ncols = d, .nnz = nnz, .colptr = colptr, .rowind = rowind, .val = val};
    a->colind = NULL;
    a->val = NULL;
    ds->csc = c;
    *out = c;
    return 0;
}

static void *csc_count(void *arg)
{
    struct data_csc_part *t = arg;
    for (int64_t e = t->rowptr[t->r0]; e < t->rowptr[t->r1]; e++)
        t->pos[t->colind[e]]++;
    return NULL;
}

static void *csc_place(void *arg)
{
    struct data_csc_part *t = arg;
    for (int64_t i = t->r0; i < t->r1; i++)
        for (int64_t e = t->rowptr[i]; e < t->rowptr[i + 1]; e++) {
            int64_t k = t->pos[t->colind[e]]++;
            t->c->rowind[k] = (int32_t)(t->row0 + i);
            t->c->val[k] = t->val[e];
        }
    return NULL;
}

/* Columns j0 .. j1-1 of ptm_csc_colsums(). */
struct colsum_part {
    const struct ptm_csc *x;
    int64_t j0, j1;
    double *sq, *sum;
};

static void *colsum_run(void *arg)
{
    const struct colsum_part *t = arg;
    const struct ptm_csc *x = t->x;
    for (int64_t j = t->j0; j < t->j1; j++) {
        const double *v = x->val + x->colptr[j];
        int64_t len = x->colptr[j + 1] - x->colptr[j];
        double s = 0, u = 0;
        for (int64_t k = 0; k < len; k++) {
            s += v[k] * v[k];
            u += v[k];
        }
        t->sq[j] = s;
        if (t->sum)
            t->sum[j] = u;
    }
    return NULL;
}

/* The fewest non-zeros for ptm_csc_colsums() to start threads: fewer take
 * well under a millisecond on one. */
#define COLSUMS_THREADS_MIN_NNZ ((int64_t)1 << 20)

void ptm_csc_colsums(const struct ptm_csc *x, int threads, double *sq, double *sum)
{
    int T = threads < PTM_CSC_THREADS_MAX ? threads : PTM_CSC_THREADS_MAX;
    if (T > x->ncols)
        T = (int)x->ncols;
    if (T < 2 || x->nnz < COLSUMS_THREADS_MIN_NNZ) {
        struct colsum_part t = {.x = x, .j0 = 0, .j1 = x->ncols, .sq = sq, .sum = sum};
        colsum_run(&t);
        return;
    }
    int64_t bounds[PTM_CSC_THREADS_MAX + 1];
    struct colsum_part t[PTM_CSC_THREADS_MAX];
    ptm_shard_by_nnz(x->colptr, x->ncols, T, bounds);
    for (int k = 0; k < T; k++)
        t[k] = (struct colsum_part){
            .x = x, .j0 = bounds[k], .j1 = bounds[k + 1], .sq = sq, .sum = sum};
    data_run_parts(t, sizeof(*t), T, colsum_run);
}

int data_csc_parts(struct data_csc_part *t, int T, int64_t nrows, int64_t ncols, int64_t nnz,
                   struct ptm_csc **out)
{
    int64_t d = ncols;
    *out = NULL;
    struct ptm_csc *c = ptm_malloc(sizeof(*c));
    int rc = c ? 0 : PTM_ENOMEM;
    if (c) {
        memset(c, 0, sizeof(*c));
        rc = data_alloc((void **)&c->colptr, d + 1, sizeof(*c->colptr));
        if (!rc)
            rc = data_alloc((void **)&c->rowind, nnz, sizeof(*c->rowind));
        if (!rc)
            rc = data_alloc((void **)&c->val, nnz, sizeof(*c->val));
    }
    for (int k = 0; k < T; k++) {
        t[k].c = c;
        t[k].pos = NULL;
        if (!rc) {
            t[k].pos = ptm_calloc((size_t)(d ? d : 1), sizeof(*t[k].pos));
            if (!t[k].pos)
                rc = PTM_ENOMEM;
        }
    }
    if (!rc) {
        data_run_parts(t, sizeof(*t), T, csc_count);
        /* column j holds part 0's entries of j, then part 1's, ...: rows
         * ascend in every column as they do over the parts */
        int64_t at = 0;
        for (int64_t j = 0; j < d; j++) {
            c->colptr[j] = at;
            for (int k = 0; k < T; k++) {
                int64_t n = t[k].pos[j];
                t[k].pos[j] = at;
                at += n;
            }
        }
        c->colptr[d] = at;
        data_run_parts(t, sizeof(*t), T, csc_place);
        c->nrows = nrows;
        c->ncols = d;
        c->nnz = nnz;
        *out = c;
    } else if (c) {
        ptm_csc_release(c);
        ptm_free(c);
    }
    for (int k = 0; k < T; k++) {
        ptm_free(t[k].pos);
        t[k].pos = NULL;
    }
    return rc;
}

/* The column view by T >= 2 threads, each a share of the rows of about
 * as many non-zeros, the rows' entries then freed unless keep. */
static int csc_by_threads(struct ptm_dataset *ds, int T, bool keep, const struct ptm_csc **out)
{
    struct ptm_csr *a = &ds->csr;
    int64_t bounds[PTM_CSC_THREADS_MAX + 1];
    struct data_csc_part t[PTM_CSC_THREADS_MAX];
    ptm_shard_by_nnz(a->rowptr, a->nrows, T, bounds);
    for (int k = 0; k < T; k++)
        t[k] = (struct data_csc_part){.rowptr = a->rowptr,
                                      .colind = a->colind,
                                      .val = a->val,
                                      .r0 = bounds[k],
                                      .r1 = bounds[k + 1]};
    struct ptm_csc *c;
    int rc = data_csc_parts(t, T, a->nrows, a->ncols, a->nnz, &c);
    if (rc)
        return rc;
    if (!keep) {
        ptm_free(a->colind);
        ptm_free(a->val);
        a->colind = NULL;
        a->val = NULL;
    }
    ds->csc = c;
    *out = c;
    return 0;
}

/* The column view by up to `threads` threads (at most
 * PTM_CSC_THREADS_MAX, at most a thread a row), the rows' entries kept or
 * not; by one thread as ptm_dataset_csc() or ptm_dataset_csc_only(). */
static int csc_build(struct ptm_dataset *ds, int threads, bool keep, const struct ptm_csc **out)
{
    *out = NULL;
    if (!ds->sparse)
        return PTM_EINVAL;
    int T = threads < PTM_CSC_THREADS_MAX ? threads : PTM_CSC_THREADS_MAX;
    if (T > ds->csr.nrows)
        T = (int)ds->csr.nrows;
    if (ds->csc || !ds->csr.colind || T < 2)
        return keep ? ptm_dataset_csc(ds, out) : ptm_dataset_csc_only(ds, out);
    return csc_by_threads(ds, T, keep, out);
}

int ptm_dataset_csc_split(struct ptm_dataset *ds, int threads, const struct ptm_csc **out)
{
    return csc_build(ds, threads, false, out);
}

int ptm_dataset_csc_threads(struct ptm_dataset *ds, int threads, const struct ptm_csc **out)
{
    return csc_build(ds, threads, true, out);
}

void ptm_dataset_free(struct ptm_dataset *ds)
{
    if (!ds)
        return;
    ptm_csr_release(&ds->csr);
    ptm_dense_release(&ds->dense);
    ptm_free(ds->labels.val);
    data_ptm_words_release(&ds->vocab);
    data_ptm_words_release(&ds->names);
    if (ds->csc) {
        ptm_csc_release(ds->csc);
        ptm_free(ds->csc);
    }
    ptm_free(ds);
}

void ptm_data_opts_from_plan(const struct plan_data *d, struct ptm_data_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->format = d->format;
    o->sparse = d->sparse;
    o->vector = !d->matrix;
    o->integer = d->integer;
    o->vocab = d->vocab;
}

/* ---- reading ------------------------------------------------------------ */

/* One row per format; a format is one file and one row here. */
static int (*const readers[PLAN_NFORMATS])(struct data_rd *, struct ptm_dataset *) = {
    [PLAN_FORMAT_LIBSVM] = data_read_libsvm,
    [PLAN_FORMAT_MM] = data_read_mm,
    [PLAN_FORMAT_UCI] = data_read_uci,
    [PLAN_FORMAT_CSV] = data_read_csv,
};

/* Storage and shape as the options ask. */
static int finish(struct data_rd *rd, struct ptm_dataset *ds)
{
    const struct ptm_data_opts *o = rd->o;
    int64_t ncols = ptm_dataset_cols(ds);
    if (o->vector && ncols != 1) {
        data_error(rd, 0, 0, "a vector needs one column, the file has %" PRId64, ncols);
        return PTM_EDATA;
    }
    int rc = 0;
    if (o->sparse && !ds->sparse) {
        rc = ptm_dense_to_csr(&ds->dense, &ds->csr);
        if (!rc) {
            ptm_dense_release(&ds->dense);
            ds->sparse = true;
        }
    } else if (!o->sparse && ds->sparse) {
        rc = ptm_csr_to_dense(&ds->csr, &ds->dense);
        if (!rc) {
            ptm_csr_release(&ds->csr);
            ds->sparse = false;
        } else {
            data_error(rd, 0, 0,
                       "a dense %" PRId64 " x %" PRId64 " matrix does not fit in memory "
                       "(declare it sparse)",
                       ds->csr.nrows, ds->csr.ncols);
        }
    }
    return rc;
}

static int read_any(struct data_rd *rd, const struct ptm_data_opts *o, struct ptm_data_diags *dg,
                    struct ptm_dataset **out)
{
    *out = NULL;
    rd->o = o;
    rd->dg = dg;
    rd->begin = 0;
    rd->end = INT64_MAX;
    if (o->range) {
        if (o->range->begin < 0 || o->range->end < o->range->begin)
            return PTM_EINVAL;
        rd->begin = o->range->begin;
        rd->end = o->range->end;
    }
    rd->max_dim = o->max_dim > 0 && o->max_dim < PTM_DATA_DIM_MAX ? o->max_dim : PTM_DATA_DIM_MAX;
    if ((int)o->format < 0 || o->format >= PLAN_NFORMATS || !readers[o->format])
        return PTM_EINVAL;
    struct ptm_dataset *ds = ptm_malloc(sizeof(*ds));
    if (!ds)
        return PTM_ENOMEM;
    memset(ds, 0, sizeof(*ds));
    ds->format = o->format;
    ds->declared_nnz = -1;
    int rc = readers[o->format](rd, ds);
    if (!rc && rd->nerrors)
        rc = PTM_EDATA;
    if (!rc)
        rc = finish(rd, ds);
    if (rc) {
        ptm_dataset_free(ds);
        return rc;
    }
    *out = ds;
    return 0;
}

/* f read as o says; path, when not NULL, is f's file, which pieces of a
 * big read open again. */
static int read_stream(FILE *f, const char *path, const char *name, FILE *vocab,
                       const char *vocab_name, const struct ptm_data_opts *o,
                       struct ptm_data_diags *dg, struct ptm_dataset **out)
{
    struct data_rd rd;
    *out = NULL;
    memset(&rd, 0, sizeof(rd));
    rd.name = name;
    rd.path = path;
    rd.threads = o->threads;
    rd.piece_min = o->piece_min ? (int64_t)o->piece_min : 4 << 20;
    rd.vocab_f = vocab;
    rd.vocab_name = vocab_name;
    int rc = data_lines_open(&rd.in, f, NULL, 0, o->chunk, o->line_max);
    if (!rc)
        rc = read_any(&rd, o, dg, out);
    data_lines_close(&rd.in);
    return rc;
}

int ptm_data_read_file(FILE *f, const char *name, FILE *vocab, const char *vocab_name,
                       const struct ptm_data_opts *o, struct ptm_data_diags *dg,
                       struct ptm_dataset **out)
{
    return read_stream(f, NULL, name, vocab, vocab_name, o, dg, out);
}

int ptm_data_read_mem(const char *buf, size_t len, const char *name, const char *vocab,
                      size_t vocab_len, const char *vocab_name, const struct ptm_data_opts *o,
                      struct ptm_data_diags *dg, struct ptm_dataset **out)
{
    struct data_rd rd;
    *out = NULL;
    memset(&rd, 0, sizeof(rd));
    rd.name = name;
    rd.vocab_mem = vocab;
    rd.vocab_len = vocab_len;
    rd.vocab_name = vocab_name;
    int rc = data_lines_open(&rd.in, NULL, buf ? buf : "", buf ? len : 0, o->chunk, o->line_max);
    if (!rc)
        rc = read_any(&rd, o, dg, out);
    data_lines_close(&rd.in);
    return rc;
}

int data_open_input(const char *path, const char *name, struct ptm_data_diags *dg, FILE **f)
{
    if (!strcmp(path, "-")) {
        *f = stdin;
        return 0;
    }
    struct data_rd rd;
    memset(&rd, 0, sizeof(rd));
    rd.dg = dg;
    /* a device or a FIFO would be read forever or wait forever (/dev/zero,
     * a pipe nobody writes): data is a file, or standard input */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        *f = NULL;
        data_error_in(&rd, name, 0, 0, "cannot read %s: data is read from a regular file (or "
                                       "'-', standard input)",
                      S_ISDIR(st.st_mode)    ? "a directory"
                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                      : S_ISCHR(st.st_mode)  ? "a character device"
                      : S_ISBLK(st.st_mode)  ? "a block device"
                                             : "a special file");
        return PTM_EIO;
    }
    *f = fopen(path, "rb");
    if (*f)
        return 0;
    int e = errno;
    data_error_in(&rd, name, 0, 0, "cannot open: %s", strerror(e));
    return e == ENOENT ? PTM_ENOENT : PTM_EIO;
}

int ptm_data_read(const char *path, const struct ptm_data_opts *o, struct ptm_data_diags *dg,
                  struct ptm_dataset **out)
{
    *out = NULL;
    const char *name = o->name ? o->name : strcmp(path, "-") ? path : "<stdin>";
    FILE *f = NULL, *vf = NULL;
    int rc = data_open_input(path, name, dg, &f);
    if (rc)
        return rc;
    if (o->format == PLAN_FORMAT_UCI && o->vocab) {
        rc = data_open_input(o->vocab, o->vocab, dg, &vf);
        if (rc)
            goto out_close;
    }
    rc = read_stream(f, f != stdin ? path : NULL, name, vf, o->vocab, o, dg, out);
    if (vf && vf != stdin)
        fclose(vf);
out_close:
    if (f != stdin)
        fclose(f);
    return rc;
}

int64_t data_scan_index(struct data_rd *rd, char *line, char **p, const char *e, int64_t max,
                        const char *what)
{
    char *t, *s = data_next_token(p, e, &t);
    uint64_t v;
    const char *q = data_quote(rd, 0, s, (size_t)(t - s));
    if (data_scan_uint(s, &v) != t) {
        data_error(rd, rd->in.lineno, s - line + 1, "bad %s index '%s'", what, q);
        return -1;
    }
    if (v == 0 || v > (uint64_t)max) {
        data_error(rd, rd->in.lineno, s - line + 1, "%s index '%s' out of range 1..%" PRId64, what,
                   q, max);
        return -1;
    }
    return (int64_t)v;
}

int ptm_csr_rows_csc(const struct ptm_csr *x, int64_t lo, int64_t hi, struct ptm_csc *out)
{
    PTM_ASSERT(0 <= lo && lo <= hi && hi <= x->nrows);
    memset(out, 0, sizeof(*out));
    int64_t base = x->rowptr[lo];
    int64_t *rowptr = ptm_malloc((size_t)(hi - lo + 1) * sizeof(*rowptr));
    if (!rowptr)
        return PTM_ENOMEM;
    for (int64_t i = lo; i <= hi; i++)
        rowptr[i - lo] = x->rowptr[i] - base;
    /* A view of the rows with offsets from 0, which ptm_csr_to_csc() reads. */
    struct ptm_csr view = {
        .nrows = hi - lo,
        .ncols = x->ncols,
        .nnz = x->rowptr[hi] - base,
        .rowptr = rowptr,
        .colind = x->colind ? x->colind + base : NULL,
        .val = x->val ? x->val + base : NULL,
    };
    int rc = ptm_csr_to_csc(&view, out);
    ptm_free(rowptr);
    return rc;
}
