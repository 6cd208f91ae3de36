/*
 * kernel_mf.c - matrix factorization by SGD and by CCD++ over the rotation
 * layout (kernel_mf.h): the grid of a worker's ratings by column block,
 * the per-cell kernels, and the parts of the objective.
 *
 * DESIGN: the SGD step is the hot loop: a dot product of two rank-long
 * rows and two scaled updates of them. The dot keeps four partial sums so
 * that the additions do not wait on each other and the compiler can pair
 * them into vector registers (no -ffast-math needed); the updates are
 * element-wise and vectorize as written. The loop is one always-inlined
 * function instantiated for common ranks, where the trip counts are
 * constants, and once for any rank: the instances compute the same
 * numbers in the same order. The ratings are read where R's CSR has them
 * (a 32-bit column and a double, in sequence, row by row): the grid adds
 * an index of P + 1 positions a row and no copy, so a run holds the
 * ratings once, as LIBMF does. CCD++ touches one column of W and H per
 * pass; it gathers the held block's column into a contiguous scratch
 * once a round, so that the pass over the cell reads H with unit stride.
 */
#include "kernel_mf.h"

#include <math.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

/* ---- the grid -------------------------------------------------------------------- */

void mf_grid_release(struct mf_grid *g)
{
    ptm_free(g->block_lo);
    ptm_free(g->cell);
    ptm_free(g->at);
    memset(g, 0, sizeof(*g));
}

int mf_grid_build(struct mf_grid *g, const struct ptm_csr *R, int64_t lo, int64_t hi, int nblocks)
{
    memset(g, 0, sizeof(*g));
    if (nblocks < 1 || nblocks > R->ncols || lo < 0 || lo > hi || hi > R->nrows)
        return PTM_EINVAL;
    int64_t n = hi - lo, base = R->rowptr[lo];
    g->nrows = n;
    g->ncols = R->ncols;
    g->nnz = R->rowptr[hi] - base;
    g->nblocks = nblocks;
    g->block_lo = ptm_malloc((size_t)(nblocks + 1) * sizeof(*g->block_lo));
    g->cell = ptm_malloc((size_t)(nblocks + 1) * sizeof(*g->cell));
    g->at = ptm_malloc((size_t)((int64_t)(nblocks + 1) * n + 1) * sizeof(*g->at));
    if (!g->block_lo || !g->cell || !g->at) {
        mf_grid_release(g);
        return PTM_ENOMEM;
    }
    g->col = g->nnz > 0 ? R->colind + base : NULL;
    g->val = g->nnz > 0 ? R->val + base : NULL;
    ptm_shard_even(R->ncols, nblocks, g->block_lo);
    const int64_t *bl = g->block_lo;
    memset(g->cell, 0, (size_t)(nblocks + 1) * sizeof(*g->cell));
    /* Where each row enters each block: its columns increase. */
    for (int64_t i = 0; i < n; i++) {
        int64_t k = R->rowptr[lo + i] - base, end = R->rowptr[lo + i + 1] - base;
        for (int b = 0; b < nblocks; b++) {
            g->at[(int64_t)b * n + i] = k;
            int64_t k0 = k;
            while (k < end && g->col[k] < bl[b + 1])
                k++;
            g->cell[b + 1] += k - k0;
        }
        g->at[(int64_t)nblocks * n + i] = end;
    }
    for (int b = 0; b < nblocks; b++)
        g->cell[b + 1] += g->cell[b];
    return 0;
}

void mf_reg_rows(const struct mf_grid *g, double reg, double *rw)
{
    for (int64_t i = 0; i < g->nrows; i++) {
        int64_t ni = mf_cell_hi(g, g->nblocks - 1, i) - mf_cell_lo(g, 0, i);
        rw[i] = ni > 0 ? reg / (double)ni : 0;
    }
}

void mf_col_counts_part(const struct mf_grid *g, int64_t *cnt)
{
    for (int64_t k = 0; k < g->nnz; k++)
        cnt[g->col[k]]++;
}

