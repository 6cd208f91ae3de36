/*
 * gen_logreg.c - `ptm gen logreg`: a sparse binary classification problem
 * whose labels follow a logistic model with known weights (gen.h).
 *
 * DESIGN: as gen_lasso.c, the file is written a row at a time, memory is
 * w* plus one row, values are multiples of 10^-6 written as exact
 * decimals, and the margin x . w* is computed from the values the reader
 * will get, so the labels follow the model of the file's own numbers.
 */
#include "gen_logreg.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "gen.h"
#include "gen_impl.h"
#include "ptm.h"

/* Values are multiples of 10^-VALUE_DIGITS. */
#define VALUE_DIGITS 6
#define VALUE_SCALE 1e6

enum { STREAM_X = 1, STREAM_W, STREAM_LABEL };

void ptm_gen_logreg_defaults(struct gen_logreg_opts *o)
{
    *o = (struct gen_logreg_opts){
        .seed = 0,
        .rows = GEN_LOGREG_ROWS,
        .cols = GEN_LOGREG_COLS,
        .density = GEN_LOGREG_DENSITY,
        .nonzeros = GEN_LOGREG_NONZEROS,
    };
}

static bool opts_ok(const struct gen_logreg_opts *o)
{
    return o->rows >= 1 && o->rows <= INT32_MAX && o->cols >= 1 && o->cols <= INT32_MAX &&
           o->density > 0 && o->density <= 1 && o->nonzeros >= 0 && o->nonzeros <= o->cols &&
           o->test >= 0 && o->test <= INT32_MAX;
}

/* w*: nonzeros columns by Floyd's algorithm, values in column order. */
static void draw_w(const struct gen_logreg_opts *o, bool *mark, double *w)
{
    struct gen_rng g;
    gen_rng_seed(&g, o->seed, STREAM_W);
    int64_t d = o->cols;
    memset(mark, 0, (size_t)d);
    for (int64_t j = d - o->nonzeros; j < d; j++) {
        int64_t t = (int64_t)gen_rng_below(&g, (uint64_t)j + 1);
        mark[mark[t] ? j : t] = true;
    }
    double active = (double)o->nonzeros * o->density;
    double s = GEN_LOGREG_MARGIN / sqrt(active > 1 ? active : 1);
    for (int64_t j = 0; j < d; j++) {
        w[j] = 0;
        if (mark[j]) {
            w[j] = s * gen_rng_normal(&g);
            if (w[j] == 0) /* a non-zero weight is not zero */
                w[j] = s * 0x1p-30;
        }
    }
    memset(mark, 0, (size_t)d);
}

static int write_w(struct gen_out *o, const double *w, int64_t d)
{
    for (int64_t j = 0; j < d; j++) {
        char *p = gen_out_room(o);
        int len = gen_fmt_double(p, w[j]);
        p[len] = '\n';
        o->len += (size_t)len + 1;
    }
    return gen_out_finish(o);
}

/* What the rows add up to, for info.tsv. */
struct sums {
    int64_t nnz, positives;
    double prob;    /* sum of sigmoid(x . w*) */
    double logloss; /* sum of log(1 + exp(-y x . w*)) */
};

/* log(1 + exp(t)) without overflow. */
static double log1pexp(double t)
{
    return t > 0 ? t + log1p(exp(-t)) : log1p(exp(t));
}

/* A column of a row and its value. */
struct entry {
    int32_t col;
    double v;
};

/* The rows of X, one after the other from the seed's X stream (the same
 * rows every time it is started again). */
struct rowgen {
    const struct gen_logreg_opts *op;
    struct gen_rng gx;
    int64_t whole, cap;
    double frac;
    int32_t *col; /* cap entries: the row's columns, ascending */
    int64_t *q;   /* cap: its values, in units of 10^-VALUE_DIGITS */
    int64_t ne;
    bool *mark;   /* cols entries, all false between rows */
    bool last_seen;
    /* --hard */
    struct gen_alias zipf;
    struct entry *ent; /* cap: the row's columns and values before scaling */
};

static void rowgen_release(struct rowgen *r)
{
    ptm_free(r->col);
    ptm_free(r->q);
    ptm_free(r->ent);
    ptm_free(r->zipf.prob);
    ptm_free(r->zipf.alias);
}

