/*
 * lua_host_impl.h - what the files of the Lua host (lua_host.h) share:
 * the host's struct, the layouts and tags of the userdata hooks hold, the
 * encoding of views in light userdata, the helpers of the hot paths, and
 * the functions one file calls in another. Not for use outside
 * runtime/lua/.
 *
 * The files, one job each:
 *   lua_host.c      the host: making and freeing the state, registering
 *                   the engine's objects, the last failure
 *   lhost_call.c    running the hook file: loading it, the hook calls and
 *                   reading what they return
 *   lhost_vector.c  vectors and their methods, the bulk operations
 *   lhost_blocks.c  the block list S
 *   lhost_view.c    light userdata: views of matrices, rows of vectors
 *   lhost_matrix.c  matrix shards, which make the views
 *   lhost_worker.c  the worker object w
 *   lhost_random.c  w:random() and math.random
 *   lhost_state.c   the hook file's own state in checkpoints: the save and
 *                   load hooks and the encoding of their values
 *
 * What a method does at every call or in a loop over elements (host_of,
 * the tests of a light userdata, view_code, the loops over a sparse
 * view's entries, EACH) is static inline here, so that it costs what it
 * did when the host was one file.
 */
#ifndef PTM_LUA_HOST_IMPL_H
#define PTM_LUA_HOST_IMPL_H

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdint.h>

#include "lua_host.h"
#include "lua_sandbox.h"
#include "rng.h"

_Static_assert(sizeof(void *) == 8, "sparse views encode 48 bits in a pointer");
_Static_assert(LUA_EXTRASPACE >= sizeof(void *), "the host lives in the state's extra space");

enum { MSG_MAX = 4096 };

enum obj_kind { OBJ_VECTOR, OBJ_MATRIX };

/* Tags in the first word of our full userdata. */
enum {
    TAG_VECTOR = 0x76746d70,
    TAG_MATRIX = 0x6d746d70,
    TAG_WORKER = 0x77746d70,
    TAG_BLOCKS = 0x62746d70,
    TAG_ITER = 0x69746d70,
    TAG_SET = 0x73746d70,
};

/* X:col(j), X:row(i [, b]); X:cols(S), X:rows(S) (the set over the block
 * list); and W:row(i), a row of a registered vector (dense, VIEW_DENSE). */
enum { VIEW_COL, VIEW_ROW, VIEW_COLS, VIEW_ROWS, VIEW_DENSE };
#define VIEW_MAGIC ((uintptr_t)0xa)
/* The most blocks X:row(i, b) can name (16 bits hold b + 1). */
#define VIEW_MAX_BLOCKS 65534

struct uvec {
    uint32_t tag;
    bool writable;
    bool limited; /* only rows lo .. hi-1 may be used now (a rotation's held block) */
    int slot;     /* a registered vector's place in h->tab (its row views), or -1 */
    double *v;    /* a new vector's: right after this struct, in the userdata */
    int64_t n;
    int64_t rows, cols; /* a registered vector's shape (W:row(i)): n = rows cols; cols is 1
                           but for a registered matrix */
    int64_t lo, hi;     /* when limited: the rows hooks may use */
    int64_t row;        /* a row view's row, 1-based; 0: not a row view */
    const char *name;   /* the registry entry's, "z", "d", or NULL: a new vector */
};

/* The block list S of push, pull and apply: the engine's array during a
 * call, empty between calls. */
struct ublocks {
    uint32_t tag;
    const int64_t *b; /* 0-based */
    int64_t n;
};

/* X:cols(list), X:rows(list) over a list the hook gave (not S): the
 * members, 0-based and checked against the matrix when made, copied into
 * the userdata. */
struct uset {
    uint32_t tag;
    int slot;             /* the matrix */
    int kind;             /* VIEW_COLS or VIEW_ROWS */
    struct ublocks list;  /* list.b points at idx */
    int64_t idx[];
};

struct umat {
    uint32_t tag;
    int slot;
};