void mf_reg_cols(const int64_t *cnt, int64_t n, double reg, double *rh)
{
    for (int64_t j = 0; j < n; j++)
        rh[j] = cnt[j] > 0 ? reg / (double)cnt[j] : 0;
}

double mf_step(double rate, double decay, int64_t sweep)
{
    return rate * pow(decay, (double)sweep);
}

/* ---- SGD ------------------------------------------------------------------------ */

/* Cell b of a grid as the loops walk it: row i's ratings are positions
 * s0[i] .. s1[i] - 1 of col and val, column col[k] - jlo of the block. */
struct cellv {
    const int64_t *s0, *s1;
    int64_t nrows, jlo;
    const int32_t *col;
    const double *val;
};

static struct cellv cellv_of(const struct mf_grid *g, int b)
{
    return (struct cellv){g->at + (int64_t)b * g->nrows, g->at + (int64_t)(b + 1) * g->nrows,
                          g->nrows, g->block_lo[b], g->col, g->val};
}

/* The SGD steps over n entries, in 4-wide vectors as ptm_dot4() (vec4.h):
 * the update is elementwise and nothing is fused, so every build and
 * vector width gives the same bits, and so does a Lua hook making the same
 * steps. Inlined into sgd_base() (baseline x86-64: two SSE2 halves a
 * vector) and sgd_avx2() (one register), compiled for each target;
 * mf_sgd_cell() picks by the processor it runs on. */

static inline __attribute__((always_inline)) void
sgd_run(const struct cellv *c, int64_t rank, double eta, double *W, double *Hb,
        const double *restrict rw, const double *restrict rhb)
{
    const int64_t *restrict s0 = c->s0, *restrict s1 = c->s1;
    const int32_t *restrict col = c->col;
    const double *restrict val = c->val;
    for (int64_t i = 0; i < c->nrows; i++) {
        double *restrict w = W + (size_t)i * (size_t)rank;
        double sw = 1 - eta * rw[i];
        ptm_v4d vsw = {sw, sw, sw, sw};
        for (int64_t t = s0[i]; t < s1[i]; t++) {
            int64_t j = col[t] - c->jlo;
            double *restrict h = Hb + (size_t)j * (size_t)rank;
            double g = eta * (val[t] - ptm_dot4(w, h, rank));
            double sh = 1 - eta * rhb[j];
            ptm_v4d vsh = {sh, sh, sh, sh}, vg = {g, g, g, g};
            int64_t k = 0;
#pragma GCC unroll 8
            for (; k + 4 <= rank; k += 4) {
                ptm_v4d wk = *(ptm_v4d *)(w + k), hk = *(ptm_v4d *)(h + k);
                *(ptm_v4d *)(w + k) = vsw * wk + vg * hk;
                *(ptm_v4d *)(h + k) = vsh * hk + vg * wk;
            }
            for (; k < rank; k++) {
                double wk = w[k], hk = h[k];
                w[k] = sw * wk + g * hk;
                h[k] = sh * hk + g * wk;
            }
        }
    }
}

/* One function a width, each with the ranks the examples use spelled out
 * (constant trip counts unroll). */
#define SGD_RANKS(RUN)                                                                             \
    switch (rank) {                                                                                \
    case 8: RUN(c, 8, eta, W, Hb, rw, rhb); break;                                                 \
    case 10: RUN(c, 10, eta, W, Hb, rw, rhb); break;                                               \
    case 16: RUN(c, 16, eta, W, Hb, rw, rhb); break;                                               \
    case 20: RUN(c, 20, eta, W, Hb, rw, rhb); break;                                               \
    case 32: RUN(c, 32, eta, W, Hb, rw, rhb); break;                                               \
    case 50: RUN(c, 50, eta, W, Hb, rw, rhb); break;                                               \
    case 64: RUN(c, 64, eta, W, Hb, rw, rhb); break;                                               \
    case 100: RUN(c, 100, eta, W, Hb, rw, rhb); break;                                             \
    case 128: RUN(c, 128, eta, W, Hb, rw, rhb); break;                                             \
    default: RUN(c, rank, eta, W, Hb, rw, rhb);                                                    \
    }

