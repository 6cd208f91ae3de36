/*
 * lhost_call.c - running the hook file: loading it, the hook calls of
 * spec/runtime.md (init, push, pull, apply, push of a block or of rows,
 * objective, save and load) with their arguments, and reading what a hook returned into
 * the engine's arrays; a failure becomes the host's message and kind.
 * Owns pull's z and apply's d and the buffer they point into, and keeps
 * the hook file's name (h->chunk, freed with the host).
 *
 * DESIGN
 *
 * Calls. Every Lua API call that may allocate runs under lua_pcall: a
 * protected `prepare` pushes the hook function and its arguments, then
 * the hook is called directly with a message handler that appends a
 * traceback (no frame of ours in it), then the result is read with raw
 * accesses only, which neither allocate nor run hook code (a returned
 * table's metatable is ignored). Wrong results are reported by the host,
 * not raised in Lua, so their messages carry no traceback. A call that
 * the sandbox stopped fails even if the hook swallowed the stop.
 *
 * The host owns one block list, and the vectors of pull's z and apply's
 * d, made once and re-pointed at every call, then emptied when the call
 * returns, so that one a hook kept never reads an array the engine has
 * freed. z and d point into one buffer the state holds: the host's copies
 * (the engine's sums are block after block, a vector's values must be
 * adjacent), which hooks may overwrite; it grows when a call needs more
 * and never shrinks. When blocks have several values each, apply's d is a
 * list of lists, a table per block, as results keyed by block are: bulk
 * operations are for blocks of one value. job is the same table every
 * time.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "lua_host_impl.h"
#include "ptm.h"

/* ---- running Lua ---------------------------------------------------------------- */

/* Message handler: the error and a traceback from where it was raised. */
static int traceback(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    if (!m)
        m = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, m, 1);
    return 1;
}

static void set_msg(struct lhost *h, const char *s)
{
    size_t n = strlen(s);
    if (n >= sizeof(h->msg)) {
        n = sizeof(h->msg) - 4;
        memcpy(h->msg + n, "...", 4);
    } else {
        h->msg[n] = '\0';
    }
    memcpy(h->msg, s, n);
}

