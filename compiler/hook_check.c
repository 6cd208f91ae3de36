/*
 * hook_check.c - checking a Lua hook file at compile time: it must load and
 * define the functions the job names.
 *
 * The file's top level runs in a sandbox (no io, os, package, debug, load,
 * dofile, loadfile, require, string.dump), under an instruction budget, a
 * wall-clock limit and a memory cap, so a job from someone else cannot touch
 * the machine by being compiled.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "diag.h"
#include "ptm.h"
#include "sem_impl.h"

enum {
    HOOK_MEM_CAP = 64 << 20,         /* bytes */
    HOOK_BUDGET = 50 * 1000 * 1000,  /* instructions */
    HOOK_STEP = 10000,               /* hook granularity */
};
#define HOOK_SECONDS 2.0

struct guard {
    size_t used;
    long steps;
    struct timespec start;
};

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct guard *g = ud;
    if (!ptr)
        osize = 0; /* osize is a type tag then */
    if (nsize == 0) {
        g->used -= osize;
        ptm_free(ptr);
        return NULL;
    }
    if (nsize > osize && g->used - osize + nsize > HOOK_MEM_CAP)
        return NULL;
    void *p = ptm_realloc(ptr, nsize);
    if (p)
        g->used = g->used - osize + nsize;
    return p;
}

static double elapsed(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct guard *g;
    lua_getallocf(L, (void **)&g);
    g->steps += HOOK_STEP;
    if (g->steps > HOOK_BUDGET)
        luaL_error(L, "the file's top level runs too long (more than %d instructions)",
                   HOOK_BUDGET);
    if (elapsed(&g->start) > HOOK_SECONDS)
        luaL_error(L, "the file's top level runs too long (more than %.0f s)", HOOK_SECONDS);
}

/* Runs inside lua_pcall: open the safe libraries, drop the unsafe parts. */
static int open_sandbox(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},       {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(libs); i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    static const char *const unsafe[] = {"dofile", "loadfile", "load", "require",
                                         "collectgarbage"};
    for (size_t i = 0; i < PTM_ARRAY_LEN(unsafe); i++) {
        lua_pushnil(L);
        lua_setglobal(L, unsafe[i]);
    }
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    return 0;
}

struct fn_query {
    const char *const *fns;
    unsigned n;
    bool *defined;
};

/* Runs inside lua_pcall: which of the names are global functions (raw
 * lookups: a metatable on _G does not count). */
static int find_functions(lua_State *L)
{
    struct fn_query *q = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    for (unsigned i = 0; i < q->n; i++) {
        q->defined[i] = false;
        if (!q->fns[i])
            continue;
        lua_pushstring(L, q->fns[i]);
        q->defined[i] = lua_rawget(L, -2) == LUA_TFUNCTION;
        lua_pop(L, 1);
    }
    return 0;
}

int hook_check(const char *path, const char *const *fns, unsigned n, bool *defined, char *err,
               size_t errlen)
{
    struct ptm_source src;
    int rc = ptm_source_read(&src, path, err, errlen);
    if (rc != 0)
        return rc;
    struct guard g = {0};
    clock_gettime(CLOCK_MONOTONIC, &g.start);
    lua_State *L = lua_newstate(capped_alloc, &g);
    if (!L) {
        ptm_source_release(&src);
        return PTM_ENOMEM;
    }
    rc = 0;
    lua_pushcfunction(L, open_sandbox);
    int st = lua_pcall(L, 0, 0, 0);
    if (st == LUA_OK) {
        char chunk[4096 + 2];
        snprintf(chunk, sizeof(chunk), "@%s", path);
        st = luaL_loadbufferx(L, src.text, src.len, chunk, "t");
        if (st == LUA_OK) {
            lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_STEP);
            st = lua_pcall(L, 0, 0, 0);
        }
    }
    if (st == LUA_OK) {
        struct fn_query q = {fns, n, defined};
        lua_pushcfunction(L, find_functions);
        lua_pushlightuserdata(L, &q);
        st = lua_pcall(L, 1, 0, 0);
    }
    if (st == LUA_ERRMEM) {
        snprintf(err, errlen, "out of memory (the limit is %d MiB)", HOOK_MEM_CAP >> 20);
        rc = g.used + 4096 < HOOK_MEM_CAP ? PTM_ENOMEM : PTM_EINVAL;
    } else if (st != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", msg ? msg : "error without a message");
        rc = PTM_EINVAL;
    }
    lua_close(L);
    ptm_source_release(&src);
    return rc;
}
