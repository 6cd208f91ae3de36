/*
 * lua_host.c - a worker's Lua state: the objects hooks see (vectors,
 * matrix shards and their sparse views, the worker), the hook calls of
 * spec/runtime.md, and the conversion of what hooks return.
 *
 * DESIGN
 *
 * Objects. Every full userdata in a host's state is one of ours (hooks
 * cannot make userdata), so a type check is a tag compare in the first
 * word, not luaL_checkudata's registry lookup. The host is found through
 * the state's extra space. Vectors and matrices are full userdata made
 * once, at registration; re-registering a name updates the same userdata
 * in place, so a view a hook kept follows the engine's array.
 *
 * Sparse views are light userdata: X:col(j) encodes (matrix slot, row or
 * column, index) in the pointer bits and allocates nothing. All light
 * userdata of a state share one metatable, which gives them the view
 * methods; a method decodes the view and looks the arrays up in the
 * host at every use, so a kept view is never dangling. Light userdata
 * made this way are never dereferenced. A full userdata per view would
 * cost an allocation and garbage per column: X:col(j):dot() took 93-112 ns
 * that way against 57-65 ns with light userdata (plain Lua 5.4, no hook,
 * this machine). One view object reused per state would be as cheap but
 * would alias: `local a, b = X:col(1), X:col(2)` would be one view.
 *
 * Rows of a registered matrix (W:row(i)) are light userdata too, kind
 * VIEW_DENSE, decoded into a struct uvec in the host (one place per
 * argument position) so that every vector operation takes them. All
 * light userdata a hook can hold are views with VIEW_MAGIC in their top
 * bits, which no user-space address has: one lua_touserdata() tells a
 * view from a full userdata and from anything else. Their methods are a
 * table (__index), not a function, so a method call on a view is no C
 * call more; the price is that x[k] is refused on a row view (an element
 * is W[(i - 1) * cols + k]).
 *
 * Loops over ratings (examples/mf/mf.lua: for each rating of the block,
 * the next rating with its row of H, a dot, a mix) make a few C calls a
 * rating, and there the cost is the calls, not their loops: measured with
 * callgrind at rank 20 (one worker, the rating's loop body), about 3,100
 * instructions a rating against the kernel's 400: some 1,100 in our
 * functions and the Lua API calls they make (so each does as few as it
 * can: one lua_touserdata per vector argument), 1,200 in the interpreter
 * and 800 in the count hook of the sandbox's instruction budget, which
 * puts the interpreter in its slow path at every instruction. So a loop
 * over ratings in Lua runs at several times the kernel whatever it calls,
 * and less so as the work of a rating grows (bench/RESULTS.md).
 *
 * The worker object is a userdata whose metatable's __index is a hidden
 * table of fields (w.X is one table lookup, no C call) and whose
 * __newindex refuses writes, so a hook cannot break what other calls see.
 *
 * Bulk operations. A hook does a handful of C calls per round and C loops
 * over the blocks and their non-zeros: the block list S is a userdata over
 * the engine's array, X:cols(S) is a light userdata like a single view
 * (kind "set", no index), and a result over the blocks is a new vector. A
 * new vector is one full userdata with its doubles after its header, so
 * the state's memory cap counts it, it needs no finalizer, and it is freed
 * with the garbage. Written per column, a Lasso round cost 1.2 us a
 * column in Lua against 34 ns in C (bench/lua_bench.c); in bulk
 * (examples/lasso/lasso.lua) what Lua adds is a few microseconds a round
 * of 256 columns: the three calls, three new vectors (about 0.25 us each,
 * mostly writing memory that is no longer in the cache), a dozen passes
 * over the 256 values, and copying between the engine's arrays, block
 * after block, and vectors. The loops over a set's columns win some of it
 * back by prefetching the columns ahead, which a loop that is handed one
 * column at a time cannot do.
 *
 * Calls. Every Lua API call that may allocate runs under lua_pcall: a
 * protected `prepare` pushes the hook function and its arguments, then
 * the hook is called directly with a message handler that appends a
 * traceback (no frame of ours in it), then the result is read with raw
 * accesses only, which neither allocate nor run hook code (a returned
 * table's metatable is ignored). Wrong results are reported by the host,
 * not raised in Lua, so their messages carry no traceback. A call that
 * the sandbox stopped fails even if the hook swallowed the stop.
 *
 * The host owns one block list, and the vectors of pull's z and apply's
 * d, made once and re-pointed at every call, then emptied when the call
 * returns, so that one a hook kept never reads an array the engine has
 * freed. z and d point into one buffer the state holds: the host's copies
 * (the engine's sums are block after block, a vector's values must be
 * adjacent), which hooks may overwrite; it grows when a call needs more
 * and never shrinks. When blocks have several values each, apply's d is a
 * list of lists, a table per block, as results keyed by block are: bulk
 * operations are for blocks of one value. job is the same table every
 * time.
 */
#define _POSIX_C_SOURCE 200809L
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "vec4.h"
#include "lua_sandbox.h"
#include "ptm.h"
#include "rng.h"

_Static_assert(sizeof(void *) == 8, "sparse views encode 48 bits in a pointer");
_Static_assert(LUA_EXTRASPACE >= sizeof(void *), "the host lives in the state's extra space");

enum { MSG_MAX = 4096 };

enum obj_kind { OBJ_VECTOR, OBJ_MATRIX };
static const char *const kind_names[] = {"vector", "matrix"};

/* Tags in the first word of our full userdata. */
enum {
    TAG_VECTOR = 0x76746d70,
    TAG_MATRIX = 0x6d746d70,
    TAG_WORKER = 0x77746d70,
    TAG_BLOCKS = 0x62746d70,
    TAG_ITER = 0x69746d70,
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
    struct uvec argrow[MAX_ROW_ARGS]; /* argument i's row view, decoded (check_vec) */
    const int64_t *blk_lo;            /* block b is units blk_lo[b] .. blk_lo[b+1]-1; borrowed */
    int64_t nblk;
    int ref_fields, ref_worker, ref_job, ref_vecmt, ref_matmt;
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

static struct lhost *host_of(lua_State *L)
{
    return *(struct lhost **)lua_getextraspace(L);
}

__attribute__((format(printf, 3, 4))) static int fail(struct lhost *h, enum lhost_failure kind,
                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->msg, sizeof(h->msg), fmt, ap);
    va_end(ap);
    h->fail = kind;
    return PTM_EINVAL;
}

/* ---- random numbers --------------------------------------------------------- */

/* The generators of w:random() and math.random: xoshiro256** (rng.h), as
 * Lua's own math.random, seeded from (a, b) as Lua's randomseed(a, b). */
static void seed_rng(struct ptm_rng *g, uint64_t a, uint64_t b)
{
    ptm_rng_seed(g, a ^ ptm_rotl64(b * 0xd1b54a32d192ed03u, 32));
}

/* A draw in [0, n], unbiased (Lua's project()). */
static uint64_t project(uint64_t ran, uint64_t n, struct ptm_rng *g)
{
    if ((n & (n + 1)) == 0)
        return ran & n;
    uint64_t lim = n;
    lim |= lim >> 1;
    lim |= lim >> 2;
    lim |= lim >> 4;
    lim |= lim >> 8;
    lim |= lim >> 16;
    lim |= lim >> 32;
    while ((ran &= lim) > n)
        ran = ptm_rng_next(g);
    return ran;
}

