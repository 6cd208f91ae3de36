/*
 * lhost_vector.c - vectors: the full userdata over an array of the
 * engine's (registered: lua_host.c) or over doubles of its own (a new
 * vector), v[i], and the vector methods, the bulk operations over the
 * block list among them. A vector argument may be a row view, W:row(i)
 * (lhost_view.c), which lhost_check_vec decodes into the host's place for
 * that argument. Owns the vectors' metatable; a new vector's doubles are
 * the Lua state's, freed with the garbage.
 *
 * DESIGN
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
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <string.h>

#include "lua_host_impl.h"
#include "ptm.h"
#include "vec4.h"

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
const char *lhost_vlabel(lua_State *L, const struct uvec *v)
{
    if (v->row)
        return lua_pushfstring(L, "row %I of '%s'", (lua_Integer)v->row, v->name);
    return v->name ? lua_pushfstring(L, "'%s'", v->name) : "a vector";
}

/* A vector limited to the rows of the block held (struct uvec) used as a
 * whole, or a row of it outside them (row >= 0). */
int lhost_held_error(lua_State *L, const struct uvec *v, int64_t row)
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
        lhost_held_error(L, t, index);
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
struct uvec *lhost_row_view(lua_State *L, int i)
{
    void *p = lua_touserdata(L, i);
    return is_row_code(p) ? row_decode(L, i, p) : NULL;
}

/* Argument i as a vector: a vector, or a row view of one. */
struct uvec *lhost_check_vec(lua_State *L, int i)
{
    void *p = lua_touserdata(L, i);
    if (is_row_code(p))
        return row_decode(L, i, p);
    if (p && !is_view_ptr(p) && lua_type(L, i) == LUA_TUSERDATA) {
        struct uvec *v = p;
        if (v->tag == TAG_VECTOR) {
            if (v->limited)
                lhost_held_error(L, v, -1);
            return v;
        }
    }
    luaL_typeerror(L, i, "vector");
    return NULL;
}

static struct uvec *check_writable(lua_State *L, int i)
{
    struct uvec *v = lhost_check_vec(L, i);
    if (!v->writable)
        luaL_error(L, "%s is read-only", lhost_vlabel(L, v));
    return v;
}

/* A new writable vector of n doubles (not initialized), pushed. */
struct uvec *lhost_new_vector(lua_State *L, int64_t n)
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
int64_t lhost_vec_pos(lua_State *L, const struct uvec *v, int i)
{
    int isint;
    lua_Integer k = lua_tointegerx(L, i, &isint);
    if (!isint)
        luaL_error(L, "index %f of %s is not an integer", lua_tonumber(L, i), lhost_vlabel(L, v));
    if (k < 1 || k > v->n) {
        if (v->n == 0)
            luaL_error(L, "index %I out of range for %s (it is empty)", k, lhost_vlabel(L, v));
        luaL_error(L, "index %I out of range for %s (1..%I)", k, lhost_vlabel(L, v),
                   (lua_Integer)v->n);
    }
    if (v->limited && ((k - 1) / v->cols < v->lo || (k - 1) / v->cols >= v->hi))
        lhost_held_error(L, v, (k - 1) / v->cols);
    return k - 1;
}

