/*
 * test_sem.c - the compiler's checks and the plans it builds: every
 * diagnostic of compiler/sem.c and compiler/sem_expr.c, --set overrides,
 * the symmetry rule of depend predicates, Lua hook files, the fields of
 * accepted plans, and allocation failure over parse + compile.
 *
 * DESIGN: every table is a static array run with tcase_add_loop_test. A
 * job is written as one line changed in a valid skeleton (a lasso, an mf,
 * an lda or a minimal Lua job), so a row shows only what it tests and the
 * rendered diagnostics keep the skeleton's line numbers; jobs that change
 * several lines are written out whole. Rejected rows hold the whole
 * rendered diagnostic text, byte for byte ("" for a row that must compile
 * with no diagnostic); "@D@" in it stands for the temporary directory that
 * holds the job's Lua files (the job's base_dir). When a row fails, the
 * actual text is printed to stderr as a C literal ready to paste, after
 * review. Accepted rows check plan fields with a function per row;
 * programs are run through prog_eval() with a fake runtime whose expected
 * results are worked out by hand in the comments.
 *
 * Run from the repository root (make test): some rows read
 * examples/NAME/NAME.ptm. The Lua files are written to a fresh directory
 * under /tmp (a short path, so Lua does not shorten it in messages) and
 * removed at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "ast.h"
#include "compiler.h"
#include "diag.h"
#include "lang.h"
#include "plan.h"
#include "prog.h"
#include "ptm.h"
#include "testutil.h"

/* GLOBAL: the temporary directory of the Lua files; set once in main()
 * before any test runs (tests run in forked children). */
static char tdir[64];

/* ---- helpers ------------------------------------------------------------ */


/* s with every "@D@" replaced by the temporary directory; caller frees. */
static char *subst(const char *s)
{
    char *out;
    size_t n;
    FILE *f = open_memstream(&out, &n);
    ck_assert_ptr_nonnull(f);
    while (*s) {
        if (strncmp(s, "@D@", 3) == 0) {
            fputs(tdir, f);
            s += 3;
        } else {
            fputc(*s++, f);
        }
    }
    fclose(f);
    return out;
}

/* The inverse, for printing an actual text as a row would hold it. */
static char *unsubst(const char *s)
{
    char *out;
    size_t n, tl = strlen(tdir);
    FILE *f = open_memstream(&out, &n);
    ck_assert_ptr_nonnull(f);
    while (*s) {
        if (tl && strncmp(s, tdir, tl) == 0) {
            fputs("@D@", f);
            s += tl;
        } else {
            fputc(*s++, f);
        }
    }
    fclose(f);
    return out;
}

/* Compare actual with expected (after @D@ substitution); on a mismatch
 * print the actual text (with @D@ put back) and fail. */
static void expect_text(const char *table, int row, const char *actual, const char *expected)
{
    char *want = subst(expected);
    if (strcmp(actual, want) != 0) {
        char *shown = unsubst(actual);
        tu_expect_text(table, row, actual, want, shown); /* fails */
        free(shown);
    }
    free(want);
}

static char *read_or_fail(const char *path)
{
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot open %s (run from the repository root)", path);
    return text;
}


static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- skeletons ---------------------------------------------------------- */

enum base { WHOLE, LASSO, MF, LDA, MINI };

/* Valid jobs, one statement a line; a row replaces the first line that
 * starts with its key. Line numbers are in the comments. */
/* clang-format off */
static const char *const skeletons[] = {
    [WHOLE] = "",
    [LASSO] =
        "job t\n"                                                                 /* 1 */
        "const lambda = 0.001\n"                                                  /* 2 */
        "data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"        /* 3 */
        "data y : vector from labels(X)\n"                                        /* 4 */
        "param beta : vector[cols(X)] = 0\n"                                      /* 5 */
        "param r : vector[rows(X)] = y shard like X\n"                            /* 6 */
        "blocks coef = beta each 1\n"                                             /* 7 */
        "depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"    /* 8 */
        "priority coef(j) = abs(delta(beta[j])) + 1e-4\n"                         /* 9 */
        "cost coef(j) = nnz(col(X, j))\n"                                         /* 10 */
        "schedule dynamic { sample 256 }\n"                                       /* 11 */
        "update builtin lasso_cd { lambda = lambda }\n"                           /* 12 */
        "objective builtin lasso_objective { lambda = lambda } every 10 rounds\n" /* 13 */
        "stop when sweeps >= 100 or rel_change(objective) < 1e-7\n"               /* 14 */
        "output beta to \"beta.tsv\"\n",                                          /* 15 */
    [MF] =
        "job t\n"                                                                 /* 1 */
        "const rank = 20\n"                                                       /* 2 */
        "data R : sparse matrix from \"r.mtx\" format mm shard rows\n"            /* 3 */
        "data T : sparse matrix from \"t.mtx\" format mm\n"                       /* 4 */
        "param W : matrix[rows(R), rank] = random(0.1) shard like R\n"            /* 5 */
        "param H : matrix[cols(R), rank] = random(0.1)\n"                         /* 6 */
        "blocks hb = H rows into workers\n"                                       /* 7 */
        "schedule rotation over hb\n"                                             /* 8 */
        "update builtin mf_sgd { rate = 0.05, decay = 0.95 }\n"                   /* 9 */
        "objective builtin rmse { test = T } every 1 sweeps\n"                    /* 10 */
        "stop when sweeps >= 30 or seconds > 5m\n"                                /* 11 */
        "output W to \"W.tsv\"\n"                                                 /* 12 */
        "output H to \"H.tsv\"\n",                                                /* 13 */
    [LDA] =
        "job t\n"                                                                 /* 1 */
        "const topics = 100\n"                                                    /* 2 */
        "data D : sparse int matrix from \"docword.txt\" format uci vocab \"vocab.txt\" shard rows\n"
                                                                                  /* 3 */
        "param nwk : int matrix[cols(D), topics] = 0\n"                           /* 4 */
        "param nk : int vector[topics] = 0 consistency ssp 1\n"                   /* 5 */
        "blocks words = nwk rows into workers\n"                                  /* 6 */
        "schedule rotation over words\n"                                          /* 7 */
        "update builtin lda_gibbs { alpha = 0.1, sampler = sparse }\n"            /* 8 */
        "objective builtin lda_loglik every 5 sweeps\n"                           /* 9 */
        "stop when sweeps >= 100\n"                                               /* 10 */
        "output nwk to \"word_topic.tsv\"\n",                                     /* 11 */
    [MINI] =
        "job t\n"                                                                 /* 1 */
        "param p : vector[8]\n"                                                   /* 2 */
        "blocks b = p into workers\n"                                             /* 3 */
        "schedule rotation\n"                                                     /* 4 */
        "update lua \"ok.lua\"\n"                                                 /* 5 */
        "stop when rounds >= 3\n",                                                /* 6 */
};
/* clang-format on */

/* The job text of a row: the skeleton with the first line starting with
 * key replaced by text (key NULL: text appended as a line). Caller frees. */
static char *job_text(enum base base, const char *key, const char *text)
{
    const char *sk = skeletons[base];
    char *out;
    size_t n;
    FILE *f = open_memstream(&out, &n);
    ck_assert_ptr_nonnull(f);
    bool done = key == NULL;
    for (const char *line = sk; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (!done && strncmp(line, key, strlen(key)) == 0) {
            fprintf(f, "%s\n", text);
            done = true;
        } else {
            fwrite(line, 1, len, f);
        }
        line += len;
    }
    if (key == NULL && base != WHOLE)
        fprintf(f, "%s\n", text);
    else if (base == WHOLE)
        fputs(text, f);
    fclose(f);
    ck_assert_msg(done || base == WHOLE, "no line starting with '%s' in the skeleton", key);
    return out;
}

/* ---- parse and compile -------------------------------------------------- */

struct outcome {
    int parse_rc, rc;
    char *diags; /* rendered, colorless */
    struct ptm_plan *plan;
    bool oom; /* the sink lost a message */
    double seconds;
};

/* "a=1\nb=x" into sets[]; returns the count. Names are copies in names. */
static unsigned split_sets(const char *text, struct ptm_set *sets, char names[][64], unsigned max)
{
    unsigned n = 0;
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        const char *eq = memchr(text, '=', len);
        ck_assert_ptr_nonnull(eq);
        ck_assert_uint_lt(n, max);
        ck_assert_uint_lt((size_t)(eq - text), 64);
        memcpy(names[n], text, (size_t)(eq - text));
        names[n][eq - text] = '\0';
        sets[n].name = names[n];
        sets[n].value = strndup(eq + 1, len - (size_t)(eq - text) - 1);
        n++;
        text += len + (nl != NULL);
    }
    return n;
}

/* Parse and compile text named "t.ptm" with base_dir tdir; keep the plan
 * when keep is true. With tamper, the tree is changed between the two. */
static struct outcome run_job(const char *text, const char *sets_text, bool keep,
                              void (*tamper)(struct ast_job *))
{
    struct outcome o = {0};
    struct ptm_set sets[8];
    char names[8][64];
    unsigned nsets = split_sets(sets_text, sets, names, 8);
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.ptm", text, strlen(text)), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    struct ast_job *job = NULL;
    double t0 = now();
    o.parse_rc = ptm_parse(&src, &arena, &diags, &job);
    o.rc = o.parse_rc;
    if (o.parse_rc == 0) {
        if (tamper)
            tamper(job);
        struct ptm_compile_opts opts = {
            .base_dir = tdir, .sets = sets, .nsets = nsets, .check_hooks = true};
        o.rc = ptm_compile(&src, job, &opts, &diags, &o.plan);
    }
    o.seconds = now() - t0;
    o.oom = diags.oom;
    size_t n;
    FILE *f = open_memstream(&o.diags, &n);
    ck_assert_ptr_nonnull(f);
    ptm_diags_render(f, &src, &diags, false);
    fclose(f);
    arena_release(&arena);
    ptm_source_release(&src);
    for (unsigned i = 0; i < nsets; i++)
        free((char *)sets[i].value);
    if (!keep) {
        plan_free(o.plan);
        o.plan = NULL;
    }
    return o;
}

/* ---- a fake runtime for prog_eval --------------------------------------- */

/* Data 0 is X, 4 x 4, given by columns; data 1 is y = labels(X). The
 * parameter 0 (beta) has changes dbeta. */
enum { XN = 4 };
static const double X_cols[XN][XN] = {
    {1, 2, 3, 4},   /* c1 */
    {2, 4, 6, 8.5}, /* c2: nearly c1 */
    {1, 0, 1, 0},   /* c3 */
    {1, -1, -1, 1}, /* c4: uncorrelated with c1 and c3 */
};
static const double dbeta[XN] = {0.25, 0, -0.5, 2};

struct fake {
    int corr_calls;
    int32_t corr_a, corr_b;
    int64_t corr_i, corr_j;
};

static bool col_ok(int64_t k)
{
    return k >= 1 && k <= XN;
}

static double cb_delta(void *ud, int32_t param, const int64_t *idx, int n)
{
    (void)ud;
    return param == 0 && n == 1 && col_ok(idx[0]) ? dbeta[idx[0] - 1] : NAN;
}

static double cb_param(void *ud, int32_t param, const int64_t *idx, int n)
{
    (void)ud, (void)param, (void)idx, (void)n;
    return NAN;
}

static double cb_data(void *ud, int32_t data, const int64_t *idx, int n)
{
    (void)ud;
    if (data == 0 && n == 2 && col_ok(idx[0]) && col_ok(idx[1]))
        return X_cols[idx[1] - 1][idx[0] - 1];
    return NAN;
}

static double cb_nnz(void *ud, int32_t data, int axis, int64_t k)
{
    (void)ud;
    if (data != 0 || axis != 1 || !col_ok(k))
        return NAN;
    int n = 0;
    for (int i = 0; i < XN; i++)
        n += X_cols[k - 1][i] != 0;
    return n;
}

static double cb_dim(void *ud, int32_t data, int axis)
{
    (void)ud, (void)axis;
    return data == 0 ? XN : NAN;
}

/* Pearson correlation, two passes over the columns. */
static double cb_corr(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    struct fake *f = ud;
    f->corr_calls++;
    f->corr_a = a, f->corr_b = b, f->corr_i = i, f->corr_j = j;
    if (a != 0 || b != 0 || !col_ok(i) || !col_ok(j))
        return NAN;
    const double *x = X_cols[i - 1], *y = X_cols[j - 1];
    double mx = 0, my = 0;
    for (int k = 0; k < XN; k++)
        mx += x[k] / XN, my += y[k] / XN;
    double sxy = 0, sxx = 0, syy = 0;
    for (int k = 0; k < XN; k++) {
        sxy += (x[k] - mx) * (y[k] - my);
        sxx += (x[k] - mx) * (x[k] - mx);
        syy += (y[k] - my) * (y[k] - my);
    }
    return sxx == 0 || syy == 0 ? 0 : sxy / sqrt(sxx * syy);
}

/* The cosine of two columns of X_cols, as stored; counted with corr(). */
static double cb_cos(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    struct fake *f = ud;
    f->corr_calls++;
    f->corr_a = a, f->corr_b = b, f->corr_i = i, f->corr_j = j;
    if (a != 0 || b != 0 || !col_ok(i) || !col_ok(j))
        return NAN;
    const double *x = X_cols[i - 1], *y = X_cols[j - 1];
    double sxy = 0, sxx = 0, syy = 0;
    for (int k = 0; k < XN; k++) {
        sxy += x[k] * y[k];
        sxx += x[k] * x[k];
        syy += y[k] * y[k];
    }
    return sxx == 0 || syy == 0 ? NAN : sxy / sqrt(sxx * syy);
}

static double eval(const struct prog *p, const double *globals, double vi, double vj,
                   struct fake *f)
{
    static const double no_globals[PROG_NGLOBALS] = {0};
    double vars[2] = {vi, vj};
    struct prog_env env = {
        .globals = globals ? globals : no_globals,
        .vars = vars,
        .ud = f,
        .param = cb_param,
        .delta = cb_delta,
        .data = cb_data,
        .nnz = cb_nnz,
        .dim = cb_dim,
        .corr = cb_corr,
        .cos = cb_cos,
    };
    return prog_eval(p, &env);
}

/* The stop rule's value for given counters. */
static double eval_stop(const struct prog *p, double rounds, double sweeps, double seconds,
                        double objective, double rel_change)
{
    double g[PROG_NGLOBALS] = {0};
    g[PROG_G_ROUNDS] = rounds;
    g[PROG_G_SWEEPS] = sweeps;
    g[PROG_G_SECONDS] = seconds;
    g[PROG_G_OBJECTIVE] = objective;
    g[PROG_G_REL_CHANGE] = rel_change;
    g[PROG_G_WORKERS] = 4;
    return eval(p, g, 0, 0, NULL);
}

/* p is exactly one instruction op with operand a. */
static void assert_single(const struct prog *p, enum prog_op op, int32_t a)
{
    ck_assert_uint_eq(p->ncode, 1);
    ck_assert_int_eq(p->code[0].op, op);
    ck_assert_int_eq(p->code[0].a, a);
}

/* p is one CONST of value v. */
static void assert_const(const struct prog *p, double v)
{
    double got;
    ck_assert_msg(prog_is_const(p, &got), "not a single CONST (%u instructions)", p->ncode);
    ck_assert_double_eq(got, v);
}

/* ---- Lua files ---------------------------------------------------------- */

struct lua_file {
    const char *name, *text;
};

/* clang-format off */
static const struct lua_file lua_files[] = {
    {"ok.lua", "function push(ctx) return 1 end\n"
               "function pull(ctx) return 2 end\n"
               "function objective() return 0 end\n"
               "function mypush() end\n"
               "function mypull() end\n"},
    {"pushonly.lua", "function push() end\n"},
    /* what examples/lasso/lasso_lua.ptm's checks need of its rule */
    {"lasso.lua", "function push() end\nfunction pull() end\nfunction objective() end\n"},
    {"initnum.lua", "function push() end\nfunction pull() end\ninit = 3\n"},
    {"init3.lua", "function push() end\nfunction pull() end\nfunction init(w, S, job) end\n"},
    {"initva.lua", "function push() end\nfunction pull() end\nfunction init(w, ...) end\n"},
    {"state.lua", "function push() end\nfunction save(w, job) end\nfunction load(w, t, job) end\n"
                  "function keep() end\nfunction give(w, ...) end\nfunction objective() end\n"},
    {"saveonly.lua", "function push() end\nfunction save(w) end\nfunction objective() end\n"},
    {"loadonly.lua", "function push() end\nfunction load(w, t) end\n"},
    {"savetable.lua", "function push() end\nsave = {}\nfunction load(w, t) end\n"},
    {"load4.lua", "function push() end\nfunction save() end\nfunction load(w, t, job, x) end\n"},
    {"objstate.lua", "function objective() end\nfunction save() end\nfunction load(w, t) end\n"},
    {"nopush.lua", "function pull() end\nfunction objective() end\n"},
    {"pushnum.lua", "push = 3\nlocal function pull() end\n"},
    {"syntax.lua", "function push() end\nfunction pull( end\n"},
    {"runerr.lua", "function push() end\nerror(\"custom failure\")\n"},
    {"errtable.lua", "error({})\n"},
    {"io.lua", "local f = io.open(\"@D@/PWNED_io\", \"w\")\nf:write(\"x\")\nfunction push() end\n"},
    {"os.lua", "os.execute(\"touch @D@/PWNED_os\")\nfunction push() end\n"},
    {"require.lua", "local m = require(\"os\")\nfunction push() end\n"},
    {"load.lua", "load(\"x = 1\")()\nfunction push() end\n"},
    {"dofile.lua", "dofile(\"ok.lua\")\n"},
    {"loadfile.lua", "loadfile(\"ok.lua\")()\n"},
    {"dump.lua", "local s = string.dump(function() end)\nfunction push() end\n"},
    {"bytecode.lua", "\033Lua\x54\x00"},
    {"loop.lua", "while true do end\nfunction push() end\n"},
    {"coloop.lua", "local co = coroutine.wrap(function() while true do end end)\nco()\n"},
    /* A linked list of small tables: every allocation is small (under
     * 1 KiB), and large enough that the cap, not the time limit, stops it
     * even under ThreadSanitizer. */
    {"bomb.lua", "local l, i = nil, 0\nwhile true do i = i + 1\n"
                 "  l = {l, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i}\nend\n"},
    {"bigbomb.lua", "local s = \"x\"\nwhile true do s = s .. s end\n"},
    {"pattern.lua", "local a = string.find(string.rep(\"a\", 18), string.rep(\"a*\", 18) .. \"b\")\n"
                    "function push() end\n"},
    {"match.lua", "local x = (\"abc\"):match(\"b\")\nfunction push() end\n"},
    {"plainfind.lua", "assert(string.find(\"a.c\", \".\", 1, true) == 2)\nfunction push() end\n"},
    {"meta.lua", "setmetatable(_G, {__index = function(t, k) error(\"no global \" .. k) end})\n"
                 "function push() end\n"},
    {"meta_nopush.lua", "setmetatable(_G, {__index = function(t, k) error(\"no global \" .. k) end,\n"
                        "  __newindex = function(t, k) error(\"read-only \" .. k) end})\n"},
    {"meta_newindex.lua", "setmetatable(_G, {__newindex = function(t, k) error(\"read-only \" .. k) end})\n"
                          "function push() end\n"},
    {"localpush.lua", "local function push() end\n"},
    {"empty.lua", ""},
};
/* clang-format on */

/* Files a sandbox escape would create ("@D@" in a Lua file is the
 * directory); they must never exist. */
static const char *const markers[] = {"PWNED_io", "PWNED_os"};

static void path_in_tdir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tdir, name);
}

static bool exists_in_tdir(const char *name)
{
    char path[256];
    struct stat sb;
    path_in_tdir(path, sizeof(path), name);
    return stat(path, &sb) == 0;
}

/* ---- 1. diagnostics ------------------------------------------------------ */

struct sem_row {
    enum base base;
    const char *key;      /* prefix of the skeleton line replaced; NULL: append */
    const char *text;     /* the line (or lines) put there, or the whole job */
    const char *sets;     /* --set NAME=VALUE, one a line; NULL: none */
    const char *expected; /* whole rendered text; "": compiles with none */
    double max_seconds;   /* 0: no limit checked */
};

/* clang-format off */
#define R(base, key, text, expected) {base, key, text, NULL, expected, 0}
#define RS(base, key, text, sets, expected) {base, key, text, sets, expected, 0}
#define RT(base, key, text, secs, expected) {base, key, text, NULL, expected, secs}
/* clang-format on */

/* Every sem_error()/diag_file() call of compiler/sem.c and sem_expr.c has
 * a row, but two that cannot be reached: "takes N to M arguments" (every
 * function has a fixed arity, or a minimum) and "must be a constant" (a
 * number-typed constant expression always folds). The NUL-byte const is
 * reached only by changing the tree (test_sem_nul_const). */
