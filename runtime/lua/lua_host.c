/*
 * lua_host.c - a worker's Lua state (lua_host.h): making and freeing it,
 * registering the objects of the engine that hooks see (vectors, matrix
 * shards, consts, the round), and the last failure. The objects, the
 * calls and the random numbers have files of their own (lhost_*.c; the
 * list is in lua_host_impl.h). Owns struct lhost and what it holds: the
 * Lua state, the registered names, the matrices' block offsets.
 *
 * DESIGN
 *
 * Objects. Every full userdata in a host's state is one of ours (hooks
 * cannot make userdata), so a type check is a tag compare in the first
 * word, not luaL_checkudata's registry lookup. The host is found through
 * the state's extra space. Vectors and matrices are full userdata made
 * once, at registration; re-registering a name updates the same userdata
 * in place, so a view a hook kept follows the engine's array.
 *
 * Loops over ratings (examples/mf/mf.lua: for each rating of the block,
 * the next rating with its row of H, a dot, a mix) make a few C calls a
 * rating, and there the cost is the calls, not their loops: measured with
 * callgrind at rank 20 (one worker, the rating's loop body), about 3,100
 * instructions a rating against the kernel's 400: some 1,100 in our
 * functions and the Lua API calls they make (so each does as few as it
 * can: one lua_touserdata per vector argument), 1,200 in the interpreter
 * and 800 in the count hook of the sandbox's instruction budget, which
 * puts the interpreter in its slow path at every instruction. So a loop
 * over ratings in Lua runs at several times the kernel whatever it calls,
 * and less so as the work of a rating grows (bench/RESULTS.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "lua_host_impl.h"
#include "lua_sandbox.h"
#include "ptm.h"
#include "rng.h"

static const char *const kind_names[] = {"vector", "matrix"};

int lhost_fail(struct lhost *h, enum lhost_failure kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->msg, sizeof(h->msg), fmt, ap);
    va_end(ap);
    h->fail = kind;
    return PTM_EINVAL;
}

/* ---- setting up a state --------------------------------------------------------- */

/* A metatable that hides itself, named name, on the stack. */
void lhost_new_metatable(lua_State *L, const char *name)
{
    lua_newtable(L);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
}

static int setup(lua_State *L)
{
    struct lhost *h = lua_touserdata(L, 1);
    *(struct lhost **)lua_getextraspace(L) = h;

    lhost_open_random(L);
    lhost_open_vectors(L, h);
    lhost_open_matrices(L, h);
    lhost_open_views(L, h);
    lhost_open_worker(L, h);

    lua_newtable(L);
    h->ref_job = luaL_ref(L, LUA_REGISTRYINDEX);

    /* the host's S, d and z (whose buffer comes with the first pull) */
    lhost_open_blocks(L, h);
    lhost_open_calls(L, h);
    return 0;
}

static void drop_block_ptrs(struct lhost *h)
{
    for (int i = 0; i < h->nmat; i++) {
        ptm_free(h->mat[i].blockptr);
        h->mat[i].blockptr = NULL;
    }
}

int lhost_new(struct lhost **out, const struct lhost_config *cfg)
{
    PTM_ASSERT(cfg->workers >= 1 && cfg->id >= 0 && cfg->id < cfg->workers);
    PTM_ASSERT(cfg->last >= cfg->first - 1);
    *out = NULL;
    struct lhost *h = ptm_malloc(sizeof(*h));
    if (!h)
        return PTM_ENOMEM;
    memset(h, 0, sizeof(*h));
    h->id = cfg->id;
    h->workers = cfg->workers;
    h->first = cfg->first;
    h->last = cfg->last;
    lhost_seed_rng(&h->rng, cfg->seed, 2 * (uint64_t)cfg->id + 1);
    lhost_seed_rng(&h->mrng, cfg->seed, 2 * (uint64_t)cfg->id + 2);
    h->L = lsandbox_new(&h->sb, cfg->mem ? cfg->mem : LHOST_MEM_DEFAULT,
                        cfg->budget ? cfg->budget : LHOST_BUDGET_DEFAULT,
                        cfg->seconds > 0 ? cfg->seconds : LHOST_SECONDS_DEFAULT);
    if (!h->L)
        goto out_free;
    lua_pushcfunction(h->L, setup);
    lua_pushlightuserdata(h->L, h);
    if (lua_pcall(h->L, 1, 0, 0) != LUA_OK)
        goto out_close; /* only memory can fail here */
    *out = h;
    return 0;

out_close:
    lua_close(h->L);
out_free:
    ptm_free(h);
    return PTM_ENOMEM;
}

