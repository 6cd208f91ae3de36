/*
 * bench.h - what the bench programs share: clocks in seconds (wall time,
 * CPU time of the process, CPU time of the calling thread), a qsort
 * comparison of doubles, the median of a set of figures (of a copy, or
 * sorting the figures in place), a "NAME MEDIAN V1 V2 ..." line, and a
 * value from the info.tsv that `ptm gen` writes beside its data.
 *
 * Every median here is the middle figure for an odd count and the mean of
 * the two middle figures for an even count.
 *
 * Header only (static inline): each bench program is one .c file built
 * with the sources it measures, not against a bench library.
 */
#ifndef PTM_BENCH_H
#define PTM_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on clock id (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...). */
static inline double bench_clock(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wall time: seconds of the monotonic clock. */
static inline double bench_now(void)
{
    return bench_clock(CLOCK_MONOTONIC);
}

/* CPU seconds of the process, all its threads: a busy machine inflates
 * them less than wall time. */
static inline double bench_cpu(void)
{
    return bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

/* CPU seconds of the calling thread: one core's work even when the
 * machine is shared (wall time would count the time slices of others). */
static inline double bench_thread_cpu(void)
{
    return bench_clock(CLOCK_THREAD_CPUTIME_ID);
}

/* qsort comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0 .. n-1], n >= 1; sorts v. */
static inline double bench_median_inplace(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of v[0 .. n-1], n >= 1, leaving v as it is (sorts a copy). */
static inline double bench_median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof(*s));
    if (!s) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    memcpy(s, v, (size_t)n * sizeof(*s));
    double m = bench_median_inplace(s, n);
    free(s);
    return m;
}

/* "NAME MEDIAN V1 V2 ...", each with %.6f: the median of v[0 .. n-1], then
 * the figures in their order. */
static inline void bench_print_runs(const char *name, const double *v, int n)
{
    printf("%s %.6f", name, bench_median(v, n));
    for (int i = 0; i < n; i++)
        printf(" %.6f", v[i]);
    printf("\n");
}

/* The value of key in DIR/info.tsv (lines "KEY\tVALUE"; the last one
 * wins), or def when the file or the key is missing. */
static inline double bench_info_value(const char *dir, const char *key, double def)
{
    char path[4096], line[256];
    snprintf(path, sizeof(path), "%s/info.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return def;
    size_t n = strlen(key);
    double v = def;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, key, n) == 0 && line[n] == '\t')
            v = strtod(line + n + 1, NULL);
    fclose(f);
    return v;
}

#endif /* PTM_BENCH_H */
