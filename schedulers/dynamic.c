/*
 * dynamic.c - the dynamic policy (structure-aware scheduling, STRADS;
 * spec/language.md 5.9). Each round: draw `sample` distinct candidates
 * with probability proportional to their sampling weights (uniformly
 * during the warm-up, and for the share `uniform` of the places after
 * it), keep, in draw order, each that conflicts with no candidate kept
 * before it (conflict.c), and deal the kept blocks to the workers by cost.
 *
 * DESIGN
 *
 * The filter visits the candidates in draw order, in which a candidate
 * precedes another with probability proportional to its weight, not by
 * decreasing priority: with the priority order, a block whose priority
 * is a hair below its neighbours' (1e-4 against 1e-4 plus a tiny change)
 * loses to them every time they are drawn with it, is never updated, and
 * so never gets the priority that would let it win. The Lasso example
 * then stopped at an objective 46% above the optimum (seed 4 of
 * bench/sched_bench.py's example runs); in draw order it cannot starve.
 *
 * Weights live in a sum tree: a complete binary tree over a power of two
 * of leaves, each inner node the sum of its two children, recomputed from
 * them (never adjusted by differences, so a subtree of zero weights sums
 * to exactly 0 and no rounding drift builds up). A draw walks down from
 * the root (log B steps). Without replacement: a draw that gives a block
 * already drawn is drawn again, which is exact (each draw is then
 * proportional to the weights of the blocks not drawn yet) and costs
 * little while the drawn blocks hold little of the weight; once they hold
 * half, the drawn leaves are set to 0 for the rest of the round and put
 * back after it. When the blocks not yet drawn all weigh 0, the remaining
 * draws are uniform among them.
 *
 * With `uniform F`, place k of the draw order (0-based) is drawn
 * uniformly among the blocks not drawn yet when floor((k + 1) F) >
 * floor(k F), so the uniform places are spread evenly (F = 0.5: every
 * second place, the first by weight). A priority without a floor
 * (`abs(delta(beta[j]))`) then concentrates the other places on the
 * blocks that still move, at any scale of the changes, while every block
 * keeps a chance of at least F N / B a round: the floor eta of `|change| +
 * eta` does the same only while the changes are above eta (below it the
 * draws become uniform; a smaller eta starves the blocks whose last change
 * was 0). On bench/sched_bench.py's data A this halves the updates to the
 * tight gaps.
 *
 * Priorities are evaluated as little as possible, by what the compiled
 * priority reads (classify()):
 * - no priority statement: d + 1e-4 from the change done() reports, for
 *   the blocks just updated;
 * - a priority that reads parameters only at the block's own variable
 *   (`delta(beta[j])`, `W[j, k]` for row blocks, `H[k, j]` for column
 *   blocks, of the scheduled parameter, with one variable or row or column
 *   a block, and no `and`/`or`): re-evaluated in done() for the blocks
 *   just updated, which are the only ones whose value can have moved;
 * - a priority that reads other parameters or other elements: every block
 *   again before the next round that samples by weight, if any round
 *   committed since;
 * - a priority that reads `rounds` or `sweeps` (which move during a run):
 *   every block again before a round that samples by weight, when a value
 *   it reads has changed since the last time (sweeps moves seldom);
 * - one that reads only data, block numbers and `workers`: once.
 *
 * Pipelining: with `pipeline N` the schedule of round t + N is computed
 * when round t is handed out, so it sees the changes committed up to
 * round t - 1: the priorities it samples by lag N rounds behind those of
 * `pipeline 0`. The first call computes rounds 0 .. N from the initial
 * priorities. Everything happens inside next() and done() on the caller's
 * thread, so the rounds depend only on the seed, the plan, the number of
 * workers and the changes reported, never on timing.
 *
 * The warm-up is counted in the rounds this scheduler has computed (and
 * their kept blocks, for sweeps): round t is in the warm-up when t is
 * below `warmup N rounds`, or when the blocks kept in rounds 0 .. t-1,
 * divided by B and rounded down, are below `warmup N sweeps`.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "arena.h"
#include "ckpt.h"
#include "ptm.h"
#include "rng.h"
#include "sched_impl.h"

/* Added to a block's change when there is no priority statement. */
#define DEFAULT_FLOOR 1e-4
/* Weights are capped here, so that the sum of up to 2^31 stays finite. */
#define WEIGHT_MAX 1e280
/* The most blocks: block numbers must fit the conflict cache's keys. */
#define MAX_BLOCKS INT32_MAX
#define MAX_PIPELINE 64
/* balance: a round of at most SORT_MAX blocks a worker is dealt by
 * decreasing cost (within 4/3 of the best balance), a larger one in filter
 * order, which is within the largest cost of the mean as well and costs
 * no sort: with 2 workers and rounds of 4096 Lasso columns the sort and
 * its dealing took 15% of the run's processor time, the coordinator's,
 * while the other worker waited. */
#define SORT_MAX 16
/* balance in filter order: up to SCAN_MAX workers the least loaded is
 * found by a scan rather than a heap */
#define SCAN_MAX 8
/* `active`: a pass over the blocks that moved follows another while it
 * changed them by more than ACTIVE_RATIO of what the last pass over every
 * block did, at most ACTIVE_PASSES times in a row. */
#define ACTIVE_RATIO 0.01
#define ACTIVE_PASSES 50
/* `active, shuffle`: an active pass goes over its blocks a chunk of this
 * many at a time (in number order within a chunk), the chunks in a random
 * order drawn for each pass. Coordinate descent in one fixed order can
 * take many times the sweeps of a varied one (non-negative uncentred
 * columns whose solution is dense: bench/RESULTS.md, "Schedulers"), and
 * whole chunks keep the columns read in the order they are stored (blocks
 * in a random order made the wide data's passes four times slower).
 * Chunks of 256: on the tall data 75 to 76 sweeps to 1e-6 of f* (32: 77,
 * 1024: 80, 4096: 93; number order 130). Without `shuffle` the chunks
 * come in number order. */
#define ACTIVE_CHUNK 256
/* Passes whose changes may not all be told yet: a round made and not told
 * belongs to one of the last MAX_PIPELINE + 1 passes. */
#define PASS_RING (MAX_PIPELINE + 2)

/* Two block numbers, two changes: GCC's vectors, one SSE2 register. */
typedef int64_t v2i64 __attribute__((vector_size(16)));
typedef double v2f64 __attribute__((vector_size(16)));

/* The bytes (c[0] != 0, c[1] != 0, c[2] != 0, c[3] != 0) in memory order,
 * for c = c01 then c23 (NaN != 0). */
static inline uint32_t flags4(v2f64 c01, v2f64 c23)
{
#if defined(__SSE2__)
    /* the comparisons' sign bits, four bits; a byte per bit from a table */
    static const uint32_t spread[16] = {
        0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001,
        0x00010100, 0x00010101, 0x01000000, 0x01000001, 0x01000100, 0x01000101,
        0x01010000, 0x01010001, 0x01010100, 0x01010101};
    v2f64 z = {0, 0};
    int m = _mm_movemask_pd((__m128d)(c01 != z)) | _mm_movemask_pd((__m128d)(c23 != z)) << 2;
    return spread[m]; /* x86: little-endian, byte 0 first */
#else
    unsigned char b[4] = {c01[0] != 0, c01[1] != 0, c23[0] != 0, c23[1] != 0};
    uint32_t w;
    memcpy(&w, b, sizeof(w));
    return w;
#endif
}

/* A sort key: value and the place it came from. */
struct key {
    double v;
    size_t i;
};

