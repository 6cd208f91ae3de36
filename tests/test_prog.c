/*
 * test_prog.c - the expression bytecode: evaluation, constant folding,
 * stack depths, validation of untrusted programs, copying, allocation
 * failure, the environment callbacks and the op tables.
 *
 * DESIGN: a program is a row of build steps written the way the compiler
 * emits them (VAR(0), K(2), OP(ADD); JF(0) ... AT(0) for a jump and its
 * target) and built with prog_emit(), so folding happens as it would in the
 * compiler. Expected values are worked out by hand in the rows. Every
 * program is also built a second time with folding defeated, and the two
 * must agree bit for bit: folding computes what evaluation would.
 * Rejected programs are raw instruction arrays with the whole message
 * prog_validate() must give.
 *
 * The environment is a fake runtime: two parameters, three data sources,
 * callbacks that record their arguments. Its correlation callback uses the
 * one-pass sum formula; the rows compare it with a two-pass mean/variance
 * Pearson correlation computed here, for the indices the row expects.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "prog.h"
#include "ptm.h"

/* ---- the fake environment ----------------------------------------------- */

enum { P_BETA, P_W, NPARAMS }; /* beta: vector of 3; W: 2 x 2 */
enum { D_X, D_Z, D_Y, NDATA }; /* X: 2 x 3; Z: 5 x 4; y: vector of 2 */
enum { XROWS = 2, XCOLS = 3, ZROWS = 5, ZCOLS = 4 };

static const uint8_t param_ndims[NPARAMS] = {1, 2};
static const uint8_t data_ndims[NDATA] = {2, 2, 1};

static const double beta[3] = {0, 5, -2};
static const double dbeta[3] = {0.25, 0, -0.5};
static const double W[2][2] = {{1, 2}, {3, 4}};
/* Dense matrices given as columns: X(i, k) = X_cols[k][i]. */
static const double X_cols[XCOLS][XROWS] = {{1, 0}, {0, 4}, {2, 3}};
static const double Z_cols[ZCOLS][ZROWS] = {
    {1, 2, 3, 4, 5}, {2, 1, 4, 3, 6}, {5, 3, 1, 2, 0}, {1, -1, 0, -1, 1}};
static const double y_vec[2] = {1, -1};

static const double globals[PROG_NGLOBALS] = {
    [PROG_G_ROUNDS] = 5,      [PROG_G_SWEEPS] = 3,        [PROG_G_SECONDS] = 700,
    [PROG_G_OBJECTIVE] = 1.5, [PROG_G_REL_CHANGE] = 1e-3, [PROG_G_WORKERS] = 4,
};

struct fake {
    int calls, param_calls;
    char last; /* 'p' param, 'd' delta, 'D' data, 'n' nnz, 'm' dim, 'c' corr */
    int32_t id, id_b;
    int64_t idx[2];
    int n, axis;
};

static void record(struct fake *f, char what, int32_t id, const int64_t *idx, int n)
{
    f->calls++;
    f->last = what;
    f->id = id;
    f->n = n;
    for (int i = 0; i < n && i < 2; i++)
        f->idx[i] = idx[i];
}

static bool in(int64_t i, int64_t n)
{
    return i >= 0 && i < n;
}

static double cb_param(void *ud, int32_t p, const int64_t *idx, int n)
{
    struct fake *f = ud;
    record(f, 'p', p, idx, n);
    f->param_calls++;
    if (p == P_BETA && n == 1 && in(idx[0], 3))
        return beta[idx[0]];
    if (p == P_W && n == 2 && in(idx[0], 2) && in(idx[1], 2))
        return W[idx[0]][idx[1]];
    return NAN;
}

static double cb_delta(void *ud, int32_t p, const int64_t *idx, int n)
{
    record(ud, 'd', p, idx, n);
    if (p == P_BETA && n == 1 && in(idx[0], 3))
        return dbeta[idx[0]];
    return NAN;
}

/* Column k of data d and its length, or NULL. */
static const double *column(int32_t d, int64_t k, int64_t *len)
{
    if (d == D_X && in(k, XCOLS)) {
        *len = XROWS;
        return X_cols[k];
    }
    if (d == D_Z && in(k, ZCOLS)) {
        *len = ZROWS;
        return Z_cols[k];
    }
    return NULL;
}

static double cb_data(void *ud, int32_t d, const int64_t *idx, int n)
{
    record(ud, 'D', d, idx, n);
    int64_t len;
    const double *c = n == 2 ? column(d, idx[1], &len) : NULL;
    if (c && in(idx[0], len))
        return c[idx[0]];
    if (d == D_Y && n == 1 && in(idx[0], 2))
        return y_vec[idx[0]];
    return NAN;
}

static double cb_dim(void *ud, int32_t d, int axis)
{
    struct fake *f = ud;
    record(f, 'm', d, NULL, 0);
    f->axis = axis;
    static const double dims[NDATA][2] = {{XROWS, XCOLS}, {ZROWS, ZCOLS}, {2, 1}};
    return in(d, NDATA) ? dims[d][axis] : NAN;
}

static double cb_nnz(void *ud, int32_t d, int axis, int64_t k)
{
    struct fake *f = ud;
    record(f, 'n', d, &k, 1);
    f->axis = axis;
    int64_t len, count = 0;
    if (axis == 1) {
        const double *c = column(d, k, &len);
        if (!c)
            return NAN;
        for (int64_t i = 0; i < len; i++)
            count += c[i] != 0;
        return (double)count;
    }
    if (!column(d, 0, &len) || !in(k, len))
        return NAN;
    for (int64_t j = 0; column(d, j, &len); j++)
        count += column(d, j, &len)[k] != 0;
    return (double)count;
}

/* Pearson correlation from one pass of sums, as a runtime might do it; 0
 * when a column is constant (spec/language.md 6.4). */
static double cb_corr(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    struct fake *f = ud;
    int64_t ij[2] = {i, j};
    record(f, 'c', a, ij, 2);
    f->id_b = b;
    int64_t n = 0, m = 0;
    const double *x = column(a, i, &n), *y = column(b, j, &m);
    if (!x || !y || n != m)
        return NAN;
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int64_t k = 0; k < n; k++) {
        sx += x[k];
        sy += y[k];
        sxx += x[k] * x[k];
        syy += y[k] * y[k];
        sxy += x[k] * y[k];
    }
    double vx = (double)n * sxx - sx * sx, vy = (double)n * syy - sy * sy;
    if (vx == 0 || vy == 0)
        return 0;
    return ((double)n * sxy - sx * sy) / sqrt(vx * vy);
}

/* The reference: two passes, means first. */
static double pearson(const double *x, const double *y, int64_t n)
{
    double mx = 0, my = 0;
    for (int64_t k = 0; k < n; k++) {
        mx += x[k] / (double)n;
        my += y[k] / (double)n;
    }
    double cov = 0, vx = 0, vy = 0;
    for (int64_t k = 0; k < n; k++) {
        cov += (x[k] - mx) * (y[k] - my);
        vx += (x[k] - mx) * (x[k] - mx);
        vy += (y[k] - my) * (y[k] - my);
    }
    if (vx == 0 || vy == 0)
        return 0;
    return cov / sqrt(vx) / sqrt(vy);
}

static struct prog_env fake_env(struct fake *f, const double *vars)
{
    memset(f, 0, sizeof(*f));
    return (struct prog_env){globals, vars,   f,      cb_param, cb_delta,
                             cb_data, cb_nnz, cb_dim, cb_corr, NULL, NULL};
}

/* What each kind of expression may use. */
enum lim_kind { LIM_FULL, LIM_PRIO, LIM_STOP, LIM_SIZE, LIM_NODIMS };
#define ALL_GLOBALS ((1u << PROG_NGLOBALS) - 1)
#define RUN_GLOBALS (ALL_GLOBALS & ~(1u << PROG_G_WORKERS))
static const struct prog_limits limits[] = {
    [LIM_FULL] = {2, NDATA, NPARAMS, param_ndims, data_ndims, ALL_GLOBALS, true},
    [LIM_PRIO] = {1, NDATA, NPARAMS, param_ndims, data_ndims, 1u << PROG_G_WORKERS, true},
    [LIM_STOP] = {0, NDATA, NPARAMS, param_ndims, data_ndims, RUN_GLOBALS, false},
    [LIM_SIZE] = {0, NDATA, NPARAMS, param_ndims, data_ndims, 1u << PROG_G_WORKERS, false},
    [LIM_NODIMS] = {2, NDATA, NPARAMS, NULL, NULL, ALL_GLOBALS, true},
};

/* ---- building from rows ------------------------------------------------- */

enum step_kind { S_END, S_OP, S_K, S_JUMP, S_AT };
struct step {
    enum step_kind kind;
    enum prog_op op;
    int32_t a, b;
    double v;
};

#define K(x) {S_K, 0, 0, 0, (x)}
#define OP(o) {S_OP, PROG_##o, 0, 0, 0}
#define OPA(o, x) {S_OP, PROG_##o, (x), 0, 0}
#define OPAB(o, x, y) {S_OP, PROG_##o, (x), (y), 0}
#define VAR(n) OPA(VAR, n)
#define GLOB(g) OPA(GLOBAL, PROG_G_##g)
#define JF(l) {S_JUMP, PROG_JFALSE, (l), 0, 0}
#define JT(l) {S_JUMP, PROG_JTRUE, (l), 0, 0}
#define AT(l) {S_AT, 0, (l), 0, 0}
#define MAXSTEPS 24

/* Emit steps into p (initialized). nofold: move the barrier to the end
 * before every step, which defeats folding. careful: check that a failed
 * step left the program as it was. Returns the first failure. */
