/*
 * predict.h - `ptm predict`: a trained model applied to new data and
 * scored (spec/runtime.md, "Predicting").
 *
 * The job says everything a prediction needs: its update rule names the
 * model and, through its options, the parameters that hold what was
 * learned (lasso_cd's beta, mf_sgd's W and H, ...) and the data they were
 * learned from; its `output` statements say where a run wrote those
 * parameters. A model's predict function (struct ptm_model) asks for them
 * by option name: ptm_predict_param() reads the parameter an option names
 * from the TSV file its output wrote (or the file --param gives), and
 * ptm_predict_data() reads the new data file as the job declares the data
 * an option names (its format and storage). It writes one prediction a
 * line to pr->out, when there is one, and adds the metrics the labels of
 * the new data allow with ptm_predict_metric().
 *
 * Parameters are read whole, on one thread: a prediction is a pass over
 * the new data.
 */
#ifndef PTM_PREDICT_H
#define PTM_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data.h"
#include "plan.h"

#define PTM_PREDICT_METRICS 8

/* Where a parameter is read from instead of its output's file: --param. */
struct ptm_predict_file {
    const char *param; /* the job's name for it */
    const char *path;
};

struct ptm_predict {
    /* Set by the caller. */
    const struct ptm_plan *plan;
    const char *model_dir; /* relative output paths are read from here; NULL: "." */
    const struct ptm_predict_file *files;
    size_t nfiles;
    const char *data_path; /* the new data ("-": standard input) */
    const char *vocab_path; /* UCI: its vocabulary; NULL: the job's */
    FILE *out;              /* predictions; NULL: score only */
    FILE *log;              /* warnings; NULL: none */
    bool color;             /* diagnostics in colour */
    uint64_t seed;          /* for sampling models (LDA's fold-in) */
    int64_t sweeps;         /* LDA fold-in sweeps; 0: the model's default */
    /* Set by the model. */
    struct {
        const char *name;
        double value;
    } metric[PTM_PREDICT_METRICS];
    int nmetrics;
    char names[PTM_PREDICT_METRICS][32]; /* metric names a model made (a Lua hook's) */
    int64_t predicted; /* predictions made: rows, pairs or documents */
    const char *unit;  /* what a prediction is: "rows", "pairs", "documents" */
    /* Set by a caller that gives the tables and the data itself (a run's
     * metrics): ptm_predict_release() leaves them alone. */
    bool borrowed;
    /* Private. */
    struct ptm_values *tables; /* by parameter index; val NULL until read */
    char **paths;             /* where each was read */
    struct ptm_dataset *data;
    struct ptm_data_diags *dg;
};

/* Set up pr (its caller's fields already set). Returns 0 or PTM_ENOMEM. */
int ptm_predict_init(struct ptm_predict *pr, struct ptm_data_diags *dg);
void ptm_predict_release(struct ptm_predict *pr);

/* Run the prediction of the job's model. Returns 0; PTM_EDATA, PTM_ENOENT
 * or PTM_EIO for a bad or unreadable file (the messages in the diags given
 * to ptm_predict_init, or in err); PTM_EINVAL when the job's model cannot
 * predict or its parameters do not fit together or the data (err);
 * PTM_ENOMEM. */
int ptm_predict_run(struct ptm_predict *pr, char *err, size_t errlen);

/* For models. The parameter the update's option key names, read whole;
 * NULL when the option is absent and !required (an optional parameter
 * such as an intercept), or on failure (rc and err set). */
const struct ptm_values *ptm_predict_param(struct ptm_predict *pr, const char *key,
                                          bool required, int *rc, char *err, size_t errlen);
/* The same for parameter p of the job (an index into plan->params). */
const struct ptm_values *ptm_predict_param_at(struct ptm_predict *pr, int32_t p, int *rc,
                                             char *err, size_t errlen);
/* Whether parameter p has a file to be read from: an output, or --param. */
bool ptm_predict_param_known(const struct ptm_predict *pr, int32_t p);
/* Where the table of the parameter option key names was read. */
const char *ptm_predict_param_path(const struct ptm_predict *pr, const char *key);
/* The new data, read as the job declares the data its update's option key
 * names; NULL on failure (rc set; messages in the diags or err). */
const struct ptm_dataset *ptm_predict_data(struct ptm_predict *pr, const char *key, int *rc,
                                           char *err, size_t errlen);
/* The same for data k of the job (an index into plan->data). */
const struct ptm_dataset *ptm_predict_data_at(struct ptm_predict *pr, int32_t k, int *rc,
                                              char *err, size_t errlen);
/* A model whose update is a Lua file: its predict(w, job) hook
 * (runtime/lua/predict_lua.c). */
int rt_lua_predict(struct ptm_predict *pr, char *err, size_t errlen);
/* The number option key of the update, or dflt. */
double ptm_predict_option(const struct ptm_predict *pr, const char *key, double dflt);
/* Record a metric (at most PTM_PREDICT_METRICS; name is borrowed). */
void ptm_predict_metric(struct ptm_predict *pr, const char *name, double value);
/* A warning on pr->log: "ptm: warning: " and the text. */
void ptm_predict_warn(struct ptm_predict *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A linear model's margins on the new data, the data the update's option
 * X names: x_i . w + b, with w the parameter the option wkey names (one
 * value a line) and b the one the option intercept names, if any. Columns
 * of the data beyond w count as weight 0 (with a warning). *margin (n of
 * them, ptm_free) on success; pr->predicted is set. */
int ptm_predict_linear(struct ptm_predict *pr, const char *wkey, double **margin, char *err,
                       size_t errlen);
/* v[0 .. n) to pr->out, one %.17g a line (nothing without pr->out).
 * Returns 0 or PTM_EIO. */
int ptm_predict_write(struct ptm_predict *pr, const double *v, int64_t n);

/* Metrics, shared by the models. Regression: RMSE, MAE and R^2 of pred
 * against y (R^2 against the mean of y; NaN when y is constant). */
void ptm_predict_regression(struct ptm_predict *pr, const double *y, const double *pred,
                            int64_t n);
/* Classification from the margins m_i (log-odds of label > 0): mean log
 * loss, accuracy at probability 1/2, and the area under the ROC curve
 * (ties counted half; NaN when only one class is present). Returns 0 or
 * PTM_ENOMEM. */
int ptm_predict_classification(struct ptm_predict *pr, const double *y, const double *m,
                               int64_t n);

#endif