struct dyn {
    const struct plan_blockset *bs;
    int64_t B;
    int P;
    const struct sched_alone *alone; /* ptm_sched_info.alone */
    size_t N; /* candidates a round: sample, at most B */
    size_t limit; /* ... at most this many in the round being computed (the
                     caller's limit, ptm_sched_round) */
    bool balance;
    int64_t warmup;
    bool warm_rounds; /* the warm-up is counted in rounds, else in sweeps */
    int pipeline;
    double uniform; /* the share of the draw order's places drawn uniformly */
    /* priorities */
    bool program;      /* a priority statement; else the default */
    bool reads_params; /* it reads parameter values or changes */
    bool local;        /* ... only at the block's own variable */
    bool abs_delta;    /* it is abs(delta(p[j])) of that variable: the change done() reports */
    uint32_t moving;   /* bits of the globals it reads that move during a run */
    double seen[PROG_NGLOBALS]; /* their values at the last evaluation of all */
    bool dirty;        /* a round committed since the last evaluation of all */
    struct prog_env env;
    double var;
    /* weights: tree[leaves + b] is block b's, tree[k] = tree[2k] + tree[2k + 1] */
    size_t leaves;
    double *tree;
    double *cost; /* B; NULL when every block costs 1 */
    /* a round's scratch */
    int64_t *perm;   /* B: uniform draws are a partial Fisher-Yates shuffle of it */
    uint32_t *drawn; /* B: == stamp when drawn this round */
    uint32_t stamp;
    int64_t *cand;   /* N, in draw order, which is the filter's */
    double *cw;      /* N: their weights */
    struct key *keys, *tmp; /* N: assignment by cost */
    int64_t *kept;   /* N */
    int *owner;      /* N: the worker of kept[i] */
    size_t *cursor;  /* P */
    struct key *heap; /* P: (load, worker), least first */
    /* rounds computed ahead: q[(qhead + i) % pipeline], i < qlen */
    struct ptm_sched_round *q;
    int qhead, qlen;
    bool want_order, want_load; /* the caller's round has them */
    int64_t rounds, updates; /* rounds computed, and their kept blocks */
    struct ptm_rng g;
    struct sched_conflicts *conf;
    /* `active`: the current pass's blocks queue[qpos .. qn) (in a full pass
     * the blocks qpos .. qn - 1 themselves: the queue is not written), the
     * candidates left out by the filter last round (first in the next),
     * which blocks moved at their last update, and the changes the done()
     * calls reported in this pass and in the last full one */
    bool active;
    int64_t *queue, *queue2; /* queue2: where the next pass is merged */
    int64_t qpos, qn;
    /* an active pass: its chunks (queue[c * ACTIVE_CHUNK ..]) in the order
     * they are visited, and where the next candidate is (chunk[ci], offset
     * co in it); drawn from seed and the pass number, so not saved */
    int64_t *chunk, nchunk, ci, co;
    bool shuffle; /* the chunks in a random order, else in number order */
    /* `order`: the first pass (pass_no 1) goes over top[0 .. ntop) alone,
     * the blocks of largest order from the largest down; it counts as a
     * full pass (the active passes after it go over those of them that
     * moved), and a pass over every block comes when they settle */
    bool by_order;
    int64_t *top, ntop;
    uint64_t seed;
    unsigned char *inq; /* B: in queue[0 .. qn) or in rise */
    int64_t *rise;      /* B: blocks done() marked moved that the queue lacks */
    int64_t nrise;
    int64_t *defer;
    size_t ndefer;
    /* `keep moved`: the filter runs over the blocks a round changed, after
     * the update (recheck), not over the candidates; under `active` the
     * blocks whose changes it dropped wait in defer (B of them at most:
     * indefer marks them) */
    bool keep_moved;
    unsigned char *indefer;
    unsigned char *moved;
    bool full;
    int passes; /* active passes since the last full one */
    /* Changes by pass: under `pipeline N` done() tells a round's changes
     * N rounds after the next one was made, so a pass is judged by the
     * changes of its rounds, told whenever; ring[p % PASS_RING] holds pass
     * p's sum and its rounds not told yet, told[] the pass of each round
     * made and not told (in order: done() comes in the order of next()). */
    int64_t pass_no, full_pass; /* the current pass; the last full one */
    struct pass_sum {
        double change;
        int64_t left;
    } ring[PASS_RING];
    int64_t told[MAX_PIPELINE + 1];
    /* beside told[]: the round's blocks are told as they were made, the
     * blocks b, b + 1, ... of a full pass (false after a resume) */
    bool told_range[MAX_PIPELINE + 1];
    int told_head, told_len;
    double full_change; /* the last full pass's, as told so far */
    /* a failure met in done(), reported by the next next() */
    int failed;
    char failure[512];
};

static const double zero_globals[PROG_NGLOBALS];

/* ---- the sum tree --------------------------------------------------------------- */

static void set_weight(struct dyn *s, int64_t b, double w)
{
    size_t k = s->leaves + (size_t)b;
    s->tree[k] = w;
    for (k >>= 1; k; k >>= 1)
        s->tree[k] = s->tree[2 * k] + s->tree[2 * k + 1];
}

static void rebuild(struct dyn *s)
{
    for (size_t k = s->leaves - 1; k >= 1; k--)
        s->tree[k] = s->tree[2 * k] + s->tree[2 * k + 1];
}

/* Draws at a time: their walks down the tree are interleaved, so that
 * the memory latencies of one overlap those of the others. */
#define BATCH 8

/* The leaf for u in [0, tree[1]), walking only into subtrees of positive
 * weight, so that the leaf weighs more than 0 even when rounding puts u at
 * the end of a subtree. */
static size_t walk_safe(const struct dyn *s, double u)
{
    size_t k = 1;
    while (k < s->leaves) {
        double l = s->tree[2 * k], r = s->tree[2 * k + 1];
        if (l > 0 && (u < l || !(r > 0))) {
            k = 2 * k;
        } else {
            u -= l;
            k = 2 * k + 1;
        }
    }
    return k;
}

/* BATCH blocks, each drawn with probability proportional to its weight;
 * the total (tree[1]) must be positive. The walks are plain comparisons
 * without branches (the way down is a coin toss the processor cannot
 * predict), a fixed number of them so that they stay in registers; u <
 * l + r sends a walk into a subtree of positive weight, and the rare walk
 * that rounding sends to a leaf of weight 0 is done again the careful way
 * with the same u. */
static void draw(struct dyn *s, int64_t *out)
{
    double u[BATCH], u0[BATCH];
    size_t k[BATCH];
    const double *tree = s->tree;
    for (int i = 0; i < BATCH; i++) {
        u0[i] = u[i] = ptm_rng_uniform(&s->g) * tree[1];
        k[i] = 1;
    }
    for (size_t level = 1; level < s->leaves; level *= 2)
        for (int i = 0; i < BATCH; i++) {
            double l = tree[2 * k[i]];
            size_t right = u[i] >= l;
            u[i] -= l * (double)right;
            k[i] = 2 * k[i] + right;
        }
    for (int i = 0; i < BATCH; i++) {
        if (!(tree[k[i]] > 0))
            k[i] = walk_safe(s, u0[i]);
        out[i] = (int64_t)(k[i] - s->leaves);
    }
}

/* A stamp no entry of drawn[] holds yet: drawn[b] == s->stamp then
 * marks b as drawn (or seen) from here on. */
static void new_stamp(struct dyn *s)
{
    if (++s->stamp == 0) { /* wrapped: stale stamps could match */
        memset(s->drawn, 0, (size_t)s->B * sizeof(uint32_t));
        s->stamp = 1;
    }
}

/* Uniform in [0, n) by rejection, without the modulo bias. */
static uint64_t below(struct ptm_rng *g, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = ptm_rng_next(g);
    while (x >= limit);
    return x % n;
}

/* ---- priorities ----------------------------------------------------------------- */

static const int8_t op_pops[] = {
#define X(name, yaml, operands, pops, pushes) pops,
    PROG_OP_LIST(X)
#undef X
};

/* What the priority program reads (see DESIGN). */
static void classify(struct dyn *s, const struct prog *p)
{
    const struct plan_blockset *bs = s->bs;
    double each;
    bool one_unit = !bs->into && prog_is_const(&bs->count, &each) && each == 1;
    int want_n = bs->axis == PLAN_AXIS_ELEMS ? 1 : 2;
    int at = bs->axis == PLAN_AXIS_COLS ? 1 : 0; /* the index that is the block's */
    bool own[PROG_MAX_STACK + PROG_MAX_INDICES]; /* the slot holds exactly j */
    int sp = 0;
    bool track = true, local = one_unit;
    s->reads_params = false;
    s->moving = 0;
    for (uint32_t k = 0; k < p->ncode; k++) {
        const struct prog_insn *in = &p->code[k];
        int pops = op_pops[in->op];
        bool mine = false;
        switch (in->op) {
        case PROG_GLOBAL:
            if (in->a != PROG_G_WORKERS)
                s->moving |= 1u << in->a;
            break;
        case PROG_VAR:
            mine = in->a == 0;
            break;
        case PROG_JFALSE:
        case PROG_JTRUE:
            track = false; /* the stack differs by path: no more tracking */
            local = false;
            break;
        case PROG_PARAM:
        case PROG_DELTA:
            s->reads_params = true;
            if (!track || in->a != bs->param || in->b != want_n || sp < in->b ||
                !own[sp - in->b + at])
                local = false;
            pops = in->b;
            break;
        case PROG_DATA:
            pops = in->b;
            break;
        default:
            break;
        }
        if (!track)
            continue;
        sp -= pops;
        if (sp < 0 || sp >= PROG_MAX_STACK) { /* not a valid program: assume the worst */
            track = false;
            local = false;
            continue;
        }
        own[sp++] = mine;
    }
    s->local = local;
    const struct prog_insn *c = p->code;
    s->abs_delta = local && bs->axis == PLAN_AXIS_ELEMS && p->ncode == 3 && c[0].op == PROG_VAR &&
                   c[0].a == 0 && c[1].op == PROG_DELTA && c[1].a == bs->param && c[1].b == 1 &&
                   c[2].op == PROG_ABS;
}

/* "coef(12)": block b of the set, as the language numbers it. */
static const char *block_name(const struct dyn *s, int64_t b, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%lld)", s->bs->name ? s->bs->name : "block", (long long)b + 1);
    return buf;
}

/* The sampling weight of priority v of block b: v below 0 is 0; NaN and
 * +infinity are errors. */
static int weight_of(const struct dyn *s, int64_t b, double v, double *w, char *err,
                     size_t errlen)
{
    if (isnan(v) || v == INFINITY) {
        char name[160];
        const char *text = s->program && s->bs->priority.text ? s->bs->priority.text : NULL;
        if (text)
            snprintf(err, errlen, "the priority of %s, '%s', is %s: a priority must be a number",
                     block_name(s, b, name, sizeof(name)), text,
                     isnan(v) ? "not a number (NaN)" : "infinite");
        else if (s->program)
            snprintf(err, errlen, "the priority of %s is %s: a priority must be a number",
                     block_name(s, b, name, sizeof(name)),
                     isnan(v) ? "not a number (NaN)" : "infinite");
        else
            snprintf(err, errlen,
                     "the change of %s is %s, and so is its priority (the change plus 1e-4): the "
                     "update rule diverged",
                     block_name(s, b, name, sizeof(name)), isnan(v) ? "not a number (NaN)" : "infinite");
        return PTM_EINVAL;
    }
    *w = v > 0 ? (v < WEIGHT_MAX ? v : WEIGHT_MAX) : 0;
    return 0;
}

