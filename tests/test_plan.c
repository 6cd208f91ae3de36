/*
 * test_plan.c - the YAML form of the plan: round trips through the
 * compiler's examples, accepted and rejected plans with their whole
 * rendered diagnostics, values that must survive bit for bit, and
 * allocation failure in the loader and the writer.
 *
 * DESIGN: the rejected plans are the two emitted examples below (lasso and
 * mf, as ptm_plan_emit() wrote them) with one or two textual edits, so a
 * row says exactly what it breaks; each row holds the diagnostics as
 * ptm_diags_render() prints them for a file named "plan.yaml", byte for
 * byte. When a row fails, the actual text is printed to stderr as a C
 * literal ready to paste, after review. Inputs too big to write out (the
 * depth bombs, every truncation of a plan) are built at run time. The base
 * plans are kept here rather than produced by the compiler so that a
 * change in the compiler does not move every expected line number; the
 * round-trip tests and tests/golden/ cover the compiler's output.
 *
 * Run from the repository root (make test): the round trips read
 * examples/NAME/NAME.ptm and tests/golden/NAME.yaml. PTM_UPDATE_GOLDEN=1
 * rewrites the golden files for review.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "diag.h"
#include "plan.h"
#include "plan_load.h"
#include "plan_yaml.h"
#include "prog.h"
#include "ptm.h"
#include "testutil.h"

/* ---- the base plans ----------------------------------------------------- */

/* clang-format off */
/* The options of the lasso plan's update rule, up to its objective. */
#define LASSO_UPDATE_OPTIONS                                                                       \
    "  - key: \"lambda\"\n    num: 0.001\n  - key: \"X\"\n    data: 0\n"                         \
    "  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n  - key: \"r\"\n    param: 1\n" \
    "objective:"

static const char lasso_plan[] =
    "ptm_plan: 1\n"
    "job: \"lasso\"\n"
    "base_dir: \"examples/lasso\"\n"
    "seed: 1\n"
    "consts:\n"
    "- name: \"lambda\"\n"
    "  num: 0.001\n"
    "data:\n"
    "- name: \"X\"\n"
    "  format: libsvm\n"
    "  path: \"data/lasso.svm\"\n"
    "  matrix: true\n"
    "  sparse: true\n"
    "  integer: false\n"
    "  shard: rows\n"
    "- name: \"y\"\n"
    "  format: labels\n"
    "  labels_of: 0\n"
    "  matrix: false\n"
    "  sparse: false\n"
    "  integer: false\n"
    "  shard: rows\n"
    "params:\n"
    "- name: \"beta\"\n"
    "  matrix: false\n"
    "  integer: false\n"
    "  dims:\n"
    "  - max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: []\n"
    "    code:\n"
    "    - [cols, 0]\n"
    "  init: const\n"
    "  init_value: 0\n"
    "  consistency:\n"
    "    model: ssp\n"
    "    staleness: 0\n"
    "- name: \"r\"\n"
    "  matrix: false\n"
    "  integer: false\n"
    "  dims:\n"
    "  - max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: []\n"
    "    code:\n"
    "    - [rows, 0]\n"
    "  init: data\n"
    "  init_data: 1\n"
    "  shard_like: 0\n"
    "  consistency:\n"
    "    model: ssp\n"
    "    staleness: 0\n"
    "blocksets:\n"
    "- name: \"coef\"\n"
    "  param: 0\n"
    "  axis: elems\n"
    "  split: each\n"
    "  count:\n"
    "    max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: [1]\n"
    "    code:\n"
    "    - [const, 0]\n"
    "  depend: pred\n"
    "  pred:\n"
    "    max_stack: 2\n"
    "    nvars: 2\n"
    "    consts: [0.1]\n"
    "    code:\n"
    "    - [var, 0]\n"
    "    - [var, 1]\n"
    "    - [corr, 0, 0]\n"
    "    - [abs]\n"
    "    - [const, 0]\n"
    "    - [gt]\n"
    "  priority:\n"
    "    max_stack: 2\n"
    "    nvars: 1\n"
    "    consts: [0.0001]\n"
    "    code:\n"
    "    - [var, 0]\n"
    "    - [delta, 0, 1]\n"
    "    - [abs]\n"
    "    - [const, 0]\n"
    "    - [add]\n"
    "  cost:\n"
    "    max_stack: 1\n"
    "    nvars: 1\n"
    "    consts: []\n"
    "    code:\n"
    "    - [var, 0]\n"
    "    - [nnz_col, 0]\n"
    "schedule:\n"
    "  policy: dynamic\n"
    "  over: 0\n"
    "  sample: 256\n"
    "  keep: independent\n"
    "  warmup: 3\n"
    "  warmup_unit: sweeps\n"
    "  balance: true\n"
    "  pipeline: 1\n"
    "consistency:\n"
    "  model: ssp\n"
    "  staleness: 0\n"
    "update:\n"
    "  kind: builtin\n"
    "  builtin: \"lasso_cd\"\n"
    "  options:\n"
    "  - key: \"lambda\"\n"
    "    num: 0.001\n"
    "  - key: \"X\"\n"
    "    data: 0\n"
    "  - key: \"y\"\n"
    "    data: 1\n"
    "  - key: \"beta\"\n"
    "    param: 0\n"
    "  - key: \"r\"\n"
    "    param: 1\n"
    "objective:\n"
    "  kind: builtin\n"
    "  builtin: \"lasso_objective\"\n"
    "  options:\n"
    "  - key: \"lambda\"\n"
    "    num: 0.001\n"
    "  - key: \"X\"\n"
    "    data: 0\n"
    "  - key: \"y\"\n"
    "    data: 1\n"
    "  - key: \"beta\"\n"
    "    param: 0\n"
    "  - key: \"r\"\n"
    "    param: 1\n"
    "  every: 10\n"
    "  every_unit: rounds\n"
    "stop:\n"
    "  max_stack: 2\n"
    "  nvars: 0\n"
    "  consts: [100, 1e-07, 600]\n"
    "  code:\n"
    "  - [global, sweeps]\n"
    "  - [const, 0]\n"
    "  - [ge]\n"
    "  - [jtrue, 7]\n"
    "  - [global, rel_change]\n"
    "  - [const, 1]\n"
    "  - [lt]\n"
    "  - [jtrue, 11]\n"
    "  - [global, seconds]\n"
    "  - [const, 2]\n"
    "  - [gt]\n"
    "outputs:\n"
    "- param: 0\n"
    "  path: \"beta.tsv\"\n"
    "  format: tsv\n"
    "...\n";

static const char mf_plan[] =
    "ptm_plan: 1\n"
    "job: \"mf\"\n"
    "base_dir: \"examples/mf\"\n"
    "seed: 1\n"
    "consts:\n"
    "- name: \"rank\"\n"
    "  num: 20\n"
    "data:\n"
    "- name: \"R\"\n"
    "  format: mm\n"
    "  path: \"data/ratings.mtx\"\n"
    "  matrix: true\n"
    "  sparse: true\n"
    "  integer: false\n"
    "  shard: rows\n"
    "- name: \"T\"\n"
    "  format: mm\n"
    "  path: \"data/test.mtx\"\n"
    "  matrix: true\n"
    "  sparse: true\n"
    "  integer: false\n"
    "  shard: rows\n"
    "params:\n"
    "- name: \"W\"\n"
    "  matrix: true\n"
    "  integer: false\n"
    "  dims:\n"
    "  - max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: []\n"
    "    code:\n"
    "    - [rows, 0]\n"
    "  - max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: [20]\n"
    "    code:\n"
    "    - [const, 0]\n"
    "  init: random\n"
    "  init_value: 0.1\n"
    "  shard_like: 0\n"
    "  consistency:\n"
    "    model: ssp\n"
    "    staleness: 0\n"
    "- name: \"H\"\n"
    "  matrix: true\n"
    "  integer: false\n"
    "  dims:\n"
    "  - max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: []\n"
    "    code:\n"
    "    - [cols, 0]\n"
    "  - max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: [20]\n"
    "    code:\n"
    "    - [const, 0]\n"
    "  init: random\n"
    "  init_value: 0.1\n"
    "  consistency:\n"
    "    model: ssp\n"
    "    staleness: 0\n"
    "blocksets:\n"
    "- name: \"hb\"\n"
    "  param: 1\n"
    "  axis: rows\n"
    "  split: into\n"
    "  count:\n"
    "    max_stack: 1\n"
    "    nvars: 0\n"
    "    consts: []\n"
    "    code:\n"
    "    - [global, workers]\n"
    "  depend: none\n"
    "schedule:\n"
    "  policy: rotation\n"
    "  over: 0\n"
    "consistency:\n"
    "  model: ssp\n"
    "  staleness: 0\n"
    "update:\n"
    "  kind: builtin\n"
    "  builtin: \"mf_sgd\"\n"
    "  options:\n"
    "  - key: \"rate\"\n"
    "    num: 0.05\n"
    "  - key: \"decay\"\n"
    "    num: 0.95\n"
    "  - key: \"reg\"\n"
    "    num: 0.05\n"
    "  - key: \"R\"\n"
    "    data: 0\n"
    "  - key: \"W\"\n"
    "    param: 0\n"
    "  - key: \"H\"\n"
    "    param: 1\n"
    "objective:\n"
    "  kind: builtin\n"
    "  builtin: \"rmse\"\n"
    "  options:\n"
    "  - key: \"test\"\n"
    "    data: 1\n"
    "  - key: \"R\"\n"
    "    data: 0\n"
    "  - key: \"W\"\n"
    "    param: 0\n"
    "  - key: \"H\"\n"
    "    param: 1\n"
    "  every: 1\n"
    "  every_unit: sweeps\n"
    "stop:\n"
    "  max_stack: 2\n"
    "  nvars: 0\n"
    "  consts: [30, 300]\n"
    "  code:\n"
    "  - [global, sweeps]\n"
    "  - [const, 0]\n"
    "  - [ge]\n"
    "  - [jtrue, 7]\n"
    "  - [global, seconds]\n"
    "  - [const, 1]\n"
    "  - [gt]\n"
    "outputs:\n"
    "- param: 0\n"
    "  path: \"W.tsv\"\n"
    "  format: tsv\n"
    "- param: 1\n"
    "  path: \"H.tsv\"\n"
    "  format: tsv\n"
    "...\n";
/* clang-format on */

/* ---- helpers ------------------------------------------------------------ */




/* base with find replaced by repl; find must occur exactly once. */
static char *edit(const char *base, const char *find, const char *repl)
{
    const char *at = strstr(base, find);
    ck_assert_msg(at != NULL, "edit: '%s' not found", find);
    ck_assert_msg(strstr(at + 1, find) == NULL, "edit: '%s' found twice", find);
    size_t bl = strlen(base), fl = strlen(find), rl = strlen(repl);
    char *out = malloc(bl - fl + rl + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, base, (size_t)(at - base));
    memcpy(out + (at - base), repl, rl);
    strcpy(out + (at - base) + rl, at + fl);
    return out;
}

struct loaded {
    int rc;
    struct ptm_plan *plan; /* when rc is 0 */
    char *diags;           /* rendered, colorless */
    unsigned nerrors;
    char *yaml; /* the plan written again, "" when rejected */
};

static void loaded_free(struct loaded *r)
{
    plan_free(r->plan);
    free(r->diags);
    free(r->yaml);
}

/* Load text[0..len) named "plan.yaml"; render everything. */
static struct loaded load_text(const char *text, size_t len)
{
    struct loaded r = {0};
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "plan.yaml", text, len), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    r.rc = ptm_plan_load(&src, &diags, &r.plan);
    r.nerrors = diags.nerrors;
    size_t n;
    FILE *f = open_memstream(&r.diags, &n);
    ck_assert_ptr_nonnull(f);
    ptm_diags_render(f, &src, &diags, false);
    fclose(f);
    f = open_memstream(&r.yaml, &n);
    ck_assert_ptr_nonnull(f);
    if (r.rc == 0)
        ck_assert_int_eq(ptm_plan_emit(r.plan, f), 0);
    fclose(f);
    if (r.rc != 0)
        ck_assert_ptr_null(r.plan);
    arena_release(&arena);
    ptm_source_release(&src);
    return r;
}

/* ---- plans compared field by field -------------------------------------- */

#define SAME(field) ck_assert_msg(a->field == b->field, "%s: %s differs", where, #field)

static void same_str(const char *where, const char *what, const char *x, const char *y)
{
    ck_assert_msg((x == NULL) == (y == NULL), "%s: %s: one is NULL", where, what);
    if (x)
        ck_assert_msg(strcmp(x, y) == 0, "%s: %s: \"%s\" vs \"%s\"", where, what, x, y);
}

