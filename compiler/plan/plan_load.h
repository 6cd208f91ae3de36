/*
 * plan_load.h - reading a plan back from YAML (spec/plan.md).
 *
 * The file is treated as hostile: every key, type, range, name, cross
 * reference and program is checked again, with the plan-level rules of the
 * compiler that the runtime relies on, so that a loaded plan can be run
 * with no further checks. Errors go to the diagnostic sink with their
 * location in the file, as many as one run can find.
 */
#ifndef PTM_PLAN_LOAD_H
#define PTM_PLAN_LOAD_H

#include "diag.h"
#include "plan.h"

/* Collections nested deeper than this are an error (a plan needs 6). */
#define PTM_PLAN_MAX_DEPTH 64

/* Read the plan in src (borrowed; its name is the one messages show).
 * Returns 0 and sets *out (caller frees with plan_free()), PTM_ESYNTAX when
 * diags holds errors, or PTM_ENOMEM; *out is NULL unless 0 is returned. */
int ptm_plan_load(struct ptm_source *src, struct ptm_diags *diags, struct ptm_plan **out);

#endif