static void sgd_base(const struct cellv *c, int64_t rank, double eta, double *W, double *Hb,
                     const double *rw, const double *rhb)
{
    SGD_RANKS(sgd_run)
}

#ifdef PTM_ISA_X86
static __attribute__((target("avx2"))) void sgd_avx2(const struct cellv *c, int64_t rank,
                                                     double eta, double *W, double *Hb,
                                                     const double *rw, const double *rhb)
{
    SGD_RANKS(sgd_run)
}
#endif

void mf_sgd_cell_base(const struct mf_grid *g, int b, int64_t rank, double eta, double *W,
                      double *Hb, const double *rw, const double *rhb)
{
    struct cellv c = cellv_of(g, b);
    sgd_base(&c, rank, eta, W, Hb, rw, rhb);
}

void mf_sgd_cell(const struct mf_grid *g, int b, int64_t rank, double eta, double *W, double *Hb,
                 const double *rw, const double *rhb)
{
#ifdef PTM_ISA_X86
    if (ptm_isa_has(PTM_ISA_AVX2)) {
        struct cellv c = cellv_of(g, b);
        sgd_avx2(&c, rank, eta, W, Hb, rw, rhb);
        return;
    }
#endif
    mf_sgd_cell_base(g, b, rank, eta, W, Hb, rw, rhb);
}

/* ---- SGD, adaptive steps ---------------------------------------------------------- */

/* As sgd_run(), with a step per row of W and per row of H: rate / sqrt(G),
 * G the row's accumulated mean squared gradient (from 1), then G grows by
 * this step's. One pass sums w . h and |h|^2; |w|^2 is summed once a
 * row and carried from step to step (w changes by a scaled sum of w and
 * h, whose square follows from the three); the squared gradients follow
 * from them too (no second sum), and the update is a scaled sum of the
 * old rows, as sgd_run()'s. The same elementwise
 * vectors, so the same bits on every width. */