/* clang-format off */
static const struct sem_row sem_rows[] = {
    /* ---- names: declare, resolve, sem_unknown ---- */
    R(LASSO, "blocks", "blocks coef = bta each 1",
      "t.ptm:7:15: error: unknown parameter 'bta' (did you mean 'beta'?)\n"
      "    blocks coef = bta each 1\n"
      "                  ^^^\n"),
    R(LASSO, "const", "const lambda = x",
      "t.ptm:2:16: error: unknown name 'x'\n"
      "    const lambda = x\n"
      "                   ^\n"),
    R(LASSO, "const", "const lambda = 0.001\nconst lambda = 2",
      "t.ptm:3:7: error: 'lambda' is already defined\n"
      "    const lambda = 2\n"
      "          ^^^^^^\n"
      "t.ptm:2:7: note: 'lambda' was defined here as a const\n"
      "    const lambda = 0.001\n"
      "          ^^^^^^\n"),
    R(LASSO, "blocks", "blocks beta = beta each 1",
      "t.ptm:7:8: error: 'beta' is already defined\n"
      "    blocks beta = beta each 1\n"
      "           ^^^^\n"
      "t.ptm:5:7: note: 'beta' was defined here as a parameter\n"
      "    param beta : vector[cols(X)] = 0\n"
      "          ^^^^\n"
      "t.ptm:8:8: error: unknown block set 'coef'\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "           ^^^^\n"
      "t.ptm:9:10: error: unknown block set 'coef'\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "             ^^^^\n"
      "t.ptm:10:6: error: unknown block set 'coef'\n"
      "    cost coef(j) = nnz(col(X, j))\n"
      "         ^^^^\n"
      "t.ptm:11:1: error: the dynamic policy schedules blocks: declare them with 'blocks'\n"
      "    schedule dynamic { sample 256 }\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "const", "const lambda = 0.001\nconst workers = 1",
      "t.ptm:3:7: error: 'workers' is a built-in name and cannot be redefined\n"
      "    const workers = 1\n"
      "          ^^^^^^^\n"),
    R(LASSO, "const", "const lambda = 0.001\nconst rel_change = 0.001",
      "t.ptm:3:7: error: 'rel_change' is a built-in name and cannot be redefined\n"
      "    const rel_change = 0.001\n"
      "          ^^^^^^^^^^\n"),
    R(LASSO, "blocks", "blocks coef = X each 1",
      "t.ptm:7:15: error: 'X' is a data source, not a parameter\n"
      "    blocks coef = X each 1\n"
      "                  ^\n"
      "t.ptm:3:6: note: 'X' is defined here\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
      "         ^\n"),
    R(LASSO, "blocks", "blocks coef = lambda",
      "t.ptm:7:15: error: 'lambda' is a const, not a parameter\n"
      "    blocks coef = lambda\n"
      "                  ^^^^^^\n"
      "t.ptm:2:7: note: 'lambda' is defined here\n"
      "    const lambda = 0.001\n"
      "          ^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic over beta { sample 256 }",
      "t.ptm:11:23: error: 'beta' is a parameter, not a block set\n"
      "    schedule dynamic over beta { sample 256 }\n"
      "                          ^^^^\n"
      "t.ptm:5:7: note: 'beta' is defined here\n"
      "    param beta : vector[cols(X)] = 0\n"
      "          ^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic over cof { sample 256 }",
      "t.ptm:11:23: error: unknown block set 'cof' (did you mean 'coef'?)\n"
      "    schedule dynamic over cof { sample 256 }\n"
      "                          ^^^\n"),
    R(LASSO, "output", "output bta to \"beta.tsv\"",
      "t.ptm:15:8: error: unknown parameter 'bta' (did you mean 'beta'?)\n"
      "    output bta to \"beta.tsv\"\n"
      "           ^^^\n"),
    R(LASSO, "output", "output X to \"x.tsv\"",
      "t.ptm:15:8: error: 'X' is a data source, not a parameter\n"
      "    output X to \"x.tsv\"\n"
      "           ^\n"
      "t.ptm:3:6: note: 'X' is defined here\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
      "         ^\n"),
    /* ---- fixed word lists ---- */
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvn shard rows",
      "t.ptm:3:44: error: unknown data format 'libsvn' (did you mean 'libsvm'?)\n"
      "    data X : sparse matrix from \"x.svm\" format libsvn shard rows\n"
      "                                               ^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format json shard rows",
      "t.ptm:3:44: error: unknown data format 'json' (use libsvm, mm, uci or csv)\n"
      "    data X : sparse matrix from \"x.svm\" format json shard rows\n"
      "                                               ^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format labels shard rows",
      "t.ptm:3:44: error: unknown data format 'labels' (use libsvm, mm, uci or csv)\n"
      "    data X : sparse matrix from \"x.svm\" format labels shard rows\n"
      "                                               ^^^^^^\n"),
    R(MF, "data T", "data T : sparse matrix from \"t.mtx\" format mm shard row",
      "t.ptm:4:53: error: unknown sharding 'row' (did you mean 'rows'?)\n"
      "    data T : sparse matrix from \"t.mtx\" format mm shard row\n"
      "                                                        ^^^\n"),
    R(MF, "data T", "data T : sparse matrix from \"t.mtx\" format mm shard diagonal",
      "t.ptm:4:53: error: unknown sharding 'diagonal' (use none, rows or cols)\n"
      "    data T : sparse matrix from \"t.mtx\" format mm shard diagonal\n"
      "                                                        ^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamc { sample 256 }",
      "t.ptm:11:10: error: unknown scheduling policy 'dynamc' (did you mean 'dynamic'?)\n"
      "    schedule dynamc { sample 256 }\n"
      "             ^^^^^^\n"),
    R(LASSO, "schedule", "schedule fifo { sample 256 }",
      "t.ptm:11:10: error: unknown scheduling policy 'fifo' (use dynamic, rotation, round_robin, random or data_parallel)\n"
      "    schedule fifo { sample 256 }\n"
      "             ^^^^\n"),
    /* ---- const ---- */
    R(LASSO, "const", "const lambda = workers",
      "t.ptm:2:16: error: 'workers' cannot be used in a const\n"
      "    const lambda = workers\n"
      "                   ^^^^^^^\n"),
    R(LASSO, "const", "const lambda = rows(X)",
      "t.ptm:2:16: error: rows() cannot be used in a const\n"
      "    const lambda = rows(X)\n"
      "                   ^^^^^^^\n"),
    R(LASSO, "const", "const lambda = lambda + 1",
      "t.ptm:2:16: error: const 'lambda' is used before its definition\n"
      "    const lambda = lambda + 1\n"
      "                   ^^^^^^\n"
      "t.ptm:2:7: note: 'lambda' is defined here\n"
      "    const lambda = lambda + 1\n"
      "          ^^^^^^\n"),
    R(LASSO, "const", "const a = b + 1\nconst b = 2\nconst lambda = a",
      "t.ptm:2:11: error: const 'b' is used before its definition\n"
      "    const a = b + 1\n"
      "              ^\n"
      "t.ptm:3:7: note: 'b' is defined here\n"
      "    const b = 2\n"
      "          ^\n"),
    R(LASSO, "const", "const lambda = lamda",
      "t.ptm:2:16: error: unknown name 'lamda' (did you mean 'lambda'?)\n"
      "    const lambda = lamda\n"
      "                   ^^^^^\n"),
    R(LASSO, "const", "const lambda = \"fast\"",
      "t.ptm:12:36: error: const 'lambda' is a string, not a number\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                                       ^^^^^^\n"
      "t.ptm:13:46: error: const 'lambda' is a string, not a number\n"
      "    objective builtin lasso_objective { lambda = lambda } every 10 rounds\n"
      "                                                 ^^^^^^\n"),
    R(LASSO, "const", "const f = \"x.svm\"\nconst lambda = f",
      "t.ptm:13:36: error: const 'lambda' is a string, not a number\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                                       ^^^^^^\n"
      "t.ptm:14:46: error: const 'lambda' is a string, not a number\n"
      "    objective builtin lasso_objective { lambda = lambda } every 10 rounds\n"
      "                                                 ^^^^^^\n"),
    /* ---- --set ---- */
    RS(LASSO, NULL, "", "lambda=abc",
      "t.ptm: error: --set lambda=abc: 'lambda' is a number and 'abc' is not one\n"),
    RS(LASSO, NULL, "", "lambda=",
      "t.ptm: error: --set lambda=: 'lambda' is a number and '' is not one\n"),
    RS(LASSO, NULL, "", "lambda=inf",
      "t.ptm: error: --set lambda=inf: 'lambda' is a number and 'inf' is not one\n"),
    RS(LASSO, NULL, "", "lambda=1.5hr",
      "t.ptm: error: --set lambda=1.5hr: 'lambda' is a number and '1.5hr' is not one\n"),
    RS(LASSO, NULL, "", "lambda=2\nlambda=abc",
      "t.ptm: error: --set lambda=abc: 'lambda' is a number and 'abc' is not one\n"),
    RS(LASSO, NULL, "", "lamda=0.5",
      "t.ptm: error: --set lamda=0.5: the job has no const 'lamda' (did you mean 'lambda'?)\n"),
    RS(LASSO, NULL, "", "zzz=0.5",
      "t.ptm: error: --set zzz=0.5: the job has no const 'zzz'\n"),
    RS(LASSO, NULL, "", "X=0.5\ncoef=1",
      "t.ptm: error: --set X=0.5: 'X' is a data source, not a const\n"
      "t.ptm: error: --set coef=1: 'coef' is a block set, not a const\n"),
    RS(LASSO, "const", "const lambda = lamda", "lambda=0.5\nlamdba=1",
      "t.ptm: error: --set lamdba=1: the job has no const 'lamdba' (did you mean 'lambda'?)\n"
      "t.ptm:2:16: error: unknown name 'lamda' (did you mean 'lambda'?)\n"
      "    const lambda = lamda\n"
      "                   ^^^^^\n"),
    /* ---- metric NAME = KIND(DATA) ---- */
    R(LASSO, "stop", "data T : sparse matrix from \"x.svm\" format libsvm\nmetric m = rmes(T)\nstop when sweeps >= 1",
      "t.ptm:15:12: error: lasso_cd has no metric 'rmes' (did you mean 'rmse'?)\n"
      "    metric m = rmes(T)\n"
      "               ^^^^\n"),
    R(LASSO, "stop", "data T : sparse matrix from \"x.svm\" format libsvm\nmetric m = auc(T)\nstop when sweeps >= 1",
      "t.ptm:15:12: error: lasso_cd has no metric 'auc' (it has rmse|mae|r2)\n"
      "    metric m = auc(T)\n"
      "               ^^^\n"),
    R(LASSO, "stop", "metric m = rmse\nmetric n = rmse(y)\nmetric k = rmse(X, y)\nstop when sweeps >= 1",
      "t.ptm:14:12: error: a metric is KIND(DATA), such as rmse(T)\n"
      "    metric m = rmse\n"
      "               ^^^^\n"
      "t.ptm:15:17: error: a metric is measured on a matrix data source; 'y' is labels\n"
      "    metric n = rmse(y)\n"
      "                    ^\n"
      "t.ptm:16:12: error: rmse() takes the name of a data source\n"
      "    metric k = rmse(X, y)\n"
      "               ^^^^^^^^^^\n"),
    R(LASSO, "stop", "metric m = rmse(X)\nmetric n = r2(X)\nstop when rel_change(m) < 0 or m > 1 or since_best(n) > 2",
      ""),
    R(LASSO, "priority", "metric m = rmse(X)\npriority coef(j) = m",
      "t.ptm:10:20: error: 'm' is a metric: only the stop rule can read it\n"
      "    priority coef(j) = m\n"
      "                       ^\n"),
    R(LASSO, "stop", "stop when since_best(objective) > 1",
      "t.ptm:14:22: error: since_best() takes a metric (metric NAME = KIND(DATA))\n"
      "    stop when since_best(objective) > 1\n"
      "                         ^^^^^^^^^\n"),
    R(LASSO, "objective", "metric m = rmse(X)",
      "t.ptm:13:1: error: metrics are evaluated with the objective, but the job has no 'objective'\n"
      "    metric m = rmse(X)\n"
      "    ^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:14:28: error: the stop rule reads the objective, but the job has no 'objective'\n"
      "    stop when sweeps >= 100 or rel_change(objective) < 1e-7\n"
      "                               ^^^^^^^^^^^^^^^^^^^^^\n"),
    /* ---- --set of options: update.KEY, objective.KEY, schedule.KEY ---- */
    RS(LASSO, NULL, "", "update.lambd=0.5",
      "t.ptm: error: --set update.lambd=0.5: lasso_cd has no option 'lambd' (did you mean 'lambda'?)\n"),
    RS(LASSO, NULL, "", "update.lambda=-1",
      "t.ptm: error: --set update.lambda=-1: option 'lambda' of lasso_cd must be a number at least 0, not -1\n"),
    RS(LASSO, NULL, "", "update.within=sideways",
      "t.ptm: error: --set update.within=sideways: option 'within' takes one of parallel|sequential\n"),
    RS(LASSO, NULL, "", "update.lambda=1+2",
      "t.ptm: error: --set update.lambda=1+2: the value of an option is a number, true, false or a name\n"),
    RS(LASSO, NULL, "", "update.beta=X",
      "t.ptm: error: --set update.beta=X: 'X' is a data source, not a parameter\n"
      "t.ptm:3:6: note: 'X' is defined here\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
      "         ^\n"),
    RS(LASSO, NULL, "", "schedule.sampel=10\nschedule.per_round=5\nschedule.sample=0",
      "t.ptm: error: --set schedule.sample=0: 'sample' must be a whole number from 1 to 100000000, not 0\n"
      "t.ptm: error: --set schedule.sampel=10: unknown option 'sampel' (did you mean 'sample'?)\n"
      "t.ptm: error: --set schedule.per_round=5: 'per_round' is not an option of the dynamic policy\n"),
    RS(LASSO, NULL, "", "model.rate=1\nupdate.=1\nobjective.lambda=x",
      "t.ptm: error: --set model.rate=1: options are set as update.KEY, objective.KEY or schedule.KEY\n"
      "t.ptm: error: --set update.=1: no option named after 'update.'\n"
      "t.ptm: error: --set objective.lambda=x: unknown name 'x'\n"),
    RS(WHOLE, NULL, "job t\nparam p : vector[3]\nblocks b = p\nschedule round_robin\n"
      "update lua \"ok.lua\"\nstop when rounds >= 1\n", "update.push=f",
      "t.ptm: error: --set update.push=f: only the options of a builtin update can be set (this one is Lua)\n"),
    /* Clean: a string const takes any text; the last of two sets wins. */
    RS(LASSO, "const", "const lambda = 0.001\nconst name = \"abc\"", "name=12\nlambda=abc\nlambda=7",
      ""),
    /* ---- data ---- */
    R(LASSO, "data X", "data X : sparse matrix[3, 4] from \"x.svm\" format libsvm shard rows",
      "t.ptm:3:10: error: the size of data comes from its file; remove the dimensions\n"
      "    data X : sparse matrix[3, 4] from \"x.svm\" format libsvm shard rows\n"
      "             ^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvm format libsvm shard rows",
      "t.ptm:3:51: error: 'format' is given twice\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm format libsvm shard rows\n"
      "                                                      ^^^^^^^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvm shard rows shard rows",
      "t.ptm:3:62: error: 'shard' is given twice\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard rows shard rows\n"
      "                                                                 ^^^^^^^^^^\n"),
    R(LDA, "data D", "data D : sparse int matrix from \"docword.txt\" format uci vocab \"v1\" vocab \"v2\" shard rows",
      "t.ptm:3:69: error: 'vocab' is given twice\n"
      "    data D : sparse int matrix from \"docword.txt\" format uci vocab \"v1\" vocab \"v2\" shard rows\n"
      "                                                                        ^^^^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvm shard like y",
      "t.ptm:3:51: error: data is sharded with 'shard rows', 'shard cols' or 'shard none'\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard like y\n"
      "                                                      ^^^^^^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvm shard rows consistency bsp",
      "t.ptm:3:62: error: 'consistency' does not apply to data; it is for parameters\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard rows consistency bsp\n"
      "                                                                 ^^^^^^^^^^^^^^^\n"),
    R(LASSO, "data y", "data y : vector from labels(X) format libsvm",
      "t.ptm:4:32: error: labels() take the format of their data; remove 'format'\n"
      "    data y : vector from labels(X) format libsvm\n"
      "                                   ^^^^^^^^^^^^^\n"),
    R(LASSO, "data y", "data y : vector from labels(1)",
      "t.ptm:4:22: error: labels() takes the name of a data source, and for csv data the name of its label column: labels(X, \"price\")\n"
      "    data y : vector from labels(1)\n"
      "                         ^^^^^^^^^\n"),
    R(LASSO, "data y", "data y : vector from labels(X, X)",
      "t.ptm:4:32: error: the label column is a name in quotes (a string), not empty\n"
      "    data y : vector from labels(X, X)\n"
      "                                   ^\n"),
    R(LASSO, "data y", "data y : vector from labels(X, \"price\")",
      "t.ptm:4:32: error: a label column is named in a csv header; 'X' is libsvm data\n"
      "    data y : vector from labels(X, \"price\")\n"
      "                                   ^^^^^^^\n"),
    R(LASSO, "data y", "data y : vector from labels(X, \"a\", \"b\")",
      "t.ptm:4:22: error: labels() takes the name of a data source, and for csv data the name of its label column: labels(X, \"price\")\n"
      "    data y : vector from labels(X, \"a\", \"b\")\n"
      "                         ^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "data y", "data y : vector from labels(y)",
      "t.ptm:4:29: error: 'y' cannot be the labels of itself\n"
      "    data y : vector from labels(y)\n"
      "                                ^\n"),
    R(LASSO, "data y", "data y : vector from labels(Z)",
      "t.ptm:4:29: error: unknown data source 'Z'\n"
      "    data y : vector from labels(Z)\n"
      "                                ^\n"),
    R(LASSO, "data y", "data y : vector from labels(beta)",
      "t.ptm:4:29: error: 'beta' is a parameter, not a data source\n"
      "    data y : vector from labels(beta)\n"
      "                                ^^^^\n"
      "t.ptm:5:7: note: 'beta' is defined here\n"
      "    param beta : vector[cols(X)] = 0\n"
      "          ^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.mtx\" format mm shard rows",
      "t.ptm:4:29: error: 'X' has no labels: labels come with libsvm or csv data\n"
      "    data y : vector from labels(X)\n"
      "                                ^\n"),
    R(LASSO, "data y", "data y : dense matrix from labels(X)",
      "t.ptm:4:10: error: labels are a vector, not a matrix\n"
      "    data y : dense matrix from labels(X)\n"
      "             ^^^^^^^^^^^^\n"
      "t.ptm:6:29: error: a parameter starts from data only when both are vectors\n"
      "    param r : vector[rows(X)] = y shard like X\n"
      "                                ^\n"),
    R(LASSO, "data y", "data y : vector from labels(X) shard none",
      "t.ptm:4:32: error: labels go with their data's rows: here 'shard rows'\n"
      "    data y : vector from labels(X) shard none\n"
      "                                   ^^^^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from 3 format libsvm shard rows",
      "t.ptm:3:29: error: data comes from a file name (a string or a string const) or labels(DATA)\n"
      "    data X : sparse matrix from 3 format libsvm shard rows\n"
      "                                ^\n"),
    R(LASSO, "data y", "data y : vector from lables(X)",
      "t.ptm:4:22: error: data comes from a file name (a string or a string const) or labels(DATA)\n"
      "    data y : vector from lables(X)\n"
      "                         ^^^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"\" format libsvm shard rows",
      "t.ptm:3:29: error: the file name is empty\n"
      "    data X : sparse matrix from \"\" format libsvm shard rows\n"
      "                                ^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.dat\" shard rows",
      "t.ptm:3:29: error: cannot tell the format of \"x.dat\" from its name; add 'format libsvm', 'format mm', 'format uci' or 'format csv'\n"
      "    data X : sparse matrix from \"x.dat\" shard rows\n"
      "                                ^^^^^^^\n"),
    R(LASSO, "data X", "data X : sparse vector from \"x.svm\" format libsvm shard rows",
      "t.ptm:3:10: error: a vector comes from a csv file or from labels(DATA); libsvm data is a matrix\n"
      "    data X : sparse vector from \"x.svm\" format libsvm shard rows\n"
      "             ^^^^^^^^^^^^^\n"
      "t.ptm:8:43: error: 'X' is a vector; col() needs a matrix (a vector is itself a column: corr() takes 'X' as it is)\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "                                              ^\n"
      "t.ptm:10:24: error: 'X' is a vector; col() needs a matrix\n"
      "    cost coef(j) = nnz(col(X, j))\n"
      "                           ^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvm shard rows vocab \"v.txt\"",
      "t.ptm:3:62: error: 'vocab' goes with 'format uci'\n"
      "    data X : sparse matrix from \"x.svm\" format libsvm shard rows vocab \"v.txt\"\n"
      "                                                                 ^^^^^^^^^^^^^\n"),
    /* ---- param ---- */
    R(LASSO, "param beta", "param beta : vector[0] = 0",
      "t.ptm:5:21: error: a size must be a whole number from 1 to 2147483647, not 0\n"
      "    param beta : vector[0] = 0\n"
      "                        ^\n"),
    R(LASSO, "param beta", "param beta : vector[2.5] = 0",
      "t.ptm:5:21: error: a size must be a whole number from 1 to 2147483647, not 2.5\n"
      "    param beta : vector[2.5] = 0\n"
      "                        ^^^\n"),
    R(LASSO, "param beta", "param beta : vector[1e300] = 0",
      "t.ptm:5:21: error: a size must be a whole number from 1 to 2147483647, not 1e+300\n"
      "    param beta : vector[1e300] = 0\n"
      "                        ^^^^^\n"),
    /* what ptm run cannot size, ptm check refuses (once 10^15 passed here) */
    R(LASSO, "param beta", "param beta : vector[2147483648] = 0",
      "t.ptm:5:21: error: a size must be a whole number from 1 to 2147483647, not 2147483648\n"
      "    param beta : vector[2147483648] = 0\n"
      "                        ^^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[rounds] = 0",
      "t.ptm:5:21: error: 'rounds' cannot be used in a size\n"
      "    param beta : vector[rounds] = 0\n"
      "                        ^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(beta)] = 0",
      "t.ptm:5:26: error: 'beta' is a parameter; cols() takes a data source\n"
      "    param beta : vector[cols(beta)] = 0\n"
      "                             ^^^^\n"),
    R(LASSO, "param beta", "param beta : sparse vector[cols(X)] = 0",
      "t.ptm:5:14: error: parameters are dense; remove 'sparse'\n"
      "    param beta : sparse vector[cols(X)] = 0\n"
      "                 ^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : dense vector = 0",
      "t.ptm:5:14: error: a parameter needs its size: vector[LENGTH]\n"
      "    param beta : dense vector = 0\n"
      "                 ^^^^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : dense vector[cols(X), 2] = 0",
      "t.ptm:5:14: error: a vector takes 1 size, not 2\n"
      "    param beta : dense vector[cols(X), 2] = 0\n"
      "                 ^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : dense matrix[cols(X)] = 0",
      "t.ptm:5:14: error: a matrix takes 2 sizes, not 1\n"
      "    param beta : dense matrix[cols(X)] = 0\n"
      "                 ^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:30: error: 'beta' is a matrix: it takes 2 indices, not 1\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "                                 ^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = random()",
      "t.ptm:5:32: error: random() takes 1 argument (the scale), not 0\n"
      "    param beta : vector[cols(X)] = random()\n"
      "                                   ^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = random(1, 2)",
      "t.ptm:5:32: error: random() takes 1 argument (the scale), not 2\n"
      "    param beta : vector[cols(X)] = random(1, 2)\n"
      "                                   ^^^^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = random(0)",
      "t.ptm:5:39: error: the scale of random() must be positive\n"
      "    param beta : vector[cols(X)] = random(0)\n"
      "                                          ^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = random(-0.5)",
      "t.ptm:5:39: error: the scale of random() must be positive\n"
      "    param beta : vector[cols(X)] = random(-0.5)\n"
      "                                          ^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = random(rows(X))",
      "t.ptm:5:39: error: rows() cannot be used in the scale of random()\n"
      "    param beta : vector[cols(X)] = random(rows(X))\n"
      "                                          ^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : int vector[cols(X)] = random(1)",
      "t.ptm:5:36: error: an int parameter cannot start random\n"
      "    param beta : int vector[cols(X)] = random(1)\n"
      "                                       ^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : int vector[cols(X)] = 0.5",
      "t.ptm:5:36: error: an int parameter needs a whole initial value\n"
      "    param beta : int vector[cols(X)] = 0.5\n"
      "                                       ^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = X",
      "t.ptm:5:32: error: a parameter starts from data only when both are vectors\n"
      "    param beta : vector[cols(X)] = X\n"
      "                                   ^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = coef",
      "t.ptm:5:32: error: 'coef' is a block set, not a number\n"
      "    param beta : vector[cols(X)] = coef\n"
      "                                   ^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = rows(X)",
      "t.ptm:5:32: error: rows() cannot be used in an initial value\n"
      "    param beta : vector[cols(X)] = rows(X)\n"
      "                                   ^^^^^^^\n"),
    R(LASSO, "param r", "param r : vector[rows(X)] = y shard like X shard like X",
      "t.ptm:6:44: error: 'shard' is given twice\n"
      "    param r : vector[rows(X)] = y shard like X shard like X\n"
      "                                               ^^^^^^^^^^^^\n"),
    R(LASSO, "param r", "param r : vector[rows(X)] = y shard like Z",
      "t.ptm:6:42: error: unknown data source 'Z'\n"
      "    param r : vector[rows(X)] = y shard like Z\n"
      "                                             ^\n"),
    R(LASSO, "param r", "param r : vector[rows(X)] = y shard like beta",
      "t.ptm:6:42: error: 'beta' is a parameter, not a data source\n"
      "    param r : vector[rows(X)] = y shard like beta\n"
      "                                             ^^^^\n"
      "t.ptm:5:7: note: 'beta' is defined here\n"
      "    param beta : vector[cols(X)] = 0\n"
      "          ^^^^\n"),
    R(LASSO, "data X", "data X : sparse matrix from \"x.svm\" format libsvm shard none",
      "t.ptm:6:31: error: 'shard like X' needs data sharded by rows\n"
      "    param r : vector[rows(X)] = y shard like X\n"
      "                                  ^^^^^^^^^^^^\n"),
    R(LASSO, "param r", "param r : vector[rows(X)] = y shard rows",
      "t.ptm:6:31: error: a parameter is sharded with 'shard like DATA'\n"
      "    param r : vector[rows(X)] = y shard rows\n"
      "                                  ^^^^^^^^^^\n"),
    R(LASSO, "param r", "param r : vector[rows(X)] = y format csv vocab \"v\"",
      "t.ptm:6:31: error: 'format' does not apply to a parameter\n"
      "    param r : vector[rows(X)] = y format csv vocab \"v\"\n"
      "                                  ^^^^^^^^^^\n"
      "t.ptm:6:42: error: 'vocab' does not apply to a parameter\n"
      "    param r : vector[rows(X)] = y format csv vocab \"v\"\n"
      "                                             ^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = 0 consistency ssp 2 consistency async",
      "t.ptm:5:52: error: 'consistency' is given twice\n"
      "    param beta : vector[cols(X)] = 0 consistency ssp 2 consistency async\n"
      "                                                       ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = 0 consistency ssp -1",
      "t.ptm:5:50: error: the staleness must be a whole number from 0 to 1000000, not -1\n"
      "    param beta : vector[cols(X)] = 0 consistency ssp -1\n"
      "                                                     ^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = 0 consistency ssp 1.5",
      "t.ptm:5:50: error: the staleness must be a whole number from 0 to 1000000, not 1.5\n"
      "    param beta : vector[cols(X)] = 0 consistency ssp 1.5\n"
      "                                                     ^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = 0 consistency ssp workers",
      "t.ptm:5:50: error: 'workers' cannot be used in the staleness\n"
      "    param beta : vector[cols(X)] = 0 consistency ssp workers\n"
      "                                                     ^^^^^^^\n"),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = 0 consistency ssp \"2\"",
      "t.ptm:5:50: error: a string cannot be used in the staleness\n"
      "    param beta : vector[cols(X)] = 0 consistency ssp \"2\"\n"
      "                                                     ^^^\n"),
    /* ---- blocks ---- */
    R(LASSO, "blocks", "blocks coef = beta rows each 1",
      "t.ptm:7:20: error: 'beta' is a vector: its blocks are elements; remove 'rows'\n"
      "    blocks coef = beta rows each 1\n"
      "                       ^^^^\n"),
    R(LASSO, "blocks", "blocks coef = beta diag each 1",
      "t.ptm:7:20: error: blocks split a matrix by 'rows' or 'cols', not 'diag'\n"
      "    blocks coef = beta diag each 1\n"
      "                       ^^^^\n"),
    R(MF, "blocks", "blocks hb = H diagonal into workers",
      "t.ptm:7:15: error: blocks split a matrix by 'rows' or 'cols', not 'diagonal'\n"
      "    blocks hb = H diagonal into workers\n"
      "                  ^^^^^^^^\n"),
    R(LASSO, "blocks", "blocks coef = beta each 0",
      "t.ptm:7:25: error: a block count must be a whole number from 1 to 2147483647, not 0\n"
      "    blocks coef = beta each 0\n"
      "                            ^\n"),
    R(LASSO, "blocks", "blocks coef = beta each 2.5",
      "t.ptm:7:25: error: a block count must be a whole number from 1 to 2147483647, not 2.5\n"
      "    blocks coef = beta each 2.5\n"
      "                            ^^^\n"),
    R(MF, "blocks", "blocks hb = H rows into seconds",
      "t.ptm:7:25: error: 'seconds' cannot be used in a size\n"
      "    blocks hb = H rows into seconds\n"
      "                            ^^^^^^^\n"),
    R(LASSO, "blocks", "blocks coef = beta each 1 < 2",
      "t.ptm:7:25: error: a size must be a number, not a condition\n"
      "    blocks coef = beta each 1 < 2\n"
      "                            ^^^^^\n"),
    /* ---- depend, priority, cost ---- */
    R(LASSO, "depend", "depend coef(i), coef(X) when i + X > 0",
      "t.ptm:8:22: error: 'X' names a data source; pick another name for the block index\n"
      "    depend coef(i), coef(X) when i + X > 0\n"
      "                         ^\n"),
    R(LASSO, "depend", "depend coef(lambda), coef(j) when lambda + j > 0",
      "t.ptm:8:13: error: 'lambda' names a const; pick another name for the block index\n"
      "    depend coef(lambda), coef(j) when lambda + j > 0\n"
      "                ^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(workers) when i + workers > 0",
      "t.ptm:8:22: error: 'workers' is a built-in name; pick another name for the block index\n"
      "    depend coef(i), coef(workers) when i + workers > 0\n"
      "                         ^^^^^^^\n"),
    R(LASSO, "depend", "depend coef from \"\"",
      "t.ptm:8:1: error: the edge-list file name is empty\n"
      "    depend coef from \"\"\n"
      "    ^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), beta(j) when i + j > 0",
      "t.ptm:8:17: error: dependencies are between blocks of one set: write coef(i), coef(j)\n"
      "    depend coef(i), beta(j) when i + j > 0\n"
      "                    ^^^^\n"),
    R(LASSO, "depend", "depend cof(i), coef(j) when i + j > 0",
      "t.ptm:8:8: error: unknown block set 'cof' (did you mean 'coef'?)\n"
      "    depend cof(i), coef(j) when i + j > 0\n"
      "           ^^^\n"),
    R(LASSO, "depend", "depend beta(i), beta(j) when i + j > 0",
      "t.ptm:8:8: error: 'beta' is a parameter, not a block set\n"
      "    depend beta(i), beta(j) when i + j > 0\n"
      "           ^^^^\n"
      "t.ptm:5:7: note: 'beta' is defined here\n"
      "    param beta : vector[cols(X)] = 0\n"
      "          ^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(i) when i > 1",
      "t.ptm:8:22: error: the two block indices need different names\n"
      "    depend coef(i), coef(i) when i > 1\n"
      "                         ^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when i",
      "t.ptm:8:30: error: a dependency must be a condition, not a number\n"
      "    depend coef(i), coef(j) when i\n"
      "                                 ^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when beta[i] + beta[j] > 0",
      "t.ptm:8:30: error: a dependency cannot read parameters\n"
      "    depend coef(i), coef(j) when beta[i] + beta[j] > 0\n"
      "                                 ^^^^^^^\n"
      "t.ptm:8:40: error: a dependency cannot read parameters\n"
      "    depend coef(i), coef(j) when beta[i] + beta[j] > 0\n"
      "                                           ^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when rounds > i + j",
      "t.ptm:8:30: error: 'rounds' cannot be used in a dependency\n"
      "    depend coef(i), coef(j) when rounds > i + j\n"
      "                                 ^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when foo > i + j",
      "t.ptm:8:30: error: unknown name 'foo'\n"
      "    depend coef(i), coef(j) when foo > i + j\n"
      "                                 ^^^\n"),
    /* symmetry: refused */
    R(LASSO, "depend", "depend coef(i), coef(j) when i < j",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'i' and 'j' must give the same condition\n"
      "    depend coef(i), coef(j) when i < j\n"
      "                                 ^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when i - j > 2",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'i' and 'j' must give the same condition\n"
      "    depend coef(i), coef(j) when i - j > 2\n"
      "                                 ^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when i * 2 + j == 7",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'i' and 'j' must give the same condition\n"
      "    depend coef(i), coef(j) when i * 2 + j == 7\n"
      "                                 ^^^^^^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when i == 1 and j == 2",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'i' and 'j' must give the same condition\n"
      "    depend coef(i), coef(j) when i == 1 and j == 2\n"
      "                                 ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when corr(col(X, i), row(X, j)) > 0",
      "t.ptm:8:30: error: corr() compares two columns: col(X, i), col(X, j)\n"
      "    depend coef(i), coef(j) when corr(col(X, i), row(X, j)) > 0\n"
      "                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when X[i, j] > 0",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'i' and 'j' must give the same condition\n"
      "    depend coef(i), coef(j) when X[i, j] > 0\n"
      "                                 ^^^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(i), coef(j) when max(i, j, 3) > 3",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'i' and 'j' must give the same condition\n"
      "    depend coef(i), coef(j) when max(i, j, 3) > 3\n"
      "                                 ^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "depend", "depend coef(a), coef(b) when nnz(col(X, a)) > 2",
      "t.ptm:8:30: error: a dependency must be symmetric: swapping 'a' and 'b' must give the same condition\n"
      "    depend coef(a), coef(b) when nnz(col(X, a)) > 2\n"
      "                                 ^^^^^^^^^^^^^^^^^^\n"),
    /* symmetry: accepted */
    R(LASSO, "depend", "depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when abs(corr(col(X, j), col(X, i))) > 0.1", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when min(i, j) > 3", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when max(j, i) <= 3", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when i + j == 5", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when 5 == j + i", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when i * j != 6 and i + j > 2", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when (i == 1 and j == 2) or (j == 1 and i == 2)", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when X[i, j] + X[j, i] > 0", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when nnz(col(X, i)) + nnz(col(X, j)) > 10", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when true", ""),
    R(LASSO, "depend", "depend coef from \"edges.txt\"", ""),
    /* priority and cost */
    R(LASSO, "depend", "depend coef(i), coef(j) when abs(corr(col(X, i), col(X, 0))) > 0.1",
      "t.ptm:8:57: error: column 0 of 'X' is out of range: indices count from 1\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, 0))) > 0.1\n"
      "                                                            ^\n"),
    R(LASSO, "priority", "priority coef(j) = abs(delta(beta[j])) + y[2.5]",
      "t.ptm:9:44: error: index 2.5 of 'y' is not a whole number\n"
      "    priority coef(j) = abs(delta(beta[j])) + y[2.5]\n"
      "                                               ^^^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(row(X, -1)) + X[1, 1/0]",
      "t.ptm:10:27: error: row -1 of 'X' is out of range: indices count from 1\n"
      "    cost coef(j) = nnz(row(X, -1)) + X[1, 1/0]\n"
      "                              ^^\n"
      "t.ptm:10:39: error: column inf of 'X' is not a whole number\n"
      "    cost coef(j) = nnz(row(X, -1)) + X[1, 1/0]\n"
      "                                          ^^^\n"),
    R(LDA, NULL, "priority words(j) = nk[101] + nwk[1, 100] + nwk[1, 101] + delta(nk[0])",
      "t.ptm:12:1: warning: the rotation policy ignores priorities; only dynamic uses them\n"
      "    priority words(j) = nk[101] + nwk[1, 100] + nwk[1, 101] + delta(nk[0])\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:12:24: error: index 101 of 'nk' is out of range (1..100)\n"
      "    priority words(j) = nk[101] + nwk[1, 100] + nwk[1, 101] + delta(nk[0])\n"
      "                           ^^^\n"
      "t.ptm:12:52: error: column 101 of 'nwk' is out of range (1..100)\n"
      "    priority words(j) = nk[101] + nwk[1, 100] + nwk[1, 101] + delta(nk[0])\n"
      "                                                       ^^^\n"
      "t.ptm:12:68: error: index 0 of 'nk' is out of range: indices count from 1\n"
      "    priority words(j) = nk[101] + nwk[1, 100] + nwk[1, 101] + delta(nk[0])\n"
      "                                                                       ^\n"),
    R(LASSO, "priority", "priority coef(j) = abs(delta(beta[j])) > 1",
      "t.ptm:9:20: error: a priority must be a number, not a condition\n"
      "    priority coef(j) = abs(delta(beta[j])) > 1\n"
      "                       ^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = 1\npriority coef(k) = 2",
      "t.ptm:10:1: error: block set 'coef' already has a priority\n"
      "    priority coef(k) = 2\n"
      "    ^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: note: given here\n"
      "    priority coef(j) = 1\n"
      "    ^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = 1\ncost coef(j) = 2",
      "t.ptm:11:1: error: block set 'coef' already has a cost\n"
      "    cost coef(j) = 2\n"
      "    ^^^^^^^^^^^^^^^^\n"
      "t.ptm:10:1: note: given here\n"
      "    cost coef(j) = 1\n"
      "    ^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(beta) = 1",
      "t.ptm:9:15: error: 'beta' names a parameter; pick another name for the block index\n"
      "    priority coef(beta) = 1\n"
      "                  ^^^^\n"),
    R(LASSO, "priority", "priority coef(rounds) = 1",
      "t.ptm:9:15: error: 'rounds' is a built-in name; pick another name for the block index\n"
      "    priority coef(rounds) = 1\n"
      "                  ^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = seconds",
      "t.ptm:9:20: error: 'seconds' cannot be used in a priority\n"
      "    priority coef(j) = seconds\n"
      "                       ^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = objective",
      "t.ptm:9:20: error: 'objective' cannot be used in a priority\n"
      "    priority coef(j) = objective\n"
      "                       ^^^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = rel_change(objective)",
      "t.ptm:9:20: error: rel_change() cannot be used in a priority\n"
      "    priority coef(j) = rel_change(objective)\n"
      "                       ^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(beta)",
      "t.ptm:9:26: error: delta() takes an indexed parameter, such as delta(beta[j])\n"
      "    priority coef(j) = delta(beta)\n"
      "                             ^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(X[j, 1])",
      "t.ptm:9:26: error: 'X' is a data source; delta() takes a parameter\n"
      "    priority coef(j) = delta(X[j, 1])\n"
      "                             ^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(lambda[j])",
      "t.ptm:9:26: error: 'lambda' is a const; delta() takes a parameter\n"
      "    priority coef(j) = delta(lambda[j])\n"
      "                             ^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(bta[j])",
      "t.ptm:9:26: error: unknown parameter 'bta' (did you mean 'beta'?)\n"
      "    priority coef(j) = delta(bta[j])\n"
      "                             ^^^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(beta[j, 1])",
      "t.ptm:9:26: error: 'beta' is a vector: it takes 1 index, not 2\n"
      "    priority coef(j) = delta(beta[j, 1])\n"
      "                             ^^^^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(beta[j], 1)",
      "t.ptm:9:20: error: delta() takes 1 argument, not 2\n"
      "    priority coef(j) = delta(beta[j], 1)\n"
      "                       ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = delta(beta[j < 1])",
      "t.ptm:9:31: error: an index needs a number, not a condition\n"
      "    priority coef(j) = delta(beta[j < 1])\n"
      "                                  ^^^^^\n"),
    R(LASSO, "priority", "priority coef(j) = i",
      "t.ptm:9:20: error: unknown name 'i'\n"
      "    priority coef(j) = i\n"
      "                       ^\n"),
    R(LASSO, "priority", "priority coef(jj) = abs(delta(beta[j]))",
      "t.ptm:9:36: error: unknown name 'j' (did you mean 'jj'?)\n"
      "    priority coef(jj) = abs(delta(beta[j]))\n"
      "                                       ^\n"),
    R(LASSO, "priority", "priority coef(j) = beta + 1",
      "t.ptm:9:20: error: 'beta' is a parameter; index it (beta[j]) to get a number\n"
      "    priority coef(j) = beta + 1\n"
      "                       ^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = beta[j]",
      "t.ptm:10:16: error: a cost cannot read parameters\n"
      "    cost coef(j) = beta[j]\n"
      "                   ^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = delta(beta[j])",
      "t.ptm:10:16: error: a cost cannot read parameters\n"
      "    cost coef(j) = delta(beta[j])\n"
      "                   ^^^^^^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = rounds",
      "t.ptm:10:16: error: 'rounds' cannot be used in a cost\n"
      "    cost coef(j) = rounds\n"
      "                   ^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(X)",
      "t.ptm:10:20: error: nnz() takes col(DATA, k) or row(DATA, k)\n"
      "    cost coef(j) = nnz(X)\n"
      "                       ^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(col(X, j), 1)",
      "t.ptm:10:16: error: nnz() takes 1 argument, not 2\n"
      "    cost coef(j) = nnz(col(X, j), 1)\n"
      "                   ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(col(y, j))",
      "t.ptm:10:24: error: 'y' is a vector; col() needs a matrix\n"
      "    cost coef(j) = nnz(col(y, j))\n"
      "                           ^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(col(X))",
      "t.ptm:10:20: error: col() takes 2 arguments, not 1\n"
      "    cost coef(j) = nnz(col(X))\n"
      "                       ^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(col(3, j))",
      "t.ptm:10:24: error: col() takes the name of a data source here\n"
      "    cost coef(j) = nnz(col(3, j))\n"
      "                           ^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(col(Z, j))",
      "t.ptm:10:24: error: unknown data source 'Z'\n"
      "    cost coef(j) = nnz(col(Z, j))\n"
      "                           ^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(row(beta, j))",
      "t.ptm:10:24: error: 'beta' is a parameter; row() takes a data source\n"
      "    cost coef(j) = nnz(row(beta, j))\n"
      "                           ^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = col(X, j)",
      "t.ptm:10:16: error: col() is a column of data, not a number; use it inside corr(), cos() or nnz()\n"
      "    cost coef(j) = col(X, j)\n"
      "                   ^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = row(X, j) + 1",
      "t.ptm:10:16: error: row() is a row of data, not a number; use it inside corr(), cos() or nnz()\n"
      "    cost coef(j) = row(X, j) + 1\n"
      "                   ^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = corr(col(X, j))",
      "t.ptm:10:16: error: corr() takes 2 arguments, not 1\n"
      "    cost coef(j) = corr(col(X, j))\n"
      "                   ^^^^^^^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = X[j]",
      "t.ptm:10:16: error: 'X' is a matrix: it takes 2 indices, not 1\n"
      "    cost coef(j) = X[j]\n"
      "                   ^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = y[j, 1]",
      "t.ptm:10:16: error: 'y' is a vector: it takes 1 index, not 2\n"
      "    cost coef(j) = y[j, 1]\n"
      "                   ^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = coef[j]",
      "t.ptm:10:16: error: 'coef' is a block set and cannot be indexed\n"
      "    cost coef(j) = coef[j]\n"
      "                   ^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = lambda[j]",
      "t.ptm:10:16: error: 'lambda' is a const and cannot be indexed\n"
      "    cost coef(j) = lambda[j]\n"
      "                   ^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = foo[j]",
      "t.ptm:10:16: error: unknown name 'foo'\n"
      "    cost coef(j) = foo[j]\n"
      "                   ^^^\n"),
    R(LASSO, "cost", "cost coef(j) = abs(j)[1]",
      "t.ptm:10:16: error: only parameters and data can be indexed\n"
      "    cost coef(j) = abs(j)[1]\n"
      "                   ^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = X[j, true]",
      "t.ptm:10:21: error: an index needs a number, not a condition\n"
      "    cost coef(j) = X[j, true]\n"
      "                        ^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = nnz(col(X, j)) + rows(X) * cols(X) + X[1, j] + nnz(row(X, j)) + workers", ""),
    /* order: data and workers like a cost, any number; used by dynamic's active passes */
    R(LASSO, "schedule", "order coef(j) = abs(cos(col(X, j), y)) * workers\nschedule dynamic { active }", ""),
    R(LASSO, "schedule", "order coef(j) = -1\nschedule dynamic { active }", ""),
    R(LASSO, "schedule", "order coef(j) = 0 / 0\nschedule dynamic { active }", ""),
    R(LASSO, "schedule", "order coef(j) = 1\norder coef(j) = 2\nschedule dynamic { active }",
      "t.ptm:12:1: error: block set 'coef' already has an order\n"
      "    order coef(j) = 2\n"
      "    ^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:1: note: given here\n"
      "    order coef(j) = 1\n"
      "    ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "order coef(j) = beta[j]\nschedule dynamic { active }",
      "t.ptm:11:17: error: an order cannot read parameters\n"
      "    order coef(j) = beta[j]\n"
      "                    ^^^^^^^\n"),
    R(LASSO, "schedule", "order coef(j) = delta(beta[j])\nschedule dynamic { active }",
      "t.ptm:11:17: error: an order cannot read parameters\n"
      "    order coef(j) = delta(beta[j])\n"
      "                    ^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "order coef(j) = sweeps\nschedule dynamic { active }",
      "t.ptm:11:17: error: 'sweeps' cannot be used in an order\n"
      "    order coef(j) = sweeps\n"
      "                    ^^^^^^\n"),
    R(LASSO, "schedule", "order coef(j) = j > 1\nschedule dynamic { active }",
      "t.ptm:11:17: error: an order must be a number, not a condition\n"
      "    order coef(j) = j > 1\n"
      "                    ^^^^^\n"),
    R(LASSO, "schedule", "order cof(j) = 1\nschedule dynamic { active }",
      "t.ptm:11:7: error: unknown block set 'cof' (did you mean 'coef'?)\n"
      "    order cof(j) = 1\n"
      "          ^^^\n"),
    R(LASSO, "schedule", "order coef(j) = 1\nschedule dynamic { sample 256 }",
      "t.ptm:11:1: warning: dynamic without active ignores the order; it orders the first active pass\n"
      "    order coef(j) = 1\n"
      "    ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "order coef(j) = 1\nschedule dynamic { active false }",
      "t.ptm:11:1: warning: dynamic without active ignores the order; it orders the first active pass\n"
      "    order coef(j) = 1\n"
      "    ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "order coef(j) = 1\nschedule round_robin",
      "t.ptm:8:1: warning: the round_robin policy ignores dependencies; only dynamic uses them\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: warning: the round_robin policy ignores priorities; only dynamic uses them\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:1: warning: the round_robin policy ignores the order; only dynamic's active passes use it\n"
      "    order coef(j) = 1\n"
      "    ^^^^^^^^^^^^^^^^^\n"),
    /* corr() and cos(): col(X, k) or a vector */
    R(LASSO, "cost", "cost coef(j) = cos(col(X, j), y) + corr(y, col(X, j)) + corr(y, y)", ""),
    R(LASSO, "cost", "cost coef(j) = cos(X, y)",
      "t.ptm:10:20: error: 'X' is a matrix; cos() takes col(X, k) or a vector\n"
      "    cost coef(j) = cos(X, y)\n"
      "                       ^\n"),
    R(LASSO, "cost", "cost coef(j) = corr(col(X, j), 2)",
      "t.ptm:10:32: error: corr() takes col(DATA, k) or a vector\n"
      "    cost coef(j) = corr(col(X, j), 2)\n"
      "                                   ^\n"),
    R(LASSO, "cost", "cost coef(j) = corr(col(X, j), j)",
      "t.ptm:10:32: error: corr() takes col(DATA, k) or a vector\n"
      "    cost coef(j) = corr(col(X, j), j)\n"
      "                                   ^\n"),
    R(LASSO, "cost", "cost coef(j) = corr(beta, col(X, j))",
      "t.ptm:10:21: error: 'beta' is a parameter; corr() takes col(DATA, k) or a vector\n"
      "    cost coef(j) = corr(beta, col(X, j))\n"
      "                        ^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = cos(col(X, j), Y)",
      "t.ptm:10:31: error: unknown data source 'Y'\n"
      "    cost coef(j) = cos(col(X, j), Y)\n"
      "                                  ^\n"),
    R(LASSO, "cost", "cost coef(j) = cos(col(X, j), col(y, 1))",
      "t.ptm:10:35: error: 'y' is a vector; col() needs a matrix (a vector is itself a column: cos() takes 'y' as it is)\n"
      "    cost coef(j) = cos(col(X, j), col(y, 1))\n"
      "                                      ^\n"),
    R(LASSO, "cost", "cost coef(j) = corr(row(y, 1), y)",
      "t.ptm:10:25: error: 'y' is a vector; row() needs a matrix\n"
      "    cost coef(j) = corr(row(y, 1), y)\n"
      "                            ^\n"),
    R(LASSO, "cost", "cost coef(j) = cos(row(X, j), y)",
      "t.ptm:10:16: error: cos() compares two columns: col(X, i), col(X, j)\n"
      "    cost coef(j) = cos(row(X, j), y)\n"
      "                   ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "cost", "cost coef(j) = cos(col(X, j), y[1])",
      "t.ptm:10:31: error: cos() takes col(DATA, k) or a vector\n"
      "    cost coef(j) = cos(col(X, j), y[1])\n"
      "                                  ^^^^\n"),
    R(LASSO, "const", "const lambda = corr(y, y)",
      "t.ptm:2:16: error: corr() cannot be used in a const\n"
      "    const lambda = corr(y, y)\n"
      "                   ^^^^^^^^^^\n"),
    /* ---- schedule ---- */
    R(LASSO, "schedule", "schedule dynamic { sample 256, sample 3 }",
      "t.ptm:11:32: error: option 'sample' is given twice\n"
      "    schedule dynamic { sample 256, sample 3 }\n"
      "                                   ^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sampl 256 }",
      "t.ptm:11:20: error: unknown option 'sampl' (did you mean 'sample'?)\n"
      "    schedule dynamic { sampl 256 }\n"
      "                       ^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { foo 256 }",
      "t.ptm:11:20: error: unknown option 'foo' of the dynamic policy\n"
      "    schedule dynamic { foo 256 }\n"
      "                       ^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { minibatch 256 }",
      "t.ptm:11:20: error: 'minibatch' is not an option of the dynamic policy\n"
      "    schedule dynamic { minibatch 256 }\n"
      "                       ^^^^^^^^^\n"),
    R(MF, "schedule", "schedule rotation over hb { balance }",
      "t.ptm:8:29: error: 'balance' is not an option of the rotation policy\n"
      "    schedule rotation over hb { balance }\n"
      "                                ^^^^^^^\n"),
    R(MF, "schedule", "schedule rotation over hb { speed 2 }",
      "t.ptm:8:29: error: the rotation policy takes no options\n"
      "    schedule rotation over hb { speed 2 }\n"
      "                                ^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 0 }",
      "t.ptm:11:27: error: 'sample' must be a whole number from 1 to 100000000, not 0\n"
      "    schedule dynamic { sample 0 }\n"
      "                              ^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 2.5 }",
      "t.ptm:11:27: error: 'sample' must be a whole number from 1 to 100000000, not 2.5\n"
      "    schedule dynamic { sample 2.5 }\n"
      "                              ^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 1e9 }",
      "t.ptm:11:27: error: 'sample' must be a whole number from 1 to 100000000, not 1e+09\n"
      "    schedule dynamic { sample 1e9 }\n"
      "                              ^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample \"256\" }",
      "t.ptm:11:27: error: 'sample' takes a number\n"
      "    schedule dynamic { sample \"256\" }\n"
      "                              ^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample true }",
      "t.ptm:11:27: error: 'sample' takes a number\n"
      "    schedule dynamic { sample true }\n"
      "                              ^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample }",
      "t.ptm:11:20: error: 'sample' takes a whole number\n"
      "    schedule dynamic { sample }\n"
      "                       ^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 1 2 }",
      "t.ptm:11:20: error: 'sample' takes a whole number\n"
      "    schedule dynamic { sample 1 2 }\n"
      "                       ^^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 256 active balance }",
      "t.ptm:11:20: error: 'sample' takes a whole number; 'active' is another option: separate "
      "options with ',' or new lines\n"
      "    schedule dynamic { sample 256 active balance }\n"
      "                       ^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 256, shuffle }",
      "t.ptm:11:32: error: 'shuffle' orders the passes of 'active': add 'active', or remove "
      "'shuffle'\n"
      "    schedule dynamic { sample 256, shuffle }\n"
      "                                   ^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample X }",
      "t.ptm:11:27: error: 'X' is a data source, not a number\n"
      "    schedule dynamic { sample X }\n"
      "                              ^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample smaple }",
      "t.ptm:11:27: error: unknown name 'smaple'\n"
      "    schedule dynamic { sample smaple }\n"
      "                              ^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { uniform 1.5 }",
      "t.ptm:11:28: error: 'uniform' takes a number from 0 to 1, not 1.5\n"
      "    schedule dynamic { uniform 1.5 }\n"
      "                               ^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { uniform \"half\" }",
      "t.ptm:11:28: error: 'uniform' takes a number\n"
      "    schedule dynamic { uniform \"half\" }\n"
      "                               ^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { uniform }",
      "t.ptm:11:20: error: 'uniform' takes a number from 0 to 1\n"
      "    schedule dynamic { uniform }\n"
      "                       ^^^^^^^\n"),
    R(LASSO, "schedule", "schedule round_robin { uniform 0.5 }",
      "t.ptm:8:1: warning: the round_robin policy ignores dependencies; only dynamic uses them\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: warning: the round_robin policy ignores priorities; only dynamic uses them\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:24: error: 'uniform' is not an option of the round_robin policy\n"
      "    schedule round_robin { uniform 0.5 }\n"
      "                           ^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { keep some }",
      "t.ptm:11:20: error: 'keep' takes 'independent', 'moved' or 'all'\n"
      "    schedule dynamic { keep some }\n"
      "                       ^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { keep }",
      "t.ptm:11:20: error: 'keep' takes 'independent', 'moved' or 'all'\n"
      "    schedule dynamic { keep }\n"
      "                       ^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { warmup 3 hours }",
      "t.ptm:11:29: error: the unit of 'warmup' is 'rounds' or 'sweeps'\n"
      "    schedule dynamic { warmup 3 hours }\n"
      "                                ^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { warmup 3 sweeps 4 }",
      "t.ptm:11:20: error: 'warmup' takes a whole number, then 'rounds' or 'sweeps'\n"
      "    schedule dynamic { warmup 3 sweeps 4 }\n"
      "                       ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { warmup -1 }",
      "t.ptm:11:27: error: 'warmup' must be a whole number from 0 to 2^53 - 1, not -1\n"
      "    schedule dynamic { warmup -1 }\n"
      "                              ^^\n"),
    R(LASSO, "schedule", "schedule dynamic { balance yes }",
      "t.ptm:11:20: error: 'balance' takes nothing, 'true' or 'false'\n"
      "    schedule dynamic { balance yes }\n"
      "                       ^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { balance 1 }",
      "t.ptm:11:20: error: 'balance' takes nothing, 'true' or 'false'\n"
      "    schedule dynamic { balance 1 }\n"
      "                       ^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { pipeline 65 }",
      "t.ptm:11:29: error: 'pipeline' must be a whole number from 0 to 64, not 65\n"
      "    schedule dynamic { pipeline 65 }\n"
      "                                ^^\n"),
    R(LASSO, "schedule", "schedule random { per_round 0 }",
      "t.ptm:8:1: warning: the random policy ignores dependencies; only dynamic uses them\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: warning: the random policy ignores priorities; only dynamic uses them\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:29: error: 'per_round' must be a whole number from 1 to 100000000, not 0\n"
      "    schedule random { per_round 0 }\n"
      "                                ^\n"),
    R(LASSO, "schedule", "schedule round_robin { per_round 2, sample 3 }",
      "t.ptm:8:1: warning: the round_robin policy ignores dependencies; only dynamic uses them\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: warning: the round_robin policy ignores priorities; only dynamic uses them\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:37: error: 'sample' is not an option of the round_robin policy\n"
      "    schedule round_robin { per_round 2, sample 3 }\n"
      "                                        ^^^^^^\n"),
    R(LASSO, "schedule", "schedule data_parallel over coef { minibatch 100 }",
      "t.ptm:7:8: warning: block set 'coef' is never scheduled (the schedule is over every parameter)\n"
      "    blocks coef = beta each 1\n"
      "           ^^^^\n"
      "t.ptm:11:29: error: data_parallel updates every parameter: remove 'over coef'\n"
      "    schedule data_parallel over coef { minibatch 100 }\n"
      "                                ^^^^\n"
      "t.ptm:12:16: error: lasso_cd runs under the dynamic, round_robin or random policies, not data_parallel\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                   ^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule data_parallel { minibatch 0 }",
      "t.ptm:7:8: warning: block set 'coef' is never scheduled (the schedule is over every parameter)\n"
      "    blocks coef = beta each 1\n"
      "           ^^^^\n"
      "t.ptm:11:36: error: 'minibatch' must be a whole number from 1 to 2^53 - 1, not 0\n"
      "    schedule data_parallel { minibatch 0 }\n"
      "                                       ^\n"
      "t.ptm:12:16: error: lasso_cd runs under the dynamic, round_robin or random policies, not data_parallel\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                   ^^^^^^^^\n"),
    R(LASSO, "blocks", "blocks coef = beta each 1\nblocks c2 = beta",
      "t.ptm:12:1: error: say which blocks the dynamic policy schedules: 'over NAME'\n"
      "    schedule dynamic { sample 256 }\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(MINI, "blocks", "",
      "t.ptm:4:1: error: the rotation policy schedules blocks: declare them with 'blocks'\n"
      "    schedule rotation\n"
      "    ^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule rotation over coef",
      "t.ptm:8:1: warning: the rotation policy ignores dependencies; only dynamic uses them\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: warning: the rotation policy ignores priorities; only dynamic uses them\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:24: error: rotation needs one block per worker: 'blocks coef = beta into workers'\n"
      "    schedule rotation over coef\n"
      "                           ^^^^\n"
      "t.ptm:12:16: error: lasso_cd runs under the dynamic, round_robin or random policies, not rotation\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                   ^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule rotation",
      "t.ptm:8:1: warning: the rotation policy ignores dependencies; only dynamic uses them\n"
      "    depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: warning: the rotation policy ignores priorities; only dynamic uses them\n"
      "    priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:1: error: rotation needs one block per worker: 'blocks coef = beta into workers'\n"
      "    schedule rotation\n"
      "    ^^^^^^^^^^^^^^^^^\n"
      "t.ptm:12:16: error: lasso_cd runs under the dynamic, round_robin or random policies, not rotation\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                   ^^^^^^^^\n"),
    R(LASSO, "schedule", "schedule dynamic { sample 256 }\nschedule dynamic { sample 8 }",
      "t.ptm:12:1: error: the job already has a 'schedule' statement\n"
      "    schedule dynamic { sample 8 }\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:11:1: note: the first one is here\n"
      "    schedule dynamic { sample 256 }\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    /* ---- builtin kernels ---- */
    R(LASSO, "update", "update builtin lasso_cd",
      "t.ptm:12:1: error: lasso_cd needs option 'lambda'\n"
      "    update builtin lasso_cd\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, lambda = 0.2 }",
      "t.ptm:12:41: error: option 'lambda' is given twice\n"
      "    update builtin lasso_cd { lambda = 0.1, lambda = 0.2 }\n"
      "                                            ^^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, lamda = 0.2 }",
      "t.ptm:12:41: error: lasso_cd has no option 'lamda' (did you mean 'lambda'?)\n"
      "    update builtin lasso_cd { lambda = 0.1, lamda = 0.2 }\n"
      "                                            ^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, zzz = 0.2 }",
      "t.ptm:12:41: error: lasso_cd has no option 'zzz'\n"
      "    update builtin lasso_cd { lambda = 0.1, zzz = 0.2 }\n"
      "                                            ^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1 0.2 }",
      "t.ptm:12:27: error: option 'lambda' takes one value\n"
      "    update builtin lasso_cd { lambda = 0.1 0.2 }\n"
      "                              ^^^^^^^^^^^^^^^^\n"),
    /* an intercept: a float vector[1], the same in the update and the objective */
    R(LASSO, "update", "update builtin lasso_cd { lambda = lambda, intercept = beta }",
      "t.ptm:12:56: error: option 'intercept' of lasso_cd names 'beta', which is not a float vector[1]\n"
      "    update builtin lasso_cd { lambda = lambda, intercept = beta }\n"
      "                                                           ^^^^\n"),
    R(LASSO, "update", "param n : int vector[1] = 0\nupdate builtin lasso_cd { lambda = lambda, intercept = n }",
      "t.ptm:13:56: error: option 'intercept' of lasso_cd names 'n', which is not a float vector[1]\n"
      "    update builtin lasso_cd { lambda = lambda, intercept = n }\n"
      "                                                           ^\n"),
    R(LASSO, "update", "param b : vector[1] = 0\nupdate builtin lasso_cd { lambda = lambda, intercept = b }",
      "t.ptm:14:1: error: lasso_objective needs the intercept of update lasso_cd: add { intercept = b }\n"
      "    objective builtin lasso_objective { lambda = lambda } every 10 rounds\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "objective", "param b : vector[1] = 0\n"
      "objective builtin lasso_objective { lambda = lambda, intercept = b } every 10 rounds",
      "t.ptm:14:54: error: the objective has intercept 'b' but update lasso_cd has none: give both the same\n"
      "    objective builtin lasso_objective { lambda = lambda, intercept = b } every 10 rounds\n"
      "                                                         ^^^^^^^^^^^^^\n"),
    R(WHOLE, NULL,
      "job t\n"
      "data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
      "data y : vector from labels(X)\n"
      "param beta : vector[cols(X)] = 0\n"
      "param b : vector[1] = 0\n"
      "param c : vector[1] = 0\n"
      "blocks coef = beta each 1\n"
      "schedule round_robin\n"
      "update builtin lasso_cd { lambda = 0.1, intercept = b }\n"
      "objective builtin lasso_objective { lambda = 0.1, intercept = c }\n"
      "stop when sweeps >= 1\n",
      "t.ptm:10:51: error: the objective's intercept is 'c' but update lasso_cd's is 'b': give both the same\n"
      "    objective builtin lasso_objective { lambda = 0.1, intercept = c }\n"
      "                                                      ^^^^^^^^^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda }",
      "t.ptm:12:27: error: option 'lambda' takes one value\n"
      "    update builtin lasso_cd { lambda }\n"
      "                              ^^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = \"0.1\" }",
      "t.ptm:12:36: error: a string cannot be used in an option value\n"
      "    update builtin lasso_cd { lambda = \"0.1\" }\n"
      "                                       ^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = true }",
      "t.ptm:12:36: error: an option value must be a number, not a condition\n"
      "    update builtin lasso_cd { lambda = true }\n"
      "                                       ^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = X }",
      "t.ptm:12:36: error: 'X' is a data source, not a number\n"
      "    update builtin lasso_cd { lambda = X }\n"
      "                                       ^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, X = beta }",
      "t.ptm:12:45: error: 'beta' is a parameter, not a data source\n"
      "    update builtin lasso_cd { lambda = 0.1, X = beta }\n"
      "                                                ^^^^\n"
      "t.ptm:5:7: note: 'beta' is defined here\n"
      "    param beta : vector[cols(X)] = 0\n"
      "          ^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, X = 3 }",
      "t.ptm:12:45: error: option 'X' takes the name of a data source\n"
      "    update builtin lasso_cd { lambda = 0.1, X = 3 }\n"
      "                                                ^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, beta = \"beta\" }",
      "t.ptm:12:48: error: option 'beta' takes the name of a parameter\n"
      "    update builtin lasso_cd { lambda = 0.1, beta = \"beta\" }\n"
      "                                                   ^^^^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, beta = bta }",
      "t.ptm:12:48: error: unknown parameter 'bta' (did you mean 'beta'?)\n"
      "    update builtin lasso_cd { lambda = 0.1, beta = bta }\n"
      "                                                   ^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = 0.1, y = r }",
      "t.ptm:12:45: error: 'r' is a parameter, not a data source\n"
      "    update builtin lasso_cd { lambda = 0.1, y = r }\n"
      "                                                ^\n"
      "t.ptm:6:7: note: 'r' is defined here\n"
      "    param r : vector[rows(X)] = y shard like X\n"
      "          ^\n"),
    /* ---- a parameter from a file ---- */
    R(LASSO, "param beta", "param beta : vector[cols(X)] = from \"beta.tsv\"", ""),
    R(MF, "param W", "param W : matrix[rows(R), rank] = from \"W.tsv\" shard like R", ""),
    R(LASSO, "param beta", "param beta : vector[cols(X)] = from \"\"",
      "t.ptm:5:37: error: the file name is empty\n"
      "    param beta : vector[cols(X)] = from \"\"\n"
      "                                        ^^\n"),
    R(LDA, "param nwk", "param nwk : int matrix[cols(D), topics] = from \"word_topic.tsv\"",
      "t.ptm:4:7: error: 'nwk' cannot start from a file: lda_gibbs derives it (the counts of its "
      "topic assignments, which no output holds)\n"
      "    param nwk : int matrix[cols(D), topics] = from \"word_topic.tsv\"\n"
      "          ^^^\n"),
    R(LDA, "update", "update builtin lda_gibbs { alpha = 0.1, sampler = sparse }\n"
      "param ndk : int matrix[rows(D), topics] = from \"doc_topic.tsv\" shard like D",
      "t.ptm:9:7: error: 'ndk' cannot start from a file: lda_gibbs derives it (the counts of its "
      "topic assignments, which no output holds)\n"
      "    param ndk : int matrix[rows(D), topics] = from \"doc_topic.tsv\" shard like D\n"
      "          ^^^\n"),
    R(LDA, "update", "update builtin lda_gibbs { sampler = fast }",
      "t.ptm:8:38: error: option 'sampler' takes one of auto|dense|sparse|alias|plain\n"
      "    update builtin lda_gibbs { sampler = fast }\n"
      "                                         ^^^^\n"),
    R(LDA, "update", "update builtin lda_gibbs { sampler = 3 }",
      "t.ptm:8:38: error: option 'sampler' takes one of auto|dense|sparse|alias|plain\n"
      "    update builtin lda_gibbs { sampler = 3 }\n"
      "                                         ^\n"),
    R(MF, "update", "update builtin mf_sgd { step = slow }",
      "t.ptm:9:32: error: option 'step' takes one of adaptive|fixed\n"
      "    update builtin mf_sgd { step = slow }\n"
      "                                   ^^^^\n"),
    R(MF, "update", "update builtin mf_sgd { rate = 0.1, penalty = lambda }",
      "t.ptm:9:47: error: option 'penalty' takes one of total|rating\n"
      "    update builtin mf_sgd { rate = 0.1, penalty = lambda }\n"
      "                                                  ^^^^^^\n"),
    R(MF, "objective", "objective builtin rmse { test = W }",
      "t.ptm:10:33: error: 'W' is a parameter, not a data source\n"
      "    objective builtin rmse { test = W }\n"
      "                                    ^\n"
      "t.ptm:5:7: note: 'W' is defined here\n"
      "    param W : matrix[rows(R), rank] = random(0.1) shard like R\n"
      "          ^\n"),
    R(MF, "objective", "objective builtin rmse { test = Q }",
      "t.ptm:10:33: error: unknown data source 'Q'\n"
      "    objective builtin rmse { test = Q }\n"
      "                                    ^\n"),
    R(MF, "update", "update builtin logreg_sgd",
      "t.ptm:9:1: error: logreg_sgd works on a data source named 'X'; name yours with { X = NAME }\n"
      "    update builtin logreg_sgd\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: error: logreg_sgd works on a data source named 'y'; name yours with { y = NAME }\n"
      "    update builtin logreg_sgd\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:1: error: logreg_sgd works on a parameter named 'w'; name yours with { w = NAME }\n"
      "    update builtin logreg_sgd\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:9:16: error: logreg_sgd runs under the data_parallel policy, not rotation\n"
      "    update builtin logreg_sgd\n"
      "                   ^^^^^^^^^^\n"),
    R(LASSO, "update", "update builtin rmse",
      "t.ptm:12:16: error: 'rmse' is an objective, not an update rule\n"
      "    update builtin rmse\n"
      "                   ^^^^\n"),
    R(LASSO, "objective", "objective builtin lasso_cd { lambda = lambda }",
      "t.ptm:13:19: error: 'lasso_cd' is an update rule, not an objective\n"
      "    objective builtin lasso_cd { lambda = lambda }\n"
      "                      ^^^^^^^^\n"),
    R(LASSO, "update", "update builtin laso_cd { lambda = 0.1 }",
      "t.ptm:12:16: error: unknown builtin 'laso_cd' (did you mean 'lasso_cd'?)\n"
      "    update builtin laso_cd { lambda = 0.1 }\n"
      "                   ^^^^^^^\n"),
    R(LASSO, "update", "update builtin zzz { lambda = 0.1 }",
      "t.ptm:12:16: error: unknown builtin 'zzz'\n"
      "    update builtin zzz { lambda = 0.1 }\n"
      "                   ^^^\n"),
    R(LASSO, "objective", "objective builtin lasso_objective { lambda = lambda } every 0 rounds",
      "t.ptm:13:61: error: 'every' must be a whole number from 1 to 2^53 - 1, not 0\n"
      "    objective builtin lasso_objective { lambda = lambda } every 0 rounds\n"
      "                                                                ^\n"),
    R(LASSO, "objective", "objective builtin lasso_objective { lambda = lambda } every 2.5",
      "t.ptm:13:61: error: 'every' must be a whole number from 1 to 2^53 - 1, not 2.5\n"
      "    objective builtin lasso_objective { lambda = lambda } every 2.5\n"
      "                                                                ^^^\n"),
    R(LASSO, "objective", "objective builtin lasso_objective { lambda = lambda } every 3 hours",
      "t.ptm:13:63: error: the unit of 'every' is 'rounds' or 'sweeps'\n"
      "    objective builtin lasso_objective { lambda = lambda } every 3 hours\n"
      "                                                                  ^^^^^\n"),
    R(LASSO, "objective", "objective builtin lasso_objective { lambda = lambda } every rounds",
      "t.ptm:13:61: error: 'rounds' cannot be used in 'every'\n"
      "    objective builtin lasso_objective { lambda = lambda } every rounds\n"
      "                                                                ^^^^^^\n"),
    /* ---- Lua hooks ---- */
    R(MINI, "update", "update lua \"ok.lua\" { push = \"mypush\", pull = \"mypull\" }", ""),
    R(MINI, "update", "update lua \"pushonly.lua\"", ""),
    R(MINI, "update", "update lua \"@D@/ok.lua\"", ""),
    R(MINI, "update", "update lua \"meta.lua\"", ""),
    R(MINI, "update", "update lua \"ok.lua\"\nobjective lua \"ok.lua\" \"mypush\" every 3", ""),
    R(MINI, "update", "update lua \"missing.lua\"",
      "t.ptm:5:12: error: Lua file \"missing.lua\" not found (looked for '@D@/missing.lua')\n"
      "    update lua \"missing.lua\"\n"
      "               ^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"\"",
      "t.ptm:5:12: error: the Lua file name is empty\n"
      "    update lua \"\"\n"
      "               ^^\n"),
    R(MINI, "update", "update lua \"syntax.lua\"",
      "t.ptm:5:12: error: cannot load \"syntax.lua\": @D@/syntax.lua:2: <name> or '...' expected near 'end'\n"
      "    update lua \"syntax.lua\"\n"
      "               ^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"runerr.lua\"",
      "t.ptm:5:12: error: cannot load \"runerr.lua\": @D@/runerr.lua:2: custom failure\n"
      "    update lua \"runerr.lua\"\n"
      "               ^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"errtable.lua\"",
      "t.ptm:5:12: error: cannot load \"errtable.lua\": error without a message\n"
      "    update lua \"errtable.lua\"\n"
      "               ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"bytecode.lua\"",
      "t.ptm:5:12: error: cannot load \"bytecode.lua\": attempt to load a binary chunk (mode is 't')\n"
      "    update lua \"bytecode.lua\"\n"
      "               ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"io.lua\"",
      "t.ptm:5:12: error: cannot load \"io.lua\": @D@/io.lua:1: 'io' is not available in ptm hooks (they cannot touch files, load code or run commands)\n"
      "    update lua \"io.lua\"\n"
      "               ^^^^^^^^\n"),
    R(MINI, "update", "update lua \"os.lua\"",
      "t.ptm:5:12: error: cannot load \"os.lua\": @D@/os.lua:1: 'os' is not available in ptm hooks (they cannot touch files, load code or run commands)\n"
      "    update lua \"os.lua\"\n"
      "               ^^^^^^^^\n"),
    R(MINI, "update", "update lua \"require.lua\"",
      "t.ptm:5:12: error: cannot load \"require.lua\": @D@/require.lua:1: 'require' is not available in ptm hooks (they cannot touch files, load code or run commands)\n"
      "    update lua \"require.lua\"\n"
      "               ^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"load.lua\"",
      "t.ptm:5:12: error: cannot load \"load.lua\": @D@/load.lua:1: 'load' is not available in ptm hooks (they cannot touch files, load code or run commands)\n"
      "    update lua \"load.lua\"\n"
      "               ^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"dofile.lua\"",
      "t.ptm:5:12: error: cannot load \"dofile.lua\": @D@/dofile.lua:1: 'dofile' is not available in ptm hooks (they cannot touch files, load code or run commands)\n"
      "    update lua \"dofile.lua\"\n"
      "               ^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"loadfile.lua\"",
      "t.ptm:5:12: error: cannot load \"loadfile.lua\": @D@/loadfile.lua:1: 'loadfile' is not available in ptm hooks (they cannot touch files, load code or run commands)\n"
      "    update lua \"loadfile.lua\"\n"
      "               ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"dump.lua\"",
      "t.ptm:5:12: error: cannot load \"dump.lua\": @D@/dump.lua:1: 'string.dump' is not available in ptm hooks (hooks cannot make bytecode)\n"
      "    update lua \"dump.lua\"\n"
      "               ^^^^^^^^^^\n"),
    RT(MINI, "update", "update lua \"loop.lua\"", 2.5,
      "t.ptm:5:12: error: cannot load \"loop.lua\": @D@/loop.lua:1: instruction budget exceeded (50 million instructions)\n"
      "    update lua \"loop.lua\"\n"
      "               ^^^^^^^^^^\n"),
    RT(MINI, "update", "update lua \"coloop.lua\"", 2.5,
      "t.ptm:5:12: error: cannot load \"coloop.lua\": @D@/coloop.lua:2: @D@/coloop.lua:1: instruction budget exceeded (50 million instructions)\n"
      "    update lua \"coloop.lua\"\n"
      "               ^^^^^^^^^^^^\n"),
    RT(MINI, "update", "update lua \"bomb.lua\"", 5,
      "t.ptm:5:12: error: cannot load \"bomb.lua\": its top level uses more than 64 MiB of memory\n"
      "    update lua \"bomb.lua\"\n"
      "               ^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"meta_nopush.lua\"",
      "t.ptm:5:12: error: \"meta_nopush.lua\" defines no function 'push'\n"
      "    update lua \"meta_nopush.lua\"\n"
      "               ^^^^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"meta_newindex.lua\"",
      "t.ptm:5:12: error: cannot load \"meta_newindex.lua\": @D@/meta_newindex.lua:1: read-only push\n"
      "    update lua \"meta_newindex.lua\"\n"
      "               ^^^^^^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"nopush.lua\"",
      "t.ptm:5:12: error: \"nopush.lua\" defines no function 'push'\n"
      "    update lua \"nopush.lua\"\n"
      "               ^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"pushnum.lua\"",
      "t.ptm:5:12: error: \"pushnum.lua\" defines no function 'push'\n"
      "    update lua \"pushnum.lua\"\n"
      "               ^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"localpush.lua\"",
      "t.ptm:5:12: error: \"localpush.lua\" defines no function 'push'\n"
      "    update lua \"localpush.lua\"\n"
      "               ^^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"empty.lua\"",
      "t.ptm:5:12: error: \"empty.lua\" defines no function 'push'\n"
      "    update lua \"empty.lua\"\n"
      "               ^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\" { push = \"nope\", pull = \"nopull\" }",
      "t.ptm:5:30: error: \"ok.lua\" defines no function 'nope'\n"
      "    update lua \"ok.lua\" { push = \"nope\", pull = \"nopull\" }\n"
      "                                 ^^^^^^\n"
      "t.ptm:5:45: error: \"ok.lua\" defines no function 'nopull'\n"
      "    update lua \"ok.lua\" { push = \"nope\", pull = \"nopull\" }\n"
      "                                                ^^^^^^^^\n"),
    R(MINI, "update", "update lua \"pushonly.lua\" { pull = \"pull\" }",
      "t.ptm:5:36: error: \"pushonly.lua\" defines no function 'pull'\n"
      "    update lua \"pushonly.lua\" { pull = \"pull\" }\n"
      "                                       ^^^^^^\n"),
    R(MINI, "update", "update lua \"initnum.lua\"",
      "t.ptm:5:12: error: \"initnum.lua\" defines 'init' as a number; the init hook is a function init(w, job)\n"
      "    update lua \"initnum.lua\"\n"
      "               ^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"init3.lua\"",
      "t.ptm:5:12: error: \"init3.lua\" defines 'init' with 3 parameters; the init hook is init(w, job)\n"
      "    update lua \"init3.lua\"\n"
      "               ^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\" { init = \"setup\" }",
      "t.ptm:5:30: error: \"ok.lua\" defines no function 'setup'\n"
      "    update lua \"ok.lua\" { init = \"setup\" }\n"
      "                                 ^^^^^^^\n"),
    R(MINI, "update", "update lua \"saveonly.lua\"",
      "t.ptm:5:12: error: \"saveonly.lua\" defines 'save' but no 'load': a checkpoint keeps the file's own state with both hooks, save(w, job) and load(w, t, job)\n"
      "    update lua \"saveonly.lua\"\n"
      "               ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"loadonly.lua\"",
      "t.ptm:5:12: error: \"loadonly.lua\" defines 'load' but no 'save': a checkpoint keeps the file's own state with both hooks, save(w, job) and load(w, t, job)\n"
      "    update lua \"loadonly.lua\"\n"
      "               ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"saveonly.lua\" { save = \"push\" }",
      "t.ptm:5:36: error: \"saveonly.lua\" defines 'push' but no 'load': a checkpoint keeps the file's own state with both hooks, save(w, job) and load(w, t, job)\n"
      "    update lua \"saveonly.lua\" { save = \"push\" }\n"
      "                                       ^^^^^^\n"),
    R(MINI, "update", "update lua \"savetable.lua\"",
      "t.ptm:5:12: error: \"savetable.lua\" defines 'save' as a table; the save hook is a function save(w, job)\n"
      "    update lua \"savetable.lua\"\n"
      "               ^^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"load4.lua\"",
      "t.ptm:5:12: error: \"load4.lua\" defines 'load' with 4 parameters; the load hook is load(w, t, job)\n"
      "    update lua \"load4.lua\"\n"
      "               ^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"state.lua\" { save = \"nosave\", load = \"keep\" }",
      "t.ptm:5:33: error: \"state.lua\" defines no function 'nosave'\n"
      "    update lua \"state.lua\" { save = \"nosave\", load = \"keep\" }\n"
      "                                    ^^^^^^^^\n"),
    /* an objective in a file of its own has that file's save and load */
    R(MINI, "update", "update lua \"ok.lua\"\nobjective lua \"saveonly.lua\"",
      "t.ptm:6:15: error: \"saveonly.lua\" defines 'save' but no 'load': a checkpoint keeps the file's own state with both hooks, save(w, job) and load(w, t, job)\n"
      "    objective lua \"saveonly.lua\"\n"
      "                  ^^^^^^^^^^^^^^\n"),
    /* in the update's file they are the update's: one error */
    R(MINI, "update", "objective lua \"saveonly.lua\"\nupdate lua \"saveonly.lua\"",
      "t.ptm:6:12: error: \"saveonly.lua\" defines 'save' but no 'load': a checkpoint keeps the file's own state with both hooks, save(w, job) and load(w, t, job)\n"
      "    update lua \"saveonly.lua\"\n"
      "               ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\" \"push\"",
      "t.ptm:5:21: error: name the update functions as options: { push = \"...\", pull = \"...\", apply = \"...\", init = \"...\" }\n"
      "    update lua \"ok.lua\" \"push\"\n"
      "                        ^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\" { psuh = \"mypush\" }",
      "t.ptm:5:23: error: unknown option 'psuh' (did you mean 'push'?)\n"
      "    update lua \"ok.lua\" { psuh = \"mypush\" }\n"
      "                          ^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\" { push = mypush }",
      "t.ptm:5:23: error: 'push' takes a function name in quotes\n"
      "    update lua \"ok.lua\" { push = mypush }\n"
      "                          ^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\" { pull = \"a\" \"b\" }",
      "t.ptm:5:23: error: 'pull' takes a function name in quotes\n"
      "    update lua \"ok.lua\" { pull = \"a\" \"b\" }\n"
      "                          ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\"\nobjective lua \"nopush.lua\" \"nope\"",
      "t.ptm:6:28: error: \"nopush.lua\" defines no function 'nope'\n"
      "    objective lua \"nopush.lua\" \"nope\"\n"
      "                               ^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\"\nobjective lua \"pushonly.lua\"",
      "t.ptm:6:15: error: \"pushonly.lua\" defines no function 'objective'\n"
      "    objective lua \"pushonly.lua\"\n"
      "                  ^^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"ok.lua\"\nobjective lua \"syntax.lua\"",
      "t.ptm:6:15: error: cannot load \"syntax.lua\": @D@/syntax.lua:2: <name> or '...' expected near 'end'\n"
      "    objective lua \"syntax.lua\"\n"
      "                  ^^^^^^^^^^^^\n"),
    /* ---- stop, output, seed, consistency ---- */
    R(LASSO, "stop", "stop when rounds",
      "t.ptm:14:11: error: the stop rule must be a condition, not a number\n"
      "    stop when rounds\n"
      "              ^^^^^^\n"),
    R(LASSO, "stop", "stop when rounds > beta[1]",
      "t.ptm:14:20: error: the stop rule cannot read parameters\n"
      "    stop when rounds > beta[1]\n"
      "                       ^^^^^^^\n"),
    R(LASSO, "stop", "stop when X[1, 1] > 0",
      "t.ptm:14:11: error: the stop rule cannot read data\n"
      "    stop when X[1, 1] > 0\n"
      "              ^^^^^^^\n"),
    R(LASSO, "stop", "stop when rows(X) > 0",
      "t.ptm:14:11: error: rows() cannot be used in the stop rule\n"
      "    stop when rows(X) > 0\n"
      "              ^^^^^^^\n"),
    R(LASSO, "stop", "stop when nnz(col(X, 1)) > 0",
      "t.ptm:14:11: error: nnz() cannot be used in the stop rule\n"
      "    stop when nnz(col(X, 1)) > 0\n"
      "              ^^^^^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when rel_change(rounds) < 1",
      "t.ptm:14:22: error: rel_change() takes 'objective' or a metric\n"
      "    stop when rel_change(rounds) < 1\n"
      "                         ^^^^^^\n"),
    R(LASSO, "stop", "stop when rel_change(objective, 1) < 1",
      "t.ptm:14:11: error: rel_change() takes 1 argument, not 2\n"
      "    stop when rel_change(objective, 1) < 1\n"
      "              ^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when rouns > 10",
      "t.ptm:14:11: error: unknown name 'rouns' (did you mean 'rounds'?)\n"
      "    stop when rouns > 10\n"
      "              ^^^^^\n"),
    R(LASSO, "stop", "stop when sweep > 10 + secnds",
      "t.ptm:14:11: error: unknown name 'sweep' (did you mean 'sweeps'?)\n"
      "    stop when sweep > 10 + secnds\n"
      "              ^^^^^\n"
      "t.ptm:14:24: error: unknown name 'secnds' (did you mean 'seconds'?)\n"
      "    stop when sweep > 10 + secnds\n"
      "                           ^^^^^^\n"),
    R(LASSO, "stop", "stop when 1 + (rounds > 2)",
      "t.ptm:14:16: error: arithmetic needs a number, not a condition\n"
      "    stop when 1 + (rounds > 2)\n"
      "                   ^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when not rounds",
      "t.ptm:14:15: error: 'not' needs a condition, not a number\n"
      "    stop when not rounds\n"
      "                  ^^^^^^\n"),
    R(LASSO, "stop", "stop when -(rounds > 2) < 0",
      "t.ptm:14:13: error: '-' needs a number, not a condition\n"
      "    stop when -(rounds > 2) < 0\n"
      "                ^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when rounds > 2 and 3",
      "t.ptm:14:26: error: 'and' needs a condition, not a number\n"
      "    stop when rounds > 2 and 3\n"
      "                             ^\n"),
    R(LASSO, "stop", "stop when (rounds > 2) < (sweeps > 3)",
      "t.ptm:14:12: error: a comparison needs a number, not a condition\n"
      "    stop when (rounds > 2) < (sweeps > 3)\n"
      "               ^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when rounds == true",
      "t.ptm:14:21: error: a comparison needs a number, not a condition\n"
      "    stop when rounds == true\n"
      "                        ^^^^\n"),
    R(LASSO, "stop", "stop when \"x\"",
      "t.ptm:14:11: error: a string cannot be used in the stop rule\n"
      "    stop when \"x\"\n"
      "              ^^^\n"),
    R(LASSO, "stop", "stop when foo(1) > 2",
      "t.ptm:14:11: error: unknown function 'foo'\n"
      "    stop when foo(1) > 2\n"
      "              ^^^\n"),
    R(LASSO, "stop", "stop when ab(rounds) > 2",
      "t.ptm:14:11: error: unknown function 'ab' (did you mean 'abs'?)\n"
      "    stop when ab(rounds) > 2\n"
      "              ^^\n"),
    R(LASSO, "stop", "stop when labels(X) > 2",
      "t.ptm:14:11: error: labels() can only be the source of a data statement\n"
      "    stop when labels(X) > 2\n"
      "              ^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when random(1) > 2",
      "t.ptm:14:11: error: random() can only be the initial value of a parameter\n"
      "    stop when random(1) > 2\n"
      "              ^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when abs() > 2",
      "t.ptm:14:11: error: abs() takes 1 argument, not 0\n"
      "    stop when abs() > 2\n"
      "              ^^^^^\n"),
    R(LASSO, "stop", "stop when min(rounds) > 2",
      "t.ptm:14:11: error: min() takes at least 2 arguments, not 1\n"
      "    stop when min(rounds) > 2\n"
      "              ^^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when sqrt(rounds > 1) > 2",
      "t.ptm:14:16: error: an argument of a function needs a number, not a condition\n"
      "    stop when sqrt(rounds > 1) > 2\n"
      "                   ^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when min(rounds > 1, 2) > 2",
      "t.ptm:14:15: error: an argument of a function needs a number, not a condition\n"
      "    stop when min(rounds > 1, 2) > 2\n"
      "                  ^^^^^^^^^^\n"),
    R(LASSO, "stop", "stop when X > 2",
      "t.ptm:14:11: error: 'X' is a data source, not a number\n"
      "    stop when X > 2\n"
      "              ^\n"),
    R(LASSO, "stop", "stop when lambda > 2", ""),
    R(LASSO, "stop", "stop when (rounds > 2) == (sweeps > 3) or not (seconds < 1h)", ""),
    R(LASSO, "stop", "stop when rounds > 1\nstop when rounds > 2",
      "t.ptm:15:1: error: the job already has a 'stop' statement\n"
      "    stop when rounds > 2\n"
      "    ^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:14:1: note: the first one is here\n"
      "    stop when rounds > 1\n"
      "    ^^^^^^^^^^^^^^^^^^^^\n"),
    R(MINI, "stop", "stop when objective < 1",
      "t.ptm:6:11: error: the stop rule reads the objective, but the job has no 'objective'\n"
      "    stop when objective < 1\n"
      "              ^^^^^^^^^\n"),
    R(MINI, "stop", "stop when rounds > 3 or rel_change(objective) < 1e-6",
      "t.ptm:6:25: error: the stop rule reads the objective, but the job has no 'objective'\n"
      "    stop when rounds > 3 or rel_change(objective) < 1e-6\n"
      "                            ^^^^^^^^^^^^^^^^^^^^^\n"),
    R(LASSO, "output", "output beta to \"\"",
      "t.ptm:15:16: error: the output file name is empty\n"
      "    output beta to \"\"\n"
      "                   ^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\noutput r to \"beta.tsv\"",
      "t.ptm:16:13: error: another output already writes \"beta.tsv\"\n"
      "    output r to \"beta.tsv\"\n"
      "                ^^^^^^^^^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\" format csv",
      "t.ptm:15:34: error: unknown output format 'csv' (use tsv)\n"
      "    output beta to \"beta.tsv\" format csv\n"
      "                                     ^^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\" shard rows",
      "t.ptm:15:27: error: 'shard' does not apply to an output\n"
      "    output beta to \"beta.tsv\" shard rows\n"
      "                              ^^^^^^^^^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\nseed -1",
      "t.ptm:16:6: error: the seed must be a whole number from 0 to 2^53 - 1, not -1\n"
      "    seed -1\n"
      "         ^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\nseed 1.5",
      "t.ptm:16:6: error: the seed must be a whole number from 0 to 2^53 - 1, not 1.5\n"
      "    seed 1.5\n"
      "         ^^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\nseed workers",
      "t.ptm:16:6: error: 'workers' cannot be used in the seed\n"
      "    seed workers\n"
      "         ^^^^^^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\nseed 1\nseed 2",
      "t.ptm:17:1: error: the job already has a 'seed' statement\n"
      "    seed 2\n"
      "    ^^^^^^\n"
      "t.ptm:16:1: note: the first one is here\n"
      "    seed 1\n"
      "    ^^^^^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\nconsistency ssp -2",
      "t.ptm:16:17: error: the staleness must be a whole number from 0 to 1000000, not -2\n"
      "    consistency ssp -2\n"
      "                    ^^\n"),
    R(LASSO, "output", "output beta to \"beta.tsv\"\nconsistency ssp 3\nconsistency async",
      "t.ptm:17:1: error: the job already has a 'consistency' statement\n"
      "    consistency async\n"
      "    ^^^^^^^^^^^^^^^^^\n"
      "t.ptm:16:1: note: the first one is here\n"
      "    consistency ssp 3\n"
      "    ^^^^^^^^^^^^^^^^^\n"),
    /* ---- checkpoint ---- */
    R(LASSO, NULL, "checkpoint every 10 to \"ckpt\"",
      "t.ptm:16:18: error: 'every' needs a unit: rounds, sweeps, or a duration such as 5m\n"
      "    checkpoint every 10 to \"ckpt\"\n"
      "                     ^^\n"),
    R(LASSO, NULL, "checkpoint every -3 to \"ckpt\"",
      "t.ptm:16:18: error: 'every' needs a unit: rounds, sweeps, or a duration such as 5m\n"
      "    checkpoint every -3 to \"ckpt\"\n"
      "                     ^^\n"),
    R(LASSO, NULL, "checkpoint every 500ms to \"ckpt\"",
      "t.ptm:16:18: error: a checkpoint interval must be at least 1s, not 0.5s\n"
      "    checkpoint every 500ms to \"ckpt\"\n"
      "                     ^^^^^\n"),
    R(LASSO, NULL, "checkpoint every -5m to \"ckpt\"",
      "t.ptm:16:18: error: a checkpoint interval must be at least 1s, not -300s\n"
      "    checkpoint every -5m to \"ckpt\"\n"
      "                     ^^^\n"),
    R(LASSO, NULL, "checkpoint every lambda to \"ckpt\"",
      "t.ptm:16:18: error: a checkpoint interval must be at least 1s, not 0.001s\n"
      "    checkpoint every lambda to \"ckpt\"\n"
      "                     ^^^^^^\n"),
    R(LASSO, NULL, "checkpoint every 5 minutes to \"ckpt\"",
      "t.ptm:16:20: error: unknown unit 'minutes' (a checkpoint is taken every N rounds, every N "
      "sweeps or every DURATION, such as 5m)\n"
      "    checkpoint every 5 minutes to \"ckpt\"\n"
      "                       ^^^^^^^\n"),
    R(LASSO, NULL, "checkpoint every 5 round to \"ckpt\"",
      "t.ptm:16:20: error: unknown unit 'round' (did you mean 'rounds'?)\n"
      "    checkpoint every 5 round to \"ckpt\"\n"
      "                       ^^^^^\n"),
    R(LASSO, NULL, "checkpoint every 5m rounds to \"ckpt\"",
      "t.ptm:16:18: error: 'every' is a count, not a duration\n"
      "    checkpoint every 5m rounds to \"ckpt\"\n"
      "                     ^^\n"),
    R(LASSO, NULL, "checkpoint every 0 rounds to \"ckpt\"",
      "t.ptm:16:18: error: 'every' must be a whole number from 1 to 2^53 - 1, not 0\n"
      "    checkpoint every 0 rounds to \"ckpt\"\n"
      "                     ^\n"),
    R(LASSO, NULL, "checkpoint every 2.5 sweeps to \"ckpt\"",
      "t.ptm:16:18: error: 'every' must be a whole number from 1 to 2^53 - 1, not 2.5\n"
      "    checkpoint every 2.5 sweeps to \"ckpt\"\n"
      "                     ^^^\n"),
    R(LASSO, NULL, "checkpoint every sweeps to \"ckpt\"",
      "t.ptm:16:18: error: 'sweeps' cannot be used in 'every'\n"
      "    checkpoint every sweeps to \"ckpt\"\n"
      "                     ^^^^^^\n"),
    R(LASSO, NULL, "checkpoint every 5m to \"\"",
      "t.ptm:16:24: error: the checkpoint directory name is empty\n"
      "    checkpoint every 5m to \"\"\n"
      "                           ^^\n"),
    R(LASSO, NULL, "checkpoint every 5m to \"beta.tsv\"",
      "t.ptm:16:24: error: an output writes \"beta.tsv\": checkpoints need a directory of their own\n"
      "    checkpoint every 5m to \"beta.tsv\"\n"
      "                           ^^^^^^^^^^\n"
      "t.ptm:15:16: note: the output is here\n"
      "    output beta to \"beta.tsv\"\n"
      "                   ^^^^^^^^^^\n"),
    R(LASSO, NULL, "checkpoint every 5m to \"a\"\ncheckpoint every 0 rounds to \"b\"",
      "t.ptm:17:1: error: the job already has a 'checkpoint' statement\n"
      "    checkpoint every 0 rounds to \"b\"\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:16:1: note: the first one is here\n"
      "    checkpoint every 5m to \"a\"\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    /* ---- what every job needs; several errors at once ---- */
    R(WHOLE, NULL, "job t\nstop when rounds > 3\n",
      "t.ptm:1:5: error: the job has no 'schedule': say how updates are scheduled\n"
      "    job t\n"
      "        ^\n"
      "t.ptm:1:5: error: the job has no 'update': say what updates the parameters\n"
      "    job t\n"
      "        ^\n"
      "t.ptm:1:5: error: the job has no parameters ('param')\n"
      "    job t\n"
      "        ^\n"),
    R(MINI, "param", "param p : vector[8]\nseed 3",
      ""),
    R(WHOLE, NULL,
      "job t\n"
      "const a = b + 1\n"
      "data X : sparse matrix[3] from \"x.dat\" format libsvn shard rows\n"
      "data y : dense matrix from labels(X) format csv\n"
      "param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "param beta : vector[3]\n"
      "blocks coef = bta diag each 0\n"
      "depend coef(i), coef(i) when beta[i] > 0\n"
      "priority coef(workers) = delta(X[1])\n"
      "cost coef(j) = beta[j] + rounds\n"
      "schedule dynamc { sampl 3 }\n"
      "update builtin laso_cd { lamda = 1 }\n"
      "objective builtin rmse { test = X, test = y } every 0 hours\n"
      "stop when rouns > 3\n"
      "output bta to \"\"\n"
      "output X to \"o.tsv\" format csv\n"
      "seed -1\n",
      "t.ptm:2:11: error: unknown name 'b'\n"
      "    const a = b + 1\n"
      "              ^\n"
      "t.ptm:3:10: error: the size of data comes from its file; remove the dimensions\n"
      "    data X : sparse matrix[3] from \"x.dat\" format libsvn shard rows\n"
      "             ^^^^^^^^^^^^^^^^\n"
      "t.ptm:3:47: error: unknown data format 'libsvn' (did you mean 'libsvm'?)\n"
      "    data X : sparse matrix[3] from \"x.dat\" format libsvn shard rows\n"
      "                                                  ^^^^^^\n"
      "t.ptm:4:10: error: labels are a vector, not a matrix\n"
      "    data y : dense matrix from labels(X) format csv\n"
      "             ^^^^^^^^^^^^\n"
      "t.ptm:4:38: error: labels() take the format of their data; remove 'format'\n"
      "    data y : dense matrix from labels(X) format csv\n"
      "                                         ^^^^^^^^^^\n"
      "t.ptm:5:14: error: parameters are dense; remove 'sparse'\n"
      "    param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "                 ^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:5:33: error: unknown data source 'Z'\n"
      "    param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "                                    ^\n"
      "t.ptm:5:46: error: the scale of random() must be positive\n"
      "    param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "                                                 ^^\n"
      "t.ptm:5:66: error: the staleness must be a whole number from 0 to 1000000, not -1\n"
      "    param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "                                                                     ^^\n"
      "t.ptm:5:69: error: a parameter is sharded with 'shard like DATA'\n"
      "    param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "                                                                        ^^^^^^^^^^\n"
      "t.ptm:6:7: error: 'beta' is already defined\n"
      "    param beta : vector[3]\n"
      "          ^^^^\n"
      "t.ptm:5:7: note: 'beta' was defined here as a parameter\n"
      "    param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
      "          ^^^^\n"
      "t.ptm:7:15: error: unknown parameter 'bta' (did you mean 'beta'?)\n"
      "    blocks coef = bta diag each 0\n"
      "                  ^^^\n"
      "t.ptm:7:19: error: blocks split a matrix by 'rows' or 'cols', not 'diag'\n"
      "    blocks coef = bta diag each 0\n"
      "                      ^^^^\n"
      "t.ptm:7:29: error: a block count must be a whole number from 1 to 2147483647, not 0\n"
      "    blocks coef = bta diag each 0\n"
      "                                ^\n"
      "t.ptm:8:22: error: the two block indices need different names\n"
      "    depend coef(i), coef(i) when beta[i] > 0\n"
      "                         ^\n"
      "t.ptm:9:15: error: 'workers' is a built-in name; pick another name for the block index\n"
      "    priority coef(workers) = delta(X[1])\n"
      "                  ^^^^^^^\n"
      "t.ptm:9:32: error: 'X' is a data source; delta() takes a parameter\n"
      "    priority coef(workers) = delta(X[1])\n"
      "                                   ^\n"
      "t.ptm:10:16: error: a cost cannot read parameters\n"
      "    cost coef(j) = beta[j] + rounds\n"
      "                   ^^^^^^^\n"
      "t.ptm:10:26: error: 'rounds' cannot be used in a cost\n"
      "    cost coef(j) = beta[j] + rounds\n"
      "                             ^^^^^^\n"
      "t.ptm:11:10: error: unknown scheduling policy 'dynamc' (did you mean 'dynamic'?)\n"
      "    schedule dynamc { sampl 3 }\n"
      "             ^^^^^^\n"
      "t.ptm:12:16: error: unknown builtin 'laso_cd' (did you mean 'lasso_cd'?)\n"
      "    update builtin laso_cd { lamda = 1 }\n"
      "                   ^^^^^^^\n"
      "t.ptm:13:1: error: rmse works on a data source named 'R'; name yours with { R = NAME }\n"
      "    objective builtin rmse { test = X, test = y } every 0 hours\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:13:1: error: rmse works on a parameter named 'W'; name yours with { W = NAME }\n"
      "    objective builtin rmse { test = X, test = y } every 0 hours\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:13:1: error: rmse works on a parameter named 'H'; name yours with { H = NAME }\n"
      "    objective builtin rmse { test = X, test = y } every 0 hours\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:13:36: error: option 'test' is given twice\n"
      "    objective builtin rmse { test = X, test = y } every 0 hours\n"
      "                                       ^^^^\n"
      "t.ptm:13:53: error: 'every' must be a whole number from 1 to 2^53 - 1, not 0\n"
      "    objective builtin rmse { test = X, test = y } every 0 hours\n"
      "                                                        ^\n"
      "t.ptm:13:55: error: the unit of 'every' is 'rounds' or 'sweeps'\n"
      "    objective builtin rmse { test = X, test = y } every 0 hours\n"
      "                                                          ^^^^^\n"
      "t.ptm:14:11: error: unknown name 'rouns' (did you mean 'rounds'?)\n"
      "    stop when rouns > 3\n"
      "              ^^^^^\n"
      "t.ptm:15:8: error: unknown parameter 'bta' (did you mean 'beta'?)\n"
      "    output bta to \"\"\n"
      "           ^^^\n"
      "t.ptm:15:15: error: the output file name is empty\n"
      "    output bta to \"\"\n"
      "                  ^^\n"
      "t.ptm:16:8: error: 'X' is a data source, not a parameter\n"
      "    output X to \"o.tsv\" format csv\n"
      "           ^\n"
      "t.ptm:3:6: note: 'X' is defined here\n"
      "    data X : sparse matrix[3] from \"x.dat\" format libsvn shard rows\n"
      "         ^\n"
      "t.ptm:16:28: error: unknown output format 'csv' (use tsv)\n"
      "    output X to \"o.tsv\" format csv\n"
      "                               ^^^\n"
      "t.ptm:17:6: error: the seed must be a whole number from 0 to 2^53 - 1, not -1\n"
      "    seed -1\n"
      "         ^^\n"),
    /* More than 50 errors: the rest are counted. */
    R(WHOLE, NULL,
      "job t\n"
      "param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "param q : vector[b1] consistency ssp b2\n"
      "blocks b = p each c1\n"
      "depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "schedule round_robin { per_round g1 }\n"
      "update lua \"ok.lua\"\n"
      "stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "seed s1\n",
      "t.ptm:2:18: error: unknown name 'a1'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                     ^^\n"
      "t.ptm:2:23: error: unknown name 'a2'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                          ^^\n"
      "t.ptm:2:28: error: unknown name 'a3'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                               ^^\n"
      "t.ptm:2:33: error: unknown name 'a4'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                    ^^\n"
      "t.ptm:2:38: error: unknown name 'a5'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                         ^^\n"
      "t.ptm:2:43: error: unknown name 'a6'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                              ^^\n"
      "t.ptm:2:48: error: unknown name 'a7'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                                   ^^\n"
      "t.ptm:2:53: error: unknown name 'a8'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                                        ^^\n"
      "t.ptm:2:58: error: unknown name 'a9'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                                             ^^\n"
      "t.ptm:2:63: error: unknown name 'a10'\n"
      "    param p : vector[a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10]\n"
      "                                                                  ^^^\n"
      "t.ptm:3:18: error: unknown name 'b1'\n"
      "    param q : vector[b1] consistency ssp b2\n"
      "                     ^^\n"
      "t.ptm:3:38: error: unknown name 'b2'\n"
      "    param q : vector[b1] consistency ssp b2\n"
      "                                         ^^\n"
      "t.ptm:4:19: error: unknown name 'c1'\n"
      "    blocks b = p each c1\n"
      "                      ^^\n"
      "t.ptm:5:1: warning: the round_robin policy ignores dependencies; only dynamic uses them\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:5:24: error: unknown name 'd1'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                           ^^\n"
      "t.ptm:5:29: error: unknown name 'd2'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                ^^\n"
      "t.ptm:5:34: error: unknown name 'd3'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                     ^^\n"
      "t.ptm:5:39: error: unknown name 'd4'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                          ^^\n"
      "t.ptm:5:44: error: unknown name 'd5'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                               ^^\n"
      "t.ptm:5:49: error: unknown name 'd6'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                                    ^^\n"
      "t.ptm:5:54: error: unknown name 'd7'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                                         ^^\n"
      "t.ptm:5:59: error: unknown name 'd8'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                                              ^^\n"
      "t.ptm:5:64: error: unknown name 'd9'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                                                   ^^\n"
      "t.ptm:5:69: error: unknown name 'd10'\n"
      "    depend b(i), b(j) when d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10 > i + j\n"
      "                                                                        ^^^\n"
      "t.ptm:6:1: warning: the round_robin policy ignores priorities; only dynamic uses them\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "t.ptm:6:17: error: unknown name 'e1'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                    ^^\n"
      "t.ptm:6:22: error: unknown name 'e2'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                         ^^\n"
      "t.ptm:6:27: error: unknown name 'e3'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                              ^^\n"
      "t.ptm:6:32: error: unknown name 'e4'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                   ^^\n"
      "t.ptm:6:37: error: unknown name 'e5'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                        ^^\n"
      "t.ptm:6:42: error: unknown name 'e6'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                             ^^\n"
      "t.ptm:6:47: error: unknown name 'e7'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                                  ^^\n"
      "t.ptm:6:52: error: unknown name 'e8'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                                       ^^\n"
      "t.ptm:6:57: error: unknown name 'e9'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                                            ^^\n"
      "t.ptm:6:62: error: unknown name 'e10'\n"
      "    priority b(j) = e1 + e2 + e3 + e4 + e5 + e6 + e7 + e8 + e9 + e10\n"
      "                                                                 ^^^\n"
      "t.ptm:7:13: error: unknown name 'f1'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                ^^\n"
      "t.ptm:7:18: error: unknown name 'f2'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                     ^^\n"
      "t.ptm:7:23: error: unknown name 'f3'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                          ^^\n"
      "t.ptm:7:28: error: unknown name 'f4'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                               ^^\n"
      "t.ptm:7:33: error: unknown name 'f5'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                                    ^^\n"
      "t.ptm:7:38: error: unknown name 'f6'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                                         ^^\n"
      "t.ptm:7:43: error: unknown name 'f7'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                                              ^^\n"
      "t.ptm:7:48: error: unknown name 'f8'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                                                   ^^\n"
      "t.ptm:7:53: error: unknown name 'f9'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                                                        ^^\n"
      "t.ptm:7:58: error: unknown name 'f10'\n"
      "    cost b(j) = f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10\n"
      "                                                             ^^^\n"
      "t.ptm:8:34: error: unknown name 'g1'\n"
      "    schedule round_robin { per_round g1 }\n"
      "                                     ^^\n"
      "t.ptm:10:11: error: unknown name 'h1'\n"
      "    stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "              ^^\n"
      "t.ptm:10:16: error: unknown name 'h2'\n"
      "    stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "                   ^^\n"
      "t.ptm:10:21: error: unknown name 'h3'\n"
      "    stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "                        ^^\n"
      "t.ptm:10:26: error: unknown name 'h4'\n"
      "    stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "                             ^^\n"
      "t.ptm:10:31: error: unknown name 'h5'\n"
      "    stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "                                  ^^\n"
      "t.ptm:10:36: error: unknown name 'h6'\n"
      "    stop when h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 > 0\n"
      "                                       ^^\n"
      "t.ptm: note: 5 more errors not shown\n"),
    /* An expression too deep for the interpreter's stack. */
    R(LASSO, "stop",
      "stop when rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + ("
      "rounds + rounds"
      "))))))))" "))))))))" "))))))))" "))))))))" "))))))))" "))))))))" "))))))))" "))))))))"
      " > 0",
      "t.ptm:14:11: error: the stop rule is too complex (more than 64 values pending or 64 open 'and'/'or' jumps)\n"
      "    stop when rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (rounds + (...\n"
      "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
    /* ---- rules added later: each one row ---- */
    R(MINI, "update", "update lua \"bigbomb.lua\"",
      "t.ptm:5:12: error: cannot load \"bigbomb.lua\": its top level uses more than 64 MiB of memory\n"
      "    update lua \"bigbomb.lua\"\n"
      "               ^^^^^^^^^^^^^\n"),
    RT(MINI, "update", "update lua \"pattern.lua\"", 1,
      "t.ptm:5:12: error: cannot load \"pattern.lua\": @D@/pattern.lua:1: Lua patterns are not available in ptm hooks; use string.find(s, text, 1, true) for plain text\n"
      "    update lua \"pattern.lua\"\n"
      "               ^^^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"match.lua\"",
      "t.ptm:5:12: error: cannot load \"match.lua\": @D@/match.lua:1: Lua patterns are not available in ptm hooks; use string.find(s, text, 1, true) for plain text\n"
      "    update lua \"match.lua\"\n"
      "               ^^^^^^^^^^^\n"),
    R(MINI, "update", "update lua \"plainfind.lua\"", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when abs(i - j) < 2", ""),
    R(LASSO, "depend", "depend coef(i), coef(j) when i + j > workers", ""),
    R(LASSO, "const", "const lambda = 1/0",
      "t.ptm:2:16: error: a const must be a finite number, not infinity\n"
      "    const lambda = 1/0\n"
      "                   ^^^\n"),
    R(LASSO, "const", "const abs = 1",
      "t.ptm:2:7: error: 'abs' is a built-in name and cannot be redefined\n"
      "    const abs = 1\n"
      "          ^^^\n"
      "t.ptm:12:36: error: unknown name 'lambda'\n"
      "    update builtin lasso_cd { lambda = lambda }\n"
      "                                       ^^^^^^\n"
      "t.ptm:13:46: error: unknown name 'lambda'\n"
      "    objective builtin lasso_objective { lambda = lambda } every 10 rounds\n"
      "                                                 ^^^^^^\n"),
    R(LASSO, "objective", "objective builtin lasso_objective { lambda = lambda } every 10s",
      "t.ptm:13:61: error: 'every' is a count, not a duration\n"
      "    objective builtin lasso_objective { lambda = lambda } every 10s\n"
      "                                                                ^^^\n"),
    R(LASSO, "update", "update builtin lasso_cd { lambda = -1 }",
      "t.ptm:12:36: error: option 'lambda' of lasso_cd must be a number at least 0, not -1\n"
      "    update builtin lasso_cd { lambda = -1 }\n"
      "                                       ^^\n"),
    R(LASSO, "param r", "param r : vector[7] = y shard like X",
      "t.ptm:6:18: error: a parameter sharded like X has rows(X) elements; write vector[rows(DATA)]\n"
      "    param r : vector[7] = y shard like X\n"
      "                     ^\n"),
    R(LASSO, "blocks", "blocks coef = r each 1",
      "t.ptm:7:15: error: 'r' is sharded like X: each worker updates its own rows, so it has no schedulable blocks\n"
      "    blocks coef = r each 1\n"
      "                  ^\n"),
    R(LASSO, "data y", "data y : vector from labels(Z)\ndata Z : sparse matrix from \"z.mtx\"",
      "t.ptm:4:29: error: 'Z' has no labels: labels come with libsvm or csv data\n"
      "    data y : vector from labels(Z)\n"
      "                                ^\n"),
    RS(LASSO, "const", "const lambda = 0.001", "lambda=0x10",
      "t.ptm: error: --set lambda=0x10: 'lambda' is a number and '0x10' is not one\n"),
    R(LASSO, "schedule", "schedule dynamic over coef { sample 256 }\nblocks extra = beta",
      "t.ptm:12:8: warning: block set 'extra' is never scheduled (the schedule is over coef)\n"
      "    blocks extra = beta\n"
      "           ^^^^^\n"),
};
/* clang-format on */

START_TEST(test_sem)
{
    const struct sem_row *r = &sem_rows[_i];
    char *text = job_text(r->base, r->key, r->text);
    char *ltext = subst(text);
    struct outcome o = run_job(ltext, r->sets, false, NULL);
    ck_assert_msg(o.parse_rc == 0, "row %d: the job does not parse:\n%s", _i, o.diags);
    /* Warnings alone leave a plan. */
    bool clean = r->expected && !strstr(r->expected, ": error: ");
    expect_text("sem", _i, o.diags, r->expected ? r->expected : "<no expected text>");
    if (clean)
        ck_assert_int_eq(o.rc, 0);
    else
        ck_assert_int_eq(o.rc, PTM_ESYNTAX);
    ck_assert(!o.oom);
    if (r->max_seconds > 0)
        ck_assert_msg(o.seconds < r->max_seconds, "row %d took %.2f s", _i, o.seconds);
    for (size_t k = 0; k < PTM_ARRAY_LEN(markers); k++)
        ck_assert_msg(!exists_in_tdir(markers[k]), "row %d: the sandbox let %s be created", _i,
                      markers[k]);
    free(o.diags);
    free(ltext);
    free(text);
}
END_TEST

/* A string const cannot hold a NUL byte. The lexer refuses NUL bytes and
 * has no escape for them, so the tree is changed after parsing. */
static void put_nul(struct ast_job *job)
{
    for (struct ast_stmt *st = job->head; st; st = st->next)
        if (st->kind == AST_STMT_CONST && st->u.konst.value->kind == AST_STR) {
            st->u.konst.value->u.str.s = "a\0b";
            st->u.konst.value->u.str.len = 3;
        }
}

START_TEST(test_sem_nul_const)
{
    char *text = job_text(MINI, "param", "const s = \"a?b\"\nparam p : vector[8]");
    struct outcome o = run_job(text, NULL, false, put_nul);
    expect_text("nul", 0, o.diags,
                "t.ptm:2:11: error: a string const cannot hold a NUL byte\n"
                "    const s = \"a?b\"\n"
                "              ^^^^^\n");
    ck_assert_int_eq(o.rc, PTM_ESYNTAX);
    free(o.diags);
    free(text);
}
END_TEST

/* ---- 2. accepted jobs and their plans ----------------------------------- */

static const struct plan_option *option(const struct plan_hook *h, const char *key)
{
    for (uint32_t i = 0; i < h->noptions; i++)
        if (strcmp(h->options[i].key, key) == 0)
            return &h->options[i];
    ck_abort_msg("no option '%s'", key);
    return NULL;
}

static void chk_lasso(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->job, "lasso");
    ck_assert_str_eq(p->base_dir, tdir);
    ck_assert_uint_eq(p->nconsts, 1);
    ck_assert_str_eq(p->consts[0].name, "lambda");
    ck_assert(!p->consts[0].is_str);
    ck_assert_double_eq(p->consts[0].num, 0.001);

    ck_assert_uint_eq(p->ndata, 2);
    const struct plan_data *X = &p->data[0], *y = &p->data[1];
    ck_assert_str_eq(X->name, "X");
    ck_assert_str_eq(X->path, "data/lasso.svm");
    ck_assert_int_eq(X->format, PLAN_FORMAT_LIBSVM);
    ck_assert(X->matrix && X->sparse && !X->integer);
    ck_assert_int_eq(X->shard, PLAN_SHARD_ROWS);
    ck_assert_int_eq(X->labels_of, -1);
    ck_assert_ptr_null(X->vocab);
    ck_assert_str_eq(y->name, "y");
    ck_assert_ptr_null(y->path);
    ck_assert_int_eq(y->format, PLAN_FORMAT_LABELS);
    ck_assert(!y->matrix);
    ck_assert_int_eq(y->labels_of, 0);
    ck_assert_int_eq(y->shard, PLAN_SHARD_ROWS);

    ck_assert_uint_eq(p->nparams, 3);
    const struct plan_param *beta = &p->params[0], *ib = &p->params[1], *r = &p->params[2];
    ck_assert_str_eq(beta->name, "beta");
    ck_assert(!beta->matrix && !beta->integer);
    assert_single(&beta->dims[0], PROG_COLS, 0);
    ck_assert_uint_eq(beta->dims[1].ncode, 0);
    ck_assert_int_eq(beta->init, PLAN_INIT_CONST);
    ck_assert_double_eq(beta->init_value, 0);
    ck_assert_int_eq(beta->shard_like, -1);
    ck_assert_int_eq(beta->cons, PLAN_CONS_SSP);
    ck_assert_int_eq(beta->staleness, 0);
    ck_assert_str_eq(ib->name, "b");
    ck_assert(!ib->matrix && !ib->integer);
    assert_const(&ib->dims[0], 1);
    ck_assert_int_eq(ib->shard_like, -1);
    assert_single(&r->dims[0], PROG_ROWS, 0);
    ck_assert_int_eq(r->init, PLAN_INIT_DATA);
    ck_assert_int_eq(r->init_data, 1);
    ck_assert_int_eq(r->shard_like, 0);

    ck_assert_uint_eq(p->nblocksets, 1);
    const struct plan_blockset *b = &p->blocksets[0];
    ck_assert_str_eq(b->name, "coef");
    ck_assert_int_eq(b->param, 0);
    ck_assert_int_eq(b->axis, PLAN_AXIS_ELEMS);
    ck_assert(!b->into);
    assert_const(&b->count, 1);
    ck_assert_int_eq(b->depend, PLAN_DEPEND_NONE);
    /* priority |delta(beta[j])|: dbeta = 0.25, 0, -0.5, 2 */
    ck_assert(b->has_priority);
    ck_assert_uint_eq(b->priority.nvars, 1);
    ck_assert_double_eq_tol(eval(&b->priority, NULL, 1, 0, NULL), 0.25, 1e-12);
    ck_assert_double_eq_tol(eval(&b->priority, NULL, 2, 0, NULL), 0, 1e-12);
    ck_assert_double_eq_tol(eval(&b->priority, NULL, 3, 0, NULL), 0.5, 1e-12);
    /* cost nnz(col(X, j)): columns have 4, 4, 2 and 4 non-zeros */
    ck_assert(b->has_cost);
    ck_assert_double_eq(eval(&b->cost, NULL, 3, 0, NULL), 2);
    ck_assert_double_eq(eval(&b->cost, NULL, 4, 0, NULL), 4);
    ck_assert(!b->has_order);
    ck_assert_uint_eq(b->order.ncode, 0);

    const struct plan_schedule *s = &p->schedule;
    ck_assert_int_eq(s->policy, PLAN_POLICY_DYNAMIC);
    ck_assert_int_eq(s->over, 0);
    ck_assert_int_eq(s->sample, 1000);
    ck_assert(s->active);
    ck_assert(!s->keep_all);
    ck_assert_int_eq(s->warmup, 1);
    ck_assert_int_eq(s->warmup_unit, PLAN_UNIT_SWEEPS);
    ck_assert(s->balance);
    ck_assert_int_eq(s->pipeline, 1);

    ck_assert(p->update.present && !p->update.lua);
    ck_assert_str_eq(p->update.builtin, "lasso_cd");
    const struct plan_option *o = option(&p->update, "lambda");
    ck_assert_int_eq(o->kind, PLAN_VALUE_NUM);
    ck_assert_double_eq(o->num, 0.001);
    o = option(&p->update, "X");
    ck_assert_int_eq(o->kind, PLAN_VALUE_DATA);
    ck_assert_int_eq(o->ref, 0);
    o = option(&p->update, "beta");
    ck_assert_int_eq(o->kind, PLAN_VALUE_PARAM);
    ck_assert_int_eq(o->ref, 0);
    o = option(&p->update, "intercept");
    ck_assert_int_eq(o->kind, PLAN_VALUE_PARAM);
    ck_assert_int_eq(o->ref, 1);
    o = option(&p->update, "r");
    ck_assert_int_eq(o->kind, PLAN_VALUE_PARAM);
    ck_assert_int_eq(o->ref, 2);
    o = option(&p->update, "within");
    ck_assert_int_eq(o->kind, PLAN_VALUE_STR);
    ck_assert_str_eq(o->str, "sequential");
    ck_assert(p->objective.present);
    ck_assert_str_eq(p->objective.builtin, "lasso_objective");
    o = option(&p->objective, "intercept");
    ck_assert_int_eq(o->kind, PLAN_VALUE_PARAM);
    ck_assert_int_eq(o->ref, 1);
    ck_assert_int_eq(p->objective.every, 1);
    ck_assert_int_eq(p->objective.every_unit, PLAN_UNIT_SWEEPS);

    /* sweeps >= 100 or rel_change(objective) < 1e-7 or seconds > 10m */
    ck_assert(p->has_stop);
    ck_assert_double_eq(eval_stop(&p->stop, 5, 100, 0, 1, 1), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 5, 99, 0, 1, 1), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 5, 99, 0, 1, 1e-8), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 5, 99, 600, 1, 1), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 5, 99, 600.5, 1, 1), 1);

    ck_assert_uint_eq(p->noutputs, 2);
    ck_assert_int_eq(p->outputs[0].param, 0);
    ck_assert_str_eq(p->outputs[0].path, "beta.tsv");
    ck_assert_str_eq(p->outputs[0].format, "tsv");
    ck_assert_int_eq(p->outputs[1].param, 1);
    ck_assert_str_eq(p->outputs[1].path, "b.tsv");
    ck_assert_uint_eq(p->seed, 1);
}