static int build_steps(struct prog *p, const struct step *s, bool nofold, bool careful)
{
    uint32_t label[8] = {0};
    for (int i = 0; i < MAXSTEPS && s[i].kind != S_END; i++) {
        uint32_t ncode = p->ncode, nconsts = p->nconsts;
        int rc = 0;
        if (nofold)
            p->barrier = p->ncode;
        switch (s[i].kind) {
        case S_K:
            rc = prog_emit_const(p, s[i].v);
            break;
        case S_OP:
            rc = prog_emit(p, s[i].op, s[i].a, s[i].b);
            break;
        case S_JUMP:
            label[s[i].a] = p->ncode;
            rc = prog_emit(p, s[i].op, 0, 0);
            break;
        case S_AT:
            prog_patch_jump(p, label[s[i].a]);
            break;
        case S_END:
            break;
        }
        if (rc) {
            if (careful) {
                ck_assert_uint_eq(p->ncode, ncode);
                ck_assert_uint_eq(p->nconsts, nconsts);
            }
            return rc;
        }
    }
    return 0;
}

/* Build, finish and validate against LIM_FULL; fail the test otherwise. */
static void build(struct prog *p, const struct step *s, bool nofold, const char *src)
{
    prog_init(p);
    ck_assert_int_eq(build_steps(p, s, nofold, false), 0);
    int rc = prog_finish(p);
    char err[200] = "";
    if (rc == 0)
        rc = prog_validate(p, &limits[LIM_FULL], err, sizeof(err));
    if (rc) {
        prog_dump(stderr, p);
        ck_abort_msg("%s: finish/validate failed: %s", src, err);
    }
}

/* The same instructions (field by field: struct padding is not part of
 * the program). */
static bool same_code(const struct prog *p, const struct prog *q)
{
    if (p->ncode != q->ncode)
        return false;
    for (uint32_t i = 0; i < p->ncode; i++)
        if (p->code[i].op != q->code[i].op || p->code[i].a != q->code[i].a ||
            p->code[i].b != q->code[i].b)
            return false;
    return true;
}

