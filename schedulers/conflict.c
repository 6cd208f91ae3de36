/*
 * conflict.c - which blocks of the dynamic policy conflict, and the greedy
 * filter of a round (spec/language.md 5.6 and 5.9): visit the candidates
 * in order and keep each one that conflicts with no block kept before it.
 *
 * DESIGN: four ways to know the conflicts.
 *
 * - An edge list (`depend B from "file"`) is read once into sorted
 *   adjacency lists. Keeping a block stamps its neighbours, so a candidate
 *   is checked by one load; a kept block with more than HUB_DEGREE
 *   neighbours, and more than the searches it would cost (4 per candidate
 *   left times log2 of its degree), is not stamped but remembered as a
 *   hub, and each later candidate is looked up in its list by binary
 *   search.
 * - A predicate (`depend B(i), B(j) when COND`) is evaluated only for the
 *   pairs the filter meets, a candidate against the blocks kept before it
 *   (at most n * kept evaluations a round, fewer once answers are known),
 *   and never for the other B^2 / 2 pairs. Every answer is remembered. Up
 *   to DENSE_MAX blocks, in two bit matrices (known, conflict): a
 *   candidate is then checked against the whole kept set 64 blocks a word,
 *   and only its unknown pairs are evaluated. Beyond, in a hash table of
 *   at most HASH_MAX entries that is emptied whenever it is 70% full, so
 *   memory stays bounded whatever B is.
 * - A predicate whose graph the engine computed before the first round
 *   (info->graph, runtime/engine/depgraph.c) is an edge list, borrowed.
 * - A predicate the engine answers round by round (info->pairs, the same
 *   file): its filter runs each round, until it has built the graph,
 *   which is then an edge list as above.
 * - No depend, or `keep all`: every candidate is kept.
 *
 * A pair is evaluated with i < j (1-based), as the language says; a value
 * other than 0 and NaN means a conflict, as for the stop rule. Answers do
 * not depend on what the caches hold, so the rounds do not either.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "arena.h"
#include "ptm.h"
#include "sched_impl.h"

/* Bit matrices up to this many blocks (2 * B^2 bits: 16 MiB at 8192). */
#define DENSE_MAX 8192
/* The most entries of the pair cache beyond DENSE_MAX (8 bytes each). */
#define HASH_MAX ((size_t)1 << 20)
/* A kept block with more neighbours may be looked up rather than stamped. */
#define HUB_DEGREE 64

enum mode { MODE_NONE, MODE_EDGES, MODE_PAIRS, MODE_DENSE, MODE_HASH };

struct sched_conflicts {
    enum mode mode;
    int64_t nblocks;
    size_t maxcand;
    /* edges */
    struct sched_edges e;
    bool borrowed; /* e is info->graph's */
    uint32_t *blocked; /* nblocks: == stamp when a kept block's neighbour */
    uint32_t stamp;
    int64_t *hubs; /* maxcand */
    /* the engine's filter, and the conflicts it found in the round */
    const struct sched_pairs *pairs;
    /* predicate */
    const struct prog *pred;
    struct prog_env env;
    double vars[2];
    /* dense: row a of a matrix is words uint64s, bit b for block b */
    size_t words;
    uint64_t *known, *conf, *kset; /* kset: the blocks kept this round */
    /* hash: key (a << 32 | b) for a < b, top bit set for a conflict; 0 empty */
    uint64_t *tab;
    size_t mask, count, limit;
    int shift;
    int64_t *unk; /* maxcand: kept blocks whose pair with a candidate is unknown */
    int64_t *kmov; /* maxcand: with moved, the kept blocks that count */
};

#define HASH_CONFLICT ((uint64_t)1 << 63)

/* ---- the edge list ------------------------------------------------------------ */

/* Diagnostics into a caller's buffer, one a line. */
struct errs {
    char *buf;
    size_t cap, len;
    const char *name;
    int n;
    bool stop;
};