/* lasso_lua.ptm: the Lua update, and the dependency lasso.ptm no longer needs */
static void chk_lasso_lua(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->job, "lasso_lua");
    ck_assert(p->update.present && p->update.lua);
    ck_assert_uint_eq(p->nblocksets, 1);
    const struct plan_blockset *b = &p->blocksets[0];
    ck_assert_str_eq(b->name, "coef");
    ck_assert_int_eq(b->depend, PLAN_DEPEND_PRED);
    ck_assert_uint_eq(b->pred.nvars, 2);
    /* |cos| of the columns of X (see X_cols), against 0.3:
     * (1,2) 0.999 -> 1; (1,3) 4/sqrt(60) -> 1; (1,4) 0 -> 0;
     * (2,3) 8/sqrt(256.5) -> 1; (2,4) 0.5/sqrt(513) = 0.022 -> 0; (3,4) 0 -> 0. */
    static const struct {
        int i, j;
        double want;
    } pairs[] = {{1, 2, 1}, {1, 3, 1}, {1, 4, 0}, {2, 3, 1}, {2, 4, 0}, {3, 4, 0}};
    for (size_t k = 0; k < PTM_ARRAY_LEN(pairs); k++) {
        struct fake f = {0};
        double v = eval(&b->pred, NULL, pairs[k].i, pairs[k].j, &f);
        ck_assert_msg(v == pairs[k].want, "pred(%d, %d) = %g", pairs[k].i, pairs[k].j, v);
        ck_assert_int_eq(f.corr_calls, 1);
        ck_assert_int_eq(f.corr_a, 0);
        ck_assert_int_eq(f.corr_b, 0);
        ck_assert_int_eq(f.corr_i, pairs[k].i);
        ck_assert_int_eq(f.corr_j, pairs[k].j);
        /* and the same with i and j exchanged: the predicate is symmetric */
        ck_assert(eval(&b->pred, NULL, pairs[k].j, pairs[k].i, &f) == pairs[k].want);
    }
    ck_assert_int_eq(p->schedule.policy, PLAN_POLICY_DYNAMIC);
    ck_assert(p->schedule.active && !p->schedule.keep_all);
    /* keep moved, whose pipeline is 0 */
    ck_assert(p->schedule.keep_moved);
    ck_assert_int_eq(p->schedule.pipeline, 0);
}

