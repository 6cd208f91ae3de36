/*
 * tron.h - trust-region Newton with preconditioned conjugate gradient
 * (Lin, Weng and Keerthi, "Trust region Newton method for large-scale
 * logistic regression", JMLR 2008; Hsia, Chiang and Lin, ACML 2018, for
 * the diagonal preconditioner), for a smooth convex function of n
 * variables given by callbacks. No step size: each iteration minimizes
 * the quadratic model inside a trust region by conjugate gradient, and
 * the region grows or shrinks by how well the model predicted the
 * function.
 *
 * ITERATION (tron_iterate), at w with f = F(w), g its gradient, M a
 * positive diagonal preconditioner (blended from the Hessian's diagonal,
 * M_j = (1 - a) c_j + a H_jj, a = TRON_ALPHA_PCG, c_j what the caller
 * says is the diagonal's floor), and delta the radius, in the norm
 * |s|_M = sqrt(s' M s):
 *   1. s approximately minimizes q(s) = g's + s'Hs/2 over |s|_M <= delta:
 *      conjugate gradient on H s = -g preconditioned by M, from s = 0,
 *      until the preconditioned residual falls below TRON_EPS_CG of its
 *      start, or s reaches the boundary (then cut at it);
 *   2. F(w + s); the actual reduction f - F(w + s) against the predicted
 *      -q(s): w + s is taken when actual > TRON_ETA0 predicted, and delta
 *      moves by their ratio (the rules of the papers above);
 *   3. when taken, g and M at the new point.
 * A step that would not lower F is never taken, so F never rises. Once
 * the predicted reduction is below what F's sums resolve (TINY of F), the
 * ratio is noise: a step is then taken when F does not rise by more than
 * the rounding of its sums (ROUNDING) and the gradient's norm falls; the
 * first that fails, or a gradient 1e-12 of its start (GTOL), ends the
 * iterations (t->done), at a gradient near its rounding floor.
 *
 * The callbacks make the passes over the data: fgd (F, gradient and the
 * Hessian's diagonal at a point, keeping what hv needs as a candidate)
 * and hv (Hessian times a vector at the last point taken); take() makes
 * the candidate of the last fgd the point hv works at. Each returns 0 or
 * an error code, which tron_iterate returns. Vectors of n doubles, no
 * allocation after tron_init.
 */
#ifndef PTM_TRON_H
#define PTM_TRON_H

#include <stdbool.h>
#include <stdint.h>

#define TRON_EPS_CG 0.1
#define TRON_ALPHA_PCG 0.01

struct tron_fun {
    void *ud;
    int64_t n;
    /* f = F(w), g = its gradient, diag = the Hessian's diagonal */
    int (*fgd)(void *ud, const double *w, double *f, double *g, double *diag);
    /* out = H v at the point taken last */
    int (*hv)(void *ud, const double *v, double *out);
    /* the point of the last fgd is taken */
    void (*take)(void *ud);
    const double *floor; /* c_j above, n values > 0 */
};

struct tron {
    struct tron_fun fn;
    double *w, *g, *M, *s, *r, *d, *z, *Hd, *wnew, *gnew, *Mnew;
    double f, delta;
    double gnorm, gnorm0; /* |g| at w, and at the start */
    bool started;
    bool done;     /* converged: nothing left to gain at double precision */
    int64_t iters; /* iterations taken (steps accepted) */
    int64_t cg;    /* conjugate gradient steps, in all */
    int64_t rejected;
};

/* For fn (copied), from w0 (n values, copied). Returns 0 or PTM_ENOMEM.
 * Free with tron_free (also after a failure). */
int tron_init(struct tron *t, const struct tron_fun *fn, const double *w0);
void tron_free(struct tron *t);

/* One iteration (the first also evaluates F at the start). t->w and t->f
 * are the point kept: moved when the step was taken. Once t->done, does
 * nothing. */
int tron_iterate(struct tron *t);

/* Checkpoints (runtime/base/ckpt.h): save or load (ck->load) what one
 * iteration hands the next: the point, its F, gradient and
 * preconditioner, the radius, the gradient's norms and the counters and
 * flags, into a struct tron set up alike (tron_init with fn of the same
 * n). The other arrays are scratch, written before they are read in
 * every iteration; fn is the caller's (its pointers are this process's). */
struct ptm_ckpt;
void tron_state(struct tron *t, struct ptm_ckpt *ck);

#endif
