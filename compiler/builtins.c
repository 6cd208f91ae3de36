/*
 * builtins.c - the table of built-in kernels and their options.
 *
 * Data and parameter options default to the names the examples use, so a
 * job that follows them says only what differs (`{ lambda = 0.01 }`).
 */
#include "builtins.h"

#include <string.h>

#include "ptm.h"

static const struct builtin_opt lasso_opts[] = {
    {"lambda", BOPT_NUM, NULL, NULL},
    {"X", BOPT_DATA, "X", NULL},
    {"y", BOPT_DATA, "y", NULL},
    {"beta", BOPT_PARAM, "beta", NULL},
    {"r", BOPT_PARAM, "?r", NULL}, /* the residual y - X beta, kept up to date */
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt mf_sgd_opts[] = {
    {"rate", BOPT_NUM, "0.05", NULL},
    {"decay", BOPT_NUM, "1", NULL},
    {"reg", BOPT_NUM, "0.05", NULL},
    {"R", BOPT_DATA, "R", NULL},
    {"W", BOPT_PARAM, "W", NULL},
    {"H", BOPT_PARAM, "H", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt mf_ccd_opts[] = {
    {"reg", BOPT_NUM, "0.05", NULL},
    {"inner", BOPT_NUM, "1", NULL},
    {"R", BOPT_DATA, "R", NULL},
    {"W", BOPT_PARAM, "W", NULL},
    {"H", BOPT_PARAM, "H", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt rmse_opts[] = {
    {"test", BOPT_DATA, "", NULL},
    {"R", BOPT_DATA, "R", NULL},
    {"W", BOPT_PARAM, "W", NULL},
    {"H", BOPT_PARAM, "H", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt lda_opts[] = {
    {"alpha", BOPT_NUM, "0.1", NULL},
    {"beta", BOPT_NUM, "0.01", NULL},
    {"sampler", BOPT_WORD, "sparse", "sparse|alias|plain"},
    {"D", BOPT_DATA, "D", NULL},
    {"nwk", BOPT_PARAM, "nwk", NULL},
    {"nk", BOPT_PARAM, "nk", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt lda_loglik_opts[] = {
    {"alpha", BOPT_NUM, "0.1", NULL},
    {"beta", BOPT_NUM, "0.01", NULL},
    {"D", BOPT_DATA, "D", NULL},
    {"nwk", BOPT_PARAM, "nwk", NULL},
    {"nk", BOPT_PARAM, "nk", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt logreg_opts[] = {
    {"rate", BOPT_NUM, "0.1", NULL},
    {"decay", BOPT_NUM, "1", NULL},
    {"l2", BOPT_NUM, "0", NULL},
    {"l1", BOPT_NUM, "0", NULL},
    {"X", BOPT_DATA, "X", NULL},
    {"y", BOPT_DATA, "y", NULL},
    {"w", BOPT_PARAM, "w", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin_opt logloss_opts[] = {
    {"l2", BOPT_NUM, "0", NULL},
    {"l1", BOPT_NUM, "0", NULL},
    {"X", BOPT_DATA, "X", NULL},
    {"y", BOPT_DATA, "y", NULL},
    {"w", BOPT_PARAM, "w", NULL},
    {NULL, 0, NULL, NULL},
};

static const struct builtin builtins[] = {
    {"lasso_cd", BUILTIN_UPDATE, "Lasso by coordinate descent", lasso_opts},
    {"mf_sgd", BUILTIN_UPDATE, "matrix factorization by SGD", mf_sgd_opts},
    {"mf_ccd", BUILTIN_UPDATE, "matrix factorization by CCD++", mf_ccd_opts},
    {"lda_gibbs", BUILTIN_UPDATE, "LDA by collapsed Gibbs sampling", lda_opts},
    {"logreg_sgd", BUILTIN_UPDATE, "logistic regression by SGD", logreg_opts},
    {"lasso_objective", BUILTIN_OBJECTIVE, "1/(2n) |y - X beta|^2 + lambda |beta|_1",
     lasso_opts},
    {"rmse", BUILTIN_OBJECTIVE, "root mean squared error of W H'", rmse_opts},
    {"lda_loglik", BUILTIN_OBJECTIVE, "log-likelihood per token", lda_loglik_opts},
    {"logloss", BUILTIN_OBJECTIVE, "mean logistic loss plus penalties", logloss_opts},
};

const struct builtin *builtin_lookup(const char *name)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(builtins); i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

const struct builtin *builtin_all(size_t *n)
{
    *n = PTM_ARRAY_LEN(builtins);
    return builtins;
}