static void chk_mf(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->job, "mf");
    ck_assert_uint_eq(p->ndata, 2);
    ck_assert_int_eq(p->data[0].format, PLAN_FORMAT_MM);
    ck_assert_int_eq(p->data[0].shard, PLAN_SHARD_ROWS);
    ck_assert_uint_eq(p->nparams, 2);
    const struct plan_param *W = &p->params[0], *H = &p->params[1];
    ck_assert(W->matrix && H->matrix);
    assert_single(&W->dims[0], PROG_ROWS, 0);
    assert_const(&W->dims[1], 10);
    assert_single(&H->dims[0], PROG_COLS, 0);
    assert_const(&H->dims[1], 10);
    ck_assert_int_eq(W->init, PLAN_INIT_RANDOM);
    ck_assert_double_eq(W->init_value, 0.1);
    ck_assert_int_eq(W->shard_like, 0);
    ck_assert_int_eq(H->shard_like, -1);
    const struct plan_blockset *b = &p->blocksets[0];
    ck_assert_int_eq(b->param, 1);
    ck_assert_int_eq(b->axis, PLAN_AXIS_ROWS);
    ck_assert(b->into);
    assert_single(&b->count, PROG_GLOBAL, PROG_G_WORKERS);
    ck_assert_int_eq(b->depend, PLAN_DEPEND_NONE);
    ck_assert(!b->has_priority && !b->has_cost);
    ck_assert_int_eq(p->schedule.policy, PLAN_POLICY_ROTATION);
    ck_assert_int_eq(p->schedule.over, 0);
    ck_assert_str_eq(p->update.builtin, "mf_sgd");
    ck_assert_double_eq(option(&p->update, "rate")->num, 0.2);
    ck_assert_double_eq(option(&p->update, "decay")->num, 1); /* the default */
    ck_assert_double_eq(option(&p->update, "reg")->num, 0.05);
    ck_assert_str_eq(option(&p->update, "step")->str, "adaptive");
    ck_assert_str_eq(option(&p->update, "penalty")->str, "total");
    ck_assert_int_eq(option(&p->update, "H")->ref, 1);
    ck_assert_str_eq(p->objective.builtin, "rmse");
    ck_assert_int_eq(option(&p->objective, "test")->kind, PLAN_VALUE_DATA);
    ck_assert_int_eq(option(&p->objective, "test")->ref, 1);
    ck_assert_int_eq(p->objective.every, 1);
    ck_assert_int_eq(p->objective.every_unit, PLAN_UNIT_SWEEPS);
    /* sweeps >= 30 or seconds > 5m */
    ck_assert_double_eq(eval_stop(&p->stop, 0, 29, 300, 0, 0), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 29, 301, 0, 0), 1);
    ck_assert_uint_eq(p->noutputs, 2);
    ck_assert_int_eq(p->outputs[1].param, 1);
    ck_assert_str_eq(p->outputs[1].path, "H.tsv");
}

