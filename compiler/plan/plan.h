/*
 * plan.h - the schedule plan: the contract between the compiler and
 * everything downstream.
 *
 * A plan says everything the runtime needs and nothing about the source it
 * came from: data sources, parameter tables, blocks with their dependency
 * structure, priority and cost programs, the scheduling policy and its
 * options, update and objective hooks, the stop rule, outputs and the seed.
 * It owns all of its memory (plan_free() releases it) and never points
 * into a syntax tree. A plan fresh from the compiler and one loaded from
 * YAML are the same value; spec/plan.md documents the YAML form.
 *
 * Sizes that depend on data (cols(X)) stay programs until the data is
 * loaded; everything else is resolved at compile time.
 */
#ifndef PTM_PLAN_H
#define PTM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prog.h"

#define PTM_PLAN_VERSION 1

/* X(NAME, "name") lists: the name is both the language's word and YAML's. */
#define PLAN_FORMAT_LIST(X)                                                    \
    X(LIBSVM, "libsvm")                                                        \
    X(MM, "mm")                                                                \
    X(UCI, "uci")                                                              \
    X(CSV, "csv")                                                              \
    X(LABELS, "labels") /* the label column of another data source */

#define PLAN_SHARD_LIST(X)                                                     \
    X(NONE, "none")                                                            \
    X(ROWS, "rows")                                                            \
    X(COLS, "cols")

#define PLAN_POLICY_LIST(X)                                                    \
    X(DYNAMIC, "dynamic")                                                      \
    X(ROTATION, "rotation")                                                    \
    X(ROUND_ROBIN, "round_robin")                                              \
    X(RANDOM, "random")                                                        \
    X(DATA_PARALLEL, "data_parallel")

#define PLAN_CONS_LIST(X)                                                      \
    X(SSP, "ssp")                                                              \
    X(ASYNC, "async")

#define PLAN_INIT_LIST(X)                                                      \
    X(CONST, "const")   /* every element = value */                           \
    X(RANDOM, "random") /* uniform in [-value, value], from the job's seed */  \
    X(DATA, "data")     /* a copy of a vector data source (data) */            \
    X(FILE, "file")     /* the values of a file an output wrote (init_path) */

#define PLAN_UNIT_LIST(X)                                                      \
    X(ROUNDS, "rounds")                                                        \
    X(SWEEPS, "sweeps")

/* The measures of a model on held-out data (`metric NAME = KIND(DATA)`),
 * as `ptm predict` computes them: X(NAME, "name", higher is better). */
#define PLAN_METRIC_LIST(X)                                                    \
    X(RMSE, "rmse", false)                                                     \
    X(MAE, "mae", false)                                                       \
    X(R2, "r2", true)                                                          \
    X(LOGLOSS, "logloss", false)                                               \
    X(ACCURACY, "accuracy", true)                                              \
    X(AUC, "auc", true)                                                        \
    X(LOGLIK_PER_WORD, "loglik_per_word", true)                                \
    X(PERPLEXITY, "perplexity", false)

#define X(name, text) PLAN_FORMAT_##name,
enum plan_format { PLAN_FORMAT_LIST(X) PLAN_NFORMATS };
#undef X
#define X(name, text) PLAN_SHARD_##name,
enum plan_shard { PLAN_SHARD_LIST(X) PLAN_NSHARDS };
#undef X
#define X(name, text) PLAN_POLICY_##name,
enum plan_policy { PLAN_POLICY_LIST(X) PLAN_NPOLICIES };
#undef X
#define X(name, text) PLAN_CONS_##name,
enum plan_cons { PLAN_CONS_LIST(X) PLAN_NCONS };
#undef X
#define X(name, text) PLAN_INIT_##name,
enum plan_init { PLAN_INIT_LIST(X) PLAN_NINITS };
#undef X
#define X(name, text) PLAN_UNIT_##name,
enum plan_unit { PLAN_UNIT_LIST(X) PLAN_NUNITS };
#undef X
#define X(name, text, higher) PLAN_METRIC_##name,
enum plan_metric_kind { PLAN_METRIC_LIST(X) PLAN_NMETRIC_KINDS };
#undef X

