/*
 * gen_lasso.c - `ptm gen lasso`: a sparse regression problem with a known
 * answer and correlated feature groups (gen.h). What the generators share
 * (variates, number formatting, output) is in gen_util.c.
 *
 * DESIGN: the file is written a row at a time from a row buffer, so memory
 * is beta* plus one row whatever the size. Matrix values are rounded to
 * multiples of 10^-6 and written as exact decimals: formatting is integer
 * arithmetic (no printf per entry), the reader's fast path parses them,
 * and the double the reader makes from "d.dddddd" is the one the generator
 * used ((double)m / 1e6 and strtod() both round the same rational
 * correctly). Three PRNG streams (X, beta*, noise) are derived from the
 * seed so that each part depends only on its own options.
 */
#include "gen_lasso.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "gen.h"
#include "gen_impl.h"
#include "ptm.h"

/* Matrix values are multiples of 10^-VALUE_DIGITS. */
#define VALUE_DIGITS 6
#define VALUE_SCALE 1e6

/* ---- the Lasso generator -------------------------------------------------- */

void ptm_gen_lasso_defaults(struct gen_lasso_opts *o)
{
    *o = (struct gen_lasso_opts){
        .seed = 0,
        .rows = GEN_LASSO_ROWS,
        .cols = GEN_LASSO_COLS,
        .density = GEN_LASSO_DENSITY,
        .group = GEN_LASSO_GROUP,
        .corr = GEN_LASSO_CORR,
        .nonzeros = GEN_LASSO_NONZEROS,
        .noise = GEN_LASSO_NOISE,
    };
}

static bool opts_ok(const struct gen_lasso_opts *o)
{
    return o->rows >= 1 && o->rows <= INT32_MAX && o->cols >= 1 && o->cols <= INT32_MAX &&
           o->density > 0 && o->density <= 1 && o->group >= 1 && o->corr >= 0 && o->corr <= 1 &&
           o->nonzeros >= 0 && o->nonzeros <= o->cols && o->noise >= 0 && isfinite(o->noise) &&
           isfinite(o->offset) && o->test >= 0 && o->test <= INT32_MAX;
}

/* beta*: nonzeros columns by Floyd's algorithm, values in column order. */
static void draw_beta(const struct gen_lasso_opts *o, bool *mark, double *beta)
{
    struct gen_rng g;
    gen_rng_seed(&g, o->seed, 2);
    int64_t d = o->cols;
    memset(mark, 0, (size_t)d);
    for (int64_t j = d - o->nonzeros; j < d; j++) {
        int64_t t = (int64_t)gen_rng_below(&g, (uint64_t)j + 1);
        mark[mark[t] ? j : t] = true;
    }
    for (int64_t j = 0; j < d; j++) {
        beta[j] = 0;
        if (mark[j]) {
            double sign = (gen_rng_next(&g) >> 63) ? -1 : 1;
            beta[j] = sign * (0.5 + gen_rng_uniform(&g));
        }
    }
    memset(mark, 0, (size_t)d);
}

/* perm[c]: where generated column c goes; the identity when grouped,
 * else uniform over all but the last column (Fisher-Yates, stream 4). */
static void draw_perm(const struct gen_lasso_opts *o, int32_t *perm)
{
    int64_t d = o->cols;
    for (int64_t c = 0; c < d; c++)
        perm[c] = (int32_t)c;
    if (o->grouped)
        return;
    struct gen_rng g;
    gen_rng_seed(&g, o->seed, 4);
    for (int64_t c = d - 2; c > 0; c--) {
        int64_t t = (int64_t)gen_rng_below(&g, (uint64_t)c + 1);
        int32_t s = perm[c];
        perm[c] = perm[t];
        perm[t] = s;
    }
}

static int write_beta(struct gen_out *o, const double *beta, const int32_t *perm, int64_t d,
                      double *out)
{
    for (int64_t c = 0; c < d; c++)
        out[perm[c]] = beta[c];
    for (int64_t j = 0; j < d; j++) {
        char *p = gen_out_room(o);
        int len = gen_fmt_double(p, out[j]);
        p[len] = '\n';
        o->len += (size_t)len + 1;
    }
    return gen_out_finish(o);
}

