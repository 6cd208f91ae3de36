/*
 * lhost_view.c - the light userdata hooks hold: views of one column or
 * row of a matrix shard (X:col(j), X:row(i [, b])), views of a set of
 * them over the block list (X:cols(S), X:rows(S)), and rows of registered
 * vectors (W:row(i)); decoding them, the views' methods, the loops over a
 * view's entries (x:each()), and the one metatable all light userdata of
 * a state share. Owns that metatable, and a matrix's block offsets
 * (struct hmat's blockptr: made here, freed by lua_host.c).
 *
 * DESIGN
 *
 * Sparse views are light userdata: X:col(j) encodes (matrix slot, row or
 * column, index) in the pointer bits and allocates nothing. All light
 * userdata of a state share one metatable, which gives them the view
 * methods; a method decodes the view and looks the arrays up in the
 * host at every use, so a kept view is never dangling. Light userdata
 * made this way are never dereferenced. A full userdata per view would
 * cost an allocation and garbage per column: X:col(j):dot() took 93-112 ns
 * that way against 57-65 ns with light userdata (plain Lua 5.4, no hook,
 * this machine). One view object reused per state would be as cheap but
 * would alias: `local a, b = X:col(1), X:col(2)` would be one view.
 *
 * Rows of a registered matrix (W:row(i)) are light userdata too, kind
 * VIEW_DENSE, decoded into a struct uvec in the host (one place per
 * argument position) so that every vector operation takes them. All
 * light userdata a hook can hold are views with VIEW_MAGIC in their top
 * bits, which no user-space address has: one lua_touserdata() tells a
 * view from a full userdata and from anything else. Their __index is a
 * C function over the methods' table, so that x[k] reads element k of a
 * row view (x[k] = a writes it): a method call on a view costs that one
 * C call more than a table __index would, about 18 ns on this machine (a
 * loop of W:row(i):dot(W:row(j)) at rank 20: 1.11 s against 1.00 s for
 * 6 million calls), two of them a rating in mf.lua's loop.
 *
 * A set over a list the hook gives (X:cols({3, 7}), not S) is a full
 * userdata holding a copy of the list, checked when made (struct uset),
 * with the same methods as a set over S.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>

#include "arena.h"
#include "lua_host_impl.h"
#include "ptm.h"

/* A decoded set view: member k is column (row) s->b[k] of m, which has
 * count of them, with entries idx[ptr[j] .. ptr[j + 1]) and val[...] for
 * member j (the CSC's or the CSR's arrays); a partner vector has dim
 * elements. */
struct vset {
    const struct hmat *m;
    int kind; /* of the members: VIEW_COL or VIEW_ROW */
    const struct ublocks *s;
    const int64_t *ptr;
    const int32_t *idx;
    const double *val;
    int64_t count, dim;
};

/* The kind of the light userdata at argument i, with its slot, block and
 * index; -1 when it is not a view. */
static int view_parse(lua_State *L, int i, int *slot, int64_t *block, int64_t *index)
{
    void *p = lua_touserdata(L, i);
    if (!is_view_ptr(p))
        return -1;
    uintptr_t code = (uintptr_t)p;
    struct lhost *h = host_of(L);
    int s = (int)(code >> 52 & 0xff), kind = (int)(code >> 48 & 0xf);
    if (kind > VIEW_DENSE || s >= (kind == VIEW_DENSE ? h->ntab : h->nmat))
        return -1;
    *slot = s;
    *block = (int64_t)(code >> 32 & 0xffff) - 1;
    *index = (int64_t)(code & 0xffffffffu);
    return kind;
}

/* The kind of the sparse view at argument i (and its matrix and index),
 * or -1 when it is not a sparse view. */
static int view_kind(lua_State *L, int i, const struct hmat **m, int64_t *index)
{
    int slot;
    int64_t block;
    int kind = view_parse(L, i, &slot, &block, index);
    if (kind < 0 || kind == VIEW_DENSE)
        return -1;
    *m = &host_of(L)->mat[slot];
    return kind;
}

static bool is_row_view(lua_State *L, int i)
{
    return is_row_code(lua_touserdata(L, i));
}