static void same_prog(const char *where, const struct prog *a, const struct prog *b)
{
    SAME(ncode);
    SAME(nconsts);
    SAME(max_stack);
    SAME(nvars);
    same_str(where, "text", a->text, b->text);
    for (uint32_t i = 0; i < a->ncode; i++) {
        ck_assert_msg(a->code[i].op == b->code[i].op && a->code[i].a == b->code[i].a &&
                          a->code[i].b == b->code[i].b,
                      "%s: instruction %u differs", where, i);
    }
    if (a->nconsts)
        ck_assert_msg(memcmp(a->consts, b->consts, a->nconsts * sizeof(double)) == 0,
                      "%s: constants differ", where);
}

static void same_hook(const char *where, const struct plan_hook *a, const struct plan_hook *b)
{
    SAME(present);
    SAME(lua);
    same_str(where, "file", a->file, b->file);
    same_str(where, "push", a->push, b->push);
    same_str(where, "pull", a->pull, b->pull);
    same_str(where, "apply", a->apply, b->apply);
    same_str(where, "init", a->init, b->init);
    same_str(where, "save", a->save, b->save);
    same_str(where, "load", a->load, b->load);
    same_str(where, "fn", a->fn, b->fn);
    same_str(where, "builtin", a->builtin, b->builtin);
    SAME(noptions);
    SAME(every);
    SAME(every_unit);
    for (uint32_t i = 0; i < a->noptions; i++) {
        const struct plan_option *x = &a->options[i], *y = &b->options[i];
        same_str(where, "option key", x->key, y->key);
        ck_assert_msg(x->kind == y->kind && memcmp(&x->num, &y->num, sizeof(double)) == 0 &&
                          x->ref == y->ref,
                      "%s: option %u differs", where, i);
        same_str(where, "option str", x->str, y->str);
    }
}

/* a and b are the same value, except for capacities and build state. */
static void same_plan(const struct ptm_plan *a, const struct ptm_plan *b)
{
    const char *where = "plan";
    same_str(where, "job", a->job, b->job);
    same_str(where, "base_dir", a->base_dir, b->base_dir);
    SAME(seed);
    SAME(nconsts);
    SAME(ndata);
    SAME(nparams);
    SAME(nblocksets);
    SAME(noutputs);
    SAME(nmetrics);
    for (uint32_t i = 0; i < a->nmetrics; i++) {
        same_str("metric", "name", a->metrics[i].name, b->metrics[i].name);
        ck_assert(a->metrics[i].kind == b->metrics[i].kind && a->metrics[i].data == b->metrics[i].data);
    }
    SAME(cons);
    SAME(staleness);
    SAME(has_stop);
    for (uint32_t i = 0; i < a->nconsts; i++) {
        where = "const";
        const struct plan_const *x = &a->consts[i], *y = &b->consts[i];
        same_str(where, "name", x->name, y->name);
        same_str(where, "str", x->str, y->str);
        ck_assert(x->is_str == y->is_str && memcmp(&x->num, &y->num, sizeof(double)) == 0);
    }
    for (uint32_t i = 0; i < a->ndata; i++) {
        where = "data";
        const struct plan_data *x = &a->data[i], *y = &b->data[i];
        same_str(where, "name", x->name, y->name);
        same_str(where, "path", x->path, y->path);
        same_str(where, "vocab", x->vocab, y->vocab);
        ck_assert(x->format == y->format && x->matrix == y->matrix && x->sparse == y->sparse &&
                  x->integer == y->integer && x->shard == y->shard &&
                  x->labels_of == y->labels_of);
    }
    for (uint32_t i = 0; i < a->nparams; i++) {
        where = "param";
        const struct plan_param *x = &a->params[i], *y = &b->params[i];
        same_str(where, "name", x->name, y->name);
        same_str(where, "init_path", x->init_path, y->init_path);
        ck_assert(x->matrix == y->matrix && x->integer == y->integer && x->init == y->init &&
                  memcmp(&x->init_value, &y->init_value, sizeof(double)) == 0 &&
                  x->init_data == y->init_data && x->shard_like == y->shard_like &&
                  x->cons == y->cons && x->staleness == y->staleness);
        same_prog("param dims[0]", &x->dims[0], &y->dims[0]);
        same_prog("param dims[1]", &x->dims[1], &y->dims[1]);
    }
    for (uint32_t i = 0; i < a->nblocksets; i++) {
        where = "blockset";
        const struct plan_blockset *x = &a->blocksets[i], *y = &b->blocksets[i];
        same_str(where, "name", x->name, y->name);
        same_str(where, "edges", x->edges, y->edges);
        ck_assert(x->param == y->param && x->axis == y->axis && x->into == y->into &&
                  x->depend == y->depend && x->has_priority == y->has_priority &&
                  x->has_cost == y->has_cost && x->has_order == y->has_order);
        same_prog("blockset count", &x->count, &y->count);
        same_prog("blockset pred", &x->pred, &y->pred);
        same_prog("blockset priority", &x->priority, &y->priority);
        same_prog("blockset cost", &x->cost, &y->cost);
        same_prog("blockset order", &x->order, &y->order);
    }
    const struct plan_schedule *s = &a->schedule, *t = &b->schedule;
    ck_assert(s->policy == t->policy && s->over == t->over && s->sample == t->sample &&
              s->keep_all == t->keep_all && s->warmup == t->warmup &&
              s->warmup_unit == t->warmup_unit && s->balance == t->balance &&
              s->pipeline == t->pipeline && s->uniform == t->uniform && s->active == t->active &&
              s->shuffle == t->shuffle &&
              s->per_round == t->per_round &&
              s->minibatch == t->minibatch);
    same_hook("update", &a->update, &b->update);
    same_hook("objective", &a->objective, &b->objective);
    same_prog("stop", &a->stop, &b->stop);
    for (uint32_t i = 0; i < a->noutputs; i++) {
        where = "output";
        same_str(where, "path", a->outputs[i].path, b->outputs[i].path);
        same_str(where, "format", a->outputs[i].format, b->outputs[i].format);
        ck_assert(a->outputs[i].param == b->outputs[i].param);
    }
    where = "checkpoint";
    same_str(where, "dir", a->checkpoint.dir, b->checkpoint.dir);
    SAME(checkpoint.every);
    SAME(checkpoint.every_unit);
    ck_assert_msg(memcmp(&a->checkpoint.seconds, &b->checkpoint.seconds, sizeof(double)) == 0,
                  "checkpoint: seconds differ");
}
#undef SAME

/* ---- a. round trips through the examples --------------------------------- */

/* examples/DIR/NAME.ptm as "DIR/NAME"; its golden file is NAME.yaml */
static const char *const examples[] = {"kmeans/kmeans", "lasso/lasso",       "lasso/lasso_lua",
                                       "lda/lda",       "logreg/logreg",     "logreg/logreg_lua",
                                       "mf/mf",         "mf/mf_lua"};

/* Parse and compile examples/DIR/NAME.ptm. */
static struct ptm_plan *compile_example(const char *name)
{
    char path[512], dir[256];
    snprintf(dir, sizeof(dir), "examples/%.*s", (int)(strchr(name, '/') - name), name);
    snprintf(path, sizeof(path), "examples/%s.ptm", name);
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s (run from the repository root)", path);
    struct ptm_plan *plan = tu_compile(path, text, dir, true);
    free(text);
    return plan;
}

/* compile, emit, load, emit: the two texts are byte for byte the same, and
 * the loaded plan is the compiled one. */
START_TEST(test_roundtrip)
{
    struct ptm_plan *plan = compile_example(examples[_i]);
    char *text;
    size_t len;
    ck_assert_int_eq(ptm_plan_emit_buf(plan, &text, &len), 0);
    ck_assert_uint_eq(strlen(text), len);

    char *viafile = NULL;
    size_t flen;
    FILE *f = open_memstream(&viafile, &flen);
    ck_assert_int_eq(ptm_plan_emit(plan, f), 0);
    fclose(f);
    ck_assert_str_eq(viafile, text);
    free(viafile);

    struct loaded r = load_text(text, len);
    tu_expect_text("roundtrip", _i, r.diags, "", NULL);
    ck_assert_int_eq(r.rc, 0);
    same_plan(plan, r.plan);
    ck_assert_str_eq(r.yaml, text);

    loaded_free(&r);
    ptm_free(text);
    plan_free(plan);
}
END_TEST

