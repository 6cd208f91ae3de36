/*
 * plan_yaml.c - a plan as YAML text, through libyaml's emitter.
 *
 * DESIGN: the writer follows spec/plan.md key for key, in one fixed order,
 * so the text is a pure function of the plan. Helpers record the first
 * failure in the context and turn every later call into a no-op, so the
 * code reads as the document it writes; the status is looked at once, at
 * the end. libyaml's 1-is-success and its error kinds become PTM_E* codes
 * here. Optional parts of the plan (a path that labels data do not have, a
 * missing objective) are left out rather than written as null, and the
 * loader insists on exactly that shape.
 */
#include "plan_yaml.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "arena.h"
#include "ptm.h"

struct emit {
    yaml_emitter_t em;
    int rc;           /* first failure, 0 while all is well */
    bool out_of_mem;  /* set by the buffer writer */
};

/* ---- events ------------------------------------------------------------- */

static int emitter_status(const struct emit *e)
{
    switch (e->em.error) {
    case YAML_MEMORY_ERROR: return PTM_ENOMEM;
    case YAML_WRITER_ERROR: return e->out_of_mem ? PTM_ENOMEM : PTM_EIO;
    default: return PTM_EINVAL; /* YAML_EMITTER_ERROR: events out of order, a bug */
    }
}

/* Hand an initialized event to the emitter, which frees it in any case. */
static void put(struct emit *e, yaml_event_t *ev)
{
    if (e->rc) {
        yaml_event_delete(ev);
        return;
    }
    if (!yaml_emitter_emit(&e->em, ev))
        e->rc = emitter_status(e);
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            k = 1, cp = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            k = 2, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i - 1 < k)
            return false;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += k + 1;
    }
    return true;
}

static void scalar(struct emit *e, const char *s, yaml_scalar_style_t style)
{
    if (e->rc)
        return;
    size_t n = strlen(s);
    if (n > INT32_MAX || !utf8_valid((const unsigned char *)s, n)) {
        e->rc = PTM_EINVAL;
        return;
    }
    yaml_event_t ev;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, 1, 1, style)) {
        e->rc = PTM_ENOMEM;
        return;
    }
    put(e, &ev);
}

/* A word of the format: a key, an enumeration's name, a number. */
static void word(struct emit *e, const char *s)
{
    if (!s) { /* a value out of range: no name */
        if (!e->rc)
            e->rc = PTM_EINVAL;
        return;
    }
    scalar(e, s, YAML_PLAIN_SCALAR_STYLE);
}

/* A string from a user: always double-quoted, so nothing is misread. */
static void string(struct emit *e, const char *s)
{
    if (!s) {
        if (!e->rc)
            e->rc = PTM_EINVAL;
        return;
    }
    scalar(e, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void integer(struct emit *e, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRId64, v);
    word(e, buf);
}

/* v in the fewest digits (15 to 17) that read back with the same bits;
 * YAML's names for the values that have no digits. */
static void number(struct emit *e, double v)
{
    char buf[40];
    if (isnan(v)) {
        word(e, ".nan");
        return;
    }
    if (isinf(v)) {
        word(e, v > 0 ? ".inf" : "-.inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (memcmp(&back, &v, sizeof(v)) == 0)
            break;
    }
    word(e, buf);
}

static void boolean(struct emit *e, bool v) { word(e, v ? "true" : "false"); }

static void map_begin(struct emit *e)
{
    yaml_event_t ev;
    if (e->rc)
        return;
    if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE)) {
        e->rc = PTM_ENOMEM;
        return;
    }
    put(e, &ev);
}

static void map_end(struct emit *e)
{
    yaml_event_t ev;
    if (e->rc)
        return;
    yaml_mapping_end_event_initialize(&ev);
    put(e, &ev);
}

