/*
 * lhost_state.c - the hook file's own state in a checkpoint (lua_host.h:
 * lhost_state_save, lhost_state_load): the save and load hooks, and the
 * encoding of the value that passes from one to the other. Owns nothing
 * between calls.
 *
 * DESIGN
 *
 * Lua values cannot be saved in general (functions and their upvalues,
 * coroutines, userdata over the engine's arrays), so a hook file that
 * keeps state of its own from round to round says what it is: save(w,
 * job) returns a value of plain data, the engine writes its encoding into
 * the checkpoint, and a resumed run hands the value back to load(w, t,
 * job). The encoding is a tree of tagged values, integers little-endian:
 *
 *   state := 1 (the version) value
 *   value := 0 (nil) | 1 (false) | 2 (true)
 *          | 3 int64 (an integer) | 4 the 64 bits of a double (a float)
 *          | 5 u64 n, n bytes (a string)
 *          | 6 u64 n, u64 m, n values (keys 1 .. n), m pairs key value (a table)
 *
 * so integers and floats stay what they were (3 // 2 is 1 but 3.0 // 2 is
 * 1.0 in Lua 5.4) and a float keeps every bit (-0.0, inf, NaN). A table's
 * list (1 .. n without a hole) comes first, and the loaded table is made
 * with room for its list and its other keys, as the hook's was grown; the
 * other keys follow in the order lua_next gives, so a loop with pairs()
 * over a loaded table may meet its keys in another order than over the
 * saved one (as it may in two runs: Lua seeds its string hashes per
 * state). Keys are booleans, numbers and strings.
 *
 * What could not come back as it was is refused, with the path to it in
 * the value (value.cache[3]): functions, coroutines, userdata (a vector:
 * save a table of its values), a table with a metatable (it would come
 * back without one), a table met twice (shared tables would come back as
 * copies, and a cycle never ends), nesting deeper than LHOST_STATE_DEPTH,
 * and more bytes than the state's memory cap. Encoding is C over a value
 * the cap already bounds; what it allocates in Lua (the tables met) runs
 * protected, under the cap.
 *
 * Decoding trusts nothing: every tag, length and key is checked against
 * the bytes that remain, the depth and the rules above (no nil in a
 * table, no NaN key, no float key with a whole value, which Lua would
 * have kept as an integer, no key twice, nothing after the value), and a
 * failure names the byte. The value is built in a protected call under
 * the state's memory cap, so that neither a corrupt stream nor a large
 * one can crash the process.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "lua_host_impl.h"
#include "ptm.h"

enum { STATE_VERSION = 1 };
enum { V_NIL, V_FALSE, V_TRUE, V_INT, V_FLOAT, V_STRING, V_TABLE };

static const char *const why_types =
    "a saved state is made of nil, booleans, numbers, strings and tables of those";

/* ---- encoding ------------------------------------------------------------------- */

/* A step of the path from the saved value to one inside it. */
struct step {
    int key; /* the key's stack index; 0: the list's element i */
    lua_Integer i;
};

struct enc {
    unsigned char *buf; /* ptm_malloc'd; the caller frees it */
    size_t len, cap, max;
    int seen;  /* stack index of the tables met: 1 while inside one, then 2 */
    int depth; /* tables entered */
    struct step path[LHOST_STATE_DEPTH];
    bool failed, nomem;
    char what[64], why[128], where[192];
};