/* m's block offsets (struct hmat), made when missing: every row's entries
 * split at the blocks' first columns, in one pass over the row. */
const int64_t *lhost_block_ptr(lua_State *L, struct hmat *m)
{
    if (m->blockptr)
        return m->blockptr;
    struct lhost *h = host_of(L);
    const struct ptm_csr *r = m->m.csr;
    int64_t nb = h->nblk;
    if ((uint64_t)r->nrows + 1 > SIZE_MAX / sizeof(int64_t) / (uint64_t)(nb + 1))
        luaL_error(L, "not enough memory for the blocks of '%s'", m->name);
    int64_t *bp = ptm_malloc(((size_t)r->nrows * (size_t)(nb + 1) + 1) * sizeof(int64_t));
    if (!bp)
        luaL_error(L, "not enough memory for the blocks of '%s'", m->name);
    for (int64_t i = 0; i < r->nrows; i++) {
        int64_t p = r->rowptr[i], end = r->rowptr[i + 1];
        int64_t *row = bp + i * (nb + 1);
        for (int64_t b = 0; b < nb; b++) {
            while (p < end && r->colind[p] < h->blk_lo[b])
                p++;
            row[b] = p;
        }
        row[nb] = end;
    }
    m->blockptr = bp;
    return bp;
}

/* Decode the single view at argument i; false when it is not one. */
bool lhost_view_decode(lua_State *L, int i, struct view *out)
{
    int slot;
    int64_t index, block;
    int kind = view_parse(L, i, &slot, &block, &index);
    if (kind != VIEW_COL && kind != VIEW_ROW)
        return false;
    struct lhost *h = host_of(L);
    struct hmat *m = &h->mat[slot];
    if (index >= view_count(m, kind))
        luaL_error(L, "%s %I of '%s' is gone (the engine changed the matrix)",
                   kind == VIEW_COL ? "column" : "row", (lua_Integer)index + 1, m->name);
    out->m = m;
    out->kind = kind;
    out->index = index;
    out->block = block;
    if (kind == VIEW_COL) {
        const struct ptm_csc *c = m->m.csc;
        out->idx = c->rowind + c->colptr[index];
        out->val = c->val + c->colptr[index];
        out->len = c->colptr[index + 1] - c->colptr[index];
        out->dim = c->nrows;
        return true;
    }
    const struct ptm_csr *r = m->m.csr;
    int64_t lo = r->rowptr[index], hi = r->rowptr[index + 1];
    if (block >= 0) {
        if (block >= h->nblk || m->m.cols != h->blk_lo[h->nblk])
            luaL_error(L, "row %I of '%s' in block %I is gone (the engine changed the blocks)",
                       (lua_Integer)index + 1, m->name, (lua_Integer)block + 1);
        const int64_t *bp = lhost_block_ptr(L, m) + index * (h->nblk + 1) + block;
        lo = bp[0];
        hi = bp[1];
    }
    out->idx = r->colind + lo;
    out->val = r->val + lo;
    out->len = hi - lo;
    out->dim = r->ncols;
    return true;
}

/* Decode the set view at argument i, on the matrix as it is now; false
 * when it is not one. Its blocks are checked by the operations: those
 * that make a new vector check each as they go, so that the first pass
 * over the list is also the work (it is often not in the cache). */
static bool set_decode(lua_State *L, int i, struct vset *out)
{
    const struct hmat *m;
    int64_t index;
    const struct ublocks *s = host_of(L)->blocks;
    int kind = view_kind(L, i, &m, &index);
    if (kind < 0 && lua_type(L, i) == LUA_TUSERDATA) {
        const struct uset *u = lua_touserdata(L, i);
        if (u->tag == TAG_SET) {
            kind = u->kind;
            m = &host_of(L)->mat[u->slot];
            s = &u->list;
        }
    }
    if (kind != VIEW_COLS && kind != VIEW_ROWS)
        return false;
    if (kind == VIEW_COLS && m->m.csc) {
        const struct ptm_csc *c = m->m.csc;
        *out = (struct vset){m, VIEW_COL, s, c->colptr, c->rowind, c->val, c->ncols, c->nrows};
    } else if (kind == VIEW_ROWS && m->m.csr) {
        const struct ptm_csr *r = m->m.csr;
        *out = (struct vset){m, VIEW_ROW, s, r->rowptr, r->colind, r->val, r->nrows, r->ncols};
    } else {
        luaL_error(L, "the %s of '%s' are gone (the engine changed the matrix)",
                   kind == VIEW_COLS ? "columns" : "rows", m->name);
    }
    return true;
}