/* math.random's interface over generator s, arguments from index first. */
static int random_from(lua_State *L, struct ptm_rng *g, int first)
{
    int nargs = lua_gettop(L) - first + 1;
    uint64_t rv = ptm_rng_next(g);
    lua_Integer low, up;
    switch (nargs) {
    case 0:
        lua_pushnumber(L, (double)(rv >> 11) * 0x1.0p-53);
        return 1;
    case 1:
        low = 1;
        up = luaL_checkinteger(L, first);
        if (up == 0) { /* a whole random integer, as in Lua */
            lua_pushinteger(L, (lua_Integer)rv);
            return 1;
        }
        break;
    case 2:
        low = luaL_checkinteger(L, first);
        up = luaL_checkinteger(L, first + 1);
        break;
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    luaL_argcheck(L, low <= up, first + nargs - 1, "interval is empty");
    uint64_t r = project(rv, (uint64_t)up - (uint64_t)low, g);
    lua_pushinteger(L, (lua_Integer)(r + (uint64_t)low));
    return 1;
}

static int w_random(lua_State *L)
{
    int first = 1;
    if (lua_type(L, 1) == LUA_TUSERDATA &&
        ((struct uworker *)lua_touserdata(L, 1))->tag == TAG_WORKER)
        first = 2; /* w:random(...) */
    return random_from(L, &host_of(L)->rng, first);
}

static int math_random(lua_State *L)
{
    return random_from(L, &host_of(L)->mrng, 1);
}

static int math_randomseed(lua_State *L)
{
    if (lua_isnone(L, 1))
        return luaL_error(L, "math.randomseed needs a seed in ptm hooks (runs must be "
                             "repeatable)");
    lua_Integer a = luaL_checkinteger(L, 1), b = luaL_optinteger(L, 2, 0);
    seed_rng(&host_of(L)->mrng, (uint64_t)a, (uint64_t)b);
    return 0;
}

/* ---- vectors ---------------------------------------------------------------- */

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

/* Two doubles, for loops gcc -O2 leaves scalar (a length only known at
 * run time): each lane computes what the scalar loop would, so the bits
 * are the same. */
typedef double v2d __attribute__((vector_size(16)));

static inline v2d load2(const double *p)
{
    v2d v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline void store2(double *p, v2d v)
{
    memcpy(p, &v, sizeof(v));
}


/* A vector as messages name it: 'beta', row 3 of 'W', or "a vector" for
 * one a hook made. Only for errors: it may push a string. */
static const char *vlabel(lua_State *L, const struct uvec *v)
{
    if (v->row)
        return lua_pushfstring(L, "row %I of '%s'", (lua_Integer)v->row, v->name);
    return v->name ? lua_pushfstring(L, "'%s'", v->name) : "a vector";
}

/* A vector limited to the rows of the block held (struct uvec) used as a
 * whole, or a row of it outside them (row >= 0). */
static int held_error(lua_State *L, const struct uvec *v, int64_t row)
{
    if (row >= 0)
        return luaL_error(L,
                          "row %I of '%s' belongs to another worker in this round (this worker "
                          "holds rows %I..%I)",
                          (lua_Integer)row + 1, v->name, (lua_Integer)v->lo + 1,
                          (lua_Integer)v->hi);
    return luaL_error(L,
                      "'%s' is shared with other workers in this round: use the rows of the block "
                      "this worker holds (%I..%I), %s:row(i)",
                      v->name, (lua_Integer)v->lo + 1, (lua_Integer)v->hi, v->name);
}

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

/* The row view with code p (is_row_code) at argument i as a vector,
 * decoded into the host's place for argument i. */
static struct uvec *row_decode(lua_State *L, int i, const void *p)
{
    uintptr_t code = (uintptr_t)p;
    struct lhost *h = host_of(L);
    int slot = (int)(code >> 52 & 0xff);
    int64_t index = (int64_t)(code & 0xffffffffu);
    if (slot >= h->ntab)
        luaL_typeerror(L, i, "vector");
    const struct uvec *t = h->tab[slot];
    if (index >= t->rows)
        luaL_error(L, "row %I of '%s' is gone (the engine changed the vector)",
                   (lua_Integer)index + 1, t->name);
    if (t->limited && (index < t->lo || index >= t->hi))
        held_error(L, t, index);
    PTM_ASSERT(i >= 1 && i <= MAX_ROW_ARGS);
    struct uvec *u = &h->argrow[i - 1];
    u->tag = TAG_VECTOR;
    u->writable = t->writable;
    u->limited = false;
    u->slot = -1;
    u->v = t->v + index * t->cols;
    u->n = t->cols;
    u->rows = t->cols;
    u->cols = 1;
    u->row = index + 1;
    u->name = t->name;
    return u;
}

/* The row view (W:row(i)) at argument i as a vector; NULL when it is not
 * one. */
static struct uvec *row_view(lua_State *L, int i)
{
    void *p = lua_touserdata(L, i);
    return is_row_code(p) ? row_decode(L, i, p) : NULL;
}

/* Argument i as a vector: a vector, or a row view of one. */
static struct uvec *check_vec(lua_State *L, int i)
{
    void *p = lua_touserdata(L, i);
    if (is_row_code(p))
        return row_decode(L, i, p);
    if (p && !is_view_ptr(p) && lua_type(L, i) == LUA_TUSERDATA) {
        struct uvec *v = p;
        if (v->tag == TAG_VECTOR) {
            if (v->limited)
                held_error(L, v, -1);
            return v;
        }
    }
    luaL_typeerror(L, i, "vector");
    return NULL;
}

static struct uvec *check_writable(lua_State *L, int i)
{
    struct uvec *v = check_vec(L, i);
    if (!v->writable)
        luaL_error(L, "%s is read-only", vlabel(L, v));
    return v;
}

/* A new writable vector of n doubles (not initialized), pushed. */
static struct uvec *new_vector(lua_State *L, int64_t n)
{
    if (n > (int64_t)((SIZE_MAX / 2 - sizeof(struct uvec)) / sizeof(double)))
        luaL_error(L, "a vector of %I elements is too large", (lua_Integer)n);
    struct uvec *u = lua_newuserdatauv(L, sizeof(*u) + (size_t)n * sizeof(double), 0);
    *u = (struct uvec){
        .tag = TAG_VECTOR, .writable = true, .slot = -1, .v = (double *)(u + 1), .n = n, .cols = 1};
    lua_rawgeti(L, LUA_REGISTRYINDEX, host_of(L)->ref_vecmt);
    lua_setmetatable(L, -2);
    return u;
}

/* The 0-based position of index argument i of v, or an error. */
static int64_t vec_pos(lua_State *L, const struct uvec *v, int i)
{
    int isint;
    lua_Integer k = lua_tointegerx(L, i, &isint);
    if (!isint)
        luaL_error(L, "index %f of %s is not an integer", lua_tonumber(L, i), vlabel(L, v));
    if (k < 1 || k > v->n) {
        if (v->n == 0)
            luaL_error(L, "index %I out of range for %s (it is empty)", k, vlabel(L, v));
        luaL_error(L, "index %I out of range for %s (1..%I)", k, vlabel(L, v), (lua_Integer)v->n);
    }
    if (v->limited && ((k - 1) / v->cols < v->lo || (k - 1) / v->cols >= v->hi))
        held_error(L, v, (k - 1) / v->cols);
    return k - 1;
}

/* __index: v[i], or a method (upvalue 1: the methods). */
static int vec_index(lua_State *L)
{
    struct uvec *v = lua_touserdata(L, 1);
    int t = lua_type(L, 2);
    if (t == LUA_TNUMBER) {
        lua_pushnumber(L, v->v[vec_pos(L, v, 2)]);
        return 1;
    }
    if (t != LUA_TSTRING)
        return luaL_error(L, "%s indexed with %s (expected a number)", vlabel(L, v),
                          luaL_typename(L, 2));
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

/* v[k] = x, k and x at 2 and 3. */
static int vec_store(lua_State *L, struct uvec *v)
{
    if (!v->writable)
        return luaL_error(L, "%s is read-only", vlabel(L, v));
    if (lua_type(L, 2) != LUA_TNUMBER)
        return luaL_error(L, "%s indexed with %s (expected a number)", vlabel(L, v),
                          luaL_typename(L, 2));
    int64_t k = vec_pos(L, v, 2);
    if (lua_type(L, 3) != LUA_TNUMBER)
        return luaL_error(L, "cannot store %s in %s (numbers only)", luaL_typename(L, 3),
                          vlabel(L, v));
    v->v[k] = lua_tonumber(L, 3);
    return 0;
}

static int vec_newindex(lua_State *L)
{
    return vec_store(L, lua_touserdata(L, 1));
}

static int vec_len(lua_State *L)
{
    lua_pushinteger(L, ((struct uvec *)lua_touserdata(L, 1))->n);
    return 1;
}

static int vec_tostring(lua_State *L)
{
    struct uvec *v = lua_touserdata(L, 1);
    if (v->name)
        lua_pushfstring(L, "vector '%s' (%I elements)", v->name, (lua_Integer)v->n);
    else
        lua_pushfstring(L, "vector (%I elements)", (lua_Integer)v->n);
    return 1;
}

/* ---- the block list ------------------------------------------------------------ */

static const struct ublocks *check_blocks(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TUSERDATA) {
        struct ublocks *s = lua_touserdata(L, i);
        if (s->tag == TAG_BLOCKS)
            return s;
    }
    luaL_typeerror(L, i, "block list");
    return NULL;
}

/* S[k]: the k-th block, 1-based, or nil past the end (as a list, so that
 * ipairs stops). */
static int blocks_index(lua_State *L)
{
    const struct ublocks *s = lua_touserdata(L, 1);
    if (lua_type(L, 2) != LUA_TNUMBER)
        return luaL_error(L, "the block list indexed with %s (expected a number)",
                          luaL_typename(L, 2));
    int isint;
    lua_Integer k = lua_tointegerx(L, 2, &isint);
    if (isint && k >= 1 && k <= s->n)
        lua_pushinteger(L, s->b[k - 1] + 1);
    else
        lua_pushnil(L);
    return 1;
}

static int blocks_newindex(lua_State *L)
{
    return luaL_error(L, "the block list is read-only");
}

static int blocks_len(lua_State *L)
{
    lua_pushinteger(L, ((struct ublocks *)lua_touserdata(L, 1))->n);
    return 1;
}

static int blocks_tostring(lua_State *L)
{
    lua_pushfstring(L, "block list (%I blocks)",
                    (lua_Integer)((struct ublocks *)lua_touserdata(L, 1))->n);
    return 1;
}

/* The first block of s at or above limit, or -1 when there is none. */
static int64_t block_beyond(const struct ublocks *s, int64_t limit)
{
    for (int64_t k = 0; k < s->n; k++)
        if (s->b[k] >= limit)
            return s->b[k];
    return -1;
}

static int block_range_error(lua_State *L, const struct uvec *v, int64_t block)
{
    if (v->n == 0)
        return luaL_error(L, "block %I out of range for %s (it is empty)", (lua_Integer)block + 1,
                          vlabel(L, v));
    return luaL_error(L, "block %I out of range for %s (1..%I)", (lua_Integer)block + 1,
                      vlabel(L, v), (lua_Integer)v->n);
}

/* Every block of s is an index of v. */
static void check_indexes(lua_State *L, const struct ublocks *s, const struct uvec *v)
{
    int64_t b = block_beyond(s, v->n);
    if (b >= 0)
        block_range_error(L, v, b);
}

/* A vector argument with one value per block of s. */
static struct uvec *check_per_block(lua_State *L, int i, const struct ublocks *s)
{
    struct uvec *u = check_vec(L, i);
    if (u->n != s->n)
        luaL_error(L, "size mismatch: the block list has %I blocks, %s has %I elements",
                   (lua_Integer)s->n, vlabel(L, u), (lua_Integer)u->n);
    return u;
}

/* ---- sparse views ------------------------------------------------------------- */

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

/* A decoded set view: member k is column (row) s->b[k] of m, which has
 * count of them, with entries idx[ptr[j] .. ptr[j + 1]) and val[...] for
 * member j (the CSC's or the CSR's arrays); a partner vector has dim
 * elements. */
struct vset {
    const struct hmat *m;
    int kind; /* of the members: VIEW_COL or VIEW_ROW */
    const struct ublocks *s;
    const int64_t *ptr;
    const int32_t *idx;
    const double *val;
    int64_t count, dim;
};

/* A view's pointer bits: the magic (4 bits), the slot (8: a matrix's in
 * h->mat, or a vector's in h->tab), the kind (4), block + 1 (16; 0: no
 * block) and the index (32). */
static void *view_code(int slot, int kind, int64_t block, int64_t index)
{
    return (void *)(VIEW_MAGIC << 60 | (uintptr_t)slot << 52 | (uintptr_t)kind << 48 |
                    (uintptr_t)(block + 1) << 32 | (uintptr_t)(uint32_t)index);
}

/* The kind of the light userdata at argument i, with its slot, block and
 * index; -1 when it is not a view. */
static int view_parse(lua_State *L, int i, int *slot, int64_t *block, int64_t *index)
{
    void *p = lua_touserdata(L, i);
    if (!is_view_ptr(p))
        return -1;
    uintptr_t code = (uintptr_t)p;
    struct lhost *h = host_of(L);
    int s = (int)(code >> 52 & 0xff), kind = (int)(code >> 48 & 0xf);
    if (kind > VIEW_DENSE || s >= (kind == VIEW_DENSE ? h->ntab : h->nmat))
        return -1;
    *slot = s;
    *block = (int64_t)(code >> 32 & 0xffff) - 1;
    *index = (int64_t)(code & 0xffffffffu);
    return kind;
}

/* The kind of the sparse view at argument i (and its matrix and index),
 * or -1 when it is not a sparse view. */
static int view_kind(lua_State *L, int i, const struct hmat **m, int64_t *index)
{
    int slot;
    int64_t block;
    int kind = view_parse(L, i, &slot, &block, index);
    if (kind < 0 || kind == VIEW_DENSE)
        return -1;
    *m = &host_of(L)->mat[slot];
    return kind;
}

static bool is_row_view(lua_State *L, int i)
{
    return is_row_code(lua_touserdata(L, i));
}

/* How many columns (rows) m has on this worker; -1 when it has no
 * column (row) views. */
static int64_t view_count(const struct hmat *m, int kind)
{
    if (kind == VIEW_COL)
        return m->m.csc ? m->m.csc->ncols : -1;
    return m->m.csr ? m->m.csr->nrows : -1;
}

/* m's block offsets (struct hmat), made when missing: every row's entries
 * split at the blocks' first columns, in one pass over the row. */
static const int64_t *block_ptr(lua_State *L, struct hmat *m)
{
    if (m->blockptr)
        return m->blockptr;
    struct lhost *h = host_of(L);
    const struct ptm_csr *r = m->m.csr;
    int64_t nb = h->nblk;
    if ((uint64_t)r->nrows + 1 > SIZE_MAX / sizeof(int64_t) / (uint64_t)(nb + 1))
        luaL_error(L, "not enough memory for the blocks of '%s'", m->name);
    int64_t *bp = ptm_malloc(((size_t)r->nrows * (size_t)(nb + 1) + 1) * sizeof(int64_t));
    if (!bp)
        luaL_error(L, "not enough memory for the blocks of '%s'", m->name);
    for (int64_t i = 0; i < r->nrows; i++) {
        int64_t p = r->rowptr[i], end = r->rowptr[i + 1];
        int64_t *row = bp + i * (nb + 1);
        for (int64_t b = 0; b < nb; b++) {
            while (p < end && r->colind[p] < h->blk_lo[b])
                p++;
            row[b] = p;
        }
        row[nb] = end;
    }
    m->blockptr = bp;
    return bp;
}

/* Decode the single view at argument i; false when it is not one. */
static bool view_decode(lua_State *L, int i, struct view *out)
{
    int slot;
    int64_t index, block;
    int kind = view_parse(L, i, &slot, &block, &index);
    if (kind != VIEW_COL && kind != VIEW_ROW)
        return false;
    struct lhost *h = host_of(L);
    struct hmat *m = &h->mat[slot];
    if (index >= view_count(m, kind))
        luaL_error(L, "%s %I of '%s' is gone (the engine changed the matrix)",
                   kind == VIEW_COL ? "column" : "row", (lua_Integer)index + 1, m->name);
    out->m = m;
    out->kind = kind;
    out->index = index;
    out->block = block;
    if (kind == VIEW_COL) {
        const struct ptm_csc *c = m->m.csc;
        out->idx = c->rowind + c->colptr[index];
        out->val = c->val + c->colptr[index];
        out->len = c->colptr[index + 1] - c->colptr[index];
        out->dim = c->nrows;
        return true;
    }
    const struct ptm_csr *r = m->m.csr;
    int64_t lo = r->rowptr[index], hi = r->rowptr[index + 1];
    if (block >= 0) {
        if (block >= h->nblk || m->m.cols != h->blk_lo[h->nblk])
            luaL_error(L, "row %I of '%s' in block %I is gone (the engine changed the blocks)",
                       (lua_Integer)index + 1, m->name, (lua_Integer)block + 1);
        const int64_t *bp = block_ptr(L, m) + index * (h->nblk + 1) + block;
        lo = bp[0];
        hi = bp[1];
    }
    out->idx = r->colind + lo;
    out->val = r->val + lo;
    out->len = hi - lo;
    out->dim = r->ncols;
    return true;
}

/* Decode the set view at argument i, on the matrix as it is now; false
 * when it is not one. Its blocks are checked by the operations: those
 * that make a new vector check each as they go, so that the first pass
 * over the list is also the work (it is often not in the cache). */
static bool set_decode(lua_State *L, int i, struct vset *out)
{
    const struct hmat *m;
    int64_t index;
    int kind = view_kind(L, i, &m, &index);
    if (kind != VIEW_COLS && kind != VIEW_ROWS)
        return false;
    const struct ublocks *s = host_of(L)->blocks;
    if (kind == VIEW_COLS && m->m.csc) {
        const struct ptm_csc *c = m->m.csc;
        *out = (struct vset){m, VIEW_COL, s, c->colptr, c->rowind, c->val, c->ncols, c->nrows};
    } else if (kind == VIEW_ROWS && m->m.csr) {
        const struct ptm_csr *r = m->m.csr;
        *out = (struct vset){m, VIEW_ROW, s, r->rowptr, r->colind, r->val, r->nrows, r->ncols};
    } else {
        luaL_error(L, "the %s of '%s' are gone (the engine changed the matrix)",
                   kind == VIEW_COLS ? "columns" : "rows", m->name);
    }
    return true;
}

/* Ask for the first and last entries of member k + PREFETCH of set x (a column of
 * 20 non-zeros is two or three cache lines of each array): a set's
 * members lie anywhere in the matrix, and a loop that waits for each in
 * turn spends much of its time waiting. A macro, because gcc takes a
 * function that only prefetches for one without effect and drops the
 * calls. */
enum { PREFETCH = 8, PREFETCH_PTR = 16 }; /* and the member's bounds further ahead */
#define PREFETCH_MEMBER(x, k)                                                                      \
    do {                                                                                           \
        if ((k) + PREFETCH_PTR < (x)->s->n && (x)->s->b[(k) + PREFETCH_PTR] < (x)->count)        \
            __builtin_prefetch((x)->ptr + (x)->s->b[(k) + PREFETCH_PTR]);                         \
        if ((k) + PREFETCH < (x)->s->n && (x)->s->b[(k) + PREFETCH] < (x)->count) {              \
            int64_t j_ = (x)->s->b[(k) + PREFETCH], lo_ = (x)->ptr[j_], hi_ = (x)->ptr[j_ + 1];  \
            if (hi_ > lo_) { /* its first and last entries */                                      \
                __builtin_prefetch((x)->idx + lo_);                                                \
                __builtin_prefetch((x)->val + lo_);                                                \
                __builtin_prefetch((x)->idx + hi_ - 1);                                            \
                __builtin_prefetch((x)->val + hi_ - 1);                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static int set_range_error(lua_State *L, const struct vset *x, int64_t block)
{
    bool cols = x->kind == VIEW_COL;
    return luaL_error(L, "block %I out of range for the %s of '%s' (1..%I%s)",
                      (lua_Integer)block + 1, cols ? "columns" : "rows", x->m->name,
                      (lua_Integer)x->count, cols ? "" : " on this worker");
}

static void check_view(lua_State *L, int i, struct view *out)
{
    if (view_decode(L, i, out))
        return;
    const struct hmat *m;
    int64_t index;
    if (view_kind(L, i, &m, &index) >= VIEW_COLS)
        luaL_argerror(L, i, "a view of one column or row expected, got a set");
    if (is_row_view(L, i))
        luaL_argerror(L, i, "a sparse view expected, got a row of a vector");
    luaL_typeerror(L, i, "sparse view");
}

/* A vector argument that must match the view's size. */
static struct uvec *check_partner(lua_State *L, int i, const struct view *x)
{
    struct uvec *v = check_vec(L, i);
    if (v->n != x->dim)
        luaL_error(L, "size mismatch: %s %I of '%s' has %I %s, %s has %I elements",
                   x->kind == VIEW_COL ? "column" : "row", (lua_Integer)x->index + 1, x->m->name,
                   (lua_Integer)x->dim, x->kind == VIEW_COL ? "rows" : "columns", vlabel(L, v),
                   (lua_Integer)v->n);
    return v;
}

/* The same for a set view. */
static struct uvec *check_set_partner(lua_State *L, int i, const struct vset *x)
{
    struct uvec *v = check_vec(L, i);
    if (v->n != x->dim)
        luaL_error(L, "size mismatch: the %s of '%s' have %I %s, %s has %I elements",
                   x->kind == VIEW_COL ? "columns" : "rows", x->m->name, (lua_Integer)x->dim,
                   x->kind == VIEW_COL ? "rows" : "columns", vlabel(L, v), (lua_Integer)v->n);
    return v;
}

/* The loops over a column's or row's n entries (indices ix, values a). */

static double sparse_dot(const int32_t *restrict ix, const double *restrict a, int64_t n,
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

static void sparse_axpy(const int32_t *restrict ix, const double *restrict a, int64_t n, double c,
                        double *restrict v)
{
    for (int64_t k = 0; k < n; k++)
        v[ix[k]] += c * a[k];
}

static double sparse_norm2(const double *a, int64_t n)
{
    double s = 0;
    for (int64_t k = 0; k < n; k++)
        s += a[k] * a[k];
    return s;
}

/* Row views (W:row(i)) answer the methods sparse views and vectors share
 * as vectors. */
static int v_dot(lua_State *L);
static int v_axpy(lua_State *L);
static int v_nnz(lua_State *L);
static int v_norm2(lua_State *L);
static int v_sum(lua_State *L);

/* x:dot(v): a number; for a set, a new vector of the members' dots. */
static int sv_dot(lua_State *L)
{
    if (is_row_view(L, 1))
        return v_dot(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        const double *v = check_set_partner(L, 2, &x)->v;
        double *u = new_vector(L, x.s->n)->v;
        for (int64_t k = 0; k < x.s->n; k++) {
            int64_t j = x.s->b[k];
            if (j >= x.count)
                return set_range_error(L, &x, j);
            PREFETCH_MEMBER(&x, k);
            u[k] = sparse_dot(x.idx + x.ptr[j], x.val + x.ptr[j], x.ptr[j + 1] - x.ptr[j], v);
        }
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    struct uvec *v = check_partner(L, 2, &y);
    lua_pushnumber(L, sparse_dot(y.idx, y.val, y.len, v->v));
    return 1;
}

/* x:axpy(a, v): v += a x, returning v; for a set, v += sum over k of a[k]
 * times member k (zero a[k] skipped), where a is a number or a vector of
 * one value per block. */
static int sv_axpy(lua_State *L)
{
    if (is_row_view(L, 1))
        return v_axpy(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        const double *a = NULL;
        double c = 0;
        if (lua_type(L, 2) == LUA_TNUMBER)
            c = lua_tonumber(L, 2);
        else if (lua_type(L, 2) == LUA_TUSERDATA)
            a = check_per_block(L, 2, x.s)->v;
        else
            luaL_typeerror(L, 2, "number or vector");
        struct uvec *v = check_set_partner(L, 3, &x);
        if (!v->writable)
            return luaL_error(L, "%s is read-only", vlabel(L, v));
        int64_t bad = block_beyond(x.s, x.count); /* before v changes */
        if (bad >= 0)
            return set_range_error(L, &x, bad);
        for (int64_t k = 0; k < x.s->n; k++) {
            double ck = a ? a[k] : c;
            if (ck == 0)
                continue;
            PREFETCH_MEMBER(&x, k);
            int64_t lo = x.ptr[x.s->b[k]], hi = x.ptr[x.s->b[k] + 1];
            sparse_axpy(x.idx + lo, x.val + lo, hi - lo, ck, v->v);
        }
        lua_settop(L, 3);
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    double c = luaL_checknumber(L, 2);
    struct uvec *v = check_partner(L, 3, &y);
    if (!v->writable)
        return luaL_error(L, "%s is read-only", vlabel(L, v));
    sparse_axpy(y.idx, y.val, y.len, c, v->v);
    lua_settop(L, 3);
    return 1;
}

/* x:nnz(): stored entries; for a set, a new vector of them. */
static int sv_nnz(lua_State *L)
{
    if (is_row_view(L, 1))
        return v_nnz(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        double *u = new_vector(L, x.s->n)->v;
        for (int64_t k = 0; k < x.s->n; k++) {
            int64_t j = x.s->b[k];
            if (j >= x.count)
                return set_range_error(L, &x, j);
            u[k] = (double)(x.ptr[j + 1] - x.ptr[j]);
        }
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    lua_pushinteger(L, y.len);
    return 1;
}

/* x:norm2(): the sum of squares; for a set, a new vector of them. */
static int sv_norm2(lua_State *L)
{
    if (is_row_view(L, 1))
        return v_norm2(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        double *u = new_vector(L, x.s->n)->v;
        for (int64_t k = 0; k < x.s->n; k++) {
            int64_t j = x.s->b[k];
            if (j >= x.count)
                return set_range_error(L, &x, j);
            PREFETCH_MEMBER(&x, k);
            u[k] = sparse_norm2(x.val + x.ptr[j], x.ptr[j + 1] - x.ptr[j]);
        }
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    lua_pushnumber(L, sparse_norm2(y.val, y.len));
    return 1;
}

static int sv_sum(lua_State *L)
{
    if (is_row_view(L, 1))
        return v_sum(L);
    struct view x;
    check_view(L, 1, &x);
    double s = 0;
    for (int64_t k = 0; k < x.len; k++)
        s += x.val[k];
    lua_pushnumber(L, s);
    return 1;
}

/* The state of a loop `for i, a [, t] in x:each([T])`: entries pos ..
 * end-1 of the arrays idx and val (the matrix's, as they were when the
 * loop began: a step checks that they still are), and the table whose
 * rows it yields too, or -1. A full userdata, made once a loop: a step
 * is then one C call that reads and pushes, with no search. */
struct uiter {
    uint32_t tag;
    int slot;  /* the matrix */
    int kind;  /* VIEW_COL or VIEW_ROW */
    int tslot; /* the table T in h->tab, or -1 */
    const int32_t *idx;
    const double *val;
    int64_t pos, end;
};

static int sv_next(lua_State *L)
{
    struct uiter *it = lua_touserdata(L, 1); /* NULL, a view (is_view_ptr) or one of ours */
    if (!it || is_view_ptr(it) || it->tag != TAG_ITER)
        return luaL_typeerror(L, 1, "loop state of each()");
    if (it->pos >= it->end)
        return 0;
    struct lhost *h = host_of(L);
    const struct hmat *m = &h->mat[it->slot];
    if (it->kind == VIEW_COL ? !m->m.csc || m->m.csc->rowind != it->idx || m->m.csc->val != it->val
                             : !m->m.csr || m->m.csr->colind != it->idx || m->m.csr->val != it->val)
        return luaL_error(L, "'%s' changed during the loop (the engine replaced it)", m->name);
    int64_t j = it->idx[it->pos];
    lua_pushinteger(L, (lua_Integer)j + 1);
    lua_pushnumber(L, it->val[it->pos]);
    it->pos++;
    if (it->tslot < 0)
        return 2;
    const struct uvec *t = h->tab[it->tslot];
    if (j >= t->rows)
        return luaL_error(L,
                          "row %I of '%s' out of range (1..%I): the view's indices are not "
                          "its rows",
                          (lua_Integer)j + 1, t->name, (lua_Integer)t->rows);
    if (t->limited && (j < t->lo || j >= t->hi))
        return held_error(L, t, j);
    lua_pushlightuserdata(L, view_code(it->tslot, VIEW_DENSE, -1, j));
    return 3;
}

/* x:each([T]): for i, a in x:each() over the entries (index, value);
 * with a registered vector T, for i, a, t in x:each(T), t being T:row(i). */
static int sv_each(lua_State *L)
{
    struct view x;
    check_view(L, 1, &x);
    int tslot = -1;
    if (!lua_isnoneornil(L, 2)) {
        struct uvec *t = lua_type(L, 2) == LUA_TUSERDATA ? lua_touserdata(L, 2) : NULL;
        if (!t || t->tag != TAG_VECTOR)
            return luaL_typeerror(L, 2, "vector");
        if (t->slot < 0)
            return luaL_error(L, "%s has no rows: row views are of the job's parameters and data",
                              vlabel(L, t));
        tslot = t->slot;
    }
    lua_pushcfunction(L, sv_next);
    struct uiter *it = lua_newuserdatauv(L, sizeof(*it), 0);
    const struct hmat *m = x.m;
    const int32_t *idx = x.kind == VIEW_COL ? m->m.csc->rowind : m->m.csr->colind;
    const double *val = x.kind == VIEW_COL ? m->m.csc->val : m->m.csr->val;
    *it = (struct uiter){.tag = TAG_ITER,
                         .slot = (int)(m - host_of(L)->mat),
                         .kind = x.kind,
                         .tslot = tslot,
                         .idx = idx,
                         .val = val,
                         .pos = x.idx - idx,
                         .end = x.idx - idx + x.len};
    lua_pushnil(L);
    return 3;
}

static int sv_tostring(lua_State *L)
{
    const struct hmat *m;
    int64_t index;
    int kind = view_kind(L, 1, &m, &index);
    struct view x;
    if (kind < 0 && is_row_view(L, 1)) {
        const struct uvec *v = row_view(L, 1);
        lua_pushfstring(L, "row %I of '%s' (%I elements)", (lua_Integer)v->row, v->name,
                        (lua_Integer)v->n);
    } else if (kind == VIEW_ROW && view_decode(L, 1, &x) && x.block >= 0)
        lua_pushfstring(L, "row %I of '%s' in block %I", (lua_Integer)index + 1, m->name,
                        (lua_Integer)x.block + 1);
    else if (kind < 0)
        lua_pushliteral(L, "light userdata");
    else if (kind >= VIEW_COLS)
        lua_pushfstring(L, "the %s of '%s' at the block list",
                        kind == VIEW_COLS ? "columns" : "rows", m->name);
    else
        lua_pushfstring(L, "%s %I of '%s'", kind == VIEW_COL ? "column" : "row",
                        (lua_Integer)index + 1, m->name);
    return 1;
}

/* ---- bulk vector operations --------------------------------------------------- */

static struct uvec *check_same(lua_State *L, int i, const struct uvec *v)
{
    struct uvec *u = check_vec(L, i);
    if (u->n != v->n)
        luaL_error(L, "size mismatch: %s has %I elements, %s has %I", vlabel(L, v),
                   (lua_Integer)v->n, vlabel(L, u), (lua_Integer)u->n);
    return u;
}

static int v_dot(lua_State *L)
{
    void *p2 = lua_touserdata(L, 2);
    struct uvec *v = check_vec(L, 1);
    struct view x;
    if (is_view_ptr(p2) && !is_row_code(p2) && view_decode(L, 2, &x)) {
        check_partner(L, 1, &x);
        lua_pushnumber(L, sparse_dot(x.idx, x.val, x.len, v->v));
        return 1;
    }
    struct uvec *u = is_row_code(p2) ? row_decode(L, 2, p2) : check_vec(L, 2);
    if (u->n != v->n)
        check_same(L, 2, v); /* the message */
    lua_pushnumber(L, ptm_dot4(v->v, u->v, v->n));
    return 1;
}

/* v:mix(u, a, b, c, d): v, u = a v + b u, c v + d u, both from the old
 * values (BLAS's drotm with a full matrix), returning v. */
static int v_mix(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    struct uvec *u = check_vec(L, 2);
    if (u->n != v->n)
        check_same(L, 2, v); /* the message */
    if (!u->writable)
        return luaL_error(L, "%s is read-only", vlabel(L, u));
    int ok[4];
    double a = lua_tonumberx(L, 3, &ok[0]), b = lua_tonumberx(L, 4, &ok[1]),
           c = lua_tonumberx(L, 5, &ok[2]), d = lua_tonumberx(L, 6, &ok[3]);
    for (int k = 0; k < 4; k++)
        if (!ok[k])
            luaL_checknumber(L, 3 + k); /* the message */
    if (u->v == v->v && v->n > 0)
        return luaL_error(L, "v:mix(u) needs two vectors: %s is both", vlabel(L, v));
    double *restrict x = v->v, *restrict y = u->v;
    v2d a2 = {a, a}, b2 = {b, b}, c2 = {c, c}, d2 = {d, d};
    int64_t k = 0, n = v->n;
    for (; k + 2 <= n; k += 2) {
        v2d xk = load2(x + k), yk = load2(y + k);
        store2(x + k, a2 * xk + b2 * yk);
        store2(y + k, d2 * yk + c2 * xk);
    }
    if (k < n) {
        double xk = x[k], yk = y[k];
        x[k] = a * xk + b * yk;
        y[k] = d * yk + c * xk;
    }
    lua_settop(L, 1);
    return 1;
}

/* The in-place operations return their vector, so that calls chain. */

static int v_axpy(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double c = luaL_checknumber(L, 2);
    struct view x;
    if (view_decode(L, 3, &x)) {
        check_partner(L, 1, &x);
        sparse_axpy(x.idx, x.val, x.len, c, v->v);
    } else {
        struct uvec *u = check_same(L, 3, v);
        double *a = v->v;
        const double *b = u->v; /* may be a itself */
        EACH(k, v->n, a[k] += c * b[k];);
    }
    lua_settop(L, 1);
    return 1;
}

static int v_scale(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double c = luaL_checknumber(L, 2);
    double *restrict a = v->v;
    EACH(k, v->n, a[k] *= c;);
    lua_settop(L, 1);
    return 1;
}

static int v_fill(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double c = luaL_checknumber(L, 2);
    double *restrict a = v->v;
    EACH(k, v->n, a[k] = c;);
    lua_settop(L, 1);
    return 1;
}

static int v_add(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    const struct uvec *u = check_same(L, 2, v);
    double *a = v->v;
    const double *b = u->v; /* may be a itself */
    EACH(k, v->n, a[k] += b[k];);
    lua_settop(L, 1);
    return 1;
}

static int v_mul(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    const struct uvec *u = check_same(L, 2, v);
    double *a = v->v;
    const double *b = u->v; /* may be a itself */
    EACH(k, v->n, a[k] *= b[k];);
    lua_settop(L, 1);
    return 1;
}

/* v:div(u [, z]): v[k] / u[k], or z where u[k] is 0; without z a zero
 * divisor is an error and v is left as it was. */
static int v_div(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    const struct uvec *u = check_same(L, 2, v);
    bool has_z = !lua_isnoneornil(L, 3);
    double z = has_z ? luaL_checknumber(L, 3) : 0;
    if (!has_z)
        for (int64_t k = 0; k < v->n; k++)
            if (u->v[k] == 0)
                return luaL_error(L, "division by zero: element %I of %s is 0 (give div a value "
                                     "for it: v:div(u, 0))",
                                  (lua_Integer)k + 1, vlabel(L, u));
    double *a = v->v;
    const double *b = u->v; /* may be a itself */
    EACH(k, v->n, a[k] = b[k] != 0 ? a[k] / b[k] : z;);
    lua_settop(L, 1);
    return 1;
}

/* v:soft(t): the soft threshold sign(v) max(|v| - t, 0), t >= 0. */
static int v_soft(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double t = luaL_checknumber(L, 2);
    luaL_argcheck(L, t >= 0, 2, "the threshold must be a number >= 0");
    double *restrict a = v->v;
    /* a - clamp(a, -t, t), without branches */
    EACH(k, v->n, double c = a[k] < -t ? -t : a[k]; c = c > t ? t : c; a[k] -= c;);
    lua_settop(L, 1);
    return 1;
}

/* The registered vector at argument 1 (for row and size, which a vector
 * limited to a block may answer), or an error. */
static struct uvec *check_table(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TUSERDATA) {
        struct uvec *v = lua_touserdata(L, 1);
        if (v->tag == TAG_VECTOR)
            return v;
    }
    return check_vec(L, 1);
}

/* W:row(i): row i of a registered vector (its elements (i - 1) cols + 1 ..
 * i cols) as a vector, without allocating: a view like X:row(i). */
static int v_row(lua_State *L)
{
    struct uvec *v = check_table(L);
    if (v->slot < 0)
        return luaL_error(L, "%s has no rows: row views are of the job's parameters and data",
                          vlabel(L, v));
    lua_Integer i = luaL_checkinteger(L, 2);
    int64_t rows = v->rows;
    if (i < 1 || i > rows)
        return luaL_error(L, "row %I out of range for '%s' (1..%I)", i, v->name, (lua_Integer)rows);
    if (i - 1 > (lua_Integer)UINT32_MAX)
        return luaL_error(L, "row %I of '%s' is beyond the rows views can name", i, v->name);
    if (v->limited && (i - 1 < v->lo || i - 1 >= v->hi))
        return held_error(L, v, i - 1);
    lua_pushlightuserdata(L, view_code(v->slot, VIEW_DENSE, -1, i - 1));
    return 1;
}

/* v:size(): its rows and columns (a registered matrix's shape; n x 1 for
 * the others). */
static int v_size(lua_State *L)
{
    struct uvec *v = check_table(L);
    lua_pushinteger(L, v->slot >= 0 ? v->rows : v->n);
    lua_pushinteger(L, v->slot >= 0 ? v->cols : 1);
    return 2;
}

static int v_copy(lua_State *L)
{
    const struct uvec *v = check_vec(L, 1);
    struct uvec *u = new_vector(L, v->n);
    if (v->n)
        memcpy(u->v, v->v, (size_t)v->n * sizeof(double));
    return 1;
}

/* v:gather(S): a new vector of v[S[k]]. */
static int v_gather(lua_State *L)
{
    const struct uvec *v = check_vec(L, 1);
    const struct ublocks *s = check_blocks(L, 2);
    double *restrict u = new_vector(L, s->n)->v;
    const double *restrict a = v->v;
    const int64_t *restrict b = s->b;
    int64_t n = v->n;
    EACH(k, s->n, { /* checked as it goes: see set_decode() */
        if (b[k] >= n)
            return block_range_error(L, v, b[k]);
        u[k] = a[b[k]];
    });
    return 1;
}

/* v:scatter(S, u): v[S[k]] = u[k]. */
static int v_scatter(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    const struct ublocks *s = check_blocks(L, 2);
    const struct uvec *u = check_per_block(L, 3, s);
    check_indexes(L, s, v);
    double *a = v->v;
    const double *c = u->v; /* may be a itself */
    const int64_t *b = s->b;
    EACH(k, s->n, a[b[k]] = c[k];);
    lua_settop(L, 1);
    return 1;
}

static int v_sum(lua_State *L)
{
    struct uvec *v = check_vec(L, 1);
    double s = 0;
    for (int64_t k = 0; k < v->n; k++)
        s += v->v[k];
    lua_pushnumber(L, s);
    return 1;
}

static int v_nnz(lua_State *L)
{
    struct uvec *v = check_vec(L, 1);
    lua_Integer c = 0;
    for (int64_t k = 0; k < v->n; k++)
        c += v->v[k] != 0;
    lua_pushinteger(L, c);
    return 1;
}

static int v_norm2(lua_State *L)
{
    struct uvec *v = check_vec(L, 1);
    double s = 0;
    for (int64_t k = 0; k < v->n; k++)
        s += v->v[k] * v->v[k];
    lua_pushnumber(L, s);
    return 1;
}

static int v_norm1(lua_State *L)
{
    struct uvec *v = check_vec(L, 1);
    double s = 0;
    for (int64_t k = 0; k < v->n; k++)
        s += fabs(v->v[k]);
    lua_pushnumber(L, s);
    return 1;
}

/* ---- matrices ----------------------------------------------------------------- */

static const struct hmat *check_mat(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TUSERDATA) {
        struct umat *m = lua_touserdata(L, i);
        if (m->tag == TAG_MATRIX)
            return &host_of(L)->mat[m->slot];
    }
    luaL_typeerror(L, i, "matrix");
    return NULL;
}

static int m_col(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_Integer j = luaL_checkinteger(L, 2);
    const struct ptm_csc *c = m->m.csc;
    if (!c)
        return luaL_error(L, "'%s' has no column views on this worker", m->name);
    if (j < 1 || j > c->ncols)
        return luaL_error(L, "column %I out of range for '%s' (1..%I)", j, m->name,
                          (lua_Integer)c->ncols);
    lua_pushlightuserdata(L, view_code((int)(m - host_of(L)->mat), VIEW_COL, -1, j - 1));
    return 1;
}

/* X:row(i [, b]): row i, or its entries in the columns of block b (of
 * the blocks the engine registered, which cut X's columns). */
static int m_row(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    const struct ptm_csr *r = m->m.csr;
    struct lhost *h = host_of(L);
    if (!r)
        return luaL_error(L, "'%s' has no row views on this worker", m->name);
    if (i < 1 || i > r->nrows)
        return luaL_error(L, "row %I out of range for '%s' (1..%I on this worker)", i, m->name,
                          (lua_Integer)r->nrows);
    lua_Integer b = 0;
    if (!lua_isnoneornil(L, 3)) {
        b = luaL_checkinteger(L, 3);
        if (h->nblk == 0)
            return luaL_error(L, "X:row(i, b) needs blocks: this schedule has none to hold");
        if (m->m.cols != h->blk_lo[h->nblk])
            return luaL_error(L,
                              "'%s' has %I columns and the blocks cut %I: X:row(i, b) needs a "
                              "matrix whose columns the blocks cut",
                              m->name, (lua_Integer)m->m.cols, (lua_Integer)h->blk_lo[h->nblk]);
        if (b < 1 || b > h->nblk)
            return luaL_error(L, "block %I out of range (1..%I)", b, (lua_Integer)h->nblk);
        block_ptr(L, &h->mat[m - h->mat]);
    }
    lua_pushlightuserdata(L, view_code((int)(m - h->mat), VIEW_ROW, b - 1, i - 1));
    return 1;
}

/* X:colnnz(): a new vector of the entries of each column over the whole
 * matrix (every worker's rows). */
static int m_colnnz(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    if (!m->m.colnnz)
        return luaL_error(L, "'%s' has no column counts on this worker", m->name);
    double *u = new_vector(L, m->m.cols)->v;
    if (m->m.cols)
        memcpy(u, m->m.colnnz, (size_t)m->m.cols * sizeof(double));
    return 1;
}

/* X:cols(S), X:rows(S): a view of the members over the block list, which
 * follows the list as it is at each use. */
static int m_set(lua_State *L, int kind)
{
    const struct hmat *m = check_mat(L, 1);
    check_blocks(L, 2);
    if (view_count(m, kind) < 0)
        return luaL_error(L, "'%s' has no %s views on this worker", m->name,
                          kind == VIEW_COL ? "column" : "row");
    lua_pushlightuserdata(
        L, view_code((int)(m - host_of(L)->mat), kind == VIEW_COL ? VIEW_COLS : VIEW_ROWS, -1, 0));
    return 1;
}

static int m_cols(lua_State *L)
{
    return m_set(L, VIEW_COL);
}

static int m_rows(lua_State *L)
{
    return m_set(L, VIEW_ROW);
}

static int m_size(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_pushinteger(L, m->m.rows);
    lua_pushinteger(L, m->m.cols);
    return 2;
}

static int m_tostring(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_pushfstring(L, "matrix '%s' (%I x %I)", m->name, (lua_Integer)m->m.rows,
                    (lua_Integer)m->m.cols);
    return 1;
}

/* ---- light userdata: views ------------------------------------------------------ */

/* What the methods of views do not have (their table's __index): nil for
 * a name, an error for an index. Views have no elements to index: an
 * element of a row is an element of its vector. */
static int light_index(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TNUMBER)
        return luaL_error(L, "a view has no elements to index: use its methods (element k of "
                             "W:row(i) is W[(i - 1) * cols + k])");
    lua_pushnil(L);
    return 1;
}

static int light_newindex(lua_State *L)
{
    if (is_row_view(L, 1))
        return luaL_error(L, "a view has no elements to index: use its methods (element k of "
                             "W:row(i) is W[(i - 1) * cols + k])");
    return luaL_error(L, "attempt to index a userdata value");
}

static int light_len(lua_State *L)
{
    struct uvec *v = row_view(L, 1);
    if (!v)
        return luaL_error(L, "attempt to get length of a userdata value");
    lua_pushinteger(L, v->n);
    return 1;
}

/* ---- the worker object -------------------------------------------------------- */

static int worker_newindex(lua_State *L)
{
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (k)
        return luaL_error(L, "cannot set '%s': the worker object is read-only", k);
    return luaL_error(L, "the worker object is read-only");
}

static int worker_tostring(lua_State *L)
{
    struct lhost *h = host_of(L);
    lua_pushfstring(L, "worker %d of %d", h->id + 1, h->workers);
    return 1;
}

/* w:vector(n [, fill]): a new vector of n values (fill, default 0). */
static int w_vector(lua_State *L)
{
    int first = 1;
    if (lua_type(L, 1) == LUA_TUSERDATA &&
        ((struct uworker *)lua_touserdata(L, 1))->tag == TAG_WORKER)
        first = 2; /* w:vector(...) */
    lua_Integer n = luaL_checkinteger(L, first);
    double fill = luaL_optnumber(L, first + 1, 0);
    luaL_argcheck(L, n >= 0, first, "the size must be >= 0");
    double *restrict u = new_vector(L, n)->v;
    EACH(k, n, u[k] = fill;);
    return 1;
}

/* w:block(b): the first and last unit (row, column or element of the
 * scheduled parameter) of block b. */
static int w_block(lua_State *L)
{
    int first = 1;
    if (lua_type(L, 1) == LUA_TUSERDATA &&
        ((struct uworker *)lua_touserdata(L, 1))->tag == TAG_WORKER)
        first = 2; /* w:block(...) */
    struct lhost *h = host_of(L);
    lua_Integer b = luaL_checkinteger(L, first);
    if (h->nblk == 0)
        return luaL_error(L, "w:block(b) needs blocks: this schedule has none to hold");
    if (b < 1 || b > h->nblk)
        return luaL_error(L, "block %I out of range (1..%I)", b, (lua_Integer)h->nblk);
    lua_pushinteger(L, h->blk_lo[b - 1] + 1);
    lua_pushinteger(L, h->blk_lo[b]);
    return 2;
}

static const char *const reserved[] = {"id",    "workers", "rows",   "round",
                                       "sweep", "random",  "vector", "block"};

/* ---- setting up a state --------------------------------------------------------- */

/* A metatable that hides itself, named name, on the stack. */
static void new_metatable(lua_State *L, const char *name)
{
    lua_newtable(L);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
}

/* An empty vector of the host's, named name (static), pushed: z or d,
 * writable scratch over the host's copy of a call's values. */
static struct uvec *host_vector(lua_State *L, const char *name)
{
    struct uvec *v = lua_newuserdatauv(L, sizeof(*v), 0);
    *v = (struct uvec){.tag = TAG_VECTOR, .writable = true, .slot = -1, .cols = 1, .name = name};
    lua_rawgeti(L, LUA_REGISTRYINDEX, host_of(L)->ref_vecmt);
    lua_setmetatable(L, -2);
    return v;
}

static int setup(lua_State *L)
{
    struct lhost *h = lua_touserdata(L, 1);
    *(struct lhost **)lua_getextraspace(L) = h;

    lua_getglobal(L, "math");
    lua_pushcfunction(L, math_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, math_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);

    static const luaL_Reg vec_methods[] = {
        {"dot", v_dot},   {"axpy", v_axpy},     {"scale", v_scale},     {"fill", v_fill},
        {"sum", v_sum},   {"nnz", v_nnz},       {"norm2", v_norm2},     {"norm1", v_norm1},
        {"add", v_add},   {"mul", v_mul},       {"div", v_div},         {"soft", v_soft},
        {"copy", v_copy}, {"gather", v_gather}, {"scatter", v_scatter}, {"mix", v_mix},
        {"row", v_row},   {"size", v_size},     {NULL, NULL},
    };
    new_metatable(L, "vector");
    luaL_newlib(L, vec_methods);
    lua_pushcclosure(L, vec_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, vec_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, vec_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, vec_tostring);
    lua_setfield(L, -2, "__tostring");
    h->ref_vecmt = luaL_ref(L, LUA_REGISTRYINDEX);

    static const luaL_Reg mat_methods[] = {{"col", m_col},   {"row", m_row},   {"cols", m_cols},
                                           {"rows", m_rows}, {"size", m_size}, {"colnnz", m_colnnz},
                                           {NULL, NULL}};
    new_metatable(L, "matrix");
    luaL_newlib(L, mat_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    h->ref_matmt = luaL_ref(L, LUA_REGISTRYINDEX);

    /* light userdata: sparse views, and rows of vectors, which answer the
     * vector methods */
    static const luaL_Reg view_methods[] = {
        {"dot", sv_dot},    {"axpy", sv_axpy}, {"nnz", sv_nnz},      {"norm2", sv_norm2},
        {"sum", sv_sum},    {"each", sv_each}, {"scale", v_scale},   {"fill", v_fill},
        {"norm1", v_norm1}, {"add", v_add},    {"mul", v_mul},       {"div", v_div},
        {"soft", v_soft},   {"copy", v_copy},  {"gather", v_gather}, {"scatter", v_scatter},
        {"mix", v_mix},     {"size", v_size},  {NULL, NULL},
    };
    lua_pushlightuserdata(L, NULL);
    new_metatable(L, "sparse view");
    luaL_newlib(L, view_methods);
    /* __index a table, not a function: a method call on a view is then no
     * C call more (the loops over ratings make several a rating) */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, light_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, light_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, light_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, sv_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);

    /* the worker: a proxy over the fields table */
    lua_newtable(L);
    lua_pushinteger(L, h->id + 1);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, h->workers);
    lua_setfield(L, -2, "workers");
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, h->first + 1);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, h->last + 1);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, "rows");
    lua_pushinteger(L, h->round);
    lua_setfield(L, -2, "round");
    lua_pushinteger(L, h->sweep);
    lua_setfield(L, -2, "sweep");
    lua_pushcfunction(L, w_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, w_vector);
    lua_setfield(L, -2, "vector");
    lua_pushcfunction(L, w_block);
    lua_setfield(L, -2, "block");
    lua_pushvalue(L, -1);
    h->ref_fields = luaL_ref(L, LUA_REGISTRYINDEX);
    struct uworker *w = lua_newuserdatauv(L, sizeof(*w), 0);
    w->tag = TAG_WORKER;
    new_metatable(L, "worker");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, worker_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, worker_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    h->ref_worker = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);

    lua_newtable(L);
    h->ref_job = luaL_ref(L, LUA_REGISTRYINDEX);

    /* the host's S, d and z (whose buffer comes with the first pull) */
    h->blocks = lua_newuserdatauv(L, sizeof(*h->blocks), 0);
    *h->blocks = (struct ublocks){.tag = TAG_BLOCKS};
    new_metatable(L, "block list");
    lua_pushcfunction(L, blocks_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, blocks_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, blocks_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, blocks_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    h->ref_blocks = luaL_ref(L, LUA_REGISTRYINDEX);
    h->d = host_vector(L, "d");
    h->ref_d = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    h->ref_zvecs = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushboolean(L, 0);
    h->ref_buf = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

static void drop_block_ptrs(struct lhost *h)
{
    for (int i = 0; i < h->nmat; i++) {
        ptm_free(h->mat[i].blockptr);
        h->mat[i].blockptr = NULL;
    }
}

int lhost_new(struct lhost **out, const struct lhost_config *cfg)
{
    PTM_ASSERT(cfg->workers >= 1 && cfg->id >= 0 && cfg->id < cfg->workers);
    PTM_ASSERT(cfg->last >= cfg->first - 1);
    *out = NULL;
    struct lhost *h = ptm_malloc(sizeof(*h));
    if (!h)
        return PTM_ENOMEM;
    memset(h, 0, sizeof(*h));
    h->id = cfg->id;
    h->workers = cfg->workers;
    h->first = cfg->first;
    h->last = cfg->last;
    seed_rng(&h->rng, cfg->seed, 2 * (uint64_t)cfg->id + 1);
    seed_rng(&h->mrng, cfg->seed, 2 * (uint64_t)cfg->id + 2);
    h->L = lsandbox_new(&h->sb, cfg->mem ? cfg->mem : LHOST_MEM_DEFAULT,
                        cfg->budget ? cfg->budget : LHOST_BUDGET_DEFAULT,
                        cfg->seconds > 0 ? cfg->seconds : LHOST_SECONDS_DEFAULT);
    if (!h->L)
        goto out_free;
    lua_pushcfunction(h->L, setup);
    lua_pushlightuserdata(h->L, h);
    if (lua_pcall(h->L, 1, 0, 0) != LUA_OK)
        goto out_close; /* only memory can fail here */
    *out = h;
    return 0;

out_close:
    lua_close(h->L);
out_free:
    ptm_free(h);
    return PTM_ENOMEM;
}

void lhost_free(struct lhost *h)
{
    if (!h)
        return;
    lua_close(h->L);
    drop_block_ptrs(h);
    for (size_t i = 0; i < h->nobj; i++)
        ptm_free(h->obj[i].name);
    ptm_free(h->obj);
    ptm_free(h->chunk);
    ptm_free(h);
}

/* ---- running Lua ---------------------------------------------------------------- */

/* Message handler: the error and a traceback from where it was raised. */
static int traceback(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    if (!m)
        m = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, m, 1);
    return 1;
}

static void set_msg(struct lhost *h, const char *s)
{
    size_t n = strlen(s);
    if (n >= sizeof(h->msg)) {
        n = sizeof(h->msg) - 4;
        memcpy(h->msg + n, "...", 4);
    } else {
        h->msg[n] = '\0';
    }
    memcpy(h->msg, s, n);
}

static void cap_text(const struct lhost *h, char *buf, size_t len)
{
    size_t cap = h->sb.cap;
    if (cap % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", cap >> 20);
    else
        snprintf(buf, len, "%zu bytes", cap);
}

static int collect(lua_State *L)
{
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}

/* After a memory failure, free the call's garbage now, so that the next
 * call does not start near the cap. */
static void collect_garbage(struct lhost *h)
{
    lua_pushcfunction(h->L, collect);
    if (lua_pcall(h->L, 0, 0, 0) != LUA_OK)
        lua_pop(h->L, 1);
}

/* Turn the status of a protected call (what: "in hook 'push'", "while
 * loading 'f.lua'") into the host's failure; the error object, if any, is
 * on top. */
static int status_to_rc(struct lhost *h, int st, const char *verb, const char *name)
{
    lua_State *L = h->L;
    if (st == LUA_OK && h->sb.stop == LSANDBOX_RUNNING)
        return 0;
    char what[96], cap[32];
    snprintf(what, sizeof(what), "%s '%.64s'", verb, name);
    cap_text(h, cap, sizeof(cap));
    if (st == LUA_ERRMEM || (st == LUA_ERRERR && h->sb.capped)) {
        collect_garbage(h);
        if (!h->sb.capped) {
            fail(h, LHOST_FAIL_MEMORY, "out of memory %s", what);
            return PTM_ENOMEM;
        }
        return fail(h, LHOST_FAIL_MEMORY, "memory cap of %s exceeded %s", cap, what);
    }
    enum lhost_failure kind = h->sb.stop == LSANDBOX_BUDGET ? LHOST_FAIL_BUDGET
                              : h->sb.stop == LSANDBOX_TIME ? LHOST_FAIL_TIME
                                                            : LHOST_FAIL_ERROR;
    if (st == LUA_OK) { /* the hook caught the stop and returned */
        char why[80];
        return fail(h, kind, "%s %s", lsandbox_stop_text(&h->sb, why, sizeof(why)), what);
    }
    const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    set_msg(h, m ? m : "error without a message");
    h->fail = kind;
    return PTM_EINVAL;
}

static void begin(struct lhost *h)
{
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    lsandbox_begin(h->L, &h->sb);
}

int lhost_load(struct lhost *h, const char *name, const char *text, size_t len)
{
    lua_State *L = h->L;
    begin(h);
    size_t n = strlen(name);
    char *chunk = ptm_malloc(n + 1);
    if (!chunk) {
        fail(h, LHOST_FAIL_MEMORY, "out of memory loading '%s'", name);
        return PTM_ENOMEM;
    }
    memcpy(chunk, name, n + 1);
    ptm_free(h->chunk);
    h->chunk = chunk;

    int base = lua_gettop(L);
    lua_pushcfunction(L, traceback);
    int st = lsandbox_load(L, text, len, name);
    int rc;
    if (st == LUA_ERRSYNTAX) {
        set_msg(h, lua_tostring(L, -1));
        h->fail = LHOST_FAIL_LOAD;
        rc = PTM_EINVAL;
    } else if (st != LUA_OK) {
        rc = status_to_rc(h, st, "while loading", name);
    } else {
        rc = status_to_rc(h, lua_pcall(L, 0, 0, base + 1), "while loading", name);
    }
    lua_settop(L, base);
    return rc;
}

int lhost_load_file(struct lhost *h, const char *path)
{
    struct ptm_source src;
    begin(h);
    int rc = ptm_source_read(&src, path, h->msg, sizeof(h->msg));
    if (rc) {
        h->fail = rc == PTM_ENOMEM ? LHOST_FAIL_MEMORY : LHOST_FAIL_LOAD;
        if (rc == PTM_ENOMEM)
            snprintf(h->msg, sizeof(h->msg), "out of memory reading '%s'", path);
        return rc;
    }
    rc = lhost_load(h, path, src.text, src.len);
    ptm_source_release(&src);
    return rc;
}

/* ---- registering objects -------------------------------------------------------- */

struct reg {
    struct lhost *h;
    const char *name;
    enum obj_kind kind;
    int slot;
    void *ud; /* out */
};

/* Runs protected: make the userdata and store it as w[name]. */
static int make_object(lua_State *L)
{
    struct reg *r = lua_touserdata(L, 1);
    struct lhost *h = r->h;
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_fields);
    if (r->kind == OBJ_VECTOR) {
        struct uvec *v = lua_newuserdatauv(L, sizeof(*v), 0);
        memset(v, 0, sizeof(*v));
        v->tag = TAG_VECTOR;
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_vecmt);
        r->ud = v;
    } else {
        struct umat *m = lua_newuserdatauv(L, sizeof(*m), 0);
        m->tag = TAG_MATRIX;
        m->slot = r->slot;
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_matmt);
        r->ud = m;
    }
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, r->name);
    return 0;
}

