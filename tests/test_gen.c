/*
 * test_gen.c - the generators of `ptm gen mf|lda|logreg`
 * (runtime/models/NAME/gen_NAME.c) and the random variates they share
 * (runtime/models/gen_util.c).
 *
 * DESIGN: every data set is written to a temporary directory (the tests'
 * working directory) and read back with the ptm readers, as a job would
 * see it; the truth files are parsed here. The checks are statistical and
 * compare with what the model says, computed here another way: moments
 * from closed forms (gamma, log-gamma via polygamma functions, Dirichlet,
 * Poisson) and chi-square tests against probability mass functions; for
 * MF the residuals of the training ratings against the product of the
 * true factors; for LDA a chi-square of each document's word counts
 * against the mixture of the true topics under its true mix; for logistic
 * regression the labels against sigmoid(x . w*) recomputed from the file,
 * bin by bin. Tolerances are a few standard errors, so a wrong model
 * fails; where a check could pass by symmetry, a control with the truth
 * deliberately mismatched must fail it.
 *
 * Set PTM_TEST_VERBOSE=1 to print the figures measured.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "data.h"
#include "gen.h"
#include "gen_lasso.h"
#include "gen_mf.h"
#include "gen_lda.h"
#include "gen_logreg.h"

#include "gen_impl.h"
#include "ptm.h"
#include "testutil.h"

/* ---- helpers --------------------------------------------------------------- */

static void make_dir(const char *dir)
{
    ck_assert_msg(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

static struct ptm_dataset *read_ds(const char *path, enum plan_format format, const char *vocab)
{
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.format = format;
    o.sparse = true;
    o.integer = format == PLAN_FORMAT_UCI;
    o.vocab = vocab;
    return tu_read_data(path, &o);
}

static char *path_in(char *buf, size_t n, const char *dir, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
    return buf;
}

/* A file of tab-separated numbers, every line with the same count: the
 * values row by row (caller frees), its shape in *rows and *cols. */
static double *read_tsv(const char *path, int64_t *rows, int64_t *cols)
{
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    int64_t r = 0, c = -1, n = 0, cap = 1024;
    double *v = malloc((size_t)cap * sizeof(*v));
    char *p = text;
    while (*p) {
        int64_t k = 0;
        for (;;) {
            char *end;
            double x = strtod(p, &end);
            ck_assert_msg(end != p, "%s:%lld: not a number", path, (long long)r + 1);
            if (n == cap)
                v = realloc(v, (size_t)(cap *= 2) * sizeof(*v));
            v[n++] = x;
            k++;
            p = end;
            if (*p == '\t') {
                p++;
                continue;
            }
            ck_assert_msg(*p == '\n', "%s:%lld: bad separator", path, (long long)r + 1);
            p++;
            break;
        }
        ck_assert_msg(c < 0 || k == c, "%s:%lld: %lld fields, want %lld", path, (long long)r + 1,
                      (long long)k, (long long)c);
        c = k;
        r++;
    }
    free(text);
    *rows = r;
    *cols = c < 0 ? 0 : c;
    return v;
}

/* The value of key in DIR/info.tsv. */
static double info(const char *dir, const char *key)
{
    char path[256];
    char *text = tu_read_file(path_in(path, sizeof(path), dir, "info.tsv"), NULL);
    ck_assert_msg(text != NULL, "no %s", path);
    size_t n = strlen(key);
    for (char *p = text; *p; p = strchr(p, '\n') + 1) {
        if (strncmp(p, key, n) == 0 && p[n] == '\t') {
            double v = strtod(p + n + 1, NULL);
            free(text);
            return v;
        }
        ck_assert(strchr(p, '\n') != NULL);
    }
    free(text);
    ck_abort_msg("no %s in %s", key, path);
    return 0;
}

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    bool same = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* Every name in dir is one of names[0 .. n) and each is there. */
static void dir_holds(const char *dir, const char *const *names, int n)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int seen = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        bool known = false;
        for (int i = 0; i < n; i++)
            known |= strcmp(e->d_name, names[i]) == 0;
        ck_assert_msg(known, "unexpected file %s/%s", dir, e->d_name);
        seen++;
    }
    closedir(d);
    ck_assert_int_eq(seen, n);
}

/* No temporary file is left in dir. */
static void no_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        ck_assert_msg(strstr(e->d_name, ".tmp") == NULL, "left behind: %s", e->d_name);
    closedir(d);
}

/* Polygamma functions psi^(n), n = 0, 1, 3, x > 0: recurrence up to x >= 20,
 * then the asymptotic series (error below 1e-12). */
static double polygamma(int n, double x)
{
    double acc = 0;
    for (; x < 20; x++)
        acc += n == 0 ? -1 / x : n == 1 ? 1 / (x * x) : 6 / (x * x * x * x);
    double x2 = x * x, x3 = x2 * x;
    if (n == 0)
        return acc + log(x) - 1 / (2 * x) - 1 / (12 * x2) + 1 / (120 * x2 * x2) -
               1 / (252 * x3 * x3);
    if (n == 1)
        return acc + 1 / x + 1 / (2 * x2) + 1 / (6 * x3) - 1 / (30 * x3 * x2) +
               1 / (42 * x3 * x3 * x) - 1 / (30 * x3 * x3 * x3);
    return acc + 2 / x3 + 3 / (x2 * x2) + 2 / (x3 * x2) - 1 / (x3 * x3 * x) +
           4 / (3 * x3 * x3 * x3);
}

/* Sample mean, variance (divisor n) and fourth central moment. */
struct moments {
    double mean, var, m4;
};

static struct moments moments_of(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    struct moments m = {s / (double)n, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        double d = x[i] - m.mean;
        m.var += d * d;
        m.m4 += d * d * d * d;
    }
    m.var /= (double)n;
    m.m4 /= (double)n;
    return m;
}

/* ---- the variates ---------------------------------------------------------- */

static const double gamma_shapes[] = {0.01, 0.1, 0.5, 0.999, 1, 2.5, 10, 100};

START_TEST(test_gamma_moments)
{
    double a = gamma_shapes[_i];
    enum { N = 200000 };
    double *x = malloc(N * sizeof(*x)), *lx = malloc(N * sizeof(*lx));
    struct gen_rng g, gl;
    gen_rng_seed(&g, 42 + (uint64_t)_i, 0);
    gen_rng_seed(&gl, 42 + (uint64_t)_i, 1);
    for (int i = 0; i < N; i++) {
        x[i] = gen_rng_gamma(&g, a);
        lx[i] = gen_rng_log_gamma(&gl, a);
        EXPECT(isfinite(lx[i]) && x[i] >= 0 && isfinite(x[i]));
    }
    /* X: mean a, variance a, fourth central moment 3a(a + 2). */
    struct moments m = moments_of(x, N);
    double se_mean = sqrt(a / N), se_var = sqrt((2 * a * a + 6 * a) / N);
    /* log X: mean psi(a), variance psi'(a), fourth cumulant psi'''(a). */
    struct moments l = moments_of(lx, N);
    double k2 = polygamma(1, a), k4 = polygamma(3, a);
    double se_lmean = sqrt(k2 / N), se_lvar = sqrt((k4 + 2 * k2 * k2) / N);
    if (tu_verbose())
        printf("gamma(%g): mean %.5g (%.2f se), var %.5g (%.2f se); log: mean %.5g (%.2f se), "
               "var %.5g (%.2f se)\n",
               a, m.mean, (m.mean - a) / se_mean, m.var, (m.var - a) / se_var, l.mean,
               (l.mean - polygamma(0, a)) / se_lmean, l.var, (l.var - k2) / se_lvar);
    ck_assert_msg(fabs(m.mean - a) < 5 * se_mean, "gamma(%g) mean %g", a, m.mean);
    ck_assert_msg(fabs(m.var - a) < 5 * se_var, "gamma(%g) variance %g", a, m.var);
    ck_assert_msg(fabs(l.mean - polygamma(0, a)) < 5 * se_lmean, "gamma(%g) E log %g, want %g", a,
                  l.mean, polygamma(0, a));
    ck_assert_msg(fabs(l.var - k2) < 5 * se_lvar, "gamma(%g) Var log %g, want %g", a, l.var, k2);
    free(x);
    free(lx);
}
END_TEST

