/*
 * data_gen.c - random sparse data files for the data reader benchmark.
 *
 * Usage: data_gen FORMAT ROWS COLS DENSITY SEED [DIGITS] > FILE
 *   FORMAT  libsvm: rows in order, "label idx:val ...", labels +1/-1;
 *           mm: MatrixMarket coordinate real general, written column by
 *               column (as most MatrixMarket writers do), so the reader
 *               has to sort;
 *           uci: UCI bag-of-words, document by document, counts 1..9.
 * Each cell is non-zero with probability DENSITY (positions drawn by
 * geometric skips, so the cost is per non-zero, not per cell). Real
 * values are uniform in (-1, 1) times 10^k, k uniform in -2..2, written
 * with DIGITS significant digits (%.6g by default; 17, as %.17g and
 * Python's repr write them, takes the reader's long path for most). The
 * same SEED gives the same file.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double uniform(void)
{
    return (double)(next() >> 11) * (1.0 / 9007199254740992.0);
}

/* Distance to the next non-zero: geometric with success probability p. */
static int64_t skip(double p)
{
    if (p >= 1)
        return 1;
    double u = uniform();
    return 1 + (int64_t)floor(log1p(-u) / log1p(-p));
}

static double value(void)
{
    static const double scale[] = {0.01, 0.1, 1, 10, 100};
    return (uniform() * 2 - 1) * scale[next() % 5];
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: data_gen libsvm|mm|uci ROWS COLS DENSITY SEED [DIGITS] > FILE\n");
        return 2;
    }
    int digits = argc == 7 ? atoi(argv[6]) : 6;
    if (digits < 1 || digits > 17) {
        fprintf(stderr, "data_gen: DIGITS must be 1 to 17\n");
        return 2;
    }
    const char *fmt = argv[1];
    int64_t rows = atoll(argv[2]), cols = atoll(argv[3]);
    double p = atof(argv[4]);
    rng ^= (uint64_t)atoll(argv[5]) * 0x9e3779b97f4a7c15u;
    next();
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof(buf));

    if (!strcmp(fmt, "libsvm")) {
        for (int64_t i = 0; i < rows; i++) {
            fputs(next() & 1 ? "+1" : "-1", stdout);
            for (int64_t j = skip(p); j <= cols; j += skip(p))
                printf(" %lld:%.*g", (long long)j, digits, value());
            putchar('\n');
        }
        return ferror(stdout) ? 1 : 0;
    }
    /* mm and uci: the entries first (to count them for the header). */
    int64_t n = 0, cap = 1 << 20;
    int64_t *at = malloc((size_t)cap * sizeof(*at));
    int64_t outer = !strcmp(fmt, "mm") ? cols : rows, inner = !strcmp(fmt, "mm") ? rows : cols;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t b = skip(p); b <= inner; b += skip(p)) {
            if (n == cap) {
                cap *= 2;
                at = realloc(at, (size_t)cap * sizeof(*at));
            }
            if (!at)
                return 1;
            at[n++] = a * inner + (b - 1);
        }
    if (!strcmp(fmt, "mm")) {
        printf("%%%%MatrixMarket matrix coordinate real general\n%% data_gen %s %s %s %s\n"
               "%lld %lld %lld\n",
               argv[2], argv[3], argv[4], argv[5], (long long)rows, (long long)cols, (long long)n);
        for (int64_t k = 0; k < n; k++)
            printf("%lld %lld %.*g\n", (long long)(at[k] % rows + 1), (long long)(at[k] / rows + 1),
                   digits, value());
    } else if (!strcmp(fmt, "uci")) {
        printf("%lld\n%lld\n%lld\n", (long long)rows, (long long)cols, (long long)n);
        for (int64_t k = 0; k < n; k++)
            printf("%lld %lld %d\n", (long long)(at[k] / cols + 1), (long long)(at[k] % cols + 1),
                   (int)(1 + next() % 9));
    } else {
        fprintf(stderr, "data_gen: unknown format '%s'\n", fmt);
        return 2;
    }
    free(at);
    return ferror(stdout) ? 1 : 0;
}
