/*
 * sem_expr.c - expressions: name resolution, a two-type check (numbers and
 * conditions) and code generation into expression bytecode.
 *
 * Each place an expression appears (a dimension, a depend predicate, a
 * priority, a cost, the stop rule, a const) is a context that says which
 * names and operations it may use: a dependency may read data but not
 * parameters, the stop rule reads only run-time counters, a const reads
 * nothing that is not constant. prog_emit folds constants as code is
 * generated, so a const is simply a program that folded to one value.
 */
#include <math.h>
#include <string.h>

#include "ptm.h"
#include "sem_impl.h"

static const char *const functions[] = {
    "abs", "sqrt", "log", "exp", "min", "max", "corr", "cos", "col", "row", "nnz",
    "delta", "rows", "cols", "labels", "random", "rel_change", "since_best",
};

bool sem_is_function(const char *name)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(functions); i++)
        if (strcmp(functions[i], name) == 0)
            return true;
    return false;
}

static bool emit(struct sem *s, struct prog *p, enum prog_op op, int32_t a, int32_t b)
{
    if (prog_emit(p, op, a, b) != 0) {
        s->oom = true;
        return false;
    }
    return true;
}

static const char *type_name(enum etype t)
{
    return t == ETYPE_BOOL ? "a condition" : "a number";
}

/* A sub-expression of type want, or an error at it. */
static bool operand(struct sem *s, const struct ectx *cx, struct prog *p,
                    const struct ast_expr *e, enum etype want, const char *why)
{
    enum etype t = sem_expr(s, cx, p, e);
    if (t == ETYPE_ERROR)
        return false;
    if (t != want) {
        sem_error(s, e->loc, "%s needs %s, not %s", why, type_name(want), type_name(t));
        return false;
    }
    return true;
}

static int var_slot(const struct ectx *cx, const char *name)
{
    for (unsigned i = 0; i < cx->nvars; i++)
        if (strcmp(cx->vars[i], name) == 0)
            return (int)i;
    return -1;
}

static const char *sym_kind_name(enum sym_kind k)
{
    static const char *const names[] = {"a const", "a data source", "a parameter", "a block set",
                                        "a metric"};
    return names[k];
}

/* NAME in an expression. */
static enum etype name_expr(struct sem *s, const struct ectx *cx, struct prog *p,
                            const struct ast_expr *e)
{
    const char *name = e->u.name;
    int slot = var_slot(cx, name);
    if (slot >= 0)
        return emit(s, p, PROG_VAR, slot, 0) ? ETYPE_NUM : ETYPE_ERROR;
    struct sym *y = sem_lookup(s, name);
    if (y) {
        if (y->kind == SYM_CONST) {
            if (!y->ready) {
                sem_error(s, e->loc, "const '%s' is used before its definition", name);
                sem_note(s, y->loc, "'%s' is defined here", name);
                return ETYPE_ERROR;
            }
            const struct plan_const *k = &s->plan->consts[y->index];
            if (y->bad)
                return ETYPE_ERROR; /* reported at the const */
            if (k->is_str) {
                sem_error(s, e->loc, "const '%s' is a string, not a number", name);
                return ETYPE_ERROR;
            }
            if (prog_emit_const(p, k->num) != 0) {
                s->oom = true;
                return ETYPE_ERROR;
            }
            return ETYPE_NUM;
        }
        if (y->kind == SYM_METRIC) {
            if (cx->flags & ECTX_METRIC)
                return emit(s, p, PROG_METRIC, y->index, PROG_METRIC_VALUE) ? ETYPE_NUM
                                                                            : ETYPE_ERROR;
            sem_error(s, e->loc, "'%s' is a metric: only the stop rule can read it", name);
            return ETYPE_ERROR;
        }
        if (y->kind == SYM_PARAM)
            sem_error(s, e->loc, "'%s' is a parameter; index it (%s[j]) to get a number", name,
                      name);
        else
            sem_error(s, e->loc, "'%s' is %s, not a number", name, sym_kind_name(y->kind));
        return ETYPE_ERROR;
    }
    int g = prog_global_lookup(name);
    if (g >= 0 && g != PROG_G_REL_CHANGE) {
        if (!(cx->globals & (1u << g))) {
            sem_error(s, e->loc, "'%s' cannot be used in %s", name, cx->what);
            return ETYPE_ERROR;
        }
        return emit(s, p, PROG_GLOBAL, g, 0) ? ETYPE_NUM : ETYPE_ERROR;
    }
    /* Unknown: suggest among symbols, variables and run-time names. */
    const char *cands[64];
    size_t n = 0;
    for (unsigned i = 0; i < cx->nvars; i++)
        cands[n++] = cx->vars[i];
    for (int i = 0; i < PROG_NGLOBALS && n < 64; i++)
        if ((cx->globals & (1u << i)) && i != PROG_G_REL_CHANGE)
            cands[n++] = prog_global_name((enum prog_global)i);
    const char *sug = diag_suggest(name, strlen(name), cands, n);
    if (sug)
        sem_error(s, e->loc, "unknown name '%s' (did you mean '%s'?)", name, sug);
    else
        sem_unknown(s, e->loc, "name", name);
    return ETYPE_ERROR;
}