static void cap_text(const struct lhost *h, char *buf, size_t len)
{
    size_t cap = h->sb.cap;
    if (cap % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", cap >> 20);
    else
        snprintf(buf, len, "%zu bytes", cap);
}

static int collect(lua_State *L)
{
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}

/* After a memory failure, free the call's garbage now, so that the next
 * call does not start near the cap. */
static void collect_garbage(struct lhost *h)
{
    lua_pushcfunction(h->L, collect);
    if (lua_pcall(h->L, 0, 0, 0) != LUA_OK)
        lua_pop(h->L, 1);
}

/* Turn the status of a protected call (what: "in hook 'push'", "while
 * loading 'f.lua'") into the host's failure; the error object, if any, is
 * on top. */
static int status_to_rc(struct lhost *h, int st, const char *verb, const char *name)
{
    lua_State *L = h->L;
    if (st == LUA_OK && h->sb.stop == LSANDBOX_RUNNING)
        return 0;
    char what[96], cap[32];
    snprintf(what, sizeof(what), "%s '%.64s'", verb, name);
    cap_text(h, cap, sizeof(cap));
    if (st == LUA_ERRMEM || (st == LUA_ERRERR && h->sb.capped)) {
        collect_garbage(h);
        if (!h->sb.capped) {
            lhost_fail(h, LHOST_FAIL_MEMORY, "out of memory %s", what);
            return PTM_ENOMEM;
        }
        return lhost_fail(h, LHOST_FAIL_MEMORY, "memory cap of %s exceeded %s", cap, what);
    }
    enum lhost_failure kind = h->sb.stop == LSANDBOX_BUDGET ? LHOST_FAIL_BUDGET
                              : h->sb.stop == LSANDBOX_TIME ? LHOST_FAIL_TIME
                                                            : LHOST_FAIL_ERROR;
    if (st == LUA_OK) { /* the hook caught the stop and returned */
        char why[80];
        return lhost_fail(h, kind, "%s %s", lsandbox_stop_text(&h->sb, why, sizeof(why)), what);
    }
    const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    set_msg(h, m ? m : "error without a message");
    h->fail = kind;
    return PTM_EINVAL;
}

static void begin(struct lhost *h)
{
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    lsandbox_begin(h->L, &h->sb);
}

int lhost_load(struct lhost *h, const char *name, const char *text, size_t len)
{
    lua_State *L = h->L;
    begin(h);
    size_t n = strlen(name);
    char *chunk = ptm_malloc(n + 1);
    if (!chunk) {
        lhost_fail(h, LHOST_FAIL_MEMORY, "out of memory loading '%s'", name);
        return PTM_ENOMEM;
    }
    memcpy(chunk, name, n + 1);
    ptm_free(h->chunk);
    h->chunk = chunk;

    int base = lua_gettop(L);
    lua_pushcfunction(L, traceback);
    int st = lsandbox_load(L, text, len, name);
    int rc;
    if (st == LUA_ERRSYNTAX) {
        set_msg(h, lua_tostring(L, -1));
        h->fail = LHOST_FAIL_LOAD;
        rc = PTM_EINVAL;
    } else if (st != LUA_OK) {
        rc = status_to_rc(h, st, "while loading", name);
    } else {
        rc = status_to_rc(h, lua_pcall(L, 0, 0, base + 1), "while loading", name);
    }
    lua_settop(L, base);
    return rc;
}

int lhost_load_file(struct lhost *h, const char *path)
{
    struct ptm_source src;
    begin(h);
    int rc = ptm_source_read(&src, path, h->msg, sizeof(h->msg));
    if (rc) {
        h->fail = rc == PTM_ENOMEM ? LHOST_FAIL_MEMORY : LHOST_FAIL_LOAD;
        if (rc == PTM_ENOMEM)
            snprintf(h->msg, sizeof(h->msg), "out of memory reading '%s'", path);
        return rc;
    }
    rc = lhost_load(h, path, src.text, src.len);
    ptm_source_release(&src);
    return rc;
}

/* ---- calls ---------------------------------------------------------------------- */

/* An empty vector of the host's, named name (static), pushed: z or d,
 * writable scratch over the host's copy of a call's values. */
static struct uvec *host_vector(lua_State *L, const char *name)
{
    struct uvec *v = lua_newuserdatauv(L, sizeof(*v), 0);
    *v = (struct uvec){.tag = TAG_VECTOR, .writable = true, .slot = -1, .cols = 1, .name = name};
    lua_rawgeti(L, LUA_REGISTRYINDEX, host_of(L)->ref_vecmt);
    lua_setmetatable(L, -2);
    return v;
}

/* The host's d and z (whose buffer comes with the first pull). */
void lhost_open_calls(lua_State *L, struct lhost *h)
{
    h->d = host_vector(L, "d");
    h->ref_d = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    h->ref_zvecs = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushboolean(L, 0);
    h->ref_buf = luaL_ref(L, LUA_REGISTRYINDEX);
}

enum call_kind {
    CALL_PUSH,
    CALL_PULL,
    CALL_APPLY,
    CALL_BLOCK,
    CALL_ROWS,
    CALL_OBJECTIVE,
    CALL_INIT,
    CALL_PREDICT,
    CALL_SAVE,
    CALL_LOAD
};

struct call {
    struct lhost *h;
    enum call_kind kind;
    const char *fn;
    const int64_t *blocks;
    size_t n;
    const double *vals; /* pull: z; apply: changes */
    int k;              /* pull: values per block */
    const int64_t *off; /* apply: offsets of the changes */
    int64_t a, b;       /* the block; the rows */
    int ref;            /* load: the saved value, in the registry */
    int fntype;         /* out: the type of the global fn */
    int nres;           /* results kept: 1, or 2 for predict */
};

/* Every one of n blocks has one value (off: n + 1 offsets, or NULL). */
static bool one_each(const int64_t *off, size_t n)
{
    return !off || off[n] - off[0] == (int64_t)n;
}

/* The host's buffer, holding at least n doubles. */
static double *host_buffer(lua_State *L, struct lhost *h, size_t n)
{
    if (n > h->bufcap) {
        size_t cap = n > 2 * h->bufcap ? n : 2 * h->bufcap;
        struct uvec *buf = lhost_new_vector(L, (int64_t)cap); /* never shown to hooks */
        lua_rawseti(L, LUA_REGISTRYINDEX, h->ref_buf);
        h->buf = buf->v;
        h->bufcap = cap;
    }
    return h->buf;
}

/* pull's z: a list of K vectors of n values, the host's copies of the
 * sums (the engine's are block after block). */
static void push_sums(lua_State *L, struct lhost *h, const struct call *c)
{
    size_t n = c->n, k = (size_t)c->k;
    double *buf = host_buffer(L, h, n * k);
    for (size_t i = 0; i < k; i++) {
        double *restrict dst = buf + i * n;
        const double *restrict src = c->vals + i;
        EACH(b, (int64_t)n, dst[b] = src[b * k];);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_zvecs);
    lua_createtable(L, (int)k, 0);
    for (size_t i = 0; i < k; i++) {
        struct uvec *v;
        if (lua_rawgeti(L, -2, (lua_Integer)i + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            v = host_vector(L, "z");
            lua_pushvalue(L, -1);
            lua_rawseti(L, -4, (lua_Integer)i + 1);
            h->nzvecs++;
        } else {
            v = lua_touserdata(L, -1);
        }
        v->v = buf + i * n;
        v->n = (int64_t)n;
        h->zshown = (int)i + 1; /* for finish(), even if the next allocation fails */
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_remove(L, -2);
}

/* apply's d: the host's copy of the changes when every block has one
 * value, else a list of n lists. */
static void push_changes(lua_State *L, struct lhost *h, const struct call *c)
{
    if (one_each(c->off, c->n)) {
        h->d->v = host_buffer(L, h, c->n);
        if (c->n)
            memcpy(h->d->v, c->vals + (c->off ? c->off[0] : 0), c->n * sizeof(double));
        h->d->n = (int64_t)c->n;
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_d);
        return;
    }
    lua_createtable(L, (int)c->n, 0);
    for (size_t i = 0; i < c->n; i++) {
        int64_t lo = c->off[i], hi = c->off[i + 1];
        lua_createtable(L, (int)(hi - lo), 0);
        for (int64_t j = lo; j < hi; j++) {
            lua_pushnumber(L, c->vals[j]);
            lua_rawseti(L, -2, j - lo + 1);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* Runs protected: leave the hook function and its arguments on the stack,
 * or nothing when fn is not a function. */
static int prepare(lua_State *L)
{
    struct call *c = lua_touserdata(L, 1);
    struct lhost *h = c->h;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushstring(L, c->fn);
    c->fntype = lua_rawget(L, 1);
    lua_remove(L, 1);
    if (c->fntype != LUA_TFUNCTION)
        return 0;
    if (h->round != h->round_shown) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_fields);
        lua_pushinteger(L, h->round);
        lua_setfield(L, -2, "round");
        lua_pop(L, 1);
        h->round_shown = h->round;
    }
    if (h->sweep != h->sweep_shown) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_fields);
        lua_pushinteger(L, h->sweep);
        lua_setfield(L, -2, "sweep");
        lua_pop(L, 1);
        h->sweep_shown = h->sweep;
    }
    if (c->kind != CALL_PULL)
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_worker);
    if (c->kind == CALL_PUSH || c->kind == CALL_PULL || c->kind == CALL_APPLY) {
        *h->blocks = (struct ublocks){TAG_BLOCKS, c->blocks, (int64_t)c->n};
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_blocks);
    }
    switch (c->kind) {
    case CALL_PULL:
        push_sums(L, h, c);
        break;
    case CALL_APPLY:
        push_changes(L, h, c);
        break;
    case CALL_BLOCK:
        lua_pushinteger(L, c->a + 1);
        break;
    case CALL_ROWS:
        lua_pushinteger(L, c->a + 1);
        lua_pushinteger(L, c->b);
        break;
    case CALL_LOAD:
        lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
        break;
    case CALL_PUSH:
    case CALL_OBJECTIVE:
    case CALL_INIT:
    case CALL_PREDICT:
    case CALL_SAVE:
        break;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_job);
    return lua_gettop(L);
}

