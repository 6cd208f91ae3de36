/*
 * predict_lda.h - `ptm predict` for the lda model (predict.h).
 */
#ifndef PTM_PREDICT_LDA_H
#define PTM_PREDICT_LDA_H

#include <stddef.h>

struct ptm_predict;
/* struct ptm_model's predict. */
int lda_predict(struct ptm_predict *pr, char *err, size_t errlen);

#endif