static bool is_name(const char *s, size_t n)
{
    if (n == 0 || n > 40 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
              ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
            return false;
    return true;
}

/* The path to the value being encoded, "value.cache[3]". */
static void render_path(lua_State *L, const struct enc *e, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "value");
    for (int d = 0; d < e->depth && n < len; d++) {
        char k[64];
        const struct step *s = &e->path[d];
        if (s->key == 0) {
            snprintf(k, sizeof(k), "[%lld]", (long long)s->i);
        } else if (lua_type(L, s->key) == LUA_TSTRING) {
            size_t l;
            const char *str = lua_tolstring(L, s->key, &l);
            if (is_name(str, l))
                snprintf(k, sizeof(k), ".%s", str);
            else
                snprintf(k, sizeof(k), "[\"%.*s%s\"]", (int)(l > 24 ? 24 : l), str,
                         l > 24 ? "..." : "");
        } else if (lua_type(L, s->key) == LUA_TNUMBER) {
            if (lua_isinteger(L, s->key))
                snprintf(k, sizeof(k), "[%lld]", (long long)lua_tointeger(L, s->key));
            else
                snprintf(k, sizeof(k), "[%.17g]", lua_tonumber(L, s->key));
        } else {
            snprintf(k, sizeof(k), "[%s]", lua_toboolean(L, s->key) ? "true" : "false");
        }
        if (n + strlen(k) + 4 >= len) {
            snprintf(out + n, len - n, "...");
            return;
        }
        n += (size_t)snprintf(out + n, len - n, "%s", k);
    }
}

/* Refuse the value being encoded: what it is and why. Returns false. */
static bool refuse(lua_State *L, struct enc *e, const char *what, const char *why)
{
    e->failed = true;
    snprintf(e->what, sizeof(e->what), "%s", what);
    snprintf(e->why, sizeof(e->why), "%s", why);
    render_path(L, e, e->where, sizeof(e->where));
    return false;
}

static bool put(lua_State *L, struct enc *e, const void *p, size_t n)
{
    if (n > e->max - e->len) {
        char what[64];
        snprintf(what, sizeof(what), "more than %zu bytes", e->max);
        return refuse(L, e, what, "a saved state takes at most the state's memory cap");
    }
    if (e->len + n > e->cap) {
        size_t cap = e->cap ? e->cap : 256;
        while (cap < e->len + n)
            cap = cap > SIZE_MAX / 2 ? e->len + n : cap * 2;
        unsigned char *b = ptm_realloc(e->buf, cap);
        if (!b) {
            e->failed = e->nomem = true;
            return false;
        }
        e->buf = b;
        e->cap = cap;
    }
    memcpy(e->buf + e->len, p, n);
    e->len += n;
    return true;
}

static bool put_tag(lua_State *L, struct enc *e, int tag)
{
    unsigned char c = (unsigned char)tag;
    return put(L, e, &c, 1);
}

static bool put_u64(lua_State *L, struct enc *e, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return put(L, e, b, 8);
}

/* A key of the list 1 .. n. */
static bool in_list(lua_State *L, int k, lua_Integer n)
{
    if (!lua_isinteger(L, k))
        return false;
    lua_Integer i = lua_tointeger(L, k);
    return i >= 1 && i <= n;
}

static bool enc_value(lua_State *L, struct enc *e, int idx);

