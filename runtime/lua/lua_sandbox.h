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
 * each call an instruction budget and a wall-clock limit. A stopped call
 * cannot be resumed by the hook: pcall does not catch the stop for long.
 * Code Lua would run with hooks off is refused or skipped: __gc
 * metamethods are refused, an xpcall handler does not run once the call
 * is stopping, and coroutine.close and coroutine.wrap do not close the
 * to-be-closed variables of a coroutine that died of an error.
 * Table-library and string functions whose C loops no budget can stop
 * refuse arguments that would make them run long.
 */
#ifndef PTM_LUA_SANDBOX_H
#define PTM_LUA_SANDBOX_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Why the current call was stopped. */
enum lsandbox_stop {
    LSANDBOX_RUNNING, /* it was not */
    LSANDBOX_BUDGET,  /* instruction budget */
    LSANDBOX_TIME,    /* wall-clock limit */
};

struct lsandbox {
    size_t used, cap;  /* bytes allocated by the state, and the limit */
    bool capped;       /* an allocation was refused because of the cap */
    long budget;       /* instructions a call may run */
    long steps;        /* instructions run by the current call */
    double seconds;    /* wall-clock limit of a call */
    struct timespec start;
    enum lsandbox_stop stop;
};

/* A new sandboxed state, or NULL when out of memory. sb must outlive it
 * and is set up with cap bytes, budget instructions and seconds per call. */
lua_State *lsandbox_new(struct lsandbox *sb, size_t cap, long budget, double seconds);

/* Start a call's budget and clock; clears stop and capped. */
void lsandbox_begin(lua_State *L, struct lsandbox *sb);

/* What stopped the call (sb->stop is not LSANDBOX_RUNNING), as the error
 * says: "instruction budget exceeded (50 million instructions)". Returns
 * buf. */
const char *lsandbox_stop_text(const struct lsandbox *sb, char *buf, size_t len);

/* Load a chunk of source text (never bytecode) named "@name". Returns a
 * LUA_* status with the function or the message on the stack; for
 * LUA_ERRMEM the stack may hold nothing. */
int lsandbox_load(lua_State *L, const char *text, size_t len, const char *name);

#endif
