/*
 * ast.c - building the syntax tree (for the grammar actions) and dumping it.
 *
 * Builders allocate from the parse arena and never report syntax; the one
 * check they make is structural: an expression deeper than AST_MAX_DEPTH is
 * refused here, once, so that every later walker may recurse safely.
 */
#include "ast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lang_impl.h"
#include "ptm.h"

const char *ast_op_text(enum ast_op op)
{
    static const char *const text[] = {
#define X(name, t, kind) t,
        AST_OP_LIST(X)
#undef X
    };
    return text[op];
}

const char *ast_stmt_keyword(enum ast_stmt_kind k)
{
    static const char *const kw[] = {
#define X(name, w) w,
        AST_STMT_LIST(X)
#undef X
    };
    return kw[k];
}

static void *alloc(struct lang_ctx *c, size_t size)
{
    void *p = arena_alloc(c->arena, size);
    if (!p)
        c->oom = true;
    return p;
}

/* ---- expressions -------------------------------------------------------- */

static struct ast_expr *expr(struct lang_ctx *c, enum ast_expr_kind kind, struct ptm_loc loc,
                             unsigned depth)
{
    if (depth > AST_MAX_DEPTH) {
        lang_error(c, loc, "expression nested too deeply (more than %d levels)", AST_MAX_DEPTH);
        c->fatal = true;
        return NULL;
    }
    struct ast_expr *e = alloc(c, sizeof(*e));
    if (e) {
        e->kind = kind;
        e->loc = loc;
        e->depth = depth;
    }
    return e;
}

struct ast_expr *ast_num(struct lang_ctx *c, enum ast_expr_kind kind, double v, struct ptm_loc loc)
{
    struct ast_expr *e = expr(c, kind, loc, 1);
    if (e)
        e->u.num = v;
    return e;
}

struct ast_expr *ast_strlit(struct lang_ctx *c, struct ast_str s, struct ptm_loc loc)
{
    struct ast_expr *e = expr(c, AST_STR, loc, 1);
    if (e)
        e->u.str = s;
    return e;
}

struct ast_expr *ast_boollit(struct lang_ctx *c, bool v, struct ptm_loc loc)
{
    struct ast_expr *e = expr(c, AST_BOOL, loc, 1);
    if (e)
        e->u.boolean = v;
    return e;
}

struct ast_expr *ast_name(struct lang_ctx *c, struct ast_ident id)
{
    struct ast_expr *e = expr(c, AST_NAME, id.loc, 1);
    if (e)
        e->u.name = id.name;
    return e;
}

struct ast_expr *ast_unary(struct lang_ctx *c, enum ast_op op, struct ast_expr *a,
                           struct ptm_loc loc)
{
    struct ast_expr *e = expr(c, AST_UNARY, loc, a->depth + 1);
    if (e) {
        e->u.op.op = op;
        e->u.op.a = a;
    }
    return e;
}

struct ast_expr *ast_binary(struct lang_ctx *c, enum ast_op op, struct ast_expr *a,
                            struct ast_expr *b, struct ptm_loc loc)
{
    unsigned d = a->depth > b->depth ? a->depth : b->depth;
    struct ast_expr *e = expr(c, AST_BINARY, loc, d + 1);
    if (e) {
        e->u.op.op = op;
        e->u.op.a = a;
        e->u.op.b = b;
    }
    return e;
}

static unsigned args_depth(struct ast_exprs args)
{
    unsigned d = 0;
    for (struct ast_expr *a = args.head; a; a = a->next)
        if (a->depth > d)
            d = a->depth;
    return d;
}

struct ast_expr *ast_call(struct lang_ctx *c, struct ast_ident fn, struct ast_exprs args,
                          struct ptm_loc loc)
{
    struct ast_expr *e = expr(c, AST_CALL, loc, args_depth(args) + 1);
    if (e) {
        e->u.call.fn = fn;
        e->u.call.args = args;
    }
    return e;
}

