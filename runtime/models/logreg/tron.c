/*
 * tron.c - trust-region Newton with preconditioned conjugate gradient
 * (tron.h).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "arena.h"
#include "ckpt.h"
#include "ptm.h"
#include "tron.h"

/* The trust region's rules (Lin, Weng and Keerthi 2008): a step is taken
 * when the actual reduction exceeds ETA0 times the predicted one; the
 * radius shrinks below ETA1, holds between ETA1 and ETA2 and grows above,
 * by the factors SIGMA1 .. SIGMA3. */
#define ETA0 1e-4
#define ETA1 0.25
#define ETA2 0.75
#define SIGMA1 0.25
#define SIGMA2 0.5
#define SIGMA3 4.0
/* A predicted reduction within this share of F is below what the sums of
 * F resolve (each row's loss is rounded): such a step is judged by the
 * gradient, which is still exact enough to improve (see tron_iterate). */
#define TINY 1e-12
/* The gradient's norm this far below its start is at the floor that
 * rounding leaves: the iterations end. */
#define GTOL 1e-12
/* What F's sums may be off by, relative: a few units of the last place. */
#define ROUNDING (8 * DBL_EPSILON)

static double dot(const double *a, const double *b, int64_t n)
{
    double s = 0;
    for (int64_t j = 0; j < n; j++)
        s += a[j] * b[j];
    return s;
}

/* a' M b for a diagonal M. */
static double mdot(const double *a, const double *M, const double *b, int64_t n)
{
    double s = 0;
    for (int64_t j = 0; j < n; j++)
        s += a[j] * M[j] * b[j];
    return s;
}

/* The preconditioner from the Hessian's diagonal in M (tron.h). */
static void blend(const struct tron *t, double *M)
{
    const double *c = t->fn.floor;
    for (int64_t j = 0; j < t->fn.n; j++) {
        double m = c[j] > 0 ? (1 - TRON_ALPHA_PCG) * c[j] + TRON_ALPHA_PCG * M[j] : M[j];
        M[j] = m > 0 && isfinite(m) ? m : 1;
    }
}

int tron_init(struct tron *t, const struct tron_fun *fn, const double *w0)
{
    memset(t, 0, sizeof(*t));
    t->fn = *fn;
    size_t n = fn->n > 0 ? (size_t)fn->n : 1;
    double **v[] = {&t->w, &t->g, &t->M, &t->s, &t->r, &t->d, &t->z, &t->Hd, &t->wnew, &t->gnew,
                    &t->Mnew};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        if (!(*v[i] = ptm_malloc(n * sizeof(double))))
            return PTM_ENOMEM;
    memcpy(t->w, w0, (size_t)fn->n * sizeof(double));
    return 0;
}

void tron_free(struct tron *t)
{
    double *v[] = {t->w, t->g, t->M, t->s, t->r, t->d, t->z, t->Hd, t->wnew, t->gnew, t->Mnew};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        ptm_free(v[i]);
    memset(t, 0, sizeof(*t));
}

/* |M^-1 g|_M = sqrt(g' M^-1 g). */
static double gnorm(const double *g, const double *M, int64_t n)
{
    double s = 0;
    for (int64_t j = 0; j < n; j++)
        s += g[j] * g[j] / M[j];
    return sqrt(s);
}

/* F, g and M at the start; the first radius is |M^-1 g|_M. */
static int start(struct tron *t)
{
    int rc = t->fn.fgd(t->fn.ud, t->w, &t->f, t->g, t->M);
    if (rc != 0)
        return rc;
    t->fn.take(t->fn.ud);
    blend(t, t->M);
    t->delta = gnorm(t->g, t->M, t->fn.n);
    t->gnorm = t->gnorm0 = sqrt(dot(t->g, t->g, t->fn.n));
    t->started = true;
    t->done = !(t->delta > 0); /* a zero gradient: the minimum */
    return 0;
}

/* Step 1 of tron.h into s (and r = -g - H s); *boundary when s was cut at
 * the region's edge. */
static int trpcg(struct tron *t, bool *boundary)
{
    int64_t n = t->fn.n;
    double *s = t->s, *r = t->r, *d = t->d, *z = t->z, *Hd = t->Hd;
    const double *M = t->M;
    for (int64_t j = 0; j < n; j++) {
        s[j] = 0;
        r[j] = -t->g[j];
        z[j] = r[j] / M[j];
        d[j] = z[j];
    }
    double zr = dot(z, r, n), tol = TRON_EPS_CG * sqrt(zr);
    int64_t most = n > 5 ? n : 5;
    *boundary = false;
    for (int64_t k = 0; k < most && sqrt(zr) > tol; k++) {
        int rc = t->fn.hv(t->fn.ud, d, Hd);
        if (rc != 0)
            return rc;
        t->cg++;
        double dHd = dot(d, Hd, n);
        if (!(dHd > 0))
            break; /* no curvature left along d (rounding): s stands */
        double alpha = zr / dHd;
        for (int64_t j = 0; j < n; j++)
            s[j] += alpha * d[j];
        if (sqrt(mdot(s, M, s, n)) > t->delta) {
            /* back, then to the boundary along d: the positive root of
             * |s + a d|_M = delta */
            for (int64_t j = 0; j < n; j++)
                s[j] -= alpha * d[j];
            double sMs = mdot(s, M, s, n), sMd = mdot(s, M, d, n), dMd = mdot(d, M, d, n);
            double dsq = t->delta * t->delta, gap = dsq - sMs > 0 ? dsq - sMs : 0;
            double rad = sqrt(sMd * sMd + dMd * gap);
            alpha = sMd >= 0 ? gap / (sMd + rad) : (rad - sMd) / dMd;
            if (!isfinite(alpha))
                alpha = 0;
            for (int64_t j = 0; j < n; j++) {
                s[j] += alpha * d[j];
                r[j] -= alpha * Hd[j];
            }
            *boundary = true;
            break;
        }
        for (int64_t j = 0; j < n; j++) {
            r[j] -= alpha * Hd[j];
            z[j] = r[j] / M[j];
        }
        double znew = dot(z, r, n), beta = znew / zr;
        for (int64_t j = 0; j < n; j++)
            d[j] = z[j] + beta * d[j];
        zr = znew;
    }
    return 0;
}

