/*
 * predict_lasso.h - `ptm predict` for the lasso model (predict.h).
 */
#ifndef PTM_PREDICT_LASSO_H
#define PTM_PREDICT_LASSO_H

#include <stddef.h>

struct ptm_predict;
/* struct ptm_model's predict. */
int lasso_predict(struct ptm_predict *pr, char *err, size_t errlen);

#endif
