/*
 * fuzz_trace.c - libFuzzer target for the reader of run traces
 * (viz/trace_read.c) and the renderers of what it reads (viz/).
 *
 * Reads the input as a trace; an input that reads is rendered as the table
 * and the SVG into memory, and the table must end with its totals line.
 * Crashes, leaks and undefined behaviour are the findings; each one becomes
 * a row of bad_traces in tests/test_viz.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dryrun.h"
#include "viz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    char err[4096];
    struct ptm_trace *t = NULL;
    int rc = ptm_trace_read(f, "fuzz.json", err, sizeof(err), &t);
    fclose(f);
    if (rc != 0)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        if (ptm_viz_table(out, t) != 0 || ptm_viz_svg(out, t) != 0)
            abort();
        fclose(out);
        if (!strstr(text, "block update"))
            abort();
        free(text);
    }
    ptm_trace_free(t);
    return 0;
}
