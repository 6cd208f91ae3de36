/*
 * gen_mf.c - `ptm gen mf`: ratings from a low-rank matrix plus noise, with
 * a held-out split and the true factors (gen.h).
 *
 * DESIGN: the observed cells are drawn as linear indices i * cols + j, so
 * sorting them gives the files' row-major order. Exactly n distinct cells
 * are drawn by drawing n indices, sorting (radix), dropping repeats and
 * drawing the shortfall again until none is missing; when n is more than
 * half of the cells, the cells left out are drawn that way instead. Memory
 * is 16 bytes a rating at the peak (the cells and the sort's scratch)
 * plus W and H. Values (factors and ratings) are
 * rounded to multiples of 10^-6 and written as exact decimals, as in
 * gen_lasso.c: the factors in the files are the ones the ratings were made
 * from, bit for bit, and formatting is integer arithmetic.
 */
#include "gen_mf.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "gen.h"
#include "gen_impl.h"
#include "ptm.h"

/* Values are multiples of 10^-VALUE_DIGITS. */
#define VALUE_DIGITS 6
#define VALUE_SCALE 1e6
/* Largest noise: ratings stay far inside what llround() takes. */
#define NOISE_MAX 1e6

enum { STREAM_W = 1, STREAM_H, STREAM_CELLS, STREAM_SPLIT, STREAM_NOISE };

void ptm_gen_mf_defaults(struct gen_mf_opts *o)
{
    *o = (struct gen_mf_opts){
        .seed = 0,
        .rows = GEN_MF_ROWS,
        .cols = GEN_MF_COLS,
        .rank = GEN_MF_RANK,
        .ratings = 0,
        .density = GEN_MF_DENSITY,
        .test = GEN_MF_TEST,
        .noise = GEN_MF_NOISE,
    };
}

int64_t ptm_gen_mf_count(const struct gen_mf_opts *o)
{
    if (o->ratings > 0)
        return o->ratings;
    int64_t n = llround(o->density * (double)o->rows * (double)o->cols);
    return n < 1 ? 1 : n;
}

static bool opts_ok(const struct gen_mf_opts *o)
{
    if (!(o->rows >= 1 && o->rows <= INT32_MAX && o->cols >= 1 && o->cols <= INT32_MAX &&
          o->rank >= 1 && o->rank <= GEN_MF_RANK_MAX && o->ratings >= 0 && o->test >= 0 &&
          o->test < 1 && o->noise >= 0 && o->noise <= NOISE_MAX))
        return false;
    if (o->ratings == 0 && !(o->density > 0 && o->density <= 1))
        return false;
    return ptm_gen_mf_count(o) <= o->rows * o->cols;
}

/* ---- the observed cells ------------------------------------------------------ */

#define RADIX_BITS 16
#define RADIX ((size_t)1 << RADIX_BITS)

/* Sort a[0 .. n) (values below 2^bits): LSD radix sort, RADIX_BITS a
 * pass, with tmp (n entries) and count (RADIX entries) as scratch. */