static int rowgen_init(struct rowgen *r, const struct gen_logreg_opts *op, bool *mark)
{
    memset(r, 0, sizeof(*r));
    r->op = op;
    r->mark = mark;
    int64_t d = op->cols;
    double per_row = op->density * (double)d;
    r->whole = (int64_t)per_row;
    r->frac = per_row - (double)r->whole;
    r->cap = r->whole + 2 < d ? r->whole + 2 : d;
    r->col = ptm_malloc((size_t)r->cap * sizeof(*r->col));
    r->q = ptm_malloc((size_t)r->cap * sizeof(*r->q));
    if (!r->col || !r->q)
        return PTM_ENOMEM;
    if (op->hard) {
        double *p = ptm_malloc((size_t)d * sizeof(double)), sum = 0;
        int32_t *small = ptm_malloc((size_t)d * sizeof(int32_t));
        int32_t *large = ptm_malloc((size_t)d * sizeof(int32_t));
        r->zipf = (struct gen_alias){p, ptm_malloc((size_t)d * sizeof(int32_t)), d};
        r->ent = ptm_malloc((size_t)r->cap * sizeof(*r->ent));
        int rc = p && small && large && r->zipf.alias && r->ent ? 0 : PTM_ENOMEM;
        if (rc == 0) {
            for (int64_t j = 0; j < d; j++)
                sum += p[j] = pow((double)(j + 1), -GEN_LOGREG_ZIPF);
            for (int64_t j = 0; j < d; j++)
                p[j] /= sum;
            gen_alias_build(&r->zipf, p, small, large);
        }
        ptm_free(small);
        ptm_free(large);
        if (rc != 0)
            return rc;
    }
    gen_rng_seed(&r->gx, op->seed, STREAM_X);
    return 0;
}

/* --hard: a column not in the row yet, by popularity; after 32 draws of
 * columns already in it, the next free one after a uniform start. */
static int32_t popular_col(struct rowgen *r)
{
    for (int t = 0; t < 32; t++) {
        int32_t j = gen_alias_draw(&r->zipf, &r->gx);
        if (!r->mark[j])
            return j;
    }
    int64_t d = r->op->cols, j = (int64_t)gen_rng_below(&r->gx, (uint64_t)d);
    while (r->mark[j])
        j = (j + 1) % d;
    return (int32_t)j;
}

static int by_col(const void *a, const void *b)
{
    int32_t x = ((const struct entry *)a)->col, y = ((const struct entry *)b)->col;
    return (x > y) - (x < y);
}

/* --hard: m columns (and the last one when force), values scaled to a
 * unit norm, ascending, into col and q. */
static void hard_row(struct rowgen *r, int64_t m, bool force)
{
    int64_t d = r->op->cols, n = 0;
    struct entry *e = r->ent;
    while (n < m) {
        int32_t j = popular_col(r);
        double v = (1 + fabs(gen_rng_normal(&r->gx))) * log1p((double)d / (double)(j + 1));
        e[n++] = (struct entry){j, v};
        r->mark[j] = true;
        int64_t pj = j ^ 1;
        if (n < m && pj < d && !r->mark[pj] && gen_rng_uniform(&r->gx) < GEN_LOGREG_PARTNER) {
            e[n++] = (struct entry){(int32_t)pj, v * exp(0.1 * gen_rng_normal(&r->gx))};
            r->mark[pj] = true;
        }
    }
    if (force && !r->mark[d - 1] && n < r->cap)
        e[n++] = (struct entry){(int32_t)(d - 1), log1p(1.0)};
    double sq = 0;
    for (int64_t k = 0; k < n; k++) {
        sq += e[k].v * e[k].v;
        r->mark[e[k].col] = false;
    }
    qsort(e, (size_t)n, sizeof(*e), by_col);
    double scale = sq > 0 ? 1 / sqrt(sq) : 0;
    int64_t ne = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t mq = llround(e[k].v * scale * VALUE_SCALE);
        if (mq == 0 && !(force && e[k].col == d - 1))
            continue;
        r->col[ne] = e[k].col;
        r->q[ne++] = mq > 0 ? mq : 1;
    }
    r->ne = ne;
}