/* The data source a NAME argument names, or -1 after reporting. */
static int32_t data_arg(struct sem *s, const struct ast_expr *e, const char *fn)
{
    if (e->kind != AST_NAME) {
        sem_error(s, e->loc, "%s() takes the name of a data source here", fn);
        return -1;
    }
    struct sym *y = sem_lookup(s, e->u.name);
    if (!y) {
        sem_unknown(s, e->loc, "data source", e->u.name);
        return -1;
    }
    if (y->kind != SYM_DATA) {
        sem_error(s, e->loc, "'%s' is %s; %s() takes a data source", e->u.name,
                  sym_kind_name(y->kind), fn);
        return -1;
    }
    return y->index;
}

static bool nargs(struct sem *s, const struct ast_expr *e, unsigned lo, unsigned hi)
{
    unsigned n = e->u.call.args.n;
    const char *fn = e->u.call.fn.name;
    if (n >= lo && n <= hi)
        return true;
    if (lo == hi)
        sem_error(s, e->loc, "%s() takes %u argument%s, not %u", fn, lo, lo == 1 ? "" : "s", n);
    else if (hi == UINT32_MAX)
        sem_error(s, e->loc, "%s() takes at least %u arguments, not %u", fn, lo, n);
    else
        sem_error(s, e->loc, "%s() takes %u to %u arguments, not %u", fn, lo, hi, n);
    return false;
}

static bool need(struct sem *s, const struct ectx *cx, const struct ast_expr *e, unsigned flag)
{
    if (cx->flags & flag)
        return true;
    const char *fn = e->kind == AST_CALL ? e->u.call.fn.name : NULL;
    if (flag == ECTX_PARAM)
        sem_error(s, e->loc, "%s cannot read parameters", cx->what);
    else if (fn)
        sem_error(s, e->loc, "%s() cannot be used in %s", fn, cx->what);
    else
        sem_error(s, e->loc, "%s cannot read data", cx->what);
    return false;
}

/* The index just emitted (the code from `before` on) when it is a
 * constant: refused when it cannot be an index, a whole number from 1 to
 * dim (dim < 0: unknown before the data is read), of what (a "column",
 * "row" or "index") of name. The run checks the others (expr_env.h). */
static bool const_index(struct sem *s, const struct prog *p, uint32_t before,
                        const struct ast_expr *e, const char *what, const char *name, double dim)
{
    if (p->ncode != before + 1 || p->code[before].op != PROG_CONST)
        return true;
    double k = p->consts[p->code[before].a];
    if (!isfinite(k) || k != floor(k)) {
        sem_error(s, e->loc, "%s %g of '%s' is not a whole number", what, k, name);
        return false;
    }
    if (k < 1) {
        sem_error(s, e->loc, "%s %g of '%s' is out of range: indices count from 1", what, k, name);
        return false;
    }
    if (dim >= 0 && k > dim) {
        sem_error(s, e->loc, "%s %g of '%s' is out of range (1..%g)", what, k, name, dim);
        return false;
    }
    return true;
}

/* A parameter's declared size along dimension d, when it is a constant;
 * else -1. */
static double declared_dim(const struct plan_param *pp, int d)
{
    double v;
    return pp->dims[d].ncode > 0 && prog_is_const(&pp->dims[d], &v) ? v : -1;
}