/* Call c->fn with the arguments of its kind. On success the hook's one
 * result is on top of the stack above base; the caller ends with
 * finish(). */
static int run(struct lhost *h, struct call *c, int base)
{
    PTM_ASSERT(h->chunk); /* a hook file was loaded */
    lua_State *L = h->L;
    c->h = h;
    begin(h);
    lua_pushcfunction(L, traceback);
    lua_pushcfunction(L, prepare);
    lua_pushlightuserdata(L, c);
    int st = lua_pcall(L, 1, LUA_MULTRET, 0);
    if (st != LUA_OK)
        return status_to_rc(h, st, "in hook", c->fn);
    if (c->fntype == LUA_TNIL)
        return lhost_fail(h, LHOST_FAIL_MISSING, "'%s' defines no function '%s'", h->chunk, c->fn);
    if (c->fntype != LUA_TFUNCTION)
        return lhost_fail(h, LHOST_FAIL_MISSING, "'%s' in '%s' is a %s, not a function", c->fn,
                          h->chunk, lua_typename(L, c->fntype));
    int nargs = lua_gettop(L) - base - 2;
    return status_to_rc(h, lua_pcall(L, nargs, c->nres ? c->nres : 1, base + 1), "in hook",
                        c->fn);
}

/* After a call and the reading of its result: the stack back at base, and
 * the host's S, d and z emptied, so that what a hook kept reads nothing
 * the engine may free. */
