/*
 * gen_lasso.c - `ptm gen lasso`: a sparse regression problem with a known
 * answer and correlated feature groups (gen.h), and the number formatting
 * the generators share.
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
#include "ptm.h"
#include "wfile.h"
#include "rng.h"

/* Matrix values are multiples of 10^-VALUE_DIGITS. */
#define VALUE_DIGITS 6
#define VALUE_SCALE 1e6

/* ---- PRNG: xoshiro256** seeded by splitmix64 ------------------------------ */

struct rng {
    struct ptm_rng g;
    double spare; /* the second normal of the last polar draw */
    bool has_spare;
};

/* Stream `stream` of seed: independent generators for the parts of a data set. */
static void rng_seed(struct rng *g, uint64_t seed, uint64_t stream)
{
    ptm_rng_seed(&g->g, seed ^ (stream * 0xd1b54a32d192ed03u));
    g->has_spare = false;
}

static inline uint64_t rng_next(struct rng *g) { return ptm_rng_next(&g->g); }
static inline double rng_uniform(struct rng *g) { return ptm_rng_uniform(&g->g); }

/* Uniform in 0 .. n-1 (n >= 1), without modulo bias. */
static uint64_t rng_below(struct rng *g, uint64_t n)
{
    uint64_t floor = -n % n;
    for (;;) {
        uint64_t x = rng_next(g);
        if (x >= floor)
            return x % n;
    }
}