/* The polygamma functions the gamma test relies on, at known values. */
START_TEST(test_polygamma)
{
    const double euler = 0.57721566490153286, pi = 3.14159265358979324, pi2 = pi * pi;
    ck_assert(fabs(polygamma(0, 1) + euler) < 1e-12);
    ck_assert(fabs(polygamma(0, 0.5) + euler + 2 * log(2)) < 1e-12);
    ck_assert(fabs(polygamma(1, 1) - pi2 / 6) < 1e-12);
    ck_assert(fabs(polygamma(1, 0.5) - pi2 / 2) < 1e-12);
    ck_assert(fabs(polygamma(3, 1) - pi2 * pi2 / 15) < 1e-11);
}
END_TEST

static const struct {
    int n;
    double alpha[4];
} dirichlet_rows[] = {
    {4, {0.1, 0.5, 2, 5}},
    {3, {1, 1, 1}},
    {2, {0.05, 0.05}},
    {4, {30, 0.3, 3, 300}},
};

START_TEST(test_dirichlet_moments)
{
    int n = dirichlet_rows[_i].n;
    const double *alpha = dirichlet_rows[_i].alpha;
    enum { N = 100000 };
    double *x = malloc((size_t)N * (size_t)n * sizeof(*x)), *col = malloc(N * sizeof(*col));
    struct gen_rng g;
    gen_rng_seed(&g, 7 + (uint64_t)_i, 0);
    double a0 = 0;
    for (int k = 0; k < n; k++)
        a0 += alpha[k];
    for (int i = 0; i < N; i++) {
        double *p = x + (size_t)i * (size_t)n, sum = 0;
        gen_rng_dirichlet(&g, alpha, 0, n, p);
        for (int k = 0; k < n; k++) {
            EXPECT(p[k] >= 0 && p[k] <= 1);
            sum += p[k];
        }
        EXPECT(fabs(sum - 1) < 1e-12);
    }
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < N; i++)
            col[i] = x[(size_t)i * (size_t)n + (size_t)k];
        struct moments m = moments_of(col, N);
        double mean = alpha[k] / a0, var = alpha[k] * (a0 - alpha[k]) / (a0 * a0 * (a0 + 1));
        double se_mean = sqrt(var / N), se_var = sqrt((m.m4 - m.var * m.var) / N);
        if (tu_verbose())
            printf("dirichlet row %d component %d: mean %.5g (%.2f se), var %.5g (%.2f se)\n", _i,
                   k, m.mean, (m.mean - mean) / se_mean, m.var, (m.var - var) / se_var);
        ck_assert_msg(fabs(m.mean - mean) < 5 * se_mean, "component %d mean %g, want %g", k, m.mean,
                      mean);
        ck_assert_msg(fabs(m.var - var) < 5 * se_var, "component %d variance %g, want %g", k, m.var,
                      var);
    }
    free(x);
    free(col);
}
END_TEST

/* Tiny symmetric parameters: (nearly) all the mass on one component,
 * which one uniform; never NaN, never all zeros. */
START_TEST(test_dirichlet_tiny)
{
    enum { N = 30000, K = 3 };
    struct gen_rng g;
    gen_rng_seed(&g, 99, 0);
    int wins[K] = {0}, spread = 0;
    double p[K];
    for (int i = 0; i < N; i++) {
        gen_rng_dirichlet(&g, NULL, 1e-6, K, p);
        int best = 0;
        for (int k = 0; k < K; k++) {
            EXPECT(p[k] >= 0 && p[k] <= 1);
            if (p[k] > p[best])
                best = k;
        }
        spread += p[best] < 0.999;
        wins[best]++;
    }
    /* Two of the gamma variates within 1e-5 of each other: rare. */
    ck_assert_int_le(spread, N / 1000);
    double se = sqrt(N * (1.0 / K) * (1 - 1.0 / K));
    for (int k = 0; k < K; k++)
        ck_assert_msg(fabs(wins[k] - (double)N / K) < 5 * se, "component %d wins %d", k, wins[k]);
}
END_TEST

static const double poisson_means[] = {0, 0.5, 3, 9.99, 10, 47.3, 1000, 1e6};

START_TEST(test_poisson)
{
    double mu = poisson_means[_i];
    enum { N = 200000 };
    struct gen_rng g;
    gen_rng_seed(&g, 5 + (uint64_t)_i, 0);
    double *x = malloc(N * sizeof(*x));
    int64_t lo = (int64_t)fmax(0, floor(mu - 8 * sqrt(mu) - 10)),
            span = (int64_t)(16 * sqrt(mu)) + 40;
    int64_t *hist = calloc((size_t)span, sizeof(*hist));
    for (int i = 0; i < N; i++) {
        int64_t k = gen_rng_poisson(&g, mu);
        EXPECT(k >= 0);
        x[i] = (double)k;
        if (k >= lo && k - lo < span)
            hist[k - lo]++;
    }
    struct moments m = moments_of(x, N);
    if (mu == 0) {
        ck_assert(m.mean == 0 && m.var == 0);
        goto out;
    }
    double se_mean = sqrt(mu / N), se_var = sqrt((mu + 2 * mu * mu) / N);
    ck_assert_msg(fabs(m.mean - mu) < 5 * se_mean, "poisson(%g) mean %g", mu, m.mean);
    ck_assert_msg(fabs(m.var - mu) < 5 * se_var, "poisson(%g) variance %g", mu, m.var);
    /* Chi-square against the pmf, adjacent values merged into bins of
     * expected count >= 20 (the last remainder joins the last bin). The
     * range [lo, lo + span) holds all but a negligible mass. */
    int64_t inside = 0;
    for (int64_t j = 0; j < span; j++)
        inside += hist[j];
    ck_assert_int_eq(inside, N);
    double *be = malloc((size_t)span * sizeof(*be)), *bo = malloc((size_t)span * sizeof(*bo));
    int bins = 0;
    double e_acc = 0, o_acc = 0;
    for (int64_t j = 0; j < span; j++) {
        double k = (double)(lo + j);
        e_acc += N * exp(k * log(mu) - mu - lgamma(k + 1));
        o_acc += (double)hist[j];
        if (e_acc >= 20) {
            be[bins] = e_acc;
            bo[bins++] = o_acc;
            e_acc = o_acc = 0;
        }
    }
    ck_assert_int_gt(bins, 0);
    be[bins - 1] += e_acc;
    bo[bins - 1] += o_acc;
    double chi2 = 0;
    for (int j = 0; j < bins; j++)
        chi2 += (bo[j] - be[j]) * (bo[j] - be[j]) / be[j];
    free(be);
    free(bo);
    int df = bins - 1;
    if (tu_verbose())
        printf("poisson(%g): mean %.6g, var %.6g, chi2 %.1f on %d df\n", mu, m.mean, m.var, chi2,
               df);
    if (df > 0)
        ck_assert_msg(chi2 < df + 6 * sqrt(2.0 * df), "poisson(%g): chi2 %g on %d df", mu, chi2,
                      df);
out:
    free(x);
    free(hist);
}
END_TEST

/* Alias tables: the probability the table gives each value, summed from
 * its columns, is the distribution's (exactly, up to rounding); draws
 * follow it (chi-square). */
static const struct {
    int n;
    double p[8];
} alias_rows[] = {
    {1, {1}},
    {2, {0.5, 0.5}},
    {3, {0.1, 0.6, 0.3}},
    {5, {0, 0.2, 0, 0.8, 0}},
    {8, {1e-9, 0.25, 0.05, 0.3, 1e-300, 0.1, 0.2, 0.1 - 1e-9}},
    {4, {0, 0, 1, 0}},
};

START_TEST(test_alias)
{
    int n = alias_rows[_i].n;
    const double *p = alias_rows[_i].p;
    double prob[8], implied[8] = {0};
    int32_t alias[8], small[8], large[8];
    struct gen_alias t = {prob, alias, n};
    gen_alias_build(&t, p, small, large);
    for (int i = 0; i < n; i++) {
        ck_assert(prob[i] >= 0 && prob[i] <= 1);
        ck_assert(alias[i] >= 0 && alias[i] < n);
        implied[i] += prob[i] / n;
        implied[alias[i]] += (1 - prob[i]) / n;
    }
    for (int i = 0; i < n; i++)
        ck_assert_msg(fabs(implied[i] - p[i]) < 1e-15, "value %d: %.17g, want %.17g", i, implied[i],
                      p[i]);
    enum { N = 2000000 };
    double count[8] = {0};
    struct gen_rng g;
    gen_rng_seed(&g, 17 + (uint64_t)_i, 0);
    for (int k = 0; k < N; k++)
        count[gen_alias_draw(&t, &g)]++;
    double chi2 = 0;
    int df = -1;
    for (int i = 0; i < n; i++) {
        double e = N * p[i];
        if (e < 1e-6) {
            ck_assert(count[i] == 0);
            continue;
        }
        chi2 += (count[i] - e) * (count[i] - e) / e;
        df++;
    }
    if (df > 0)
        ck_assert_msg(chi2 < df + 6 * sqrt(2.0 * df), "chi2 %g on %d df", chi2, df);
}
END_TEST

