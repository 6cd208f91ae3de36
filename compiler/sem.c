/*
 * sem.c - checking a job and building its plan.
 *
 * DESIGN: two passes over the statements. The first declares every name
 * (consts, data, parameters, block sets share one namespace) so that order
 * does not matter, except for consts, which are evaluated in order. The
 * second checks each statement by its own rules and fills the plan. Every
 * problem is reported with its location and checking goes on, so one run
 * shows every error; any error means no plan.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "builtins.h"
#include "ptm.h"
#include "sem_impl.h"
#include "utf8.h"

/* ---- diagnostics and symbols -------------------------------------------- */

/* An option given by --set TARGET.KEY=VALUE has no place in the job: its
 * nodes carry SET_LOC(k), k the index of the --set, and what is said
 * about them is said of the --set. */
#define SET_LOC_BEGIN UINT32_MAX
#define SET_LOC(k) ((struct ptm_loc){SET_LOC_BEGIN, (uint32_t)(k)})

static void report(struct sem *s, enum ptm_severity sev, struct ptm_loc loc, const char *fmt,
                   va_list ap)
{
    if (loc.begin == SET_LOC_BEGIN && loc.end < s->opts->nsets) {
        const struct ptm_set *set = &s->opts->sets[loc.end];
        char msg[1024];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        diag_file(s->diags, sev, "--set %s=%s: %s", set->name, set->value, msg);
        return;
    }
    diag_addv(s->diags, sev, loc, fmt, ap);
}

void sem_error(struct sem *s, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(s, PTM_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
}

void sem_note(struct sem *s, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(s, PTM_SEV_NOTE, loc, fmt, ap);
    va_end(ap);
}

static unsigned hash(const struct sem *sm, const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h & (sm->nbuckets - 1);
}

struct sym *sem_lookup(struct sem *s, const char *name)
{
    if (!s->buckets)
        return NULL;
    for (struct sym *y = s->buckets[hash(s, name)]; y; y = y->next)
        if (strcmp(y->name, name) == 0)
            return y;
    return NULL;
}

void sem_unknown(struct sem *s, struct ptm_loc loc, const char *what, const char *name)
{
    /* The closest defined name of any kind. */
    const char *best = NULL;
    size_t len = strlen(name);
    for (unsigned b = 0; s->buckets && b < s->nbuckets; b++)
        for (struct sym *y = s->buckets[b]; y; y = y->next) {
            const char *cand[2] = {best, y->name};
            const char *pick = diag_suggest(name, len, best ? cand : cand + 1, best ? 2 : 1);
            if (pick)
                best = pick;
        }
    if (best)
        sem_error(s, loc, "unknown %s '%s' (did you mean '%s'?)", what, name, best);
    else
        sem_error(s, loc, "unknown %s '%s'", what, name);
}

static const char *kind_word(enum sym_kind k)
{
    static const char *const w[] = {"const", "data source", "parameter", "block set", "metric"};
    return w[k];
}

/* Names the language gives a meaning of its own: run-time counters
 * (rounds, workers, ...) and functions (abs, corr, ...). */
static bool reserved_name(const char *name)
{
    return prog_global_lookup(name) >= 0 || sem_is_function(name);
}

static struct sym *declare(struct sem *s, const struct ast_ident *id, enum sym_kind kind,
                           int32_t index)
{
    struct sym *old = sem_lookup(s, id->name);
    if (old) {
        sem_error(s, id->loc, "'%s' is already defined", id->name);
        sem_note(s, old->loc, "'%s' was defined here as a %s", id->name, kind_word(old->kind));
        return NULL;
    }
    if (reserved_name(id->name)) {
        sem_error(s, id->loc, "'%s' is a built-in name and cannot be redefined", id->name);
        return NULL;
    }
    struct sym *y = arena_alloc(s->arena, sizeof(*y));
    if (!y) {
        s->oom = true;
        return NULL;
    }
    y->name = id->name;
    y->kind = kind;
    y->index = index;
    y->loc = id->loc;
    unsigned h = hash(s, id->name);
    y->next = s->buckets[h];
    s->buckets[h] = y;
    return y;
}

/* The symbol a name refers to, of the wanted kind; NULL after reporting. */
static struct sym *resolve(struct sem *s, const struct ast_ident *id, enum sym_kind kind)
{
    struct sym *y = sem_lookup(s, id->name);
    if (!y) {
        sem_unknown(s, id->loc, kind_word(kind), id->name);
        return NULL;
    }
    if (y->kind != kind) {
        sem_error(s, id->loc, "'%s' is a %s, not a %s", id->name, kind_word(y->kind),
                  kind_word(kind));
        sem_note(s, y->loc, "'%s' is defined here", id->name);
        return NULL;
    }
    return y;
}

static char *dup(struct sem *s, const char *str)
{
    char *p = plan_strdup(str);
    if (!p && str)
        s->oom = true;
    return p;
}

static void *zalloc(struct sem *s, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    void *p = ptm_malloc(n * size);
    if (!p) {
        s->oom = true;
        return NULL;
    }
    memset(p, 0, n * size);
    return p;
}

/* A number for a message: %g, with NaN and infinities spelt out. */
struct numtext {
    char s[32];
};
static struct numtext num_text(double v)
{
    struct numtext t;
    if (isnan(v))
        snprintf(t.s, sizeof(t.s), "NaN");
    else if (isinf(v))
        snprintf(t.s, sizeof(t.s), "%s", v > 0 ? "infinity" : "-infinity");
    else if (v == floor(v) && fabs(v) < 1e15) /* a whole number as it was written */
        snprintf(t.s, sizeof(t.s), "%.0f", v);
    else
        snprintf(t.s, sizeof(t.s), "%g", v);
    return t;
}

/* A word from a fixed list, with a suggestion; -1 after reporting. */
static int word(struct sem *s, const struct ast_ident *id, const char *what,
                int (*lookup)(const char *), const char *const *names, size_t n)
{
    int v = lookup(id->name);
    if (v >= 0)
        return v;
    const char *sug = diag_suggest(id->name, strlen(id->name), names, n);
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
    if (sug)
        sem_error(s, id->loc, "unknown %s '%s' (did you mean '%s'?)", what, id->name, sug);
    else
        sem_error(s, id->loc, "unknown %s '%s' (use %s)", what, id->name, list);
    return -1;
}

/* ---- consts and --set --------------------------------------------------- */

/* Parse a --set value as a number: a plain number or a duration. */
static bool parse_number_unit(const char *text, double *out);

/* A number as the language writes it, finite after its unit. */
static bool parse_number(const char *text, double *out)
{
    return parse_number_unit(text, out) && isfinite(*out);
}

static bool parse_number_unit(const char *text, double *out)
{
    /* The language's own number syntax: [-]digits[.digits][e[+-]digits][unit] */
    const char *q = text + (text[0] == '-');
    if (!isdigit((unsigned char)*q))
        return false;
    while (isdigit((unsigned char)*q))
        q++;
    if (*q == '.') {
        if (!isdigit((unsigned char)q[1]))
            return false;
        for (q++; isdigit((unsigned char)*q);)
            q++;
    }
    if ((*q == 'e' || *q == 'E') &&
        (isdigit((unsigned char)q[1]) || ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2]))))
        for (q += 2; isdigit((unsigned char)*q);)
            q++;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    /* Underflow to a subnormal is a number, as in a spec; to zero it is not. */
    if (end != q || (errno == ERANGE && (v == 0 || isinf(v))) || !isfinite(v))
        return false;
    static const struct {
        const char *unit;
        double k;
    } units[] = {{"", 1}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
    for (size_t i = 0; i < PTM_ARRAY_LEN(units); i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = v * units[i].k;
            return true;
        }
    return false;
}

static bool valid_utf8(const char *str)
{
    size_t n = strlen(str);
    for (size_t i = 0; i < n;) {
        int k = utf8_seq((const unsigned char *)str + i, n - i, NULL);
        if (k == 0)
            return false;
        i += (size_t)k;
    }
    return true;
}

static const struct ptm_set *find_set(struct sem *s, const char *name)
{
    const struct ptm_set *found = NULL;
    for (unsigned i = 0; i < s->opts->nsets; i++)
        if (strcmp(s->opts->sets[i].name, name) == 0)
            found = &s->opts->sets[i]; /* the last one wins */
    return found;
}

static void check_const(struct sem *s, const struct ast_stmt *st, struct sym *y)
{
    struct plan_const *k = &s->plan->consts[y->index];
    const struct ast_expr *e = st->u.konst.value;
    const struct ptm_set *set = find_set(s, k->name);
    if (set && !valid_utf8(set->value)) {
        diag_file(s->diags, PTM_SEV_ERROR, "--set %s=...: the value is not valid UTF-8",
                  set->name);
        set = NULL;
    }
    if (e->kind == AST_STR || (e->kind == AST_NAME && sem_lookup(s, e->u.name) &&
                               sem_lookup(s, e->u.name)->kind == SYM_CONST &&
                               sem_lookup(s, e->u.name)->ready &&
                               s->plan->consts[sem_lookup(s, e->u.name)->index].is_str)) {
        k->is_str = true;
        if (e->kind == AST_STR)
            k->str = dup(s, set ? set->value : e->u.str.s);
        else
            k->str = dup(s, set ? set->value
                                : s->plan->consts[sem_lookup(s, e->u.name)->index].str);
        if (e->kind == AST_STR && memchr(e->u.str.s, '\0', e->u.str.len))
            sem_error(s, e->loc, "a string const cannot hold a NUL byte");
        y->ready = true;
        return;
    }
    double v = 0;
    bool ok = sem_const_num(s, e, "a const", &v);
    y->bad = !ok; /* its uses say nothing more */
    if (set) {
        if (!parse_number(set->value, &v)) {
            diag_file(s->diags, PTM_SEV_ERROR,
                      "--set %s=%s: '%s' is a number and '%s' is not one", set->name,
                      set->value, set->name, set->value);
            ok = false;
        }
    }
    k->num = v;
    (void)ok;
    y->ready = true;
}

/* The statements whose options --set TARGET.KEY=VALUE reaches. */
static const char *const set_targets[] = {"update", "objective", "schedule"};

/* The option --set target.key=VALUE gives (the last such --set), as if the
 * job wrote `key VALUE` in target's options: VALUE is a number (a
 * duration too), true or false, a name, or nothing (a flag); NULL when no
 * --set names it, or when VALUE is none of these (reported). */
static const struct ast_option *set_option(struct sem *s, const char *target, const char *key)
{
    size_t tl = strlen(target);
    int k = -1;
    for (unsigned i = 0; i < s->opts->nsets; i++) {
        const char *n = s->opts->sets[i].name;
        if (strncmp(n, target, tl) == 0 && n[tl] == '.' && strcmp(n + tl + 1, key) == 0)
            k = (int)i;
    }
    if (k < 0)
        return NULL;
    const char *v = s->opts->sets[k].value;
    struct ast_option *o = arena_alloc(s->arena, sizeof(*o));
    struct ast_expr *e = arena_alloc(s->arena, sizeof(*e));
    if (!o || !e) {
        s->oom = true;
        return NULL;
    }
    memset(o, 0, sizeof(*o));
    memset(e, 0, sizeof(*e));
    o->key.name = s->opts->sets[k].name + tl + 1;
    o->key.loc = o->loc = e->loc = SET_LOC(k);
    e->depth = 1;
    double x;
    bool name = isalpha((unsigned char)v[0]) || v[0] == '_';
    for (const char *c = v; name && *c; c++)
        name = isalnum((unsigned char)*c) || *c == '_';
    if (!v[0])
        return o; /* a flag */
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        e->kind = AST_BOOL;
        e->u.boolean = v[0] == 't';
    } else if (parse_number(v, &x)) {
        e->kind = AST_NUM;
        e->u.num = x;
    } else if (name) {
        e->kind = AST_NAME;
        e->u.name = v;
    } else {
        sem_error(s, e->loc, "the value of an option is a number, true, false or a name");
        return NULL;
    }
    o->values.head = o->values.tail = e;
    o->values.n = 1;
    return o;
}

/* The statement of the job a --set target names, or NULL. */
static const struct ast_stmt *set_statement(const struct ast_job *job, const char *target)
{
    enum ast_stmt_kind k = strcmp(target, "update") == 0      ? AST_STMT_UPDATE
                           : strcmp(target, "objective") == 0 ? AST_STMT_OBJECTIVE
                                                              : AST_STMT_SCHEDULE;
    for (const struct ast_stmt *st = job->head; st; st = st->next)
        if (st->kind == k)
            return st;
    return NULL;
}