struct ast_expr *ast_index(struct lang_ctx *c, struct ast_expr *base, struct ast_exprs args,
                           struct ptm_loc loc)
{
    unsigned d = args_depth(args);
    if (base->depth > d)
        d = base->depth;
    struct ast_expr *e = expr(c, AST_INDEX, loc, d + 1);
    if (e) {
        e->u.index.base = base;
        e->u.index.args = args;
    }
    return e;
}

struct ast_ident ast_word(struct lang_ctx *c, struct ptm_loc loc)
{
    struct ast_ident id = {NULL, loc};
    id.name = arena_strndup(c->arena, c->src->text + loc.begin, loc.end - loc.begin);
    if (!id.name)
        c->oom = true;
    return id;
}

struct ast_exprs ast_exprs_add(struct ast_exprs l, struct ast_expr *e)
{
    if (l.tail)
        l.tail->next = e;
    else
        l.head = e;
    l.tail = e;
    l.n++;
    return l;
}

struct ast_exprs ast_exprs_prepend(struct ast_exprs l, struct ast_expr *e)
{
    e->next = l.head;
    l.head = e;
    if (!l.tail)
        l.tail = e;
    l.n++;
    return l;
}

/* ---- types, attributes, options ----------------------------------------- */

struct ast_type *ast_type(struct lang_ctx *c, enum ast_storage storage, enum ast_elem elem,
                          enum ast_shape shape, const struct ast_exprs *dims, struct ptm_loc loc)
{
    struct ast_type *t = alloc(c, sizeof(*t));
    if (t) {
        t->loc = loc;
        t->storage = storage;
        t->elem = elem;
        t->shape = shape;
        t->has_dims = dims != NULL;
        if (dims)
            t->dims = *dims;
    }
    return t;
}

static struct ast_attr *attr(struct lang_ctx *c, enum ast_attr_kind kind, struct ptm_loc loc)
{
    struct ast_attr *a = alloc(c, sizeof(*a));
    if (a) {
        a->kind = kind;
        a->loc = loc;
    }
    return a;
}

struct ast_attr *ast_attr_word(struct lang_ctx *c, enum ast_attr_kind kind, struct ast_ident word,
                               struct ptm_loc loc)
{
    struct ast_attr *a = attr(c, kind, loc);
    if (a)
        a->word = word;
    return a;
}

struct ast_attr *ast_attr_vocab(struct lang_ctx *c, struct ast_str file, struct ptm_loc loc)
{
    struct ast_attr *a = attr(c, AST_ATTR_VOCAB, loc);
    if (a)
        a->str = file;
    return a;
}

struct ast_attr *ast_attr_cons(struct lang_ctx *c, struct ast_cons cons, struct ptm_loc loc)
{
    struct ast_attr *a = attr(c, AST_ATTR_CONSISTENCY, loc);
    if (a)
        a->cons = cons;
    return a;
}

struct ast_attrs ast_attrs_add(struct ast_attrs l, struct ast_attr *a)
{
    if (l.tail)
        l.tail->next = a;
    else
        l.head = a;
    l.tail = a;
    return l;
}

struct ast_option *ast_option(struct lang_ctx *c, struct ast_ident key, struct ast_exprs values,
                              struct ptm_loc loc)
{
    struct ast_option *o = alloc(c, sizeof(*o));
    if (o) {
        o->key = key;
        o->values = values;
        o->loc = loc;
    }
    return o;
}

struct ast_options ast_options_add(struct ast_options l, struct ast_option *o)
{
    if (!o) /* an option lost to a syntax error */
        return l;
    if (l.tail)
        l.tail->next = o;
    else
        l.head = o;
    l.tail = o;
    l.n++;
    return l;
}

struct ast_options ast_options_close(struct ast_options l, struct ptm_loc loc)
{
    l.present = true;
    l.loc = loc;
    return l;
}

/* ---- statements --------------------------------------------------------- */