static void errs_add(struct errs *e, int64_t line, int64_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void errs_add(struct errs *e, int64_t line, int64_t col, const char *fmt, ...)
{
    if (e->stop)
        return;
    if (!e->buf || e->cap == 0) { /* nowhere to write: count only */
        if (++e->n >= SCHED_MAX_ERRORS)
            e->stop = true;
        return;
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t room = e->cap - e->len;
    int w;
    if (line > 0 && col > 0)
        w = snprintf(e->buf + e->len, room, "%s%s:%lld:%lld: error: %s", e->len ? "\n" : "",
                     e->name, (long long)line, (long long)col, msg);
    else if (line > 0)
        w = snprintf(e->buf + e->len, room, "%s%s:%lld: error: %s", e->len ? "\n" : "", e->name,
                     (long long)line, msg);
    else
        w = snprintf(e->buf + e->len, room, "%s%s: error: %s", e->len ? "\n" : "", e->name, msg);
    if (w < 0 || (size_t)w >= room) {
        e->buf[e->len] = '\0'; /* no room for the whole line: drop it */
        e->stop = true;
    } else {
        e->len += (size_t)w;
    }
    if (++e->n >= SCHED_MAX_ERRORS && !e->stop) {
        int k = snprintf(e->buf + e->len, e->cap - e->len,
                         "\n%s: note: too many errors, stopped reading", e->name);
        if (k > 0 && (size_t)k < e->cap - e->len)
            e->len += (size_t)k;
        else
            e->buf[e->len] = '\0';
        e->stop = true;
    }
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The token at s (up to a blank or the end), printable, at most 40 bytes. */
static const char *token(const char *s, const char *end, char out[48])
{
    size_t n = 0;
    while (s < end && !blank(*s) && n < 40) {
        unsigned char c = (unsigned char)*s++;
        out[n++] = c >= 0x20 && c < 0x7f && c != '\'' ? (char)c : '?';
    }
    if (s < end && !blank(*s))
        out[n++] = '.', out[n++] = '.', out[n++] = '.';
    out[n] = '\0';
    return out;
}

/* One block number at *p, 1 .. nblocks: its value, or -1 after an error
 * (reported). *p moves past the token. */
static int64_t block_number(struct errs *e, int64_t ln, const char *line, const char **p,
                            const char *end, int64_t nblocks)
{
    const char *s = *p;
    char tok[48];
    if (s == end) {
        errs_add(e, ln, s - line + 1, "expected two block numbers, found one");
        return -1;
    }
    const char *q = s;
    int64_t v = 0;
    bool big = false;
    while (q < end && *q >= '0' && *q <= '9') {
        if (v > nblocks)
            big = true;
        else
            v = v * 10 + (*q - '0');
        q++;
    }
    if (q == s || (q < end && !blank(*q))) {
        errs_add(e, ln, s - line + 1, "expected a block number, found '%s'", token(s, end, tok));
        while (q < end && !blank(*q))
            q++;
        *p = q;
        return -1;
    }
    *p = q;
    if (big || v < 1 || v > nblocks) {
        errs_add(e, ln, s - line + 1, "block %s is out of range: the blocks are 1 .. %lld",
                 token(s, end, tok), (long long)nblocks);
        return -1;
    }
    return v;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int sched_edges_from_pairs(struct sched_edges *out, const int64_t *pairs, size_t np)
{
    int64_t B = out->nblocks;
    out->off = ptm_malloc(((size_t)B + 1) * sizeof(int64_t));
    out->adj = ptm_malloc((np ? 2 * np : 1) * sizeof(int64_t));
    if (!out->off || !out->adj)
        return PTM_ENOMEM;
    memset(out->off, 0, ((size_t)B + 1) * sizeof(int64_t));
    for (size_t k = 0; k < np; k++) {
        out->off[pairs[2 * k] - 1 + 1]++;
        out->off[pairs[2 * k + 1] - 1 + 1]++;
    }
    for (int64_t b = 0; b < B; b++)
        out->off[b + 1] += out->off[b];
    /* fill with a moving cursor per row: off[b] walks to off[b + 1]'s old value */
    for (size_t k = 0; k < np; k++) {
        int64_t a = pairs[2 * k] - 1, b = pairs[2 * k + 1] - 1;
        out->adj[out->off[a]++] = b;
        out->adj[out->off[b]++] = a;
    }
    for (int64_t b = B; b > 0; b--)
        out->off[b] = out->off[b - 1];
    out->off[0] = 0;
    /* sort each row (unless it is: pairs sorted by (a, b) fill every row
     * in order) and drop repeats, compacting */
    int64_t w = 0, start = 0;
    for (int64_t b = 0; b < B; b++) {
        int64_t end = out->off[b + 1];
        bool sorted = true;
        for (int64_t k = start + 1; k < end && sorted; k++)
            sorted = out->adj[k - 1] <= out->adj[k];
        if (!sorted)
            qsort(out->adj + start, (size_t)(end - start), sizeof(int64_t), cmp_i64);
        out->off[b] = w;
        for (int64_t k = start; k < end; k++)
            if (k == start || out->adj[k] != out->adj[k - 1])
                out->adj[w++] = out->adj[k];
        start = end;
    }
    out->off[B] = w;
    return 0;
}

int sched_edges_read(FILE *f, const char *name, int64_t nblocks, struct sched_edges *out,
                     char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->nblocks = nblocks;
    if (errlen)
        err[0] = '\0';
    struct errs e = {.buf = err, .cap = errlen, .name = name};
    char *line = NULL;
    size_t linecap = 0, np = 0, capp = 0;
    int64_t *pairs = NULL;
    int64_t ln = 0;
    int rc = 0;
    ssize_t got;
    errno = 0;
    while (!e.stop && (got = getline(&line, &linecap, f)) >= 0) {
        ln++;
        const char *end = line + got;
        if (end > line && end[-1] == '\n')
            end--;
        if (end > line && end[-1] == '\r')
            end--;
        const char *p = line;
        while (p < end && blank(*p))
            p++;
        if (p == end || *p == '#')
            continue;
        int64_t a = block_number(&e, ln, line, &p, end, nblocks);
        if (a < 0)
            continue;
        while (p < end && blank(*p))
            p++;
        const char *at_b = p;
        int64_t b = block_number(&e, ln, line, &p, end, nblocks);
        if (b < 0)
            continue;
        while (p < end && blank(*p))
            p++;
        if (p < end) {
            char tok[48];
            errs_add(&e, ln, p - line + 1, "unexpected '%s' after the two block numbers",
                     token(p, end, tok));
            continue;
        }
        if (a == b) {
            errs_add(&e, ln, at_b - line + 1, "block %lld cannot depend on itself", (long long)a);
            continue;
        }
        if (e.n)
            continue; /* no use keeping pairs of a file that is refused */
        if (np == capp) {
            size_t nc = capp ? 2 * capp : 1024;
            int64_t *q = ptm_realloc(pairs, 2 * nc * sizeof(int64_t));
            if (!q) {
                rc = PTM_ENOMEM;
                goto out;
            }
            pairs = q;
            capp = nc;
        }
        pairs[2 * np] = a < b ? a : b;
        pairs[2 * np + 1] = a < b ? b : a;
        np++;
    }
    if (!e.stop && !feof(f)) { /* getline() failed */
        if (errno == ENOMEM) {
            rc = PTM_ENOMEM;
            goto out;
        }
        errs_add(&e, 0, 0, "read error: %s", strerror(errno ? errno : EIO));
        rc = PTM_EIO;
        goto out;
    }
    if (e.n) {
        rc = PTM_EDATA;
        goto out;
    }
    rc = sched_edges_from_pairs(out, pairs, np);
out:
    free(line); /* from getline() */
    ptm_free(pairs);
    if (rc != 0)
        sched_edges_release(out);
    return rc;
}

void sched_edges_release(struct sched_edges *e)
{
    ptm_free(e->off);
    ptm_free(e->adj);
    e->off = e->adj = NULL;
}

/* ---- set-up --------------------------------------------------------------------- */

/* The edge list of info->bs, read from its file. */
static int read_edge_file(const struct ptm_sched_info *info, struct sched_edges *out, char *err,
                          size_t errlen)
{
    const char *base = info->plan && info->plan->base_dir ? info->plan->base_dir : ".";
    const char *file = info->bs->edges;
    char path[4096];
    bool rel = file[0] != '/' && strcmp(base, ".") != 0;
    snprintf(path, sizeof(path), rel ? "%s/%s" : "%.0s%s", base, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s: error: cannot open the edge list of '%s': %s", path,
                 info->bs->name, strerror(e));
        return e == ENOENT ? PTM_ENOENT : PTM_EIO;
    }
    int rc = sched_edges_read(f, path, info->nblocks, out, err, errlen);
    fclose(f);
    return rc;
}

static const double zero_globals[PROG_NGLOBALS];

/* The filter's arrays for an edge list. */
static int edges_alloc(struct sched_conflicts *c)
{
    c->blocked = ptm_malloc((size_t)c->nblocks * sizeof(uint32_t));
    c->hubs = ptm_malloc(c->maxcand * sizeof(int64_t));
    if (!c->blocked || !c->hubs) {
        ptm_free(c->blocked);
        ptm_free(c->hubs);
        c->blocked = NULL;
        c->hubs = NULL;
        return PTM_ENOMEM;
    }
    memset(c->blocked, 0, (size_t)c->nblocks * sizeof(uint32_t));
    return 0;
}

int sched_conflicts_new(const struct ptm_sched_info *info, bool keep_all, size_t maxcand,
                        struct sched_conflicts **out, char *err, size_t errlen)
{
    *out = NULL;
    const struct plan_blockset *bs = info->bs;
    struct sched_conflicts *c = ptm_malloc(sizeof(*c));
    if (!c)
        return PTM_ENOMEM;
    memset(c, 0, sizeof(*c));
    c->nblocks = info->nblocks;
    c->maxcand = maxcand ? maxcand : 1;
    int rc = PTM_ENOMEM;
    if (keep_all || bs->depend == PLAN_DEPEND_NONE) {
        c->mode = MODE_NONE;
    } else if (bs->depend == PLAN_DEPEND_PRED && info->pairs && !info->graph) {
        c->mode = MODE_PAIRS;
        c->pairs = info->pairs;
    } else if (bs->depend == PLAN_DEPEND_FILE || info->graph) {
        c->mode = MODE_EDGES;
        if (info->graph && bs->depend == PLAN_DEPEND_PRED) {
            c->e = *info->graph;
            c->borrowed = true;
        } else if (!bs->edges || !bs->edges[0]) {
            snprintf(err, errlen, "the edge-list file name of '%s' is empty", bs->name);
            rc = PTM_EINVAL;
            goto fail;
        } else if ((rc = read_edge_file(info, &c->e, err, errlen)) != 0) {
            goto fail;
        }
        if ((rc = edges_alloc(c)) != 0)
            goto fail;
    } else {
        double v;
        c->pred = &bs->pred;
        if (info->env) {
            c->env = *info->env;
        } else if (prog_is_const(c->pred, &v)) {
            c->env.globals = zero_globals;
        } else {
            snprintf(err, errlen,
                     "the dependencies of '%s' read data or run-time values, which this run "
                     "does not provide",
                     bs->name);
            rc = PTM_EINVAL;
            goto fail;
        }
        c->env.vars = c->vars;
        c->unk = ptm_malloc(c->maxcand * sizeof(int64_t));
        c->kmov = ptm_malloc(c->maxcand * sizeof(int64_t));
        if (!c->unk || !c->kmov)
            goto fail;
        if (c->nblocks <= DENSE_MAX) {
            c->mode = MODE_DENSE;
            c->words = ((size_t)c->nblocks + 63) / 64;
            size_t bits = (size_t)c->nblocks * c->words * sizeof(uint64_t);
            c->known = ptm_malloc(bits);
            c->conf = ptm_malloc(bits);
            c->kset = ptm_malloc(c->words * sizeof(uint64_t));
            if (!c->known || !c->conf || !c->kset)
                goto fail;
            memset(c->known, 0, bits);
            memset(c->conf, 0, bits);
            memset(c->kset, 0, c->words * sizeof(uint64_t));
        } else {
            c->mode = MODE_HASH;
            double pairs = (double)c->nblocks * (double)(c->nblocks - 1) / 2;
            size_t cap = 1024;
            while (cap < HASH_MAX && (double)cap < 2 * pairs)
                cap *= 2;
            c->tab = ptm_malloc(cap * sizeof(uint64_t));
            if (!c->tab)
                goto fail;
            memset(c->tab, 0, cap * sizeof(uint64_t));
            c->mask = cap - 1;
            c->limit = cap / 10 * 7;
            c->shift = 64;
            while (cap > 1) {
                cap >>= 1;
                c->shift--;
            }
        }
    }
    *out = c;
    return 0;
fail:
    sched_conflicts_free(c);
    return rc;
}

void sched_conflicts_free(struct sched_conflicts *c)
{
    if (!c)
        return;
    if (!c->borrowed)
        sched_edges_release(&c->e);
    ptm_free(c->blocked);
    ptm_free(c->hubs);
    ptm_free(c->known);
    ptm_free(c->conf);
    ptm_free(c->kset);
    ptm_free(c->tab);
    ptm_free(c->unk);
    ptm_free(c->kmov);
    ptm_free(c);
}

/* ---- the predicate and its caches ------------------------------------------------ */

/* The predicate for blocks a < b (0-based). */
static bool evaluate(struct sched_conflicts *c, int64_t a, int64_t b)
{
    c->vars[0] = (double)(a + 1);
    c->vars[1] = (double)(b + 1);
    double v = prog_eval(c->pred, &c->env);
    return v != 0 && !isnan(v);
}

static inline size_t slot_of(const struct sched_conflicts *c, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15u) >> c->shift) & c->mask;
}

/* 0 unknown, 1 no conflict, 2 conflict; a < b. */
static inline int hash_get(const struct sched_conflicts *c, int64_t a, int64_t b)
{
    uint64_t key = (uint64_t)a << 32 | (uint64_t)b;
    for (size_t s = slot_of(c, key);; s = (s + 1) & c->mask) {
        uint64_t t = c->tab[s];
        if (t == 0)
            return 0;
        if ((t & ~HASH_CONFLICT) == key)
            return t & HASH_CONFLICT ? 2 : 1;
    }
}

static void hash_put(struct sched_conflicts *c, int64_t a, int64_t b, bool conflict)
{
    if (c->count >= c->limit) { /* full: forget everything, memory stays bounded */
        memset(c->tab, 0, (c->mask + 1) * sizeof(uint64_t));
        c->count = 0;
    }
    uint64_t key = (uint64_t)a << 32 | (uint64_t)b;
    size_t s = slot_of(c, key);
    while (c->tab[s] != 0)
        s = (s + 1) & c->mask;
    c->tab[s] = key | (conflict ? HASH_CONFLICT : 0);
    c->count++;
}

static inline bool bit(const uint64_t *row, int64_t k)
{
    return (row[k >> 6] >> (k & 63)) & 1;
}

static inline void set_bit(uint64_t *row, int64_t k)
{
    row[k >> 6] |= (uint64_t)1 << (k & 63);
}

/* The answer for a != b, evaluated and remembered when unknown. */
static bool pair_conflicts(struct sched_conflicts *c, int64_t a, int64_t b, int64_t *evals)
{
    int64_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (c->mode == MODE_DENSE) {
        uint64_t *klo = c->known + (size_t)lo * c->words;
        if (bit(klo, hi))
            return bit(c->conf + (size_t)lo * c->words, hi);
        bool v = evaluate(c, lo, hi);
        set_bit(klo, hi);
        set_bit(c->known + (size_t)hi * c->words, lo);
        if (v) {
            set_bit(c->conf + (size_t)lo * c->words, hi);
            set_bit(c->conf + (size_t)hi * c->words, lo);
        }
        (*evals)++;
        return v;
    }
    int r = hash_get(c, lo, hi);
    if (r)
        return r == 2;
    bool v = evaluate(c, lo, hi);
    hash_put(c, lo, hi, v);
    (*evals)++;
    return v;
}

bool sched_in_sorted(const int64_t *a, int64_t n, int64_t x)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo] == x;
}