static void chk_lda(const struct ptm_plan *p)
{
    const struct plan_data *D = &p->data[0];
    ck_assert_int_eq(D->format, PLAN_FORMAT_UCI);
    ck_assert(D->integer && D->sparse && D->matrix);
    ck_assert_str_eq(D->vocab, "data/vocab.txt");
    const struct plan_param *nwk = &p->params[0], *nk = &p->params[1];
    ck_assert(nwk->integer && nwk->matrix);
    assert_single(&nwk->dims[0], PROG_COLS, 0);
    assert_const(&nwk->dims[1], 100);
    ck_assert(nk->integer && !nk->matrix);
    ck_assert_int_eq(nwk->cons, PLAN_CONS_SSP);
    ck_assert_int_eq(nwk->staleness, 0);
    ck_assert_int_eq(nk->cons, PLAN_CONS_SSP);
    ck_assert_int_eq(nk->staleness, 1);
    ck_assert_str_eq(p->update.builtin, "lda_gibbs");
    const struct plan_option *o = option(&p->update, "sampler");
    ck_assert_int_eq(o->kind, PLAN_VALUE_STR);
    ck_assert_str_eq(o->str, "dense");
    ck_assert_double_eq(option(&p->update, "alpha")->num, 0.1);
    ck_assert_int_eq(option(&p->update, "nk")->ref, 1);
    ck_assert_int_eq(p->objective.every, 5);
    ck_assert_int_eq(p->objective.every_unit, PLAN_UNIT_SWEEPS);
}

