/*
 * test_lang.c - the job language front end: tokens, accepted and rejected
 * programs, diagnostics rendering, allocation failure.
 *
 * DESIGN: every table is a static array of {input, expected} rows run with
 * tcase_add_loop_test, so adding a case is adding a row. Inputs are given
 * with explicit lengths (LIT) because some hold NUL bytes. Rejected rows
 * hold the whole rendered diagnostic text, byte for byte. When a row fails,
 * the actual text is printed to stderr as a C literal ready to paste, after
 * review, into the row. Inputs too big to write out (1 MB lines, 10,000
 * brackets) are built at run time.
 *
 * Run from the repository root (make test): the example rows read
 * examples/NAME/NAME.ptm.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "lang.h"
#include "lang_impl.h"
#include "ptm.h"
#include "testutil.h"
#include "parser.h" /* generated into $(B)/gen */


/* A string literal and its length (it may hold NUL bytes). */
#define LIT(s) s, sizeof(s) - 1

#define REP4(s) s s s s
#define REP16(s) REP4(REP4(s))
#define REP256(s) REP16(REP16(s))
#define A255 REP16("aaaaaaaaaaaaaaa") "aaaaaaaaaaaaaaa"

/* ---- helpers ------------------------------------------------------------ */



struct result {
    int rc;
    char *dump;  /* ast_dump() of the tree, "" when rejected */
    char *diags; /* rendered diagnostics, colorless */
    unsigned nerrors;
};

static void result_free(struct result *r)
{
    free(r->dump);
    free(r->diags);
}

/* Parse text[0..len) named "t.ptm"; render everything. */
static struct result parse_text(const char *text, size_t len)
{
    struct result r = {0};
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", text, len), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    struct ast_job *job = NULL;
    r.rc = ptm_parse(&src, &arena, &diags, &job);
    r.nerrors = diags.nerrors;

    size_t n;
    FILE *f = open_memstream(&r.dump, &n);
    ck_assert_ptr_nonnull(f);
    if (r.rc == 0)
        ast_dump(f, job);
    fclose(f);
    f = open_memstream(&r.diags, &n);
    ck_assert_ptr_nonnull(f);
    ptm_diags_render(f, &src, &diags, false);
    fclose(f);

    arena_release(&arena);
    ptm_source_release(&src);
    return r;
}


/* ---- a. tokens ---------------------------------------------------------- */

/* Tokens are named by lang_token_name(); names, numbers, durations (in
 * seconds) and strings also show their value after a colon. */
struct lex_row {
    const char *src;
    size_t len;
    const char *tokens;
};

/* clang-format off */
static const struct lex_row lex_rows[] = {
    /* keywords: every one of them */
    {LIT("job const data param blocks depend priority cost order schedule consistency update "
         "objective stop output seed checkpoint"),
     "job const data param blocks depend priority cost order schedule consistency update "
     "objective stop output seed checkpoint"},
    {LIT("and async blocks bsp builtin dense each every false format from int into like lua "
         "matrix not or over real shard sparse ssp to true vector vocab when"),
     "and async blocks bsp builtin dense each every false format from int into like lua "
     "matrix not or over real shard sparse ssp to true vector vocab when"},
    /* names: keywords are whole words only */
    {LIT("x _y abc_123 Jobs job1 jobs JOB _ a__b"),
     "name:x name:_y name:abc_123 name:Jobs name:job1 name:jobs name:JOB name:_ name:a__b "
     "newline"},
    /* numbers */
    {LIT("0 42 1.5 1e3 2.5E-3 1e+2 007 0.000001"),
     "number:0 number:42 number:1.5 number:1000 number:0.0025 number:100 number:7 "
     "number:1e-06 newline"},
    /* durations, in seconds */
    {LIT("600s 5ms 1.5h 2m 1d 0.5s 1e3ms 2.5e1s"),
     "duration:600 duration:0.005 duration:5400 duration:120 duration:86400 duration:0.5 "
     "duration:1 duration:25 newline"},
    /* a unit needs its number: "10 s" is a number and a name */
    {LIT("10 s 10m2"), "number:10 name:s error newline"},
    /* strings and their escapes; a tab and UTF-8 pass through */
    {LIT("\"\" \"a b\" \"q\\\"q\" \"back\\\\slash\" \"\\n\\t\\r\" "
         "\"\xc3\xa9\xe6\x97\xa5\" \"tab\there\""),
     "string:\"\" string:\"a b\" string:\"q\\\"q\" string:\"back\\\\slash\" "
     "string:\"\\n\\t\\r\" string:\"\xc3\xa9\xe6\x97\xa5\" string:\"tab\\there\" newline"},
    /* operators */
    {LIT("== != <= >= < > = + - * / % ^ ( ) [ ] { } , : ;"),
     "== != <= >= '<' '>' '=' '+' '-' '*' '/' '%' '^' '(' ')' '[' ']' '{' '}' ',' ':' ';'"},
    {LIT("a<=b a<b a==b a!=b a>=b a>b"),
     "name:a <= name:b name:a '<' name:b name:a == name:b name:a != name:b "
     "name:a >= name:b name:a '>' name:b newline"},
    {LIT("=== !== =< => <<"), "== '=' != '=' '=' '<' '=' '>' '<' '<'"},
    /* comments */
    {LIT("a # a comment\nb"), "name:a newline name:b newline"},
    {LIT("a #[ block ]# b"), "name:a name:b newline"},
    {LIT("a #[ x #[ nested ]# still comment ]# b"), "name:a name:b newline"},
    {LIT("a #[\nmany\nlines\n]#\nb"), "name:a newline name:b newline"},
    {LIT("# comment #[ not a block\nx"), "name:x newline"},
    {LIT("#"), ""},
    {LIT("x #[]#"), "name:x newline"},
    /* newlines: suppressed inside ( ) and [ ], after operators, between
     * blank lines; kept inside { } */
    {LIT("f(a,\n b\n)\nc"), "name:f '(' name:a ',' name:b ')' newline name:c newline"},
    {LIT("x[\n1,\n2]\ny"), "name:x '[' number:1 ',' number:2 ']' newline name:y newline"},
    {LIT("a +\n b *\n c\nd"), "name:a '+' name:b '*' name:c newline name:d newline"},
    {LIT("a\n\n\n\nb"), "name:a newline name:b newline"},
    {LIT("\n\njob a"), "job name:a newline"},
    {LIT("{\na\nb = 1\n}"), "'{' name:a newline name:b '=' number:1 newline '}' newline"},
    {LIT("x = not\ny"), "name:x '=' not name:y newline"},
    /* NL at the end of a statement, with or without a final newline */
    {LIT("seed 1"), "seed number:1 newline"},
    {LIT("seed 1\n"), "seed number:1 newline"},
    {LIT("seed"), "seed"},
    {LIT("seed true"), "seed true newline"},
    /* a statement keyword at the start of a line ends an unfinished line,
     * even after a comma */
    {LIT("const x = 1 +\nconst y"), "const name:x '=' number:1 '+' newline const name:y newline"},
    {LIT("const x = f(1\nseed 2"), "const name:x '=' name:f '(' number:1 newline seed number:2 newline"},
    {LIT("const x = f(1,\nseed 2"), "const name:x '=' name:f '(' number:1 ',' newline seed number:2 newline"},
    {LIT("const x = y[1,\n\nseed 2"), "const name:x '=' name:y '[' number:1 ',' newline seed number:2 newline"},
    /* vector and matrix end a statement */
    {LIT("param p : vector\nseed 1"), "param name:p ':' vector newline seed number:1 newline"},
    {LIT("param p : int matrix\n[1]"), "param name:p ':' int matrix newline '[' number:1 ']' newline"},
    {LIT("data X : matrix from\n\"x\""), "data name:X ':' matrix from string:\"x\" newline"},
    /* inside { } a newline after any keyword ends the option; outside it
     * does not */
    {LIT("{ a = sparse\nb = and\nc = from\n}"),
     "'{' name:a '=' sparse newline name:b '=' and newline name:c '=' from newline '}' newline"},
    {LIT("x = sparse\ny"), "name:x '=' sparse name:y newline"},
    {LIT("{ a =\nb }"), "'{' name:a '=' name:b '}' newline"},
    /* objective is a value too: it does not end the line before it */
    {LIT("stop when x <\nobjective"), "stop when name:x '<' objective newline"},
    /* CRLF */
    {LIT("a\r\nb\r\n"), "name:a newline name:b newline"},
    /* a UTF-8 byte-order mark at the start is skipped; elsewhere it is an
     * error */
    {LIT("\xef\xbb\xbfjob a"), "job name:a newline"},
    {LIT("\xef\xbb\xbf\xef\xbb\xbfjob a"), "error job name:a newline"},
    {LIT("a \xef\xbb\xbf b"), "name:a error name:b newline"},
    {LIT("job a\r\nconst x = 1\r\n"), "job name:a newline const name:x '=' number:1 newline"},
    /* bad characters become error tokens */
    {LIT("a $ b"), "name:a error name:b newline"},
    {LIT("1.2.3 && x"), "error error name:x newline"},
    /* single-quoted text is one error token, to the closing quote or the
     * end of the line */
    {LIT("'w.tsv' x"), "error name:x newline"},
    {LIT("'w.tsv x\ny"), "error newline name:y newline"},
    {LIT("\"it's\" 'a\"b'"), "string:\"it's\" error newline"},
    /* a number that would read as 0 is an error (a subnormal one is not);
     * an unknown unit after a fraction */
    {LIT("1e-400 1e-320 1.5hr 1.5s"), "error number:9.99988867182683e-321 error duration:1.5 newline"},
    /* DEL, CR, an escaped non-ASCII character, an encoded surrogate: one
     * error token each */
    {LIT("\"a\177b\" \"a\rb\" \"a\\\xc3\xa9\" \"\xed\xa0\x80\" x"), "error error error error name:x newline"},
};
/* clang-format on */

static void lex_tokens(const char *text, size_t len, FILE *out, unsigned *nerrors)
{
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", text, len), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);

    struct lang_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.src = &src;
    ctx.arena = &arena;
    ctx.diags = &diags;
    ctx.last = NL;
    jmp_buf fail;
    ctx.flex_fail = &fail;
    if (setjmp(fail))
        ck_abort_msg("the scanner ran out of memory");
    ck_assert_int_eq(lang_scan_begin(&ctx), 0);

    YYSTYPE val;
    YYLTYPE loc;
    int tok, n = 0;
    while ((tok = yylex(&val, &loc, &ctx)) != YYEOF) {
        ck_assert_msg(n++ < 10000, "the scanner does not stop");
        ck_assert_uint_le(loc.begin, loc.end);
        ck_assert_uint_le(loc.end, src.len);
        if (n > 1)
            fputc(' ', out);
        fputs(lang_token_name(tok), out);
        switch (tok) {
        case IDENT:
            fprintf(out, ":%s", val.ident.name);
            break;
        case NUMBER:
        case DURATION:
            fprintf(out, ":%.15g", val.num);
            break;
        case STRING:
            fputs(":\"", out);
            for (size_t i = 0; i < val.str.len; i++) {
                char c = val.str.s[i];
                if (c == '\n')
                    fputs("\\n", out);
                else if (c == '\t')
                    fputs("\\t", out);
                else if (c == '\r')
                    fputs("\\r", out);
                else if (c == '"' || c == '\\')
                    fprintf(out, "\\%c", c);
                else
                    fputc(c, out);
            }
            fputc('"', out);
            break;
        }
    }
    lang_scan_end(&ctx);
    *nerrors = diags.nerrors;
    arena_release(&arena);
    ptm_source_release(&src);
}

START_TEST(test_tokens)
{
    const struct lex_row *r = &lex_rows[_i];
    char *buf = NULL;
    size_t n;
    FILE *out = open_memstream(&buf, &n);
    unsigned nerrors;
    lex_tokens(r->src, r->len, out, &nerrors);
    fclose(out);
    tu_expect_text("tokens", _i, buf, r->tokens, NULL);
    /* Error tokens, and only they, come with a diagnostic. */
    unsigned nerror_tokens = 0;
    for (const char *p = buf; (p = strstr(p, "error")) != NULL; p += 5)
        nerror_tokens++;
    ck_assert_uint_eq(nerrors, nerror_tokens);
    free(buf);
}
END_TEST

/* ---- b. accepted programs ----------------------------------------------- */

struct parse_row {
    const char *src;
    size_t len;
    const char *expected; /* ast_dump() for accepted rows, diagnostics for rejected */
};