/* The next row into r->col, r->q, r->ne; i is its number (rows of the
 * training file first). */
static void next_row(struct rowgen *r, int64_t i)
{
    const struct gen_logreg_opts *op = r->op;
    int64_t d = op->cols;
    int64_t m = r->whole + (gen_rng_uniform(&r->gx) < r->frac ? 1 : 0);
    if (m > d)
        m = d;
    /* The last row holds the last column when no row did. */
    bool force = i == op->rows - 1 && !r->last_seen;
    if (op->hard) {
        hard_row(r, m, force);
    } else {
        int32_t *col = r->col;
        gen_draw_sorted(&r->gx, d, m, col, r->mark);
        if (force && (m == 0 || col[m - 1] != d - 1))
            col[m++] = (int32_t)(d - 1);
        int64_t ne = 0;
        for (int64_t k = 0; k < m; k++) {
            int64_t mq = llround(gen_rng_normal(&r->gx) * VALUE_SCALE);
            if (mq == 0) {
                if (!(force && col[k] == d - 1))
                    continue;
                mq = 1;
            }
            col[ne] = col[k];
            r->q[ne++] = mq;
        }
        r->ne = ne;
    }
    if (r->ne > 0 && r->col[r->ne - 1] == d - 1)
        r->last_seen = true;
}

/* x . w of the row in r. */
static double row_margin(const struct rowgen *r, const double *w)
{
    double margin = 0;
    for (int64_t k = 0; k < r->ne; k++)
        if (w[r->col[k]] != 0)
            margin += ((double)r->q[k] / VALUE_SCALE) * w[r->col[k]];
    return margin;
}

/* --hard: w scaled so that x . w over the training rows has a standard
 * deviation of GEN_LOGREG_MARGIN, and the bias that puts their mean at
 * GEN_LOGREG_BIAS (a pass over the rows, not written). */
static int scale_w(const struct gen_logreg_opts *op, bool *mark, double *w, double *bias)
{
    struct rowgen r;
    int rc = rowgen_init(&r, op, mark);
    double s1 = 0, s2 = 0;
    for (int64_t i = 0; rc == 0 && i < op->rows; i++) {
        next_row(&r, i);
        double m = row_margin(&r, w);
        s1 += m;
        s2 += m * m;
    }
    rowgen_release(&r);
    double n = (double)op->rows, mean = s1 / n, var = s2 / n - mean * mean;
    double f = var > 0 ? GEN_LOGREG_MARGIN / sqrt(var) : 1;
    if (rc == 0)
        for (int64_t j = 0; j < op->cols; j++)
            w[j] *= f;
    *bias = GEN_LOGREG_BIAS - mean * f;
    return rc;
}

/* The rows of train.svm into otrain (their sums into sum), then op->test
 * held-out rows from the same streams into ot (the training file is the
 * same with or without them). */
static int write_rows(struct gen_out *otrain, struct gen_out *ot, const struct gen_logreg_opts *op,
                      const double *w, double bias, bool *mark, struct sums *sum)
{
    struct rowgen r;
    int rc = rowgen_init(&r, op, mark);
    if (rc != 0) {
        rowgen_release(&r);
        return rc;
    }
    struct gen_rng gy;
    gen_rng_seed(&gy, op->seed, STREAM_LABEL);
    struct sums held = {0, 0, 0, 0};
    for (int64_t i = 0; i < op->rows + op->test; i++) {
        struct gen_out *o = i < op->rows ? otrain : ot;
        struct sums *sm = i < op->rows ? sum : &held;
        next_row(&r, i);
        double margin = row_margin(&r, w) + bias;
        double p = 1 / (1 + exp(-margin));
        bool pos = gen_rng_uniform(&gy) < p;
        sm->nnz += r.ne;
        sm->positives += pos;
        sm->prob += p;
        sm->logloss += log1pexp(pos ? -margin : margin);
        char *s = gen_out_room(o);
        memcpy(s, pos ? "1" : "-1", pos ? 1 : 2);
        o->len += pos ? 1 : 2;
        for (int64_t k = 0; k < r.ne; k++) {
            char *p0 = gen_out_room(o);
            s = p0;
            *s++ = ' ';
            s += gen_fmt_uint(s, (uint64_t)r.col[k] + 1);
            *s++ = ':';
            s += gen_fmt_fixed(s, r.q[k], VALUE_DIGITS);
            o->len += (size_t)(s - p0);
        }
        o->buf[o->len++] = '\n';
    }
    rowgen_release(&r);
    rc = gen_out_finish(otrain);
    return rc == 0 && op->test > 0 ? gen_out_finish(ot) : rc;
}

