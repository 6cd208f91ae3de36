/*
 * predict_mf.c - `ptm predict` for matrix factorization: for every entry
 * (i, j) of the new data (a file in the format of the ratings, R), the
 * prediction W_i . H_j, written "i<TAB>j<TAB>prediction" (1-based, in row
 * order); with values (not a pattern matrix), RMSE and MAE against them.
 */
#include "predict_mf.h"

#include <stdio.h>

#include "arena.h"
#include "predict.h"
#include "ptm.h"

int mf_predict(struct ptm_predict *pr, char *err, size_t errlen)
{
    int rc;
    const struct ptm_values *W = ptm_predict_param(pr, "W", true, &rc, err, errlen);
    if (!W)
        return rc;
    const struct ptm_values *H = ptm_predict_param(pr, "H", true, &rc, err, errlen);
    if (!H)
        return rc;
    if (W->cols != H->cols) {
        snprintf(err, errlen, "'%s' has rank %lld and '%s' rank %lld: not one factorization",
                 ptm_predict_param_path(pr, "W"), (long long)W->cols,
                 ptm_predict_param_path(pr, "H"), (long long)H->cols);
        return PTM_EINVAL;
    }
    const struct ptm_dataset *ds = ptm_predict_data(pr, "R", &rc, err, errlen);
    if (!ds)
        return rc;
    if (!ds->sparse) {
        snprintf(err, errlen, "%s: the entries to predict must be a sparse matrix", pr->data_path);
        return PTM_EINVAL;
    }
    const struct ptm_csr *x = &ds->csr;
    for (int64_t i = 0; i < x->nrows; i++)
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            if (i >= W->rows || x->colind[e] >= H->rows) {
                snprintf(err, errlen,
                         "%s: entry (%lld, %lld) is outside the model: W has %lld rows, H %lld",
                         pr->data_path, (long long)i + 1, (long long)x->colind[e] + 1,
                         (long long)W->rows, (long long)H->rows);
                return PTM_EINVAL;
            }
    int64_t k = W->cols, n = x->nnz;
    double *pred = ptm_malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!pred)
        return PTM_ENOMEM;
    for (int64_t i = 0; i < x->nrows; i++)
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++) {
            const double *w = W->val + i * k, *h = H->val + (int64_t)x->colind[e] * k;
            double s = 0;
            for (int64_t r = 0; r < k; r++)
                s += w[r] * h[r];
            pred[e] = s;
            if (pr->out)
                fprintf(pr->out, "%lld\t%lld\t%.17g\n", (long long)i + 1,
                        (long long)x->colind[e] + 1, s);
        }
    pr->predicted = n;
    pr->unit = "pairs";
    if (!ds->pattern)
        ptm_predict_regression(pr, x->val, pred, n);
    ptm_free(pred);
    return pr->out && ferror(pr->out) ? PTM_EIO : 0;
}
