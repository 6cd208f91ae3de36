/*
 * builtins_lasso.c - the update rules and objectives of the Lasso a job can
 * name, with their options, as the compiler checks them (builtins.h).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "builtins.h"

static const struct builtin_opt lasso_opts[] = {
    OPT_NUM("lambda", NULL, 0, HUGE_VAL),
    OPT_REF("X", BOPT_DATA, "X"),
    OPT_REF("y", BOPT_DATA, "y"),
    OPT_REF("beta", BOPT_PARAM, "beta"),
    OPT_REF("r", BOPT_PARAM, "?r"), /* the residual y - X beta - b, kept up to date */
    OPT_SCALAR("intercept"),        /* b, unpenalised; absent: none */
    OPT_END,
};

/* lasso_cd: the objective's options and how a worker goes through its share */
static const struct builtin_opt lasso_cd_opts[] = {
    OPT_NUM("lambda", NULL, 0, HUGE_VAL),
    OPT_WORD("within", "parallel", "parallel|sequential"),
    /* on several workers: the fewest non-zeros of a round's columns for
     * it to be split among them; absent, a default for each `within`
     * (rule_lasso.c) */
    OPT_WHOLE("split_min", "", 0, 1e15),
    OPT_REF("X", BOPT_DATA, "X"),
    OPT_REF("y", BOPT_DATA, "y"),
    OPT_REF("beta", BOPT_PARAM, "beta"),
    OPT_REF("r", BOPT_PARAM, "?r"),
    OPT_SCALAR("intercept"),
    OPT_END,
};

const struct builtin ptm_builtins_lasso[] = {
    {"lasso_cd", BUILTIN_UPDATE, "Lasso by coordinate descent", lasso_cd_opts,
     BUILTIN_POLICY(DYNAMIC) | BUILTIN_POLICY(ROUND_ROBIN) | BUILTIN_POLICY(RANDOM), "rmse|mae|r2",
     NULL},
    {"lasso_objective", BUILTIN_OBJECTIVE, "1/(2n) |y - X beta - b|^2 + lambda |beta|_1",
     lasso_opts, 0, NULL, NULL},
    BUILTIN_END,
};