bool sched_conflicts_test(struct sched_conflicts *c, int64_t a, int64_t b)
{
    int64_t evals = 0;
    if (a == b)
        return false;
    switch (c->mode) {
    case MODE_NONE:
        return false;
    case MODE_EDGES:
        return sched_in_sorted(c->e.adj + c->e.off[a], c->e.off[a + 1] - c->e.off[a], b);
    case MODE_PAIRS: {
        int64_t pair[2] = {a < b ? a : b, a < b ? b : a}, kept[2];
        return c->pairs->filter(c->pairs->ud, pair, NULL, 2, kept, &evals) < 2;
    }
    default:
        return pair_conflicts(c, a, b, &evals);
    }
}

/* ---- the filter ---------------------------------------------------------------- */

static size_t filter_edges(struct sched_conflicts *c, const int64_t *cand,
                           const unsigned char *moved, size_t n, int64_t *kept)
{
    if (++c->stamp == 0) { /* wrapped: stale stamps could match */
        memset(c->blocked, 0, (size_t)c->nblocks * sizeof(uint32_t));
        c->stamp = 1;
    }
    size_t nk = 0, nh = 0;
    const int64_t *off = c->e.off, *adj = c->e.adj;
    uint32_t *blocked = c->blocked, stamp = c->stamp;
    for (size_t i = 0; i < n; i++) {
        int64_t b = cand[i];
        if (blocked[b] == stamp)
            continue;
        bool bad = false;
        for (size_t h = 0; h < nh && !bad; h++)
            bad = sched_in_sorted(adj + off[c->hubs[h]], off[c->hubs[h] + 1] - off[c->hubs[h]], b);
        if (bad)
            continue;
        kept[nk++] = b;
        if (moved && !moved[i])
            continue;
        /* stamping costs the degree; as a hub, a search in its list for
         * each candidate left */
        int64_t deg = off[b + 1] - off[b];
        if (deg > HUB_DEGREE && (double)deg > 4 * (double)(n - i) * log2((double)deg))
            c->hubs[nh++] = b;
        else
            for (int64_t k = off[b]; k < off[b + 1]; k++)
                blocked[adj[k]] = stamp;
    }
    return nk;
}

