/*
 * plan.c - the plan's life cycle and the names of its enumerations.
 */
#include "plan.h"

#include <string.h>

#include "arena.h"
#include "ptm.h"

#define NAMES(type, list, fn_name, fn_lookup, count)                           \
    static const char *const type##_names[] = {list(NAME_X)};                  \
    const char *fn_name(enum type v)                                           \
    {                                                                          \
        PTM_ASSERT((unsigned)v < count);                                       \
        return type##_names[v];                                                \
    }                                                                          \
    int fn_lookup(const char *s)                                               \
    {                                                                          \
        for (int i = 0; i < (int)count; i++)                                   \
            if (strcmp(type##_names[i], s) == 0)                               \
                return i;                                                      \
        return -1;                                                             \
    }
#define NAME_X(name, text) text,

NAMES(plan_format, PLAN_FORMAT_LIST, plan_format_name, plan_format_lookup, PLAN_NFORMATS)
NAMES(plan_shard, PLAN_SHARD_LIST, plan_shard_name, plan_shard_lookup, PLAN_NSHARDS)
NAMES(plan_policy, PLAN_POLICY_LIST, plan_policy_name, plan_policy_lookup, PLAN_NPOLICIES)
NAMES(plan_cons, PLAN_CONS_LIST, plan_cons_name, plan_cons_lookup, PLAN_NCONS)
NAMES(plan_init, PLAN_INIT_LIST, plan_init_name, plan_init_lookup, PLAN_NINITS)
NAMES(plan_unit, PLAN_UNIT_LIST, plan_unit_name, plan_unit_lookup, PLAN_NUNITS)
#undef NAME_X
#define NAME_X(name, text, higher) text,
NAMES(plan_metric_kind, PLAN_METRIC_LIST, plan_metric_name, plan_metric_lookup, PLAN_NMETRIC_KINDS)

bool plan_metric_higher(enum plan_metric_kind k)
{
    static const bool higher[] = {
#define X(name, text, h) h,
        PLAN_METRIC_LIST(X)
#undef X
    };
    PTM_ASSERT((unsigned)k < PLAN_NMETRIC_KINDS);
    return higher[k];
}

char *plan_strndup(const char *s, size_t len)
{
    char *p = ptm_malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

char *plan_strdup(const char *s) { return s ? plan_strndup(s, strlen(s)) : NULL; }

struct ptm_plan *plan_new(void)
{
    struct ptm_plan *p = ptm_malloc(sizeof(*p));
    if (!p)
        return NULL;
    memset(p, 0, sizeof(*p));
    p->schedule.over = -1;
    p->seed = 1;
    prog_init(&p->stop);
    return p;
}

static void hook_release(struct plan_hook *h)
{
    ptm_free(h->file);
    ptm_free(h->push);
    ptm_free(h->pull);
    ptm_free(h->apply);
    ptm_free(h->init);
    ptm_free(h->save);
    ptm_free(h->load);
    ptm_free(h->fn);
    ptm_free(h->builtin);
    for (uint32_t i = 0; i < h->noptions; i++) {
        ptm_free(h->options[i].key);
        ptm_free(h->options[i].str);
    }
    ptm_free(h->options);
}

void plan_free(struct ptm_plan *p)
{
    if (!p)
        return;
    ptm_free(p->job);
    ptm_free(p->base_dir);
    for (uint32_t i = 0; i < p->nconsts; i++) {
        ptm_free(p->consts[i].name);
        ptm_free(p->consts[i].str);
    }
    ptm_free(p->consts);
    for (uint32_t i = 0; i < p->ndata; i++) {
        ptm_free(p->data[i].name);
        ptm_free(p->data[i].path);
        ptm_free(p->data[i].vocab);
        ptm_free(p->data[i].label_column);
    }
    ptm_free(p->data);
    for (uint32_t i = 0; i < p->nparams; i++) {
        ptm_free(p->params[i].name);
        ptm_free(p->params[i].init_path);
        prog_release(&p->params[i].dims[0]);
        prog_release(&p->params[i].dims[1]);
    }
    ptm_free(p->params);
    for (uint32_t i = 0; i < p->nblocksets; i++) {
        struct plan_blockset *b = &p->blocksets[i];
        ptm_free(b->name);
        prog_release(&b->count);
        prog_release(&b->pred);
        ptm_free(b->edges);
        prog_release(&b->priority);
        prog_release(&b->cost);
        prog_release(&b->order);
    }
    ptm_free(p->blocksets);
    hook_release(&p->update);
    hook_release(&p->objective);
    prog_release(&p->stop);
    for (uint32_t i = 0; i < p->nmetrics; i++)
        ptm_free(p->metrics[i].name);
    ptm_free(p->metrics);
    for (uint32_t i = 0; i < p->noutputs; i++) {
        ptm_free(p->outputs[i].path);
        ptm_free(p->outputs[i].format);
    }
    ptm_free(p->outputs);
    ptm_free(p->checkpoint.dir);
    ptm_free(p);
}
