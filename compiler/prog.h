/*
 * prog.h - expression bytecode: what depend, priority, cost, stop and
 * dimension expressions compile to, and the interpreter that runs them.
 *
 * A program is a flat array of instructions for a stack machine over
 * doubles, plus a constant pool. Booleans are 0 and 1. Programs own their
 * memory (they are part of the plan) and are validated before they run:
 * prog_validate() proves every operand is in range, every jump lands on an
 * instruction ahead of it, and the stack never underflows or exceeds
 * max_stack, so prog_eval() checks nothing at run time.
 *
 * Limits: a program needs at most PROG_MAX_STACK stack slots and has at
 * most PROG_MAX_PENDING jumps waiting for their target at any point, so the
 * interpreter's stack lives on the C stack and the checks need no memory.
 * prog_finish() and prog_validate() refuse a program beyond either; the
 * compiler reports such an expression as too deep.
 *
 * Data-dependent operations (parameter values, changes, column statistics,
 * correlations) call back into the runtime through struct prog_env.
 */
#ifndef PTM_PROG_H
#define PTM_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* X(NAME, "yaml name", operands, pops, pushes)
 * operands: 0 none, 'k' constant index in a, 'v' variable slot in a,
 * 'g' global in a, 'j' jump target in a, 'd' data index in a,
 * 'p' parameter index in a with the number of indices in b,
 * 'c' data indices in a and b (each a matrix, or a vector: its one column,
 * index 1), 'm' a metric index in a and what of it in b
 * (enum prog_metric_of).
 * pops = -1 means "b indices" (PARAM, DELTA, DATA). For JFALSE and JTRUE
 * pops and pushes describe the jump taken; falling through pops 1, and the
 * stack depth at a jump target is the same on every path into it. */
#define PROG_OP_LIST(X)                                                        \
    X(CONST, "const", 'k', 0, 1)   /* push consts[a] */                        \
    X(VAR, "var", 'v', 0, 1)       /* push vars[a] (block index i, j) */       \
    X(GLOBAL, "global", 'g', 0, 1) /* push globals[a] */                       \
    X(NEG, "neg", 0, 1, 1)                                                     \
    X(NOT, "not", 0, 1, 1)                                                     \
    X(BOOL, "bool", 0, 1, 1) /* x != 0 */                                      \
    X(ABS, "abs", 0, 1, 1)                                                     \
    X(SQRT, "sqrt", 0, 1, 1)                                                   \
    X(LOG, "log", 0, 1, 1)                                                     \
    X(EXP, "exp", 0, 1, 1)                                                     \
    X(ADD, "add", 0, 2, 1)                                                     \
    X(SUB, "sub", 0, 2, 1)                                                     \
    X(MUL, "mul", 0, 2, 1)                                                     \
    X(DIV, "div", 0, 2, 1)                                                     \
    X(MOD, "mod", 0, 2, 1) /* fmod */                                          \
    X(POW, "pow", 0, 2, 1)                                                     \
    X(MIN, "min", 0, 2, 1) /* NaN if either is; -0 < +0 */                     \
    X(MAX, "max", 0, 2, 1)                                                     \
    X(EQ, "eq", 0, 2, 1)                                                       \
    X(NE, "ne", 0, 2, 1)                                                       \
    X(LT, "lt", 0, 2, 1)                                                       \
    X(LE, "le", 0, 2, 1)                                                       \
    X(GT, "gt", 0, 2, 1)                                                       \
    X(GE, "ge", 0, 2, 1)                                                       \
    X(JFALSE, "jfalse", 'j', 1, 1) /* top == 0: jump to a, keep; else pop */  \
    X(JTRUE, "jtrue", 'j', 1, 1)   /* top != 0: jump to a, keep; else pop */  \
    X(PARAM, "param", 'p', -1, 1)  /* params[a][idx...] */                     \
    X(DELTA, "delta", 'p', -1, 1)  /* last change of params[a][idx...] */      \
    X(DATA, "data", 'p', -1, 1)    /* data[a][idx...] */                       \
    X(NNZ_COL, "nnz_col", 'd', 1, 1) /* non-zeros in column k of data a */     \
    X(NNZ_ROW, "nnz_row", 'd', 1, 1) /* non-zeros in row k of data a */        \
    X(ROWS, "rows", 'd', 0, 1)       /* rows of data a */                      \
    X(COLS, "cols", 'd', 0, 1)       /* columns of data a */                   \
    X(CORR, "corr", 'c', 2, 1) /* corr(col i of data a, col j of data b) */  \
    X(COS, "cos", 'c', 2, 1)   /* cos(col i of data a, col j of data b) */   \
    X(METRIC, "metric", 'm', 0, 1) /* metrics[PROG_METRIC_OF * a + b] */