/* __index: v[i], or a method (upvalue 1: the methods). */
static int vec_index(lua_State *L)
{
    struct uvec *v = lua_touserdata(L, 1);
    int t = lua_type(L, 2);
    if (t == LUA_TNUMBER) {
        lua_pushnumber(L, v->v[lhost_vec_pos(L, v, 2)]);
        return 1;
    }
    if (t != LUA_TSTRING)
        return luaL_error(L, "%s indexed with %s (expected a number)", lhost_vlabel(L, v),
                          luaL_typename(L, 2));
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

/* v[k] = x, k and x at 2 and 3. */
int lhost_vec_store(lua_State *L, struct uvec *v)
{
    if (!v->writable)
        return luaL_error(L, "%s is read-only", lhost_vlabel(L, v));
    if (lua_type(L, 2) != LUA_TNUMBER)
        return luaL_error(L, "%s indexed with %s (expected a number)", lhost_vlabel(L, v),
                          luaL_typename(L, 2));
    int64_t k = lhost_vec_pos(L, v, 2);
    if (lua_type(L, 3) != LUA_TNUMBER)
        return luaL_error(L, "cannot store %s in %s (numbers only)", luaL_typename(L, 3),
                          lhost_vlabel(L, v));
    v->v[k] = lua_tonumber(L, 3);
    return 0;
}

static int vec_newindex(lua_State *L)
{
    return lhost_vec_store(L, lua_touserdata(L, 1));
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

/* ---- bulk vector operations --------------------------------------------------- */

static struct uvec *check_same(lua_State *L, int i, const struct uvec *v)
{
    struct uvec *u = lhost_check_vec(L, i);
    if (u->n != v->n)
        luaL_error(L, "size mismatch: %s has %I elements, %s has %I", lhost_vlabel(L, v),
                   (lua_Integer)v->n, lhost_vlabel(L, u), (lua_Integer)u->n);
    return u;
}

int lhost_v_dot(lua_State *L)
{
    void *p2 = lua_touserdata(L, 2);
    struct uvec *v = lhost_check_vec(L, 1);
    struct view x;
    if (is_view_ptr(p2) && !is_row_code(p2) && lhost_view_decode(L, 2, &x)) {
        lhost_check_partner(L, 1, &x);
        lua_pushnumber(L, sparse_dot(x.idx, x.val, x.len, v->v));
        return 1;
    }
    struct uvec *u = is_row_code(p2) ? row_decode(L, 2, p2) : lhost_check_vec(L, 2);
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
    struct uvec *u = lhost_check_vec(L, 2);
    if (u->n != v->n)
        check_same(L, 2, v); /* the message */
    if (!u->writable)
        return luaL_error(L, "%s is read-only", lhost_vlabel(L, u));
    int ok[4];
    double a = lua_tonumberx(L, 3, &ok[0]), b = lua_tonumberx(L, 4, &ok[1]),
           c = lua_tonumberx(L, 5, &ok[2]), d = lua_tonumberx(L, 6, &ok[3]);
    for (int k = 0; k < 4; k++)
        if (!ok[k])
            luaL_checknumber(L, 3 + k); /* the message */
    if (u->v == v->v && v->n > 0)
        return luaL_error(L, "v:mix(u) needs two vectors: %s is both", lhost_vlabel(L, v));
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

int lhost_v_axpy(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double c = luaL_checknumber(L, 2);
    struct view x;
    if (lhost_view_decode(L, 3, &x)) {
        lhost_check_partner(L, 1, &x);
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

/* v:add(u): v[k] += u[k]; v:add(c): v[k] += c. */
static int v_add(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double *a = v->v;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        double c = lua_tonumber(L, 2);
        EACH(k, v->n, a[k] += c;);
    } else {
        const struct uvec *u = check_same(L, 2, v);
        const double *b = u->v; /* may be a itself */
        EACH(k, v->n, a[k] += b[k];);
    }
    lua_settop(L, 1);
    return 1;
}

/* v:max(u), v:min(u): element by element, v[k] = max(v[k], u[k]); with a
 * number c, max(v[k], c). A NaN in u or c leaves v[k] as it is; one in v
 * stays. */
static int v_maxmin(lua_State *L, bool max)
{
    struct uvec *v = check_writable(L, 1);
    double *a = v->v;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        double c = lua_tonumber(L, 2);
        if (max)
            EACH(k, v->n, a[k] = c > a[k] ? c : a[k];);
        else
            EACH(k, v->n, a[k] = c < a[k] ? c : a[k];);
    } else {
        if (lua_type(L, 2) != LUA_TUSERDATA && lua_type(L, 2) != LUA_TLIGHTUSERDATA)
            luaL_typeerror(L, 2, "vector or number");
        const struct uvec *u = check_same(L, 2, v);
        const double *b = u->v; /* may be a itself */
        if (max)
            EACH(k, v->n, a[k] = b[k] > a[k] ? b[k] : a[k];);
        else
            EACH(k, v->n, a[k] = b[k] < a[k] ? b[k] : a[k];);
    }
    lua_settop(L, 1);
    return 1;
}

static int v_max(lua_State *L)
{
    return v_maxmin(L, true);
}

static int v_min(lua_State *L)
{
    return v_maxmin(L, false);
}

/* v:clip(lo, hi): every element into [lo, hi] (lo <= hi; a NaN stays). */
static int v_clip(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    double lo = luaL_checknumber(L, 2), hi = luaL_checknumber(L, 3);
    if (!(lo <= hi))
        return luaL_error(L, "clip needs lo <= hi, not %f > %f", lo, hi);
    double *restrict a = v->v;
    EACH(k, v->n, double c = a[k] < lo ? lo : a[k]; a[k] = c > hi ? hi : c;);
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
                                  (lua_Integer)k + 1, lhost_vlabel(L, u));
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
    return lhost_check_vec(L, 1);
}

/* W:row(i): row i of a registered vector (its elements (i - 1) cols + 1 ..
 * i cols) as a vector, without allocating: a view like X:row(i). */
static int v_row(lua_State *L)
{
    struct uvec *v = check_table(L);
    if (v->slot < 0)
        return luaL_error(L, "%s has no rows: row views are of the job's parameters and data",
                          lhost_vlabel(L, v));
    lua_Integer i = luaL_checkinteger(L, 2);
    int64_t rows = v->rows;
    if (i < 1 || i > rows)
        return luaL_error(L, "row %I out of range for '%s' (1..%I)", i, v->name, (lua_Integer)rows);
    if (i - 1 > (lua_Integer)UINT32_MAX)
        return luaL_error(L, "row %I of '%s' is beyond the rows views can name", i, v->name);
    if (v->limited && (i - 1 < v->lo || i - 1 >= v->hi))
        return lhost_held_error(L, v, i - 1);
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
    const struct uvec *v = lhost_check_vec(L, 1);
    struct uvec *u = lhost_new_vector(L, v->n);
    if (v->n)
        memcpy(u->v, v->v, (size_t)v->n * sizeof(double));
    return 1;
}

/* v:gather(S): a new vector of v[S[k]]. */
static int v_gather(lua_State *L)
{
    const struct uvec *v = lhost_check_vec(L, 1);
    const struct ublocks *s = lhost_check_blocks(L, 2);
    double *restrict u = lhost_new_vector(L, s->n)->v;
    const double *restrict a = v->v;
    const int64_t *restrict b = s->b;
    int64_t n = v->n;
    EACH(k, s->n, { /* checked as it goes: see set_decode() in lhost_view.c */
        if (b[k] >= n)
            return lhost_block_range_error(L, v, b[k]);
        u[k] = a[b[k]];
    });
    return 1;
}

/* v:scatter(S, u): v[S[k]] = u[k]. */
static int v_scatter(lua_State *L)
{
    struct uvec *v = check_writable(L, 1);
    const struct ublocks *s = lhost_check_blocks(L, 2);
    const struct uvec *u = lhost_check_per_block(L, 3, s);
    lhost_check_indexes(L, s, v);
    double *a = v->v;
    const double *c = u->v; /* may be a itself */
    const int64_t *b = s->b;
    EACH(k, s->n, a[b[k]] = c[k];);
    lua_settop(L, 1);
    return 1;
}

int lhost_v_sum(lua_State *L)
{
    struct uvec *v = lhost_check_vec(L, 1);
    double s = 0;
    for (int64_t k = 0; k < v->n; k++)
        s += v->v[k];
    lua_pushnumber(L, s);
    return 1;
}

int lhost_v_nnz(lua_State *L)
{
    struct uvec *v = lhost_check_vec(L, 1);
    lua_Integer c = 0;
    for (int64_t k = 0; k < v->n; k++)
        c += v->v[k] != 0;
    lua_pushinteger(L, c);
    return 1;
}

int lhost_v_norm2(lua_State *L)
{
    struct uvec *v = lhost_check_vec(L, 1);
    double s = 0;
    for (int64_t k = 0; k < v->n; k++)
        s += v->v[k] * v->v[k];
    lua_pushnumber(L, s);
    return 1;
}

static int v_norm1(lua_State *L)
{
    struct uvec *v = lhost_check_vec(L, 1);
    double s = 0;
    for (int64_t k = 0; k < v->n; k++)
        s += fabs(v->v[k]);
    lua_pushnumber(L, s);
    return 1;
}

const luaL_Reg lhost_row_methods[] = {
    {"scale", v_scale},   {"fill", v_fill},       {"norm1", v_norm1}, {"add", v_add},
    {"mul", v_mul},       {"div", v_div},         {"soft", v_soft},   {"copy", v_copy},
    {"gather", v_gather}, {"scatter", v_scatter}, {"mix", v_mix},     {"size", v_size},
    {"max", v_max},       {"min", v_min},         {"clip", v_clip},   {NULL, NULL},
};
_Static_assert(PTM_ARRAY_LEN(lhost_row_methods) == LHOST_ROW_METHODS + 1,
               "LHOST_ROW_METHODS counts lhost_row_methods");

/* The vectors' metatable, in the registry (h->ref_vecmt). */
void lhost_open_vectors(lua_State *L, struct lhost *h)
{
    static const luaL_Reg vec_methods[] = {
        {"dot", lhost_v_dot},
        {"axpy", lhost_v_axpy},
        {"scale", v_scale},
        {"fill", v_fill},
        {"sum", lhost_v_sum},
        {"nnz", lhost_v_nnz},
        {"norm2", lhost_v_norm2},
        {"norm1", v_norm1},
        {"add", v_add},
        {"mul", v_mul},
        {"div", v_div},
        {"soft", v_soft},
        {"copy", v_copy},
        {"gather", v_gather},
        {"scatter", v_scatter},
        {"mix", v_mix},
        {"max", v_max},
        {"min", v_min},
        {"clip", v_clip},
        {"row", v_row},
        {"size", v_size},
        {NULL, NULL},
    };
    lhost_new_metatable(L, "vector");
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
}