/* --set TARGET.KEY=VALUE: the target is a statement of the job that takes
 * options from here; the key and value are checked with the statement. */
static bool check_option_set(struct sem *s, const struct ast_job *job, const struct ptm_set *set)
{
    const char *dot = strchr(set->name, '.');
    if (!dot)
        return false;
    size_t tl = (size_t)(dot - set->name);
    const char *target = NULL;
    for (size_t i = 0; i < PTM_ARRAY_LEN(set_targets); i++)
        if (strlen(set_targets[i]) == tl && strncmp(set->name, set_targets[i], tl) == 0)
            target = set_targets[i];
    if (!target) {
        diag_file(s->diags, PTM_SEV_ERROR,
                  "--set %s=%s: options are set as update.KEY, objective.KEY or schedule.KEY",
                  set->name, set->value);
        return true;
    }
    const struct ast_stmt *st = set_statement(job, target);
    if (!dot[1])
        diag_file(s->diags, PTM_SEV_ERROR, "--set %s=%s: no option named after '%s.'",
                  set->name, set->value, target);
    else if (!st)
        diag_file(s->diags, PTM_SEV_ERROR, "--set %s=%s: the job has no %s statement", set->name,
                  set->value, target);
    else if (st->kind != AST_STMT_SCHEDULE && st->u.hook.kind != AST_HOOK_BUILTIN)
        diag_file(s->diags, PTM_SEV_ERROR,
                  "--set %s=%s: only the options of a builtin %s can be set (this one is Lua)",
                  set->name, set->value, target);
    return true;
}

static void check_sets(struct sem *s, const struct ast_job *job)
{
    for (unsigned i = 0; i < s->opts->nsets; i++) {
        const struct ptm_set *set = &s->opts->sets[i];
        if (check_option_set(s, job, set))
            continue;
        struct sym *y = sem_lookup(s, set->name);
        if (y && y->kind == SYM_CONST)
            continue;
        if (y) {
            diag_file(s->diags, PTM_SEV_ERROR, "--set %s=%s: '%s' is a %s, not a const",
                      set->name, set->value, set->name, kind_word(y->kind));
            continue;
        }
        const char *cands[256];
        size_t n = 0;
        for (uint32_t c = 0; c < s->plan->nconsts && n < 256; c++)
            cands[n++] = s->plan->consts[c].name;
        const char *sug = diag_suggest(set->name, strlen(set->name), cands, n);
        if (sug)
            diag_file(s->diags, PTM_SEV_ERROR,
                      "--set %s=%s: the job has no const '%s' (did you mean '%s'?)", set->name,
                      set->value, set->name, sug);
        else
            diag_file(s->diags, PTM_SEV_ERROR, "--set %s=%s: the job has no const '%s'",
                      set->name, set->value, set->name);
    }
}

/* ---- data --------------------------------------------------------------- */

static const char *const format_words[] = {"libsvm", "mm", "uci", "csv"};
static const char *const shard_words[] = {"none", "rows", "cols"};

static int user_format(const char *name)
{
    int f = plan_format_lookup(name);
    return f == PLAN_FORMAT_LABELS ? -1 : f;
}

/* The format a file name implies, or -1. */
static int format_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    static const struct {
        const char *ext;
        enum plan_format f;
    } exts[] = {{".svm", PLAN_FORMAT_LIBSVM}, {".libsvm", PLAN_FORMAT_LIBSVM},
                {".svmlight", PLAN_FORMAT_LIBSVM}, {".mtx", PLAN_FORMAT_MM},
                {".mm", PLAN_FORMAT_MM}, {".csv", PLAN_FORMAT_CSV}};
    if (dot)
        for (size_t i = 0; i < PTM_ARRAY_LEN(exts); i++)
            if (strcmp(dot, exts[i].ext) == 0)
                return exts[i].f;
    if (strncmp(base, "docword", 7) == 0)
        return PLAN_FORMAT_UCI;
    return -1;
}

static void misplaced_attr(struct sem *s, const struct ast_attr *a, const char *where)
{
    static const char *const names[] = {"format", "shard", "shard like", "vocab", "consistency"};
    sem_error(s, a->loc, "'%s' does not apply to %s", names[a->kind], where);
}

static void check_data(struct sem *s, const struct ast_stmt *st, int32_t index)
{
    struct plan_data *d = &s->plan->data[index];
    const struct ast_type *t = st->u.data.type;
    const struct ast_expr *src = st->u.data.source;
    d->matrix = t->shape == AST_SHAPE_MATRIX;
    d->integer = t->elem == AST_ELEM_INT;
    d->labels_of = -1;
    if (t->has_dims)
        sem_error(s, t->loc, "the size of data comes from its file; remove the dimensions");
    /* A repeated attribute is reported and the first one kept; an unknown
     * sharding word leaves the default, so neither causes later errors. */
    bool has_shard = false;
    const struct ast_attr *fmt = NULL, *vocab = NULL, *shard = NULL;
    for (const struct ast_attr *a = st->u.data.attrs.head; a; a = a->next) {
        switch (a->kind) {
        case AST_ATTR_FORMAT:
            if (fmt)
                sem_error(s, a->loc, "'format' is given twice");
            else
                fmt = a;
            break;
        case AST_ATTR_SHARD: {
            if (shard) {
                sem_error(s, a->loc, "'shard' is given twice");
                break;
            }
            shard = a;
            int v = word(s, &a->word, "sharding", plan_shard_lookup, shard_words, 3);
            if (v >= 0) {
                d->shard = (enum plan_shard)v;
                has_shard = true;
            }
            break;
        }
        case AST_ATTR_VOCAB:
            if (vocab)
                sem_error(s, a->loc, "'vocab' is given twice");
            else {
                vocab = a;
                if (a->str.len == 0)
                    sem_error(s, a->loc, "the vocabulary file name is empty");
                d->vocab = dup(s, a->str.s);
            }
            break;
        case AST_ATTR_SHARD_LIKE:
            sem_error(s, a->loc, "data is sharded with 'shard rows', 'shard cols' or 'shard none'");
            break;
        case AST_ATTR_CONSISTENCY: misplaced_attr(s, a, "data; it is for parameters"); break;
        }
    }
    if (src->kind == AST_CALL && strcmp(src->u.call.fn.name, "labels") == 0) {
        d->format = PLAN_FORMAT_LABELS;
        if (fmt)
            sem_error(s, fmt->loc, "labels() take the format of their data; remove 'format'");
        if (vocab)
            sem_error(s, vocab->loc, "'vocab' goes with 'format uci', not with labels()");
        if (src->u.call.args.n < 1 || src->u.call.args.n > 2 ||
            src->u.call.args.head->kind != AST_NAME) {
            sem_error(s, src->loc, "labels() takes the name of a data source, and for csv data "
                                   "the name of its label column: labels(X, \"price\")");
            return;
        }
        const struct ast_expr *col = src->u.call.args.head->next;
        if (col) {
            const char *name = NULL;
            if (col->kind == AST_STR)
                name = col->u.str.s;
            else if (col->kind == AST_NAME && sem_lookup(s, col->u.name) &&
                     sem_lookup(s, col->u.name)->kind == SYM_CONST &&
                     s->plan->consts[sem_lookup(s, col->u.name)->index].is_str)
                name = s->plan->consts[sem_lookup(s, col->u.name)->index].str;
            if (!name || !name[0] || (col->kind == AST_STR && memchr(col->u.str.s, '\0', col->u.str.len))) {
                sem_error(s, col->loc, "the label column is a name in quotes (a string), not empty");
                return;
            }
            d->label_column = dup(s, name);
        }
        const struct ast_expr *arg = src->u.call.args.head;
        struct ast_ident id = {arg->u.name, arg->loc};
        struct sym *y = resolve(s, &id, SYM_DATA);
        if (!y)
            return;
        const struct plan_data *of = &s->plan->data[y->index];
        if (y->index == index) {
            sem_error(s, arg->loc, "'%s' cannot be the labels of itself", arg->u.name);
            return;
        }
        if (of->format != PLAN_FORMAT_LIBSVM && of->format != PLAN_FORMAT_CSV) {
            sem_error(s, arg->loc, "'%s' has no labels: labels come with libsvm or csv data",
                      arg->u.name);
            return;
        }
        if (col && of->format != PLAN_FORMAT_CSV) {
            sem_error(s, col->loc, "a label column is named in a csv header; '%s' is %s data",
                      arg->u.name, plan_format_name(of->format));
            return;
        }
        if (d->matrix)
            sem_error(s, t->loc, "labels are a vector, not a matrix");
        d->labels_of = y->index;
        /* One label per row: with the rows, or replicated. */
        enum plan_shard like = of->shard == PLAN_SHARD_ROWS ? PLAN_SHARD_ROWS : PLAN_SHARD_NONE;
        d->shard = has_shard ? d->shard : like;
        if (has_shard && d->shard != like)
            sem_error(s, shard->loc, "labels go with their data's rows: here 'shard %s'",
                      plan_shard_name(like));
        return;
    }
    /* The file: a string, or a string const (so --set can name another). */
    const char *path = NULL;
    if (src->kind == AST_STR) {
        path = src->u.str.s;
    } else if (src->kind == AST_NAME && sem_lookup(s, src->u.name) &&
               sem_lookup(s, src->u.name)->kind == SYM_CONST &&
               s->plan->consts[sem_lookup(s, src->u.name)->index].is_str) {
        path = s->plan->consts[sem_lookup(s, src->u.name)->index].str;
    } else {
        sem_error(s, src->loc,
                  "data comes from a file name (a string or a string const) or labels(DATA)");
        return;
    }
    if (!path || !path[0]) {
        sem_error(s, src->loc, "the file name is empty");
        return;
    }
    d->path = dup(s, path);
    int f = -1;
    if (fmt)
        f = word(s, &fmt->word, "data format", user_format, format_words, 4);
    else if ((f = format_from_path(path)) < 0)
        sem_error(s, src->loc,
                  "cannot tell the format of \"%s\" from its name; add 'format libsvm', "
                  "'format mm', 'format uci' or 'format csv'",
                  path);
    if (f < 0)
        return;
    d->format = (enum plan_format)f;
    d->sparse = t->storage == AST_STORAGE_SPARSE ||
                (t->storage == AST_STORAGE_DEFAULT && d->format != PLAN_FORMAT_CSV);
    if (!has_shard)
        d->shard = d->matrix ? PLAN_SHARD_ROWS : PLAN_SHARD_NONE;
    if (!d->matrix && d->format != PLAN_FORMAT_CSV)
        sem_error(s, t->loc, "a vector comes from a csv file or from labels(DATA); %s data is a "
                  "matrix", plan_format_name(d->format));
    if (vocab && d->format != PLAN_FORMAT_UCI)
        sem_error(s, vocab->loc, "'vocab' goes with 'format uci'");
}

/* ---- parameters --------------------------------------------------------- */

static const struct ectx dims_ctx = {
    .what = "a size", .flags = ECTX_DIMS, .globals = 1u << PROG_G_WORKERS,
};

static void check_size(struct sem *s, struct prog *p, const struct ast_expr *e)
{
    if (!sem_prog(s, &dims_ctx, p, e, ETYPE_NUM))
        return;
    double v;
    if (prog_is_const(p, &v) && (v != floor(v) || !(v >= 1 && v <= PTM_DIM_MAX)))
        sem_error(s, e->loc, "a size must be a whole number from 1 to %d, not %s", PTM_DIM_MAX,
                  num_text(v).s);
}

