/*
 * compiler.h - checking a parsed job and turning it into a plan.
 */
#ifndef PTM_COMPILER_H
#define PTM_COMPILER_H

#include <stdbool.h>

#include "ast.h"
#include "diag.h"
#include "plan.h"

struct ptm_set {
    const char *name, *value; /* from --set name=value; borrowed */
};

struct ptm_compile_opts {
    const char *base_dir;      /* directory of the job file; "." when NULL */
    const struct ptm_set *sets; /* const overrides */
    unsigned nsets;
    bool check_hooks; /* load Lua hook files to check their functions */
    /* the outputs as a run here would write them (ptm check, ptm run): each
     * output's directory exists and is writable, and no output is one of
     * the job's inputs (the spec, data, vocabularies, edge lists, hooks,
     * parameters' files), compared by device and inode */
    bool check_outputs;
};

/* Check job (parsed from src) and build its plan. Every error goes to
 * diags with its location. Returns 0 and sets *out (caller frees with
 * plan_free()), PTM_ESYNTAX when diags holds errors, or PTM_ENOMEM.
 * Errors in opts->sets are reported as file-level diagnostics that start
 * with "--set". */
int ptm_compile(struct ptm_source *src, const struct ast_job *job,
                const struct ptm_compile_opts *opts, struct ptm_diags *diags,
                struct ptm_plan **out);

#endif