struct uworker {
    uint32_t tag;
};

struct hobj {
    char *name; /* owned */
    enum obj_kind kind;
    void *ud; /* the userdata, kept alive by the fields table */
};

struct hmat {
    const char *name;
    struct lhost_matrix m;
    int64_t *blockptr; /* row i's entries in block b start at blockptr[i (nblk + 1) + b]
                          (offsets into the CSR's arrays); made at the first X:row(i, b)
                          and dropped when the matrix or the blocks change; owned */
};

/* Registered vectors with row views (W:row(i)), and the vectors a C
 * function may be handed as row views at once (its arguments). */
enum { MAX_TABLES = 256, MAX_ROW_ARGS = 8 };

struct lhost {
    lua_State *L;
    struct lsandbox sb;
    int id, workers;
    int64_t first, last;
    int64_t round, round_shown;
    int64_t sweep, sweep_shown;
    struct ptm_rng rng, mrng;
    struct hobj *obj;
    size_t nobj, capobj;
    struct hmat mat[LHOST_MAX_MATRICES];
    int nmat;
    struct uvec *tab[MAX_TABLES]; /* registered vectors by slot */
    int ntab;
    struct uvec argrow[MAX_ROW_ARGS]; /* argument i's row view, decoded (lhost_check_vec) */
    const int64_t *blk_lo;            /* block b is units blk_lo[b] .. blk_lo[b+1]-1; borrowed */
    int64_t nblk;
    int ref_fields, ref_worker, ref_job, ref_vecmt, ref_matmt, ref_setmt;
    struct ublocks *blocks; /* S */
    struct uvec *d;         /* apply's changes when every block has one */
    int ref_blocks, ref_d;
    int ref_zvecs; /* the vectors of pull's z, a list that only grows */
    int nzvecs;    /* its length */
    int zshown;    /* how many of them the current call shows */
    int ref_buf;   /* the vector that z and d point into */
    double *buf;   /* its doubles */
    size_t bufcap; /* how many */
    char *chunk; /* the hook file's name; owned */
    enum lhost_failure fail;
    char msg[MSG_MAX];
};

static inline struct lhost *host_of(lua_State *L)
{
    return *(struct lhost **)lua_getextraspace(L);
}

/* Run the statements with i = 0 .. n-1, four at a time. gcc -O2 does not
 * vectorize a loop of unknown length but does vectorize straight-line
 * code: over a round's 256 blocks, mul and soft ran 2.5 and 3.4 times
 * faster this way, gather 1.4 times. */
