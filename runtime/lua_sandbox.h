/*
 * lua_sandbox.h - the sandbox every Lua hook runs in.
 *
 * A job spec from someone else cannot touch the file system or run
 * commands through its Lua hooks: only the base, table, string, math, utf8
 * and coroutine libraries are opened; io, os, package, debug, require,
 * load, loadfile, dofile, collectgarbage and string.dump are absent, and
 * naming one raises an error that says so. Lua patterns are refused
 * (string.match, gmatch, gsub and a non-plain string.find), because the
 * pattern matcher runs in C where no instruction budget can stop it.
 * Each state has a memory cap (its allocator refuses growth past it) and
 * each call an instruction budget and a wall-clock limit.
 */
#ifndef PTM_LUA_SANDBOX_H
#define PTM_LUA_SANDBOX_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct lsandbox {
    size_t used, cap;  /* bytes allocated by the state, and the limit */
    bool capped;       /* an allocation was refused because of the cap */
    long budget;       /* instructions a call may run */
    long steps;        /* instructions run by the current call */
    double seconds;    /* wall-clock limit of a call */
    struct timespec start;
};

/* A new sandboxed state, or NULL when out of memory. sb must outlive it
 * and is set up with cap bytes, budget instructions and seconds per call. */
lua_State *lsandbox_new(struct lsandbox *sb, size_t cap, long budget, double seconds);

/* Start a call's budget and clock. */
void lsandbox_begin(lua_State *L, struct lsandbox *sb);

/* Load a chunk of source text (never bytecode) named "@name". Returns a
 * LUA_* status with the function or the message on the stack; for
 * LUA_ERRMEM the stack may hold nothing. */
int lsandbox_load(lua_State *L, const char *text, size_t len, const char *name);

#endif
