/*
 * ast.h - the syntax tree of a job spec.
 *
 * Every node, name and string of a parse lives in the arena passed to
 * ptm_parse(); the tree is freed with that arena. Nodes keep byte-offset
 * locations into the source for diagnostics. Expressions are shallow by
 * construction: the parser refuses one nested deeper than AST_MAX_DEPTH,
 * so walkers may recurse.
 */
#ifndef PTM_AST_H
#define PTM_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"

#define AST_MAX_DEPTH 1000

/* X(name, text, kind): kind is 'p' prefix, 'b' binary. */
#define AST_OP_LIST(X)                                                         \
    X(NEG, "-", 'p')                                                           \
    X(NOT, "not", 'p')                                                         \
    X(ADD, "+", 'b')                                                           \
    X(SUB, "-", 'b')                                                           \
    X(MUL, "*", 'b')                                                           \
    X(DIV, "/", 'b')                                                           \
    X(MOD, "%", 'b')                                                           \
    X(POW, "^", 'b')                                                           \
    X(EQ, "==", 'b')                                                           \
    X(NE, "!=", 'b')                                                           \
    X(LT, "<", 'b')                                                            \
    X(LE, "<=", 'b')                                                           \
    X(GT, ">", 'b')                                                            \
    X(GE, ">=", 'b')                                                           \
    X(AND, "and", 'b')                                                         \
    X(OR, "or", 'b')

enum ast_op {
#define X(name, text, kind) AST_OP_##name,
    AST_OP_LIST(X)
#undef X
};
const char *ast_op_text(enum ast_op op);

enum ast_expr_kind {
    AST_NUM,      /* num */
    AST_DURATION, /* num, in seconds */
    AST_STR,      /* str */
    AST_BOOL,     /* boolean */
    AST_NAME,     /* name */
    AST_UNARY,    /* op, a */
    AST_BINARY,   /* op, a, b */
    AST_CALL,     /* call */
    AST_INDEX,    /* index */
};

struct ast_str {
    const char *s; /* NUL-terminated; may hold NULs only if escaped, which is refused */
    size_t len;
};

struct ast_ident {
    const char *name; /* NULL when absent */
    struct ptm_loc loc;
};

struct ast_expr;
struct ast_exprs {
    struct ast_expr *head, *tail;
    unsigned n;
};

struct ast_expr {
    enum ast_expr_kind kind;
    struct ptm_loc loc;
    unsigned depth; /* 1 for a leaf */
    struct ast_expr *next; /* in an argument list */
    union {
        double num;
        struct ast_str str;
        bool boolean;
        const char *name;
        struct {
            enum ast_op op;
            struct ast_expr *a, *b;
        } op;
        struct {
            struct ast_ident fn;
            struct ast_exprs args;
        } call;
        struct {
            struct ast_expr *base;
            struct ast_exprs args;
        } index;
    } u;
};

enum ast_storage { AST_STORAGE_DEFAULT, AST_STORAGE_DENSE, AST_STORAGE_SPARSE };
enum ast_elem { AST_ELEM_DEFAULT, AST_ELEM_REAL, AST_ELEM_INT };
enum ast_shape { AST_SHAPE_VECTOR, AST_SHAPE_MATRIX };

/* [dense|sparse] [int|real] vector|matrix [ '[' dims ']' ] */
struct ast_type {
    struct ptm_loc loc;
    enum ast_storage storage;
    enum ast_elem elem;
    enum ast_shape shape;
    bool has_dims;
    struct ast_exprs dims;
};

enum ast_cons_model { AST_CONS_SSP, AST_CONS_BSP, AST_CONS_ASYNC };

/* ssp EXPR | bsp | async */
struct ast_cons {
    struct ptm_loc loc;
    enum ast_cons_model model;
    struct ast_expr *staleness; /* ssp only */
};

/* Attributes that follow data, param and output statements. */
enum ast_attr_kind {
    AST_ATTR_FORMAT,      /* format WORD */
    AST_ATTR_SHARD,       /* shard WORD */
    AST_ATTR_SHARD_LIKE,  /* shard like NAME */
    AST_ATTR_VOCAB,       /* vocab "file" */
    AST_ATTR_CONSISTENCY, /* consistency ... */
};
struct ast_attr {
    enum ast_attr_kind kind;
    struct ptm_loc loc;
    struct ast_ident word; /* FORMAT, SHARD, SHARD_LIKE */
    struct ast_str str;    /* VOCAB */
    struct ast_cons cons;  /* CONSISTENCY */
    struct ast_attr *next;
};
struct ast_attrs {
    struct ast_attr *head, *tail;
};

/* NAME [=] value... inside { }: values are numbers, durations, strings,
 * booleans or names. */