static void radix_sort(uint64_t *a, uint64_t *tmp, size_t *count, int64_t n, int bits)
{
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < bits; shift += RADIX_BITS) {
        memset(count, 0, RADIX * sizeof(*count));
        for (int64_t i = 0; i < n; i++)
            count[(src[i] >> shift) & (RADIX - 1)]++;
        size_t sum = 0;
        for (size_t b = 0; b < RADIX; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & (RADIX - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof(*a));
}

/* n distinct values of 0 .. m-1 (n <= m / 2), ascending, into a. Every
 * set of n is equally likely: the result is the set of distinct values of
 * an i.i.d. sequence, stopped by a rule that looks only at which draws
 * repeat. Returns 0 or PTM_ENOMEM. */
static int draw_distinct(struct gen_rng *g, uint64_t m, int64_t n, uint64_t *a)
{
    uint64_t *tmp = ptm_malloc((size_t)(n > 0 ? n : 1) * sizeof(*tmp));
    size_t *count = ptm_malloc(RADIX * sizeof(*count));
    if (!tmp || !count) {
        ptm_free(tmp);
        ptm_free(count);
        return PTM_ENOMEM;
    }
    int bits = 0;
    while (bits < 64 && (m - 1) >> bits)
        bits++;
    int64_t have = 0;
    while (have < n) {
        for (int64_t i = have; i < n; i++)
            a[i] = gen_rng_below(g, m);
        radix_sort(a, tmp, count, n, bits);
        have = 1;
        for (int64_t i = 1; i < n; i++)
            if (a[i] != a[have - 1])
                a[have++] = a[i];
    }
    ptm_free(tmp);
    ptm_free(count);
    return 0;
}

/* The n observed cells of rows x cols, ascending, into cells. Returns 0
 * or PTM_ENOMEM. */
static int draw_cells(const struct gen_mf_opts *o, int64_t n, uint64_t *cells)
{
    uint64_t m = (uint64_t)o->rows * (uint64_t)o->cols;
    struct gen_rng g;
    gen_rng_seed(&g, o->seed, STREAM_CELLS);
    if ((uint64_t)n <= m / 2)
        return draw_distinct(&g, m, n, cells);
    /* Draw the cells left out (fewer than n), then list the others. */
    int64_t c = (int64_t)(m - (uint64_t)n);
    uint64_t *out = ptm_malloc((size_t)(c + 1) * sizeof(*out));
    if (!out)
        return PTM_ENOMEM;
    int rc = draw_distinct(&g, m, c, out);
    if (rc) {
        ptm_free(out);
        return rc;
    }
    out[c] = m; /* sentinel */
    int64_t k = 0, t = 0;
    for (uint64_t x = 0; x < m; x++) {
        if (x == out[t]) {
            t++;
            continue;
        }
        cells[k++] = x;
    }
    PTM_ASSERT(k == n);
    ptm_free(out);
    return 0;
}

/* ---- the factors ------------------------------------------------------------- */

/* n x r entries N(0, 1/sqrt(r)), rounded to multiples of 10^-6: as
 * integers in q (the file's decimals) and as doubles in f. */
static void draw_factor(struct gen_rng *g, int64_t n, int64_t r, int64_t *q, double *f)
{
    double sd = pow((double)r, -0.25);
    for (int64_t i = 0; i < n * r; i++) {
        q[i] = llround(sd * gen_rng_normal(g) * VALUE_SCALE);
        f[i] = (double)q[i] / VALUE_SCALE;
    }
}

static int write_factor(struct gen_out *o, const int64_t *q, int64_t n, int64_t r)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < r; k++) {
            char *p = gen_out_room(o);
            int len = gen_fmt_fixed(p, q[i * r + k], VALUE_DIGITS);
            p[len] = k + 1 < r ? '\t' : '\n';
            o->len += (size_t)len + 1;
        }
    return gen_out_finish(o);
}

/* ---- the rating files ------------------------------------------------------ */

static void write_mm_header(struct gen_out *o, const struct gen_mf_opts *op, const char *what,
                            int64_t nnz)
{
    char line[160];
    snprintf(line, sizeof(line),
             "%%%%MatrixMarket matrix coordinate real general\n"
             "%% ptm gen mf, seed %llu: %s ratings\n%lld %lld %lld\n",
             (unsigned long long)op->seed, what, (long long)op->rows, (long long)op->cols,
             (long long)nnz);
    gen_out_puts(o, line);
}

struct sums {
    int64_t n;
    double sq; /* sum of (rating - w_i . h_j)^2 */
};