static void finish(struct lhost *h, int base)
{
    lua_State *L = h->L;
    lua_settop(L, base);
    *h->blocks = (struct ublocks){.tag = TAG_BLOCKS};
    h->d->v = NULL;
    h->d->n = 0;
    if (h->zshown) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_zvecs);
        for (int i = 1; i <= h->zshown; i++) {
            lua_rawgeti(L, -1, i);
            struct uvec *v = lua_touserdata(L, -1);
            v->v = NULL;
            v->n = 0;
            lua_pop(L, 1);
        }
        lua_settop(L, base);
        h->zshown = 0;
    }
}

void lhost_begin(struct lhost *h)
{
    begin(h);
}

int lhost_status(struct lhost *h, int st, const char *verb, const char *name)
{
    return status_to_rc(h, st, verb, name);
}

int lhost_call_state(struct lhost *h, const char *fn, int ref, int base)
{
    struct call c = {.kind = ref == LUA_NOREF ? CALL_SAVE : CALL_LOAD, .fn = fn, .ref = ref};
    return run(h, &c, base);
}

void lhost_finish(struct lhost *h, int base)
{
    finish(h, base);
}

bool lhost_has(struct lhost *h, const char *fn)
{
    struct call c = {.h = h, .kind = CALL_OBJECTIVE, .fn = fn};
    int base = lua_gettop(h->L);
    lua_pushcfunction(h->L, prepare);
    lua_pushlightuserdata(h->L, &c);
    int st = lua_pcall(h->L, 1, LUA_MULTRET, 0);
    lua_settop(h->L, base);
    return st == LUA_OK && c.fntype == LUA_TFUNCTION;
}

struct shape {
    const char *fn;
    int nparams; /* out: -1 when fn is not a function */
    bool vararg;
};

/* Runs protected: the parameters of the global function s->fn. */
static int find_shape(lua_State *L)
{
    struct shape *s = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushstring(L, s->fn);
    s->nparams = -1;
    if (lua_rawget(L, -2) != LUA_TFUNCTION)
        return 0;
    lua_Debug ar;
    lua_getinfo(L, ">u", &ar);
    s->nparams = ar.nparams;
    s->vararg = ar.isvararg;
    return 0;
}

int lhost_params(struct lhost *h, const char *fn, bool *vararg)
{
    struct shape s = {fn, -1, false};
    int base = lua_gettop(h->L);
    lua_pushcfunction(h->L, find_shape);
    lua_pushlightuserdata(h->L, &s);
    int st = lua_pcall(h->L, 1, 0, 0);
    lua_settop(h->L, base);
    *vararg = s.vararg;
    return st == LUA_OK ? s.nparams : -1;
}

/* ---- reading results ------------------------------------------------------------ */

/* What the value at idx is, for messages: "a string", "a vector". */
static const char *what_is(lua_State *L, int idx)
{
    return lhost_what_is(L, idx);
}

const char *lhost_what_is(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return "nil";
    case LUA_TBOOLEAN:
        return "a boolean";
    case LUA_TNUMBER:
        return "a number";
    case LUA_TSTRING:
        return "a string";
    case LUA_TTABLE:
        return "a table";
    case LUA_TFUNCTION:
        return "a function";
    case LUA_TTHREAD:
        return "a coroutine";
    case LUA_TLIGHTUSERDATA:
        return is_row_code(lua_touserdata(L, idx)) ? "a row of a vector" : "a sparse view";
    default:
        switch (*(const uint32_t *)lua_touserdata(L, idx)) {
        case TAG_VECTOR:
            return "a vector";
        case TAG_MATRIX:
            return "a matrix";
        case TAG_WORKER:
            return "the worker object";
        case TAG_ITER:
            return "the state of a loop";
        case TAG_SET:
            return "a set view";
        default:
            return "the block list";
        }
    }
}

static bool is_vector(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TUSERDATA &&
           ((const struct uvec *)lua_touserdata(L, idx))->tag == TAG_VECTOR;
}

static const char *nonfinite(double x)
{
    return isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

/* The number at idx into *dst; false (with the failure set) when it is
 * not a finite number. pos: its 1-based position in a list, or 0. */
static bool read_number(struct lhost *h, const char *fn, int idx, long long block, size_t pos,
                        double *dst)
{
    lua_State *L = h->L;
    int t = lua_type(L, idx);
    double x = t == LUA_TNUMBER ? lua_tonumber(L, idx) : 0;
    if (t == LUA_TNUMBER && isfinite(x)) {
        *dst = x;
        return true;
    }
    char at[40] = "";
    if (pos)
        snprintf(at, sizeof(at), " at position %zu", pos);
    if (t != LUA_TNUMBER) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %s%s for block %lld (expected a number%s)", fn,
                   what_is(L, idx), at, block, pos ? "" : " or a list of numbers");
        return false;
    }
    lhost_fail(h, LHOST_FAIL_RESULT,
               "hook '%s' returned %s%s for block %lld (expected a finite "
               "number)",
               fn, nonfinite(x), at, block);
    return false;
}