/* groups.tsv: each column's correlated group (1-based), the planted
 * structure a dependency may be told (`depend coef from ...` of its pairs). */
static int write_groups(struct gen_out *o, const struct gen_lasso_opts *op, const int32_t *perm,
                        int32_t *out)
{
    int64_t d = op->cols, gsz = op->group < d ? op->group : d;
    for (int64_t c = 0; c < d; c++)
        out[perm[c]] = (int32_t)(c / gsz);
    for (int64_t j = 0; j < d; j++) {
        char *p = gen_out_room(o);
        int len = gen_fmt_uint(p, (uint64_t)out[j] + 1);
        p[len] = '\n';
        o->len += (size_t)len + 1;
    }
    return gen_out_finish(o);
}

/* An entry of a row: its column (after the permutation) and value. */
struct entry {
    int32_t col;
    int64_t q;
};

static int by_col(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->col > y->col) - (x->col < y->col);
}

/* The rows of lasso.svm into o, then op->test held-out rows from the same
 * streams into ot (the training file is the same with or without them). */
static int write_rows(struct gen_out *otrain, struct gen_out *ot, const struct gen_lasso_opts *op,
                      const double *beta, const int32_t *perm, bool *mark)
{
    int64_t d = op->cols, gsz = op->group < d ? op->group : d;
    int64_t ng = (d + gsz - 1) / gsz;
    double per_row = op->density * (double)ng;
    int64_t whole = (int64_t)per_row;
    double frac = per_row - (double)whole;
    int64_t max_groups = whole + 2 < ng ? whole + 2 : ng;
    int64_t max_entries = max_groups * gsz < d ? max_groups * gsz : d;

    int32_t *pick = ptm_malloc((size_t)max_groups * sizeof(*pick));
    struct entry *ent = ptm_malloc((size_t)max_entries * sizeof(*ent));
    if (!pick || !ent) {
        ptm_free(pick);
        ptm_free(ent);
        return PTM_ENOMEM;
    }
    struct gen_rng gx, gn;
    gen_rng_seed(&gx, op->seed, 1);
    gen_rng_seed(&gn, op->seed, 3);
    double a = sqrt(op->corr), b = sqrt(1 - op->corr);
    bool last_seen = false;
    for (int64_t i = 0; i < op->rows + op->test; i++) {
        struct gen_out *o = i < op->rows ? otrain : ot;
        int64_t m = whole + (gen_rng_uniform(&gx) < frac ? 1 : 0);
        if (m > ng)
            m = ng;
        gen_draw_sorted(&gx, ng, m, pick, mark);
        if (m > 0 && pick[m - 1] == ng - 1)
            last_seen = true;
        if (i == op->rows - 1 && !last_seen)
            pick[m++] = (int32_t)(ng - 1);
        int64_t ne = 0;
        double y = 0;
        for (int64_t k = 0; k < m; k++) {
            double f = gen_rng_normal(&gx);
            int64_t c0 = (int64_t)pick[k] * gsz, c1 = c0 + gsz < d ? c0 + gsz : d;
            for (int64_t c = c0; c < c1; c++) {
                double x = a * f + b * gen_rng_normal(&gx);
                if (op->nonnegative)
                    x = fabs(x);
                int64_t mq = (int64_t)llround(x * VALUE_SCALE);
                if (mq == 0)
                    continue;
                ent[ne++] = (struct entry){perm[c], mq};
                if (beta[c] != 0)
                    y += ((double)mq / VALUE_SCALE) * beta[c];
            }
        }
        y += op->noise * gen_rng_normal(&gn) + op->offset;
        if (!op->grouped)
            qsort(ent, (size_t)ne, sizeof(*ent), by_col);
        char *p = gen_out_room(o);
        o->len += (size_t)gen_fmt_double(p, y);
        for (int64_t k = 0; k < ne; k++) {
            p = gen_out_room(o);
            char *s = p;
            *s++ = ' ';
            s += gen_fmt_uint(s, (uint64_t)ent[k].col + 1);
            *s++ = ':';
            s += gen_fmt_fixed(s, ent[k].q, VALUE_DIGITS);
            o->len += (size_t)(s - p);
        }
        o->buf[o->len++] = '\n';
    }
    ptm_free(pick);
    ptm_free(ent);
    int rc = gen_out_finish(otrain);
    return rc == 0 && op->test > 0 ? gen_out_finish(ot) : rc;
}

