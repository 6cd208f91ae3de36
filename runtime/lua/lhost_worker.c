/*
 * lhost_worker.c - the worker object w that hooks are handed: its fields
 * (w.id, w.workers, w.rows, w.round, w.sweep, and each registered object
 * by its name), its functions w:vector() and w:block() (w:random() is
 * lhost_random.c's), and the names no registered object may take. Owns
 * the fields table and the worker's metatable; lua_host.c adds the
 * objects to the fields, lhost_call.c updates w.round and w.sweep.
 *
 * DESIGN
 *
 * The worker object is a userdata whose metatable's __index is a hidden
 * table of fields (w.X is one table lookup, no C call) and whose
 * __newindex refuses writes, so a hook cannot break what other calls see.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "lua_host_impl.h"
#include "ptm.h"

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
    double *restrict u = lhost_new_vector(L, n)->v;
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

/* The worker object's own fields. */
static const char *const reserved[] = {"id",    "workers", "rows",   "round",
                                       "sweep", "random",  "vector", "block"};

bool lhost_is_worker_field(const char *name)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(reserved); i++)
        if (strcmp(reserved[i], name) == 0)
            return true;
    return false;
}

/* The worker: a proxy over the fields table (h->ref_fields, h->ref_worker). */
void lhost_open_worker(lua_State *L, struct lhost *h)
{
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
    lua_pushcfunction(L, lhost_w_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, w_vector);
    lua_setfield(L, -2, "vector");
    lua_pushcfunction(L, w_block);
    lua_setfield(L, -2, "block");
    lua_pushvalue(L, -1);
    h->ref_fields = luaL_ref(L, LUA_REGISTRYINDEX);
    struct uworker *w = lua_newuserdatauv(L, sizeof(*w), 0);
    w->tag = TAG_WORKER;
    lhost_new_metatable(L, "worker");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, worker_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, worker_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    h->ref_worker = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
}
