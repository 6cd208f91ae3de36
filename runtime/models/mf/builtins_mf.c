/*
 * builtins_mf.c - the update rules and objectives of matrix factorization a job can
 * name, with their options, as the compiler checks them (builtins.h).
 */
#include <math.h>

#include "builtins.h"

static const struct builtin_opt mf_sgd_opts[] = {
    OPT_POS("rate", "0.2", HUGE_VAL),
    OPT_POS("decay", "1", 1),
    OPT_NUM("reg", "0.05", 0, HUGE_VAL),
    OPT_WORD("step", "adaptive", "adaptive|fixed"),
    OPT_WORD("penalty", "total", "total|rating"),
    OPT_REF("R", BOPT_DATA, "R"),
    OPT_REF("W", BOPT_PARAM, "W"),
    OPT_REF("H", BOPT_PARAM, "H"),
    OPT_END,
};

static const struct builtin_opt mf_ccd_opts[] = {
    OPT_NUM("reg", "0.05", 0, HUGE_VAL),
    OPT_WHOLE("inner", "1", 1, 1000),
    OPT_REF("R", BOPT_DATA, "R"),
    OPT_REF("W", BOPT_PARAM, "W"),
    OPT_REF("H", BOPT_PARAM, "H"),
    OPT_END,
};

static const struct builtin_opt rmse_opts[] = {
    OPT_REF("test", BOPT_DATA, ""),
    OPT_REF("R", BOPT_DATA, "R"),
    OPT_REF("W", BOPT_PARAM, "W"),
    OPT_REF("H", BOPT_PARAM, "H"),
    OPT_END,
};

const struct builtin ptm_builtins_mf[] = {
    {"mf_sgd", BUILTIN_UPDATE, "matrix factorization by SGD", mf_sgd_opts, BUILTIN_POLICY(ROTATION), "rmse|mae|r2", NULL},
    {"mf_ccd", BUILTIN_UPDATE, "matrix factorization by CCD++", mf_ccd_opts, BUILTIN_POLICY(ROTATION), "rmse|mae|r2", NULL},
    {"rmse", BUILTIN_OBJECTIVE, "root mean squared error of W H'", rmse_opts, 0, NULL, NULL},
    BUILTIN_END,
};
