/*
 * lua_sandbox.c - opening a Lua state that hooks cannot escape.
 *
 * DESIGN: the libraries are opened inside lua_pcall, so an allocation
 * failure there is an error, not a panic. Forbidden names are removed and
 * a metatable on the globals table turns a read of one of them into an
 * error that names the rule; any other missing global reads as nil, as in
 * plain Lua. The instruction budget is a count hook that also checks the
 * wall clock, so a loop that allocates nothing still stops in time.
 */
#define _POSIX_C_SOURCE 200809L
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

enum { HOOK_STEP = 1000 };

static const char *const forbidden[] = {
    "io", "os", "package", "debug", "require", "load", "loadfile", "dofile", "collectgarbage",
};

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct lsandbox *sb = ud;
    if (!ptr)
        osize = 0; /* osize is a type tag then */
    if (nsize == 0) {
        sb->used -= osize;
        ptm_free(ptr);
        return NULL;
    }
    if (nsize > osize && sb->used - osize + nsize > sb->cap) {
        sb->capped = true;
        return NULL;
    }
    void *p = ptm_realloc(ptr, nsize);
    if (p)
        sb->used = sb->used - osize + nsize;
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
    void *ud;
    lua_getallocf(L, &ud);
    struct lsandbox *sb = ud;
    sb->steps += HOOK_STEP;
    if (sb->steps > sb->budget)
        luaL_error(L, "instruction budget exceeded (%d million instructions)",
                   (int)(sb->budget / 1000000));
    if (elapsed(&sb->start) > sb->seconds)
        luaL_error(L, "time limit exceeded (%d ms)", (int)(sb->seconds * 1000));
}

static int refuse_name(lua_State *L)
{
    const char *k = lua_tostring(L, 2);
    for (size_t i = 0; k && i < PTM_ARRAY_LEN(forbidden); i++)
        if (strcmp(k, forbidden[i]) == 0)
            return luaL_error(L, "'%s' is not available in ptm hooks (they cannot touch files, "
                              "load code or run commands)", k);
    return 0; /* nil, as for any unset global */
}

static int refuse_dump(lua_State *L)
{
    return luaL_error(L, "'string.dump' is not available in ptm hooks (hooks cannot make "
                         "bytecode)");
}

static int refuse_pattern(lua_State *L)
{
    return luaL_error(L, "Lua patterns are not available in ptm hooks; use "
                         "string.find(s, text, 1, true) for plain text");
}

/* string.find with plain = true only. */
static int plain_find(lua_State *L)
{
    if (!lua_toboolean(L, 4))
        return refuse_pattern(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int open_sandbox(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},        {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(libs); i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < PTM_ARRAY_LEN(forbidden); i++) {
        lua_pushnil(L);
        lua_setglobal(L, forbidden[i]);
    }
    lua_getglobal(L, "string");
    lua_pushcfunction(L, refuse_dump);
    lua_setfield(L, -2, "dump");
    static const char *const patterns[] = {"match", "gmatch", "gsub"};
    for (size_t i = 0; i < PTM_ARRAY_LEN(patterns); i++) {
        lua_pushcfunction(L, refuse_pattern);
        lua_setfield(L, -2, patterns[i]);
    }
    lua_getfield(L, -1, "find");
    lua_pushcclosure(L, plain_find, 1);
    lua_setfield(L, -2, "find");
    lua_pop(L, 1);
    /* math.random is seeded per state from the clock: make it repeatable. */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, 1);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
    lua_pushglobaltable(L);
    lua_newtable(L);
    lua_pushcfunction(L, refuse_name);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
    return 0;
}

lua_State *lsandbox_new(struct lsandbox *sb, size_t cap, long budget, double seconds)
{
    memset(sb, 0, sizeof(*sb));
    sb->cap = cap;
    sb->budget = budget;
    sb->seconds = seconds;
    lua_State *L = lua_newstate(capped_alloc, sb);
    if (!L)
        return NULL;
    lua_pushcfunction(L, open_sandbox);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_close(L);
        return NULL; /* only memory can fail here */
    }
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_STEP);
    return L;
}

void lsandbox_begin(lua_State *L, struct lsandbox *sb)
{
    (void)L;
    sb->steps = 0;
    clock_gettime(CLOCK_MONOTONIC, &sb->start);
}

int lsandbox_load(lua_State *L, const char *text, size_t len, const char *name)
{
    size_t n = strlen(name);
    char *chunk = ptm_malloc(n + 2);
    if (!chunk)
        return LUA_ERRMEM; /* nothing pushed: pushing could raise unprotected */
    chunk[0] = '@';
    memcpy(chunk + 1, name, n + 1);
    int st = luaL_loadbufferx(L, text, len, chunk, "t");
    ptm_free(chunk);
    return st;
}
