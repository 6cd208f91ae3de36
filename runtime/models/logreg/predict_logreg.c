/*
 * predict_logreg.c - `ptm predict` for logistic regression: the
 * probability that a row's label is positive, 1 / (1 + exp(-(x . w + b))),
 * one a row; with labels (positive: > 0), log loss, accuracy and AUC.
 */
#include "predict_logreg.h"

#include <math.h>

#include "arena.h"
#include "predict.h"
#include "ptm.h"

int logreg_predict(struct ptm_predict *pr, char *err, size_t errlen)
{
    double *m;
    int rc = ptm_predict_linear(pr, "w", &m, err, errlen);
    if (rc != 0)
        return rc;
    if (pr->data->has_labels)
        rc = ptm_predict_classification(pr, pr->data->labels.val, m, pr->predicted);
    for (int64_t i = 0; rc == 0 && i < pr->predicted; i++)
        m[i] = m[i] >= 0 ? 1 / (1 + exp(-m[i])) : exp(m[i]) / (1 + exp(m[i]));
    if (rc == 0)
        rc = ptm_predict_write(pr, m, pr->predicted);
    ptm_free(m);
    return rc;
}
