/*
 * data_impl.h - what the data readers share: the line reader, number
 * scanning, error reporting, growable arrays and the COO-to-CSR sort.
 *
 * Each format is one file (read_libsvm.c, read_mm.c, read_uci.c,
 * read_csv.c) with one entry point; data.c owns the rest.
 */
#ifndef PTM_DATA_IMPL_H
#define PTM_DATA_IMPL_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data.h"

/* ---- lines -------------------------------------------------------------- */

/* Lines of a FILE or a memory buffer, read in chunks. A line is handed out
 * in place, without its "\n" or "\r\n", NUL-terminated (it may hold NUL
 * bytes before that, which the parsers refuse). */
struct data_lines {
    FILE *f;         /* or: */
    const char *mem; /* with memlen bytes, mempos read */
    size_t memlen, mempos;
    size_t chunk; /* bytes per read */
    char *buf;    /* owned */
    size_t cap;
    size_t pos, len; /* unread bytes: buf[pos, len) */
    size_t scan;     /* buf[pos, scan) holds no newline */
    int64_t base;    /* file offset of buf[0] */
    bool eof;
    int ioerr; /* errno of a failed read, or 0 */
    bool at_line_start;
    bool cut;       /* a line was not returned because of end */
    int64_t end;    /* lines starting at or after this are not returned */
    int64_t lineno; /* of the line last returned (1-based); 0 before */
    int64_t start;  /* offset of the line last returned */
    size_t line_max;
};

/* What data_lines_next() found. */
enum { DATA_LINE_END = 0, DATA_LINE_OK = 1, DATA_LINE_TOO_LONG = 2 };

/* ---- a read in progress ------------------------------------------------- */

struct data_rd {
    const struct ptm_data_opts *o;
    struct ptm_data_diags *dg;
    const char *name;
    const char *path;  /* the file, when it can be opened again; else NULL */
    int threads;       /* that may read it side by side (libsvm) */
    int64_t piece_min; /* bytes of a piece they read at least */
    struct data_lines in;
    int64_t begin, end; /* the range; [0, INT64_MAX) for the whole file */
    int64_t max_dim;
    unsigned nerrors; /* of this read */
    bool stop;        /* too many errors: stop reading */
    /* UCI vocabulary */
    FILE *vocab_f;
    const char *vocab_mem;
    size_t vocab_len;
    const char *vocab_name;
    char quote[2][128]; /* data_quote() results */
    const char *int_what; /* what is declared int, for messages; NULL: "the data" */
};

/* "FILE:LINE:COL: error: ..." into rd->dg; line 0: no line, col 0: no
 * column. Sets rd->stop after PTM_DATA_MAX_ERRORS errors. */