/* The object registered as name: found, or made (of kind). */
static int object(struct lhost *h, const char *name, enum obj_kind kind, struct hobj **out)
{
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    for (size_t i = 0; i < h->nobj; i++) {
        if (strcmp(h->obj[i].name, name) != 0)
            continue;
        if (h->obj[i].kind != kind)
            return fail(h, LHOST_FAIL_NAME, "'%s' is already a %s, not a %s", name,
                        kind_names[h->obj[i].kind], kind_names[kind]);
        *out = &h->obj[i];
        return 0;
    }
    for (size_t i = 0; i < PTM_ARRAY_LEN(reserved); i++)
        if (strcmp(reserved[i], name) == 0)
            return fail(h, LHOST_FAIL_NAME,
                        "'%s' is a field of the worker object and cannot "
                        "name a %s",
                        name, kind_names[kind]);
    if (kind == OBJ_MATRIX && h->nmat == LHOST_MAX_MATRICES)
        return fail(h, LHOST_FAIL_NAME, "more than %d matrices", LHOST_MAX_MATRICES);
    if (h->nobj == h->capobj) {
        size_t cap = h->capobj ? 2 * h->capobj : 8;
        struct hobj *o = ptm_realloc(h->obj, cap * sizeof(*o));
        if (!o)
            return PTM_ENOMEM;
        h->obj = o;
        h->capobj = cap;
    }
    size_t n = strlen(name);
    char *copy = ptm_malloc(n + 1);
    if (!copy)
        return PTM_ENOMEM;
    memcpy(copy, name, n + 1);
    struct reg r = {.h = h, .name = copy, .kind = kind, .slot = h->nmat};
    lua_pushcfunction(h->L, make_object);
    lua_pushlightuserdata(h->L, &r);
    h->sb.capped = false;
    int st = lua_pcall(h->L, 1, 0, 0);
    if (st != LUA_OK) {
        lua_pop(h->L, 1);
        ptm_free(copy);
        if (h->sb.capped)
            return fail(h, LHOST_FAIL_MEMORY, "memory cap exceeded registering '%s'", name);
        return PTM_ENOMEM;
    }
    struct hobj *o = &h->obj[h->nobj++];
    *o = (struct hobj){.name = copy, .kind = kind, .ud = r.ud};
    if (kind == OBJ_MATRIX)
        h->mat[h->nmat++].name = copy;
    *out = o;
    return 0;
}

