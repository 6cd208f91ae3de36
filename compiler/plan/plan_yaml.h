/*
 * plan_yaml.h - writing a plan as YAML (spec/plan.md).
 *
 * The text is deterministic: one plan always gives the same bytes, and a
 * plan read back with ptm_plan_load() (compiler/plan/plan_load.h) writes the same
 * bytes again. Doubles are written in the fewest digits that read back bit
 * for bit (.inf, -.inf and .nan for the others); every string that comes
 * from a user is double-quoted; enumerations are written by name. The
 * document ends with an explicit "..." so that a truncated file is told
 * apart from a complete one.
 */
#ifndef PTM_PLAN_YAML_H
#define PTM_PLAN_YAML_H

#include <stddef.h>
#include <stdio.h>

#include "plan.h"

/* Write p to out (borrows both). Returns 0, PTM_EIO when out fails,
 * PTM_ENOMEM, or PTM_EINVAL when a string of p is not valid UTF-8 or p
 * holds a value that has no YAML form (a bug upstream). */
int ptm_plan_emit(const struct ptm_plan *p, FILE *out);

/* The same text in a NUL-terminated buffer: *buf from ptm_malloc (caller
 * frees with ptm_free()), *len its length. On failure *buf is NULL. */
int ptm_plan_emit_buf(const struct ptm_plan *p, char **buf, size_t *len);

#endif