static void seq_begin(struct emit *e, bool flow)
{
    yaml_event_t ev;
    if (e->rc)
        return;
    if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                              flow ? YAML_FLOW_SEQUENCE_STYLE
                                                   : YAML_BLOCK_SEQUENCE_STYLE)) {
        e->rc = PTM_ENOMEM;
        return;
    }
    put(e, &ev);
}

static void seq_end(struct emit *e)
{
    yaml_event_t ev;
    if (e->rc)
        return;
    yaml_sequence_end_event_initialize(&ev);
    put(e, &ev);
}

/* key: value pairs. */
static void kv_word(struct emit *e, const char *k, const char *v)
{
    word(e, k);
    word(e, v);
}

static void kv_str(struct emit *e, const char *k, const char *v)
{
    word(e, k);
    string(e, v);
}

static void kv_int(struct emit *e, const char *k, int64_t v)
{
    word(e, k);
    integer(e, v);
}

static void kv_num(struct emit *e, const char *k, double v)
{
    word(e, k);
    number(e, v);
}

static void kv_bool(struct emit *e, const char *k, bool v)
{
    word(e, k);
    boolean(e, v);
}

/* ---- the plan ----------------------------------------------------------- */

static const char op_operands[PROG_NOPS] = {
#define X(name, yaml, operands, pops, pushes) [PROG_##name] = operands,
    PROG_OP_LIST(X)
#undef X
};

/* program := {text?, max_stack, nvars, consts: [num...], code: [[op, operand...]...]} */
static void program_body(struct emit *e, const struct prog *p)
{
    map_begin(e);
    if (p->text)
        kv_str(e, "text", p->text);
    kv_int(e, "max_stack", p->max_stack);
    kv_int(e, "nvars", p->nvars);
    word(e, "consts");
    seq_begin(e, true);
    for (uint32_t i = 0; i < p->nconsts; i++)
        number(e, p->consts[i]);
    seq_end(e);
    word(e, "code");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->ncode && !e->rc; i++) {
        const struct prog_insn *in = &p->code[i];
        if (in->op >= PROG_NOPS) {
            e->rc = PTM_EINVAL;
            break;
        }
        seq_begin(e, true);
        word(e, prog_op_name((enum prog_op)in->op));
        switch (op_operands[in->op]) {
        case 0: break;
        case 'g': word(e, prog_global_name((enum prog_global)in->a)); break;
        case 'p':
        case 'c':
        case 'm':
            integer(e, in->a);
            integer(e, in->b);
            break;
        default: integer(e, in->a); break; /* k v j d */
        }
        seq_end(e);
    }
    seq_end(e);
    map_end(e);
}

static void program(struct emit *e, const char *key, const struct prog *p)
{
    word(e, key);
    program_body(e, p);
}

static void consistency(struct emit *e, enum plan_cons cons, int32_t staleness)
{
    word(e, "consistency");
    map_begin(e);
    kv_word(e, "model", plan_cons_name(cons));
    if (cons == PLAN_CONS_SSP)
        kv_int(e, "staleness", staleness);
    map_end(e);
}

static void consts(struct emit *e, const struct ptm_plan *p)
{
    word(e, "consts");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->nconsts; i++) {
        const struct plan_const *k = &p->consts[i];
        map_begin(e);
        kv_str(e, "name", k->name);
        if (k->is_str)
            kv_str(e, "str", k->str);
        else
            kv_num(e, "num", k->num);
        map_end(e);
    }
    seq_end(e);
}

static void data(struct emit *e, const struct ptm_plan *p)
{
    word(e, "data");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->ndata; i++) {
        const struct plan_data *d = &p->data[i];
        map_begin(e);
        kv_str(e, "name", d->name);
        kv_word(e, "format", plan_format_name(d->format));
        if (d->format == PLAN_FORMAT_LABELS)
            kv_int(e, "labels_of", d->labels_of);
        else
            kv_str(e, "path", d->path);
        if (d->vocab)
            kv_str(e, "vocab", d->vocab);
        if (d->label_column)
            kv_str(e, "label_column", d->label_column);
        kv_bool(e, "matrix", d->matrix);
        kv_bool(e, "sparse", d->sparse);
        kv_bool(e, "integer", d->integer);
        kv_word(e, "shard", plan_shard_name(d->shard));
        map_end(e);
    }
    seq_end(e);
}