/* The compiler's output against tests/golden/NAME.yaml. */
START_TEST(test_golden)
{
    struct ptm_plan *plan = compile_example(examples[_i]);
    char *text;
    size_t len;
    ck_assert_int_eq(ptm_plan_emit_buf(plan, &text, &len), 0);
    char path[256];
    snprintf(path, sizeof(path), "tests/golden/%s.yaml", strchr(examples[_i], '/') + 1);
    if (getenv("PTM_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        ck_assert_msg(f != NULL, "cannot write %s", path);
        fwrite(text, 1, len, f);
        fclose(f);
    }
    size_t glen;
    char *golden = tu_read_file(path, &glen);
    ck_assert_msg(golden != NULL, "cannot read %s (PTM_UPDATE_GOLDEN=1 writes it)", path);
    tu_expect_text("golden", _i, text, golden, NULL);
    free(golden);
    ptm_free(text);
    plan_free(plan);
}
END_TEST

/* examples/lasso/lasso.ptm with a checkpoint statement, through the
 * compiler, the writer and the loader: the loaded plan checkpoints as the
 * statement says, and is written back byte for byte. */
static const struct {
    const char *stmt;
    const char *dir;
    int64_t every;
    enum plan_unit unit;
    double seconds;
} ckpt_rows[] = {
    {"checkpoint every 10 sweeps to \"ckpt\"", "ckpt", 10, PLAN_UNIT_SWEEPS, 0},
    {"checkpoint every 2 * 50 rounds to \"/tmp/a \\\"b\\\"\"", "/tmp/a \"b\"", 100,
     PLAN_UNIT_ROUNDS, 0},
    {"checkpoint every 5m to \"out/ckpt\"", "out/ckpt", 0, PLAN_UNIT_ROUNDS, 300},
    {"checkpoint every 1.5h + 250ms to \"c\"", "c", 0, PLAN_UNIT_ROUNDS, 5400.25},
};

START_TEST(test_roundtrip_checkpoint)
{
    char *job = tu_read_file("examples/lasso/lasso.ptm", NULL);
    ck_assert_msg(job != NULL, "cannot read examples/lasso/lasso.ptm (run from the root)");
    size_t n = strlen(job) + strlen(ckpt_rows[_i].stmt) + 2;
    char *text = malloc(n);
    ck_assert_ptr_nonnull(text);
    snprintf(text, n, "%s%s\n", job, ckpt_rows[_i].stmt);
    free(job);
    struct ptm_plan *plan = tu_compile("lasso.ptm", text, "examples/lasso", false);
    free(text);

    char *yaml;
    size_t len;
    ck_assert_int_eq(ptm_plan_emit_buf(plan, &yaml, &len), 0);
    struct loaded r = load_text(yaml, len);
    tu_expect_text("checkpoint roundtrip", _i, r.diags, "", NULL);
    ck_assert_int_eq(r.rc, 0);
    same_plan(plan, r.plan);
    ck_assert_str_eq(r.yaml, yaml);
    const struct plan_checkpoint *c = &r.plan->checkpoint;
    ck_assert_str_eq(c->dir, ckpt_rows[_i].dir);
    ck_assert_int_eq(c->every, ckpt_rows[_i].every);
    if (c->every > 0)
        ck_assert_int_eq(c->every_unit, ckpt_rows[_i].unit);
    ck_assert_double_eq(c->seconds, ckpt_rows[_i].seconds);
    loaded_free(&r);
    ptm_free(yaml);
    plan_free(plan);
}
END_TEST

/* examples/lasso/lasso.ptm with `shuffle` beside its `active`: written and
 * loaded back the same, the flag kept. */
START_TEST(test_roundtrip_shuffle)
{
    char *job = tu_read_file("examples/lasso/lasso.ptm", NULL);
    ck_assert_msg(job != NULL, "cannot read examples/lasso/lasso.ptm (run from the root)");
    const char *at = strstr(job, "    active ");
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(job) + 32, pre = (size_t)(at - job);
    char *text = malloc(n);
    ck_assert_ptr_nonnull(text);
    snprintf(text, n, "%.*s    shuffle\n%s", (int)pre, job, at);
    free(job);
    struct ptm_plan *plan = tu_compile("lasso.ptm", text, "examples/lasso", false);
    free(text);
    ck_assert(plan->schedule.active && plan->schedule.shuffle);
    char *yaml;
    size_t len;
    ck_assert_int_eq(ptm_plan_emit_buf(plan, &yaml, &len), 0);
    ck_assert_ptr_nonnull(strstr(yaml, "shuffle: true"));
    struct loaded r = load_text(yaml, len);
    tu_expect_text("shuffle roundtrip", 0, r.diags, "", NULL);
    ck_assert_int_eq(r.rc, 0);
    same_plan(plan, r.plan);
    ck_assert(r.plan->schedule.shuffle);
    ck_assert_str_eq(r.yaml, yaml);
    loaded_free(&r);
    ptm_free(yaml);
    plan_free(plan);
}
END_TEST

/* examples/lasso/lasso.ptm with an order after its cost: written after the
 * cost, loaded back the same. */
START_TEST(test_roundtrip_order)
{
    char *job = tu_read_file("examples/lasso/lasso.ptm", NULL);
    ck_assert_msg(job != NULL, "cannot read examples/lasso/lasso.ptm (run from the root)");
    const char *at = strstr(job, "\nschedule ");
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(job) + 64, pre = (size_t)(at - job) + 1;
    char *text = malloc(n);
    ck_assert_ptr_nonnull(text);
    snprintf(text, n, "%.*sorder coef(j) = -abs(cos(col(X, j), y))\n%s", (int)pre, job, at + 1);
    free(job);
    struct ptm_plan *plan = tu_compile("lasso.ptm", text, "examples/lasso", false);
    free(text);
    ck_assert(plan->blocksets[0].has_order);
    char *yaml;
    size_t len;
    ck_assert_int_eq(ptm_plan_emit_buf(plan, &yaml, &len), 0);
    const char *cost = strstr(yaml, "\n  cost:\n"), *order = strstr(yaml, "\n  order:\n");
    ck_assert(cost && order && cost < order);
    ck_assert_ptr_nonnull(strstr(order, "    text: \"-abs(cos(col(X, j), y))\"\n"));
    struct loaded r = load_text(yaml, len);
    tu_expect_text("order roundtrip", 0, r.diags, "", NULL);
    ck_assert_int_eq(r.rc, 0);
    same_plan(plan, r.plan);
    ck_assert(r.plan->blocksets[0].has_order);
    ck_assert_str_eq(r.yaml, yaml);
    loaded_free(&r);
    ptm_free(yaml);
    plan_free(plan);
}
END_TEST

/* ---- b. accepted plans ---------------------------------------------------- */

/* A base plan with up to two edits that must load without a word and be
 * written back exactly as it was read. */
struct accept_row {
    const char *base;
    const char *find, *repl;
    const char *find2, *repl2;
};

static char *row_text(const char *base, const char *find, const char *repl, const char *find2,
                      const char *repl2)
{
    char *t = base ? (find ? edit(base, find, repl) : strdup(base)) : strdup(repl);
    if (find2) {
        char *u = edit(t, find2, repl2);
        free(t);
        t = u;
    }
    return t;
}

#define LASSO_UPDATE                                                           \
    "update:\n  kind: builtin\n  builtin: \"lasso_cd\"\n  options:\n"           \
    "  - key: \"lambda\"\n    num: 0.001\n  - key: \"X\"\n    data: 0\n"         \
    "  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n"                 \
    "  - key: \"r\"\n    param: 1\nobjective:\n"
#define LASSO_OBJECTIVE                                                        \
    "objective:\n  kind: builtin\n  builtin: \"lasso_objective\"\n  options:\n" \
    "  - key: \"lambda\"\n    num: 0.001\n  - key: \"X\"\n    data: 0\n"         \
    "  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n"             \
    "  - key: \"r\"\n    param: 1\n  every: 10\n  every_unit: rounds\n"
#define LASSO_PRED                                                             \
    "  depend: pred\n  pred:\n    max_stack: 2\n    nvars: 2\n    consts: [0.1]\n" \
    "    code:\n    - [var, 0]\n    - [var, 1]\n    - [corr, 0, 0]\n    - [abs]\n" \
    "    - [const, 0]\n    - [gt]\n"
#define LASSO_SCHEDULE                                                         \
    "schedule:\n  policy: dynamic\n  over: 0\n  sample: 256\n  keep: independent\n" \
    "  warmup: 3\n  warmup_unit: sweeps\n  balance: true\n  pipeline: 1\n"
#define MF_OBJECTIVE                                                           \
    "objective:\n  kind: builtin\n  builtin: \"rmse\"\n  options:\n"            \
    "  - key: \"test\"\n    data: 1\n  - key: \"R\"\n    data: 0\n"              \
    "  - key: \"W\"\n    param: 0\n  - key: \"H\"\n    param: 1\n"               \
    "  every: 1\n  every_unit: sweeps\n"

/* The last output of the lasso plan: a checkpoint goes after it. */
#define LASSO_END "  path: \"beta.tsv\"\n  format: tsv\n"

#define LASSO_METRICS                                                          \
    "metrics:\n- name: \"m\"\n  kind: rmse\n  data: 0\n- name: \"n\"\n  kind: r2\n  data: 0\n" \
    "stop:\n"

static const struct accept_row accept_rows[] = {
    {lasso_plan, NULL, NULL, NULL, NULL},
    /* metrics, read by the stop rule */
    {lasso_plan, "stop:\n", LASSO_METRICS, "  - [global, sweeps]\n", "  - [metric, 1, 2]\n"},
    {mf_plan, NULL, NULL, NULL, NULL},
    /* a word option given (a plan written before it may leave it out: row 0) */
    {lasso_plan, LASSO_UPDATE_OPTIONS,
     "  - key: \"lambda\"\n    num: 0.001\n  - key: \"within\"\n    str: \"sequential\"\n"
     "  - key: \"X\"\n    data: 0\n  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n"
     "  - key: \"r\"\n    param: 1\nobjective:",
     NULL, NULL},
    /* an optional number as "": the rule's default (split_min's depends on within) */
    {lasso_plan, LASSO_UPDATE_OPTIONS,
     "  - key: \"lambda\"\n    num: 0.001\n  - key: \"split_min\"\n    str: \"\"\n"
     "  - key: \"X\"\n    data: 0\n  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n"
     "  - key: \"r\"\n    param: 1\nobjective:",
     NULL, NULL},
    /* Lua hooks */
    {lasso_plan, LASSO_UPDATE,
     "update:\n  kind: lua\n  file: \"hooks.lua\"\n  push: \"push\"\n  pull: \"pull\"\n"
     "objective:\n",
     LASSO_OBJECTIVE,
     "objective:\n  kind: lua\n  file: \"hooks.lua\"\n  function: \"objective\"\n"
     "  every: 2\n  every_unit: sweeps\n"},
    {lasso_plan, LASSO_UPDATE,
     "update:\n  kind: lua\n  file: \"/abs/hooks.lua\"\n  push: \"step\"\nobjective:\n", NULL,
     NULL},
    /* every function of a Lua update, and an objective's save and load */
    {lasso_plan, LASSO_UPDATE,
     "update:\n  kind: lua\n  file: \"hooks.lua\"\n  push: \"push\"\n  pull: \"pull\"\n"
     "  apply: \"apply\"\n  init: \"init\"\n  save: \"keep\"\n  load: \"give\"\nobjective:\n",
     LASSO_OBJECTIVE,
     "objective:\n  kind: lua\n  file: \"obj.lua\"\n  function: \"objective\"\n"
     "  save: \"save\"\n  load: \"load\"\n  every: 2\n  every_unit: sweeps\n"},
    /* dependencies from a file; no priority, no cost */
    {lasso_plan, LASSO_PRED, "  depend: file\n  edges: \"edges.txt\"\n", NULL, NULL},
    {lasso_plan,
     "  priority:\n    max_stack: 2\n    nvars: 1\n    consts: [0.0001]\n    code:\n"
     "    - [var, 0]\n    - [delta, 0, 1]\n    - [abs]\n    - [const, 0]\n    - [add]\n"
     "  cost:\n    max_stack: 1\n    nvars: 1\n    consts: []\n    code:\n    - [var, 0]\n"
     "    - [nnz_col, 0]\n",
     "", LASSO_PRED, "  depend: none\n"},
    /* an order after the cost, or alone; corr() and cos() of a vector (y) */
    {lasso_plan, "    - [var, 0]\n    - [nnz_col, 0]\n",
     "    - [var, 0]\n    - [nnz_col, 0]\n"
     "  order:\n    text: \"cos(col(X, j), y) - corr(y, col(X, j))\"\n    max_stack: 3\n"
     "    nvars: 1\n    consts: [1]\n    code:\n    - [var, 0]\n    - [const, 0]\n"
     "    - [cos, 0, 1]\n    - [const, 0]\n    - [var, 0]\n    - [corr, 1, 0]\n    - [sub]\n",
     NULL, NULL},
    {lasso_plan,
     "  cost:\n    max_stack: 1\n    nvars: 1\n    consts: []\n    code:\n    - [var, 0]\n"
     "    - [nnz_col, 0]\n",
     "  order:\n    max_stack: 1\n    nvars: 1\n    consts: [-1]\n    code:\n    - [const, 0]\n",
     NULL, NULL},
    /* a parameter from a file */
    {lasso_plan, "  init: const\n  init_value: 0\n", "  init: file\n  init_path: \"beta.tsv\"\n",
     NULL, NULL},
    {lasso_plan, "  init: data\n  init_data: 1\n", "  init: file\n  init_path: \"/abs/r 1.tsv\"\n",
     NULL, NULL},
    /* consistency */
    {lasso_plan, "consistency:\n  model: ssp\n  staleness: 0\nupdate:",
     "consistency:\n  model: async\nupdate:", NULL, NULL},
    {lasso_plan, "  shard_like: 0\n  consistency:\n    model: ssp\n    staleness: 0\n",
     "  shard_like: 0\n  consistency:\n    model: ssp\n    staleness: 1000000\n", NULL, NULL},
    /* other policies */
    {lasso_plan, LASSO_SCHEDULE, "schedule:\n  policy: round_robin\n  over: 0\n  per_round: 0\n",
     NULL, NULL},
    {lasso_plan, LASSO_SCHEDULE, "schedule:\n  policy: random\n  over: 0\n  per_round: 100000000\n",
     NULL, NULL},
    {lasso_plan, LASSO_SCHEDULE, "schedule:\n  policy: data_parallel\n  minibatch: 1\n", NULL,
     NULL},
    {lasso_plan, LASSO_SCHEDULE,
     "schedule:\n  policy: dynamic\n  over: 0\n  sample: 1\n  keep: all\n"
     "  warmup: 0\n  warmup_unit: rounds\n  balance: false\n  pipeline: 64\n",
     NULL, NULL},
    {lasso_plan, LASSO_SCHEDULE,
     "schedule:\n  policy: dynamic\n  over: 0\n  sample: 256\n  keep: independent\n"
     "  warmup: 3\n  warmup_unit: sweeps\n  balance: true\n  pipeline: 1\n  uniform: 0.5\n",
     NULL, NULL},
    /* a string const; a seed at its limit */
    {lasso_plan, "- name: \"lambda\"\n  num: 0.001\n",
     "- name: \"lambda\"\n  num: 0.001\n- name: \"greeting\"\n  str: \"h\xc3\xa9 \\\"x\\\" \\\\ "
     "y\"\n",
     "seed: 1\n", "seed: 9007199254740991\n"},
    /* no objective (the mf stop rule does not read it); rmse without test data */
    {mf_plan, MF_OBJECTIVE, "", NULL, NULL},
    {mf_plan, "  - key: \"test\"\n    data: 1\n", "  - key: \"test\"\n    str: \"\"\n", NULL, NULL},
    /* UCI data with a vocabulary; an integer parameter */
    {mf_plan, "  format: mm\n  path: \"data/ratings.mtx\"\n",
     "  format: uci\n  path: \"data/docword.txt\"\n  vocab: \"data/vocab.txt\"\n", NULL, NULL},
    {lasso_plan, "- name: \"beta\"\n  matrix: false\n  integer: false\n",
     "- name: \"beta\"\n  matrix: false\n  integer: true\n", NULL, NULL},
    /* the source text of a program; constants with no digits */
    {lasso_plan, "  pred:\n    max_stack: 2\n    nvars: 2\n    consts: [0.1]\n",
     "  pred:\n    text: \"abs(corr(col(X, i), col(X, j))) > 0.1\"\n    max_stack: 2\n"
     "    nvars: 2\n    consts: [-.inf]\n",
     "  consts: [100, 1e-07, 600]\n", "  consts: [.inf, -0, 4.94065645841247e-324]\n"},
    /* a size that is a constant */
    {lasso_plan, "    consts: []\n    code:\n    - [cols, 0]\n",
     "    consts: [2147483647]\n    code:\n    - [const, 0]\n", NULL, NULL},
    /* checkpoints: every N units, every so many seconds */
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 10\n"
               "  every_unit: sweeps\n",
     NULL, NULL},
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"/abs/c k\"\n"
               "  every: 9007199254740991\n  every_unit: rounds\n",
     NULL, NULL},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: 300\n", NULL, NULL},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"c\"\n  seconds: 1.0000000000000002\n",
     NULL, NULL},
};

