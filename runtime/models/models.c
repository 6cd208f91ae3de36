/*
 * models.c - the registry of built-in models: the table models.def makes,
 * and the lookups the engine and `ptm gen` use (model.h).
 */
#include "model.h"

#include <stdio.h>
#include <string.h>

#include "gen.h"
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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The file of generator g named like path's last component, or NULL. */
static const struct gen_file *gen_writes(const struct ptm_gen *g, const char *path)
{
    for (const struct gen_file *f = g->files; f && f->name; f++)
        if (strcmp(f->name, base_name(path)) == 0)
            return f;
    return NULL;
}

bool ptm_gen_hint(const char *path, const char *const *job_files, size_t n, char *buf,
                  size_t len)
{
    const struct ptm_model *best = NULL;
    size_t most = 0;
    for (size_t i = 0; i < PTM_ARRAY_LEN(models); i++) {
        const struct ptm_gen *g = models[i]->gen;
        if (!g || !gen_writes(g, path))
            continue;
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            k += gen_writes(g, job_files[j]) != NULL;
        if (!best || k > most)
            best = models[i], most = k;
    }
    if (!best)
        return false;
    /* the flags of the job's files (each once), the directory of path */
    char flags[256] = "";
    for (size_t j = 0; j < n; j++) {
        const struct gen_file *f = gen_writes(best->gen, job_files[j]);
        if (f && f->flags && !strstr(flags, f->flags) &&
            strlen(flags) + strlen(f->flags) + 2 < sizeof(flags)) {
            strcat(flags, " ");
            strcat(flags, f->flags);
        }
    }
    const char *slash = strrchr(path, '/'), *dir = ".";
    int dirlen = 1;
    if (slash)
        dir = path, dirlen = slash == path ? 1 : (int)(slash - path);
    snprintf(buf, len, "`ptm gen %s --seed 1%s --out %.*s` writes it", best->name, flags, dirlen,
             dir);
    return true;
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
