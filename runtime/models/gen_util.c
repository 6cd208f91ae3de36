/*
 * gen_util.c - what the generators of `ptm gen` share (gen_impl.h, gen.h):
 * random variates on top of runtime/base/rng.h, number formatting, and
 * buffered output to files that are renamed into place when whole.
 *
 * DESIGN: every variate is a pure function of the generator's state, with
 * no platform-dependent shortcut, so a seed gives the same data everywhere
 * libm's exp/log/lgamma agree. Gamma variates are produced as logs: the
 * Dirichlet draws of LDA use shape parameters like 0.01, whose variates
 * underflow to 0 often enough that a topic or a document could otherwise
 * come out all zeros.
 */
#include "gen.h"
#include "gen_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

/* ---- random variates -------------------------------------------------------- */

void gen_rng_seed(struct gen_rng *g, uint64_t seed, uint64_t stream)
{
    ptm_rng_seed(&g->g, seed ^ (stream * 0xd1b54a32d192ed03u));
    g->has_spare = false;
}

uint64_t gen_rng_below(struct gen_rng *g, uint64_t n)
{
    uint64_t floor = -n % n;
    for (;;) {
        uint64_t x = gen_rng_next(g);
        if (x >= floor)
            return x % n;
    }
}

double gen_rng_normal(struct gen_rng *g)
{
    if (g->has_spare) {
        g->has_spare = false;
        return g->spare;
    }
    double u, v, s;
    do {
        u = 2 * gen_rng_uniform(g) - 1;
        v = 2 * gen_rng_uniform(g) - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    double f = sqrt(-2 * log(s) / s);
    g->spare = v * f;
    g->has_spare = true;
    return u * f;
}

/* Marsaglia and Tsang (2000), "A simple method for generating gamma
 * variables", for a >= 1: d v with v = (1 + c x)^3, x normal. */
static double log_gamma_ge1(struct gen_rng *g, double a)
{
    double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x, v;
        do {
            x = gen_rng_normal(g);
            v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = gen_rng_uniform_pos(g), x2 = x * x;
        if (u < 1 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1 - v + log(v)))
            return log(d) + log(v);
    }
}

double gen_rng_log_gamma(struct gen_rng *g, double a)
{
    if (a >= 1)
        return log_gamma_ge1(g, a);
    /* Gamma(a) = Gamma(a + 1) U^(1/a) (the paper's boost for a < 1). */
    double lg = log_gamma_ge1(g, a + 1);
    return lg + log(gen_rng_uniform_pos(g)) / a;
}

double gen_rng_gamma(struct gen_rng *g, double a)
{
    return exp(gen_rng_log_gamma(g, a));
}

void gen_rng_dirichlet(struct gen_rng *g, const double *alpha, double a, int64_t n, double *p)
{
    double max = -HUGE_VAL;
    for (int64_t k = 0; k < n; k++) {
        p[k] = gen_rng_log_gamma(g, alpha ? alpha[k] : a);
        if (p[k] > max)
            max = p[k];
    }
    double sum = 0;
    for (int64_t k = 0; k < n; k++) {
        p[k] = exp(p[k] - max);
        sum += p[k];
    }
    /* sum >= 1: the largest component is exp(0). */
    for (int64_t k = 0; k < n; k++)
        p[k] /= sum;
}

int64_t gen_rng_poisson(struct gen_rng *g, double mean)
{
    if (mean < 10) {
        double limit = exp(-mean), prod = gen_rng_uniform(g);
        int64_t k = 0;
        while (prod > limit) {
            prod *= gen_rng_uniform(g);
            k++;
        }
        return k;
    }
    /* W. Hoermann (1993), "The transformed rejection method for generating
     * Poisson random variables", algorithm PTRS. */
    double slam = sqrt(mean), loglam = log(mean);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double u = gen_rng_uniform(g) - 0.5, v = gen_rng_uniform_pos(g);
        double us = 0.5 - fabs(u);
        double k = floor((2 * a / us + b) * u + mean + 0.43);
        if (us >= 0.07 && v <= vr)
            return (int64_t)k;
        if (k < 0 || (us < 0.013 && v > us))
            continue;
        if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -mean + k * loglam - lgamma(k + 1))
            return (int64_t)k;
    }
}