struct ast_option {
    struct ast_ident key;
    struct ptm_loc loc;
    struct ast_exprs values;
    struct ast_option *next;
};
struct ast_options {
    struct ptm_loc loc; /* of the braces */
    bool present;
    struct ast_option *head, *tail;
    unsigned n;
};

/* X(name, keyword) */
#define AST_STMT_LIST(X)                                                       \
    X(CONST, "const")                                                          \
    X(DATA, "data")                                                            \
    X(PARAM, "param")                                                          \
    X(BLOCKS, "blocks")                                                        \
    X(DEPEND, "depend")                                                        \
    X(PRIORITY, "priority")                                                    \
    X(COST, "cost")                                                            \
    X(ORDER, "order")                                                          \
    X(SCHEDULE, "schedule")                                                    \
    X(CONSISTENCY, "consistency")                                              \
    X(UPDATE, "update")                                                        \
    X(OBJECTIVE, "objective")                                                  \
    X(METRIC, "metric")                                                        \
    X(STOP, "stop")                                                            \
    X(OUTPUT, "output")                                                        \
    X(SEED, "seed")                                                            \
    X(CHECKPOINT, "checkpoint")

enum ast_stmt_kind {
#define X(name, kw) AST_STMT_##name,
    AST_STMT_LIST(X)
#undef X
};
/* The number of statement kinds, for arrays indexed by kind. */
#define X(name, kw) +1
enum { AST_NSTMTS = 0 AST_STMT_LIST(X) };
#undef X
const char *ast_stmt_keyword(enum ast_stmt_kind k);

enum ast_hook_kind { AST_HOOK_LUA, AST_HOOK_BUILTIN };
enum ast_split { AST_SPLIT_DEFAULT, AST_SPLIT_EACH, AST_SPLIT_INTO };

struct ast_stmt {
    enum ast_stmt_kind kind;
    struct ptm_loc loc;
    struct ast_stmt *next;
    union {
        struct { /* const NAME = EXPR */
            struct ast_ident name;
            struct ast_expr *value;
        } konst;
        struct { /* data NAME : TYPE from EXPR ATTRS */
            struct ast_ident name;
            struct ast_type *type;
            struct ast_expr *source;
            struct ast_attrs attrs;
        } data;
        struct { /* param NAME : TYPE [= EXPR | = from "file"] ATTRS */
            struct ast_ident name;
            struct ast_type *type;
            struct ast_expr *init; /* NULL: default, or from a file */
            struct ast_str file;   /* from "file"; s NULL when absent */
            struct ptm_loc file_loc;
            struct ast_attrs attrs;
        } param;
        struct { /* blocks NAME = PARAM [AXIS] [each|into EXPR] */
            struct ast_ident name, param, axis;
            enum ast_split split;
            struct ast_expr *count;
        } blocks;
        struct { /* depend B(i), B(j) when EXPR | depend B from "file" */
            struct ast_ident set1, var1, set2, var2;
            struct ast_expr *when; /* NULL for an edge file */
            struct ast_str file;
        } depend;
        struct { /* priority|cost|order B(j) = EXPR */
            struct ast_ident set, var;
            struct ast_expr *value;
        } blockfn;
        struct { /* schedule POLICY [over B] [{ options }] */
            struct ast_ident policy, over;
            struct ast_options options;
        } schedule;
        struct ast_cons consistency;
        struct { /* update|objective lua "file" ["fn"] | builtin NAME; [{ options }] [every EXPR [UNIT]] */
            enum ast_hook_kind kind;
            struct ptm_loc kind_loc;
            struct ast_str file;
            struct ptm_loc file_loc;
            struct ast_str fn;
            struct ptm_loc fn_loc;
            struct ast_ident builtin;
            struct ast_options options;
            struct ast_expr *every;
            struct ast_ident every_unit;
        } hook;
        struct { /* metric NAME = EXPR */
            struct ast_ident name;
            struct ast_expr *value;
        } metric;
        struct { /* stop when EXPR */
            struct ast_expr *when;
        } stop;
        struct { /* output NAME to "file" ATTRS */
            struct ast_ident name;
            struct ast_str file;
            struct ptm_loc file_loc;
            struct ast_attrs attrs;
        } output;
        struct { /* seed EXPR */
            struct ast_expr *value;
        } seed;
        struct { /* checkpoint every EXPR [UNIT] to "dir" */
            struct ast_expr *every;
            struct ast_ident unit; /* rounds|sweeps; absent: EXPR is a duration */
            struct ast_str dir;
            struct ptm_loc dir_loc;
        } checkpoint;
    } u;
};

struct ast_job {
    struct ast_ident name;
    struct ptm_loc loc;
    struct ast_stmt *head, *tail;
    unsigned nstmts;
};

/* Write the tree as S-expressions, one statement a line (tests, --dump). */
void ast_dump(FILE *out, const struct ast_job *job);
void ast_dump_expr(FILE *out, const struct ast_expr *e);

#endif