/* One rating line "i j v" (1-based). */
static void put_rating(struct gen_out *o, uint64_t i, uint64_t j, int64_t q)
{
    char *p = gen_out_room(o), *s = p;
    s += gen_fmt_uint(s, i + 1);
    *s++ = ' ';
    s += gen_fmt_uint(s, j + 1);
    *s++ = ' ';
    s += gen_fmt_fixed(s, q, VALUE_DIGITS);
    *s++ = '\n';
    o->len += (size_t)(s - p);
}

static void write_ratings(const struct gen_mf_opts *op, const uint64_t *cells, int64_t n,
                          int64_t ntest, const double *w, const double *h, struct gen_out *ftr,
                          struct gen_out *fte, struct sums *tr, struct sums *te)
{
    struct gen_rng gs, gn;
    gen_rng_seed(&gs, op->seed, STREAM_SPLIT);
    gen_rng_seed(&gn, op->seed, STREAM_NOISE);
    uint64_t cols = (uint64_t)op->cols;
    int64_t r = op->rank, need = ntest;
    for (int64_t t = 0; t < n; t++) {
        uint64_t i = cells[t] / cols, j = cells[t] % cols;
        const double *wi = w + i * (uint64_t)r, *hj = h + j * (uint64_t)r;
        double dot = 0;
        for (int64_t k = 0; k < r; k++)
            dot += wi[k] * hj[k];
        int64_t q = llround((dot + op->noise * gen_rng_normal(&gn)) * VALUE_SCALE);
        double e = (double)q / VALUE_SCALE - dot;
        /* Selection sampling: exactly ntest of the n go to the test file. */
        bool test = (double)(n - t) * gen_rng_uniform(&gs) < (double)need;
        if (test)
            need--;
        struct sums *s = test ? te : tr;
        s->n++;
        s->sq += e * e;
        put_rating(test ? fte : ftr, i, j, q);
    }
}

/* info.tsv. */
static int write_info(struct gen_out *o, const struct gen_mf_opts *op, int64_t n,
                      const struct sums *tr, const struct sums *te)
{
    gen_out_kv_str(o, "model", "mf");
    gen_out_kv_int(o, "seed", (int64_t)op->seed);
    gen_out_kv_int(o, "rows", op->rows);
    gen_out_kv_int(o, "cols", op->cols);
    gen_out_kv_int(o, "rank", op->rank);
    gen_out_kv_int(o, "ratings", n);
    gen_out_kv_num(o, "density", (double)n / ((double)op->rows * (double)op->cols));
    gen_out_kv_int(o, "train", tr->n);
    gen_out_kv_int(o, "test", te->n);
    gen_out_kv_num(o, "noise", op->noise);
    gen_out_kv_num(o, "train_rmse_true", tr->n ? sqrt(tr->sq / (double)tr->n) : 0);
    gen_out_kv_num(o, "test_rmse_true", te->n ? sqrt(te->sq / (double)te->n) : 0);
    return gen_out_finish(o);
}

enum { F_W, F_H, F_TRAIN, F_TEST, F_INFO, NFILES };

static const char *const file_name[NFILES] = {
    [F_W] = "W_true.tsv",  [F_H] = "H_true.tsv",  [F_TRAIN] = "ratings.mtx",
    [F_TEST] = "test.mtx", [F_INFO] = "info.tsv",
};