int lhost_set_table(struct lhost *h, const char *name, double *v, int64_t rows, int64_t cols,
                    bool writable)
{
    PTM_ASSERT(rows >= 0 && cols >= 1 && (v || rows == 0) && rows <= INT64_MAX / cols);
    struct hobj *o;
    int rc = object(h, name, OBJ_VECTOR, &o);
    if (rc)
        return rc;
    struct uvec *u = o->ud;
    if (!u->name) { /* new: its slot for row views, while there are slots */
        u->slot = h->ntab < MAX_TABLES ? h->ntab : -1;
        if (u->slot >= 0)
            h->tab[h->ntab++] = u;
    }
    u->v = v;
    u->n = rows * cols;
    u->rows = rows;
    u->cols = cols;
    u->writable = writable;
    u->limited = false;
    u->name = o->name;
    return 0;
}

int lhost_set_vector(struct lhost *h, const char *name, double *v, int64_t n, bool writable)
{
    return lhost_set_table(h, name, v, n, 1, writable);
}

int lhost_limit_rows(struct lhost *h, const char *name, int64_t lo, int64_t hi, bool writable)
{
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    for (size_t i = 0; i < h->nobj; i++) {
        if (strcmp(h->obj[i].name, name) != 0 || h->obj[i].kind != OBJ_VECTOR)
            continue;
        struct uvec *u = h->obj[i].ud;
        PTM_ASSERT(0 <= lo && lo <= hi && hi <= u->rows);
        u->limited = true;
        u->lo = lo;
        u->hi = hi;
        u->writable = writable;
        return 0;
    }
    return fail(h, LHOST_FAIL_NAME, "no vector '%s' to limit", name);
}