/* clang-format off */
static const struct parse_row accept_rows[] = {
    /* the smallest job, with and without blank lines and comments around */
    {LIT("job a\n"), "(job a)\n"},
    {LIT("job a"), "(job a)\n"},
    {LIT("\n\n# header comment\n#[ block\n comment ]#\njob a # trailing\n\n\n"), "(job a)\n"},
    /* const, and every literal */
    {LIT("job a\n"
         "const n = 42\n"
         "const r = 1.5e3 + 2.5e-3 + 0.1 + 1e300\n"
         "const d = 1.5h + 5ms + 2d + 3m + 600s\n"
         "const s = \"a\\\"b\\\\c\\n\\t\\r\" + \"\xc3\xa9\"\n"
         "const b = true or false\n"),
     "(job a)\n"
     "(const n 42)\n"
     "(const r (+ (+ (+ 1500 0.0025) 0.1) 1e+300))\n"
     "(const d (+ (+ (+ (+ 5400s 0.005s) 172800s) 180s) 600s))\n"
     "(const s (+ \"a\\\"b\\\\c\\n\\t\\r\" \"é\"))\n"
     "(const b (or true false))\n"},
    /* data: every type form and attribute */
    {LIT("job a\n"
         "data X : sparse int matrix[3, n] from \"x.svm\" format libsvm shard rows vocab \"v\" "
         "consistency bsp\n"
         "data Y : dense real vector from labels(X)\n"
         "data Z : int vector[n] from \"z\" shard like X\n"
         "data W : real matrix from \"w\"\n"
         "data V : sparse vector from \"v\"\n"),
     "(job a)\n"
     "(data X (sparse int matrix [3, n]) (from \"x.svm\") (format libsvm) (shard rows) (vocab \"v\") (consistency bsp))\n"
     "(data Y (dense real vector) (from labels(X)))\n"
     "(data Z (int vector [n]) (from \"z\") (shard like X))\n"
     "(data W (real matrix) (from \"w\"))\n"
     "(data V (sparse vector) (from \"v\"))\n"},
    /* param: with and without an initial value and attributes */
    {LIT("job a\n"
         "param p : dense real vector = 0 shard like X consistency ssp 2 consistency async\n"
         "param q : int vector\n"
         "param r : matrix[rows(X), k] = random(0.1)\n"
         "param s : vector consistency ssp s + 1\n"
         "param t : matrix[rows(X), 2] = from \"t.tsv\" shard like X\n"
         "param u : vector[3] = from \"\"\n"
         "seed 1\n"),
     "(job a)\n"
     "(param p (dense real vector) (= 0) (shard like X) (consistency ssp 2) (consistency async))\n"
     "(param q (int vector))\n"
     "(param r (matrix [rows(X), k]) (= random(0.1)))\n"
     "(param s (vector) (consistency ssp (+ s 1)))\n"
     "(param t (matrix [rows(X), 2]) (from \"t.tsv\") (shard like X))\n"
     "(param u (vector [3]) (from \"\"))\n"
     "(seed 1)\n"},
    /* blocks: every split */
    {LIT("job a\n"
         "blocks b = p\n"
         "blocks b = p rows\n"
         "blocks b = p each 1\n"
         "blocks b = p cols into workers * 2\n"
         "blocks b = p into 4\n"),
     "(job a)\n"
     "(blocks b p)\n"
     "(blocks b p rows)\n"
     "(blocks b p each 1)\n"
     "(blocks b p cols into (* workers 2))\n"
     "(blocks b p into 4)\n"},
    /* depend, priority, cost, order */
    {LIT("job a\n"
         "depend b(i), b(j) when i != j and abs(corr(col(X, i), col(X, j))) > 0.1\n"
         "depend b from \"edges.txt\"\n"
         "priority b(j) = abs(delta(beta[j])) + 1e-4\n"
         "cost b(j) = nnz(col(X, j))\n"
         "order b(j) = abs(cos(col(X, j), y)) - 1\n"),
     "(job a)\n"
     "(depend b(i) b(j) (and (!= i j) (> abs(corr(col(X, i), col(X, j))) 0.1)))\n"
     "(depend b (from \"edges.txt\"))\n"
     "(priority b(j) (+ abs(delta(beta[j])) 0.0001))\n"
     "(cost b(j) nnz(col(X, j)))\n"
     "(order b(j) (- abs(cos(col(X, j), y)) 1))\n"},
    /* schedule and consistency */
    {LIT("job a\n"
         "schedule s\n"
         "schedule s over b\n"
         "schedule s over b {}\n"
         "schedule s { x }\n"
         "consistency bsp\n"
         "consistency async\n"
         "consistency ssp 3\n"),
     "(job a)\n"
     "(schedule s)\n"
     "(schedule s (over b))\n"
     "(schedule s (over b) {})\n"
     "(schedule s {(x)})\n"
     "(consistency (consistency bsp))\n"
     "(consistency (consistency async))\n"
     "(consistency (consistency ssp 3))\n"},
    /* update, objective: lua and builtin hooks, options, every */
    {LIT("job a\n"
         "update lua \"u.lua\"\n"
         "update lua \"u.lua\" \"step\" { a 1 }\n"
         "update builtin x\n"
         "objective lua \"o.lua\" every 10\n"
         "objective builtin x { a } every 2 sweeps\n"
         "objective builtin y every 10s\n"
         "objective lua \"o.lua\" \"f\" { k = 1 } every n * 2 rounds\n"),
     "(job a)\n"
     "(update lua \"u.lua\")\n"
     "(update lua \"u.lua\" \"step\" {(a 1)})\n"
     "(update builtin x)\n"
     "(objective lua \"o.lua\" (every 10))\n"
     "(objective builtin x {(a)} (every 2 sweeps))\n"
     "(objective builtin y (every 10s))\n"
     "(objective lua \"o.lua\" \"f\" {(k 1)} (every (* n 2) rounds))\n"},
    /* stop, output, seed */
    {LIT("job a\n"
         "stop when x\n"
         "stop when sweeps >= 100 or rel_change(objective) < 1e-7 or seconds > 10m\n"
         "output p to \"p.tsv\"\n"
         "output p to \"p.tsv\" format tsv shard rows\n"
         "seed 42\n"
         "seed -1\n"),
     "(job a)\n"
     "(stop x)\n"
     "(stop (or (or (>= sweeps 100) (< rel_change(objective) 1e-07)) (> seconds 600s)))\n"
     "(output p \"p.tsv\")\n"
     "(output p \"p.tsv\" (format tsv) (shard rows))\n"
     "(seed 42)\n"
     "(seed (- 1))\n"},
    /* checkpoint: a duration, a count with its unit, any expression, any
     * word as the unit (the compiler checks it) */
    {LIT("job a\n"
         "checkpoint every 5m to \"ckpt\"\n"
         "checkpoint every 10 sweeps to \"/tmp/c\"\n"
         "checkpoint every n * 2 rounds to \"\"\n"
         "checkpoint every 10 minutes to \"c\"\n"
         "checkpoint every\n  90s to \"c\"\n"),
     "(job a)\n"
     "(checkpoint (every 300s) \"ckpt\")\n"
     "(checkpoint (every 10 sweeps) \"/tmp/c\")\n"
     "(checkpoint (every (* n 2) rounds) \"\")\n"
     "(checkpoint (every 10 minutes) \"c\")\n"
     "(checkpoint (every 90s) \"c\")\n"},
    /* 'checkpoint' is a plain word inside { }, as a value */
    {LIT("job a\nschedule s { a = checkpoint }\n"),
     "(job a)\n"
     "(schedule s {(a checkpoint)})\n"},
    /* options: with and without '=', several values, every separator, a
     * trailing separator, an empty block, blank lines */
    {LIT("job a\n"
         "schedule s {\n"
         "\n"
         "    sample 256\n"
         "    keep = independent\n"
         "    warmup 3 sweeps; balance, pipeline = 1\n"
         "    values = -1 -2.5 \"s\" true false 5ms b\n"
         "\n"
         "}\n"
         "schedule t { a = 1, b = 2, }\n"
         "schedule u {\n"
         "}\n"),
     "(job a)\n"
     "(schedule s {(sample 256) (keep independent) (warmup 3 sweeps) (balance) (pipeline 1) (values -1 -2.5 \"s\" true false 0.005s b)})\n"
     "(schedule t {(a 1) (b 2)})\n"
     "(schedule u {})\n"},
    /* keywords are plain words inside { }: any keyword as a value, any but
     * the statement keywords (and true, false) as a key */
    {LIT("job a\n"
         "update builtin lda { sampler = sparse, mode = and, from = data job }\n"
         "schedule s { over = to; from each; a = const seed stop objective order }\n"),
     "(job a)\n"
     "(update builtin lda {(sampler sparse) (mode and) (from data job)})\n"
     "(schedule s {(over to) (from each) (a const seed stop objective order)})\n"},
    /* inside { } a newline after a keyword ends the option */
    {LIT("job a\n"
         "update builtin lda {\n"
         "    sampler = sparse\n"
         "    alpha = 0.1\n"
         "    mode dense\n"
         "    format\n"
         "    beta 1\n"
         "}\n"),
     "(job a)\n"
     "(update builtin lda {(sampler sparse) (alpha 0.1) (mode dense) (format) (beta 1)})\n"},
    /* several separators in a row, blank lines, separators only */
    {LIT("job a\n"
         "schedule s { a 1;; b 2,, ;\n c 3 }\n"
         "schedule t {\n"
         "\n"
         "    a 1\n"
         "\n"
         "\n"
         "    b 2\n"
         "\n"
         "}\n"
         "schedule u { , }\n"
         "schedule v {;\n;}\n"),
     "(job a)\n"
     "(schedule s {(a 1) (b 2) (c 3)})\n"
     "(schedule t {(a 1) (b 2)})\n"
     "(schedule u {})\n"
     "(schedule v {})\n"},
    /* negative durations are option values */
    {LIT("job a\nschedule s { t = -5s, u -1.5ms -2m, v = -2 }\n"),
     "(job a)\n"
     "(schedule s {(t -5s) (u -0.0015s -120s) (v -2)})\n"},
    /* precedence: unary minus binds looser than ^ */
    {LIT("job a\nconst a = -x^2\nconst b = -2^2\nconst c = 2^-1\nconst d = -(-x)\n"),
     "(job a)\n"
     "(const a (- (^ x 2)))\n"
     "(const b (- (^ 2 2)))\n"
     "(const c (^ 2 (- 1)))\n"
     "(const d (- (- x)))\n"},
    /* ^ is right-associative; - and / are left-associative */
    {LIT("job a\nconst a = 2^3^2\nconst b = a - b - c\nconst c = a / b / c\n"
         "const d = 2^-x^2\n"),
     "(job a)\n"
     "(const a (^ 2 (^ 3 2)))\n"
     "(const b (- (- a b) c))\n"
     "(const c (/ (/ a b) c))\n"
     "(const d (^ 2 (- (^ x 2))))\n"},
    /* not binds looser than comparisons, tighter than and; and tighter than or */
    {LIT("job a\n"
         "const a = not a and b\n"
         "const b = a or b and c\n"
         "const c = not a == b\n"
         "const d = not not a\n"
         "const e = a < b or c >= d and e <= f\n"
         "const f = (a > b) == true\n"),
     "(job a)\n"
     "(const a (and (not a) b))\n"
     "(const b (or a (and b c)))\n"
     "(const c (not (== a b)))\n"
     "(const d (not (not a)))\n"
     "(const e (or (< a b) (and (>= c d) (<= e f))))\n"
     "(const f (== (> a b) true))\n"},
    {LIT("job a\nconst a = a + b * c % d / e - f\nconst b = (1 + 2) * 3\n"),
     "(job a)\n"
     "(const a (- (+ a (/ (% (* b c) d) e)) f))\n"
     "(const b (* (+ 1 2) 3))\n"},
    /* every comparison operator */
    {LIT("job a\nconst a = x == 1\nconst b = x != 1\nconst c = x < 1\nconst d = x <= 1\n"
         "const e = x > 1\nconst f = x >= 1\n"),
     "(job a)\n"
     "(const a (== x 1))\n"
     "(const b (!= x 1))\n"
     "(const c (< x 1))\n"
     "(const d (<= x 1))\n"
     "(const e (> x 1))\n"
     "(const f (>= x 1))\n"},
    /* calls and indexing */
    {LIT("job a\n"
         "const a = f()\n"
         "const b = g(1, h(2), \"s\")\n"
         "const c = x[1, 2]\n"
         "const d = x[i][j + 1]\n"
         "const e = f(x)[1]\n"
         "const f = objective\n"),
     "(job a)\n"
     "(const a f())\n"
     "(const b g(1, h(2), \"s\"))\n"
     "(const c x[1, 2])\n"
     "(const d x[i][(+ j 1)])\n"
     "(const e f(x)[1])\n"
     "(const f objective)\n"},
    /* expressions over several lines: inside brackets and after operators */
    {LIT("job a\n"
         "const x = (1 +\n"
         "  2) * f(\n"
         "3,\n"
         "4\n"
         ") + y[\n"
         "1]\n"
         "const z = 1 +\n"
         "2 *\n"
         "3\n"),
     "(job a)\n"
     "(const x (+ (* (+ 1 2) f(3, 4)) y[1]))\n"
     "(const z (+ 1 (* 2 3)))\n"},
    /* ';' separates statements, on one line or many */
    {LIT("job a; const x = 1; seed 2;\n;;\nconst y = 3;"),
     "(job a)\n"
     "(const x 1)\n"
     "(seed 2)\n"
     "(const y 3)\n"},
    /* vector and matrix end a statement; a statement split after 'from' */
    {LIT("job a\n"
         "param r : vector\n"
         "param q : dense int matrix\n"
         "data X : sparse matrix from\n"
         "    \"x.svm\" format libsvm\n"
         "param s : vector"),
     "(job a)\n"
     "(param r (vector))\n"
     "(param q (dense int matrix))\n"
     "(data X (sparse matrix) (from \"x.svm\") (format libsvm))\n"
     "(param s (vector))\n"},
    /* a UTF-8 byte-order mark at the start is skipped */
    {LIT("\xef\xbb\xbfjob a\nconst x = 1\n"),
     "(job a)\n"
     "(const x 1)\n"},
    {LIT("\xef\xbb\xbf\n# comment\njob a\n"), "(job a)\n"},
    /* a parenthesised 'not' after a comparison */
    {LIT("job a\nconst x = a == (not b)\n"),
     "(job a)\n"
     "(const x (== a (not b)))\n"},
    /* the last statement needs no final newline */
    {LIT("job a\nconst x = 1"),
     "(job a)\n"
     "(const x 1)\n"},
    {LIT("job a\nschedule s { a 1 }"),
     "(job a)\n"
     "(schedule s {(a 1)})\n"},
    /* comments anywhere; nested block comments; a block comment in an
     * expression */
    {LIT("job a # the job\n"
         "#[ a #[ nested ]# block ]#\n"
         "const x = 1 #[ inline ]# + 2\n"
         "const y = (1 + # inside brackets\n"
         "  2)\n"
         "#\n"),
     "(job a)\n"
     "(const x (+ 1 2))\n"
     "(const y (+ 1 2))\n"},
    /* CRLF line endings */
    {LIT("job a\r\nconst x = 1 +\r\n  2\r\nschedule s {\r\n  a 1\r\n}\r\n"),
     "(job a)\n"
     "(const x (+ 1 2))\n"
     "(schedule s {(a 1)})\n"},
    /* a 255-character name is the longest allowed */
    {LIT("job a\nconst " A255 " = 1\n"),
     "(job a)\n"
     "(const " A255 " 1)\n"},
    /* 256 nested brackets is the limit */
    {LIT("job a\nconst x = " REP256("(") "1" REP256(")") "\n"),
     "(job a)\n"
     "(const x 1)\n"},
};
/* clang-format on */