static double eval_priority(struct dyn *s, int64_t b)
{
    s->var = (double)(b + 1);
    return prog_eval(&s->bs->priority, &s->env);
}

/* Every block's priority again, and the tree. */
static int evaluate_all(struct dyn *s, char *err, size_t errlen)
{
    for (int64_t b = 0; b < s->B; b++) {
        int rc = weight_of(s, b, eval_priority(s, b), &s->tree[s->leaves + (size_t)b], err, errlen);
        if (rc != 0)
            return rc;
    }
    rebuild(s);
    memcpy(s->seen, s->env.globals, sizeof(s->seen));
    s->dirty = false;
    return 0;
}

/* Bring the weights up to date before a round that samples by them. */
static int refresh(struct dyn *s, char *err, size_t errlen)
{
    if (!s->program)
        return 0;
    bool moved = false;
    for (int g = 0; g < PROG_NGLOBALS; g++)
        if ((s->moving >> g & 1) && memcmp(&s->seen[g], &s->env.globals[g], sizeof(double)) != 0)
            moved = true;
    if (moved || (s->dirty && !s->local))
        return evaluate_all(s, err, errlen);
    return 0;
}

/* ---- a round -------------------------------------------------------------------- */

/* A key whose ascending order is v's descending order, for v >= 0 (and
 * -0 as 0): the bits of a non-negative double order as the number does. */
static inline uint64_t desc_bits(double v)
{
    uint64_t u;
    v = v == 0 ? 0 : v;
    memcpy(&u, &v, sizeof(u));
    return ~u;
}

/* Stable sort of k[0 .. n) by decreasing v >= 0 (ties keep their order):
 * a least-significant-digit radix sort on the bits of v, a byte a pass,
 * over the bytes that differ among the keys (costs such as nnz() differ in
 * two or three), so that a round pays a few passes over its blocks rather
 * than a comparison sort's log2 n (a merge sort took as long as the
 * workers' coordinate updates on bench/sched_bench.py's data A). */
static void sort_desc(struct key *k, struct key *tmp, size_t n)
{
    if (n < 2)
        return;
    uint64_t all_and = ~(uint64_t)0, all_or = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = desc_bits(k[i].v);
        all_and &= u;
        all_or |= u;
    }
    uint64_t differ = all_and ^ all_or;
    struct key *from = k, *to = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        if (!((differ >> shift) & 0xff))
            continue;
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((desc_bits(from[i].v) >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            to[count[(desc_bits(from[i].v) >> shift) & 0xff]++] = from[i];
        struct key *t = from;
        from = to;
        to = t;
    }
    if (from != k)
        memcpy(k, from, n * sizeof(*k));
}

static bool heap_less(const struct key *a, const struct key *b)
{
    return a->v < b->v || (a->v == b->v && a->i < b->i);
}

static void sift_down(struct key *h, size_t n, size_t k)
{
    for (;;) {
        size_t l = 2 * k + 1, r = l + 1, m = k;
        if (l < n && heap_less(&h[l], &h[m]))
            m = l;
        if (r < n && heap_less(&h[r], &h[m]))
            m = r;
        if (m == k)
            return;
        struct key t = h[k];
        h[k] = h[m];
        h[m] = t;
        k = m;
    }
}

/* Deal kept[0 .. nk) (in filter order) to the workers into out. */
static void assign(struct dyn *s, const int64_t *kept, size_t nk, struct ptm_sched_round *out)
{
    size_t P = (size_t)s->P;
    out->n = nk;
    size_t *order = s->want_order ? out->order : NULL;
    out->alone = false;
    bool alone = ptm_sched_alone(s->alone, s->P, kept, nk);
    if (!alone && P > 1 && kept == out->blocks) { /* dealt from a copy */
        memcpy(s->cand, kept, nk * sizeof(int64_t));
        kept = s->cand;
    }
    if (alone) {
        /* the caller runs it on the first worker alone: nothing to deal */
        ptm_sched_deal_first(out, kept, nk, s->P);
    } else if (P == 1 || !(s->balance && s->cost)) {
        /* one worker; or balance false, or equal costs, where the least
         * loaded worker is always the next one in turn: kept[i] goes to
         * worker i mod P, at place i / P of its part */
        size_t q = nk / P, extra = nk % P;
        for (size_t p = 0; p <= P; p++)
            out->part[p] = p * q + (p < extra ? p : extra);
        if (P == 1) {
            if (kept != out->blocks)
                memcpy(out->blocks, kept, nk * sizeof(int64_t));
            if (order)
                for (size_t i = 0; i < nk; i++)
                    order[i] = i;
        } else {
            for (size_t p = 0; p < P; p++) /* worker by worker: no division */
                for (size_t i = p, pos = out->part[p]; i < nk; i += P, pos++) {
                    out->blocks[pos] = kept[i];
                    if (order)
                        order[pos] = i;
                }
        }
    } else {
        /* each to the least loaded worker (ties to the lowest number): by
         * decreasing cost (ties in filter order) in a round of few blocks a
         * worker, else in filter order (see SORT_MAX) */
        for (size_t p = 0; p < P; p++)
            s->heap[p] = (struct key){0, p}; /* a heap already */
        if (nk <= SORT_MAX * P) {
            for (size_t i = 0; i < nk; i++)
                s->keys[i] = (struct key){s->cost[kept[i]], i};
            sort_desc(s->keys, s->tmp, nk);
            for (size_t i = 0; i < nk; i++) {
                size_t k = s->keys[i].i;
                s->owner[k] = (int)s->heap[0].i;
                s->heap[0].v += s->keys[i].v;
                sift_down(s->heap, P, 0);
            }
        } else if (P <= SCAN_MAX) {
            /* few workers: the least loaded by a scan, as the heap's root
             * would be (the same worker; a fifth of the instructions) */
            double load[SCAN_MAX] = {0};
            for (size_t i = 0; i < nk; i++) {
                size_t m = 0;
                for (size_t p = 1; p < P; p++)
                    m = load[p] < load[m] ? p : m;
                s->owner[i] = (int)m;
                load[m] += s->cost[kept[i]];
            }
        } else {
            for (size_t i = 0; i < nk; i++) {
                s->owner[i] = (int)s->heap[0].i;
                s->heap[0].v += s->cost[kept[i]];
                sift_down(s->heap, P, 0);
            }
        }
        for (size_t p = 0; p < P; p++)
            s->cursor[p] = 0;
        for (size_t i = 0; i < nk; i++)
            s->cursor[s->owner[i]]++;
        size_t at = 0;
        for (size_t p = 0; p < P; p++) {
            out->part[p] = at;
            size_t c = s->cursor[p];
            s->cursor[p] = at;
            at += c;
        }
        out->part[P] = at;
        for (size_t i = 0; i < nk; i++) {
            size_t p = (size_t)s->owner[i], pos = s->cursor[p]++;
            out->blocks[pos] = kept[i];
            if (order)
                order[pos] = i;
        }
    }
    /* each worker's cost, summed in its part's order */
    for (size_t p = 0; out->load && s->want_load && p < P; p++) {
        double load = 0;
        if (s->cost)
            for (size_t i = out->part[p]; i < out->part[p + 1]; i++)
                load += s->cost[out->blocks[i]];
        else
            load = (double)(out->part[p + 1] - out->part[p]);
        out->load[p] = load;
    }
}

/* Whether place k of the draw order is drawn uniformly (see DESIGN). */
static bool uniform_place(const struct dyn *s, size_t k)
{
    return s->uniform > 0 && floor((double)(k + 1) * s->uniform) > floor((double)k * s->uniform);
}

static int compute_active(struct dyn *s, struct ptm_sched_round *out, char *err, size_t errlen);