/* Equal as values, NaN equal to NaN, and -0 apart from +0. */
static bool same(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* ---- evaluation --------------------------------------------------------- */

struct eval_row {
    const char *src; /* as the compiler sees it; x and y are vars 0 and 1 */
    struct step steps[MAXSTEPS];
    double x, y;
    double want;
    int param_calls; /* beta[] lookups the evaluation must make */
};

/* `a and b` is a; JF; b; AT; BOOL and `a or b` the same with JT: the
 * jump keeps the deciding operand, BOOL makes 0 or 1 of either path. */
#define AND(l, ...) JF(l), __VA_ARGS__, AT(l), OP(BOOL)
#define OR(l, ...) JT(l), __VA_ARGS__, AT(l), OP(BOOL)
#define BETA_OF(...) __VA_ARGS__, OPAB(PARAM, P_BETA, 1)

/* clang-format off */
static const struct eval_row eval_rows[] = {
    /* arithmetic */
    {"x + y", {VAR(0), VAR(1), OP(ADD)}, 2, 3, 5, 0},
    {"x - y", {VAR(0), VAR(1), OP(SUB)}, 2, 3, -1, 0},
    {"x * y", {VAR(0), VAR(1), OP(MUL)}, 2.5, 4, 10, 0},
    {"x / y", {VAR(0), VAR(1), OP(DIV)}, 1, 4, 0.25, 0},
    {"x / y", {VAR(0), VAR(1), OP(DIV)}, 1, 0, INFINITY, 0},
    {"x / y", {VAR(0), VAR(1), OP(DIV)}, -1, 0, -INFINITY, 0},
    {"x / y", {VAR(0), VAR(1), OP(DIV)}, 0, 0, NAN, 0},
    {"-x", {VAR(0), OP(NEG)}, 2, 0, -2, 0},
    {"-x", {VAR(0), OP(NEG)}, 0, 0, -0.0, 0},
    {"x % y", {VAR(0), VAR(1), OP(MOD)}, 7.5, 2, 1.5, 0},
    {"x % y", {VAR(0), VAR(1), OP(MOD)}, -7, 3, -1, 0},
    {"x % y", {VAR(0), VAR(1), OP(MOD)}, 7, -3, 1, 0},
    {"x % y", {VAR(0), VAR(1), OP(MOD)}, 1, 0, NAN, 0},
    {"x ^ y", {VAR(0), VAR(1), OP(POW)}, 2, 10, 1024, 0},
    {"x ^ y", {VAR(0), VAR(1), OP(POW)}, 9, 0.5, 3, 0},
    {"x ^ y", {VAR(0), VAR(1), OP(POW)}, -8, 0.5, NAN, 0},
    {"x ^ y", {VAR(0), VAR(1), OP(POW)}, 0, -1, INFINITY, 0},
    {"x ^ y", {VAR(0), VAR(1), OP(POW)}, NAN, 0, 1, 0},
    {"abs(x)", {VAR(0), OP(ABS)}, -3, 0, 3, 0},
    {"sqrt(x)", {VAR(0), OP(SQRT)}, 16, 0, 4, 0},
    {"sqrt(x)", {VAR(0), OP(SQRT)}, -4, 0, NAN, 0},
    {"log(x)", {VAR(0), OP(LOG)}, 1, 0, 0, 0},
    {"log(x)", {VAR(0), OP(LOG)}, 0, 0, -INFINITY, 0},
    {"log(x)", {VAR(0), OP(LOG)}, -1, 0, NAN, 0},
    {"exp(x)", {VAR(0), OP(EXP)}, 0, 0, 1, 0},
    {"exp(x)", {VAR(0), OP(EXP)}, -INFINITY, 0, 0, 0},
    {"min(x, y)", {VAR(0), VAR(1), OP(MIN)}, 2, 3, 2, 0},
    {"min(x, y)", {VAR(0), VAR(1), OP(MIN)}, 3, -2, -2, 0},
    {"max(x, y)", {VAR(0), VAR(1), OP(MAX)}, 2, 3, 3, 0},
    {"max(x, y)", {VAR(0), VAR(1), OP(MAX)}, 3, -2, 3, 0},
    {"min(x, y)", {VAR(0), VAR(1), OP(MIN)}, NAN, 1, NAN, 0},
    {"min(x, y)", {VAR(0), VAR(1), OP(MIN)}, 1, NAN, NAN, 0},
    {"max(x, y)", {VAR(0), VAR(1), OP(MAX)}, 1, NAN, NAN, 0},
    {"min(x, y)", {VAR(0), VAR(1), OP(MIN)}, 0.0, -0.0, -0.0, 0},
    {"min(x, y)", {VAR(0), VAR(1), OP(MIN)}, -0.0, 0.0, -0.0, 0},
    {"max(x, y)", {VAR(0), VAR(1), OP(MAX)}, -0.0, 0.0, 0.0, 0},
    {"max(x, y)", {VAR(0), VAR(1), OP(MAX)}, 0.0, -0.0, 0.0, 0},
    {"min(x, y, 1)", {VAR(0), VAR(1), OP(MIN), K(1), OP(MIN)}, 4, 2, 1, 0},

    /* precedence, as the grammar nests it */
    {"x + y * 2", {VAR(0), VAR(1), K(2), OP(MUL), OP(ADD)}, 1, 3, 7, 0},
    {"(x + y) * 2", {VAR(0), VAR(1), OP(ADD), K(2), OP(MUL)}, 1, 3, 8, 0},
    {"x - y - 1", {VAR(0), VAR(1), OP(SUB), K(1), OP(SUB)}, 10, 3, 6, 0},
    {"x - (y - 1)", {VAR(0), VAR(1), K(1), OP(SUB), OP(SUB)}, 10, 3, 8, 0},
    {"x / y * 2", {VAR(0), VAR(1), OP(DIV), K(2), OP(MUL)}, 8, 4, 4, 0},
    {"x % y * 2", {VAR(0), VAR(1), OP(MOD), K(2), OP(MUL)}, 7, 4, 6, 0},
    {"-x ^ 2", {VAR(0), K(2), OP(POW), OP(NEG)}, 3, 0, -9, 0},
    {"(-x) ^ 2", {VAR(0), OP(NEG), K(2), OP(POW)}, 3, 0, 9, 0},
    {"x ^ y ^ 2", {VAR(0), VAR(1), K(2), OP(POW), OP(POW)}, 2, 3, 512, 0},
    {"x ^ -y", {VAR(0), VAR(1), OP(NEG), OP(POW)}, 2, 1, 0.5, 0},
    {"2 + 3 * x ^ 2", {K(2), K(3), VAR(0), K(2), OP(POW), OP(MUL), OP(ADD)}, 4, 0, 50, 0},
    {"x + y * 2 > 10", {VAR(0), VAR(1), K(2), OP(MUL), OP(ADD), K(10), OP(GT)}, 5, 3, 1, 0},
    {"not x == y", {VAR(0), VAR(1), OP(EQ), OP(NOT)}, 3, 3, 0, 0},

    /* comparisons give 0 or 1; NaN compares unequal to everything */
    {"x == y", {VAR(0), VAR(1), OP(EQ)}, 3, 3, 1, 0},
    {"x == y", {VAR(0), VAR(1), OP(EQ)}, 3, 2, 0, 0},
    {"x == y", {VAR(0), VAR(1), OP(EQ)}, 0.0, -0.0, 1, 0},
    {"x == y", {VAR(0), VAR(1), OP(EQ)}, NAN, NAN, 0, 0},
    {"x != y", {VAR(0), VAR(1), OP(NE)}, 3, 2, 1, 0},
    {"x != y", {VAR(0), VAR(1), OP(NE)}, 3, 3, 0, 0},
    {"x != y", {VAR(0), VAR(1), OP(NE)}, NAN, NAN, 1, 0},
    {"x < y", {VAR(0), VAR(1), OP(LT)}, 2, 3, 1, 0},
    {"x < y", {VAR(0), VAR(1), OP(LT)}, 3, 3, 0, 0},
    {"x < y", {VAR(0), VAR(1), OP(LT)}, NAN, 1, 0, 0},
    {"x <= y", {VAR(0), VAR(1), OP(LE)}, 3, 3, 1, 0},
    {"x <= y", {VAR(0), VAR(1), OP(LE)}, 4, 3, 0, 0},
    {"x > y", {VAR(0), VAR(1), OP(GT)}, 2, 3, 0, 0},
    {"x > y", {VAR(0), VAR(1), OP(GT)}, 4, 3, 1, 0},
    {"x >= y", {VAR(0), VAR(1), OP(GE)}, 3, 3, 1, 0},
    {"x >= y", {VAR(0), VAR(1), OP(GE)}, 2, 3, 0, 0},
    {"x >= y", {VAR(0), VAR(1), OP(GE)}, 1, NAN, 0, 0},
    {"not x", {VAR(0), OP(NOT)}, 0, 0, 1, 0},
    {"not x", {VAR(0), OP(NOT)}, -0.0, 0, 1, 0},
    {"not x", {VAR(0), OP(NOT)}, 2, 0, 0, 0},
    {"not x", {VAR(0), OP(NOT)}, NAN, 0, 0, 0},
    {"bool x", {VAR(0), OP(BOOL)}, -0.0, 0, 0, 0},
    {"bool x", {VAR(0), OP(BOOL)}, -2, 0, 1, 0},
    {"bool x", {VAR(0), OP(BOOL)}, NAN, 0, 1, 0},

    /* and, or: the jump keeps the deciding operand, BOOL normalizes */
    {"x and y", {VAR(0), AND(0, VAR(1))}, 0, 5, 0, 0},
    {"x and y", {VAR(0), AND(0, VAR(1))}, 2, 5, 1, 0},
    {"x and y", {VAR(0), AND(0, VAR(1))}, 2, 0, 0, 0},
    {"x and y", {VAR(0), AND(0, VAR(1))}, NAN, 0, 0, 0},
    {"x and y", {VAR(0), AND(0, VAR(1))}, -0.0, 1, 0, 0},
    {"x or y", {VAR(0), OR(0, VAR(1))}, 0, 0, 0, 0},
    {"x or y", {VAR(0), OR(0, VAR(1))}, 0, 3, 1, 0},
    {"x or y", {VAR(0), OR(0, VAR(1))}, -2, 0, 1, 0},
    {"x or y", {VAR(0), OR(0, VAR(1))}, NAN, 0, 1, 0},

    /* short-circuit: the callback runs only when the right operand is needed */
    {"x and beta[y]", {VAR(0), AND(0, BETA_OF(VAR(1)))}, 0, 1, 0, 0},
    {"x and beta[y]", {VAR(0), AND(0, BETA_OF(VAR(1)))}, 1, 1, 1, 1},
    {"x and beta[y]", {VAR(0), AND(0, BETA_OF(VAR(1)))}, 1, 0, 0, 1},
    {"x or beta[y]", {VAR(0), OR(0, BETA_OF(VAR(1)))}, 1, 1, 1, 0},
    {"x or beta[y]", {VAR(0), OR(0, BETA_OF(VAR(1)))}, 0, 2, 1, 1},
    {"x or beta[y]", {VAR(0), OR(0, BETA_OF(VAR(1)))}, 0, 0, 0, 1},
    {"x > 1 and y < 1 or beta[x] > 0",
     {VAR(0), K(1), OP(GT), AND(0, VAR(1), K(1), OP(LT)),
      OR(1, BETA_OF(VAR(0)), K(0), OP(GT))}, 2, 0, 1, 0},
    {"x > 1 and y < 1 or beta[x] > 0",
     {VAR(0), K(1), OP(GT), AND(0, VAR(1), K(1), OP(LT)),
      OR(1, BETA_OF(VAR(0)), K(0), OP(GT))}, 1, 0, 1, 1},
    {"x > 1 and y < 1 or beta[x] > 0",
     {VAR(0), K(1), OP(GT), AND(0, VAR(1), K(1), OP(LT)),
      OR(1, BETA_OF(VAR(0)), K(0), OP(GT))}, 2, 5, 0, 1},
    {"x and (y or beta[0])",
     {VAR(0), AND(0, VAR(1), OR(1, BETA_OF(K(0))))}, 1, 0, 0, 1},
    {"x and (y or beta[0])",
     {VAR(0), AND(0, VAR(1), OR(1, BETA_OF(K(0))))}, 1, 2, 1, 0},
    {"x and (y or beta[0])",
     {VAR(0), AND(0, VAR(1), OR(1, BETA_OF(K(0))))}, 0, 0, 0, 0},
    {"x and y and beta[1]",
     {VAR(0), AND(0, VAR(1)), AND(1, BETA_OF(K(1)))}, 1, 0, 0, 0},
    {"x and y and beta[1]",
     {VAR(0), AND(0, VAR(1)), AND(1, BETA_OF(K(1)))}, 1, 1, 1, 1},
    {"not x and y", {VAR(0), OP(NOT), AND(0, VAR(1))}, 0, 3, 1, 0},
    {"(x and 1) + 2", {VAR(0), AND(0, K(1)), K(2), OP(ADD)}, 0, 0, 2, 0},
    {"(x and 1) + 2", {VAR(0), AND(0, K(1)), K(2), OP(ADD)}, 5, 0, 3, 0},
    {"(x or 0) + 2", {VAR(0), OR(0, K(0)), K(2), OP(ADD)}, 5, 0, 3, 0},
    {"(x or 0) + 2", {VAR(0), OR(0, K(0)), K(2), OP(ADD)}, 0, 0, 2, 0},

    /* globals */
    {"sweeps >= 100 or rel_change(objective) < 1e-7 or seconds > 10m",
     {GLOB(SWEEPS), K(100), OP(GE), OR(0, GLOB(REL_CHANGE), K(1e-7), OP(LT)),
      OR(1, GLOB(SECONDS), K(600), OP(GT))}, 0, 0, 1, 0},
    {"rounds * workers + objective",
     {GLOB(ROUNDS), GLOB(WORKERS), OP(MUL), GLOB(OBJECTIVE), OP(ADD)}, 0, 0, 21.5, 0},
};
/* clang-format on */

START_TEST(test_eval)
{
    const struct eval_row *r = &eval_rows[_i];
    double vars[2] = {r->x, r->y};
    struct fake f;
    struct prog_env env = fake_env(&f, vars);
    struct prog p, q;

    build(&p, r->steps, false, r->src);
    double got = prog_eval(&p, &env);
    if (!same(got, r->want)) {
        prog_dump(stderr, &p);
        ck_abort_msg("eval row %d: %s with x = %g, y = %g: got %.17g, want %.17g", _i, r->src,
                     r->x, r->y, got, r->want);
    }
    ck_assert_msg(f.param_calls == r->param_calls, "eval row %d: %s: %d callback calls, want %d",
                  _i, r->src, f.param_calls, r->param_calls);

    /* Unfolded, the same bits and the same calls. */
    build(&q, r->steps, true, r->src);
    ck_assert_uint_ge(q.ncode, p.ncode);
    env = fake_env(&f, vars);
    double unfolded = prog_eval(&q, &env);
    ck_assert_msg(same_bits(got, unfolded), "eval row %d: %s: folded %.17g, unfolded %.17g", _i,
                  r->src, got, unfolded);
    ck_assert_int_eq(f.param_calls, r->param_calls);
    prog_release(&p);
    prog_release(&q);
}
END_TEST

/* ---- constant folding --------------------------------------------------- */

struct fold_row {
    const char *src;
    struct step steps[MAXSTEPS];
    uint32_t ncode, nconsts; /* after folding */
    double want;             /* with x = 1 */
};

/* clang-format off */
static const struct fold_row fold_rows[] = {
    /* everything constant: one CONST */
    {"1 + 2", {K(1), K(2), OP(ADD)}, 1, 1, 3},
    {"(1 + 2) * 3", {K(1), K(2), OP(ADD), K(3), OP(MUL)}, 1, 1, 9},
    {"1 + 2 + 3 + 4", {K(1), K(2), OP(ADD), K(3), OP(ADD), K(4), OP(ADD)}, 1, 1, 10},
    {"2 ^ 10 - 7 % 4 * 2",
     {K(2), K(10), OP(POW), K(7), K(4), OP(MOD), K(2), OP(MUL), OP(SUB)}, 1, 1, 1018},
    {"-2 ^ 2", {K(2), K(2), OP(POW), OP(NEG)}, 1, 1, -4},
    {"abs(-3) + sqrt(16) + exp(0) + log(1)",
     {K(3), OP(NEG), OP(ABS), K(16), OP(SQRT), OP(ADD), K(0), OP(EXP), OP(ADD),
      K(1), OP(LOG), OP(ADD)}, 1, 1, 8},
    {"min(3, 1) + max(3, 1)", {K(3), K(1), OP(MIN), K(3), K(1), OP(MAX), OP(ADD)}, 1, 1, 4},
    {"1 / 0", {K(1), K(0), OP(DIV)}, 1, 1, INFINITY},
    {"0 / 0", {K(0), K(0), OP(DIV)}, 1, 1, NAN},
    {"log(-1)", {K(1), OP(NEG), OP(LOG)}, 1, 1, NAN},
    {"sqrt(-1) == sqrt(-1)", {K(1), OP(NEG), OP(SQRT), K(1), OP(NEG), OP(SQRT), OP(EQ)}, 1, 1, 0},
    {"-0", {K(0), OP(NEG)}, 1, 1, -0.0},
    {"not 0", {K(0), OP(NOT)}, 1, 1, 1},
    {"not 1 + 1", {K(1), K(1), OP(ADD), OP(NOT)}, 1, 1, 0},
    {"3 >= 3", {K(3), K(3), OP(GE)}, 1, 1, 1},
    {"2 != 2", {K(2), K(2), OP(NE)}, 1, 1, 0},
    {"1e-4 * 3 < 1e-3", {K(1e-4), K(3), OP(MUL), K(1e-3), OP(LT)}, 1, 1, 1},

    /* partly constant */
    {"x + 2 * 3", {VAR(0), K(2), K(3), OP(MUL), OP(ADD)}, 3, 1, 7},
    {"2 * 3 + x", {K(2), K(3), OP(MUL), VAR(0), OP(ADD)}, 3, 1, 7},
    {"x * (2 * 3)", {VAR(0), K(2), K(3), OP(MUL), OP(MUL)}, 3, 1, 6},
    {"x * 2 * 3", {VAR(0), K(2), OP(MUL), K(3), OP(MUL)}, 5, 2, 6},
    {"2 * x + 2", {K(2), VAR(0), OP(MUL), K(2), OP(ADD)}, 5, 1, 4},
    {"1 + 2 + x", {K(1), K(2), OP(ADD), VAR(0), OP(ADD)}, 3, 1, 4},
    {"x + (1 + 2) + (1 + 2)",
     {VAR(0), K(1), K(2), OP(ADD), OP(ADD), K(1), K(2), OP(ADD), OP(ADD)}, 5, 1, 7},
    {"-x ^ (1 + 1)", {VAR(0), K(1), K(1), OP(ADD), OP(POW), OP(NEG)}, 4, 1, -1},
    {"abs(beta[x]) + 1e-4 * 2",
     {BETA_OF(VAR(0)), OP(ABS), K(1e-4), K(2), OP(MUL), OP(ADD)}, 5, 1, 5 + 2e-4},

    /* jumps: never across a jump target; freely inside and after */
    {"(x and 1) + 2", {VAR(0), AND(0, K(1)), K(2), OP(ADD)}, 6, 2, 3},
    {"(x or 0) + 2", {VAR(0), OR(0, K(0)), K(2), OP(ADD)}, 6, 2, 1 + 2},
    {"(x or 0) + 3 * 4", {VAR(0), OR(0, K(0)), K(3), K(4), OP(MUL), OP(ADD)}, 6, 2, 13},
    {"x and (1 + 2)", {VAR(0), AND(0, K(1), K(2), OP(ADD))}, 4, 1, 1},
    {"(x and 1) + (2 + 3)", {VAR(0), AND(0, K(1)), K(2), K(3), OP(ADD), OP(ADD)}, 6, 2, 6},
    {"1 and x", {K(1), AND(0, VAR(0))}, 4, 1, 1},
};
/* clang-format on */

START_TEST(test_fold)
{
    const struct fold_row *r = &fold_rows[_i];
    double vars[2] = {1, 0};
    struct fake f;
    struct prog_env env = fake_env(&f, vars);
    struct prog p, q;

    build(&p, r->steps, false, r->src);
    build(&q, r->steps, true, r->src);
    if (p.ncode != r->ncode || p.nconsts != r->nconsts) {
        prog_dump(stderr, &p);
        ck_abort_msg("fold row %d: %s: %u instructions, %u constants; want %u, %u", _i, r->src,
                     p.ncode, p.nconsts, r->ncode, r->nconsts);
    }
    double v = 0;
    ck_assert(prog_is_const(&p, &v) == (r->ncode == 1));
    double got = prog_eval(&p, &env);
    ck_assert_msg(same(got, r->want), "fold row %d: %s: got %.17g, want %.17g", _i, r->src, got,
                  r->want);
    if (r->ncode == 1)
        ck_assert(same_bits(v, got));
    double unfolded = prog_eval(&q, &env);
    ck_assert_msg(same_bits(got, unfolded), "fold row %d: %s: folded %.17g, unfolded %.17g", _i,
                  r->src, got, unfolded);
    prog_release(&p);
    prog_release(&q);
}
END_TEST

START_TEST(test_fold_barrier)
{
    /* What folding (x and 1) + 2 across the jump target would compute:
     * VAR; JFALSE -> 3; CONST 3, which gives 0 instead of 2 for x = 0. */
    struct prog p;
    prog_init(&p);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    uint32_t j = p.ncode;
    ck_assert_int_eq(prog_emit(&p, PROG_JFALSE, 0, 0), 0);
    ck_assert_int_eq(prog_emit_const(&p, 1), 0);
    prog_patch_jump(&p, j);
    ck_assert_uint_eq(p.barrier, 3);
    ck_assert_int_eq(p.code[j].a, 3);
    ck_assert_int_eq(prog_emit(&p, PROG_BOOL, 0, 0), 0);
    ck_assert_int_eq(prog_emit_const(&p, 2), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_ADD, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&p), 0);
    static const uint8_t ops[] = {PROG_VAR,  PROG_JFALSE, PROG_CONST,
                                  PROG_BOOL, PROG_CONST,  PROG_ADD};
    ck_assert_uint_eq(p.ncode, PTM_ARRAY_LEN(ops));
    for (uint32_t i = 0; i < p.ncode; i++)
        ck_assert_uint_eq(p.code[i].op, ops[i]);
    ck_assert_int_eq(p.code[j].a, 3);
    double x = 0;
    struct prog_env env = {.vars = &x};
    ck_assert(same(prog_eval(&p, &env), 2));
    x = 7;
    ck_assert(same(prog_eval(&p, &env), 3));
    prog_release(&p);
}
END_TEST