int ptm_gen_lasso(const struct gen_lasso_opts *o, const char *dir)
{
    if (!opts_ok(o))
        return PTM_EINVAL;
    int64_t d = o->cols;
    double *beta = ptm_malloc((size_t)d * sizeof(*beta));
    double *out = ptm_malloc((size_t)d * sizeof(*out));
    int32_t *perm = ptm_malloc((size_t)d * sizeof(*perm));
    int32_t *group = ptm_malloc((size_t)d * sizeof(*group));
    bool *mark = ptm_malloc((size_t)d * sizeof(*mark));
    struct gen_out fb, fx, ft, fg;
    memset(&fg, 0, sizeof(fg));
    memset(&fb, 0, sizeof(fb));
    memset(&fx, 0, sizeof(fx));
    memset(&ft, 0, sizeof(ft));
    int rc = PTM_ENOMEM;
    if (!beta || !out || !perm || !group || !mark)
        goto out;
    draw_beta(o, mark, beta);
    draw_perm(o, perm);
    rc = gen_out_open(&fb, dir, "beta_true.tsv");
    if (!rc)
        rc = write_beta(&fb, beta, perm, d, out);
    if (!rc)
        rc = gen_out_open(&fg, dir, "groups.tsv");
    if (!rc)
        rc = write_groups(&fg, o, perm, group);
    if (!rc)
        rc = gen_out_open(&fx, dir, "lasso.svm");
    if (!rc && o->test > 0)
        rc = gen_out_open(&ft, dir, "test.svm");
    if (!rc)
        rc = write_rows(&fx, &ft, o, beta, perm, mark);
    if (!rc)
        rc = gen_out_rename(&fb);
    if (!rc)
        rc = gen_out_rename(&fg);
    if (!rc)
        rc = gen_out_rename(&fx);
    if (!rc && o->test > 0)
        rc = gen_out_rename(&ft);
out:
    /* No temporary file is left behind. */
    gen_out_release(&fb);
    gen_out_release(&fg);
    gen_out_release(&fx);
    gen_out_release(&ft);
    ptm_free(beta);
    ptm_free(out);
    ptm_free(perm);
    ptm_free(group);
    ptm_free(mark);
    return rc;
}

/* ---- `ptm gen lasso` ----------------------------------------------------------- */

enum {
    FLAG_ROWS,
    FLAG_COLS,
    FLAG_DENSITY,
    FLAG_GROUP,
    FLAG_CORR,
    FLAG_NONZEROS,
    FLAG_NOISE,
    FLAG_GROUPED,
    FLAG_NONNEGATIVE,
    FLAG_OFFSET,
    FLAG_TEST
};

static const struct gen_flag flags[] = {
    [FLAG_ROWS] = GEN_INT32("--rows", 1),
    [FLAG_COLS] = GEN_INT32("--cols", 1),
    [FLAG_DENSITY] = GEN_REAL("--density", 0, 1, true, false, "a number in (0, 1]"),
    [FLAG_GROUP] = GEN_INT32("--group", 1),
    [FLAG_CORR] = GEN_REAL("--corr", 0, 1, false, false, "a number in [0, 1]"),
    [FLAG_NONZEROS] = GEN_INT32("--nonzeros", 0),
    [FLAG_NOISE] = GEN_REAL("--noise", 0, HUGE_VAL, false, false, "a finite number >= 0"),
    [FLAG_GROUPED] = GEN_SWITCH("--grouped"),
    [FLAG_NONNEGATIVE] = GEN_SWITCH("--nonnegative"),
    [FLAG_OFFSET] = GEN_REAL("--offset", -HUGE_VAL, HUGE_VAL, false, false, "a finite number"),
    [FLAG_TEST] = GEN_REAL("--test", 0, 1, false, true, "a number in [0, 1)"),
    GEN_FLAGS_END,
};

