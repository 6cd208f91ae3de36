/*
 * lhost_blocks.c - the block list S of push, pull and apply: a read-only
 * userdata over the engine's array of blocks (one a host, re-pointed at
 * every call by lhost_call.c), and the checks of the bulk operations that
 * take it: blocks that index a vector, a vector of one value per block.
 * Owns the block list's metatable.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>

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
    if (u->n != s->n)
        luaL_error(L, "size mismatch: the block list has %I blocks, %s has %I elements",
                   (lua_Integer)s->n, lhost_vlabel(L, u), (lua_Integer)u->n);
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