#define EACH(i, n, ...)                                                                            \
    do {                                                                                           \
        int64_t each_n_ = (n), each_k_ = 0;                                                        \
        for (; each_k_ + 4 <= each_n_; each_k_ += 4) {                                             \
            { int64_t i = each_k_; __VA_ARGS__ }                                                   \
            { int64_t i = each_k_ + 1; __VA_ARGS__ }                                               \
            { int64_t i = each_k_ + 2; __VA_ARGS__ }                                               \
            { int64_t i = each_k_ + 3; __VA_ARGS__ }                                               \
        }                                                                                          \
        for (; each_k_ < each_n_; each_k_++) {                                                     \
            int64_t i = each_k_;                                                                   \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    } while (0)

/* Every light userdata a hook can hold is a view (view_code), whose top
 * four bits are VIEW_MAGIC, which no user-space address has: so one
 * lua_touserdata() tells a view from a full userdata (its address) and
 * from any other value (NULL). A C call through the Lua API costs tens of
 * instructions, and a loop over ratings makes a few a rating. */
static inline bool is_view_ptr(const void *p)
{
    return (uintptr_t)p >> 60 == VIEW_MAGIC;
}

static inline bool is_row_code(const void *p)
{
    return is_view_ptr(p) && ((uintptr_t)p >> 48 & 0xf) == VIEW_DENSE;
}

/* A decoded view: entries idx[k], val[k] for k < len, of a vector of
 * length dim (the shard's rows for a column, the columns for a row). */
struct view {
    const int32_t *idx;
    const double *val;
    int64_t len, dim;
    const struct hmat *m;
    int kind;
    int64_t index; /* 0-based */
    int64_t block; /* a row's entries in this block's columns only; -1: all */
};

/* A view's pointer bits: the magic (4 bits), the slot (8: a matrix's in
 * h->mat, or a vector's in h->tab), the kind (4), block + 1 (16; 0: no
 * block) and the index (32). */
static inline void *view_code(int slot, int kind, int64_t block, int64_t index)
{
    return (void *)(VIEW_MAGIC << 60 | (uintptr_t)slot << 52 | (uintptr_t)kind << 48 |
                    (uintptr_t)(block + 1) << 32 | (uintptr_t)(uint32_t)index);
}

/* How many columns (rows) m has on this worker; -1 when it has no
 * column (row) views. */
static inline int64_t view_count(const struct hmat *m, int kind)
{
    if (kind == VIEW_COL)
        return m->m.csc ? m->m.csc->ncols : -1;
    return m->m.csr ? m->m.csr->nrows : -1;
}

/* The loops over a column's or row's n entries (indices ix, values a). */

static inline double sparse_dot(const int32_t *restrict ix, const double *restrict a, int64_t n,
                                const double *restrict v)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += a[k] * v[ix[k]];
        s1 += a[k + 1] * v[ix[k + 1]];
        s2 += a[k + 2] * v[ix[k + 2]];
        s3 += a[k + 3] * v[ix[k + 3]];
    }
    for (; k < n; k++)
        s0 += a[k] * v[ix[k]];
    return (s0 + s1) + (s2 + s3);
}

static inline void sparse_axpy(const int32_t *restrict ix, const double *restrict a, int64_t n,
                               double c, double *restrict v)
{
    for (int64_t k = 0; k < n; k++)
        v[ix[k]] += c * a[k];
}

/* ---- lua_host.c ---------------------------------------------------------------------------- */

/* Set h's failure: kind and the message; returns PTM_EINVAL. */
__attribute__((format(printf, 3, 4))) int lhost_fail(struct lhost *h, enum lhost_failure kind,
                                                     const char *fmt, ...);
/* A metatable that hides itself, named name, on the stack. */
void lhost_new_metatable(lua_State *L, const char *name);

/* The parts of a new state's set-up, run protected (an allocation may
 * fail) by lua_host.c in this order: each kind of object's metatable, the
 * worker object, and the host's own S, d and z. */
void lhost_open_random(lua_State *L);
void lhost_open_vectors(lua_State *L, struct lhost *h);
void lhost_open_matrices(lua_State *L, struct lhost *h);
void lhost_open_views(lua_State *L, struct lhost *h);
void lhost_open_worker(lua_State *L, struct lhost *h);
void lhost_open_blocks(lua_State *L, struct lhost *h);
void lhost_open_calls(lua_State *L, struct lhost *h);

/* ---- lhost_call.c -------------------------------------------------------------------------- */

/* A call starts: no failure, the sandbox's budget and clock afresh. */
void lhost_begin(struct lhost *h);
/* The status st of a protected call as h's failure ("VERB 'NAME'" in
 * messages), the error object, if any, on top; 0 when it succeeded. */
int lhost_status(struct lhost *h, int st, const char *verb, const char *name);
/* save(w, job) (ref LUA_NOREF), or load(w, t, job) with t the registry's
 * ref. On success the hook's one result is on top of the stack above
 * base; the caller ends with lhost_finish(h, base), success or not. */
int lhost_call_state(struct lhost *h, const char *fn, int ref, int base);
void lhost_finish(struct lhost *h, int base);
/* The value at idx as messages name it: "nil", "a function", "a vector". */
const char *lhost_what_is(lua_State *L, int idx);

/* ---- lhost_random.c ------------------------------------------------------------------------ */

