/*
 * sched_env.h - the struct prog_env that schedulers evaluate a block set's
 * expressions (priority, depend, cost) with, for the engine and the dry
 * run alike: the data callbacks of expr_env.h plus parameter values and
 * delta() over arrays the caller owns, and the run's counters as globals.
 */
#ifndef PTM_SCHED_ENV_H
#define PTM_SCHED_ENV_H

#include <stdint.h>

#include "data.h"
#include "expr_env.h"
#include "plan.h"
#include "prog.h"

struct sched_env_param {
    const double *val;   /* rows * cols, row-major; NULL: not readable here */
    const double *delta; /* each element's last change; NULL: all 0 */
    int64_t rows, cols;
};

struct sched_env {
    struct expr_data data; /* first: the callbacks' ud points here */
    struct expr_source *src;
    struct sched_env_param *params; /* per parameter of the plan */
    uint32_t nparams;
    double globals[PROG_NGLOBALS]; /* rounds, sweeps, ...: the caller keeps them current */
    struct prog_env env;           /* the template handed to schedulers */
};

/* An order of the common shape: [abs](cos|corr)(col(X, j), v) or with
 * the two swapped, X a sparse matrix and v a vector (5.7's example). Its
 * values come from one pass over X's columns (sched_setup.c), which also
 * gives the sums corr() and cos() need: X's column sums are then not
 * computed for it. */
struct order_shape {
    int32_t x, v;   /* data sources: the matrix, the vector */
    bool corr, abs; /* corr() else cos(); abs() around it */
};
bool sched_order_shape(const struct ptm_plan *plan, const struct prog *p, struct order_shape *out);

/* Set e up for plan over its data sets (data[k] for data source k, NULL
 * for labels() sources, as the engine holds them). Builds the CSC views,
 * when missing, and the column statistics of the data sets that a block
 * set's expressions read with corr() or cos(). Call before
 * workers start. Returns 0 or PTM_ENOMEM (e is then released). */
int sched_env_init(struct sched_env *e, const struct ptm_plan *plan, struct ptm_dataset *const *data);
/* Where parameter p's values and changes are. Borrows the arrays. */
void sched_env_param(struct sched_env *e, int32_t p, const double *val, const double *delta,
                     int64_t rows, int64_t cols);
void sched_env_release(struct sched_env *e);

#endif
