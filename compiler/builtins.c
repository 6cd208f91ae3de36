/*
 * builtins.c - the built-in kernels a job can name: every model's table
 * (runtime/models/models.def), looked up by name.
 *
 * Data and parameter options default to the names the examples use, so a
 * job that follows them says only what differs (`{ lambda = 0.01 }`).
 */
#include "builtins.h"

#include <string.h>

#include "ptm.h"

static const struct builtin *const tables[] = {
#define PTM_MODEL(m) ptm_builtins_##m,
#include "models.def"
};

const struct builtin *builtin_lookup(const char *name)
{
    for (size_t t = 0; t < PTM_ARRAY_LEN(tables); t++)
        for (const struct builtin *b = tables[t]; b->name; b++)
            if (strcmp(b->name, name) == 0)
                return b;
    return NULL;
}

size_t builtin_names(enum builtin_role role, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t t = 0; t < PTM_ARRAY_LEN(tables); t++)
        for (const struct builtin *b = tables[t]; b->name; b++)
            if (b->role == role && n < cap)
                out[n++] = b->name;
    return n;
}

const char *builtin_check_split_min(const struct plan_hook *h, const bool *given)
{
    bool seq = false, split = false;
    for (uint32_t i = 0; i < h->noptions; i++) {
        const struct plan_option *o = &h->options[i];
        if (!o->key)
            continue;
        if (strcmp(o->key, "within") == 0 && o->kind == PLAN_VALUE_STR)
            seq = o->str && strcmp(o->str, "sequential") == 0;
        split |= given[i] && strcmp(o->key, "split_min") == 0;
    }
    if (split && !seq)
        return "option 'split_min' is for within = sequential (a round computed together is "
               "always split among the workers)";
    return NULL;
}