/* Compute the next round into out. */
static int compute(struct dyn *s, struct ptm_sched_round *out, char *err, size_t errlen)
{
    if (s->active)
        return compute_active(s, out, err, errlen);
    bool warm = s->warm_rounds ? s->rounds < s->warmup : s->updates / s->B < s->warmup;
    int rc;
    if (!warm && (rc = refresh(s, err, errlen)) != 0)
        return rc;
    new_stamp(s);
    size_t N = s->limit, fy = 0;
    /* Drawing without replacement: draw with replacement and draw again
     * on a block already drawn (which gives each draw with probability
     * proportional to the weights of the blocks not drawn yet), until the
     * blocks drawn hold half the weight; from then on set drawn leaves to
     * 0 and put them back after the round. */
    double total = s->tree[1], mass = 0;
    bool removing = false;
    for (size_t k = 0; k < N;) {
        int64_t b, got[BATCH];
        if (!warm && !removing && mass > 0.5 * total) {
            removing = true;
            for (size_t i = 0; i < k; i++)
                if (s->cw[i] > 0)
                    set_weight(s, s->cand[i], 0);
        }
        if (warm || !(s->tree[1] > 0) || uniform_place(s, k)) {
            /* uniform among the blocks not drawn yet: the next places of a
             * Fisher-Yates shuffle, skipping blocks drawn before. After
             * the warm-up a block drawn here counts as one the tree gave
             * (its weight goes to mass, and leaves the tree while
             * removing), or the tree's draws could find only blocks drawn
             * already, for ever. */
            do {
                size_t j = fy + (size_t)below(&s->g, (uint64_t)s->B - fy);
                int64_t t = s->perm[fy];
                s->perm[fy] = s->perm[j];
                s->perm[j] = t;
                b = s->perm[fy++];
            } while (s->drawn[b] == s->stamp);
            s->drawn[b] = s->stamp;
            double w = warm ? 0 : s->tree[s->leaves + (size_t)b];
            mass += w;
            if (removing && w > 0)
                set_weight(s, b, 0);
            s->cand[k] = b;
            s->cw[k++] = w;
            continue;
        }
        /* a batch of draws from the tree as it is: each, given that it
         * is not a block drawn before (in this batch too), is proportional
         * to the weights of the others */
        draw(s, got);
        for (int i = 0; i < BATCH && k < N && !uniform_place(s, k); i++) {
            b = got[i];
            if (s->drawn[b] == s->stamp)
                continue;
            double w = s->tree[s->leaves + (size_t)b];
            mass += w;
            if (removing)
                set_weight(s, b, 0);
            s->drawn[b] = s->stamp;
            s->cand[k] = b;
            s->cw[k++] = w;
        }
    }
    for (size_t k = 0; removing && k < N; k++)
        if (s->cw[k] > 0)
            set_weight(s, s->cand[k], s->cw[k]);
    /* visit in draw order: a candidate comes before another with
     * probability proportional to its priority (spec/language.md 5.9) */
    int64_t evals = 0;
    size_t nk =
        s->keep_moved ? N : sched_conflicts_filter(s->conf, s->cand, NULL, N, s->kept, &evals);
    assign(s, s->keep_moved ? s->cand : s->kept, nk, out);
    out->candidates = (int64_t)N;
    out->conflicts = (int64_t)(N - nk);
    out->evaluations = evals;
    s->rounds++;
    s->updates += (int64_t)nk;
    return 0;
}