/* Ask for the first and last entries of member k + PREFETCH of set x (a column of
 * 20 non-zeros is two or three cache lines of each array): a set's
 * members lie anywhere in the matrix, and a loop that waits for each in
 * turn spends much of its time waiting. A macro, because gcc takes a
 * function that only prefetches for one without effect and drops the
 * calls. */
enum { PREFETCH = 8, PREFETCH_PTR = 16 }; /* and the member's bounds further ahead */
#define PREFETCH_MEMBER(x, k)                                                                      \
    do {                                                                                           \
        if ((k) + PREFETCH_PTR < (x)->s->n && (x)->s->b[(k) + PREFETCH_PTR] < (x)->count)        \
            __builtin_prefetch((x)->ptr + (x)->s->b[(k) + PREFETCH_PTR]);                         \
        if ((k) + PREFETCH < (x)->s->n && (x)->s->b[(k) + PREFETCH] < (x)->count) {              \
            int64_t j_ = (x)->s->b[(k) + PREFETCH], lo_ = (x)->ptr[j_], hi_ = (x)->ptr[j_ + 1];  \
            if (hi_ > lo_) { /* its first and last entries */                                      \
                __builtin_prefetch((x)->idx + lo_);                                                \
                __builtin_prefetch((x)->val + lo_);                                                \
                __builtin_prefetch((x)->idx + hi_ - 1);                                            \
                __builtin_prefetch((x)->val + hi_ - 1);                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static int set_range_error(lua_State *L, const struct vset *x, int64_t block)
{
    bool cols = x->kind == VIEW_COL;
    return luaL_error(L, "block %I out of range for the %s of '%s' (1..%I%s)",
                      (lua_Integer)block + 1, cols ? "columns" : "rows", x->m->name,
                      (lua_Integer)x->count, cols ? "" : " on this worker");
}

static void check_view(lua_State *L, int i, struct view *out)
{
    if (lhost_view_decode(L, i, out))
        return;
    const struct hmat *m;
    int64_t index;
    if (view_kind(L, i, &m, &index) >= VIEW_COLS)
        luaL_argerror(L, i, "a view of one column or row expected, got a set");
    if (is_row_view(L, i))
        luaL_argerror(L, i, "a sparse view expected, got a row of a vector");
    luaL_typeerror(L, i, "sparse view");
}

/* A vector argument that must match the view's size. */
struct uvec *lhost_check_partner(lua_State *L, int i, const struct view *x)
{
    struct uvec *v = lhost_check_vec(L, i);
    if (v->n != x->dim)
        luaL_error(L, "size mismatch: %s %I of '%s' has %I %s, %s has %I elements",
                   x->kind == VIEW_COL ? "column" : "row", (lua_Integer)x->index + 1, x->m->name,
                   (lua_Integer)x->dim, x->kind == VIEW_COL ? "rows" : "columns",
                   lhost_vlabel(L, v), (lua_Integer)v->n);
    return v;
}

/* The same for a set view. */
static struct uvec *check_set_partner(lua_State *L, int i, const struct vset *x)
{
    struct uvec *v = lhost_check_vec(L, i);
    if (v->n != x->dim)
        luaL_error(L, "size mismatch: the %s of '%s' have %I %s, %s has %I elements",
                   x->kind == VIEW_COL ? "columns" : "rows", x->m->name, (lua_Integer)x->dim,
                   x->kind == VIEW_COL ? "rows" : "columns", lhost_vlabel(L, v), (lua_Integer)v->n);
    return v;
}

static double sparse_norm2(const double *a, int64_t n)
{
    double s = 0;
    for (int64_t k = 0; k < n; k++)
        s += a[k] * a[k];
    return s;
}

/* Row views (W:row(i)) answer the methods sparse views and vectors share
 * as vectors. */

/* x:dot(v): a number; for a set, a new vector of the members' dots. */
static int sv_dot(lua_State *L)
{
    if (is_row_view(L, 1))
        return lhost_v_dot(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        const double *v = check_set_partner(L, 2, &x)->v;
        double *u = lhost_new_vector(L, x.s->n)->v;
        for (int64_t k = 0; k < x.s->n; k++) {
            int64_t j = x.s->b[k];
            if (j >= x.count)
                return set_range_error(L, &x, j);
            PREFETCH_MEMBER(&x, k);
            u[k] = sparse_dot(x.idx + x.ptr[j], x.val + x.ptr[j], x.ptr[j + 1] - x.ptr[j], v);
        }
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    struct uvec *v = lhost_check_partner(L, 2, &y);
    lua_pushnumber(L, sparse_dot(y.idx, y.val, y.len, v->v));
    return 1;
}

/* x:axpy(a, v): v += a x, returning v; for a set, v += sum over k of a[k]
 * times member k (zero a[k] skipped), where a is a number or a vector of
 * one value per block. */
static int sv_axpy(lua_State *L)
{
    if (is_row_view(L, 1))
        return lhost_v_axpy(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        const double *a = NULL;
        double c = 0;
        if (lua_type(L, 2) == LUA_TNUMBER)
            c = lua_tonumber(L, 2);
        else if (lua_type(L, 2) == LUA_TUSERDATA)
            a = lhost_check_per_block(L, 2, x.s)->v;
        else
            luaL_typeerror(L, 2, "number or vector");
        struct uvec *v = check_set_partner(L, 3, &x);
        if (!v->writable)
            return luaL_error(L, "%s is read-only", lhost_vlabel(L, v));
        int64_t bad = lhost_block_beyond(x.s, x.count); /* before v changes */
        if (bad >= 0)
            return set_range_error(L, &x, bad);
        for (int64_t k = 0; k < x.s->n; k++) {
            double ck = a ? a[k] : c;
            if (ck == 0)
                continue;
            PREFETCH_MEMBER(&x, k);
            int64_t lo = x.ptr[x.s->b[k]], hi = x.ptr[x.s->b[k] + 1];
            sparse_axpy(x.idx + lo, x.val + lo, hi - lo, ck, v->v);
        }
        lua_settop(L, 3);
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    double c = luaL_checknumber(L, 2);
    struct uvec *v = lhost_check_partner(L, 3, &y);
    if (!v->writable)
        return luaL_error(L, "%s is read-only", lhost_vlabel(L, v));
    sparse_axpy(y.idx, y.val, y.len, c, v->v);
    lua_settop(L, 3);
    return 1;
}

/* x:nnz(): stored entries; for a set, a new vector of them. */
static int sv_nnz(lua_State *L)
{
    if (is_row_view(L, 1))
        return lhost_v_nnz(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        double *u = lhost_new_vector(L, x.s->n)->v;
        for (int64_t k = 0; k < x.s->n; k++) {
            int64_t j = x.s->b[k];
            if (j >= x.count)
                return set_range_error(L, &x, j);
            u[k] = (double)(x.ptr[j + 1] - x.ptr[j]);
        }
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    lua_pushinteger(L, y.len);
    return 1;
}

/* x:norm2(): the sum of squares; for a set, a new vector of them. */
static int sv_norm2(lua_State *L)
{
    if (is_row_view(L, 1))
        return lhost_v_norm2(L);
    struct vset x;
    if (set_decode(L, 1, &x)) {
        double *u = lhost_new_vector(L, x.s->n)->v;
        for (int64_t k = 0; k < x.s->n; k++) {
            int64_t j = x.s->b[k];
            if (j >= x.count)
                return set_range_error(L, &x, j);
            PREFETCH_MEMBER(&x, k);
            u[k] = sparse_norm2(x.val + x.ptr[j], x.ptr[j + 1] - x.ptr[j]);
        }
        return 1;
    }
    struct view y;
    check_view(L, 1, &y);
    lua_pushnumber(L, sparse_norm2(y.val, y.len));
    return 1;
}

static int sv_sum(lua_State *L)
{
    if (is_row_view(L, 1))
        return lhost_v_sum(L);
    struct view x;
    check_view(L, 1, &x);
    double s = 0;
    for (int64_t k = 0; k < x.len; k++)
        s += x.val[k];
    lua_pushnumber(L, s);
    return 1;
}

/* The state of a loop `for i, a [, t] in x:each([T])`: entries pos ..
 * end-1 of the arrays idx and val (the matrix's, as they were when the
 * loop began: a step checks that they still are), and the table whose
 * rows it yields too, or -1. A full userdata, made once a loop: a step
 * is then one C call that reads and pushes, with no search. */
struct uiter {
    uint32_t tag;
    int slot;  /* the matrix */
    int kind;  /* VIEW_COL or VIEW_ROW */
    int tslot; /* the table T in h->tab, or -1 */
    const int32_t *idx;
    const double *val;
    int64_t pos, end;
};

static int sv_next(lua_State *L)
{
    struct uiter *it = lua_touserdata(L, 1); /* NULL, a view (is_view_ptr) or one of ours */
    if (!it || is_view_ptr(it) || it->tag != TAG_ITER)
        return luaL_typeerror(L, 1, "loop state of each()");
    if (it->pos >= it->end)
        return 0;
    struct lhost *h = host_of(L);
    const struct hmat *m = &h->mat[it->slot];
    if (it->kind == VIEW_COL ? !m->m.csc || m->m.csc->rowind != it->idx || m->m.csc->val != it->val
                             : !m->m.csr || m->m.csr->colind != it->idx || m->m.csr->val != it->val)
        return luaL_error(L, "'%s' changed during the loop (the engine replaced it)", m->name);
    int64_t j = it->idx[it->pos];
    lua_pushinteger(L, (lua_Integer)j + 1);
    lua_pushnumber(L, it->val[it->pos]);
    it->pos++;
    if (it->tslot < 0)
        return 2;
    const struct uvec *t = h->tab[it->tslot];
    if (j >= t->rows)
        return luaL_error(L,
                          "row %I of '%s' out of range (1..%I): the view's indices are not "
                          "its rows",
                          (lua_Integer)j + 1, t->name, (lua_Integer)t->rows);
    if (t->limited && (j < t->lo || j >= t->hi))
        return lhost_held_error(L, t, j);
    lua_pushlightuserdata(L, view_code(it->tslot, VIEW_DENSE, -1, j));
    return 3;
}

/* x:each([T]): for i, a in x:each() over the entries (index, value);
 * with a registered vector T, for i, a, t in x:each(T), t being T:row(i). */
static int sv_each(lua_State *L)
{
    struct view x;
    check_view(L, 1, &x);
    int tslot = -1;
    if (!lua_isnoneornil(L, 2)) {
        struct uvec *t = lua_type(L, 2) == LUA_TUSERDATA ? lua_touserdata(L, 2) : NULL;
        if (!t || t->tag != TAG_VECTOR)
            return luaL_typeerror(L, 2, "vector");
        if (t->slot < 0)
            return luaL_error(L, "%s has no rows: row views are of the job's parameters and data",
                              lhost_vlabel(L, t));
        tslot = t->slot;
    }
    lua_pushcfunction(L, sv_next);
    struct uiter *it = lua_newuserdatauv(L, sizeof(*it), 0);
    const struct hmat *m = x.m;
    const int32_t *idx = x.kind == VIEW_COL ? m->m.csc->rowind : m->m.csr->colind;
    const double *val = x.kind == VIEW_COL ? m->m.csc->val : m->m.csr->val;
    *it = (struct uiter){.tag = TAG_ITER,
                         .slot = (int)(m - host_of(L)->mat),
                         .kind = x.kind,
                         .tslot = tslot,
                         .idx = idx,
                         .val = val,
                         .pos = x.idx - idx,
                         .end = x.idx - idx + x.len};
    lua_pushnil(L);
    return 3;
}

static int sv_tostring(lua_State *L)
{
    const struct hmat *m;
    int64_t index;
    int kind = view_kind(L, 1, &m, &index);
    struct view x;
    if (kind < 0 && is_row_view(L, 1)) {
        const struct uvec *v = lhost_row_view(L, 1);
        lua_pushfstring(L, "row %I of '%s' (%I elements)", (lua_Integer)v->row, v->name,
                        (lua_Integer)v->n);
    } else if (kind == VIEW_ROW && lhost_view_decode(L, 1, &x) && x.block >= 0)
        lua_pushfstring(L, "row %I of '%s' in block %I", (lua_Integer)index + 1, m->name,
                        (lua_Integer)x.block + 1);
    else if (kind < 0)
        lua_pushliteral(L, "light userdata");
    else if (kind >= VIEW_COLS)
        lua_pushfstring(L, "the %s of '%s' at the block list",
                        kind == VIEW_COLS ? "columns" : "rows", m->name);
    else
        lua_pushfstring(L, "%s %I of '%s'", kind == VIEW_COL ? "column" : "row",
                        (lua_Integer)index + 1, m->name);
    return 1;
}

/* ---- light userdata: views ------------------------------------------------------ */

/* __index of every light userdata (upvalue 1: the methods): a method by
 * name, or element k of a row view, x[k]. A sparse view has no elements
 * to index. */
static int light_index(lua_State *L)
{
    int t = lua_type(L, 2);
    if (t == LUA_TSTRING) {
        lua_rawget(L, lua_upvalueindex(1)); /* the key is the top: (view, key) */
        return 1;
    }
    struct uvec *v = lhost_row_view(L, 1);
    if (!v)
        return luaL_error(L, "a sparse view has no elements to index: use its methods (x:each() "
                             "for its entries)");
    if (t != LUA_TNUMBER)
        return luaL_error(L, "%s indexed with %s (expected a number)", lhost_vlabel(L, v),
                          luaL_typename(L, 2));
    lua_pushnumber(L, v->v[lhost_vec_pos(L, v, 2)]);
    return 1;
}

/* x[k] = a on a row view (when its vector is writable). */
static int light_newindex(lua_State *L)
{
    struct uvec *v = lhost_row_view(L, 1);
    if (!v)
        return luaL_error(L, "a sparse view has no elements to set");
    return lhost_vec_store(L, v);
}

static int light_len(lua_State *L)
{
    struct uvec *v = lhost_row_view(L, 1);
    if (!v)
        return luaL_error(L, "attempt to get length of a userdata value");
    lua_pushinteger(L, v->n);
    return 1;
}

/* #xs: the members of a set over a list of the hook's. */
static int set_len(lua_State *L)
{
    lua_pushinteger(L, ((struct uset *)lua_touserdata(L, 1))->list.n);
    return 1;
}

static int set_tostring(lua_State *L)
{
    const struct uset *u = lua_touserdata(L, 1);
    lua_pushfstring(L, "%I %s of '%s'", (lua_Integer)u->list.n,
                    u->kind == VIEW_COLS ? "columns" : "rows", host_of(L)->mat[u->slot].name);
    return 1;
}

/* The one metatable of light userdata: sparse views, and rows of
 * vectors, which answer the vector methods; and the metatable of sets
 * over a hook's list (h->ref_setmt). */
void lhost_open_views(lua_State *L, struct lhost *h)
{
    static const luaL_Reg set_methods[] = {
        {"dot", sv_dot}, {"axpy", sv_axpy}, {"nnz", sv_nnz}, {"norm2", sv_norm2}, {NULL, NULL},
    };
    lhost_new_metatable(L, "set view");
    luaL_newlib(L, set_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, set_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, set_tostring);
    lua_setfield(L, -2, "__tostring");
    h->ref_setmt = luaL_ref(L, LUA_REGISTRYINDEX);

    static const luaL_Reg view_methods[] = {
        {"dot", sv_dot}, {"axpy", sv_axpy}, {"nnz", sv_nnz}, {"norm2", sv_norm2},
        {"sum", sv_sum}, {"each", sv_each}, {NULL, NULL},
    };
    lua_pushlightuserdata(L, NULL);
    lhost_new_metatable(L, "sparse view");
    lua_createtable(L, 0, (int)PTM_ARRAY_LEN(view_methods) - 1 + LHOST_ROW_METHODS);
    luaL_setfuncs(L, view_methods, 0);
    luaL_setfuncs(L, lhost_row_methods, 0);
    lua_pushcclosure(L, light_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, light_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, light_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, sv_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
}