/* Seed g from (a, b) as Lua's math.randomseed(a, b). */
void lhost_seed_rng(struct ptm_rng *g, uint64_t a, uint64_t b);
/* w:random(...), a field of the worker object. */
int lhost_w_random(lua_State *L);

/* ---- lhost_vector.c ------------------------------------------------------------------------ */

/* A vector as messages name it: 'beta', row 3 of 'W', or "a vector" for
 * one a hook made. Only for errors: it may push a string. */
const char *lhost_vlabel(lua_State *L, const struct uvec *v);
/* The error of a vector limited to the rows of the block held used as a
 * whole (row -1), or of a row of it outside them. */
int lhost_held_error(lua_State *L, const struct uvec *v, int64_t row);
/* The row view (W:row(i)) at argument i as a vector; NULL when it is not
 * one. */
struct uvec *lhost_row_view(lua_State *L, int i);
/* Argument i as a vector: a vector, or a row view of one. */
struct uvec *lhost_check_vec(lua_State *L, int i);
/* A new writable vector of n doubles (not initialized), pushed. */
struct uvec *lhost_new_vector(lua_State *L, int64_t n);
/* The 0-based position of index argument i of v (v[i]), or an error
 * that names the index and the range. */
int64_t lhost_vec_pos(lua_State *L, const struct uvec *v, int i);
/* v[k] = x with k and x at arguments 2 and 3, or an error (read-only, not a
 * number, out of range). */
int lhost_vec_store(lua_State *L, struct uvec *v);
/* The vector methods that the light userdata's dot, axpy, nnz, norm2 and
 * sum (lhost_view.c) hand a row view to. */
int lhost_v_dot(lua_State *L);
int lhost_v_axpy(lua_State *L);
int lhost_v_nnz(lua_State *L);
int lhost_v_norm2(lua_State *L);
int lhost_v_sum(lua_State *L);
/* The other vector methods a row view answers, as they are: the light
 * userdata's methods are the sparse views' and these. */
enum { LHOST_ROW_METHODS = 15 };
extern const luaL_Reg lhost_row_methods[]; /* LHOST_ROW_METHODS, then {NULL, NULL} */

/* ---- lhost_blocks.c ------------------------------------------------------------------------ */

const struct ublocks *lhost_check_blocks(lua_State *L, int i);
/* The first block of s at or above limit, or -1 when there is none. */
int64_t lhost_block_beyond(const struct ublocks *s, int64_t limit);
int lhost_block_range_error(lua_State *L, const struct uvec *v, int64_t block);
/* Every block of s is an index of v. */
void lhost_check_indexes(lua_State *L, const struct ublocks *s, const struct uvec *v);
/* A vector argument with one value per block of s. */
struct uvec *lhost_check_per_block(lua_State *L, int i, const struct ublocks *s);
/* The block list S, or a list of indices (a Lua sequence of integers, or a
 * vector of integer values) at argument i as an index list of its own, a
 * new struct uset for matrix slot `slot` (kind VIEW_COLS or VIEW_ROWS)
 * pushed at the top; every index checked against count (1..count), what
 * naming the members ("column", "row") and m the matrix in messages.
 * Returns NULL when argument i is S (nothing pushed). */
struct uset *lhost_index_list(lua_State *L, int i, int slot, int kind, int64_t count,
                              const char *m);

/* ---- lhost_view.c -------------------------------------------------------------------------- */

/* m's block offsets (struct hmat), made when missing. */
const int64_t *lhost_block_ptr(lua_State *L, struct hmat *m);
/* Decode the single view at argument i; false when it is not one. */
bool lhost_view_decode(lua_State *L, int i, struct view *out);
/* A vector argument that must match the view's size. */
struct uvec *lhost_check_partner(lua_State *L, int i, const struct view *x);

/* ---- lhost_worker.c ------------------------------------------------------------------------ */

/* name is a field of the worker object (w.id, w:random, ...), which no
 * registered object may take. */
bool lhost_is_worker_field(const char *name);

#endif