static const char *check(const struct gen_args *a, char *buf, size_t len)
{
    return gen_check_nonzeros(a, FLAG_COLS, GEN_LASSO_COLS, FLAG_NONZEROS, "lasso", buf, len);
}

static int run(const struct gen_args *a, const char *dir, const char **file)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = a->seed;
    GEN_ARG(a, FLAG_ROWS, whole, o.rows);
    GEN_ARG(a, FLAG_COLS, whole, o.cols);
    GEN_ARG(a, FLAG_DENSITY, real, o.density);
    GEN_ARG(a, FLAG_GROUP, whole, o.group);
    GEN_ARG(a, FLAG_CORR, real, o.corr);
    GEN_ARG(a, FLAG_NONZEROS, whole, o.nonzeros);
    GEN_ARG(a, FLAG_NOISE, real, o.noise);
    o.grouped = a->given[FLAG_GROUPED];
    o.nonnegative = a->given[FLAG_NONNEGATIVE];
    GEN_ARG(a, FLAG_OFFSET, real, o.offset);
    double share = 0;
    GEN_ARG(a, FLAG_TEST, real, share);
    o.test = llround(share * (double)o.rows);
    if (o.nonzeros > o.cols)
        o.nonzeros = o.cols; /* the default: check() refused a given one */
    *file = NULL;
    return ptm_gen_lasso(&o, dir);
}

static const struct gen_file files[] = {
    {"lasso.svm", NULL}, {"beta_true.tsv", NULL}, {"groups.tsv", NULL}, {"test.svm", "--test 0.2"},
    {NULL, NULL},
};

const struct ptm_gen ptm_gen_lasso_cmd = {
    .summary = "sparse regression with correlated feature groups",
    .usage =
        "       ptm gen lasso --seed N --out DIR [--rows R] [--cols C] [--density D]\n"
        "                     [--group G] [--corr RHO] [--nonzeros K] [--noise SIGMA]\n"
        "                     [--grouped] [--nonnegative] [--offset M] [--test SHARE]\n",
    .help =
        "lasso: sparse regression y = X beta* + noise with correlated features.\n"
        "  DIR/lasso.svm      X and y, libsvm (label idx:val ...), one row a line\n"
        "  DIR/beta_true.tsv  beta*, one coefficient a line\n"
        "  DIR/groups.tsv     each column's correlated group (1, 2, ...), a line\n"
        "  DIR/test.svm       with --test SHARE: held-out rows of the same model\n"
        "Columns come in groups of G that share a latent factor: two columns of\n"
        "a group have correlation RHO, columns of different groups none. Each\n"
        "row draws groups uniformly so that D of its entries are non-zero on\n"
        "average; values are normal, rounded to multiples of 1e-6. A group's\n"
        "columns are spread over X by a permutation of the seed (the last\n"
        "column stays last), as features of real data are: --grouped puts\n"
        "each group in consecutive columns instead.\n"
        "\n"
        "  --rows R       rows of X (default 1000)\n"
        "  --cols C       columns of X (default 10000)\n"
        "  --density D    share of non-zeros in a row, in (0, 1] (default 0.01)\n"
        "  --group G      columns per correlated group (default 10)\n"
        "  --corr RHO     correlation within a group, in [0, 1] (default 0.5)\n"
        "  --nonzeros K   non-zero coefficients of beta*, at most C (default 10,\n"
        "                 or C when C is smaller)\n"
        "  --noise SIGMA  standard deviation of the label noise (default 0.1)\n"
        "  --grouped      each group in consecutive columns\n"
        "  --nonnegative  the absolute value of every entry (uncentred columns,\n"
        "                 as counts and tf-idf are)\n"
        "  --offset M     added to every label: a mean that a model without an\n"
        "                 intercept fits through the coefficients (default 0)\n"
        "  --test SHARE   also write SHARE x R held-out rows, in [0, 1), to\n"
        "                 DIR/test.svm (default 0: none); lasso.svm is the same\n"
        "                 with or without them\n",
    .flags = flags,
    .check = check,
    .run = run,
    .files = files,
};