static inline __attribute__((always_inline)) void
ada_run(const struct cellv *c, int64_t rank, double rate, double *W, double *Hb,
        const double *restrict rw, const double *restrict rhb, double *restrict gw,
        double *restrict gh)
{
    double inv = 1.0 / (double)rank;
    const int64_t *restrict s0 = c->s0, *restrict s1 = c->s1;
    const int32_t *restrict col = c->col;
    const double *restrict val = c->val;
    for (int64_t i = 0; i < c->nrows; i++) {
        double *restrict w = W + (size_t)i * (size_t)rank;
        if (s0[i] == s1[i])
            continue;
        /* |w|^2 once a row; each step below carries it forward */
        double ww = ptm_dot4(w, w, rank);
        for (int64_t t = s0[i]; t < s1[i]; t++) {
            int64_t j = col[t] - c->jlo;
            double *restrict h = Hb + (size_t)j * (size_t)rank;
            /* w . h and |h|^2 in one pass */
            ptm_v4d pd = {0, 0, 0, 0}, ph = {0, 0, 0, 0};
            int64_t k = 0;
#pragma GCC unroll 8
            for (; k + 4 <= rank; k += 4) {
                ptm_v4d wk = *(ptm_v4d *)(w + k), hk = *(ptm_v4d *)(h + k);
                pd += wk * hk;
                ph += hk * hk;
            }
            double dot = (pd[0] + pd[1]) + (pd[2] + pd[3]), hh = (ph[0] + ph[1]) + (ph[2] + ph[3]);
            for (; k < rank; k++) {
                dot += w[k] * h[k];
                hh += h[k] * h[k];
            }
            double err = val[t] - dot;
            double aw = rate / sqrt(gw[i]), ah = rate / sqrt(gh[j]), cw = rw[i], ch = rhb[j];
            /* To first order the step takes e down to e (1 - aw |h|^2 - ah |w|^2):
             * never past 0 (an overshoot feeds on itself at large rates). */
            double q = aw * hh + ah * ww;
            if (q > 1) {
                aw /= q;
                ah /= q;
            }
            /* |dw|^2 and |dh|^2 from the sums above, not summed again:
             * dw = e h - cw w gives e^2 |h|^2 - 2 e cw w.h + cw^2 |w|^2 */
            double qw = err * err * hh - 2 * err * cw * dot + cw * cw * ww;
            double qh = err * err * ww - 2 * err * ch * dot + ch * ch * hh;
            /* w + aw dw = (1 - aw cw) w + aw e h, and so for h */
            double sw = 1 - aw * cw, sh = 1 - ah * ch, fw = aw * err, fh = ah * err;
            ptm_v4d vsw = {sw, sw, sw, sw}, vsh = {sh, sh, sh, sh};
            ptm_v4d vfw = {fw, fw, fw, fw}, vfh = {fh, fh, fh, fh};
#pragma GCC unroll 8
            for (k = 0; k + 4 <= rank; k += 4) {
                ptm_v4d wk = *(ptm_v4d *)(w + k), hk = *(ptm_v4d *)(h + k);
                *(ptm_v4d *)(w + k) = vsw * wk + vfw * hk;
                *(ptm_v4d *)(h + k) = vsh * hk + vfh * wk;
            }
            for (; k < rank; k++) {
                double wk = w[k], hk = h[k];
                w[k] = sw * wk + fw * hk;
                h[k] = sh * hk + fh * wk;
            }
            /* |(1 - aw cw) w + aw e h|^2; rounding can take a square a hair below 0 */
            ww = sw * sw * ww + 2 * sw * fw * dot + fw * fw * hh;
            ww = ww > 0 ? ww : 0;
            gw[i] += (qw > 0 ? qw : 0) * inv;
            gh[j] += (qh > 0 ? qh : 0) * inv;
        }
    }
}

#define ADA_RANKS(RUN)                                                                             \
    switch (rank) {                                                                                \
    case 8: RUN(c, 8, rate, W, Hb, rw, rhb, gw, ghb); break;                                       \
    case 10: RUN(c, 10, rate, W, Hb, rw, rhb, gw, ghb); break;                                     \
    case 16: RUN(c, 16, rate, W, Hb, rw, rhb, gw, ghb); break;                                     \
    case 20: RUN(c, 20, rate, W, Hb, rw, rhb, gw, ghb); break;                                     \
    case 32: RUN(c, 32, rate, W, Hb, rw, rhb, gw, ghb); break;                                     \
    case 64: RUN(c, 64, rate, W, Hb, rw, rhb, gw, ghb); break;                                     \
    case 128: RUN(c, 128, rate, W, Hb, rw, rhb, gw, ghb); break;                                   \
    default: RUN(c, rank, rate, W, Hb, rw, rhb, gw, ghb);                                          \
    }

static void ada_base(const struct cellv *c, int64_t rank, double rate, double *W, double *Hb,
                     const double *rw, const double *rhb, double *gw, double *ghb)
{
    ADA_RANKS(ada_run)
}

#ifdef PTM_ISA_X86
static __attribute__((target("avx2"))) void ada_avx2(const struct cellv *c, int64_t rank,
                                                     double rate, double *W, double *Hb,
                                                     const double *rw, const double *rhb,
                                                     double *gw, double *ghb)
{
    ADA_RANKS(ada_run)
}
#endif

void mf_sgd_ada_cell_base(const struct mf_grid *g, int b, int64_t rank, double rate, double *W,
                          double *Hb, const double *rw, const double *rhb, double *gw,
                          double *ghb)
{
    struct cellv c = cellv_of(g, b);
    ada_base(&c, rank, rate, W, Hb, rw, rhb, gw, ghb);
}