static bool enc_table(lua_State *L, struct enc *e, int t)
{
    if (lua_getmetatable(L, t)) {
        lua_pop(L, 1);
        return refuse(L, e, "a table with a metatable", "it would come back without one");
    }
    lua_pushvalue(L, t);
    int met = lua_rawget(L, e->seen) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    if (met == 1)
        return refuse(L, e, "a table that contains itself", "a saved state is a tree of tables");
    if (met == 2)
        return refuse(L, e, "a table met twice",
                      "shared tables would come back as copies: a saved state is a tree of tables");
    if (e->depth == LHOST_STATE_DEPTH) {
        char what[64];
        snprintf(what, sizeof(what), "tables nested more than %d deep", LHOST_STATE_DEPTH);
        return refuse(L, e, what, "a saved state nests at most that deep");
    }
    luaL_checkstack(L, 8, NULL);
    lua_pushvalue(L, t);
    lua_pushinteger(L, 1);
    lua_rawset(L, e->seen);

    lua_Integer n = 0;
    while (lua_rawgeti(L, t, n + 1) != LUA_TNIL) {
        lua_pop(L, 1);
        n++;
    }
    lua_pop(L, 1);
    uint64_t m = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        m += !in_list(L, -1, n);
    }
    if (!put_tag(L, e, V_TABLE) || !put_u64(L, e, (uint64_t)n) || !put_u64(L, e, m))
        return false;
    struct step *s = &e->path[e->depth++];
    for (lua_Integer i = 1; i <= n; i++) {
        *s = (struct step){0, i};
        lua_rawgeti(L, t, i);
        if (!enc_value(L, e, lua_gettop(L)))
            return false;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, t)) {
        int k = lua_gettop(L) - 1;
        if (in_list(L, k, n)) {
            lua_pop(L, 1);
            continue;
        }
        int kt = lua_type(L, k);
        if (kt != LUA_TBOOLEAN && kt != LUA_TNUMBER && kt != LUA_TSTRING) {
            char what[64];
            e->depth--; /* the path leads to the table */
            snprintf(what, sizeof(what), "%s as a key", lhost_what_is(L, k));
            return refuse(L, e, what, "keys are booleans, numbers and strings");
        }
        *s = (struct step){k, 0};
        if (!enc_value(L, e, k) || !enc_value(L, e, k + 1))
            return false;
        lua_pop(L, 1);
    }
    e->depth--;
    lua_pushvalue(L, t);
    lua_pushinteger(L, 2);
    lua_rawset(L, e->seen);
    return true;
}

static bool enc_value(lua_State *L, struct enc *e, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return put_tag(L, e, V_NIL);
    case LUA_TBOOLEAN:
        return put_tag(L, e, lua_toboolean(L, idx) ? V_TRUE : V_FALSE);
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            return put_tag(L, e, V_INT) && put_u64(L, e, (uint64_t)lua_tointeger(L, idx));
        double x = lua_tonumber(L, idx);
        uint64_t bits;
        memcpy(&bits, &x, sizeof(bits));
        return put_tag(L, e, V_FLOAT) && put_u64(L, e, bits);
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        return put_tag(L, e, V_STRING) && put_u64(L, e, n) && put(L, e, s, n);
    }
    case LUA_TTABLE:
        return enc_table(L, e, idx);
    default: {
        bool vec = lua_type(L, idx) == LUA_TUSERDATA &&
                   *(const uint32_t *)lua_touserdata(L, idx) == TAG_VECTOR;
        return refuse(L, e, lhost_what_is(L, idx),
                      vec ? "save a table of its values, and make the vector again in load"
                          : why_types);
    }
    }
}

/* Runs protected: encode argument 2 (struct enc at argument 1). */
static int encode(lua_State *L)
{
    struct enc *e = lua_touserdata(L, 1);
    lua_newtable(L);
    e->seen = lua_gettop(L);
    if (put_tag(L, e, STATE_VERSION))
        enc_value(L, e, 2);
    return 0;
}

struct where {
    const char *fn;
    char at[160];
};

/* Runs protected: "FILE:LINE: " where the global function fn is defined. */
static int find_where(lua_State *L)
{
    struct where *w = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushstring(L, w->fn);
    if (lua_rawget(L, -2) != LUA_TFUNCTION)
        return 0;
    lua_Debug ar;
    lua_getinfo(L, ">S", &ar);
    snprintf(w->at, sizeof(w->at), "%s:%d: ", ar.short_src, ar.linedefined);
    return 0;
}