/* Why a block must have `want` values, for messages. */
static const char *why_text(bool pull, int want, char *buf, size_t len)
{
    if (!pull)
        return ", as for the other blocks";
    snprintf(buf, len, ": the block has %d variable%s", want, want == 1 ? "" : "s");
    return buf;
}

/* The value(s) at idx for block (1-based): a number or a list of numbers.
 * want > 0: exactly that many (pull: the block's size; push: the other
 * blocks' count); want == 0: any count up to kmax, returned in *got. */
static bool read_values(struct lhost *h, const char *fn, int idx, long long block, int want,
                        int kmax, bool pull, double *dst, int *got)
{
    lua_State *L = h->L;
    char why[64];
    if (lua_type(L, idx) != LUA_TTABLE) {
        if (want > 1 && lua_type(L, idx) == LUA_TNUMBER) {
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned 1 number for block %lld (expected "
                       "%d%s)",
                       fn, block, want, why_text(pull, want, why, sizeof(why)));
            return false;
        }
        *got = 1;
        return read_number(h, fn, idx, block, 0, dst);
    }
    size_t len = lua_rawlen(L, idx);
    if (len == 0) {
        lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned an empty list for block %lld", fn,
                   block);
        return false;
    }
    if (want > 0 && len != (size_t)want) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %zu numbers for block %lld (expected "
                   "%d%s)",
                   fn, len, block, want, why_text(pull, want, why, sizeof(why)));
        return false;
    }
    if (want == 0 && len > (size_t)kmax) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %zu numbers for block %lld (at most %d)", fn, len, block,
                   kmax);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        bool ok = read_number(h, fn, -1, block, i + 1, &dst[i]);
        lua_pop(L, 1);
        if (!ok)
            return false;
    }
    *got = (int)len;
    return true;
}

/* A table keyed by exactly the n blocks: find a key that is not one. */
static bool check_keys(struct lhost *h, const char *fn, int idx, const int64_t *blocks, size_t n)
{
    lua_State *L = h->L;
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
    }
    if (count == n)
        return true; /* every block is present and keys are distinct */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        int isint;
        lua_Integer b = lua_tointegerx(L, -1, &isint);
        if (lua_type(L, -1) == LUA_TNUMBER && isint) {
            bool given = false;
            for (size_t i = 0; i < n && !given; i++)
                given = blocks[i] + 1 == b;
            if (given)
                continue;
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned a value for block %lld, which it "
                       "was not given",
                       fn, (long long)b);
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned a value under the key '%.40s' "
                       "(keys must be block numbers)",
                       fn, lua_tostring(L, -1));
        } else if (lua_type(L, -1) == LUA_TNUMBER) {
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned a value under the key %.14g (keys "
                       "must be block numbers)",
                       fn, lua_tonumber(L, -1));
        } else {
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned a value under %s key (keys must be "
                       "block numbers)",
                       fn, what_is(L, -1));
        }
        lua_pop(L, 1);
        return false;
    }
    PTM_ASSERT(0); /* more keys than blocks, yet all of them blocks: duplicate blocks */
    return false;
}

/* dst[i stride] = src[i] for i < n; false when one is not finite. x * 0
 * is 0 for a finite x, nan otherwise; four sums of them cost about one
 * cycle a value, a test and branch per value three. */
static bool copy_finite(const double *restrict src, size_t n, double *restrict dst, size_t stride)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        dst[i * stride] = src[i];
        dst[(i + 1) * stride] = src[i + 1];
        dst[(i + 2) * stride] = src[i + 2];
        dst[(i + 3) * stride] = src[i + 3];
        s0 += src[i] * 0;
        s1 += src[i + 1] * 0;
        s2 += src[i + 2] * 0;
        s3 += src[i + 3] * 0;
    }
    for (; i < n; i++) {
        dst[i * stride] = src[i];
        s0 += src[i] * 0;
    }
    return (s0 + s1) + (s2 + s3) == 0;
}

/* Which vector of a result, for messages: "a vector", "vector 2 of its
 * list". */
static const char *vector_where(bool list, size_t i, char *buf, size_t len)
{
    if (!list)
        return "a vector";
    snprintf(buf, len, "vector %zu of its list", i + 1);
    return buf;
}

/* Push results as vectors: the list of K vectors at idx, or the one
 * vector there (list false), each with one value per block; block i's
 * values go to z[i K .. i K + K). */
