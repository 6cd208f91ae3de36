/*
 * predict_logreg.h - `ptm predict` for the logreg model (predict.h).
 */
#ifndef PTM_PREDICT_LOGREG_H
#define PTM_PREDICT_LOGREG_H

#include <stddef.h>

struct ptm_predict;
/* struct ptm_model's predict. */
int logreg_predict(struct ptm_predict *pr, char *err, size_t errlen);

#endif