static void check_param(struct sem *s, const struct ast_stmt *st, int32_t index)
{
    struct plan_param *p = &s->plan->params[index];
    const struct ast_type *t = st->u.param.type;
    p->matrix = t->shape == AST_SHAPE_MATRIX;
    p->integer = t->elem == AST_ELEM_INT;
    p->init_data = -1;
    p->shard_like = -1;
    p->cons = s->plan->cons;
    p->staleness = s->plan->staleness;
    if (t->storage == AST_STORAGE_SPARSE)
        sem_error(s, t->loc, "parameters are dense; remove 'sparse'");
    unsigned want = p->matrix ? 2 : 1;
    if (!t->has_dims)
        sem_error(s, t->loc, "a parameter needs its size: %s", p->matrix ? "matrix[ROWS, COLS]"
                                                                           : "vector[LENGTH]");
    else if (t->dims.n != want)
        sem_error(s, t->loc, "a %s takes %u size%s, not %u", p->matrix ? "matrix" : "vector",
                  want, want == 1 ? "" : "s", t->dims.n);
    else {
        unsigned k = 0;
        for (const struct ast_expr *e = t->dims.head; e; e = e->next)
            check_size(s, &p->dims[k++], e);
    }
    const struct ast_expr *init = st->u.param.init;
    p->init = PLAN_INIT_CONST;
    if (st->u.param.file.s) {
        /* = from "file": read when the job runs, relative to the job's directory */
        p->init = PLAN_INIT_FILE;
        if (st->u.param.file.len == 0)
            sem_error(s, st->u.param.file_loc, "the file name is empty");
        else
            p->init_path = dup(s, st->u.param.file.s);
    } else if (!init) {
        p->init_value = 0;
    } else if (init->kind == AST_CALL && strcmp(init->u.call.fn.name, "random") == 0) {
        p->init = PLAN_INIT_RANDOM;
        if (init->u.call.args.n != 1)
            sem_error(s, init->loc, "random() takes 1 argument (the scale), not %u",
                      init->u.call.args.n);
        else if (sem_const_num(s, init->u.call.args.head, "the scale of random()",
                               &p->init_value) &&
                 !(p->init_value > 0))
            sem_error(s, init->u.call.args.head->loc, "the scale of random() must be positive");
        if (p->integer)
            sem_error(s, init->loc, "an int parameter cannot start random");
    } else if (init->kind == AST_NAME && sem_lookup(s, init->u.name) &&
               sem_lookup(s, init->u.name)->kind == SYM_DATA) {
        struct sym *y = sem_lookup(s, init->u.name);
        p->init = PLAN_INIT_DATA;
        p->init_data = y->index;
        if (s->plan->data[y->index].matrix || p->matrix)
            sem_error(s, init->loc, "a parameter starts from data only when both are vectors");
    } else {
        sem_const_num(s, init, "an initial value", &p->init_value);
        if (p->integer && p->init_value != floor(p->init_value))
            sem_error(s, init->loc, "an int parameter needs a whole initial value");
    }
    bool has_cons = false, has_shard = false;
    for (const struct ast_attr *a = st->u.param.attrs.head; a; a = a->next) {
        switch (a->kind) {
        case AST_ATTR_SHARD_LIKE: {
            if (has_shard) {
                sem_error(s, a->loc, "'shard' is given twice");
                break;
            }
            has_shard = true;
            struct sym *y = resolve(s, &a->word, SYM_DATA);
            if (!y)
                break;
            if (s->plan->data[y->index].shard != PLAN_SHARD_ROWS) {
                sem_error(s, a->loc, "'shard like %s' needs data sharded by rows", a->word.name);
                break;
            }
            p->shard_like = y->index;
            /* Its rows are the data's rows: the first size says so. */
            const struct prog *d0 = &p->dims[0];
            if (t->has_dims && d0->ncode > 0 &&
                !(d0->ncode == 1 && d0->code[0].op == PROG_ROWS && d0->code[0].a == y->index))
                sem_error(s, t->dims.head->loc,
                          "a parameter sharded like %s has rows(%s) %s; write %s", a->word.name,
                          a->word.name, p->matrix ? "rows" : "elements",
                          p->matrix ? "matrix[rows(DATA), ...]" : "vector[rows(DATA)]");
            break;
        }
        case AST_ATTR_CONSISTENCY: {
            if (has_cons) {
                sem_error(s, a->loc, "'consistency' is given twice");
                break;
            }
            has_cons = true;
            const struct ast_cons *c = &a->cons;
            p->cons = c->model == AST_CONS_ASYNC ? PLAN_CONS_ASYNC : PLAN_CONS_SSP;
            int64_t st_ = 0;
            if (c->model == AST_CONS_SSP)
                sem_const_int(s, c->staleness, "the staleness", 0, 1000000, &st_);
            p->staleness = (int32_t)st_;
            break;
        }
        case AST_ATTR_SHARD:
            sem_error(s, a->loc, "a parameter is sharded with 'shard like DATA'");
            break;
        default: misplaced_attr(s, a, "a parameter"); break;
        }
    }
    if (p->shard_like >= 0 && has_cons)
        for (const struct ast_attr *a = st->u.param.attrs.head; a; a = a->next)
            if (a->kind == AST_ATTR_CONSISTENCY)
                sem_error(s, a->loc, "a parameter sharded like data lives with its workers and "
                          "is never shared: remove 'consistency'");
}

/* ---- blocks and their structure ----------------------------------------- */

static void check_blocks(struct sem *s, const struct ast_stmt *st, int32_t index)
{
    struct plan_blockset *b = &s->plan->blocksets[index];
    b->depend = PLAN_DEPEND_NONE;
    struct sym *y = resolve(s, &st->u.blocks.param, SYM_PARAM);
    b->param = y ? y->index : -1;
    const struct plan_param *p = y ? &s->plan->params[y->index] : NULL;
    if (p && p->shard_like >= 0)
        sem_error(s, st->u.blocks.param.loc,
                  "'%s' is sharded like %s: each worker updates its own rows, so it has no "
                  "schedulable blocks",
                  p->name, s->plan->data[p->shard_like].name);
    b->axis = PLAN_AXIS_ELEMS;
    if (st->u.blocks.axis.name) {
        const char *ax = st->u.blocks.axis.name;
        if (strcmp(ax, "rows") != 0 && strcmp(ax, "cols") != 0)
            sem_error(s, st->u.blocks.axis.loc, "blocks split a matrix by 'rows' or 'cols', "
                      "not '%s'", ax);
        else if (p && !p->matrix)
            sem_error(s, st->u.blocks.axis.loc, "'%s' is a vector: its blocks are elements; "
                      "remove '%s'", p->name, ax);
        else
            b->axis = ax[0] == 'r' ? PLAN_AXIS_ROWS : PLAN_AXIS_COLS;
    } else if (p && p->matrix) {
        b->axis = PLAN_AXIS_ROWS;
    }
    b->into = st->u.blocks.split == AST_SPLIT_INTO;
    if (st->u.blocks.count) {
        if (sem_prog(s, &dims_ctx, &b->count, st->u.blocks.count, ETYPE_NUM)) {
            double v;
            if (prog_is_const(&b->count, &v) && (v != floor(v) || !(v >= 1 && v <= PTM_DIM_MAX)))
                sem_error(s, st->u.blocks.count->loc,
                          "a block count must be a whole number from 1 to %d, not %s",
                          PTM_DIM_MAX, num_text(v).s);
        }
    } else if (prog_emit_const(&b->count, 1) != 0 || prog_finish(&b->count) != 0) {
        s->oom = true;
    }
}

/* The block set a `B(v)` header names; -1 after reporting. */
static int32_t blockset_of(struct sem *s, const struct ast_ident *id)
{
    struct sym *y = resolve(s, id, SYM_BLOCKS);
    return y ? y->index : -1;
}

static void var_name_check(struct sem *s, const struct ast_ident *v)
{
    struct sym *y = sem_lookup(s, v->name);
    if (y) {
        sem_error(s, v->loc, "'%s' names a %s; pick another name for the block index", v->name,
                  kind_word(y->kind));
    } else if (reserved_name(v->name)) {
        sem_error(s, v->loc, "'%s' is a built-in name; pick another name for the block index",
                  v->name);
    }
}

static void check_depend(struct sem *s, const struct ast_stmt *st, const struct ast_stmt **seen)
{
    int32_t bs = blockset_of(s, &st->u.depend.set1);
    if (bs < 0)
        return;
    struct plan_blockset *b = &s->plan->blocksets[bs];
    if (seen[bs]) {
        sem_error(s, st->loc, "block set '%s' already has its dependencies", b->name);
        sem_note(s, seen[bs]->loc, "given here");
        return;
    }
    seen[bs] = st;
    if (!st->u.depend.when) {
        b->depend = PLAN_DEPEND_FILE;
        if (st->u.depend.file.len == 0)
            sem_error(s, st->loc, "the edge-list file name is empty");
        b->edges = dup(s, st->u.depend.file.s);
        return;
    }
    if (strcmp(st->u.depend.set1.name, st->u.depend.set2.name) != 0) {
        sem_error(s, st->u.depend.set2.loc,
                  "dependencies are between blocks of one set: write %s(%s), %s(%s)",
                  st->u.depend.set1.name, st->u.depend.var1.name, st->u.depend.set1.name,
                  st->u.depend.var2.name);
        return;
    }
    const char *vi = st->u.depend.var1.name, *vj = st->u.depend.var2.name;
    var_name_check(s, &st->u.depend.var1);
    var_name_check(s, &st->u.depend.var2);
    if (strcmp(vi, vj) == 0) {
        sem_error(s, st->u.depend.var2.loc, "the two block indices need different names");
        return;
    }
    struct ectx cx = {.what = "a dependency", .flags = ECTX_DIMS | ECTX_DATA,
                      .globals = 1u << PROG_G_WORKERS, .vars = {vi, vj}, .nvars = 2};
    b->depend = PLAN_DEPEND_PRED;
    if (!sem_prog(s, &cx, &b->pred, st->u.depend.when, ETYPE_BOOL))
        return;
    bool gave_up;
    if (!sem_symmetric(st->u.depend.when, vi, vj, &gave_up)) {
        if (gave_up)
            sem_error(s, st->u.depend.when->loc,
                      "a dependency must be symmetric, and this one is too large to check");
        else
            sem_error(s, st->u.depend.when->loc,
                      "a dependency must be symmetric: swapping '%s' and '%s' must give the "
                      "same condition",
                      vi, vj);
    }
}

/* priority|cost|order B(j) = EXPR */
static void check_blockfn(struct sem *s, const struct ast_stmt *st, const struct ast_stmt **seen)
{
    int32_t bs = blockset_of(s, &st->u.blockfn.set);
    if (bs < 0)
        return;
    struct plan_blockset *b = &s->plan->blocksets[bs];
    const char *what = st->kind == AST_STMT_PRIORITY ? "priority"
                       : st->kind == AST_STMT_COST   ? "cost"
                                                     : "order";
    if (seen[bs]) {
        sem_error(s, st->loc, "block set '%s' already has %s %s", b->name,
                  st->kind == AST_STMT_ORDER ? "an" : "a", what);
        sem_note(s, seen[bs]->loc, "given here");
        return;
    }
    seen[bs] = st;
    var_name_check(s, &st->u.blockfn.var);
    struct ectx cx = {.vars = {st->u.blockfn.var.name}, .nvars = 1};
    struct prog *p;
    if (st->kind == AST_STMT_PRIORITY) {
        cx.what = "a priority";
        cx.flags = ECTX_DIMS | ECTX_DATA | ECTX_PARAM;
        cx.globals = 1u << PROG_G_ROUNDS | 1u << PROG_G_SWEEPS | 1u << PROG_G_WORKERS;
        b->has_priority = true;
        p = &b->priority;
    } else if (st->kind == AST_STMT_COST) {
        cx.what = "a cost";
        cx.flags = ECTX_DIMS | ECTX_DATA;
        cx.globals = 1u << PROG_G_WORKERS;
        b->has_cost = true;
        p = &b->cost;
    } else {
        cx.what = "an order";
        cx.flags = ECTX_DIMS | ECTX_DATA;
        cx.globals = 1u << PROG_G_WORKERS;
        b->has_order = true;
        p = &b->order;
    }
    /* Any number orders blocks; a priority or a cost is a weight. */
    double v;
    if (sem_prog(s, &cx, p, st->u.blockfn.value, ETYPE_NUM) && st->kind != AST_STMT_ORDER &&
        prog_is_const(p, &v) && !(v >= 0 && isfinite(v)))
        sem_error(s, st->u.blockfn.value->loc, "a constant %s must be a finite number of at "
                  "least 0, not %s", what, num_text(v).s);
}

/* ---- schedule ----------------------------------------------------------- */

enum { P_DYN = 1u << PLAN_POLICY_DYNAMIC, P_ROT = 1u << PLAN_POLICY_ROTATION,
       P_RR = 1u << PLAN_POLICY_ROUND_ROBIN, P_RND = 1u << PLAN_POLICY_RANDOM,
       P_DP = 1u << PLAN_POLICY_DATA_PARALLEL };