START_TEST(test_accept)
{
    const struct accept_row *row = &accept_rows[_i];
    char *text = row_text(row->base, row->find, row->repl, row->find2, row->repl2);
    struct loaded r = load_text(text, strlen(text));
    tu_expect_text("accept", _i, r.diags, "", NULL);
    ck_assert_int_eq(r.rc, 0);
    tu_expect_text("accept (written back)", _i, r.yaml, text, NULL);
    loaded_free(&r);
    free(text);
}
END_TEST

/* ---- c. rejected plans ---------------------------------------------------- */

struct reject_row {
    const char *base; /* NULL: repl is the whole text */
    const char *find, *repl;
    const char *find2, *repl2;
    const char *want; /* the rendered diagnostics */
};

/* As a base: the lasso plan with every line ending in CR LF. */
static const char lasso_crlf[] = "";

static const struct reject_row reject_rows[] = {
    /* NaN: never in a const or a program's constants (a stop rule would never hold) */
    {lasso_plan, "consts: [100, 1e-07, 600]", "consts: [.nan, 1e-07, 600]",
     "- name: \"lambda\"\n  num: 0.001", "- name: \"lambda\"\n  num: .NaN",
     "plan.yaml:7:8: error: 'num' must be a number, not .NaN\n"
     "      num: .NaN\n"
     "           ^^^^\n"
     "plan.yaml:138:12: error: 'constant' must be a number, not .nan\n"
     "      consts: [.nan, 1e-07, 600]\n"
     "               ^^^^\n"},
    /* a label column: only for the labels of csv data */
    {lasso_plan, "  path: \"data/lasso.svm\"\n",
     "  path: \"data/lasso.svm\"\n  label_column: \"y\"\n", NULL, NULL,
     "plan.yaml:12:3: error: 'label_column' goes with format labels\n"
     "      label_column: \"y\"\n"
     "      ^^^^^^^^^^^^\n"},
    {lasso_plan, "  labels_of: 0\n", "  labels_of: 0\n  label_column: \"price\"\n", NULL, NULL,
     "plan.yaml:19:17: error: a label column is named in a csv header; data source 0 ('X') is "
     "libsvm\n"
     "      label_column: \"price\"\n"
     "                    ^^^^^^^\n"},
    /* metrics: the kinds the update computes, a matrix data source, unique
     * names, an objective; the stop rule names metrics there are */
    {lasso_plan, "stop:\n",
     "metrics:\n- name: \"m\"\n  kind: auc\n  data: 1\n- name: \"m\"\n  kind: rmse\n  data: 7\n"
     "- name: \"k\"\n  kind: rmsd\n  data: 0\nstop:\n",
     NULL, NULL,
     "plan.yaml:136:3: error: the update lasso_cd has no metric 'auc'\n"
     "    - name: \"m\"\n"
     "      ^\n"
     "plan.yaml:138:9: error: a metric is measured on a matrix data source, not on 'y'\n"
     "      data: 1\n"
     "            ^\n"
     "plan.yaml:139:3: error: another metric is already named 'm'\n"
     "    - name: \"m\"\n"
     "      ^\n"
     "plan.yaml:141:9: error: 'data' must be a data source index from 0 to 1, not 7\n"
     "      data: 7\n"
     "            ^\n"
     "plan.yaml:143:9: error: unknown metric kind 'rmsd' (did you mean 'rmse'?)\n"
     "      kind: rmsd\n"
     "            ^^^^\n"},
    {lasso_plan, "stop:\n", LASSO_METRICS, "  - [global, sweeps]\n", "  - [metric, 2, 0]\n",
     "plan.yaml:147:5: error: invalid stop rule: instruction 0 (metric): metric 2 out of range (2 "
     "metrics)\n"
     "      - [metric, 2, 0]\n"
     "        ^\n"},
    {lasso_plan, "stop:\n", LASSO_METRICS, "  - [global, sweeps]\n", "  - [metric, 0, 3]\n",
     "plan.yaml:147:5: error: invalid stop rule: instruction 0 (metric): metric operand b is 3, "
     "not 0 to 2\n"
     "      - [metric, 0, 3]\n"
     "        ^\n"},
    /* 0 the file: empty, not a mapping, truncated, not YAML */
    {NULL, NULL, "", NULL, NULL, "plan.yaml: error: the plan is empty\n"},
    {NULL, NULL, "# only a comment\n", NULL, NULL, "plan.yaml: error: the plan is empty\n"},
    {NULL, NULL, "- ptm_plan: 1\n", NULL, NULL,
     "plan.yaml:1:1: error: a plan is a mapping that starts with 'ptm_plan: 1', not a sequence\n"
     "    - ptm_plan: 1\n"
     "    ^\n"},
    {NULL, NULL, "job: \"lasso\"\n...\n", NULL, NULL,
     "plan.yaml:1:1: error: not a ptm plan: the mapping has no 'ptm_plan' key\n"
     "    job: \"lasso\"\n"
     "    ^^^\n"},
    {lasso_plan, "...\n", "", NULL, NULL,
     "plan.yaml:154:14: error: the plan is truncated: it does not end with '...'\n"
     "      format: tsv\n"
     "                 ^\n"},
    {lasso_plan, "  path: \"data/lasso.svm\"\n", "  path: \"data/las", NULL, NULL,
     "plan.yaml:15:10: error: did not find expected key while parsing a block mapping\n"
     "    - name: \"y\"\n"
     "             ^\n"
     "plan.yaml:9:3: note: the block mapping starts here\n"
     "    - name: \"X\"\n"
     "      ^\n"},
    {lasso_plan, "    - [corr, 0, 0]\n", "    - [corr, 0, 0\n", NULL, NULL,
     "plan.yaml:73:7: error: did not find expected ',' or ']' while parsing a flow sequence\n"
     "        - [abs]\n"
     "          ^\n"
     "plan.yaml:72:7: note: the flow sequence starts here\n"
     "        - [corr, 0, 0\n"
     "          ^\n"},
    {lasso_plan, "  sparse: true\n", " sparse: true\n", NULL, NULL,
     "plan.yaml:13:2: error: did not find expected key while parsing a block mapping\n"
     "     sparse: true\n"
     "     ^\n"
     "plan.yaml:1:1: note: the block mapping starts here\n"
     "    ptm_plan: 1\n"
     "    ^\n"},
    {lasso_plan, "...\n", "...\n---\nptm_plan: 1\n...\n", NULL, NULL,
     "plan.yaml:156:1: error: a second YAML document: a plan file holds one\n"
     "    ---\n"
     "    ^\n"},
    {lasso_plan, "seed: 1\n", "seed: \001\n", NULL, NULL,
     "plan.yaml:4:7: error: control characters are not allowed (U+0001)\n"
     "    seed: ?\n"
     "          ^\n"},
    /* 10 */
    {lasso_plan, "job: \"lasso\"\n", "job: \"las\xffso\"\n", NULL, NULL,
     "plan.yaml:2:10: error: invalid leading UTF-8 octet 0xFF\n"
     "    job: \"las?so\"\n"
     "             ^\n"},
    {lasso_plan, "seed: 1\n", "seed: &s 1\n", NULL, NULL,
     "plan.yaml:4:7: error: anchors (&s) are not used in a plan\n"
     "    seed: &s 1\n"
     "          ^\n"},
    {lasso_plan, "seed: 1\n", "seed: !!int 1\n", NULL, NULL,
     "plan.yaml:4:7: error: tags (tag:yaml.org,2002:int) are not used in a plan\n"
     "    seed: !!int 1\n"
     "          ^\n"},
    {lasso_plan, "  sample: 256\n", "  sample: *s\n", NULL, NULL,
     "plan.yaml:96:11: error: aliases (*s) are not used in a plan\n"
     "      sample: *s\n"
     "              ^\n"},
    /* the version */
    {lasso_plan, "ptm_plan: 1\n", "ptm_plan: 2\n", NULL, NULL,
     "plan.yaml:1:11: error: the plan is format version 2, newer than this ptm reads (1): use a "
     "newer ptm\n"
     "    ptm_plan: 2\n"
     "              ^\n"},
    {lasso_plan, "ptm_plan: 1\n", "ptm_plan: one\n", NULL, NULL,
     "plan.yaml:1:11: error: 'ptm_plan' must be 1, not 'one'\n"
     "    ptm_plan: one\n"
     "              ^^^\n"},
    {lasso_plan, "ptm_plan: 1\n", "plan: 1\n", NULL, NULL,
     "plan.yaml:1:1: error: not a ptm plan: the mapping has no 'ptm_plan' key\n"
     "    plan: 1\n"
     "    ^^^^\n"},
    /* keys */
    {lasso_plan, "schedule:\n", "scheduel:\n", NULL, NULL,
     "plan.yaml:1:1: error: missing key 'schedule' in the plan\n"
     "    ptm_plan: 1\n"
     "    ^^^^^^^^\n"
     "plan.yaml:93:1: error: unknown key 'scheduel' in the plan (did you mean 'schedule'?)\n"
     "    scheduel:\n"
     "    ^^^^^^^^\n"},
    {lasso_plan, "  shard: rows\nparams:", "  shard: rows\n  compression: gzip\nparams:", NULL,
     NULL,
     "plan.yaml:23:3: error: unknown key 'compression' in a data source\n"
     "      compression: gzip\n"
     "      ^^^^^^^^^^^\n"},
    {lasso_plan, "seed: 1\n", "seed: 1\nseed: 2\n", NULL, NULL,
     "plan.yaml:5:1: error: duplicate key 'seed'\n"
     "    seed: 2\n"
     "    ^^^^\n"
     "plan.yaml:4:1: note: 'seed' is first given here\n"
     "    seed: 1\n"
     "    ^^^^\n"},
    /* 20 */
    {lasso_plan, "  format: labels\n", "  format: labels\n  matrix: false\n", NULL, NULL,
     "plan.yaml:20:3: error: duplicate key 'matrix'\n"
     "      matrix: false\n"
     "      ^^^^^^\n"
     "plan.yaml:18:3: note: 'matrix' is first given here\n"
     "      matrix: false\n"
     "      ^^^^^^\n"},
    {lasso_plan, "job: \"lasso\"\n", "", NULL, NULL,
     "plan.yaml:1:1: error: missing key 'job' in the plan\n"
     "    ptm_plan: 1\n"
     "    ^^^^^^^^\n"},
    {lasso_plan, "  format: libsvm\n", "", NULL, NULL,
     "plan.yaml:9:3: error: missing key 'format' in a data source\n"
     "    - name: \"X\"\n"
     "      ^^^^\n"},
    {lasso_plan, "    consts: [1]\n    code:\n    - [const, 0]\n", "    consts: [1]\n", NULL, NULL,
     "plan.yaml:59:5: error: missing key 'code' in a program\n"
     "        max_stack: 1\n"
     "        ^^^^^^^^^\n"},
    {lasso_plan, "seed: 1\n", "[seed]: 1\n", NULL, NULL,
     "plan.yaml:1:1: error: missing key 'seed' in the plan\n"
     "    ptm_plan: 1\n"
     "    ^^^^^^^^\n"
     "plan.yaml:4:1: error: a key must be a word, not a sequence\n"
     "    [seed]: 1\n"
     "    ^\n"},
    /* scalar types and ranges */
    {lasso_plan, "  matrix: true\n  sparse: true\n", "  matrix: yes\n  sparse: true\n", NULL, NULL,
     "plan.yaml:12:11: error: 'matrix' must be true or false, not 'yes'\n"
     "      matrix: yes\n"
     "              ^^^\n"},
    {lasso_plan, "seed: 1\n", "seed: \"1\"\n", NULL, NULL,
     "plan.yaml:4:7: error: 'seed' must be an integer, not a string\n"
     "    seed: \"1\"\n"
     "          ^^^\n"},
    {lasso_plan, "seed: 1\n", "seed: 99999999999999999999\n", NULL, NULL,
     "plan.yaml:4:7: error: 'seed' must be from 0 to 9007199254740991, not 99999999999999999999\n"
     "    seed: 99999999999999999999\n"
     "          ^^^^^^^^^^^^^^^^^^^^\n"},
    {lasso_plan, "seed: 1\n", "seed: 007\n", NULL, NULL,
     "plan.yaml:4:7: error: 'seed' must be an integer, not '007'\n"
     "    seed: 007\n"
     "          ^^^\n"},
    {lasso_plan, "  sample: 256\n", "  sample: 0\n", NULL, NULL,
     "plan.yaml:96:11: error: 'sample' must be from 1 to 100000000, not 0\n"
     "      sample: 0\n"
     "              ^\n"},
    /* 30 */
    {lasso_plan, "staleness: 0\n- name: \"r\"", "staleness: -1\n- name: \"r\"", NULL, NULL,
     "plan.yaml:37:16: error: 'staleness' must be from 0 to 1000000, not -1\n"
     "        staleness: -1\n"
     "                   ^^\n"},
    {lasso_plan, "  init_value: 0\n", "  init_value: .inf\n", NULL, NULL,
     "plan.yaml:34:15: error: 'init_value' must be finite, not .inf\n"
     "      init_value: .inf\n"
     "                  ^^^^\n"},
    {lasso_plan,
     "    num: 0.001\n  - key: \"X\"\n    data: 0\n  - key: \"y\"\n    data: 1\n"
     "  - key: \"beta\"\n    param: 0\n  - key: \"r\"\n    param: 1\nobjective:",
     "    num: .nan\n  - key: \"X\"\n    data: 0\n  - key: \"y\"\n    data: 1\n"
     "  - key: \"beta\"\n    param: 0\n  - key: \"r\"\n    param: 1\nobjective:",
     NULL, NULL,
     "plan.yaml:110:10: error: 'num' must be finite, not .nan\n"
     "        num: .nan\n"
     "             ^^^^\n"},
    {lasso_plan, "  num: 0.001\ndata:", "  num: 1e999\ndata:", NULL, NULL,
     "plan.yaml:7:8: error: 'num' is out of the range of a double: 1e999\n"
     "      num: 1e999\n"
     "           ^^^^^\n"},
    {lasso_plan, "base_dir: \"examples/lasso\"\n", "base_dir: \"\"\n", NULL, NULL,
     "plan.yaml:3:11: error: 'base_dir' cannot be empty\n"
     "    base_dir: \"\"\n"
     "              ^^\n"},
    {lasso_plan, "base_dir: \"examples/lasso\"\n", "base_dir: \"a\\0b\"\n", NULL, NULL,
     "plan.yaml:3:11: error: 'base_dir' cannot hold a NUL byte\n"
     "    base_dir: \"a\\0b\"\n"
     "              ^^^^^^\n"},
    {lasso_plan, "base_dir: \"examples/lasso\"\n", "base_dir: ~\n", NULL, NULL,
     "plan.yaml:3:11: error: 'base_dir' must be a string, not null\n"
     "    base_dir: ~\n"
     "              ^\n"},
    {lasso_plan, "consts:\n- name: \"lambda\"\n  num: 0.001\n", "consts: {}\n", NULL, NULL,
     "plan.yaml:5:9: error: 'consts' must be a sequence, not a mapping\n"
     "    consts: {}\n"
     "            ^\n"},
    /* enumerations */
    {lasso_plan, "  format: libsvm\n", "  format: libsv\n", NULL, NULL,
     "plan.yaml:10:11: error: unknown format 'libsv' (did you mean 'libsvm'?)\n"
     "      format: libsv\n"
     "              ^^^^^\n"},
    {lasso_plan, "  policy: dynamic\n", "  policy: fifo\n", NULL, NULL,
     "plan.yaml:94:11: error: unknown scheduling policy 'fifo' (use dynamic, rotation, "
     "round_robin, random or data_parallel)\n"
     "      policy: fifo\n"
     "              ^^^^\n"},
    /* 40 */
    {lasso_plan, "  axis: elems\n", "  axis: [elems]\n", NULL, NULL,
     "plan.yaml:56:9: error: 'axis' must be elems, rows or cols, not a sequence\n"
     "      axis: [elems]\n"
     "            ^\n"},
    /* names */
    {lasso_plan, "- name: \"r\"\n", "- name: \"beta\"\n", NULL, NULL,
     "plan.yaml:38:9: error: 'beta' is already defined\n"
     "    - name: \"beta\"\n"
     "            ^^^^^^\n"
     "plan.yaml:24:9: note: 'beta' was first defined here as a parameter\n"
     "    - name: \"beta\"\n"
     "            ^^^^^^\n"},
    {lasso_plan, "- name: \"r\"\n", "- name: \"workers\"\n", NULL, NULL,
     "plan.yaml:38:9: error: 'workers' is a built-in name and cannot name anything else\n"
     "    - name: \"workers\"\n"
     "            ^^^^^^^^^\n"},
    {lasso_plan, "- name: \"r\"\n", "- name: \"1r\"\n", NULL, NULL,
     "plan.yaml:38:9: error: \"1r\" is not a name (a letter or '_', then letters, digits and '_')\n"
     "    - name: \"1r\"\n"
     "            ^^^^\n"},
    /* cross references */
    {lasso_plan, "  labels_of: 0\n", "  labels_of: 5\n", NULL, NULL,
     "plan.yaml:18:14: error: 'labels_of' must be a data source index from 0 to 1, not 5\n"
     "      labels_of: 5\n"
     "                 ^\n"},
    {lasso_plan, "  labels_of: 0\n", "  labels_of: 1\n", NULL, NULL,
     "plan.yaml:18:14: error: data source 'y' cannot be the labels of itself\n"
     "      labels_of: 1\n"
     "                 ^\n"},
    {lasso_plan, "  format: libsvm\n", "  format: mm\n", NULL, NULL,
     "plan.yaml:18:14: error: data source 0 ('X') has no labels: labels come with libsvm or csv "
     "data\n"
     "      labels_of: 0\n"
     "                 ^\n"},
    {lasso_plan, "  shard: rows\n- name: \"y\"", "  shard: none\n- name: \"y\"",
     "  shard: rows\nparams:", "  shard: none\nparams:",
     "plan.yaml:49:15: error: 'shard_like' needs data sharded by rows; data source 0 ('X') is "
     "sharded 'none'\n"
     "      shard_like: 0\n"
     "                  ^\n"},
    {lasso_plan, "  init_data: 1\n", "  init_data: 0\n", NULL, NULL,
     "plan.yaml:48:14: error: a parameter starts from data only when both are vectors\n"
     "      init_data: 0\n"
     "                 ^\n"},
    {lasso_plan, "  labels_of: 0\n  matrix: false\n  sparse: false\n",
     "  labels_of: 0\n  matrix: false\n  sparse: true\n", NULL, NULL,
     "plan.yaml:20:11: error: labels are dense: 'sparse' must be false\n"
     "      sparse: true\n"
     "              ^^^^\n"},
    /* 50 */
    {lasso_plan, "  param: 0\n  axis: elems\n", "  param: 2\n  axis: elems\n", NULL, NULL,
     "plan.yaml:55:10: error: 'param' must be a parameter index from 0 to 1, not 2\n"
     "      param: 2\n"
     "             ^\n"},
    {lasso_plan, "  axis: elems\n", "  axis: rows\n", NULL, NULL,
     "plan.yaml:56:9: error: parameter 'beta' is a vector: its blocks are elems, not rows\n"
     "      axis: rows\n"
     "            ^^^^\n"},
    {lasso_plan, "  policy: dynamic\n  over: 0\n", "  policy: dynamic\n  over: -1\n", NULL, NULL,
     "plan.yaml:95:9: error: 'over' must be a block set index from 0 to 0, not -1\n"
     "      over: -1\n"
     "            ^^\n"},
    {lasso_plan, "- param: 0\n  path: \"beta.tsv\"\n", "- param: 7\n  path: \"beta.tsv\"\n", NULL,
     NULL,
     "plan.yaml:152:10: error: 'param' must be a parameter index from 0 to 1, not 7\n"
     "    - param: 7\n"
     "             ^\n"},
    {lasso_plan, "  format: tsv\n",
     "  format: tsv\n- param: 1\n  path: \"beta.tsv\"\n  format: csv\n", NULL, NULL,
     "plan.yaml:156:9: error: another output already writes \"beta.tsv\"\n"
     "      path: \"beta.tsv\"\n"
     "            ^^^^^^^^^^\n"
     "plan.yaml:153:9: note: the first one is here\n"
     "      path: \"beta.tsv\"\n"
     "            ^^^^^^^^^^\n"
     "plan.yaml:157:11: error: unknown output format 'csv' (did you mean 'tsv'?)\n"
     "      format: csv\n"
     "              ^^^\n"},
    /* parameters */
    {lasso_plan, "  init: const\n  init_value: 0\n", "  init: random\n  init_value: 0\n", NULL,
     NULL,
     "plan.yaml:34:15: error: the scale of init random must be positive\n"
     "      init_value: 0\n"
     "                  ^\n"},
    {lasso_plan, "  init: data\n  init_data: 1\n", "  init: data\n  init_value: 1\n", NULL, NULL,
     "plan.yaml:38:3: error: missing key 'init_data' in a parameter\n"
     "    - name: \"r\"\n"
     "      ^^^^\n"
     "plan.yaml:48:3: error: 'init_value' goes with init const or random\n"
     "      init_value: 1\n"
     "      ^^^^^^^^^^\n"},
    {lasso_plan, "  init: const\n  init_value: 0\n", "  init: file\n", NULL, NULL,
     "plan.yaml:24:3: error: missing key 'init_path' in a parameter\n"
     "    - name: \"beta\"\n"
     "      ^^^^\n"},
    {lasso_plan, "  init: const\n  init_value: 0\n", "  init: file\n  init_path: \"\"\n", NULL,
     NULL,
     "plan.yaml:34:14: error: 'init_path' cannot be empty\n"
     "      init_path: \"\"\n"
     "                 ^^\n"},
    {lasso_plan, "  init: const\n  init_value: 0\n", "  init: file\n  init_path: [a]\n", NULL, NULL,
     "plan.yaml:34:14: error: 'init_path' must be a string, not a sequence\n"
     "      init_path: [a]\n"
     "                 ^\n"},
    {lasso_plan, "  init: const\n  init_value: 0\n",
     "  init: file\n  init_path: \"b.tsv\"\n  init_value: 0\n  init_data: 1\n", NULL, NULL,
     "plan.yaml:35:3: error: 'init_value' goes with init const or random\n"
     "      init_value: 0\n"
     "      ^^^^^^^^^^\n"
     "plan.yaml:36:3: error: 'init_data' goes with init data\n"
     "      init_data: 1\n"
     "      ^^^^^^^^^\n"},
    {lasso_plan, "  init: const\n  init_value: 0\n",
     "  init: const\n  init_value: 0\n  init_path: \"b.tsv\"\n", NULL, NULL,
     "plan.yaml:35:3: error: 'init_path' goes with init file\n"
     "      init_path: \"b.tsv\"\n"
     "      ^^^^^^^^^\n"},
    {lasso_plan, "- name: \"beta\"\n  matrix: false\n", "- name: \"beta\"\n  matrix: true\n", NULL,
     NULL,
     "plan.yaml:28:3: error: a matrix has 2 dims, not 1\n"
     "      - max_stack: 1\n"
     "      ^\n"
     "plan.yaml:56:9: error: parameter 'beta' is a matrix: its blocks are rows or cols, not elems\n"
     "      axis: elems\n"
     "            ^^^^^\n"
     "plan.yaml:82:7: error: invalid priority: instruction 1 (delta): parameter 0 takes 2 indices, "
     "not 1\n"
     "        - [delta, 0, 1]\n"
     "          ^\n"},
    {lasso_plan, "    model: ssp\n    staleness: 0\n- name: \"r\"",
     "    model: async\n    staleness: 0\n- name: \"r\"", NULL, NULL,
     "plan.yaml:37:5: error: 'staleness' goes with model ssp\n"
     "        staleness: 0\n"
     "        ^^^^^^^^^\n"},
    /* programs */
    {lasso_plan, "    - [nnz_col, 0]\n", "    - [nnz_cl, 0]\n", NULL, NULL,
     "plan.yaml:92:8: error: unknown op 'nnz_cl' (did you mean 'nnz_col'?)\n"
     "        - [nnz_cl, 0]\n"
     "           ^^^^^^\n"},
    /* 60 */
    {lasso_plan, "    - [var, 1]\n    - [corr, 0, 0]\n", "    - [corr, 0, 0]\n", NULL, NULL,
     "plan.yaml:71:7: error: invalid depend predicate: instruction 1 (corr): stack underflow "
     "(needs 2 values, has 1)\n"
     "        - [corr, 0, 0]\n"
     "          ^\n"},
    {lasso_plan, "  - [jtrue, 7]\n", "  - [jtrue, 99]\n", NULL, NULL,
     "plan.yaml:143:5: error: invalid stop rule: instruction 3 (jtrue): jump target 99 out of "
     "range (4 to 11)\n"
     "      - [jtrue, 99]\n"
     "        ^\n"},
    {lasso_plan, "    - [delta, 0, 1]\n", "    - [delta, 0, 2]\n", NULL, NULL,
     "plan.yaml:82:7: error: invalid priority: instruction 1 (delta): parameter 0 takes 1 index, "
     "not 2\n"
     "        - [delta, 0, 2]\n"
     "          ^\n"},
    {lasso_plan, "    - [abs]\n    - [const, 0]\n    - [add]\n",
     "    - [abs, 1]\n    - [const, 0]\n    - [add]\n", NULL, NULL,
     "plan.yaml:83:7: error: 'abs' takes 0 operands, not 1\n"
     "        - [abs, 1]\n"
     "          ^\n"},
    {lasso_plan, "    - [var, 1]\n    - [corr, 0, 0]\n", "    - [param, 0, 1]\n", NULL, NULL,
     "plan.yaml:71:7: error: invalid depend predicate: instruction 1 (param): parameter access not "
     "allowed here\n"
     "        - [param, 0, 1]\n"
     "          ^\n"},
    {lasso_plan, "  - [global, seconds]\n", "  - [rows, 0]\n", NULL, NULL,
     "plan.yaml:148:5: error: invalid stop rule: instruction 8 (rows): data sizes not allowed "
     "here\n"
     "      - [rows, 0]\n"
     "        ^\n"},
    {lasso_plan, "    - [var, 0]\n    - [nnz_col, 0]\n", "    - [global, rounds]\n", NULL, NULL,
     "plan.yaml:91:7: error: invalid cost: instruction 0 (global): global 'rounds' not allowed "
     "here\n"
     "        - [global, rounds]\n"
     "          ^\n"},
    /* an order reads what a cost reads: data and workers, one block index */
    {lasso_plan, "    - [var, 0]\n    - [nnz_col, 0]\n",
     "    - [var, 0]\n    - [nnz_col, 0]\n  order:\n    max_stack: 1\n    nvars: 1\n"
     "    consts: []\n    code:\n    - [var, 0]\n    - [delta, 0, 1]\n",
     NULL, NULL,
     "plan.yaml:99:7: error: invalid order: instruction 1 (delta): parameter access not allowed "
     "here\n"
     "        - [delta, 0, 1]\n"
     "          ^\n"},
    {lasso_plan, "    - [var, 0]\n    - [nnz_col, 0]\n",
     "    - [var, 0]\n    - [nnz_col, 0]\n  order:\n    max_stack: 1\n    nvars: 1\n"
     "    consts: []\n    code:\n    - [global, rounds]\n",
     NULL, NULL,
     "plan.yaml:98:7: error: invalid order: instruction 0 (global): global 'rounds' not allowed "
     "here\n"
     "        - [global, rounds]\n"
     "          ^\n"},
    {lasso_plan, "    - [var, 0]\n    - [nnz_col, 0]\n",
     "    - [var, 0]\n    - [nnz_col, 0]\n  order:\n    max_stack: 2\n    nvars: 2\n"
     "    consts: []\n    code:\n    - [var, 0]\n    - [var, 1]\n    - [add]\n",
     NULL, NULL,
     "plan.yaml:95:12: error: 'nvars' of the order must be 1, not 2\n"
     "        nvars: 2\n"
     "               ^\n"},
    {lasso_plan, "    - [var, 0]\n    - [nnz_col, 0]\n",
     "    - [var, 0]\n    - [nnz_col, 0]\n  order:\n    max_stack: 2\n    nvars: 1\n"
     "    consts: []\n    code:\n    - [var, 0]\n    - [var, 0]\n    - [cos, 0, 2]\n",
     NULL, NULL,
     "plan.yaml:100:7: error: invalid order: instruction 2 (cos): data 2 out of range (2 data "
     "sources)\n"
     "        - [cos, 0, 2]\n"
     "          ^\n"},
    {lasso_plan, "    max_stack: 2\n    nvars: 1\n", "    max_stack: 2\n    nvars: 2\n", NULL, NULL,
     "plan.yaml:78:12: error: 'nvars' of the priority must be 1, not 2\n"
     "        nvars: 2\n"
     "               ^\n"},
    {lasso_plan, "    max_stack: 2\n    nvars: 2\n", "    max_stack: 1\n    nvars: 2\n", NULL, NULL,
     "plan.yaml:66:5: error: invalid depend predicate: max_stack 1 is smaller than the 2 the "
     "program needs\n"
     "        max_stack: 1\n"
     "        ^^^^^^^^^\n"},
    {lasso_plan, "  - [global, sweeps]\n", "  - [global, sweep]\n", NULL, NULL,
     "plan.yaml:140:14: error: unknown global 'sweep' (did you mean 'sweeps'?)\n"
     "      - [global, sweep]\n"
     "                 ^^^^^\n"},
    /* 70 */
    {lasso_plan, "    consts: [0.1]\n    code:\n", "    consts: [0.1]\n    code: []\n",
     "    - [var, 0]\n    - [var, 1]\n    - [corr, 0, 0]\n    - [abs]\n    - [const, 0]\n"
     "    - [gt]\n",
     "",
     "plan.yaml:69:11: error: 'code' cannot be empty\n"
     "        code: []\n"
     "              ^\n"},
    {lasso_plan, "    consts: [1]\n", "    consts: [0]\n", NULL, NULL,
     "plan.yaml:61:14: error: a block count must be a whole number from 1 to 2147483647, not 0\n"
     "        consts: [0]\n"
     "                 ^\n"},
    {lasso_plan, "    consts: [1]\n", "    consts: [2.5]\n", NULL, NULL,
     "plan.yaml:61:14: error: a block count must be a whole number from 1 to 2147483647, not 2.5\n"
     "        consts: [2.5]\n"
     "                 ^^^\n"},
    {lasso_plan, "    consts: [1]\n", "    consts: [1]\n    txt: \"each 1\"\n", NULL, NULL,
     "plan.yaml:62:5: error: unknown key 'txt' in a program (did you mean 'text'?)\n"
     "        txt: \"each 1\"\n"
     "        ^^^\n"},
    {lasso_plan, "    consts: [0.0001]\n", "    consts: [0.0001, x]\n", NULL, NULL,
     "plan.yaml:79:22: error: 'constant' must be a number, not 'x'\n"
     "        consts: [0.0001, x]\n"
     "                         ^\n"},
    {lasso_plan, "  - [const, 0]\n  - [ge]\n", "  - const 0\n  - [ge]\n", NULL, NULL,
     "plan.yaml:141:5: error: an instruction must be a sequence [op, operand...], not 'const 0'\n"
     "      - const 0\n"
     "        ^^^^^^^\n"},
    /* block sets and the schedule */
    {lasso_plan, "  depend: pred\n", "  depend: file\n", NULL, NULL,
     "plan.yaml:54:3: error: missing key 'edges' in a block set\n"
     "    - name: \"coef\"\n"
     "      ^^^^\n"
     "plan.yaml:65:3: error: 'pred' goes with depend pred\n"
     "      pred:\n"
     "      ^^^^\n"},
    {lasso_plan, "  split: each\n", "  split: into\n", "  sample: 256\n", "  per_round: 3\n",
     "plan.yaml:94:3: error: missing key 'sample' in the schedule\n"
     "      policy: dynamic\n"
     "      ^^^^^^\n"
     "plan.yaml:96:3: error: 'per_round' is not an option of the dynamic policy\n"
     "      per_round: 3\n"
     "      ^^^^^^^^^\n"},
    {lasso_plan, "  keep: independent\n", "  keep: moved\n", NULL, NULL,
     "plan.yaml:101:3: error: 'keep: moved' takes 'pipeline: 0'\n"
     "      pipeline: 1\n"
     "      ^^^^^^^^\n"},
    {mf_plan, "  split: into\n", "  split: each\n", NULL, NULL,
     "plan.yaml:77:9: error: rotation needs one block per worker (split into, count 'workers'); "
     "block set 0 ('hb') is not made that way\n"
     "      over: 0\n"
     "            ^\n"},
    {lasso_plan, "  policy: dynamic\n", "  policy: data_parallel\n", NULL, NULL,
     "plan.yaml:94:3: error: missing key 'minibatch' in the schedule\n"
     "      policy: data_parallel\n"
     "      ^^^^^^\n"
     "plan.yaml:95:3: error: data_parallel updates every parameter: it has no 'over'\n"
     "      over: 0\n"
     "      ^^^^\n"
     "plan.yaml:96:3: error: 'sample' is not an option of the data_parallel policy\n"
     "      sample: 256\n"
     "      ^^^^^^\n"
     "plan.yaml:97:3: error: 'keep' is not an option of the data_parallel policy\n"
     "      keep: independent\n"
     "      ^^^^\n"
     "plan.yaml:98:3: error: 'warmup' is not an option of the data_parallel policy\n"
     "      warmup: 3\n"
     "      ^^^^^^\n"
     "plan.yaml:99:3: error: 'warmup_unit' is not an option of the data_parallel policy\n"
     "      warmup_unit: sweeps\n"
     "      ^^^^^^^^^^^\n"
     "plan.yaml:100:3: error: 'balance' is not an option of the data_parallel policy\n"
     "      balance: true\n"
     "      ^^^^^^^\n"
     "plan.yaml:101:3: error: 'pipeline' is not an option of the data_parallel policy\n"
     "      pipeline: 1\n"
     "      ^^^^^^^^\n"},
    /* 80 hooks */
    {lasso_plan, "  builtin: \"lasso_cd\"\n", "  builtin: \"lasso_cdd\"\n", NULL, NULL,
     "plan.yaml:107:12: error: unknown builtin 'lasso_cdd' (did you mean 'lasso_cd'?)\n"
     "      builtin: \"lasso_cdd\"\n"
     "               ^^^^^^^^^^^\n"},
    {lasso_plan, "  builtin: \"lasso_cd\"\n", "  builtin: \"lasso_objective\"\n", NULL, NULL,
     "plan.yaml:107:12: error: 'lasso_objective' is an objective, not an update rule\n"
     "      builtin: \"lasso_objective\"\n"
     "               ^^^^^^^^^^^^^^^^^\n"},
    {lasso_plan, LASSO_UPDATE_OPTIONS,
     "  - key: \"lambda\"\n    num: 0.001\n  - key: \"within\"\n    str: \"sideways\"\n"
     "  - key: \"X\"\n    data: 0\n  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n"
     "  - key: \"r\"\n    param: 1\nobjective:",
     NULL, NULL,
     "plan.yaml:111:10: error: option 'within' of lasso_cd takes one of parallel|sequential "
     "('str')\n"
     "      - key: \"within\"\n"
     "             ^^^^^^^^\n"},
    {lasso_plan, LASSO_UPDATE_OPTIONS,
     "  - key: \"lamda\"\n    num: 0.001\n  - key: \"X\"\n    num: 0\n"
     "  - key: \"y\"\n    data: 1\n  - key: \"y\"\n    data: 1\nobjective:",
     NULL, NULL,
     "plan.yaml:108:3: error: lasso_cd needs option 'lambda'\n"
     "      options:\n"
     "      ^^^^^^^\n"
     "plan.yaml:108:3: error: lasso_cd needs option 'beta'\n"
     "      options:\n"
     "      ^^^^^^^\n"
     "plan.yaml:108:3: error: lasso_cd needs option 'r'\n"
     "      options:\n"
     "      ^^^^^^^\n"
     "plan.yaml:109:10: error: lasso_cd has no option 'lamda' (did you mean 'lambda'?)\n"
     "      - key: \"lamda\"\n"
     "             ^^^^^^^\n"
     "plan.yaml:111:10: error: option 'X' of lasso_cd takes a data source ('data')\n"
     "      - key: \"X\"\n"
     "             ^^^\n"
     "plan.yaml:115:10: error: option 'y' is given twice\n"
     "      - key: \"y\"\n"
     "             ^^^\n"
     "plan.yaml:113:10: note: the first one is here\n"
     "      - key: \"y\"\n"
     "             ^^^\n"},
    {lasso_plan,
     "  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n  - key: \"r\"\n    param: "
     "1\nobjective:",
     "  - key: \"y\"\n    data: 1\n    str: \"y\"\n  - key: \"beta\"\n    param: 0\n  - key: "
     "\"r\"\n    param: 1\nobjective:",
     NULL, NULL,
     "plan.yaml:114:5: error: an option has one value ('str' or 'data'), not both\n"
     "        data: 1\n"
     "        ^^^^\n"},
    {mf_plan, "  - key: \"test\"\n    data: 1\n", "  - key: \"test\"\n    str: \"T\"\n", NULL, NULL,
     "plan.yaml:101:10: error: option 'test' of rmse takes a data source ('data') or \"\" ('str')\n"
     "      - key: \"test\"\n"
     "             ^^^^^^\n"},
    {lasso_plan, LASSO_UPDATE_OPTIONS,
     "  - key: \"lambda\"\n    num: 0.001\n  - key: \"split_min\"\n    str: \"all\"\n"
     "  - key: \"X\"\n    data: 0\n  - key: \"y\"\n    data: 1\n  - key: \"beta\"\n    param: 0\n"
     "  - key: \"r\"\n    param: 1\nobjective:",
     NULL, NULL,
     "plan.yaml:111:10: error: option 'split_min' of lasso_cd takes a number ('num') or \"\" "
     "('str')\n"
     "      - key: \"split_min\"\n"
     "             ^^^^^^^^^^^\n"},
    {lasso_plan, "  kind: builtin\n  builtin: \"lasso_cd\"\n",
     "  kind: lua\n  file: \"\"\n  function: \"f\"\n  builtin: \"lasso_cd\"\n", NULL, NULL,
     "plan.yaml:106:3: error: missing key 'push' in the update\n"
     "      kind: lua\n"
     "      ^^^^\n"
     "plan.yaml:107:9: error: 'file' cannot be empty\n"
     "      file: \"\"\n"
     "            ^^\n"
     "plan.yaml:108:3: error: 'function' goes with a Lua objective\n"
     "      function: \"f\"\n"
     "      ^^^^^^^^\n"
     "plan.yaml:109:3: error: 'builtin' goes with kind builtin\n"
     "      builtin: \"lasso_cd\"\n"
     "      ^^^^^^^\n"
     "plan.yaml:110:3: error: a Lua hook takes no options\n"
     "      options:\n"
     "      ^^^^^^^\n"},
    {lasso_plan, LASSO_UPDATE,
     "update:\n  kind: lua\n  file: \"hooks.lua\"\n  push: \"push\"\n  save: \"save\"\n"
     "objective:\n",
     "  kind: builtin\n  builtin: \"lasso_objective\"\n",
     "  kind: builtin\n  builtin: \"lasso_objective\"\n  load: \"load\"\n  save: 3\n",
     "plan.yaml:109:3: error: 'save' and 'load' go together\n"
     "      save: \"save\"\n"
     "      ^^^^\n"
     "plan.yaml:113:3: error: 'load' goes with kind lua\n"
     "      load: \"load\"\n"
     "      ^^^^\n"
     "plan.yaml:114:3: error: 'save' goes with kind lua\n"
     "      save: 3\n"
     "      ^^^^\n"},
    {lasso_plan, "  every: 10\n", "  every: 0\n", NULL, NULL,
     "plan.yaml:133:10: error: 'every' must be from 1 to 9007199254740991, not 0\n"
     "      every: 0\n"
     "             ^\n"},
    {lasso_plan, LASSO_OBJECTIVE, "", NULL, NULL,
     "plan.yaml:119:1: error: the stop rule reads the objective, but the plan has no 'objective'\n"
     "    stop:\n"
     "    ^^^^\n"},
    /* several independent mistakes: each reported */
    {lasso_plan, "seed: 1\n", "seed: -5\n", "  warmup_unit: sweeps\n", "  warmup_unit: epochs\n",
     "plan.yaml:4:7: error: 'seed' must be from 0 to 9007199254740991, not -5\n"
     "    seed: -5\n"
     "          ^^\n"
     "plan.yaml:99:16: error: unknown unit 'epochs' (use rounds or sweeps)\n"
     "      warmup_unit: epochs\n"
     "                   ^^^^^^\n"},
    /* locations: CR LF line ends, UTF-8 before the column, NEL inside a
     * string (a line break to libyaml, not to the renderer), a BOM */
    {lasso_plan, "consistency:\n  model: ssp\n  staleness: 0\nupdate:",
     "consistency: {model: ssp, \"\xc3\xa9t\xc3\xa9\": 1, stalenes: 0}\nupdate:", NULL, NULL,
     "plan.yaml:102:15: error: missing key 'staleness' in a consistency model\n"
     "    consistency: {model: ssp, \"été\": 1, stalenes: 0}\n"
     "                  ^^^^^\n"
     "plan.yaml:102:27: error: unknown key 'été' in a consistency model\n"
     "    consistency: {model: ssp, \"été\": 1, stalenes: 0}\n"
     "                              ^^^^^\n"
     "plan.yaml:102:37: error: unknown key 'stalenes' in a consistency model (did you mean "
     "'staleness'?)\n"
     "    consistency: {model: ssp, \"été\": 1, stalenes: 0}\n"
     "                                        ^^^^^^^^\n"},
    /* 90 */
    {lasso_crlf, "seed: 1\n", "seed: -1\n", "    - [const, 0]\n    - [gt]\n",
     "    - [const, 0]\n    - [gt, 0]\n",
     "plan.yaml:4:7: error: 'seed' must be from 0 to 9007199254740991, not -1\n"
     "    seed: -1\n"
     "          ^^\n"
     "plan.yaml:75:7: error: 'gt' takes 0 operands, not 1\n"
     "        - [gt, 0]\n"
     "          ^\n"},
    {lasso_plan, "base_dir: \"examples/lasso\"\nseed: 1\n",
     "base_dir: \"a\xc2\x85"
     "b\"\nseed: -1\n",
     NULL, NULL,
     "plan.yaml:4:7: error: 'seed' must be from 0 to 9007199254740991, not -1\n"
     "    seed: -1\n"
     "          ^^\n"},
    {lasso_plan, "ptm_plan: 1\n", "\xef\xbb\xbfptm_plan: 1\nptm_plan: 1\n", NULL, NULL,
     "plan.yaml:2:1: error: duplicate key 'ptm_plan'\n"
     "    ptm_plan: 1\n"
     "    ^^^^^^^^\n"
     "plan.yaml:1:1: note: 'ptm_plan' is first given here\n"
     "    ﻿ptm_plan: 1\n"
     "    ^^^^^^^^\n"},
    {NULL, NULL, "\xff\xfep\0t\0m\0", NULL, NULL,
     "plan.yaml:1:1: error: the plan is UTF-16: write it in UTF-8\n"
     "    ??p\n"
     "    ^^\n"},
    /* uniform out of its range; on a policy without it */
    {lasso_plan, "  pipeline: 1\n", "  pipeline: 1\n  uniform: 1.5\n", NULL, NULL,
     "plan.yaml:102:12: error: 'uniform' must be from 0 to 1\n"
     "      uniform: 1.5\n"
     "               ^^^\n"},
    {lasso_plan, LASSO_SCHEDULE,
     "schedule:\n  policy: random\n  over: 0\n  per_round: 10\n  uniform: 0.5\n", NULL, NULL,
     "plan.yaml:97:3: error: 'uniform' is not an option of the random policy\n"
     "      uniform: 0.5\n"
     "      ^^^^^^^\n"},
    /* checkpoints: a directory, and every N units or so many seconds (at
     * least 1); the keys of the one form only */
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 0\n  every_unit: rounds\n", NULL, NULL,
     "plan.yaml:157:10: error: 'every' must be from 1 to 9007199254740991, not 0\n"
     "      every: 0\n"
     "             ^\n"},
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 9007199254740992\n"
               "  every_unit: rounds\n",
     NULL, NULL,
     "plan.yaml:157:10: error: 'every' must be from 1 to 9007199254740991, not 9007199254740992\n"
     "      every: 9007199254740992\n"
     "             ^^^^^^^^^^^^^^^^\n"},
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 1.5\n  every_unit: sweeps\n", NULL, NULL,
     "plan.yaml:157:10: error: 'every' must be an integer, not '1.5'\n"
     "      every: 1.5\n"
     "             ^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 5\n", NULL, NULL,
     "plan.yaml:156:3: error: missing key 'every_unit' in the checkpoint\n"
     "      dir: \"ckpt\"\n"
     "      ^^^\n"},
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 5\n  every_unit: round\n", NULL, NULL,
     "plan.yaml:158:15: error: unknown unit 'round' (did you mean 'rounds'?)\n"
     "      every_unit: round\n"
     "                  ^^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: 0.5\n", NULL, NULL,
     "plan.yaml:157:12: error: 'seconds' must be at least 1, not 0.5\n"
     "      seconds: 0.5\n"
     "               ^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: -300\n", NULL, NULL,
     "plan.yaml:157:12: error: 'seconds' must be at least 1, not -300\n"
     "      seconds: -300\n"
     "               ^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: .nan\n", NULL, NULL,
     "plan.yaml:157:12: error: 'seconds' must be finite, not .nan\n"
     "      seconds: .nan\n"
     "               ^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: .inf\n", NULL, NULL,
     "plan.yaml:157:12: error: 'seconds' must be finite, not .inf\n"
     "      seconds: .inf\n"
     "               ^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: \"300\"\n", NULL,
     NULL,
     "plan.yaml:157:12: error: 'seconds' must be a number, not a string\n"
     "      seconds: \"300\"\n"
     "               ^^^^^\n"},
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: 300\n  every: 5\n"
               "  every_unit: rounds\n",
     NULL, NULL,
     "plan.yaml:157:3: error: 'seconds' goes without 'every' (a checkpoint is taken every N units "
     "or every so many seconds)\n"
     "      seconds: 300\n"
     "      ^^^^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n", NULL, NULL,
     "plan.yaml:156:3: error: missing key 'every' or 'seconds' in the checkpoint\n"
     "      dir: \"ckpt\"\n"
     "      ^^^\n"},
    {lasso_plan, LASSO_END,
     LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: 300\n  every_unit: rounds\n", NULL, NULL,
     "plan.yaml:158:3: error: 'every_unit' goes with 'every'\n"
     "      every_unit: rounds\n"
     "      ^^^^^^^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"\"\n  seconds: 300\n", NULL, NULL,
     "plan.yaml:156:8: error: 'dir' cannot be empty\n"
     "      dir: \"\"\n"
     "           ^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: ~\n  seconds: 300\n", NULL, NULL,
     "plan.yaml:156:8: error: 'dir' must be a string, not null\n"
     "      dir: ~\n"
     "           ^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  seconds: 300\n", NULL, NULL,
     "plan.yaml:156:3: error: missing key 'dir' in the checkpoint\n"
     "      seconds: 300\n"
     "      ^^^^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  secs: 300\n", NULL, NULL,
     "plan.yaml:156:3: error: missing key 'every' or 'seconds' in the checkpoint\n"
     "      dir: \"ckpt\"\n"
     "      ^^^\n"
     "plan.yaml:157:3: error: unknown key 'secs' in the checkpoint\n"
     "      secs: 300\n"
     "      ^^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n  dir: \"a\"\n  dir: \"b\"\n  seconds: 300\n",
     NULL, NULL,
     "plan.yaml:157:3: error: duplicate key 'dir'\n"
     "      dir: \"b\"\n"
     "      ^^^\n"
     "plan.yaml:156:3: note: 'dir' is first given here\n"
     "      dir: \"a\"\n"
     "      ^^^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint:\n- dir: \"ckpt\"\n", NULL, NULL,
     "plan.yaml:156:1: error: 'checkpoint' must be a mapping, not a sequence\n"
     "    - dir: \"ckpt\"\n"
     "    ^\n"},
    {lasso_plan, LASSO_END, LASSO_END "checkpoint: \"ckpt\"\n", NULL, NULL,
     "plan.yaml:155:13: error: 'checkpoint' must be a mapping, not a string\n"
     "    checkpoint: \"ckpt\"\n"
     "                ^^^^^^\n"},
};