static void chk_logreg(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->schedule.policy, PLAN_POLICY_DATA_PARALLEL);
    ck_assert_int_eq(p->schedule.over, -1);
    ck_assert_int_eq(p->schedule.minibatch, 1000);
    ck_assert_uint_eq(p->nblocksets, 0);
    ck_assert_int_eq(p->params[0].cons, PLAN_CONS_SSP);
    ck_assert_int_eq(p->params[0].staleness, 2);
    ck_assert_double_eq(option(&p->update, "rate")->num, 0.5);
    ck_assert_double_eq(option(&p->update, "l2")->num, 1e-4);
    ck_assert_double_eq(option(&p->update, "decay")->num, 1);
    ck_assert_str_eq(p->objective.builtin, "logloss");
    ck_assert_int_eq(p->objective.every_unit, PLAN_UNIT_SWEEPS);
    /* sweeps >= 20 or rel_change(objective) < 1e-6 */
    ck_assert_double_eq(eval_stop(&p->stop, 0, 19, 0, 0, 2e-6), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 19, 0, 0, 5e-7), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 20, 0, 0, 2e-6), 1);
    ck_assert_str_eq(option(&p->update, "method")->str, "sgd");
}

/* examples/logreg/logreg.ptm: the default method, trust-region Newton */
static void chk_logreg_tron(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->schedule.policy, PLAN_POLICY_DATA_PARALLEL);
    ck_assert_str_eq(option(&p->update, "method")->str, "tron");
    ck_assert_double_eq(option(&p->update, "l2")->num, 1e-4);
    ck_assert_int_eq(option(&p->update, "intercept")->kind, PLAN_VALUE_PARAM);
    /* sweeps >= 20 or rel_change(objective) < 1e-9 */
    ck_assert_double_eq(eval_stop(&p->stop, 0, 19, 0, 0, 2e-9), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 19, 0, 0, 5e-10), 1);
}