START_TEST(test_fold_pool)
{
    /* Equal constants share a pool entry, bit for bit: -0 and 0 do not. */
    struct prog p;
    prog_init(&p);
    ck_assert_int_eq(prog_emit_const(&p, 0.5), 0);
    ck_assert_int_eq(prog_emit_const(&p, 0.5), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_emit_const(&p, 0.0), 0);
    ck_assert_int_eq(prog_emit_const(&p, -0.0), 0);
    ck_assert_int_eq(prog_emit_const(&p, NAN), 0);
    ck_assert_int_eq(prog_emit_const(&p, NAN), 0);
    ck_assert_uint_eq(p.ncode, 7);
    ck_assert_uint_eq(p.nconsts, 4);
    ck_assert_int_eq(p.code[1].a, p.code[0].a);
    ck_assert_int_ne(p.code[3].a, p.code[4].a);
    ck_assert_int_eq(p.code[5].a, p.code[6].a);
    prog_release(&p);

    /* A folded result that is already in the pool reuses its entry. */
    prog_init(&p);
    ck_assert_int_eq(prog_emit_const(&p, 3), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_MUL, 0, 0), 0);
    ck_assert_int_eq(prog_emit_const(&p, 1), 0);
    ck_assert_int_eq(prog_emit_const(&p, 2), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_ADD, 0, 0), 0);
    ck_assert_uint_eq(p.ncode, 4);
    ck_assert_uint_eq(p.nconsts, 1);
    ck_assert_int_eq(p.code[3].a, 0);
    prog_release(&p);
}
END_TEST

/* ---- max_stack ---------------------------------------------------------- */

struct stack_row {
    const char *src;
    struct step steps[MAXSTEPS];
    uint32_t max_stack;
};

/* clang-format off */
static const struct stack_row stack_rows[] = {
    {"x", {VAR(0)}, 1},
    {"1 + 2", {K(1), K(2), OP(ADD)}, 1},
    {"abs(delta(beta[j])) + 1e-4",
     {VAR(0), OPAB(DELTA, P_BETA, 1), OP(ABS), K(1e-4), OP(ADD)}, 2},
    {"abs(corr(col(X, i), col(X, j))) > 0.1",
     {VAR(0), VAR(1), OPAB(CORR, D_X, D_X), OP(ABS), K(0.1), OP(GT)}, 2},
    {"x + y + x + y", {VAR(0), VAR(1), OP(ADD), VAR(0), OP(ADD), VAR(1), OP(ADD)}, 2},
    {"x + (y + (x + y))", {VAR(0), VAR(1), VAR(0), VAR(1), OP(ADD), OP(ADD), OP(ADD)}, 4},
    {"x * y + x * y", {VAR(0), VAR(1), OP(MUL), VAR(0), VAR(1), OP(MUL), OP(ADD)}, 3},
    {"W[x, y] + 1", {VAR(0), VAR(1), OPAB(PARAM, P_W, 2), K(1), OP(ADD)}, 2},
    {"nnz(col(X, x)) + rows(X) * cols(X)",
     {VAR(0), OPA(NNZ_COL, D_X), OPA(ROWS, D_X), OPA(COLS, D_X), OP(MUL), OP(ADD)}, 3},
    {"x and y", {VAR(0), AND(0, VAR(1))}, 1},
    {"x + (y and x)", {VAR(0), VAR(1), AND(0, VAR(0)), OP(ADD)}, 2},
    {"(x + 1) and (y or x * 2)",
     {VAR(0), K(1), OP(ADD), AND(0, VAR(1), OR(1, VAR(0), K(2), OP(MUL)))}, 2},
    {"x > 1 and y < 1 or beta[x] > 0",
     {VAR(0), K(1), OP(GT), AND(0, VAR(1), K(1), OP(LT)),
      OR(1, BETA_OF(VAR(0)), K(0), OP(GT))}, 2},
};
/* clang-format on */

START_TEST(test_stack)
{
    const struct stack_row *r = &stack_rows[_i];
    struct prog p;
    build(&p, r->steps, false, r->src);
    ck_assert_msg(p.max_stack == r->max_stack, "stack row %d: %s: max_stack %u, want %u", _i,
                  r->src, p.max_stack, r->max_stack);
    prog_release(&p);
}
END_TEST

/* x + (x + (... + x)) with n x's: n stack slots. */
static void nested_sum(struct prog *p, uint32_t n)
{
    prog_init(p);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_int_eq(prog_emit(p, PROG_VAR, 0, 0), 0);
    for (uint32_t i = 1; i < n; i++)
        ck_assert_int_eq(prog_emit(p, PROG_ADD, 0, 0), 0);
}

START_TEST(test_stack_limit)
{
    struct prog p;
    char err[200];
    double x = 1;
    struct prog_env env = {.vars = &x};

    nested_sum(&p, PROG_MAX_STACK);
    ck_assert_int_eq(prog_finish(&p), 0);
    ck_assert_uint_eq(p.max_stack, PROG_MAX_STACK);
    ck_assert_int_eq(prog_validate(&p, &limits[LIM_FULL], err, sizeof(err)), 0);
    ck_assert(same(prog_eval(&p, &env), PROG_MAX_STACK));
    prog_release(&p);

    nested_sum(&p, PROG_MAX_STACK + 1);
    ck_assert_int_eq(prog_finish(&p), PTM_EINVAL);
    ck_assert_uint_eq(p.max_stack, 0);
    p.max_stack = 1000;
    ck_assert_int_eq(prog_validate(&p, &limits[LIM_FULL], err, sizeof(err)), PTM_EINVAL);
    ck_assert_str_eq(err, "instruction 64 (var): stack deeper than 64");
    prog_release(&p);
}
END_TEST

