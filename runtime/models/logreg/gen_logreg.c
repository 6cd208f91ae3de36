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

/* The rows of train.svm into otrain (their sums into sum), then op->test
 * held-out rows from the same streams into ot (the training file is the
 * same with or without them). */
static int write_rows(struct gen_out *otrain, struct gen_out *ot, const struct gen_logreg_opts *op,
                      const double *w, bool *mark, struct sums *sum)
{
    int64_t d = op->cols;
    double per_row = op->density * (double)d;
    int64_t whole = (int64_t)per_row;
    double frac = per_row - (double)whole;
    int64_t max_entries = whole + 2 < d ? whole + 2 : d;
    int32_t *col = ptm_malloc((size_t)max_entries * sizeof(*col));
    int64_t *q = ptm_malloc((size_t)max_entries * sizeof(*q));
    if (!col || !q) {
        ptm_free(col);
        ptm_free(q);
        return PTM_ENOMEM;
    }
    struct gen_rng gx, gy;
    gen_rng_seed(&gx, op->seed, STREAM_X);
    gen_rng_seed(&gy, op->seed, STREAM_LABEL);
    bool last_seen = false;
    struct sums held = {0, 0, 0, 0};
    for (int64_t i = 0; i < op->rows + op->test; i++) {
        struct gen_out *o = i < op->rows ? otrain : ot;
        struct sums *sm = i < op->rows ? sum : &held;
        int64_t m = whole + (gen_rng_uniform(&gx) < frac ? 1 : 0);
        if (m > d)
            m = d;
        gen_draw_sorted(&gx, d, m, col, mark);
        /* The last row holds the last column when no row did. */
        bool force = i == op->rows - 1 && !last_seen;
        if (force && (m == 0 || col[m - 1] != d - 1))
            col[m++] = (int32_t)(d - 1);
        int64_t ne = 0;
        double margin = 0;
        for (int64_t k = 0; k < m; k++) {
            int64_t mq = llround(gen_rng_normal(&gx) * VALUE_SCALE);
            if (mq == 0) {
                if (!(force && col[k] == d - 1))
                    continue;
                mq = 1;
            }
            col[ne] = col[k];
            q[ne++] = mq;
            if (w[col[k]] != 0)
                margin += ((double)mq / VALUE_SCALE) * w[col[k]];
        }
        if (ne > 0 && col[ne - 1] == d - 1)
            last_seen = true;
        double p = 1 / (1 + exp(-margin));
        bool pos = gen_rng_uniform(&gy) < p;
        sm->nnz += ne;
        sm->positives += pos;
        sm->prob += p;
        sm->logloss += log1pexp(pos ? -margin : margin);
        char *s = gen_out_room(o);
        memcpy(s, pos ? "1" : "-1", pos ? 1 : 2);
        o->len += pos ? 1 : 2;
        for (int64_t k = 0; k < ne; k++) {
            char *p0 = gen_out_room(o);
            s = p0;
            *s++ = ' ';
            s += gen_fmt_uint(s, (uint64_t)col[k] + 1);
            *s++ = ':';
            s += gen_fmt_fixed(s, q[k], VALUE_DIGITS);
            o->len += (size_t)(s - p0);
        }
        o->buf[o->len++] = '\n';
    }
    ptm_free(col);
    ptm_free(q);
    int rc = gen_out_finish(otrain);
    return rc == 0 && op->test > 0 ? gen_out_finish(ot) : rc;
}

static int write_info(struct gen_out *o, const struct gen_logreg_opts *op, const struct sums *s)
{
    double n = (double)op->rows;
    gen_out_kv_str(o, "model", "logreg");
    gen_out_kv_int(o, "seed", (int64_t)op->seed);
    gen_out_kv_int(o, "rows", op->rows);
    gen_out_kv_int(o, "cols", op->cols);
    gen_out_kv_num(o, "density", op->density);
    gen_out_kv_int(o, "nonzeros", op->nonzeros);
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
    struct sums sum = {0, 0, 0, 0};
    rc = gen_out_open(&f[at = F_W], dir, file_name[F_W]);
    if (!rc)
        rc = write_w(&f[F_W], w, d);
    if (!rc)
        rc = gen_out_open(&f[at = F_TRAIN], dir, file_name[F_TRAIN]);
    if (!rc && o->test > 0)
        rc = gen_out_open(&f[at = F_TEST], dir, file_name[F_TEST]);
    if (!rc) {
        rc = write_rows(&f[F_TRAIN], &f[F_TEST], o, w, mark, &sum);
        if (rc == PTM_ENOMEM)
            at = -1;
    }
    if (!rc)
        rc = gen_out_open(&f[at = F_INFO], dir, file_name[F_INFO]);
    if (!rc)
        rc = write_info(&f[F_INFO], o, &sum);
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

enum { FLAG_ROWS, FLAG_COLS, FLAG_DENSITY, FLAG_NONZEROS, FLAG_TEST };

static const struct gen_flag flags[] = {
    [FLAG_ROWS] = GEN_INT32("--rows", 1),
    [FLAG_COLS] = GEN_INT32("--cols", 1),
    [FLAG_DENSITY] = GEN_REAL("--density", 0, 1, true, false, "a number in (0, 1]"),
    [FLAG_NONZEROS] = GEN_INT32("--nonzeros", 0),
    [FLAG_TEST] = GEN_REAL("--test", 0, 1, false, true, "a number in [0, 1)"),
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
        "                      [--nonzeros K] [--test SHARE]\n",
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
        "\n"
        "  --rows R       rows of X (default 10000)\n"
        "  --cols C       columns of X (default 1000)\n"
        "  --density D    share of non-zeros in a row, in (0, 1] (default 0.05)\n"
        "  --nonzeros K   non-zero weights of w*, at most C (default 100, or C\n"
        "                 when C is smaller)\n"
        "  --test SHARE   also write SHARE x R held-out rows, in [0, 1), to\n"
        "                 DIR/test.svm (default 0: none); train.svm is the same\n"
        "                 with or without them\n",
    .flags = flags,
    .check = check,
    .run = run,
    .files = files,
};
