/*
 * data_bench.c - how fast the data readers load a file, on one core.
 *
 * Usage: data_bench FORMAT FILE [RUNS [THREADS]]   (default 5, 1)
 * Reads FILE (sparse storage, with THREADS threads: ptm_data_opts.threads,
 * as `ptm run --workers THREADS` reads it) RUNS times after one untimed read that warms
 * the page cache, and prints one line:
 *   FORMAT BYTES ROWS COLS NNZ MEDIAN_SECONDS MEDIAN_MB_PER_S RUN1_S RUN2_S ...
 * Seconds are wall time of ptm_data_read(); MB is 10^6 bytes of the file. Then the CSC view of the
 * last read is built and its time printed on a second line: "csc SECONDS".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "arena.h"
#include "bench.h"
#include "data.h"
#include "ptm.h"

enum { MAX_RUNS = 99 };

static int load(const char *path, const struct ptm_data_opts *o, struct ptm_dataset **ds)
{
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    int rc = ptm_data_read(path, o, &dg, ds);
    if (rc) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "data_bench: %s: %s\n", path, ptm_strerror(rc));
    }
    ptm_data_diags_release(&dg);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: data_bench libsvm|mm|uci|csv FILE [RUNS [THREADS]]\n");
        return 2;
    }
    ptm_alloc_init(); /* as ptm does */
    int fmt = plan_format_lookup(argv[1]);
    int runs = argc > 3 ? atoi(argv[3]) : 5, threads = argc > 4 ? atoi(argv[4]) : 1;
    struct stat st;
    if (fmt < 0 || fmt == PLAN_FORMAT_LABELS || runs < 1 || runs > MAX_RUNS || threads < 1 ||
        stat(argv[2], &st) != 0) {
        fprintf(stderr, "data_bench: bad format, run count or file\n");
        return 2;
    }
    struct ptm_data_opts o = {.format = (enum plan_format)fmt, .sparse = true, .threads = threads};
    struct ptm_dataset *ds;
    if (load(argv[2], &o, &ds))
        return 1;
    ptm_dataset_free(ds);
    double secs[MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        if (load(argv[2], &o, &ds))
            return 1;
        secs[r] = bench_now() - t0;
        if (r < runs - 1)
            ptm_dataset_free(ds);
    }
    double med = bench_median(secs, runs);
    printf("%s %lld %lld %lld %lld %.4f %.1f", argv[1], (long long)st.st_size,
           (long long)ptm_dataset_rows(ds), (long long)ptm_dataset_cols(ds), (long long)ds->csr.nnz,
           med, (double)st.st_size / med / 1e6);
    for (int r = 0; r < runs; r++)
        printf(" %.4f", secs[r]);
    printf("\n");
    const struct ptm_csc *c;
    double t0 = bench_now();
    if (ptm_dataset_csc(ds, &c))
        return 1;
    printf("csc %.4f\n", bench_now() - t0);
    ptm_dataset_free(ds);
    return 0;
}
