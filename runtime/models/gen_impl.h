/*
 * gen_impl.h - what the generators of `ptm gen` share (gen_util.c): random
 * variates drawn from runtime/base/rng.h, alias tables, number formatting,
 * and buffered output to a file that is renamed into place only when it is
 * whole. Internal to runtime/models/NAME/gen_NAME.c and their tests.
 */
#ifndef PTM_GEN_IMPL_H
#define PTM_GEN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "wfile.h"

/* ---- random variates -------------------------------------------------------- */

struct gen_rng {
    struct ptm_rng g;
    double spare; /* the second normal of the last polar draw */
    bool has_spare;
};

/* Stream `stream` of seed: independent generators for the parts of a data
 * set, so that each part depends only on its own options. */
void gen_rng_seed(struct gen_rng *g, uint64_t seed, uint64_t stream);

static inline uint64_t gen_rng_next(struct gen_rng *g)
{
    return ptm_rng_next(&g->g);
}
/* Uniform in [0, 1), 53 bits. */
static inline double gen_rng_uniform(struct gen_rng *g)
{
    return ptm_rng_uniform(&g->g);
}
/* Uniform in (0, 1], 53 bits: safe to take the log of. */
static inline double gen_rng_uniform_pos(struct gen_rng *g)
{
    return (double)((ptm_rng_next(&g->g) >> 11) + 1) * 0x1.0p-53;
}

/* Uniform in 0 .. n-1 (n >= 1), without modulo bias. */
uint64_t gen_rng_below(struct gen_rng *g, uint64_t n);
/* Standard normal (Marsaglia's polar method, in pairs). */
double gen_rng_normal(struct gen_rng *g);
/* log X for X ~ Gamma(a, 1), a > 0 finite: Marsaglia and Tsang's method,
 * with X = Gamma(a + 1) U^(1/a) when a < 1. The log does not underflow
 * when X would (a = 0.01 gives X < 1e-308 about once in a thousand). */
double gen_rng_log_gamma(struct gen_rng *g, double a);
/* Gamma(a, 1): exp(gen_rng_log_gamma()); may be 0 for a far below 1. */
double gen_rng_gamma(struct gen_rng *g, double a);
/* A draw from Dirichlet(alpha[0 .. n-1]) into p[0 .. n-1] (n >= 1, every
 * alpha > 0): normalized Gamma(alpha_k) variates, computed from their logs
 * so that small alphas do not make every component 0. p sums to 1 within
 * rounding and its largest component is positive. alpha may be NULL for
 * the symmetric Dirichlet(a, ..., a). */
void gen_rng_dirichlet(struct gen_rng *g, const double *alpha, double a, int64_t n, double *p);
/* Poisson(mean), 0 <= mean <= 1e15: multiplication of uniforms below
 * mean 10, Hoermann's transformed rejection (PTRS) above. */
int64_t gen_rng_poisson(struct gen_rng *g, double mean);

/* Draw m of 0 .. n-1 uniformly without replacement into pick[], ascending
 * (m <= n). mark[] (n entries) is all false on entry and on return. */
void gen_draw_sorted(struct gen_rng *g, int64_t n, int64_t m, int32_t *pick, bool *mark);

/* Walker's alias table of a distribution over 0 .. n-1 (n < 2^31): draw
 * i uniformly, keep it with probability prob[i], else take alias[i]. */
struct gen_alias {
    double *prob;   /* n; borrows */
    int32_t *alias; /* n; borrows */
    int64_t n;
};

/* Fill t (t->n, t->prob and t->alias set by the caller) for p[0 .. n),
 * which sums to 1 within rounding, by Vose's method; small and large are
 * n entries of scratch. t->prob may be p itself. */
void gen_alias_build(struct gen_alias *t, const double *p, int32_t *small, int32_t *large);

static inline int32_t gen_alias_draw(const struct gen_alias *t, struct gen_rng *g)
{
    int64_t i = (int64_t)gen_rng_below(g, (uint64_t)t->n);
    return gen_rng_uniform(g) < t->prob[i] ? (int32_t)i : t->alias[i];
}

/* ---- buffered output to a temporary file -------------------------------------- */

struct gen_out {
    struct ptm_wfile w; /* replaced whole or not at all */
    const char *name;   /* the file's name in the directory; borrows (static) */
    char *buf;          /* GEN_OUT_BUF bytes; owned */
    size_t len;
};

#define GEN_OUT_BUF ((size_t)1 << 20)
/* Longest thing written between two gen_out_room() calls. */
#define GEN_OUT_ITEM 64

/* Open the temporary file for DIR/name (name is kept: a static string).
 * 0, PTM_ENOMEM or PTM_EIO (errno set). gen_out_release() in every case. */
int gen_out_open(struct gen_out *o, const char *dir, const char *name);
/* Write out the buffer (errors are kept for gen_out_finish()). */
void gen_out_flush(struct gen_out *o);
/* Room for GEN_OUT_ITEM more bytes at o->buf + o->len. */
static inline char *gen_out_room(struct gen_out *o)
{
    if (o->len + GEN_OUT_ITEM > GEN_OUT_BUF)
        gen_out_flush(o);
    return o->buf + o->len;
}
/* Append a string of any length. */
void gen_out_puts(struct gen_out *o, const char *s);
/* Flush, sync and close the temporary file; 0 or PTM_EIO (errno set). */
int gen_out_finish(struct gen_out *o);
/* Rename the finished file into place; 0 or PTM_EIO (errno set). */
int gen_out_rename(struct gen_out *o);
/* Free, removing the temporary file when it was not renamed; keeps errno. */
void gen_out_release(struct gen_out *o);

/* "key<TAB>value" lines of info.tsv; a number in the shortest form that
 * reads back to it. */
void gen_out_kv_str(struct gen_out *o, const char *key, const char *value);
void gen_out_kv_int(struct gen_out *o, const char *key, int64_t value);
void gen_out_kv_num(struct gen_out *o, const char *key, double value);

/* *v >= 0 (finite) with 9 significant digits, NUL-terminated in buf (at
 * least 32 bytes): fixed notation from 1e-4 to below 1e9, else d.ddde-XX.
 * *v becomes the double that strtod() reads back from it. Returns the
 * length. */
int gen_fmt_sig(char *buf, double *v);

/* The decimal digits of v at p; returns their number (at most 20). */
int gen_fmt_uint(char *p, uint64_t v);

#endif
