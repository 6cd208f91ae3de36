/*
 * builtins_lda.c - the update rules and objectives of LDA a job can
 * name, with their options, as the compiler checks them (builtins.h).
 */
#include <math.h>

#include "builtins.h"

#define LDA_COUNTS "the counts of its topic assignments, which no output holds"

static const struct builtin_opt lda_opts[] = {
    OPT_POS("alpha", "0.1", HUGE_VAL),
    OPT_POS("beta", "0.01", HUGE_VAL),
    OPT_WORD("sampler", "auto", "auto|dense|sparse|alias|plain"),
    OPT_WORD("counts", "auto", "auto|dense|sparse"), /* the word-topic counts' form */
    OPT_REF("D", BOPT_DATA, "D"),
    /* The counts are those of topic assignments drawn at set-up; no output
     * holds the assignments, so counts from a file could not match them. */
    OPT_DERIVED("nwk", "nwk", LDA_COUNTS),
    OPT_DERIVED("nk", "nk", LDA_COUNTS),
    OPT_DERIVED("ndk", "?ndk", LDA_COUNTS), /* the document-topic counts, kept up to date */
    OPT_END,
};

static const struct builtin_opt lda_loglik_opts[] = {
    OPT_POS("alpha", "0.1", HUGE_VAL),
    OPT_POS("beta", "0.01", HUGE_VAL),
    OPT_REF("D", BOPT_DATA, "D"),
    OPT_REF("nwk", BOPT_PARAM, "nwk"),
    OPT_REF("nk", BOPT_PARAM, "nk"),
    OPT_END,
};

const struct builtin ptm_builtins_lda[] = {
    {"lda_gibbs", BUILTIN_UPDATE, "LDA by collapsed Gibbs sampling", lda_opts, BUILTIN_POLICY(ROTATION), "loglik_per_word|perplexity", NULL},
    {"lda_loglik", BUILTIN_OBJECTIVE, "joint log-likelihood log p(w, z) per token", lda_loglik_opts, 0, NULL, NULL},
    BUILTIN_END,
};