/* n times (VAR 0; JFALSE to a target of its own), then VAR 0 and n NEGs;
 * the jumps land on the NEGs (or the end): n jumps pending at once. */
static void pending_jumps(struct prog *p, uint32_t n)
{
    prog_init(p);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_int_eq(prog_emit(p, PROG_VAR, 0, 0), 0);
        ck_assert_int_eq(prog_emit(p, PROG_JFALSE, (int32_t)(2 * n + 1 + i), 0), 0);
    }
    ck_assert_int_eq(prog_emit(p, PROG_VAR, 0, 0), 0);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_int_eq(prog_emit(p, PROG_NEG, 0, 0), 0);
}

START_TEST(test_pending_limit)
{
    struct prog p;
    char err[200];
    double x = 2;
    struct prog_env env = {.vars = &x};

    pending_jumps(&p, PROG_MAX_PENDING);
    ck_assert_int_eq(prog_finish(&p), 0);
    ck_assert_int_eq(prog_validate(&p, &limits[LIM_FULL], err, sizeof(err)), 0);
    ck_assert(same(prog_eval(&p, &env), 2)); /* an even number of NEGs */
    x = 0;
    ck_assert(same(prog_eval(&p, &env), 0));
    prog_release(&p);

    pending_jumps(&p, PROG_MAX_PENDING + 1);
    ck_assert_int_eq(prog_finish(&p), PTM_EINVAL);
    p.max_stack = 1;
    ck_assert_int_eq(prog_validate(&p, &limits[LIM_FULL], err, sizeof(err)), PTM_EINVAL);
    ck_assert_str_eq(err, "instruction 129 (jfalse): more than 64 jumps pending");
    prog_release(&p);

    /* Any number of jumps to one target at one depth is one entry:
     * x and x and ... and x, every JFALSE to the final BOOL. */
    prog_init(&p);
    for (int i = 0; i < 200; i++) {
        ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
        ck_assert_int_eq(prog_emit(&p, PROG_JFALSE, 401, 0), 0);
    }
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_BOOL, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&p), 0);
    ck_assert_uint_eq(p.max_stack, 1);
    x = 3;
    ck_assert(same(prog_eval(&p, &env), 1));
    x = 0;
    ck_assert(same(prog_eval(&p, &env), 0));
    prog_release(&p);
}
END_TEST

START_TEST(test_finish_malformed)
{
    struct prog p;
    prog_init(&p);
    ck_assert_int_eq(prog_finish(&p), PTM_EINVAL); /* empty */
    ck_assert_int_eq(prog_emit(&p, PROG_ADD, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&p), PTM_EINVAL); /* underflow */
    prog_release(&p);

    prog_init(&p);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 1, 0), 0);
    ck_assert_uint_eq(p.nvars, 2);
    ck_assert_int_eq(prog_finish(&p), PTM_EINVAL); /* two values left */
    prog_release(&p);

    prog_init(&p);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_JTRUE, 0, 0), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&p), PTM_EINVAL); /* jump never patched */
    prog_patch_jump(&p, 1);
    ck_assert_int_eq(prog_finish(&p), 0);
    prog_release(&p);
}
END_TEST

/* ---- validation --------------------------------------------------------- */

#define I(op, a, b) {PROG_##op, (a), (b)}
#define BAD_OP(n) {(n), 0, 0}

struct reject_row {
    struct prog_insn code[10];
    uint32_t ncode;
    uint32_t nconsts, nvars, max_stack;
    enum lim_kind lim;
    const char *msg;
};

/* The constant pool of every row: */
static double row_consts[] = {0.5, 2};