/* col(X, k) or row(X, k): the data index and axis (1 col, 0 row). */
static bool slice_arg(struct sem *s, const struct ectx *cx, struct prog *p,
                      const struct ast_expr *e, const char *fn, int32_t *data, int *axis)
{
    if (e->kind != AST_CALL ||
        (strcmp(e->u.call.fn.name, "col") != 0 && strcmp(e->u.call.fn.name, "row") != 0)) {
        sem_error(s, e->loc, "%s() takes col(DATA, k) or row(DATA, k)", fn);
        return false;
    }
    if (!nargs(s, e, 2, 2))
        return false;
    *axis = strcmp(e->u.call.fn.name, "col") == 0;
    *data = data_arg(s, e->u.call.args.head, e->u.call.fn.name);
    if (*data < 0)
        return false;
    if (!s->plan->data[*data].matrix) {
        const char *vec = e->u.call.args.head->u.name;
        if (*axis && (strcmp(fn, "corr") == 0 || strcmp(fn, "cos") == 0))
            sem_error(s, e->u.call.args.head->loc,
                      "'%s' is a vector; col() needs a matrix (a vector is itself a column: "
                      "%s() takes '%s' as it is)",
                      vec, fn, vec);
        else
            sem_error(s, e->u.call.args.head->loc, "'%s' is a vector; %s() needs a matrix", vec,
                      e->u.call.fn.name);
        return false;
    }
    uint32_t before = p->ncode;
    if (!operand(s, cx, p, e->u.call.args.head->next, ETYPE_NUM, "an index"))
        return false;
    return const_index(s, p, before, e->u.call.args.head->next, *axis ? "column" : "row",
                       s->plan->data[*data].name, -1);
}

/* An argument of corr() or cos(): col(X, k), or the name of a vector,
 * which is its own only column. Emits the column's index (1 for a
 * vector); the data index and axis (1 col, 0 row) come back. */
static bool column_arg(struct sem *s, const struct ectx *cx, struct prog *p,
                       const struct ast_expr *e, const char *fn, int32_t *data, int *axis)
{
    if (e->kind == AST_CALL &&
        (strcmp(e->u.call.fn.name, "col") == 0 || strcmp(e->u.call.fn.name, "row") == 0))
        return slice_arg(s, cx, p, e, fn, data, axis);
    if (e->kind == AST_NAME) {
        const char *name = e->u.name;
        struct sym *y = sem_lookup(s, name);
        if (y && y->kind == SYM_DATA) {
            if (s->plan->data[y->index].matrix) {
                sem_error(s, e->loc, "'%s' is a matrix; %s() takes col(%s, k) or a vector", name,
                          fn, name);
                return false;
            }
            *data = y->index;
            *axis = 1;
            if (prog_emit_const(p, 1) != 0) {
                s->oom = true;
                return false;
            }
            return true;
        }
        if (y) {
            sem_error(s, e->loc, "'%s' is %s; %s() takes col(DATA, k) or a vector", name,
                      sym_kind_name(y->kind), fn);
            return false;
        }
        if (var_slot(cx, name) < 0 && prog_global_lookup(name) < 0) {
            sem_unknown(s, e->loc, "data source", name);
            return false;
        }
    }
    sem_error(s, e->loc, "%s() takes col(DATA, k) or a vector", fn);
    return false;
}