int ptm_gen_mf(const struct gen_mf_opts *o, const char *dir, const char **file)
{
    if (file)
        *file = NULL;
    if (!opts_ok(o))
        return PTM_EINVAL;
    int64_t n = ptm_gen_mf_count(o), ntest = llround(o->test * (double)n);
    if ((uint64_t)n > SIZE_MAX / 16)
        return PTM_ENOMEM; /* the cells' sizes would not fit a size_t */
    int64_t r = o->rank, nw = o->rows * r, nh = o->cols * r;
    struct gen_out f[NFILES];
    memset(f, 0, sizeof(f));
    int rc = PTM_ENOMEM, at = -1;
    double *w = ptm_malloc((size_t)nw * sizeof(*w)), *h = ptm_malloc((size_t)nh * sizeof(*h));
    int64_t *q = ptm_malloc((size_t)(nw > nh ? nw : nh) * sizeof(*q));
    uint64_t *cells = ptm_malloc((size_t)n * sizeof(*cells));
    if (!w || !h || !q || !cells)
        goto out;

    struct gen_rng g;
    gen_rng_seed(&g, o->seed, STREAM_W);
    draw_factor(&g, o->rows, r, q, w);
    rc = gen_out_open(&f[at = F_W], dir, file_name[F_W]);
    if (!rc)
        rc = write_factor(&f[F_W], q, o->rows, r);
    if (rc)
        goto out;
    gen_rng_seed(&g, o->seed, STREAM_H);
    draw_factor(&g, o->cols, r, q, h);
    rc = gen_out_open(&f[at = F_H], dir, file_name[F_H]);
    if (!rc)
        rc = write_factor(&f[F_H], q, o->cols, r);
    if (rc)
        goto out;
    at = -1;
    rc = draw_cells(o, n, cells);
    if (rc)
        goto out;

    rc = gen_out_open(&f[at = F_TRAIN], dir, file_name[F_TRAIN]);
    if (!rc)
        rc = gen_out_open(&f[at = F_TEST], dir, file_name[F_TEST]);
    if (rc)
        goto out;
    write_mm_header(&f[F_TRAIN], o, "training", n - ntest);
    write_mm_header(&f[F_TEST], o, "held-out", ntest);
    struct sums tr = {0, 0}, te = {0, 0};
    write_ratings(o, cells, n, ntest, w, h, &f[F_TRAIN], &f[F_TEST], &tr, &te);
    PTM_ASSERT(te.n == ntest);
    rc = gen_out_finish(&f[at = F_TRAIN]);
    if (!rc)
        rc = gen_out_finish(&f[at = F_TEST]);
    if (!rc)
        rc = gen_out_open(&f[at = F_INFO], dir, file_name[F_INFO]);
    if (!rc)
        rc = write_info(&f[F_INFO], o, n, &tr, &te);
    for (int k = 0; k < NFILES && !rc; k++)
        rc = gen_out_rename(&f[at = k]);
out:
    if (rc == PTM_EIO && file && at >= 0)
        *file = file_name[at];
    /* No temporary file is left behind. */
    for (int k = 0; k < NFILES; k++)
        gen_out_release(&f[k]);
    ptm_free(w);
    ptm_free(h);
    ptm_free(q);
    ptm_free(cells);
    return rc;
}

/* ---- `ptm gen mf` ----------------------------------------------------------- */

enum { FLAG_ROWS, FLAG_COLS, FLAG_DENSITY, FLAG_NOISE, FLAG_RANK, FLAG_RATINGS, FLAG_TEST };

static const struct gen_flag flags[] = {
    [FLAG_ROWS] = GEN_INT32("--rows", 1),
    [FLAG_COLS] = GEN_INT32("--cols", 1),
    [FLAG_DENSITY] = GEN_REAL("--density", 0, 1, true, false, "a number in (0, 1]"),
    [FLAG_NOISE] = GEN_REAL("--noise", 0, HUGE_VAL, false, false, "a finite number >= 0"),
    [FLAG_RANK] = GEN_WHOLE("--rank", 1, GEN_MF_RANK_MAX, "a whole number from 1 to 1000"),
    [FLAG_RATINGS] = GEN_WHOLE("--ratings", 1, INT64_MAX, "a whole number from 1 to 9223372036854775807"),
    [FLAG_TEST] = GEN_REAL("--test", 0, 1, false, true, "a number in [0, 1)"),
    GEN_FLAGS_END,
};

