/*
 * lang.h - the job language front end: text in, syntax tree out.
 */
#ifndef PTM_LANG_H
#define PTM_LANG_H

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Parse src into a tree allocated in arena; diagnostics go to diags.
 * Returns 0 and sets *out, PTM_ESYNTAX when diags holds errors, or
 * PTM_ENOMEM. The tree borrows nothing from src. */
int ptm_parse(struct ptm_source *src, struct arena *arena, struct ptm_diags *diags,
              struct ast_job **out);

#endif