void lhost_set_blocks(struct lhost *h, const int64_t *lo, int64_t n)
{
    PTM_ASSERT(n >= 0 && n <= VIEW_MAX_BLOCKS && (lo || n == 0));
    drop_block_ptrs(h);
    h->blk_lo = n ? lo : NULL;
    h->nblk = n;
}

int lhost_set_matrix(struct lhost *h, const char *name, const struct lhost_matrix *m)
{
    PTM_ASSERT(!m->csc || m->csc->ncols == m->cols);
    PTM_ASSERT(!m->csr || m->csr->ncols == m->cols);
    PTM_ASSERT(!m->csc || !m->csr || m->csc->nrows == m->csr->nrows);
    struct hobj *o;
    int rc = object(h, name, OBJ_MATRIX, &o);
    if (rc)
        return rc;
    struct hmat *hm = &h->mat[((struct umat *)o->ud)->slot];
    hm->m = *m;
    ptm_free(hm->blockptr);
    hm->blockptr = NULL;
    return 0;
}

struct constset {
    struct lhost *h;
    const char *name, *str;
    double num;
};

static int set_const(lua_State *L)
{
    struct constset *c = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->h->ref_job);
    if (c->str)
        lua_pushstring(L, c->str);
    else
        lua_pushnumber(L, c->num);
    lua_setfield(L, -2, c->name);
    return 0;
}