int tron_iterate(struct tron *t)
{
    int rc;
    if (t->done)
        return 0;
    if (!t->started && ((rc = start(t)) != 0 || t->done))
        return rc;
    int64_t n = t->fn.n;
    bool boundary;
    if ((rc = trpcg(t, &boundary)) != 0)
        return rc;
    double gs = dot(t->g, t->s, n), prered = -0.5 * (gs - dot(t->s, t->r, n)), fnew;
    for (int64_t j = 0; j < n; j++)
        t->wnew[j] = t->w[j] + t->s[j];
    if ((rc = t->fn.fgd(t->fn.ud, t->wnew, &fnew, t->gnew, t->Mnew)) != 0)
        return rc;
    blend(t, t->Mnew);
    double actred = t->f - fnew, snorm = sqrt(mdot(t->s, t->M, t->s, n));
    /* below F's resolution the ratio of the reductions is noise: a step
     * is taken when F does not rise beyond the rounding of its sums and
     * the gradient falls (in the plain norm, which weighs every
     * coordinate as the optimality conditions do) */
    bool noise = fabs(prered) <= TINY * fabs(t->f);
    double gnew = sqrt(dot(t->gnew, t->gnew, n));
    bool take = noise ? fnew <= t->f + ROUNDING * fabs(t->f) && gnew < t->gnorm
                      : actred > ETA0 * prered;
    if (t->iters == 0 && t->rejected == 0)
        t->delta = fmin(t->delta, snorm);
    /* the step's length that the function's values along s suggest */
    double curv = fnew - t->f - gs;
    double alpha = curv <= 0 ? SIGMA3 : fmax(SIGMA1, -0.5 * (gs / curv));
    if (!(actred >= ETA0 * prered)) /* NaN too: the region shrinks */
        t->delta = fmin(alpha * snorm, SIGMA2 * t->delta);
    else if (actred < ETA1 * prered)
        t->delta = fmax(SIGMA1 * t->delta, fmin(alpha * snorm, SIGMA2 * t->delta));
    else if (actred < ETA2 * prered)
        t->delta = fmax(SIGMA1 * t->delta, fmin(alpha * snorm, SIGMA3 * t->delta));
    else if (boundary)
        t->delta = SIGMA3 * t->delta;
    else
        t->delta = fmax(t->delta, fmin(alpha * snorm, SIGMA3 * t->delta));
    if (take) {
        t->fn.take(t->fn.ud);
        double *x = t->w;
        t->w = t->wnew;
        t->wnew = x;
        x = t->g;
        t->g = t->gnew;
        t->gnew = x;
        x = t->M;
        t->M = t->Mnew;
        t->Mnew = x;
        t->f = fnew;
        t->gnorm = gnew;
        t->iters++;
    } else {
        t->rejected++;
    }
    /* nothing more to gain at double precision */
    if ((noise && !take) || (actred <= 0 && prered <= 0) || !(t->delta > 0) ||
        !(t->gnorm > GTOL * t->gnorm0))
        t->done = true;
    return 0;
}

void tron_state(struct tron *t, struct ptm_ckpt *ck)
{
    int64_t n = t->fn.n;
    uint8_t flags[2] = {t->started, t->done};
    ptm_ck_tag(ck, "tron");
    ptm_ck_size(ck, n, "variables of the trust-region Newton method");
    PTM_CK_ARRAY(ck, t->w, n);
    PTM_CK_ARRAY(ck, t->g, n);
    PTM_CK_ARRAY(ck, t->M, n);
    PTM_CK(ck, t->f);
    PTM_CK(ck, t->delta);
    PTM_CK(ck, t->gnorm);
    PTM_CK(ck, t->gnorm0);
    PTM_CK(ck, flags);
    PTM_CK(ck, t->iters);
    PTM_CK(ck, t->cg);
    PTM_CK(ck, t->rejected);
    if (!ck->load || ck->err)
        return;
    if (flags[0] > 1 || flags[1] > 1) {
        ptm_ck_fail(ck, PTM_EDATA,
                    "the trust-region Newton method's state in the checkpoint is "
                    "damaged");
        return;
    }
    t->started = flags[0];
    t->done = flags[1];
}
