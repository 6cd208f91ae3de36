/*
 * sem_impl.h - what the semantic checker's files share.
 */
#ifndef PTM_SEM_IMPL_H
#define PTM_SEM_IMPL_H

#include "arena.h"
#include "ast.h"
#include "compiler.h"
#include "diag.h"
#include "plan.h"
#include "prog.h"

enum sym_kind { SYM_CONST, SYM_DATA, SYM_PARAM, SYM_BLOCKS, SYM_METRIC };

struct sym {
    const char *name;
    enum sym_kind kind;
    int32_t index; /* into the plan's array of that kind */
    struct ptm_loc loc;
    bool ready; /* CONST: value known (its statement has been checked) */
    bool bad;   /* CONST: its value is in error (reported) */
    struct sym *next;
};

/* What a hook file's top level left under a function's name. */
struct hook_fn {
    bool defined;      /* a function */
    const char *other; /* else the type of what is there ("number"; static), NULL: nothing */
    int nparams;       /* a function's named parameters */
    bool vararg;       /* a function's `...` */
};

struct sem {
    struct ptm_source *src;
    struct ptm_diags *diags;
    struct arena *arena; /* symbols; borrowed from the diagnostics' arena */
    const struct ptm_compile_opts *opts;
    struct ptm_plan *plan;
    struct sym **buckets; /* nbuckets chains, in the arena */
    unsigned nbuckets;    /* a power of two */
    bool policy_known; /* the schedule statement named a known policy */
    bool keep_given, pipeline_given; /* schedule options the job or --set gives */
    bool hook_loaded;  /* the update's Lua file loaded (its functions are known) */
    /* what a Lua objective's file defines as save and load, and where the
     * objective names the file: its hooks unless the update's file is the
     * same (check_objective_state) */
    struct hook_fn obj_state[2];
    struct ptm_loc obj_file_loc;
    bool obj_looked;
    bool oom;
};

/* Expression contexts: what a compiled expression may refer to. */
enum {
    ECTX_DIMS = 1u << 0,  /* rows(X), cols(X) */
    ECTX_DATA = 1u << 1,  /* corr, nnz, data indexing */
    ECTX_PARAM = 1u << 2, /* parameter values and delta() */
    ECTX_METRIC = 1u << 3, /* metrics, rel_change() and since_best() of them */
};

struct ectx {
    const char *what; /* "a dimension", "the stop rule": for messages */
    unsigned flags;
    uint32_t globals; /* mask of 1u << enum prog_global */
    const char *vars[PROG_MAX_VARS];
    unsigned nvars;
};

enum etype { ETYPE_NUM, ETYPE_BOOL, ETYPE_ERROR };

/* The outputs against the file system (sem_outputs.c; opts->check_outputs). */
void sem_check_output_files(struct sem *s, const struct ast_job *job);

void sem_error(struct sem *s, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sem_note(struct sem *s, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
struct sym *sem_lookup(struct sem *s, const char *name);
/* Report an unknown name, with a suggestion among the symbols. */
void sem_unknown(struct sem *s, struct ptm_loc loc, const char *what, const char *name);

/* Compile e into p (appending). Returns the type, or ETYPE_ERROR after
 * reporting. */
enum etype sem_expr(struct sem *s, const struct ectx *cx, struct prog *p, const struct ast_expr *e);
/* Compile e as a whole program expecting type want; false after reporting. */
bool sem_prog(struct sem *s, const struct ectx *cx, struct prog *p, const struct ast_expr *e,
              enum etype want);
/* The constant numeric value of e; false after reporting. */
bool sem_const_num(struct sem *s, const struct ast_expr *e, const char *what, double *out);
/* A constant integer in [lo, hi]; false after reporting. */
bool sem_const_int(struct sem *s, const struct ast_expr *e, const char *what, int64_t lo,
                   int64_t hi, int64_t *out);
/* True when name is a function of the expression language. */
bool sem_is_function(const char *name);
/* True when the depend predicate e(i, j) is the same as e(j, i). */
bool sem_symmetric(const struct ast_expr *e, const char *i, const char *j, bool *gave_up);

/* Check a Lua hook file: that it loads, and what it defines under each of
 * fns[0..n) (a NULL name is skipped) into found[0..n). Returns 0, or a
 * negative code with a message in err. */
int hook_check(const char *path, const char *const *fns, unsigned n, struct hook_fn *found,
               char *err, size_t errlen);

#endif