static int constant(struct constset *c)
{
    struct lhost *h = c->h;
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    h->sb.capped = false;
    lua_pushcfunction(h->L, set_const);
    lua_pushlightuserdata(h->L, c);
    if (lua_pcall(h->L, 1, 0, 0) == LUA_OK)
        return 0;
    lua_pop(h->L, 1);
    if (h->sb.capped)
        return fail(h, LHOST_FAIL_MEMORY, "memory cap exceeded setting const '%s'", c->name);
    return PTM_ENOMEM;
}

int lhost_set_const_num(struct lhost *h, const char *name, double v)
{
    return constant(&(struct constset){.h = h, .name = name, .num = v});
}

int lhost_set_const_str(struct lhost *h, const char *name, const char *s)
{
    return constant(&(struct constset){.h = h, .name = name, .str = s});
}

void lhost_set_round(struct lhost *h, int64_t round)
{
    h->round = round;
}

void lhost_set_sweep(struct lhost *h, int64_t sweep)
{
    h->sweep = sweep;
}

/* ---- calls ---------------------------------------------------------------------- */

enum call_kind { CALL_PUSH, CALL_PULL, CALL_APPLY, CALL_BLOCK, CALL_ROWS, CALL_OBJECTIVE };

struct call {
    struct lhost *h;
    enum call_kind kind;
    const char *fn;
    const int64_t *blocks;
    size_t n;
    const double *vals; /* pull: z; apply: changes */
    int k;              /* pull: values per block */
    const int64_t *off; /* apply: offsets of the changes */
    int64_t a, b;       /* the block; the rows */
    int fntype;         /* out: the type of the global fn */
};