/* A larger random distribution, as a topic of LDA: the same checks. */
START_TEST(test_alias_dirichlet)
{
    enum { W = 1000, N = 4000000 };
    double *p = malloc(W * sizeof(*p)), *prob = malloc(W * sizeof(*prob));
    double *implied = calloc(W, sizeof(*implied)), *count = calloc(W, sizeof(*count));
    int32_t *alias = malloc(W * sizeof(*alias)), *small = malloc(W * sizeof(*small)),
            *large = malloc(W * sizeof(*large));
    struct gen_rng g;
    gen_rng_seed(&g, 23, 0);
    gen_rng_dirichlet(&g, NULL, 0.3, W, p);
    struct gen_alias t = {prob, alias, W};
    gen_alias_build(&t, p, small, large);
    for (int i = 0; i < W; i++) {
        implied[i] += prob[i] / W;
        implied[alias[i]] += (1 - prob[i]) / W;
    }
    for (int i = 0; i < W; i++)
        EXPECT(fabs(implied[i] - p[i]) < 1e-13);
    for (int k = 0; k < N; k++)
        count[gen_alias_draw(&t, &g)]++;
    /* Values of expected count >= 20, the rest in one bin. */
    double chi2 = 0, rest_e = 0, rest_o = 0;
    int df = 0;
    for (int i = 0; i < W; i++) {
        double e = N * p[i];
        if (e < 20) {
            rest_e += e;
            rest_o += count[i];
            continue;
        }
        chi2 += (count[i] - e) * (count[i] - e) / e;
        df++;
    }
    if (rest_e >= 20) {
        chi2 += (rest_o - rest_e) * (rest_o - rest_e) / rest_e;
        df++;
    }
    df--;
    if (tu_verbose())
        printf("alias over %d values: chi2 %.1f on %d df\n", W, chi2, df);
    ck_assert_msg(chi2 < df + 6 * sqrt(2.0 * df), "chi2 %g on %d df", chi2, df);
    free(p);
    free(prob);
    free(implied);
    free(count);
    free(alias);
    free(small);
    free(large);
}
END_TEST

START_TEST(test_fmt_sig)
{
    static const struct {
        double v;
        const char *want;
    } rows[] = {
        {0, "0"},
        {1, "1"},
        {0.5, "0.5"},
        {0.123456789123, "0.123456789"},
        {0.0001, "0.0001"},
        {0.00001, "1e-5"},
        {2.5e-300, "2.5e-300"},
        {123456789012.0, "1.23456789e11"},
        {0.999999999999, "1"},
        {9.999999999e-5, "0.0001"},
    };
    char buf[40];
    for (size_t i = 0; i < PTM_ARRAY_LEN(rows); i++) {
        double v = rows[i].v;
        int len = gen_fmt_sig(buf, &v);
        ck_assert_str_eq(buf, rows[i].want);
        ck_assert_int_eq(len, (int)strlen(rows[i].want));
        ck_assert(v == strtod(rows[i].want, NULL));
    }
    /* Log-uniform values down to subnormals: 9 digits, read back exactly. */
    struct gen_rng g;
    gen_rng_seed(&g, 3, 0);
    for (int i = 0; i < 100000; i++) {
        double v = exp(gen_rng_uniform(&g) * -740), w = v;
        int len = gen_fmt_sig(buf, &w);
        EXPECT(len == (int)strlen(buf) && len < 32);
        EXPECT(strtod(buf, NULL) == w);
        if (v > 1e-300)
            EXPECT(fabs(w - v) <= 5.0000001e-9 * v);
        else
            EXPECT(w > 0 || v < 1e-320);
    }
}
END_TEST

/* ---- mf -------------------------------------------------------------------- */

static const char *const mf_files[] = {"ratings.mtx", "test.mtx", "W_true.tsv", "H_true.tsv",
                                       "info.tsv"};

static void gen_mf_into(const char *dir, const struct gen_mf_opts *o)
{
    make_dir(dir);
    const char *file = "none";
    ck_assert_int_eq(ptm_gen_mf(o, dir, &file), 0);
    ck_assert_ptr_null(file);
}

/* A generated MF data set read back. */
struct mf_set {
    struct ptm_dataset *train, *test;
    double *w, *h;
    int64_t rank;
};

static void mf_load(const char *dir, const struct gen_mf_opts *o, struct mf_set *s)
{
    char path[256];
    s->train = read_ds(path_in(path, sizeof(path), dir, "ratings.mtx"), PLAN_FORMAT_MM, NULL);
    s->test = read_ds(path_in(path, sizeof(path), dir, "test.mtx"), PLAN_FORMAT_MM, NULL);
    int64_t r, c;
    s->w = read_tsv(path_in(path, sizeof(path), dir, "W_true.tsv"), &r, &c);
    ck_assert_int_eq(r, o->rows);
    ck_assert_int_eq(c, o->rank);
    s->h = read_tsv(path_in(path, sizeof(path), dir, "H_true.tsv"), &r, &c);
    ck_assert_int_eq(r, o->cols);
    ck_assert_int_eq(c, o->rank);
    s->rank = o->rank;
    for (int k = 0; k < 2; k++) {
        const struct ptm_dataset *ds = k ? s->test : s->train;
        ck_assert_int_eq(ds->csr.nrows, o->rows);
        ck_assert_int_eq(ds->csr.ncols, o->cols);
    }
}

static void mf_free(struct mf_set *s)
{
    ptm_dataset_free(s->train);
    ptm_dataset_free(s->test);
    free(s->w);
    free(s->h);
}

/* The true rating w_i . h_j, summed as the generator sums it. */
static double mf_dot(const struct mf_set *s, int64_t i, int64_t j)
{
    double d = 0;
    for (int64_t k = 0; k < s->rank; k++)
        d += s->w[i * s->rank + k] * s->h[j * s->rank + k];
    return d;
}

/* Residuals of a file's ratings: sum and sum of squares. */
static void mf_residuals(const struct mf_set *s, const struct ptm_csr *a, double *s1, double *s2)
{
    *s1 = *s2 = 0;
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t t = a->rowptr[i]; t < a->rowptr[i + 1]; t++) {
            double e = a->val[t] - mf_dot(s, i, a->colind[t]);
            *s1 += e;
            *s2 += e * e;
        }
}

/* seed, rows, cols, rank, ratings, density, test, noise */
static const struct gen_mf_opts mf_rows[] = {
    {11, 400, 300, 5, 30000, 0, 0.2, 0.1}, /* sparse: drawn cells */
    {12, 300, 200, 8, 0, 0.7, 0.1, 0.5},   /* dense: the cells left out are drawn */
    {13, 500, 40, 3, 0, 0.05, 0.3, 1.5},
    {14, 200, 150, 4, 15000, 0, 0, 0.05}, /* nothing held out */
};

