/*
 * data.h - data sets in memory and the readers that load them.
 *
 * A data set is a matrix, sparse (CSR, with a CSC view built on demand) or
 * dense (row-major), with optional labels and word lists. Four formats are
 * read (enum plan_format): libsvm/svmlight, MatrixMarket coordinate, UCI
 * bag-of-words with its vocabulary, and CSV. What each accepts:
 *
 * - Indices in memory are 0-based. Both dimensions are at most
 *   PTM_DATA_DIM_MAX (INT32_MAX; less when opts.max_dim says so).
 * - A MatrixMarket pattern matrix stores ones (ds->pattern says so): every
 *   consumer can read values without a special case.
 * - libsvm: indices are 1-based and strictly increasing; index 0 is refused
 *   (a 0-based file, as scikit-learn writes with zero_based=True, must be
 *   shifted). `#` starts a comment anywhere; `qid:N` right after the label
 *   is ignored; blank and comment-only lines are not rows; the matrix has
 *   as many columns as the largest index. Multi-label lines are refused.
 * - MatrixMarket: `matrix coordinate real|integer|pattern general|symmetric`,
 *   keywords in any case. A symmetric file stores the lower triangle (an
 *   entry above the diagonal is an error); it is mirrored, the diagonal
 *   once. `%` lines and blank lines may appear anywhere after the header
 *   line. `array`, `complex`, `hermitian` and `skew-symmetric` are refused.
 * - UCI: counts are positive integers; the vocabulary has exactly W lines,
 *   none of them empty.
 * - CSV: `,` separates fields; spaces and tabs around a field are ignored;
 *   blank lines are skipped; every line has the field count of the first.
 *   Data fields are plain decimal numbers (no quotes, no empty fields). The
 *   first non-blank line is a header of column names when opts.csv_header
 *   says so (AUTO: when any of its fields is not a number); header fields
 *   may be quoted ("a,b" with "" for a quote) but may not span lines. A
 *   UTF-8 byte order mark at the start is skipped.
 * - Every value is a finite decimal number (NaN and Inf are refused). Values
 *   are what strtod() gives, bit for bit; a fast path handles short
 *   decimals exactly and falls back to strtod() for the rest.
 * - With opts.integer every matrix value must be a whole number of
 *   magnitude at most 2^53 (stored exactly in a double).
 * - Errors: each bad line is reported once as "FILE:LINE:COL: error:
 *   MESSAGE" (column in bytes, 1-based; no column for a whole-line problem;
 *   no line for a whole-file problem). After PTM_DATA_MAX_ERRORS errors
 *   reading stops with a note. Any error means no data set.
 * - Lines longer than opts.line_max (default PTM_DATA_LINE_MAX, 64 MiB) are
 *   errors. Files are read in chunks; memory is the data plus one chunk.
 *
 * Byte ranges (opts.range, for reading one shard per MPI rank): a line
 * belongs to the range [begin, end) in which its first byte lies, and
 * messages still give the file's real line numbers (the bytes before begin
 * are read to count them). Header lines (a CSV header, the MatrixMarket
 * banner and size line, the UCI D/W/NNZ lines) are read from the start of
 * the file whatever the range, and are never rows or entries.
 * - libsvm, csv: the result holds exactly the rows of the lines in range,
 *   in order; reading [0, k) and [k, n) and stacking the rows gives the
 *   same as reading [0, n). A libsvm range has as many columns as its own
 *   largest index; a caller may widen csr.ncols to the global largest.
 * - mm, uci: the result has the full size of the size line (rows x cols)
 *   and holds the entries on the lines in range (mirrored when symmetric):
 *   the entries of all ranges together are those of the whole file, for
 *   the ranks to exchange. Duplicates are found only within what was read,
 *   and a range only checks that it holds no more entries than the header
 *   declares (declared_nnz is there for the caller to check the total). A
 *   UCI vocabulary is read whole.
 * - Whole-file checks (an empty file, no rows, fewer entries than the
 *   header declares) apply when the range covers the whole file.
 *
 * Duplicates (a libsvm index twice in a row, an mm or uci entry twice) are
 * errors. Unordered entries (mm, uci) are sorted into CSR in linear time.
 */
#ifndef PTM_DATA_H
#define PTM_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "ptm.h"

/* Largest number of rows or columns. */
#define PTM_DATA_DIM_MAX PTM_DIM_MAX
/* Default for opts.line_max. */
#define PTM_DATA_LINE_MAX ((size_t)64 << 20)
/* A read stops after this many errors. */
#define PTM_DATA_MAX_ERRORS 20