/* X(name, policies, values) */
#define SCHED_OPTION_LIST(X)                                                   \
    X(sample, P_DYN, "a whole number")                                         \
    X(keep, P_DYN, "'independent', 'moved' or 'all'")                          \
    X(warmup, P_DYN, "a whole number, then 'rounds' or 'sweeps'")              \
    X(balance, P_DYN, "nothing, 'true' or 'false'")                            \
    X(pipeline, P_DYN, "a whole number")                                       \
    X(uniform, P_DYN, "a number from 0 to 1")                                  \
    X(active, P_DYN, "nothing, 'true' or 'false'")                             \
    X(shuffle, P_DYN, "nothing, 'true' or 'false'")                            \
    X(per_round, P_RR | P_RND, "a whole number")                               \
    X(minibatch, P_DP, "a whole number")

static const struct sched_option {
    const char *name;
    unsigned policies;
    const char *values;
} sched_options[] = {
#define X(name, pol, vals) {#name, pol, vals},
    SCHED_OPTION_LIST(X)
#undef X
};

static const char *const policy_words[] = {
#define X(name, text) text,
    PLAN_POLICY_LIST(X)
#undef X
};

/* An option value that is a whole number in [lo, hi]. */
static bool opt_int(struct sem *s, const struct ast_option *o, const struct ast_expr *v, int64_t lo,
                    int64_t hi, int64_t *out)
{
    char what[64];
    snprintf(what, sizeof(what), "'%s'", o->key.name);
    if (v->kind == AST_STR || v->kind == AST_BOOL) {
        sem_error(s, v->loc, "'%s' takes a number", o->key.name);
        return false;
    }
    return sem_const_int(s, v, what, lo, hi, out);
}

static bool opt_word(const struct ast_expr *v, const char *w)
{
    return v->kind == AST_NAME && strcmp(v->u.name, w) == 0;
}

static bool sched_option_named(const char *name)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(sched_options); i++)
        if (strcmp(sched_options[i].name, name) == 0)
            return true;
    return false;
}

static void check_sched_option(struct sem *s, struct plan_schedule *sc, const struct ast_option *o)
{
    const struct sched_option *def = NULL;
    for (size_t i = 0; i < PTM_ARRAY_LEN(sched_options); i++)
        if (strcmp(sched_options[i].name, o->key.name) == 0)
            def = &sched_options[i];
    const char *policy = plan_policy_name(sc->policy);
    if (!def || !(def->policies & (1u << sc->policy))) {
        const char *cands[PTM_ARRAY_LEN(sched_options)];
        size_t n = 0;
        for (size_t i = 0; i < PTM_ARRAY_LEN(sched_options); i++)
            if (sched_options[i].policies & (1u << sc->policy))
                cands[n++] = sched_options[i].name;
        const char *sug = diag_suggest(o->key.name, strlen(o->key.name), cands, n);
        if (def)
            sem_error(s, o->key.loc, "'%s' is not an option of the %s policy", o->key.name,
                      policy);
        else if (sug)
            sem_error(s, o->key.loc, "unknown option '%s' (did you mean '%s'?)", o->key.name, sug);
        else if (n == 0)
            sem_error(s, o->key.loc, "the %s policy takes no options", policy);
        else
            sem_error(s, o->key.loc, "unknown option '%s' of the %s policy", o->key.name, policy);
        return;
    }
    const struct ast_expr *v = o->values.head;
    unsigned n = o->values.n;
    bool ok = true;
    if (strcmp(def->name, "balance") == 0 || strcmp(def->name, "active") == 0 ||
        strcmp(def->name, "shuffle") == 0) {
        bool *flag = def->name[0] == 'b' ? &sc->balance : def->name[0] == 'a' ? &sc->active
                                                                              : &sc->shuffle;
        if (n == 0)
            *flag = true;
        else if (n == 1 && v->kind == AST_BOOL)
            *flag = v->u.boolean;
        else
            ok = false;
    } else if (strcmp(def->name, "keep") == 0) {
        s->keep_given = true;
        if (n == 1 && (opt_word(v, "independent") || opt_word(v, "all") || opt_word(v, "moved"))) {
            sc->keep_all = opt_word(v, "all");
            sc->keep_moved = opt_word(v, "moved");
        } else {
            ok = false;
        }
    } else if (strcmp(def->name, "warmup") == 0) {
        if (n < 1 || n > 2)
            ok = false;
        else if (opt_int(s, o, v, 0, PTM_WHOLE_MAX, &sc->warmup)) {
            sc->warmup_unit = PLAN_UNIT_SWEEPS;
            if (n == 2) {
                const struct ast_expr *u = v->next;
                if (u->kind != AST_NAME || plan_unit_lookup(u->u.name) < 0) {
                    sem_error(s, u->loc, "the unit of 'warmup' is 'rounds' or 'sweeps'");
                    return;
                }
                sc->warmup_unit = (enum plan_unit)plan_unit_lookup(u->u.name);
            }
        }
    } else if (n != 1) {
        ok = false;
    } else if (strcmp(def->name, "sample") == 0) {
        opt_int(s, o, v, 1, 100000000, &sc->sample);
    } else if (strcmp(def->name, "pipeline") == 0) {
        s->pipeline_given = true;
        opt_int(s, o, v, 0, 64, &sc->pipeline);
    } else if (strcmp(def->name, "uniform") == 0) {
        double u;
        if (v->kind == AST_STR || v->kind == AST_BOOL)
            sem_error(s, v->loc, "'uniform' takes a number");
        else if (sem_const_num(s, v, "'uniform'", &u)) {
            if (u >= 0 && u <= 1)
                sc->uniform = u;
            else
                sem_error(s, v->loc, "'uniform' takes a number from 0 to 1, not %s",
                          num_text(u).s);
        }
    } else if (strcmp(def->name, "per_round") == 0) {
        opt_int(s, o, v, 1, 100000000, &sc->per_round);
    } else if (strcmp(def->name, "minibatch") == 0) {
        opt_int(s, o, v, 1, PTM_WHOLE_MAX, &sc->minibatch);
    }
    if (!ok) {
        /* `sample 1000 active`: options written on one line without ',' */
        const struct ast_expr *w = v;
        while (w && !(w->kind == AST_NAME && w != v && sched_option_named(w->u.name)))
            w = w->next;
        if (w)
            sem_error(s, o->loc,
                      "'%s' takes %s; '%s' is another option: separate options with ',' or "
                      "new lines",
                      def->name, def->values, w->u.name);
        else
            sem_error(s, o->loc, "'%s' takes %s", def->name, def->values);
    }
}

static void check_schedule(struct sem *s, const struct ast_stmt *st)
{
    struct plan_schedule *sc = &s->plan->schedule;
    int pol = word(s, &st->u.schedule.policy, "scheduling policy", plan_policy_lookup,
                   policy_words, PTM_ARRAY_LEN(policy_words));
    if (pol < 0)
        return;
    sc->policy = (enum plan_policy)pol;
    s->policy_known = true;
    /* Defaults, before the options. */
    sc->sample = 256;
    sc->warmup = 1;
    sc->warmup_unit = PLAN_UNIT_SWEEPS;
    sc->balance = true;
    sc->pipeline = 1;
    sc->uniform = 0;
    sc->active = false;
    sc->shuffle = false;
    sc->minibatch = 1000;
    const struct ast_options *opts = &st->u.schedule.options;
    for (const struct ast_option *o = opts->head; o; o = o->next) {
        for (const struct ast_option *q = opts->head; q != o; q = q->next)
            if (strcmp(q->key.name, o->key.name) == 0) {
                sem_error(s, o->key.loc, "option '%s' is given twice", o->key.name);
                goto next;
            }
        const struct ast_option *so = set_option(s, "schedule", o->key.name);
        check_sched_option(s, sc, so ? so : o); /* --set schedule.KEY=VALUE replaces it */
    next:;
    }
    /* --set schedule.KEY=VALUE for options the job does not give, each
     * key once (the last --set of it) */
    for (unsigned k = 0; k < s->opts->nsets; k++) {
        const char *n = s->opts->sets[k].name;
        if (strncmp(n, "schedule.", 9) != 0 || !n[9])
            continue;
        bool given = false;
        for (const struct ast_option *q = opts->head; q; q = q->next)
            given |= strcmp(q->key.name, n + 9) == 0;
        for (unsigned j = k + 1; j < s->opts->nsets; j++)
            given |= strcmp(s->opts->sets[j].name, n) == 0;
        const struct ast_option *so = given ? NULL : set_option(s, "schedule", n + 9);
        if (so)
            check_sched_option(s, sc, so);
    }
    if (sc->keep_moved && sc->pipeline > 0) {
        /* the filter after the update tells the policy which changes it
         * dropped, which the next round must see: rounds are scheduled
         * one at a time, after the last is committed */
        const struct ast_option *given = NULL;
        int set = -1; /* the --set of it that holds (the last) */
        for (const struct ast_option *q = opts->head; q; q = q->next)
            if (strcmp(q->key.name, "pipeline") == 0)
                given = q;
        for (unsigned k = 0; k < s->opts->nsets; k++)
            if (strcmp(s->opts->sets[k].name, "schedule.pipeline") == 0)
                set = (int)k;
        if (set >= 0)
            sem_error(s, SET_LOC(set),
                      "'keep moved' schedules each round once the last one's changes are "
                      "known: it takes 'pipeline 0'");
        else if (given)
            sem_error(s, given->key.loc,
                      "'keep moved' schedules each round once the last one's changes are "
                      "known: it takes 'pipeline 0' (remove 'pipeline %lld')",
                      (long long)sc->pipeline);
        else
            sc->pipeline = 0;
    }
    if (sc->shuffle && !sc->active) {
        struct ptm_loc at = st->loc;
        for (const struct ast_option *q = opts->head; q; q = q->next)
            if (strcmp(q->key.name, "shuffle") == 0)
                at = q->key.loc;
        sem_error(s, at, "'shuffle' orders the passes of 'active': add 'active', or remove "
                         "'shuffle'");
    }
    const struct ast_ident *over = &st->u.schedule.over;
    if (sc->policy == PLAN_POLICY_DATA_PARALLEL) {
        if (over->name)
            sem_error(s, over->loc, "data_parallel updates every parameter: remove 'over %s'",
                      over->name);
        return;
    }
    if (over->name) {
        sc->over = blockset_of(s, over);
    } else if (s->plan->nblocksets == 1) {
        sc->over = 0;
    } else {
        sem_error(s, st->loc, s->plan->nblocksets == 0
                                  ? "the %s policy schedules blocks: declare them with 'blocks'"
                                  : "say which blocks the %s policy schedules: 'over NAME'",
                  plan_policy_name(sc->policy));
        return;
    }
    /* A rotation moves one block to each worker per round. */
    if (sc->over >= 0 && sc->policy == PLAN_POLICY_ROTATION &&
        s->plan->blocksets[sc->over].count.ncode > 0) {
        const struct plan_blockset *b = &s->plan->blocksets[sc->over];
        const struct prog *n = &b->count;
        bool per_worker = b->into && n->ncode == 1 && n->code[0].op == PROG_GLOBAL &&
                          n->code[0].a == PROG_G_WORKERS;
        if (!per_worker)
            sem_error(s, over->name ? over->loc : st->loc,
                      "rotation needs one block per worker: 'blocks %s = %s%s into workers'",
                      b->name, b->param >= 0 ? s->plan->params[b->param].name : "PARAM",
                      b->axis == PLAN_AXIS_ROWS ? " rows" : b->axis == PLAN_AXIS_COLS ? " cols" : "");
    }
}

/* ---- hooks --------------------------------------------------------------- */

/* Join base_dir and a relative path for file checks. */
static void job_path(struct sem *s, const char *path, char *buf, size_t len)
{
    const char *base = s->opts->base_dir ? s->opts->base_dir : ".";
    if (path[0] == '/' || strcmp(base, ".") == 0)
        snprintf(buf, len, "%s", path);
    else
        snprintf(buf, len, "%s/%s", base, path);
}

/* The hook file of st: it exists, loads, and defines the functions named
 * (fn_locs[i] set) of fns[0..n); what it defines under each name goes to
 * found. Returns true when it looked them up (the file loaded). */