int lhost_state_save(struct lhost *h, const char *fn, char **out, size_t *len)
{
    lua_State *L = h->L;
    *out = NULL;
    *len = 0;
    uint64_t rng[LHOST_RNG_WORDS];
    lhost_rng_get(h, rng);
    int base = lua_gettop(L);
    int rc = lhost_call_state(h, fn, LUA_NOREF, base);
    if (rc == 0) {
        struct enc e = {.max = lhost_state_cap(h)};
        lua_pushcfunction(L, encode);
        lua_pushlightuserdata(L, &e);
        lua_pushvalue(L, -3);
        rc = lhost_status(h, lua_pcall(L, 2, 0, 0), "while saving the value of hook", fn);
        if (rc == 0 && e.nomem) {
            lhost_fail(h, LHOST_FAIL_MEMORY, "out of memory while saving the value of hook '%s'",
                       fn);
            rc = PTM_ENOMEM;
        } else if (rc == 0 && e.failed) {
            struct where w = {.fn = fn};
            lua_pushcfunction(L, find_where);
            lua_pushlightuserdata(L, &w);
            if (lua_pcall(L, 1, 0, 0) != LUA_OK)
                lua_pop(L, 1);
            bool root = strcmp(e.where, "value") == 0;
            rc = lhost_fail(h, LHOST_FAIL_RESULT, "%shook '%s' returned %s%s%s (%s)", w.at, fn,
                            e.what, root ? "" : " at ", root ? "" : e.where, e.why);
        }
        if (rc == 0) {
            *out = (char *)e.buf;
            *len = e.len;
            e.buf = NULL;
        }
        ptm_free(e.buf);
    }
    lhost_finish(h, base);
    lhost_rng_set(h, rng);
    return rc;
}

/* ---- decoding ------------------------------------------------------------------- */

struct dec {
    const unsigned char *p;
    size_t len, pos;
    int depth;
    int ref; /* out: the value, in the registry */
    bool failed;
    char msg[160];
};

/* The bytes are no encoding: what, at byte `at` (0-based). Returns false. */
static bool corrupt(struct dec *d, size_t at, const char *fmt, ...)
{
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    d->failed = true;
    snprintf(d->msg, sizeof(d->msg), "%s at byte %zu of %zu", what, at, d->len);
    return false;
}

static bool get_byte(struct dec *d, unsigned *out)
{
    if (d->pos >= d->len)
        return corrupt(d, d->pos, "the value ends early");
    *out = d->p[d->pos++];
    return true;
}

static bool get_u64(struct dec *d, uint64_t *out)
{
    if (d->len - d->pos < 8)
        return corrupt(d, d->pos, "the value ends early");
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)d->p[d->pos + i] << (8 * i);
    d->pos += 8;
    *out = v;
    return true;
}

static bool dec_value(lua_State *L, struct dec *d);

/* A key: a boolean, a number or a string, that can be one. */
static bool dec_key(lua_State *L, struct dec *d, int t)
{
    size_t at = d->pos;
    if (!dec_value(L, d))
        return false;
    int kt = lua_type(L, -1);
    if (kt == LUA_TNIL || kt == LUA_TTABLE)
        return corrupt(d, at, "%s as a key", kt == LUA_TNIL ? "nil" : "a table");
    if (kt == LUA_TNUMBER && !lua_isinteger(L, -1)) {
        double x = lua_tonumber(L, -1);
        if (isnan(x))
            return corrupt(d, at, "NaN as a key");
        if (x == floor(x) && x >= -0x1p63 && x < 0x1p63)
            return corrupt(d, at, "the float key %.17g (Lua keeps it as an integer)", x);
    }
    lua_pushvalue(L, -1);
    bool twice = lua_rawget(L, t) != LUA_TNIL;
    lua_pop(L, 1);
    if (twice)
        return corrupt(d, at, "a key given twice");
    return true;
}

