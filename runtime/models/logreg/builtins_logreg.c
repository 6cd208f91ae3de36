/*
 * builtins_logreg.c - the update rules and objectives of logistic regression a job can
 * name, with their options, as the compiler checks them (builtins.h).
 */
#include <math.h>

#include "builtins.h"

static const struct builtin_opt logreg_opts[] = {
    OPT_POS("rate", "0.1", HUGE_VAL),
    OPT_POS("decay", "1", 1),
    OPT_NUM("l2", "0", 0, HUGE_VAL),
    OPT_NUM("l1", "0", 0, HUGE_VAL),
    OPT_WORD("method", "sgd", "sgd|svrg"),
    OPT_REF("X", BOPT_DATA, "X"),
    OPT_REF("y", BOPT_DATA, "y"),
    OPT_REF("w", BOPT_PARAM, "w"),
    OPT_SCALAR("intercept"), /* b, unpenalised; absent: none */
    OPT_END,
};

static const struct builtin_opt logloss_opts[] = {
    OPT_NUM("l2", "0", 0, HUGE_VAL),
    OPT_NUM("l1", "0", 0, HUGE_VAL),
    OPT_REF("X", BOPT_DATA, "X"),
    OPT_REF("y", BOPT_DATA, "y"),
    OPT_REF("w", BOPT_PARAM, "w"),
    OPT_SCALAR("intercept"), /* b, unpenalised; absent: none */
    OPT_END,
};

const struct builtin ptm_builtins_logreg[] = {
    {"logreg_sgd", BUILTIN_UPDATE, "logistic regression by SGD", logreg_opts, BUILTIN_POLICY(DATA_PARALLEL), "logloss|accuracy|auc"},
    {"logloss", BUILTIN_OBJECTIVE, "mean logistic loss plus penalties", logloss_opts, 0, NULL},
    BUILTIN_END,
};