static enum etype call_expr(struct sem *s, const struct ectx *cx, struct prog *p,
                            const struct ast_expr *e)
{
    const char *fn = e->u.call.fn.name;
    const struct ast_expr *a = e->u.call.args.head;
    static const struct {
        const char *name;
        enum prog_op op;
    } unary[] = {{"abs", PROG_ABS}, {"sqrt", PROG_SQRT}, {"log", PROG_LOG}, {"exp", PROG_EXP}};
    for (size_t i = 0; i < PTM_ARRAY_LEN(unary); i++)
        if (strcmp(fn, unary[i].name) == 0) {
            if (!nargs(s, e, 1, 1) || !operand(s, cx, p, a, ETYPE_NUM, "an argument of a function"))
                return ETYPE_ERROR;
            return emit(s, p, unary[i].op, 0, 0) ? ETYPE_NUM : ETYPE_ERROR;
        }
    if (strcmp(fn, "min") == 0 || strcmp(fn, "max") == 0) {
        if (!nargs(s, e, 2, UINT32_MAX))
            return ETYPE_ERROR;
        enum prog_op op = fn[1] == 'i' ? PROG_MIN : PROG_MAX;
        bool ok = true;
        for (const struct ast_expr *x = a; x; x = x->next) {
            ok = operand(s, cx, p, x, ETYPE_NUM, "an argument of a function") && ok;
            if (ok && x != a && !emit(s, p, op, 0, 0))
                return ETYPE_ERROR;
        }
        return ok ? ETYPE_NUM : ETYPE_ERROR;
    }
    if (strcmp(fn, "rows") == 0 || strcmp(fn, "cols") == 0) {
        if (!nargs(s, e, 1, 1) || !need(s, cx, e, ECTX_DIMS))
            return ETYPE_ERROR;
        int32_t d = data_arg(s, a, fn);
        if (d < 0)
            return ETYPE_ERROR;
        return emit(s, p, fn[0] == 'r' ? PROG_ROWS : PROG_COLS, d, 0) ? ETYPE_NUM : ETYPE_ERROR;
    }
    if (strcmp(fn, "nnz") == 0) {
        int32_t d;
        int axis;
        if (!nargs(s, e, 1, 1) || !need(s, cx, e, ECTX_DATA) ||
            !slice_arg(s, cx, p, a, fn, &d, &axis))
            return ETYPE_ERROR;
        return emit(s, p, axis ? PROG_NNZ_COL : PROG_NNZ_ROW, d, 0) ? ETYPE_NUM : ETYPE_ERROR;
    }
    if (strcmp(fn, "corr") == 0 || strcmp(fn, "cos") == 0) {
        int32_t d1, d2;
        int ax1, ax2;
        if (!nargs(s, e, 2, 2) || !need(s, cx, e, ECTX_DATA))
            return ETYPE_ERROR;
        if (!column_arg(s, cx, p, a, fn, &d1, &ax1) ||
            !column_arg(s, cx, p, a->next, fn, &d2, &ax2))
            return ETYPE_ERROR;
        if (!ax1 || !ax2) {
            sem_error(s, e->loc, "%s() compares two columns: col(X, i), col(X, j)", fn);
            return ETYPE_ERROR;
        }
        enum prog_op op = strcmp(fn, "corr") == 0 ? PROG_CORR : PROG_COS;
        return emit(s, p, op, d1, d2) ? ETYPE_NUM : ETYPE_ERROR;
    }
    if (strcmp(fn, "delta") == 0) {
        if (!nargs(s, e, 1, 1) || !need(s, cx, e, ECTX_PARAM))
            return ETYPE_ERROR;
        if (a->kind != AST_INDEX || a->u.index.base->kind != AST_NAME) {
            sem_error(s, a->loc, "delta() takes an indexed parameter, such as delta(beta[j])");
            return ETYPE_ERROR;
        }
        struct sym *y = sem_lookup(s, a->u.index.base->u.name);
        if (!y || y->kind != SYM_PARAM) {
            if (!y)
                sem_unknown(s, a->u.index.base->loc, "parameter", a->u.index.base->u.name);
            else
                sem_error(s, a->u.index.base->loc, "'%s' is %s; delta() takes a parameter",
                          a->u.index.base->u.name, sym_kind_name(y->kind));
            return ETYPE_ERROR;
        }
        const struct plan_param *pp = &s->plan->params[y->index];
        unsigned want = pp->matrix ? 2 : 1;
        if (a->u.index.args.n != want) {
            sem_error(s, a->loc, "'%s' is a %s: it takes %u ind%s, not %u", pp->name,
                      pp->matrix ? "matrix" : "vector", want, want == 1 ? "ex" : "ices",
                      a->u.index.args.n);
            return ETYPE_ERROR;
        }
        int d = 0;
        for (const struct ast_expr *x = a->u.index.args.head; x; x = x->next, d++) {
            uint32_t before = p->ncode;
            if (!operand(s, cx, p, x, ETYPE_NUM, "an index") ||
                !const_index(s, p, before, x, !pp->matrix ? "index" : d ? "column" : "row",
                             pp->name, declared_dim(pp, d)))
                return ETYPE_ERROR;
        }
        return emit(s, p, PROG_DELTA, y->index, (int32_t)want) ? ETYPE_NUM : ETYPE_ERROR;
    }
    if (strcmp(fn, "rel_change") == 0 || strcmp(fn, "since_best") == 0) {
        if (!nargs(s, e, 1, 1))
            return ETYPE_ERROR;
        const struct sym *m = a->kind == AST_NAME ? sem_lookup(s, a->u.name) : NULL;
        if (m && m->kind == SYM_METRIC) {
            if (!(cx->flags & ECTX_METRIC)) {
                sem_error(s, e->loc, "%s() cannot be used in %s", fn, cx->what);
                return ETYPE_ERROR;
            }
            return emit(s, p, PROG_METRIC, m->index,
                        fn[0] == 'r' ? PROG_METRIC_REL_CHANGE : PROG_METRIC_SINCE_BEST)
                       ? ETYPE_NUM
                       : ETYPE_ERROR;
        }
        if (fn[0] == 's') {
            sem_error(s, a->loc, "since_best() takes a metric (metric NAME = KIND(DATA))");
            return ETYPE_ERROR;
        }
        if (a->kind != AST_NAME || strcmp(a->u.name, "objective") != 0) {
            sem_error(s, a->loc, "rel_change() takes 'objective' or a metric");
            return ETYPE_ERROR;
        }
        if (!(cx->globals & (1u << PROG_G_REL_CHANGE))) {
            sem_error(s, e->loc, "rel_change() cannot be used in %s", cx->what);
            return ETYPE_ERROR;
        }
        return emit(s, p, PROG_GLOBAL, PROG_G_REL_CHANGE, 0) ? ETYPE_NUM : ETYPE_ERROR;
    }
    if (strcmp(fn, "col") == 0 || strcmp(fn, "row") == 0) {
        sem_error(s, e->loc, "%s() is a %s of data, not a number; use it inside corr(), cos() or nnz()",
                  fn, fn[0] == 'c' ? "column" : "row");
        return ETYPE_ERROR;
    }
    if (strcmp(fn, "labels") == 0 || strcmp(fn, "random") == 0) {
        sem_error(s, e->loc, "%s() can only be %s", fn,
                  fn[0] == 'l' ? "the source of a data statement"
                               : "the initial value of a parameter");
        return ETYPE_ERROR;
    }
    const char *sug = diag_suggest(fn, strlen(fn), functions, PTM_ARRAY_LEN(functions));
    if (sug)
        sem_error(s, e->u.call.fn.loc, "unknown function '%s' (did you mean '%s'?)", fn, sug);
    else
        sem_error(s, e->u.call.fn.loc, "unknown function '%s'", fn);
    return ETYPE_ERROR;
}