static bool check_lua_file(struct sem *s, const struct ast_stmt *st, const char *const *fns,
                           const struct ptm_loc *fn_locs, unsigned n, struct hook_fn *found)
{
    char path[4096];
    job_path(s, st->u.hook.file.s, path, sizeof(path));
    struct stat sb;
    if (stat(path, &sb) != 0) {
        sem_error(s, st->u.hook.file_loc, "Lua file \"%s\" not found (looked for '%s')",
                  st->u.hook.file.s, path);
        return false;
    }
    if (!S_ISREG(sb.st_mode)) {
        sem_error(s, st->u.hook.file_loc, "\"%s\" is a %s, not a Lua file", st->u.hook.file.s,
                  S_ISDIR(sb.st_mode) ? "directory" : "special file");
        return false;
    }
    if (!s->opts->check_hooks)
        return false;
    char err[512];
    int rc = hook_check(path, fns, n, found, err, sizeof(err));
    s->hook_loaded = rc == 0;
    if (rc == PTM_ENOMEM) {
        s->oom = true;
        return false;
    }
    if (rc != 0) {
        sem_error(s, st->u.hook.file_loc, "cannot load \"%s\": %s", st->u.hook.file.s, err);
        return false;
    }
    for (unsigned i = 0; i < n; i++)
        if (fns[i] && !found[i].defined && fn_locs[i].end != 0)
            sem_error(s, fn_locs[i], "\"%s\" defines no function '%s'", st->u.hook.file.s,
                      fns[i]);
    return true;
}

/* A parameter the kernel derives (its values come from state of its own)
 * cannot start from a file. */
static void derived_from_file(struct sem *s, const struct builtin *bi,
                              const struct builtin_opt *bo, const struct sym *y)
{
    if (bo->derived && y->kind == SYM_PARAM && s->plan->params[y->index].init == PLAN_INIT_FILE)
        sem_error(s, y->loc, "'%s' cannot start from a file: %s derives it (%s)", y->name,
                  bi->name, bo->derived);
}

/* A float vector of one value: what an intercept option names. */
static bool is_scalar(const struct plan_param *p)
{
    double len;
    return !p->matrix && !p->integer && p->shard_like < 0 && prog_is_const(&p->dims[0], &len) &&
           len == 1;
}

static void check_builtin_options(struct sem *s, const struct ast_stmt *st,
                                  const struct builtin *bi, struct plan_hook *h)
{
    const struct ast_options *opts = &st->u.hook.options;
    const char *target = st->kind == AST_STMT_UPDATE ? "update" : "objective";
    unsigned before = s->diags->nerrors;
    size_t nopt = 0;
    while (bi->opts[nopt].key)
        nopt++;
    h->options = zalloc(s, nopt, sizeof(*h->options));
    /* which options the job (or --set) gave: for bi->check */
    bool given[BUILTIN_MAX_OPTS] = {false};
    PTM_ASSERT(nopt <= BUILTIN_MAX_OPTS);
    if (!h->options)
        return;
    /* Keys of --set target.KEY the builtin does not have. */
    size_t tl = strlen(target);
    for (unsigned k = 0; k < s->opts->nsets; k++) {
        const char *n = s->opts->sets[k].name;
        if (strncmp(n, target, tl) != 0 || n[tl] != '.' || !n[tl + 1])
            continue;
        const char *cands[16];
        bool known = false;
        for (size_t i = 0; i < nopt && i < 16; i++) {
            cands[i] = bi->opts[i].key;
            known |= strcmp(bi->opts[i].key, n + tl + 1) == 0;
        }
        if (known)
            continue;
        const char *sug = diag_suggest(n + tl + 1, strlen(n + tl + 1), cands, nopt < 16 ? nopt : 16);
        if (sug)
            sem_error(s, SET_LOC(k), "%s has no option '%s' (did you mean '%s'?)", bi->name,
                      n + tl + 1, sug);
        else
            sem_error(s, SET_LOC(k), "%s has no option '%s'", bi->name, n + tl + 1);
    }
    /* Unknown keys first. */
    for (const struct ast_option *o = opts->head; o; o = o->next) {
        bool known = false;
        const char *cands[16];
        for (size_t i = 0; i < nopt; i++) {
            cands[i] = bi->opts[i].key;
            known |= strcmp(bi->opts[i].key, o->key.name) == 0;
        }
        for (const struct ast_option *q = opts->head; q != o; q = q->next)
            if (strcmp(q->key.name, o->key.name) == 0) {
                sem_error(s, o->key.loc, "option '%s' is given twice", o->key.name);
                break;
            }
        if (known)
            continue;
        const char *sug = diag_suggest(o->key.name, strlen(o->key.name), cands, nopt);
        if (sug)
            sem_error(s, o->key.loc, "%s has no option '%s' (did you mean '%s'?)", bi->name,
                      o->key.name, sug);
        else
            sem_error(s, o->key.loc, "%s has no option '%s'", bi->name, o->key.name);
    }
    for (size_t i = 0; i < nopt; i++) {
        const struct builtin_opt *bo = &bi->opts[i];
        const struct ast_option *o = NULL;
        for (const struct ast_option *q = opts->head; q; q = q->next)
            if (strcmp(q->key.name, bo->key) == 0)
                o = q;
        const struct ast_option *so = set_option(s, target, bo->key);
        if (so)
            o = so; /* --set update.KEY=VALUE replaces the job's */
        given[i] = o != NULL;
        struct plan_option *po = &h->options[h->noptions];
        po->key = dup(s, bo->key);
        if (!po->key)
            return;
        h->noptions++;
        if (!o && !bo->dflt) {
            sem_error(s, st->loc, "%s needs option '%s'", bi->name, bo->key);
            continue;
        }
        if (!o && bo->dflt[0] == '?') { /* optional: by name when the job has it */
            struct sym *y = sem_lookup(s, bo->dflt + 1);
            enum sym_kind want = bo->kind == BOPT_DATA ? SYM_DATA : SYM_PARAM;
            if (y && y->kind == want) {
                po->kind = bo->kind == BOPT_DATA ? PLAN_VALUE_DATA : PLAN_VALUE_PARAM;
                po->ref = y->index;
                derived_from_file(s, bi, bo, y);
                continue;
            }
        }
        if (!o && (bo->dflt[0] == '\0' || bo->dflt[0] == '?')) { /* optional, absent */
            po->kind = PLAN_VALUE_STR;
            po->str = dup(s, "");
            continue;
        }
        if (o && o->values.n != 1) {
            sem_error(s, o->loc, "option '%s' takes one value", bo->key);
            continue;
        }
        const struct ast_expr *v = o ? o->values.head : NULL;
        struct ptm_loc where = o ? v->loc : st->loc;
        const char *name = v ? (v->kind == AST_NAME ? v->u.name : NULL) : bo->dflt;
        switch (bo->kind) {
        case BOPT_NUM: {
            po->kind = PLAN_VALUE_NUM;
            if (!v) {
                po->num = strtod(bo->dflt, NULL);
                break;
            }
            if (v->kind == AST_DURATION) {
                sem_error(s, v->loc, "option '%s' takes a number, not a duration", bo->key);
                break;
            }
            if (!sem_const_num(s, v, "an option value", &po->num))
                break;
            double x = po->num;
            bool ok = (bo->lo_open ? x > bo->lo : x >= bo->lo) && x <= bo->hi &&
                      (!bo->whole || x == floor(x));
            if (!ok) {
                char range[96];
                if (isinf(bo->hi))
                    snprintf(range, sizeof(range), "%s %g", bo->lo_open ? "above" : "at least",
                             bo->lo);
                else
                    snprintf(range, sizeof(range), "from %g%s to %g", bo->lo,
                             bo->lo_open ? " (not included)" : "", bo->hi);
                sem_error(s, v->loc, "option '%s' of %s must be a%s number %s, not %s", bo->key,
                          bi->name, bo->whole ? " whole" : "", range, num_text(x).s);
            }
            break;
        }
        case BOPT_WORD: {
            po->kind = PLAN_VALUE_STR;
            bool ok = false;
            if (name) {
                size_t nl = strlen(name);
                for (const char *w = bo->words; *w;) {
                    size_t wl = strcspn(w, "|");
                    ok |= wl == nl && strncmp(w, name, wl) == 0;
                    w += wl + (w[wl] == '|');
                }
            }
            if (!ok)
                sem_error(s, where, "option '%s' takes one of %s", bo->key, bo->words);
            else
                po->str = dup(s, name);
            break;
        }
        case BOPT_DATA:
        case BOPT_PARAM: {
            enum sym_kind want = bo->kind == BOPT_DATA ? SYM_DATA : SYM_PARAM;
            po->kind = bo->kind == BOPT_DATA ? PLAN_VALUE_DATA : PLAN_VALUE_PARAM;
            po->ref = -2; /* in error (reported) until resolved */
            if (!name) {
                sem_error(s, where, "option '%s' takes the name of a %s", bo->key,
                          kind_word(want));
                break;
            }
            struct sym *y = sem_lookup(s, name);
            if (!y || y->kind != want) {
                if (o) {
                    struct ast_ident id = {name, where};
                    resolve(s, &id, want);
                } else {
                    sem_error(s, st->loc, "%s works on a %s named '%s'; name yours with "
                              "{ %s = NAME }", bi->name, kind_word(want), bo->dflt, bo->key);
                }
                break;
            }
            po->ref = y->index;
            derived_from_file(s, bi, bo, y);
            if (bo->scalar && !is_scalar(&s->plan->params[y->index])) {
                sem_error(s, where, "option '%s' of %s names '%s', which is not a float vector[1]",
                          bo->key, bi->name, name);
                po->ref = -2;
            }
            break;
        }
        }
    }
    /* options that exclude each other, once each has its value */
    const char *why = bi->check && s->diags->nerrors == before ? bi->check(h, given) : NULL;
    if (why)
        sem_error(s, st->loc, "%s: %s", bi->name, why);
}

/* The parameter of option key of a checked hook; -1 when the job left
 * it out, -2 when it is in error (reported). */
static int32_t hook_param(const struct plan_hook *h, const char *key)
{
    for (uint32_t i = 0; i < h->noptions; i++)
        if (h->options[i].key && strcmp(h->options[i].key, key) == 0)
            return h->options[i].kind == PLAN_VALUE_PARAM ? h->options[i].ref : -1;
    return -2;
}

/* objective builtin NAME { KEY = PARAM } against update builtin NAME {
 * KEY = PARAM }: an option the objective's table marks `match` names what
 * the update's option of the same key names (both absent, or the same
 * parameter), so that the objective measures the model the update fits. */
static void check_hooks_match(struct sem *s, const struct ast_stmt *ust, const struct ast_stmt *ost)
{
    const struct plan_hook *u = &s->plan->update, *o = &s->plan->objective;
    if (!ust || !ost || u->lua || o->lua || !u->builtin || !o->builtin)
        return;
    const struct builtin *ub = builtin_lookup(u->builtin), *ob = builtin_lookup(o->builtin);
    if (!ub || !ob)
        return;
    for (const struct builtin_opt *bo = ob->opts; bo->key; bo++) {
        if (!bo->match)
            continue;
        bool in_update = false;
        for (const struct builtin_opt *q = ub->opts; q->key; q++)
            in_update |= strcmp(q->key, bo->key) == 0;
        if (!in_update)
            continue;
        int32_t a = hook_param(u, bo->key), b = hook_param(o, bo->key);
        if (a == b || a == -2 || b == -2)
            continue;
        const struct ast_option *at = NULL;
        for (const struct ast_option *q = ost->u.hook.options.head; q; q = q->next)
            if (strcmp(q->key.name, bo->key) == 0)
                at = q;
        if (a < 0)
            sem_error(s, at ? at->loc : ost->loc,
                      "the objective has %s '%s' but update %s has none: give both the same",
                      bo->key, s->plan->params[b].name, ub->name);
        else if (b < 0)
            sem_error(s, ost->loc, "%s needs the %s of update %s: add { %s = %s }", ob->name,
                      bo->key, ub->name, bo->key, s->plan->params[a].name);
        else
            sem_error(s, at ? at->loc : ost->loc,
                      "the objective's %s is '%s' but update %s's is '%s': give both the same",
                      bo->key, s->plan->params[b].name, ub->name, s->plan->params[a].name);
    }
}

/* The functions of a Lua hook file: the update's push (or the objective's
 * function), pull, apply, init, save and load. */
enum { F_MAIN, F_PULL, F_APPLY, F_INIT, F_SAVE, F_LOAD, F_N };

/* save and load (spec/runtime.md, Lua hooks): functions save(w, job) and
 * load(w, t, job), both or neither, each the one named (locs[i] set) or
 * else the file's function of that name; found: what the file defines
 * under fns[0..2) when looked (the file was loaded); errors at the name,
 * or at file_loc. Sets h->save and h->load. */