START_TEST(test_reject)
{
    const struct reject_row *row = &reject_rows[_i];
    bool crlf = row->base == lasso_crlf;
    char *text = row_text(crlf ? lasso_plan : row->base, row->find, row->repl, row->find2,
                          row->repl2);
    if (crlf) {
        size_t n = strlen(text), k = 0;
        char *t = malloc(2 * n + 1);
        ck_assert_ptr_nonnull(t);
        for (size_t i = 0; i < n; i++) {
            if (text[i] == '\n')
                t[k++] = '\r';
            t[k++] = text[i];
        }
        t[k] = '\0';
        free(text);
        text = t;
    }
    struct loaded r = load_text(text, strlen(text));
    tu_expect_text("reject", _i, r.diags, row->want, NULL);
    ck_assert_int_eq(r.rc, PTM_ESYNTAX);
    ck_assert_uint_gt(r.nerrors, 0);
    loaded_free(&r);
    free(text);
}
END_TEST

/* ---- d. inputs built at run time ------------------------------------------ */

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Nesting bombs: 10,000 levels stop at the limit, at once. */
struct bomb_row {
    const char *prefix, *open; /* open repeated 10,000 times after prefix */
    const char *want;
};

static const struct bomb_row bomb_rows[] = {
    {"ptm_plan: 1\nx: ", "[",
     "plan.yaml:2:67: error: the plan nests deeper than 64 levels\n"
     "    ...[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...\n"
     "                                               ^\n"},
    {"ptm_plan: 1\nx: ", "{a: ",
     "plan.yaml:2:256: error: the plan nests deeper than 64 levels\n"
     "    ...{a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: ...\n"
     "                                               ^\n"},
    {"ptm_plan: 1\nx:\n", "- ",
     "plan.yaml:3:127: error: the plan nests deeper than 64 levels\n"
     "    ...- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - ...\n"
     "                                               ^\n"},
    {"ptm_plan: 1\nx: ", "[{a: ",
     "plan.yaml:2:160: error: the plan nests deeper than 64 levels\n"
     "    ...{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [{a: [...\n"
     "                                               ^\n"},
    {"", "[",
     "plan.yaml:1:65: error: the plan nests deeper than 64 levels\n"
     "    ...[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...\n"
     "                                               ^\n"},
};