static bool read_push_vectors(struct lhost *h, const char *fn, int idx, bool list,
                              const int64_t *blocks, size_t n, int kmax, int *k, double *z)
{
    lua_State *L = h->L;
    size_t count = list ? lua_rawlen(L, idx) : 1, entries = 0;
    if (list) {
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            lua_pop(L, 1);
            entries++;
        }
        if (entries != count) {
            lhost_fail(
                h, LHOST_FAIL_RESULT,
                "hook '%s' returned a list of %zu vector%s with other entries (expected only "
                "the vectors)",
                fn, count, count == 1 ? "" : "s");
            return false;
        }
    }
    if (*k > 0 && count != (size_t)*k) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %zu vector%s (expected %d, as other workers returned)", fn,
                   count, count == 1 ? "" : "s", *k);
        return false;
    }
    if (count > (size_t)kmax) {
        lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %zu vectors (at most %d)", fn, count,
                   kmax);
        return false;
    }
    char at[40];
    for (size_t i = 0; i < count; i++) {
        if (list)
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
        else
            lua_pushvalue(L, idx);
        if (!is_vector(L, -1)) {
            lhost_fail(
                h, LHOST_FAIL_RESULT,
                "hook '%s' returned %s as vector %zu of its list (expected a vector of one value "
                "per block)",
                fn, what_is(L, -1), i + 1);
            return false;
        }
        const struct uvec *v = lua_touserdata(L, -1);
        if (v->n != (int64_t)n) {
            lhost_fail(
                h, LHOST_FAIL_RESULT,
                "hook '%s' returned %lld value%s in %s for %zu block%s (expected one value per "
                "block)",
                fn, (long long)v->n, v->n == 1 ? "" : "s", vector_where(list, i, at, sizeof(at)), n,
                n == 1 ? "" : "s");
            return false;
        }
        if (!copy_finite(v->v, n, z + i, count)) {
            size_t b = 0;
            while (isfinite(v->v[b]))
                b++;
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned %s in %s for block %lld (expected a finite number)", fn,
                       nonfinite(v->v[b]), vector_where(list, i, at, sizeof(at)),
                       (long long)blocks[b] + 1);
            return false;
        }
        lua_pop(L, 1);
    }
    *k = (int)count;
    return true;
}

/* Push results as a table keyed by block. */
static bool read_push_table(struct lhost *h, const char *fn, int t, const int64_t *blocks,
                            size_t n, int kmax, int *k, double *z)
{
    lua_State *L = h->L;
    int want = *k;
    for (size_t i = 0; i < n; i++) {
        long long b = (long long)blocks[i] + 1;
        if (lua_rawgeti(L, t, b) == LUA_TNIL) {
            lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned no value for block %lld", fn, b);
            return false;
        }
        int got;
        double *dst = z + (size_t)i * (size_t)(want ? want : kmax);
        if (!read_values(h, fn, -1, b, want, kmax, false, dst, &got))
            return false;
        lua_pop(L, 1);
        if (want == 0)
            want = got; /* K is the first block's count */
    }
    if (!check_keys(h, fn, t, blocks, n))
        return false;
    *k = want;
    return true;
}

int lhost_push(struct lhost *h, const char *fn, const int64_t *blocks, size_t n, int kmax, int *k,
               double *z)
{
    PTM_ASSERT(kmax >= 1 && *k <= kmax && n <= INT32_MAX);
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_PUSH, .fn = fn, .blocks = blocks, .n = n};
    int rc = run(h, &c, base);
    if (rc)
        goto out;
    int t = lua_gettop(L);
    bool ok;
    rc = PTM_EINVAL;
    if (is_vector(L, t)) {
        ok = read_push_vectors(h, fn, t, false, blocks, n, kmax, k, z);
    } else if (lua_type(L, t) == LUA_TTABLE) {
        lua_rawgeti(L, t, 1); /* a vector: the list form; block values are never vectors */
        ok = is_vector(L, -1) ? read_push_vectors(h, fn, t, true, blocks, n, kmax, k, z)
                              : read_push_table(h, fn, t, blocks, n, kmax, k, z);
    } else {
        ok = false;
        lhost_fail(
            h, LHOST_FAIL_RESULT,
            "hook '%s' returned %s (expected a table mapping each block to a number or a list "
            "of numbers, a vector of one value per block, or a list of such vectors)",
            fn, what_is(L, t));
    }
    if (ok)
        rc = 0;
out:
    finish(h, base);
    return rc;
}

/* Pull results as a vector of one value per block, every block having one
 * variable (off: NULL or all widths 1). */
