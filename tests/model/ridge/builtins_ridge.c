/*
 * builtins_ridge.c - ridge regression's update rule and objective, with
 * their options, as the compiler checks them (builtins.h).
 *
 * This model is not built into ptm: tests/model.sh copies the tree, drops
 * this folder into runtime/models/ and adds PTM_MODEL(ridge) to
 * models.def, to show that a model needs nothing else.
 */
#include <math.h>

#include "builtins.h"

static const struct builtin_opt ridge_opts[] = {
    OPT_NUM("lambda", NULL, 0, HUGE_VAL),
    OPT_REF("X", BOPT_DATA, "X"),
    OPT_REF("y", BOPT_DATA, "y"),
    OPT_REF("beta", BOPT_PARAM, "beta"),
    OPT_END,
};

const struct builtin ptm_builtins_ridge[] = {
    {"ridge_cd", BUILTIN_UPDATE, "ridge regression by coordinate descent", ridge_opts,
     BUILTIN_POLICY(ROUND_ROBIN) | BUILTIN_POLICY(RANDOM), NULL},
    {"ridge_objective", BUILTIN_OBJECTIVE, "1/(2n) |y - X beta|^2 + lambda/2 |beta|^2",
     ridge_opts, 0, NULL},
    BUILTIN_END,
};
