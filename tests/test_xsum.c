/*
 * test_xsum.c - exact sums of doubles (runtime/base/xsum.h), against
 * references computed another way: IEEE addition, which rounds the exact
 * sum of two doubles correctly; __float128 sums of terms whose bits fit in
 * its 113, converted once; and cases whose correctly rounded sum is known
 * by hand (ties, sticky bits far below, subnormals, overflow).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rng.h"
#include "testutil.h"
#include "xsum.h"

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* A double of random bits: every exponent, subnormals and both signs;
 * never inf or NaN. */
static double any_double(struct ptm_rng *g)
{
    for (;;) {
        uint64_t u = ptm_rng_next(g);
        double x;
        memcpy(&x, &u, sizeof(x));
        if (isfinite(x))
            return x;
    }
}

static double sum_of(const double *x, int n)
{
    struct xsum s;
    xsum_init(&s);
    for (int i = 0; i < n; i++)
        xsum_add(&s, x[i]);
    return xsum_round(&s);
}

/* One term is itself, bit for bit; a term and its negation are +0. */
START_TEST(test_single)
{
    struct ptm_rng g;
    ptm_rng_seed(&g, 1);
    double fixed[] = {DBL_MAX,
                      -DBL_MAX,
                      DBL_MIN,
                      4.9406564584124654e-324,
                      -4.9406564584124654e-324,
                      DBL_MIN * (1 - DBL_EPSILON),
                      1,
                      -1,
                      0.1,
                      1e300,
                      -0.0};
    for (int i = 0; i < 200000; i++) {
        double x = i < (int)(sizeof(fixed) / sizeof(fixed[0])) ? fixed[i] : any_double(&g);
        double one = sum_of(&x, 1);
        EXPECT(same_bits(one, x) || (x == 0 && one == 0));
        double two[2] = {x, -x};
        double z = sum_of(two, 2);
        EXPECT(z == 0 && !signbit(z));
    }
}
END_TEST

/* Two terms: the IEEE sum, which is the exact sum correctly rounded,
 * overflow to inf included; in either order, and through a merge. */
START_TEST(test_pairs)
{
    struct ptm_rng g;
    ptm_rng_seed(&g, 2);
    for (int i = 0; i < 400000; i++) {
        double x = any_double(&g), y = any_double(&g);
        if (i % 4 == 1) /* near each other in size, to meet ties and cancellation */
            y = ldexp(y, ilogb(x) - ilogb(y) - (int)(ptm_rng_next(&g) % 60));
        if (!isfinite(y))
            continue;
        double want = x + y, two[2] = {x, y}, owt[2] = {y, x};
        double got = sum_of(two, 2);
        EXPECT(same_bits(got, want) || (want == 0 && got == 0));
        EXPECT(same_bits(sum_of(owt, 2), got));
        struct xsum a, b;
        xsum_init(&a);
        xsum_init(&b);
        xsum_add(&a, x);
        xsum_add(&b, y);
        xsum_merge(&a, &b);
        EXPECT(same_bits(xsum_round(&a), got));
    }
}
END_TEST

/* Many terms whose bits fit in __float128's 113 (a window of 2^-72 ..
 * 2^31 around 1, or one near the subnormals): its sum is exact, and one
 * conversion rounds it correctly. Any order, any split into merged parts,
 * gives the same bits; taking every term away again gives 0. */
