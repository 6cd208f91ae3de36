/*
 * lang_impl.h - what the lexer, the parser and the tree builders share.
 */
#ifndef PTM_LANG_IMPL_H
#define PTM_LANG_IMPL_H

#include <setjmp.h>
#include <stdbool.h>

#include "ast.h"
#include "diag.h"

/* Brackets deeper than this are an error, not a stack overflow. */
#define LANG_MAX_NESTING 256
/* Longest identifier. */
#define LANG_MAX_IDENT 255

struct lang_bracket {
    int tok; /* '(' '[' or '{' */
    struct ptm_loc loc;
};

struct lang_ctx {
    struct ptm_source *src;
    struct arena *arena;
    struct ptm_diags *diags;
    void *scanner;       /* yyscan_t */
    struct ast_job *job; /* being built */

    /* Lexer state. */
    uint32_t off;          /* byte offset of the next character */
    uint32_t comment_open; /* where the outermost block comment began */
    int comment_depth;
    int last;           /* last token handed to the parser */
    bool at_line_start; /* a newline came since the last token */
    struct ptm_loc last_nl;
    struct {
        int tok;
        struct ptm_loc loc;
    } pending[2]; /* tokens held back behind a synthetic one */
    int npending;
    uint32_t last_end; /* where the last token delivered ends */
    struct lang_bracket unclosed; /* closed by a synthetic newline, for a note */
    bool has_unclosed;
    bool synthetic_brace; /* the last token is a '}' the lexer made up */
    struct lang_bracket brackets[LANG_MAX_NESTING];
    int nbrackets;

    bool oom;   /* an allocation failed */
    bool fatal; /* stop: later syntax errors are consequences */
    jmp_buf *flex_fail; /* flex's own allocation failures land here */
};