/* Defaults: seed 1, bsp everywhere, dynamic's options, no objective. */
static void chk_defaults(const struct ptm_plan *p)
{
    ck_assert_uint_eq(p->seed, 1);
    ck_assert_int_eq(p->cons, PLAN_CONS_SSP);
    ck_assert_int_eq(p->staleness, 0);
    for (uint32_t i = 0; i < p->nparams; i++) {
        ck_assert_int_eq(p->params[i].cons, PLAN_CONS_SSP);
        ck_assert_int_eq(p->params[i].staleness, 0);
    }
    const struct plan_schedule *s = &p->schedule;
    ck_assert_int_eq(s->policy, PLAN_POLICY_DYNAMIC);
    ck_assert_int_eq(s->sample, 256);
    ck_assert(!s->keep_all);
    ck_assert_int_eq(s->warmup, 1);
    ck_assert_int_eq(s->warmup_unit, PLAN_UNIT_SWEEPS);
    ck_assert(s->balance);
    ck_assert_int_eq(s->pipeline, 1);
    ck_assert(!p->objective.present);
    ck_assert_ptr_null(p->checkpoint.dir); /* no checkpoints unless asked for */
    ck_assert_str_eq(p->base_dir, tdir);
}

/* schedule dynamic { sample 8, keep all, warmup 2 rounds, balance false, pipeline 0 } */
static void chk_dynamic_options(const struct ptm_plan *p)
{
    const struct plan_schedule *s = &p->schedule;
    ck_assert_int_eq(s->sample, 8);
    ck_assert(s->keep_all);
    ck_assert_int_eq(s->warmup, 2);
    ck_assert_int_eq(s->warmup_unit, PLAN_UNIT_ROUNDS);
    ck_assert(!s->balance);
    ck_assert_int_eq(s->pipeline, 0);
}

/* A job-wide model, and a parameter with its own. */
static void chk_consistency(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->cons, PLAN_CONS_SSP);
    ck_assert_int_eq(p->staleness, 3);
    ck_assert_int_eq(p->params[0].cons, PLAN_CONS_ASYNC); /* beta: its own */
    ck_assert_int_eq(p->params[1].cons, PLAN_CONS_SSP);   /* r: the job's */
    ck_assert_int_eq(p->params[1].staleness, 3);
}

static void chk_async(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->cons, PLAN_CONS_ASYNC);
    ck_assert_int_eq(p->params[0].cons, PLAN_CONS_ASYNC);
    ck_assert_int_eq(p->params[1].cons, PLAN_CONS_SSP); /* its own bsp */
    ck_assert_int_eq(p->params[1].staleness, 0);
    ck_assert_uint_eq(p->seed, 42);
}

/* const k = 2 * 3 + 1; vector[k * 2 + min(1, 2)]: one CONST 15;
 * const e = 2 ^ 10 % 7 + abs(-3) + sqrt(16) + exp(0) + log(1) = 2 + 8 = 10 */
static void chk_folding(const struct ptm_plan *p)
{
    ck_assert_double_eq(p->consts[0].num, 7);
    ck_assert_double_eq(p->consts[1].num, 10);
    assert_const(&p->params[0].dims[0], 15);
    ck_assert_double_eq(p->params[0].init_value, -10);
    assert_const(&p->blocksets[0].count, 3);
    ck_assert_int_eq(p->schedule.per_round, 10);
    ck_assert_int_eq(p->seed, 70);
}

/* --set n=5 name=other: dims, counts and the string follow. */
static void chk_set(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->consts[0].name, "n");
    ck_assert_double_eq(p->consts[0].num, 5);
    ck_assert(p->consts[1].is_str);
    ck_assert_str_eq(p->consts[1].str, "other words");
    ck_assert_double_eq(p->consts[2].num, 10); /* m = n * 2, after --set */
    assert_const(&p->params[0].dims[0], 10);
    ck_assert_int_eq(p->schedule.per_round, 5);
    ck_assert_double_eq(eval_stop(&p->stop, 9, 0, 0, 0, 0), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 10, 0, 0, 0, 0), 1);
}

/* --set of options: they replace the job's or are added, the last wins. */
static void chk_set_options(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->schedule.sample, 77);
    ck_assert(p->schedule.keep_all);
    ck_assert(p->schedule.active);
    const struct plan_hook *u = &p->update;
    for (uint32_t i = 0; i < u->noptions; i++) {
        if (strcmp(u->options[i].key, "lambda") == 0)
            ck_assert_double_eq(u->options[i].num, 0.5); /* the const's value: --set lambda */
        if (strcmp(u->options[i].key, "within") == 0)
            ck_assert_str_eq(u->options[i].str, "sequential");
    }
    for (uint32_t i = 0; i < p->objective.noptions; i++)
        if (strcmp(p->objective.options[i].key, "lambda") == 0)
            ck_assert_double_eq(p->objective.options[i].num, 0.25);
}

/* --set n=3 n=4: the last wins; a duration for a number. */
static void chk_set_last(const struct ptm_plan *p)
{
    ck_assert_double_eq(p->consts[0].num, 90);
    ck_assert(p->consts[1].is_str);
    ck_assert_str_eq(p->consts[1].str, "abc");
    assert_const(&p->params[0].dims[0], 180);
}

/* Durations are seconds: 250ms, 30s, 10m, 1.5h, 2d. */
static void chk_durations(const struct ptm_plan *p)
{
    static const double limits[] = {0.25, 30, 600, 5400, 172800};
    ck_assert_uint_eq(p->stop.nconsts, 5);
    for (int k = 0; k < 5; k++)
        ck_assert_double_eq(p->stop.consts[k], limits[k]);
    /* seconds > 250ms and rounds > 30s ... : see the row */
    ck_assert_double_eq(eval_stop(&p->stop, 0, 0, 0.25, 0, 0), 0);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 0, 0.3, 0, 0), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 31, 0, 0, 0, 0), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 601, 0, 0, 0), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 0, 0, 5401, 0), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 0, 0, 0, 0, 172801), 1);
    ck_assert_double_eq(eval_stop(&p->stop, 30, 600, 0.2, 5400, 172800), 0);
    ck_assert_int_eq(p->objective.every, 10);
}

/* depend when min(i, j) > 3 */
static void chk_min_pred(const struct ptm_plan *p)
{
    const struct prog *pred = &p->blocksets[0].pred;
    ck_assert_double_eq(eval(pred, NULL, 5, 4, NULL), 1);
    ck_assert_double_eq(eval(pred, NULL, 4, 5, NULL), 1);
    ck_assert_double_eq(eval(pred, NULL, 2, 9, NULL), 0);
    ck_assert_double_eq(eval(pred, NULL, 9, 3, NULL), 0);
}

/* depend when i + j == 5 or (i * j == 2 and not (i + j > 9)) */
static void chk_sum_pred(const struct ptm_plan *p)
{
    const struct prog *pred = &p->blocksets[0].pred;
    ck_assert_double_eq(eval(pred, NULL, 2, 3, NULL), 1);
    ck_assert_double_eq(eval(pred, NULL, 3, 2, NULL), 1);
    ck_assert_double_eq(eval(pred, NULL, 1, 2, NULL), 1);
    ck_assert_double_eq(eval(pred, NULL, 1, 3, NULL), 0);
    ck_assert_double_eq(eval(pred, NULL, 4, 4, NULL), 0);
}

static void chk_edges(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->blocksets[0].depend, PLAN_DEPEND_FILE);
    ck_assert_str_eq(p->blocksets[0].edges, "edges.txt");
}

/* blocks hb = H cols into 4 */
static void chk_blocks_cols(const struct ptm_plan *p)
{
    ck_assert_int_eq(p->blocksets[0].axis, PLAN_AXIS_COLS);
    ck_assert(p->blocksets[0].into);
    assert_const(&p->blocksets[0].count, 4);
}

/* Lua update with custom names, and an objective with its function. */
static void chk_lua_names(const struct ptm_plan *p)
{
    ck_assert(p->update.lua);
    ck_assert_str_eq(p->update.file, "ok.lua");
    ck_assert_str_eq(p->update.push, "mypush");
    ck_assert_str_eq(p->update.pull, "mypull");
    ck_assert(p->objective.lua);
    ck_assert_str_eq(p->objective.fn, "objective");
    ck_assert_int_eq(p->objective.every, 3);
    ck_assert_int_eq(p->objective.every_unit, PLAN_UNIT_ROUNDS);
}

/* The default names; pull kept because the file defines it. */
static void chk_lua_default(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->update.push, "push");
    ck_assert_str_eq(p->update.pull, "pull");
    ck_assert_ptr_null(p->update.fn);
}

/* pull is optional: the file has none and the job names none. */
static void chk_lua_no_pull(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->update.push, "push");
    ck_assert_ptr_null(p->update.pull);
}

/* save and load by their default names, the update's and the
 * objective's in a file of its own. */
static void chk_lua_state(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->update.save, "save");
    ck_assert_str_eq(p->update.load, "load");
    ck_assert_str_eq(p->objective.save, "save");
    ck_assert_str_eq(p->objective.load, "load");
}

/* save and load named; the objective in the update's file has none of
 * its own (the update's state holds it). */
static void chk_lua_state_named(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->update.save, "keep");
    ck_assert_str_eq(p->update.load, "give");
    ck_assert_ptr_null(p->objective.save);
    ck_assert_ptr_null(p->objective.load);
}

/* A string const from a string const. */
/* checkpoint every period * 2 + 1s to "ckpt", period = 2m: seconds */
static void chk_checkpoint_seconds(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->checkpoint.dir, "ckpt");
    ck_assert_double_eq(p->checkpoint.seconds, 241);
    ck_assert_int_eq(p->checkpoint.every, 0);
}

/* checkpoint every 10 sweeps to "/tmp/c" */
static void chk_checkpoint_sweeps(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->checkpoint.dir, "/tmp/c");
    ck_assert_int_eq(p->checkpoint.every, 10);
    ck_assert_int_eq(p->checkpoint.every_unit, PLAN_UNIT_SWEEPS);
    ck_assert_double_eq(p->checkpoint.seconds, 0);
}

/* checkpoint every n + 1 rounds to "out/ckpt", n = 2: a constant count; the
 * directory kept as written (relative to where the run is, not base_dir) */
static void chk_checkpoint_rounds(const struct ptm_plan *p)
{
    ck_assert_str_eq(p->checkpoint.dir, "out/ckpt");
    ck_assert_int_eq(p->checkpoint.every, 3);
    ck_assert_int_eq(p->checkpoint.every_unit, PLAN_UNIT_ROUNDS);
    ck_assert_double_eq(p->checkpoint.seconds, 0);
}

/* corr() or cos() of column j of data 0 (X) and the vector y (data 1), in
 * the order y_first says: y's index is the constant 1, pushed where y
 * stands. */
