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
#include "gen.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
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
           o->nonzeros >= 0 && o->nonzeros <= o->cols && o->noise >= 0 && isfinite(o->noise);
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

static int write_beta(struct gen_out *o, const double *beta, int64_t d)
{
    for (int64_t j = 0; j < d; j++) {
        char *p = gen_out_room(o);
        int len = gen_fmt_double(p, beta[j]);
        p[len] = '\n';
        o->len += (size_t)len + 1;
    }
    return gen_out_finish(o);
}

static int write_rows(struct gen_out *o, const struct gen_lasso_opts *op, const double *beta,
                      bool *mark)
{
    int64_t d = op->cols, gsz = op->group < d ? op->group : d;
    int64_t ng = (d + gsz - 1) / gsz;
    double per_row = op->density * (double)ng;
    int64_t whole = (int64_t)per_row;
    double frac = per_row - (double)whole;
    int64_t max_groups = whole + 2 < ng ? whole + 2 : ng;
    int64_t max_entries = max_groups * gsz < d ? max_groups * gsz : d;

    int32_t *pick = ptm_malloc((size_t)max_groups * sizeof(*pick));
    int32_t *col = ptm_malloc((size_t)max_entries * sizeof(*col));
    int64_t *q = ptm_malloc((size_t)max_entries * sizeof(*q));
    if (!pick || !col || !q) {
        ptm_free(pick);
        ptm_free(col);
        ptm_free(q);
        return PTM_ENOMEM;
    }
    struct gen_rng gx, gn;
    gen_rng_seed(&gx, op->seed, 1);
    gen_rng_seed(&gn, op->seed, 3);
    double a = sqrt(op->corr), b = sqrt(1 - op->corr);
    bool last_seen = false;
    for (int64_t i = 0; i < op->rows; i++) {
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
                int64_t mq = (int64_t)llround(x * VALUE_SCALE);
                if (mq == 0)
                    continue;
                col[ne] = (int32_t)c;
                q[ne++] = mq;
                if (beta[c] != 0)
                    y += ((double)mq / VALUE_SCALE) * beta[c];
            }
        }
        y += op->noise * gen_rng_normal(&gn);
        char *p = gen_out_room(o);
        o->len += (size_t)gen_fmt_double(p, y);
        for (int64_t k = 0; k < ne; k++) {
            p = gen_out_room(o);
            char *s = p;
            *s++ = ' ';
            s += gen_fmt_uint(s, (uint64_t)col[k] + 1);
            *s++ = ':';
            s += gen_fmt_fixed(s, q[k], VALUE_DIGITS);
            o->len += (size_t)(s - p);
        }
        o->buf[o->len++] = '\n';
    }
    ptm_free(pick);
    ptm_free(col);
    ptm_free(q);
    return gen_out_finish(o);
}

int ptm_gen_lasso(const struct gen_lasso_opts *o, const char *dir)
{
    if (!opts_ok(o))
        return PTM_EINVAL;
    int64_t d = o->cols;
    double *beta = ptm_malloc((size_t)d * sizeof(*beta));
    bool *mark = ptm_malloc((size_t)d * sizeof(*mark));
    struct gen_out fb, fx;
    memset(&fb, 0, sizeof(fb));
    memset(&fx, 0, sizeof(fx));
    int rc = PTM_ENOMEM;
    if (!beta || !mark)
        goto out;
    draw_beta(o, mark, beta);
    rc = gen_out_open(&fb, dir, "beta_true.tsv");
    if (!rc)
        rc = write_beta(&fb, beta, d);
    if (!rc)
        rc = gen_out_open(&fx, dir, "lasso.svm");
    if (!rc)
        rc = write_rows(&fx, o, beta, mark);
    if (!rc)
        rc = gen_out_rename(&fb);
    if (!rc)
        rc = gen_out_rename(&fx);
out:
    /* No temporary file is left behind. */
    gen_out_release(&fb);
    gen_out_release(&fx);
    ptm_free(beta);
    ptm_free(mark);
    return rc;
}