static struct ast_stmt *stmt(struct lang_ctx *c, enum ast_stmt_kind kind, struct ptm_loc loc)
{
    struct ast_stmt *s = alloc(c, sizeof(*s));
    if (s) {
        s->kind = kind;
        s->loc = loc;
    }
    return s;
}

struct ast_stmt *ast_const(struct lang_ctx *c, struct ast_ident name, struct ast_expr *value,
                           struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_CONST, loc);
    if (s) {
        s->u.konst.name = name;
        s->u.konst.value = value;
    }
    return s;
}

struct ast_stmt *ast_data(struct lang_ctx *c, struct ast_ident name, struct ast_type *type,
                          struct ast_expr *source, struct ast_attrs attrs, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_DATA, loc);
    if (s) {
        s->u.data.name = name;
        s->u.data.type = type;
        s->u.data.source = source;
        s->u.data.attrs = attrs;
    }
    return s;
}

struct ast_stmt *ast_param(struct lang_ctx *c, struct ast_ident name, struct ast_type *type,
                           struct ast_expr *init, struct ast_attrs attrs, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_PARAM, loc);
    if (s) {
        s->u.param.name = name;
        s->u.param.type = type;
        s->u.param.init = init;
        s->u.param.attrs = attrs;
    }
    return s;
}

struct ast_stmt *ast_param_file(struct lang_ctx *c, struct ast_ident name, struct ast_type *type,
                                struct ast_str file, struct ptm_loc file_loc,
                                struct ast_attrs attrs, struct ptm_loc loc)
{
    struct ast_stmt *s = ast_param(c, name, type, NULL, attrs, loc);
    if (s) {
        s->u.param.file = file;
        s->u.param.file_loc = file_loc;
    }
    return s;
}

struct ast_stmt *ast_blocks(struct lang_ctx *c, struct ast_ident name, struct ast_ident param,
                            struct ast_ident axis, enum ast_split split, struct ast_expr *count,
                            struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_BLOCKS, loc);
    if (s) {
        s->u.blocks.name = name;
        s->u.blocks.param = param;
        s->u.blocks.axis = axis;
        s->u.blocks.split = split;
        s->u.blocks.count = count;
    }
    return s;
}

struct ast_stmt *ast_depend_when(struct lang_ctx *c, struct ast_ident set1, struct ast_ident var1,
                                 struct ast_ident set2, struct ast_ident var2,
                                 struct ast_expr *when, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_DEPEND, loc);
    if (s) {
        s->u.depend.set1 = set1;
        s->u.depend.var1 = var1;
        s->u.depend.set2 = set2;
        s->u.depend.var2 = var2;
        s->u.depend.when = when;
    }
    return s;
}

struct ast_stmt *ast_depend_file(struct lang_ctx *c, struct ast_ident set, struct ast_str file,
                                 struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_DEPEND, loc);
    if (s) {
        s->u.depend.set1 = set;
        s->u.depend.file = file;
    }
    return s;
}

struct ast_stmt *ast_blockfn(struct lang_ctx *c, enum ast_stmt_kind kind, struct ast_ident set,
                             struct ast_ident var, struct ast_expr *value, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, kind, loc);
    if (s) {
        s->u.blockfn.set = set;
        s->u.blockfn.var = var;
        s->u.blockfn.value = value;
    }
    return s;
}

struct ast_stmt *ast_schedule(struct lang_ctx *c, struct ast_ident policy, struct ast_ident over,
                              struct ast_options options, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_SCHEDULE, loc);
    if (s) {
        s->u.schedule.policy = policy;
        s->u.schedule.over = over;
        s->u.schedule.options = options;
    }
    return s;
}

struct ast_stmt *ast_consistency(struct lang_ctx *c, struct ast_cons cons, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_CONSISTENCY, loc);
    if (s)
        s->u.consistency = cons;
    return s;
}