static const char *check(const struct gen_args *a, char *buf, size_t len)
{
    long long rows = a->given[FLAG_ROWS] ? a->whole[FLAG_ROWS] : GEN_MF_ROWS;
    long long cols = a->given[FLAG_COLS] ? a->whole[FLAG_COLS] : GEN_MF_COLS;
    if (a->given[FLAG_RATINGS] && a->given[FLAG_DENSITY])
        return "gen mf: give --ratings or --density, not both";
    if (a->given[FLAG_RATINGS] && a->whole[FLAG_RATINGS] > rows * cols) {
        snprintf(buf, len, "gen mf: --ratings %lld is more than the %lld cells of %lld x %lld",
                 a->whole[FLAG_RATINGS], rows * cols, rows, cols);
        return buf;
    }
    if (a->given[FLAG_NOISE] && a->real[FLAG_NOISE] > 1e6) {
        snprintf(buf, len, "gen mf: --noise %g is more than 1e6", a->real[FLAG_NOISE]);
        return buf;
    }
    return NULL;
}

static int run(const struct gen_args *a, const char *dir, const char **file)
{
    struct gen_mf_opts o;
    ptm_gen_mf_defaults(&o);
    o.seed = a->seed;
    GEN_ARG(a, FLAG_ROWS, whole, o.rows);
    GEN_ARG(a, FLAG_COLS, whole, o.cols);
    GEN_ARG(a, FLAG_RANK, whole, o.rank);
    GEN_ARG(a, FLAG_RATINGS, whole, o.ratings);
    GEN_ARG(a, FLAG_DENSITY, real, o.density);
    GEN_ARG(a, FLAG_TEST, real, o.test);
    GEN_ARG(a, FLAG_NOISE, real, o.noise);
    return ptm_gen_mf(&o, dir, file);
}

static const struct gen_file files[] = {
    {"ratings.mtx", NULL}, {"test.mtx", NULL}, {"W_true.tsv", NULL}, {"H_true.tsv", NULL},
    {"info.tsv", NULL},
    {NULL, NULL},
};

const struct ptm_gen ptm_gen_mf_cmd = {
    .summary = "low-rank ratings plus noise, with a held-out split",
    .usage =
        "       ptm gen mf --seed N --out DIR [--rows R] [--cols C] [--rank K]\n"
        "                  [--ratings N | --density D] [--test SHARE] [--noise SIGMA]\n",
    .help =
        "mf: ratings R = W H' + noise on random cells, with a held-out split.\n"
        "  DIR/ratings.mtx  training ratings, MatrixMarket coordinate real\n"
        "  DIR/test.mtx     held-out ratings, the same way\n"
        "  DIR/W_true.tsv   W (R x K), one row a line, tab-separated\n"
        "  DIR/H_true.tsv   H (C x K), the same way\n"
        "  DIR/info.tsv     counts, the noise SIGMA and the RMSE of the true W H'\n"
        "                   on each file (train_rmse_true, test_rmse_true)\n"
        "W and H have N(0, 1/sqrt(K)) entries, so that w_i . h_j has variance\n"
        "about 1. N distinct cells drawn uniformly are observed, each rating\n"
        "w_i . h_j plus N(0, SIGMA^2) noise; a share SHARE of them, drawn\n"
        "uniformly, is held out. Values are rounded to multiples of 1e-6.\n"
        "\n"
        "  --rows R       rows (users) (default 2000)\n"
        "  --cols C       columns (items) (default 1000)\n"
        "  --rank K       rank of W H', 1 .. 1000 (default 10)\n"
        "  --ratings N    observed cells, at most R x C (default D x R x C)\n"
        "  --density D    share of the cells observed, in (0, 1] (default 0.05);\n"
        "                 not with --ratings\n"
        "  --test SHARE   share of the ratings held out, in [0, 1) (default 0.1)\n"
        "  --noise SIGMA  standard deviation of the noise, 0 .. 1e6 (default 0.1)\n",
    .flags = flags,
    .check = check,
    .run = run,
    .files = files,
};