void data_error(struct data_rd *rd, int64_t line, int64_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for another file (the UCI vocabulary). */
void data_error_in(struct data_rd *rd, const char *name, int64_t line, int64_t col, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
/* s[0..n) quoted for a message (at most about 40 bytes shown, other bytes
 * as \xNN); slot 0 or 1, valid until the next call with that slot. */
const char *data_quote(struct data_rd *rd, int slot, const char *s, size_t n);

/* Open path for reading ("-" is stdin). Returns 0, or PTM_ENOENT or
 * PTM_EIO with "NAME: error: cannot open: REASON" in dg. */
int data_open_input(const char *path, const char *name, struct ptm_data_diags *dg, FILE **f);

/* Open a line reader over a FILE or a memory buffer. Returns 0 or PTM_ENOMEM. */
int data_lines_open(struct data_lines *L, FILE *f, const char *mem, size_t memlen, size_t chunk,
                    size_t line_max);
void data_lines_close(struct data_lines *L);
/* The next line in *line, *n. Returns DATA_LINE_OK, DATA_LINE_END,
 * DATA_LINE_TOO_LONG (the line was skipped; L->lineno is its number) or a
 * negative PTM_EIO/PTM_ENOMEM. */
int data_lines_next(struct data_lines *L, char **line, size_t *n);

/* The reader's next line, with too-long lines and read errors reported.
 * Returns 1 with a line, 0 at the end (or when reading must stop), or a
 * negative code. */
int data_next_line(struct data_rd *rd, char **line, size_t *n);
/* Start the body of the file: skip to the range's first line and stop at
 * its end. Returns 0 or a negative code. */
int data_range_start(struct data_rd *rd);
/* True when the lines read so far, from the start of the body, covered the
 * whole file: whole-file checks apply. */
bool data_read_whole(const struct data_rd *rd);

/* fn on each of n parts (parts: n of size bytes each), parts 1 .. n-1 on
 * threads of their own and part 0 on the caller's, which waits for them;
 * a part whose thread cannot start (or when there is no memory for the
 * threads' handles) runs on the caller's thread after part 0. */
void data_run_parts(void *parts, size_t size, int n, void *(*fn)(void *));

/* A thread's part of a column view: rows r0 .. r1-1 of a matrix by rows
 * (rowptr, colind, val), which are rows row0 + r0 .. of the whole. */
struct data_csc_part {
    const int64_t *rowptr;
    const int32_t *colind;
    const double *val;
    int64_t r0, r1, row0;
    int64_t *pos; /* ncols: counts, then where each column's next entry goes */
    struct ptm_csc *c;
};

/* The column view (nrows x ncols, nnz entries) of T parts that hold the
 * rows in order, the parts' entries counted by column, then placed, by T
 * threads (data_run_parts): every column's rows ascend. Returns 0 and
 * *out (ptm_csc_release() and ptm_free() it), or PTM_ENOMEM /
 * PTM_ETOOBIG with nothing kept. The parts' arrays are only read. */
int data_csc_parts(struct data_csc_part *t, int T, int64_t nrows, int64_t ncols, int64_t nnz,
                   struct ptm_csc **out);

/* ---- numbers ------------------------------------------------------------ */

static inline bool data_isdigit(char c)
{
    return (unsigned)(c - '0') < 10u;
}
static inline bool data_isspace(char c)
{
    return c == ' ' || c == '\t';
}

double data_strtod(char *s, char *e);
/* w * 10^q (w not 0) as the nearest double, by the Eisel-Lemire algorithm
 * (128-bit approximations of the powers of 5, runtime/data/pow5.h): true
 * with *out, or false where it cannot tell or the result is subnormal or
 * infinite (then strtod() decides). */
bool data_eisel_lemire(uint64_t w, long q, double *out);
extern const double data_pow10[23];

/* Scan a decimal number at p: [+-] (D+ [. D*] | . D+) [(e|E) [+-] D+].
 * Returns the end of the number, or p (with *v = 0) when there is none.
 * *v is what strtod() gives, bit for bit (inf on overflow). The text must end with a
 * byte that is not part of a number (a NUL at the end of a line). */
static inline __attribute__((always_inline)) char *data_scan_double(char *p, double *v)
{
    char *s = p;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    /* w wraps past 19 digits; then the slow path takes over. */
    uint64_t w = 0;
    char *d0 = p;
    for (; data_isdigit(*p); p++)
        w = w * 10 + (uint64_t)(*p - '0');
    long ndig = p - d0, nfrac = 0;
    if (*p == '.') {
        char *f0 = ++p;
        for (; data_isdigit(*p); p++)
            w = w * 10 + (uint64_t)(*p - '0');
        nfrac = p - f0;
        ndig += nfrac;
    }
    if (ndig == 0) {
        *v = 0;
        return s;
    }
    long e10 = -nfrac;
    if (*p == 'e' || *p == 'E') {
        char *q = p + 1;
        bool eneg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        if (data_isdigit(*q)) {
            long x = 0;
            for (; data_isdigit(*q); q++)
                if (x < 100000)
                    x = x * 10 + (*q - '0');
            e10 += eneg ? -x : x;
            p = q;
        }
    }
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    /* Clinger's fast path: w and 10^|e10| are exact doubles, so one
     * correctly rounded operation gives the correctly rounded result. */
    if (ndig <= 19) {
        if (w == 0) {
            *v = neg ? -0.0 : 0.0;
            return p;
        }
        if (w <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
            double d = (double)w;
            d = e10 < 0 ? d / data_pow10[-e10] : d * data_pow10[e10];
            *v = neg ? -d : d;
            return p;
        }
    }
#endif
    /* up to 19 digits (w exact) and a moderate exponent: two or three
     * 64-bit products in place of strtod's big numbers (a value written
     * with 17 digits, as %.17g and Python's repr write, takes that path) */
    if (ndig <= 19 && data_eisel_lemire(w, e10, v)) {
        if (neg)
            *v = -*v;
        return p;
    }
    *v = data_strtod(s, p);
    return p;
}

/* Scan decimal digits (no sign). Returns the end, or p when there are
 * none; values past 10^18 saturate to UINT64_MAX. */
static inline char *data_scan_uint(char *p, uint64_t *v)
{
    uint64_t x = 0;
    char *s = p;
    for (; data_isdigit(*p); p++)
        x = x < UINT64_C(100000000000000000) ? x * 10 + (uint64_t)(*p - '0') : UINT64_MAX;
    *v = x;
    return p == s ? s : p;
}

/* The end of the token at p: the next space, tab or stop byte, or e (NUL
 * bytes before e are part of the token). */
char *data_token_end(char *p, const char *e, char stop);

/* The next token of [*p, e) separated by spaces and tabs: returns its
 * start, sets *end to its end and moves *p there. */
char *data_next_token(char **p, const char *e, char **end);
/* A 1-based index, the next token of line at *p, at most max: returned as
 * is, or -1 after reporting "bad WHAT index" or "out of range". */
int64_t data_scan_index(struct data_rd *rd, char *line, char **p, const char *e, int64_t max,
                        const char *what);
/* The number of such tokens in [p, e). */
int data_count_fields(char *p, const char *e);

/* A whole number that a double holds exactly. */
static inline bool data_is_whole(double v)
{
    return v <= 9007199254740992.0 && v >= -9007199254740992.0 && v == (double)(int64_t)v;
}

/* What may follow a number: the end of the line, a space or tab, or stop. */
static inline bool data_is_delim(const char *p, const char *e, char stop)
{
    return p == e || data_isspace(*p) || *p == stop;
}

/* Check a scanned value and report what is wrong with it: not a number at
 * all (numend, where the scan stopped, is not tokend), NaN/Inf, out of
 * range, or (with integer) not whole. tok..tokend is the token; what names
 * it ("value", "label"). Returns true when v is good. */
bool data_check_value(struct data_rd *rd, int64_t line, const char *linestart, char *tok,
                      char *tokend, char *numend, double v, bool integer, const char *what);

/* ---- growable arrays ---------------------------------------------------- */

/* Make room for need elements of size elem in *p (capacity *cap), at least
 * doubling. Returns 0 or PTM_ENOMEM (*p unchanged). */
int data_grow(void **p, int64_t *cap, int64_t need, size_t elem);
/* Allocate n elements of size elem (NULL for n = 0); PTM_ENOMEM or
 * PTM_ETOOBIG when n * elem overflows. */
int data_alloc(void **p, int64_t n, size_t elem);
/* Shrink *p to n elements; keeps the old block when realloc fails. */
void data_shrink(void **p, int64_t n, size_t elem);

/* ---- COO ---------------------------------------------------------------- */

/* Entries in file order, with the line of each for duplicate reports.
 * While the entries come in strict (row, col) order (a CSR as it is, no
 * duplicate) the lines are kept as runs of consecutive lines, a few for a
 * whole file; the first entry out of that order turns them into a line an
 * entry, which the sort then needs. */
struct data_coo {
    int32_t *row, *col;
    double *val;
    int64_t *line;    /* cap: entry k's line, once unsorted_rc; else NULL */
    int64_t *runs;    /* 2 nruns: (first entry, its line) of each run, until then */
    int64_t nruns, runcap;
    int64_t n, cap;
    int64_t hint;     /* expected final n (the header's); growth stops there first */
    bool unsorted_rc; /* not strictly increasing by (row, col) */
    bool unsorted_cr; /* not strictly increasing by (col, row) */
};

int data_coo_push_slow(struct data_coo *c);
/* The line of entry n when it does not continue the last run, or when the
 * entries just left (row, col) order. Returns 0 or PTM_ENOMEM. */
int data_coo_line_slow(struct data_coo *c, int64_t line);
static inline int data_coo_push(struct data_coo *c, int32_t r, int32_t k, double v, int64_t line)
{
    if (c->n == c->cap) {
        int rc = data_coo_push_slow(c);
        if (rc)
            return rc;
    }
    if (c->n > 0) {
        int32_t pr = c->row[c->n - 1], pk = c->col[c->n - 1];
        c->unsorted_rc |= r < pr || (r == pr && k <= pk);
        c->unsorted_cr |= k < pk || (k == pk && r <= pr);
    }
    if (c->line) {
        c->line[c->n] = line;
    } else if (c->unsorted_rc || c->nruns == 0 ||
               line != c->runs[2 * c->nruns - 1] + (c->n - c->runs[2 * c->nruns - 2])) {
        int rc = data_coo_line_slow(c, line);
        if (rc)
            return rc;
    }
    c->row[c->n] = r;
    c->col[c->n] = k;
    c->val[c->n] = v;
    c->n++;
    return 0;
}
void data_coo_release(struct data_coo *c);
/* Sort into out (nrows x ncols) in linear time: two stable counting sorts,
 * by column then by row; entries already in row order are taken as they
 * are, and entries in column order skip the first sort. Reports duplicates
 * (only on or below the diagonal when symmetric: the mirror images repeat
 * them). Releases c. Returns 0, a negative code, or PTM_EDATA with
 * duplicates reported. */
int data_coo_to_csr(struct data_rd *rd, struct data_coo *c, int64_t nrows, int64_t ncols,
                    bool symmetric, struct ptm_csr *out);

/* ---- words -------------------------------------------------------------- */

/* A word list being built: text grows, offsets recorded. */
struct data_words {
    char *text;
    int64_t len, cap;
    int64_t *off;
    int64_t n, ncap;
};
int data_words_add(struct data_words *w, const char *s, size_t n);
/* Turn into a ptm_words; releases w either way. Returns 0 or PTM_ENOMEM. */
int data_words_finish(struct data_words *w, struct ptm_words *out);
void data_words_release(struct data_words *w);
void data_ptm_words_release(struct ptm_words *w);

/* ---- the formats -------------------------------------------------------- */

/* Each fills ds (zeroed but for declared_nnz = -1) and reports bad lines;
 * returns 0 (check rd->nerrors) or a negative code. ds is freed by the
 * caller whatever happens. */
int data_read_libsvm(struct data_rd *rd, struct ptm_dataset *ds);
int data_read_mm(struct data_rd *rd, struct ptm_dataset *ds);
int data_read_uci(struct data_rd *rd, struct ptm_dataset *ds);
int data_read_csv(struct data_rd *rd, struct ptm_dataset *ds);

#endif