static void params(struct emit *e, const struct ptm_plan *p)
{
    word(e, "params");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->nparams; i++) {
        const struct plan_param *q = &p->params[i];
        map_begin(e);
        kv_str(e, "name", q->name);
        kv_bool(e, "matrix", q->matrix);
        kv_bool(e, "integer", q->integer);
        word(e, "dims");
        seq_begin(e, false);
        for (int k = 0; k < (q->matrix ? 2 : 1); k++)
            program_body(e, &q->dims[k]);
        seq_end(e);
        kv_word(e, "init", plan_init_name(q->init));
        if (q->init == PLAN_INIT_DATA)
            kv_int(e, "init_data", q->init_data);
        else if (q->init == PLAN_INIT_FILE)
            kv_str(e, "init_path", q->init_path);
        else
            kv_num(e, "init_value", q->init_value);
        if (q->shard_like >= 0)
            kv_int(e, "shard_like", q->shard_like);
        consistency(e, q->cons, q->staleness);
        map_end(e);
    }
    seq_end(e);
}

static const char *axis_name(enum plan_axis a)
{
    static const char *const names[] = {"elems", "rows", "cols"};
    return (unsigned)a < PTM_ARRAY_LEN(names) ? names[a] : NULL;
}

static const char *depend_name(enum plan_depend_kind k)
{
    static const char *const names[] = {"none", "pred", "file"};
    return (unsigned)k < PTM_ARRAY_LEN(names) ? names[k] : NULL;
}

static void blocksets(struct emit *e, const struct ptm_plan *p)
{
    word(e, "blocksets");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->nblocksets; i++) {
        const struct plan_blockset *b = &p->blocksets[i];
        map_begin(e);
        kv_str(e, "name", b->name);
        kv_int(e, "param", b->param);
        kv_word(e, "axis", axis_name(b->axis));
        kv_word(e, "split", b->into ? "into" : "each");
        program(e, "count", &b->count);
        kv_word(e, "depend", depend_name(b->depend));
        if (b->depend == PLAN_DEPEND_PRED)
            program(e, "pred", &b->pred);
        else if (b->depend == PLAN_DEPEND_FILE)
            kv_str(e, "edges", b->edges);
        if (b->has_priority)
            program(e, "priority", &b->priority);
        if (b->has_cost)
            program(e, "cost", &b->cost);
        if (b->has_order)
            program(e, "order", &b->order);
        map_end(e);
    }
    seq_end(e);
}

/* Only the options of the policy are written; the others keep the
 * compiler's defaults, which the loader restores. */
static void schedule(struct emit *e, const struct plan_schedule *s)
{
    word(e, "schedule");
    map_begin(e);
    kv_word(e, "policy", plan_policy_name(s->policy));
    if (s->policy != PLAN_POLICY_DATA_PARALLEL)
        kv_int(e, "over", s->over);
    switch (s->policy) {
    case PLAN_POLICY_DYNAMIC:
        kv_int(e, "sample", s->sample);
        kv_word(e, "keep", s->keep_all ? "all" : s->keep_moved ? "moved" : "independent");
        kv_int(e, "warmup", s->warmup);
        kv_word(e, "warmup_unit", plan_unit_name(s->warmup_unit));
        kv_bool(e, "balance", s->balance);
        kv_int(e, "pipeline", s->pipeline);
        if (s->uniform > 0) /* optional: absent is 0 */
            kv_num(e, "uniform", s->uniform);
        if (s->active) /* optional: absent is false */
            kv_bool(e, "active", true);
        if (s->shuffle) /* optional: absent is false */
            kv_bool(e, "shuffle", true);
        break;
    case PLAN_POLICY_ROUND_ROBIN:
    case PLAN_POLICY_RANDOM: kv_int(e, "per_round", s->per_round); break;
    case PLAN_POLICY_DATA_PARALLEL: kv_int(e, "minibatch", s->minibatch); break;
    default: break;
    }
    map_end(e);
}

