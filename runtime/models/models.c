/*
 * models.c - the registry of built-in models: the table models.def makes,
 * and the lookups the engine and `ptm gen` use (model.h).
 */
#include "model.h"

#include <stdio.h>
#include <string.h>

#include "ptm.h"

static const struct ptm_model *const models[] = {
#define PTM_MODEL(m) &ptm_model_##m,
#include "models.def"
};

const struct ptm_model *const *ptm_models(size_t *n)
{
    *n = PTM_ARRAY_LEN(models);
    return models;
}

const struct ptm_model *ptm_model_find(const char *name)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(models); i++)
        if (strcmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}

const struct rt_rule *ptm_model_rule(const char *builtin, const struct ptm_model **model)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(models); i++)
        for (const struct ptm_model_rule *r = models[i]->rules; r && r->builtin; r++)
            if (strcmp(r->builtin, builtin) == 0) {
                *model = models[i];
                return r->rule;
            }
    *model = NULL;
    return NULL;
}

const struct rt_objective *ptm_model_objective(const char *builtin)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(models); i++)
        for (const struct ptm_model_objective *o = models[i]->objectives; o && o->builtin; o++)
            if (strcmp(o->builtin, builtin) == 0)
                return o->obj;
    return NULL;
}

void ptm_model_list(bool objectives, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < PTM_ARRAY_LEN(models); i++) {
        const struct ptm_model *m = models[i];
        for (size_t k = 0;; k++) {
            const char *name = objectives ? (m->objectives ? m->objectives[k].builtin : NULL)
                                          : (m->rules ? m->rules[k].builtin : NULL);
            if (!name)
                break;
            int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", name);
            if (w < 0 || (size_t)w >= len - at)
                return;
            at += (size_t)w;
        }
    }
}
