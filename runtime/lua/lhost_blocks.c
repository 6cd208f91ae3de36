/*
 * lhost_blocks.c - the block list S of push, pull and apply: a read-only
 * userdata over the engine's array of blocks (one a host, re-pointed at
 * every call by lhost_call.c), and the checks of the bulk operations that
 * take it: blocks that index a vector, a vector of one value per block;
 * and the lists of indices a hook gives X:cols() and X:rows() instead of
 * S, copied and checked into a struct uset. Owns the block list's
 * metatable.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <math.h>

#include "lua_host_impl.h"

const struct ublocks *lhost_check_blocks(lua_State *L, int i)
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
int64_t lhost_block_beyond(const struct ublocks *s, int64_t limit)
{
    for (int64_t k = 0; k < s->n; k++)
        if (s->b[k] >= limit)
            return s->b[k];
    return -1;
}

int lhost_block_range_error(lua_State *L, const struct uvec *v, int64_t block)
{
    if (v->n == 0)
        return luaL_error(L, "block %I out of range for %s (it is empty)", (lua_Integer)block + 1,
                          lhost_vlabel(L, v));
    return luaL_error(L, "block %I out of range for %s (1..%I)", (lua_Integer)block + 1,
                      lhost_vlabel(L, v), (lua_Integer)v->n);
}

/* Every block of s is an index of v. */
void lhost_check_indexes(lua_State *L, const struct ublocks *s, const struct uvec *v)
{
    int64_t b = lhost_block_beyond(s, v->n);
    if (b >= 0)
        lhost_block_range_error(L, v, b);
}

/* A vector argument with one value per block of s. */
struct uvec *lhost_check_per_block(lua_State *L, int i, const struct ublocks *s)
{
    struct uvec *u = lhost_check_vec(L, i);
    if (u->n != s->n) {
        if (s == host_of(L)->blocks)
            luaL_error(L, "size mismatch: the block list has %I blocks, %s has %I elements",
                       (lua_Integer)s->n, lhost_vlabel(L, u), (lua_Integer)u->n);
        luaL_error(L, "size mismatch: the list has %I indices, %s has %I elements",
                   (lua_Integer)s->n, lhost_vlabel(L, u), (lua_Integer)u->n);
    }
    return u;
}

/* Index k (1-based) of a list, x, as a 0-based member below count. */
static int64_t list_member(lua_State *L, lua_Integer k, double x, int64_t count, const char *what,
                           const char *m)
{
    if (x != floor(x) || !isfinite(x))
        luaL_error(L, "index %I of the list is %f, not a %s number of '%s' (1..%I)", k, x, what, m,
                   (lua_Integer)count);
    if ((x < 1 || x > (double)count) && fabs(x) < 0x1p62)
        luaL_error(L, "%s %I out of range for '%s' (1..%I), index %I of the list", what,
                   (lua_Integer)x, m, (lua_Integer)count, k);
    if (x < 1 || x > (double)count)
        luaL_error(L, "%s %f out of range for '%s' (1..%I), index %I of the list", what, x, m,
                   (lua_Integer)count, k);
    return (int64_t)x - 1;
}

struct uset *lhost_index_list(lua_State *L, int i, int slot, int kind, int64_t count,
                              const char *m)
{
    const char *what = kind == VIEW_COLS ? "column" : "row";
    int t = lua_type(L, i);
    if (t == LUA_TUSERDATA) {
        struct ublocks *s = lua_touserdata(L, i);
        if (s->tag == TAG_BLOCKS)
            return NULL;
    }
    const struct uvec *v = NULL;
    lua_Integer n;
    if (t == LUA_TTABLE)
        n = (lua_Integer)lua_rawlen(L, i);
    else if (t == LUA_TUSERDATA || t == LUA_TLIGHTUSERDATA) {
        void *p = lua_touserdata(L, i);
        if (!is_row_code(p) && (is_view_ptr(p) || ((struct uvec *)p)->tag != TAG_VECTOR))
            luaL_typeerror(L, i, "block list, table or vector");
        v = lhost_check_vec(L, i);
        n = v->n;
    } else {
        luaL_typeerror(L, i, "block list, table or vector");
        return NULL;
    }
    if (n > (lua_Integer)((SIZE_MAX / 2 - sizeof(struct uset)) / sizeof(int64_t)))
        luaL_error(L, "a list of %I indices is too long", n);
    struct uset *u = lua_newuserdatauv(L, sizeof(*u) + (size_t)n * sizeof(int64_t), 0);
    *u = (struct uset){.tag = TAG_SET, .slot = slot, .kind = kind, .list = {TAG_BLOCKS, u->idx, n}};
    for (lua_Integer k = 1; k <= n; k++) {
        double x;
        if (v) {
            x = v->v[k - 1];
        } else {
            int ty = lua_rawgeti(L, i, k);
            if (ty != LUA_TNUMBER)
                luaL_error(L, "index %I of the list is %s, not a %s number of '%s' (1..%I)", k,
                           ty == LUA_TNIL ? "nil" : luaL_typename(L, -1), what, m,
                           (lua_Integer)count);
            x = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        u->idx[k - 1] = list_member(L, k, x, count, what, m);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, host_of(L)->ref_setmt);
    lua_setmetatable(L, -2);
    return u;
}

/* The host's S, empty until a call (h->blocks, h->ref_blocks). */
void lhost_open_blocks(lua_State *L, struct lhost *h)
{
    h->blocks = lua_newuserdatauv(L, sizeof(*h->blocks), 0);
    *h->blocks = (struct ublocks){.tag = TAG_BLOCKS};
    lhost_new_metatable(L, "block list");
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
}
