/*
 * xsum.h - exact sums of doubles: a long accumulator.
 *
 * Every finite double is an integer times 2^-1074; the accumulator holds
 * the exact sum as 32-bit digits in signed 64-bit words, so that adding or
 * taking away a double is exact and costs a few integer additions, and the
 * result, rounded once to the nearest double (ties to even), does not
 * depend on the order of the terms. Infinities and NaNs are counted apart
 * (a NaN, or +inf and -inf both present, give NaN).
 *
 * Used for the L1 norm of a Lasso's coefficients, which the objective
 * reads after rounds that change a few of many: the norm follows each
 * change as it is committed instead of a pass over all of them, and is the
 * same bits for any number of workers (runtime/engine/rounds.c).
 */
#ifndef PTM_XSUM_H
#define PTM_XSUM_H
#include <stdint.h>

/* Digit i weighs 2^(32 i - 1074): 66 digits hold the largest double's
 * last bit and two more the carries of up to 2^63 of them. */
#define XSUM_DIGITS 68

struct xsum {
    int64_t d[XSUM_DIGITS]; /* carries not yet passed up */
    int64_t terms;          /* terms since the carries were passed up */
    int64_t inf[2], nan;    /* +inf, -inf and NaN terms, less those taken away */
};

void xsum_init(struct xsum *s);
/* s += x, s -= x: exactly. */
void xsum_add(struct xsum *s, double x);
void xsum_sub(struct xsum *s, double x);
/* s += t exactly. */
void xsum_merge(struct xsum *s, const struct xsum *t);
/* The sum rounded to the nearest double, ties to even (+-inf beyond the
 * largest double); 0 when empty. */
double xsum_round(const struct xsum *s);

#endif