START_TEST(test_many)
{
    struct ptm_rng g;
    ptm_rng_seed(&g, 3 + (uint64_t)_i);
    enum { N = 3000 };
    static double x[N];
    for (int trial = 0; trial < 40; trial++) {
        __float128 q = 0;
        for (int i = 0; i < N; i++) {
            double m = (double)(ptm_rng_next(&g) >> 11) * 0x1p-53; /* [0, 1), 53 bits */
            int e = (int)(ptm_rng_next(&g) % 41) - 20;
            x[i] = ldexp(ptm_rng_next(&g) & 1 ? -m : m, _i == 0 ? e : e - 1040);
            q += (__float128)x[i];
        }
        double want = (double)q, got = sum_of(x, N);
        EXPECT(same_bits(got, want) || (want == 0 && got == 0));
        /* reversed, and in three parts merged */
        struct xsum r, part[3];
        xsum_init(&r);
        for (int k = 0; k < 3; k++)
            xsum_init(&part[k]);
        for (int i = N - 1; i >= 0; i--) {
            xsum_add(&r, x[i]);
            xsum_add(&part[i % 3], x[i]);
        }
        EXPECT(same_bits(xsum_round(&r), got));
        xsum_merge(&part[2], &part[0]);
        xsum_merge(&part[2], &part[1]);
        EXPECT(same_bits(xsum_round(&part[2]), got));
        for (int i = 0; i < N; i += 2)
            xsum_sub(&r, x[i]);
        for (int i = 1; i < N; i += 2)
            xsum_sub(&r, x[i]);
        double z = xsum_round(&r);
        EXPECT(z == 0 && !signbit(z));
    }
}
END_TEST

/* Sums known by hand: a tie goes to even, a bit far below breaks it;
 * subnormal sums; beyond the largest double; inf and NaN. */
START_TEST(test_known)
{
    double up = nextafter(1, 2), tiny = 4.9406564584124654e-324;
    double tie[] = {1, 0x1p-53};
    ck_assert(same_bits(sum_of(tie, 2), 1));
    double above[] = {1, 0x1p-53, tiny};
    ck_assert(same_bits(sum_of(above, 3), up));
    double below[] = {1, 0x1p-53, -tiny};
    ck_assert(same_bits(sum_of(below, 3), 1));
    double odd[] = {up, 0x1p-53}; /* 1 + 2^-52 + 2^-53: a tie, up to even */
    ck_assert(same_bits(sum_of(odd, 2), nextafter(up, 2)));
    double neg[] = {-1, -0x1p-53, -tiny};
    ck_assert(same_bits(sum_of(neg, 3), -up));
    double sub[] = {DBL_MIN, -tiny}; /* the largest subnormal */
    ck_assert(same_bits(sum_of(sub, 2), nextafter(DBL_MIN, 0)));
    double tinies[] = {tiny, tiny, tiny};
    ck_assert(same_bits(sum_of(tinies, 3), 3 * tiny));
    double over[] = {DBL_MAX, DBL_MAX, -DBL_MAX}; /* past the largest and back */
    ck_assert(same_bits(sum_of(over, 3), DBL_MAX));
    double big[] = {DBL_MAX, DBL_MAX};
    ck_assert(isinf(sum_of(big, 2)) && sum_of(big, 2) > 0);
    double edge[] = {DBL_MAX, ldexp(1, 970)}; /* halfway to 2^1024: a tie, to inf */
    ck_assert(isinf(sum_of(edge, 2)));
    double under[] = {DBL_MAX, ldexp(1, 969)};
    ck_assert(same_bits(sum_of(under, 2), DBL_MAX));
    double nothing[1] = {0};
    ck_assert(sum_of(nothing, 0) == 0 && sum_of(nothing, 1) == 0);

    struct xsum s;
    xsum_init(&s);
    xsum_add(&s, 2);
    xsum_add(&s, INFINITY);
    ck_assert(isinf(xsum_round(&s)) && xsum_round(&s) > 0);
    xsum_sub(&s, INFINITY);
    ck_assert(same_bits(xsum_round(&s), 2));
    xsum_add(&s, -INFINITY);
    ck_assert(isinf(xsum_round(&s)) && xsum_round(&s) < 0);
    xsum_add(&s, INFINITY);
    ck_assert(isnan(xsum_round(&s)));
    xsum_sub(&s, INFINITY);
    xsum_sub(&s, -INFINITY);
    xsum_add(&s, NAN);
    ck_assert(isnan(xsum_round(&s)));
    xsum_sub(&s, NAN);
    ck_assert(same_bits(xsum_round(&s), 2));
}
END_TEST

static Suite *xsum_suite(void)
{
    Suite *s = suite_create("xsum");
    TCase *tc = tcase_create("xsum");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_single);
    tcase_add_test(tc, test_pairs);
    tcase_add_loop_test(tc, test_many, 0, 2);
    tcase_add_test(tc, test_known);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(xsum_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