static void check_state_hooks(struct sem *s, const char *file, const char *const *fns,
                              const struct hook_fn *found, const struct ptm_loc *locs,
                              struct ptm_loc file_loc, bool looked, struct plan_hook *h)
{
    static const char *const shapes[2] = {"save(w, job)", "load(w, t, job)"};
    static const int most[2] = {2, 3};
    bool ok = true, has[2];
    struct ptm_loc at[2];
    for (int i = 0; i < 2; i++) {
        at[i] = locs[i].end != 0 ? locs[i] : file_loc;
        has[i] = locs[i].end != 0 || found[i].defined;
        if (found[i].other) {
            sem_error(s, at[i], "\"%s\" defines '%s' as a %s; the %s hook is a function %s", file,
                      fns[i], found[i].other, i ? "load" : "save", shapes[i]);
            ok = false;
        } else if (found[i].defined && found[i].nparams > most[i] && !found[i].vararg) {
            sem_error(s, at[i], "\"%s\" defines '%s' with %d parameters; the %s hook is %s", file,
                      fns[i], found[i].nparams, i ? "load" : "save", shapes[i]);
            ok = false;
        }
    }
    if (!looked) /* named ones assumed defined, as pull and apply are */
        has[0] = has[1] = has[0] || has[1];
    if (ok && has[0] != has[1]) {
        int i = has[0] ? 0 : 1;
        sem_error(s, at[i],
                  "\"%s\" defines '%s' but no '%s': a checkpoint keeps the file's own state with "
                  "both hooks, save(w, job) and load(w, t, job)",
                  file, fns[i], fns[1 - i]);
    } else if (ok && has[0]) {
        h->save = dup(s, fns[0]);
        h->load = dup(s, fns[1]);
    }
}

static void check_hook(struct sem *s, const struct ast_stmt *st, struct plan_hook *h)
{
    bool update = st->kind == AST_STMT_UPDATE;
    h->present = true;
    if (st->u.hook.kind == AST_HOOK_BUILTIN) {
        const char *name = st->u.hook.builtin.name;
        const struct builtin *bi = builtin_lookup(name);
        if (!bi || bi->role != (update ? BUILTIN_UPDATE : BUILTIN_OBJECTIVE)) {
            const char *cands[32];
            size_t k = builtin_names(update ? BUILTIN_UPDATE : BUILTIN_OBJECTIVE, cands,
                                     PTM_ARRAY_LEN(cands));
            const char *sug = diag_suggest(name, strlen(name), cands, k);
            if (bi)
                sem_error(s, st->u.hook.builtin.loc, "'%s' is %s, not %s", name,
                          update ? "an objective" : "an update rule",
                          update ? "an update rule" : "an objective");
            else if (sug)
                sem_error(s, st->u.hook.builtin.loc, "unknown builtin '%s' (did you mean '%s'?)",
                          name, sug);
            else
                sem_error(s, st->u.hook.builtin.loc, "unknown builtin '%s'", name);
            return;
        }
        h->builtin = dup(s, name);
        check_builtin_options(s, st, bi, h);
        return;
    }
    h->lua = true;
    if (st->u.hook.file.len == 0) {
        sem_error(s, st->u.hook.file_loc, "the Lua file name is empty");
        return;
    }
    h->file = dup(s, st->u.hook.file.s);
    const char *fns[F_N] = {NULL};
    struct ptm_loc locs[F_N] = {{0, 0}};
    struct hook_fn found[F_N] = {{0}};
    fns[F_SAVE] = "save";
    fns[F_LOAD] = "load";
    if (update) {
        if (st->u.hook.fn.s)
            sem_error(s, st->u.hook.fn_loc, "name the update functions as options: "
                      "{ push = \"...\", pull = \"...\", apply = \"...\", init = \"...\" }");
        fns[0] = "push";
        fns[1] = "pull";
        fns[2] = "apply";
        fns[3] = "init";
        locs[0] = st->u.hook.file_loc; /* the default push must exist */
        static const char *const keys[F_N] = {"push", "pull", "apply", "init", "save", "load"};
        for (const struct ast_option *o = st->u.hook.options.head; o; o = o->next) {
            int k = -1;
            for (int i = 0; i < F_N; i++)
                if (strcmp(o->key.name, keys[i]) == 0)
                    k = i;
            if (k < 0) {
                const char *sug = diag_suggest(o->key.name, strlen(o->key.name), keys, F_N);
                if (sug)
                    sem_error(s, o->key.loc, "unknown option '%s' (did you mean '%s'?)",
                              o->key.name, sug);
                else
                    sem_error(s, o->key.loc,
                              "a Lua update takes 'push', 'pull', 'apply', 'init', 'save' and "
                              "'load', not '%s'",
                              o->key.name);
                continue;
            }
            if (o->values.n != 1 || o->values.head->kind != AST_STR) {
                sem_error(s, o->loc, "'%s' takes a function name in quotes", o->key.name);
                continue;
            }
            if (locs[k].end != 0 && locs[k].begin != st->u.hook.file_loc.begin) {
                sem_error(s, o->key.loc, "option '%s' is given twice", o->key.name);
                continue;
            }
            fns[k] = o->values.head->u.str.s;
            locs[k] = o->values.head->loc;
        }
    } else {
        if (st->u.hook.options.present)
            sem_error(s, st->u.hook.options.loc, "a Lua objective takes no options");
        fns[0] = st->u.hook.fn.s ? st->u.hook.fn.s : "objective";
        locs[0] = st->u.hook.fn.s ? st->u.hook.fn_loc : st->u.hook.file_loc;
    }
    bool looked = check_lua_file(s, st, fns, locs, F_N, found);
    if (update) {
        h->push = dup(s, fns[0]);
        /* pull and apply are optional: kept when named or when the file
         * defines them (assumed defined when hook files are not loaded). */
        if (locs[1].end != 0 || found[1].defined || !s->opts->check_hooks)
            h->pull = dup(s, fns[1]);
        if (locs[2].end != 0 || found[2].defined || !s->opts->check_hooks)
            h->apply = dup(s, fns[2]);
        /* init too, but only when named or found: a file that defines it
         * under its name with another shape is refused */
        const struct ptm_loc at = locs[3].end != 0 ? locs[3] : st->u.hook.file_loc;
        if (found[3].other)
            sem_error(s, at, "\"%s\" defines '%s' as a %s; the init hook is a function "
                      "init(w, job)", st->u.hook.file.s, fns[3], found[3].other);
        else if (found[3].defined && found[3].nparams > 2 && !found[3].vararg)
            sem_error(s, at, "\"%s\" defines '%s' with %d parameters; the init hook is "
                      "init(w, job)", st->u.hook.file.s, fns[3], found[3].nparams);
        else if (locs[3].end != 0 || found[3].defined)
            h->init = dup(s, fns[3]);
        check_state_hooks(s, st->u.hook.file.s, fns + F_SAVE, found + F_SAVE, locs + F_SAVE,
                          st->u.hook.file_loc, looked, h);
    } else {
        h->fn = dup(s, fns[0]);
        s->obj_state[0] = found[F_SAVE];
        s->obj_state[1] = found[F_LOAD];
        s->obj_file_loc = st->u.hook.file_loc;
        s->obj_looked = looked;
    }
}

/* A Lua objective in a file of its own keeps that file's save and load
 * (default names only: the objective takes no options); in the update's
 * file they are the update's. */
static void check_objective_state(struct sem *s)
{
    const struct plan_hook *u = &s->plan->update;
    struct plan_hook *o = &s->plan->objective;
    if (!o->lua || !o->file || (u->lua && u->file && strcmp(u->file, o->file) == 0))
        return;
    static const char *const fns[2] = {"save", "load"};
    const struct ptm_loc locs[2] = {{0, 0}, {0, 0}};
    check_state_hooks(s, o->file, fns, s->obj_state, locs, s->obj_file_loc, s->obj_looked, o);
}

static void check_every(struct sem *s, const struct ast_stmt *st, struct plan_hook *h)
{
    h->every = 1;
    h->every_unit = PLAN_UNIT_ROUNDS;
    if (st->u.hook.every)
        sem_const_int(s, st->u.hook.every, "'every'", 1, PTM_WHOLE_MAX, &h->every);
    if (st->u.hook.every_unit.name) {
        int u = plan_unit_lookup(st->u.hook.every_unit.name);
        if (u < 0)
            sem_error(s, st->u.hook.every_unit.loc, "the unit of 'every' is 'rounds' or 'sweeps'");
        else
            h->every_unit = (enum plan_unit)u;
    }
}

/* The first use of the objective in an expression, or NULL. */
static const struct ast_expr *find_objective(const struct ast_expr *e)
{
    const struct ast_expr *r = NULL;
    switch (e->kind) {
    case AST_NAME: return strcmp(e->u.name, "objective") == 0 ? e : NULL;
    case AST_UNARY: return find_objective(e->u.op.a);
    case AST_BINARY:
        r = find_objective(e->u.op.a);
        return r ? r : find_objective(e->u.op.b);
    case AST_CALL:
        for (const struct ast_expr *a = e->u.call.args.head; a && !r; a = a->next)
            r = find_objective(a);
        return r && strcmp(e->u.call.fn.name, "rel_change") == 0 ? e : r;
    case AST_INDEX:
        for (const struct ast_expr *a = e->u.index.args.head; a && !r; a = a->next)
            r = find_objective(a);
        return r;
    default: return NULL;
    }
}

/* Whether the schedule is dynamic over a block set with a dependency. */
static bool dynamic_depends(const struct sem *s)
{
    const struct plan_schedule *sc = &s->plan->schedule;
    return sc->policy == PLAN_POLICY_DYNAMIC && sc->over >= 0 &&
           (uint32_t)sc->over < s->plan->nblocksets &&
           s->plan->blocksets[sc->over].depend != PLAN_DEPEND_NONE;
}

/* Whether a built-in rule's `within` option says sequential. */
static bool within_sequential(const struct plan_hook *h)
{
    const char *within = NULL;
    for (uint32_t k = 0; k < h->noptions; k++)
        if (h->options[k].key && strcmp(h->options[k].key, "within") == 0 &&
            h->options[k].kind == PLAN_VALUE_STR)
            within = h->options[k].str;
    return within && strcmp(within, "sequential") == 0;
}

/* `keep` when the job gives neither it nor `pipeline`: `moved` for
 * lasso_cd computing a round together (within = parallel, its default)
 * under dynamic with a dependency, `independent` otherwise. Filtered
 * after the update, a round's conflicts are found among the blocks that
 * changed only, where most candidates of a Lasso's full passes stay at 0:
 * on the bench's data the same schedule reached each gap 2 to 7 times
 * sooner so (bench/RESULTS.md, "Schedulers"). Rules that apply each change
 * as they compute it cannot drop one afterwards; a Lua rule's changes may
 * cost more than the filter, so it keeps what it says. */
static void default_keep(struct sem *s)
{
    struct plan_schedule *sc = &s->plan->schedule;
    const struct plan_hook *h = &s->plan->update;
    if (!s->keep_given && !s->pipeline_given && dynamic_depends(s) && !h->lua && h->builtin &&
        strcmp(h->builtin, "lasso_cd") == 0 && !within_sequential(h)) {
        sc->keep_moved = true;
        sc->pipeline = 0;
    }
}

/* Does the update rule fit the scheduling policy? */
static void check_update_policy(struct sem *s, const struct ast_stmt *st)
{
    const struct plan_hook *h = &s->plan->update;
    enum plan_policy pol = s->plan->schedule.policy;
    if (!h->lua) {
        if (!h->builtin)
            return; /* an unknown builtin, reported */
        const struct builtin *bi = builtin_lookup(h->builtin);
        if (bi && s->plan->schedule.keep_moved && dynamic_depends(s)) {
            /* the filter after the update drops changes before they are
             * applied: the built-in rules that apply each as they go
             * cannot (runtime/engine/sched_setup.c says so too) */
            bool seq = within_sequential(h);
            if (strcmp(bi->name, "logreg_cd") == 0 || (strcmp(bi->name, "lasso_cd") == 0 && seq))
                sem_error(s, st->u.hook.builtin.loc,
                          "%s%s applies each change as it computes it, so 'keep moved' cannot "
                          "drop a conflicting one after the update: %s",
                          bi->name, seq ? " with within = sequential" : "",
                          seq ? "use within = parallel, or keep independent"
                              : "use keep independent");
        }
        if (!bi || (bi->policies & (1u << pol)))
            return;
        char list[128] = "";
        size_t used = 0;
        int n = 0, total = 0;
        for (int i = 0; i < PLAN_NPOLICIES; i++)
            total += (bi->policies >> i) & 1;
        for (int i = 0; i < PLAN_NPOLICIES; i++)
            if (bi->policies & (1u << i)) {
                n++;
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                         n == 1 ? "" : n == total ? " or " : ", ",
                                         plan_policy_name((enum plan_policy)i));
            }
        sem_error(s, st->u.hook.builtin.loc, "%s runs under the %s polic%s, not %s", bi->name,
                  list, total == 1 ? "y" : "ies", plan_policy_name(pol));
        return;
    }
    bool model_parallel = pol == PLAN_POLICY_DYNAMIC || pol == PLAN_POLICY_ROUND_ROBIN ||
                          pol == PLAN_POLICY_RANDOM;
    if (model_parallel && !h->pull && h->file && s->hook_loaded)
        sem_error(s, st->u.hook.file_loc,
                  "the %s policy needs a pull function to combine the workers' results: "
                  "define 'pull' or name one with { pull = \"NAME\" }",
                  plan_policy_name(pol));
}