/* Every one of n blocks has one value (off: n + 1 offsets, or NULL). */
static bool one_each(const int64_t *off, size_t n)
{
    return !off || off[n] - off[0] == (int64_t)n;
}

/* The host's buffer, holding at least n doubles. */
static double *host_buffer(lua_State *L, struct lhost *h, size_t n)
{
    if (n > h->bufcap) {
        size_t cap = n > 2 * h->bufcap ? n : 2 * h->bufcap;
        struct uvec *buf = new_vector(L, (int64_t)cap); /* never shown to hooks */
        lua_rawseti(L, LUA_REGISTRYINDEX, h->ref_buf);
        h->buf = buf->v;
        h->bufcap = cap;
    }
    return h->buf;
}

/* pull's z: a list of K vectors of n values, the host's copies of the
 * sums (the engine's are block after block). */
static void push_sums(lua_State *L, struct lhost *h, const struct call *c)
{
    size_t n = c->n, k = (size_t)c->k;
    double *buf = host_buffer(L, h, n * k);
    for (size_t i = 0; i < k; i++) {
        double *restrict dst = buf + i * n;
        const double *restrict src = c->vals + i;
        EACH(b, (int64_t)n, dst[b] = src[b * k];);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_zvecs);
    lua_createtable(L, (int)k, 0);
    for (size_t i = 0; i < k; i++) {
        struct uvec *v;
        if (lua_rawgeti(L, -2, (lua_Integer)i + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            v = host_vector(L, "z");
            lua_pushvalue(L, -1);
            lua_rawseti(L, -4, (lua_Integer)i + 1);
            h->nzvecs++;
        } else {
            v = lua_touserdata(L, -1);
        }
        v->v = buf + i * n;
        v->n = (int64_t)n;
        h->zshown = (int)i + 1; /* for finish(), even if the next allocation fails */
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_remove(L, -2);
}

/* apply's d: the host's copy of the changes when every block has one
 * value, else a list of n lists. */
static void push_changes(lua_State *L, struct lhost *h, const struct call *c)
{
    if (one_each(c->off, c->n)) {
        h->d->v = host_buffer(L, h, c->n);
        if (c->n)
            memcpy(h->d->v, c->vals + (c->off ? c->off[0] : 0), c->n * sizeof(double));
        h->d->n = (int64_t)c->n;
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_d);
        return;
    }
    lua_createtable(L, (int)c->n, 0);
    for (size_t i = 0; i < c->n; i++) {
        int64_t lo = c->off[i], hi = c->off[i + 1];
        lua_createtable(L, (int)(hi - lo), 0);
        for (int64_t j = lo; j < hi; j++) {
            lua_pushnumber(L, c->vals[j]);
            lua_rawseti(L, -2, j - lo + 1);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* Runs protected: leave the hook function and its arguments on the stack,
 * or nothing when fn is not a function. */
static int prepare(lua_State *L)
{
    struct call *c = lua_touserdata(L, 1);
    struct lhost *h = c->h;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushstring(L, c->fn);
    c->fntype = lua_rawget(L, 1);
    lua_remove(L, 1);
    if (c->fntype != LUA_TFUNCTION)
        return 0;
    if (h->round != h->round_shown) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_fields);
        lua_pushinteger(L, h->round);
        lua_setfield(L, -2, "round");
        lua_pop(L, 1);
        h->round_shown = h->round;
    }
    if (h->sweep != h->sweep_shown) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_fields);
        lua_pushinteger(L, h->sweep);
        lua_setfield(L, -2, "sweep");
        lua_pop(L, 1);
        h->sweep_shown = h->sweep;
    }
    if (c->kind != CALL_PULL)
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_worker);
    if (c->kind == CALL_PUSH || c->kind == CALL_PULL || c->kind == CALL_APPLY) {
        *h->blocks = (struct ublocks){TAG_BLOCKS, c->blocks, (int64_t)c->n};
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_blocks);
    }
    switch (c->kind) {
    case CALL_PULL:
        push_sums(L, h, c);
        break;
    case CALL_APPLY:
        push_changes(L, h, c);
        break;
    case CALL_BLOCK:
        lua_pushinteger(L, c->a + 1);
        break;
    case CALL_ROWS:
        lua_pushinteger(L, c->a + 1);
        lua_pushinteger(L, c->b);
        break;
    case CALL_PUSH:
    case CALL_OBJECTIVE:
        break;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_job);
    return lua_gettop(L);
}

/* Call c->fn with the arguments of its kind. On success the hook's one
 * result is on top of the stack above base; the caller ends with
 * finish(). */
static int run(struct lhost *h, struct call *c, int base)
{
    PTM_ASSERT(h->chunk); /* a hook file was loaded */
    lua_State *L = h->L;
    c->h = h;
    begin(h);
    lua_pushcfunction(L, traceback);
    lua_pushcfunction(L, prepare);
    lua_pushlightuserdata(L, c);
    int st = lua_pcall(L, 1, LUA_MULTRET, 0);
    if (st != LUA_OK)
        return status_to_rc(h, st, "in hook", c->fn);
    if (c->fntype == LUA_TNIL)
        return fail(h, LHOST_FAIL_MISSING, "'%s' defines no function '%s'", h->chunk, c->fn);
    if (c->fntype != LUA_TFUNCTION)
        return fail(h, LHOST_FAIL_MISSING, "'%s' in '%s' is a %s, not a function", c->fn, h->chunk,
                    lua_typename(L, c->fntype));
    int nargs = lua_gettop(L) - base - 2;
    return status_to_rc(h, lua_pcall(L, nargs, 1, base + 1), "in hook", c->fn);
}

/* After a call and the reading of its result: the stack back at base, and
 * the host's S, d and z emptied, so that what a hook kept reads nothing
 * the engine may free. */
static void finish(struct lhost *h, int base)
{
    lua_State *L = h->L;
    lua_settop(L, base);
    *h->blocks = (struct ublocks){.tag = TAG_BLOCKS};
    h->d->v = NULL;
    h->d->n = 0;
    if (h->zshown) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_zvecs);
        for (int i = 1; i <= h->zshown; i++) {
            lua_rawgeti(L, -1, i);
            struct uvec *v = lua_touserdata(L, -1);
            v->v = NULL;
            v->n = 0;
            lua_pop(L, 1);
        }
        lua_settop(L, base);
        h->zshown = 0;
    }
}

bool lhost_has(struct lhost *h, const char *fn)
{
    struct call c = {.h = h, .kind = CALL_OBJECTIVE, .fn = fn};
    int base = lua_gettop(h->L);
    lua_pushcfunction(h->L, prepare);
    lua_pushlightuserdata(h->L, &c);
    int st = lua_pcall(h->L, 1, LUA_MULTRET, 0);
    lua_settop(h->L, base);
    return st == LUA_OK && c.fntype == LUA_TFUNCTION;
}

/* ---- reading results ------------------------------------------------------------ */

/* What the value at idx is, for messages: "a string", "a vector". */
static const char *what_is(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return "nil";
    case LUA_TBOOLEAN:
        return "a boolean";
    case LUA_TNUMBER:
        return "a number";
    case LUA_TSTRING:
        return "a string";
    case LUA_TTABLE:
        return "a table";
    case LUA_TFUNCTION:
        return "a function";
    case LUA_TTHREAD:
        return "a coroutine";
    case LUA_TLIGHTUSERDATA:
        return is_row_code(lua_touserdata(L, idx)) ? "a row of a vector" : "a sparse view";
    default:
        switch (*(const uint32_t *)lua_touserdata(L, idx)) {
        case TAG_VECTOR:
            return "a vector";
        case TAG_MATRIX:
            return "a matrix";
        case TAG_WORKER:
            return "the worker object";
        case TAG_ITER:
            return "the state of a loop";
        default:
            return "the block list";
        }
    }
}

static bool is_vector(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TUSERDATA &&
           ((const struct uvec *)lua_touserdata(L, idx))->tag == TAG_VECTOR;
}

static const char *nonfinite(double x)
{
    return isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

/* The number at idx into *dst; false (with the failure set) when it is
 * not a finite number. pos: its 1-based position in a list, or 0. */
static bool read_number(struct lhost *h, const char *fn, int idx, long long block, size_t pos,
                        double *dst)
{
    lua_State *L = h->L;
    int t = lua_type(L, idx);
    double x = t == LUA_TNUMBER ? lua_tonumber(L, idx) : 0;
    if (t == LUA_TNUMBER && isfinite(x)) {
        *dst = x;
        return true;
    }
    char at[40] = "";
    if (pos)
        snprintf(at, sizeof(at), " at position %zu", pos);
    if (t != LUA_TNUMBER) {
        fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %s%s for block %lld (expected a number%s)",
             fn, what_is(L, idx), at, block, pos ? "" : " or a list of numbers");
        return false;
    }
    fail(h, LHOST_FAIL_RESULT,
         "hook '%s' returned %s%s for block %lld (expected a finite "
         "number)",
         fn, nonfinite(x), at, block);
    return false;
}

/* Why a block must have `want` values, for messages. */
static const char *why_text(bool pull, int want, char *buf, size_t len)
{
    if (!pull)
        return ", as for the other blocks";
    snprintf(buf, len, ": the block has %d variable%s", want, want == 1 ? "" : "s");
    return buf;
}

/* The value(s) at idx for block (1-based): a number or a list of numbers.
 * want > 0: exactly that many (pull: the block's size; push: the other
 * blocks' count); want == 0: any count up to kmax, returned in *got. */
static bool read_values(struct lhost *h, const char *fn, int idx, long long block, int want,
                        int kmax, bool pull, double *dst, int *got)
{
    lua_State *L = h->L;
    char why[64];
    if (lua_type(L, idx) != LUA_TTABLE) {
        if (want > 1 && lua_type(L, idx) == LUA_TNUMBER) {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned 1 number for block %lld (expected "
                 "%d%s)",
                 fn, block, want, why_text(pull, want, why, sizeof(why)));
            return false;
        }
        *got = 1;
        return read_number(h, fn, idx, block, 0, dst);
    }
    size_t len = lua_rawlen(L, idx);
    if (len == 0) {
        fail(h, LHOST_FAIL_RESULT, "hook '%s' returned an empty list for block %lld", fn, block);
        return false;
    }
    if (want > 0 && len != (size_t)want) {
        fail(h, LHOST_FAIL_RESULT,
             "hook '%s' returned %zu numbers for block %lld (expected "
             "%d%s)",
             fn, len, block, want, why_text(pull, want, why, sizeof(why)));
        return false;
    }
    if (want == 0 && len > (size_t)kmax) {
        fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %zu numbers for block %lld (at most %d)", fn,
             len, block, kmax);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        bool ok = read_number(h, fn, -1, block, i + 1, &dst[i]);
        lua_pop(L, 1);
        if (!ok)
            return false;
    }
    *got = (int)len;
    return true;
}

