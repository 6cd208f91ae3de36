/*
 * vec4.h - the dot product in 4-wide vectors that the MF kernels and the
 * Lua hooks' x:dot() share, so that a hook doing a kernel's arithmetic
 * gets its bits.
 */
#ifndef PTM_VEC4_H
#define PTM_VEC4_H

#include <stdint.h>

/* w . h over n values: four partial sums, element k in sum k mod 4, added
 * as (0 + 1) + (2 + 3), in 4-wide vectors of GCC (two SSE2 halves on the
 * baseline, one register with AVX2; nothing fused, as ISO C contracts
 * nothing). The one order of the kernels' dots and the Lua hooks' x:dot(),
 * so that a hook doing the kernel's arithmetic gets its bits. */
typedef double ptm_v4d __attribute__((vector_size(32), aligned(8)));

static inline __attribute__((always_inline)) double ptm_dot4(const double *restrict w,
                                                             const double *restrict h, int64_t n)
{
    ptm_v4d s = {0, 0, 0, 0};
    int64_t k = 0;
#pragma GCC unroll 8
    for (; k + 4 <= n; k += 4)
        s += *(const ptm_v4d *)(w + k) * *(const ptm_v4d *)(h + k);
    double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    if (k < n)
        s0 += w[k] * h[k];
    if (k + 1 < n)
        s1 += w[k + 1] * h[k + 1];
    if (k + 2 < n)
        s2 += w[k + 2] * h[k + 2];
    return (s0 + s1) + (s2 + s3);
}

#endif
