/*
 * lua_sandbox.c - opening a Lua state that hooks cannot escape.
 *
 * DESIGN: the libraries are opened inside lua_pcall, so an allocation
 * failure there is an error, not a panic. Forbidden names are removed and
 * a metatable on the globals table turns a read of one of them into an
 * error that names the rule; any other missing global reads as nil, as in
 * plain Lua. The instruction budget is a count hook that also checks the
 * wall clock, so a loop that allocates nothing still stops in time; once
 * it has fired, the hook fires at every instruction, so a hook cannot
 * catch the stop with pcall and carry on. Lua runs some code with hooks
 * off (finalizers, the message handler of an error raised by the hook,
 * the __close metamethods of a coroutine such an error killed): __gc is
 * refused, and xpcall, coroutine.close and coroutine.wrap are wrapped so
 * that none of that code runs. C functions that could loop long without
 * running a Lua instruction or allocating (plain string.find, string.rep
 * of nothing, table.move/insert/remove over a length claimed by __len)
 * refuse such arguments; the three table functions are rewritten rather
 * than wrapped, so that their messages keep their names and lines.
 */
#define _POSIX_C_SOURCE 200809L
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

enum { HOOK_STEP = 1000 };
/* Byte comparisons a plain string.find may need at worst. */
#define FIND_WORK_MAX 1e9

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

static void budget_hook(lua_State *L, lua_Debug *ar);

/* Raise the error that stops the call, and keep raising it: this thread's
 * hook now runs at every instruction, so the first instruction after a
 * pcall, xpcall or coroutine.resume that caught the error raises it again
 * and the stop reaches the caller of the hook. The message is placed at
 * the running function (level 0: a hook has no frame of its own). */
static void stop_call(lua_State *L, struct lsandbox *sb)
{
    char why[80];
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 0);
    lua_pushstring(L, lsandbox_stop_text(sb, why, sizeof(why)));
    lua_concat(L, 2);
    lua_error(L);
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    struct lsandbox *sb = ud;
    int period = lua_gethookcount(L);
    sb->steps += period;
    if (sb->stop != LSANDBOX_RUNNING)
        stop_call(L, sb);
    if (period != HOOK_STEP) /* a coroutine an earlier call left stopping */
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_STEP);
    if (sb->steps > sb->budget) {
        sb->stop = LSANDBOX_BUDGET;
        stop_call(L, sb);
    }
    if (elapsed(&sb->start) > sb->seconds) {
        sb->stop = LSANDBOX_TIME;
        stop_call(L, sb);
    }
}

static struct lsandbox *sandbox_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* The table library's C loops (move, and the shifts of insert and remove)
 * run no Lua instruction, so the budget cannot stop them: refuse a count
 * that no table under the memory cap can have (a __len metamethod can
 * claim any length). */
static void check_count(lua_State *L, lua_Integer n, const char *fn)
{
    struct lsandbox *sb = sandbox_of(L);
    if (n > (lua_Integer)(sb->cap / 8))
        luaL_error(L, "'%s' over %I elements refused: no table under the memory cap holds that "
                      "many", fn, n);
}

static int all_results(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L);
}

/* Call the wrapped function (upvalue 1) with our arguments; it may yield. */
static int call_original(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, all_results);
    return lua_gettop(L);
}

/* The message handler of xpcall. Lua calls it for an error raised inside
 * the count hook with hooks disabled, so the hook's own handler would run
 * unstopped: once the call is stopping, the message passes through. */
