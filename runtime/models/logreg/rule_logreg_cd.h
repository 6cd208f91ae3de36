/*
 * rule_logreg_cd.h - the rule of update builtin logreg_cd (rule_logreg_cd.c),
 * for the model's table of rules in rule_logreg.c.
 */
#ifndef PTM_RULE_LOGREG_CD_H
#define PTM_RULE_LOGREG_CD_H

#include <stdbool.h>
#include <stdint.h>

struct ptm_run;
struct rt_rule;
extern const struct rt_rule logreg_cd_rule;

/* When run's rule is logreg_cd on data x (labels y), weights w and
 * intercept b (-1: none), between rounds: true and *sum = the loss
 * summed over every row at the margins it keeps (the objective logloss's
 * parts, without a pass over the data). Else false. */
bool lcd_known_loss(const struct ptm_run *run, int32_t x, int32_t y, int32_t w, int32_t b,
                    double *sum);

#endif