void mf_sgd_ada_cell(const struct mf_grid *g, int b, int64_t rank, double rate, double *W,
                     double *Hb, const double *rw, const double *rhb, double *gw, double *ghb)
{
#ifdef PTM_ISA_X86
    if (ptm_isa_has(PTM_ISA_AVX2)) {
        struct cellv c = cellv_of(g, b);
        ada_avx2(&c, rank, rate, W, Hb, rw, rhb, gw, ghb);
        return;
    }
#endif
    mf_sgd_ada_cell_base(g, b, rank, rate, W, Hb, rw, rhb, gw, ghb);
}

void mf_fill(double *a, int64_t n, double v)
{
    for (int64_t k = 0; k < n; k++)
        a[k] = v;
}

/* ---- CCD++ -------------------------------------------------------------------- */

void mf_ccd_phase(int64_t t, int P, int64_t rank, int inner, struct mf_ccd_phase *ph)
{
    int64_t e = t / P, s = t % P, per = 2 * (int64_t)inner;
    int64_t step = e % (per * rank), q = step % per;
    ph->k = step / per;
    ph->hpass = q % 2 == 1;
    ph->open = q == 0;
    ph->prev = e == 0 ? -1 : (ph->k + rank - 1) % rank;
    ph->first = s == 0;
    ph->last = s == P - 1;
}

int mf_ccd_init(struct mf_ccd *s, const struct mf_grid *g)
{
    memset(s, 0, sizeof(*s));
    int64_t most = 1;
    for (int b = 0; b < g->nblocks; b++)
        if (g->block_lo[b + 1] - g->block_lo[b] > most)
            most = g->block_lo[b + 1] - g->block_lo[b];
    s->res = ptm_malloc((size_t)(g->nnz > 0 ? g->nnz : 1) * sizeof(*s->res));
    s->wacc = ptm_malloc((size_t)(2 * g->nrows + 2) * sizeof(*s->wacc));
    s->hk = ptm_malloc((size_t)(2 * most) * sizeof(*s->hk));
    if (!s->res || !s->wacc || !s->hk) {
        mf_ccd_release(s);
        return PTM_ENOMEM;
    }
    memset(s->wacc, 0, (size_t)(2 * g->nrows + 2) * sizeof(*s->wacc));
    return 0;
}

void mf_ccd_release(struct mf_ccd *s)
{
    ptm_free(s->res);
    ptm_free(s->wacc);
    ptm_free(s->hk);
    memset(s, 0, sizeof(*s));
}

void mf_ccd_residual_cell(struct mf_ccd *s, const struct mf_grid *g, int b, int64_t rank,
                          const double *W, const double *Hb)
{
    struct cellv c = cellv_of(g, b);
    for (int64_t i = 0; i < c.nrows; i++)
        for (int64_t t = c.s0[i]; t < c.s1[i]; t++)
            s->res[t] = c.val[t] - ptm_dot4(W + (size_t)i * (size_t)rank,
                                            Hb + (size_t)(c.col[t] - c.jlo) * (size_t)rank, rank);
}

/* num / (reg + den), 0 when that is 0 / 0. */
static inline double ratio(double num, double den, double reg)
{
    double d = reg + den;
    return d > 0 ? num / d : 0;
}