/* ---- the job ------------------------------------------------------------ */

static bool is_labels(const struct ast_stmt *st)
{
    const struct ast_expr *src = st->u.data.source;
    return src->kind == AST_CALL && strcmp(src->u.call.fn.name, "labels") == 0;
}

static void check_job_consistency(struct sem *s, const struct ast_stmt *st)
{
    struct ptm_plan *plan = s->plan;
    plan->cons = st->u.consistency.model == AST_CONS_ASYNC ? PLAN_CONS_ASYNC : PLAN_CONS_SSP;
    int64_t v = 0;
    if (st->u.consistency.model == AST_CONS_SSP)
        sem_const_int(s, st->u.consistency.staleness, "the staleness", 0, 1000000, &v);
    plan->staleness = (int32_t)v;
}

/* "a" or "an" before a word. */
static const char *article(const char *word)
{
    return strchr("aeiou", word[0]) ? "an" : "a";
}

/* Statements that may appear once: the first is kept, others reported. */
static bool once(struct sem *s, const struct ast_stmt *st, const struct ast_stmt **slot)
{
    if (*slot) {
        sem_error(s, st->loc, "the job already has %s '%s' statement",
                  article(ast_stmt_keyword(st->kind)), ast_stmt_keyword(st->kind));
        sem_note(s, (*slot)->loc, "the first one is here");
        return false;
    }
    *slot = st;
    return true;
}

/* Two outputs writing one file: sort the paths, report each repeat at its
 * own statement (n log n for jobs with many outputs). */
struct out_key {
    const char *path;
    const struct ast_stmt *st;
};

static int out_key_cmp(const void *a, const void *b)
{
    const struct out_key *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->st->loc.begin < y->st->loc.begin ? -1 : x->st->loc.begin > y->st->loc.begin;
}

static void check_output_paths(struct sem *s, const struct ast_job *job, uint32_t n)
{
    if (n < 2)
        return;
    struct out_key *keys = ptm_malloc(n * sizeof(*keys));
    if (!keys) {
        s->oom = true;
        return;
    }
    uint32_t k = 0;
    for (const struct ast_stmt *st = job->head; st && k < n; st = st->next)
        if (st->kind == AST_STMT_OUTPUT)
            keys[k++] = (struct out_key){st->u.output.file.s, st};
    qsort(keys, k, sizeof(*keys), out_key_cmp);
    for (uint32_t i = 1; i < k; i++)
        if (strcmp(keys[i].path, keys[i - 1].path) == 0)
            sem_error(s, keys[i].st->u.output.file_loc, "another output already writes \"%s\"",
                      keys[i].path);
    ptm_free(keys);
}

/* The checkpoint directory is no output's file. */
static void check_checkpoint_dir(struct sem *s, const struct ast_stmt *cst,
                                 const struct ast_job *job)
{
    const char *dir = s->plan->checkpoint.dir;
    for (const struct ast_stmt *st = job->head; st && dir[0]; st = st->next)
        if (st->kind == AST_STMT_OUTPUT && strcmp(st->u.output.file.s, dir) == 0) {
            sem_error(s, cst->u.checkpoint.dir_loc,
                      "an output writes \"%s\": checkpoints need a directory of their own", dir);
            sem_note(s, st->u.output.file_loc, "the output is here");
            return;
        }
}

static void check_output(struct sem *s, const struct ast_stmt *st, uint32_t k)
{
    struct plan_output *o = &s->plan->outputs[k];
    struct sym *y = resolve(s, &st->u.output.name, SYM_PARAM);
    o->param = y ? y->index : -1;
    if (st->u.output.file.len == 0)
        sem_error(s, st->u.output.file_loc, "the output file name is empty");
    o->path = dup(s, st->u.output.file.s);
    o->format = dup(s, "tsv");
    bool has_format = false;
    for (const struct ast_attr *a = st->u.output.attrs.head; a; a = a->next) {
        if (a->kind == AST_ATTR_FORMAT) {
            if (has_format)
                sem_error(s, a->loc, "'format' is given twice");
            has_format = true;
            if (strcmp(a->word.name, "tsv") != 0)
                sem_error(s, a->word.loc, "unknown output format '%s' (use tsv)", a->word.name);
        } else {
            misplaced_attr(s, a, "an output");
        }
    }
}

/* checkpoint every N rounds|sweeps to "DIR" | checkpoint every DURATION to "DIR"
 *
 * With a unit, N counts rounds or sweeps; without one, the value is a
 * duration in seconds. A plain number without a unit is refused rather
 * than guessed at (rounds, as for the objective, or seconds). */
static void check_checkpoint(struct sem *s, const struct ast_stmt *st)
{
    struct plan_checkpoint *c = &s->plan->checkpoint;
    const struct ast_expr *e = st->u.checkpoint.every;
    const struct ast_ident *unit = &st->u.checkpoint.unit;
    if (st->u.checkpoint.dir.len == 0)
        sem_error(s, st->u.checkpoint.dir_loc, "the checkpoint directory name is empty");
    c->dir = dup(s, st->u.checkpoint.dir.s);
    if (unit->name) {
        static const char *const units[] = {"rounds", "sweeps"};
        int u = plan_unit_lookup(unit->name);
        if (u < 0) {
            const char *sug = diag_suggest(unit->name, strlen(unit->name), units, 2);
            if (sug)
                sem_error(s, unit->loc, "unknown unit '%s' (did you mean '%s'?)", unit->name, sug);
            else
                sem_error(s, unit->loc, "unknown unit '%s' (a checkpoint is taken every N "
                                        "rounds, every N sweeps or every DURATION, such as 5m)",
                          unit->name);
        } else {
            c->every_unit = (enum plan_unit)u;
        }
        sem_const_int(s, e, "'every'", 1, PTM_WHOLE_MAX, &c->every);
        return;
    }
    if (e->kind == AST_NUM ||
        (e->kind == AST_UNARY && e->u.op.op == AST_OP_NEG && e->u.op.a->kind == AST_NUM)) {
        sem_error(s, e->loc, "'every' needs a unit: rounds, sweeps, or a duration such as 5m");
        return;
    }
    double v;
    if (!sem_const_num(s, e, "'every'", &v))
        return;
    if (!(v >= 1)) {
        sem_error(s, e->loc, "a checkpoint interval must be at least 1s, not %ss", num_text(v).s);
        return;
    }
    c->seconds = v;
}

/* Does a hook's option name data d (or the data whose labels d are)? */
static bool hook_reads(const struct plan_hook *h, const struct ptm_plan *plan, int32_t d)
{
    for (uint32_t i = 0; h->present && i < h->noptions; i++) {
        const struct plan_option *o = &h->options[i];
        if (o->kind == PLAN_VALUE_DATA &&
            (o->ref == d || (o->ref >= 0 && plan->data[o->ref].labels_of == d)))
            return true;
    }
    return false;
}

/* Data only metrics read is not sharded unless the job says so: a metric
 * is scored on all of it at once (on rank 0 under MPI), and rows sharded
 * beside the training data would have to be as many. */
static void unshard_metric_data(struct sem *s, const struct ast_job *job, int32_t d)
{
    struct ptm_plan *plan = s->plan;
    if (plan->data[d].shard != PLAN_SHARD_ROWS || hook_reads(&plan->update, plan, d) ||
        hook_reads(&plan->objective, plan, d))
        return;
    for (const struct ast_stmt *st = job->head; st; st = st->next)
        if (st->kind == AST_STMT_DATA && strcmp(st->u.data.name.name, plan->data[d].name) == 0)
            for (const struct ast_attr *a = st->u.data.attrs.head; a; a = a->next)
                if (a->kind == AST_ATTR_SHARD)
                    return; /* said so */
    plan->data[d].shard = PLAN_SHARD_NONE;
    for (uint32_t k = 0; k < plan->ndata; k++)
        if (plan->data[k].labels_of == d)
            plan->data[k].shard = PLAN_SHARD_NONE;
}

/* metric NAME = KIND(DATA): a measure the update's model computes
 * (struct builtin's metrics), on a matrix data source; evaluated with the
 * objective. */
static void check_metrics(struct sem *s, const struct ast_job *job, bool has_objective)
{
    const struct plan_hook *u = &s->plan->update;
    const struct builtin *bi = u->present && !u->lua && u->builtin ? builtin_lookup(u->builtin)
                                                                    : NULL;
    for (const struct ast_stmt *st = job->head; st && !s->oom; st = st->next) {
        if (st->kind != AST_STMT_METRIC)
            continue;
        struct sym *y = sem_lookup(s, st->u.metric.name.name);
        if (!y || y->loc.begin != st->u.metric.name.loc.begin)
            continue; /* a duplicate, already reported */
        struct plan_metric *m = &s->plan->metrics[y->index];
        const struct ast_expr *e = st->u.metric.value;
        if (e->kind != AST_CALL) {
            sem_error(s, e->loc, "a metric is KIND(DATA), such as rmse(T)");
            continue;
        }
        const char *kind = e->u.call.fn.name;
        int k = plan_metric_lookup(kind);
        if (u->present && (u->lua || !bi || !bi->metrics)) {
            sem_error(s, st->loc, "metrics come from a builtin update's model; %s has none",
                      u->lua ? "a Lua update" : u->builtin ? u->builtin : "the update");
            continue;
        }
        bool known = false;
        const char *cands[PLAN_NMETRIC_KINDS];
        size_t n = 0;
        for (const char *w = bi ? bi->metrics : ""; *w;) {
            size_t wl = strcspn(w, "|");
            known |= wl == strlen(kind) && strncmp(w, kind, wl) == 0;
            for (int j = 0; j < PLAN_NMETRIC_KINDS; j++)
                if (strlen(plan_metric_name((enum plan_metric_kind)j)) == wl &&
                    strncmp(plan_metric_name((enum plan_metric_kind)j), w, wl) == 0)
                    cands[n++] = plan_metric_name((enum plan_metric_kind)j);
            w += wl + (w[wl] == '|');
        }
        if (bi && (k < 0 || !known)) {
            const char *sug = diag_suggest(kind, strlen(kind), cands, n);
            if (sug)
                sem_error(s, e->u.call.fn.loc, "%s has no metric '%s' (did you mean '%s'?)",
                          bi->name, kind, sug);
            else
                sem_error(s, e->u.call.fn.loc, "%s has no metric '%s' (it has %s)", bi->name,
                          kind, bi->metrics);
            continue;
        }
        if (k >= 0)
            m->kind = (enum plan_metric_kind)k;
        const struct ast_expr *a = e->u.call.args.head;
        if (e->u.call.args.n != 1 || a->kind != AST_NAME) {
            sem_error(s, e->loc, "%s() takes the name of a data source", kind);
            continue;
        }
        struct ast_ident id = {a->u.name, a->loc};
        const struct sym *dy = resolve(s, &id, SYM_DATA);
        if (!dy)
            continue;
        int32_t d = dy->index;
        if (s->plan->data[d].format == PLAN_FORMAT_LABELS || !s->plan->data[d].matrix) {
            sem_error(s, a->loc, "a metric is measured on a matrix data source; '%s' is %s",
                      a->u.name, s->plan->data[d].format == PLAN_FORMAT_LABELS ? "labels"
                                                                                : "a vector");
            continue;
        }
        m->data = d;
        unshard_metric_data(s, job, d);
        if (!has_objective)
            sem_error(s, st->loc, "metrics are evaluated with the objective, but the job has no "
                                  "'objective'");
    }
}