START_TEST(test_accept)
{
    const struct parse_row *r = &accept_rows[_i];
    struct result res = parse_text(r->src, r->len);
    ck_assert_msg(res.rc == 0, "accept row %d: rc %d, diagnostics:\n%s", _i, res.rc, res.diags);
    ck_assert_str_eq(res.diags, "");
    tu_expect_text("accept", _i, res.dump, r->expected, NULL);
    result_free(&res);
}
END_TEST

struct example_row {
    const char *path;
    const char *expected;
};

/* clang-format off */
static const struct example_row example_rows[] = {
    {"examples/lasso/lasso.ptm",
     "(job lasso)\n"
     "(const lambda 0.001)\n"
     "(data X (sparse matrix) (from \"data/lasso.svm\") (format libsvm) (shard rows))\n"
     "(data y (vector) (from labels(X)))\n"
     "(param beta (vector [cols(X)]) (= 0))\n"
     "(param b (vector [1]) (= 0))\n"
     "(param r (vector [rows(X)]) (= y) (shard like X))\n"
     "(blocks coef beta each 1)\n"
     "(priority coef(j) abs(delta(beta[j])))\n"
     "(cost coef(j) nnz(col(X, j)))\n"
     "(schedule dynamic {(sample 1000) (active) (balance) (pipeline 1)})\n"
     "(update builtin lasso_cd {(lambda lambda) (intercept b) (within sequential)})\n"
     "(objective builtin lasso_objective {(lambda lambda) (intercept b)} (every 1 sweeps))\n"
     "(stop (or (or (>= sweeps 100) (< rel_change(objective) 1e-07)) (> seconds 600s)))\n"
     "(output beta \"beta.tsv\")\n"
     "(output b \"b.tsv\")\n"},
    {"examples/lda/lda.ptm",
     "(job lda)\n"
     "(const topics 100)\n"
     "(data D (sparse int matrix) (from \"data/docword.txt\") (format uci) (vocab \"data/vocab.txt\") (shard rows))\n"
     "(param nwk (int matrix [cols(D), topics]) (= 0))\n"
     "(param nk (int vector [topics]) (= 0) (consistency ssp 1))\n"
     "(param ndk (int matrix [rows(D), topics]) (= 0) (shard like D))\n"
     "(blocks words nwk rows into workers)\n"
     "(schedule rotation (over words))\n"
     "(update builtin lda_gibbs {(alpha 0.1) (beta 0.01) (sampler dense)})\n"
     "(objective builtin lda_loglik (every 5 sweeps))\n"
     "(stop (or (>= sweeps 100) (> seconds 600s)))\n"
     "(output nwk \"word_topic.tsv\")\n"
     "(output ndk \"doc_topic.tsv\")\n"},
    {"examples/logreg/logreg_ssp.ptm",
     "(job logreg_ssp)\n"
     "(const rate 0.5)\n"
     "(const l2 0.0001)\n"
     "(data X (sparse matrix) (from \"data/train.svm\") (format libsvm) (shard rows))\n"
     "(data y (vector) (from labels(X)))\n"
     "(param w (vector [cols(X)]) (= 0) (consistency ssp 2))\n"
     "(param b (vector [1]) (= 0))\n"
     "(schedule data_parallel {(minibatch 1000)})\n"
     "(update builtin logreg_sgd {(method sgd) (rate rate) (l2 l2) (intercept b)})\n"
     "(objective builtin logloss {(l2 l2) (intercept b)} (every 1 sweeps))\n"
     "(stop (or (>= sweeps 20) (< rel_change(objective) 1e-06)))\n"
     "(output w \"w_ssp.tsv\")\n"
     "(output b \"b_ssp.tsv\")\n"},
    {"examples/mf/mf.ptm",
     "(job mf)\n"
     "(const rank 10)\n"
     "(data R (sparse matrix) (from \"data/ratings.mtx\") (format mm) (shard rows))\n"
     "(data T (sparse matrix) (from \"data/test.mtx\") (format mm))\n"
     "(param W (matrix [rows(R), rank]) (= random(0.1)) (shard like R))\n"
     "(param H (matrix [cols(R), rank]) (= random(0.1)))\n"
     "(blocks hb H rows into workers)\n"
     "(schedule rotation (over hb))\n"
     "(update builtin mf_sgd {(rate 0.2) (reg 0.05) (step adaptive) (penalty total)})\n"
     "(objective builtin rmse {(test T)} (every 1 sweeps))\n"
     "(stop (or (>= sweeps 30) (> seconds 300s)))\n"
     "(output W \"W.tsv\")\n"
     "(output H \"H.tsv\")\n"},
};
/* clang-format on */

START_TEST(test_examples)
{
    const struct example_row *r = &example_rows[_i];
    size_t len;
    char *text = tu_read_file(r->path, &len);
    ck_assert_msg(text != NULL, "cannot open %s (run from the repository root)", r->path);
    struct result res = parse_text(text, len);
    ck_assert_msg(res.rc == 0, "%s: rc %d, diagnostics:\n%s", r->path, res.rc, res.diags);
    ck_assert_str_eq(res.diags, "");
    tu_expect_text("example", _i, res.dump, r->expected, NULL);
    result_free(&res);
    free(text);
}
END_TEST

/* ---- c. rejected programs ----------------------------------------------- */

