/*
 * plan_load.c - a plan from YAML text, checked as if the file were hostile.
 *
 * DESIGN: three stages.
 *
 * 1. libyaml's event API (not its document loader) builds a small tree of
 *    nodes in an arena, each with its byte range in the source. Nesting is
 *    limited to PTM_PLAN_MAX_DEPTH, so a pile of brackets stops at once
 *    instead of costing libyaml quadratic time. Anything this stage cannot
 *    build a tree from (a syntax error, an alias, a tag, a second document,
 *    deep nesting) is one error and the end. libyaml's marks are 0-based
 *    lines and columns counted in characters; they are turned into byte
 *    offsets by walking the text with libyaml's idea of a line break.
 *
 * 2. The format version and the explicit end of the document ("...") are
 *    checked before anything else: a newer plan or a truncated file gets
 *    one clear message rather than a cascade.
 *
 * 3. The tree is walked against the format, section by section in the
 *    order of spec/plan.md. Every mapping is checked for unknown keys (with
 *    a suggestion), duplicate keys and missing keys; every scalar for its
 *    type and range; every index for its range and its kind; every program
 *    with prog_validate() under the limits of where it appears; and the
 *    plan-level rules of compiler/sem.c. A section whose own fields are bad
 *    is left out of the checks that depend on it, so one mistake gives one
 *    message, and independent mistakes are all reported.
 *
 * Allocation goes through ptm_malloc (the tree's arena, the plan); libyaml
 * uses its own malloc. Any allocation failure is PTM_ENOMEM.
 */
#include "plan_load.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "arena.h"
#include "builtins.h"
#include "prog.h"
#include "ptm.h"

/* ---- names of the enumerations ----------------------------------------- */

#define NAME_X(name, text) text,
static const char *const format_names[] = {PLAN_FORMAT_LIST(NAME_X)};
static const char *const shard_names[] = {PLAN_SHARD_LIST(NAME_X)};
static const char *const policy_names[] = {PLAN_POLICY_LIST(NAME_X)};
static const char *const cons_names[] = {PLAN_CONS_LIST(NAME_X)};
static const char *const init_names[] = {PLAN_INIT_LIST(NAME_X)};
static const char *const unit_names[] = {PLAN_UNIT_LIST(NAME_X)};
static const char *const global_names[] = {PROG_GLOBAL_LIST(NAME_X)};
#undef NAME_X
static const char *const op_names[] = {
#define X(name, yaml, operands, pops, pushes) yaml,
    PROG_OP_LIST(X)
#undef X
};
static const char op_operands[] = {
#define X(name, yaml, operands, pops, pushes) operands,
    PROG_OP_LIST(X)
#undef X
};
static const char *const axis_names[] = {"elems", "rows", "cols"};
static const char *const split_names[] = {"each", "into"};
static const char *const depend_names[] = {"none", "pred", "file"};
static const char *const keep_names[] = {"independent", "all", "moved"};
static const char *const kind_names[] = {"builtin", "lua"};
static const char *const output_formats[] = {"tsv"};

#define NAMES(a) a, PTM_ARRAY_LEN(a)

/* ---- the tree ----------------------------------------------------------- */

enum nkind { N_SCALAR, N_SEQ, N_MAP };

struct node {
    enum nkind kind;
    bool plain;          /* a scalar written without quotes */
    struct ptm_loc loc;  /* a scalar's text with its quotes; a collection's first token */
    const char *s;       /* scalar value, NUL-terminated (and may hold NULs) */
    size_t len;
    struct node *head, *tail, *next; /* children; a mapping's keys and values alternate */
    uint32_t n;                      /* children */
};

struct load {
    struct ptm_source *src;
    struct ptm_diags *diags;
    struct arena arena; /* the tree and side tables */
    bool oom;
    bool fatal;        /* the tree could not be built */
    bool explicit_end; /* the document ended with "..." */
    /* Mark conversion: the start of line mline is at byte mline_off; line
     * 0 starts after a UTF-8 byte-order mark, which libyaml's reader eats. */
    size_t mline;
    size_t mline_off;
    size_t bom;
    /* ...and column mcol of that line at byte mcol_off, so that many marks
     * on one long line do not each walk it from its start. */
    size_t mcol;
    size_t mcol_off;

    struct ptm_plan *plan;
    /* Entries in the top-level lists, known before the lists are read so
     * that any index can be checked where it appears. */
    uint32_t ndata, nparams, nblocksets;
    /* Per entry: its fields are all valid, so rules may rely on them. */
    bool *data_ok, *param_ok;
    /* Per entry: 1 vector, 2 matrix, 0 unknown (its 'matrix' is bad). */
    uint8_t *data_ndims, *param_ndims;
    bool all_data_ndims, all_param_ndims;
    /* Per block set: 0 unknown, 1 each, 2 into. */
    uint8_t *bs_split;
};

static void error(struct load *L, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(struct load *L, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fatal(struct load *L, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void error(struct load *L, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_addv(L->diags, PTM_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
}

static void note(struct load *L, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_addv(L->diags, PTM_SEV_NOTE, loc, fmt, ap);
    va_end(ap);
}

/* An error after which the tree cannot be built: the last one. */
static void fatal(struct load *L, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_addv(L->diags, PTM_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
    L->fatal = true;
}

/* s[0..n) fit for a message: at most 40 bytes, whole characters, control
 * characters as '?', "..." when cut. buf holds at least 48 bytes. */
static const char *clip(const char *s, size_t n, char *buf)
{
    size_t k = n < 40 ? n : 40;
    while (k < n && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
        k--; /* do not cut a character */
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    strcpy(buf + k, k < n ? "..." : "");
    return buf;
}

static void *zalloc(struct load *L, size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / size) {
        L->oom = true;
        return NULL;
    }
    void *p = ptm_malloc(n * size);
    if (!p) {
        L->oom = true;
        return NULL;
    }
    memset(p, 0, n * size);
    return p;
}

static void *arena_zalloc(struct load *L, size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    void *p = n <= SIZE_MAX / size ? arena_alloc(&L->arena, n * size) : NULL;
    if (!p)
        L->oom = true;
    return p;
}

/* ---- libyaml marks to byte offsets -------------------------------------- */

/* Bytes in the character that starts with c (libyaml has checked the
 * encoding of everything it reports a mark in). */
static size_t char_width(unsigned char c)
{
    return c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 1;
}

/* Bytes in the line break at t[i], or 0: libyaml's breaks are CR LF, CR,
 * LF, NEL, LS and PS. */
static size_t break_at(const char *t, size_t n, size_t i)
{
    const unsigned char *u = (const unsigned char *)t;
    if (u[i] == '\r')
        return i + 1 < n && u[i + 1] == '\n' ? 2 : 1;
    if (u[i] == '\n')
        return 1;
    if (u[i] == 0xc2 && i + 1 < n && u[i + 1] == 0x85)
        return 2;
    if (u[i] == 0xe2 && i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))
        return 3;
    return 0;
}

/* The byte offset of a mark. Marks mostly come in order, so the walk goes
 * on from the last one and the whole file is walked about once; a mark
 * behind it starts again from the top of the file or of the line. */
static uint32_t mark_offset(struct load *L, yaml_mark_t m)
{
    const char *t = L->src->text;
    size_t n = L->src->len;
    if (m.line < L->mline || L->mline_off < L->bom) {
        L->mline = 0;
        L->mline_off = L->bom;
        L->mcol = 0;
        L->mcol_off = L->bom;
    }
    while (L->mline < m.line) {
        size_t i = L->mcol_off, k = 0;
        while (i < n && !(k = break_at(t, n, i)))
            i += char_width((unsigned char)t[i]);
        if (i >= n)
            break;
        L->mline++;
        L->mline_off = L->mcol_off = i + k;
        L->mcol = 0;
    }
    if (m.line == L->mline && m.column < L->mcol) {
        L->mcol = 0;
        L->mcol_off = L->mline_off;
    }
    size_t i = L->mcol_off, col = L->mcol;
    if (m.line == L->mline) {
        for (; col < m.column && i < n && !break_at(t, n, i); col++)
            i += char_width((unsigned char)t[i]);
        L->mcol = col;
        L->mcol_off = i;
    }
    return (uint32_t)(i < n ? i : n);
}

static struct ptm_loc mark_loc(struct load *L, yaml_mark_t m)
{
    uint32_t b = mark_offset(L, m);
    return (struct ptm_loc){b, b};
}

/* ---- stage 1: events to a tree ------------------------------------------ */

/* libyaml's context "while scanning a quoted scalar" as a note's subject,
 * "the quoted scalar"; NULL when it does not read that way. */
static const char *context_subject(const char *ctx, char *buf, size_t len)
{
    static const char *const leads[] = {"while scanning ", "while parsing "};
    for (size_t i = 0; i < PTM_ARRAY_LEN(leads); i++) {
        size_t k = strlen(leads[i]);
        if (strncmp(ctx, leads[i], k) != 0)
            continue;
        const char *rest = ctx + k;
        if (strncmp(rest, "a ", 2) == 0)
            rest += 2;
        else if (strncmp(rest, "an ", 3) == 0)
            rest += 3;
        else
            return NULL;
        snprintf(buf, len, "the %s", rest);
        return buf;
    }
    return NULL;
}

static void yaml_failure(struct load *L, const yaml_parser_t *yp)
{
    L->fatal = true;
    switch (yp->error) {
    case YAML_MEMORY_ERROR: L->oom = true; return;
    case YAML_READER_ERROR: {
        size_t off = yp->problem_offset < L->src->len ? yp->problem_offset : L->src->len;
        struct ptm_loc loc = {(uint32_t)off, (uint32_t)(off < L->src->len ? off + 1 : off)};
        const char *problem = yp->problem ? yp->problem : "cannot read the input";
        if (yp->problem_value < 0)
            error(L, loc, "%s", problem);
        else if (strstr(problem, "octet"))
            error(L, loc, "%s 0x%02X", problem, (unsigned)yp->problem_value & 0xff);
        else
            error(L, loc, "%s (U+%04X)", problem, (unsigned)yp->problem_value);
        return;
    }
    default: {
        const char *problem = yp->problem ? yp->problem : "syntax error";
        struct ptm_loc at = mark_loc(L, yp->problem_mark);
        if (yp->context)
            error(L, at, "%s %s", problem, yp->context);
        else
            error(L, at, "%s", problem);
        char buf[80];
        const char *subject = yp->context ? context_subject(yp->context, buf, sizeof(buf)) : NULL;
        if (subject) {
            struct ptm_loc cl = mark_loc(L, yp->context_mark);
            if (cl.begin != at.begin)
                note(L, cl, "%s starts here", subject);
        }
        return;
    }
    }
}

static struct node *new_node(struct load *L, enum nkind kind, const yaml_event_t *ev)
{
    struct node *x = arena_alloc(&L->arena, sizeof(*x));
    if (!x) {
        L->oom = true;
        return NULL;
    }
    x->kind = kind;
    uint32_t b = mark_offset(L, ev->start_mark), e = mark_offset(L, ev->end_mark);
    x->loc = (struct ptm_loc){b, e > b ? e : b};
    return x;
}

static void add_child(struct node *parent, struct node *x)
{
    if (parent->tail)
        parent->tail->next = x;
    else
        parent->head = x;
    parent->tail = x;
    parent->n++;
}

/* Anchors, aliases and tags have no meaning in a plan: refuse them rather
 * than guess. */
static bool plain_node(struct load *L, const yaml_event_t *ev, const yaml_char_t *anchor,
                       const yaml_char_t *tag)
{
    char buf[48];
    if (anchor) {
        fatal(L, mark_loc(L, ev->start_mark), "anchors (&%s) are not used in a plan",
              clip((const char *)anchor, strlen((const char *)anchor), buf));
        return false;
    }
    if (tag) {
        fatal(L, mark_loc(L, ev->start_mark), "tags (%s) are not used in a plan",
              clip((const char *)tag, strlen((const char *)tag), buf));
        return false;
    }
    return true;
}

/* The root of the one document of the stream, or NULL (empty stream, or
 * L->fatal / L->oom). */
static struct node *read_tree(struct load *L)
{
    yaml_parser_t yp;
    if (!yaml_parser_initialize(&yp)) {
        L->oom = true;
        return NULL;
    }
    /* libyaml would decode UTF-16 (after its byte-order mark) and report
     * marks in the decoded text: refuse it. */
    const unsigned char *t = (const unsigned char *)L->src->text;
    if (L->src->len >= 2 && ((t[0] == 0xfe && t[1] == 0xff) || (t[0] == 0xff && t[1] == 0xfe))) {
        fatal(L, (struct ptm_loc){0, 2}, "the plan is UTF-16: write it in UTF-8");
        yaml_parser_delete(&yp);
        return NULL;
    }
    if (L->src->len >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf)
        L->bom = 3;
    L->mline_off = L->bom;
    yaml_parser_set_input_string(&yp, t, L->src->len);

    struct node *stack[PTM_PLAN_MAX_DEPTH];
    unsigned depth = 0, docs = 0;
    struct node *root = NULL;
    bool done = false;
    while (!done && !L->fatal && !L->oom) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&yp, &ev)) {
            yaml_failure(L, &yp);
            break;
        }
        struct node *x = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                fatal(L, mark_loc(L, ev.start_mark),
                      "a second YAML document: a plan file holds one");
            break;
        case YAML_DOCUMENT_END_EVENT: L->explicit_end = !ev.data.document_end.implicit; break;
        case YAML_ALIAS_EVENT: {
            const char *a = (const char *)ev.data.alias.anchor;
            char buf[48];
            fatal(L, mark_loc(L, ev.start_mark), "aliases (*%s) are not used in a plan",
                  clip(a, strlen(a), buf));
            break;
        }
        case YAML_SCALAR_EVENT:
            if (!plain_node(L, &ev, ev.data.scalar.anchor, ev.data.scalar.tag))
                break;
            if (!(x = new_node(L, N_SCALAR, &ev)))
                break;
            x->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            x->len = ev.data.scalar.length;
            if (!(x->s = arena_strndup(&L->arena, (const char *)ev.data.scalar.value, x->len)))
                L->oom = true;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            bool seq = ev.type == YAML_SEQUENCE_START_EVENT;
            if (!plain_node(L, &ev, seq ? ev.data.sequence_start.anchor
                                        : ev.data.mapping_start.anchor,
                            seq ? ev.data.sequence_start.tag : ev.data.mapping_start.tag))
                break;
            if (depth == PTM_PLAN_MAX_DEPTH) {
                fatal(L, mark_loc(L, ev.start_mark),
                      "the plan nests deeper than %d levels", PTM_PLAN_MAX_DEPTH);
                break;
            }
            x = new_node(L, seq ? N_SEQ : N_MAP, &ev);
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0)
                depth--;
            break;
        default: break;
        }
        if (x) {
            if (depth > 0)
                add_child(stack[depth - 1], x);
            else
                root = x;
            if (x->kind != N_SCALAR)
                stack[depth++] = x;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&yp);
    return L->fatal || L->oom ? NULL : root;
}