static enum etype index_expr(struct sem *s, const struct ectx *cx, struct prog *p,
                             const struct ast_expr *e)
{
    const struct ast_expr *base = e->u.index.base;
    if (base->kind != AST_NAME) {
        sem_error(s, base->loc, "only parameters and data can be indexed");
        return ETYPE_ERROR;
    }
    struct sym *y = sem_lookup(s, base->u.name);
    if (!y) {
        sem_unknown(s, base->loc, "name", base->u.name);
        return ETYPE_ERROR;
    }
    unsigned want;
    enum prog_op op;
    if (y->kind == SYM_PARAM) {
        if (!need(s, cx, e, ECTX_PARAM))
            return ETYPE_ERROR;
        want = s->plan->params[y->index].matrix ? 2 : 1;
        op = PROG_PARAM;
    } else if (y->kind == SYM_DATA) {
        if (!need(s, cx, e, ECTX_DATA))
            return ETYPE_ERROR;
        want = s->plan->data[y->index].matrix ? 2 : 1;
        op = PROG_DATA;
    } else {
        sem_error(s, base->loc, "'%s' is %s and cannot be indexed", base->u.name,
                  sym_kind_name(y->kind));
        return ETYPE_ERROR;
    }
    if (e->u.index.args.n != want) {
        sem_error(s, e->loc, "'%s' is a %s: it takes %u ind%s, not %u", base->u.name,
                  want == 2 ? "matrix" : "vector", want, want == 1 ? "ex" : "ices",
                  e->u.index.args.n);
        return ETYPE_ERROR;
    }
    int d = 0;
    for (const struct ast_expr *x = e->u.index.args.head; x; x = x->next, d++) {
        uint32_t before = p->ncode;
        const struct plan_param *pp = op == PROG_PARAM ? &s->plan->params[y->index] : NULL;
        const char *what = want == 1 ? "index" : d ? "column" : "row";
        if (!operand(s, cx, p, x, ETYPE_NUM, "an index") ||
            !const_index(s, p, before, x, what, base->u.name, pp ? declared_dim(pp, d) : -1))
            return ETYPE_ERROR;
    }
    return emit(s, p, op, y->index, (int32_t)want) ? ETYPE_NUM : ETYPE_ERROR;
}

