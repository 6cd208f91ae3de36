/*
 * fuzz_parse.c - libFuzzer target for the job language front end.
 *
 * Parses and compiles the input, renders the diagnostics of one input in eight (the
 * renderer would otherwise take most of the time) and dumps a valid tree,
 * all to /dev/null: the lexer, the parser, error recovery, the compiler, the
 * renderer and the tree walkers all get fuzzed. Crashes, leaks and undefined behaviour
 * are the findings; each one becomes a row of tests/test_lang.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "ast.h"
#include "compiler.h"
#include "diag.h"
#include "lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink; /* GLOBAL: opened once per fuzzing process */
    if (!sink)
        sink = fopen("/dev/null", "w");
    struct ptm_source src;
    if (ptm_source_from(&src, "fuzz.ptm", (const char *)data, size) != 0)
        return 0;
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    /* Rendering is slow next to parsing: render one input in eight. */
    bool render = size % 8 == 0;
    diags.quiet = !render;
    struct ast_job *job;
    int rc = ptm_parse(&src, &arena, &diags, &job);
    if (rc == 0) {
        ast_dump(sink, job);
        /* The compiler too; Lua files are only looked for, never loaded. */
        struct ptm_compile_opts opts = {.base_dir = "/nonexistent", .check_hooks = false};
        struct ptm_plan *plan;
        if (ptm_compile(&src, job, &opts, &diags, &plan) == 0)
            plan_free(plan);
    }
    if (render)
        ptm_diags_render(sink, &src, &diags, size & 8);
    arena_release(&arena);
    ptm_source_release(&src);
    return 0;
}
