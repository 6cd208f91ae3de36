/*
 * hook_check.c - checking a Lua hook file at compile time: it must load and
 * define the functions the job names.
 *
 * The file's top level runs in the hooks' sandbox (runtime/lua/lua_sandbox.h)
 * under a budget, so a job from someone else cannot touch the machine, or
 * hang the compiler, by being compiled.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "lua_sandbox.h"
#include "ptm.h"
#include "sem_impl.h"

enum {
    CHECK_MEM_CAP = 64 << 20,         /* bytes */
    CHECK_BUDGET = 50 * 1000 * 1000,  /* instructions */
};
#define CHECK_SECONDS 2.0

struct fn_query {
    const char *const *fns;
    unsigned n;
    struct hook_fn *found;
};

/* Runs inside lua_pcall: what each of the names is (raw lookups: a
 * metatable on _G does not count). */
static int find_functions(lua_State *L)
{
    struct fn_query *q = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    for (unsigned i = 0; i < q->n; i++) {
        struct hook_fn *f = &q->found[i];
        *f = (struct hook_fn){0};
        if (!q->fns[i])
            continue;
        lua_pushstring(L, q->fns[i]);
        int t = lua_rawget(L, -2);
        f->defined = t == LUA_TFUNCTION;
        if (t != LUA_TNIL && !f->defined)
            f->other = lua_typename(L, t);
        if (f->defined) {
            lua_Debug ar;
            lua_getinfo(L, ">u", &ar);
            f->nparams = ar.nparams;
            f->vararg = ar.isvararg;
        } else {
            lua_pop(L, 1);
        }
    }
    return 0;
}

int hook_check(const char *path, const char *const *fns, unsigned n, struct hook_fn *found,
               char *err, size_t errlen)
{
    struct ptm_source src;
    int rc = ptm_source_read(&src, path, err, errlen);
    if (rc != 0)
        return rc;
    struct lsandbox sb;
    lua_State *L = lsandbox_new(&sb, CHECK_MEM_CAP, CHECK_BUDGET, CHECK_SECONDS);
    if (!L) {
        ptm_source_release(&src);
        return PTM_ENOMEM;
    }
    lsandbox_begin(L, &sb);
    int st = lsandbox_load(L, src.text, src.len, path);
    if (st == LUA_OK)
        st = lua_pcall(L, 0, 0, 0);
    if (st == LUA_OK) {
        struct fn_query q = {fns, n, found};
        lua_pushcfunction(L, find_functions);
        lua_pushlightuserdata(L, &q);
        st = lua_pcall(L, 1, 0, 0);
    }
    rc = 0;
    if (st == LUA_ERRMEM && sb.capped) {
        snprintf(err, errlen, "its top level uses more than %d MiB of memory",
                 CHECK_MEM_CAP >> 20);
        rc = PTM_EINVAL;
    } else if (st == LUA_ERRMEM) {
        snprintf(err, errlen, "out of memory");
        rc = PTM_ENOMEM;
    } else if (st != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", msg ? msg : "error without a message");
        rc = PTM_EINVAL;
    }
    lua_close(L);
    ptm_source_release(&src);
    return rc;
}