START_TEST(test_mf_truth)
{
    const struct gen_mf_opts *o = &mf_rows[_i];
    char dir[32];
    snprintf(dir, sizeof(dir), "mf-%d", _i);
    gen_mf_into(dir, o);
    dir_holds(dir, mf_files, (int)PTM_ARRAY_LEN(mf_files));
    struct mf_set s;
    mf_load(dir, o, &s);
    int64_t n = ptm_gen_mf_count(o), ntest = llround(o->test * (double)n);
    ck_assert_int_eq(s.train->csr.nnz + s.test->csr.nnz, n);
    ck_assert_int_eq(s.test->csr.nnz, ntest);
    ck_assert_int_eq(s.train->declared_nnz, n - ntest);
    ck_assert_int_eq((int64_t)info(dir, "ratings"), n);
    ck_assert_int_eq((int64_t)info(dir, "test"), ntest);

    /* No cell is in both files. */
    for (int64_t i = 0; i < o->rows; i++) {
        const struct ptm_csr *a = &s.train->csr, *b = &s.test->csr;
        int64_t p = a->rowptr[i], q = b->rowptr[i];
        while (p < a->rowptr[i + 1] && q < b->rowptr[i + 1]) {
            EXPECT(a->colind[p] != b->colind[q]);
            if (a->colind[p] < b->colind[q])
                p++;
            else
                q++;
        }
    }

    /* The residuals against the true product are the noise: mean 0 and
     * standard deviation sigma, on both files; info.tsv says the same. */
    double s1, s2;
    mf_residuals(&s, &s.train->csr, &s1, &s2);
    double nt = (double)s.train->csr.nnz, mean = s1 / nt, sd = sqrt(s2 / nt - mean * mean);
    double rmse = sqrt(s2 / nt);
    ck_assert_msg(fabs(mean) < 5 * o->noise / sqrt(nt), "noise mean %g", mean);
    /* sd of a sample sd: sigma / sqrt(2n); rounding to 1e-6 adds 3e-7. */
    ck_assert_msg(fabs(sd - o->noise) < 5 * o->noise / sqrt(2 * nt) + 1e-6, "noise sd %g, want %g",
                  sd, o->noise);
    ck_assert(fabs(info(dir, "train_rmse_true") - rmse) <= 1e-9 * rmse);
    ck_assert(info(dir, "noise") == o->noise);
    if (ntest > 0) {
        mf_residuals(&s, &s.test->csr, &s1, &s2);
        double ne = (double)ntest, trmse = sqrt(s2 / ne);
        ck_assert_msg(fabs(trmse - o->noise) < 5 * o->noise / sqrt(2 * ne) + 1e-6,
                      "test rmse %g, want %g", trmse, o->noise);
        ck_assert(fabs(info(dir, "test_rmse_true") - trmse) <= 1e-9 * trmse);
    }

    /* The signal w_i . h_j has variance about 1: the factors' entries
     * have variance 1/sqrt(rank). */
    struct moments mw = moments_of(s.w, o->rows * o->rank);
    double want = 1 / sqrt((double)o->rank), nw = (double)(o->rows * o->rank);
    ck_assert_msg(fabs(mw.var - want) < 5 * want * sqrt(2 / nw), "W variance %g, want %g", mw.var,
                  want);

    /* The cells are uniform: a row's count is hypergeometric, mean n/rows,
     * variance C p (1 - p) (M - C)/(M - 1) with p = n / M, M = rows x cols. */
    double M = (double)o->rows * (double)o->cols, p = (double)n / M, C = (double)o->cols;
    double hv = C * p * (1 - p) * (M - C) / (M - 1);
    double *cnt = malloc((size_t)o->rows * sizeof(*cnt));
    for (int64_t i = 0; i < o->rows; i++)
        cnt[i] = (double)(s.train->csr.rowptr[i + 1] - s.train->csr.rowptr[i] +
                          s.test->csr.rowptr[i + 1] - s.test->csr.rowptr[i]);
    struct moments mc = moments_of(cnt, o->rows);
    if (tu_verbose())
        printf("mf %d: %lld ratings, noise sd %.5f (want %g), test rmse %.5f, row counts var "
               "%.3f (want %.3f)\n",
               _i, (long long)n, sd, o->noise, info(dir, "test_rmse_true"), mc.var, hv);
    /* The sample variance of rows counts: relative se about sqrt(2/rows). */
    ck_assert_msg(fabs(mc.var - hv) < 6 * hv * sqrt(2.0 / (double)o->rows) + 1e-9,
                  "row counts variance %g, want %g", mc.var, hv);
    free(cnt);
    mf_free(&s);
}
END_TEST

/* Without noise the ratings are the product, up to the rounding to 1e-6;
 * every cell observed makes a full matrix. */
START_TEST(test_mf_exact)
{
    struct gen_mf_opts o;
    ptm_gen_mf_defaults(&o);
    o.seed = 21;
    o.rows = 30;
    o.cols = 20;
    o.rank = 4;
    o.density = 1;
    o.test = 0.25;
    o.noise = 0;
    gen_mf_into("mf-exact", &o);
    struct mf_set s;
    mf_load("mf-exact", &o, &s);
    ck_assert_int_eq(s.train->csr.nnz + s.test->csr.nnz, 600);
    ck_assert_int_eq(s.test->csr.nnz, 150);
    const struct ptm_csr *files[2] = {&s.train->csr, &s.test->csr};
    for (int f = 0; f < 2; f++)
        for (int64_t i = 0; i < o.rows; i++)
            for (int64_t t = files[f]->rowptr[i]; t < files[f]->rowptr[i + 1]; t++)
                EXPECT(fabs(files[f]->val[t] - mf_dot(&s, i, files[f]->colind[t])) <= 5.01e-7);
    mf_free(&s);
}
END_TEST

/* Tiny shapes still give the declared sizes; an empty test file reads. */
static const struct gen_mf_opts mf_shapes[] = {
    {1, 1, 1, 1, 1, 0, 0, 0.1},   /* one cell */
    {2, 1, 1, 1, 1, 0, 0.9, 0},   /* the one rating held out: no training ratings */
    {3, 7, 1, 2, 0, 1, 0.5, 1},   /* one column, all cells */
    {4, 1, 9, 3, 0, 0.5, 0.2, 1}, /* one row */
    {5, 40, 30, 1000, 10, 0, 0.1, 0.1},
};

START_TEST(test_mf_shapes)
{
    const struct gen_mf_opts *o = &mf_shapes[_i];
    char dir[32];
    snprintf(dir, sizeof(dir), "mf-shape-%d", _i);
    gen_mf_into(dir, o);
    struct mf_set s;
    mf_load(dir, o, &s);
    int64_t n = ptm_gen_mf_count(o);
    ck_assert_int_eq(s.train->csr.nnz + s.test->csr.nnz, n);
    ck_assert_int_eq(s.test->csr.nnz, llround(o->test * (double)n));
    mf_free(&s);
}
END_TEST

START_TEST(test_mf_deterministic)
{
    struct gen_mf_opts o = mf_rows[0];
    gen_mf_into("mfd-a", &o);
    gen_mf_into("mfd-b", &o);
    gen_mf_into("mfd-b", &o); /* replaced whole by the same bytes */
    char a[64], b[64];
    for (size_t k = 0; k < PTM_ARRAY_LEN(mf_files); k++)
        ck_assert_msg(same_file(path_in(a, sizeof(a), "mfd-a", mf_files[k]),
                                path_in(b, sizeof(b), "mfd-b", mf_files[k])),
                      "%s differs for the same seed", mf_files[k]);
    no_tmp("mfd-b");
    o.seed++;
    gen_mf_into("mfd-c", &o);
    for (size_t k = 0; k < 4; k++)
        ck_assert_msg(!same_file(path_in(a, sizeof(a), "mfd-a", mf_files[k]),
                                 path_in(b, sizeof(b), "mfd-c", mf_files[k])),
                      "%s is the same for another seed", mf_files[k]);
    /* Other noise and rank: the same cells (and split); other noise alone:
     * the same factors. */
    o = mf_rows[0];
    o.noise = 0.7;
    gen_mf_into("mfd-d", &o);
    ck_assert(same_file("mfd-a/W_true.tsv", "mfd-d/W_true.tsv"));
    o.rank = 2;
    gen_mf_into("mfd-e", &o);
    struct mf_set x, y;
    mf_load("mfd-a", &mf_rows[0], &x);
    mf_load("mfd-e", &o, &y);
    for (int f = 0; f < 2; f++) {
        const struct ptm_csr *p = f ? &x.test->csr : &x.train->csr;
        const struct ptm_csr *q = f ? &y.test->csr : &y.train->csr;
        ck_assert_int_eq(p->nnz, q->nnz);
        ck_assert(memcmp(p->rowptr, q->rowptr, (size_t)(p->nrows + 1) * sizeof(int64_t)) == 0);
        ck_assert(memcmp(p->colind, q->colind, (size_t)p->nnz * sizeof(int32_t)) == 0);
    }
    mf_free(&x);
    mf_free(&y);
}
END_TEST