/* Standard normal by Marsaglia's polar method (pairs). */
static double rng_normal(struct rng *g)
{
    if (g->has_spare) {
        g->has_spare = false;
        return g->spare;
    }
    double u, v, s;
    do {
        u = 2 * rng_uniform(g) - 1;
        v = 2 * rng_uniform(g) - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    double f = sqrt(-2 * log(s) / s);
    g->spare = v * f;
    g->has_spare = true;
    return u * f;
}

/* ---- number formatting ---------------------------------------------------- */

int gen_fmt_double(char *buf, double v)
{
    if (v == 0) {
        const char *z = signbit(v) ? "-0" : "0";
        size_t n = strlen(z);
        memcpy(buf, z, n + 1);
        return (int)n;
    }
    int len = 0;
    for (int prec = 15; prec <= 17; prec++) {
        len = snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return len;
}

int gen_fmt_fixed(char *buf, int64_t m, int q)
{
    PTM_ASSERT(q >= 0 && q <= 17);
    char *p = buf;
    uint64_t u = m < 0 ? 0 - (uint64_t)m : (uint64_t)m;
    if (m < 0)
        *p++ = '-';
    while (q > 0 && u % 10 == 0 && u != 0) {
        u /= 10;
        q--;
    }
    if (u == 0)
        q = 0;
    char digits[24];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    /* digits[] is reversed: digits[nd - 1] is the leading one. */
    if (nd <= q) {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < q - nd; i++)
            *p++ = '0';
        while (nd > 0)
            *p++ = digits[--nd];
    } else {
        while (nd > q)
            *p++ = digits[--nd];
        if (q > 0) {
            *p++ = '.';
            while (nd > 0)
                *p++ = digits[--nd];
        }
    }
    *p = '\0';
    return (int)(p - buf);
}

/* ---- buffered output to a temporary file ---------------------------------- */

struct out {
    struct ptm_wfile w; /* replaced whole or not at all */
    char *buf;          /* OUT_BUF bytes; owned */
    size_t len;
};

#define OUT_BUF ((size_t)1 << 20)
/* Longest thing written between two out_room() calls. */
#define OUT_ITEM 64

static int out_open(struct out *o, const char *dir, const char *name)
{
    memset(o, 0, sizeof(*o));
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = ptm_malloc(n);
    o->buf = ptm_malloc(OUT_BUF);
    if (!path || !o->buf) {
        ptm_free(path);
        return PTM_ENOMEM;
    }
    snprintf(path, n, "%s/%s", dir, name);
    int rc = ptm_wfile_open(&o->w, path);
    ptm_free(path);
    if (rc == PTM_EIO)
        errno = o->w.err;
    return rc;
}

static void out_flush(struct out *o)
{
    if (o->len > 0 && !o->w.err && fwrite(o->buf, 1, o->len, o->w.f) != o->len)
        o->w.err = errno ? errno : EIO;
    o->len = 0;
}

/* Room for OUT_ITEM more bytes at o->buf + o->len. */
static inline char *out_room(struct out *o)
{
    if (o->len + OUT_ITEM > OUT_BUF)
        out_flush(o);
    return o->buf + o->len;
}

/* Flush, sync and close the temporary file; 0 or PTM_EIO (errno set). */
static int out_finish(struct out *o)
{
    out_flush(o);
    int rc = ptm_wfile_finish(&o->w);
    if (rc)
        errno = o->w.err;
    return rc;
}

/* Rename the finished file into place; 0 or PTM_EIO (errno set). */
static int out_rename(struct out *o)
{
    int rc = ptm_wfile_rename(&o->w);
    if (rc)
        errno = o->w.err;
    return rc;
}

/* Free, removing the temporary file when it was not renamed; keeps errno. */
static void out_release(struct out *o)
{
    ptm_wfile_abort(&o->w);
    ptm_free(o->buf);
    memset(o, 0, sizeof(*o));
}

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

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Draw m of the groups 0 .. ng-1 uniformly without replacement into
 * pick[], ascending. mark[] is all false on entry and on return. */
static void draw_groups(struct rng *g, int64_t ng, int64_t m, int32_t *pick, bool *mark)
{
    if (m * 8 > ng) {
        /* Selection sampling (Knuth's algorithm S): ascending by construction. */
        int64_t need = m, k = 0;
        for (int64_t i = 0; i < ng && need > 0; i++)
            if ((double)(ng - i) * rng_uniform(g) < (double)need) {
                pick[k++] = (int32_t)i;
                need--;
            }
        return;
    }
    for (int64_t k = 0; k < m; k++) {
        int64_t x;
        do
            x = (int64_t)rng_below(g, (uint64_t)ng);
        while (mark[x]);
        mark[x] = true;
        pick[k] = (int32_t)x;
    }
    for (int64_t k = 0; k < m; k++)
        mark[pick[k]] = false;
    if (m <= 16) {
        for (int64_t k = 1; k < m; k++) {
            int32_t v = pick[k];
            int64_t i = k;
            for (; i > 0 && pick[i - 1] > v; i--)
                pick[i] = pick[i - 1];
            pick[i] = v;
        }
    } else {
        qsort(pick, (size_t)m, sizeof(*pick), cmp_i32);
    }
}

/* beta*: nonzeros columns by Floyd's algorithm, values in column order. */
static void draw_beta(const struct gen_lasso_opts *o, bool *mark, double *beta)
{
    struct rng g;
    rng_seed(&g, o->seed, 2);
    int64_t d = o->cols;
    memset(mark, 0, (size_t)d);
    for (int64_t j = d - o->nonzeros; j < d; j++) {
        int64_t t = (int64_t)rng_below(&g, (uint64_t)j + 1);
        mark[mark[t] ? j : t] = true;
    }
    for (int64_t j = 0; j < d; j++) {
        beta[j] = 0;
        if (mark[j]) {
            double sign = (rng_next(&g) >> 63) ? -1 : 1;
            beta[j] = sign * (0.5 + rng_uniform(&g));
        }
    }
    memset(mark, 0, (size_t)d);
}

static int write_beta(struct out *o, const double *beta, int64_t d)
{
    for (int64_t j = 0; j < d; j++) {
        char *p = out_room(o);
        int len = gen_fmt_double(p, beta[j]);
        p[len] = '\n';
        o->len += (size_t)len + 1;
    }
    return out_finish(o);
}

static int write_rows(struct out *o, const struct gen_lasso_opts *op, const double *beta,
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
    struct rng gx, gn;
    rng_seed(&gx, op->seed, 1);
    rng_seed(&gn, op->seed, 3);
    double a = sqrt(op->corr), b = sqrt(1 - op->corr);
    bool last_seen = false;
    for (int64_t i = 0; i < op->rows; i++) {
        int64_t m = whole + (rng_uniform(&gx) < frac ? 1 : 0);
        if (m > ng)
            m = ng;
        draw_groups(&gx, ng, m, pick, mark);
        if (m > 0 && pick[m - 1] == ng - 1)
            last_seen = true;
        if (i == op->rows - 1 && !last_seen)
            pick[m++] = (int32_t)(ng - 1);
        int64_t ne = 0;
        double y = 0;
        for (int64_t k = 0; k < m; k++) {
            double f = rng_normal(&gx);
            int64_t c0 = (int64_t)pick[k] * gsz, c1 = c0 + gsz < d ? c0 + gsz : d;
            for (int64_t c = c0; c < c1; c++) {
                double x = a * f + b * rng_normal(&gx);
                int64_t mq = (int64_t)llround(x * VALUE_SCALE);
                if (mq == 0)
                    continue;
                col[ne] = (int32_t)c;
                q[ne++] = mq;
                if (beta[c] != 0)
                    y += ((double)mq / VALUE_SCALE) * beta[c];
            }
        }
        y += op->noise * rng_normal(&gn);
        char *p = out_room(o);
        o->len += (size_t)gen_fmt_double(p, y);
        for (int64_t k = 0; k < ne; k++) {
            p = out_room(o);
            char *s = p;
            *s++ = ' ';
            /* The 1-based index, digits reversed into place. */
            uint32_t v = (uint32_t)col[k] + 1;
            char tmp[12];
            int nd = 0;
            do {
                tmp[nd++] = (char)('0' + v % 10);
                v /= 10;
            } while (v);
            while (nd > 0)
                *s++ = tmp[--nd];
            *s++ = ':';
            s += gen_fmt_fixed(s, q[k], VALUE_DIGITS);
            o->len += (size_t)(s - p);
        }
        o->buf[o->len++] = '\n';
    }
    ptm_free(pick);
    ptm_free(col);
    ptm_free(q);
    return out_finish(o);
}

int ptm_gen_lasso(const struct gen_lasso_opts *o, const char *dir)
{
    if (!opts_ok(o))
        return PTM_EINVAL;
    int64_t d = o->cols;
    double *beta = ptm_malloc((size_t)d * sizeof(*beta));
    bool *mark = ptm_malloc((size_t)d * sizeof(*mark));
    struct out fb, fx;
    memset(&fb, 0, sizeof(fb));
    memset(&fx, 0, sizeof(fx));
    int rc = PTM_ENOMEM;
    if (!beta || !mark)
        goto out;
    draw_beta(o, mark, beta);
    rc = out_open(&fb, dir, "beta_true.tsv");
    if (!rc)
        rc = write_beta(&fb, beta, d);
    if (!rc)
        rc = out_open(&fx, dir, "lasso.svm");
    if (!rc)
        rc = write_rows(&fx, o, beta, mark);
    if (!rc)
        rc = out_rename(&fb);
    if (!rc)
        rc = out_rename(&fx);
out:
    /* No temporary file is left behind. */
    out_release(&fb);
    out_release(&fx);
    ptm_free(beta);
    ptm_free(mark);
    return rc;
}