static enum etype binary_expr(struct sem *s, const struct ectx *cx, struct prog *p,
                              const struct ast_expr *e)
{
    enum ast_op op = e->u.op.op;
    const struct ast_expr *a = e->u.op.a, *b = e->u.op.b;
    if (op == AST_OP_AND || op == AST_OP_OR) {
        const char *why = op == AST_OP_AND ? "'and'" : "'or'";
        bool ok = operand(s, cx, p, a, ETYPE_BOOL, why);
        uint32_t jump = p->ncode;
        if (ok && !emit(s, p, op == AST_OP_AND ? PROG_JFALSE : PROG_JTRUE, 0, 0))
            return ETYPE_ERROR;
        /* The right side is checked even when the left is wrong. */
        ok = operand(s, cx, p, b, ETYPE_BOOL, why) && ok;
        if (!ok)
            return ETYPE_ERROR;
        prog_patch_jump(p, jump);
        return ETYPE_BOOL;
    }
    bool cmp = op >= AST_OP_EQ && op <= AST_OP_GE;
    const char *why = cmp ? "a comparison" : "arithmetic";
    enum etype ta = sem_expr(s, cx, p, a);
    enum etype tb = sem_expr(s, cx, p, b);
    if (ta == ETYPE_ERROR || tb == ETYPE_ERROR)
        return ETYPE_ERROR;
    bool eqop = op == AST_OP_EQ || op == AST_OP_NE;
    if (eqop && ta == tb)
        ; /* numbers or conditions compare for equality */
    else if (ta != ETYPE_NUM || tb != ETYPE_NUM) {
        const struct ast_expr *bad = ta != ETYPE_NUM ? a : b;
        sem_error(s, bad->loc, "%s needs a number, not a condition", why);
        return ETYPE_ERROR;
    }
    static const enum prog_op ops[] = {
        [AST_OP_ADD] = PROG_ADD, [AST_OP_SUB] = PROG_SUB, [AST_OP_MUL] = PROG_MUL,
        [AST_OP_DIV] = PROG_DIV, [AST_OP_MOD] = PROG_MOD, [AST_OP_POW] = PROG_POW,
        [AST_OP_EQ] = PROG_EQ,   [AST_OP_NE] = PROG_NE,   [AST_OP_LT] = PROG_LT,
        [AST_OP_LE] = PROG_LE,   [AST_OP_GT] = PROG_GT,   [AST_OP_GE] = PROG_GE,
    };
    if (!emit(s, p, ops[op], 0, 0))
        return ETYPE_ERROR;
    return cmp ? ETYPE_BOOL : ETYPE_NUM;
}

enum etype sem_expr(struct sem *s, const struct ectx *cx, struct prog *p, const struct ast_expr *e)
{
    if (s->oom)
        return ETYPE_ERROR;
    switch (e->kind) {
    case AST_NUM:
    case AST_DURATION:
        if (prog_emit_const(p, e->u.num) != 0) {
            s->oom = true;
            return ETYPE_ERROR;
        }
        return ETYPE_NUM;
    case AST_BOOL:
        if (prog_emit_const(p, e->u.boolean) != 0) {
            s->oom = true;
            return ETYPE_ERROR;
        }
        return ETYPE_BOOL;
    case AST_STR:
        if (strcmp(cx->what, "a const") == 0)
            sem_error(s, e->loc, "a string const is one string, not part of an expression");
        else
            sem_error(s, e->loc, "a string cannot be used in %s", cx->what);
        return ETYPE_ERROR;
    case AST_NAME: return name_expr(s, cx, p, e);
    case AST_UNARY:
        if (e->u.op.op == AST_OP_NOT) {
            if (!operand(s, cx, p, e->u.op.a, ETYPE_BOOL, "'not'"))
                return ETYPE_ERROR;
            return emit(s, p, PROG_NOT, 0, 0) ? ETYPE_BOOL : ETYPE_ERROR;
        }
        if (!operand(s, cx, p, e->u.op.a, ETYPE_NUM, "'-'"))
            return ETYPE_ERROR;
        return emit(s, p, PROG_NEG, 0, 0) ? ETYPE_NUM : ETYPE_ERROR;
    case AST_BINARY: return binary_expr(s, cx, p, e);
    case AST_CALL: return call_expr(s, cx, p, e);
    case AST_INDEX: return index_expr(s, cx, p, e);
    }
    PTM_ASSERT(0);
    return ETYPE_ERROR;
}