static bool read_pull_vector(struct lhost *h, const char *fn, int idx, const int64_t *blocks,
                             size_t n, const int64_t *off, double *out)
{
    const struct uvec *v = lua_touserdata(h->L, idx);
    if (!one_each(off, n)) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned a vector (blocks have several variables: expected a table "
                   "mapping each block to its new values)",
                   fn);
        return false;
    }
    if (v->n != (int64_t)n) {
        lhost_fail(
            h, LHOST_FAIL_RESULT,
            "hook '%s' returned %lld value%s in a vector for %zu block%s (expected one value "
            "per block)",
            fn, (long long)v->n, v->n == 1 ? "" : "s", n, n == 1 ? "" : "s");
        return false;
    }
    if (copy_finite(v->v, n, out + (off ? off[0] : 0), 1))
        return true;
    size_t b = 0;
    while (isfinite(v->v[b]))
        b++;
    lhost_fail(h, LHOST_FAIL_RESULT,
               "hook '%s' returned %s in a vector for block %lld (expected a finite number)", fn,
               nonfinite(v->v[b]), (long long)blocks[b] + 1);
    return false;
}

/* Pull results as a table keyed by block. */
static bool read_pull_table(struct lhost *h, const char *fn, int t, const int64_t *blocks,
                            size_t n, const int64_t *off, double *out)
{
    lua_State *L = h->L;
    for (size_t i = 0; i < n; i++) {
        long long b = (long long)blocks[i] + 1;
        int64_t lo = off ? off[i] : (int64_t)i, width = off ? off[i + 1] - lo : 1;
        PTM_ASSERT(width >= 1 && width <= INT32_MAX);
        if (lua_rawgeti(L, t, b) == LUA_TNIL) {
            lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned no value for block %lld", fn, b);
            return false;
        }
        int got;
        if (!read_values(h, fn, -1, b, (int)width, (int)width, true, out + lo, &got))
            return false;
        lua_pop(L, 1);
    }
    return check_keys(h, fn, t, blocks, n);
}

int lhost_pull(struct lhost *h, const char *fn, const int64_t *blocks, size_t n, const double *z,
               int k, const int64_t *off, double *out)
{
    PTM_ASSERT(k >= 1 && n <= INT32_MAX);
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_PULL, .fn = fn, .blocks = blocks, .n = n, .vals = z, .k = k};
    int rc = run(h, &c, base);
    if (rc)
        goto out;
    int t = lua_gettop(L);
    bool ok;
    rc = PTM_EINVAL;
    if (is_vector(L, t)) {
        ok = read_pull_vector(h, fn, t, blocks, n, off, out);
    } else if (lua_type(L, t) == LUA_TTABLE) {
        ok = read_pull_table(h, fn, t, blocks, n, off, out);
    } else {
        ok = false;
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %s (expected a table mapping each block to its new value or "
                   "values, or a vector of one value per block)",
                   fn, what_is(L, t));
    }
    if (ok)
        rc = 0;
out:
    finish(h, base);
    return rc;
}

int lhost_apply(struct lhost *h, const char *fn, const int64_t *blocks, size_t n,
                const int64_t *off, const double *change)
{
    PTM_ASSERT(n <= INT32_MAX);
    int base = lua_gettop(h->L);
    struct call c = {
        .kind = CALL_APPLY, .fn = fn, .blocks = blocks, .n = n, .vals = change, .off = off};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_push_block(struct lhost *h, const char *fn, int64_t block)
{
    int base = lua_gettop(h->L);
    struct call c = {.kind = CALL_BLOCK, .fn = fn, .a = block};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_push_rows(struct lhost *h, const char *fn, int64_t begin, int64_t end)
{
    PTM_ASSERT(0 <= begin && begin <= end);
    int base = lua_gettop(h->L);
    struct call c = {.kind = CALL_ROWS, .fn = fn, .a = begin, .b = end};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_init(struct lhost *h, const char *fn)
{
    int base = lua_gettop(h->L);
    struct call c = {.kind = CALL_INIT, .fn = fn};
    int rc = run(h, &c, base);
    finish(h, base);
    return rc;
}

int lhost_objective(struct lhost *h, const char *fn, double *out)
{
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_OBJECTIVE, .fn = fn};
    int rc = run(h, &c, base);
    if (rc)
        goto out;
    rc = PTM_EINVAL;
    if (lua_type(L, -1) != LUA_TNUMBER) {
        lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %s (expected a number)", fn,
                   what_is(L, -1));
        goto out;
    }
    double x = lua_tonumber(L, -1);
    if (!isfinite(x)) {
        lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %s (expected a finite number)", fn,
                   nonfinite(x));
        goto out;
    }
    *out = x;
    rc = 0;
out:
    finish(h, base);
    return rc;
}

/* predict's first result at idx: a vector of n values or a list of n
 * numbers, into out. */