START_TEST(test_bomb)
{
    const struct bomb_row *row = &bomb_rows[_i];
    size_t n = 10000, ol = strlen(row->open);
    char *text = malloc(strlen(row->prefix) + n * ol + 1);
    ck_assert_ptr_nonnull(text);
    strcpy(text, row->prefix);
    char *p = text + strlen(text);
    for (size_t i = 0; i < n; i++, p += ol)
        memcpy(p, row->open, ol);
    *p = '\0';
    double t0 = seconds_now();
    struct loaded r = load_text(text, strlen(text));
    double dt = seconds_now() - t0;
    tu_expect_text("bomb", _i, r.diags, row->want, NULL);
    ck_assert_int_eq(r.rc, PTM_ESYNTAX);
    ck_assert_msg(dt < 1.0, "bomb row %d took %.2f s", _i, dt);
    loaded_free(&r);
    free(text);
}
END_TEST

/* A 600 KB line of 200,000 scalars: every mark on it is found without
 * walking the line from its start again. */
START_TEST(test_wide_line)
{
    size_t n = 200000;
    char *text = malloc(64 + 3 * n);
    ck_assert_ptr_nonnull(text);
    char *p = text + sprintf(text, "ptm_plan: 1\nx: [");
    for (size_t i = 0; i < n; i++, p += 3)
        memcpy(p, "1, ", 3);
    strcpy(p, "y]\n...\n");
    double t0 = seconds_now();
    struct loaded r = load_text(text, strlen(text));
    double dt = seconds_now() - t0;
    ck_assert_int_eq(r.rc, PTM_ESYNTAX);
    ck_assert_ptr_nonnull(strstr(r.diags, "plan.yaml:2:1: error: unknown key 'x' in the plan\n"));
    ck_assert_msg(dt < 3.0, "a wide line took %.2f s", dt);
    loaded_free(&r);
    free(text);
}
END_TEST

