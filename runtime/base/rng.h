/*
 * rng.h - the one pseudo-random generator of ptm: xoshiro256** (Blackman
 * and Vigna) seeded through splitmix64. Repeatable across machines; never
 * rand(). Every part that needs random numbers (parameter initial values,
 * the store's fills, the generators of `ptm gen`, the hooks' w:random())
 * keeps its own struct ptm_rng, so streams are independent.
 */
#ifndef PTM_RNG_H
#define PTM_RNG_H

#include <stdint.h>

struct ptm_rng {
    uint64_t s[4];
};

/* splitmix64: the next value of the sequence at *x (which it advances). */
static inline uint64_t ptm_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The state is four splitmix64 values from seed. */
static inline void ptm_rng_seed(struct ptm_rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        g->s[i] = ptm_splitmix64(&seed);
}

static inline uint64_t ptm_rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t ptm_rng_next(struct ptm_rng *g)
{
    uint64_t *s = g->s;
    uint64_t out = ptm_rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ptm_rotl64(s[3], 45);
    return out;
}

/* Uniform in [0, 1), 53 bits. */
static inline double ptm_rng_uniform(struct ptm_rng *g)
{
    return (double)(ptm_rng_next(g) >> 11) * 0x1.0p-53;
}

#endif