bool sem_prog(struct sem *s, const struct ectx *cx, struct prog *p, const struct ast_expr *e,
              enum etype want)
{
    enum etype t = sem_expr(s, cx, p, e);
    if (t == ETYPE_ERROR)
        return false;
    if (t != want) {
        sem_error(s, e->loc, "%s must be %s, not %s", cx->what, type_name(want), type_name(t));
        return false;
    }
    p->nvars = cx->nvars;
    if (prog_finish(p) != 0) {
        sem_error(s, e->loc,
                  "%s is too complex (more than %d values pending or %d open 'and'/'or' jumps)",
                  cx->what, PROG_MAX_STACK, PROG_MAX_PENDING);
        return false;
    }
    /* The source text, for people reading the plan: comments dropped,
     * blanks collapsed. (A valid expression holds no string, so every '#'
     * starts a comment.) */
    char *text = arena_alloc(s->arena, e->loc.end - e->loc.begin + 1);
    if (!text) {
        s->oom = true;
        return false;
    }
    size_t n = 0;
    const char *src = s->src->text;
    for (uint32_t i = e->loc.begin; i < e->loc.end; i++) {
        char ch = src[i];
        if (ch == '#' && i + 1 < e->loc.end && src[i + 1] == '[') {
            int depth = 0;
            for (; i + 1 < e->loc.end; i++) {
                if (src[i] == '#' && src[i + 1] == '[')
                    depth++, i++;
                else if (src[i] == ']' && src[i + 1] == '#' && --depth == 0) {
                    i++;
                    break;
                }
            }
            ch = ' ';
        } else if (ch == '#') {
            while (i + 1 < e->loc.end && src[i + 1] != '\n')
                i++;
            ch = ' ';
        }
        bool blank = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
        if (blank && (n == 0 || text[n - 1] == ' '))
            continue;
        text[n++] = blank ? ' ' : ch;
    }
    text[n] = '\0';
    if (prog_set_text(p, text) != 0) {
        s->oom = true;
        return false;
    }
    return true;
}

bool sem_const_num(struct sem *s, const struct ast_expr *e, const char *what, double *out)
{
    struct ectx cx = {.what = what};
    struct prog p;
    prog_init(&p);
    bool ok = sem_prog(s, &cx, &p, e, ETYPE_NUM);
    if (ok && !prog_is_const(&p, out)) {
        sem_error(s, e->loc, "%s must be a constant", what);
        ok = false;
    } else if (ok && !isfinite(*out)) {
        sem_error(s, e->loc, "%s must be a finite number, not %s", what,
                  isnan(*out) ? "NaN" : *out > 0 ? "infinity" : "-infinity");
        ok = false;
    }
    prog_release(&p);
    return ok;
}

bool sem_const_int(struct sem *s, const struct ast_expr *e, const char *what, int64_t lo,
                   int64_t hi, int64_t *out)
{
    double v;
    if (e->kind == AST_DURATION) {
        sem_error(s, e->loc, "%s is a count, not a duration", what);
        return false;
    }
    if (!sem_const_num(s, e, what, &v))
        return false;
    if (v != floor(v) || !(v >= (double)lo && v <= (double)hi)) {
        if (hi == PTM_WHOLE_MAX)
            sem_error(s, e->loc, "%s must be a whole number from %lld to 2^53 - 1, not %.17g",
                      what, (long long)lo, v);
        else
            sem_error(s, e->loc, "%s must be a whole number from %lld to %lld, not %g", what,
                      (long long)lo, (long long)hi, v);
        return false;
    }
    *out = (int64_t)v;
    return true;
}