/* clang-format off */
static const struct parse_row reject_rows[] = {
    /* empty and comment-only files: the end of the file is reported at 1:1 */
    {LIT(""), "t.ptm:1:1: error: unexpected end of file, expected 'job'\n"},
    {LIT("# only a comment\n#[ and a block ]#\n"),
     "t.ptm:1:1: error: unexpected end of file, expected 'job'\n"
     "    # only a comment\n"
     "    ^\n"},
    {LIT("\n\n\n"), "t.ptm:1:1: error: unexpected end of file, expected 'job'\n"},
    /* strings */
    {LIT("job a\nconst s = \"abc\nseed 1\n"),
     "t.ptm:2:11: error: unterminated string (a string ends on the line it starts)\n"
     "    const s = \"abc\n"
     "              ^\n"},
    {LIT("job a\nconst s = \"abc\\\n"),
     "t.ptm:2:11: error: unterminated string (a string ends on the line it starts)\n"
     "    const s = \"abc\\\n"
     "              ^\n"},
    {LIT("job a\nconst s = \"a\\qb\"\n"),
     "t.ptm:2:13: error: unknown escape '\\q' in string (use \\\" \\\\ \\n \\t \\r)\n"
     "    const s = \"a\\qb\"\n"
     "                ^^\n"},
    {LIT("job a\nconst s = \"\\x41\"\n"),
     "t.ptm:2:12: error: unknown escape '\\x' in string (use \\\" \\\\ \\n \\t \\r)\n"
     "    const s = \"\\x41\"\n"
     "               ^^\n"},
    {LIT("job a\nconst s = \"a\\\001\"\n"),
     "t.ptm:2:13: error: unknown escape in string (use \\\" \\\\ \\n \\t \\r)\n"
     "    const s = \"a\\?\"\n"
     "                ^^\n"},
    /* block comments */
    {LIT("job a\n#[ abc\nconst x = 1\n"),
     "t.ptm:2:1: error: unterminated block comment (missing ']#')\n"
     "    #[ abc\n"
     "    ^^\n"},
    {LIT("job a\n#[ a #[ b ]# c\n"),
     "t.ptm:2:1: error: unterminated block comment (missing ']#')\n"
     "    #[ a #[ b ]# c\n"
     "    ^^\n"},
    /* malformed numbers */
    {LIT("job a\nconst x = 1.2.3\n"),
     "t.ptm:2:11: error: malformed number '1.2.3'\n"
     "    const x = 1.2.3\n"
     "              ^^^^^\n"},
    {LIT("job a\nconst x = 1e\n"),
     "t.ptm:2:11: error: malformed number '1e'\n"
     "    const x = 1e\n"
     "              ^^\n"},
    {LIT("job a\nconst x = 12abc\n"),
     "t.ptm:2:11: error: unknown unit 'abc' in '12abc' (durations take ms, s, m, h or d)\n"
     "    const x = 12abc\n"
     "              ^^^^^\n"},
    {LIT("job a\nconst x = .5\n"),
     "t.ptm:2:11: error: malformed number '.5' (write a digit before the point)\n"
     "    const x = .5\n"
     "              ^^\n"},
    {LIT("job a\nconst x = 3.\n"),
     "t.ptm:2:11: error: malformed number '3.'\n"
     "    const x = 3.\n"
     "              ^^\n"},
    {LIT("job a\nconst x = 2x\n"),
     "t.ptm:2:11: error: unknown unit 'x' in '2x' (durations take ms, s, m, h or d)\n"
     "    const x = 2x\n"
     "              ^^\n"},
    {LIT("job a\nconst x = 1e999\n"),
     "t.ptm:2:11: error: number '1e999' is out of range\n"
     "    const x = 1e999\n"
     "              ^^^^^\n"},
    {LIT("job a\nconst x = 1e308d\n"),
     "t.ptm:2:11: error: duration '1e308d' is out of range\n"
     "    const x = 1e308d\n"
     "              ^^^^^^\n"},
    {LIT("job a\nconst x = 600sec\n"),
     "t.ptm:2:11: error: unknown unit 'sec' in '600sec' (durations take ms, s, m, h or d)\n"
     "    const x = 600sec\n"
     "              ^^^^^^\n"},
    {LIT("job a\nconst x = 10sx\n"),
     "t.ptm:2:11: error: unknown unit 'sx' in '10sx' (durations take ms, s, m, h or d)\n"
     "    const x = 10sx\n"
     "              ^^^^\n"},
    /* statements */
    {LIT("job a\nparamm x : vector\n"),
     "t.ptm:2:1: error: unknown statement 'paramm' (did you mean 'param'?)\n"
     "    paramm x : vector\n"
     "    ^^^^^^\n"},
    {LIT("job a\nfoo x : vector\n"),
     "t.ptm:2:1: error: unknown statement 'foo'\n"
     "    foo x : vector\n"
     "    ^^^\n"},
    {LIT("job a\nouptut w to \"w.tsv\"\n"),
     "t.ptm:2:1: error: unknown statement 'ouptut' (did you mean 'output'?)\n"
     "    ouptut w to \"w.tsv\"\n"
     "    ^^^^^^\n"},
    {LIT("job a\nordre b(j) = 1\n"),
     "t.ptm:2:1: error: unknown statement 'ordre' (did you mean 'order'?)\n"
     "    ordre b(j) = 1\n"
     "    ^^^^^\n"},
    {LIT("job a\nconst order = 1\n"),
     "t.ptm:2:7: error: unexpected 'order', expected a name ('order' is a reserved word)\n"
     "    const order = 1\n"
     "          ^^^^^\n"},
    {LIT("job a\norder b = 1\n"),
     "t.ptm:2:9: error: unexpected '=', expected '('\n"
     "    order b = 1\n"
     "            ^\n"},
    {LIT("job a\nschedule s { a 1, order 2 }\n"),
     "t.ptm:2:19: error: unexpected 'order', expected a name ('order' is a reserved word)\n"
     "    schedule s { a 1, order 2 }\n"
     "                      ^^^^^\n"},
    {LIT("job a\nschedule s {\n  a 1\norder b(j) = 1\n"),
     "t.ptm:4:1: error: unexpected 'order' inside '{ }': is a '}' missing?\n"
     "    order b(j) = 1\n"
     "    ^^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s {\n"
     "               ^\n"},
    {LIT("job a\nchekpoint every 5m to \"c\"\n"),
     "t.ptm:2:1: error: unknown statement 'chekpoint' (did you mean 'checkpoint'?)\n"
     "    chekpoint every 5m to \"c\"\n"
     "    ^^^^^^^^^\n"},
    {LIT("job a\ncheckpoint to \"c\"\n"),
     "t.ptm:2:12: error: unexpected 'to', expected 'every'\n"
     "    checkpoint to \"c\"\n"
     "               ^^\n"},
    {LIT("job a\ncheckpoint every 5m\n"),
     "t.ptm:2:20: error: unexpected newline, expected name or 'to'\n"
     "    checkpoint every 5m\n"
     "                       ^\n"},
    {LIT("job a\ncheckpoint every 10 rounds to ckpt\n"),
     "t.ptm:2:31: error: unexpected name 'ckpt', expected string\n"
     "    checkpoint every 10 rounds to ckpt\n"
     "                                  ^^^^\n"},
    {LIT("job a\ncheckpoint every 10 rounds sweeps to \"c\"\n"),
     "t.ptm:2:28: error: unexpected name 'sweeps', expected 'to'\n"
     "    checkpoint every 10 rounds sweeps to \"c\"\n"
     "                               ^^^^^^\n"},
    {LIT("job a\nconst checkpoint = 1\n"),
     "t.ptm:2:7: error: unexpected 'checkpoint', expected a name ('checkpoint' is a reserved word)\n"
     "    const checkpoint = 1\n"
     "          ^^^^^^^^^^\n"},
    /* a statement keyword: it ends the broken line above, and inside { }
     * it means a '}' is missing */
    {LIT("job a\nconst x = (1 +\ncheckpoint every 5m to \"c\"\ncheckpoint every 5m to 1\n"),
     "t.ptm:2:15: error: unexpected newline, expected expression\n"
     "    const x = (1 +\n"
     "                  ^\n"
     "t.ptm:2:11: note: to match this '('\n"
     "    const x = (1 +\n"
     "              ^\n"
     "t.ptm:4:24: error: unexpected number '1', expected string\n"
     "    checkpoint every 5m to 1\n"
     "                           ^\n"},
    {LIT("job a\nschedule s {\n  a 1\ncheckpoint every 5m to \"c\"\n"),
     "t.ptm:4:1: error: unexpected 'checkpoint' inside '{ }': is a '}' missing?\n"
     "    checkpoint every 5m to \"c\"\n"
     "    ^^^^^^^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s {\n"
     "               ^\n"},
    {LIT("job a\nconst job = 1\n"),
     "t.ptm:2:7: error: unexpected 'job', expected a name ('job' is a reserved word)\n"
     "    const job = 1\n"
     "          ^^^\n"},
    {LIT("job a\nparam data : vector\n"),
     "t.ptm:2:7: error: unexpected 'data', expected a name ('data' is a reserved word)\n"
     "    param data : vector\n"
     "          ^^^^\n"},
    {LIT("job a\nconst x = int(1)\n"),
     "t.ptm:2:11: error: unexpected 'int', expected expression\n"
     "    const x = int(1)\n"
     "              ^^^\n"},
    {LIT("job a\nconst = 1\n"),
     "t.ptm:2:7: error: unexpected '=', expected name\n"
     "    const = 1\n"
     "          ^\n"},
    {LIT("job a\ndata X : matrix\n"),
     "t.ptm:2:16: error: unexpected newline, expected 'from'\n"
     "    data X : matrix\n"
     "                   ^\n"},
    {LIT("job a\nparam p : sparse\n"),
     "t.ptm:2:17: error: unexpected end of file, expected 'int', 'matrix', 'real' or 'vector'\n"
     "    param p : sparse\n"
     "                    ^\n"},
    {LIT("job a\ndepend b(i) b(j) when 1\n"),
     "t.ptm:2:13: error: unexpected name 'b', expected ','\n"
     "    depend b(i) b(j) when 1\n"
     "                ^\n"},
    {LIT("job a\nblocks b = p each\n"),
     "t.ptm:2:18: error: unexpected end of file, expected expression\n"
     "    blocks b = p each\n"
     "                     ^\n"},
    {LIT("job a\nupdate lua x\n"),
     "t.ptm:2:12: error: unexpected name 'x', expected string\n"
     "    update lua x\n"
     "               ^\n"},
    {LIT("job a\nobjective builtin\n"),
     "t.ptm:2:18: error: unexpected end of file, expected name\n"
     "    objective builtin\n"
     "                     ^\n"},
    {LIT("job a\nconsistency foo\n"),
     "t.ptm:2:13: error: unexpected name 'foo', expected 'async', 'bsp' or 'ssp'\n"
     "    consistency foo\n"
     "                ^^^\n"},
    {LIT("job a\nstop 3\n"),
     "t.ptm:2:6: error: unexpected number '3', expected 'when'\n"
     "    stop 3\n"
     "         ^\n"},
    {LIT("job a\nseed 1 2\n"),
     "t.ptm:2:8: error: unexpected number '2', expected newline or ';'\n"
     "    seed 1 2\n"
     "           ^\n"},
    {LIT("job a\nconst x = a = b\n"),
     "t.ptm:2:13: error: unexpected '=' (write '==' to compare)\n"
     "    const x = a = b\n"
     "                ^\n"},
    {LIT("job a\noutput p to x\n"),
     "t.ptm:2:13: error: unexpected name 'x', expected string\n"
     "    output p to x\n"
     "                ^\n"},
    {LIT("job a\nparam w : vectr\n"),
     "t.ptm:2:11: error: unexpected name 'vectr' (did you mean 'vector'?)\n"
     "    param w : vectr\n"
     "              ^^^^^\n"},
    {LIT("job a\nparam w : dense sparse vector\n"),
     "t.ptm:2:17: error: unexpected 'sparse', expected 'int', 'matrix', 'real' or 'vector'\n"
     "    param w : dense sparse vector\n"
     "                    ^^^^^^\n"},
    {LIT("job a\nconst x = f(,)\n"),
     "t.ptm:2:13: error: unexpected ',', expected expression or ')'\n"
     "    const x = f(,)\n"
     "                ^\n"},
    {LIT("job a\nconst x = f(1,)\n"),
     "t.ptm:2:15: error: unexpected ')', expected expression\n"
     "    const x = f(1,)\n"
     "                  ^\n"},
    {LIT("job a\nconst x = y[]\n"),
     "t.ptm:2:13: error: unexpected ']', expected expression\n"
     "    const x = y[]\n"
     "                ^\n"},
    {LIT("job a\nconst x = \"a\" \"b\"\n"),
     "t.ptm:2:15: error: unexpected string, expected newline or ';'\n"
     "    const x = \"a\" \"b\"\n"
     "                  ^^^\n"},
    /* = and == mixed up */
    {LIT("job a\npriority b(j) == 1\n"),
     "t.ptm:2:15: error: unexpected '==', expected '='\n"
     "    priority b(j) == 1\n"
     "                  ^^\n"},
    {LIT("job a\nconst x == 1\n"),
     "t.ptm:2:9: error: unexpected '==', expected '='\n"
     "    const x == 1\n"
     "            ^^\n"},
    {LIT("job a\nstop when sweeps = 100\n"),
     "t.ptm:2:18: error: unexpected '=' (write '==' to compare)\n"
     "    stop when sweeps = 100\n"
     "                     ^\n"},
    /* brackets left open or closed twice */
    {LIT("job a\nschedule x {\n  a 1\n"),
     "t.ptm:3:6: error: unexpected end of file\n"
     "      a 1\n"
     "         ^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule x {\n"
     "               ^\n"},
    {LIT("job a\nschedule x {\n  a 1\nconst y = 2\n"),
     "t.ptm:4:1: error: unexpected 'const' inside '{ }': is a '}' missing?\n"
     "    const y = 2\n"
     "    ^^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule x {\n"
     "               ^\n"},
    {LIT("job a\nconst x = f(1, 2\nseed 1\n"),
     "t.ptm:2:17: error: unexpected newline, expected ')' or ','\n"
     "    const x = f(1, 2\n"
     "                    ^\n"
     "t.ptm:2:12: note: to match this '('\n"
     "    const x = f(1, 2\n"
     "               ^\n"},
    {LIT("job a\nconst x = (1 + 2"),
     "t.ptm:2:17: error: unexpected end of file, expected ')'\n"
     "    const x = (1 + 2\n"
     "                    ^\n"
     "t.ptm:2:11: note: this '(' is not closed\n"
     "    const x = (1 + 2\n"
     "              ^\n"},
    {LIT("job a\nconst x = f(1,\nseed 2\n"),
     "t.ptm:2:15: error: unexpected newline, expected expression\n"
     "    const x = f(1,\n"
     "                  ^\n"
     "t.ptm:2:12: note: to match this '('\n"
     "    const x = f(1,\n"
     "               ^\n"},
    {LIT("job a\nconst x = y[1\nconst z = 2\n"),
     "t.ptm:2:14: error: unexpected newline, expected ',' or ']'\n"
     "    const x = y[1\n"
     "                 ^\n"
     "t.ptm:2:12: note: to match this '['\n"
     "    const x = y[1\n"
     "               ^\n"},
    {LIT("job a\nconst x = 1)\n"),
     "t.ptm:2:12: error: unexpected ')', expected newline or ';'\n"
     "    const x = 1)\n"
     "               ^\n"},
    {LIT("job a\nschedule x { a 1 }\n}\n"),
     "t.ptm:3:1: error: unexpected '}'\n"
     "    }\n"
     "    ^\n"},
    /* stray characters */
    {LIT("job a\nconst x = $\n"),
     "t.ptm:2:11: error: unexpected character '$'\n"
     "    const x = $\n"
     "              ^\n"},
    {LIT("job a\nconst x = @\n"),
     "t.ptm:2:11: error: unexpected character '@'\n"
     "    const x = @\n"
     "              ^\n"},
    {LIT("job a\nconst x = a && b\n"),
     "t.ptm:2:13: error: unexpected '&&' (write 'and')\n"
     "    const x = a && b\n"
     "                ^^\n"},
    {LIT("job a\nconst x = a || b\n"),
     "t.ptm:2:13: error: unexpected '||' (write 'or')\n"
     "    const x = a || b\n"
     "                ^^\n"},
    {LIT("job a\nconst x = !a\n"),
     "t.ptm:2:11: error: unexpected '!' (write 'not')\n"
     "    const x = !a\n"
     "              ^\n"},
    {LIT("job a\nconst x = a ** 2\n"),
     "t.ptm:2:13: error: unexpected '**' (write '^' for powers)\n"
     "    const x = a ** 2\n"
     "                ^^\n"},
    {LIT("job a\nconst x := 2\n"),
     "t.ptm:2:9: error: unexpected ':=' (write '=')\n"
     "    const x := 2\n"
     "            ^^\n"},
    {LIT("job a\nconst x = 1 ? 2 : 3\n"),
     "t.ptm:2:13: error: unexpected character '?'\n"
     "    const x = 1 ? 2 : 3\n"
     "                ^\n"},
    /* bytes that are not UTF-8, outside and inside strings */
    {LIT("job a\nconst x = \xff\n"),
     "t.ptm:2:11: error: invalid UTF-8 byte 0xFF\n"
     "    const x = ?\n"
     "              ^\n"},
    {LIT("job a\nconst x = \xc3\n"),
     "t.ptm:2:11: error: invalid UTF-8 byte 0xC3\n"
     "    const x = ?\n"
     "              ^\n"},
    {LIT("job a\nconst x = \xc3 + 1\n"),
     "t.ptm:2:11: error: invalid UTF-8 byte 0xC3\n"
     "    const x = ? + 1\n"
     "              ^\n"},
    {LIT("job a\nconst s = \"a\xff" "b\"\n"),
     "t.ptm:2:13: error: invalid UTF-8 in string (byte 0xFF)\n"
     "    const s = \"a?b\"\n"
     "                ^\n"},
    {LIT("job a\nconst s = \"a\xc3\"\n"),
     "t.ptm:2:13: error: invalid UTF-8 in string (byte 0xC3)\n"
     "    const s = \"a?\"\n"
     "                ^\n"},
    {LIT("job a\nconst s = \"\xed\xa0\x80\"\n"),
     "t.ptm:2:12: error: invalid UTF-8 in string (byte 0xED)\n"
     "    const s = \"???\"\n"
     "               ^^^\n"},
    /* valid UTF-8 outside a string */
    {LIT("job a\nconst x = \xc3\xa9\n"),
     "t.ptm:2:11: error: unexpected character 'é' (U+00E9)\n"
     "    const x = é\n"
     "              ^\n"},
    {LIT("job a\nconst caf\xc3\xa9 = 1\n"),
     "t.ptm:2:10: error: unexpected character 'é' (U+00E9)\n"
     "    const café = 1\n"
     "             ^\n"},
    /* NUL bytes and control characters */
    {LIT("job a\nconst x = \0\n"),
     "t.ptm:2:11: error: unexpected NUL byte\n"
     "    const x = ?\n"
     "              ^\n"},
    {LIT("job a\nconst s = \"a\0b\"\n"),
     "t.ptm:2:13: error: NUL byte in string\n"
     "    const s = \"a?b\"\n"
     "                ^\n"},
    {LIT("job\0 a\n"),
     "t.ptm:1:4: error: unexpected NUL byte\n"
     "    job? a\n"
     "       ^\n"},
    {LIT("job a\nconst x = \001\n"),
     "t.ptm:2:11: error: unexpected control character 0x01\n"
     "    const x = ?\n"
     "              ^\n"},
    {LIT("job a\nconst x = \177\n"),
     "t.ptm:2:11: error: unexpected control character 0x7F\n"
     "    const x = ?\n"
     "              ^\n"},
    {LIT("job a\nconst s = \"a\001b\"\n"),
     "t.ptm:2:13: error: control character 0x01 in string\n"
     "    const s = \"a?b\"\n"
     "                ^\n"},
    /* comparisons do not chain */
    {LIT("job a\nconst x = 1 < 2 < 3\n"),
     "t.ptm:2:17: error: unexpected '<' (comparisons do not chain; join them with 'and')\n"
     "    const x = 1 < 2 < 3\n"
     "                    ^\n"},
    {LIT("job a\nconst x = a == b == c\n"),
     "t.ptm:2:18: error: unexpected '==' (comparisons do not chain; join them with 'and')\n"
     "    const x = a == b == c\n"
     "                     ^^\n"},
    {LIT("job a\nstop when a < b >= c\n"),
     "t.ptm:2:17: error: unexpected '>=' (comparisons do not chain; join them with 'and')\n"
     "    stop when a < b >= c\n"
     "                    ^^\n"},
    /* several errors in one file, each reported on its own statement */
    {LIT("job a\nconst = 1\nparam : vector\nstop 3\nconst x = $\nparamm y\nseed\n"),
     "t.ptm:2:7: error: unexpected '=', expected name\n"
     "    const = 1\n"
     "          ^\n"
     "t.ptm:3:7: error: unexpected ':', expected name\n"
     "    param : vector\n"
     "          ^\n"
     "t.ptm:4:6: error: unexpected number '3', expected 'when'\n"
     "    stop 3\n"
     "         ^\n"
     "t.ptm:5:11: error: unexpected character '$'\n"
     "    const x = $\n"
     "              ^\n"
     "t.ptm:6:1: error: unknown statement 'paramm' (did you mean 'param'?)\n"
     "    paramm y\n"
     "    ^^^^^^\n"
     "t.ptm:7:5: error: unexpected end of file, expected expression\n"
     "    seed\n"
     "        ^\n"},
    {LIT("const x = 1\nconst y = $\nparamm z\n"),
     "t.ptm:1:1: error: unexpected 'const', expected 'job'\n"
     "    const x = 1\n"
     "    ^^^^^\n"
     "t.ptm:2:11: error: unexpected character '$'\n"
     "    const y = $\n"
     "              ^\n"
     "t.ptm:3:1: error: unknown statement 'paramm' (did you mean 'param'?)\n"
     "    paramm z\n"
     "    ^^^^^^\n"},
    /* errors at the end of the file, without a final newline */
    {LIT("job a\nconst x = 1 +"),
     "t.ptm:2:14: error: unexpected end of file, expected expression\n"
     "    const x = 1 +\n"
     "                 ^\n"},
    {LIT("job a\nconst x"),
     "t.ptm:2:8: error: unexpected newline, expected '='\n"
     "    const x\n"
     "           ^\n"},
    {LIT("job a\nconst x = $"),
     "t.ptm:2:11: error: unexpected character '$'\n"
     "    const x = $\n"
     "              ^\n"},
    {LIT("job a\nconst x = \"abc"),
     "t.ptm:2:11: error: unterminated string (a string ends on the line it starts)\n"
     "    const x = \"abc\n"
     "              ^\n"},
    {LIT("job a\nconst x = 1 + # more to come\n"),
     "t.ptm:2:14: error: unexpected end of file, expected expression\n"
     "    const x = 1 + # more to come\n"
     "                 ^\n"},
    {LIT("job a\nconst x = 1 +\n\n\n"),
     "t.ptm:2:14: error: unexpected end of file, expected expression\n"
     "    const x = 1 +\n"
     "                 ^\n"},
    /* errors inside option blocks */
    {LIT("job a\nschedule s {\n  a = 1\n  b = $\n  c = (2)\n  true = 3\n  d\n}\nconst y = 2\n"),
     "t.ptm:4:7: error: unexpected character '$'\n"
     "      b = $\n"
     "          ^\n"
     "t.ptm:5:7: error: unexpected '(', expected a value\n"
     "      c = (2)\n"
     "          ^\n"
     "t.ptm:6:3: error: unexpected 'true', expected a name ('true' is a reserved word)\n"
     "      true = 3\n"
     "      ^^^^\n"},
    {LIT("job a\nschedule s { true = 1 }\n"),
     "t.ptm:2:14: error: unexpected 'true', expected a name ('true' is a reserved word)\n"
     "    schedule s { true = 1 }\n"
     "                 ^^^^\n"},
    {LIT("job a\nupdate builtin u { rate = -x }\n"),
     "t.ptm:2:28: error: unexpected name 'x', expected number or duration\n"
     "    update builtin u { rate = -x }\n"
     "                               ^\n"},
    /* the job line */
    {LIT("const x = 1\n"),
     "t.ptm:1:1: error: unexpected 'const', expected 'job'\n"
     "    const x = 1\n"
     "    ^^^^^\n"},
    {LIT("job\n"),
     "t.ptm:1:4: error: unexpected end of file, expected name\n"
     "    job\n"
     "       ^\n"},
    {LIT("job a b\n"),
     "t.ptm:1:7: error: unexpected name 'b', expected newline or ';'\n"
     "    job a b\n"
     "          ^\n"},
    {LIT("job a\njob b\n"),
     "t.ptm:2:1: error: a file holds one job: it already began with 'job a'\n"
     "    job b\n"
     "    ^^^\n"
     "t.ptm:1:1: note: the job begins here\n"
     "    job a\n"
     "    ^^^^^\n"},
    {LIT("job a\nconst x = 1\njob b\n"),
     "t.ptm:3:1: error: a file holds one job: it already began with 'job a'\n"
     "    job b\n"
     "    ^^^\n"
     "t.ptm:1:1: note: the job begins here\n"
     "    job a\n"
     "    ^^^^^\n"},
    /* CRLF line endings: columns count characters, and a location at the
     * end of a line is shown at its CR */
    {LIT("job a\r\nconst x = 1\r\nconst y = $\r\n"),
     "t.ptm:3:11: error: unexpected character '$'\n"
     "    const y = $\n"
     "              ^\n"},
    {LIT("job a\r\nconst x = 1 +\r\n  2 $\r\n"),
     "t.ptm:3:5: error: unexpected character '$'\n"
     "      2 $\n"
     "        ^\n"},
    {LIT("job a\r\nconst x\r\nseed 1\r\n"),
     "t.ptm:2:8: error: unexpected newline, expected '='\n"
     "    const x\n"
     "           ^\n"},
    {LIT("job a\r\nschedule x {\r\n  a 1\r\n"),
     "t.ptm:3:6: error: unexpected end of file\n"
     "      a 1\n"
     "         ^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule x {\n"
     "               ^\n"},
    /* where the caret goes: after a tab, after multi-byte characters */
    {LIT("\tjob a\n\tconst x = $\n"),
     "t.ptm:2:12: error: unexpected character '$'\n"
     "    \tconst x = $\n"
     "    \t          ^\n"},
    {LIT("job a\nconst s = \"\xe6\x97\xa5\xe6\x9c\xac\" $\n"),
     "t.ptm:2:16: error: unexpected character '$'\n"
     "    const s = \"日本\" $\n"
     "                   ^\n"},
    /* a long line is shown as a window around the error */
    {LIT("job a\nconst x = 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+"
         "1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+"
         "$+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1\n"),
     "t.ptm:2:169: error: unexpected character '$'\n"
     "    ...1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+$+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+...\n"
     "                                               ^\n"},
    /* a name one character too long */
    {LIT("job a\nconst " A255 "a = 1\n"),
     "t.ptm:2:7: error: name is too long (256 characters; the limit is 255)\n"
     "    const aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\n"
     "          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"},
    /* one bracket too many */
    {LIT("job a\nconst x = " REP256("(") "(1" REP256(")") ")\n"),
     "t.ptm:2:267: error: brackets nested too deeply (more than 256 levels)\n"
     "    ...(((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))...\n"
     "                                               ^\n"},
    /* the first token is an error: the parse goes on */
    {LIT("@job a\nconst x = $\nparamm y\n"),
     "t.ptm:1:1: error: unexpected character '@'\n"
     "    @job a\n"
     "    ^\n"
     "t.ptm:2:11: error: unexpected character '$'\n"
     "    const x = $\n"
     "              ^\n"
     "t.ptm:3:1: error: unknown statement 'paramm' (did you mean 'param'?)\n"
     "    paramm y\n"
     "    ^^^^^^\n"},
    {LIT("@job a\nconst = 1\n"),
     "t.ptm:1:1: error: unexpected character '@'\n"
     "    @job a\n"
     "    ^\n"
     "t.ptm:2:7: error: unexpected '=', expected name\n"
     "    const = 1\n"
     "          ^\n"},
    {LIT("job$ a\nseed\n"),
     "t.ptm:1:4: error: unexpected character '$'\n"
     "    job$ a\n"
     "       ^\n"
     "t.ptm:2:5: error: unexpected end of file, expected expression\n"
     "    seed\n"
     "        ^\n"},
    /* a byte-order mark: skipped at the start, an error elsewhere */
    {LIT("\xef\xbb\xbf@job a\n"),
     "t.ptm:1:1: error: unexpected character '@'\n"
     "    @job a\n"
     "    ^\n"},
    {LIT("job a\nconst x = \xef\xbb\xbf" "1\n"),
     "t.ptm:2:11: error: unexpected character '﻿' (U+FEFF)\n"
     "    const x = ﻿1\n"
     "              ^\n"},
    /* "expected" lists are exact */
    {LIT("job a\nparam p : dense int\n"),
     "t.ptm:2:20: error: unexpected end of file, expected 'matrix' or 'vector'\n"
     "    param p : dense int\n"
     "                       ^\n"},
    {LIT("job a\nblocks b = p rows\nblocks c = p each\n"),
     "t.ptm:3:18: error: unexpected end of file, expected expression\n"
     "    blocks c = p each\n"
     "                     ^\n"},
    {LIT("job a\ndata X : matrix[2] to\n"),
     "t.ptm:2:20: error: unexpected 'to', expected 'from'\n"
     "    data X : matrix[2] to\n"
     "                       ^^\n"},
    /* vector and matrix end a statement */
    /* REPORTED: the second error is a consequence of the first */
    {LIT("job a\ndata X : sparse matrix\n    from \"x.svm\"\nseed 1\n"),
     "t.ptm:2:23: error: unexpected newline, expected 'from'\n"
     "    data X : sparse matrix\n"
     "                          ^\n"
     "t.ptm:3:5: error: unexpected 'from'\n"
     "        from \"x.svm\"\n"
     "        ^^^^\n"},
    {LIT("job a\nparam W : matrix\n    [3, 4]\n"),
     "t.ptm:3:5: error: unexpected '['\n"
     "        [3, 4]\n"
     "        ^\n"},
    /* option blocks: '=' needs a value; keys are not statement keywords */
    {LIT("job a\nschedule s { a = }\n"),
     "t.ptm:2:18: error: unexpected '}', expected a value\n"
     "    schedule s { a = }\n"
     "                     ^\n"},
    {LIT("job a\nschedule s { a =, b 1 }\n"),
     "t.ptm:2:17: error: unexpected ',', expected a value\n"
     "    schedule s { a =, b 1 }\n"
     "                    ^\n"},
    {LIT("job a\nschedule s { const = 1 }\n"),
     "t.ptm:2:14: error: unexpected 'const', expected a name ('const' is a reserved word)\n"
     "    schedule s { const = 1 }\n"
     "                 ^^^^^\n"},
    {LIT("job a\nschedule s { a 1, seed 2 }\n"),
     "t.ptm:2:19: error: unexpected 'seed', expected a name ('seed' is a reserved word)\n"
     "    schedule s { a 1, seed 2 }\n"
     "                      ^^^^\n"},
    {LIT("job a\nschedule s { true }\n"),
     "t.ptm:2:14: error: unexpected 'true', expected a name ('true' is a reserved word)\n"
     "    schedule s { true }\n"
     "                 ^^^^\n"},
    /* a statement keyword at the start of a line inside { }: one error, and
     * the brace is taken as closed */
    {LIT("job a\nupdate builtin u {\n  a 1\nobjective builtin v\nstop when x\n"),
     "t.ptm:4:1: error: unexpected 'objective' inside '{ }': is a '}' missing?\n"
     "    objective builtin v\n"
     "    ^^^^^^^^^\n"
     "t.ptm:2:18: note: this '{' is not closed\n"
     "    update builtin u {\n"
     "                     ^\n"},
    {LIT("job a\nschedule s { a 1,\n  const x = 2\nconst y = $\n"),
     "t.ptm:3:3: error: unexpected 'const' inside '{ }': is a '}' missing?\n"
     "      const x = 2\n"
     "      ^^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s { a 1,\n"
     "               ^\n"
     "t.ptm:4:11: error: unexpected character '$'\n"
     "    const y = $\n"
     "              ^\n"},
    {LIT("job a\nschedule x {\n  a =\nconst y = 2\n"),
     "t.ptm:4:1: error: unexpected 'const' inside '{ }': is a '}' missing?\n"
     "    const y = 2\n"
     "    ^^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule x {\n"
     "               ^\n"},
    {LIT("job a\nschedule s {\n  a 1\n  seed = 2\n}\n"),
     "t.ptm:4:3: error: unexpected 'seed' inside '{ }': is a '}' missing?\n"
     "      seed = 2\n"
     "      ^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s {\n"
     "               ^\n"
     "t.ptm:4:8: error: unexpected '=', expected expression\n"
     "      seed = 2\n"
     "           ^\n"
     "t.ptm:5:1: error: unexpected '}'\n"
     "    }\n"
     "    ^\n"},
    /* a statement keyword opens a line while ( or [ is open; the end of
     * the file inside brackets */
    {LIT("job a\nconst x = y[1 +\nconst z = 2\n"),
     "t.ptm:2:16: error: unexpected newline, expected expression\n"
     "    const x = y[1 +\n"
     "                   ^\n"
     "t.ptm:2:12: note: to match this '['\n"
     "    const x = y[1 +\n"
     "               ^\n"},
    {LIT("job a\nconst x = f(1, g(2\nseed 1\n"),
     "t.ptm:2:19: error: unexpected newline, expected ')' or ','\n"
     "    const x = f(1, g(2\n"
     "                      ^\n"
     "t.ptm:2:17: note: to match this '('\n"
     "    const x = f(1, g(2\n"
     "                    ^\n"},
    {LIT("job a\nconst x = (((1"),
     "t.ptm:2:15: error: unexpected end of file, expected ')'\n"
     "    const x = (((1\n"
     "                  ^\n"
     "t.ptm:2:13: note: this '(' is not closed\n"
     "    const x = (((1\n"
     "                ^\n"},
    {LIT("job a\nconst x = f(1,"),
     "t.ptm:2:15: error: unexpected end of file, expected expression\n"
     "    const x = f(1,\n"
     "                  ^\n"
     "t.ptm:2:12: note: this '(' is not closed\n"
     "    const x = f(1,\n"
     "               ^\n"},
    {LIT("job a\nschedule s { a = 1"),
     "t.ptm:2:19: error: unexpected end of file\n"
     "    schedule s { a = 1\n"
     "                      ^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s { a = 1\n"
     "               ^\n"},
    {LIT("job a\nschedule s { a ="),
     "t.ptm:2:17: error: unexpected end of file, expected a value\n"
     "    schedule s { a =\n"
     "                    ^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s { a =\n"
     "               ^\n"},
    /* the end of the file is where the last token ends */
    {LIT("job a\nstop when # the condition\n#[ to do ]#\n\n\n"),
     "t.ptm:2:10: error: unexpected end of file, expected expression\n"
     "    stop when # the condition\n"
     "             ^\n"},
    {LIT("job a\nconst x = (1 + 2 # comment\n\n"),
     "t.ptm:2:17: error: unexpected end of file, expected ')'\n"
     "    const x = (1 + 2 # comment\n"
     "                    ^\n"
     "t.ptm:2:11: note: this '(' is not closed\n"
     "    const x = (1 + 2 # comment\n"
     "              ^\n"},
    {LIT("job a\r\nconst x = 1 +\r\n\r\n"),
     "t.ptm:2:14: error: unexpected end of file, expected expression\n"
     "    const x = 1 +\n"
     "                 ^\n"},
    /* '=' and '==' mixed up */
    {LIT("job a\nblocks b == p\n"),
     "t.ptm:2:10: error: unexpected '==', expected '='\n"
     "    blocks b == p\n"
     "             ^^\n"},
    {LIT("job a\ndepend b(i), b(j) when i = j\n"),
     "t.ptm:2:26: error: unexpected '=' (write '==' to compare)\n"
     "    depend b(i), b(j) when i = j\n"
     "                             ^\n"},
    {LIT("job a\nconst x = f(a = b)\n"),
     "t.ptm:2:15: error: unexpected '=' (write '==' to compare)\n"
     "    const x = f(a = b)\n"
     "                  ^\n"},
    {LIT("job a\nschedule s { a == 1 }\n"),
     "t.ptm:2:16: error: unexpected '==', expected '='\n"
     "    schedule s { a == 1 }\n"
     "                   ^^\n"},
    {LIT("job a\nschedule s { a = 1 == 2 }\n"),
     "t.ptm:2:20: error: unexpected '==', expected a value, newline, ';', ',' or '}'\n"
     "    schedule s { a = 1 == 2 }\n"
     "                       ^^\n"},
    /* a second job */
    {LIT("job a; job b\n"),
     "t.ptm:1:8: error: a file holds one job: it already began with 'job a'\n"
     "    job a; job b\n"
     "           ^^^\n"
     "t.ptm:1:1: note: the job begins here\n"
     "    job a; job b\n"
     "    ^^^^^\n"},
    {LIT("job a\nconst x = job\n"),
     "t.ptm:2:11: error: unexpected 'job', expected expression\n"
     "    const x = job\n"
     "              ^^^\n"},
    {LIT("job a\nschedule s { job = 1 }\n"),
     "t.ptm:2:14: error: unexpected 'job', expected a name ('job' is a reserved word)\n"
     "    schedule s { job = 1 }\n"
     "                 ^^^\n"},
    /* a reserved word where an expression belongs */
    {LIT("job a\nconst x = a == not b\n"),
     "t.ptm:2:16: error: unexpected 'not', expected expression\n"
     "    const x = a == not b\n"
     "                   ^^^\n"},
    {LIT("job a\nstop when seconds > stop\n"),
     "t.ptm:2:21: error: unexpected 'stop', expected expression\n"
     "    stop when seconds > stop\n"
     "                        ^^^^\n"},
    {LIT("job a\ndepend b(i), b(when) when 1\n"),
     "t.ptm:2:16: error: unexpected 'when', expected a name ('when' is a reserved word)\n"
     "    depend b(i), b(when) when 1\n"
     "                   ^^^^\n"},
    /* single quotes */
    {LIT("job a\noutput w to 'w.tsv'\n"),
     "t.ptm:2:13: error: strings use double quotes: \"w.tsv\"\n"
     "    output w to 'w.tsv'\n"
     "                ^^^^^^^\n"},
    {LIT("job a\nconst s = 'abc\n"),
     "t.ptm:2:11: error: strings use double quotes: \"abc\"\n"
     "    const s = 'abc\n"
     "              ^^^^\n"},
    {LIT("job a\nconst s = ''\n"),
     "t.ptm:2:11: error: strings use double quotes: \"\"\n"
     "    const s = ''\n"
     "              ^^\n"},
    /* numbers */
    {LIT("job a\nconst x = 1e-400\n"),
     "t.ptm:2:11: error: number '1e-400' is too small (it would be 0)\n"
     "    const x = 1e-400\n"
     "              ^^^^^^\n"},
    {LIT("job a\nconst x = 1.5hr\n"),
     "t.ptm:2:11: error: unknown unit 'hr' in '1.5hr' (durations take ms, s, m, h or d)\n"
     "    const x = 1.5hr\n"
     "              ^^^^^\n"},
    {LIT("job a\nconst x = 1e-400s\n"),
     "t.ptm:2:11: error: duration '1e-400s' is too small (it would be 0)\n"
     "    const x = 1e-400s\n"
     "              ^^^^^^^\n"},
    /* REPORTED: '1.5hr' gets the unknown-unit message, '1.5e3hr' does not */
    {LIT("job a\nconst x = 1.5e3hr\n"),
     "t.ptm:2:11: error: malformed number '1.5e3hr'\n"
     "    const x = 1.5e3hr\n"
     "              ^^^^^^^\n"},
    /* strings */
    {LIT("job a\nconst s = \"a\\\xc3\xa9" "b\"\n"),
     "t.ptm:2:13: error: unknown escape in string (use \\\" \\\\ \\n \\t \\r)\n"
     "    const s = \"a\\éb\"\n"
     "                ^^\n"},
    {LIT("job a\nconst s = \"a\177b\"\n"),
     "t.ptm:2:13: error: control character 0x7F in string\n"
     "    const s = \"a?b\"\n"
     "                ^\n"},
    {LIT("job a\nconst s = \"a\rb\"\n"),
     "t.ptm:2:13: error: carriage return in string (write \\r)\n"
     "    const s = \"a?b\"\n"
     "                ^\n"},
    {LIT("job a\nconst s = \"\xc0\xaf\" + \"\xf4\x90\x80\x80\"\n"),
     "t.ptm:2:12: error: invalid UTF-8 in string (byte 0xC0)\n"
     "    const s = \"??\" + \"????\"\n"
     "               ^^\n"
     "t.ptm:2:19: error: invalid UTF-8 in string (byte 0xF4)\n"
     "    const s = \"??\" + \"????\"\n"
     "                      ^^^^\n"},
    {LIT("job a\nconst s = \"\xed\xa0\x80x\xc3\"\n"),
     "t.ptm:2:12: error: invalid UTF-8 in string (byte 0xED)\n"
     "    const s = \"???x?\"\n"
     "               ^^^\n"
     "t.ptm:2:16: error: invalid UTF-8 in string (byte 0xC3)\n"
     "    const s = \"???x?\"\n"
     "                   ^\n"},
    {LIT("job a\nconst s = \"\x80\x80\x80\x80\x80\"\n"),
     "t.ptm:2:12: error: invalid UTF-8 in string (byte 0x80)\n"
     "    const s = \"?????\"\n"
     "               ^^^^^\n"},
    {LIT("job a\nconst s = \"a\\q\\x\"\n"),
     "t.ptm:2:13: error: unknown escape '\\q' in string (use \\\" \\\\ \\n \\t \\r)\n"
     "    const s = \"a\\q\\x\"\n"
     "                ^^\n"
     "t.ptm:2:15: error: unknown escape '\\x' in string (use \\\" \\\\ \\n \\t \\r)\n"
     "    const s = \"a\\q\\x\"\n"
     "                  ^^\n"},
    /* after an error inside { }, the next separator reports again */
    {LIT("job a\nschedule s { a = ); b = ] }\n"),
     "t.ptm:2:18: error: unexpected ')', expected a value\n"
     "    schedule s { a = ); b = ] }\n"
     "                     ^\n"
     "t.ptm:2:25: error: unexpected ']', expected a value\n"
     "    schedule s { a = ); b = ] }\n"
     "                            ^\n"},
    {LIT("job a\nschedule s { a = ) b = ] }\n"),
     "t.ptm:2:18: error: unexpected ')', expected a value\n"
     "    schedule s { a = ) b = ] }\n"
     "                     ^\n"},
    /* diagnostics in source order, notes after their error */
    {LIT("job a\nschedule s {\n  a 1\nconst x = $\nparamm y\n"),
     "t.ptm:4:1: error: unexpected 'const' inside '{ }': is a '}' missing?\n"
     "    const x = $\n"
     "    ^^^^^\n"
     "t.ptm:2:12: note: this '{' is not closed\n"
     "    schedule s {\n"
     "               ^\n"
     "t.ptm:4:11: error: unexpected character '$'\n"
     "    const x = $\n"
     "              ^\n"
     "t.ptm:5:1: error: unknown statement 'paramm' (did you mean 'param'?)\n"
     "    paramm y\n"
     "    ^^^^^^\n"},
};
/* clang-format on */

