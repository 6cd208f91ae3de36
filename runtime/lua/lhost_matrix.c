/*
 * lhost_matrix.c - matrix shards as hooks see them: the full userdata of
 * a registered matrix (its slot in the host's matrices, whose arrays are
 * the engine's) and its methods, which make the views of lhost_view.c
 * and tell the shape and the column counts. Owns the matrices'
 * metatable.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "lua_host_impl.h"

static const struct hmat *check_mat(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TUSERDATA) {
        struct umat *m = lua_touserdata(L, i);
        if (m->tag == TAG_MATRIX)
            return &host_of(L)->mat[m->slot];
    }
    luaL_typeerror(L, i, "matrix");
    return NULL;
}

static int m_col(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_Integer j = luaL_checkinteger(L, 2);
    const struct ptm_csc *c = m->m.csc;
    if (!c)
        return luaL_error(L, "'%s' has no column views on this worker", m->name);
    if (j < 1 || j > c->ncols)
        return luaL_error(L, "column %I out of range for '%s' (1..%I)", j, m->name,
                          (lua_Integer)c->ncols);
    lua_pushlightuserdata(L, view_code((int)(m - host_of(L)->mat), VIEW_COL, -1, j - 1));
    return 1;
}

/* X:row(i [, b]): row i, or its entries in the columns of block b (of
 * the blocks the engine registered, which cut X's columns). */
static int m_row(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    const struct ptm_csr *r = m->m.csr;
    struct lhost *h = host_of(L);
    if (!r)
        return luaL_error(L, "'%s' has no row views on this worker", m->name);
    if (i < 1 || i > r->nrows)
        return luaL_error(L, "row %I out of range for '%s' (1..%I on this worker)", i, m->name,
                          (lua_Integer)r->nrows);
    lua_Integer b = 0;
    if (!lua_isnoneornil(L, 3)) {
        b = luaL_checkinteger(L, 3);
        if (h->nblk == 0)
            return luaL_error(L, "X:row(i, b) needs blocks: this schedule has none to hold");
        if (m->m.cols != h->blk_lo[h->nblk])
            return luaL_error(L,
                              "'%s' has %I columns and the blocks cut %I: X:row(i, b) needs a "
                              "matrix whose columns the blocks cut",
                              m->name, (lua_Integer)m->m.cols, (lua_Integer)h->blk_lo[h->nblk]);
        if (b < 1 || b > h->nblk)
            return luaL_error(L, "block %I out of range (1..%I)", b, (lua_Integer)h->nblk);
        lhost_block_ptr(L, &h->mat[m - h->mat]);
    }
    lua_pushlightuserdata(L, view_code((int)(m - h->mat), VIEW_ROW, b - 1, i - 1));
    return 1;
}

/* X:colnnz(): a new vector of the entries of each column over the whole
 * matrix (every worker's rows). */
static int m_colnnz(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    if (!m->m.colnnz)
        return luaL_error(L, "'%s' has no column counts on this worker", m->name);
    double *u = lhost_new_vector(L, m->m.cols)->v;
    if (m->m.cols)
        memcpy(u, m->m.colnnz, (size_t)m->m.cols * sizeof(double));
    return 1;
}

/* X:cols(S), X:rows(S): a view of the members over the block list, which
 * follows the list as it is at each use; X:cols(list), X:rows(list) over
 * a list of the hook's (a table or a vector of indices), copied and
 * checked now. */
static int m_set(lua_State *L, int kind)
{
    const struct hmat *m = check_mat(L, 1);
    int64_t count = view_count(m, kind);
    if (count < 0)
        return luaL_error(L, "'%s' has no %s views on this worker", m->name,
                          kind == VIEW_COL ? "column" : "row");
    int slot = (int)(m - host_of(L)->mat), set = kind == VIEW_COL ? VIEW_COLS : VIEW_ROWS;
    if (lhost_index_list(L, 2, slot, set, count, m->name))
        return 1;
    lua_pushlightuserdata(L, view_code(slot, set, -1, 0));
    return 1;
}

static int m_cols(lua_State *L)
{
    return m_set(L, VIEW_COL);
}

static int m_rows(lua_State *L)
{
    return m_set(L, VIEW_ROW);
}

static int m_size(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_pushinteger(L, m->m.rows);
    lua_pushinteger(L, m->m.cols);
    return 2;
}

static int m_tostring(lua_State *L)
{
    const struct hmat *m = check_mat(L, 1);
    lua_pushfstring(L, "matrix '%s' (%I x %I)", m->name, (lua_Integer)m->m.rows,
                    (lua_Integer)m->m.cols);
    return 1;
}

/* The matrices' metatable, in the registry (h->ref_matmt). */
void lhost_open_matrices(lua_State *L, struct lhost *h)
{
    static const luaL_Reg mat_methods[] = {{"col", m_col},   {"row", m_row},   {"cols", m_cols},
                                           {"rows", m_rows}, {"size", m_size}, {"colnnz", m_colnnz},
                                           {NULL, NULL}};
    lhost_new_metatable(L, "matrix");
    luaL_newlib(L, mat_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    h->ref_matmt = luaL_ref(L, LUA_REGISTRYINDEX);
}