static void assert_col_vs_vector(const struct prog *p, enum prog_op op, bool y_first)
{
    ck_assert_uint_eq(p->ncode, 3);
    const struct prog_insn *x = &p->code[y_first ? 1 : 0], *k = &p->code[y_first ? 0 : 1];
    ck_assert_int_eq(x->op, PROG_VAR);
    ck_assert_int_eq(x->a, 0);
    ck_assert_int_eq(k->op, PROG_CONST);
    ck_assert_double_eq(p->consts[k->a], 1);
    ck_assert_int_eq(p->code[2].op, op);
    ck_assert_int_eq(p->code[2].a, y_first ? 1 : 0);
    ck_assert_int_eq(p->code[2].b, y_first ? 0 : 1);
    /* the run gets (a, i, b, j) as the operands and indices say */
    struct fake f = {0};
    eval(p, NULL, 3, 0, &f);
    ck_assert_int_eq(f.corr_calls, 1);
    ck_assert_int_eq(f.corr_a, y_first ? 1 : 0);
    ck_assert_int_eq(f.corr_i, y_first ? 1 : 3);
    ck_assert_int_eq(f.corr_b, y_first ? 0 : 1);
    ck_assert_int_eq(f.corr_j, y_first ? 3 : 1);
}

/* order coef(j) = cos(col(X, j), y) */
static void chk_order_cos(const struct ptm_plan *p)
{
    const struct plan_blockset *b = &p->blocksets[0];
    ck_assert(b->has_order && b->has_priority && b->has_cost);
    ck_assert_uint_eq(b->order.nvars, 1);
    assert_col_vs_vector(&b->order, PROG_COS, false);
    ck_assert(p->schedule.active);
}

/* cost coef(j) = corr(y, col(X, j)) */
static void chk_corr_vector(const struct ptm_plan *p)
{
    const struct plan_blockset *b = &p->blocksets[0];
    ck_assert(b->has_cost && !b->has_order);
    assert_col_vs_vector(&b->cost, PROG_CORR, true);
}

static void chk_string_const(const struct ptm_plan *p)
{
    ck_assert(p->consts[0].is_str && p->consts[1].is_str);
    ck_assert_str_eq(p->consts[1].str, "train.svm");
}

struct accept_row {
    const char *path; /* an example, or NULL for a skeleton row */
    enum base base;
    const char *key, *text, *sets;
    void (*check)(const struct ptm_plan *p);
};

/* clang-format off */
static const struct accept_row accept_rows[] = {
    {"examples/lasso/lasso.ptm", WHOLE, NULL, NULL, NULL, chk_lasso},
    {"examples/lasso/lasso_lua.ptm", WHOLE, NULL, NULL, NULL, chk_lasso_lua},
    {"examples/mf/mf.ptm", WHOLE, NULL, NULL, NULL, chk_mf},
    {"examples/lda/lda.ptm", WHOLE, NULL, NULL, NULL, chk_lda},
    {"examples/logreg/logreg_ssp.ptm", WHOLE, NULL, NULL, NULL, chk_logreg},
    {"examples/logreg/logreg.ptm", WHOLE, NULL, NULL, NULL, chk_logreg_tron},
    {NULL, WHOLE, NULL,
     "job t\n"
     "data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
     "param beta : vector[cols(X)]\n"
     "param w : matrix[rows(X), 3]\n"
     "blocks coef = beta\n"
     "schedule dynamic\n"
     "update lua \"ok.lua\"\n"
     "stop when rounds > 10\n", NULL, chk_defaults},
    {NULL, LASSO, "schedule",
     "schedule dynamic { sample 8, keep all, warmup 2 rounds, balance false, pipeline 0 }", NULL,
     chk_dynamic_options},
    {NULL, LASSO, "param beta", "consistency ssp 3\nparam beta : vector[cols(X)] = 0 consistency async",
     NULL, chk_consistency},
    {NULL, LASSO, "param r", "param r : vector[rows(X)] = y consistency bsp\n"
                             "consistency async\nseed 42", NULL, chk_async},
    {NULL, WHOLE, NULL,
     "job t\n"
     "const k = 2 * 3 + 1\n"
     "const e = 2 ^ 10 % 7 + abs(-3) + sqrt(16) + exp(0) + log(1)\n"
     "param p : vector[k * 2 + min(1, 2)] = -e\n"
     "blocks b = p into max(2, 3)\n"
     "schedule round_robin { per_round e }\n"
     "update lua \"ok.lua\"\n"
     "stop when rounds >= k\n"
     "seed e * k\n", NULL, chk_folding},
    {NULL, WHOLE, NULL,
     "job t\n"
     "const n = 10\n"
     "const name = \"abc\"\n"
     "const m = n * 2\n"
     "param p : vector[m]\n"
     "blocks b = p\n"
     "schedule round_robin { per_round n }\n"
     "update lua \"ok.lua\"\n"
     "stop when rounds >= m\n", "n=5\nname=other words", chk_set},
    {NULL, WHOLE, NULL,
     "job t\n"
     "const n = 10\n"
     "const name = \"abc\"\n"
     "param p : vector[n * 2]\n"
     "blocks b = p\n"
     "schedule round_robin\n"
     "update lua \"ok.lua\"\n"
     "stop when rounds >= n\n", "n=3\nn=abc\nn=1.5m", chk_set_last},
    {NULL, LASSO, NULL, "",
     "schedule.sample=10\nupdate.within=sequential\nschedule.sample=77\nschedule.keep=all\n"
     "schedule.active=\nupdate.lambda=lambda\nlambda=0.5\nobjective.lambda=0.25", chk_set_options},
    {NULL, LASSO, "stop",
     "stop when seconds > 250ms or rounds > 30s or sweeps > 10m or objective > 1.5h or "
     "rel_change(objective) > 2d", NULL, chk_durations},
    {NULL, LASSO, "depend", "depend coef(i), coef(j) when min(i, j) > 3", NULL, chk_min_pred},
    {NULL, LASSO, "depend", "depend coef(i), coef(j) when i + j == 5 or (i * j == 2 and not (i + j > 9))",
     NULL, chk_sum_pred},
    {NULL, LASSO, "depend", "depend coef from \"edges.txt\"", NULL, chk_edges},
    {NULL, WHOLE, NULL,
     "job t\n"
     "param H : matrix[10, 3]\n"
     "blocks hb = H cols into 4\n"
     "schedule round_robin over hb\n"
     "update lua \"ok.lua\"\n"
     "stop when rounds >= 3\n", NULL, chk_blocks_cols},
    {NULL, MINI, "update", "update lua \"ok.lua\" { push = \"mypush\", pull = \"mypull\" }\n"
                           "objective lua \"ok.lua\" every 3", NULL, chk_lua_names},
    {NULL, MINI, "update", "update lua \"ok.lua\"", NULL, chk_lua_default},
    {NULL, MINI, "update", "update lua \"pushonly.lua\"", NULL, chk_lua_no_pull},
    {NULL, MINI, "update", "update lua \"meta.lua\"", NULL, chk_lua_no_pull},
    {NULL, MINI, "update", "update lua \"state.lua\"\nobjective lua \"objstate.lua\"", NULL,
     chk_lua_state},
    {NULL, MINI, "update", "update lua \"state.lua\" { save = \"keep\", load = \"give\" }\n"
                           "objective lua \"state.lua\"", NULL, chk_lua_state_named},
    {NULL, MINI, "param", "const f = \"train.svm\"\nconst g = f\nparam p : vector[8]", NULL,
     chk_string_const},
    {NULL, LASSO, "schedule", "order coef(j) = cos(col(X, j), y)\nschedule dynamic { active }",
     NULL, chk_order_cos},
    {NULL, LASSO, "cost", "cost coef(j) = corr(y, col(X, j))", NULL, chk_corr_vector},
    {NULL, LASSO, NULL, "const period = 2m\ncheckpoint every period * 2 + 1s to \"ckpt\"", NULL,
     chk_checkpoint_seconds},
    {NULL, LASSO, NULL, "checkpoint every 10 sweeps to \"/tmp/c\"", NULL, chk_checkpoint_sweeps},
    {NULL, MINI, "param", "const n = 2\nparam p : vector[8]\ncheckpoint every n + 1 rounds to "
                          "\"out/ckpt\"", NULL, chk_checkpoint_rounds},
};
/* clang-format on */

START_TEST(test_accept)
{
    const struct accept_row *r = &accept_rows[_i];
    char *text = r->path ? read_or_fail(r->path) : job_text(r->base, r->key, r->text);
    struct outcome o = run_job(text, r->sets, true, NULL);
    ck_assert_msg(o.rc == 0, "row %d: rc %d:\n%s", _i, o.rc, o.diags);
    ck_assert_str_eq(o.diags, "");
    ck_assert_ptr_nonnull(o.plan);
    r->check(o.plan);
    plan_free(o.plan);
    free(o.diags);
    free(text);
}
END_TEST

/* ---- keep's default ------------------------------------------------------- */

/* Without `keep` or `pipeline`, a dynamic schedule with a dependency over
 * lasso_cd computing a round together takes `keep moved` (and pipeline
 * 0); every other job `keep independent` (and pipeline 1). */
static const struct {
    const char *key, *text, *sets;
    bool moved;
    int64_t pipeline;
} keep_rows[] = {
    {"schedule", "schedule dynamic { sample 256 }", NULL, true, 0},
    {"update", "update builtin lasso_cd { lambda = lambda, within = parallel }", NULL, true, 0},
    {"update", "update builtin lasso_cd { lambda = lambda, within = sequential }", NULL, false, 1},
    {"schedule", "schedule dynamic { sample 256, keep independent }", NULL, false, 1},
    {"schedule", "schedule dynamic { sample 256, pipeline 1 }", NULL, false, 1},
    {"schedule", "schedule dynamic { sample 256, pipeline 0 }", NULL, false, 0},
    {"schedule", "schedule dynamic { sample 256 }", "schedule.keep=independent", false, 1},
    {"schedule", "schedule dynamic { sample 256 }", "schedule.pipeline=2", false, 2},
    {"schedule", "schedule dynamic { sample 256, keep moved }", NULL, true, 0},
    {"depend", "", NULL, false, 1},
    {"schedule", "schedule dynamic { sample 256, keep all }", NULL, false, 1},
};

START_TEST(test_keep_default)
{
    for (size_t k = 0; k < PTM_ARRAY_LEN(keep_rows); k++) {
        char *text = job_text(LASSO, keep_rows[k].key, keep_rows[k].text);
        struct outcome o = run_job(text, keep_rows[k].sets, true, NULL);
        ck_assert_msg(o.rc == 0, "row %zu: rc %d:\n%s", k, o.rc, o.diags);
        ck_assert_msg(o.plan->schedule.keep_moved == keep_rows[k].moved &&
                          o.plan->schedule.pipeline == keep_rows[k].pipeline,
                      "row %zu (%s, %s): keep moved %d, pipeline %lld", k, keep_rows[k].text,
                      keep_rows[k].sets ? keep_rows[k].sets : "", o.plan->schedule.keep_moved,
                      (long long)o.plan->schedule.pipeline);
        plan_free(o.plan);
        free(o.diags);
        free(text);
    }
}
END_TEST

/* ---- the parts of a stop rule -------------------------------------------- */

/* The stop rule's program of `stop when text` in the Lasso skeleton (it
 * has an objective). Caller frees o->plan. */
static const struct prog *stop_prog(const char *text, struct outcome *o)
{
    char line[512];
    snprintf(line, sizeof(line), "stop when %s", text);
    char *job = job_text(LASSO, "stop", line);
    *o = run_job(job, NULL, true, NULL);
    ck_assert_msg(o->rc == 0, "%s:\n%s", text, o->diags);
    free(o->diags);
    free(job);
    return &o->plan->stop;
}

static const struct {
    const char *rule;
    unsigned nparts;
    const char *part[4]; /* each compiled on its own is the part */
} or_rows[] = {
    {"sweeps >= 100 or rel_change(objective) < 1e-7 or seconds > 10m", 3,
     {"sweeps >= 100", "rel_change(objective) < 1e-7", "seconds > 10m"}},
    {"(sweeps >= 3 or rounds > 7) and seconds > 1", 1, {0}},
    {"sweeps >= 3 and (rounds > 7 or seconds > 1)", 1, {0}},
    {"sweeps >= 3 and rounds > 7 or seconds > 1", 2, {"sweeps >= 3 and rounds > 7", "seconds > 1"}},
    {"sweeps >= 3 or (rounds > 7 and (seconds > 1 or objective < 2))", 2,
     {"sweeps >= 3", "rounds > 7 and (seconds > 1 or objective < 2)"}},
    {"sweeps >= 3 or (rounds > 7 or seconds > 1)", 2, {"sweeps >= 3", "rounds > 7 or seconds > 1"}},
    {"(sweeps >= 3 or rounds > 7) or seconds > 1", 3, {"sweeps >= 3", "rounds > 7", "seconds > 1"}},
    {"not (sweeps >= 3 or rounds > 7)", 1, {0}},
    {"sweeps >= 2 * 3 or objective < 1 + 1 or rounds > 5", 3,
     {"sweeps >= 6", "objective < 2", "rounds > 5"}},
};

/* prog_or_parts() cuts at the top-level `or`s, each part evaluates as the
 * same text compiled alone, and the parts' `or` is the rule, on a grid of
 * counters. */
START_TEST(test_stop_or_parts)
{
    struct outcome o;
    const struct prog *p = stop_prog(or_rows[_i].rule, &o);
    uint32_t begin[PROG_MAX_OR_PARTS], stop[PROG_MAX_OR_PARTS];
    uint32_t n = prog_or_parts(p, begin, stop, PROG_MAX_OR_PARTS);
    ck_assert_uint_eq(n, or_rows[_i].nparts);
    ck_assert_uint_eq(begin[0], 0);
    ck_assert_uint_eq(stop[n - 1], p->ncode);
    static const double sw[] = {0, 3, 7}, rd[] = {0, 8}, sec[] = {0, 2, 700}, ob[] = {1, 5},
                        rc[] = {1e-9, 1};
    for (unsigned a = 0; a < 3; a++)
        for (unsigned b = 0; b < 2; b++)
            for (unsigned c = 0; c < 3; c++)
                for (unsigned d = 0; d < 2; d++)
                    for (unsigned e = 0; e < 2; e++) {
                        double g[PROG_NGLOBALS] = {0};
                        g[PROG_G_SWEEPS] = sw[a];
                        g[PROG_G_ROUNDS] = rd[b];
                        g[PROG_G_SECONDS] = sec[c];
                        g[PROG_G_OBJECTIVE] = ob[d];
                        g[PROG_G_REL_CHANGE] = rc[e];
                        g[PROG_G_WORKERS] = 4;
                        struct prog_env env = {.globals = g};
                        bool any = false;
                        for (uint32_t k = 0; k < n; k++) {
                            double v = prog_eval_part(p, begin[k], stop[k], &env);
                            any = any || v != 0;
                            if (n > 1) {
                                struct outcome q;
                                const struct prog *alone = stop_prog(or_rows[_i].part[k], &q);
                                ck_assert_double_eq(v, prog_eval(alone, &env));
                                plan_free(q.plan);
                            }
                        }
                        ck_assert_int_eq(any, prog_eval(p, &env) != 0);
                    }
    /* fewer parts asked for: the first holds the rest */
    if (n > 2) {
        ck_assert_uint_eq(prog_or_parts(p, begin, stop, 2), 2);
        ck_assert_uint_eq(begin[0], 0);
        ck_assert_uint_eq(stop[1], p->ncode);
    }
    plan_free(o.plan);
}
END_TEST

/* ---- 3. allocation failure ---------------------------------------------- */

struct fault_row {
    const char *path; /* an example, or NULL */
    enum base base;
    const char *key, *text, *sets;
};

/* clang-format off */
static const struct fault_row fault_rows[] = {
    {"examples/lasso/lasso.ptm", WHOLE, NULL, NULL, NULL},
    {"examples/lda/lda.ptm", WHOLE, NULL, NULL, NULL},
    {"examples/logreg/logreg.ptm", WHOLE, NULL, NULL, NULL},
    {"examples/logreg/logreg_ssp.ptm", WHOLE, NULL, NULL, NULL},
    {"examples/mf/mf.ptm", WHOLE, NULL, NULL, "rank=8"},
    {NULL, LASSO, NULL, "checkpoint every 10 sweeps to \"ckpt\"", NULL},
    {NULL, LASSO, NULL, "checkpoint every 5 minits to \"\"\ncheckpoint every 5m to \"beta.tsv\"", NULL},
    /* Lua hooks: every allocation of the Lua state goes through ptm_realloc. */
    {NULL, MINI, "update", "update lua \"ok.lua\" { push = \"mypush\" }\nobjective lua \"ok.lua\"", NULL},
    {NULL, MINI, "update", "update lua \"syntax.lua\"\nobjective lua \"nopush.lua\"", NULL},
    /* errors everywhere, with notes and suggestions */
    {NULL, WHOLE, NULL,
     "job t\n"
     "const a = b + 1\n"
     "const lambda = 0.001\n"
     "data X : sparse matrix[3] from \"x.dat\" format libsvn shard rows\n"
     "data y : dense matrix from labels(X) format csv\n"
     "param beta : sparse vector[cols(Z)] = random(-1) consistency ssp -1 shard rows\n"
     "param beta : vector[3]\n"
     "blocks coef = bta diag each 0\n"
     "depend coef(i), coef(j) when i < j\n"
     "priority coef(workers) = delta(X[1])\n"
     "cost coef(j) = beta[j] + rounds\n"
     "schedule dynamc { sampl 3 }\n"
     "update builtin laso_cd { lamda = 1 }\n"
     "objective builtin rmse { test = X, test = y } every 0 hours\n"
     "stop when rouns > 3\n"
     "output bta to \"\"\n"
     "output X to \"o.tsv\" format csv\n"
     "seed -1\n", "lamda=1\nX=2\nlambda=x"},
    {NULL, LASSO, "schedule", "schedule dynamic over cof { sample 0, keep some, sampl 2 }", "zzz=1"},
    {NULL, LASSO, "schedule", "order coef(j) = abs(cos(col(X, j), y))\nschedule dynamic { active }",
     NULL},
};
/* clang-format on */

/* Parse and compile with the nth allocation failing, for n = 1, 2, ...
 * until a run makes fewer than n allocations. A run that hit the failure
 * gives PTM_ENOMEM, or PTM_ESYNTAX when only a message was lost, and no
 * plan; a run that did not gives what a run without injection gives.
 * Returns the number of runs that hit the failure. */
static unsigned long fault_loop(const char *text, const char *sets_text)
{
    struct outcome want = run_job(text, sets_text, false, NULL);
    unsigned long n;
    for (n = 1;; n++) {
        ck_assert_msg(n < 200000, "the compile never finishes");
        struct ptm_set sets[8];
        char names[8][64];
        unsigned nsets = split_sets(sets_text, sets, names, 8);
        struct ptm_source src;
        ck_assert_int_eq(ptm_source_from(&src, "t.ptm", text, strlen(text)), 0);
        struct arena arena;
        arena_init(&arena);
        struct ptm_diags diags;
        diag_init(&diags, &arena);
        struct ast_job *job = NULL;
        struct ptm_plan *plan = NULL;
        struct ptm_compile_opts opts = {
            .base_dir = tdir, .sets = sets, .nsets = nsets, .check_hooks = true};
        ptm_fault_inject(n);
        int rc = ptm_parse(&src, &arena, &diags, &job);
        if (rc == 0)
            rc = ptm_compile(&src, job, &opts, &diags, &plan);
        unsigned long calls = ptm_fault_inject(0);
        bool hit = calls >= n;

        char *msgs = NULL;
        size_t mlen;
        FILE *f = open_memstream(&msgs, &mlen);
        ptm_diags_render(f, &src, &diags, false);
        fclose(f);

        ck_assert_msg(rc == 0 || rc == PTM_ESYNTAX || rc == PTM_ENOMEM, "allocation %lu: rc %d", n,
                      rc);
        ck_assert_msg((rc == 0) == (plan != NULL), "allocation %lu: rc %d with plan %p", n, rc,
                      (void *)plan);
        if (hit) {
            ck_assert_msg(rc == PTM_ENOMEM || (rc == PTM_ESYNTAX && diags.oom),
                          "allocation %lu failed: rc %d, diags.oom %d\n%s", n, rc, diags.oom, msgs);
            if (diags.oom)
                ck_assert_ptr_nonnull(strstr(msgs, "out of memory while reporting errors"));
        } else {
            ck_assert_int_eq(rc, want.rc);
            ck_assert_str_eq(msgs, want.diags);
        }
        free(msgs);
        plan_free(plan);
        arena_release(&arena);
        ptm_source_release(&src);
        for (unsigned i = 0; i < nsets; i++)
            free((char *)sets[i].value);
        if (!hit)
            break;
    }
    free(want.diags);
    return n - 1;
}

START_TEST(test_fault)
{
    const struct fault_row *r = &fault_rows[_i];
    char *text = r->path ? read_or_fail(r->path) : job_text(r->base, r->key, r->text);
    unsigned long runs = fault_loop(text, r->sets);
    if (getenv("PTM_TEST_VERBOSE"))
        fprintf(stderr, "fault row %d (%.*s): %lu allocation points\n", _i,
                (int)strcspn(r->path ? r->path : r->text, "\n"), r->path ? r->path : r->text, runs);
    ck_assert_uint_ge(runs, 10);
    free(text);
}
END_TEST

/* ---- the suite ---------------------------------------------------------- */

#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))

static Suite *sem_suite(void)
{
    Suite *s = suite_create("sem");
    TCase *tc;

    tc = tcase_create("diagnostics");
    tcase_set_timeout(tc, 30); /* Lua bombs under sanitizers */
    add_rows(tc, test_sem, sem_rows);
    tcase_add_test(tc, test_sem_nul_const);
    tcase_add_test(tc, test_keep_default);
    tcase_add_loop_test(tc, test_stop_or_parts, 0, (int)PTM_ARRAY_LEN(or_rows));
    suite_add_tcase(s, tc);

    tc = tcase_create("accept");
    add_rows(tc, test_accept, accept_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_set_timeout(tc, 120);
    add_rows(tc, test_fault, fault_rows);
    suite_add_tcase(s, tc);

    return s;
}

static int write_lua_files(void)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(lua_files); i++) {
        char path[256];
        path_in_tdir(path, sizeof(path), lua_files[i].name);
        FILE *f = fopen(path, "wb");
        if (!f)
            return -1;
        for (const char *t = lua_files[i].text; *t;) { /* "@D@" is the directory */
            if (strncmp(t, "@D@", 3) == 0) {
                fputs(tdir, f);
                t += 3;
            } else {
                fputc(*t++, f);
            }
        }
        if (fclose(f) != 0)
            return -1;
    }
    return 0;
}

static void remove_lua_files(void)
{
    char path[256];
    for (size_t i = 0; i < PTM_ARRAY_LEN(lua_files); i++) {
        path_in_tdir(path, sizeof(path), lua_files[i].name);
        unlink(path);
    }
    for (size_t i = 0; i < PTM_ARRAY_LEN(markers); i++) {
        path_in_tdir(path, sizeof(path), markers[i]);
        unlink(path);
    }
    rmdir(tdir);
}

int main(void)
{
    snprintf(tdir, sizeof(tdir), "/tmp/ptm-sem.XXXXXX");
    if (!mkdtemp(tdir) || write_lua_files() != 0) {
        perror("test_sem: cannot set up the Lua files");
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(sem_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_lua_files();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