static int guarded_handler(lua_State *L)
{
    if (sandbox_of(L)->stop != LSANDBOX_RUNNING)
        return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int guarded_xpcall(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    return call_original(L);
}

/* Finalizers run with hooks off (Lua stops debug hooks during a __gc
 * metamethod), where no budget reaches them. Lua marks a table for
 * finalization only when its metatable has __gc at setmetatable time, so
 * refusing it there is enough. */
static int guarded_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        bool gc = lua_rawget(L, 2) != LUA_TNIL;
        lua_pop(L, 1);
        if (gc)
            return luaL_error(L, "__gc metamethods are not available in ptm hooks (finalizers "
                                 "run where the instruction budget cannot stop them)");
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* A coroutine that died of an error raised by the count hook keeps hooks
 * off, so closing it would run its __close metamethods unstopped:
 * coroutine.close and coroutine.wrap leave the to-be-closed variables of a
 * coroutine that died of an error unclosed. */
static int guarded_close(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    lua_Debug ar;
    luaL_argexpected(L, co, 1, "coroutine");
    if (co == L)
        return luaL_error(L, "cannot close a running coroutine");
    if (lua_status(co) == LUA_OK && lua_getstack(co, 0, &ar))
        return luaL_error(L, "cannot close a normal coroutine");
    if (lua_status(co) != LUA_OK && lua_status(co) != LUA_YIELD) {
        lua_pushboolean(L, 0);
        if (lua_gettop(co) > 0) {
            lua_pushvalue(co, -1);
            lua_xmove(co, L, 1);
        } else {
            lua_pushnil(L);
        }
        return 2;
    }
    return call_original(L);
}

/* The function coroutine.wrap returns: resume (upvalue 2) the coroutine
 * (upvalue 1) and return its results, or raise its error as Lua's own
 * wrap does, without closing the coroutine. */
static int wrap_call(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rotate(L, 1, 2);
    lua_call(L, n + 1, LUA_MULTRET);
    if (lua_toboolean(L, 1))
        return lua_gettop(L) - 1;
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    lua_settop(L, 2);
    if (lua_status(co) != LUA_ERRMEM && lua_type(L, 2) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, 2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* coroutine.wrap(f), with upvalues coroutine.create and coroutine.resume. */
static int guarded_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushcclosure(L, wrap_call, 2);
    return 1;
}

/* A table argument, or a value with the metamethods the table library
 * uses (a vector of the Lua host). */
static void check_table(lua_State *L, int arg)
{
    if (lua_type(L, arg) == LUA_TTABLE)
        return;
    if (luaL_getmetafield(L, arg, "__len") != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    luaL_checktype(L, arg, LUA_TTABLE);
}

/* table.insert, table.remove and table.move as Lua 5.4 has them, with the
 * count checked first. (Wrapping Lua's own would lose the function's name
 * and the caller's line in their messages: they would run below a C
 * function.) */
static int guarded_insert(lua_State *L)
{
    check_table(L, 1);
    lua_Integer e = luaL_len(L, 1), pos;
    check_count(L, e, "table.insert");
    e++; /* the first empty slot */
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int guarded_remove(lua_State *L)
{
    check_table(L, 1);
    lua_Integer size = luaL_len(L, 1);
    check_count(L, size, "table.remove");
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2,
                      "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int guarded_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    check_table(L, 1);
    check_table(L, tt);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f; /* elements to move, less one */
        check_count(L, n == LUA_MAXINTEGER ? n : n + 1, "table.move");
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n, 4, "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i <= n; i++) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = n; i >= 0; i--) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

/* string.rep of an empty string and separator loops n times copying
 * nothing, however large n is. */
static int guarded_rep(lua_State *L)
{
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    if (!lua_isnoneornil(L, 3))
        luaL_checklstring(L, 3, &lsep);
    if (n > 0 && l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (n > 0 && (l + lsep < l || l + lsep > (size_t)INT_MAX / (size_t)n))
        return luaL_error(L, "resulting string too large");
    return call_original(L);
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

/* string.find with plain = true only. Its search compares the text at
 * every position of the string, in C: refuse sizes that could take long. */
static int plain_find(lua_State *L)
{
    if (!lua_toboolean(L, 4))
        return refuse_pattern(L);
    size_t ls, lp;
    luaL_checklstring(L, 1, &ls);
    luaL_checklstring(L, 2, &lp);
    luaL_optinteger(L, 3, 1);
    if (lp > 1 && lp <= ls && (double)(ls - lp + 1) * (double)lp > FIND_WORK_MAX)
        return luaL_error(L, "string.find of a %I-byte text in a %I-byte string refused (the "
                             "search could run for minutes)", (lua_Integer)lp, (lua_Integer)ls);
    return call_original(L);
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
    lua_getfield(L, -1, "rep");
    lua_pushcclosure(L, guarded_rep, 1);
    lua_setfield(L, -2, "rep");
    lua_pop(L, 1);
    static const luaL_Reg guarded[] = {
        {"move", guarded_move}, {"insert", guarded_insert}, {"remove", guarded_remove},
        {NULL, NULL}};
    lua_getglobal(L, "xpcall");
    lua_pushcclosure(L, guarded_xpcall, 1);
    lua_setglobal(L, "xpcall");
    lua_pushcfunction(L, guarded_setmetatable);
    lua_setglobal(L, "setmetatable");
    lua_getglobal(L, "coroutine");
    lua_getfield(L, -1, "close");
    lua_pushcclosure(L, guarded_close, 1);
    lua_setfield(L, -2, "close");
    lua_getfield(L, -1, "create");
    lua_getfield(L, -2, "resume");
    lua_pushcclosure(L, guarded_wrap, 2);
    lua_setfield(L, -2, "wrap");
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    luaL_setfuncs(L, guarded, 0);
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

const char *lsandbox_stop_text(const struct lsandbox *sb, char *buf, size_t len)
{
    if (sb->stop == LSANDBOX_TIME)
        snprintf(buf, len, "time limit exceeded (%d ms)", (int)(sb->seconds * 1000));
    else if (sb->budget % 1000000 == 0)
        snprintf(buf, len, "instruction budget exceeded (%ld million instructions)",
                 sb->budget / 1000000);
    else
        snprintf(buf, len, "instruction budget exceeded (%ld instructions)", sb->budget);
    return buf;
}

void lsandbox_begin(lua_State *L, struct lsandbox *sb)
{
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_STEP); /* the main thread may be stopping */
    sb->steps = 0;
    sb->stop = LSANDBOX_RUNNING;
    sb->capped = false;
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
    /* as lua's own loadfile: a UTF-8 byte order mark is skipped, and a
     * first line starting with '#' (#!/usr/bin/env lua) is ignored; its
     * newline stays, so line numbers stay right */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        text += 3;
        len -= 3;
    }
    if (len > 0 && text[0] == '#') {
        const char *nl = memchr(text, '\n', len);
        size_t skip = nl ? (size_t)(nl - text) : len;
        text += skip;
        len -= skip;
    }
    int st = luaL_loadbufferx(L, text, len, chunk, "t");
    ptm_free(chunk);
    return st;
}