/* ---- scalars ------------------------------------------------------------ */

static bool text_is(const struct node *x, const char *s)
{
    size_t n = strlen(s);
    return x->kind == N_SCALAR && x->len == n && memcmp(x->s, s, n) == 0;
}

static bool is_null(const struct node *x)
{
    return x->kind == N_SCALAR && x->plain &&
           (x->len == 0 || text_is(x, "~") || text_is(x, "null") || text_is(x, "Null") ||
            text_is(x, "NULL"));
}

/* A scalar's text fit for a message (see clip()). */
static const char *shown(const struct node *x, char *buf, size_t len)
{
    PTM_ASSERT(len >= 48);
    return clip(x->s, x->len, buf);
}

/* What x is, for "must be ..., not %s". */
static const char *describe(const struct node *x, char *buf, size_t len)
{
    if (x->kind == N_SEQ)
        return "a sequence";
    if (x->kind == N_MAP)
        return "a mapping";
    if (is_null(x))
        return "null";
    if (!x->plain)
        return "a string";
    char s[48];
    snprintf(buf, len, "'%s'", shown(x, s, sizeof(s)));
    return buf;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

enum parsed { P_BAD, P_RANGE, P_OK };

/* [-+]?(0|[1-9][0-9]*): no leading zeros, which YAML 1.1 reads as octal. */
static enum parsed parse_int(const struct node *x, int64_t *out)
{
    if (x->kind != N_SCALAR || !x->plain)
        return P_BAD;
    const char *s = x->s;
    size_t n = x->len;
    bool neg = false;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++, n--;
    }
    if (!all_digits(s, n) || (n > 1 && s[0] == '0'))
        return P_BAD;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return P_RANGE;
        v = v * 10 + d;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return P_OK;
}

/* A YAML float: [-+]?(.D+|D+(.D*)?)([eE][-+]?D+)?, or .inf, -.inf, .nan in
 * any of YAML's three spellings. */
static enum parsed parse_num(const struct node *x, double *out)
{
    if (x->kind != N_SCALAR || !x->plain)
        return P_BAD;
    const char *s = x->s;
    size_t n = x->len, i = 0;
    if (text_is(x, ".nan") || text_is(x, ".NaN") || text_is(x, ".NAN")) {
        *out = NAN;
        return P_OK;
    }
    bool neg = n > 0 && s[0] == '-';
    if (n > 0 && (s[0] == '-' || s[0] == '+'))
        i++;
    const char *rest = s + i;
    size_t rn = n - i;
    if ((rn == 4 && (memcmp(rest, ".inf", 4) == 0 || memcmp(rest, ".Inf", 4) == 0 ||
                     memcmp(rest, ".INF", 4) == 0))) {
        *out = neg ? -INFINITY : INFINITY;
        return P_OK;
    }
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
    }
    if (digits == 0)
        return P_BAD;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t e = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e)
            return P_BAD;
    }
    if (i != n)
        return P_BAD;
    errno = 0;
    double v = strtod(s, NULL); /* s is NUL-terminated right after the number */
    if (errno == ERANGE && isinf(v))
        return P_RANGE; /* underflow to a subnormal or zero is fine */
    *out = v;
    return P_OK;
}

/* ---- typed values -------------------------------------------------------- */

static bool val_int(struct load *L, const struct node *x, const char *key, int64_t lo, int64_t hi,
                    int64_t *out)
{
    char buf[64], s[48];
    int64_t v = 0;
    enum parsed r = parse_int(x, &v);
    if (r == P_BAD) {
        error(L, x->loc, "'%s' must be an integer, not %s", key, describe(x, buf, sizeof(buf)));
        return false;
    }
    if (r == P_RANGE || v < lo || v > hi) {
        error(L, x->loc, "'%s' must be from %lld to %lld, not %s", key, (long long)lo,
              (long long)hi, shown(x, s, sizeof(s)));
        return false;
    }
    *out = v;
    return true;
}

static bool val_num(struct load *L, const struct node *x, const char *key, bool finite,
                    double *out)
{
    char buf[64], s[48];
    double v = 0;
    enum parsed r = parse_num(x, &v);
    if (r == P_BAD) {
        error(L, x->loc, "'%s' must be a number, not %s", key, describe(x, buf, sizeof(buf)));
        return false;
    }
    if (r == P_RANGE) {
        error(L, x->loc, "'%s' is out of the range of a double: %s", key, shown(x, s, sizeof(s)));
        return false;
    }
    if (finite && !isfinite(v)) {
        error(L, x->loc, "'%s' must be finite, not %s", key, shown(x, s, sizeof(s)));
        return false;
    }
    *out = v;
    return true;
}

/* A number that may be infinite (a duration past the range of a double
 * folds to one) but not NaN, which the language never makes: a NaN in the
 * stop rule would never let it hold. */
static bool val_num_not_nan(struct load *L, const struct node *x, const char *key, double *out)
{
    if (!val_num(L, x, key, false, out))
        return false;
    if (isnan(*out)) {
        char s[48];
        error(L, x->loc, "'%s' must be a number, not %s", key, shown(x, s, sizeof(s)));
        return false;
    }
    return true;
}

static bool val_bool(struct load *L, const struct node *x, const char *key, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE"}, *const no[] = {"false", "False",
                                                                             "FALSE"};
    for (size_t i = 0; i < 3 && x->plain; i++) {
        if (text_is(x, yes[i])) {
            *out = true;
            return true;
        }
        if (text_is(x, no[i])) {
            *out = false;
            return true;
        }
    }
    char buf[64];
    error(L, x->loc, "'%s' must be true or false, not %s", key, describe(x, buf, sizeof(buf)));
    return false;
}

/* "a, b or c" */
static void word_list(char *buf, size_t len, const char *const *names, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
}

/* One of names[0..n); what names the kind of word in messages ("format").
 * Returns the index or -1 after reporting. */