/* ---- matrices ----------------------------------------------------------- */

/* Compressed sparse rows, 0-based. Row i holds the entries
 * rowptr[i] .. rowptr[i + 1] - 1, columns strictly increasing. */
struct ptm_csr {
    int64_t nrows, ncols, nnz;
    int64_t *rowptr; /* nrows + 1; owned */
    int32_t *colind; /* nnz; owned (NULL when nnz is 0) */
    double *val;     /* nnz; owned (NULL when nnz is 0) */
};

/* Compressed sparse columns, the same matrix read by columns: column j
 * holds colptr[j] .. colptr[j + 1] - 1, rows strictly increasing. */
struct ptm_csc {
    int64_t nrows, ncols, nnz;
    int64_t *colptr; /* ncols + 1; owned */
    int32_t *rowind; /* nnz; owned */
    double *val;     /* nnz; owned */
};

/* Dense, row-major: element (i, j) is val[i * ncols + j]. */
struct ptm_dense {
    int64_t nrows, ncols;
    double *val; /* nrows * ncols; owned (NULL when empty) */
};

struct ptm_vec {
    int64_t n;
    double *val; /* owned */
};

/* A list of words: a UCI vocabulary (word j names column j) or the column
 * names of a CSV header. */
struct ptm_words {
    int64_t n;
    char **word; /* n pointers into text; owned */
    char *text;  /* the words, each NUL-terminated; owned */
};

/* The CSC view of a, in time linear in nnz + rows + cols. Returns 0 or
 * PTM_ENOMEM (out is then empty). Caller frees with ptm_csc_release(). */
int ptm_csr_to_csc(const struct ptm_csr *a, struct ptm_csc *out);
/* The CSC of rows lo .. hi-1 of x (0 <= lo <= hi <= x->nrows) with row
 * indices local to the shard (row lo is 0) and all of x's columns. Returns
 * 0 or PTM_ENOMEM (out is then empty). Caller frees with
 * ptm_csc_release(). */
int ptm_csr_rows_csc(const struct ptm_csr *x, int64_t lo, int64_t hi, struct ptm_csc *out);
/* sq[j] = the sum of the squares of column j of x and, when sum is not
 * NULL, sum[j] = the sum of its values, both in row order, for every
 * column; by up to `threads` threads (PTM_CSC_THREADS_MAX at most), each
 * a range of columns, when x has 2^20 non-zeros or more: the same bits. */
void ptm_csc_colsums(const struct ptm_csc *x, int threads, double *sq, double *sum);
void ptm_csr_release(struct ptm_csr *a);
void ptm_csc_release(struct ptm_csc *a);
void ptm_dense_release(struct ptm_dense *a);

/* Conversions between storages, for a job that declares the other one.
 * Dense to CSR drops zeros. Return 0, PTM_ENOMEM or PTM_ETOOBIG (a dense
 * size beyond SIZE_MAX); out is then empty. */
int ptm_csr_to_dense(const struct ptm_csr *a, struct ptm_dense *out);
int ptm_dense_to_csr(const struct ptm_dense *a, struct ptm_csr *out);

/* ---- sharding ----------------------------------------------------------- */

/* Split rows 0..nrows-1 of a CSR matrix into P contiguous ranges balanced
 * by non-zeros: shard p is rows bounds[p] .. bounds[p + 1] - 1, bounds has
 * P + 1 entries, bounds[0] = 0, bounds[P] = nrows. Each shard's nnz is
 * within the nnz of one row of nnz / P. A matrix without non-zeros is split
 * as ptm_shard_even() does. P >= 1. */
void ptm_shard_by_nnz(const int64_t *rowptr, int64_t nrows, int P, int64_t *bounds);
/* The split of `shard rows` in spec/language.md: the first n mod P shards
 * hold ceil(n / P) rows, the others floor(n / P). */
void ptm_shard_even(int64_t n, int P, int64_t *bounds);
/* Blocks of consecutive items weighed by cum (prefix sums of their
 * weights, n + 1 entries): as ptm_shard_by_nnz() cuts them, then moved
 * just enough that no block is empty when n >= P (a heavy item may hold
 * more than a P-th of the weight). For a rotation's blocks, which every
 * worker must hold in turn. */
void ptm_cut_blocks(const int64_t *cum, int64_t n, int P, int64_t *bounds);

/* ---- data sets ---------------------------------------------------------- */