/* seed, rows, cols, rank, ratings, density, test, noise */
static const struct gen_mf_opts mf_bad[] = {
    {1, 0, 10, 2, 5, 0, 0.1, 0.1},                      /* rows 0 */
    {1, 10, (int64_t)INT32_MAX + 1, 2, 5, 0, 0.1, 0.1}, /* cols too many */
    {1, 10, 10, 0, 5, 0, 0.1, 0.1},                     /* rank 0 */
    {1, 10, 10, GEN_MF_RANK_MAX + 1, 5, 0, 0.1, 0.1},   /* rank too big */
    {1, 10, 10, 2, 101, 0, 0.1, 0.1},                   /* more ratings than cells */
    {1, 10, 10, 2, -1, 0, 0.1, 0.1},                    /* ratings < 0 */
    {1, 10, 10, 2, 0, 0, 0.1, 0.1},                     /* density 0 */
    {1, 10, 10, 2, 0, 1.5, 0.1, 0.1},                   /* density > 1 */
    {1, 10, 10, 2, 0, NAN, 0.1, 0.1},                   /* density NaN */
    {1, 10, 10, 2, 5, 0, 1, 0.1},                       /* test 1 */
    {1, 10, 10, 2, 5, 0, -0.1, 0.1},                    /* test < 0 */
    {1, 10, 10, 2, 5, 0, 0.1, -1},                      /* noise < 0 */
    {1, 10, 10, 2, 5, 0, 0.1, 2e6},                     /* noise too big */
    {1, 10, 10, 2, 5, 0, 0.1, NAN},                     /* noise NaN */
};

START_TEST(test_mf_bad)
{
    make_dir("mf-bad");
    const char *file = "none";
    ck_assert_int_eq(ptm_gen_mf(&mf_bad[_i], "mf-bad", &file), PTM_EINVAL);
    ck_assert_ptr_null(file);
}
END_TEST

/* More ratings than memory can index: out of memory, before allocating. */
START_TEST(test_mf_too_big)
{
    struct gen_mf_opts o = {1, INT32_MAX, INT32_MAX, 1, (int64_t)2e18, 0, 0.1, 0.1};
    make_dir("mf-big");
    ck_assert_int_eq(ptm_gen_mf(&o, "mf-big", NULL), PTM_ENOMEM);
    no_tmp("mf-big");
}
END_TEST

/* ---- lda ------------------------------------------------------------------- */

static const char *const lda_files[] = {"docword.txt", "vocab.txt", "topics_true.tsv",
                                        "doc_topics_true.tsv", "info.tsv"};

static void gen_lda_into(const char *dir, const struct gen_lda_opts *o)
{
    make_dir(dir);
    const char *file = "none";
    ck_assert_int_eq(ptm_gen_lda(o, dir, &file), 0);
    ck_assert_ptr_null(file);
}

struct lda_set {
    struct ptm_dataset *ds;
    double *phi, *theta; /* K x W, D x K */
};

static void lda_load(const char *dir, const struct gen_lda_opts *o, struct lda_set *s)
{
    char path[256], vocab[256];
    s->ds = read_ds(path_in(path, sizeof(path), dir, "docword.txt"), PLAN_FORMAT_UCI,
                    path_in(vocab, sizeof(vocab), dir, "vocab.txt"));
    ck_assert_int_eq(s->ds->csr.nrows, o->docs);
    ck_assert_int_eq(s->ds->csr.ncols, o->words);
    ck_assert_int_eq(s->ds->vocab.n, o->words);
    int64_t r, c;
    s->phi = read_tsv(path_in(path, sizeof(path), dir, "topics_true.tsv"), &r, &c);
    ck_assert_int_eq(r, o->topics);
    ck_assert_int_eq(c, o->words);
    s->theta = read_tsv(path_in(path, sizeof(path), dir, "doc_topics_true.tsv"), &r, &c);
    ck_assert_int_eq(r, o->docs);
    ck_assert_int_eq(c, o->topics);
}

static void lda_free(struct lda_set *s)
{
    ptm_dataset_free(s->ds);
    free(s->phi);
    free(s->theta);
}

/* Chi-square of every document's word counts against sum_k theta[m(d)]_k
 * phi_k, with m(d) the document whose mix is used (d itself, or another
 * for a control), summed over documents; *df the degrees of freedom. */
static double lda_chi2(const struct lda_set *s, int64_t K, int64_t shift, int64_t *df)
{
    const struct ptm_csr *a = &s->ds->csr;
    int64_t D = a->nrows, W = a->ncols;
    double *p = malloc((size_t)W * sizeof(*p)), chi2 = 0;
    *df = 0;
    for (int64_t d = 0; d < D; d++) {
        const double *th = s->theta + ((d + shift) % D) * K;
        for (int64_t w = 0; w < W; w++) {
            p[w] = 0;
            for (int64_t k = 0; k < K; k++)
                p[w] += th[k] * s->phi[k * W + w];
        }
        double n = 0;
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++)
            n += a->val[t];
        /* Every word: the absent ones count (0 - n p)^2 / (n p) = n p. */
        for (int64_t w = 0; w < W; w++)
            chi2 += n * p[w];
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++) {
            double e = n * p[a->colind[t]], o = a->val[t];
            chi2 += (o - e) * (o - e) / e - e;
        }
        *df += W - 1;
    }
    free(p);
    return chi2;
}

START_TEST(test_lda_truth)
{
    /* Long documents, a small vocabulary, priors that keep every
     * probability well away from 0: the chi-square is well behaved. */
    struct gen_lda_opts o = {31, 300, 40, 5, 1500, 0.5, 1};
    gen_lda_into("lda-t", &o);
    dir_holds("lda-t", lda_files, (int)PTM_ARRAY_LEN(lda_files));
    struct lda_set s;
    lda_load("lda-t", &o, &s);
    const struct ptm_csr *a = &s.ds->csr;
    int64_t K = o.topics, W = o.words, D = o.docs;

    /* Topics and mixes are distributions. */
    for (int64_t k = 0; k < K; k++) {
        double sum = 0;
        for (int64_t w = 0; w < W; w++)
            sum += s.phi[k * W + w];
        ck_assert_msg(fabs(sum - 1) < 1e-7, "topic %lld sums to %.12g", (long long)k, sum);
    }
    for (int64_t d = 0; d < D; d++) {
        double sum = 0;
        for (int64_t k = 0; k < K; k++)
            sum += s.theta[d * K + k];
        EXPECT(fabs(sum - 1) < 1e-7);
    }

    /* The words of each document follow its mixture of the true topics. */
    int64_t df;
    double chi2 = lda_chi2(&s, K, 0, &df);
    double z = (chi2 - (double)df) / sqrt(2.0 * (double)df);
    /* Control: the mixes of other documents must be rejected. */
    int64_t df2;
    double chi2_wrong = lda_chi2(&s, K, 1, &df2);
    double z_wrong = (chi2_wrong - (double)df2) / sqrt(2.0 * (double)df2);
    if (tu_verbose())
        printf("lda: chi2 %.1f on %lld df (z %.2f); with other documents' mixes z %.1f\n", chi2,
               (long long)df, z, z_wrong);
    ck_assert_msg(fabs(z) < 5, "chi2 %g on %lld df", chi2, (long long)df);
    ck_assert_msg(z_wrong > 50, "the control is not rejected: z %g", z_wrong);

    /* Pooled over the documents, each word's count against its expected
     * count: finer than the per-document test for a small bias of the
     * samplers (the variance of a count is at most its expectation, so
     * the chi-square is at most one on W - 1 degrees of freedom). */
    double *ew = calloc((size_t)W, sizeof(*ew)), *ow = calloc((size_t)W, sizeof(*ow));
    for (int64_t d = 0; d < D; d++) {
        double n = 0;
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++) {
            n += a->val[t];
            ow[a->colind[t]] += a->val[t];
        }
        for (int64_t w = 0; w < W; w++)
            for (int64_t k = 0; k < K; k++)
                ew[w] += n * s.theta[d * K + k] * s.phi[k * W + w];
    }
    double pooled = 0;
    for (int64_t w = 0; w < W; w++)
        pooled += (ow[w] - ew[w]) * (ow[w] - ew[w]) / ew[w];
    free(ew);
    free(ow);
    if (tu_verbose())
        printf("lda: pooled chi2 %.1f on %lld df\n", pooled, (long long)W - 1);
    ck_assert_msg(pooled < (double)(W - 1) + 6 * sqrt(2.0 * (double)(W - 1)),
                  "pooled chi2 %g on %lld df", pooled, (long long)W - 1);

    /* Total variation between each document's word frequencies and its
     * mixture: E|f - p| <= sqrt(p (1 - p) / n) summed, at most
     * sqrt(W / n) / 2 for the mean TV. */
    double tv_sum = 0, bound = 0.5 * sqrt((double)W / o.length);
    double *p = malloc((size_t)W * sizeof(*p));
    for (int64_t d = 0; d < D; d++) {
        for (int64_t w = 0; w < W; w++) {
            p[w] = 0;
            for (int64_t k = 0; k < K; k++)
                p[w] += s.theta[d * K + k] * s.phi[k * W + w];
        }
        double n = 0, tv = 0;
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++)
            n += a->val[t];
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++)
            p[a->colind[t]] -= a->val[t] / n;
        for (int64_t w = 0; w < W; w++)
            tv += fabs(p[w]) / 2;
        tv_sum += tv;
    }
    free(p);
    ck_assert_msg(tv_sum / (double)D < bound, "mean total variation %g (bound %g)",
                  tv_sum / (double)D, bound);

    /* The lengths: 1 + Poisson(L - 1): mean L, variance L - 1. */
    double *len = malloc((size_t)D * sizeof(*len)), tokens = 0;
    for (int64_t d = 0; d < D; d++) {
        len[d] = 0;
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++)
            len[d] += a->val[t];
        tokens += len[d];
        EXPECT(len[d] >= 1);
    }
    struct moments ml = moments_of(len, D);
    double v = o.length - 1;
    ck_assert_msg(fabs(ml.mean - o.length) < 5 * sqrt(v / (double)D), "mean length %g", ml.mean);
    ck_assert_msg(fabs(ml.var - v) < 5 * sqrt((v + 2 * v * v) / (double)D), "length variance %g",
                  ml.var);
    ck_assert(info("lda-t", "tokens") == tokens);
    ck_assert(info("lda-t", "nnz") == (double)a->nnz);
    free(len);

    /* The mixes are Dirichlet(alpha): mean 1/K, variance
     * (1/K)(1 - 1/K)/(K alpha + 1) for every component. */
    double *col = malloc((size_t)D * sizeof(*col));
    double mean = 1.0 / (double)K, var = mean * (1 - mean) / ((double)K * o.alpha + 1);
    for (int64_t k = 0; k < K; k++) {
        for (int64_t d = 0; d < D; d++)
            col[d] = s.theta[d * K + k];
        struct moments m = moments_of(col, D);
        ck_assert_msg(fabs(m.mean - mean) < 5 * sqrt(var / (double)D), "theta_%lld mean %g",
                      (long long)k, m.mean);
        ck_assert_msg(fabs(m.var - var) < 5 * sqrt((m.m4 - m.var * m.var) / (double)D),
                      "theta_%lld variance %g, want %g", (long long)k, m.var, var);
    }
    free(col);
    lda_free(&s);
}
END_TEST