struct ast_stmt *ast_hook_stmt(struct lang_ctx *c, enum ast_stmt_kind kind,
                               const struct ast_hook *hook, struct ast_options options,
                               struct ast_expr *every, struct ast_ident unit, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, kind, loc);
    if (s) {
        s->u.hook.kind = hook->kind;
        s->u.hook.kind_loc = hook->kind_loc;
        s->u.hook.file = hook->file;
        s->u.hook.file_loc = hook->file_loc;
        s->u.hook.fn = hook->fn;
        s->u.hook.fn_loc = hook->fn_loc;
        s->u.hook.builtin = hook->builtin;
        s->u.hook.options = options;
        s->u.hook.every = every;
        s->u.hook.every_unit = unit;
    }
    return s;
}

struct ast_stmt *ast_metric(struct lang_ctx *c, struct ast_ident name, struct ast_expr *value,
                            struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_METRIC, loc);
    if (s) {
        s->u.metric.name = name;
        s->u.metric.value = value;
    }
    return s;
}

struct ast_stmt *ast_stop(struct lang_ctx *c, struct ast_expr *when, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_STOP, loc);
    if (s)
        s->u.stop.when = when;
    return s;
}

struct ast_stmt *ast_output(struct lang_ctx *c, struct ast_ident name, struct ast_str file,
                            struct ptm_loc file_loc, struct ast_attrs attrs, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_OUTPUT, loc);
    if (s) {
        s->u.output.name = name;
        s->u.output.file = file;
        s->u.output.file_loc = file_loc;
        s->u.output.attrs = attrs;
    }
    return s;
}

struct ast_stmt *ast_seed(struct lang_ctx *c, struct ast_expr *value, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_SEED, loc);
    if (s)
        s->u.seed.value = value;
    return s;
}

struct ast_stmt *ast_checkpoint(struct lang_ctx *c, struct ast_expr *every, struct ast_ident unit,
                                struct ast_str dir, struct ptm_loc dir_loc, struct ptm_loc loc)
{
    struct ast_stmt *s = stmt(c, AST_STMT_CHECKPOINT, loc);
    if (s) {
        s->u.checkpoint.every = every;
        s->u.checkpoint.unit = unit;
        s->u.checkpoint.dir = dir;
        s->u.checkpoint.dir_loc = dir_loc;
    }
    return s;
}

void ast_job_add(struct lang_ctx *c, struct ast_stmt *s)
{
    struct ast_job *j = c->job;
    if (j->tail)
        j->tail->next = s;
    else
        j->head = s;
    j->tail = s;
    j->nstmts++;
}

/* ---- dump --------------------------------------------------------------- */

