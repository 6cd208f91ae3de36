/*
 * builtins.h - the built-in kernels a job can name, with their options.
 *
 * The compiler checks a job's `update builtin NAME { ... }` and
 * `objective builtin NAME { ... }` against these tables. Each model
 * brings its own (runtime/models/NAME/builtins_NAME.c, listed in
 * runtime/models/models.def) and implements each kernel under the same
 * name (runtime/models/model.h); the compiler reads only the tables.
 */
#ifndef PTM_BUILTINS_H
#define PTM_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

enum builtin_role { BUILTIN_UPDATE = 'u', BUILTIN_OBJECTIVE = 'o' };

enum builtin_opt_kind {
    BOPT_NUM = 'n',   /* a number or a numeric const */
    BOPT_DATA = 'd',  /* the name of a data source */
    BOPT_PARAM = 'p', /* the name of a parameter */
    BOPT_WORD = 'w',  /* one of `words` */
};

struct builtin_opt {
    const char *key;
    enum builtin_opt_kind kind;
    /* The default as written in a job ("0.05", "X", "sparse"); NULL:
     * required; "": optional with no default; "?r": the data or parameter
     * named r when the job has one, else none. */
    const char *dflt;
    const char *words; /* BOPT_WORD: "a|b|c" */
    double lo, hi;     /* BOPT_NUM: the range allowed */
    bool lo_open;      /* BOPT_NUM: lo itself is not allowed */
    bool whole;        /* BOPT_NUM: a whole number */
    /* BOPT_PARAM: the rule computes the parameter's values from state of its
     * own that no output holds, so a file cannot give them (`= from`): why,
     * for the message; NULL when it may start from a file. */
    const char *derived;
    bool scalar; /* BOPT_PARAM: a parameter of one float value (vector[1]) */
    /* An objective's option that must name what the update's option of the
     * same key names (both absent, or the same), when the update is a
     * builtin with that option: the objective measures the model the
     * update fits. */
    bool match;
};

/* The most options a builtin has (its opts table, OPT_END excluded). */
#define BUILTIN_MAX_OPTS 32

struct builtin {
    const char *name;
    enum builtin_role role;
    const char *summary;
    const struct builtin_opt *opts; /* ends with a NULL key */
    unsigned policies; /* update rules: mask of 1u << enum plan_policy it runs under */
    /* update rules: the metrics (plan.h) `ptm predict` and a job's `metric`
     * statements compute for the model, "rmse|mae|r2"; NULL: none */
    const char *metrics;
    /* Options that exclude each other, checked once each has its value
     * (h->options[i] is opts[i]; given[i]: the job or --set gave it): the
     * message (no location, no name) or NULL. NULL: none. */
    const char *(*check)(const struct plan_hook *h, const bool *given);
};

/* The check of a coordinate-descent rule with options `within` and
 * `split_min` (logreg_cd): split_min is about splitting sequential
 * rounds, and given with within = parallel would do nothing (lasso_cd's
 * decides for both). */
const char *builtin_check_split_min(const struct plan_hook *h, const bool *given);

/* Rows of a model's table (builtins_NAME.c): options, numbers with their
 * range (OPT_POS: lo excluded; OPT_WHOLE: whole numbers), references to a
 * data source or parameter (OPT_DERIVED: a parameter the rule computes,
 * which cannot start from a file), words; OPT_SCALAR an optional parameter
 * of one float value (an intercept) that the update and the objective name
 * alike; OPT_END ends a list of options and BUILTIN_END a table.
 * BUILTIN_POLICY(P) is the mask bit of policy P. */
#define OPT_NUM(key, dflt, lo, hi) {key, BOPT_NUM, dflt, NULL, lo, hi, false, false, NULL, false, false}
#define OPT_POS(key, dflt, hi) {key, BOPT_NUM, dflt, NULL, 0, hi, true, false, NULL, false, false}
#define OPT_WHOLE(key, dflt, lo, hi) {key, BOPT_NUM, dflt, NULL, lo, hi, false, true, NULL, false, false}
#define OPT_REF(key, kind, dflt) {key, kind, dflt, NULL, 0, 0, false, false, NULL, false, false}
#define OPT_DERIVED(key, dflt, why) {key, BOPT_PARAM, dflt, NULL, 0, 0, false, false, why, false, false}
#define OPT_SCALAR(key) {key, BOPT_PARAM, "", NULL, 0, 0, false, false, NULL, true, true}
#define OPT_WORD(key, dflt, words) {key, BOPT_WORD, dflt, words, 0, 0, false, false, NULL, false, false}
#define OPT_END {NULL, 0, NULL, NULL, 0, 0, false, false, NULL, false, false}
#define BUILTIN_POLICY(p) (1u << PLAN_POLICY_##p)
#define BUILTIN_END {NULL, 0, NULL, NULL, 0, NULL, NULL}

/* Each model's table, ended by BUILTIN_END. */
#define PTM_MODEL(m) extern const struct builtin ptm_builtins_##m[];
#include "models.def"

/* The builtin named name, or NULL. */
const struct builtin *builtin_lookup(const char *name);
/* The names of the builtins of role, in the models' order, into out (at
 * most cap); returns how many. */
size_t builtin_names(enum builtin_role role, const char **out, size_t cap);

#endif