static const char *value_kind_key(enum plan_value_kind k)
{
    static const char *const keys[] = {"num", "str", "data", "param"};
    return (unsigned)k < PTM_ARRAY_LEN(keys) ? keys[k] : NULL;
}

static void hook(struct emit *e, const char *key, const struct plan_hook *h, bool objective)
{
    word(e, key);
    map_begin(e);
    kv_word(e, "kind", h->lua ? "lua" : "builtin");
    if (h->lua) {
        kv_str(e, "file", h->file);
        if (objective) {
            kv_str(e, "function", h->fn);
        } else {
            kv_str(e, "push", h->push);
            if (h->pull)
                kv_str(e, "pull", h->pull);
            if (h->apply)
                kv_str(e, "apply", h->apply);
            if (h->init)
                kv_str(e, "init", h->init);
        }
        if (h->save) {
            kv_str(e, "save", h->save);
            kv_str(e, "load", h->load);
        }
    } else {
        kv_str(e, "builtin", h->builtin);
        word(e, "options");
        seq_begin(e, false);
        for (uint32_t i = 0; i < h->noptions; i++) {
            const struct plan_option *o = &h->options[i];
            map_begin(e);
            kv_str(e, "key", o->key);
            word(e, value_kind_key(o->kind));
            switch (o->kind) {
            case PLAN_VALUE_NUM: number(e, o->num); break;
            case PLAN_VALUE_STR: string(e, o->str); break;
            default: integer(e, o->ref); break;
            }
            map_end(e);
        }
        seq_end(e);
    }
    if (objective) {
        kv_int(e, "every", h->every);
        kv_word(e, "every_unit", plan_unit_name(h->every_unit));
    }
    map_end(e);
}

static void metrics(struct emit *e, const struct ptm_plan *p)
{
    word(e, "metrics");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->nmetrics; i++) {
        const struct plan_metric *m = &p->metrics[i];
        map_begin(e);
        kv_str(e, "name", m->name);
        kv_word(e, "kind", plan_metric_name(m->kind));
        kv_int(e, "data", m->data);
        map_end(e);
    }
    seq_end(e);
}

static void outputs(struct emit *e, const struct ptm_plan *p)
{
    word(e, "outputs");
    seq_begin(e, false);
    for (uint32_t i = 0; i < p->noutputs; i++) {
        const struct plan_output *o = &p->outputs[i];
        map_begin(e);
        kv_int(e, "param", o->param);
        kv_str(e, "path", o->path);
        kv_word(e, "format", o->format);
        map_end(e);
    }
    seq_end(e);
}

/* checkpoint := {dir, every, every_unit} | {dir, seconds}; absent: none */
static void checkpoint(struct emit *e, const struct plan_checkpoint *c)
{
    word(e, "checkpoint");
    map_begin(e);
    kv_str(e, "dir", c->dir);
    if (c->every > 0) {
        kv_int(e, "every", c->every);
        kv_word(e, "every_unit", plan_unit_name(c->every_unit));
    } else if (c->seconds >= 1 && isfinite(c->seconds)) {
        kv_num(e, "seconds", c->seconds);
    } else if (!e->rc) {
        e->rc = PTM_EINVAL; /* neither: the loader would refuse it */
    }
    map_end(e);
}