/* Every proper prefix of a plan (short of its last newline) is refused
 * with exactly one error. */
START_TEST(test_truncated)
{
    const char *base = _i == 0 ? lasso_plan : mf_plan;
    size_t n = strlen(base);
    for (size_t len = 0; len + 1 < n; len++) {
        struct loaded r = load_text(base, len);
        ck_assert_msg(r.rc == PTM_ESYNTAX && r.nerrors == 1,
                      "prefix of %zu bytes: rc %d, %u errors:\n%s", len, r.rc, r.nerrors,
                      r.diags);
        loaded_free(&r);
    }
}
END_TEST

/* Many errors: the sink keeps PTM_DIAG_MAX_ERRORS and counts the rest. */
START_TEST(test_many_errors)
{
    char *text = malloc(64 + 200 * 16);
    ck_assert_ptr_nonnull(text);
    char *p = text + sprintf(text, "ptm_plan: 1\n");
    for (int i = 0; i < 200; i++)
        p += sprintf(p, "bad%d: 1\n", i);
    strcpy(p, "...\n");
    struct loaded r = load_text(text, strlen(text));
    ck_assert_int_eq(r.rc, PTM_ESYNTAX);
    ck_assert_uint_eq(r.nerrors, 200 + 12); /* unknown keys, then every missing one */
    ck_assert_ptr_nonnull(strstr(r.diags, "more errors not shown"));
    loaded_free(&r);
    free(text);
}
END_TEST