void mf_ccd_round(struct mf_ccd *s, const struct mf_grid *g, int b, const struct mf_ccd_phase *ph,
                  int64_t rank, double reg, double *W, double *Hb, double *hacc)
{
    struct cellv c = cellv_of(g, b);
    const int64_t *restrict s0 = c.s0, *restrict s1 = c.s1;
    const int32_t *restrict col = c.col;
    int64_t jlo = c.jlo;
    double *restrict res = s->res;
    int64_t nb = g->block_lo[b + 1] - g->block_lo[b];
    int64_t k = ph->k;

    if (!ph->hpass) {
        double *restrict acc = s->wacc;
        double *restrict hk = s->hk, *restrict hp = s->hk + nb;
        if (ph->first)
            memset(acc, 0, (size_t)(2 * g->nrows) * sizeof(*acc));
        for (int64_t j = 0; j < nb; j++)
            hk[j] = Hb[j * rank + k];
        if (ph->open) {
            /* The residual moves from "prev open" to "k open". */
            int64_t p = ph->prev;
            if (p >= 0 && p != k) {
                for (int64_t j = 0; j < nb; j++)
                    hp[j] = Hb[j * rank + p];
                for (int64_t i = 0; i < c.nrows; i++) {
                    const double *w = W + (size_t)i * (size_t)rank;
                    for (int64_t t = s0[i]; t < s1[i]; t++)
                        res[t] += w[k] * hk[col[t] - jlo] - w[p] * hp[col[t] - jlo];
                }
            } else if (p < 0) {
                for (int64_t i = 0; i < c.nrows; i++) {
                    double wk = W[(size_t)i * (size_t)rank + (size_t)k];
                    for (int64_t t = s0[i]; t < s1[i]; t++)
                        res[t] += wk * hk[col[t] - jlo];
                }
            }
        }
        for (int64_t i = 0; i < c.nrows; i++)
            for (int64_t t = s0[i]; t < s1[i]; t++) {
                double h = hk[col[t] - jlo];
                acc[2 * i] += res[t] * h;
                acc[2 * i + 1] += h * h;
            }
        if (ph->last)
            for (int64_t i = 0; i < g->nrows; i++)
                W[i * rank + k] = ratio(acc[2 * i], acc[2 * i + 1], reg);
    } else {
        double *restrict acc = hacc;
        if (ph->first)
            memset(acc, 0, (size_t)(2 * nb) * sizeof(*acc));
        for (int64_t i = 0; i < c.nrows; i++) {
            double u = W[(size_t)i * (size_t)rank + (size_t)k];
            for (int64_t t = s0[i]; t < s1[i]; t++) {
                int64_t j = col[t] - jlo;
                acc[2 * j] += res[t] * u;
                acc[2 * j + 1] += u * u;
            }
        }
        if (ph->last)
            for (int64_t j = 0; j < nb; j++)
                Hb[j * rank + k] = ratio(acc[2 * j], acc[2 * j + 1], reg);
    }
}

/* ---- objective ------------------------------------------------------------------ */

double mf_sqerr_csr(const struct ptm_csr *R, int64_t lo, int64_t hi, const double *W,
                    const double *H, int64_t rank)
{
    double s = 0;
    for (int64_t i = lo; i < hi; i++) {
        const double *w = W + (size_t)(i - lo) * (size_t)rank;
        for (int64_t k = R->rowptr[i]; k < R->rowptr[i + 1]; k++) {
            double d = R->val[k] - ptm_dot4(w, H + (size_t)R->colind[k] * (size_t)rank, rank);
            s += d * d;
        }
    }
    return s;
}

double mf_sqerr_grid(const struct mf_grid *g, const double *W, const double *H, int64_t rank)
{
    double s = 0;
    for (int b = 0; b < g->nblocks; b++) {
        const double *Hb = H + (size_t)g->block_lo[b] * (size_t)rank;
        struct cellv c = cellv_of(g, b);
        for (int64_t i = 0; i < c.nrows; i++)
            for (int64_t t = c.s0[i]; t < c.s1[i]; t++) {
                const double *h = Hb + (size_t)(c.col[t] - c.jlo) * (size_t)rank;
                double d = c.val[t] - ptm_dot4(W + (size_t)i * (size_t)rank, h, rank);
                s += d * d;
            }
    }
    return s;
}

double mf_sqnorm(const double *a, int64_t n)
{
    double s0 = 0, s1 = 0;
    int64_t k = 0;
    for (; k + 2 <= n; k += 2) {
        s0 += a[k] * a[k];
        s1 += a[k + 1] * a[k + 1];
    }
    if (k < n)
        s0 += a[k] * a[k];
    return s0 + s1;
}