static bool read_predictions(struct lhost *h, const char *fn, int idx, int64_t n, double *out)
{
    lua_State *L = h->L;
    if (is_vector(L, idx)) {
        const struct uvec *v = lua_touserdata(L, idx);
        if (v->n != n) {
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned a vector of %lld values (expected %lld: one a row "
                       "of the data)",
                       fn, (long long)v->n, (long long)n);
            return false;
        }
        if (n && !v->v) {
            lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned a vector it may not use now", fn);
            return false;
        }
        if (copy_finite(v->v, (size_t)n, out, 1))
            return true;
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(v->v[i])) {
                lhost_fail(h, LHOST_FAIL_RESULT,
                           "hook '%s' returned %s for row %lld (expected a finite number)", fn,
                           nonfinite(v->v[i]), (long long)i + 1);
                return false;
            }
        return true;
    }
    if (lua_type(L, idx) != LUA_TTABLE) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %s (expected a vector or a list of %lld numbers, one a "
                   "row of the data)",
                   fn, what_is(L, idx), (long long)n);
        return false;
    }
    lua_Unsigned len = lua_rawlen(L, idx);
    if (len != (lua_Unsigned)n) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned a list of %llu values (expected %lld: one a row of the "
                   "data)",
                   fn, (unsigned long long)len, (long long)n);
        return false;
    }
    for (int64_t i = 0; i < n; i++) {
        int t = lua_rawgeti(L, idx, (lua_Integer)i + 1);
        double x = t == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        if (t != LUA_TNUMBER || !isfinite(x)) {
            lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned %s for row %lld (expected a %s)",
                       fn, t == LUA_TNUMBER ? nonfinite(x) : what_is(L, -1), (long long)i + 1,
                       t == LUA_TNUMBER ? "finite number" : "number");
            lua_pop(L, 1);
            return false;
        }
        out[i] = x;
        lua_pop(L, 1);
    }
    return true;
}

/* predict's second result at idx: nil, or a table of named numbers. */
static bool read_metrics(struct lhost *h, const char *fn, int idx, struct lhost_metric *m,
                         int maxm, int *nm)
{
    lua_State *L = h->L;
    *nm = 0;
    if (lua_isnil(L, idx))
        return true;
    if (lua_type(L, idx) != LUA_TTABLE) {
        lhost_fail(h, LHOST_FAIL_RESULT,
                   "hook '%s' returned %s as its second value (expected a table of metrics, "
                   "{name = number})",
                   fn, what_is(L, idx));
        return false;
    }
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        /* key at -2, value at -1 */
        size_t klen = 0;
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &klen) : NULL;
        if (!key || klen == 0 || klen >= sizeof(m->name) || strlen(key) != klen) {
            lhost_fail(h, LHOST_FAIL_RESULT,
                       "hook '%s' returned a metric named by %s (expected a name of 1 to %zu "
                       "characters)",
                       fn, key ? "a string of that length" : what_is(L, -2), sizeof(m->name) - 1);
            lua_pop(L, 2);
            return false;
        }
        if (lua_type(L, -1) != LUA_TNUMBER || *nm >= maxm) {
            if (*nm >= maxm)
                lhost_fail(h, LHOST_FAIL_RESULT, "hook '%s' returned more than %d metrics", fn,
                           maxm);
            else
                lhost_fail(h, LHOST_FAIL_RESULT,
                           "hook '%s' returned %s for metric '%s' (expected a number)", fn,
                           what_is(L, -1), key);
            lua_pop(L, 2);
            return false;
        }
        memcpy(m[*nm].name, key, klen + 1);
        m[*nm].value = lua_tonumber(L, -1);
        (*nm)++;
        lua_pop(L, 1);
    }
    /* in name order: a table's order is Lua's */
    for (int i = 1; i < *nm; i++)
        for (int j = i; j > 0 && strcmp(m[j - 1].name, m[j].name) > 0; j--) {
            struct lhost_metric t = m[j];
            m[j] = m[j - 1];
            m[j - 1] = t;
        }
    return true;
}

int lhost_predict(struct lhost *h, const char *fn, int64_t n, double *out, struct lhost_metric *m,
                  int maxm, int *nm)
{
    lua_State *L = h->L;
    int base = lua_gettop(L);
    struct call c = {.kind = CALL_PREDICT, .fn = fn, .nres = 2};
    *nm = 0;
    int rc = run(h, &c, base);
    if (rc == 0 && !(read_predictions(h, fn, base + 2, n, out) &&
                     read_metrics(h, fn, base + 3, m, maxm, nm)))
        rc = PTM_EINVAL;
    finish(h, base);
    return rc;
}