struct ptm_dataset {
    enum plan_format format;
    bool sparse; /* the matrix is csr; else dense */
    struct ptm_csr csr;
    struct ptm_dense dense;
    bool has_labels;        /* libsvm; csv with opts.csv_labels */
    struct ptm_vec labels;  /* one per row */
    struct ptm_words vocab; /* uci with a vocabulary file; else empty */
    struct ptm_words names; /* csv with a header: every column's name, the
                               label column's too; else empty */
    bool pattern;           /* mm pattern: the values are ones */
    int64_t declared_nnz;   /* mm, uci: entries the header declares (before
                               mirroring); else -1 */
    struct ptm_csc *csc;    /* built by ptm_dataset_csc(); owned */
};

/* Rows and columns of the matrix, whichever its storage. */
int64_t ptm_dataset_rows(const struct ptm_dataset *ds);
int64_t ptm_dataset_cols(const struct ptm_dataset *ds);
/* Build the CSC view of a sparse data set once; later calls return the
 * same. Returns 0, PTM_ENOMEM or PTM_EINVAL (dense). Not thread-safe: call
 * it before workers start. */
int ptm_dataset_csc(struct ptm_dataset *ds, const struct ptm_csc **out);
/* The same, made from the CSR's own arrays when there is no CSC yet, for
 * a job that reads the matrix by columns only: the peak is the CSR plus
 * 4 bytes an entry rather than twice the matrix. Afterwards csr.colind
 * and csr.val are NULL (the rows' entries are gone); csr.rowptr, the sizes
 * and nnz stay. */
int ptm_dataset_csc_only(struct ptm_dataset *ds, const struct ptm_csc **out);
/* The same by up to `threads` threads (PTM_CSC_THREADS_MAX at most), each
 * placing the entries of a range of rows: the peak is the CSR plus the
 * CSC, twice the matrix, and T arrays of a count a column. threads < 2:
 * ptm_dataset_csc_only(). */
#define PTM_CSC_THREADS_MAX 64
int ptm_dataset_csc_split(struct ptm_dataset *ds, int threads, const struct ptm_csc **out);
/* ptm_dataset_csc() by up to `threads` threads as ptm_dataset_csc_split()
 * places the entries, the rows' entries kept (the same arrays as
 * ptm_dataset_csc() makes); threads < 2: ptm_dataset_csc(). */
int ptm_dataset_csc_threads(struct ptm_dataset *ds, int threads, const struct ptm_csc **out);
void ptm_dataset_free(struct ptm_dataset *ds);

/* ---- errors ------------------------------------------------------------- */

/* One message, rendered: "FILE:LINE:COL: error: MESSAGE". */
struct ptm_data_diag {
    char *text;     /* owned; no newline */
    uint32_t where; /* length of the "FILE:LINE:COL: " prefix */
    bool note;      /* "note:" rather than "error:" */
};

/* Where readers put their errors. Several reads may share one. */
struct ptm_data_diags {
    struct ptm_data_diag *msg; /* owned */
    size_t n, cap;
    unsigned nerrors; /* every error reported, stored or not */
    bool oom;         /* a message could not be stored */
    bool quiet;       /* count only (fuzzing) */
};

void ptm_data_diags_init(struct ptm_data_diags *d);
void ptm_data_diags_release(struct ptm_data_diags *d);
/* Add "FILE: note: ..." (after an error about FILE that the caller can
 * say more of). */
