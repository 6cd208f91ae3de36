/*
 * predict_mf.h - `ptm predict` for the mf model (predict.h).
 */
#ifndef PTM_PREDICT_MF_H
#define PTM_PREDICT_MF_H

#include <stddef.h>

struct ptm_predict;
/* struct ptm_model's predict. */
int mf_predict(struct ptm_predict *pr, char *err, size_t errlen);

#endif