/* The defaults' sparse priors: the topics are Dirichlet(beta) over W words:
 * mean 1/W, variance (1/W)(1 - 1/W)/(W beta + 1); the vocabulary is
 * w0001 .. wW. */
START_TEST(test_lda_sparse)
{
    struct gen_lda_opts o;
    ptm_gen_lda_defaults(&o);
    o.seed = 32;
    o.docs = 200;
    o.words = 2000;
    o.topics = 10;
    gen_lda_into("lda-s", &o);
    struct lda_set s;
    lda_load("lda-s", &o, &s);
    int64_t W = o.words, K = o.topics;
    ck_assert_str_eq(s.ds->vocab.word[0], "w0001");
    ck_assert_str_eq(s.ds->vocab.word[16], "w0017");
    ck_assert_str_eq(s.ds->vocab.word[W - 1], "w2000");
    struct moments m = moments_of(s.phi, K * W);
    double mean = 1.0 / (double)W, var = mean * (1 - mean) / ((double)W * o.beta + 1);
    if (tu_verbose())
        printf("lda sparse: phi mean %.4g, var %.4g (want %.4g), tokens %g\n", m.mean, m.var, var,
               info("lda-s", "tokens"));
    ck_assert(fabs(m.mean - mean) < 1e-9);
    ck_assert_msg(fabs(m.var - var) < 5 * sqrt((m.m4 - m.var * m.var) / (double)(K * W)),
                  "phi variance %g, want %g", m.var, var);
    /* Every token's word has positive probability under the document's mix. */
    const struct ptm_csr *a = &s.ds->csr;
    for (int64_t d = 0; d < o.docs; d++)
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++) {
            double p = 0;
            for (int64_t k = 0; k < K; k++)
                p += s.theta[d * K + k] * s.phi[k * W + a->colind[t]];
            EXPECT(p > 0);
        }
    lda_free(&s);
}
END_TEST

/* Document lengths are 1 + Poisson(L - 1): a chi-square of the lengths
 * against that law, on many short documents. */
START_TEST(test_lda_lengths)
{
    struct gen_lda_opts o = {33, 20000, 3, 1, 3.5, 0.1, 0.1};
    gen_lda_into("lda-len", &o);
    struct lda_set s;
    lda_load("lda-len", &o, &s);
    enum { MAXLEN = 40 };
    double hist[MAXLEN] = {0};
    const struct ptm_csr *a = &s.ds->csr;
    for (int64_t d = 0; d < o.docs; d++) {
        double n = 0;
        for (int64_t t = a->rowptr[d]; t < a->rowptr[d + 1]; t++)
            n += a->val[t];
        ck_assert(n >= 1 && n < MAXLEN);
        hist[(int)n]++;
    }
    /* Bins 1 .. 9 and 10 and more. */
    double mu = o.length - 1, chi2 = 0, tail_e = (double)o.docs, tail_o = (double)o.docs;
    for (int k = 1; k < 10; k++) {
        double e = (double)o.docs * exp((k - 1) * log(mu) - mu - lgamma(k));
        chi2 += (hist[k] - e) * (hist[k] - e) / e;
        tail_e -= e;
        tail_o -= hist[k];
    }
    chi2 += (tail_o - tail_e) * (tail_o - tail_e) / tail_e;
    if (tu_verbose())
        printf("lda lengths: chi2 %.1f on 9 df\n", chi2);
    ck_assert_msg(chi2 < 9 + 6 * sqrt(18.0), "lengths: chi2 %g on 9 df", chi2);
    lda_free(&s);
}
END_TEST

static const struct gen_lda_opts lda_shapes[] = {
    {1, 1, 1, 1, 1, 0.1, 0.01},     /* one document of one token of one word */
    {2, 3, 50, 1, 20, 1e-6, 1e-6},  /* tiny priors */
    {3, 10, 5, 200, 7.5, 1e6, 1e6}, /* more topics than words, huge priors */
    {4, 5, 12345, 3, 2, 0.1, 0.01}, /* most words never appear */
};

START_TEST(test_lda_shapes)
{
    const struct gen_lda_opts *o = &lda_shapes[_i];
    char dir[32];
    snprintf(dir, sizeof(dir), "lda-shape-%d", _i);
    gen_lda_into(dir, o);
    struct lda_set s;
    lda_load(dir, o, &s);
    for (int64_t d = 0; d < o->docs; d++)
        EXPECT(s.ds->csr.rowptr[d + 1] > s.ds->csr.rowptr[d]);
    lda_free(&s);
}
END_TEST

START_TEST(test_lda_deterministic)
{
    struct gen_lda_opts o = {41, 100, 300, 7, 50, 0.1, 0.05};
    gen_lda_into("ldad-a", &o);
    gen_lda_into("ldad-b", &o);
    char a[64], b[64];
    for (size_t k = 0; k < PTM_ARRAY_LEN(lda_files); k++)
        ck_assert_msg(same_file(path_in(a, sizeof(a), "ldad-a", lda_files[k]),
                                path_in(b, sizeof(b), "ldad-b", lda_files[k])),
                      "%s differs for the same seed", lda_files[k]);
    no_tmp("ldad-b");
    o.seed++;
    gen_lda_into("ldad-c", &o);
    ck_assert(!same_file("ldad-a/docword.txt", "ldad-c/docword.txt"));
    ck_assert(!same_file("ldad-a/topics_true.tsv", "ldad-c/topics_true.tsv"));
    ck_assert(!same_file("ldad-a/doc_topics_true.tsv", "ldad-c/doc_topics_true.tsv"));
    ck_assert(same_file("ldad-a/vocab.txt", "ldad-c/vocab.txt"));
    /* Other lengths: the same topics and mixes. */
    o.seed--;
    o.length = 80;
    gen_lda_into("ldad-d", &o);
    ck_assert(same_file("ldad-a/topics_true.tsv", "ldad-d/topics_true.tsv"));
    ck_assert(same_file("ldad-a/doc_topics_true.tsv", "ldad-d/doc_topics_true.tsv"));
    ck_assert(!same_file("ldad-a/docword.txt", "ldad-d/docword.txt"));
}
END_TEST