/* clang-format off */
static const struct reject_row reject_rows[] = {
    {{{0}}, 0, 0, 0, 1, LIM_FULL, "empty program"},
    {{BAD_OP(200)}, 1, 0, 0, 1, LIM_FULL, "instruction 0: unknown opcode 200"},
    {{I(VAR, 0, 0), BAD_OP(PROG_NOPS)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1: unknown opcode 36"},
    {{I(METRIC, 0, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (metric): metric 0 out of range (0 metrics)"},
    {{I(METRIC, 0, 3)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (metric): metric operand b is 3, not 0 to 2"},
    {{I(METRIC, -1, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (metric): metric -1 out of range (0 metrics)"},
    {{I(CONST, 2, 0)}, 1, 2, 0, 1, LIM_FULL,
     "instruction 0 (const): constant 2 out of range (2 constants)"},
    {{I(CONST, 1, 0)}, 1, 1, 0, 1, LIM_FULL,
     "instruction 0 (const): constant 1 out of range (1 constant)"},
    {{I(CONST, -1, 0)}, 1, 1, 0, 1, LIM_FULL,
     "instruction 0 (const): constant -1 out of range (1 constant)"},
    {{I(VAR, 1, 0)}, 1, 0, 1, 1, LIM_FULL,
     "instruction 0 (var): variable 1 out of range (1 variable)"},
    {{I(VAR, -2, 0)}, 1, 0, 2, 1, LIM_FULL,
     "instruction 0 (var): variable -2 out of range (2 variables)"},
    {{I(VAR, 0, 0)}, 1, 0, 2, 1, LIM_PRIO, "program reads 2 variables, 1 allowed here"},
    {{I(VAR, 0, 0)}, 1, 0, 1, 1, LIM_STOP, "program reads 1 variable, 0 allowed here"},
    {{I(VAR, 0, 0)}, 1, 0, 3, 1, LIM_FULL, "program reads 3 variables (at most 2)"},
    {{I(GLOBAL, 6, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (global): global 6 out of range (6 globals)"},
    {{I(GLOBAL, -1, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (global): global -1 out of range (6 globals)"},
    {{I(GLOBAL, PROG_G_OBJECTIVE, 0)}, 1, 0, 0, 1, LIM_SIZE,
     "instruction 0 (global): global 'objective' not allowed here"},
    {{I(GLOBAL, PROG_G_WORKERS, 0)}, 1, 0, 0, 1, LIM_STOP,
     "instruction 0 (global): global 'workers' not allowed here"},
    {{I(CONST, 0, 0), I(PARAM, P_BETA, 1)}, 2, 1, 0, 1, LIM_STOP,
     "instruction 1 (param): parameter and data access not allowed here"},
    {{I(CONST, 0, 0), I(NNZ_COL, D_X, 0)}, 2, 1, 0, 1, LIM_SIZE,
     "instruction 1 (nnz_col): parameter and data access not allowed here"},
    {{I(CONST, 0, 0), I(CONST, 0, 0), I(CORR, D_Z, D_Z)}, 3, 1, 0, 2, LIM_SIZE,
     "instruction 2 (corr): parameter and data access not allowed here"},
    {{I(VAR, 0, 0), I(CONST, 0, 0), I(ADD, 0, 0), I(PARAM, 7, 1)}, 4, 1, 1, 2, LIM_FULL,
     "instruction 3 (param): parameter 7 out of range (2 parameters)"},
    {{I(VAR, 0, 0), I(DELTA, -1, 1)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (delta): parameter -1 out of range (2 parameters)"},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(PARAM, P_BETA, 2)}, 3, 0, 2, 2, LIM_FULL,
     "instruction 2 (param): parameter 0 takes 1 index, not 2"},
    {{I(VAR, 0, 0), I(DELTA, P_W, 1)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (delta): parameter 1 takes 2 indices, not 1"},
    {{I(VAR, 0, 0), I(VAR, 0, 0), I(VAR, 0, 0), I(PARAM, P_W, 3)}, 4, 0, 1, 3, LIM_FULL,
     "instruction 3 (param): 3 indices out of range (1 to 2)"},
    {{I(PARAM, P_BETA, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (param): 0 indices out of range (1 to 2)"},
    {{I(PARAM, P_BETA, -1)}, 1, 0, 0, 1, LIM_NODIMS,
     "instruction 0 (param): -1 indices out of range (1 to 2)"},
    {{I(VAR, 0, 0), I(DATA, 3, 1)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (data): data 3 out of range (3 data sources)"},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(DATA, D_Y, 2)}, 3, 0, 2, 2, LIM_FULL,
     "instruction 2 (data): data 2 takes 1 index, not 2"},
    {{I(VAR, 0, 0), I(DATA, D_X, 1)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (data): data 0 takes 2 indices, not 1"},
    {{I(ROWS, 3, 0)}, 1, 0, 0, 1, LIM_SIZE,
     "instruction 0 (rows): data 3 out of range (3 data sources)"},
    {{I(COLS, -1, 0)}, 1, 0, 0, 1, LIM_SIZE,
     "instruction 0 (cols): data -1 out of range (3 data sources)"},
    {{I(VAR, 0, 0), I(NNZ_ROW, D_Y, 0)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (nnz_row): data 2 is not a matrix"},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(CORR, D_X, 5)}, 3, 0, 2, 2, LIM_FULL,
     "instruction 2 (corr): data 5 out of range (3 data sources)"},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(CORR, D_Y, -1)}, 3, 0, 2, 2, LIM_FULL,
     "instruction 2 (corr): data -1 out of range (3 data sources)"},
    {{I(VAR, 0, 0), I(JFALSE, 0, 0), I(VAR, 1, 0), I(BOOL, 0, 0)}, 4, 0, 2, 1, LIM_FULL,
     "instruction 1 (jfalse): jump target 0 out of range (2 to 4)"},
    {{I(VAR, 0, 0), I(JTRUE, 1, 0), I(VAR, 1, 0), I(BOOL, 0, 0)}, 4, 0, 2, 1, LIM_FULL,
     "instruction 1 (jtrue): jump target 1 out of range (2 to 4)"},
    {{I(VAR, 0, 0), I(JFALSE, 5, 0), I(VAR, 1, 0), I(BOOL, 0, 0)}, 4, 0, 2, 1, LIM_FULL,
     "instruction 1 (jfalse): jump target 5 out of range (2 to 4)"},
    {{I(VAR, 0, 0), I(JFALSE, -3, 0), I(VAR, 1, 0), I(BOOL, 0, 0)}, 4, 0, 2, 1, LIM_FULL,
     "instruction 1 (jfalse): jump target -3 out of range (2 to 4)"},
    {{I(ADD, 0, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (add): stack underflow (needs 2 values, has 0)"},
    {{I(VAR, 0, 0), I(MUL, 0, 0)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (mul): stack underflow (needs 2 values, has 1)"},
    {{I(NEG, 0, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (neg): stack underflow (needs 1 value, has 0)"},
    {{I(CONST, 0, 0), I(PARAM, P_W, 2)}, 2, 1, 0, 1, LIM_FULL,
     "instruction 1 (param): stack underflow (needs 2 values, has 1)"},
    {{I(NNZ_COL, D_X, 0)}, 1, 0, 0, 1, LIM_FULL,
     "instruction 0 (nnz_col): stack underflow (needs 1 value, has 0)"},
    {{I(VAR, 0, 0), I(CORR, D_X, D_X)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (corr): stack underflow (needs 2 values, has 1)"},
    {{I(JFALSE, 1, 0), I(CONST, 0, 0)}, 2, 1, 0, 1, LIM_FULL,
     "instruction 0 (jfalse): stack underflow (needs 1 value, has 0)"},
    {{I(VAR, 0, 0), I(JFALSE, 4, 0), I(VAR, 1, 0), I(VAR, 1, 0), I(ADD, 0, 0)},
     5, 0, 2, 2, LIM_FULL,
     "instruction 1 (jfalse): stack depth 1 at the jump, 2 at its target 4"},
    {{I(VAR, 0, 0), I(JTRUE, 4, 0), I(VAR, 1, 0), I(VAR, 1, 0)}, 4, 0, 2, 2, LIM_FULL,
     "instruction 1 (jtrue): stack depth 1 at the jump, 2 at its target 4"},
    {{I(VAR, 0, 0), I(JTRUE, 2, 0)}, 2, 0, 1, 1, LIM_FULL,
     "instruction 1 (jtrue): stack depth 1 at the jump, 0 at its target 2"},
    {{I(VAR, 0, 0), I(VAR, 0, 0), I(JFALSE, 6, 0), I(JFALSE, 6, 0), I(VAR, 0, 0),
      I(VAR, 0, 0), I(ADD, 0, 0)}, 7, 0, 1, 2, LIM_FULL,
     "instruction 3 (jfalse): stack depth 1 at the jump, 2 at its target 6"},
    {{I(VAR, 0, 0), I(VAR, 1, 0)}, 2, 0, 2, 2, LIM_FULL,
     "program leaves 2 values on the stack, not 1"},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(ADD, 1, 0)}, 3, 0, 2, 2, LIM_FULL,
     "instruction 2 (add): unused operand a is 1, not 0"},
    {{I(VAR, 0, 0), I(NOT, 0, -1)}, 2, 0, 2, 2, LIM_FULL,
     "instruction 1 (not): unused operand b is -1, not 0"},
    {{I(CONST, 0, 3)}, 1, 1, 0, 1, LIM_FULL,
     "instruction 0 (const): unused operand b is 3, not 0"},
    {{I(ROWS, D_X, 1)}, 1, 0, 0, 1, LIM_SIZE,
     "instruction 0 (rows): unused operand b is 1, not 0"},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(ADD, 0, 0)}, 3, 0, 2, 1, LIM_FULL,
     "max_stack 1 is smaller than the 2 the program needs"},
    {{I(CONST, 0, 0)}, 1, 1, 0, 0, LIM_FULL,
     "max_stack 0 is smaller than the 1 the program needs"},
};

/* Programs every kind of limit would refuse, each accepted by its own. */
struct accept_row {
    struct prog_insn code[10];
    uint32_t ncode, nconsts, nvars;
    enum lim_kind lim;
};

static const struct accept_row accept_rows[] = {
    {{I(VAR, 0, 0), I(DELTA, P_BETA, 1), I(ABS, 0, 0), I(CONST, 0, 0), I(ADD, 0, 0)},
     5, 1, 1, LIM_PRIO},
    {{I(COLS, D_X, 0), I(GLOBAL, PROG_G_WORKERS, 0), I(DIV, 0, 0)}, 3, 0, 0, LIM_SIZE},
    {{I(COLS, D_Y, 0), I(ROWS, D_Y, 0), I(MUL, 0, 0)}, 3, 0, 0, LIM_SIZE},
    {{I(GLOBAL, PROG_G_SWEEPS, 0), I(CONST, 1, 0), I(GE, 0, 0), I(JTRUE, 7, 0),
      I(GLOBAL, PROG_G_REL_CHANGE, 0), I(CONST, 0, 0), I(LT, 0, 0), I(BOOL, 0, 0)},
     8, 2, 0, LIM_STOP},
    {{I(VAR, 0, 0), I(PARAM, P_W, 1), I(VAR, 1, 0), I(VAR, 1, 0), I(DATA, D_Y, 2), I(ADD, 0, 0)},
     6, 0, 2, LIM_NODIMS},
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(CORR, D_X, D_Z)}, 3, 0, 2, LIM_FULL},
    /* a vector is a column of its own */
    {{I(VAR, 0, 0), I(VAR, 1, 0), I(CORR, D_Y, D_X)}, 3, 0, 2, LIM_FULL},
    {{I(VAR, 0, 0), I(CONST, 0, 0), I(COS, D_X, D_Y)}, 3, 1, 1, LIM_PRIO},
    {{I(VAR, 0, 0), I(NNZ_ROW, D_Z, 0), I(VAR, 0, 0), I(NNZ_COL, D_Z, 0), I(MAX, 0, 0)},
     5, 0, 1, LIM_FULL},
    {{I(VAR, 0, 0), I(JFALSE, 3, 0), I(VAR, 0, 0)}, 3, 0, 1, LIM_FULL}, /* a jump to the end */
};
/* clang-format on */

static struct prog raw_prog(const struct prog_insn *code, uint32_t ncode, uint32_t nconsts,
                            uint32_t nvars, uint32_t max_stack)
{
    struct prog p;
    prog_init(&p);
    p.code = (struct prog_insn *)code;
    p.ncode = ncode;
    p.consts = row_consts;
    p.nconsts = nconsts;
    p.nvars = nvars;
    p.max_stack = max_stack;
    return p;
}

START_TEST(test_reject)
{
    const struct reject_row *r = &reject_rows[_i];
    struct prog p = raw_prog(r->code, r->ncode, r->nconsts, r->nvars, r->max_stack);
    char err[200] = "";
    int rc = prog_validate(&p, &limits[r->lim], err, sizeof(err));
    ck_assert_msg(rc == PTM_EINVAL, "reject row %d: rc %d, want %s", _i, rc, r->msg);
    ck_assert_str_eq(err, r->msg);

    /* A short buffer gets a truncated message; none at all is fine. */
    char small[8];
    ck_assert_int_eq(prog_validate(&p, &limits[r->lim], small, sizeof(small)), PTM_EINVAL);
    ck_assert_int_eq(strncmp(small, r->msg, sizeof(small) - 1), 0);
    ck_assert_int_eq(prog_validate(&p, &limits[r->lim], NULL, 0), PTM_EINVAL);
}
END_TEST

START_TEST(test_accept)
{
    const struct accept_row *r = &accept_rows[_i];
    struct prog p = raw_prog(r->code, r->ncode, r->nconsts, r->nvars, 0);
    ck_assert_int_eq(prog_finish(&p), 0);
    char err[200] = "";
    int rc = prog_validate(&p, &limits[r->lim], err, sizeof(err));
    ck_assert_msg(rc == 0, "accept row %d: %s", _i, err);
    p.max_stack += 10; /* larger than needed is fine */
    ck_assert_int_eq(prog_validate(&p, &limits[r->lim], err, sizeof(err)), 0);
}
END_TEST

/* ---- the environment ---------------------------------------------------- */

#define REF 1e300 /* want: the Pearson correlation of the expected columns */

struct env_row {
    const char *src; /* i and j are vars 0 and 1 */
    struct step steps[12];
    double i, j;
    double want;
    char last;      /* the callback that ran last */
    int32_t id, id_b; /* data or parameter ids it got */
    int n;          /* indices it got */
    int64_t idx[2];
    int axis;
};

/* clang-format off */
static const struct env_row env_rows[] = {
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 1, 0, 5, 'p', P_BETA, 0, 1, {1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 2, 0, -2, 'p', P_BETA, 0, 1, {2}, 0},
    /* indices: truncated toward zero; not finite or beyond int64: -1 */
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 1.99, 0, 5, 'p', P_BETA, 0, 1, {1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, -0.5, 0, 0, 'p', P_BETA, 0, 1, {0}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, -1, 0, NAN, 'p', P_BETA, 0, 1, {-1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 3, 0, NAN, 'p', P_BETA, 0, 1, {3}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, INFINITY, 0, NAN, 'p', P_BETA, 0, 1, {-1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, -INFINITY, 0, NAN, 'p', P_BETA, 0, 1, {-1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, NAN, 0, NAN, 'p', P_BETA, 0, 1, {-1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 1e300, 0, NAN, 'p', P_BETA, 0, 1, {-1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 0x1p63, 0, NAN, 'p', P_BETA, 0, 1, {-1}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, 0x1p62, 0, NAN,
     'p', P_BETA, 0, 1, {INT64_C(4611686018427387904)}, 0},
    {"beta[i]", {VAR(0), OPAB(PARAM, P_BETA, 1)}, -0x1p63, 0, NAN,
     'p', P_BETA, 0, 1, {INT64_MIN}, 0},
    {"W[i, j]", {VAR(0), VAR(1), OPAB(PARAM, P_W, 2)}, 1, 0, 3, 'p', P_W, 0, 2, {1, 0}, 0},
    {"W[j, i]", {VAR(1), VAR(0), OPAB(PARAM, P_W, 2)}, 1, 0, 2, 'p', P_W, 0, 2, {0, 1}, 0},
    {"W[i + 1, j]", {VAR(0), K(1), OP(ADD), VAR(1), OPAB(PARAM, P_W, 2)}, 0, 1, 4,
     'p', P_W, 0, 2, {1, 1}, 0},
    {"delta(beta[j])", {VAR(1), OPAB(DELTA, P_BETA, 1)}, 0, 0, 0.25, 'd', P_BETA, 0, 1, {0}, 0},
    {"abs(delta(beta[j])) + 1e-4",
     {VAR(1), OPAB(DELTA, P_BETA, 1), OP(ABS), K(1e-4), OP(ADD)}, 0, 2, 0.5 + 1e-4,
     'd', P_BETA, 0, 1, {2}, 0},
    {"X[i, j]", {VAR(0), VAR(1), OPAB(DATA, D_X, 2)}, 1, 2, 3, 'D', D_X, 0, 2, {1, 2}, 0},
    {"X[j, i]", {VAR(1), VAR(0), OPAB(DATA, D_X, 2)}, 2, 0, 2, 'D', D_X, 0, 2, {0, 2}, 0},
    {"Z[i, j]", {VAR(0), VAR(1), OPAB(DATA, D_Z, 2)}, 4, 3, 1, 'D', D_Z, 0, 2, {4, 3}, 0},
    {"y[i]", {VAR(0), OPAB(DATA, D_Y, 1)}, 1, 0, -1, 'D', D_Y, 0, 1, {1}, 0},
    {"rows(X)", {OPA(ROWS, D_X)}, 0, 0, XROWS, 'm', D_X, 0, 0, {0}, 0},
    {"cols(X)", {OPA(COLS, D_X)}, 0, 0, XCOLS, 'm', D_X, 0, 0, {0}, 1},
    {"rows(Z)", {OPA(ROWS, D_Z)}, 0, 0, ZROWS, 'm', D_Z, 0, 0, {0}, 0},
    {"cols(y)", {OPA(COLS, D_Y)}, 0, 0, 1, 'm', D_Y, 0, 0, {0}, 1},
    {"nnz(col(X, j))", {VAR(1), OPA(NNZ_COL, D_X)}, 0, 2, 2, 'n', D_X, 0, 1, {2}, 1},
    {"nnz(col(X, j))", {VAR(1), OPA(NNZ_COL, D_X)}, 0, 0, 1, 'n', D_X, 0, 1, {0}, 1},
    {"nnz(row(X, i))", {VAR(0), OPA(NNZ_ROW, D_X)}, 0, 2, 2, 'n', D_X, 0, 1, {0}, 0},
    {"nnz(row(Z, i))", {VAR(0), OPA(NNZ_ROW, D_Z)}, 2, 0, 3, 'n', D_Z, 0, 1, {2}, 0},
    {"nnz(col(Z, j))", {VAR(1), OPA(NNZ_COL, D_Z)}, 0, 3.5, 4, 'n', D_Z, 0, 1, {3}, 1},
    /* corr(col(A, i), col(B, j)) passes A, i, B, j */
    {"corr(col(X, i), col(X, j))", {VAR(0), VAR(1), OPAB(CORR, D_X, D_X)}, 0, 1, REF,
     'c', D_X, D_X, 2, {0, 1}, 0},
    {"corr(col(X, i), col(X, j))", {VAR(0), VAR(1), OPAB(CORR, D_X, D_X)}, 1, 2, REF,
     'c', D_X, D_X, 2, {1, 2}, 0},
    {"corr(col(Z, i), col(Z, j))", {VAR(0), VAR(1), OPAB(CORR, D_Z, D_Z)}, 0, 1, REF,
     'c', D_Z, D_Z, 2, {0, 1}, 0},
    {"corr(col(Z, i), col(Z, j))", {VAR(0), VAR(1), OPAB(CORR, D_Z, D_Z)}, 2, 0, REF,
     'c', D_Z, D_Z, 2, {2, 0}, 0},
    {"corr(col(Z, j), col(Z, i))", {VAR(1), VAR(0), OPAB(CORR, D_Z, D_Z)}, 1, 2, REF,
     'c', D_Z, D_Z, 2, {2, 1}, 0},
    {"corr(col(Z, i), col(Z, j))", {VAR(0), VAR(1), OPAB(CORR, D_Z, D_Z)}, 0, 3, 0,
     'c', D_Z, D_Z, 2, {0, 3}, 0},
    {"corr(col(Z, i), col(X, j))", {VAR(0), VAR(1), OPAB(CORR, D_Z, D_X)}, 3, 1, NAN,
     'c', D_Z, D_X, 2, {3, 1}, 0},
    {"corr(col(X, i), col(Z, j))", {VAR(0), VAR(1), OPAB(CORR, D_X, D_Z)}, 1, 3, NAN,
     'c', D_X, D_Z, 2, {1, 3}, 0},
    /* a vector's index is the constant 1 */
    {"corr(col(X, i), y)", {VAR(0), K(1), OPAB(CORR, D_X, D_Y)}, 2, 0, NAN,
     'c', D_X, D_Y, 2, {2, 1}, 0},
    /* the Lasso depend predicate */
    {"abs(corr(col(Z, i), col(Z, j))) > 0.1",
     {VAR(0), VAR(1), OPAB(CORR, D_Z, D_Z), OP(ABS), K(0.1), OP(GT)}, 0, 2, 1,
     'c', D_Z, D_Z, 2, {0, 2}, 0},
    {"abs(corr(col(Z, i), col(Z, j))) > 0.1",
     {VAR(0), VAR(1), OPAB(CORR, D_Z, D_Z), OP(ABS), K(0.1), OP(GT)}, 3, 0, 0,
     'c', D_Z, D_Z, 2, {3, 0}, 0},
};
/* clang-format on */

/* METRIC reads the env's metrics: value, rel_change, since_best; NaN
 * without them. */
START_TEST(test_metric_op)
{
    struct prog p;
    prog_init(&p);
    ck_assert_int_eq(prog_emit(&p, PROG_METRIC, 1, PROG_METRIC_SINCE_BEST), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_METRIC, 0, PROG_METRIC_VALUE), 0);
    ck_assert_int_eq(prog_emit(&p, PROG_ADD, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&p), 0);
    const double m[2 * PROG_METRIC_OF] = {0.5, 0.1, 2, 7, 0.2, 3};
    struct prog_limits lim = {.nmetrics = 2};
    char err[128];
    ck_assert_int_eq(prog_validate(&p, &lim, err, sizeof(err)), 0);
    lim.nmetrics = 1;
    ck_assert_int_eq(prog_validate(&p, &lim, err, sizeof(err)), PTM_EINVAL);
    struct prog_env env = {.metrics = m};
    ck_assert_double_eq(prog_eval(&p, &env), 3.5);
    env.metrics = NULL;
    ck_assert(isnan(prog_eval(&p, &env)));
    prog_release(&p);
}
END_TEST

START_TEST(test_env)
{
    const struct env_row *r = &env_rows[_i];
    double vars[2] = {r->i, r->j};
    struct fake f;
    struct prog_env env = fake_env(&f, vars);
    struct prog p;

    build(&p, r->steps, false, r->src);
    double got = prog_eval(&p, &env);
    ck_assert_msg(f.calls == 1, "env row %d: %s: %d callback calls", _i, r->src, f.calls);
    ck_assert_msg(f.last == r->last && f.id == r->id && f.n == r->n,
                  "env row %d: %s: callback '%c' id %d with %d indices, want '%c' %d %d", _i,
                  r->src, f.last, f.id, f.n, r->last, r->id, r->n);
    for (int k = 0; k < r->n; k++)
        ck_assert_msg(f.idx[k] == r->idx[k], "env row %d: %s: index %d is %lld, want %lld", _i,
                      r->src, k, (long long)f.idx[k], (long long)r->idx[k]);
    if (r->last == 'c')
        ck_assert_int_eq(f.id_b, r->id_b);
    if (r->last == 'm' || r->last == 'n')
        ck_assert_int_eq(f.axis, r->axis);

    double want = r->want;
    if (want == REF) {
        int64_t n = 0, m = 0;
        const double *x = column(r->id, r->idx[0], &n), *y = column(r->id_b, r->idx[1], &m);
        ck_assert(x && y && n == m);
        want = pearson(x, y, n);
        ck_assert_msg(fabs(got - want) <= 1e-12, "env row %d: %s: corr %.17g, reference %.17g",
                      _i, r->src, got, want);
    } else {
        ck_assert_msg(same(got, want), "env row %d: %s: got %.17g, want %.17g", _i, r->src, got,
                      want);
    }
    prog_release(&p);
}
END_TEST

START_TEST(test_env_reference)
{
    /* The reference itself, against values worked out by hand: columns of
     * length 2 correlate perfectly; Z's first two columns have deviations
     * (-2 -1 0 1 2) and (-1.2 -2.2 0.8 -0.2 2.8): cov 10, variances 10 and
     * 14.8, so 10 / sqrt(148); Z's column 3 is uncorrelated with column 0. */
    ck_assert(fabs(pearson(X_cols[0], X_cols[1], XROWS) - -1) < 1e-14);
    ck_assert(fabs(pearson(X_cols[1], X_cols[2], XROWS) - 1) < 1e-14);
    ck_assert(fabs(pearson(Z_cols[0], Z_cols[1], ZROWS) - 10 / sqrt(148)) < 1e-14);
    ck_assert(fabs(pearson(Z_cols[0], Z_cols[3], ZROWS)) < 1e-14);
    static const double flat[ZROWS] = {2, 2, 2, 2, 2};
    ck_assert(pearson(Z_cols[0], flat, ZROWS) == 0);
}
END_TEST

/* ---- copy, text, listing ------------------------------------------------ */

static const struct step lasso_priority[] = {
    VAR(0), OPAB(DELTA, P_BETA, 1), OP(ABS), K(1e-4), OP(ADD), {S_END, 0, 0, 0, 0}};

START_TEST(test_copy)
{
    struct prog p, q;
    build(&p, lasso_priority, false, "lasso priority");
    ck_assert_int_eq(prog_set_text(&p, "abs(delta(beta[j])) + 1e-4"), 0);
    ck_assert_int_eq(prog_copy(&q, &p), 0);
    ck_assert_ptr_ne(q.code, p.code);
    ck_assert_ptr_ne(q.consts, p.consts);
    ck_assert_ptr_ne(q.text, p.text);
    ck_assert_uint_eq(q.ncode, p.ncode);
    ck_assert_uint_eq(q.nconsts, p.nconsts);
    ck_assert_uint_eq(q.max_stack, p.max_stack);
    ck_assert_uint_eq(q.nvars, p.nvars);
    ck_assert(same_code(&q, &p));
    ck_assert_int_eq(memcmp(q.consts, p.consts, p.nconsts * sizeof(*p.consts)), 0);
    ck_assert_str_eq(q.text, p.text);
    prog_release(&p);
    ck_assert_ptr_null(p.code);
    ck_assert_uint_eq(p.ncode, 0);

    /* The copy stands alone, and grows. */
    double j = 2;
    struct fake f;
    struct prog_env env = fake_env(&f, &j);
    ck_assert(same(prog_eval(&q, &env), 0.5 + 1e-4));
    ck_assert_int_eq(prog_emit_const(&q, 2), 0);
    ck_assert_int_eq(prog_emit(&q, PROG_MUL, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&q), 0);
    ck_assert(same(prog_eval(&q, &env), (0.5 + 1e-4) * 2));
    ck_assert_int_eq(prog_set_text(&q, NULL), 0);
    ck_assert_ptr_null(q.text);
    prog_release(&q);

    /* An empty program copies without allocating. */
    prog_init(&p);
    ptm_fault_inject(1);
    ck_assert_int_eq(prog_copy(&q, &p), 0);
    ptm_fault_inject(0);
    ck_assert_uint_eq(q.ncode, 0);
    ck_assert_ptr_null(q.code);
    prog_release(&q);
    prog_release(&p);
    prog_release(&p); /* released twice is fine */

    /* Zeroed memory is an empty program. */
    struct prog z;
    memset(&z, 0, sizeof(z));
    ck_assert_int_eq(prog_emit(&z, PROG_VAR, 0, 0), 0);
    ck_assert_int_eq(prog_finish(&z), 0);
    ck_assert(same(prog_eval(&z, &env), 2));
    prog_release(&z);
    ck_assert(isnan(prog_eval(&z, &env)));
}
END_TEST

START_TEST(test_dump)
{
    struct prog p;
    build(&p, lasso_priority, false, "lasso priority");
    ck_assert_int_eq(prog_set_text(&p, "abs(delta(beta[j])) + 1e-4"), 0);
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    prog_dump(f, &p);
    fclose(f);
    ck_assert_str_eq(out, "; 5 instructions, 1 constant, 1 variable, max_stack 2: "
                          "abs(delta(beta[j])) + 1e-4\n"
                          "   0  var      0\n"
                          "   1  delta    0 1\n"
                          "   2  abs\n"
                          "   3  const    0  ; 0.0001\n"
                          "   4  add\n");
    free(out);
    prog_release(&p);

    static const struct step stop[] = {GLOB(SWEEPS), K(0.1), OP(GE), OR(0, VAR(0)),
                                       {S_END, 0, 0, 0, 0}};
    build(&p, stop, false, "stop");
    f = open_memstream(&out, &len);
    prog_dump(f, &p);
    fclose(f);
    ck_assert_str_eq(out, "; 6 instructions, 1 constant, 1 variable, max_stack 2\n"
                          "   0  global   1  ; sweeps\n"
                          "   1  const    0  ; 0.1\n"
                          "   2  ge\n"
                          "   3  jtrue    -> 5\n"
                          "   4  var      0\n"
                          "   5  bool\n");
    free(out);
    prog_release(&p);
}
END_TEST

/* ---- allocation failure ------------------------------------------------- */

/* Build row steps, name and copy the program with allocation n failing;
 * returns what failed, or 0. Every failure must leave p as it was. */
static int build_copy(const struct step *steps, struct prog *out)
{
    struct prog p;
    prog_init(&p);
    prog_init(out);
    int rc = build_steps(&p, steps, false, true);
    if (rc == 0)
        rc = prog_set_text(&p, "a program");
    if (rc == 0)
        rc = prog_copy(out, &p);
    prog_release(&p);
    return rc;
}

START_TEST(test_fault)
{
    const struct eval_row *r = &eval_rows[_i];
    struct prog want;
    build(&want, r->steps, false, r->src);
    unsigned long n;
    for (n = 1;; n++) {
        struct prog q;
        ptm_fault_inject(n);
        int rc = build_copy(r->steps, &q);
        unsigned long calls = ptm_fault_inject(0);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            ck_assert_int_eq(prog_finish(&q), 0);
            ck_assert(same_code(&q, &want));
            ck_assert_str_eq(q.text, "a program");
            prog_release(&q);
            break;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "%s: allocation %lu failed: rc %d", r->src, n, rc);
        ck_assert_ptr_null(q.code);
        ck_assert_ptr_null(q.text);
    }
    ck_assert_uint_ge(n, 4); /* code, consts when any, text, and the copy's */
    prog_release(&want);
}
END_TEST

START_TEST(test_fault_growth)
{
    /* Growth past the first capacity fails cleanly too: 100 instructions,
     * 50 distinct constants. */
    unsigned long n;
    for (n = 1;; n++) {
        struct prog p;
        prog_init(&p);
        int rc = 0;
        ptm_fault_inject(n);
        for (int i = 0; i < 50 && rc == 0; i++) {
            uint32_t ncode = p.ncode, nconsts = p.nconsts;
            rc = prog_emit_const(&p, i);
            if (rc == 0 && i > 0)
                rc = prog_emit(&p, PROG_VAR, 0, 0);
            if (rc == 0 && i > 0)
                rc = prog_emit(&p, PROG_POW, 0, 0);
            if (rc == 0 && i > 0)
                rc = prog_emit(&p, PROG_ADD, 0, 0);
            if (rc) /* the steps before the failed one stay */
                ck_assert(p.ncode <= ncode + 3 && p.nconsts <= nconsts + 1);
        }
        unsigned long calls = ptm_fault_inject(0);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            ck_assert_uint_eq(p.ncode, 1 + 49 * 4);
            ck_assert_uint_eq(p.nconsts, 50);
            ck_assert_int_eq(prog_finish(&p), 0);
            double x = 1;
            struct prog_env env = {.vars = &x};
            ck_assert(same(prog_eval(&p, &env), 49 * 50 / 2)); /* sum of i^1 */
            prog_release(&p);
            break;
        }
        ck_assert_int_eq(rc, PTM_ENOMEM);
        prog_release(&p);
    }
    ck_assert_uint_ge(n, 8);
}
END_TEST

/* ---- names -------------------------------------------------------------- */

START_TEST(test_names)
{
    for (int op = 0; op < PROG_NOPS; op++) {
        const char *name = prog_op_name(op);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(prog_op_lookup(name), op);
    }
    for (int g = 0; g < PROG_NGLOBALS; g++) {
        const char *name = prog_global_name(g);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(prog_global_lookup(name), g);
    }
    ck_assert_str_eq(prog_op_name(PROG_NNZ_COL), "nnz_col");
    ck_assert_str_eq(prog_op_name(PROG_JFALSE), "jfalse");
    ck_assert_int_eq(prog_op_lookup("corr"), PROG_CORR);
    ck_assert_str_eq(prog_global_name(PROG_G_REL_CHANGE), "rel_change");
    ck_assert_int_eq(prog_global_lookup("workers"), PROG_G_WORKERS);
    ck_assert_ptr_null(prog_op_name(PROG_NOPS));
    ck_assert_ptr_null(prog_op_name((enum prog_op)-1));
    ck_assert_ptr_null(prog_global_name(PROG_NGLOBALS));
    ck_assert_int_eq(prog_op_lookup("CONST"), -1);
    ck_assert_int_eq(prog_op_lookup(""), -1);
    ck_assert_int_eq(prog_op_lookup(NULL), -1);
    ck_assert_int_eq(prog_global_lookup("objectives"), -1);
    ck_assert_int_eq(prog_global_lookup(NULL), -1);
}
END_TEST

/* ---- the suite ---------------------------------------------------------- */

#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))

static Suite *prog_suite(void)
{
    Suite *s = suite_create("prog");
    TCase *tc;

    tc = tcase_create("eval");
    add_rows(tc, test_eval, eval_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("fold");
    add_rows(tc, test_fold, fold_rows);
    tcase_add_test(tc, test_fold_barrier);
    tcase_add_test(tc, test_fold_pool);
    suite_add_tcase(s, tc);

    tc = tcase_create("stack");
    add_rows(tc, test_stack, stack_rows);
    tcase_add_test(tc, test_stack_limit);
    tcase_add_test(tc, test_pending_limit);
    tcase_add_test(tc, test_finish_malformed);
    suite_add_tcase(s, tc);

    tc = tcase_create("validate");
    add_rows(tc, test_reject, reject_rows);
    add_rows(tc, test_accept, accept_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("env");
    add_rows(tc, test_env, env_rows);
    tcase_add_test(tc, test_metric_op);
    tcase_add_test(tc, test_env_reference);
    suite_add_tcase(s, tc);

    tc = tcase_create("copy");
    tcase_add_test(tc, test_copy);
    tcase_add_test(tc, test_dump);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    add_rows(tc, test_fault, eval_rows);
    tcase_add_test(tc, test_fault_growth);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(prog_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
