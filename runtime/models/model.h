/*
 * model.h - a built-in model as the engine and `ptm gen` see it: one
 * struct of tables and function pointers (struct ptm_model), as struct
 * ptm_sched_ops is for scheduling policies, and the registry made from
 * models.def.
 *
 * A model lives in one folder, runtime/models/NAME/: its kernel, its
 * update rules and objectives (struct rt_rule and struct rt_objective of
 * engine_impl.h), their options as the compiler checks them
 * (builtins_NAME.c), its data generator and whatever it writes beyond its
 * parameter tables. The engine names no model: it finds a job's rule and
 * objective here by the names the plan gives, and asks the model the
 * questions below. No model header is included outside its folder.
 */
#ifndef PTM_MODEL_H
#define PTM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct builtin;
struct plan_output;
struct ptm_gen;
struct ptm_dataset;
struct ptm_plan;
struct ptm_predict;
struct ptm_run;
struct rt_objective;
struct rt_rule;

/* An update rule or an objective of the model, under the name a job
 * gives it (`update builtin NAME`, `objective builtin NAME`). */
struct ptm_model_rule {
    const char *builtin;
    const struct rt_rule *rule;
};
struct ptm_model_objective {
    const char *builtin;
    const struct rt_objective *obj;
};

struct ptm_model {
    const char *name; /* its folder; `ptm gen NAME` */
    /* What the compiler checks (builtins.h): ends with a NULL name. */
    const struct builtin *builtins;
    /* Its rules and objectives, each list ended by a NULL builtin. */
    const struct ptm_model_rule *rules;
    const struct ptm_model_objective *objectives;
    /* True when a run of plan reads its row-sharded matrix by columns
     * only, so the engine may keep the columns and drop the rows. NULL:
     * never. Called only for plans whose update is one of the model's. */
    bool (*columns_only)(const struct ptm_plan *plan);
    /* After the table of output o is written, what the model writes beside
     * it (every rank calls it, as the engine writes tables). Returns 0, or
     * PTM_EIO or PTM_ENOMEM with a message in err. NULL: nothing. */
    int (*write_output)(const struct ptm_run *run, const struct plan_output *o, char *err,
                        size_t errlen);
    /* `ptm predict` (predict.h): apply the trained parameters to new data,
     * write the predictions and score them. Returns 0 or a PTM_E* code
     * with a message in err (or in the data diagnostics). NULL: the model
     * cannot predict. */
    int (*predict)(struct ptm_predict *pr, char *err, size_t errlen);
    /* The options of the update that name the parameters predict reads
     * (an optional one may be absent), ended by NULL: what a run gathers
     * for its metrics. */
    const char *const *predict_params;
    /* `ptm gen NAME` (gen.h), or NULL: the model has no generator. */
    const struct ptm_gen *gen;
    /* For the memory plan: the bytes parameter p of plan (rows x cols of
     * it on this process) takes in a run on one process whose tables only
     * the outputs read after it (ptm run), when the model keeps it in a
     * form of its own rather than the table of doubles (lda_gibbs's
     * integer counts), data the data sets as read; negative: as doubles.
     * NULL: always as doubles. */
    double (*table_bytes)(const struct ptm_plan *plan, int32_t p, double rows, double cols,
                          struct ptm_dataset *const *data);
};

/* Each model's, defined in its folder. */
#define PTM_MODEL(m) extern const struct ptm_model ptm_model_##m;
#include "models.def"

/* The models in the order of models.def; *n receives the count. */
const struct ptm_model *const *ptm_models(size_t *n);
/* The model named name, or NULL. */
const struct ptm_model *ptm_model_find(const char *name);
/* The update rule a job names builtin, and its model in *model; NULL
 * (and *model NULL) when no model has it. */
const struct rt_rule *ptm_model_rule(const char *builtin, const struct ptm_model **model);
/* The objective named builtin, or NULL. */
const struct rt_objective *ptm_model_objective(const char *builtin);
/* For a missing data file path that a job reads with others (every
 * file the job reads, path among them): the `ptm gen` command that writes
 * it into its directory, in buf, or false when no generator writes a file
 * of its name. Of several generators, the one that writes most of the
 * job's files; with the flags those files need. */
bool ptm_gen_hint(const char *path, const char *const *job_files, size_t n, char *buf,
                  size_t len);
/* The names of every model's update rules (objectives: false), joined by
 * ", " into buf (cut at len), for messages. */
void ptm_model_list(bool objectives, char *buf, size_t len);

#endif