void ptm_data_diags_note(struct ptm_data_diags *d, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Each message on a line; "error:"/"note:" in colour when color is true. */
void ptm_data_diags_print(FILE *out, const struct ptm_data_diags *d, bool color);

/* ---- readers ------------------------------------------------------------ */

enum ptm_csv_header {
    PTM_CSV_HEADER_AUTO, /* a header when a field of the first line is not a number */
    PTM_CSV_HEADER_YES,
    PTM_CSV_HEADER_NO,
};

struct ptm_byte_range {
    int64_t begin, end; /* [begin, end); 0 <= begin */
};

/* How to read a file. A zeroed struct reads a whole libsvm file into CSR;
 * ptm_data_opts_from_plan() fills it from a job's declaration. */
struct ptm_data_opts {
    enum plan_format format; /* LIBSVM, MM, UCI or CSV */
    bool sparse;             /* keep CSR; else dense (converted when needed) */
    bool vector;             /* the matrix must have one column */
    bool integer;            /* values must be whole, |v| <= 2^53 */
    bool csv_labels;         /* csv: a column is the labels: the first, or csv_label */
    const char *csv_label;   /* csv: the label column's name in the header; NULL: the
                                first column; borrows */
    enum ptm_csv_header csv_header;
    const char *vocab;                  /* uci: vocabulary file, or NULL; borrows */
    const char *name;                   /* the file's name in messages; NULL: the path */
    const struct ptm_byte_range *range; /* NULL: the whole file; borrows */
    size_t line_max;                    /* 0: PTM_DATA_LINE_MAX */
    int64_t max_dim;                    /* largest rows/cols accepted; 0: PTM_DATA_DIM_MAX */
    size_t chunk;                       /* bytes per read; 0: 1 MiB (tests make it small) */
    int threads;      /* libsvm from a path: up to this many threads read pieces of a big file */
    size_t piece_min; /* bytes of such a piece at least; 0: 4 MiB (tests make it small) */
    /* libsvm read in pieces, for a caller that would build the column view
     * and drop the rows' entries (ptm_dataset_csc_split()): the pieces'
     * threads build it from their pieces (ds->csc, the same arrays), and
     * of the rows only their offsets and labels are kept (csr.colind and
     * csr.val NULL), when the column view and the pieces' counts take at
     * most columns_mem bytes; else the rows are read as without it */
    bool columns_only;
    uint64_t columns_mem;
};

/* Options for a data declaration (not LABELS: those come with their
 * libsvm source). The path and vocab are borrowed from d. */
void ptm_data_opts_from_plan(const struct plan_data *d, struct ptm_data_opts *o);

/* Read path ("-" is stdin) as o says. On success returns 0 and *out (caller
 * frees with ptm_dataset_free()). Otherwise returns PTM_EDATA (bad data),
 * PTM_ENOENT or PTM_EIO (with a message in dg), PTM_ENOMEM, PTM_ETOOBIG or
 * PTM_EINVAL (bad options), sets *out to NULL and keeps nothing. */
int ptm_data_read(const char *path, const struct ptm_data_opts *o, struct ptm_data_diags *dg,
                  struct ptm_dataset **out);
/* The same from an open stream (read from its current position, which is
 * offset 0 for ranges) or a memory buffer, named name in messages; vocab
 * for UCI likewise (NULL: none; o->vocab is then ignored). Borrows all. */
int ptm_data_read_file(FILE *f, const char *name, FILE *vocab, const char *vocab_name,
                       const struct ptm_data_opts *o, struct ptm_data_diags *dg,
                       struct ptm_dataset **out);
int ptm_data_read_mem(const char *buf, size_t len, const char *name, const char *vocab,
                      size_t vocab_len, const char *vocab_name, const struct ptm_data_opts *o,
                      struct ptm_data_diags *dg, struct ptm_dataset **out);

/* ---- parameter values --------------------------------------------------- */

/* How to read a file of parameter values (ptm_data_read_values()). */
struct ptm_values_opts {
    bool integer;   /* values must be whole, |v| <= 2^53 */
    int64_t lo, hi; /* keep rows lo .. hi-1 (those the file has); count the rest */
    int64_t cols;   /* > 0: the columns wanted; a file of other width keeps no rows */
    size_t chunk;   /* bytes per read; 0: 1 MiB (tests make it small) */
};

/* What a file of parameter values holds. */
struct ptm_values {
    int64_t rows, cols; /* of the whole file (rows: its non-blank lines) */
    double *val;        /* the rows kept, row-major; owned (free with ptm_free()) */
};

/* Read a parameter's values as `output` writes them (runtime/engine/
 * outputs.c): a row a line, a matrix's columns separated by tabs (spaces
 * are accepted too), every line with as many values as the first, no
 * blank lines; CRLF accepted. Values as data values (finite, decimal; with
 * o->integer whole and at most 2^53). name names the file in messages
 * (NULL: path). Returns 0 and *out, whose sizes the caller compares with
 * the parameter's; or PTM_EDATA (messages "NAME:LINE:COL: error: ..." in
 * dg), PTM_ENOENT or PTM_EIO ("cannot open" or a read error in dg) or
 * PTM_ENOMEM, with *out empty. */
int ptm_data_read_values(const char *path, const char *name, const struct ptm_values_opts *o,
                         struct ptm_data_diags *dg, struct ptm_values *out);
/* The same from a memory buffer. Borrows all. */
int ptm_data_read_values_mem(const char *buf, size_t len, const char *name,
                             const struct ptm_values_opts *o, struct ptm_data_diags *dg,
                             struct ptm_values *out);

#endif