static int write_info(struct gen_out *o, const struct gen_logreg_opts *op, const struct sums *s,
                      double bias)
{
    double n = (double)op->rows;
    gen_out_kv_str(o, "model", "logreg");
    gen_out_kv_int(o, "seed", (int64_t)op->seed);
    gen_out_kv_int(o, "rows", op->rows);
    gen_out_kv_int(o, "cols", op->cols);
    gen_out_kv_num(o, "density", op->density);
    gen_out_kv_int(o, "nonzeros", op->nonzeros);
    gen_out_kv_int(o, "hard", op->hard);
    gen_out_kv_num(o, "bias", bias);
    gen_out_kv_int(o, "nnz", s->nnz);
    gen_out_kv_int(o, "positives", s->positives);
    gen_out_kv_num(o, "mean_sigmoid", s->prob / n);
    gen_out_kv_num(o, "logloss_true", s->logloss / n);
    return gen_out_finish(o);
}

enum { F_W, F_TRAIN, F_TEST, F_INFO, NFILES };

static const char *const file_name[NFILES] = {
    [F_W] = "w_true.tsv",
    [F_TRAIN] = "train.svm",
    [F_TEST] = "test.svm",
    [F_INFO] = "info.tsv",
};

int ptm_gen_logreg(const struct gen_logreg_opts *o, const char *dir, const char **file)
{
    if (file)
        *file = NULL;
    if (!opts_ok(o))
        return PTM_EINVAL;
    int64_t d = o->cols;
    double *w = ptm_malloc((size_t)d * sizeof(*w));
    bool *mark = ptm_malloc((size_t)d * sizeof(*mark));
    struct gen_out f[NFILES];
    memset(f, 0, sizeof(f));
    int rc = PTM_ENOMEM, at = -1;
    if (!w || !mark)
        goto out;
    draw_w(o, mark, w);
    double bias = 0;
    if (o->hard && (rc = scale_w(o, mark, w, &bias)) != 0)
        goto out;
    rc = PTM_ENOMEM;
    struct sums sum = {0, 0, 0, 0};
    rc = gen_out_open(&f[at = F_W], dir, file_name[F_W]);
    if (!rc)
        rc = write_w(&f[F_W], w, d);
    if (!rc)
        rc = gen_out_open(&f[at = F_TRAIN], dir, file_name[F_TRAIN]);
    if (!rc && o->test > 0)
        rc = gen_out_open(&f[at = F_TEST], dir, file_name[F_TEST]);
    if (!rc) {
        rc = write_rows(&f[F_TRAIN], &f[F_TEST], o, w, bias, mark, &sum);
        if (rc == PTM_ENOMEM)
            at = -1;
    }
    if (!rc)
        rc = gen_out_open(&f[at = F_INFO], dir, file_name[F_INFO]);
    if (!rc)
        rc = write_info(&f[F_INFO], o, &sum, bias);
    for (int k = 0; k < NFILES && !rc; k++)
        if (k != F_TEST || o->test > 0)
            rc = gen_out_rename(&f[at = k]);
out:
    if (rc == PTM_EIO && file && at >= 0)
        *file = file_name[at];
    /* No temporary file is left behind. */
    for (int k = 0; k < NFILES; k++)
        gen_out_release(&f[k]);
    ptm_free(w);
    ptm_free(mark);
    return rc;
}

/* ---- `ptm gen logreg` ----------------------------------------------------------- */

enum { FLAG_ROWS, FLAG_COLS, FLAG_DENSITY, FLAG_NONZEROS, FLAG_TEST, FLAG_HARD };