static int cmp_block(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* a[0 .. n) ascending (a pass's late risers: few). */
static void sort_blocks(int64_t *a, size_t n)
{
    if (n > 1)
        qsort(a, n, sizeof(*a), cmp_block);
}

/* Chunk c of an active pass: its length. */
static int64_t chunk_len(const struct dyn *s, int64_t c)
{
    int64_t lo = c * ACTIVE_CHUNK, hi = lo + ACTIVE_CHUNK;
    return (hi < s->qn ? hi : s->qn) - lo;
}

/* The order of the active pass's chunks (ACTIVE_CHUNK): under `shuffle`
 * drawn from the seed and the pass's number, else number order; and the
 * place qpos in it (ci, co). */
static void chunk_order(struct dyn *s)
{
    s->nchunk = (s->qn + ACTIVE_CHUNK - 1) / ACTIVE_CHUNK;
    struct ptm_rng g;
    ptm_rng_seed(&g, s->seed ^ 0x6163746976650000ull ^ (uint64_t)s->pass_no * 0x9e3779b97f4a7c15u);
    for (int64_t i = 0; i < s->nchunk; i++)
        s->chunk[i] = i;
    for (int64_t i = s->shuffle ? s->nchunk - 1 : 0; i > 0; i--) { /* Fisher-Yates */
        int64_t j = (int64_t)(ptm_rng_next(&g) % (uint64_t)(i + 1));
        int64_t t = s->chunk[i];
        s->chunk[i] = s->chunk[j];
        s->chunk[j] = t;
    }
    int64_t left = s->qpos;
    for (s->ci = 0, s->co = 0; left > 0; s->ci++) {
        int64_t len = chunk_len(s, s->chunk[s->ci]);
        if (left < len) {
            s->co = left;
            break;
        }
        left -= len;
    }
}

/* `active`: the next pass into queue, in block order. After a full pass,
 * the active blocks, those whose priority is above 0 (without a priority
 * statement, whose last change was not 0); after a pass over those, the
 * same again while it changed them by more than ACTIVE_RATIO of the last
 * full pass (and at most ACTIVE_PASSES times), else every block. A pass
 * with no block is a full one. A priority that done() cannot keep current
 * (it reads more than the block's own variable) is evaluated for every
 * block as an active pass starts. Returns 0, or PTM_EINVAL for a NaN or
 * infinite priority (message in err). */
static int next_pass(struct dyn *s, char *err, size_t errlen)
{
    bool full = s->qn == 0; /* the first pass */
    if (s->pass_no >= 1)    /* the first pass is over, and its order with it */
        s->by_order = false;
    if (!full && s->full) {
        s->passes = 0;
    } else if (!full) {
        /* the newest active pass whose changes are all told; none yet
         * (pipeline): go on */
        full = s->passes >= ACTIVE_PASSES;
        for (int64_t q = s->pass_no; !full && q > s->full_pass && s->pass_no - q < PASS_RING; q--) {
            const struct pass_sum *ps = &s->ring[q % PASS_RING];
            if (ps->left == 0) {
                full = !(ps->change > ACTIVE_RATIO * s->full_change);
                break;
            }
        }
    }
    if (!full && s->program && !(s->local && s->reads_params)) {
        s->qn = 0;
        for (int64_t b = 0; b < s->B; b++) {
            double w = 0;
            if (weight_of(s, b, eval_priority(s, b), &w, err, errlen) != 0)
                return PTM_EINVAL;
            s->moved[b] = w > 0;
            s->inq[b] = s->moved[b];
            if (s->moved[b])
                s->queue[s->qn++] = b;
        }
        s->nrise = 0;
        full = s->qn == 0;
    } else if (!full) {
        /* The blocks that moved are those of the last pass that did, and
         * those done() marked since it began (rise): a merge of the two in
         * block order, in the time of the last pass rather than of B. */
        sort_blocks(s->rise, (size_t)s->nrise);
        const int64_t *q = s->queue, *rise = s->rise, qn = s->qn, nrise = s->nrise;
        const unsigned char *moved = s->moved;
        unsigned char *inq = s->inq;
        int64_t *to = s->queue2, n = 0, i = 0, j = 0;
        if (s->full) { /* the last pass was every block (no queue, no rise) */
            /* most blocks rest after a full pass: eight flags a word, and
             * a word of zeros skipped */
            memcpy(inq, moved, (size_t)s->B);
            int64_t b = 0;
            for (; b + 8 <= s->B; b += 8) {
                uint64_t w;
                memcpy(&w, moved + b, sizeof(w));
                if (w == 0)
                    continue;
                for (int64_t c = b; c < b + 8; c++) {
                    to[n] = c;
                    n += moved[c];
                }
            }
            for (; b < s->B; b++) {
                to[n] = b;
                n += moved[b];
            }
        }
        while (!s->full && i < qn && j < nrise) {
            int64_t b = q[i] < rise[j] ? q[i++] : rise[j++];
            inq[b] = moved[b];
            to[n] = b;
            n += moved[b];
        }
        for (; !s->full && i < qn; i++) { /* no riser left (most passes have none) */
            int64_t b = q[i];
            inq[b] = moved[b];
            to[n] = b;
            n += moved[b];
        }
        for (; !s->full && j < nrise; j++) {
            int64_t b = rise[j];
            inq[b] = moved[b];
            to[n] = b;
            n += moved[b];
        }
        int64_t *t = s->queue;
        s->queue = s->queue2;
        s->queue2 = t;
        s->qn = n;
        s->nrise = 0;
        full = n == 0;
    }
    if (full) { /* every block in order: the queue is not written */
        /* the first pass by order: its top blocks alone */
        s->qn = s->by_order && s->pass_no == 0 ? s->ntop : s->B;
        memset(s->inq, 1, (size_t)s->B);
        s->nrise = 0;
    } else {
        s->passes++;
    }
    s->full = full;
    s->qpos = 0;
    s->pass_no++;
    if (!full)
        chunk_order(s);
    s->ring[s->pass_no % PASS_RING] = (struct pass_sum){0, 0};
    if (full) {
        s->full_pass = s->pass_no;
        s->full_change = 0;
    }
    return 0;
}

/* `active`: the next round: the candidates the filter left out last
 * round, then the pass's next blocks in order, N in all; the kept ones are
 * dealt as under sampling, the others wait for the next round. */
static int compute_active(struct dyn *s, struct ptm_sched_round *out, char *err, size_t errlen)
{
    size_t N = s->limit, k = 0;
    /* without a filter every candidate is kept: the candidates are
     * written as the round's blocks, which one worker, or the first alone,
     * takes as they are (assign deals the others' from a copy) */
    bool all = s->keep_moved || sched_conflicts_none(s->conf);
    int64_t *cand = all ? out->blocks : s->cand;
    /* the candidates left out last round first; under a lower limit
     * (offer) than then, those beyond it wait for the next round */
    k = s->ndefer < N ? s->ndefer : N;
    size_t wait = s->ndefer - k;
    memcpy(cand, s->defer, k * sizeof(int64_t));
    memmove(s->defer, s->defer + k, wait * sizeof(int64_t));
    for (size_t i = 0; s->indefer && i < k; i++)
        s->indefer[cand[i]] = 0;
    int rc;
    if (k == 0 && s->qpos >= s->qn && (rc = next_pass(s, err, errlen)) != 0)
        return rc;
    if (k < N && s->qpos < s->qn) {
        size_t take = (size_t)(s->qn - s->qpos) < N - k ? (size_t)(s->qn - s->qpos) : N - k;
        if (s->full && s->by_order && s->pass_no == 1) { /* the first pass, by order */
            memcpy(cand + k, s->top + s->qpos, take * sizeof(int64_t));
        } else if (s->full) { /* the next blocks in number order, four a step */
            int64_t *to = cand + k, b = s->qpos;
            size_t i = 0;
            v2i64 lo = {b, b + 1}, hi = {b + 2, b + 3};
            for (; i + 4 <= take; i += 4, lo += 4, hi += 4) {
                memcpy(to + i, &lo, sizeof(lo));
                memcpy(to + i + 2, &hi, sizeof(hi));
            }
            for (b += (int64_t)i; i < take; i++, b++)
                to[i] = b;
        } else { /* chunk after chunk in the pass's order */
            for (size_t got = 0; got < take;) {
                int64_t c = s->chunk[s->ci], len = chunk_len(s, c) - s->co;
                size_t t = (size_t)len < take - got ? (size_t)len : take - got;
                memcpy(cand + k + got, s->queue + c * ACTIVE_CHUNK + s->co, t * sizeof(int64_t));
                got += t;
                s->co += (int64_t)t;
                if (s->co == chunk_len(s, c)) {
                    s->ci++;
                    s->co = 0;
                }
            }
        }
        k += take;
        s->qpos += (int64_t)take;
    }
    int64_t evals = 0;
    /* the blocks qpos - k .. qpos - 1 of a full pass, all kept */
    bool range = all && s->full && s->ndefer == 0 && !(s->by_order && s->pass_no == 1);
    size_t nk = all ? k : sched_conflicts_filter(s->conf, cand, NULL, k, s->kept, &evals);
    s->ndefer = wait;
    if (nk < k) { /* the candidates not kept, in their order, after those waiting */
        new_stamp(s);
        for (size_t i = 0; i < nk; i++)
            s->drawn[s->kept[i]] = s->stamp;
        for (size_t i = 0; i < k; i++)
            if (s->drawn[s->cand[i]] != s->stamp)
                s->defer[s->ndefer++] = s->cand[i];
    }
    assign(s, all ? cand : s->kept, nk, out);
    out->candidates = (int64_t)k;
    out->conflicts = (int64_t)(k - nk);
    out->evaluations = evals;
    s->rounds++;
    s->updates += (int64_t)nk;
    /* the pass whose changes done() will tell for this round */
    s->ring[s->pass_no % PASS_RING].left++;
    if (s->told_len == MAX_PIPELINE + 1) { /* a round never told: forget the oldest */
        s->ring[s->told[s->told_head] % PASS_RING].left--;
        s->told_head = (s->told_head + 1) % (MAX_PIPELINE + 1);
        s->told_len--;
    }
    int at = (s->told_head + s->told_len++) % (MAX_PIPELINE + 1);
    s->told[at] = s->pass_no;
    /* dealt whole to one worker, the round's blocks are the candidates */
    s->told_range[at] = range && nk > 0 && (s->P == 1 || out->alone);
    return 0;
}

static void copy_round(struct ptm_sched_round *dst, const struct ptm_sched_round *src, int P)
{
    dst->n = src->n;
    memcpy(dst->blocks, src->blocks, src->n * sizeof(int64_t));
    if (dst->order && !src->alone)
        memcpy(dst->order, src->order, src->n * sizeof(size_t));
    memcpy(dst->part, src->part, ((size_t)P + 1) * sizeof(size_t));
    if (dst->load)
        memcpy(dst->load, src->load, (size_t)P * sizeof(double));
    dst->candidates = src->candidates;
    dst->conflicts = src->conflicts;
    dst->evaluations = src->evaluations;
    dst->alone = src->alone;
}

/* ---- the interface -------------------------------------------------------------- */

static void dyn_destroy(void *state)
{
    struct dyn *s = state;
    if (!s)
        return;
    ptm_free(s->tree);
    ptm_free(s->cost);
    ptm_free(s->top);
    ptm_free(s->perm);
    ptm_free(s->drawn);
    ptm_free(s->cand);
    ptm_free(s->cw);
    ptm_free(s->keys);
    ptm_free(s->tmp);
    ptm_free(s->kept);
    ptm_free(s->owner);
    ptm_free(s->cursor);
    ptm_free(s->heap);
    ptm_free(s->queue);
    ptm_free(s->defer);
    ptm_free(s->indefer);
    ptm_free(s->moved);
    ptm_free(s->queue2);
    ptm_free(s->chunk);
    ptm_free(s->rise);
    ptm_free(s->inq);
    if (s->q)
        for (int i = 0; i < s->pipeline; i++) {
            ptm_free(s->q[i].blocks);
            ptm_free(s->q[i].part);
            ptm_free(s->q[i].load);
            ptm_free(s->q[i].order);
        }
    ptm_free(s->q);
    sched_conflicts_free(s->conf);
    ptm_free(s);
}

/* n elements of size, or NULL; n == 0 gives one. */
static void *alloc(size_t n, size_t size)
{
    return ptm_malloc((n ? n : 1) * size);
}

/* Costs of every block (has_cost). */
static int eval_costs(struct dyn *s, char *err, size_t errlen)
{
    s->cost = alloc((size_t)s->B, sizeof(double));
    if (!s->cost)
        return PTM_ENOMEM;
    for (int64_t b = 0; b < s->B; b++) {
        s->var = (double)(b + 1);
        double v = prog_eval(&s->bs->cost, &s->env);
        if (!(v >= 0) || v == INFINITY) {
            char name[160];
            const char *text = s->bs->cost.text;
            snprintf(err, errlen, "the cost of %s%s%s%s is %g: a cost must be a finite number of at least 0",
                     block_name(s, b, name, sizeof(name)), text ? ", '" : "", text ? text : "",
                     text ? "'," : "", v);
            return PTM_EINVAL;
        }
        s->cost[b] = v;
    }
    return 0;
}

/* `order`, under `active`: the first pass's blocks, the N (sample) of
 * largest order, the largest first, into s->top. The orders come from
 * info->order, else are evaluated; they are compared in single precision
 * (0 and -0 equal), NaN below every number, equal ones in number order.
 * Each block is a word of perm (its identity restored after), its order's
 * key above its number; the N smallest words are found a byte of the key
 * at a time (counting, then counting among those whose bytes so far are
 * the boundary's), then sorted by radix too. Fresh pages cost more than
 * the passes on this machine: a whole sort over four arrays of B of its
 * own took 28 ms for 200,000 blocks, most of it faults.
 *
 * Why a first pass of the N largest alone: the columns most like y find
 * most of a Lasso's support, the active passes over those that moved
 * settle it, and the pass over every block that follows finds the rest,
 * as glmnet's strong rules screen and then check every coefficient.
 * Going on over the other blocks in number order right after them spent
 * B updates on blocks that mostly stay at 0 before the support had
 * settled; a whole first pass by order read the columns out of storage
 * order, three times slower on the wide data (bench/RESULTS.md,
 * "Schedulers"). */
static int eval_order(struct dyn *s, const struct ptm_sched_info *info)
{
    size_t B = (size_t)s->B, N = s->N < B ? s->N : B;
    uint64_t *w = (uint64_t *)s->perm; /* int64_t and uint64_t may alias */
    s->top = alloc(N, sizeof(int64_t));
    if (!s->top)
        return PTM_ENOMEM;
    for (size_t b = 0; b < B; b++) {
        float f; /* NaN stays NaN, beyond FLT_MAX is inf */
        if (info->order) {
            f = info->order[b];
        } else {
            s->var = (double)(b + 1);
            f = (float)prog_eval(&s->bs->order, &s->env);
        }
        uint32_t u;
        f = f == 0 ? 0 : f; /* -0 as 0 */
        memcpy(&u, &f, sizeof(u));
        /* keys ascending as the numbers, then reversed: the largest first */
        u = u >> 31 ? ~u : u | UINT32_C(0x80000000);
        uint32_t key = isnan(f) ? UINT32_MAX : ~u;
        w[b] = (uint64_t)key << 32 | (uint64_t)b;
    }
    /* the boundary key: fewer than N keys below it, N or more at most it */
    uint32_t prefix = 0;
    size_t less = 0; /* keys below the boundary */
    for (int shift = 24; shift >= 0; shift -= 8) {
        size_t count[256] = {0};
        uint32_t hi = shift == 24 ? 0 : ~UINT32_C(0) << (shift + 8);
        for (size_t b = 0; b < B; b++) {
            uint32_t key = (uint32_t)(w[b] >> 32);
            if ((key & hi) == (prefix & hi))
                count[key >> shift & 0xff]++;
        }
        int d = 0;
        for (; less + count[d] < N; d++)
            less += count[d];
        prefix |= (uint32_t)d << shift;
    }
    const uint32_t below = prefix;
    /* the keys below it, then those at it in number order, N in all */
    size_t n = 0;
    for (size_t b = 0; b < B; b++)
        if ((uint32_t)(w[b] >> 32) < below)
            s->top[n++] = (int64_t)w[b];
    for (size_t b = 0; b < B && n < N; b++)
        if ((uint32_t)(w[b] >> 32) == below)
            s->top[n++] = (int64_t)w[b];
    /* sorted by key, a byte at a time (w, read, the scratch): stable, and
     * equal keys came in number order (all below the boundary, or all at
     * it); qsort took a millisecond for 4000 */
    uint64_t *from = (uint64_t *)s->top, *to = w;
    for (int shift = 32; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < N; i++)
            count[(from[i] >> shift & 0xff) + 1]++;
        if (count[(from[0] >> shift & 0xff) + 1] == N)
            continue; /* every key has this byte */
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < N; i++)
            to[count[from[i] >> shift & 0xff]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != (uint64_t *)s->top)
        memcpy(s->top, from, N * sizeof(*s->top));
    for (size_t i = 0; i < N; i++)
        s->top[i] = (int64_t)((uint64_t)s->top[i] & UINT32_MAX);
    for (size_t b = 0; b < B; b++)
        s->perm[b] = (int64_t)b;
    /* moving until told otherwise: the active pass after the first, made
     * before done() has told its last rounds (pipeline), takes them */
    for (size_t i = 0; i < N; i++)
        s->moved[s->top[i]] = 1;
    s->ntop = (int64_t)N;
    s->by_order = true;
    return 0;
}

static int dyn_create(const struct ptm_sched_info *info, void **state, char *err, size_t errlen)
{
    const struct plan_schedule *sc = &info->plan->schedule;
    const struct plan_blockset *bs = info->bs;
    *state = NULL;
    if (info->nblocks < 1 || info->nblocks > MAX_BLOCKS) {
        snprintf(err, errlen, "the dynamic policy schedules 1 to %lld blocks; '%s' has %lld",
                 (long long)MAX_BLOCKS, bs->name, (long long)info->nblocks);
        return PTM_EINVAL;
    }
    if (sc->pipeline < 0 || sc->pipeline > MAX_PIPELINE || sc->sample < 0 || sc->warmup < 0 ||
        !(sc->uniform >= 0 && sc->uniform <= 1)) {
        snprintf(err, errlen,
                 "schedule dynamic: pipeline must be 0 .. %d, sample and warmup at least 0 and "
                 "uniform 0 .. 1",
                 MAX_PIPELINE);
        return PTM_EINVAL;
    }
    struct dyn *s = ptm_malloc(sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    memset(s, 0, sizeof(*s));
    s->bs = bs;
    s->B = info->nblocks;
    s->P = info->workers;
    s->alone = info->alone;
    int64_t sample = sc->sample > 0 ? sc->sample : 256;
    s->N = (size_t)(sample < s->B ? sample : s->B);
    s->limit = s->N;
    s->balance = sc->balance;
    s->warmup = sc->warmup;
    s->warm_rounds = sc->warmup_unit == PLAN_UNIT_ROUNDS;
    s->pipeline = (int)sc->pipeline;
    s->uniform = sc->uniform;
    s->active = sc->active;
    s->shuffle = sc->shuffle;
    s->keep_moved = sc->keep_moved && bs->depend != PLAN_DEPEND_NONE; /* never with keep_all */
    s->program = bs->has_priority;
    ptm_rng_seed(&s->g, info->seed ^ 0x64796e616d696300ull); /* "dynamic" stream */
    s->seed = info->seed;
    int rc = PTM_ENOMEM;
    size_t B = (size_t)s->B, N = s->N, P = (size_t)s->P;
    for (s->leaves = 1; s->leaves < B; s->leaves *= 2)
        ;
    s->tree = alloc(2 * s->leaves, sizeof(double));
    s->perm = alloc(B, sizeof(int64_t));
    s->drawn = alloc(B, sizeof(uint32_t));
    s->cand = alloc(N, sizeof(int64_t));
    s->cw = alloc(N, sizeof(double));
    s->keys = alloc(N > P ? N : P, sizeof(struct key));
    s->tmp = alloc(N > P ? N : P, sizeof(struct key));
    s->kept = alloc(N, sizeof(int64_t));
    s->owner = alloc(N, sizeof(int));
    s->cursor = alloc(P, sizeof(size_t));
    s->heap = alloc(P, sizeof(struct key));
    if (!s->tree || !s->perm || !s->drawn || !s->cand || !s->cw || !s->keys || !s->tmp ||
        !s->kept || !s->owner || !s->cursor || !s->heap)
        goto fail;
    if (s->active) {
        s->queue = alloc(B, sizeof(int64_t));
        s->defer = alloc(s->keep_moved ? B : N, sizeof(int64_t));
        s->indefer = s->keep_moved ? alloc(B, 1) : NULL;
        s->queue2 = alloc(B, sizeof(int64_t));
        s->chunk = alloc((B + ACTIVE_CHUNK - 1) / ACTIVE_CHUNK, sizeof(int64_t));
        s->rise = alloc(B + 1, sizeof(int64_t)); /* done() writes one past the last */
        s->moved = alloc(B, 1);
        s->inq = alloc(B, 1);
        if (!s->queue || !s->queue2 || !s->chunk || !s->rise || !s->defer || !s->moved || !s->inq ||
            (s->keep_moved && !s->indefer))
            goto fail;
        if (s->indefer)
            memset(s->indefer, 0, B);
        memset(s->moved, 0, B);
        memset(s->inq, 0, B);
    }
    memset(s->tree, 0, 2 * s->leaves * sizeof(double));
    memset(s->drawn, 0, B * sizeof(uint32_t));
    for (size_t b = 0; b < B; b++)
        s->perm[b] = (int64_t)b;
    if (s->pipeline > 0) {
        s->q = alloc((size_t)s->pipeline, sizeof(*s->q));
        if (!s->q)
            goto fail;
        memset(s->q, 0, (size_t)s->pipeline * sizeof(*s->q));
        for (int i = 0; i < s->pipeline; i++) {
            struct ptm_sched_round *r = &s->q[i];
            r->blocks = alloc(N, sizeof(int64_t));
            r->order = alloc(N, sizeof(size_t));
            r->part = alloc(P + 1, sizeof(size_t));
            r->load = alloc(P, sizeof(double));
            if (!r->blocks || !r->order || !r->part || !r->load)
                goto fail;
            /* what assign() leaves unwritten (order and load the caller
             * does not want) is saved in checkpoints as it is */
            memset(r->order, 0, N * sizeof(size_t));
            memset(r->load, 0, P * sizeof(double));
        }
    }
    /* what expressions read */
    bool need_env = false;
    double v;
    if (bs->has_priority && !prog_is_const(&bs->priority, &v))
        need_env = true;
    if (bs->has_cost && !prog_is_const(&bs->cost, &v))
        need_env = true;
    if (s->active && bs->has_order && !info->order && !prog_is_const(&bs->order, &v))
        need_env = true;
    if (info->env) {
        s->env = *info->env;
    } else if (need_env) {
        snprintf(
            err, errlen,
            "the priority, cost or order of '%s' reads data, parameters or run-time values, which "
            "this run does not provide",
            bs->name);
        rc = PTM_EINVAL;
        goto fail;
    } else {
        s->env.globals = zero_globals;
    }
    s->env.vars = &s->var;
    if (bs->has_cost && (rc = eval_costs(s, err, errlen)) != 0)
        goto fail;
    if (s->active && bs->has_order) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if ((rc = eval_order(s, info)) != 0)
            goto fail;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (info->order_seconds)
            *info->order_seconds +=
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    }
    if (s->program) {
        classify(s, &bs->priority);
        if ((rc = evaluate_all(s, err, errlen)) != 0)
            goto fail;
    } else {
        for (size_t b = 0; b < B; b++)
            s->tree[s->leaves + b] = DEFAULT_FLOOR; /* no change yet */
        rebuild(s);
    }
    if ((rc = sched_conflicts_new(info, sc->keep_all, N, &s->conf, err, errlen)) != 0)
        goto fail;
    *state = s;
    return 0;
fail:
    dyn_destroy(s);
    return rc;
}

static size_t dyn_cap(const void *state)
{
    return ((const struct dyn *)state)->N;
}

static int dyn_next(void *state, struct ptm_sched_round *out, char *err, size_t errlen)
{
    struct dyn *s = state;
    if (s->failed) {
        snprintf(err, errlen, "%s", s->failure);
        return s->failed;
    }
    s->want_order = out->order != NULL;
    s->want_load = out->load != NULL;
    s->limit = out->limit > 0 && out->limit < s->N ? out->limit : s->N;
    if (s->pipeline == 0)
        return compute(s, out, err, errlen);
    int rc;
    while (s->qlen < s->pipeline) { /* the first call: rounds 0 .. pipeline - 1 */
        if ((rc = compute(s, &s->q[(s->qhead + s->qlen) % s->pipeline], err, errlen)) != 0)
            return rc;
        s->qlen++;
    }
    copy_round(out, &s->q[s->qhead], s->P);
    s->qhead = (s->qhead + 1) % s->pipeline;
    s->qlen--;
    if ((rc = compute(s, &s->q[(s->qhead + s->qlen) % s->pipeline], err, errlen)) != 0)
        return rc;
    s->qlen++;
    return 0;
}

static void dyn_done(void *state, const int64_t *blocks, const double *change, size_t n)
{
    struct dyn *s = state;
    if (s->active) {
        /* the arrays and counts in locals: the stores to moved[] may alias
         * anything, s included */
        unsigned char *moved = s->moved, *inq = s->inq;
        int64_t *rise = s->rise, nrise = s->nrise;
        bool evaluate = s->program && s->local && s->reads_params, abs_delta = s->abs_delta;
        double sum = 0;
        bool finite_all = false;
        /* a round of the pass under way when that pass is every block:
         * every block is in its queue (inq), so none rises */
        bool in_full = s->full && s->told_len > 0 && s->told[s->told_head] == s->pass_no;
        if (in_full && (!evaluate || abs_delta)) {
            /* four sums, element i in sum i mod 4, added as (0 + 1) + (2 +
             * 3): the same bits whichever way the flags are written */
            v2f64 s01 = {0, 0}, s23 = {0, 0};
            size_t i = 0;
            int64_t b0 = n ? blocks[0] : 0;
            if (n > 0 && s->told_range[s->told_head] && blocks[n - 1] == b0 + (int64_t)n - 1) {
                /* the blocks b0, b0 + 1, ...: four flags a store */
                for (; i + 4 <= n; i += 4) {
                    v2f64 c01, c23;
                    memcpy(&c01, change + i, sizeof(c01));
                    memcpy(&c23, change + i + 2, sizeof(c23));
                    uint32_t w = flags4(c01, c23);
                    memcpy(moved + b0 + i, &w, sizeof(w));
                    s01 += c01;
                    s23 += c23;
                }
            } else { /* the same loop with the flags scattered (one loop with the
                      * test inside took 5% more of the scheduler's instructions) */
                for (; i + 4 <= n; i += 4) {
                    v2f64 c01, c23;
                    memcpy(&c01, change + i, sizeof(c01));
                    memcpy(&c23, change + i + 2, sizeof(c23));
                    moved[blocks[i]] = change[i] != 0;
                    moved[blocks[i + 1]] = change[i + 1] != 0;
                    moved[blocks[i + 2]] = change[i + 2] != 0;
                    moved[blocks[i + 3]] = change[i + 3] != 0;
                    s01 += c01;
                    s23 += c23;
                }
            }
            double sums[4] = {s01[0], s01[1], s23[0], s23[1]};
            for (; i < n; i++) {
                moved[blocks[i]] = change[i] != 0;
                sums[i % 4] += change[i];
            }
            sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
            finite_all = sum - sum == 0;
        } else if (!evaluate || abs_delta) {
            /* the weight is the change itself while every change is a
             * number (else the loop below runs again, which changes
             * nothing this one did, and says what is wrong) */
            for (size_t i = 0; i < n; i++) {
                int64_t b = blocks[i];
                double c = change[i];
                unsigned char mv = c != 0;
                moved[b] = mv;
                if (mv > inq[b]) { /* rare: a block out of every queue moved */
                    rise[nrise++] = b;
                    inq[b] = 1;
                }
                sum += c;
            }
            /* an inf or NaN change makes the sum one (as may a sum too
             * large, which the loop below then takes the slow way) */
            finite_all = sum - sum == 0;
        }
        if (!finite_all)
            sum = 0; /* of the numbers alone */
        for (size_t i = 0; !finite_all && i < n; i++) {
            int64_t b = blocks[i];
            double c = change[i], w = c;
            bool finite = c - c == 0; /* false for inf and NaN */
            /* abs(delta()) is the change itself, unless it is not a number */
            if (evaluate && (!abs_delta || !finite) &&
                weight_of(s, b, abs_delta ? w : eval_priority(s, b), &w, s->failure,
                          sizeof(s->failure)) != 0) {
                s->nrise = nrise;
                s->failed = PTM_EINVAL;
                return;
            }
            /* moved, and the next pass must see it when its queue lacks
             * it (about half the blocks move: no branch) */
            unsigned char mv = w != 0;
            moved[b] = mv;
            rise[nrise] = b;
            nrise += mv & !inq[b];
            inq[b] |= mv;
            sum += finite ? c : 0;
        }
        s->nrise = nrise;
        if (s->told_len > 0) {
            int64_t pass = s->told[s->told_head];
            s->told_head = (s->told_head + 1) % (MAX_PIPELINE + 1);
            s->told_len--;
            if (s->pass_no - pass < PASS_RING) {
                struct pass_sum *ps = &s->ring[pass % PASS_RING];
                ps->change += sum;
                ps->left--;
            }
            if (pass == s->full_pass)
                s->full_change += sum;
        }
        return;
    }
    if (s->program && !s->reads_params)
        return; /* nothing it reads has moved */
    if (s->program && !s->local) {
        s->dirty = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t b = blocks[i];
        double v = s->abs_delta  ? change[i]
                   : s->program ? eval_priority(s, b)
                                : change[i] + DEFAULT_FLOOR,
               w = 0;
        if (weight_of(s, b, v, &w, s->failure, sizeof(s->failure)) != 0) {
            s->failed = PTM_EINVAL;
            return;
        }
        set_weight(s, b, w);
    }
}

/* ---- checkpoints ---------------------------------------------------------------- */

/* A bool through a byte: on load, anything but 0 and 1 is refused. */
static void ck_bool(struct ptm_ckpt *ck, bool *b, const char *what)
{
    uint8_t v = *b;
    PTM_CK(ck, v);
    if (!ck->load || ck->err)
        return;
    if (v > 1) {
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s is %u, neither 0 nor 1", what, (unsigned)v);
        return;
    }
    *b = v;
}

/* An int, as an index in lo .. hi (ptm_sched_ck_index). */
static void ck_int(struct ptm_ckpt *ck, int *v, int64_t lo, int64_t hi, const char *what)
{
    int64_t x = *v;
    ptm_sched_ck_index(ck, &x, lo, hi, what);
    *v = (int)x;
}

/* n flags of a byte each, 0 or 1 (done() and next_pass() count with
 * them). */
static void ck_flags(struct ptm_ckpt *ck, unsigned char *f, size_t n, const char *what)
{
    PTM_CK_ARRAY(ck, f, n);
    for (size_t i = 0; ck->load && !ck->err && i < n; i++)
        if (f[i] > 1)
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s of block %zu is %u, neither 0 nor 1",
                        what, i + 1, (unsigned)f[i]);
}

