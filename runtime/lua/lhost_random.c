/*
 * lhost_random.c - the random numbers hooks draw: w:random() and
 * math.random, each from its own generator of the worker's (struct lhost's
 * rng and mrng), seeded from the job's seed and the worker's number, and
 * their state for checkpoints (lhost_rng_get/set). Owns nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "lua_host_impl.h"
#include "rng.h"

/* The generators of w:random() and math.random: xoshiro256** (rng.h), as
 * Lua's own math.random, seeded from (a, b) as Lua's randomseed(a, b). */
void lhost_seed_rng(struct ptm_rng *g, uint64_t a, uint64_t b)
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

int lhost_w_random(lua_State *L)
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
    lhost_seed_rng(&host_of(L)->mrng, (uint64_t)a, (uint64_t)b);
    return 0;
}

/* math.random and math.randomseed: the worker's second generator. */
void lhost_open_random(lua_State *L)
{
    lua_getglobal(L, "math");
    lua_pushcfunction(L, math_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, math_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
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