static void plan(struct emit *e, const struct ptm_plan *p)
{
    yaml_event_t ev;
    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)) {
        e->rc = PTM_ENOMEM;
        return;
    }
    put(e, &ev);
    if (!e->rc && !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)) {
        e->rc = PTM_ENOMEM;
        return;
    }
    put(e, &ev);
    map_begin(e);
    kv_int(e, "ptm_plan", PTM_PLAN_VERSION);
    kv_str(e, "job", p->job);
    kv_str(e, "base_dir", p->base_dir);
    word(e, "seed");
    if (p->seed > INT64_MAX) {
        if (!e->rc)
            e->rc = PTM_EINVAL;
    } else {
        integer(e, (int64_t)p->seed);
    }
    consts(e, p);
    data(e, p);
    params(e, p);
    blocksets(e, p);
    schedule(e, &p->schedule);
    consistency(e, p->cons, p->staleness);
    if (!p->update.present && !e->rc)
        e->rc = PTM_EINVAL;
    hook(e, "update", &p->update, false);
    if (p->objective.present)
        hook(e, "objective", &p->objective, true);
    if (p->nmetrics)
        metrics(e, p);
    if (!p->has_stop && !e->rc)
        e->rc = PTM_EINVAL;
    program(e, "stop", &p->stop);
    outputs(e, p);
    if (p->checkpoint.dir)
        checkpoint(e, &p->checkpoint);
    map_end(e);
    if (e->rc)
        return;
    yaml_document_end_event_initialize(&ev, 0); /* "...": the end is explicit */
    put(e, &ev);
    if (e->rc)
        return;
    yaml_stream_end_event_initialize(&ev);
    put(e, &ev);
    if (!e->rc && !yaml_emitter_flush(&e->em))
        e->rc = emitter_status(e);
}

/* ---- outputs ------------------------------------------------------------ */

static int write_file(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, (FILE *)data) == size;
}

struct membuf {
    struct emit *e;
    char *p;
    size_t len, cap;
};

static int write_mem(void *data, unsigned char *buf, size_t size)
{
    struct membuf *m = data;
    if (size >= m->cap - m->len) {
        size_t cap = m->cap ? m->cap : 4096;
        while (size >= cap - m->len) {
            if (cap > SIZE_MAX / 2)
                goto out_nomem;
            cap *= 2;
        }
        char *q = ptm_realloc(m->p, cap);
        if (!q)
            goto out_nomem;
        m->p = q;
        m->cap = cap;
    }
    memcpy(m->p + m->len, buf, size);
    m->len += size;
    m->p[m->len] = '\0';
    return 1;
out_nomem:
    m->e->out_of_mem = true;
    return 0;
}

static int run(const struct ptm_plan *p, yaml_write_handler_t *handler, void *data,
               struct emit *e)
{
    memset(e, 0, sizeof(*e));
    if (!yaml_emitter_initialize(&e->em))
        return PTM_ENOMEM;
    yaml_emitter_set_output(&e->em, handler, data);
    yaml_emitter_set_unicode(&e->em, 1);
    yaml_emitter_set_width(&e->em, -1); /* no folding: one line per value */
    yaml_emitter_set_indent(&e->em, 2);
    plan(e, p);
    yaml_emitter_delete(&e->em);
    return e->rc;
}

int ptm_plan_emit(const struct ptm_plan *p, FILE *out)
{
    struct emit e;
    int rc = run(p, write_file, out, &e);
    if (rc == 0 && fflush(out) != 0)
        rc = PTM_EIO;
    return rc;
}

int ptm_plan_emit_buf(const struct ptm_plan *p, char **buf, size_t *len)
{
    struct emit e;
    struct membuf m = {&e, NULL, 0, 0};
    *buf = NULL;
    *len = 0;
    int rc = run(p, write_mem, &m, &e);
    if (rc == 0 && !m.p) /* nothing written: impossible, but keep the contract */
        rc = PTM_EINVAL;
    if (rc != 0) {
        ptm_free(m.p);
        return rc;
    }
    *buf = m.p;
    *len = m.len;
    return 0;
}