START_TEST(test_reject)
{
    const struct parse_row *r = &reject_rows[_i];
    struct result res = parse_text(r->src, r->len);
    ck_assert_msg(res.rc == PTM_ESYNTAX, "reject row %d: rc %d", _i, res.rc);
    ck_assert_str_eq(res.dump, "");
    ck_assert_uint_ge(res.nerrors, 1);
    tu_expect_text("reject", _i, res.diags, r->expected, NULL);
    result_free(&res);
}
END_TEST

/* Inputs built at run time. */

static char *repeat(const char *head, const char *unit, size_t n, const char *tail, size_t *len)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    *len = hl + ul * n + tl;
    char *s = malloc(*len + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(s + hl + i * ul, unit, ul);
    memcpy(s + hl + ul * n, tail, tl + 1);
    return s;
}

static char *fill(char c, size_t n)
{
    char *s = malloc(n + 1);
    ck_assert_ptr_nonnull(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

#define MB ((size_t)1 << 20)

struct huge_row {
    const char *head, *unit, *tail;
    size_t n;
    int rc;
    unsigned nerrors;
    const char *first_line; /* the first line of the diagnostics, exact */
};

/* clang-format off */
static const struct huge_row huge_rows[] = {
    /* a 1 MB name: one error, the source line cut to a window */
    {"job a\nconst x = ", "a", "\n", MB, PTM_ESYNTAX, 1,
     "t.ptm:2:11: error: name is too long (1048576 characters; the limit is 255)"},
    /* a 1 MB comment line is fine */
    {"job a\n# ", "c", "\nconst x = 1\n", MB, 0, 0, NULL},
    /* an error before and after 1 MB on the same line */
    {"job a\nconst x = $ # ", "c", "\n", MB, PTM_ESYNTAX, 1,
     "t.ptm:2:11: error: unexpected character '$'"},
    {"job a\nconst x = ", " ", "$\n", MB, PTM_ESYNTAX, 1,
     "t.ptm:2:1048587: error: unexpected character '$'"},
    /* 1 MB of lines */
    {"job a\n", "const x = 1\n", "const y = $\n", MB / 12, PTM_ESYNTAX, 1,
     "t.ptm:87383:11: error: unexpected character '$'"},
    /* deep nesting is an error, not a stack overflow */
    {"job a\nconst x = ", "(", "1\n", 10000, PTM_ESYNTAX, 1,
     "t.ptm:2:267: error: brackets nested too deeply (more than 256 levels)"},
    /* a syntax error, then the nesting limit while recovering: the limit
     * is reported only as the first error; the parse stops */
    {"job a\nconst x = ", "[", "\n", 300, PTM_ESYNTAX, 1,
     "t.ptm:2:11: error: unexpected '[', expected expression"},
    {"job a\nschedule s ", "{", "\n", 10000, PTM_ESYNTAX, 1,
     "t.ptm:2:13: error: unexpected '{'"},
    {"job a\nconst x = $\nconst y = ", "(", "1\n", 300, PTM_ESYNTAX, 1,
     "t.ptm:2:11: error: unexpected character '$'"},
    {"job a\nconst x = ", "f(", "1\n", 10000, PTM_ESYNTAX, 1,
     "t.ptm:2:524: error: brackets nested too deeply (more than 256 levels)"},
    {"job a\nconst x = ", "-", "1\n", 10000, PTM_ESYNTAX, 1,
     "t.ptm:2:9011: error: expression nested too deeply (more than 1000 levels)"},
    /* past the parser's stack bound (YYMAXDEPTH) */
    {"job a\nconst x = ", "-", "1\n", 100000, PTM_ESYNTAX, 1,
     "t.ptm:2:20001: error: expression nested too deeply (the parser's stack holds 20000 levels)"},
    {"job a\nconst x = ", "not ", "1\n", 30000, PTM_ESYNTAX, 1,
     "t.ptm:2:79971: error: expression nested too deeply (the parser's stack holds 20000 levels)"},
    {"job a\nconst x = ", "not ", "1\n", 10000, PTM_ESYNTAX, 1,
     "t.ptm:2:36011: error: expression nested too deeply (more than 1000 levels)"},
    {"job a\nconst x = ", "2^", "1\n", 5000, PTM_ESYNTAX, 1,
     "t.ptm:2:8011: error: expression nested too deeply (more than 1000 levels)"},
    {"job a\nconst x = 1", "+1", "\n", 1999, PTM_ESYNTAX, 1,
     "t.ptm:2:11: error: expression nested too deeply (more than 1000 levels)"},
    {"job a\nconst x = 1", "+1", "\n", 999, 0, 0, NULL},
    /* many errors: 50 are kept, the rest counted */
    {"job a\n", "const x = $\n", "", 60, PTM_ESYNTAX, 60,
     "t.ptm:2:11: error: unexpected character '$'"},
    /* 100,000 statements */
    {"job a\n", "seed 1\n", "", 100000, 0, 0, NULL},
};
/* clang-format on */

START_TEST(test_huge)
{
    const struct huge_row *r = &huge_rows[_i];
    size_t len;
    char *text = repeat(r->head, r->unit, r->n, r->tail, &len);
    struct result res = parse_text(text, len);
    ck_assert_msg(res.rc == r->rc, "huge row %d: rc %d, want %d", _i, res.rc, r->rc);
    ck_assert_uint_eq(res.nerrors, r->nerrors);
    if (r->first_line) {
        size_t n = strcspn(res.diags, "\n");
        ck_assert_msg(strlen(r->first_line) == n && memcmp(res.diags, r->first_line, n) == 0,
                      "huge row %d: first line is\n%.*s", _i, (int)n, res.diags);
    }
    /* Long lines are cut to a window: the text stays small. */
    ck_assert_uint_le(strlen(res.diags), 400 * (r->nerrors < 50 ? r->nerrors : 50) + 200);
    for (const char *p = res.diags; *p;) {
        size_t n = strcspn(p, "\n");
        ck_assert_msg(n <= 4 + 3 + 100 * 4 + 3, "huge row %d: a %zu-byte line", _i, n);
        p += n + (p[n] == '\n');
    }
    result_free(&res);
    free(text);
}
END_TEST

/* Whole texts for the huge inputs whose rendering is worth pinning down. */
START_TEST(test_huge_name_window)
{
    size_t len;
    char *text = repeat("job a\nconst x = ", "a", MB, "\n", &len);
    struct result res = parse_text(text, len);
    char *a90 = fill('a', 90), *c90 = fill('^', 90);
    char want[1024];
    snprintf(want, sizeof(want),
             "t.ptm:2:11: error: name is too long (1048576 characters; the limit is 255)\n"
             "    const x = %s...\n"
             "              %s\n",
             a90, c90);
    tu_expect_text("huge name", 0, res.diags, want, NULL);
    free(a90);
    free(c90);
    result_free(&res);
    free(text);
}
END_TEST

START_TEST(test_huge_space_window)
{
    /* The error is 1 MB into the line: the window ends at the line's end. */
    size_t len;
    char *text = repeat("job a\nconst x = ", " ", MB, "$\n", &len);
    struct result res = parse_text(text, len);
    char *sp = fill(' ', 40);
    char want[1024];
    snprintf(want, sizeof(want),
             "t.ptm:2:1048587: error: unexpected character '$'\n"
             "    ...%s$\n"
             "       %s^\n",
             sp, sp);
    tu_expect_text("huge space", 0, res.diags, want, NULL);
    free(sp);
    result_free(&res);
    free(text);
}
END_TEST

START_TEST(test_huge_comment)
{
    size_t len;
    char *text = repeat("job a\n# ", "c", MB, "\nconst x = 1\n", &len);
    struct result res = parse_text(text, len);
    tu_expect_text("huge comment", 0, res.dump, "(job a)\n(const x 1)\n", NULL);
    result_free(&res);
    free(text);
}
END_TEST

START_TEST(test_huge_parens)
{
    size_t len;
    char *text = repeat("job a\nconst x = ", "(", 10000, "1\n", &len);
    struct result res = parse_text(text, len);
    char *p100 = fill('(', 100), *sp = fill(' ', 40);
    char want[1024];
    snprintf(want, sizeof(want),
             "t.ptm:2:267: error: brackets nested too deeply (more than 256 levels)\n"
             "    ...%s...\n"
             "       %s^\n",
             p100, sp);
    tu_expect_text("huge parens", 0, res.diags, want, NULL);
    free(p100);
    free(sp);
    result_free(&res);
    free(text);
}
END_TEST

START_TEST(test_huge_minus)
{
    size_t len;
    char *text = repeat("job a\nconst x = ", "-", 10000, "1\n", &len);
    struct result res = parse_text(text, len);
    char *m100 = fill('-', 100), *c60 = fill('^', 60), *sp = fill(' ', 40);
    char want[1024];
    snprintf(want, sizeof(want),
             "t.ptm:2:9011: error: expression nested too deeply (more than 1000 levels)\n"
             "    ...%s...\n"
             "       %s%s\n",
             m100, sp, c60);
    tu_expect_text("huge minus", 0, res.diags, want, NULL);
    free(m100);
    free(c60);
    free(sp);
    result_free(&res);
    free(text);
}
END_TEST

START_TEST(test_huge_sum)
{
    size_t len;
    char *text = repeat("job a\nconst x = 1", "+1", 1999, "\n", &len);
    struct result res = parse_text(text, len);
    char *ones = repeat("const x = 1", "+1", 45, "", &len), *c90 = fill('^', 90);
    ones[100] = '\0';
    char want[1024];
    snprintf(want, sizeof(want),
             "t.ptm:2:11: error: expression nested too deeply (more than 1000 levels)\n"
             "    %s...\n"
             "              %s\n",
             ones, c90);
    tu_expect_text("huge sum", 0, res.diags, want, NULL);
    free(ones);
    free(c90);
    result_free(&res);
    free(text);
}
END_TEST

START_TEST(test_many_errors)
{
    size_t len;
    char *text = repeat("job a\n", "const x = $\n", 60, "", &len);
    struct result res = parse_text(text, len);
    ck_assert_uint_eq(res.nerrors, 60);
    char *want = NULL;
    size_t wlen;
    FILE *f = open_memstream(&want, &wlen);
    for (int line = 2; line < 52; line++)
        fprintf(f,
                "t.ptm:%d:11: error: unexpected character '$'\n"
                "    const x = $\n"
                "              ^\n",
                line);
    fputs("t.ptm: note: 10 more errors not shown\n", f);
    fclose(f);
    tu_expect_text("many errors", 0, res.diags, want, NULL);
    free(want);
    result_free(&res);
    free(text);
}
END_TEST

/* ---- d. diagnostics rendering ------------------------------------------- */

struct linecol_row {
    const char *text;
    size_t len;
    uint32_t off;
    unsigned line, col;
};

/* clang-format off */
static const struct linecol_row linecol_rows[] = {
    {LIT(""), 0, 1, 1},
    {LIT("abc"), 0, 1, 1},
    {LIT("abc"), 2, 1, 3},
    {LIT("abc"), 3, 1, 4},
    {LIT("abc\ndef"), 3, 1, 4},
    {LIT("abc\ndef"), 4, 2, 1},
    {LIT("abc\ndef"), 6, 2, 3},
    {LIT("a\n\n\nb"), 4, 4, 1},
    /* an offset after the final newline is the end of the last line */
    {LIT("abc\n"), 4, 1, 4},
    {LIT("a\nbc\n"), 5, 2, 3},
    /* past the end: clamped */
    {LIT("abc"), 99, 1, 4},
    /* a UTF-8 sequence is one column, whatever its length */
    {LIT("\xc3\xa9$"), 2, 1, 2},
    {LIT("\xe6\x97\xa5\xe6\x9c\xac$"), 6, 1, 3},
    {LIT("\xf0\x9f\x98\x80$"), 4, 1, 2},
    {LIT("x\n\xc3\xa9\xc3\xa9$"), 6, 2, 3},
    /* an invalid byte is one column too */
    {LIT("\xff$"), 1, 1, 2},
    {LIT("\xc3$"), 1, 1, 2},
    {LIT("\xe6\x97$"), 2, 1, 3},
    /* a tab is one column; so is the CR of a CRLF */
    {LIT("\t$"), 1, 1, 2},
    {LIT("a\r\nb"), 3, 2, 1},
    {LIT("a\r\nb"), 1, 1, 2},
    /* the end of a CRLF line is shown at its CR */
    {LIT("a\r\nb"), 2, 1, 2},
    {LIT("ab\r\n"), 4, 1, 3},
    {LIT("ab\r\n\r\n"), 6, 2, 1},
};
/* clang-format on */

START_TEST(test_linecol)
{
    const struct linecol_row *r = &linecol_rows[_i];
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", r->text, r->len), 0);
    unsigned line, col;
    ptm_source_linecol(&src, r->off, &line, &col);
    ck_assert_msg(line == r->line && col == r->col, "linecol row %d: %u:%u, want %u:%u", _i, line,
                  col, r->line, r->col);
    ptm_source_release(&src);
}
END_TEST

/* One diagnostic at [begin, end) of text, rendered. */
struct render_row {
    const char *text;
    size_t len;
    enum ptm_severity sev;
    bool has_loc;
    uint32_t begin, end;
    bool color;
    const char *expected;
};

/* clang-format off */
static const struct render_row render_rows[] = {
    {LIT("abc def\n"), PTM_SEV_ERROR, true, 4, 7, false,
     "t.ptm:1:5: error: bad 'thing'\n"
     "    abc def\n"
     "        ^^^\n"},
    /* an empty range still gets one caret */
    {LIT("abc def\n"), PTM_SEV_ERROR, true, 4, 4, false,
     "t.ptm:1:5: error: bad 'thing'\n"
     "    abc def\n"
     "        ^\n"},
    /* a tab before the caret is kept, so the caret lines up */
    {LIT("\tx = $\n"), PTM_SEV_ERROR, true, 5, 6, false,
     "t.ptm:1:6: error: bad 'thing'\n"
     "    \tx = $\n"
     "    \t    ^\n"},
    {LIT("a\t\tb\n"), PTM_SEV_ERROR, true, 4, 5, false,
     "t.ptm:1:5: error: bad 'thing'\n"
     "    a\t\tb\n"
     "     \t\t ^\n"},
    /* multi-byte characters: one space each before the caret, one caret each */
    {LIT("\xc3\xa9\xc3\xa9 x\n"), PTM_SEV_ERROR, true, 5, 6, false,
     "t.ptm:1:4: error: bad 'thing'\n"
     "    éé x\n"
     "       ^\n"},
    {LIT("s = \"\xe6\x97\xa5\xe6\x9c\xac\"\n"), PTM_SEV_ERROR, true, 5, 11, false,
     "t.ptm:1:6: error: bad 'thing'\n"
     "    s = \"日本\"\n"
     "         ^^\n"},
    /* control characters and invalid bytes are shown as '?' */
    {LIT("a\001b\xff" "c\n"), PTM_SEV_ERROR, true, 4, 5, false,
     "t.ptm:1:5: error: bad 'thing'\n"
     "    a?b?c\n"
     "        ^\n"},
    /* a range running past the end of the line stops there */
    {LIT("abc\ndef\n"), PTM_SEV_ERROR, true, 1, 6, false,
     "t.ptm:1:2: error: bad 'thing'\n"
     "    abc\n"
     "     ^^\n"},
    /* CR of CRLF is not shown */
    {LIT("abc\r\ndef\r\n"), PTM_SEV_ERROR, true, 5, 8, false,
     "t.ptm:2:1: error: bad 'thing'\n"
     "    def\n"
     "    ^^^\n"},
    /* a location at the end of a CRLF line is at the CR */
    {LIT("abc\r\ndef\r\n"), PTM_SEV_ERROR, true, 4, 4, false,
     "t.ptm:1:4: error: bad 'thing'\n"
     "    abc\n"
     "       ^\n"},
    {LIT("abc\r\n"), PTM_SEV_ERROR, true, 5, 5, false,
     "t.ptm:1:4: error: bad 'thing'\n"
     "    abc\n"
     "       ^\n"},
    /* notes and warnings */
    {LIT("abc\n"), PTM_SEV_NOTE, true, 0, 1, false,
     "t.ptm:1:1: note: bad 'thing'\n"
     "    abc\n"
     "    ^\n"},
    {LIT("abc\n"), PTM_SEV_WARNING, true, 0, 1, false,
     "t.ptm:1:1: warning: bad 'thing'\n"
     "    abc\n"
     "    ^\n"},
    /* about the whole file */
    {LIT("abc\n"), PTM_SEV_ERROR, false, 0, 0, false, "t.ptm: error: bad 'file'\n"},
    /* an empty line: no excerpt */
    {LIT("a\n\nb\n"), PTM_SEV_ERROR, true, 2, 2, false, "t.ptm:2:1: error: bad 'thing'\n"},
    /* end of file after a final newline: the end of the last line */
    {LIT("abc\n"), PTM_SEV_ERROR, true, 4, 4, false,
     "t.ptm:1:4: error: bad 'thing'\n"
     "    abc\n"
     "       ^\n"},
    /* colour */
    {LIT("abc def\n"), PTM_SEV_ERROR, true, 4, 7, true,
     "\033[1mt.ptm:1:5: \033[0m\033[1;31merror:\033[0m bad 'thing'\n"
     "    abc def\n"
     "        \033[1;32m^^^\033[0m\n"},
    {LIT("abc def\n"), PTM_SEV_NOTE, true, 0, 3, true,
     "\033[1mt.ptm:1:1: \033[0m\033[1;36mnote:\033[0m bad 'thing'\n"
     "    abc def\n"
     "    \033[1;32m^^^\033[0m\n"},
    {LIT("abc def\n"), PTM_SEV_WARNING, false, 0, 0, true, "\033[1mt.ptm: \033[0m\033[1;35mwarning:\033[0m bad 'file'\n"},
    /* long lines: a window of 100 characters around the range */
    {LIT("0123456789012345678901234567890123456789012345678901234567890123456789"
         "0123456789012345678901234567890123456789012345678901234567890123456789\n"),
     PTM_SEV_ERROR, true, 5, 8, false,
     "t.ptm:1:6: error: bad 'thing'\n"
     "    0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789...\n"
     "         ^^^\n"},
    {LIT("0123456789012345678901234567890123456789012345678901234567890123456789"
         "0123456789012345678901234567890123456789012345678901234567890123456789\n"),
     PTM_SEV_ERROR, true, 70, 75, false,
     "t.ptm:1:71: error: bad 'thing'\n"
     "    ...0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789...\n"
     "                                               ^^^^^\n"},
    {LIT("0123456789012345678901234567890123456789012345678901234567890123456789"
         "0123456789012345678901234567890123456789012345678901234567890123456789\n"),
     PTM_SEV_ERROR, true, 139, 140, false,
     "t.ptm:1:140: error: bad 'thing'\n"
     "    ...90123456789012345678901234567890123456789\n"
     "                                               ^\n"},
    {LIT("0123456789012345678901234567890123456789012345678901234567890123456789"
         "0123456789012345678901234567890123456789012345678901234567890123456789\n"),
     PTM_SEV_ERROR, true, 60, 140, false,
     "t.ptm:1:61: error: bad 'thing'\n"
     "    ...0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789...\n"
     "                                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"},
    /* 120 characters is not long yet */
    {LIT("0123456789012345678901234567890123456789012345678901234567890123456789"
         "01234567890123456789012345678901234567890123456789\n"),
     PTM_SEV_ERROR, true, 110, 111, false,
     "t.ptm:1:111: error: bad 'thing'\n"
     "    012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789\n"
     "                                                                                                                  ^\n"},
};
/* clang-format on */

START_TEST(test_render)
{
    const struct render_row *r = &render_rows[_i];
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", r->text, r->len), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags d;
    diag_init(&d, &arena);
    if (r->has_loc)
        diag_add(&d, r->sev, (struct ptm_loc){r->begin, r->end}, "bad '%s'", "thing");
    else
        diag_file(&d, r->sev, "bad '%s'", "file");
    char *buf = NULL;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    ptm_diags_render(f, &src, &d, r->color);
    fclose(f);
    tu_expect_text("render", _i, buf, r->expected, NULL);
    ck_assert_uint_eq(d.nerrors, r->sev == PTM_SEV_ERROR ? 1 : 0);
    free(buf);
    arena_release(&arena);
    ptm_source_release(&src);
}
END_TEST

/* Diagnostics are rendered in source order, each note right after the
 * diagnostic it follows, file-level ones first; ties keep the order found. */
START_TEST(test_render_order)
{
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", LIT("abc\ndef\nghi\n")), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags d;
    diag_init(&d, &arena);
    diag_add(&d, PTM_SEV_ERROR, (struct ptm_loc){8, 9}, "third");
    diag_add(&d, PTM_SEV_NOTE, (struct ptm_loc){0, 1}, "note of third");
    diag_file(&d, PTM_SEV_ERROR, "about the file");
    diag_add(&d, PTM_SEV_ERROR, (struct ptm_loc){4, 5}, "second");
    diag_add(&d, PTM_SEV_WARNING, (struct ptm_loc){0, 3}, "first");
    diag_add(&d, PTM_SEV_NOTE, (struct ptm_loc){8, 9}, "note of first");
    diag_add(&d, PTM_SEV_ERROR, (struct ptm_loc){4, 7}, "second, found later");
    char *buf = NULL;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    ptm_diags_render(f, &src, &d, false);
    fclose(f);
    tu_expect_text("render order", 0, buf,
                "t.ptm: error: about the file\n"
                "t.ptm:1:1: warning: first\n"
                "    abc\n"
                "    ^^^\n"
                "t.ptm:3:1: note: note of first\n"
                "    ghi\n"
                "    ^\n"
                "t.ptm:2:1: error: second\n"
                "    def\n"
                "    ^\n"
                "t.ptm:2:1: error: second, found later\n"
                "    def\n"
                "    ^^^\n"
                "t.ptm:3:1: error: third\n"
                "    ghi\n"
                "    ^\n"
                "t.ptm:1:1: note: note of third\n"
                "    abc\n"
                "    ^\n", NULL);
    free(buf);
    arena_release(&arena);
    ptm_source_release(&src);
}
END_TEST

/* The sink: counting, the cap, and what is said when it overflows. */
START_TEST(test_sink)
{
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", LIT("x\n")), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags d;
    diag_init(&d, &arena);
    for (int i = 0; i < PTM_DIAG_MAX_ERRORS + 2; i++) {
        ck_assert(!diag_full(&d) == (i < PTM_DIAG_MAX_ERRORS));
        diag_add(&d, PTM_SEV_ERROR, (struct ptm_loc){0, 1}, "error %d", i);
        diag_add(&d, PTM_SEV_NOTE, (struct ptm_loc){0, 1}, "note %d", i);
    }
    ck_assert_uint_eq(d.nerrors, PTM_DIAG_MAX_ERRORS + 2);
    ck_assert_uint_eq(d.ndropped, 2);
    char *buf = NULL;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    ptm_diags_render(f, &src, &d, false);
    fclose(f);
    const char *tail = "t.ptm: note: 2 more errors not shown\n";
    ck_assert_uint_ge(strlen(buf), strlen(tail));
    ck_assert_str_eq(buf + strlen(buf) - strlen(tail), tail);
    ck_assert_ptr_nonnull(strstr(buf, "t.ptm:1:1: error: error 49\n"));
    ck_assert_ptr_null(strstr(buf, "error 50"));
    free(buf);

    /* A sink that could not store a message says so. */
    d.oom = true;
    d.ndropped = 1;
    buf = NULL;
    f = open_memstream(&buf, &n);
    ptm_diags_render(f, &src, &d, false);
    fclose(f);
    tail = "t.ptm: note: 1 more error not shown\n"
           "t.ptm: error: out of memory while reporting errors\n";
    ck_assert_str_eq(buf + strlen(buf) - strlen(tail), tail);
    free(buf);

    /* A quiet sink counts only. */
    struct ptm_diags q;
    diag_init(&q, &arena);
    q.quiet = true;
    diag_add(&q, PTM_SEV_ERROR, (struct ptm_loc){0, 1}, "x");
    ck_assert_uint_eq(q.nerrors, 1);
    ck_assert_ptr_null(q.head);

    arena_release(&arena);
    ptm_source_release(&src);
}
END_TEST

struct suggest_row {
    const char *word;
    const char *expected; /* NULL: no suggestion */
};

/* clang-format off */
static const struct suggest_row suggest_rows[] = {
    {"paramm", "param"},      {"parm", "param"},       {"cnst", "const"},
    {"conts", "const"},       {"dat", "data"},         {"sed", "seed"},
    {"stp", "stop"},          {"ouptut", "output"},    {"consistncy", "consistency"},
    {"consistenccy", "consistency"}, {"objectiv", "objective"}, {"prority", "priority"},
    {"schedul", "schedule"},  {"updat", "update"},     {"blocs", "blocks"},
    {"Param", "param"},       {"scheduling", "schedule"},
    /* too far from every word */
    {"foo", NULL},            {"x", NULL},             {"par", NULL},
    {"", NULL},
    /* an exact match is no suggestion */
    {"seed", NULL},           {"param", NULL},
    /* longer than any word the distance is computed for */
    {"consistencyconsistencyconsistencyx", NULL},
};
/* clang-format on */

START_TEST(test_suggest)
{
    const struct suggest_row *r = &suggest_rows[_i];
    const char *s = diag_suggest(r->word, strlen(r->word), lang_stmt_words, lang_nstmt_words);
    if (r->expected)
        ck_assert_msg(s && strcmp(s, r->expected) == 0, "suggest '%s': got '%s', want '%s'",
                      r->word, s ? s : "(none)", r->expected);
    else
        ck_assert_msg(s == NULL, "suggest '%s': got '%s', want none", r->word, s);
}
END_TEST

/* ---- e. allocation failure ---------------------------------------------- */

static const char *const fault_files[] = {
    "examples/lasso/lasso.ptm",
    "examples/lda/lda.ptm",
    "examples/logreg/logreg.ptm",
    "examples/mf/mf.ptm",
};

/* Inputs with errors (the messages need memory too) and deep nesting (the
 * parser's stack grows). */
struct input_row {
    const char *src;
    size_t len;
};

/* clang-format off */
static const struct input_row fault_inputs[] = {
    {LIT("job a\nconst = 1\nparam : vector\nstop 3\nconst x = $\nparamm y\nseed\n")},
    {LIT("job a\nschedule x {\n  a 1\n")},
    {LIT("job a\nconst s = \"a\xff\001\\q\"\n")},
    {LIT("job a\nconst x = " REP256("(") "1" REP256(")") "\n")},
    {LIT("job a\nconst x = " REP256("(") "(1" REP256(")") ")\n")},
    {LIT("job a\nconst x = " REP256("-") REP256("-") REP256("-") REP256("-") "1\n")},
    /* a '}' and a newline held back behind a statement keyword in braces */
    {LIT("job a\nschedule x {\n  a =\nconst y = 2\nparam p : vector = $\n")},
    /* a byte-order mark, single quotes, a bad sequence in a string */
    {LIT("\xef\xbb\xbfjob a\nconst s = 'w' + \"\xed\xa0\x80\\\xc3\xa9\"\n")},
    /* the end of the file inside brackets, after a trailing comma */
    {LIT("job a\nconst x = f(1, [2,\nseed 1\nconst y = (1,")},
    /* the checkpoint statement, whole and broken */
    {LIT("job a\ncheckpoint every 10 sweeps to \"ckpt\"\ncheckpoint every 5m\ncheckpoint to \"c\"\n")},
};
/* clang-format on */

/* Parse text with the nth allocation failing, for n = 1, 2, ... until a
 * parse makes fewer than n allocations. A run that hit the failure must
 * give PTM_ENOMEM, or PTM_ESYNTAX when only a message was lost, and render
 * without crashing; the last run must give what a parse without injection
 * gives. Returns the number of runs that hit the failure. */
static unsigned fault_loop(const char *text, size_t len)
{
    struct result want = parse_text(text, len);
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", text, len), 0);
    unsigned long n;
    for (n = 1;; n++) {
        ck_assert_msg(n < 100000, "the parse never finishes");
        struct arena arena;
        arena_init(&arena);
        struct ptm_diags diags;
        diag_init(&diags, &arena);
        struct ast_job *job = NULL;
        ptm_fault_inject(n);
        int rc = ptm_parse(&src, &arena, &diags, &job);
        unsigned long calls = ptm_fault_inject(0);
        bool hit = calls >= n;

        char *dump = NULL, *msgs = NULL;
        size_t dlen, mlen;
        FILE *f = open_memstream(&dump, &dlen);
        if (rc == 0)
            ast_dump(f, job);
        fclose(f);
        f = open_memstream(&msgs, &mlen);
        ptm_diags_render(f, &src, &diags, false);
        fclose(f);

        if (hit) {
            ck_assert_msg(rc == PTM_ENOMEM || (rc == PTM_ESYNTAX && diags.oom),
                          "allocation %lu failed: rc %d, diags.oom %d", n, rc, diags.oom);
            ck_assert_ptr_null(job);
            if (diags.oom)
                ck_assert_ptr_nonnull(strstr(msgs, "out of memory while reporting errors"));
        } else {
            ck_assert_int_eq(rc, want.rc);
            ck_assert_str_eq(dump, want.dump);
            ck_assert_str_eq(msgs, want.diags);
        }
        free(dump);
        free(msgs);
        arena_release(&arena);
        if (!hit)
            break;
    }
    ptm_source_release(&src);
    result_free(&want);
    return (unsigned)(n - 1);
}

START_TEST(test_fault_examples)
{
    size_t len;
    char *text = tu_read_file(fault_files[_i], &len);
    ck_assert_msg(text != NULL, "cannot open %s", fault_files[_i]);
    ck_assert_uint_ge(fault_loop(text, len), 3);
    free(text);
}
END_TEST

START_TEST(test_fault_inputs)
{
    const struct input_row *r = &fault_inputs[_i];
    ck_assert_uint_ge(fault_loop(r->src, r->len), 3);
}
END_TEST

START_TEST(test_fault_source)
{
    /* Copying a source fails cleanly too. */
    struct ptm_source src;
    ptm_fault_inject(1);
    int rc = ptm_source_from(&src, "t.ptm", LIT("job a\n"));
    ptm_fault_inject(0);
    ck_assert_int_eq(rc, PTM_ENOMEM);
    ptm_fault_inject(2);
    rc = ptm_source_from(&src, "t.ptm", LIT("job a\n"));
    ptm_fault_inject(0);
    ck_assert_int_eq(rc, PTM_ENOMEM);
}
END_TEST

/* ---- the suite ---------------------------------------------------------- */

/* One loop test over every row of table. */
#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))

static Suite *lang_suite(void)
{
    Suite *s = suite_create("lang");
    TCase *tc;

    tc = tcase_create("tokens");
    add_rows(tc, test_tokens, lex_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("accept");
    add_rows(tc, test_accept, accept_rows);
    add_rows(tc, test_examples, example_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("reject");
    add_rows(tc, test_reject, reject_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("huge");
    tcase_set_timeout(tc, 30); /* 1 MB inputs under sanitizers */
    add_rows(tc, test_huge, huge_rows);
    tcase_add_test(tc, test_huge_name_window);
    tcase_add_test(tc, test_huge_space_window);
    tcase_add_test(tc, test_huge_comment);
    tcase_add_test(tc, test_huge_parens);
    tcase_add_test(tc, test_huge_minus);
    tcase_add_test(tc, test_huge_sum);
    tcase_add_test(tc, test_many_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("diag");
    add_rows(tc, test_linecol, linecol_rows);
    add_rows(tc, test_render, render_rows);
    tcase_add_test(tc, test_render_order);
    tcase_add_test(tc, test_sink);
    add_rows(tc, test_suggest, suggest_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_set_timeout(tc, 30);
    add_rows(tc, test_fault_examples, fault_files);
    add_rows(tc, test_fault_inputs, fault_inputs);
    tcase_add_test(tc, test_fault_source);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lang_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
