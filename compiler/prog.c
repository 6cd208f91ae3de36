/*
 * prog.c - expression bytecode: building with constant folding, the stack
 * pass shared by prog_finish() and prog_validate(), and the interpreter.
 *
 * DESIGN: each pure operation (no operands, no callback, not a jump) is
 * defined once, as a C expression in UNARY_LIST or BINARY_LIST; the folder
 * and the interpreter both expand those lists, so a folded constant is
 * bit for bit what evaluation would have produced.
 *
 * Jumps only go forward and keep their operand when taken, so one forward
 * pass gives the stack depth before every instruction: the depth falling
 * into a jump target must equal the depth at every jump to it. The pass
 * remembers the jumps not yet reached in a fixed table (PROG_MAX_PENDING
 * entries, one per distinct target and depth) and needs no memory; the
 * interpreter's stack is a fixed array of PROG_MAX_STACK doubles.
 *
 * The interpreter dispatches with computed goto under GCC and Clang (one
 * indirect branch per instruction, predicted per op) and with a switch
 * elsewhere or when built with -DPROG_SWITCH.
 */
#include "prog.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

/* ---- metadata ----------------------------------------------------------- */

struct op_info {
    const char *name;
    char operands;
    int8_t pops, pushes;
};

static const struct op_info op_info[PROG_NOPS] = {
#define X(name, yaml, operands, pops, pushes) [PROG_##name] = {yaml, operands, pops, pushes},
    PROG_OP_LIST(X)
#undef X
};

static const char *const global_names[PROG_NGLOBALS] = {
#define X(name, text) [PROG_G_##name] = text,
    PROG_GLOBAL_LIST(X)
#undef X
};

const char *prog_op_name(enum prog_op op)
{
    return (unsigned)op < PROG_NOPS ? op_info[op].name : NULL;
}

int prog_op_lookup(const char *name)
{
    for (int i = 0; name && i < PROG_NOPS; i++)
        if (strcmp(op_info[i].name, name) == 0)
            return i;
    return -1;
}

const char *prog_global_name(enum prog_global g)
{
    return (unsigned)g < PROG_NGLOBALS ? global_names[g] : NULL;
}

int prog_global_lookup(const char *name)
{
    for (int i = 0; name && i < PROG_NGLOBALS; i++)
        if (strcmp(global_names[i], name) == 0)
            return i;
    return -1;
}

/* ---- pure operations ---------------------------------------------------- */

/* IEEE 754-2019 minimum and maximum: a NaN operand gives NaN (a bad index
 * must not vanish into a priority), and -0 is below +0 so that the result
 * does not depend on the order of the operands. */
static inline double min2(double x, double y)
{
    if (isnan(x) || isnan(y))
        return x + y;
    return x < y ? x : y < x ? y : signbit(x) ? x : y;
}

static inline double max2(double x, double y)
{
    if (isnan(x) || isnan(y))
        return x + y;
    return x > y ? x : y > x ? y : signbit(x) ? y : x;
}

/* X(NAME, value from x) and X(NAME, value from x and y). */
#define UNARY_LIST(X)                                                          \
    X(NEG, -x)                                                                 \
    X(NOT, (double)(x == 0))                                                   \
    X(BOOL, (double)(x != 0))                                                  \
    X(ABS, fabs(x))                                                            \
    X(SQRT, sqrt(x))                                                           \
    X(LOG, log(x))                                                             \
    X(EXP, exp(x))

#define BINARY_LIST(X)                                                         \
    X(ADD, x + y)                                                              \
    X(SUB, x - y)                                                              \
    X(MUL, x * y)                                                              \
    X(DIV, x / y)                                                              \
    X(MOD, fmod(x, y))                                                         \
    X(POW, pow(x, y))                                                          \
    X(MIN, min2(x, y))                                                         \
    X(MAX, max2(x, y))                                                         \
    X(EQ, (double)(x == y))                                                    \
    X(NE, (double)(x != y))                                                    \
    X(LT, (double)(x < y))                                                     \
    X(LE, (double)(x <= y))                                                    \
    X(GT, (double)(x > y))                                                     \
    X(GE, (double)(x >= y))

