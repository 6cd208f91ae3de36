/*
 * builtins.c - the table of built-in kernels and their options.
 *
 * Data and parameter options default to the names the examples use, so a
 * job that follows them says only what differs (`{ lambda = 0.01 }`).
 */
#include "builtins.h"

#include <string.h>

#include <math.h>

#include "ptm.h"

/* Option rows: numbers with their range, references, words. */
#define NUM(key, dflt, lo, hi) {key, BOPT_NUM, dflt, NULL, lo, hi, false, false}
#define POS(key, dflt, hi) {key, BOPT_NUM, dflt, NULL, 0, hi, true, false}
#define WHOLE(key, dflt, lo, hi) {key, BOPT_NUM, dflt, NULL, lo, hi, false, true}
#define REF(key, kind, dflt) {key, kind, dflt, NULL, 0, 0, false, false}
#define WORD(key, dflt, words) {key, BOPT_WORD, dflt, words, 0, 0, false, false}
#define END {NULL, 0, NULL, NULL, 0, 0, false, false}
#define POLICY(p) (1u << PLAN_POLICY_##p)

static const struct builtin_opt lasso_opts[] = {
    NUM("lambda", NULL, 0, HUGE_VAL),
    REF("X", BOPT_DATA, "X"),
    REF("y", BOPT_DATA, "y"),
    REF("beta", BOPT_PARAM, "beta"),
    REF("r", BOPT_PARAM, "?r"), /* the residual y - X beta, kept up to date */
    END,
};

/* lasso_cd: the objective's options and how a worker goes through its share */
static const struct builtin_opt lasso_cd_opts[] = {
    NUM("lambda", NULL, 0, HUGE_VAL),
    WORD("within", "parallel", "parallel|sequential"),
    REF("X", BOPT_DATA, "X"),
    REF("y", BOPT_DATA, "y"),
    REF("beta", BOPT_PARAM, "beta"),
    REF("r", BOPT_PARAM, "?r"),
    END,
};

static const struct builtin_opt mf_sgd_opts[] = {
    POS("rate", "0.05", HUGE_VAL),
    POS("decay", "1", 1),
    NUM("reg", "0.05", 0, HUGE_VAL),
    REF("R", BOPT_DATA, "R"),
    REF("W", BOPT_PARAM, "W"),
    REF("H", BOPT_PARAM, "H"),
    END,
};

static const struct builtin_opt mf_ccd_opts[] = {
    NUM("reg", "0.05", 0, HUGE_VAL),
    WHOLE("inner", "1", 1, 1000),
    REF("R", BOPT_DATA, "R"),
    REF("W", BOPT_PARAM, "W"),
    REF("H", BOPT_PARAM, "H"),
    END,
};

static const struct builtin_opt rmse_opts[] = {
    REF("test", BOPT_DATA, ""),
    REF("R", BOPT_DATA, "R"),
    REF("W", BOPT_PARAM, "W"),
    REF("H", BOPT_PARAM, "H"),
    END,
};

static const struct builtin_opt lda_opts[] = {
    POS("alpha", "0.1", HUGE_VAL),
    POS("beta", "0.01", HUGE_VAL),
    WORD("sampler", "dense", "dense|sparse|alias|plain"),
    REF("D", BOPT_DATA, "D"),
    REF("nwk", BOPT_PARAM, "nwk"),
    REF("nk", BOPT_PARAM, "nk"),
    REF("ndk", BOPT_PARAM, "?ndk"), /* the document-topic counts, kept up to date */
    END,
};

static const struct builtin_opt lda_loglik_opts[] = {
    POS("alpha", "0.1", HUGE_VAL),
    POS("beta", "0.01", HUGE_VAL),
    REF("D", BOPT_DATA, "D"),
    REF("nwk", BOPT_PARAM, "nwk"),
    REF("nk", BOPT_PARAM, "nk"),
    END,
};

static const struct builtin_opt logreg_opts[] = {
    POS("rate", "0.1", HUGE_VAL),
    POS("decay", "1", 1),
    NUM("l2", "0", 0, HUGE_VAL),
    NUM("l1", "0", 0, HUGE_VAL),
    WORD("method", "sgd", "sgd|svrg"),
    REF("X", BOPT_DATA, "X"),
    REF("y", BOPT_DATA, "y"),
    REF("w", BOPT_PARAM, "w"),
    END,
};

static const struct builtin_opt logloss_opts[] = {
    NUM("l2", "0", 0, HUGE_VAL),
    NUM("l1", "0", 0, HUGE_VAL),
    REF("X", BOPT_DATA, "X"),
    REF("y", BOPT_DATA, "y"),
    REF("w", BOPT_PARAM, "w"),
    END,
};

static const struct builtin builtins[] = {
    {"lasso_cd", BUILTIN_UPDATE, "Lasso by coordinate descent", lasso_cd_opts,
     POLICY(DYNAMIC) | POLICY(ROUND_ROBIN) | POLICY(RANDOM)},
    {"mf_sgd", BUILTIN_UPDATE, "matrix factorization by SGD", mf_sgd_opts, POLICY(ROTATION)},
    {"mf_ccd", BUILTIN_UPDATE, "matrix factorization by CCD++", mf_ccd_opts, POLICY(ROTATION)},
    {"lda_gibbs", BUILTIN_UPDATE, "LDA by collapsed Gibbs sampling", lda_opts, POLICY(ROTATION)},
    {"logreg_sgd", BUILTIN_UPDATE, "logistic regression by SGD", logreg_opts,
     POLICY(DATA_PARALLEL)},
    {"lasso_objective", BUILTIN_OBJECTIVE, "1/(2n) |y - X beta|^2 + lambda |beta|_1",
     lasso_opts, 0},
    {"rmse", BUILTIN_OBJECTIVE, "root mean squared error of W H'", rmse_opts, 0},
    {"lda_loglik", BUILTIN_OBJECTIVE, "log-likelihood per token", lda_loglik_opts, 0},
    {"logloss", BUILTIN_OBJECTIVE, "mean logistic loss plus penalties", logloss_opts, 0},
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