void gen_alias_build(struct gen_alias *t, const double *p, int32_t *small, int32_t *large)
{
    int64_t n = t->n, ns = 0, nl = 0;
    double *q = t->prob;
    for (int64_t i = 0; i < n; i++) {
        q[i] = p[i] * (double)n;
        t->alias[i] = (int32_t)i;
        if (q[i] < 1)
            small[ns++] = (int32_t)i;
        else
            large[nl++] = (int32_t)i;
    }
    /* Vose: a small column is topped up from a large one, which may
     * become small. */
    while (ns > 0 && nl > 0) {
        int32_t s = small[--ns], l = large[nl - 1];
        t->alias[s] = l;
        q[l] -= 1 - q[s];
        if (q[l] < 1) {
            nl--;
            small[ns++] = l;
        }
    }
    /* What is left is 1 up to rounding. */
    while (nl > 0)
        q[large[--nl]] = 1;
    while (ns > 0)
        q[small[--ns]] = 1;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void gen_draw_sorted(struct gen_rng *g, int64_t n, int64_t m, int32_t *pick, bool *mark)
{
    if (m * 8 > n) {
        /* Selection sampling (Knuth's algorithm S): ascending by construction. */
        int64_t need = m, k = 0;
        for (int64_t i = 0; i < n && need > 0; i++)
            if ((double)(n - i) * gen_rng_uniform(g) < (double)need) {
                pick[k++] = (int32_t)i;
                need--;
            }
        return;
    }
    for (int64_t k = 0; k < m; k++) {
        int64_t x;
        do
            x = (int64_t)gen_rng_below(g, (uint64_t)n);
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

int gen_fmt_sig(char *buf, double *v)
{
    double x = *v;
    PTM_ASSERT(x >= 0 && isfinite(x));
    if (x == 0) {
        memcpy(buf, "0", 2);
        return 1;
    }
    /* x = m 10^(e - 8) with 10^8 <= m < 10^9. Scaling in two steps keeps
     * 10^k finite for subnormal x; the rounding here need not be exact:
     * the value becomes whatever the digits say. */
    int e = (int)floor(log10(x));
    double scaled = x;
    int k = 8 - e;
    while (k > 300) {
        scaled *= 1e300;
        k -= 300;
    }
    scaled *= pow(10, k);
    int64_t m = llround(scaled);
    if (m >= 1000000000) {
        m = llround(scaled / 10);
        e++;
    } else if (m < 100000000) {
        m = llround(scaled * 10);
        e--;
    }
    int len;
    if (e >= -4 && e <= 8) {
        len = gen_fmt_fixed(buf, m, 8 - e);
    } else {
        len = gen_fmt_fixed(buf, m, 8); /* d.dddddddd without trailing zeros */
        len += snprintf(buf + len, 8, "e%d", e);
    }
    *v = strtod(buf, NULL);
    return len;
}

int gen_fmt_uint(char *p, uint64_t v)
{
    char tmp[20];
    int nd = 0;
    do {
        tmp[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < nd; i++)
        p[i] = tmp[nd - 1 - i];
    return nd;
}

/* ---- buffered output to a temporary file ---------------------------------- */

int gen_out_open(struct gen_out *o, const char *dir, const char *name)
{
    memset(o, 0, sizeof(*o));
    o->name = name;
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = ptm_malloc(n);
    o->buf = ptm_malloc(GEN_OUT_BUF);
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

void gen_out_flush(struct gen_out *o)
{
    if (o->len > 0 && !o->w.err && fwrite(o->buf, 1, o->len, o->w.f) != o->len)
        o->w.err = errno ? errno : EIO;
    o->len = 0;
}

void gen_out_puts(struct gen_out *o, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        if (o->len == GEN_OUT_BUF)
            gen_out_flush(o);
        size_t k = GEN_OUT_BUF - o->len < n ? GEN_OUT_BUF - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void gen_out_kv_str(struct gen_out *o, const char *key, const char *value)
{
    gen_out_puts(o, key);
    gen_out_puts(o, "\t");
    gen_out_puts(o, value);
    gen_out_puts(o, "\n");
}

void gen_out_kv_int(struct gen_out *o, const char *key, int64_t value)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", (long long)value);
    gen_out_kv_str(o, key, buf);
}

void gen_out_kv_num(struct gen_out *o, const char *key, double value)
{
    char buf[32];
    gen_fmt_double(buf, value);
    gen_out_kv_str(o, key, buf);
}

int gen_out_finish(struct gen_out *o)
{
    gen_out_flush(o);
    int rc = ptm_wfile_finish(&o->w);
    if (rc)
        errno = o->w.err;
    return rc;
}

int gen_out_rename(struct gen_out *o)
{
    int rc = ptm_wfile_rename(&o->w);
    if (rc)
        errno = o->w.err;
    return rc;
}

void gen_out_release(struct gen_out *o)
{
    ptm_wfile_abort(&o->w);
    ptm_free(o->buf);
    memset(o, 0, sizeof(*o));
}

const char *gen_check_nonzeros(const struct gen_args *a, int cols, long long dflt, int nz,
                               const char *model, char *buf, size_t len)
{
    long long c = a->given[cols] ? a->whole[cols] : dflt;
    if (a->given[nz] && a->whole[nz] > c) {
        snprintf(buf, len, "gen %s: --nonzeros %lld is more than --cols %lld", model,
                 a->whole[nz], c);
        return buf;
    }
    return NULL;
}