const char *plan_format_name(enum plan_format f);
const char *plan_shard_name(enum plan_shard s);
const char *plan_policy_name(enum plan_policy p);
const char *plan_cons_name(enum plan_cons c);
const char *plan_init_name(enum plan_init i);
const char *plan_unit_name(enum plan_unit u);
/* Lookups by name: the enum value, or -1. */
int plan_format_lookup(const char *s);
int plan_shard_lookup(const char *s);
int plan_policy_lookup(const char *s);
int plan_cons_lookup(const char *s);
int plan_init_lookup(const char *s);
int plan_unit_lookup(const char *s);
const char *plan_metric_name(enum plan_metric_kind k);
int plan_metric_lookup(const char *s);
/* True when a larger value of the metric is better (auc), false when a
 * smaller one is (rmse). */
bool plan_metric_higher(enum plan_metric_kind k);

/* A constant of the job, as finally set (after --set). */
struct plan_const {
    char *name;
    bool is_str;
    double num;
    char *str;
};

struct plan_data {
    char *name;
    char *path; /* NULL for LABELS */
    enum plan_format format;
    bool matrix;    /* else vector */
    bool sparse;    /* storage */
    bool integer;   /* int elements */
    enum plan_shard shard;
    int32_t labels_of; /* LABELS: index of the data whose labels these are; else -1 */
    char *vocab;       /* UCI: vocabulary file, or NULL */
    char *label_column; /* LABELS of csv data: the header's name of the label
                           column; NULL: the first column */
};

struct plan_param {
    char *name;
    bool matrix;
    bool integer;
    struct prog dims[2]; /* rows (the length of a vector), cols; ROWS/COLS/GLOBAL workers allowed */
    enum plan_init init;
    double init_value; /* CONST value, RANDOM scale */
    int32_t init_data; /* DATA: index of a vector data source; else -1 */
    char *init_path;   /* FILE: the file, relative to base_dir; else NULL */
    int32_t shard_like; /* rows live with this data's row shards; -1: replicated */
    enum plan_cons cons;
    int32_t staleness; /* SSP: s >= 0 (0 is BSP) */
};

enum plan_axis { PLAN_AXIS_ELEMS, PLAN_AXIS_ROWS, PLAN_AXIS_COLS };
enum plan_depend_kind { PLAN_DEPEND_NONE, PLAN_DEPEND_PRED, PLAN_DEPEND_FILE };

/* Schedulable blocks of one parameter, and their structure. */
struct plan_blockset {
    char *name;
    int32_t param;
    enum plan_axis axis; /* a vector's elements, or a matrix's rows or columns */
    bool into;           /* true: `count` equal blocks; false: blocks of `count` */
    struct prog count;   /* GLOBAL workers allowed */
    enum plan_depend_kind depend;
    struct prog pred; /* PRED: vars i, j; symmetric */
    char *edges;      /* FILE: edge list path */
    bool has_priority, has_cost, has_order;
    struct prog priority; /* var j; default |delta| + 1e-4 in the runtime */
    struct prog cost;     /* var j; default 1 */
    struct prog order;    /* var j; dynamic's first active pass, largest first; default number order */
};

