/*
 * builtins_logreg.c - the update rules and objectives of logistic regression a job can
 * name, with their options, as the compiler checks them (builtins.h).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "builtins.h"

static const struct builtin_opt logreg_opts[] = {
    OPT_POS("rate", "0.1", HUGE_VAL),
    OPT_POS("decay", "1", 1),
    OPT_NUM("l2", "0", 0, HUGE_VAL),
    OPT_NUM("l1", "0", 0, HUGE_VAL),
    OPT_WORD("method", "tron", "tron|sgd|svrg"),
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

/* logreg_cd: the objective's penalties and how a worker goes through its
 * share of a round (rule_logreg_cd.c) */
static const struct builtin_opt logreg_cd_opts[] = {
    OPT_NUM("l1", "0", 0, HUGE_VAL),
    OPT_NUM("l2", "0", 0, HUGE_VAL),
    OPT_WORD("within", "parallel", "parallel|sequential"),
    /* within = sequential on several workers: the fewest non-zeros of a
     * round's columns for it to be split among them (rule_logreg_cd.c) */
    OPT_WHOLE("split_min", "16777216", 0, 1e15),
    OPT_REF("X", BOPT_DATA, "X"),
    OPT_REF("y", BOPT_DATA, "y"),
    OPT_REF("w", BOPT_PARAM, "w"),
    OPT_SCALAR("intercept"), /* b, unpenalised; absent: none */
    OPT_END,
};

/* method = tron (the default) takes a smooth objective and no step. */
static const char *logreg_check(const struct plan_hook *h, const bool *given)
{
    bool tron = false, step = false;
    double l1 = 0;
    for (uint32_t i = 0; i < h->noptions; i++) {
        const struct plan_option *o = &h->options[i];
        if (!o->key)
            continue;
        if (strcmp(o->key, "method") == 0 && o->kind == PLAN_VALUE_STR)
            tron = o->str && strcmp(o->str, "tron") == 0;
        if (strcmp(o->key, "l1") == 0 && o->kind == PLAN_VALUE_NUM)
            l1 = o->num;
        step |= given[i] && (strcmp(o->key, "rate") == 0 || strcmp(o->key, "decay") == 0);
    }
    if (tron && l1 > 0)
        return "method = tron needs l1 = 0 (an L1 penalty is not smooth); use method = sgd or "
               "svrg for l1";
    if (tron && step)
        return "rate and decay set the step of method = sgd or svrg; method = tron (the "
               "default) takes no step: drop them, or say method = sgd or svrg";
    return NULL;
}

const struct builtin ptm_builtins_logreg[] = {
    {"logreg_sgd", BUILTIN_UPDATE, "logistic regression by SGD or trust-region Newton", logreg_opts, BUILTIN_POLICY(DATA_PARALLEL), "logloss|accuracy|auc", logreg_check},
    {"logreg_cd", BUILTIN_UPDATE, "L1 logistic regression by coordinate descent (CDN)", logreg_cd_opts, BUILTIN_POLICY(DYNAMIC) | BUILTIN_POLICY(ROUND_ROBIN) | BUILTIN_POLICY(RANDOM), "logloss|accuracy|auc", builtin_check_split_min},
    {"logloss", BUILTIN_OBJECTIVE, "mean logistic loss plus penalties", logloss_opts, 0, NULL, NULL},
    BUILTIN_END,
};