static int val_word(struct load *L, const struct node *x, const char *key, const char *what,
                    const char *const *names, size_t n)
{
    char list[256], buf[64], s[48];
    word_list(list, sizeof(list), names, n);
    if (x->kind != N_SCALAR || is_null(x)) {
        error(L, x->loc, "'%s' must be %s, not %s", key, list, describe(x, buf, sizeof(buf)));
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (text_is(x, names[i]))
            return (int)i;
    const char *sug = diag_suggest(x->s, x->len, names, n);
    if (sug)
        error(L, x->loc, "unknown %s '%s' (did you mean '%s'?)", what, shown(x, s, sizeof(s)),
              sug);
    else
        error(L, x->loc, "unknown %s '%s' (use %s)", what, shown(x, s, sizeof(s)), list);
    return -1;
}

/* A string from a user, copied into the plan (*out from ptm_malloc). */
static bool val_str(struct load *L, const struct node *x, const char *key, bool nonempty,
                    char **out)
{
    char buf[64];
    if (x->kind != N_SCALAR || is_null(x)) {
        error(L, x->loc, "'%s' must be a string, not %s", key, describe(x, buf, sizeof(buf)));
        return false;
    }
    if (memchr(x->s, '\0', x->len)) {
        error(L, x->loc, "'%s' cannot hold a NUL byte", key);
        return false;
    }
    if (nonempty && x->len == 0) {
        error(L, x->loc, "'%s' cannot be empty", key);
        return false;
    }
    if (!(*out = plan_strndup(x->s, x->len))) {
        L->oom = true;
        return false;
    }
    return true;
}

enum { MAX_NAME = 255 };

/* A name as the language writes it: a letter or '_', then letters, digits
 * and '_'; at most MAX_NAME bytes. Built-in names are refused when
 * reserved is set. */
static bool val_name(struct load *L, const struct node *x, const char *key, bool reserved,
                     char **out)
{
    char s[48];
    if (!val_str(L, x, key, true, out))
        return false;
    const char *p = *out;
    bool ok = (p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z') || p[0] == '_';
    for (size_t i = 1; ok && p[i]; i++)
        ok = (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
             (p[i] >= '0' && p[i] <= '9') || p[i] == '_';
    if (!ok)
        error(L, x->loc, "\"%s\" is not a name (a letter or '_', then letters, digits and '_')",
              shown(x, s, sizeof(s)));
    else if (x->len > MAX_NAME)
        error(L, x->loc, "name is too long (%zu characters; the limit is %d)", x->len, MAX_NAME);
    else if (reserved && prog_global_lookup(p) >= 0)
        error(L, x->loc, "'%s' is a built-in name and cannot name anything else", p);
    else
        return true;
    ptm_free(*out);
    *out = NULL;
    return false;
}

/* An index into a list of count entries of a kind ("data source"). */
static bool val_index(struct load *L, const struct node *x, const char *key, uint32_t count,
                      const char *kind, int32_t *out)
{
    int64_t v;
    if (!val_int(L, x, key, INT64_MIN, INT64_MAX, &v))
        return false;
    if (v >= 0 && v < (int64_t)count) {
        *out = (int32_t)v;
        return true;
    }
    if (count == 0)
        error(L, x->loc, "'%s' refers to %s %lld, but the plan has none", key, kind,
              (long long)v);
    else
        error(L, x->loc, "'%s' must be a %s index from 0 to %u, not %lld", key, kind, count - 1,
              (long long)v);
    return false;
}

/* ---- mappings ------------------------------------------------------------ */

enum { MAX_KEYS = 16 };

struct map {
    const struct node *node;
    const char *what; /* "a data source": for messages */
    const char *const *keys;
    size_t nkeys;
    const struct node *key[MAX_KEYS], *val[MAX_KEYS];
};

/* Where to point at a mapping as a whole: its first key. */
static struct ptm_loc map_loc(const struct map *m)
{
    return m->node->head ? m->node->head->loc : m->node->loc;
}

/* Open x as a mapping of the given keys: unknown keys are reported with a
 * suggestion, a repeated key with the place of the first. subject is how
 * messages name x ("'schedule'", "an entry of 'data'"). False when x is
 * not a mapping at all. */
static bool map_open(struct load *L, const struct node *x, const char *subject, const char *what,
                     const char *const *keys, size_t nkeys, struct map *m)
{
    char buf[64], s[48];
    PTM_ASSERT(nkeys <= MAX_KEYS);
    memset(m, 0, sizeof(*m));
    m->node = x;
    m->what = what;
    m->keys = keys;
    m->nkeys = nkeys;
    if (x->kind != N_MAP) {
        error(L, x->loc, "%s must be a mapping, not %s", subject, describe(x, buf, sizeof(buf)));
        return false;
    }
    for (const struct node *k = x->head; k && k->next; k = k->next->next) {
        if (k->kind != N_SCALAR) {
            error(L, k->loc, "a key must be a word, not %s", describe(k, buf, sizeof(buf)));
            continue;
        }
        size_t i = 0;
        while (i < nkeys && !text_is(k, keys[i]))
            i++;
        if (i == nkeys) {
            const char *sug = diag_suggest(k->s, k->len, keys, nkeys);
            if (sug)
                error(L, k->loc, "unknown key '%s' in %s (did you mean '%s'?)",
                      shown(k, s, sizeof(s)), what, sug);
            else
                error(L, k->loc, "unknown key '%s' in %s", shown(k, s, sizeof(s)), what);
            continue;
        }
        if (m->key[i]) {
            error(L, k->loc, "duplicate key '%s'", keys[i]);
            note(L, m->key[i]->loc, "'%s' is first given here", keys[i]);
            continue;
        }
        m->key[i] = k;
        m->val[i] = k->next;
    }
    return true;
}

/* The value of required key k, or NULL after reporting it missing. */
static const struct node *req(struct load *L, const struct map *m, int k)
{
    if (!m->val[k])
        error(L, map_loc(m), "missing key '%s' in %s", m->keys[k], m->what);
    return m->val[k];
}

/* Key k must not be there; why says so. */
static bool forbid(struct load *L, const struct map *m, int k, const char *why)
{
    if (!m->val[k])
        return true;
    error(L, m->key[k]->loc, "%s", why);
    return false;
}

static bool m_int(struct load *L, const struct map *m, int k, int64_t lo, int64_t hi,
                  int64_t *out)
{
    const struct node *v = req(L, m, k);
    return v && val_int(L, v, m->keys[k], lo, hi, out);
}

static bool m_num(struct load *L, const struct map *m, int k, bool finite, double *out)
{
    const struct node *v = req(L, m, k);
    return v && val_num(L, v, m->keys[k], finite, out);
}

static bool m_bool(struct load *L, const struct map *m, int k, bool *out)
{
    const struct node *v = req(L, m, k);
    return v && val_bool(L, v, m->keys[k], out);
}

static bool m_str(struct load *L, const struct map *m, int k, bool nonempty, char **out)
{
    const struct node *v = req(L, m, k);
    return v && val_str(L, v, m->keys[k], nonempty, out);
}

static bool m_name(struct load *L, const struct map *m, int k, bool reserved, char **out)
{
    const struct node *v = req(L, m, k);
    return v && val_name(L, v, m->keys[k], reserved, out);
}

static int m_word(struct load *L, const struct map *m, int k, const char *what,
                  const char *const *names, size_t n)
{
    const struct node *v = req(L, m, k);
    return v ? val_word(L, v, m->keys[k], what, names, n) : -1;
}

static bool m_index(struct load *L, const struct map *m, int k, uint32_t count, const char *kind,
                    int32_t *out)
{
    const struct node *v = req(L, m, k);
    return v && val_index(L, v, m->keys[k], count, kind, out);
}

/* The sequence under key k, or NULL after reporting. */
static const struct node *m_seq(struct load *L, const struct map *m, int k)
{
    char buf[64];
    const struct node *v = req(L, m, k);
    if (v && v->kind != N_SEQ) {
        error(L, v->loc, "'%s' must be a sequence, not %s", m->keys[k],
              describe(v, buf, sizeof(buf)));
        return NULL;
    }
    return v;
}

/* ---- programs ------------------------------------------------------------ */

/* Where a program appears: what it may read. */
struct pctx {
    const char *what;
    uint32_t nvars;
    uint32_t globals;
    bool runtime; /* parameter and data access (prog_limits.allow_runtime) */
    bool params;  /* PARAM and DELTA, within runtime */
    bool dims;    /* ROWS and COLS */
};

#define G(name) (1u << PROG_G_##name)
static const struct pctx cx_size = {"size", 0, G(WORKERS), false, false, true};
static const struct pctx cx_count = {"block count", 0, G(WORKERS), false, false, true};
static const struct pctx cx_pred = {"depend predicate", 2, G(WORKERS), true, false, true};
static const struct pctx cx_priority = {"priority", 1, G(ROUNDS) | G(SWEEPS) | G(WORKERS),
                                        true, true, true};
static const struct pctx cx_cost = {"cost", 1, G(WORKERS), true, false, true};
static const struct pctx cx_order = {"order", 1, G(WORKERS), true, false, true};
static const struct pctx cx_stop = {"stop rule", 0, (1u << PROG_NGLOBALS) - 1, false, false,
                                    false};
#undef G

enum { K_TEXT, K_MAX_STACK, K_NVARS, K_CONSTS, K_CODE, K_N };
static const char *const prog_keys[] = {"text", "max_stack", "nvars", "consts", "code"};

static const struct node *nth(const struct node *x, uint32_t i)
{
    const struct node *c = x->head;
    while (c && i--)
        c = c->next;
    return c;
}

/* One instruction: [op, operand...], with as many operands as the op has. */
static bool load_insn(struct load *L, const struct node *x, struct prog_insn *in)
{
    char buf[64];
    if (x->kind != N_SEQ) {
        error(L, x->loc, "an instruction must be a sequence [op, operand...], not %s",
              describe(x, buf, sizeof(buf)));
        return false;
    }
    if (x->n == 0) {
        error(L, x->loc, "an instruction must start with its op");
        return false;
    }
    int op = val_word(L, x->head, "op", "op", NAMES(op_names));
    if (op < 0)
        return false;
    char kind = op_operands[op];
    uint32_t want = kind == 0 ? 0 : kind == 'p' || kind == 'c' || kind == 'm' ? 2 : 1;
    if (x->n - 1 != want) {
        error(L, x->loc, "'%s' takes %u operand%s, not %u", op_names[op], want,
              want == 1 ? "" : "s", x->n - 1);
        return false;
    }
    in->op = (uint8_t)op;
    in->a = in->b = 0;
    const struct node *a = x->head->next;
    if (want == 0)
        return true;
    if (kind == 'g') {
        int g = val_word(L, a, "global", "global", NAMES(global_names));
        in->a = g;
        return g >= 0;
    }
    int64_t v;
    bool ok = val_int(L, a, "operand", INT32_MIN, INT32_MAX, &v);
    in->a = ok ? (int32_t)v : 0;
    if (want == 2) {
        bool okb = val_int(L, a->next, "operand", INT32_MIN, INT32_MAX, &v);
        in->b = okb ? (int32_t)v : 0;
        ok = ok && okb;
    }
    return ok;
}

/* program := {text?, max_stack, nvars, consts: [number...], code: [[op, operand...]...]}
 * Checked with prog_validate() against the plan read so far and the
 * context cx; subject names x in messages. */
static bool load_prog(struct load *L, const struct node *x, const char *subject,
                      const struct pctx *cx, struct prog *p)
{
    struct map m;
    if (!map_open(L, x, subject, "a program", prog_keys, K_N, &m))
        return false;
    bool ok = true;
    if (m.val[K_TEXT])
        ok = val_str(L, m.val[K_TEXT], "text", false, &p->text);
    int64_t v;
    if (m_int(L, &m, K_MAX_STACK, 1, PROG_MAX_STACK, &v))
        p->max_stack = (uint32_t)v;
    else
        ok = false;
    if (m_int(L, &m, K_NVARS, 0, PROG_MAX_VARS, &v)) {
        if ((uint32_t)v != cx->nvars) {
            error(L, m.val[K_NVARS]->loc, "'nvars' of the %s must be %u, not %lld", cx->what,
                  cx->nvars, (long long)v);
            ok = false;
        }
        p->nvars = (uint32_t)v;
    } else {
        ok = false;
    }
    const struct node *ks = m_seq(L, &m, K_CONSTS);
    if (ks) {
        p->consts = zalloc(L, ks->n, sizeof(*p->consts));
        if (!p->consts)
            return false;
        p->capconsts = ks->n;
        p->nconsts = ks->n;
        uint32_t i = 0;
        for (const struct node *k = ks->head; k; k = k->next, i++)
            ok = val_num_not_nan(L, k, "constant", &p->consts[i]) && ok;
    } else {
        ok = false;
    }
    const struct node *code = m_seq(L, &m, K_CODE);
    if (code && code->n == 0) {
        error(L, code->loc, "'code' cannot be empty");
        code = NULL;
    }
    if (code) {
        p->code = zalloc(L, code->n, sizeof(*p->code));
        if (!p->code)
            return false;
        p->capcode = code->n;
        p->ncode = code->n;
        uint32_t i = 0;
        for (const struct node *c = code->head; c && !L->oom; c = c->next, i++)
            ok = load_insn(L, c, &p->code[i]) && ok;
    } else {
        ok = false;
    }
    if (!ok || L->oom)
        return false;

    struct prog_limits lim = {
        .nvars = cx->nvars,
        .ndata = L->ndata,
        .nparams = L->nparams,
        .param_ndims = L->all_param_ndims ? L->param_ndims : NULL,
        .data_ndims = L->all_data_ndims ? L->data_ndims : NULL,
        .allowed_globals = cx->globals,
        .nmetrics = cx == &cx_stop ? L->plan->nmetrics : 0,
        .allow_runtime = cx->runtime,
    };
    char err[256];
    if (prog_validate(p, &lim, err, sizeof(err)) != 0) {
        unsigned at;
        const struct node *where = NULL;
        if (sscanf(err, "instruction %u", &at) == 1)
            where = nth(code, at);
        error(L, where ? where->loc : map_loc(&m), "invalid %s: %s", cx->what, err);
        return false;
    }
    for (uint32_t i = 0; i < p->ncode; i++) {
        enum prog_op op = (enum prog_op)p->code[i].op;
        const char *what = NULL;
        if ((op == PROG_PARAM || op == PROG_DELTA) && !cx->params)
            what = "parameter access";
        else if ((op == PROG_ROWS || op == PROG_COLS) && !cx->dims)
            what = "data sizes";
        if (what) {
            error(L, nth(code, i)->loc, "invalid %s: instruction %u (%s): %s not allowed here",
                  cx->what, i, op_names[op], what);
            return false;
        }
    }
    return true;
}

/* A size or a block count that is a constant: a whole number from 1 to
 * PTM_DIM_MAX. x is the program's mapping; the message points at the constant. */
static bool const_size(struct load *L, const struct node *x, const struct prog *p,
                       const char *what)
{
    double v;
    if (!prog_is_const(p, &v) || (v == floor(v) && v >= 1 && v <= PTM_DIM_MAX))
        return true;
    struct ptm_loc loc = x->loc;
    for (const struct node *k = x->head; k && k->next; k = k->next->next)
        if (text_is(k, "consts") && nth(k->next, (uint32_t)p->code[0].a))
            loc = nth(k->next, (uint32_t)p->code[0].a)->loc;
    char s[32];
    snprintf(s, sizeof(s), "%g", v);
    error(L, loc, "%s must be a whole number from 1 to %d, not %s", what, PTM_DIM_MAX, s);
    return false;
}

/* ---- sections ------------------------------------------------------------ */

enum { C_MODEL, C_STALENESS, C_N };
static const char *const cons_keys[] = {"model", "staleness"};

/* consistency := {model: ssp, staleness: N} | {model: async} */
static bool load_cons(struct load *L, const struct node *x, enum plan_cons *cons,
                      int32_t *staleness)
{
    struct map m;
    if (!map_open(L, x, "'consistency'", "a consistency model", cons_keys, C_N, &m))
        return false;
    int c = m_word(L, &m, C_MODEL, "consistency model", NAMES(cons_names));
    *staleness = 0;
    if (c < 0)
        return false;
    *cons = (enum plan_cons)c;
    if (c == PLAN_CONS_ASYNC)
        return forbid(L, &m, C_STALENESS, "'staleness' goes with model ssp");
    int64_t v;
    if (!m_int(L, &m, C_STALENESS, 0, 1000000, &v))
        return false;
    *staleness = (int32_t)v;
    return true;
}

enum { KC_NAME, KC_NUM, KC_STR, KC_N };
static const char *const const_keys[] = {"name", "num", "str"};

/* const := {name, num: N} | {name, str: "..."} */
static bool load_const(struct load *L, const struct node *x, struct plan_const *k)
{
    struct map m;
    if (!map_open(L, x, "an entry of 'consts'", "a const", const_keys, KC_N, &m))
        return false;
    bool ok = m_name(L, &m, KC_NAME, true, &k->name);
    if (m.val[KC_NUM] && m.val[KC_STR]) {
        error(L, m.key[KC_STR]->loc, "a const has 'num' or 'str', not both");
        return false;
    }
    if (m.val[KC_STR]) {
        k->is_str = true;
        return val_str(L, m.val[KC_STR], "str", false, &k->str) && ok;
    }
    if (m.val[KC_NUM])
        return val_num_not_nan(L, m.val[KC_NUM], "num", &k->num) && ok;
    error(L, map_loc(&m), "missing key 'num' or 'str' in a const");
    return false;
}

enum { D_NAME, D_FORMAT, D_PATH, D_LABELS_OF, D_VOCAB, D_LABEL_COLUMN, D_MATRIX, D_SPARSE,
       D_INTEGER, D_SHARD, D_N };
static const char *const data_keys[] = {"name",   "format", "path",    "labels_of", "vocab",
                                        "label_column", "matrix", "sparse", "integer", "shard"};

/* Where the values the rules between data sources point at are. */
struct data_where {
    const struct node *matrix, *sparse, *labels_of, *shard, *label_column;
};

/* data := {name, format, path | labels_of, vocab?, matrix, sparse, integer, shard} */
static bool load_data(struct load *L, struct data_where *w, const struct node *x, uint32_t i)
{
    struct plan_data *d = &L->plan->data[i];
    d->labels_of = -1;
    struct map mm, *m = &mm;
    if (!map_open(L, x, "an entry of 'data'", "a data source", data_keys, D_N, m))
        return false;
    *w = (struct data_where){m->val[D_MATRIX], m->val[D_SPARSE], m->val[D_LABELS_OF],
                             m->val[D_SHARD], m->val[D_LABEL_COLUMN]};
    bool ok = m_name(L, m, D_NAME, true, &d->name);
    int f = m_word(L, m, D_FORMAT, "format", NAMES(format_names));
    ok = f >= 0 && ok;
    if (f == PLAN_FORMAT_LABELS) {
        ok = forbid(L, m, D_PATH, "labels have no 'path': they come with their data") && ok;
        ok = m_index(L, m, D_LABELS_OF, L->ndata, "data source", &d->labels_of) && ok;
    } else if (f >= 0) {
        ok = forbid(L, m, D_LABELS_OF, "'labels_of' goes with format labels") && ok;
        ok = m_str(L, m, D_PATH, true, &d->path) && ok;
    }
    if (m->val[D_VOCAB]) {
        if (f >= 0 && f != PLAN_FORMAT_UCI)
            ok = forbid(L, m, D_VOCAB, "'vocab' goes with format uci") && ok;
        else
            ok = val_str(L, m->val[D_VOCAB], "vocab", true, &d->vocab) && ok;
    }
    if (m->val[D_LABEL_COLUMN]) {
        if (f >= 0 && f != PLAN_FORMAT_LABELS)
            ok = forbid(L, m, D_LABEL_COLUMN, "'label_column' goes with format labels") && ok;
        else
            ok = val_str(L, m->val[D_LABEL_COLUMN], "label_column", true, &d->label_column) &&
                 ok;
    }
    if (m_bool(L, m, D_MATRIX, &d->matrix))
        L->data_ndims[i] = d->matrix ? 2 : 1;
    else
        ok = false;
    ok = m_bool(L, m, D_SPARSE, &d->sparse) && ok;
    ok = m_bool(L, m, D_INTEGER, &d->integer) && ok;
    int s = m_word(L, m, D_SHARD, "sharding", NAMES(shard_names));
    if (s >= 0)
        d->shard = (enum plan_shard)s;
    if (f >= 0)
        d->format = (enum plan_format)f;
    return s >= 0 && ok;
}

/* The rules of compiler/sem.c check_data() between data sources. */
static void data_rules(struct load *L, const struct data_where *where)
{
    const struct plan_data *all = L->plan->data;
    for (uint32_t i = 0; i < L->ndata; i++) {
        if (!L->data_ok[i])
            continue;
        const struct plan_data *d = &all[i];
        const struct data_where *w = &where[i];
        if (d->format != PLAN_FORMAT_LABELS) {
            if (!d->matrix && d->format != PLAN_FORMAT_CSV)
                error(L, w->matrix->loc,
                      "a vector comes from csv data or from labels; %s data is a matrix",
                      format_names[d->format]);
            continue;
        }
        int32_t j = d->labels_of;
        if (d->matrix)
            error(L, w->matrix->loc, "labels are a vector: 'matrix' must be false");
        if (d->sparse)
            error(L, w->sparse->loc, "labels are dense: 'sparse' must be false");
        if ((uint32_t)j == i) {
            error(L, w->labels_of->loc, "data source '%s' cannot be the labels of itself",
                  d->name);
            continue;
        }
        if (!L->data_ok[j])
            continue;
        const struct plan_data *of = &all[j];
        if (of->format != PLAN_FORMAT_LIBSVM && of->format != PLAN_FORMAT_CSV)
            error(L, w->labels_of->loc,
                  "data source %d ('%s') has no labels: labels come with libsvm or csv data", j,
                  of->name);
        else if (d->label_column && of->format != PLAN_FORMAT_CSV)
            error(L, w->label_column->loc,
                  "a label column is named in a csv header; data source %d ('%s') is %s", j,
                  of->name, format_names[of->format]);
        else if (d->shard != of->shard)
            error(L, w->shard->loc, "labels are sharded like their data ('%s'), not '%s'",
                  shard_names[of->shard], shard_names[d->shard]);
    }
}

enum { P_NAME, P_MATRIX, P_INTEGER, P_DIMS, P_INIT, P_INIT_VALUE, P_INIT_DATA, P_INIT_PATH,
       P_SHARD_LIKE, P_CONSISTENCY, P_N };
static const char *const param_keys[] = {"name",       "matrix",      "integer",
                                         "dims",       "init",        "init_value",
                                         "init_data",  "init_path",   "shard_like",
                                         "consistency"};

/* param := {name, matrix, integer, dims: [program...], init,
 *           init_value | init_data | init_path, shard_like?, consistency} */
static bool load_param(struct load *L, const struct node *x, uint32_t i)
{
    struct plan_param *p = &L->plan->params[i];
    p->init_data = -1;
    p->shard_like = -1;
    struct map m;
    if (!map_open(L, x, "an entry of 'params'", "a parameter", param_keys, P_N, &m))
        return false;
    bool ok = m_name(L, &m, P_NAME, true, &p->name);
    bool shape = m_bool(L, &m, P_MATRIX, &p->matrix);
    if (shape)
        L->param_ndims[i] = p->matrix ? 2 : 1;
    ok = m_bool(L, &m, P_INTEGER, &p->integer) && shape && ok;

    const struct node *dims = m_seq(L, &m, P_DIMS);
    if (dims) {
        uint32_t want = p->matrix ? 2 : 1;
        if (shape && dims->n != want) {
            error(L, dims->loc, "a %s has %u dim%s, not %u", p->matrix ? "matrix" : "vector",
                  want, want == 1 ? "" : "s", dims->n);
            ok = false;
        } else if (!shape && (dims->n < 1 || dims->n > 2)) {
            error(L, dims->loc, "'dims' holds 1 or 2 sizes, not %u", dims->n);
            ok = false;
        } else {
            int k = 0;
            for (const struct node *d = dims->head; d; d = d->next, k++)
                ok = load_prog(L, d, "an entry of 'dims'", &cx_size, &p->dims[k]) &&
                     const_size(L, d, &p->dims[k], "a size") && ok;
        }
    } else {
        ok = false;
    }

    int init = m_word(L, &m, P_INIT, "init", NAMES(init_names));
    if (init == PLAN_INIT_DATA) {
        p->init = PLAN_INIT_DATA;
        ok = forbid(L, &m, P_INIT_VALUE, "'init_value' goes with init const or random") && ok;
        if (m_index(L, &m, P_INIT_DATA, L->ndata, "data source", &p->init_data)) {
            const struct plan_data *d = &L->plan->data[p->init_data];
            if (L->data_ndims[p->init_data] && shape && (d->matrix || p->matrix)) {
                error(L, m.val[P_INIT_DATA]->loc,
                      "a parameter starts from data only when both are vectors");
                ok = false;
            }
        } else {
            ok = false;
        }
        ok = forbid(L, &m, P_INIT_PATH, "'init_path' goes with init file") && ok;
    } else if (init == PLAN_INIT_FILE) {
        p->init = PLAN_INIT_FILE;
        ok = forbid(L, &m, P_INIT_VALUE, "'init_value' goes with init const or random") && ok;
        ok = forbid(L, &m, P_INIT_DATA, "'init_data' goes with init data") && ok;
        ok = m_str(L, &m, P_INIT_PATH, true, &p->init_path) && ok;
    } else if (init >= 0) {
        p->init = (enum plan_init)init;
        ok = forbid(L, &m, P_INIT_DATA, "'init_data' goes with init data") && ok;
        ok = forbid(L, &m, P_INIT_PATH, "'init_path' goes with init file") && ok;
        if (m_num(L, &m, P_INIT_VALUE, true, &p->init_value)) {
            const struct node *v = m.val[P_INIT_VALUE];
            if (init == PLAN_INIT_RANDOM && !(p->init_value > 0)) {
                error(L, v->loc, "the scale of init random must be positive");
                ok = false;
            } else if (init == PLAN_INIT_RANDOM && p->integer) {
                error(L, m.val[P_INIT]->loc, "an integer parameter cannot start random");
                ok = false;
            } else if (p->integer && p->init_value != floor(p->init_value)) {
                error(L, v->loc, "an integer parameter needs a whole initial value");
                ok = false;
            }
        } else {
            ok = false;
        }
    } else {
        ok = false;
    }

    if (m.val[P_SHARD_LIKE]) {
        int32_t j;
        if (val_index(L, m.val[P_SHARD_LIKE], "shard_like", L->ndata, "data source", &j)) {
            const struct plan_data *d = &L->plan->data[j];
            if (L->data_ok[j] && d->shard != PLAN_SHARD_ROWS) {
                error(L, m.val[P_SHARD_LIKE]->loc,
                      "'shard_like' needs data sharded by rows; data source %d ('%s') is "
                      "sharded '%s'",
                      j, d->name, shard_names[d->shard]);
                ok = false;
            }
            p->shard_like = j;
        } else {
            ok = false;
        }
    }
    const struct node *c = req(L, &m, P_CONSISTENCY);
    ok = c && load_cons(L, c, &p->cons, &p->staleness) && ok;
    return ok;
}

enum {
    B_NAME,
    B_PARAM,
    B_AXIS,
    B_SPLIT,
    B_COUNT,
    B_DEPEND,
    B_PRED,
    B_EDGES,
    B_PRIORITY,
    B_COST,
    B_ORDER,
    B_N
};
static const char *const bs_keys[] = {"name", "param", "axis",     "split", "count", "depend",
                                      "pred", "edges", "priority", "cost",  "order"};

/* blockset := {name, param, axis, split, count: program, depend, pred | edges?,
 *              priority: program?, cost: program?, order: program?} */
static void load_blockset(struct load *L, const struct node *x, uint32_t i)
{
    struct plan_blockset *b = &L->plan->blocksets[i];
    b->param = -1;
    struct map m;
    if (!map_open(L, x, "an entry of 'blocksets'", "a block set", bs_keys, B_N, &m))
        return;
    bool ok = m_name(L, &m, B_NAME, true, &b->name);
    bool has_param = m_index(L, &m, B_PARAM, L->nparams, "parameter", &b->param);
    ok = has_param && ok;
    int axis = m_word(L, &m, B_AXIS, "axis", NAMES(axis_names));
    if (axis >= 0) {
        b->axis = (enum plan_axis)axis;
        const struct plan_param *p = has_param ? &L->plan->params[b->param] : NULL;
        if (p && L->param_ndims[b->param]) {
            if (!p->matrix && axis != PLAN_AXIS_ELEMS) {
                error(L, m.val[B_AXIS]->loc,
                      "parameter '%s' is a vector: its blocks are elems, not %s", p->name,
                      axis_names[axis]);
                ok = false;
            } else if (p->matrix && axis == PLAN_AXIS_ELEMS) {
                error(L, m.val[B_AXIS]->loc,
                      "parameter '%s' is a matrix: its blocks are rows or cols, not elems",
                      p->name);
                ok = false;
            }
        }
    } else {
        ok = false;
    }
    int split = m_word(L, &m, B_SPLIT, "split", NAMES(split_names));
    b->into = split == 1;
    L->bs_split[i] = (uint8_t)(split + 1);
    ok = split >= 0 && ok;
    const struct node *count = req(L, &m, B_COUNT);
    ok = count && load_prog(L, count, "'count'", &cx_count, &b->count) &&
         const_size(L, count, &b->count, "a block count") && ok;

    int dep = m_word(L, &m, B_DEPEND, "dependency kind", NAMES(depend_names));
    if (dep >= 0)
        b->depend = (enum plan_depend_kind)dep;
    if (dep != PLAN_DEPEND_PRED)
        ok = forbid(L, &m, B_PRED, "'pred' goes with depend pred") && ok;
    if (dep != PLAN_DEPEND_FILE)
        ok = forbid(L, &m, B_EDGES, "'edges' goes with depend file") && ok;
    if (dep == PLAN_DEPEND_PRED) {
        const struct node *pred = req(L, &m, B_PRED);
        ok = pred && load_prog(L, pred, "'pred'", &cx_pred, &b->pred) && ok;
    } else if (dep == PLAN_DEPEND_FILE) {
        ok = m_str(L, &m, B_EDGES, true, &b->edges) && ok;
    } else if (dep < 0) {
        ok = false;
    }
    if (m.val[B_PRIORITY]) {
        b->has_priority = true;
        ok = load_prog(L, m.val[B_PRIORITY], "'priority'", &cx_priority, &b->priority) && ok;
    }
    if (m.val[B_COST]) {
        b->has_cost = true;
        ok = load_prog(L, m.val[B_COST], "'cost'", &cx_cost, &b->cost) && ok;
    }
    if (m.val[B_ORDER]) {
        b->has_order = true;
        ok = load_prog(L, m.val[B_ORDER], "'order'", &cx_order, &b->order) && ok;
    }
    (void)ok;
}

enum { S_POLICY, S_OVER, S_SAMPLE, S_KEEP, S_WARMUP, S_WARMUP_UNIT, S_BALANCE, S_PIPELINE,
       S_UNIFORM, S_ACTIVE, S_SHUFFLE, S_PER_ROUND, S_MINIBATCH, S_N };
static const char *const sched_keys[] = {"policy",      "over",    "sample",   "keep",
                                         "warmup",      "warmup_unit", "balance", "pipeline",
                                         "uniform",     "active",      "shuffle", "per_round",
                                         "minibatch"};

enum { PD = 1u << PLAN_POLICY_DYNAMIC, PRR = 1u << PLAN_POLICY_ROUND_ROBIN,
       PRND = 1u << PLAN_POLICY_RANDOM, PDP = 1u << PLAN_POLICY_DATA_PARALLEL };

/* The policies each option of the schedule belongs to (S_SAMPLE on). */
static const unsigned sched_option_policies[S_N] = {
    [S_SAMPLE] = PD,   [S_KEEP] = PD,      [S_WARMUP] = PD,        [S_WARMUP_UNIT] = PD,
    [S_BALANCE] = PD,  [S_PIPELINE] = PD,  [S_UNIFORM] = PD, [S_ACTIVE] = PD, [S_SHUFFLE] = PD,
    [S_PER_ROUND] = PRR | PRND,
    [S_MINIBATCH] = PDP,
};

/* The options a policy does not have keep the compiler's defaults
 * (compiler/sem.c check_schedule()), so a loaded plan equals a compiled one. */
static void schedule_defaults(struct plan_schedule *s)
{
    s->over = -1;
    s->sample = 256;
    s->keep_all = false;
    s->keep_moved = false;
    s->warmup = 1;
    s->warmup_unit = PLAN_UNIT_SWEEPS;
    s->balance = true;
    s->pipeline = 1;
    s->uniform = 0;
    s->active = false;
    s->shuffle = false;
    s->per_round = 0;
    s->minibatch = 1000;
}

/* schedule := {policy, over?, the policy's options} */
static void load_schedule(struct load *L, const struct node *x)
{
    struct plan_schedule *s = &L->plan->schedule;
    schedule_defaults(s);
    struct map m;
    if (!map_open(L, x, "'schedule'", "the schedule", sched_keys, S_N, &m))
        return;
    int pol = m_word(L, &m, S_POLICY, "scheduling policy", NAMES(policy_names));
    if (pol < 0)
        return;
    s->policy = (enum plan_policy)pol;
    if (pol == PLAN_POLICY_DATA_PARALLEL) {
        forbid(L, &m, S_OVER, "data_parallel updates every parameter: it has no 'over'");
    } else if (m_index(L, &m, S_OVER, L->nblocksets, "block set", &s->over)) {
        const struct plan_blockset *b = &L->plan->blocksets[s->over];
        const struct prog *n = &b->count;
        bool per_worker = n->ncode == 1 && n->code[0].op == PROG_GLOBAL &&
                          n->code[0].a == PROG_G_WORKERS;
        if (pol == PLAN_POLICY_ROTATION && (L->bs_split[s->over] == 1 || !per_worker))
            error(L, m.val[S_OVER]->loc,
                  "rotation needs one block per worker (split into, count 'workers'); block "
                  "set %d ('%s') is not made that way",
                  s->over, b->name);
    }
    for (int k = S_SAMPLE; k < S_N; k++) {
        if (!(sched_option_policies[k] & (1u << pol))) {
            if (m.val[k]) {
                error(L, m.key[k]->loc, "'%s' is not an option of the %s policy", sched_keys[k],
                      policy_names[pol]);
            }
            continue;
        }
        int w;
        switch (k) {
        case S_SAMPLE: m_int(L, &m, k, 1, 100000000, &s->sample); break;
        case S_KEEP:
            if ((w = m_word(L, &m, k, "keep", NAMES(keep_names))) >= 0) {
                s->keep_all = w == 1;
                s->keep_moved = w == 2;
            }
            break;
        case S_WARMUP: m_int(L, &m, k, 0, PTM_WHOLE_MAX, &s->warmup); break;
        case S_WARMUP_UNIT:
            if ((w = m_word(L, &m, k, "unit", NAMES(unit_names))) >= 0)
                s->warmup_unit = (enum plan_unit)w;
            break;
        case S_BALANCE: m_bool(L, &m, k, &s->balance); break;
        case S_PIPELINE: m_int(L, &m, k, 0, 64, &s->pipeline); break;
        case S_UNIFORM: /* optional: plans written before it draw by weight only */
            if (m.val[k] && m_num(L, &m, k, true, &s->uniform) &&
                !(s->uniform >= 0 && s->uniform <= 1)) {
                error(L, m.val[k]->loc, "'uniform' must be from 0 to 1");
                s->uniform = 0;
            }
            break;
        case S_ACTIVE: /* optional: absent is false */
            if (m.val[k])
                m_bool(L, &m, k, &s->active);
            break;
        case S_SHUFFLE: /* optional: absent is false */
            if (m.val[k])
                m_bool(L, &m, k, &s->shuffle);
            break;
        case S_PER_ROUND: m_int(L, &m, k, 0, 100000000, &s->per_round); break;
        case S_MINIBATCH: m_int(L, &m, k, 1, PTM_WHOLE_MAX, &s->minibatch); break;
        }
    }
    if (s->shuffle && !s->active)
        error(L, m.key[S_SHUFFLE]->loc, "'shuffle' orders the passes of 'active', which is off");
    if (s->keep_moved && s->pipeline > 0 && m.key[S_PIPELINE]) /* else missing, reported */
        error(L, m.key[S_PIPELINE]->loc, "'keep: moved' takes 'pipeline: 0'");
}

enum { O_KEY, O_NUM, O_STR, O_DATA, O_PARAM, O_N };
static const char *const option_keys[] = {"key", "num", "str", "data", "param"};

/* option := {key: "k", num: N | str: "s" | data: I | param: I} */
static bool load_option(struct load *L, const struct node *x, struct plan_option *o,
                        const struct node **keynode)
{
    struct map m;
    if (!map_open(L, x, "an entry of 'options'", "an option", option_keys, O_N, &m))
        return false;
    bool ok = m_str(L, &m, O_KEY, false, &o->key);
    *keynode = m.val[O_KEY];
    int kind = -1;
    for (int k = O_NUM; k < O_N; k++) {
        if (!m.val[k])
            continue;
        if (kind >= 0) {
            error(L, m.key[k]->loc, "an option has one value ('%s' or '%s'), not both",
                  option_keys[kind], option_keys[k]);
            return false;
        }
        kind = k;
    }
    if (kind < 0) {
        error(L, map_loc(&m), "missing key 'num', 'str', 'data' or 'param' in an option");
        return false;
    }
    o->kind = (enum plan_value_kind)(kind - O_NUM);
    const struct node *v = m.val[kind];
    switch (kind) {
    case O_NUM: return val_num(L, v, "num", true, &o->num) && ok;
    case O_STR: return val_str(L, v, "str", false, &o->str) && ok;
    case O_DATA: return val_index(L, v, "data", L->ndata, "data source", &o->ref) && ok;
    default: return val_index(L, v, "param", L->nparams, "parameter", &o->ref) && ok;
    }
}

/* The options against the builtin's table (builtins.h), as compiler/sem.c
 * check_builtin_options() makes them: every option once, of its kind. */
static void builtin_options(struct load *L, const struct builtin *bi, struct plan_hook *h,
                            const struct node *const *keynodes, const bool *ok,
                            const struct node *where)
{
    size_t nopt = 0;
    const char *cands[32];
    while (bi->opts[nopt].key && nopt < PTM_ARRAY_LEN(cands)) {
        cands[nopt] = bi->opts[nopt].key;
        nopt++;
    }
    int32_t *first = arena_zalloc(L, nopt, sizeof(*first));
    if (!first)
        return;
    for (size_t i = 0; i < nopt; i++)
        first[i] = -1;
    for (uint32_t i = 0; i < h->noptions; i++) {
        const struct plan_option *o = &h->options[i];
        if (!o->key)
            continue; /* reported */
        size_t k = 0;
        while (k < nopt && strcmp(cands[k], o->key) != 0)
            k++;
        const struct node *kn = keynodes[i];
        if (k == nopt) {
            const char *sug = diag_suggest(o->key, strlen(o->key), cands, nopt);
            char s[48];
            if (sug)
                error(L, kn->loc, "%s has no option '%s' (did you mean '%s'?)", bi->name,
                      shown(kn, s, sizeof(s)), sug);
            else
                error(L, kn->loc, "%s has no option '%s'", bi->name, shown(kn, s, sizeof(s)));
            continue;
        }
        if (first[k] >= 0) {
            error(L, kn->loc, "option '%s' is given twice", o->key);
            note(L, keynodes[first[k]]->loc, "the first one is here");
            continue;
        }
        first[k] = (int32_t)i;
        if (!ok[i])
            continue; /* its value is reported */
        const struct builtin_opt *bo = &bi->opts[k];
        /* An optional data source, parameter or number ("" or "?name" in
         * the table) is the string "" when the job has none. */
        bool optional = bo->dflt && (bo->dflt[0] == '\0' || bo->dflt[0] == '?');
        bool none = optional && o->kind == PLAN_VALUE_STR && o->str[0] == '\0';
        switch (bo->kind) {
        case BOPT_NUM: /* optional (""): a default the rule chooses */
            if (o->kind != PLAN_VALUE_NUM && !none)
                error(L, kn->loc, "option '%s' of %s takes a number ('num')%s", o->key, bi->name,
                      optional ? " or \"\" ('str')" : "");
            break;
        case BOPT_PARAM:
            if (o->kind != PLAN_VALUE_PARAM && !none)
                error(L, kn->loc, "option '%s' of %s takes a parameter ('param')%s", o->key,
                      bi->name, optional ? " or \"\" ('str')" : "");
            else if (o->kind == PLAN_VALUE_PARAM && bo->derived && o->ref >= 0 &&
                     (uint32_t)o->ref < L->nparams && L->param_ok[o->ref] &&
                     L->plan->params[o->ref].init == PLAN_INIT_FILE)
                error(L, kn->loc,
                      "parameter %d ('%s') cannot start from a file: %s derives it (%s)", o->ref,
                      L->plan->params[o->ref].name, bi->name, bo->derived);
            break;
        case BOPT_DATA:
            if (o->kind != PLAN_VALUE_DATA && !none)
                error(L, kn->loc, "option '%s' of %s takes a data source ('data')%s", o->key,
                      bi->name, optional ? " or \"\" ('str')" : "");
            break;
        case BOPT_WORD: {
            bool good = false;
            if (o->kind == PLAN_VALUE_STR) {
                size_t nl = strlen(o->str);
                for (const char *w = bo->words; *w;) {
                    size_t wl = strcspn(w, "|");
                    good |= wl == nl && strncmp(w, o->str, wl) == 0;
                    w += wl + (w[wl] == '|');
                }
            }
            if (!good)
                error(L, kn->loc, "option '%s' of %s takes one of %s ('str')", o->key, bi->name,
                      bo->words);
            break;
        }
        }
    }
    /* a word or a number with a default, or an option that may be left
     * out with no default (""), may be missing: a plan written before the
     * kernel had it means the default (the rules read such numbers with
     * rt_option_num), or none */
    for (size_t k = 0; k < nopt; k++)
        if (first[k] < 0 &&
            !((bi->opts[k].kind == BOPT_WORD || bi->opts[k].kind == BOPT_NUM) &&
              bi->opts[k].dflt) &&
            !(bi->opts[k].dflt && bi->opts[k].dflt[0] == '\0'))
            error(L, where->loc, "%s needs option '%s'", bi->name, cands[k]);
}

enum { H_KIND, H_BUILTIN, H_OPTIONS, H_FILE, H_PUSH, H_PULL, H_APPLY, H_INIT, H_FUNCTION,
       H_SAVE, H_LOAD, H_EVERY, H_EVERY_UNIT, H_N };
static const char *const hook_keys[] = {"kind", "builtin", "options",   "file",     "push",
                                        "pull", "apply",   "init",      "function", "save",
                                        "load", "every",   "every_unit"};

/* hook := {kind: builtin, builtin, options: [option...], every?, every_unit?}
 *       | {kind: lua, file, push, pull?, apply?, init? | function, (save, load)?, every?,
 *          every_unit?} */
static void load_hook(struct load *L, const struct node *x, bool objective, struct plan_hook *h)
{
    const char *key = objective ? "'objective'" : "'update'";
    const char *what = objective ? "the objective" : "the update";
    h->present = true;
    struct map m;
    if (!map_open(L, x, key, what, hook_keys, H_N, &m))
        return;
    if (objective) {
        m_int(L, &m, H_EVERY, 1, PTM_WHOLE_MAX, &h->every);
        int u = m_word(L, &m, H_EVERY_UNIT, "unit", NAMES(unit_names));
        if (u >= 0)
            h->every_unit = (enum plan_unit)u;
    } else {
        forbid(L, &m, H_EVERY, "'every' goes with the objective");
        forbid(L, &m, H_EVERY_UNIT, "'every_unit' goes with the objective");
    }
    int kind = m_word(L, &m, H_KIND, "hook kind", NAMES(kind_names));
    if (kind < 0)
        return;
    h->lua = kind == 1;
    if (h->lua) {
        forbid(L, &m, H_BUILTIN, "'builtin' goes with kind builtin");
        forbid(L, &m, H_OPTIONS, "a Lua hook takes no options");
        m_str(L, &m, H_FILE, true, &h->file);
        if (objective) {
            forbid(L, &m, H_PUSH, "'push' goes with a Lua update");
            forbid(L, &m, H_PULL, "'pull' goes with a Lua update");
            forbid(L, &m, H_APPLY, "'apply' goes with a Lua update");
            forbid(L, &m, H_INIT, "'init' goes with a Lua update");
            m_str(L, &m, H_FUNCTION, false, &h->fn);
        } else {
            forbid(L, &m, H_FUNCTION, "'function' goes with a Lua objective");
            m_str(L, &m, H_PUSH, false, &h->push);
            if (m.val[H_PULL])
                val_str(L, m.val[H_PULL], "pull", false, &h->pull);
            if (m.val[H_APPLY])
                val_str(L, m.val[H_APPLY], "apply", false, &h->apply);
            if (m.val[H_INIT])
                val_str(L, m.val[H_INIT], "init", false, &h->init);
        }
        if (m.val[H_SAVE] || m.val[H_LOAD]) {
            if (!m.val[H_SAVE] || !m.val[H_LOAD])
                error(L, (m.val[H_SAVE] ? m.key[H_SAVE] : m.key[H_LOAD])->loc,
                      "'save' and 'load' go together");
            else if (val_str(L, m.val[H_SAVE], "save", false, &h->save))
                val_str(L, m.val[H_LOAD], "load", false, &h->load);
        }
        return;
    }
    forbid(L, &m, H_FILE, "'file' goes with kind lua");
    forbid(L, &m, H_PUSH, "'push' goes with kind lua");
    forbid(L, &m, H_PULL, "'pull' goes with kind lua");
    forbid(L, &m, H_APPLY, "'apply' goes with kind lua");
    forbid(L, &m, H_INIT, "'init' goes with kind lua");
    forbid(L, &m, H_FUNCTION, "'function' goes with kind lua");
    forbid(L, &m, H_SAVE, "'save' goes with kind lua");
    forbid(L, &m, H_LOAD, "'load' goes with kind lua");
    const struct builtin *bi = NULL;
    if (m_str(L, &m, H_BUILTIN, false, &h->builtin)) {
        const struct node *v = m.val[H_BUILTIN];
        enum builtin_role role = objective ? BUILTIN_OBJECTIVE : BUILTIN_UPDATE;
        bi = builtin_lookup(h->builtin);
        if (!bi || bi->role != role) {
            const char *cands[32];
            size_t k = builtin_names(role, cands, PTM_ARRAY_LEN(cands));
            const char *sug = diag_suggest(h->builtin, strlen(h->builtin), cands, k);
            char s[48];
            if (bi)
                error(L, v->loc, "'%s' is %s, not %s", h->builtin,
                      objective ? "an update rule" : "an objective",
                      objective ? "an objective" : "an update rule");
            else if (sug)
                error(L, v->loc, "unknown builtin '%s' (did you mean '%s'?)",
                      shown(v, s, sizeof(s)), sug);
            else
                error(L, v->loc, "unknown builtin '%s'", shown(v, s, sizeof(s)));
            bi = NULL;
        }
    }
    const struct node *opts = m_seq(L, &m, H_OPTIONS);
    if (!opts)
        return;
    h->options = zalloc(L, opts->n, sizeof(*h->options));
    const struct node **keynodes = arena_zalloc(L, opts->n, sizeof(*keynodes));
    bool *ok = arena_zalloc(L, opts->n, sizeof(*ok));
    if (!h->options || !keynodes || !ok)
        return;
    h->noptions = opts->n;
    uint32_t i = 0;
    for (const struct node *o = opts->head; o && !L->oom; o = o->next, i++)
        ok[i] = load_option(L, o, &h->options[i], &keynodes[i]);
    if (bi && !L->oom)
        builtin_options(L, bi, h, keynodes, ok, m.key[H_OPTIONS]);
}

enum { ME_NAME, ME_KIND, ME_DATA, ME_N };
static const char *const metric_keys[] = {"name", "kind", "data"};
static const char *const metric_kinds[] = {
#define X(name, text, higher) text,
    PLAN_METRIC_LIST(X)
#undef X
};

/* metric := {name, kind, data}: a matrix data source, not labels. */
static bool load_metric(struct load *L, const struct node *x, struct plan_metric *me)
{
    me->data = -1;
    struct map m;
    if (!map_open(L, x, "an entry of 'metrics'", "a metric", metric_keys, ME_N, &m))
        return false;
    bool ok = m_name(L, &m, ME_NAME, false, &me->name);
    int k = m_word(L, &m, ME_KIND, "metric kind", NAMES(metric_kinds));
    me->kind = k >= 0 ? (enum plan_metric_kind)k : PLAN_METRIC_RMSE;
    ok = m_index(L, &m, ME_DATA, L->ndata, "data source", &me->data) && k >= 0 && ok;
    if (ok && (L->plan->data[me->data].format == PLAN_FORMAT_LABELS ||
               !L->plan->data[me->data].matrix)) {
        error(L, m.val[ME_DATA]->loc, "a metric is measured on a matrix data source, not on "
                                       "'%s'", L->plan->data[me->data].name);
        ok = false;
    }
    return ok;
}

enum { OU_PARAM, OU_PATH, OU_FORMAT, OU_N };
static const char *const output_keys[] = {"param", "path", "format"};

/* output := {param, path, format: tsv} */
static bool load_output(struct load *L, const struct node *x, struct plan_output *o)
{
    o->param = -1;
    struct map m;
    if (!map_open(L, x, "an entry of 'outputs'", "an output", output_keys, OU_N, &m))
        return false;
    bool ok = m_index(L, &m, OU_PARAM, L->nparams, "parameter", &o->param);
    ok = m_str(L, &m, OU_PATH, true, &o->path) && ok;
    int f = m_word(L, &m, OU_FORMAT, "output format", NAMES(output_formats));
    if (f >= 0 && !(o->format = plan_strdup(output_formats[f])))
        L->oom = true;
    return f >= 0 && ok;
}

enum { CK_DIR, CK_EVERY, CK_EVERY_UNIT, CK_SECONDS, CK_N };
static const char *const checkpoint_keys[] = {"dir", "every", "every_unit", "seconds"};

/* checkpoint := {dir, every, every_unit} | {dir, seconds} */
static void load_checkpoint(struct load *L, const struct node *x, struct plan_checkpoint *c)
{
    struct map m;
    if (!map_open(L, x, "'checkpoint'", "the checkpoint", checkpoint_keys, CK_N, &m))
        return;
    m_str(L, &m, CK_DIR, true, &c->dir);
    if (m.val[CK_EVERY] && m.val[CK_SECONDS]) {
        error(L, m.key[CK_SECONDS]->loc, "'seconds' goes without 'every' (a checkpoint is "
                                         "taken every N units or every so many seconds)");
        return;
    }
    if (!m.val[CK_EVERY] && !m.val[CK_SECONDS]) {
        error(L, map_loc(&m), "missing key 'every' or 'seconds' in the checkpoint");
        return;
    }
    if (m.val[CK_SECONDS]) {
        forbid(L, &m, CK_EVERY_UNIT, "'every_unit' goes with 'every'");
        double v;
        if (!val_num(L, m.val[CK_SECONDS], "seconds", true, &v))
            return;
        if (!(v >= 1)) {
            char buf[48];
            error(L, m.val[CK_SECONDS]->loc, "'seconds' must be at least 1, not %s",
                  shown(m.val[CK_SECONDS], buf, sizeof(buf)));
            return;
        }
        c->seconds = v;
        return;
    }
    m_int(L, &m, CK_EVERY, 1, PTM_WHOLE_MAX, &c->every);
    int u = m_word(L, &m, CK_EVERY_UNIT, "unit", NAMES(unit_names));
    if (u >= 0)
        c->every_unit = (enum plan_unit)u;
}

/* ---- plan-wide rules ------------------------------------------------------ */

struct named {
    const char *name;
    const char *kind;
    struct ptm_loc loc;
};

static int named_cmp(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->loc.begin < y->loc.begin ? -1 : x->loc.begin > y->loc.begin;
}

/* Report the entries of v[0..n) whose name is that of an earlier one. */
static void report_repeats(struct load *L, struct named *v, size_t n, bool paths)
{
    qsort(v, n, sizeof(*v), named_cmp);
    for (size_t i = 1; i < n; i++) {
        size_t first = i - 1;
        while (i < n && strcmp(v[i].name, v[first].name) == 0) {
            if (paths) {
                error(L, v[i].loc, "another output already writes \"%s\"", v[i].name);
                note(L, v[first].loc, "the first one is here");
            } else {
                error(L, v[i].loc, "'%s' is already defined", v[i].name);
                note(L, v[first].loc, "'%s' was first defined here as a %s", v[i].name,
                     v[first].kind);
            }
            i++;
        }
    }
}

/* Consts, data, parameters and block sets share one namespace. */
static void unique_names(struct load *L, const struct node *const *lists)
{
    const struct ptm_plan *p = L->plan;
    size_t total = (size_t)p->nconsts + p->ndata + p->nparams + p->nblocksets, n = 0;
    struct named *v = arena_zalloc(L, total, sizeof(*v));
    if (!v)
        return;
    static const char *const kinds[] = {"const", "data source", "parameter", "block set"};
    for (int list = 0; list < 4; list++) {
        if (!lists[list])
            continue;
        uint32_t count = list == 0 ? p->nconsts : list == 1 ? p->ndata
                                              : list == 2   ? p->nparams
                                                            : p->nblocksets;
        const struct node *e = lists[list]->head;
        for (uint32_t i = 0; i < count && e; i++, e = e->next) {
            const char *name = list == 0   ? p->consts[i].name
                               : list == 1 ? p->data[i].name
                               : list == 2 ? p->params[i].name
                                           : p->blocksets[i].name;
            if (!name)
                continue;
            /* The name's own node: the value of "name" in the entry. */
            struct ptm_loc loc = e->loc;
            for (const struct node *k = e->kind == N_MAP ? e->head : NULL; k && k->next;
                 k = k->next->next)
                if (text_is(k, "name"))
                    loc = k->next->loc;
            v[n++] = (struct named){name, kinds[list], loc};
        }
    }
    report_repeats(L, v, n, false);
}

static void unique_paths(struct load *L, const struct node *list)
{
    const struct ptm_plan *p = L->plan;
    struct named *v = arena_zalloc(L, p->noutputs, sizeof(*v));
    if (!v || !list)
        return;
    size_t n = 0;
    const struct node *e = list->head;
    for (uint32_t i = 0; i < p->noutputs && e; i++, e = e->next) {
        if (!p->outputs[i].path)
            continue;
        struct ptm_loc loc = e->loc;
        for (const struct node *k = e->kind == N_MAP ? e->head : NULL; k && k->next;
             k = k->next->next)
            if (text_is(k, "path"))
                loc = k->next->loc;
        v[n++] = (struct named){p->outputs[i].path, "output", loc};
    }
    report_repeats(L, v, n, true);
}

/* ---- the plan ------------------------------------------------------------ */

enum { T_VERSION, T_JOB, T_BASE_DIR, T_SEED, T_CONSTS, T_DATA, T_PARAMS, T_BLOCKSETS,
       T_SCHEDULE, T_CONSISTENCY, T_UPDATE, T_OBJECTIVE, T_METRICS, T_STOP, T_OUTPUTS,
       T_CHECKPOINT, T_N };
static const char *const top_keys[] = {
    "ptm_plan", "job",         "base_dir", "seed",      "consts",  "data",
    "params",   "blocksets",   "schedule", "consistency", "update", "objective",
    "metrics",  "stop",        "outputs",  "checkpoint"};

/* The format version comes first: a plan from a newer ptm gets one clear
 * message, not a list of what this one does not know. */
static bool check_version(struct load *L, const struct node *root)
{
    char buf[64];
    if (root->kind != N_MAP) {
        error(L, root->loc, "a plan is a mapping that starts with 'ptm_plan: %d', not %s",
              PTM_PLAN_VERSION, describe(root, buf, sizeof(buf)));
        return false;
    }
    const struct node *v = NULL;
    for (const struct node *k = root->head; k && k->next && !v; k = k->next->next)
        if (text_is(k, "ptm_plan"))
            v = k->next;
    if (!v) {
        error(L, root->head ? root->head->loc : root->loc,
              "not a ptm plan: the mapping has no 'ptm_plan' key");
        return false;
    }
    int64_t version;
    if (parse_int(v, &version) == P_OK && version > PTM_PLAN_VERSION) {
        error(L, v->loc, "the plan is format version %lld, newer than this ptm reads (%d): "
              "use a newer ptm", (long long)version, PTM_PLAN_VERSION);
        return false;
    }
    if (parse_int(v, &version) != P_OK || version != PTM_PLAN_VERSION) {
        error(L, v->loc, "'ptm_plan' must be %d, not %s", PTM_PLAN_VERSION,
              describe(v, buf, sizeof(buf)));
        return false;
    }
    return true;
}

/* plan := {ptm_plan: 1, job, base_dir, seed, consts, data, params, blocksets,
 *          schedule, consistency, update, objective?, metrics?, stop, outputs,
 *          checkpoint?} */
static void load_plan(struct load *L, const struct node *root)
{
    struct ptm_plan *p = L->plan;
    struct map m;
    if (!map_open(L, root, "the plan", "the plan", top_keys, T_N, &m))
        return;
    m_name(L, &m, T_JOB, false, &p->job);
    m_str(L, &m, T_BASE_DIR, true, &p->base_dir);
    int64_t seed;
    if (m_int(L, &m, T_SEED, 0, PTM_WHOLE_MAX, &seed))
        p->seed = (uint64_t)seed;

    /* Every index is checked where it appears, against these counts. */
    const struct node *consts = m_seq(L, &m, T_CONSTS), *data = m_seq(L, &m, T_DATA),
                      *params = m_seq(L, &m, T_PARAMS), *bsets = m_seq(L, &m, T_BLOCKSETS),
                      *outs = m_seq(L, &m, T_OUTPUTS);
    L->ndata = data ? data->n : 0;
    L->nparams = params ? params->n : 0;
    L->nblocksets = bsets ? bsets->n : 0;
    L->data_ok = arena_zalloc(L, L->ndata, sizeof(bool));
    L->param_ok = arena_zalloc(L, L->nparams, sizeof(bool));
    L->data_ndims = arena_zalloc(L, L->ndata, 1);
    L->param_ndims = arena_zalloc(L, L->nparams, 1);
    L->bs_split = arena_zalloc(L, L->nblocksets, 1);
    struct data_where *data_where = arena_zalloc(L, L->ndata, sizeof(*data_where));
    p->consts = zalloc(L, consts ? consts->n : 0, sizeof(*p->consts));
    p->data = zalloc(L, L->ndata, sizeof(*p->data));
    p->params = zalloc(L, L->nparams, sizeof(*p->params));
    p->blocksets = zalloc(L, L->nblocksets, sizeof(*p->blocksets));
    p->outputs = zalloc(L, outs ? outs->n : 0, sizeof(*p->outputs));
    if (L->oom)
        return;
    p->nconsts = consts ? consts->n : 0;
    p->ndata = L->ndata;
    p->nparams = L->nparams;
    p->nblocksets = L->nblocksets;
    p->noutputs = outs ? outs->n : 0;

    uint32_t i = 0;
    for (const struct node *e = consts ? consts->head : NULL; e && !L->oom; e = e->next, i++)
        load_const(L, e, &p->consts[i]);

    i = 0;
    for (const struct node *e = data ? data->head : NULL; e && !L->oom; e = e->next, i++)
        L->data_ok[i] = load_data(L, &data_where[i], e, i);
    L->all_data_ndims = !memchr(L->data_ndims, 0, L->ndata);
    if (!L->oom)
        data_rules(L, data_where);

    /* Sizes read no parameters, so every shape is known before a program
     * that may index parameters is checked. */
    i = 0;
    for (const struct node *e = params ? params->head : NULL; e && !L->oom; e = e->next, i++)
        L->param_ok[i] = load_param(L, e, i);
    L->all_param_ndims = !memchr(L->param_ndims, 0, L->nparams);
    if (params && params->n == 0)
        error(L, params->loc, "the plan has no parameters");

    i = 0;
    for (const struct node *e = bsets ? bsets->head : NULL; e && !L->oom; e = e->next, i++)
        load_blockset(L, e, i);

    const struct node *v;
    if (!L->oom && (v = req(L, &m, T_SCHEDULE)))
        load_schedule(L, v);
    else
        schedule_defaults(&p->schedule);
    if (!L->oom && (v = req(L, &m, T_CONSISTENCY)))
        load_cons(L, v, &p->cons, &p->staleness);
    if (!L->oom && (v = req(L, &m, T_UPDATE)))
        load_hook(L, v, false, &p->update);
    if (!L->oom && m.val[T_OBJECTIVE])
        load_hook(L, m.val[T_OBJECTIVE], true, &p->objective);
    const struct node *mets = m.val[T_METRICS] ? m_seq(L, &m, T_METRICS) : NULL;
    if (!L->oom && mets) {
        p->metrics = zalloc(L, mets->n, sizeof(*p->metrics));
        if (!L->oom) {
            p->nmetrics = mets->n;
            i = 0;
            for (const struct node *e = mets->head; e && !L->oom; e = e->next, i++)
                load_metric(L, e, &p->metrics[i]);
            const struct builtin *bi = p->update.present && !p->update.lua && p->update.builtin
                                           ? builtin_lookup(p->update.builtin)
                                           : NULL;
            for (uint32_t a = 0; a < p->nmetrics && p->update.present; a++) {
                const char *kind = plan_metric_name(p->metrics[a].kind), *w = bi ? bi->metrics : NULL;
                bool known = false;
                while (w && *w) {
                    size_t wl = strcspn(w, "|");
                    known |= wl == strlen(kind) && strncmp(w, kind, wl) == 0;
                    w += wl + (w[wl] == '|');
                }
                if (!known)
                    error(L, nth(mets, a)->loc, "the update %s has no metric '%s'",
                          p->update.lua ? "(Lua)" : p->update.builtin ? p->update.builtin : "",
                          kind);
            }
            if (p->nmetrics && !p->objective.present)
                error(L, m.key[T_METRICS]->loc,
                      "metrics are evaluated with the objective, but the plan has no "
                      "'objective'");
            for (uint32_t a = 0; a < p->nmetrics; a++)
                for (uint32_t b = 0; b < a; b++)
                    if (p->metrics[a].name && p->metrics[b].name &&
                        strcmp(p->metrics[a].name, p->metrics[b].name) == 0) {
                        error(L, nth(mets, a)->loc, "another metric is already named '%s'",
                              p->metrics[a].name);
                        break;
                    }
        }
    }
    if (!L->oom && (v = req(L, &m, T_STOP))) {
        p->has_stop = load_prog(L, v, "'stop'", &cx_stop, &p->stop);
        for (uint32_t k = 0; p->has_stop && !p->objective.present && k < p->stop.ncode; k++)
            if (p->stop.code[k].op == PROG_GLOBAL && (p->stop.code[k].a == PROG_G_OBJECTIVE ||
                                                      p->stop.code[k].a == PROG_G_REL_CHANGE)) {
                error(L, m.key[T_STOP]->loc,
                      "the stop rule reads the objective, but the plan has no 'objective'");
                break;
            }
    }
    i = 0;
    for (const struct node *e = outs ? outs->head : NULL; e && !L->oom; e = e->next, i++)
        load_output(L, e, &p->outputs[i]);
    if (!L->oom && m.val[T_CHECKPOINT])
        load_checkpoint(L, m.val[T_CHECKPOINT], &p->checkpoint);

    if (!L->oom) {
        const struct node *lists[4] = {consts, data, params, bsets};
        unique_names(L, lists);
        unique_paths(L, outs);
    }
}

int ptm_plan_load(struct ptm_source *src, struct ptm_diags *diags, struct ptm_plan **out)
{
    *out = NULL;
    struct load L;
    memset(&L, 0, sizeof(L));
    L.src = src;
    L.diags = diags;
    arena_init(&L.arena);
    unsigned before = diags->nerrors;

    L.plan = plan_new();
    if (!L.plan)
        return PTM_ENOMEM;
    struct node *root = read_tree(&L);
    if (!L.oom && !L.fatal) {
        if (!root)
            diag_file(diags, PTM_SEV_ERROR, "the plan is empty");
        else if (check_version(&L, root)) {
            if (!L.explicit_end)
                error(&L, (struct ptm_loc){(uint32_t)src->len, (uint32_t)src->len},
                      "the plan is truncated: it does not end with '...'");
            else
                load_plan(&L, root);
        }
    }
    arena_release(&L.arena);
    int rc = L.oom ? PTM_ENOMEM : diags->nerrors > before || diags->oom ? PTM_ESYNTAX : 0;
    if (rc != 0) {
        plan_free(L.plan);
        return rc;
    }
    *out = L.plan;
    return 0;
}