/* The weights: the leaves alone. Every inner node is always the sum of
 * its two children as they are (set_weight() and rebuild() compute it
 * from them, never by differences), so rebuild() gives back the very
 * bits of the tree saved. */
static void ck_weights(struct dyn *s, struct ptm_ckpt *ck)
{
    double *leaf = s->tree + s->leaves;
    PTM_CK_ARRAY(ck, leaf, s->B);
    if (!ck->load || ck->err)
        return;
    for (int64_t b = 0; b < s->B; b++)
        if (!(leaf[b] >= 0 && leaf[b] <= WEIGHT_MAX)) {
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's weight of block %lld is %g",
                        (long long)b + 1, leaf[b]);
            return;
        }
    rebuild(s);
}

/* A round computed ahead (pipeline): on load its blocks must be distinct,
 * its parts must cover them, and its order (when the caller wants one)
 * must be a permutation, as next() hands a round out. */
static void ck_round(struct dyn *s, struct ptm_ckpt *ck, struct ptm_sched_round *r)
{
    size_t P = (size_t)s->P, n = r->n;
    ptm_ck_count(ck, &n, s->N, "blocks of a round computed ahead");
    ptm_sched_ck_blocks(ck, r->blocks, n, s->B, "round computed ahead");
    for (size_t i = 0; !ck->load && r->alone && s->want_order && i < n; i++)
        r->order[i] = i; /* not written by assign() */
    PTM_CK_ARRAY(ck, r->order, n);
    PTM_CK_ARRAY(ck, r->part, P + 1);
    PTM_CK_ARRAY(ck, r->load, P);
    PTM_CK(ck, r->candidates);
    PTM_CK(ck, r->conflicts);
    PTM_CK(ck, r->evaluations);
    if (!ck->load || ck->err)
        return;
    r->n = n;
    bool ok = r->part[0] == 0 && r->part[P] == n;
    for (size_t p = 0; p < P; p++)
        ok &= r->part[p] <= r->part[p + 1];
    new_stamp(s);
    for (size_t i = 0; i < n; i++) {
        ok &= s->drawn[r->blocks[i]] != s->stamp;
        s->drawn[r->blocks[i]] = s->stamp;
    }
    new_stamp(s); /* orders are below n <= N <= B: marked in drawn too */
    for (size_t i = 0; s->want_order && i < n; i++) {
        ok &= r->order[i] < n && s->drawn[r->order[i]] != s->stamp;
        if (r->order[i] < n)
            s->drawn[r->order[i]] = s->stamp;
    }
    /* dealt to the first worker alone: as the caller's answer is now (a
     * function of the blocks and the data) */
    if (ok && ptm_sched_alone(s->alone, s->P, r->blocks, n)) {
        ok = r->part[1] == n;
        for (size_t i = 0; s->want_order && i < n; i++)
            ok &= r->order[i] == i;
        r->alone = true;
    } else {
        r->alone = false;
    }
    if (!ok)
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's rounds computed ahead are not rounds");
}