/* ---- symmetry of depend predicates -------------------------------------- */

struct symctx {
    const char *i, *j;
    long budget; /* comparisons left */
};

static const char *swap_name(const struct symctx *c, const char *n)
{
    if (strcmp(n, c->i) == 0)
        return c->j;
    if (strcmp(n, c->j) == 0)
        return c->i;
    return n;
}

static bool commutes(const struct ast_expr *e)
{
    if (e->kind == AST_BINARY)
        switch (e->u.op.op) {
        case AST_OP_ADD: case AST_OP_MUL: case AST_OP_EQ: case AST_OP_NE: case AST_OP_AND:
        case AST_OP_OR:
            return true;
        default:
            return false;
        }
    if (e->kind == AST_CALL)
        return e->u.call.args.n == 2 &&
               (strcmp(e->u.call.fn.name, "corr") == 0 || strcmp(e->u.call.fn.name, "cos") == 0 ||
                strcmp(e->u.call.fn.name, "min") == 0 ||
                strcmp(e->u.call.fn.name, "max") == 0);
    return false;
}

/* a(i, j) is the same expression as b(j, i). */
static bool same_swapped(struct symctx *c, const struct ast_expr *a, const struct ast_expr *b)
{
    if (--c->budget < 0)
        return false;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case AST_NUM:
    case AST_DURATION: return a->u.num == b->u.num;
    case AST_BOOL: return a->u.boolean == b->u.boolean;
    case AST_STR: return a->u.str.len == b->u.str.len && !memcmp(a->u.str.s, b->u.str.s, a->u.str.len);
    case AST_NAME: return strcmp(a->u.name, swap_name(c, b->u.name)) == 0;
    case AST_UNARY: return a->u.op.op == b->u.op.op && same_swapped(c, a->u.op.a, b->u.op.a);
    case AST_BINARY:
        if (a->u.op.op != b->u.op.op)
            return false;
        if (same_swapped(c, a->u.op.a, b->u.op.a) && same_swapped(c, a->u.op.b, b->u.op.b))
            return true;
        return commutes(a) && same_swapped(c, a->u.op.a, b->u.op.b) &&
               same_swapped(c, a->u.op.b, b->u.op.a);
    case AST_CALL: {
        if (strcmp(a->u.call.fn.name, b->u.call.fn.name) != 0 ||
            a->u.call.args.n != b->u.call.args.n)
            return false;
        bool same = true;
        for (const struct ast_expr *x = a->u.call.args.head, *y = b->u.call.args.head; x && same;
             x = x->next, y = y->next)
            same = same_swapped(c, x, y);
        if (same)
            return true;
        /* abs(x - y) is abs(y - x) */
        const struct ast_expr *x = a->u.call.args.head, *y = b->u.call.args.head;
        if (strcmp(a->u.call.fn.name, "abs") == 0 && a->u.call.args.n == 1 &&
            x->kind == AST_BINARY && y->kind == AST_BINARY && x->u.op.op == AST_OP_SUB &&
            y->u.op.op == AST_OP_SUB)
            return same_swapped(c, x->u.op.a, y->u.op.b) && same_swapped(c, x->u.op.b, y->u.op.a);
        return commutes(a) && same_swapped(c, a->u.call.args.head, b->u.call.args.head->next) &&
               same_swapped(c, a->u.call.args.head->next, b->u.call.args.head);
    }
    case AST_INDEX: {
        if (!same_swapped(c, a->u.index.base, b->u.index.base) ||
            a->u.index.args.n != b->u.index.args.n)
            return false;
        for (const struct ast_expr *x = a->u.index.args.head, *y = b->u.index.args.head; x;
             x = x->next, y = y->next)
            if (!same_swapped(c, x, y))
                return false;
        return true;
    }
    }
    return false;
}

bool sem_symmetric(const struct ast_expr *e, const char *i, const char *j, bool *gave_up)
{
    struct symctx c = {i, j, 100000};
    bool same = same_swapped(&c, e, e);
    *gave_up = c.budget < 0;
    return same && !*gave_up;
}
