/*
 * builtins.h - the built-in kernels a job can name, with their options.
 *
 * The compiler checks a job's `update builtin NAME { ... }` and
 * `objective builtin NAME { ... }` against this table; the runtime
 * implements each kernel under the same name.
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
};

struct builtin {
    const char *name;
    enum builtin_role role;
    const char *summary;
    const struct builtin_opt *opts; /* ends with a NULL key */
    unsigned policies; /* update rules: mask of 1u << enum plan_policy it runs under */
};

/* The builtin named name, or NULL. */
const struct builtin *builtin_lookup(const char *name);
/* Every builtin; *n receives the count. */
const struct builtin *builtin_all(size_t *n);

#endif