/* Report an error at loc. */
void lang_error(struct lang_ctx *c, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keyword lookup: the token of name[0..len), or 0. */
int lang_keyword(const char *name, size_t len);
/* Every keyword that starts a statement, for suggestions. */
extern const char *const lang_stmt_words[];
extern const size_t lang_nstmt_words;
bool lang_is_stmt_keyword(int tok);
/* How the parser names a token in messages ("name", "job", "'('"). */
const char *lang_token_name(int tok);

/* Tree builders for the grammar actions. Each returns NULL and sets c->oom
 * when memory runs out, or sets c->fatal after reporting an expression
 * nested too deeply. */
struct ast_expr *ast_num(struct lang_ctx *c, enum ast_expr_kind kind, double v, struct ptm_loc loc);
struct ast_expr *ast_strlit(struct lang_ctx *c, struct ast_str s, struct ptm_loc loc);
struct ast_expr *ast_boollit(struct lang_ctx *c, bool v, struct ptm_loc loc);
struct ast_expr *ast_name(struct lang_ctx *c, struct ast_ident id);
struct ast_expr *ast_unary(struct lang_ctx *c, enum ast_op op, struct ast_expr *a,
                           struct ptm_loc loc);
struct ast_expr *ast_binary(struct lang_ctx *c, enum ast_op op, struct ast_expr *a,
                            struct ast_expr *b, struct ptm_loc loc);
struct ast_expr *ast_call(struct lang_ctx *c, struct ast_ident fn, struct ast_exprs args,
                          struct ptm_loc loc);
struct ast_expr *ast_index(struct lang_ctx *c, struct ast_expr *base, struct ast_exprs args,
                           struct ptm_loc loc);
/* A keyword used as a plain word; .name is NULL when out of memory. */
struct ast_ident ast_word(struct lang_ctx *c, struct ptm_loc loc);
struct ast_exprs ast_exprs_add(struct ast_exprs l, struct ast_expr *e);
struct ast_exprs ast_exprs_prepend(struct ast_exprs l, struct ast_expr *e);

struct ast_type *ast_type(struct lang_ctx *c, enum ast_storage storage, enum ast_elem elem,
                          enum ast_shape shape, const struct ast_exprs *dims, struct ptm_loc loc);
struct ast_attr *ast_attr_word(struct lang_ctx *c, enum ast_attr_kind kind, struct ast_ident word,
                               struct ptm_loc loc);
struct ast_attr *ast_attr_vocab(struct lang_ctx *c, struct ast_str file, struct ptm_loc loc);
struct ast_attr *ast_attr_cons(struct lang_ctx *c, struct ast_cons cons, struct ptm_loc loc);
struct ast_attrs ast_attrs_add(struct ast_attrs l, struct ast_attr *a);
struct ast_option *ast_option(struct lang_ctx *c, struct ast_ident key, struct ast_exprs values,
                              struct ptm_loc loc);
struct ast_options ast_options_add(struct ast_options l, struct ast_option *o);
struct ast_options ast_options_close(struct ast_options l, struct ptm_loc loc);

struct ast_stmt *ast_const(struct lang_ctx *c, struct ast_ident name, struct ast_expr *value,
                           struct ptm_loc loc);
struct ast_stmt *ast_data(struct lang_ctx *c, struct ast_ident name, struct ast_type *type,
                          struct ast_expr *source, struct ast_attrs attrs, struct ptm_loc loc);
struct ast_stmt *ast_param(struct lang_ctx *c, struct ast_ident name, struct ast_type *type,
                           struct ast_expr *init, struct ast_attrs attrs, struct ptm_loc loc);
/* param NAME : TYPE = from "file" ATTRS */
struct ast_stmt *ast_param_file(struct lang_ctx *c, struct ast_ident name, struct ast_type *type,
                                struct ast_str file, struct ptm_loc file_loc,
                                struct ast_attrs attrs, struct ptm_loc loc);
struct ast_stmt *ast_blocks(struct lang_ctx *c, struct ast_ident name, struct ast_ident param,
                            struct ast_ident axis, enum ast_split split, struct ast_expr *count,
                            struct ptm_loc loc);
struct ast_stmt *ast_depend_when(struct lang_ctx *c, struct ast_ident set1, struct ast_ident var1,
                                 struct ast_ident set2, struct ast_ident var2,
                                 struct ast_expr *when, struct ptm_loc loc);
struct ast_stmt *ast_depend_file(struct lang_ctx *c, struct ast_ident set, struct ast_str file,
                                 struct ptm_loc loc);
struct ast_stmt *ast_blockfn(struct lang_ctx *c, enum ast_stmt_kind kind, struct ast_ident set,
                             struct ast_ident var, struct ast_expr *value, struct ptm_loc loc);
struct ast_stmt *ast_schedule(struct lang_ctx *c, struct ast_ident policy, struct ast_ident over,
                              struct ast_options options, struct ptm_loc loc);
struct ast_stmt *ast_consistency(struct lang_ctx *c, struct ast_cons cons, struct ptm_loc loc);
/* The hook part of update and objective statements. */
struct ast_hook {
    enum ast_hook_kind kind;
    struct ptm_loc kind_loc;
    struct ast_str file, fn;
    struct ptm_loc file_loc, fn_loc;
    struct ast_ident builtin;
};
struct ast_stmt *ast_hook_stmt(struct lang_ctx *c, enum ast_stmt_kind kind,
                               const struct ast_hook *hook, struct ast_options options,
                               struct ast_expr *every, struct ast_ident unit, struct ptm_loc loc);
struct ast_stmt *ast_metric(struct lang_ctx *c, struct ast_ident name, struct ast_expr *value,
                            struct ptm_loc loc);
struct ast_stmt *ast_stop(struct lang_ctx *c, struct ast_expr *when, struct ptm_loc loc);
struct ast_stmt *ast_output(struct lang_ctx *c, struct ast_ident name, struct ast_str file,
                            struct ptm_loc file_loc, struct ast_attrs attrs, struct ptm_loc loc);
struct ast_stmt *ast_seed(struct lang_ctx *c, struct ast_expr *value, struct ptm_loc loc);
/* checkpoint every EVERY [UNIT] to "dir" */
struct ast_stmt *ast_checkpoint(struct lang_ctx *c, struct ast_expr *every, struct ast_ident unit,
                                struct ast_str dir, struct ptm_loc dir_loc, struct ptm_loc loc);
/* Append a statement to the job. */
void ast_job_add(struct lang_ctx *c, struct ast_stmt *s);

#endif
