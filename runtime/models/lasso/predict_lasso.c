/*
 * predict_lasso.c - `ptm predict` for the Lasso: y = X beta (+ b, the
 * intercept when the update names one), one prediction a row; with
 * labels, RMSE, MAE and R^2 against them.
 */
#include "predict_lasso.h"

#include "arena.h"
#include "predict.h"
#include "ptm.h"

int lasso_predict(struct ptm_predict *pr, char *err, size_t errlen)
{
    double *m;
    int rc = ptm_predict_linear(pr, "beta", &m, err, errlen);
    if (rc != 0)
        return rc;
    rc = ptm_predict_write(pr, m, pr->predicted);
    if (rc == 0 && pr->data->has_labels)
        ptm_predict_regression(pr, pr->data->labels.val, m, pr->predicted);
    ptm_free(m);
    return rc;
}