enum prog_op {
#define X(name, yaml, operands, pops, pushes) PROG_##name,
    PROG_OP_LIST(X)
#undef X
        PROG_NOPS
};

/* X(NAME, "name in expressions and YAML") */
#define PROG_GLOBAL_LIST(X)                                                    \
    X(ROUNDS, "rounds")                                                        \
    X(SWEEPS, "sweeps")                                                        \
    X(SECONDS, "seconds")                                                      \
    X(OBJECTIVE, "objective")                                                  \
    X(REL_CHANGE, "rel_change")                                                \
    X(WORKERS, "workers")

enum prog_global {
#define X(name, text) PROG_G_##name,
    PROG_GLOBAL_LIST(X)
#undef X
        PROG_NGLOBALS
};

/* What a PROG_METRIC instruction reads of metric a (operand b): its last
 * value, its rel_change, and the evaluations since its best value. */
enum prog_metric_of { PROG_METRIC_VALUE, PROG_METRIC_REL_CHANGE, PROG_METRIC_SINCE_BEST, PROG_METRIC_OF };

#define PROG_MAX_VARS 2 /* i and j of a depend predicate */
#define PROG_MAX_INDICES 2
#define PROG_MAX_STACK 64   /* stack slots a program may need */
#define PROG_MAX_PENDING 64 /* jumps awaiting their target at any one point */

struct prog_insn {
    uint8_t op;
    int32_t a, b;
};

struct prog {
    struct prog_insn *code; /* owned */
    uint32_t ncode, capcode;
    uint32_t barrier;       /* while building: no folding across a jump target */
    double *consts; /* owned */
    uint32_t nconsts, capconsts;
    uint32_t max_stack; /* set by prog_finish(); prog_validate() checks it */
    uint32_t nvars;     /* variable slots the program reads (0..2); prog_emit(VAR) raises it */
    char *text;         /* the source expression, for people; owned, may be NULL */
};

/* What a program may refer to, for validation. */
struct prog_limits {
    uint32_t nvars, ndata, nparams;
    /* PARAM/DELTA/DATA take exactly ndims indices; NNZ_* need ndims 2, CORR
     * and COS take either. NULL: any count from 1 to PROG_MAX_INDICES, any
     * data. */
    const uint8_t *param_ndims; /* per parameter: 1 or 2 */
    const uint8_t *data_ndims;  /* per data: 1 or 2 */
    uint32_t allowed_globals;   /* bit mask of 1u << enum prog_global */
    bool allow_runtime;         /* PARAM, DELTA, DATA, NNZ_*, CORR, COS allowed */
    uint32_t nmetrics; /* metrics a METRIC instruction may name */
};