static const struct gen_flag flags[] = {
    [FLAG_ROWS] = GEN_INT32("--rows", 1),
    [FLAG_COLS] = GEN_INT32("--cols", 1),
    [FLAG_DENSITY] = GEN_REAL("--density", 0, 1, true, false, "a number in (0, 1]"),
    [FLAG_NONZEROS] = GEN_INT32("--nonzeros", 0),
    [FLAG_TEST] = GEN_REAL("--test", 0, 1, false, true, "a number in [0, 1)"),
    [FLAG_HARD] = GEN_SWITCH("--hard"),
    GEN_FLAGS_END,
};

static const char *check(const struct gen_args *a, char *buf, size_t len)
{
    return gen_check_nonzeros(a, FLAG_COLS, GEN_LOGREG_COLS, FLAG_NONZEROS, "logreg", buf, len);
}

static int run(const struct gen_args *a, const char *dir, const char **file)
{
    struct gen_logreg_opts o;
    ptm_gen_logreg_defaults(&o);
    o.seed = a->seed;
    GEN_ARG(a, FLAG_ROWS, whole, o.rows);
    GEN_ARG(a, FLAG_COLS, whole, o.cols);
    GEN_ARG(a, FLAG_DENSITY, real, o.density);
    GEN_ARG(a, FLAG_NONZEROS, whole, o.nonzeros);
    double share = 0;
    GEN_ARG(a, FLAG_TEST, real, share);
    o.test = llround(share * (double)o.rows);
    o.hard = a->given[FLAG_HARD];
    if (o.nonzeros > o.cols)
        o.nonzeros = o.cols; /* the default: check() refused a given one */
    return ptm_gen_logreg(&o, dir, file);
}

static const struct gen_file files[] = {
    {"train.svm", NULL}, {"w_true.tsv", NULL}, {"test.svm", "--test 0.2"}, {"info.tsv", NULL},
    {NULL, NULL},
};

const struct ptm_gen ptm_gen_logreg_cmd = {
    .summary = "binary classification from a logistic model",
    .usage =
        "       ptm gen logreg --seed N --out DIR [--rows R] [--cols C] [--density D]\n"
        "                      [--nonzeros K] [--test SHARE] [--hard]\n",
    .help =
        "logreg: binary classification, P(y = 1 | x) = 1 / (1 + exp(-x . w*)).\n"
        "  DIR/train.svm   X and y, libsvm, labels 1 and -1\n"
        "  DIR/w_true.tsv  w*, one weight a line\n"
        "  DIR/test.svm    with --test SHARE: held-out rows of the same model\n"
        "  DIR/info.tsv    counts, mean_sigmoid (the mean of sigmoid(x . w*): the\n"
        "                  expected share of 1s) and logloss_true (the log-loss\n"
        "                  of w* on these labels)\n"
        "Each row has D x C non-zeros on columns drawn uniformly, normal values\n"
        "rounded to multiples of 1e-6. w* has K non-zero normal weights, scaled\n"
        "so that x . w* has a standard deviation of about 2.\n"
        "With --hard the rows look like text (tf-idf): columns drawn by a\n"
        "popularity that falls as 1 / (j + 1), each followed by its partner\n"
        "column (j xor 1) 8 times in 10 with a value within 10% (strongly\n"
        "correlated pairs), positive values weighted up for rare columns, each\n"
        "row scaled to unit norm; the margin is x . w* + b, b (info.tsv) such\n"
        "that the mean margin is -1.5 (about one row in four is 1). First-order\n"
        "methods need their step tuned on such data.\n"
        "\n"
        "  --rows R       rows of X (default 10000)\n"
        "  --cols C       columns of X (default 1000)\n"
        "  --density D    share of non-zeros in a row, in (0, 1] (default 0.05)\n"
        "  --nonzeros K   non-zero weights of w*, at most C (default 100, or C\n"
        "                 when C is smaller)\n"
        "  --test SHARE   also write SHARE x R held-out rows, in [0, 1), to\n"
        "                 DIR/test.svm (default 0: none); train.svm is the same\n"
        "                 with or without them\n"
        "  --hard         text-like rows (above)\n",
    .flags = flags,
    .check = check,
    .run = run,
    .files = files,
};