/* Shortest %g form that reads back to the same double. */
static void put_num(FILE *out, double v)
{
    char buf[32];
    if (v == floor(v) && fabs(v) < 1e15) {
        fprintf(out, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}

static void put_str(FILE *out, struct ast_str s)
{
    fputc('"', out);
    for (size_t i = 0; i < s.len; i++) {
        unsigned char ch = (unsigned char)s.s[i];
        switch (ch) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (ch < 0x20 || ch == 0x7f)
                fprintf(out, "\\x%02x", ch);
            else
                fputc(ch, out);
        }
    }
    fputc('"', out);
}

static void put_args(FILE *out, struct ast_exprs args)
{
    for (struct ast_expr *a = args.head; a; a = a->next) {
        ast_dump_expr(out, a);
        if (a->next)
            fputs(", ", out);
    }
}

void ast_dump_expr(FILE *out, const struct ast_expr *e)
{
    switch (e->kind) {
    case AST_NUM: put_num(out, e->u.num); break;
    case AST_DURATION:
        put_num(out, e->u.num);
        fputc('s', out);
        break;
    case AST_STR: put_str(out, e->u.str); break;
    case AST_BOOL: fputs(e->u.boolean ? "true" : "false", out); break;
    case AST_NAME: fputs(e->u.name, out); break;
    case AST_UNARY:
        fprintf(out, "(%s ", ast_op_text(e->u.op.op));
        ast_dump_expr(out, e->u.op.a);
        fputc(')', out);
        break;
    case AST_BINARY:
        fprintf(out, "(%s ", ast_op_text(e->u.op.op));
        ast_dump_expr(out, e->u.op.a);
        fputc(' ', out);
        ast_dump_expr(out, e->u.op.b);
        fputc(')', out);
        break;
    case AST_CALL:
        fprintf(out, "%s(", e->u.call.fn.name);
        put_args(out, e->u.call.args);
        fputc(')', out);
        break;
    case AST_INDEX:
        ast_dump_expr(out, e->u.index.base);
        fputc('[', out);
        put_args(out, e->u.index.args);
        fputc(']', out);
        break;
    }
}

static void dump_type(FILE *out, const struct ast_type *t)
{
    static const char *const storage[] = {"", "dense ", "sparse "};
    static const char *const elem[] = {"", "real ", "int "};
    fprintf(out, " (%s%s%s", storage[t->storage], elem[t->elem],
            t->shape == AST_SHAPE_MATRIX ? "matrix" : "vector");
    if (t->has_dims) {
        fputs(" [", out);
        put_args(out, t->dims);
        fputc(']', out);
    }
    fputc(')', out);
}

static void dump_cons(FILE *out, const struct ast_cons *k)
{
    static const char *const model[] = {"ssp", "bsp", "async"};
    fprintf(out, "(consistency %s", model[k->model]);
    if (k->staleness) {
        fputc(' ', out);
        ast_dump_expr(out, k->staleness);
    }
    fputc(')', out);
}

static void dump_attrs(FILE *out, struct ast_attrs attrs)
{
    for (const struct ast_attr *a = attrs.head; a; a = a->next) {
        fputc(' ', out);
        switch (a->kind) {
        case AST_ATTR_FORMAT: fprintf(out, "(format %s)", a->word.name); break;
        case AST_ATTR_SHARD: fprintf(out, "(shard %s)", a->word.name); break;
        case AST_ATTR_SHARD_LIKE: fprintf(out, "(shard like %s)", a->word.name); break;
        case AST_ATTR_VOCAB:
            fputs("(vocab ", out);
            put_str(out, a->str);
            fputc(')', out);
            break;
        case AST_ATTR_CONSISTENCY: dump_cons(out, &a->cons); break;
        }
    }
}

static void dump_options(FILE *out, const struct ast_options *o)
{
    if (!o->present)
        return;
    fputs(" {", out);
    for (const struct ast_option *p = o->head; p; p = p->next) {
        fprintf(out, "(%s", p->key.name);
        for (const struct ast_expr *v = p->values.head; v; v = v->next) {
            fputc(' ', out);
            ast_dump_expr(out, v);
        }
        fputc(')', out);
        if (p->next)
            fputc(' ', out);
    }
    fputc('}', out);
}

static void dump_stmt(FILE *out, const struct ast_stmt *s)
{
    fprintf(out, "(%s", ast_stmt_keyword(s->kind));
    switch (s->kind) {
    case AST_STMT_CONST:
        fprintf(out, " %s ", s->u.konst.name.name);
        ast_dump_expr(out, s->u.konst.value);
        break;
    case AST_STMT_DATA:
        fprintf(out, " %s", s->u.data.name.name);
        dump_type(out, s->u.data.type);
        fputs(" (from ", out);
        ast_dump_expr(out, s->u.data.source);
        fputc(')', out);
        dump_attrs(out, s->u.data.attrs);
        break;
    case AST_STMT_PARAM:
        fprintf(out, " %s", s->u.param.name.name);
        dump_type(out, s->u.param.type);
        if (s->u.param.init) {
            fputs(" (= ", out);
            ast_dump_expr(out, s->u.param.init);
            fputc(')', out);
        } else if (s->u.param.file.s) {
            fputs(" (from ", out);
            put_str(out, s->u.param.file);
            fputc(')', out);
        }
        dump_attrs(out, s->u.param.attrs);
        break;
    case AST_STMT_BLOCKS:
        fprintf(out, " %s %s", s->u.blocks.name.name, s->u.blocks.param.name);
        if (s->u.blocks.axis.name)
            fprintf(out, " %s", s->u.blocks.axis.name);
        if (s->u.blocks.split != AST_SPLIT_DEFAULT) {
            fputs(s->u.blocks.split == AST_SPLIT_EACH ? " each " : " into ", out);
            ast_dump_expr(out, s->u.blocks.count);
        }
        break;
    case AST_STMT_DEPEND:
        if (s->u.depend.when) {
            fprintf(out, " %s(%s) %s(%s) ", s->u.depend.set1.name, s->u.depend.var1.name,
                    s->u.depend.set2.name, s->u.depend.var2.name);
            ast_dump_expr(out, s->u.depend.when);
        } else {
            fprintf(out, " %s (from ", s->u.depend.set1.name);
            put_str(out, s->u.depend.file);
            fputc(')', out);
        }
        break;
    case AST_STMT_PRIORITY:
    case AST_STMT_COST:
    case AST_STMT_ORDER:
        fprintf(out, " %s(%s) ", s->u.blockfn.set.name, s->u.blockfn.var.name);
        ast_dump_expr(out, s->u.blockfn.value);
        break;
    case AST_STMT_SCHEDULE:
        fprintf(out, " %s", s->u.schedule.policy.name);
        if (s->u.schedule.over.name)
            fprintf(out, " (over %s)", s->u.schedule.over.name);
        dump_options(out, &s->u.schedule.options);
        break;
    case AST_STMT_CONSISTENCY:
        fputc(' ', out);
        dump_cons(out, &s->u.consistency);
        break;
    case AST_STMT_UPDATE:
    case AST_STMT_OBJECTIVE:
        if (s->u.hook.kind == AST_HOOK_LUA) {
            fputs(" lua ", out);
            put_str(out, s->u.hook.file);
            if (s->u.hook.fn.s) {
                fputc(' ', out);
                put_str(out, s->u.hook.fn);
            }
        } else {
            fprintf(out, " builtin %s", s->u.hook.builtin.name);
        }
        dump_options(out, &s->u.hook.options);
        if (s->u.hook.every) {
            fputs(" (every ", out);
            ast_dump_expr(out, s->u.hook.every);
            if (s->u.hook.every_unit.name)
                fprintf(out, " %s", s->u.hook.every_unit.name);
            fputc(')', out);
        }
        break;
    case AST_STMT_METRIC:
        fprintf(out, " %s ", s->u.metric.name.name);
        ast_dump_expr(out, s->u.metric.value);
        break;
    case AST_STMT_STOP:
        fputc(' ', out);
        ast_dump_expr(out, s->u.stop.when);
        break;
    case AST_STMT_OUTPUT:
        fprintf(out, " %s ", s->u.output.name.name);
        put_str(out, s->u.output.file);
        dump_attrs(out, s->u.output.attrs);
        break;
    case AST_STMT_SEED:
        fputc(' ', out);
        ast_dump_expr(out, s->u.seed.value);
        break;
    case AST_STMT_CHECKPOINT:
        fputs(" (every ", out);
        ast_dump_expr(out, s->u.checkpoint.every);
        if (s->u.checkpoint.unit.name)
            fprintf(out, " %s", s->u.checkpoint.unit.name);
        fputs(") ", out);
        put_str(out, s->u.checkpoint.dir);
        break;
    }
    fputs(")\n", out);
}

void ast_dump(FILE *out, const struct ast_job *job)
{
    fprintf(out, "(job %s)\n", job->name.name);
    for (const struct ast_stmt *s = job->head; s; s = s->next)
        dump_stmt(out, s);
}