struct prog_env {
    const double *globals; /* PROG_NGLOBALS values */
    const double *vars;    /* nvars values */
    void *ud;
    /* Indices arrive as int64 (truncated toward zero; non-finite, or beyond
     * the range of int64, becomes -1).
     * Callbacks check their own bounds and return NAN for a bad index. */
    double (*param)(void *ud, int32_t param, const int64_t *idx, int n);
    double (*delta)(void *ud, int32_t param, const int64_t *idx, int n);
    double (*data)(void *ud, int32_t data, const int64_t *idx, int n);
    double (*nnz)(void *ud, int32_t data, int axis /* 0 row, 1 col */, int64_t k);
    double (*dim)(void *ud, int32_t data, int axis /* 0 rows, 1 cols */);
    double (*corr)(void *ud, int32_t data_a, int64_t i, int32_t data_b, int64_t j);
    /* The cosine of the angle between the two columns, as stored. */
    double (*cos)(void *ud, int32_t data_a, int64_t i, int32_t data_b, int64_t j);
    const double *metrics; /* PROG_METRIC_OF values a metric; NULL: none (NaN) */
};

/* The parts of a program that is `p1 or p2 or ... or pn` at the top
 * (n >= 1; 1 for any other): part k is instructions begin[k]..stop[k]-1,
 * a program of its own for prog_eval_part(). At most max parts (and
 * PROG_MAX_OR_PARTS): the first part of a longer chain holds its rest.
 * Read from the code, not the text: a part folded away by the compiler
 * (`false or x`) is not there. */
#define PROG_MAX_OR_PARTS 64
uint32_t prog_or_parts(const struct prog *p, uint32_t *begin, uint32_t *stop, uint32_t max);
double prog_eval_part(const struct prog *p, uint32_t begin, uint32_t stop,
                      const struct prog_env *env);

/* prog_init() gives the same empty program as zeroed memory. */
void prog_init(struct prog *p);
void prog_release(struct prog *p);
/* Deep copy into an uninitialized dst; returns 0 or PTM_ENOMEM (dst is
 * then released). */
int prog_copy(struct prog *dst, const struct prog *src);
/* Replace p->text with a copy of text (NULL clears it); 0 or PTM_ENOMEM. */
int prog_set_text(struct prog *p, const char *text);

/* Building. Each returns 0 or PTM_ENOMEM. prog_emit() folds constants:
 * a pure operation (no operands, no callbacks, not a jump) whose inputs are
 * all CONSTs emitted since the last jump target becomes one CONST. A jump's
 * index is p->ncode before emitting it; patch it when its target is
 * reached. On failure the program is unchanged. Unused operands are 0. */
int prog_emit(struct prog *p, enum prog_op op, int32_t a, int32_t b);
int prog_emit_const(struct prog *p, double v);
/* Point the jump at instruction `at` to the current end of the program. */
void prog_patch_jump(struct prog *p, uint32_t at);
/* Compute max_stack; call when done building. 0, or PTM_EINVAL for a
 * malformed program (a bug) or one beyond PROG_MAX_STACK/PENDING. */
int prog_finish(struct prog *p);
/* True when the program is a single CONST (its value in *v). */
bool prog_is_const(const struct prog *p, double *v);

/* Check a program from an untrusted source (a loaded plan): everything
 * prog_finish() checks, operands against lim, unused operands 0, and a
 * stored max_stack no smaller than needed. Returns 0 or PTM_EINVAL with a
 * message in err, such as "instruction 3 (param): parameter 7 out of range
 * (2 parameters)". An empty program is refused. */
int prog_validate(const struct prog *p, const struct prog_limits *lim, char *err, size_t errlen);

/* Run a program prog_validate() accepted, or prog_finish() for one built
 * here; an empty one gives NaN. Reentrant: any number of threads may
 * evaluate one program at once. */
double prog_eval(const struct prog *p, const struct prog_env *env);

/* A listing of p, one instruction a line, for people. */
void prog_dump(FILE *out, const struct prog *p);

/* Op metadata. Names are NULL for values out of range. */
const char *prog_op_name(enum prog_op op);
/* The op named name, or -1. */
int prog_op_lookup(const char *name);
const char *prog_global_name(enum prog_global g);
/* The global named name, or -1. */
int prog_global_lookup(const char *name);

#endif