static int build(struct sem *s, const struct ast_job *job)
{
    struct ptm_plan *plan = s->plan;
    uint32_t count[AST_NSTMTS] = {0};
    for (const struct ast_stmt *st = job->head; st; st = st->next)
        count[st->kind]++;
    plan->job = dup(s, job->name.name);
    plan->base_dir = dup(s, s->opts->base_dir ? s->opts->base_dir : ".");
    plan->consts = zalloc(s, count[AST_STMT_CONST], sizeof(*plan->consts));
    plan->data = zalloc(s, count[AST_STMT_DATA], sizeof(*plan->data));
    plan->params = zalloc(s, count[AST_STMT_PARAM], sizeof(*plan->params));
    plan->blocksets = zalloc(s, count[AST_STMT_BLOCKS], sizeof(*plan->blocksets));
    plan->outputs = zalloc(s, count[AST_STMT_OUTPUT], sizeof(*plan->outputs));
    plan->metrics = zalloc(s, count[AST_STMT_METRIC], sizeof(*plan->metrics));
    const struct ast_stmt **seen = zalloc(s, 4 * (size_t)count[AST_STMT_BLOCKS] + 1, sizeof(*seen));
    /* The symbol table: a power of two, at least twice the names. */
    size_t names = (size_t)count[AST_STMT_CONST] + count[AST_STMT_DATA] +
                   count[AST_STMT_PARAM] + count[AST_STMT_BLOCKS];
    s->nbuckets = 64;
    while (s->nbuckets < 2 * names && s->nbuckets < (1u << 30))
        s->nbuckets *= 2;
    s->buckets = arena_alloc(s->arena, s->nbuckets * sizeof(*s->buckets));
    if (!s->buckets)
        s->oom = true;
    if (s->oom)
        goto out;
    const struct ast_stmt **seen_depend = seen, **seen_priority = seen + count[AST_STMT_BLOCKS],
                          **seen_cost = seen + 2 * count[AST_STMT_BLOCKS],
                          **seen_order = seen + 3 * count[AST_STMT_BLOCKS];

    /* Pass 1: declare. */
    for (const struct ast_stmt *st = job->head; st && !s->oom; st = st->next) {
        switch (st->kind) {
        case AST_STMT_CONST:
            if (declare(s, &st->u.konst.name, SYM_CONST, (int32_t)plan->nconsts))
                plan->consts[plan->nconsts++].name = dup(s, st->u.konst.name.name);
            break;
        case AST_STMT_DATA:
            if (declare(s, &st->u.data.name, SYM_DATA, (int32_t)plan->ndata))
                plan->data[plan->ndata++].name = dup(s, st->u.data.name.name);
            break;
        case AST_STMT_PARAM:
            if (declare(s, &st->u.param.name, SYM_PARAM, (int32_t)plan->nparams)) {
                struct plan_param *p = &plan->params[plan->nparams++];
                p->name = dup(s, st->u.param.name.name);
                prog_init(&p->dims[0]);
                prog_init(&p->dims[1]);
            }
            break;
        case AST_STMT_METRIC:
            if (declare(s, &st->u.metric.name, SYM_METRIC, (int32_t)plan->nmetrics)) {
                struct plan_metric *m = &plan->metrics[plan->nmetrics++];
                m->name = dup(s, st->u.metric.name.name);
                m->data = -1;
            }
            break;
        case AST_STMT_BLOCKS:
            if (declare(s, &st->u.blocks.name, SYM_BLOCKS, (int32_t)plan->nblocksets)) {
                struct plan_blockset *b = &plan->blocksets[plan->nblocksets++];
                b->name = dup(s, st->u.blocks.name.name);
                prog_init(&b->count);
                prog_init(&b->pred);
                prog_init(&b->priority);
                prog_init(&b->cost);
                prog_init(&b->order);
            }
            break;
        default: break;
        }
    }
    if (s->oom)
        goto out;
    check_sets(s, job);

    /* Pass 2, in order of dependence: consts, the job-wide consistency
     * (parameters default to it), data from files, data from labels(),
     * parameters, blocks; then the statements that use them. */
    const struct ast_stmt *one[AST_NSTMTS] = {0};
    plan->cons = PLAN_CONS_SSP;
    plan->staleness = 0;
    enum { P_CONST, P_CONS, P_FILES, P_LABELS, P_PARAM, P_BLOCKS, NPHASES };
    for (int phase = 0; phase < NPHASES && !s->oom; phase++) {
        for (const struct ast_stmt *st = job->head; st && !s->oom; st = st->next) {
            if (phase == P_CONS) {
                if (st->kind == AST_STMT_CONSISTENCY && once(s, st, &one[st->kind]))
                    check_job_consistency(s, st);
                continue;
            }
            static const enum ast_stmt_kind kind_of[] = {
                [P_CONST] = AST_STMT_CONST, [P_FILES] = AST_STMT_DATA,
                [P_LABELS] = AST_STMT_DATA, [P_PARAM] = AST_STMT_PARAM,
                [P_BLOCKS] = AST_STMT_BLOCKS};
            if (st->kind != kind_of[phase])
                continue;
            if (st->kind == AST_STMT_DATA && (phase == P_LABELS) != is_labels(st))
                continue;
            const struct ast_ident *name = st->kind == AST_STMT_CONST    ? &st->u.konst.name
                                           : st->kind == AST_STMT_DATA   ? &st->u.data.name
                                           : st->kind == AST_STMT_PARAM  ? &st->u.param.name
                                                                         : &st->u.blocks.name;
            struct sym *y = sem_lookup(s, name->name);
            if (!y || y->loc.begin != name->loc.begin)
                continue; /* a duplicate, already reported */
            switch (st->kind) {
            case AST_STMT_CONST: check_const(s, st, y); break;
            case AST_STMT_DATA: check_data(s, st, y->index); break;
            case AST_STMT_PARAM: check_param(s, st, y->index); break;
            default: check_blocks(s, st, y->index); break;
            }
        }
    }
    uint32_t nout = 0;
    for (const struct ast_stmt *st = job->head; st && !s->oom; st = st->next) {
        switch (st->kind) {
        case AST_STMT_DEPEND: check_depend(s, st, seen_depend); break;
        case AST_STMT_PRIORITY: check_blockfn(s, st, seen_priority); break;
        case AST_STMT_COST: check_blockfn(s, st, seen_cost); break;
        case AST_STMT_ORDER: check_blockfn(s, st, seen_order); break;
        case AST_STMT_SCHEDULE:
            if (once(s, st, &one[st->kind]))
                check_schedule(s, st);
            break;
        case AST_STMT_UPDATE:
            if (once(s, st, &one[st->kind]))
                check_hook(s, st, &plan->update);
            break;
        case AST_STMT_OBJECTIVE:
            if (once(s, st, &one[st->kind])) {
                check_hook(s, st, &plan->objective);
                check_every(s, st, &plan->objective);
            }
            break;
        case AST_STMT_STOP:
            if (once(s, st, &one[st->kind])) {
                struct ectx cx = {.what = "the stop rule",
                                  .flags = ECTX_METRIC,
                                  .globals = (1u << PROG_NGLOBALS) - 1};
                plan->has_stop = sem_prog(s, &cx, &plan->stop, st->u.stop.when, ETYPE_BOOL);
            }
            break;
        case AST_STMT_OUTPUT: check_output(s, st, nout++); break;
        case AST_STMT_SEED:
            if (once(s, st, &one[st->kind])) {
                int64_t v = 1;
                sem_const_int(s, st->u.seed.value, "the seed", 0, PTM_WHOLE_MAX, &v);
                plan->seed = (uint64_t)v;
            }
            break;
        case AST_STMT_CHECKPOINT:
            if (once(s, st, &one[st->kind]))
                check_checkpoint(s, st);
            break;
        default: break;
        }
    }
    plan->noutputs = nout;
    check_output_paths(s, job, nout);
    if (one[AST_STMT_CHECKPOINT] && plan->checkpoint.dir)
        check_checkpoint_dir(s, one[AST_STMT_CHECKPOINT], job);
    if (s->opts->check_outputs && !s->oom)
        sem_check_output_files(s, job);
    if (one[AST_STMT_UPDATE] && one[AST_STMT_OBJECTIVE])
        check_hooks_match(s, one[AST_STMT_UPDATE], one[AST_STMT_OBJECTIVE]);
    if (one[AST_STMT_OBJECTIVE])
        check_objective_state(s);
    if (s->oom)
        goto out;

    /* What every job needs. */
    if (!one[AST_STMT_SCHEDULE])
        sem_error(s, job->name.loc, "the job has no 'schedule': say how updates are scheduled");
    if (!one[AST_STMT_UPDATE])
        sem_error(s, job->name.loc, "the job has no 'update': say what updates the parameters");
    if (!one[AST_STMT_STOP])
        sem_error(s, job->name.loc, "the job has no 'stop' rule: say when it ends");
    if (plan->nparams == 0)
        sem_error(s, job->name.loc, "the job has no parameters ('param')");
    if (one[AST_STMT_UPDATE] && s->policy_known && plan->update.present) {
        default_keep(s);
        check_update_policy(s, one[AST_STMT_UPDATE]);
    }
    check_metrics(s, job, one[AST_STMT_OBJECTIVE] != NULL);
    /* Warnings: declared structure the schedule will not use. */
    for (uint32_t b = 0; s->policy_known && b < plan->nblocksets; b++) {
        struct sym *y = sem_lookup(s, plan->blocksets[b].name);
        enum plan_policy pol = plan->schedule.policy;
        if (!y)
            continue;
        if (plan->schedule.over < 0 && pol != PLAN_POLICY_DATA_PARALLEL)
            break; /* the schedule's blocks are in error, reported */
        if (plan->schedule.over != (int32_t)b) {
            diag_add(s->diags, PTM_SEV_WARNING, y->loc,
                     "block set '%s' is never scheduled (the schedule is over %s)",
                     plan->blocksets[b].name,
                     plan->schedule.over >= 0 ? plan->blocksets[plan->schedule.over].name
                                              : "every parameter");
            continue;
        }
        const struct ast_stmt *ignored[2] = {
            pol == PLAN_POLICY_DYNAMIC ? NULL : seen_priority[b],
            pol == PLAN_POLICY_DYNAMIC ? NULL : seen_depend[b]};
        for (int k = 0; k < 2; k++)
            if (ignored[k])
                diag_add(s->diags, PTM_SEV_WARNING, ignored[k]->loc,
                         "the %s policy ignores %s; only dynamic uses them",
                         plan_policy_name(pol), k == 0 ? "priorities" : "dependencies");
        if (seen_order[b] && pol != PLAN_POLICY_DYNAMIC)
            diag_add(s->diags, PTM_SEV_WARNING, seen_order[b]->loc,
                     "the %s policy ignores the order; only dynamic's active passes use it",
                     plan_policy_name(pol));
        else if (seen_order[b] && !plan->schedule.active)
            diag_add(s->diags, PTM_SEV_WARNING, seen_order[b]->loc,
                     "dynamic without active ignores the order; it orders the first active pass");
    }
    /* objective and rel_change(objective) need an objective. */
    if (plan->has_stop && !plan->objective.present) {
        const struct ast_expr *use = find_objective(one[AST_STMT_STOP]->u.stop.when);
        if (use)
            sem_error(s, use->loc,
                      "the stop rule reads the objective, but the job has no 'objective'");
    }
out:
    ptm_free(seen);
    return s->oom ? PTM_ENOMEM : 0;
}

int ptm_compile(struct ptm_source *src, const struct ast_job *job,
                const struct ptm_compile_opts *opts, struct ptm_diags *diags,
                struct ptm_plan **out)
{
    static const struct ptm_compile_opts defaults = {0};
    *out = NULL;
    struct sem s;
    memset(&s, 0, sizeof(s));
    s.src = src;
    s.diags = diags;
    s.arena = diags->arena;
    s.opts = opts ? opts : &defaults;
    s.plan = plan_new();
    if (!s.plan)
        return PTM_ENOMEM;
    unsigned before = diags->nerrors;
    int rc = build(&s, job);
    if (rc == 0 && (diags->nerrors > before || diags->oom))
        rc = PTM_ESYNTAX;
    if (rc != 0) {
        plan_free(s.plan);
        return rc;
    }
    *out = s.plan;
    return 0;
}