/* ---- e. values that must survive bit for bit ------------------------------ */

static const double tricky_numbers[] = {
    0.1, -0.0, 0.0, 1.0 / 3.0, 5e-324, 2.2250738585072009e-308, DBL_MIN, DBL_MAX, -DBL_MAX,
    1e15, 1e16, 123456789012345678.0, 0.30000000000000004, INFINITY, -INFINITY, 1e-7,
    -2.5e-300,
};

static const char *const tricky_strings[] = {
    "", "yes", "no", "007", "null", "~", "true", "1e3", ".inf", "a: b", "#x", "- x", "[x]",
    "{x}", "&a", "*a", "!t", "%x", "@x", "`x", "'", "\"", "\\", " lead", "trail ", "tab\there",
    "line\nbreak", "cr\rlf", "\x01\x1f\x7f", "\xc3\xa9t\xc3\xa9", "\xc2\x85", "\xe2\x80\xa8",
    "\xef\xbb\xbf", "\xf0\x9f\x98\x80", "...", "---", "a\n\nb", "  ",
};

START_TEST(test_values)
{
    struct loaded base = load_text(lasso_plan, strlen(lasso_plan));
    ck_assert_int_eq(base.rc, 0);
    struct ptm_plan *p = base.plan;
    size_t nn = PTM_ARRAY_LEN(tricky_numbers), ns = PTM_ARRAY_LEN(tricky_strings);
    /* Numbers as string-less consts, strings as string consts. */
    for (uint32_t i = 0; i < p->nconsts; i++) {
        ptm_free(p->consts[i].name);
        ptm_free(p->consts[i].str);
    }
    ptm_free(p->consts);
    p->nconsts = (uint32_t)(nn + ns);
    p->consts = ptm_malloc((nn + ns) * sizeof(*p->consts));
    ck_assert_ptr_nonnull(p->consts);
    memset(p->consts, 0, (nn + ns) * sizeof(*p->consts));
    for (size_t i = 0; i < nn + ns; i++) {
        char name[16];
        snprintf(name, sizeof(name), "k%zu", i);
        p->consts[i].name = plan_strdup(name);
        if (i < nn) {
            p->consts[i].num = tricky_numbers[i];
        } else {
            p->consts[i].is_str = true;
            p->consts[i].str = plan_strdup(tricky_strings[i - nn]);
        }
    }
    ptm_free(p->base_dir);
    p->base_dir = plan_strdup("dir: #with \"quotes\"\n\xc3\xa9");

    char *text;
    size_t len;
    ck_assert_int_eq(ptm_plan_emit_buf(p, &text, &len), 0);
    struct loaded r = load_text(text, len);
    tu_expect_text("values", 0, r.diags, "", NULL);
    ck_assert_int_eq(r.rc, 0);
    for (size_t i = 0; i < nn; i++) {
        double a = tricky_numbers[i], b = r.plan->consts[i].num;
        ck_assert_msg(isnan(a) ? isnan(b) : memcmp(&a, &b, sizeof(a)) == 0,
                      "number %zu: %.17g read back as %.17g", i, a, b);
    }
    for (size_t i = 0; i < ns; i++)
        ck_assert_msg(strcmp(tricky_strings[i], r.plan->consts[nn + i].str) == 0,
                      "string %zu read back as \"%s\"", i, r.plan->consts[nn + i].str);
    ck_assert_str_eq(r.plan->base_dir, p->base_dir);
    same_plan(p, r.plan);
    ck_assert_str_eq(r.yaml, text);

    /* A string that is not UTF-8 has no YAML form. */
    ptm_free(p->base_dir);
    p->base_dir = plan_strdup("bad\xff");
    char *bad;
    ck_assert_int_eq(ptm_plan_emit_buf(p, &bad, &len), PTM_EINVAL);
    ck_assert_ptr_null(bad);

    ptm_free(text);
    loaded_free(&r);
    loaded_free(&base);
}
END_TEST

/* A write error is PTM_EIO, not silence. */
START_TEST(test_emit_full)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return; /* no /dev/full here */
    struct loaded base = load_text(lasso_plan, strlen(lasso_plan));
    ck_assert_int_eq(base.rc, 0);
    ck_assert_int_eq(ptm_plan_emit(base.plan, f), PTM_EIO);
    fclose(f);
    loaded_free(&base);
}
END_TEST

/* ---- f. allocation failure ------------------------------------------------ */

/* Loading fails cleanly at every allocation: PTM_ENOMEM (or, for a plan
 * with errors, PTM_ESYNTAX with the sink out of memory), never a plan, no
 * leak; once nothing fails, the ordinary result. */
static void fault_load(const char *text, int want)
{
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "plan.yaml", text, strlen(text)), 0);
    for (unsigned long n = 1;; n++) {
        struct arena arena;
        arena_init(&arena);
        struct ptm_diags diags;
        diag_init(&diags, &arena);
        struct ptm_plan *plan = NULL;
        ptm_fault_inject(n);
        int rc = ptm_plan_load(&src, &diags, &plan);
        unsigned long calls = ptm_fault_inject(0);
        bool hit = calls >= n;
        if (hit) {
            ck_assert_msg(rc == PTM_ENOMEM || (rc == PTM_ESYNTAX && diags.oom),
                          "allocation %lu failed: rc %d", n, rc);
            ck_assert_ptr_null(plan);
        } else {
            ck_assert_int_eq(rc, want);
            ck_assert((plan != NULL) == (want == 0));
        }
        plan_free(plan);
        arena_release(&arena);
        if (!hit)
            break;
    }
    ptm_source_release(&src);
}

static const char *const fault_rows[] = {lasso_plan, mf_plan, NULL, NULL};

START_TEST(test_fault_load)
{
    if (fault_rows[_i]) {
        fault_load(fault_rows[_i], 0);
        return;
    }
    /* Plans with errors: the diagnostics allocate too. */
    const struct reject_row *row = &reject_rows[_i == 2 ? 82 : 88];
    char *text = row_text(row->base, row->find, row->repl, row->find2, row->repl2);
    fault_load(text, PTM_ESYNTAX);
    free(text);
}
END_TEST

/* Writing the plan of text fails cleanly at every allocation; once nothing
 * fails, text again. */
static void fault_emit(const char *text)
{
    struct loaded base = load_text(text, strlen(text));
    ck_assert_int_eq(base.rc, 0);
    for (unsigned long n = 1;; n++) {
        char *out;
        size_t len;
        ptm_fault_inject(n);
        int rc = ptm_plan_emit_buf(base.plan, &out, &len);
        unsigned long calls = ptm_fault_inject(0);
        if (calls >= n) {
            ck_assert_int_eq(rc, PTM_ENOMEM);
            ck_assert_ptr_null(out);
            continue;
        }
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(out, text);
        ptm_free(out);
        break;
    }
    loaded_free(&base);
}

START_TEST(test_fault_emit)
{
    fault_emit(fault_rows[_i]);
}
END_TEST

/* The checkpoint, in each of its forms. */
START_TEST(test_fault_checkpoint)
{
    static const char *const forms[] = {
        LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  every: 10\n  every_unit: sweeps\n",
        LASSO_END "checkpoint:\n  dir: \"ckpt\"\n  seconds: 300\n",
    };
    char *text = edit(lasso_plan, LASSO_END, forms[_i]);
    fault_load(text, 0);
    fault_emit(text);
    free(text);
}
END_TEST

/* ---- the suite ------------------------------------------------------------ */

/* One loop test over every row of table. */
#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))

static Suite *plan_suite(void)
{
    Suite *s = suite_create("plan");
    TCase *tc;

    tc = tcase_create("roundtrip");
    tcase_set_timeout(tc, 30);
    add_rows(tc, test_roundtrip, examples);
    tcase_add_test(tc, test_roundtrip_shuffle);
    tcase_add_test(tc, test_roundtrip_order);
    add_rows(tc, test_golden, examples);
    add_rows(tc, test_roundtrip_checkpoint, ckpt_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("accept");
    add_rows(tc, test_accept, accept_rows);
    tcase_add_test(tc, test_values);
    tcase_add_test(tc, test_emit_full);
    suite_add_tcase(s, tc);

    tc = tcase_create("reject");
    add_rows(tc, test_reject, reject_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("huge");
    tcase_set_timeout(tc, 60); /* thousands of loads under sanitizers */
    add_rows(tc, test_bomb, bomb_rows);
    tcase_add_loop_test(tc, test_truncated, 0, 2);
    tcase_add_test(tc, test_many_errors);
    tcase_add_test(tc, test_wide_line);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_set_timeout(tc, 60);
    add_rows(tc, test_fault_load, fault_rows);
    tcase_add_loop_test(tc, test_fault_emit, 0, 2);
    tcase_add_loop_test(tc, test_fault_checkpoint, 0, 2);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plan_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