/* The rounds computed ahead, oldest first. */
static void ck_pipeline(struct dyn *s, struct ptm_ckpt *ck)
{
    ptm_ck_size(ck, s->P, "number of workers");
    ck_bool(ck, &s->want_order, "order of the rounds computed ahead");
    ck_int(ck, &s->qhead, 0, s->pipeline - 1, "first round computed ahead");
    ck_int(ck, &s->qlen, 0, s->pipeline, "number of rounds computed ahead");
    for (int i = 0; i < s->qlen && !ck->err; i++)
        ck_round(s, ck, &s->q[(s->qhead + i) % s->pipeline]);
}

/* `keep moved`, active: whether block b is in the current pass (its
 * queue is increasing; a full pass is every block). */
static bool in_pass(const struct dyn *s, int64_t b)
{
    return s->full || (s->inq[b] && sched_in_sorted(s->queue, s->qn, b));
}

/* `keep moved`: the filter over the round told next, in which only the
 * blocks that changed count as kept. Under `active` a block dropped is updated
 * again first thing in a coming round, unless the pass under way has it
 * still to come or in a round made since (a pass begun after that round
 * was made, under `pipeline`), or it waits already. */
static size_t dyn_recheck(void *state, const int64_t *blocks, const unsigned char *moved, size_t n,
                          size_t *keep, int64_t *evals)
{
    struct dyn *s = state;
    size_t nk = sched_conflicts_filter(s->conf, blocks, moved, n, s->kept, evals), m = 0;
    bool same = s->told_len > 0 && s->told[s->told_head] == s->pass_no;
    for (size_t i = 0; i < n; i++) {
        if (m < nk && blocks[i] == s->kept[m]) {
            keep[m++] = i;
            continue;
        }
        int64_t b = blocks[i];
        if (!s->active || s->indefer[b] || (!same && in_pass(s, b)))
            continue;
        s->defer[s->ndefer++] = b;
        s->indefer[b] = 1;
    }
    PTM_ASSERT(m == nk);
    if (nk < n && s->active && s->told_len > 0) /* done() is told fewer blocks */
        s->told_range[s->told_head] = false;
    return nk;
}