/* seed, docs, words, topics, length, alpha, beta */
static const struct gen_lda_opts lda_bad[] = {
    {1, 0, 10, 2, 5, 0.1, 0.1},                       /* docs 0 */
    {1, 10, 0, 2, 5, 0.1, 0.1},                       /* words 0 */
    {1, 10, (int64_t)INT32_MAX + 1, 2, 5, 0.1, 0.1},  /* words too many */
    {1, 10, 10, 0, 5, 0.1, 0.1},                      /* topics 0 */
    {1, 10, 10, GEN_LDA_TOPICS_MAX + 1, 5, 0.1, 0.1}, /* topics too many */
    {1, 10, (int64_t)1 << 30, 1 << 5, 5, 0.1, 0.1},   /* topics x words too many */
    {1, 10, 10, 2, 0.5, 0.1, 0.1},                    /* length < 1 */
    {1, 10, 10, 2, 2e9, 0.1, 0.1},                    /* length too long */
    {1, 10, 10, 2, 5, 0, 0.1},                        /* alpha 0 */
    {1, 10, 10, 2, 5, 1e-7, 0.1},                     /* alpha too small */
    {1, 10, 10, 2, 5, 0.1, 2e6},                      /* beta too big */
    {1, 10, 10, 2, 5, 0.1, NAN},                      /* beta NaN */
};

START_TEST(test_lda_bad)
{
    make_dir("lda-bad");
    ck_assert_int_eq(ptm_gen_lda(&lda_bad[_i], "lda-bad", NULL), PTM_EINVAL);
}
END_TEST

/* ---- logreg ------------------------------------------------------------------ */

static const char *const logreg_files[] = {"train.svm", "w_true.tsv", "info.tsv"};

static void gen_logreg_into(const char *dir, const struct gen_logreg_opts *o)
{
    make_dir(dir);
    const char *file = "none";
    ck_assert_int_eq(ptm_gen_logreg(o, dir, &file), 0);
    ck_assert_ptr_null(file);
}

static struct ptm_dataset *logreg_load(const char *dir, const struct gen_logreg_opts *o, double **w)
{
    char path[256];
    struct ptm_dataset *ds =
        read_ds(path_in(path, sizeof(path), dir, "train.svm"), PLAN_FORMAT_LIBSVM, NULL);
    ck_assert_int_eq(ds->csr.nrows, o->rows);
    ck_assert_int_eq(ds->csr.ncols, o->cols);
    ck_assert(ds->has_labels);
    int64_t r, c;
    *w = read_tsv(path_in(path, sizeof(path), dir, "w_true.tsv"), &r, &c);
    ck_assert_int_eq(r, o->cols);
    ck_assert_int_eq(c, 1);
    int64_t k = 0;
    for (int64_t j = 0; j < o->cols; j++)
        k += (*w)[j] != 0;
    ck_assert_int_eq(k, o->nonzeros);
    return ds;
}

/* options of ptm gen logreg: seed, rows, cols, density, nonzeros (no held-out rows, not hard) */
#define LR(s, m, d, p, k)                                                                          \
    {                                                                                              \
        .seed = (s), .rows = (m), .cols = (d), .density = (p), .nonzeros = (k)                     \
    }

static const struct gen_logreg_opts logreg_rows[] = {
    LR(51, 20000, 500, 0.05, 50),
    LR(52, 20000, 2000, 0.01, 2000), /* dense w* */
    LR(53, 20000, 50, 0.5, 5),
};

START_TEST(test_logreg_truth)
{
    const struct gen_logreg_opts *o = &logreg_rows[_i];
    char dir[32];
    snprintf(dir, sizeof(dir), "lr-%d", _i);
    gen_logreg_into(dir, o);
    dir_holds(dir, logreg_files, (int)PTM_ARRAY_LEN(logreg_files));
    double *w;
    struct ptm_dataset *ds = logreg_load(dir, o, &w);
    const struct ptm_csr *a = &ds->csr;
    int64_t n = o->rows;

    /* The share of non-zeros; values are multiples of 1e-6. */
    double dens = (double)a->nnz / ((double)n * (double)o->cols);
    ck_assert_msg(fabs(dens - o->density) < 0.01 * o->density, "density %g", dens);
    for (int64_t t = 0; t < a->nnz; t++)
        EXPECT(a->val[t] != 0 && (double)llround(a->val[t] * 1e6) / 1e6 == a->val[t]);

    /* The labels follow the logistic model of the file's own numbers:
     * overall, and in ten bins of sigmoid(x . w*), the count of 1s is
     * within 5 standard errors of the sum of the probabilities. A control
     * with -w* must fail the bins. */
    enum { BINS = 10 };
    double e[2][BINS] = {{0}}, v[2][BINS] = {{0}}, obs[2][BINS] = {{0}};
    double pos = 0, psum = 0, pvar = 0, *margin = malloc((size_t)n * sizeof(*margin));
    for (int64_t i = 0; i < n; i++) {
        double y = ds->labels.val[i], m = 0;
        EXPECT(y == 1 || y == -1);
        for (int64_t t = a->rowptr[i]; t < a->rowptr[i + 1]; t++)
            m += a->val[t] * w[a->colind[t]];
        margin[i] = m;
        for (int c = 0; c < 2; c++) {
            double p = 1 / (1 + exp(c ? m : -m));
            int b = (int)(p * BINS);
            b = b < BINS ? b : BINS - 1;
            e[c][b] += p;
            v[c][b] += p * (1 - p);
            obs[c][b] += y == 1;
            if (c == 0) {
                psum += p;
                pvar += p * (1 - p);
            }
        }
        pos += y == 1;
    }
    ck_assert_msg(fabs(pos - psum) < 5 * sqrt(pvar), "%g positives, want %g", pos, psum);
    ck_assert(fabs(info(dir, "mean_sigmoid") - psum / (double)n) < 1e-9);
    ck_assert(info(dir, "positives") == pos);
    double worst = 0, control = 0;
    for (int b = 0; b < BINS; b++) {
        if (v[0][b] > 0)
            worst = fmax(worst, fabs(obs[0][b] - e[0][b]) / sqrt(v[0][b]));
        if (v[1][b] > 0)
            control = fmax(control, fabs(obs[1][b] - e[1][b]) / sqrt(v[1][b]));
    }
    /* The margin has a standard deviation of about GEN_LOGREG_MARGIN. */
    struct moments mm = moments_of(margin, n);
    if (tu_verbose())
        printf("logreg %d: %g of %lld positive (want %.1f), worst bin %.2f se, control %.1f se, "
               "margin sd %.3f\n",
               _i, pos, (long long)n, psum, worst, control, sqrt(mm.var));
    ck_assert_msg(worst < 5, "a bin is %g standard errors off", worst);
    ck_assert_msg(control > 20, "the control with -w* is not rejected (%g)", control);
    ck_assert_msg(fabs(sqrt(mm.var) / GEN_LOGREG_MARGIN - 1) < 0.25, "margin sd %g", sqrt(mm.var));
    free(margin);
    free(w);
    ptm_dataset_free(ds);
}
END_TEST

static const struct gen_logreg_opts logreg_shapes[] = {
    LR(1, 1, 1, 1, 1),         /* 1 x 1 */
    LR(2, 5, 1000, 0.0001, 3), /* mostly empty rows: the last column is forced */
    LR(3, 30, 7, 1, 0),        /* dense X, w* = 0: labels are fair coins */
    LR(4, 9, 300, 0.02, 300),
};

START_TEST(test_logreg_shapes)
{
    const struct gen_logreg_opts *o = &logreg_shapes[_i];
    char dir[32];
    snprintf(dir, sizeof(dir), "lr-shape-%d", _i);
    gen_logreg_into(dir, o);
    double *w;
    struct ptm_dataset *ds = logreg_load(dir, o, &w);
    if (o->nonzeros == 0)
        ck_assert(info(dir, "mean_sigmoid") == 0.5);
    free(w);
    ptm_dataset_free(ds);
}
END_TEST

