/*
 * parser.y - the job language's grammar (spec/language.md is its prose).
 *
 * Actions only build the tree: one ast_* call each, with the rule's
 * location. Names, types and shapes are the compiler's business.
 *
 * DESIGN: statements end at a newline or ';' (the lexer drops newlines that
 * cannot end a statement). A syntax error skips to the end of the statement
 * (or, inside { }, to the end of the option), so one run reports every
 * broken statement. Lexical errors are reported by the lexer, which then
 * returns YYerror: the parser recovers without a second message. Syntax
 * errors are worded here (yyreport_syntax_error): the unexpected token,
 * what was expected, a "did you mean" for misspelt statements, and a note
 * at the bracket left open.
 */
%require "3.8"
%define api.pure full
%define api.header.include {"parser.h"}
%define api.location.type {struct ptm_loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {struct lang_ctx *ctx}

%code requires {
#include "ast.h"
#include "diag.h"
#include "lang_impl.h"
}

%code provides {
int yylex(YYSTYPE *val, YYLTYPE *loc, struct lang_ctx *c);
int lang_scan_begin(struct lang_ctx *c);
void lang_scan_end(struct lang_ctx *c);
}

%code {
#include <string.h>

#include "arena.h"
#include "ptm.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                            \
    do {                                                                       \
        if (N) {                                                               \
            (Cur).begin = YYRHSLOC(Rhs, 1).begin;                              \
            (Cur).end = YYRHSLOC(Rhs, N).end;                                  \
        } else {                                                               \
            (Cur).begin = (Cur).end = YYRHSLOC(Rhs, 0).end;                    \
        }                                                                      \
    } while (0)

/* A builder returned NULL: out of memory, or an expression too deep
 * (already reported). Either way the parse ends. */
#define NEW(x)                                                                 \
    do {                                                                       \
        if (!((x)))                                                            \
            YYABORT;                                                           \
    } while (0)

/* The parser's stacks come from ptm_malloc (fault injection sees them) and
 * are bounded: input nested deeper than YYMAXDEPTH is reported, not
 * obeyed. Bison says "memory exhausted" for both; stack_failed tells an
 * allocation failure apart. */
#define YYMAXDEPTH 20000
#define YYMALLOC stack_alloc
#define YYFREE ptm_free
/* GLOBAL: thread-local flag set by a failed parser-stack allocation and
 * read right after it; parses on other threads have their own. */
static _Thread_local bool stack_failed;
static void *stack_alloc(size_t n)
{
    void *p = ptm_malloc(n);
    if (!p)
        stack_failed = true;
    return p;
}

static void yyerror(YYLTYPE *loc, struct lang_ctx *ctx, const char *msg);
static struct ast_ident no_ident(void) { return (struct ast_ident){NULL, {0, 0}}; }
static struct ast_str no_str(void) { return (struct ast_str){NULL, 0}; }
}

%union {
    double num;
    struct ast_str str;
    struct ast_ident ident;
    struct ast_expr *expr;
    struct ast_exprs exprs;
    struct ast_type *type;
    struct ast_attrs attrs;
    struct ast_attr *attr;
    struct ast_cons cons;
    struct ast_option *option;
    struct ast_options options;
    struct ast_stmt *stmt;
    struct ast_hook hook;
    int ival;
}

%token <ident> IDENT "name"
%token <num> NUMBER "number"
%token <num> DURATION "duration"
%token <str> STRING "string"
%token NL "newline"
%token EQ "==" NE "!=" LE "<=" GE ">="
%token AND "and" ASYNC "async" BLOCKS "blocks" BSP "bsp" BUILTIN "builtin"
%token CHECKPOINT "checkpoint" CONSISTENCY "consistency" CONST "const" COST "cost" DATA "data"
%token DENSE "dense"
%token DEPEND "depend" EACH "each" EVERY "every" FALSE "false" FORMAT "format" FROM "from"
%token INT "int" INTO "into" JOB "job" LIKE "like" LUA "lua" MATRIX "matrix" METRIC "metric"
%token NOT "not"
%token OBJECTIVE "objective" OR "or" ORDER "order" OUTPUT "output" OVER "over" PARAM "param"
%token PRIORITY "priority" REAL "real" SCHEDULE "schedule" SEED "seed" SHARD "shard"
%token SPARSE "sparse" SSP "ssp" STOP "stop" TO "to" TRUE "true" UPDATE "update"
%token VECTOR "vector" VOCAB "vocab" WHEN "when"

%type <expr> expr or_expr and_expr not_expr cmp_expr add_expr mul_expr unary pow postfix primary
%type <expr> value every_opt init_opt
%type <exprs> exprs args_opt values
%type <type> type
%type <ival> storage_opt elem_opt shape cmp_op
%type <attrs> attrs
%type <attr> attr
%type <cons> cons
%type <option> option
%type <options> options options_opt option_list
%type <stmt> stmt
%type <hook> hook
%type <ident> axis_opt over_opt unit_opt word key
%type <str> fn_opt

%%

/* job = "job" NAME END { statement } */
job
    : JOB IDENT end { ctx->job->name = $2; ctx->job->loc = (struct ptm_loc){@1.begin, @2.end}; } stmts
    | error end { yyerrok; } stmts
    ;

end : NL | ';' ;

stmts
    : %empty
    | stmts stmt end   { ast_job_add(ctx, $2); }
    | stmts ';'
    | stmts error end  { yyerrok; }
    ;

stmt
    : CONST IDENT '=' expr
        { NEW($$ = ast_const(ctx, $2, $4, @$)); }
    | DATA IDENT ':' type FROM expr attrs
        { NEW($$ = ast_data(ctx, $2, $4, $6, $7, @$)); }
    | PARAM IDENT ':' type init_opt attrs
        { NEW($$ = ast_param(ctx, $2, $4, $5, $6, @$)); }
    | PARAM IDENT ':' type '=' FROM STRING attrs
        { NEW($$ = ast_param_file(ctx, $2, $4, $7, @7, $8, @$)); }
    | BLOCKS IDENT '=' IDENT axis_opt
        { NEW($$ = ast_blocks(ctx, $2, $4, $5, AST_SPLIT_DEFAULT, NULL, @$)); }
    | BLOCKS IDENT '=' IDENT axis_opt EACH expr
        { NEW($$ = ast_blocks(ctx, $2, $4, $5, AST_SPLIT_EACH, $7, @$)); }
    | BLOCKS IDENT '=' IDENT axis_opt INTO expr
        { NEW($$ = ast_blocks(ctx, $2, $4, $5, AST_SPLIT_INTO, $7, @$)); }
    | DEPEND IDENT '(' IDENT ')' ',' IDENT '(' IDENT ')' WHEN expr
        { NEW($$ = ast_depend_when(ctx, $2, $4, $7, $9, $12, @$)); }
    | DEPEND IDENT FROM STRING
        { NEW($$ = ast_depend_file(ctx, $2, $4, @$)); }
    | PRIORITY IDENT '(' IDENT ')' '=' expr
        { NEW($$ = ast_blockfn(ctx, AST_STMT_PRIORITY, $2, $4, $7, @$)); }
    | COST IDENT '(' IDENT ')' '=' expr
        { NEW($$ = ast_blockfn(ctx, AST_STMT_COST, $2, $4, $7, @$)); }
    | ORDER IDENT '(' IDENT ')' '=' expr
        { NEW($$ = ast_blockfn(ctx, AST_STMT_ORDER, $2, $4, $7, @$)); }
    | SCHEDULE IDENT over_opt options_opt
        { NEW($$ = ast_schedule(ctx, $2, $3, $4, @$)); }
    | CONSISTENCY cons
        { NEW($$ = ast_consistency(ctx, $2, @$)); }
    | UPDATE hook options_opt
        { NEW($$ = ast_hook_stmt(ctx, AST_STMT_UPDATE, &$2, $3, NULL, no_ident(), @$)); }
    | OBJECTIVE hook options_opt every_opt unit_opt
        { NEW($$ = ast_hook_stmt(ctx, AST_STMT_OBJECTIVE, &$2, $3, $4, $5, @$)); }
    | METRIC IDENT '=' expr
        { NEW($$ = ast_metric(ctx, $2, $4, @$)); }
    | STOP WHEN expr
        { NEW($$ = ast_stop(ctx, $3, @$)); }
    | OUTPUT IDENT TO STRING attrs
        { NEW($$ = ast_output(ctx, $2, $4, @4, $5, @$)); }
    | SEED expr
        { NEW($$ = ast_seed(ctx, $2, @$)); }
    | CHECKPOINT EVERY expr unit_opt TO STRING
        { NEW($$ = ast_checkpoint(ctx, $3, $4, $6, @6, @$)); }
    ;

/* type = [ "dense" | "sparse" ] [ "int" | "real" ] ( "vector" | "matrix" ) [ "[" exprs "]" ] */
type
    : storage_opt elem_opt shape
        { NEW($$ = ast_type(ctx, $1, $2, $3, NULL, @$)); }
    | storage_opt elem_opt shape '[' exprs ']'
        { NEW($$ = ast_type(ctx, $1, $2, $3, &$5, @$)); }
    ;
storage_opt : %empty { $$ = AST_STORAGE_DEFAULT; } | DENSE { $$ = AST_STORAGE_DENSE; }
            | SPARSE { $$ = AST_STORAGE_SPARSE; } ;
elem_opt    : %empty { $$ = AST_ELEM_DEFAULT; } | INT { $$ = AST_ELEM_INT; }
            | REAL { $$ = AST_ELEM_REAL; } ;
shape       : VECTOR { $$ = AST_SHAPE_VECTOR; } | MATRIX { $$ = AST_SHAPE_MATRIX; } ;

init_opt : %empty { $$ = NULL; } | '=' expr { $$ = $2; } ;
axis_opt : %empty { $$ = no_ident(); } | IDENT ;
over_opt : %empty { $$ = no_ident(); } | OVER IDENT { $$ = $2; } ;
unit_opt : %empty { $$ = no_ident(); } | IDENT ;
every_opt : %empty { $$ = NULL; } | EVERY expr { $$ = $2; } ;
fn_opt : %empty { $$ = no_str(); } | STRING ;

attrs
    : %empty      { $$ = (struct ast_attrs){NULL, NULL}; }
    | attrs attr  { $$ = ast_attrs_add($1, $2); }
    ;
attr
    : FORMAT IDENT         { NEW($$ = ast_attr_word(ctx, AST_ATTR_FORMAT, $2, @$)); }
    | SHARD IDENT          { NEW($$ = ast_attr_word(ctx, AST_ATTR_SHARD, $2, @$)); }
    | SHARD LIKE IDENT     { NEW($$ = ast_attr_word(ctx, AST_ATTR_SHARD_LIKE, $3, @$)); }
    | VOCAB STRING         { NEW($$ = ast_attr_vocab(ctx, $2, @$)); }
    | CONSISTENCY cons     { NEW($$ = ast_attr_cons(ctx, $2, @$)); }
    ;

/* cons = "ssp" expr | "bsp" | "async" */
cons
    : SSP expr  { $$ = (struct ast_cons){@$, AST_CONS_SSP, $2}; }
    | BSP       { $$ = (struct ast_cons){@$, AST_CONS_BSP, NULL}; }
    | ASYNC     { $$ = (struct ast_cons){@$, AST_CONS_ASYNC, NULL}; }
    ;

/* hook = "lua" STRING [ STRING ] | "builtin" NAME */
hook
    : LUA STRING fn_opt
        { $$ = (struct ast_hook){AST_HOOK_LUA, @1, $2, $3, @2, @3, no_ident()}; }
    | BUILTIN IDENT
        { $$ = (struct ast_hook){AST_HOOK_BUILTIN, @1, no_str(), no_str(), @2, @2, $2}; }
    ;

/* options = "{" [ option { SEP option } [ SEP ] ] "}"   SEP = NL | "," | ";" */
options_opt
    : %empty    { $$ = (struct ast_options){0}; }
    | options
    ;
options
    : '{' seps_opt '}'     { $$ = ast_options_close((struct ast_options){0}, @$); }
    | '{' seps_opt option_list seps_opt '}' { $$ = ast_options_close($3, @$); }
    ;
option_list
    : option                  { $$ = ast_options_add((struct ast_options){0}, $1); }
    | option_list seps option { $$ = ast_options_add($1, $3); }
    ;
seps_opt : %empty | seps ;
seps : sep | seps sep ;
/* A separator consumed after an error: report the next error again. */
sep : NL { yyerrok; } | ',' { yyerrok; } | ';' { yyerrok; } ;

/* option = KEY { value } | KEY "=" value { value } */
option
    : key values            { NEW($$ = ast_option(ctx, $1, $2, @$)); }
    | key '=' value values  { NEW($$ = ast_option(ctx, $1, ast_exprs_prepend($4, $3), @$)); }
    | error                 { $$ = NULL; }
    ;
/* No option is named like a statement, so a statement keyword inside
 * braces means a '}' is missing. */
key
    : IDENT
    | option_keyword { NEW(($$ = ast_word(ctx, @1)).name); }
    ;
values
    : %empty        { $$ = (struct ast_exprs){0}; }
    | values value  { $$ = ast_exprs_add($1, $2); }
    ;
value
    : NUMBER        { NEW($$ = ast_num(ctx, AST_NUM, $1, @$)); }
    | '-' NUMBER    { NEW($$ = ast_num(ctx, AST_NUM, -$2, @$)); }
    | DURATION      { NEW($$ = ast_num(ctx, AST_DURATION, $1, @$)); }
    | '-' DURATION  { NEW($$ = ast_num(ctx, AST_DURATION, -$2, @$)); }
    | STRING        { NEW($$ = ast_strlit(ctx, $1, @$)); }
    | TRUE          { NEW($$ = ast_boollit(ctx, true, @$)); }
    | FALSE         { NEW($$ = ast_boollit(ctx, false, @$)); }
    | word          { NEW($$ = ast_name(ctx, $1)); }
    ;
/* Inside { } keywords are plain words: { sampler = sparse }. */
word
    : IDENT
    | keyword       { NEW(($$ = ast_word(ctx, @1)).name); }
    ;
keyword
    : option_keyword | BLOCKS | CHECKPOINT | CONSISTENCY | CONST | COST | DATA | DEPEND | JOB | METRIC
    | OBJECTIVE | ORDER | OUTPUT | PARAM | PRIORITY | SCHEDULE | SEED | STOP | UPDATE
    ;
option_keyword
    : AND | ASYNC | BSP | BUILTIN | DENSE | EACH | EVERY | FORMAT | FROM | INT | INTO | LIKE
    | LUA | MATRIX | NOT | OR | OVER | REAL | SHARD | SPARSE | SSP | TO | VECTOR | VOCAB | WHEN
    ;

/* Expressions, loosest first: or, and, not, comparison (no chaining),
 * + -, * / %, unary -, ^ (right-associative), calls and indexing. */
expr : or_expr ;
or_expr
    : and_expr
    | or_expr OR and_expr    { NEW($$ = ast_binary(ctx, AST_OP_OR, $1, $3, @$)); }
    ;
and_expr
    : not_expr
    | and_expr AND not_expr  { NEW($$ = ast_binary(ctx, AST_OP_AND, $1, $3, @$)); }
    ;
not_expr
    : cmp_expr
    | NOT not_expr           { NEW($$ = ast_unary(ctx, AST_OP_NOT, $2, @$)); }
    ;
cmp_expr
    : add_expr
    | add_expr cmp_op add_expr { NEW($$ = ast_binary(ctx, (enum ast_op)$2, $1, $3, @$)); }
    ;
cmp_op
    : EQ { $$ = AST_OP_EQ; } | NE { $$ = AST_OP_NE; } | '<' { $$ = AST_OP_LT; }
    | LE { $$ = AST_OP_LE; } | '>' { $$ = AST_OP_GT; } | GE { $$ = AST_OP_GE; }
    ;
add_expr
    : mul_expr
    | add_expr '+' mul_expr  { NEW($$ = ast_binary(ctx, AST_OP_ADD, $1, $3, @$)); }
    | add_expr '-' mul_expr  { NEW($$ = ast_binary(ctx, AST_OP_SUB, $1, $3, @$)); }
    ;
mul_expr
    : unary
    | mul_expr '*' unary     { NEW($$ = ast_binary(ctx, AST_OP_MUL, $1, $3, @$)); }
    | mul_expr '/' unary     { NEW($$ = ast_binary(ctx, AST_OP_DIV, $1, $3, @$)); }
    | mul_expr '%' unary     { NEW($$ = ast_binary(ctx, AST_OP_MOD, $1, $3, @$)); }
    ;
unary
    : pow
    | '-' unary              { NEW($$ = ast_unary(ctx, AST_OP_NEG, $2, @$)); }
    ;
pow
    : postfix
    | postfix '^' unary      { NEW($$ = ast_binary(ctx, AST_OP_POW, $1, $3, @$)); }
    ;
postfix
    : primary
    | postfix '[' exprs ']'  { NEW($$ = ast_index(ctx, $1, $3, @$)); }
    ;
primary
    : NUMBER                 { NEW($$ = ast_num(ctx, AST_NUM, $1, @$)); }
    | DURATION               { NEW($$ = ast_num(ctx, AST_DURATION, $1, @$)); }
    | STRING                 { NEW($$ = ast_strlit(ctx, $1, @$)); }
    | TRUE                   { NEW($$ = ast_boollit(ctx, true, @$)); }
    | FALSE                  { NEW($$ = ast_boollit(ctx, false, @$)); }
    | IDENT                  { NEW($$ = ast_name(ctx, $1)); }
    | OBJECTIVE              { NEW($$ = ast_name(ctx, (struct ast_ident){"objective", @1})); }
    | IDENT '(' args_opt ')' { NEW($$ = ast_call(ctx, $1, $3, @$)); }
    | '(' expr ')'           { $$ = $2; }
    ;
args_opt : %empty { $$ = (struct ast_exprs){0}; } | exprs ;
exprs
    : expr                   { $$ = ast_exprs_add((struct ast_exprs){0}, $1); }
    | exprs ',' expr         { $$ = ast_exprs_add($1, $3); }
    ;

%%

void lang_error(struct lang_ctx *c, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_addv(c->diags, PTM_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
}

static void yyerror(YYLTYPE *loc, struct lang_ctx *ctx, const char *msg)
{
    if (ctx->fatal || ctx->oom)
        return;
    if (strcmp(msg, "memory exhausted") == 0) {
        if (stack_failed) {
            ctx->oom = true;
            return;
        }
        lang_error(ctx, *loc, "expression nested too deeply (the parser's stack holds %d levels)",
                   YYMAXDEPTH);
        ctx->fatal = true;
        return;
    }
    lang_error(ctx, *loc, "%s", msg);
}

/* How a token is named in "expected ..." and "unexpected ...": keywords and
 * punctuation in quotes, classes by name. */
static void symbol_text(yysymbol_kind_t sym, char *buf, size_t len)
{
    const char *name = yysymbol_name(sym);
    if (sym == YYSYMBOL_YYEOF)
        snprintf(buf, len, "end of file");
    else if (sym == YYSYMBOL_IDENT || sym == YYSYMBOL_NUMBER || sym == YYSYMBOL_DURATION ||
             sym == YYSYMBOL_STRING || sym == YYSYMBOL_NL)
        snprintf(buf, len, "%s", name);
    else if (name[0] == '"') /* "job" */
        snprintf(buf, len, "'%.*s'", (int)strlen(name) - 2, name + 1);
    else if (name[0] == '\'') /* '(' */
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "'%s'", name);
}

static bool expects(const yysymbol_kind_t *exp, int n, yysymbol_kind_t sym)
{
    for (int i = 0; i < n; i++)
        if (exp[i] == sym)
            return true;
    return false;
}

static int yyreport_syntax_error(const yypcontext_t *p, struct lang_ctx *ctx)
{
    if (ctx->fatal || ctx->oom || ctx->synthetic_brace)
        return 0; /* the lexer reported the missing '}' */
    enum { MAXEXP = YYNTOKENS };
    yysymbol_kind_t exp[MAXEXP];
    int nexp = yypcontext_expected_tokens(p, exp, MAXEXP);
    if (nexp < 0)
        nexp = 0;
    yysymbol_kind_t tok = yypcontext_token(p);
    const YYLTYPE *loc = yypcontext_location(p);
    const char *text = ctx->src->text + loc->begin;
    int tlen = (int)(loc->end - loc->begin);

    /* A name where a statement should start: a misspelt keyword? */
    if (tok == YYSYMBOL_IDENT && expects(exp, nexp, YYSYMBOL_CONST)) {
        const char *s = diag_suggest(text, (size_t)tlen, lang_stmt_words, lang_nstmt_words);
        if (s)
            lang_error(ctx, *loc, "unknown statement '%.*s' (did you mean '%s'?)", tlen, text, s);
        else
            lang_error(ctx, *loc, "unknown statement '%.*s'", tlen, text);
        return 0;
    }

    char what[96];
    if (tok == YYSYMBOL_IDENT || tok == YYSYMBOL_NUMBER || tok == YYSYMBOL_DURATION)
        snprintf(what, sizeof(what), "%s '%.*s'", yysymbol_name(tok), tlen > 40 ? 40 : tlen,
                 text);
    else
        symbol_text(tok, what, sizeof(what));


    /* A name where a keyword belongs: a misspelling of one? */
    if (tok == YYSYMBOL_IDENT) {
        const char *words[MAXEXP];
        size_t nwords = 0;
        for (int i = 0; i < nexp; i++) {
            const char *name = yysymbol_name(exp[i]);
            if (exp[i] != YYSYMBOL_IDENT && lang_keyword(name, strlen(name)))
                words[nwords++] = name;
        }
        const char *s = diag_suggest(text, (size_t)tlen, words, nwords);
        if (s) {
            lang_error(ctx, *loc, "unexpected %s (did you mean '%s'?)", what, s);
            return 0;
        }
    }

    /* '==' where '=' belongs, and the other way round. */
    if (tok == YYSYMBOL_EQ && expects(exp, nexp, YYTRANSLATE('='))) {
        lang_error(ctx, *loc, "unexpected '==', expected '='");
        return 0;
    }
    if (tok == YYTRANSLATE('=') && expects(exp, nexp, YYSYMBOL_EQ)) {
        lang_error(ctx, *loc, "unexpected '=' (write '==' to compare)");
        return 0;
    }
    if (tok == YYSYMBOL_JOB && ctx->job->name.name && expects(exp, nexp, YYSYMBOL_CONST)) {
        lang_error(ctx, *loc, "a file holds one job: it already began with 'job %s'",
                   ctx->job->name.name);
        diag_add(ctx->diags, PTM_SEV_NOTE, ctx->job->loc, "the job begins here");
        return 0;
    }

    /* a < b < c */
    if ((tok == YYSYMBOL_EQ || tok == YYSYMBOL_NE || tok == YYSYMBOL_LE || tok == YYSYMBOL_GE ||
         tok == YYTRANSLATE('<') || tok == YYTRANSLATE('>')) &&
        !expects(exp, nexp, YYSYMBOL_NUMBER)) {
        lang_error(ctx, *loc, "unexpected %s (comparisons do not chain; join them with 'and')",
                   what);
        return 0;
    }

    /* Collapse the tokens that start an expression, or an option value,
     * into one word, and leave operators out when something else fits:
     * "expected ')'" says more than a list of every operator. */
    bool expr = expects(exp, nexp, YYSYMBOL_NUMBER) && expects(exp, nexp, YYTRANSLATE('('));
    bool value = !expr && expects(exp, nexp, YYSYMBOL_NUMBER) && expects(exp, nexp, YYSYMBOL_STRING);

    /* A keyword where a name (not an expression) belongs. */
    if (!expr && !value && expects(exp, nexp, YYSYMBOL_IDENT) && tok != YYSYMBOL_IDENT &&
        tlen > 0 && lang_keyword(text, (size_t)tlen)) {
        lang_error(ctx, *loc, "unexpected %s, expected a name ('%.*s' is a reserved word)", what,
                   tlen, text);
        return 0;
    }
    const char *items[8];
    char bufs[8][32];
    int shown = 0, total = 0, operators = 0;
    if (expr || value) {
        items[shown++] = expr ? "expression" : "a value";
        total++;
    }
    for (int i = 0; i < nexp; i++) {
        yysymbol_kind_t s = exp[i];
        const char *name = yysymbol_name(s);
        bool starts = s == YYSYMBOL_NUMBER || s == YYSYMBOL_DURATION || s == YYSYMBOL_STRING ||
                      s == YYSYMBOL_IDENT || s == YYSYMBOL_TRUE || s == YYSYMBOL_FALSE ||
                      s == YYTRANSLATE('-') || s == YYTRANSLATE('(') || s == YYSYMBOL_NOT ||
                      s == YYSYMBOL_OBJECTIVE;
        if ((expr && starts) || (value && (starts || lang_keyword(name, strlen(name)))))
            continue;
        if (s == YYSYMBOL_YYerror)
            continue;
        bool op = s == YYSYMBOL_EQ || s == YYSYMBOL_NE || s == YYSYMBOL_LE || s == YYSYMBOL_GE ||
                  s == YYSYMBOL_AND || s == YYSYMBOL_OR || s == YYTRANSLATE('+') ||
                  s == YYTRANSLATE('-') || s == YYTRANSLATE('*') || s == YYTRANSLATE('/') ||
                  s == YYTRANSLATE('%') || s == YYTRANSLATE('^') || s == YYTRANSLATE('<') ||
                  s == YYTRANSLATE('>') || s == YYTRANSLATE('[');
        if (op) {
            operators++;
            continue;
        }
        total++;
        if (shown < 5) {
            symbol_text(s, bufs[shown], sizeof(bufs[shown]));
            items[shown] = bufs[shown];
            shown++;
        }
    }
    char list[256] = "";
    if (shown > 0 && total <= 5) {
        size_t used = (size_t)snprintf(list, sizeof(list), ", expected ");
        for (int i = 0; i < shown; i++)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                     i == 0 ? "" : i == shown - 1 ? " or " : ", ", items[i]);
    }
    (void)operators;
    lang_error(ctx, *loc, "unexpected %s%s", what, list);

    /* The bracket this error leaves open. */
    if (tok == YYSYMBOL_NL && ctx->has_unclosed) {
        diag_add(ctx->diags, PTM_SEV_NOTE, ctx->unclosed.loc, "to match this '%c'",
                 ctx->unclosed.tok);
    } else if (ctx->nbrackets > 0) {
        const struct lang_bracket *b = &ctx->brackets[ctx->nbrackets - 1];
        yysymbol_kind_t closer = b->tok == '(' ? YYTRANSLATE(')')
                               : b->tok == '[' ? YYTRANSLATE(']') : YYTRANSLATE('}');
        bool stmt_kw = tlen > 0 && lang_is_stmt_keyword(lang_keyword(text, (size_t)tlen));
        if (expects(exp, nexp, closer) && stmt_kw)
            diag_add(ctx->diags, PTM_SEV_NOTE, b->loc, "to match this '%c'", b->tok);
        else if (tok == YYSYMBOL_YYEOF)
            diag_add(ctx->diags, PTM_SEV_NOTE, b->loc, "this '%c' is not closed", b->tok);
    }
    return 0;
}

const char *lang_token_name(int tok)
{
    return yysymbol_name(YYTRANSLATE(tok));
}

int ptm_parse(struct ptm_source *src, struct arena *arena, struct ptm_diags *diags,
              struct ast_job **out)
{
    struct lang_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.src = src;
    ctx.arena = arena;
    ctx.diags = diags;
    ctx.last = NL; /* nothing to end yet */
    *out = NULL;
    unsigned errors_before = diags->nerrors;

    ctx.job = arena_alloc(arena, sizeof(*ctx.job));
    if (!ctx.job)
        return PTM_ENOMEM;
    jmp_buf fail;
    ctx.flex_fail = &fail;
    if (setjmp(fail)) {
        lang_scan_end(&ctx);
        return PTM_ENOMEM;
    }
    if (lang_scan_begin(&ctx) != 0)
        return PTM_ENOMEM;
    stack_failed = false;
    int rc = yyparse(&ctx);
    lang_scan_end(&ctx);
    if (ctx.oom || stack_failed)
        return PTM_ENOMEM;
    if (rc != 0 || diags->nerrors > errors_before || diags->oom)
        return PTM_ESYNTAX;
    *out = ctx.job;
    return 0;
}