/* What next_pass(), compute_active() and done() rely on to stay inside
 * their arrays: the queue is increasing; the queue and the risers are
 * distinct blocks, and inq marks exactly them (every block in a full
 * pass, which has no risers); the candidates left out are distinct and
 * are not among the pass's blocks still to come. */
static bool active_holds(struct dyn *s)
{
    bool ok = true;
    const int64_t *q = s->queue, *rise = s->rise, *defer = s->defer;
    new_stamp(s);
    uint32_t *mark = s->drawn, st = s->stamp;
    if (s->full) {
        /* the first pass by order: the top blocks; else every block */
        bool top = s->by_order && s->pass_no == 1;
        ok = s->nrise == 0 && s->qn == (top ? s->ntop : s->B);
        for (int64_t b = 0; b < s->B; b++)
            ok &= s->inq[b] == 1;
        /* the candidates left out: distinct, among the pass's blocks
         * drawn (a mark of 0 is no stamp's) */
        if (top) {
            for (int64_t i = 0; i < s->qpos; i++)
                mark[s->top[i]] = st;
            for (size_t i = 0; i < s->ndefer; i++) {
                ok &= mark[defer[i]] == st;
                mark[defer[i]] = 0;
            }
            return ok;
        }
        for (size_t i = 0; i < s->ndefer; i++) {
            ok &= defer[i] < s->qpos && mark[defer[i]] != st;
            mark[defer[i]] = st;
        }
        return ok;
    }
    for (int64_t i = 0; i < s->qn; i++) {
        ok &= i == 0 || q[i - 1] < q[i];
        mark[q[i]] = st;
    }
    for (int64_t j = 0; j < s->nrise; j++) {
        ok &= mark[rise[j]] != st;
        mark[rise[j]] = st;
    }
    for (int64_t b = 0; b < s->B; b++)
        ok &= s->inq[b] == (mark[b] == st);
    new_stamp(s);
    st = s->stamp;
    for (int64_t c = s->ci; c < s->nchunk; c++) /* the blocks of the pass not drawn yet */
        for (int64_t i = c == s->ci ? s->co : 0; i < chunk_len(s, s->chunk[c]); i++)
            mark[q[s->chunk[c] * ACTIVE_CHUNK + i]] = st;
    for (size_t i = 0; i < s->ndefer; i++) {
        ok &= mark[defer[i]] != st;
        mark[defer[i]] = st;
    }
    return ok;
}

/* `active`: the pass, the blocks that rose since it began, the candidates
 * left out, the flags, and the changes by pass. */
static void ck_active(struct dyn *s, struct ptm_ckpt *ck)
{
    size_t B = (size_t)s->B;
    ck_bool(ck, &s->full, "full pass");
    ptm_sched_ck_index(ck, &s->qn, 0, s->B, "length of the active pass");
    ptm_sched_ck_index(ck, &s->qpos, 0, s->qn, "place in the active pass");
    if (!s->full) /* a full pass is the blocks themselves: no queue */
        ptm_sched_ck_blocks(ck, s->queue, (size_t)s->qn, s->B, "active pass");
    ptm_sched_ck_index(ck, &s->nrise, 0, s->B, "number of blocks that rose");
    ptm_sched_ck_blocks(ck, s->rise, (size_t)s->nrise, s->B, "blocks that rose");
    ptm_ck_count(ck, &s->ndefer, s->keep_moved ? B : s->N, "number of candidates left out");
    ptm_sched_ck_blocks(ck, s->defer, s->ndefer, s->B, "candidates left out");
    if (ck->load && !ck->err && s->indefer) {
        memset(s->indefer, 0, B);
        for (size_t i = 0; i < s->ndefer; i++)
            s->indefer[s->defer[i]] = 1;
    }
    ck_flags(ck, s->inq, B, "pass flag");
    ck_flags(ck, s->moved, B, "moved flag");
    ck_int(ck, &s->passes, 0, ACTIVE_PASSES, "active passes in a row");
    ptm_sched_ck_index(ck, &s->pass_no, 0, INT64_MAX, "pass number");
    ptm_sched_ck_index(ck, &s->full_pass, 0, s->pass_no, "last full pass");
    for (int i = 0; i < PASS_RING; i++) {
        PTM_CK(ck, s->ring[i].change);
        PTM_CK(ck, s->ring[i].left);
    }
    for (int i = 0; i < MAX_PIPELINE + 1; i++)
        ptm_sched_ck_index(ck, &s->told[i], 0, s->pass_no, "pass of a round not told");
    ck_int(ck, &s->told_head, 0, MAX_PIPELINE, "first round not told");
    ck_int(ck, &s->told_len, 0, MAX_PIPELINE + 1, "number of rounds not told");
    if (ck->load) /* not saved: the general way for the rounds made before */
        memset(s->told_range, 0, sizeof(s->told_range));
    PTM_CK(ck, s->full_change);
    if (ck->load && !ck->err && !s->full) /* the pass's order, and the place in it */
        chunk_order(s);
    if (ck->load && !ck->err && !active_holds(s))
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's active pass does not hold together");
}

/* Everything next() and done() change and later rounds read. Not saved,
 * as set-up makes it alike and no round changes it: the options, the
 * classification of the priority, the costs, the sizes. Not saved either:
 * a round's scratch (cand, cw, kept, keys, owner, cursor, heap, queue2),
 * and drawn[] with its stamp, which marks only within a round (a new
 * stamp begins each, so what a fresh scheduler holds there serves as well).
 * Nor the conflicts' caches (conflict.c): a dependency reads only data,
 * block numbers and `workers`, so a pair's answer is the same whether
 * remembered or evaluated again, and so are the rounds; but a resumed run
 * starts with empty caches, so the evaluations it counts (the trace's
 * "evaluations") can be more than the uninterrupted run counted in the
 * same rounds. The same holds for the engine's graph built round by round
 * (info->pairs), which the conflicts then switch to. */
static void dyn_state(void *state, struct ptm_ckpt *ck)
{
    struct dyn *s = state;
    ptm_ck_tag(ck, "sched dynamic");
    ptm_ck_size(ck, s->B, "number of blocks");
    ptm_ck_size(ck, (int64_t)s->N, "sample");
    ptm_ck_size(ck, s->pipeline, "pipeline");
    ptm_ck_size(ck, s->active, "active passes (1: on)");
    ptm_sched_ck_index(ck, &s->rounds, 0, INT64_MAX, "rounds scheduled");
    ptm_sched_ck_index(ck, &s->updates, 0, INT64_MAX, "blocks scheduled");
    PTM_CK_ARRAY(ck, s->g.s, PTM_ARRAY_LEN(s->g.s));
    ck_weights(s, ck);
    PTM_CK_ARRAY(ck, s->seen, PROG_NGLOBALS);
    ck_bool(ck, &s->dirty, "priorities to evaluate");
    ptm_sched_ck_perm(ck, s->perm, s->B, "permutation of uniform draws");
    /* a failure done() met, which the next next() reports */
    int64_t failed = s->failed;
    PTM_CK(ck, failed);
    if (ck->load && !ck->err && failed != 0 && failed != PTM_EINVAL)
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's failure of the schedule is %lld",
                    (long long)failed);
    if (!ck->err)
        s->failed = (int)failed;
    if (s->failed) {
        PTM_CK_ARRAY(ck, s->failure, sizeof(s->failure));
        s->failure[sizeof(s->failure) - 1] = '\0';
    }
    if (s->pipeline > 0)
        ck_pipeline(s, ck);
    if (s->active)
        ck_active(s, ck);
}

const struct ptm_sched_ops ptm_sched_dynamic = {
    .name = "dynamic",
    .limits = true,
    .create = dyn_create,
    .cap = dyn_cap,
    .next = dyn_next,
    .done = dyn_done,
    .recheck = dyn_recheck,
    .state = dyn_state,
    .destroy = dyn_destroy,
};