/* Options of a scheduling policy, resolved; see spec/language.md. */
struct plan_schedule {
    enum plan_policy policy;
    int32_t over; /* blockset, or -1 (data_parallel) */
    int64_t sample;     /* dynamic: candidates per round */
    bool keep_all;      /* dynamic: no dependency filtering */
    bool keep_moved;    /* dynamic: the filter over the blocks a round changed, after the update */
    int64_t warmup;     /* dynamic: uniform sampling first */
    enum plan_unit warmup_unit;
    bool balance;       /* dynamic: balance cost across workers */
    int64_t pipeline;   /* dynamic: rounds scheduled ahead */
    double uniform;     /* dynamic: the share of candidates drawn uniformly, 0 .. 1 */
    bool active;        /* dynamic: passes over every block, then over those that move */
    bool shuffle;       /* dynamic, active: active passes in runs of 256, the runs shuffled */
    int64_t per_round;  /* round_robin, random: blocks per round; 0 = workers */
    int64_t minibatch;  /* data_parallel: rows per clock per worker */
};

/* An option of a built-in kernel: a number, a string, or a reference to a
 * data source or a parameter. */
enum plan_value_kind { PLAN_VALUE_NUM, PLAN_VALUE_STR, PLAN_VALUE_DATA, PLAN_VALUE_PARAM };
struct plan_option {
    char *key;
    enum plan_value_kind kind;
    double num;
    char *str;
    int32_t ref; /* DATA, PARAM */
};

struct plan_hook {
    bool present;
    bool lua; /* else builtin */
    char *file;    /* lua: path */
    char *push;    /* lua update: function names; NULL when absent */
    char *pull;
    char *apply;   /* lua update: optional; runs on every worker after pull */
    char *init;    /* lua update: optional; runs once on every worker before the first round */
    char *save;    /* lua: optional, both or neither: the hook file's own state in a */
    char *load;    /* checkpoint (spec/runtime.md); an objective's, in a file of its own */
    char *fn;      /* lua objective: function name */
    char *builtin; /* builtin: kernel name */
    struct plan_option *options;
    uint32_t noptions;
    int64_t every; /* objective: evaluate every N units */
    enum plan_unit every_unit;
};

/* `metric NAME = KIND(DATA)`: the model's KIND on data DATA, evaluated
 * with the objective; the stop rule may read it. */
struct plan_metric {
    char *name;
    enum plan_metric_kind kind;
    int32_t data; /* a matrix data source */
};

struct plan_output {
    int32_t param;
    char *path;
    char *format; /* "tsv" */
};

/* `checkpoint every N sweeps|rounds to "DIR"` or `checkpoint every
 * DURATION to "DIR"` (spec/language.md 5.14a, spec/runtime.md Checkpoints).
 * DIR is an output: like outputs' paths, a relative DIR is relative to the
 * current directory of the run, not to base_dir. */
struct plan_checkpoint {
    char *dir;      /* NULL: no checkpoints */
    int64_t every;  /* > 0 with every_unit; or 0 when seconds says when */
    enum plan_unit every_unit;
    double seconds; /* >= 1 when every is 0: at most this long between checkpoints */
};

struct ptm_plan {
    char *job;
    char *base_dir; /* relative paths are relative to this directory */
    uint64_t seed;
    struct plan_const *consts;
    uint32_t nconsts;
    struct plan_data *data;
    uint32_t ndata;
    struct plan_param *params;
    uint32_t nparams;
    struct plan_blockset *blocksets;
    uint32_t nblocksets;
    struct plan_schedule schedule;
    enum plan_cons cons; /* job default for parameters that say nothing */
    int32_t staleness;
    struct plan_hook update;
    struct plan_hook objective;
    struct plan_metric *metrics;
    uint32_t nmetrics;
    struct prog stop; /* globals and metrics only; empty program: never stop on its own */
    bool has_stop;
    struct plan_output *outputs;
    uint32_t noutputs;
    struct plan_checkpoint checkpoint;
};

/* A zeroed plan; returns NULL when out of memory. */
struct ptm_plan *plan_new(void);
void plan_free(struct ptm_plan *p);

/* Copy of s[0..len) with a NUL, from ptm_malloc; NULL when out of memory. */
char *plan_strndup(const char *s, size_t len);
char *plan_strdup(const char *s);

#endif