void lhost_free(struct lhost *h)
{
    if (!h)
        return;
    lua_close(h->L);
    drop_block_ptrs(h);
    for (size_t i = 0; i < h->nobj; i++)
        ptm_free(h->obj[i].name);
    ptm_free(h->obj);
    ptm_free(h->chunk);
    ptm_free(h);
}

/* ---- registering objects -------------------------------------------------------- */

struct reg {
    struct lhost *h;
    const char *name;
    enum obj_kind kind;
    int slot;
    void *ud; /* out */
};

/* Runs protected: make the userdata and store it as w[name]. */
static int make_object(lua_State *L)
{
    struct reg *r = lua_touserdata(L, 1);
    struct lhost *h = r->h;
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_fields);
    if (r->kind == OBJ_VECTOR) {
        struct uvec *v = lua_newuserdatauv(L, sizeof(*v), 0);
        memset(v, 0, sizeof(*v));
        v->tag = TAG_VECTOR;
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_vecmt);
        r->ud = v;
    } else {
        struct umat *m = lua_newuserdatauv(L, sizeof(*m), 0);
        m->tag = TAG_MATRIX;
        m->slot = r->slot;
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref_matmt);
        r->ud = m;
    }
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, r->name);
    return 0;
}

/* The object registered as name: found, or made (of kind). */
static int object(struct lhost *h, const char *name, enum obj_kind kind, struct hobj **out)
{
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    for (size_t i = 0; i < h->nobj; i++) {
        if (strcmp(h->obj[i].name, name) != 0)
            continue;
        if (h->obj[i].kind != kind)
            return lhost_fail(h, LHOST_FAIL_NAME, "'%s' is already a %s, not a %s", name,
                              kind_names[h->obj[i].kind], kind_names[kind]);
        *out = &h->obj[i];
        return 0;
    }
    if (lhost_is_worker_field(name))
        return lhost_fail(h, LHOST_FAIL_NAME,
                          "'%s' is a field of the worker object and cannot "
                          "name a %s",
                          name, kind_names[kind]);
    if (kind == OBJ_MATRIX && h->nmat == LHOST_MAX_MATRICES)
        return lhost_fail(h, LHOST_FAIL_NAME, "more than %d matrices", LHOST_MAX_MATRICES);
    if (h->nobj == h->capobj) {
        size_t cap = h->capobj ? 2 * h->capobj : 8;
        struct hobj *o = ptm_realloc(h->obj, cap * sizeof(*o));
        if (!o)
            return PTM_ENOMEM;
        h->obj = o;
        h->capobj = cap;
    }
    size_t n = strlen(name);
    char *copy = ptm_malloc(n + 1);
    if (!copy)
        return PTM_ENOMEM;
    memcpy(copy, name, n + 1);
    struct reg r = {.h = h, .name = copy, .kind = kind, .slot = h->nmat};
    lua_pushcfunction(h->L, make_object);
    lua_pushlightuserdata(h->L, &r);
    h->sb.capped = false;
    int st = lua_pcall(h->L, 1, 0, 0);
    if (st != LUA_OK) {
        lua_pop(h->L, 1);
        ptm_free(copy);
        if (h->sb.capped)
            return lhost_fail(h, LHOST_FAIL_MEMORY, "memory cap exceeded registering '%s'", name);
        return PTM_ENOMEM;
    }
    struct hobj *o = &h->obj[h->nobj++];
    *o = (struct hobj){.name = copy, .kind = kind, .ud = r.ud};
    if (kind == OBJ_MATRIX)
        h->mat[h->nmat++].name = copy;
    *out = o;
    return 0;
}