START_TEST(test_logreg_deterministic)
{
    struct gen_logreg_opts o = LR(61, 500, 100, 0.1, 10);
    gen_logreg_into("lrd-a", &o);
    gen_logreg_into("lrd-b", &o);
    char a[64], b[64];
    for (size_t k = 0; k < PTM_ARRAY_LEN(logreg_files); k++)
        ck_assert_msg(same_file(path_in(a, sizeof(a), "lrd-a", logreg_files[k]),
                                path_in(b, sizeof(b), "lrd-b", logreg_files[k])),
                      "%s differs for the same seed", logreg_files[k]);
    no_tmp("lrd-b");
    o.seed++;
    gen_logreg_into("lrd-c", &o);
    ck_assert(!same_file("lrd-a/train.svm", "lrd-c/train.svm"));
    ck_assert(!same_file("lrd-a/w_true.tsv", "lrd-c/w_true.tsv"));
    /* Other nonzeros: the same X. */
    o.seed--;
    o.nonzeros = 50;
    gen_logreg_into("lrd-d", &o);
    double *w1, *w2;
    struct gen_logreg_opts o1 = LR(61, 500, 100, 0.1, 10);
    struct ptm_dataset *x = logreg_load("lrd-a", &o1, &w1);
    struct ptm_dataset *y = logreg_load("lrd-d", &o, &w2);
    ck_assert_int_eq(x->csr.nnz, y->csr.nnz);
    ck_assert(memcmp(x->csr.val, y->csr.val, (size_t)x->csr.nnz * sizeof(double)) == 0);
    ck_assert(memcmp(x->csr.colind, y->csr.colind, (size_t)x->csr.nnz * sizeof(int32_t)) == 0);
    ptm_dataset_free(x);
    ptm_dataset_free(y);
    free(w1);
    free(w2);
}
END_TEST

static const struct gen_logreg_opts logreg_bad[] = {
    LR(1, 0, 10, 0.1, 1),                      /* rows 0 */
    LR(1, 10, 0, 0.1, 0),                      /* cols 0 */
    LR(1, (int64_t)INT32_MAX + 1, 10, 0.1, 1), /* rows too many */
    LR(1, 10, 10, 0, 1),                       /* density 0 */
    LR(1, 10, 10, 1.01, 1),                    /* density > 1 */
    LR(1, 10, 10, NAN, 1),                     /* density NaN */
    LR(1, 10, 10, 0.1, 11),                    /* nonzeros > cols */
    LR(1, 10, 10, 0.1, -1),                    /* nonzeros < 0 */
};

START_TEST(test_logreg_bad)
{
    make_dir("lr-bad");
    ck_assert_int_eq(ptm_gen_logreg(&logreg_bad[_i], "lr-bad", NULL), PTM_EINVAL);
}
END_TEST

/* ---- failures ------------------------------------------------------------------ */

/* A directory that does not exist: the first file cannot be written. */
START_TEST(test_missing_dir)
{
    struct gen_mf_opts m;
    ptm_gen_mf_defaults(&m);
    struct gen_lda_opts l;
    ptm_gen_lda_defaults(&l);
    struct gen_logreg_opts r;
    ptm_gen_logreg_defaults(&r);
    const char *file = NULL;
    errno = 0;
    ck_assert_int_eq(ptm_gen_mf(&m, "no/such/dir", &file), PTM_EIO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_str_eq(file, "W_true.tsv");
    errno = 0;
    ck_assert_int_eq(ptm_gen_lda(&l, "no/such/dir", &file), PTM_EIO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_str_eq(file, "topics_true.tsv");
    errno = 0;
    ck_assert_int_eq(ptm_gen_logreg(&r, "no/such/dir", &file), PTM_EIO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_str_eq(file, "w_true.tsv");
}
END_TEST

/* A file that cannot be put in place (a directory has its name): that
 * file is named, and no temporary file is left. */
START_TEST(test_rename_fails)
{
    struct gen_mf_opts m;
    ptm_gen_mf_defaults(&m);
    m.rows = m.cols = 20;
    make_dir("rf-mf");
    make_dir("rf-mf/test.mtx");
    const char *file = NULL;
    ck_assert_int_eq(ptm_gen_mf(&m, "rf-mf", &file), PTM_EIO);
    ck_assert_str_eq(file, "test.mtx");
    no_tmp("rf-mf");

    struct gen_lda_opts l = {1, 5, 10, 2, 5, 0.1, 0.1};
    make_dir("rf-lda");
    make_dir("rf-lda/docword.txt");
    ck_assert_int_eq(ptm_gen_lda(&l, "rf-lda", &file), PTM_EIO);
    ck_assert_str_eq(file, "docword.txt");
    no_tmp("rf-lda");

    struct gen_logreg_opts r = LR(1, 5, 10, 0.5, 2);
    make_dir("rf-lr");
    make_dir("rf-lr/info.tsv");
    ck_assert_int_eq(ptm_gen_logreg(&r, "rf-lr", &file), PTM_EIO);
    ck_assert_str_eq(file, "info.tsv");
    no_tmp("rf-lr");
}
END_TEST

/* Every allocation failure gives PTM_ENOMEM, leaks nothing (ASan) and
 * leaves no temporary file. */
START_TEST(test_out_of_memory)
{
    make_dir("oom");
    struct gen_mf_opts m = {1, 30, 20, 3, 100, 0, 0.2, 0.1};
    struct gen_lda_opts l = {1, 10, 30, 3, 8, 0.1, 0.1};
    struct gen_logreg_opts r = LR(1, 20, 10, 0.3, 3);
    for (int model = 0; model < 3; model++) {
        int rc = PTM_ENOMEM;
        unsigned long nth;
        for (nth = 1; rc == PTM_ENOMEM && nth < 200; nth++) {
            ptm_fault_inject(nth);
            const char *file = NULL;
            rc = model == 0   ? ptm_gen_mf(&m, "oom", &file)
                 : model == 1 ? ptm_gen_lda(&l, "oom", &file)
                              : ptm_gen_logreg(&r, "oom", &file);
            ptm_fault_inject(0);
            ck_assert_msg(rc == 0 || rc == PTM_ENOMEM, "model %d, allocation %lu: %s", model, nth,
                          ptm_strerror(rc));
            no_tmp("oom");
        }
        ck_assert_msg(rc == 0, "model %d never succeeds", model);
        ck_assert_uint_gt(nth, 3);
    }
}
END_TEST

/* ---- the suite ------------------------------------------------------------------ */

static Suite *gen_suite(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("variates");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_polygamma);
    tcase_add_loop_test(tc, test_gamma_moments, 0, (int)PTM_ARRAY_LEN(gamma_shapes));
    tcase_add_loop_test(tc, test_dirichlet_moments, 0, (int)PTM_ARRAY_LEN(dirichlet_rows));
    tcase_add_test(tc, test_dirichlet_tiny);
    tcase_add_loop_test(tc, test_poisson, 0, (int)PTM_ARRAY_LEN(poisson_means));
    tcase_add_loop_test(tc, test_alias, 0, (int)PTM_ARRAY_LEN(alias_rows));
    tcase_add_test(tc, test_alias_dirichlet);
    tcase_add_test(tc, test_fmt_sig);
    suite_add_tcase(s, tc);

    tc = tcase_create("mf");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_mf_truth, 0, (int)PTM_ARRAY_LEN(mf_rows));
    tcase_add_test(tc, test_mf_exact);
    tcase_add_loop_test(tc, test_mf_shapes, 0, (int)PTM_ARRAY_LEN(mf_shapes));
    tcase_add_test(tc, test_mf_deterministic);
    tcase_add_loop_test(tc, test_mf_bad, 0, (int)PTM_ARRAY_LEN(mf_bad));
    tcase_add_test(tc, test_mf_too_big);
    suite_add_tcase(s, tc);

    tc = tcase_create("lda");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lda_truth);
    tcase_add_test(tc, test_lda_sparse);
    tcase_add_test(tc, test_lda_lengths);
    tcase_add_loop_test(tc, test_lda_shapes, 0, (int)PTM_ARRAY_LEN(lda_shapes));
    tcase_add_test(tc, test_lda_deterministic);
    tcase_add_loop_test(tc, test_lda_bad, 0, (int)PTM_ARRAY_LEN(lda_bad));
    suite_add_tcase(s, tc);

    tc = tcase_create("logreg");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_logreg_truth, 0, (int)PTM_ARRAY_LEN(logreg_rows));
    tcase_add_loop_test(tc, test_logreg_shapes, 0, (int)PTM_ARRAY_LEN(logreg_shapes));
    tcase_add_test(tc, test_logreg_deterministic);
    tcase_add_loop_test(tc, test_logreg_bad, 0, (int)PTM_ARRAY_LEN(logreg_bad));
    suite_add_tcase(s, tc);

    tc = tcase_create("failures");
    tcase_add_test(tc, test_missing_dir);
    tcase_add_test(tc, test_rename_fails);
    tcase_add_test(tc, test_out_of_memory);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-gen.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_gen: temporary directory");
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(gen_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
