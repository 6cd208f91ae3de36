/*
 * xsum.c - exact sums of doubles (xsum.h).
 *
 * DESIGN: a finite double is m 2^e, m < 2^53 and e >= -1074, so m shifted
 * by e + 1074 bits spans at most three 32-bit digits. Digits are signed
 * 64-bit words, so that adding and taking away need no carry at once: each
 * term moves a digit by less than 2^32, and the carries are passed up
 * every CARRY_EVERY terms, before a digit could overflow. Rounding passes
 * them up in a copy, takes the magnitude's top 65 to 96 bits in a 128-bit
 * word with a sticky bit for the rest, and rounds that to 53 bits. A sum
 * of doubles is a multiple of 2^-1074, so one below 2^-1022 is a
 * subnormal exactly: the bits under its last are zero, and neither the
 * rounding nor ldexp changes it.
 */
#include "xsum.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define CARRY_EVERY ((int64_t)1 << 30)
#define RADIX ((int64_t)1 << 32)

void xsum_init(struct xsum *s)
{
    memset(s, 0, sizeof(*s));
}

/* Digits 0 .. XSUM_DIGITS-2 into [0, 2^32), the top one signed. */
static void carry(int64_t *d)
{
    for (int i = 0; i + 1 < XSUM_DIGITS; i++) {
        int64_t low = d[i] & (RADIX - 1); /* d[i] mod 2^32, also when negative */
        d[i + 1] += (d[i] - low) / RADIX; /* exact */
        d[i] = low;
    }
}

static void put(struct xsum *s, double x, int64_t sign)
{
    if (isnan(x)) {
        s->nan += sign;
        return;
    }
    if (isinf(x)) {
        s->inf[x < 0] += sign;
        return;
    }
    if (x == 0)
        return;
    if (x < 0) {
        x = -x;
        sign = -sign;
    }
    uint64_t u;
    memcpy(&u, &x, sizeof(u));
    int ex = (int)(u >> 52);
    uint64_t m = u & ((UINT64_C(1) << 52) - 1);
    if (ex > 0)
        m |= UINT64_C(1) << 52;
    int p = (ex > 0 ? ex : 1) - 1; /* x = m 2^(p - 1074) */
    unsigned __int128 v = (unsigned __int128)m << (p % 32);
    int64_t *d = s->d + p / 32;
    d[0] += sign * (int64_t)(uint32_t)v;
    d[1] += sign * (int64_t)(uint32_t)(v >> 32);
    d[2] += sign * (int64_t)(uint32_t)(v >> 64);
    if (++s->terms >= CARRY_EVERY) {
        carry(s->d);
        s->terms = 0;
    }
}

void xsum_add(struct xsum *s, double x)
{
    put(s, x, 1);
}

void xsum_sub(struct xsum *s, double x)
{
    put(s, x, -1);
}

void xsum_merge(struct xsum *s, const struct xsum *t)
{
    int64_t d[XSUM_DIGITS];
    memcpy(d, t->d, sizeof(d));
    carry(d);
    if (s->terms + 1 >= CARRY_EVERY) {
        carry(s->d);
        s->terms = 0;
    }
    for (int i = 0; i < XSUM_DIGITS; i++)
        s->d[i] += d[i];
    s->terms++;
    s->inf[0] += t->inf[0];
    s->inf[1] += t->inf[1];
    s->nan += t->nan;
}

double xsum_round(const struct xsum *s)
{
    if (s->nan > 0 || (s->inf[0] > 0 && s->inf[1] > 0))
        return NAN;
    if (s->inf[0] > 0 || s->inf[1] > 0)
        return s->inf[0] > 0 ? INFINITY : -INFINITY;
    int64_t d[XSUM_DIGITS];
    memcpy(d, s->d, sizeof(d));
    carry(d);
    bool neg = d[XSUM_DIGITS - 1] < 0;
    if (neg) { /* the magnitude: every digit negated, carried again */
        for (int i = 0; i < XSUM_DIGITS; i++)
            d[i] = -d[i];
        carry(d);
    }
    int h = XSUM_DIGITS - 1;
    while (h >= 0 && d[h] == 0)
        h--;
    if (h < 0)
        return 0;
    /* digits h, h-1, h-2 (0 below digit 0): w 2^base, base the weight of
     * digit h-2; the digits under them only as a sticky bit */
    unsigned __int128 w = (unsigned __int128)(uint64_t)d[h] << 64;
    if (h >= 1)
        w |= (unsigned __int128)(uint64_t)d[h - 1] << 32;
    if (h >= 2)
        w |= (uint64_t)d[h - 2];
    bool sticky = false;
    for (int i = 0; i < h - 2; i++)
        sticky |= d[i] != 0;
    int base = 32 * (h - 2) - 1074;
    int bits = 64 + (64 - __builtin_clzll((uint64_t)d[h])); /* d[h] in [1, 2^32) */
    int shift = bits - 53;
    uint64_t m;
    if (shift <= 0) {
        m = (uint64_t)w; /* fewer than 53 bits: exact */
        shift = 0;
    } else {
        unsigned __int128 one = 1, rem = w & ((one << shift) - 1), half = one << (shift - 1);
        m = (uint64_t)(w >> shift);
        if (rem > half || (rem == half && (sticky || (m & 1))))
            m++; /* m may reach 2^53: still exact */
    }
    double r = ldexp((double)m, base + shift); /* beyond the largest double: inf */
    return neg ? -r : r;
}
