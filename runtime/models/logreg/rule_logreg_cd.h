/*
 * rule_logreg_cd.h - the rule of update builtin logreg_cd (rule_logreg_cd.c),
 * for the model's table of rules in rule_logreg.c.
 */
#ifndef PTM_RULE_LOGREG_CD_H
#define PTM_RULE_LOGREG_CD_H

struct rt_rule;
extern const struct rt_rule logreg_cd_rule;

#endif