int lhost_set_table(struct lhost *h, const char *name, double *v, int64_t rows, int64_t cols,
                    bool writable)
{
    PTM_ASSERT(rows >= 0 && cols >= 1 && (v || rows == 0) && rows <= INT64_MAX / cols);
    struct hobj *o;
    int rc = object(h, name, OBJ_VECTOR, &o);
    if (rc)
        return rc;
    struct uvec *u = o->ud;
    if (!u->name) { /* new: its slot for row views, while there are slots */
        u->slot = h->ntab < MAX_TABLES ? h->ntab : -1;
        if (u->slot >= 0)
            h->tab[h->ntab++] = u;
    }
    u->v = v;
    u->n = rows * cols;
    u->rows = rows;
    u->cols = cols;
    u->writable = writable;
    u->limited = false;
    u->name = o->name;
    return 0;
}

int lhost_set_vector(struct lhost *h, const char *name, double *v, int64_t n, bool writable)
{
    return lhost_set_table(h, name, v, n, 1, writable);
}

int lhost_limit_rows(struct lhost *h, const char *name, int64_t lo, int64_t hi, bool writable)
{
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    for (size_t i = 0; i < h->nobj; i++) {
        if (strcmp(h->obj[i].name, name) != 0 || h->obj[i].kind != OBJ_VECTOR)
            continue;
        struct uvec *u = h->obj[i].ud;
        PTM_ASSERT(0 <= lo && lo <= hi && hi <= u->rows);
        u->limited = true;
        u->lo = lo;
        u->hi = hi;
        u->writable = writable;
        return 0;
    }
    return lhost_fail(h, LHOST_FAIL_NAME, "no vector '%s' to limit", name);
}

void lhost_set_blocks(struct lhost *h, const int64_t *lo, int64_t n)
{
    PTM_ASSERT(n >= 0 && n <= VIEW_MAX_BLOCKS && (lo || n == 0));
    drop_block_ptrs(h);
    h->blk_lo = n ? lo : NULL;
    h->nblk = n;
}

int lhost_set_matrix(struct lhost *h, const char *name, const struct lhost_matrix *m)
{
    PTM_ASSERT(!m->csc || m->csc->ncols == m->cols);
    PTM_ASSERT(!m->csr || m->csr->ncols == m->cols);
    PTM_ASSERT(!m->csc || !m->csr || m->csc->nrows == m->csr->nrows);
    struct hobj *o;
    int rc = object(h, name, OBJ_MATRIX, &o);
    if (rc)
        return rc;
    struct hmat *hm = &h->mat[((struct umat *)o->ud)->slot];
    hm->m = *m;
    ptm_free(hm->blockptr);
    hm->blockptr = NULL;
    return 0;
}

struct constset {
    struct lhost *h;
    const char *name, *str;
    double num;
};

static int set_const(lua_State *L)
{
    struct constset *c = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->h->ref_job);
    if (c->str)
        lua_pushstring(L, c->str);
    else
        lua_pushnumber(L, c->num);
    lua_setfield(L, -2, c->name);
    return 0;
}

static int constant(struct constset *c)
{
    struct lhost *h = c->h;
    h->fail = LHOST_FAIL_NONE;
    h->msg[0] = '\0';
    h->sb.capped = false;
    lua_pushcfunction(h->L, set_const);
    lua_pushlightuserdata(h->L, c);
    if (lua_pcall(h->L, 1, 0, 0) == LUA_OK)
        return 0;
    lua_pop(h->L, 1);
    if (h->sb.capped)
        return lhost_fail(h, LHOST_FAIL_MEMORY, "memory cap exceeded setting const '%s'", c->name);
    return PTM_ENOMEM;
}

int lhost_set_const_num(struct lhost *h, const char *name, double v)
{
    return constant(&(struct constset){.h = h, .name = name, .num = v});
}

int lhost_set_const_str(struct lhost *h, const char *name, const char *s)
{
    return constant(&(struct constset){.h = h, .name = name, .str = s});
}

void lhost_set_round(struct lhost *h, int64_t round)
{
    h->round = round;
}

void lhost_set_sweep(struct lhost *h, int64_t sweep)
{
    h->sweep = sweep;
}

int64_t lhost_round(const struct lhost *h)
{
    return h->round;
}

int64_t lhost_sweep(const struct lhost *h)
{
    return h->sweep;
}

/* ---- after a call --------------------------------------------------------------- */

const char *lhost_error(const struct lhost *h)
{
    return h->msg;
}

enum lhost_failure lhost_failure(const struct lhost *h)
{
    return h->fail;
}

size_t lhost_memory(const struct lhost *h)
{
    return h->sb.used;
}