/* The two lists name exactly the ops without operands in PROG_OP_LIST. */
#define X(name, yaml, operands, pops, pushes) +((operands) == 0)
enum { NPURE = 0 PROG_OP_LIST(X) };
#undef X
#define X(name, expr) +1
enum { NUNARY = 0 UNARY_LIST(X), NBINARY = 0 BINARY_LIST(X) };
#undef X
static_assert(NPURE == NUNARY + NBINARY, "UNARY_LIST and BINARY_LIST cover the pure ops");

/* The value of pure op applied to in[0..pops); false if op is not pure. */
static bool apply(enum prog_op op, const double *in, double *out)
{
    double x = in[0], y;
    switch (op) {
#define X(name, expr)                                                          \
    case PROG_##name:                                                          \
        *out = (expr);                                                         \
        return true;
        UNARY_LIST(X)
#undef X
    default:
        break;
    }
    y = in[1];
    switch (op) {
#define X(name, expr)                                                          \
    case PROG_##name:                                                          \
        *out = (expr);                                                         \
        return true;
        BINARY_LIST(X)
#undef X
    default:
        return false;
    }
}

/* ---- building ----------------------------------------------------------- */

void prog_init(struct prog *p)
{
    memset(p, 0, sizeof(*p));
}

void prog_release(struct prog *p)
{
    ptm_free(p->code);
    ptm_free(p->consts);
    ptm_free(p->text);
    prog_init(p);
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ptm_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int prog_set_text(struct prog *p, const char *text)
{
    char *t = NULL;
    if (text && !(t = dup_text(text)))
        return PTM_ENOMEM;
    ptm_free(p->text);
    p->text = t;
    return 0;
}

int prog_copy(struct prog *dst, const struct prog *src)
{
    PTM_ASSERT(dst != src);
    *dst = *src;
    dst->code = NULL;
    dst->consts = NULL;
    dst->text = NULL;
    dst->capcode = dst->capconsts = 0;
    if (src->ncode) {
        if (!(dst->code = ptm_malloc(src->ncode * sizeof(*src->code))))
            goto out_nomem;
        memcpy(dst->code, src->code, src->ncode * sizeof(*src->code));
        dst->capcode = src->ncode;
    }
    if (src->nconsts) {
        if (!(dst->consts = ptm_malloc(src->nconsts * sizeof(*src->consts))))
            goto out_nomem;
        memcpy(dst->consts, src->consts, src->nconsts * sizeof(*src->consts));
        dst->capconsts = src->nconsts;
    }
    if (src->text && !(dst->text = dup_text(src->text)))
        goto out_nomem;
    return 0;

out_nomem:
    prog_release(dst);
    return PTM_ENOMEM;
}

/* buf with room for need elements of size bytes (capacity in *cap), or
 * NULL with buf untouched. */
static void *reserve(void *buf, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return buf;
    uint32_t n = *cap ? *cap : 8;
    while (n < need) {
        if (n > UINT32_MAX / 2)
            return NULL;
        n *= 2;
    }
    void *q = ptm_realloc(buf, (size_t)n * size);
    if (q)
        *cap = n;
    return q;
}

static int reserve_code(struct prog *p)
{
    if (p->ncode >= INT32_MAX) /* jump targets are int32 */
        return PTM_ENOMEM;
    struct prog_insn *c = reserve(p->code, &p->capcode, p->ncode + 1, sizeof(*c));
    if (!c)
        return PTM_ENOMEM;
    p->code = c;
    return 0;
}

static int reserve_const(struct prog *p)
{
    if (p->nconsts >= INT32_MAX)
        return PTM_ENOMEM;
    double *k = reserve(p->consts, &p->capconsts, p->nconsts + 1, sizeof(*k));
    if (!k)
        return PTM_ENOMEM;
    p->consts = k;
    return 0;
}

/* Index of a constant with v's bits, or -1. Bits, so that -0 and NaN keep
 * their identity. */
static int32_t find_const(const struct prog *p, double v)
{
    for (uint32_t i = 0; i < p->nconsts; i++)
        if (memcmp(&p->consts[i], &v, sizeof(v)) == 0)
            return (int32_t)i;
    return -1;
}

/* Append CONST v, reusing an equal pool entry; room is reserved. */
static void put_const(struct prog *p, double v)
{
    int32_t k = find_const(p, v);
    if (k < 0) {
        PTM_ASSERT(p->nconsts < p->capconsts);
        k = (int32_t)p->nconsts;
        p->consts[p->nconsts++] = v;
    }
    PTM_ASSERT(p->ncode < p->capcode);
    p->code[p->ncode++] = (struct prog_insn){PROG_CONST, k, 0};
}

int prog_emit_const(struct prog *p, double v)
{
    int rc = reserve_code(p);
    if (rc == 0 && find_const(p, v) < 0)
        rc = reserve_const(p);
    if (rc)
        return rc;
    put_const(p, v);
    return 0;
}

static bool const_used(const struct prog *p, int32_t k)
{
    for (uint32_t i = 0; i < p->ncode; i++)
        if (p->code[i].op == PROG_CONST && p->code[i].a == k)
            return true;
    return false;
}

/* Fold op into the CONSTs it would pop, if they are all at or after the
 * barrier; the pool entries only they used are dropped from its end. */
static int fold(struct prog *p, enum prog_op op, bool *folded)
{
    *folded = false;
    if (op_info[op].operands != 0)
        return 0;
    uint32_t n = (uint32_t)op_info[op].pops;
    if (p->ncode < n || p->ncode - n < p->barrier)
        return 0;
    double in[2];
    for (uint32_t i = 0; i < n; i++) {
        const struct prog_insn *c = &p->code[p->ncode - n + i];
        if (c->op != PROG_CONST)
            return 0;
        PTM_ASSERT(c->a >= 0 && (uint32_t)c->a < p->nconsts);
        in[i] = p->consts[c->a];
    }
    double v;
    if (!apply(op, in, &v))
        return 0;
    int rc = reserve_const(p); /* before any change: failure leaves p as it was */
    if (rc)
        return rc;
    p->ncode -= n;
    while (p->nconsts > 0 && !const_used(p, (int32_t)p->nconsts - 1))
        p->nconsts--;
    put_const(p, v);
    *folded = true;
    return 0;
}

int prog_emit(struct prog *p, enum prog_op op, int32_t a, int32_t b)
{
    PTM_ASSERT((unsigned)op < PROG_NOPS);
    PTM_ASSERT(op != PROG_CONST || (a >= 0 && (uint32_t)a < p->nconsts));
    bool folded;
    int rc = fold(p, op, &folded);
    if (rc || folded)
        return rc;
    if ((rc = reserve_code(p)))
        return rc;
    p->code[p->ncode++] = (struct prog_insn){(uint8_t)op, a, b};
    if (op == PROG_VAR && a >= 0 && (uint32_t)a >= p->nvars)
        p->nvars = (uint32_t)a + 1;
    return 0;
}

void prog_patch_jump(struct prog *p, uint32_t at)
{
    PTM_ASSERT(at < p->ncode);
    PTM_ASSERT(p->code[at].op == PROG_JFALSE || p->code[at].op == PROG_JTRUE);
    p->code[at].a = (int32_t)p->ncode;
    p->barrier = p->ncode;
}

bool prog_is_const(const struct prog *p, double *v)
{
    if (p->ncode != 1 || p->code[0].op != PROG_CONST || p->code[0].a < 0 ||
        (uint32_t)p->code[0].a >= p->nconsts)
        return false;
    if (v)
        *v = p->consts[p->code[0].a];
    return true;
}

/* ---- checking ----------------------------------------------------------- */

struct pending {
    uint32_t target, depth, from; /* from: the first jump with this target and depth */
};

struct checker {
    const struct prog *p;
    const struct prog_limits *lim; /* NULL: structure only (prog_finish) */
    char *err;
    size_t errlen;
    uint32_t at; /* instruction being checked */
};

#if defined(__GNUC__)
static int fail(struct checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static int fail(struct checker *c, const char *fmt, ...)
{
    if (!c->err || c->errlen == 0)
        return PTM_EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return PTM_EINVAL;
}

/* A message about instruction c->at, which has a valid opcode. */
#define FAIL_AT(c, fmt, ...)                                                   \
    fail(c, "instruction %u (%s): " fmt, (c)->at,                              \
         op_info[(c)->p->code[(c)->at].op].name, __VA_ARGS__)

static const char *plural(uint32_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Data index d: in range and, when want2, a matrix. */
static int check_data(struct checker *c, int32_t d, bool want2)
{
    const struct prog_limits *lim = c->lim;
    if (d < 0 || (uint32_t)d >= lim->ndata)
        return FAIL_AT(c, "data %d out of range (%u data %s)", d, lim->ndata,
                       plural(lim->ndata, "source", "sources"));
    if (want2 && lim->data_ndims && lim->data_ndims[d] != 2)
        return FAIL_AT(c, "data %d is not a matrix", d);
    return 0;
}

/* The operands of instruction c->at; against c->lim when given. */
static int check_operands(struct checker *c, const struct prog_insn *in)
{
    const struct prog *p = c->p;
    const struct prog_limits *lim = c->lim;
    const struct op_info *oi = &op_info[in->op];
    bool uses_b = oi->operands == 'p' || oi->operands == 'c' || oi->operands == 'm';
    if (oi->operands == 0 && in->a != 0)
        return FAIL_AT(c, "unused operand a is %d, not 0", in->a);
    if (!uses_b && in->b != 0)
        return FAIL_AT(c, "unused operand b is %d, not 0", in->b);
    if (lim && !lim->allow_runtime &&
        (oi->operands == 'p' || oi->operands == 'c' || in->op == PROG_NNZ_COL ||
         in->op == PROG_NNZ_ROW))
        return FAIL_AT(c, "%s", "parameter and data access not allowed here");

    switch (oi->operands) {
    case 'k':
        if (in->a < 0 || (uint32_t)in->a >= p->nconsts)
            return FAIL_AT(c, "constant %d out of range (%u %s)", in->a, p->nconsts,
                           plural(p->nconsts, "constant", "constants"));
        break;
    case 'v':
        if (in->a < 0 || (uint32_t)in->a >= p->nvars)
            return FAIL_AT(c, "variable %d out of range (%u %s)", in->a, p->nvars,
                           plural(p->nvars, "variable", "variables"));
        break;
    case 'g':
        if (in->a < 0 || in->a >= PROG_NGLOBALS)
            return FAIL_AT(c, "global %d out of range (%d globals)", in->a, PROG_NGLOBALS);
        if (lim && !(lim->allowed_globals & (1u << in->a)))
            return FAIL_AT(c, "global '%s' not allowed here", global_names[in->a]);
        break;
    case 'j':
        if (in->a <= 0 || (uint32_t)in->a <= c->at || (uint32_t)in->a > p->ncode)
            return FAIL_AT(c, "jump target %d out of range (%u to %u)", in->a, c->at + 1,
                           p->ncode);
        break;
    case 'p': {
        if (in->b < 1 || in->b > PROG_MAX_INDICES)
            return FAIL_AT(c, "%d indices out of range (1 to %d)", in->b, PROG_MAX_INDICES);
        if (!lim)
            break;
        const uint8_t *ndims;
        if (in->op == PROG_DATA) {
            int rc = check_data(c, in->a, false);
            if (rc)
                return rc;
            ndims = lim->data_ndims;
        } else {
            if (in->a < 0 || (uint32_t)in->a >= lim->nparams)
                return FAIL_AT(c, "parameter %d out of range (%u %s)", in->a, lim->nparams,
                               plural(lim->nparams, "parameter", "parameters"));
            ndims = lim->param_ndims;
        }
        if (ndims && ndims[in->a] != in->b)
            return FAIL_AT(c, "%s %d takes %u %s, not %d",
                           in->op == PROG_DATA ? "data" : "parameter", in->a, ndims[in->a],
                           plural(ndims[in->a], "index", "indices"), in->b);
        break;
    }
    case 'd':
        if (lim)
            return check_data(c, in->a, in->op == PROG_NNZ_COL || in->op == PROG_NNZ_ROW);
        break;
    case 'c': /* a vector is a column of its own */
        if (lim) {
            int rc = check_data(c, in->a, false);
            return rc ? rc : check_data(c, in->b, false);
        }
        break;
    case 'm':
        if (in->b < 0 || in->b >= PROG_METRIC_OF)
            return FAIL_AT(c, "metric operand b is %d, not 0 to %d", in->b, PROG_METRIC_OF - 1);
        if (in->a < 0 || (lim && (uint32_t)in->a >= lim->nmetrics))
            return FAIL_AT(c, "metric %d out of range (%u %s)", in->a, lim ? lim->nmetrics : 0,
                           plural(lim ? lim->nmetrics : 0, "metric", "metrics"));
        break;
    }
    return 0;
}

/* Depth arriving at instruction at (or the end) against the jumps to it. */
static int land(struct checker *c, struct pending *pend, uint32_t *npend, uint32_t depth)
{
    for (uint32_t k = 0; k < *npend;) {
        if (pend[k].target != c->at) {
            k++;
            continue;
        }
        if (pend[k].depth != depth) {
            c->at = pend[k].from;
            return FAIL_AT(c, "stack depth %u at the jump, %u at its target %u", pend[k].depth,
                           depth, pend[k].target);
        }
        pend[k] = pend[--*npend];
    }
    return 0;
}

/* One forward pass over p: operands (against lim when given) and the
 * stack; the most slots the program needs in *max. */
static int check(const struct prog *p, const struct prog_limits *lim, uint32_t *max, char *err,
                 size_t errlen)
{
    struct checker c = {p, lim, err, errlen, 0};
    struct pending pend[PROG_MAX_PENDING];
    uint32_t npend = 0, depth = 0, most = 0;
    int rc;

    if (p->ncode == 0)
        return fail(&c, "empty program");
    if (p->nvars > PROG_MAX_VARS)
        return fail(&c, "program reads %u variables (at most %d)", p->nvars, PROG_MAX_VARS);
    if (lim && p->nvars > lim->nvars)
        return fail(&c, "program reads %u %s, %u allowed here", p->nvars,
                    plural(p->nvars, "variable", "variables"), lim->nvars);

    for (c.at = 0; c.at < p->ncode; c.at++) {
        const struct prog_insn *in = &p->code[c.at];
        if (npend && (rc = land(&c, pend, &npend, depth)))
            return rc;
        if (in->op >= PROG_NOPS)
            return fail(&c, "instruction %u: unknown opcode %u", c.at, in->op);
        if ((rc = check_operands(&c, in)))
            return rc;

        const struct op_info *oi = &op_info[in->op];
        uint32_t pops = oi->pops < 0 ? (uint32_t)in->b : (uint32_t)oi->pops;
        if (depth < pops)
            return FAIL_AT(&c, "stack underflow (needs %u %s, has %u)", pops,
                           plural(pops, "value", "values"), depth);
        if (oi->operands == 'j') {
            uint32_t k = 0, target = (uint32_t)in->a;
            while (k < npend && !(pend[k].target == target && pend[k].depth == depth))
                k++;
            if (k == npend) {
                if (npend == PROG_MAX_PENDING)
                    return FAIL_AT(&c, "more than %d jumps pending", PROG_MAX_PENDING);
                pend[npend++] = (struct pending){target, depth, c.at};
            }
            depth--; /* falling through pops the tested value */
            continue;
        }
        depth = depth - pops + (uint32_t)oi->pushes;
        if (depth > PROG_MAX_STACK)
            return FAIL_AT(&c, "stack deeper than %d", PROG_MAX_STACK);
        if (depth > most)
            most = depth;
    }
    if (npend && (rc = land(&c, pend, &npend, depth)))
        return rc;
    if (depth != 1)
        return fail(&c, "program leaves %u %s on the stack, not 1", depth,
                    plural(depth, "value", "values"));
    *max = most;
    return 0;
}

int prog_finish(struct prog *p)
{
    uint32_t max;
    int rc = check(p, NULL, &max, NULL, 0);
    if (rc == 0)
        p->max_stack = max;
    return rc;
}

int prog_validate(const struct prog *p, const struct prog_limits *lim, char *err, size_t errlen)
{
    uint32_t max;
    int rc = check(p, lim, &max, err, errlen);
    if (rc)
        return rc;
    if (p->max_stack < max) {
        if (err && errlen)
            snprintf(err, errlen, "max_stack %u is smaller than the %u the program needs",
                     p->max_stack, max);
        return PTM_EINVAL;
    }
    return 0;
}

/* ---- evaluation --------------------------------------------------------- */

/* An index as the callbacks see it: truncated toward zero; NaN, infinities
 * and values beyond int64 become -1. */
static inline int64_t to_index(double x)
{
    if (x >= -0x1p63 && x < 0x1p63)
        return (int64_t)x;
    return -1;
}

#if defined(__GNUC__) && !defined(PROG_SWITCH)
#define PROG_GOTO 1
#endif

/* The program's instructions begin..stop-1, which jump nowhere outside
 * begin..stop (stop: the end). */
static inline double eval(const struct prog *p, uint32_t begin, uint32_t stop,
                          const struct prog_env *env)
{
    if (begin >= stop)
        return NAN;

    double stack[PROG_MAX_STACK];
    double *sp = stack; /* next free slot */
    const struct prog_insn *const code = p->code, *const end = code + stop;
    const struct prog_insn *ip = code + begin;
    const double *const k = p->consts;
    int64_t idx[PROG_MAX_INDICES];

#ifdef PROG_GOTO
    static const void *const labels[PROG_NOPS] = {
#define X(name, yaml, operands, pops, pushes) [PROG_##name] = &&op_##name,
        PROG_OP_LIST(X)
#undef X
    };
#define DISPATCH() goto *labels[ip->op];
#define CASE(name) op_##name:
#define NEXT()                                                                 \
    do {                                                                       \
        if (++ip == end)                                                       \
            goto done;                                                         \
        goto *labels[ip->op];                                                  \
    } while (0)
#else
#define DISPATCH() switch (ip->op)
#define CASE(name) case PROG_##name:
#define NEXT() goto next
#endif
/* A taken jump: continue at code[a], which may be the end. */
#define JUMP()                                                                 \
    do {                                                                       \
        ip = code + ip->a - 1;                                                 \
        NEXT();                                                                \
    } while (0)

    for (;;) {
        DISPATCH()
        {
            CASE(CONST)
            {
                *sp++ = k[ip->a];
                NEXT();
            }
            CASE(VAR)
            {
                *sp++ = env->vars[ip->a];
                NEXT();
            }
            CASE(GLOBAL)
            {
                *sp++ = env->globals[ip->a];
                NEXT();
            }
#define X(name, expr)                                                          \
    CASE(name)                                                                 \
    {                                                                          \
        double x = sp[-1];                                                     \
        sp[-1] = (expr);                                                       \
        NEXT();                                                                \
    }
            UNARY_LIST(X)
#undef X
#define X(name, expr)                                                          \
    CASE(name)                                                                 \
    {                                                                          \
        double x = sp[-2], y = sp[-1];                                         \
        sp--;                                                                  \
        sp[-1] = (expr);                                                       \
        NEXT();                                                                \
    }
            BINARY_LIST(X)
#undef X
            CASE(JFALSE)
            {
                if (sp[-1] == 0)
                    JUMP();
                sp--;
                NEXT();
            }
            CASE(JTRUE)
            {
                if (sp[-1] != 0)
                    JUMP();
                sp--;
                NEXT();
            }
            CASE(PARAM)
            {
                int n = ip->b;
                sp -= n;
                for (int i = 0; i < n; i++)
                    idx[i] = to_index(sp[i]);
                *sp++ = env->param(env->ud, ip->a, idx, n);
                NEXT();
            }
            CASE(DELTA)
            {
                int n = ip->b;
                sp -= n;
                for (int i = 0; i < n; i++)
                    idx[i] = to_index(sp[i]);
                *sp++ = env->delta(env->ud, ip->a, idx, n);
                NEXT();
            }
            CASE(DATA)
            {
                int n = ip->b;
                sp -= n;
                for (int i = 0; i < n; i++)
                    idx[i] = to_index(sp[i]);
                *sp++ = env->data(env->ud, ip->a, idx, n);
                NEXT();
            }
            CASE(NNZ_COL)
            {
                sp[-1] = env->nnz(env->ud, ip->a, 1, to_index(sp[-1]));
                NEXT();
            }
            CASE(NNZ_ROW)
            {
                sp[-1] = env->nnz(env->ud, ip->a, 0, to_index(sp[-1]));
                NEXT();
            }
            CASE(ROWS)
            {
                *sp++ = env->dim(env->ud, ip->a, 0);
                NEXT();
            }
            CASE(COLS)
            {
                *sp++ = env->dim(env->ud, ip->a, 1);
                NEXT();
            }
            CASE(CORR)
            {
                int64_t i = to_index(sp[-2]), j = to_index(sp[-1]);
                sp--;
                sp[-1] = env->corr(env->ud, ip->a, i, ip->b, j);
                NEXT();
            }
            CASE(METRIC)
            {
                *sp++ = env->metrics ? env->metrics[PROG_METRIC_OF * ip->a + ip->b] : NAN;
                NEXT();
            }
            CASE(COS)
            {
                int64_t i = to_index(sp[-2]), j = to_index(sp[-1]);
                sp--;
                sp[-1] = env->cos(env->ud, ip->a, i, ip->b, j);
                NEXT();
            }
#ifndef PROG_GOTO
        default:
            PTM_ASSERT(!"prog_eval: unvalidated program");
#endif
        }
#ifndef PROG_GOTO
    next:
        if (++ip == end)
            goto done;
#endif
    }
done:
    return sp[-1];
#undef DISPATCH
#undef CASE
#undef NEXT
#undef JUMP
}

double prog_eval(const struct prog *p, const struct prog_env *env)
{
    return eval(p, 0, p->ncode, env);
}

/* Do the jumps of instructions begin..stop-1 land in begin..stop? */
static bool closed(const struct prog *p, uint32_t begin, uint32_t stop)
{
    for (uint32_t i = begin; i < stop; i++)
        if ((p->code[i].op == PROG_JFALSE || p->code[i].op == PROG_JTRUE) &&
            ((uint32_t)p->code[i].a < begin || (uint32_t)p->code[i].a > stop))
            return false;
    return true;
}

/* `a or b or c` is (a or b) or c: a, JTRUE to the second JTRUE, b, JTRUE
 * to the end, c. Walked back from the end, each link is the first JTRUE
 * that jumps to the next; every part must be closed. */
uint32_t prog_or_parts(const struct prog *p, uint32_t *begin, uint32_t *stop, uint32_t max)
{
    if (p->ncode == 0 || max == 0)
        return 0;
    uint32_t link[PROG_MAX_OR_PARTS], n = 0, pos = p->ncode;
    for (;;) {
        uint32_t j = pos;
        for (uint32_t i = 0; i < pos && j == pos; i++)
            if (p->code[i].op == PROG_JTRUE && (uint32_t)p->code[i].a == pos)
                j = i;
        if (j == pos || n + 1 >= max || n + 1 >= PROG_MAX_OR_PARTS)
            break;
        link[n++] = pos = j;
    }
    /* link[] runs from the last JTRUE back to the first */
    for (uint32_t k = 0; k <= n; k++) {
        begin[k] = k == 0 ? 0 : link[n - k] + 1;
        stop[k] = k == n ? p->ncode : link[n - 1 - k];
        if (!closed(p, begin[k], stop[k]) || begin[k] >= stop[k]) {
            begin[0] = 0, stop[0] = p->ncode;
            return 1;
        }
    }
    return n + 1;
}

double prog_eval_part(const struct prog *p, uint32_t begin, uint32_t stop,
                      const struct prog_env *env)
{
    PTM_ASSERT(begin <= stop && stop <= p->ncode);
    return eval(p, begin, stop, env);
}

/* ---- listing ------------------------------------------------------------ */

/* v in the fewest digits that read back as v. */
static void put_num(FILE *out, double v)
{
    char buf[32];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v || isnan(v))
            break;
    }
    fputs(buf, out);
}

void prog_dump(FILE *out, const struct prog *p)
{
    fprintf(out, "; %u %s, %u %s, %u %s, max_stack %u", p->ncode,
            p->ncode == 1 ? "instruction" : "instructions", p->nconsts,
            p->nconsts == 1 ? "constant" : "constants", p->nvars,
            p->nvars == 1 ? "variable" : "variables", p->max_stack);
    if (p->text)
        fprintf(out, ": %s", p->text);
    fputc('\n', out);
    for (uint32_t i = 0; i < p->ncode; i++) {
        const struct prog_insn *in = &p->code[i];
        if (in->op >= PROG_NOPS) {
            fprintf(out, "%4u  ?%u %d %d\n", i, in->op, in->a, in->b);
            continue;
        }
        const struct op_info *oi = &op_info[in->op];
        if (oi->operands == 0) {
            fprintf(out, "%4u  %s\n", i, oi->name);
            continue;
        }
        fprintf(out, "%4u  %-8s ", i, oi->name);
        switch (oi->operands) {
        case 'k':
            fprintf(out, "%d", in->a);
            if (in->a >= 0 && (uint32_t)in->a < p->nconsts) {
                fputs("  ; ", out);
                put_num(out, p->consts[in->a]);
            }
            break;
        case 'g':
            fprintf(out, "%d", in->a);
            if (in->a >= 0 && in->a < PROG_NGLOBALS)
                fprintf(out, "  ; %s", global_names[in->a]);
            break;
        case 'j':
            fprintf(out, "-> %d", in->a);
            break;
        case 'p':
        case 'c':
        case 'm':
            fprintf(out, "%d %d", in->a, in->b);
            break;
        default: /* 'v', 'd' */
            fprintf(out, "%d", in->a);
            break;
        }
        fputc('\n', out);
    }
}