/* Is candidate b free of conflicts with kept[0 .. nk)? Known answers
 * first (the whole kept set at once in the bit matrices), then the
 * unknown pairs, evaluated until one conflicts. */
static bool free_of_kept(struct sched_conflicts *c, int64_t b, const int64_t *kept, size_t nk,
                         int64_t *evals)
{
    size_t nu = 0;
    if (c->mode == MODE_DENSE) {
        const uint64_t *kr = c->known + (size_t)b * c->words, *cr = c->conf + (size_t)b * c->words;
        if (nk < c->words) {
            for (size_t i = 0; i < nk; i++) {
                int64_t k = kept[i];
                if (bit(cr, k))
                    return false;
                if (!bit(kr, k))
                    c->unk[nu++] = k;
            }
        } else {
            for (size_t w = 0; w < c->words; w++) {
                uint64_t m = c->kset[w];
                if (!m)
                    continue;
                if (m & cr[w])
                    return false;
                for (uint64_t u = m & ~kr[w]; u; u &= u - 1)
                    c->unk[nu++] = (int64_t)(w * 64 + (size_t)__builtin_ctzll(u));
            }
        }
    } else {
        for (size_t i = 0; i < nk; i++) {
            int64_t k = kept[i];
            int r = hash_get(c, b < k ? b : k, b < k ? k : b);
            if (r == 2)
                return false;
            if (r == 0)
                c->unk[nu++] = k;
        }
    }
    for (size_t i = 0; i < nu; i++)
        if (pair_conflicts(c, b, c->unk[i], evals))
            return false;
    return true;
}