static bool dec_table(lua_State *L, struct dec *d, size_t at)
{
    uint64_t n, m;
    if (!get_u64(d, &n) || !get_u64(d, &m))
        return false;
    size_t rest = d->len - d->pos;
    if (n > rest || m > (rest - n) / 2)
        return corrupt(d, at, "a table of %llu + %llu entries in %zu bytes", (unsigned long long)n,
                       (unsigned long long)m, rest);
    if (d->depth == LHOST_STATE_DEPTH)
        return corrupt(d, at, "tables nested more than %d deep", LHOST_STATE_DEPTH);
    luaL_checkstack(L, 8, NULL);
    lua_createtable(L, n <= INT_MAX / 2 ? (int)n : 0, m <= INT_MAX / 2 ? (int)m : 0);
    int t = lua_gettop(L);
    d->depth++;
    for (uint64_t i = 1; i <= n; i++) {
        size_t vat = d->pos;
        if (!dec_value(L, d))
            return false;
        if (lua_isnil(L, -1))
            return corrupt(d, vat, "nil in a table");
        lua_rawseti(L, t, (lua_Integer)i);
    }
    for (uint64_t j = 0; j < m; j++) {
        if (!dec_key(L, d, t))
            return false;
        size_t vat = d->pos;
        if (!dec_value(L, d))
            return false;
        if (lua_isnil(L, -1))
            return corrupt(d, vat, "nil in a table");
        lua_rawset(L, t);
    }
    d->depth--;
    return true;
}

/* Push the value at d->pos, or fail (the stack then holds what was made). */
static bool dec_value(lua_State *L, struct dec *d)
{
    size_t at = d->pos;
    unsigned tag = 0;
    uint64_t v;
    if (!get_byte(d, &tag))
        return false;
    switch (tag) {
    case V_NIL:
        lua_pushnil(L);
        return true;
    case V_FALSE:
    case V_TRUE:
        lua_pushboolean(L, tag == V_TRUE);
        return true;
    case V_INT:
        if (!get_u64(d, &v))
            return false;
        lua_pushinteger(L, (lua_Integer)v);
        return true;
    case V_FLOAT: {
        if (!get_u64(d, &v))
            return false;
        double x;
        memcpy(&x, &v, sizeof(x));
        lua_pushnumber(L, x);
        return true;
    }
    case V_STRING:
        if (!get_u64(d, &v))
            return false;
        if (v > d->len - d->pos)
            return corrupt(d, at, "a string of %llu bytes in %zu", (unsigned long long)v,
                           d->len - d->pos);
        lua_pushlstring(L, (const char *)d->p + d->pos, (size_t)v);
        d->pos += (size_t)v;
        return true;
    case V_TABLE:
        return dec_table(L, d, at);
    default:
        return corrupt(d, at, "an unknown tag %u", tag);
    }
}

/* Runs protected: the value of the bytes (struct dec at argument 1), kept
 * in the registry. */
static int decode(lua_State *L)
{
    struct dec *d = lua_touserdata(L, 1);
    unsigned version = 0;
    if (!get_byte(d, &version))
        return 0;
    if (version != STATE_VERSION) {
        corrupt(d, 0, "version %u of the encoding (this ptm reads %d)", version, STATE_VERSION);
        return 0;
    }
    if (!dec_value(L, d))
        return 0;
    if (d->pos != d->len) {
        corrupt(d, d->pos, "%zu bytes after the value", d->len - d->pos);
        return 0;
    }
    d->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lhost_state_load(struct lhost *h, const char *fn, const void *buf, size_t len)
{
    lua_State *L = h->L;
    uint64_t rng[LHOST_RNG_WORDS];
    lhost_rng_get(h, rng);
    int base = lua_gettop(L);
    struct dec d = {.p = buf, .len = len, .ref = LUA_NOREF};
    lhost_begin(h);
    lua_pushcfunction(L, decode);
    lua_pushlightuserdata(L, &d);
    int rc = lhost_status(h, lua_pcall(L, 1, 0, 0), "while rebuilding the value for hook", fn);
    lua_settop(L, base);
    if (rc == 0 && d.failed) {
        lhost_fail(h, LHOST_FAIL_STATE, "the saved state for hook '%s' is corrupt: %s", fn, d.msg);
        rc = PTM_EDATA;
    }
    if (rc == 0) {
        rc = lhost_call_state(h, fn, d.ref, base);
        lhost_finish(h, base);
    }
    luaL_unref(L, LUA_REGISTRYINDEX, d.ref);
    lhost_rng_set(h, rng);
    return rc;
}

size_t lhost_state_cap(const struct lhost *h)
{
    return h->sb.cap;
}