/* A table keyed by exactly the n blocks: find a key that is not one. */
static bool check_keys(struct lhost *h, const char *fn, int idx, const int64_t *blocks, size_t n)
{
    lua_State *L = h->L;
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
    }
    if (count == n)
        return true; /* every block is present and keys are distinct */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        int isint;
        lua_Integer b = lua_tointegerx(L, -1, &isint);
        if (lua_type(L, -1) == LUA_TNUMBER && isint) {
            bool given = false;
            for (size_t i = 0; i < n && !given; i++)
                given = blocks[i] + 1 == b;
            if (given)
                continue;
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned a value for block %lld, which it "
                 "was not given",
                 fn, (long long)b);
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned a value under the key '%.40s' "
                 "(keys must be block numbers)",
                 fn, lua_tostring(L, -1));
        } else if (lua_type(L, -1) == LUA_TNUMBER) {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned a value under the key %.14g (keys "
                 "must be block numbers)",
                 fn, lua_tonumber(L, -1));
        } else {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned a value under %s key (keys must be "
                 "block numbers)",
                 fn, what_is(L, -1));
        }
        lua_pop(L, 1);
        return false;
    }
    PTM_ASSERT(0); /* more keys than blocks, yet all of them blocks: duplicate blocks */
    return false;
}

/* dst[i stride] = src[i] for i < n; false when one is not finite. x * 0
 * is 0 for a finite x, nan otherwise; four sums of them cost about one
 * cycle a value, a test and branch per value three. */
static bool copy_finite(const double *restrict src, size_t n, double *restrict dst, size_t stride)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        dst[i * stride] = src[i];
        dst[(i + 1) * stride] = src[i + 1];
        dst[(i + 2) * stride] = src[i + 2];
        dst[(i + 3) * stride] = src[i + 3];
        s0 += src[i] * 0;
        s1 += src[i + 1] * 0;
        s2 += src[i + 2] * 0;
        s3 += src[i + 3] * 0;
    }
    for (; i < n; i++) {
        dst[i * stride] = src[i];
        s0 += src[i] * 0;
    }
    return (s0 + s1) + (s2 + s3) == 0;
}

/* Which vector of a result, for messages: "a vector", "vector 2 of its
 * list". */
static const char *vector_where(bool list, size_t i, char *buf, size_t len)
{
    if (!list)
        return "a vector";
    snprintf(buf, len, "vector %zu of its list", i + 1);
    return buf;
}

/* Push results as vectors: the list of K vectors at idx, or the one
 * vector there (list false), each with one value per block; block i's
 * values go to z[i K .. i K + K). */
static bool read_push_vectors(struct lhost *h, const char *fn, int idx, bool list,
                              const int64_t *blocks, size_t n, int kmax, int *k, double *z)
{
    lua_State *L = h->L;
    size_t count = list ? lua_rawlen(L, idx) : 1, entries = 0;
    if (list) {
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            lua_pop(L, 1);
            entries++;
        }
        if (entries != count) {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned a list of %zu vector%s with other entries (expected only "
                 "the vectors)",
                 fn, count, count == 1 ? "" : "s");
            return false;
        }
    }
    if (*k > 0 && count != (size_t)*k) {
        fail(h, LHOST_FAIL_RESULT,
             "hook '%s' returned %zu vector%s (expected %d, as other workers returned)", fn, count,
             count == 1 ? "" : "s", *k);
        return false;
    }
    if (count > (size_t)kmax) {
        fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %zu vectors (at most %d)", fn, count, kmax);
        return false;
    }
    char at[40];
    for (size_t i = 0; i < count; i++) {
        if (list)
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
        else
            lua_pushvalue(L, idx);
        if (!is_vector(L, -1)) {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned %s as vector %zu of its list (expected a vector of one value "
                 "per block)",
                 fn, what_is(L, -1), i + 1);
            return false;
        }
        const struct uvec *v = lua_touserdata(L, -1);
        if (v->n != (int64_t)n) {
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned %lld value%s in %s for %zu block%s (expected one value per "
                 "block)",
                 fn, (long long)v->n, v->n == 1 ? "" : "s", vector_where(list, i, at, sizeof(at)),
                 n, n == 1 ? "" : "s");
            return false;
        }
        if (!copy_finite(v->v, n, z + i, count)) {
            size_t b = 0;
            while (isfinite(v->v[b]))
                b++;
            fail(h, LHOST_FAIL_RESULT,
                 "hook '%s' returned %s in %s for block %lld (expected a finite number)", fn,
                 nonfinite(v->v[b]), vector_where(list, i, at, sizeof(at)),
                 (long long)blocks[b] + 1);
            return false;
        }
        lua_pop(L, 1);
    }
    *k = (int)count;
    return true;
}

/* Push results as a table keyed by block. */
static bool read_push_table(struct lhost *h, const char *fn, int t, const int64_t *blocks,
                            size_t n, int kmax, int *k, double *z)
{
    lua_State *L = h->L;
    int want = *k;
    for (size_t i = 0; i < n; i++) {
        long long b = (long long)blocks[i] + 1;
        if (lua_rawgeti(L, t, b) == LUA_TNIL) {
            fail(h, LHOST_FAIL_RESULT, "hook '%s' returned no value for block %lld", fn, b);
            return false;
        }
        int got;
        double *dst = z + (size_t)i * (size_t)(want ? want : kmax);
        if (!read_values(h, fn, -1, b, want, kmax, false, dst, &got))
            return false;
        lua_pop(L, 1);
        if (want == 0)
            want = got; /* K is the first block's count */
    }
    if (!check_keys(h, fn, t, blocks, n))
        return false;
    *k = want;
    return true;
}

int lhost_push(struct lhost *h, const char *fn, const int64_t *blocks, size_t n, int kmax, int *k,
               double *z)
{
    PTM_ASSERT(kmax >= 1 && *k <= kmax && n <= INT32_MAX);
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_PUSH, .fn = fn, .blocks = blocks, .n = n};
    int rc = run(h, &c, base);
    if (rc)
        goto out;
    int t = lua_gettop(L);
    bool ok;
    rc = PTM_EINVAL;
    if (is_vector(L, t)) {
        ok = read_push_vectors(h, fn, t, false, blocks, n, kmax, k, z);
    } else if (lua_type(L, t) == LUA_TTABLE) {
        lua_rawgeti(L, t, 1); /* a vector: the list form; block values are never vectors */
        ok = is_vector(L, -1) ? read_push_vectors(h, fn, t, true, blocks, n, kmax, k, z)
                              : read_push_table(h, fn, t, blocks, n, kmax, k, z);
    } else {
        ok = false;
        fail(h, LHOST_FAIL_RESULT,
             "hook '%s' returned %s (expected a table mapping each block to a number or a list "
             "of numbers, a vector of one value per block, or a list of such vectors)",
             fn, what_is(L, t));
    }
    if (ok)
        rc = 0;
out:
    finish(h, base);
    return rc;
}

/* Pull results as a vector of one value per block, every block having one
 * variable (off: NULL or all widths 1). */
static bool read_pull_vector(struct lhost *h, const char *fn, int idx, const int64_t *blocks,
                             size_t n, const int64_t *off, double *out)
{
    const struct uvec *v = lua_touserdata(h->L, idx);
    if (!one_each(off, n)) {
        fail(h, LHOST_FAIL_RESULT,
             "hook '%s' returned a vector (blocks have several variables: expected a table "
             "mapping each block to its new values)",
             fn);
        return false;
    }
    if (v->n != (int64_t)n) {
        fail(h, LHOST_FAIL_RESULT,
             "hook '%s' returned %lld value%s in a vector for %zu block%s (expected one value "
             "per block)",
             fn, (long long)v->n, v->n == 1 ? "" : "s", n, n == 1 ? "" : "s");
        return false;
    }
    if (copy_finite(v->v, n, out + (off ? off[0] : 0), 1))
        return true;
    size_t b = 0;
    while (isfinite(v->v[b]))
        b++;
    fail(h, LHOST_FAIL_RESULT,
         "hook '%s' returned %s in a vector for block %lld (expected a finite number)", fn,
         nonfinite(v->v[b]), (long long)blocks[b] + 1);
    return false;
}

/* Pull results as a table keyed by block. */
static bool read_pull_table(struct lhost *h, const char *fn, int t, const int64_t *blocks,
                            size_t n, const int64_t *off, double *out)
{
    lua_State *L = h->L;
    for (size_t i = 0; i < n; i++) {
        long long b = (long long)blocks[i] + 1;
        int64_t lo = off ? off[i] : (int64_t)i, width = off ? off[i + 1] - lo : 1;
        PTM_ASSERT(width >= 1 && width <= INT32_MAX);
        if (lua_rawgeti(L, t, b) == LUA_TNIL) {
            fail(h, LHOST_FAIL_RESULT, "hook '%s' returned no value for block %lld", fn, b);
            return false;
        }
        int got;
        if (!read_values(h, fn, -1, b, (int)width, (int)width, true, out + lo, &got))
            return false;
        lua_pop(L, 1);
    }
    return check_keys(h, fn, t, blocks, n);
}

int lhost_pull(struct lhost *h, const char *fn, const int64_t *blocks, size_t n, const double *z,
               int k, const int64_t *off, double *out)
{
    PTM_ASSERT(k >= 1 && n <= INT32_MAX);
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_PULL, .fn = fn, .blocks = blocks, .n = n, .vals = z, .k = k};
    int rc = run(h, &c, base);
    if (rc)
        goto out;
    int t = lua_gettop(L);
    bool ok;
    rc = PTM_EINVAL;
    if (is_vector(L, t)) {
        ok = read_pull_vector(h, fn, t, blocks, n, off, out);
    } else if (lua_type(L, t) == LUA_TTABLE) {
        ok = read_pull_table(h, fn, t, blocks, n, off, out);
    } else {
        ok = false;
        fail(h, LHOST_FAIL_RESULT,
             "hook '%s' returned %s (expected a table mapping each block to its new value or "
             "values, or a vector of one value per block)",
             fn, what_is(L, t));
    }
    if (ok)
        rc = 0;
out:
    finish(h, base);
    return rc;
}

int lhost_apply(struct lhost *h, const char *fn, const int64_t *blocks, size_t n,
                const int64_t *off, const double *change)
{
    PTM_ASSERT(n <= INT32_MAX);
    int base = lua_gettop(h->L);
    struct call c = {
        .kind = CALL_APPLY, .fn = fn, .blocks = blocks, .n = n, .vals = change, .off = off};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_push_block(struct lhost *h, const char *fn, int64_t block)
{
    int base = lua_gettop(h->L);
    struct call c = {.kind = CALL_BLOCK, .fn = fn, .a = block};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_push_rows(struct lhost *h, const char *fn, int64_t begin, int64_t end)
{
    PTM_ASSERT(0 <= begin && begin <= end);
    int base = lua_gettop(h->L);
    struct call c = {.kind = CALL_ROWS, .fn = fn, .a = begin, .b = end};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_objective(struct lhost *h, const char *fn, double *out)
{
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_OBJECTIVE, .fn = fn};
    int rc = run(h, &c, base);
    if (rc)
        goto out;
    rc = PTM_EINVAL;
    if (lua_type(L, -1) != LUA_TNUMBER) {
        fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %s (expected a number)", fn,
             what_is(L, -1));
        goto out;
    }
    double x = lua_tonumber(L, -1);
    if (!isfinite(x)) {
        fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %s (expected a finite number)", fn,
             nonfinite(x));
        goto out;
    }
    *out = x;
    rc = 0;
out:
    finish(h, base);
    return rc;
}

/* ---- after a call --------------------------------------------------------------- */

const char *lhost_error(const struct lhost *h)
{
    return h->msg;
}

enum lhost_failure lhost_failure(const struct lhost *h)
{
    return h->fail;
}

size_t lhost_memory(const struct lhost *h)
{
    return h->sb.used;
}

void lhost_rng_get(const struct lhost *h, uint64_t s[LHOST_RNG_WORDS])
{
    memcpy(s, h->rng.s, sizeof(h->rng.s));
    memcpy(s + 4, h->mrng.s, sizeof(h->mrng.s));
}

void lhost_rng_set(struct lhost *h, const uint64_t s[LHOST_RNG_WORDS])
{
    memcpy(h->rng.s, s, sizeof(h->rng.s));
    memcpy(h->mrng.s, s + 4, sizeof(h->mrng.s));
}