bool sched_conflicts_none(const struct sched_conflicts *c)
{
    return c->mode == MODE_NONE;
}

size_t sched_conflicts_filter(struct sched_conflicts *c, const int64_t *cand,
                              const unsigned char *moved, size_t n, int64_t *kept, int64_t *evals)
{
    PTM_ASSERT(n <= c->maxcand);
    switch (c->mode) {
    case MODE_NONE:
        memcpy(kept, cand, n * sizeof(int64_t));
        return n;
    case MODE_EDGES:
        return filter_edges(c, cand, moved, n, kept);
    case MODE_PAIRS: {
        size_t nk = c->pairs->filter(c->pairs->ud, cand, moved, n, kept, evals);
        const struct sched_edges *g = c->pairs->graph(c->pairs->ud);
        if (g && edges_alloc(c) == 0) { /* built: looked up from now on */
            c->e = *g;
            c->borrowed = true;
            c->mode = MODE_EDGES;
        }
        return nk;
    }
    default:
        break;
    }
    /* the kept blocks that count (all without moved), in order */
    int64_t *counted = moved ? c->kmov : kept;
    size_t nk = 0, nm = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t b = cand[i];
        if (!free_of_kept(c, b, counted, nm, evals))
            continue;
        kept[nk++] = b;
        if (moved && !moved[i])
            continue;
        counted[nm++] = b;
        if (c->mode == MODE_DENSE)
            set_bit(c->kset, b);
    }
    if (c->mode == MODE_DENSE)
        for (size_t i = 0; i < nm; i++)
            c->kset[counted[i] >> 6] = 0;
    return nk;
}
