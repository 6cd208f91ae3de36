/*
 * fuzz_plan.c - libFuzzer target for the plan loader and writer.
 *
 * Loads the input as a plan, renders the diagnostics of one input in eight
 * (the renderer would otherwise take most of the time) to /dev/null, and
 * for an input that loads, checks the round trip the format promises: the
 * plan written out loads again without a word and is written out to the
 * same bytes. Crashes, leaks, undefined behaviour and a broken round trip
 * are the findings; each one becomes a row of tests/test_plan.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "plan.h"
#include "plan_load.h"
#include "plan_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Load text; NULL when it is refused. */
static struct ptm_plan *load(const char *text, size_t len, bool render, FILE *sink,
                             unsigned *nerrors)
{
    struct ptm_source src;
    if (ptm_source_from(&src, "plan.yaml", text, len) != 0)
        return NULL;
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    diags.quiet = !render;
    struct ptm_plan *plan = NULL;
    ptm_plan_load(&src, &diags, &plan);
    if (render)
        ptm_diags_render(sink, &src, &diags, len & 8);
    *nerrors = diags.nerrors;
    arena_release(&arena);
    ptm_source_release(&src);
    return plan;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink; /* GLOBAL: opened once per fuzzing process */
    if (!sink)
        sink = fopen("/dev/null", "w");
    unsigned nerrors;
    struct ptm_plan *plan = load((const char *)data, size, size % 8 == 0, sink, &nerrors);
    if (!plan)
        return 0;

    /* What loads is written out, loads again, and is written out the same. */
    char *once, *twice;
    size_t n1, n2;
    if (ptm_plan_emit_buf(plan, &once, &n1) != 0)
        abort();
    struct ptm_plan *again = load(once, n1, false, sink, &nerrors);
    if (!again || nerrors != 0)
        abort();
    if (ptm_plan_emit_buf(again, &twice, &n2) != 0 || n1 != n2 || memcmp(once, twice, n1) != 0)
        abort();
    ptm_free(once);
    ptm_free(twice);
    plan_free(again);
    plan_free(plan);
    return 0;
}
