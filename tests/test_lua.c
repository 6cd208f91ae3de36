/*
 * test_lua.c - the Lua host (runtime/lua/lua_host.h) and the sandbox under it:
 * refused names and functions, the instruction budget (and the ways a hook
 * might dodge it), the time limit, the memory cap, error messages and
 * tracebacks, every wrong return value, the forms of push, pull and apply,
 * the block list, vectors, sparse views and the bulk operations over the
 * block list against plain C on random data, new vectors under the memory
 * cap, the worker object, the generators, the save and load hooks of
 * checkpoints and the encoding of their value (every kind of value, its
 * bytes, the values refused, corrupt and mangled bytes), the Lasso of
 * examples/lasso/lasso.lua against a coordinate descent written here, two
 * hosts on two threads, and allocation failure.
 *
 * DESIGN: most tests write a hook as the body of objective(w, job) in a
 * file named t.lua and check what the call returns; table rows hold the
 * body and the expected message (its first line when the rest is a
 * traceback). Numbers are checked against C computed here, never against
 * the host's own earlier output. Run from the repository root (make
 * test): the Lasso test reads examples/lasso/lasso.lua.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "data.h"
#include "lua_host.h"
#include "ptm.h"
#include "testutil.h"

#define LASSO_LUA "examples/lasso/lasso.lua"

/* ---- helpers ------------------------------------------------------------------ */

/* The test's own generator (xorshift64*), independent of the host's. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1du;
}

/* Uniform in (-1, 1). */
static double unif(uint64_t *s)
{
    return (double)(rnd(s) >> 11) * 0x1.0p-52 - 1.0;
}

struct limits {
    size_t mem;
    long budget;
    double seconds;
};

static struct lhost *host_with(int id, int workers, uint64_t seed, struct limits lim)
{
    struct lhost_config cfg = {
        .id = id,
        .workers = workers,
        .first = 100 * id,
        .last = 100 * id + 99,
        .seed = seed,
        .mem = lim.mem,
        .budget = lim.budget,
        .seconds = lim.seconds,
    };
    struct lhost *h;
    ck_assert_int_eq(lhost_new(&h, &cfg), 0);
    return h;
}

/* A host with small limits: 16 MiB, 1 million instructions, 2 s. */
static struct lhost *small_host(void)
{
    return host_with(0, 2, 1, (struct limits){16 << 20, 1000000, 2.0});
}

static void load_ok(struct lhost *h, const char *text)
{
    int rc = lhost_load(h, "t.lua", text, strlen(text));
    ck_assert_msg(rc == 0, "load failed: %s", lhost_error(h));
}

/* Define objective(w, job) with body (line 2 on), and call it. */
static int run_body(struct lhost *h, const char *body, double *out)
{
    char text[8192];
    snprintf(text, sizeof(text), "function objective(w, job)\n%s\nend\n", body);
    load_ok(h, text);
    double x = NAN;
    int rc = lhost_objective(h, "objective", &x);
    if (out)
        *out = x;
    return rc;
}

static double eval(struct lhost *h, const char *body)
{
    double x;
    int rc = run_body(h, body, &x);
    ck_assert_msg(rc == 0, "'%s' failed: %s", body, lhost_error(h));
    return x;
}

/* The message up to its first newline. */
static char *first_line(const char *msg, char *buf, size_t len)
{
    size_t n = strcspn(msg, "\n");
    if (n >= len)
        n = len - 1;
    memcpy(buf, msg, n);
    buf[n] = '\0';
    return buf;
}

static void expect_first_line(const char *table, int row, struct lhost *h, const char *expected)
{
    char buf[1024];
    tu_expect_text(table, row, first_line(lhost_error(h), buf, sizeof(buf)), expected, NULL);
}

static bool close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* A random CSR matrix (some empty rows and columns) and its CSC. */
static void random_csr(uint64_t *s, int64_t nrows, int64_t ncols, double density, struct ptm_csr *a)
{
    a->nrows = nrows;
    a->ncols = ncols;
    a->rowptr = ptm_malloc((size_t)(nrows + 1) * sizeof(int64_t));
    a->colind = ptm_malloc((size_t)(nrows * ncols) * sizeof(int32_t) + 1);
    a->val = ptm_malloc((size_t)(nrows * ncols) * sizeof(double) + 1);
    ck_assert(a->rowptr && a->colind && a->val);
    int64_t nnz = 0;
    a->rowptr[0] = 0;
    for (int64_t i = 0; i < nrows; i++) {
        for (int64_t j = 0; j < ncols; j++) {
            if (j % 7 == 3 || (double)(rnd(s) >> 11) * 0x1.0p-53 >= density)
                continue; /* column 3, 10, ... stay empty */
            a->colind[nnz] = (int32_t)j;
            a->val[nnz++] = unif(s) * 4;
        }
        a->rowptr[i + 1] = nnz;
    }
    a->nnz = nnz;
}

/* ---- the sandbox: refused names and functions ------------------------------------ */

static const struct {
    const char *body, *expected;
} refused_cases[] = {
    {"io.write('x')", "t.lua:2: 'io' is not available in ptm hooks (they cannot touch files, "
                      "load code or run commands)"},
    {"os.exit(1)", "t.lua:2: 'os' is not available in ptm hooks (they cannot touch files, load "
                   "code or run commands)"},
    {"require('x')", "t.lua:2: 'require' is not available in ptm hooks (they cannot touch "
                     "files, load code or run commands)"},
    {"load('return 1')", "t.lua:2: 'load' is not available in ptm hooks (they cannot touch "
                         "files, load code or run commands)"},
    {"dofile('x')", "t.lua:2: 'dofile' is not available in ptm hooks (they cannot touch files, "
                    "load code or run commands)"},
    {"loadfile('x')", "t.lua:2: 'loadfile' is not available in ptm hooks (they cannot touch "
                      "files, load code or run commands)"},
    {"debug.sethook()", "t.lua:2: 'debug' is not available in ptm hooks (they cannot touch "
                        "files, load code or run commands)"},
    {"local p = package.path", "t.lua:2: 'package' is not available in ptm hooks (they cannot "
                               "touch files, load code or run commands)"},
    {"collectgarbage()", "t.lua:2: 'collectgarbage' is not available in ptm hooks (they cannot "
                         "touch files, load code or run commands)"},
    {"string.dump(print)", "t.lua:2: 'string.dump' is not available in ptm hooks (hooks cannot "
                           "make bytecode)"},
    {"local a = ('abc'):match('b')", "t.lua:2: Lua patterns are not available in ptm hooks; use "
                                     "string.find(s, text, 1, true) for plain text"},
    {"local a = string.gsub('abc', 'b', 'x')", "t.lua:2: Lua patterns are not available in ptm "
                                               "hooks; use string.find(s, text, 1, true) for "
                                               "plain text"},
    {"for a in string.gmatch('abc', '.') do end", "t.lua:2: Lua patterns are not available in "
                                                  "ptm hooks; use string.find(s, text, 1, true) "
                                                  "for plain text"},
    {"local a = ('abc'):find('b')", "t.lua:2: Lua patterns are not available in ptm hooks; use "
                                    "string.find(s, text, 1, true) for plain text"},
    {"setmetatable({}, {__gc = function() end})",
     "t.lua:2: __gc metamethods are not available in ptm hooks (finalizers run where the "
     "instruction budget cannot stop them)"},
    {"math.randomseed()", "t.lua:2: math.randomseed needs a seed in ptm hooks (runs must be "
                          "repeatable)"},
    {"table.move({}, 1, 1e12, 1, {})", "t.lua:2: 'table.move' over 1000000000000 elements "
                                       "refused: no table under the memory cap holds that many"},
    {"table.insert(setmetatable({}, {__len = function() return 2^40 end}), 1, 0)",
     "t.lua:2: 'table.insert' over 1099511627776 elements refused: no table under the memory "
     "cap holds that many"},
    {"local s = ('a'):rep(3000000) local p = ('a'):rep(1000000) .. 'b' "
     "return s:find(p, 1, true)",
     "t.lua:2: string.find of a 1000001-byte text in a 3000000-byte string refused (the search "
     "could run for minutes)"},
    /* the wrapped functions keep their names and the caller's line */
    {"table.insert(nil, 1)", "t.lua:2: bad argument #1 to 'insert' (table expected, got nil)"},
    {"table.insert({}, 3, 1)", "t.lua:2: bad argument #2 to 'insert' (position out of bounds)"},
    {"setmetatable(1, {})", "t.lua:2: bad argument #1 to 'setmetatable' (table expected, got "
                            "number)"},
    {"coroutine.close(coroutine.running())", "t.lua:2: cannot close a running coroutine"},
    {"local s = ('x'):rep(1e10)", "t.lua:2: resulting string too large"},
};

START_TEST(test_refused)
{
    struct lhost *h = small_host();
    ck_assert_int_eq(run_body(h, refused_cases[_i].body, NULL), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_ERROR);
    expect_first_line("refused", _i, h, refused_cases[_i].expected);
    ck_assert(strstr(lhost_error(h), "\nstack traceback:\n") != NULL);
    /* the state is still usable */
    ck_assert(eval(h, "return 1 + 2") == 3);
    lhost_free(h);
}
END_TEST

/* What stays: plain find, rep, the table library, coroutines. */
START_TEST(test_allowed)
{
    struct lhost *h = small_host();
    ck_assert(eval(h, "return ('hello'):find('ll', 1, true)") == 3);
    ck_assert(eval(h, "return #(('ab'):rep(3, '-'))") == 8);
    ck_assert(eval(h, "return #(('').rep('', 1e15))") == 0);
    ck_assert(eval(h, "local t = {1, 2, 3} table.insert(t, 2, 9) table.move(t, 1, 4, 2) "
                      "return table.remove(t, 1) * 1000 + t[1] * 100 + t[2] * 10 + #t") ==
              1000 + 100 + 90 + 4);
    ck_assert(eval(h,
                   "local t = table.move({1, 2, 3, 4, 5}, 1, 3, 3) "
                   "return t[1] * 10000 + t[2] * 1000 + t[3] * 100 + t[4] * 10 + t[5]") == 12123);
    ck_assert(eval(h, "local t = table.move({1, 2, 3}, 1, 3, 2, {9}) "
                      "return t[1] * 1000 + t[2] * 100 + t[3] * 10 + t[4]") == 9123);
    ck_assert(eval(h, "local t = {} table.insert(t, 'a') table.insert(t, 1, 'b') "
                      "return #t + (table.remove(t) == 'a' and 10 or 0) + "
                      "(table.remove({}) == nil and 100 or 0)") == 112);
    ck_assert(eval(h, "local g = coroutine.wrap(function() for i = 1, 3 do "
                      "coroutine.yield(i) end end) return g() + g() * 10 + g() * 100") == 321);
    ck_assert(eval(h, "local ok, e = pcall(error, 'x') return ok and 1 or #e") == 1);
    ck_assert(eval(h, "local ok, m = xpcall(function() error('boom', 0) end, "
                      "function(m) return m .. '!' end) return #m") == 5);
    ck_assert(eval(h, "local t = setmetatable({}, {__index = function(t, k) return k * 2 end}) "
                      "return t[21]") == 42);
    ck_assert(eval(h, "return utf8.len('h\\u{e9}llo') + math.floor(2.5)") == 7);
    lhost_free(h);
}
END_TEST

/* ---- the budget, the clock, the cap -------------------------------------------------- */

static const struct {
    const char *name, *body;
} loop_cases[] = {
    {"plain", "while true do end"},
    {"garbage", "while true do local t = {} end"},
    {"pcall", "while true do pcall(function() while true do end end) end"},
    {"xpcall handler", "while true do xpcall(function() error('x') end, "
                       "function() while true do end end) end"},
    {"resume", "while true do coroutine.resume(coroutine.create(function() "
               "while true do end end)) end"},
    {"wrap and pcall", "local f = coroutine.wrap(function() while true do "
                       "pcall(function() while true do end end) end end) f()"},
    {"close", "local co = coroutine.create(function() local x <close> = setmetatable({}, "
              "{__close = function() while true do end end}) while true do end end) "
              "coroutine.resume(co) coroutine.close(co)"},
    {"wrap close", "local f = coroutine.wrap(function() local x <close> = setmetatable({}, "
                   "{__close = function() while true do end end}) while true do end end) "
                   "pcall(f) while true do end"},
    {"recursion", "local function f() return pcall(f) end while true do f() end"},
    {"sort", "local t = {} for i = 1, 100 do t[i] = i end while true do "
             "pcall(table.sort, t, function(a, b) while true do end end) end"},
};

START_TEST(test_budget)
{
    struct lhost *h = small_host();
    ck_assert_int_eq(run_body(h, loop_cases[_i].body, NULL), PTM_EINVAL);
    ck_assert_msg(lhost_failure(h) == LHOST_FAIL_BUDGET, "%s: %d: %s", loop_cases[_i].name,
                  lhost_failure(h), lhost_error(h));
    ck_assert_msg(strstr(lhost_error(h), "instruction budget exceeded (1 million instructions)"),
                  "%s: %s", loop_cases[_i].name, lhost_error(h));
    ck_assert(eval(h, "local s = 0 for i = 1, 1000 do s = s + i end return s") == 500500);
    lhost_free(h);
}
END_TEST

/* The exact message and traceback of a stopped loop. */
START_TEST(test_budget_message)
{
    struct lhost *h = small_host();
    load_ok(h, "local function spin()\n  while true do end\nend\n"
               "function push(w, blocks)\n  spin()\nend\n");
    int64_t b = 0;
    int k = 0;
    double z[1];
    ck_assert_int_eq(lhost_push(h, "push", &b, 1, 1, &k, z), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_BUDGET);
    tu_expect_text("budget", 0, lhost_error(h),
                   "t.lua:2: instruction budget exceeded (1 million instructions)\n"
                   "stack traceback:\n"
                   "\tt.lua:2: in upvalue 'spin'\n"
                   "\tt.lua:5: in function 'push'",
                   NULL);
    lhost_free(h);
}
END_TEST

START_TEST(test_time_limit)
{
    struct lhost *h = host_with(0, 1, 1, (struct limits){16 << 20, 1L << 50, 0.2});
    ck_assert_int_eq(run_body(h, "while true do end", NULL), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_TIME);
    char buf[256];
    ck_assert_str_eq(first_line(lhost_error(h), buf, sizeof(buf)),
                     "t.lua:2: time limit exceeded (200 ms)");
    ck_assert(eval(h, "return 7") == 7);
    lhost_free(h);
}
END_TEST

static const struct {
    const char *name, *body;
} bomb_cases[] = {
    {"tables", "local t = {} while true do t[#t + 1] = {} end"},
    {"strings", "local s = 'x' while true do s = s .. s end"},
    {"rep", "local s = ('x'):rep(1 << 30)"},
    {"global", "big = {} for i = 1, 1e9 do big[i] = i end"},
    /* 300 x 64 KiB: well past the cap, and quick enough under TSan */
    {"caught", "local t = {} for i = 1, 300 do pcall(function() t[#t + 1] = ('y'):rep(1 << 16) "
               "end) end return #t"},
};

START_TEST(test_memory_cap)
{
    /* the time limit only as a backstop: the cap must stop each bomb */
    struct lhost *h = host_with(0, 1, 1, (struct limits){8 << 20, 200000000, 30.0});
    size_t before = lhost_memory(h);
    int rc = run_body(h, bomb_cases[_i].body, NULL);
    if (_i == 4) { /* the hook catches the memory errors and gives up */
        ck_assert_int_eq(rc, 0);
    } else {
        ck_assert_int_eq(rc, PTM_EINVAL);
        ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MEMORY);
        ck_assert_str_eq(lhost_error(h), "memory cap of 8 MiB exceeded in hook 'objective'");
    }
    /* usable afterwards; the garbage goes when collected */
    ck_assert(eval(h, "local t = {} for i = 1, 1000 do t[i] = i end return #t") == 1000);
    if (_i == 3) /* the global holds on to it: free it from Lua */
        ck_assert(eval(h, "big = nil return 0") == 0);
    ck_assert(eval(h, "local t = {} for i = 1, 20000 do t[i] = {i} end return #t") == 20000);
    ck_assert_uint_lt(lhost_memory(h), before + (6u << 20));
    lhost_free(h);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------- */

START_TEST(test_traceback)
{
    struct lhost *h = small_host();
    load_ok(h, "local function check(x)\n"
               "  if x > 2 then\n"
               "    error('block ' .. x .. ' is bad')\n"
               "  end\n"
               "end\n"
               "function push(w, blocks)\n"
               "  for _, b in ipairs(blocks) do check(b) end\n"
               "end\n");
    int64_t blocks[] = {0, 1, 2};
    int k = 0;
    double z[3];
    ck_assert_int_eq(lhost_push(h, "push", blocks, 3, 1, &k, z), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_ERROR);
    tu_expect_text("traceback", 0, lhost_error(h),
                   "t.lua:3: block 3 is bad\n"
                   "stack traceback:\n"
                   "\t[C]: in function 'error'\n"
                   "\tt.lua:3: in upvalue 'check'\n"
                   "\tt.lua:7: in function 'push'",
                   NULL);
    /* an error object that is not a string */
    load_ok(h, "function objective(w)\n  error({})\nend\n");
    double x;
    ck_assert_int_eq(lhost_objective(h, "objective", &x), PTM_EINVAL);
    tu_expect_text("traceback", 1, lhost_error(h),
                   "(error object is a table value)\n"
                   "stack traceback:\n"
                   "\t[C]: in function 'error'\n"
                   "\tt.lua:2: in function 'objective'",
                   NULL);
    lhost_free(h);
}
END_TEST

START_TEST(test_load_errors)
{
    struct lhost *h = small_host();
    const char *bad = "function push(w)\n  return w +\nend\n";
    ck_assert_int_eq(lhost_load(h, "t.lua", bad, strlen(bad)), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_LOAD);
    ck_assert_str_eq(lhost_error(h), "t.lua:3: unexpected symbol near 'end'");

    const char *bin = "\x1bLua\x54\x00";
    ck_assert_int_eq(lhost_load(h, "t.lua", bin, 6), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(h), "attempt to load a binary chunk (mode is 't')");

    ck_assert_int_eq(lhost_load_file(h, "no/such/file.lua"), PTM_ENOENT);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_LOAD);
    ck_assert_str_eq(lhost_error(h), "cannot open 'no/such/file.lua': No such file or directory");

    const char *top = "x = 1\nerror('top level')\n";
    ck_assert_int_eq(lhost_load(h, "t.lua", top, strlen(top)), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_ERROR);
    tu_expect_text("load", 0, lhost_error(h),
                   "t.lua:2: top level\n"
                   "stack traceback:\n"
                   "\t[C]: in function 'error'\n"
                   "\tt.lua:2: in main chunk",
                   NULL);

    load_ok(h, "pull = 3\n");
    ck_assert(!lhost_has(h, "push"));
    ck_assert(!lhost_has(h, "pull"));
    double x;
    ck_assert_int_eq(lhost_objective(h, "nothere", &x), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MISSING);
    ck_assert_str_eq(lhost_error(h), "'t.lua' defines no function 'nothere'");
    ck_assert_int_eq(lhost_objective(h, "pull", &x), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(h), "'pull' in 't.lua' is a number, not a function");
    load_ok(h, "function objective() return 1 end\n");
    ck_assert(lhost_has(h, "objective"));
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert_str_eq(lhost_error(h), "");
    lhost_free(h);
}
END_TEST

/* ---- wrong return values --------------------------------------------------------------- */

enum { PUSH, PULL, PULL1, OBJ };

#define PUSH_FORMS                                                                                 \
    "(expected a table mapping each block to a number or a list of numbers, a vector of one "      \
    "value per block, or a list of such vectors)"
#define PULL_FORMS                                                                                 \
    "(expected a table mapping each block to its new value or values, or a vector of one value "  \
    "per block)"

/* Hooks get blocks 3 and 5 (0-based 2 and 4) and K = 1 sums; PULL's blocks
 * have 1 and 2 variables, PULL1's one each. */
static const struct {
    int call;
    int k; /* push: K fixed by the engine (0: free) */
    const char *ret, *expected;
} result_cases[] = {
    {PUSH, 0, "nil", "hook 'push' returned nil " PUSH_FORMS},
    {PUSH, 0, "'z'", "hook 'push' returned a string " PUSH_FORMS},
    {PUSH, 0, "w", "hook 'push' returned the worker object " PUSH_FORMS},
    {PUSH, 0, "S", "hook 'push' returned the block list " PUSH_FORMS},
    {PUSH, 0, "{[3] = 1}", "hook 'push' returned no value for block 5"},
    {PUSH, 0, "{[3] = 1, [5] = 'x'}",
     "hook 'push' returned a string for block 5 (expected a "
     "number or a list of numbers)"},
    {PUSH, 0, "{[3] = 1, [5] = true}",
     "hook 'push' returned a boolean for block 5 (expected a "
     "number or a list of numbers)"},
    {PUSH, 0, "{[3] = w:vector(1), [5] = 1}",
     "hook 'push' returned a vector for block 3 (expected a number or a list of numbers)"},
    {PUSH, 0, "{[3] = {1, 2}, [5] = {1, 'x'}}",
     "hook 'push' returned a string at position 2 "
     "for block 5 (expected a number)"},
    {PUSH, 0, "{[3] = {1, 2}, [5] = {1, 2, 3}}",
     "hook 'push' returned 3 numbers for block 5 "
     "(expected 2, as for the other blocks)"},
    {PUSH, 0, "{[3] = {1, 2}, [5] = 4}",
     "hook 'push' returned 1 number for block 5 (expected "
     "2, as for the other blocks)"},
    {PUSH, 2, "{[3] = {1, 2, 3}, [5] = {1, 2}}",
     "hook 'push' returned 3 numbers for block 3 "
     "(expected 2, as for the other blocks)"},
    {PUSH, 0, "{[3] = {}, [5] = {}}", "hook 'push' returned an empty list for block 3"},
    {PUSH, 0, "{[3] = {1, 2, 3, 4, 5}, [5] = 1}",
     "hook 'push' returned 5 numbers for block 3 "
     "(at most 4)"},
    {PUSH, 0, "{[3] = 0/0, [5] = 1}",
     "hook 'push' returned nan for block 3 (expected a finite "
     "number)"},
    {PUSH, 0, "{[3] = {1, -1/0}, [5] = {1, 2}}",
     "hook 'push' returned -inf at position 2 for "
     "block 3 (expected a finite number)"},
    {PUSH, 0, "{[3] = 1, [5] = 2, [9] = 3}",
     "hook 'push' returned a value for block 9, which "
     "it was not given"},
    {PUSH, 0, "{[3] = 1, [5] = 2, foo = 3}",
     "hook 'push' returned a value under the key 'foo' "
     "(keys must be block numbers)"},
    {PUSH, 0, "{[3] = 1, [5] = 2, [1.5] = 3}",
     "hook 'push' returned a value under the key 1.5 "
     "(keys must be block numbers)"},
    {PUSH, 0, "{[3] = 1, [5] = 2, [true] = 3}",
     "hook 'push' returned a value under a boolean "
     "key (keys must be block numbers)"},
    {PUSH, 0, "{1, 2}", "hook 'push' returned no value for block 3"},
    /* the vector forms */
    {PUSH, 0, "w:vector(3)",
     "hook 'push' returned 3 values in a vector for 2 blocks (expected one value per block)"},
    {PUSH, 0, "{w:vector(2), w:vector(1)}",
     "hook 'push' returned 1 value in vector 2 of its list for 2 blocks (expected one value per "
     "block)"},
    {PUSH, 0, "{w:vector(2), 3}",
     "hook 'push' returned a number as vector 2 of its list (expected a vector of one value per "
     "block)"},
    {PUSH, 0, "{w:vector(2), S}",
     "hook 'push' returned the block list as vector 2 of its list (expected a vector of one "
     "value per block)"},
    {PUSH, 0, "{w:vector(2), w:vector(2), w:vector(2), w:vector(2), w:vector(2)}",
     "hook 'push' returned 5 vectors (at most 4)"},
    {PUSH, 2, "w:vector(2)",
     "hook 'push' returned 1 vector (expected 2, as other workers returned)"},
    {PUSH, 1, "{w:vector(2), w:vector(2)}",
     "hook 'push' returned 2 vectors (expected 1, as other workers returned)"},
    {PUSH, 0, "{w:vector(2), x = 1}",
     "hook 'push' returned a list of 1 vector with other entries (expected only the vectors)"},
    {PUSH, 0, "w:vector(2):fill(0/0)",
     "hook 'push' returned nan in a vector for block 3 (expected a finite number)"},
    {PUSH, 0, "{w:vector(2), w:vector(2, 1):scale(-1/0):add(w:vector(2):fill(1))}",
     "hook 'push' returned -inf in vector 2 of its list for block 3 (expected a finite number)"},
    {PULL, 0, "{[3] = 1}", "hook 'pull' returned no value for block 5"},
    {PULL, 0, "{[3] = 1, [5] = 1}",
     "hook 'pull' returned 1 number for block 5 (expected 2: "
     "the block has 2 variables)"},
    {PULL, 0, "{[3] = {1, 2}, [5] = {1, 2}}",
     "hook 'pull' returned 2 numbers for block 3 "
     "(expected 1: the block has 1 variable)"},
    {PULL, 0, "{[3] = '1', [5] = {1, 2}}",
     "hook 'pull' returned a string for block 3 (expected "
     "a number or a list of numbers)"},
    {PULL, 0, "{[3] = 1, [5] = {1, 2}, [4] = 0}",
     "hook 'pull' returned a value for block 4, "
     "which it was not given"},
    {PULL, 0, "42", "hook 'pull' returned a number " PULL_FORMS},
    {PULL, 0, "z[1]",
     "hook 'pull' returned a vector (blocks have several variables: expected a table mapping "
     "each block to its new values)"},
    {PULL1, 0, "S", "hook 'pull' returned the block list " PULL_FORMS},
    {PULL1, 0, "z", "hook 'pull' returned no value for block 3"},
    {PULL1, 0, "z[1]:fill(1/0)",
     "hook 'pull' returned inf in a vector for block 3 (expected a finite number)"},
    {OBJ, 0, "nil", "hook 'objective' returned nil (expected a number)"},
    {OBJ, 0, "'1'", "hook 'objective' returned a string (expected a number)"},
    {OBJ, 0, "{1}", "hook 'objective' returned a table (expected a number)"},
    {OBJ, 0, "w:vector(1)", "hook 'objective' returned a vector (expected a number)"},
    {OBJ, 0, "1/0", "hook 'objective' returned inf (expected a finite number)"},
};

START_TEST(test_results)
{
    struct lhost *h = small_host();
    char text[512];
    static const char *const heads[] = {"push(w, S)", "pull(S, z)", "pull(S, z)", "objective(w)"};
    snprintf(text, sizeof(text), "function %s\n  return %s\nend\n", heads[result_cases[_i].call],
             result_cases[_i].ret);
    load_ok(h, text);
    int64_t blocks[] = {2, 4};
    double z[8] = {0}, out[3];
    int64_t off[] = {0, 1, 3};
    int k = result_cases[_i].k, rc;
    switch (result_cases[_i].call) {
    case PUSH:
        rc = lhost_push(h, "push", blocks, 2, 4, &k, z);
        break;
    case PULL:
        rc = lhost_pull(h, "pull", blocks, 2, z, 1, off, out);
        break;
    case PULL1:
        rc = lhost_pull(h, "pull", blocks, 2, z, 1, NULL, out);
        break;
    default:
        rc = lhost_objective(h, "objective", out);
    }
    ck_assert_int_eq(rc, PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_RESULT);
    tu_expect_text("results", _i, lhost_error(h), result_cases[_i].expected, NULL);
    lhost_free(h);
}
END_TEST

/* predict(w, job): a vector or a list of one number a row, and metrics
 * in name order; the wrong count, a non-finite value, a bad metric
 * refused with a message. */
START_TEST(test_predict)
{
    struct lhost *h = small_host();
    load_ok(h, "function predict(w, job)\n"
               "  if job.form == 1 then local v = w:vector(3); v[1], v[2], v[3] = 1, 2, 3.5;\n"
               "    return v, {zeta = 2, alpha = 1} end\n"
               "  if job.form == 2 then return {4, 5, 6} end\n"
               "  if job.form == 3 then return {4, 5} end\n"
               "  if job.form == 4 then return {4, 0/0, 6} end\n"
               "  if job.form == 5 then return {4, 5, 6}, {a = 'x'} end\n"
               "  return w:vector(4)\n"
               "end\n");
    double out[3];
    struct lhost_metric m[4];
    int nm = -1;
    ck_assert_int_eq(lhost_set_const_num(h, "form", 1), 0);
    ck_assert_msg(lhost_predict(h, "predict", 3, out, m, 4, &nm) == 0, "%s", lhost_error(h));
    ck_assert(out[0] == 1 && out[1] == 2 && out[2] == 3.5);
    ck_assert_int_eq(nm, 2);
    ck_assert_str_eq(m[0].name, "alpha");
    ck_assert_double_eq(m[0].value, 1);
    ck_assert_str_eq(m[1].name, "zeta");
    ck_assert_int_eq(lhost_set_const_num(h, "form", 2), 0);
    ck_assert_int_eq(lhost_predict(h, "predict", 3, out, m, 4, &nm), 0);
    ck_assert(out[0] == 4 && out[1] == 5 && out[2] == 6 && nm == 0);
    static const char *const why[] = {
        "hook 'predict' returned a list of 2 values (expected 3: one a row of the data)",
        "hook 'predict' returned nan for row 2 (expected a finite number)",
        "hook 'predict' returned a string for metric 'a' (expected a number)",
        "hook 'predict' returned a vector of 4 values (expected 3: one a row of the data)",
    };
    for (int f = 3; f <= 6; f++) {
        ck_assert_int_eq(lhost_set_const_num(h, "form", f), 0);
        ck_assert_int_eq(lhost_predict(h, "predict", 3, out, m, 4, &nm), PTM_EINVAL);
        ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_RESULT);
        ck_assert_str_eq(lhost_error(h), why[f - 3]);
    }
    lhost_free(h);
}
END_TEST

/* push's three forms give the same z. Blocks 7, 1, 4 (0-based 6, 0, 3). */
START_TEST(test_push_forms)
{
    struct lhost *h = small_host();
    load_ok(h, "function keyed(w, S, job)\n"
               "  local z = {}\n"
               "  for i, b in ipairs(S) do z[b] = {b, i, job.scale} end\n"
               "  return z\n"
               "end\n"
               "function list(w, S, job)\n"
               "  local a, b = w:vector(#S), w:vector(#S)\n"
               "  for k = 1, #S do a[k] = S[k] b[k] = k end\n"
               "  return {a, b, w:vector(#S, job.scale)}\n"
               "end\n"
               "function keyed1(w, S)\n"
               "  local z = {}\n"
               "  for _, b in ipairs(S) do z[b] = b * 10 end\n"
               "  return z\n"
               "end\n"
               "function vector(w, S)\n"
               "  local v = w:vector(#S)\n"
               "  for k = 1, #S do v[k] = S[k] * 10 end\n"
               "  return v\n"
               "end\n"
               "function list1(w, S) return {vector(w, S)} end\n");
    ck_assert_int_eq(lhost_set_const_num(h, "scale", 0.5), 0);
    int64_t blocks[] = {6, 0, 3};
    const double want3[] = {7, 1, 0.5, 1, 2, 0.5, 4, 3, 0.5}, want1[] = {70, 10, 40};
    static const char *const fns3[] = {"keyed", "list"}, *const fns1[] = {"keyed1", "vector",
                                                                          "list1"};
    for (int f = 0; f < 2; f++) {
        double z[12] = {0};
        for (int fixed = 0; fixed <= 3; fixed += 3) { /* K free, then fixed by the engine */
            int k = fixed;
            int rc = lhost_push(h, fns3[f], blocks, 3, 4, &k, z);
            ck_assert_msg(rc == 0, "%s: %s", fns3[f], lhost_error(h));
            ck_assert_int_eq(k, 3);
            for (int i = 0; i < 9; i++)
                ck_assert_msg(z[i] == want3[i], "%s: z[%d] = %g", fns3[f], i, z[i]);
        }
    }
    for (int f = 0; f < 3; f++) {
        double z[12] = {0};
        int k = 0;
        int rc = lhost_push(h, fns1[f], blocks, 3, 4, &k, z);
        ck_assert_msg(rc == 0, "%s: %s", fns1[f], lhost_error(h));
        ck_assert_int_eq(k, 1);
        for (int i = 0; i < 3; i++)
            ck_assert_msg(z[i] == want1[i], "%s: z[%d] = %g", fns1[f], i, z[i]);
    }
    lhost_free(h);
}
END_TEST

/* pull's z and its two forms; apply's d. Blocks 7 and 1 (0-based 6, 0). */
START_TEST(test_calls)
{
    struct lhost *h = small_host();
    load_ok(h, "function keep(w, S) kept = w:vector(3) return w:vector(#S) end\n"
               "function pull(S, z, job)\n"
               "  local new = {}\n"
               "  new[S[1]] = {z[1][1], z[2][1]}\n"
               "  new[S[2]] = {z[1][2], z[2][2] + #S}\n"
               "  return new\n"
               "end\n"
               "function pullv(S, z) return z[1]:add(z[2]) end\n"
               "function pullkept(S, z) return kept end\n"
               "function zsum(S, z)\n"
               "  last = z[1][1] * 1000 + z[1][2] * 100 + #z * 10 + #z[1]\n"
               "  return z[2]\n"
               "end\n"
               "function lastz(w) return last end\n"
               "seen = 0\n"
               "function apply(w, S, d)\n"
               "  for k, b in ipairs(S) do\n"
               "    local x = d[k]\n"
               "    seen = seen + b * (type(x) == 'table' and x[1] + (x[2] or 0) or x)\n"
               "  end\n"
               "  if type(d) == 'userdata' then d:scale(2) end\n" /* the host's copy */
               "end\n"
               "function applyl(w, S, d)\n"
               "  seen = seen + #d * 100 + #d[1] * 10 + #d[2] + d[1][1] + d[2][2]\n"
               "end\n"
               "function rot(w, block, job) seen = block * 1000 + w.round end\n"
               "function rows(w, first, last) seen = first * 1000 + last end\n"
               "function objective(w, job) return seen + #job.name end\n");
    ck_assert_int_eq(lhost_set_const_str(h, "name", "lasso"), 0);

    /* pull: z is K vectors in S order, the host's copies */
    int64_t two[] = {6, 0};
    int64_t off[] = {0, 1, 3};  /* block 7 has 1 variable, block 1 has 2 */
    int64_t offk[] = {0, 2, 4}; /* 2 each */
    int64_t off1[] = {0, 1, 2}; /* 1 each */
    double zk[] = {1.5, 0, 2.5, 3.5}, out[4];
    ck_assert_int_eq(lhost_pull(h, "pull", two, 2, zk, 2, offk, out), 0);
    ck_assert(out[0] == 1.5 && out[1] == 0 && out[2] == 2.5 && out[3] == 3.5 + 2);
    ck_assert_int_eq(lhost_pull(h, "pull", two, 2, zk, 2, off, out), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(h), "hook 'pull' returned 2 numbers for block 7 (expected 1: "
                                     "the block has 1 variable)");
    ck_assert_int_eq(lhost_pull(h, "pull", two, 2, zk, 1, off, out), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(h), "t.lua:4: attempt to index a nil value (field 'integer "
                                     "index')\nstack traceback:\n\tt.lua:4: in function 'pull'");
    memset(out, 0, sizeof(out));
    ck_assert_int_eq(lhost_pull(h, "zsum", two, 2, zk, 2, NULL, out), 0);
    ck_assert(out[0] == 0 && out[1] == 3.5);
    double x;
    ck_assert_int_eq(lhost_objective(h, "lastz", &x), 0);
    ck_assert(x == 1.5 * 1000 + 2.5 * 100 + 2 * 10 + 2);

    /* a vector in S order, when every block has one value; z was a copy */
    memset(out, 0, sizeof(out));
    ck_assert_int_eq(lhost_pull(h, "pullv", two, 2, zk, 2, NULL, out), 0);
    ck_assert(out[0] == 1.5 + 0 && out[1] == 2.5 + 3.5);
    ck_assert(zk[0] == 1.5 && zk[1] == 0 && zk[2] == 2.5 && zk[3] == 3.5);
    memset(out, 0, sizeof(out));
    ck_assert_int_eq(lhost_pull(h, "pullv", two, 2, zk, 2, off1, out), 0);
    ck_assert(out[0] == 1.5 && out[1] == 6);
    int k = 0;
    ck_assert_int_eq(lhost_push(h, "keep", two, 2, 1, &k, out), 0);
    ck_assert_int_eq(lhost_pull(h, "pullkept", two, 2, zk, 2, NULL, out), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(h), "hook 'pullkept' returned 3 values in a vector for 2 blocks "
                                     "(expected one value per block)");

    /* apply: a vector of changes, or a list of lists */
    double ch1[] = {0.5, 1};
    ck_assert_int_eq(lhost_apply(h, "apply", two, 2, NULL, ch1), 0);
    ck_assert(ch1[0] == 0.5 && ch1[1] == 1);
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert(x == 7 * 0.5 + 1 * 1 + 5);
    double ch[] = {0.5, 1, 2};
    ck_assert_int_eq(lhost_apply(h, "apply", two, 2, off, ch), 0);
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert(x == 4.5 + 7 * 0.5 + 1 * 3 + 5);
    ck_assert_int_eq(lhost_apply(h, "applyl", two, 2, off, ch), 0);
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert(x == 11 + 2 * 100 + 1 * 10 + 2 + 0.5 + 2 + 5);

    lhost_set_round(h, 12);
    ck_assert_int_eq(lhost_push_block(h, "rot", 3), 0);
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert(x == 4012 + 5);
    ck_assert_int_eq(lhost_push_rows(h, "rows", 10, 20), 0);
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert(x == 11020 + 5);
    lhost_free(h);
}
END_TEST

/* The block list: indexing, ipairs, what a kept one shows. */
START_TEST(test_blocks)
{
    struct lhost *h = small_host();
    load_ok(h, "function push(w, S)\n"
               "  kept = S\n"
               "  local sum, count = 0, 0\n"
               "  for k, b in ipairs(S) do sum = sum + b * k count = count + 1 end\n"
               "  local v = w:vector(#S)\n"
               "  v[1], v[2], v[3] = #S, sum, count\n"
               "  v[4] = (S[0] == nil and S[#S + 1] == nil and S[1.5] == nil) and 1 or 0\n"
               "  v[5] = tostring(S) == 'block list (' .. #S .. ' blocks)' and 1 or 0\n"
               "  v[6] = S[1] + S[#S] * 100\n"
               "  return v\n"
               "end\n"
               "function again(w, S) return w:vector(#S, kept[2]) end\n"
               "function objective(w) return #kept + (kept[1] == nil and 10 or 0) end\n");
    int64_t blocks[] = {9, 2, 5, 0, 7, 11}; /* 1-based 10, 3, 6, 1, 8, 12 */
    double z[6];
    int k = 0;
    ck_assert_int_eq(lhost_push(h, "push", blocks, 6, 1, &k, z), 0);
    ck_assert(z[0] == 6 && z[2] == 6 && z[3] == 1 && z[4] == 1);
    ck_assert(z[1] == 10 * 1 + 3 * 2 + 6 * 3 + 1 * 4 + 8 * 5 + 12 * 6);
    ck_assert(z[5] == 10 + 12 * 100);
    double x;
    ck_assert_int_eq(lhost_objective(h, "objective", &x), 0);
    ck_assert(x == 10); /* empty between calls */
    int64_t other[] = {4, 1};
    k = 0;
    ck_assert_int_eq(lhost_push(h, "again", other, 2, 1, &k, z), 0);
    ck_assert(z[0] == 2 && z[1] == 2); /* the current call's blocks */
    lhost_free(h);
}
END_TEST

/* ---- vectors -------------------------------------------------------------------------- */

enum { VN = 50 };

struct vec_fixture {
    struct lhost *h;
    double u[VN], v[VN], y[VN], e[1];
};

static void vec_setup(struct vec_fixture *f, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < VN; i++) {
        f->u[i] = unif(&s) * 10;
        f->v[i] = i % 5 == 0 ? 0 : unif(&s);
        f->y[i] = unif(&s);
    }
    f->h = small_host();
    ck_assert_int_eq(lhost_set_vector(f->h, "u", f->u, VN, true), 0);
    ck_assert_int_eq(lhost_set_vector(f->h, "v", f->v, VN, true), 0);
    ck_assert_int_eq(lhost_set_vector(f->h, "y", f->y, VN, false), 0);
    ck_assert_int_eq(lhost_set_vector(f->h, "e", f->e, 0, true), 0);
}

START_TEST(test_vector_ops)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct vec_fixture f;
        vec_setup(&f, seed);
        double dot = 0, sum = 0, n2 = 0, n1 = 0;
        int nnz = 0;
        for (int i = 0; i < VN; i++) {
            dot += f.u[i] * f.v[i];
            sum += f.v[i];
            n2 += f.v[i] * f.v[i];
            n1 += fabs(f.v[i]);
            nnz += f.v[i] != 0;
        }
        ck_assert(close_to(eval(f.h, "return w.u:dot(w.v)"), dot, 1e-13));
        ck_assert(close_to(eval(f.h, "return w.v:dot(w.u)"), dot, 1e-13));
        ck_assert(close_to(eval(f.h, "return w.v:sum()"), sum, 1e-13));
        ck_assert(close_to(eval(f.h, "return w.v:norm2()"), n2, 1e-13));
        ck_assert(close_to(eval(f.h, "return w.v:norm1()"), n1, 1e-13));
        ck_assert(eval(f.h, "return w.v:nnz()") == nnz);
        ck_assert(eval(f.h, "return #w.v + #w.e") == VN);
        ck_assert(eval(f.h, "return w.u[1]") == f.u[0]);
        ck_assert(eval(f.h, "return w.u[50]") == f.u[VN - 1]);
        ck_assert(eval(f.h, "return w.u[7.0]") == f.u[6]);
        ck_assert(eval(f.h, "return w.e:sum() + w.e:norm2() + w.e:nnz()") == 0);

        /* element writes and the bulk updates, against the same in C */
        double u0[VN], v0[VN];
        memcpy(u0, f.u, sizeof(u0));
        memcpy(v0, f.v, sizeof(v0));
        eval(f.h, "local u, v = w.u, w.v\n"
                  "for i = 1, #u, 3 do u[i] = i end\n"
                  "u:axpy(-0.5, v) v:scale(3) u:axpy(2, u) return 0");
        for (int i = 0; i < VN; i++) {
            double ui = i % 3 == 0 ? i + 1 : u0[i];
            ui += -0.5 * v0[i];
            ui += 2 * ui;
            ck_assert(close_to(f.u[i], ui, 1e-14));
            ck_assert(f.v[i] == 3 * v0[i]);
        }
        eval(f.h, "w.v:fill(0.25) return 0");
        for (int i = 0; i < VN; i++)
            ck_assert(f.v[i] == 0.25);
        ck_assert(eval(f.h, "return tostring(w.u) == \"vector 'u' (50 elements)\" and 1 or 0") ==
                  1);
        lhost_free(f.h);
    }
}
END_TEST

static const struct {
    const char *body, *expected;
} vec_error_cases[] = {
    {"return w.u[0]", "t.lua:2: index 0 out of range for 'u' (1..50)"},
    {"return w.u[51]", "t.lua:2: index 51 out of range for 'u' (1..50)"},
    {"return w.e[1]", "t.lua:2: index 1 out of range for 'e' (it is empty)"},
    {"return w.u[1.5]", "t.lua:2: index 1.5 of 'u' is not an integer"},
    {"return w.u[true]", "t.lua:2: 'u' indexed with boolean (expected a number)"},
    {"w.u[0] = 1", "t.lua:2: index 0 out of range for 'u' (1..50)"},
    {"w.u[1] = 'x'", "t.lua:2: cannot store string in 'u' (numbers only)"},
    {"w.u[1] = nil", "t.lua:2: cannot store nil in 'u' (numbers only)"},
    {"w.y[1] = 1", "t.lua:2: 'y' is read-only"},
    {"w.y:scale(2)", "t.lua:2: 'y' is read-only"},
    {"w.y:axpy(1, w.u)", "t.lua:2: 'y' is read-only"},
    {"return w.u:dot(w.e)", "t.lua:2: size mismatch: 'u' has 50 elements, 'e' has 0"},
    {"return w.u:dot(3)", "t.lua:2: bad argument #1 to 'dot' (vector expected, got number)"},
    {"return w.u.dot(3, w.u)", "t.lua:2: bad argument #1 to 'dot' (vector expected, got "
                               "number)"},
    {"w.u:axpy('a', w.v)", "t.lua:2: bad argument #1 to 'axpy' (number expected, got string)"},
    {"return w.u:dott(w.v)", "t.lua:2: attempt to call a nil value (method 'dott')"},
    {"return w.u:dot(w)", "t.lua:2: bad argument #1 to 'dot' (vector expected, got worker)"},
    {"return getmetatable(w.u).__index", "t.lua:2: attempt to index a boolean value"},
    {"w.beta = 1", "t.lua:2: cannot set 'beta': the worker object is read-only"},
    {"w[1] = 1", "t.lua:2: the worker object is read-only"},
};

START_TEST(test_vector_errors)
{
    struct vec_fixture f;
    vec_setup(&f, 7);
    ck_assert_int_eq(run_body(f.h, vec_error_cases[_i].body, NULL), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(f.h), LHOST_FAIL_ERROR);
    expect_first_line("vector errors", _i, f.h, vec_error_cases[_i].expected);
    lhost_free(f.h);
}
END_TEST

/* Registering: re-pointing a kept view, names the worker object has, kinds. */
START_TEST(test_register)
{
    struct vec_fixture f;
    vec_setup(&f, 3);
    load_ok(f.h, "function keep(w) kept = w.u return 0 end\n"
                 "function objective(w) return kept[2] + #kept end\n");
    double x;
    ck_assert_int_eq(lhost_objective(f.h, "keep", &x), 0);
    double other[3] = {1, 2, 3};
    ck_assert_int_eq(lhost_set_vector(f.h, "u", other, 3, false), 0);
    ck_assert_int_eq(lhost_objective(f.h, "objective", &x), 0);
    ck_assert(x == 2 + 3);
    ck_assert_int_eq(lhost_set_vector(f.h, "round", other, 3, false), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(f.h), LHOST_FAIL_NAME);
    ck_assert_str_eq(lhost_error(f.h),
                     "'round' is a field of the worker object and cannot name a vector");
    struct lhost_matrix m = {0};
    ck_assert_int_eq(lhost_set_matrix(f.h, "u", &m), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(f.h), "'u' is already a vector, not a matrix");
    char name[8];
    for (int i = 0; i < LHOST_MAX_MATRICES; i++) {
        snprintf(name, sizeof(name), "M%d", i);
        ck_assert_int_eq(lhost_set_matrix(f.h, name, &m), 0);
    }
    ck_assert_int_eq(lhost_set_matrix(f.h, "M99", &m), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(f.h), "more than 16 matrices");
    ck_assert(eval(f.h, "return select(2, w.M3:size())") == 0);
    lhost_free(f.h);
}
END_TEST

/* ---- sparse views ----------------------------------------------------------------------- */

enum { SR = 37, SC = 23 };

struct sparse_fixture {
    struct lhost *h;
    struct ptm_csr a;
    struct ptm_csc c;
    double r[SR], b[SC], out[SC > SR ? SC : SR];
};

static void sparse_setup(struct sparse_fixture *f, uint64_t seed)
{
    uint64_t s = seed;
    random_csr(&s, SR, SC, 0.3, &f->a);
    ck_assert_int_eq(ptm_csr_to_csc(&f->a, &f->c), 0);
    for (int i = 0; i < SR; i++)
        f->r[i] = unif(&s);
    for (int j = 0; j < SC; j++)
        f->b[j] = unif(&s);
    f->h = small_host();
    struct lhost_matrix m = {.csc = &f->c, .csr = &f->a, .rows = 1000, .cols = SC};
    ck_assert_int_eq(lhost_set_matrix(f->h, "X", &m), 0);
    ck_assert_int_eq(lhost_set_vector(f->h, "r", f->r, SR, true), 0);
    ck_assert_int_eq(lhost_set_vector(f->h, "b", f->b, SC, true), 0);
}

static void sparse_teardown(struct sparse_fixture *f)
{
    lhost_free(f->h);
    ptm_csr_release(&f->a);
    ptm_csc_release(&f->c);
}

/* For every column (or row) k, out[k] = what the Lua expression of x gives. */
static void per_view(struct sparse_fixture *f, const char *kind, const char *expr)
{
    ck_assert_int_eq(lhost_set_vector(f->h, "out", f->out, strcmp(kind, "col") ? SR : SC, true), 0);
    char body[512];
    snprintf(body, sizeof(body),
             "local X, r, b, out = w.X, w.r, w.b, w.out\n"
             "for k = 1, #out do local x = X:%s(k) out[k] = %s end return 0",
             kind, expr);
    eval(f->h, body);
}

START_TEST(test_sparse_ops)
{
    struct sparse_fixture f;
    sparse_setup(&f, 11 + (uint64_t)_i);
    /* columns, against the CSR read by rows */
    double dot[SC] = {0}, n2[SC] = {0}, sum[SC] = {0}, each[SC] = {0};
    int nnz[SC] = {0};
    for (int i = 0; i < SR; i++)
        for (int64_t p = f.a.rowptr[i]; p < f.a.rowptr[i + 1]; p++) {
            int j = f.a.colind[p];
            double a = f.a.val[p];
            dot[j] += a * f.r[i];
            n2[j] += a * a;
            sum[j] += a;
            each[j] += (i + 1) * a;
            nnz[j]++;
        }
    per_view(&f, "col", "x:dot(r)");
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.out[j], dot[j], 1e-13));
    per_view(&f, "col", "r:dot(x)");
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.out[j], dot[j], 1e-13));
    per_view(&f, "col", "x:norm2()");
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.out[j], n2[j], 1e-13));
    per_view(&f, "col", "x:sum()");
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.out[j], sum[j], 1e-13));
    per_view(&f, "col", "x:nnz()");
    for (int j = 0; j < SC; j++)
        ck_assert(f.out[j] == nnz[j]);
    per_view(&f, "col", "0 for i, a in x:each() do out[k] = out[k] + i * a end");
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.out[j], each[j], 1e-13));

    /* rows, against the CSC read by columns */
    double rdot[SR] = {0}, rn2[SR] = {0}, reach[SR] = {0};
    for (int j = 0; j < SC; j++)
        for (int64_t p = f.c.colptr[j]; p < f.c.colptr[j + 1]; p++) {
            int i = f.c.rowind[p];
            double a = f.c.val[p];
            rdot[i] += a * f.b[j];
            rn2[i] += a * a;
            reach[i] += (j + 1) * a;
        }
    per_view(&f, "row", "x:dot(b)");
    for (int i = 0; i < SR; i++)
        ck_assert(close_to(f.out[i], rdot[i], 1e-13));
    per_view(&f, "row", "x:norm2()");
    for (int i = 0; i < SR; i++)
        ck_assert(close_to(f.out[i], rn2[i], 1e-13));
    per_view(&f, "row", "0 for j, a in x:each() do out[k] = out[k] + j * a end");
    for (int i = 0; i < SR; i++)
        ck_assert(close_to(f.out[i], reach[i], 1e-13));

    /* axpy: r += c_j x_j for every column, and b += 0.5 x_i for every row */
    double r0[SR], b0[SC];
    memcpy(r0, f.r, sizeof(r0));
    memcpy(b0, f.b, sizeof(b0));
    eval(f.h, "local X, r, b = w.X, w.r, w.b\n"
              "for j = 1, #b do X:col(j):axpy(j / 10, r) end\n"
              "for i = 1, #r do b:axpy(0.5, X:row(i)) end return 0");
    for (int i = 0; i < SR; i++)
        for (int64_t p = f.a.rowptr[i]; p < f.a.rowptr[i + 1]; p++) {
            r0[i] += (f.a.colind[p] + 1) / 10.0 * f.a.val[p];
            b0[f.a.colind[p]] += 0.5 * f.a.val[p];
        }
    for (int i = 0; i < SR; i++)
        ck_assert(close_to(f.r[i], r0[i], 1e-13));
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.b[j], b0[j], 1e-13));

    /* views are values; they may be kept across calls */
    ck_assert(eval(f.h, "return (w.X:col(2) == w.X:col(2) and w.X:col(2) ~= w.X:col(3) and "
                        "w.X:col(1) ~= w.X:row(1)) and 1 or 0") == 1);
    ck_assert(eval(f.h, "kept = w.X:col(5) return 0") == 0);
    double kdot = 0;
    for (int64_t p = f.c.colptr[4]; p < f.c.colptr[5]; p++)
        kdot += f.c.val[p] * f.r[f.c.rowind[p]];
    ck_assert(close_to(eval(f.h, "return kept:dot(w.r)"), kdot, 1e-13));
    ck_assert(eval(f.h, "return kept:nnz()") == nnz[4]);
    ck_assert(eval(f.h, "return tostring(kept) == \"column 5 of 'X'\" and "
                        "tostring(w.X) == \"matrix 'X' (1000 x 23)\" and 1 or 0") == 1);
    ck_assert(eval(f.h, "local n, m = w.X:size() return n * 100 + m") == 1000 * 100 + SC);
    sparse_teardown(&f);
}
END_TEST

static const struct {
    const char *body, *expected;
} sparse_error_cases[] = {
    {"return w.X:col(0)", "t.lua:2: column 0 out of range for 'X' (1..23)"},
    {"return w.X:col(24)", "t.lua:2: column 24 out of range for 'X' (1..23)"},
    {"return w.X:row(38)", "t.lua:2: row 38 out of range for 'X' (1..37 on this worker)"},
    {"return w.X:col('a')", "t.lua:2: bad argument #1 to 'col' (number expected, got string)"},
    {"return w.X:col(1):dot(w.b)", "t.lua:2: size mismatch: column 1 of 'X' has 37 rows, 'b' "
                                   "has 23 elements"},
    {"return w.X:row(2):dot(w.r)", "t.lua:2: size mismatch: row 2 of 'X' has 23 columns, 'r' "
                                   "has 37 elements"},
    {"w.X:col(1):axpy(1, w.y)", "t.lua:2: 'y' is read-only"},
    {"return w.X:col(1):dot(w.X:col(2))", "t.lua:2: bad argument #1 to 'dot' (vector expected, "
                                          "got sparse view)"},
    {"return w.r:dot(w.X)", "t.lua:2: bad argument #1 to 'dot' (vector expected, got matrix)"},
    {"return w.X.col(w.r, 1)", "t.lua:2: bad argument #1 to 'col' (matrix expected, got "
                               "vector)"},
    {"return w.X:col(1).nnz(w.r)", "t.lua:2: bad argument #1 to 'nnz' (sparse view expected, "
                                   "got vector)"},
    {"w.X:col(1).x = 1", "t.lua:2: a sparse view has no elements to set"},
    {"return w.X:col(1)[1]", "t.lua:2: a sparse view has no elements to index: use its methods "
                             "(x:each() for its entries)"},
    {"local f = w.X:col(1):each() return f(w.X:col(1), 'x')",
     "t.lua:2: bad argument #1 to 'f' (loop state of each() expected, got sparse view)"},
    {"for i, a, t in w.X:col(1):each(w.X) do end",
     "t.lua:2: bad argument #1 to 'each' (vector expected, got matrix)"},
    {"return w.X:row(1):each(w.r:copy())",
     "t.lua:2: a vector has no rows: row views are of the job's parameters and data"},
    {"return w.X:row(1, 1)", "t.lua:2: X:row(i, b) needs blocks: this schedule has none to hold"},
    {"return w:block(1)", "t.lua:2: w:block(b) needs blocks: this schedule has none to hold"},
    {"return w.X:colnnz()", "t.lua:2: 'X' has no column counts on this worker"},
};

START_TEST(test_sparse_errors)
{
    struct sparse_fixture f;
    sparse_setup(&f, 5);
    double y[SR] = {0};
    ck_assert_int_eq(lhost_set_vector(f.h, "y", y, SR, false), 0);
    ck_assert_int_eq(run_body(f.h, sparse_error_cases[_i].body, NULL), PTM_EINVAL);
    expect_first_line("sparse errors", _i, f.h, sparse_error_cases[_i].expected);
    sparse_teardown(&f);
}
END_TEST

/* ---- rows of tables, blocks of a rotation ------------------------------------------------ */

/* A rotation's view of things: W (RR x K, writable) and H (SC x K, its
 * rows the columns of X, cut into 3 blocks), Y (2 x K, read-only), X
 * (RR x SC) with its column counts, and the blocks. */
enum { RR = 31, K = 6, NB = 3 };

struct rot_fixture {
    struct lhost *h;
    struct ptm_csr a;
    double W[RR * K], H[SC * K], Y[2 * K], colnnz[SC];
    int64_t lo[NB + 1];
};

static void rot_setup(struct rot_fixture *f, uint64_t seed)
{
    uint64_t s = seed;
    random_csr(&s, RR, SC, 0.4, &f->a);
    for (int i = 0; i < RR * K; i++)
        f->W[i] = unif(&s);
    for (int i = 0; i < SC * K; i++)
        f->H[i] = unif(&s);
    for (int i = 0; i < 2 * K; i++)
        f->Y[i] = unif(&s);
    memset(f->colnnz, 0, sizeof(f->colnnz));
    for (int64_t e = 0; e < f->a.nnz; e++)
        f->colnnz[f->a.colind[e]] += 1;
    ptm_shard_even(SC, NB, f->lo);
    f->h = small_host();
    struct lhost_matrix m = {.csr = &f->a, .rows = RR, .cols = SC, .colnnz = f->colnnz};
    ck_assert_int_eq(lhost_set_matrix(f->h, "X", &m), 0);
    ck_assert_int_eq(lhost_set_table(f->h, "W", f->W, RR, K, true), 0);
    ck_assert_int_eq(lhost_set_table(f->h, "H", f->H, SC, K, true), 0);
    ck_assert_int_eq(lhost_set_table(f->h, "Y", f->Y, 2, K, false), 0);
    lhost_set_blocks(f->h, f->lo, NB);
}

static void rot_teardown(struct rot_fixture *f)
{
    lhost_free(f->h);
    ptm_csr_release(&f->a);
}

/* a . b in the order of the matrix factorization kernel (kernel_mf.c). */
static double kernel_dot(const double *a, const double *b, int n)
{
    double s[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; k++)
        s[k % 4] += a[k] * b[k];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

START_TEST(test_rows)
{
    struct rot_fixture f;
    rot_setup(&f, 21 + (uint64_t)_i);
    /* dot in the kernel's order, bit for bit; shape, length, names */
    ck_assert(eval(f.h, "return w.W:row(3):dot(w.H:row(5))") ==
              kernel_dot(f.W + 2 * K, f.H + 4 * K, K));
    ck_assert(eval(f.h, "local r, c = w.W:size() return r * 100 + c") == RR * 100 + K);
    ck_assert(eval(f.h, "local r, c = w.W:row(2):size() return r * 100 + c") == K * 100 + 1);
    ck_assert(eval(f.h, "return #w.W:row(4)") == K);
    ck_assert(eval(f.h, "return tostring(w.W:row(2)) == \"row 2 of 'W' (6 elements)\" and "
                        "w.W:row(2) == w.W:row(2) and w.W:row(2) ~= w.W:row(3) and 1 or 0") == 1);
    double n2 = 0, sum = 0;
    for (int k = 0; k < K; k++) {
        n2 += f.Y[K + k] * f.Y[K + k];
        sum += f.Y[K + k];
    }
    ck_assert(close_to(eval(f.h, "return w.Y:row(2):norm2()"), n2, 1e-14));
    ck_assert(close_to(eval(f.h, "return w.Y:row(2):sum()"), sum, 1e-14));
    ck_assert(close_to(eval(f.h, "return w.Y:row(2):copy():sum()"), sum, 1e-14));

    /* in place: mix, scale, axpy between rows; against the same in C */
    double W0[RR * K], H0[SC * K];
    memcpy(W0, f.W, sizeof(W0));
    memcpy(H0, f.H, sizeof(H0));
    eval(f.h, "local a, b = w.W:row(3), w.H:row(5)\n"
              "a:mix(b, 0.9, 0.2, -0.3, 1.1) w.W:row(1):scale(2):axpy(-1, w.H:row(2)) return 0");
    for (int k = 0; k < K; k++) {
        double x = W0[2 * K + k], y = H0[4 * K + k];
        ck_assert(f.W[2 * K + k] == 0.9 * x + 0.2 * y);
        ck_assert(f.H[4 * K + k] == 1.1 * y + -0.3 * x);
        ck_assert(f.W[k] == 2 * W0[k] + -1 * H0[K + k]);
    }
    for (int k = K; k < 2 * K; k++)
        ck_assert(f.W[k] == W0[k]); /* only the rows named */

    /* X:row(i, b) and each(H) against the CSR read here */
    for (int b = 0; b < NB; b++) {
        double want = 0, wantn = 0;
        for (int i = 0; i < RR; i++)
            for (int64_t p = f.a.rowptr[i]; p < f.a.rowptr[i + 1]; p++) {
                int j = f.a.colind[p];
                if (j < f.lo[b] || j >= f.lo[b + 1])
                    continue;
                want += (i + 1) * (j + 1) * f.a.val[p] * kernel_dot(f.H + j * K, f.W, K);
                wantn += 1;
            }
        char body[512];
        snprintf(body, sizeof(body),
                 "local X, H, W, s, n = w.X, w.H, w.W, 0, 0\n"
                 "for i = 1, %d do\n"
                 "  n = n + X:row(i, %d):nnz()\n"
                 "  for j, a, h in X:row(i, %d):each(H) do s = s + i * j * a * h:dot(W:row(1)) "
                 "end\n"
                 "end\n"
                 "return s * 1e4 + n",
                 RR, b + 1, b + 1);
        double got = eval(f.h, body);
        ck_assert_msg(close_to(got, want * 1e4 + wantn, 1e-12), "block %d: %g, want %g", b + 1, got,
                      want * 1e4 + wantn);
        snprintf(body, sizeof(body), "local a, b = w:block(%d) return a * 1000 + b", b + 1);
        ck_assert(eval(f.h, body) == (f.lo[b] + 1) * 1000 + f.lo[b + 1]);
    }
    ck_assert(eval(f.h, "return tostring(w.X:row(2, 3)) == \"row 2 of 'X' in block 3\" and 1 or "
                        "0") == 1);
    /* the whole row is the blocks together; column counts */
    ck_assert(eval(f.h, "local n = 0 for i = 1, 31 do n = n + w.X:row(i):nnz() - "
                        "w.X:row(i, 1):nnz() - w.X:row(i, 2):nnz() - w.X:row(i, 3):nnz() end "
                        "return n") == 0);
    ck_assert(eval(f.h, "local c = w.X:colnnz() return #c * 1000 + c[2] + c[4]") ==
              SC * 1000 + f.colnnz[1] + f.colnnz[3]);
    /* new blocks are seen at once */
    int64_t two[3] = {0, 10, SC};
    lhost_set_blocks(f.h, two, 2);
    ck_assert(eval(f.h, "local a, b = w:block(2) return a * 1000 + b") == 11 * 1000 + SC);
    rot_teardown(&f);
}
END_TEST

/* Under rotation a worker may use only the rows of the block it holds. */
START_TEST(test_limit)
{
    struct rot_fixture f;
    rot_setup(&f, 5);
    ck_assert_int_eq(lhost_limit_rows(f.h, "H", 8, 16, true), 0);
    double h0 = f.H[8 * K];
    ck_assert(eval(f.h, "w.H:row(9):scale(2) return w.H[8 * 6 + 1]") == 2 * h0);
    ck_assert(eval(f.h, "local r, c = w.H:size() return #w.H + r + c") == SC * K + SC + K);
    static const struct {
        const char *body, *expected;
    } rows[] = {
        {"return w.H:row(8)", "t.lua:2: row 8 of 'H' belongs to another worker in this round "
                              "(this worker holds rows 9..16)"},
        {"return w.H[1]", "t.lua:2: row 1 of 'H' belongs to another worker in this round (this "
                          "worker holds rows 9..16)"},
        {"return w.H:sum()", "t.lua:2: 'H' is shared with other workers in this round: use the "
                             "rows of the block this worker holds (9..16), H:row(i)"},
        {"for j, a, h in w.X:row(1):each(w.H) do end",
         "t.lua:2: row 1 of 'H' belongs to another worker in this round (this worker holds rows "
         "9..16)"},
    };
    /* a row of H that is not the first one out of the block, for the loop */
    f.a.colind[f.a.rowptr[0]] = 0;
    for (size_t r = 0; r < PTM_ARRAY_LEN(rows); r++) {
        ck_assert_int_eq(run_body(f.h, rows[r].body, NULL), PTM_EINVAL);
        expect_first_line("limit", (int)r, f.h, rows[r].expected);
    }
    /* a view kept from then is checked when used */
    ck_assert_int_eq(lhost_set_table(f.h, "H", f.H, SC, K, false), 0);
    ck_assert(eval(f.h, "kept = w.H:row(1) return kept:sum()") != 0);
    ck_assert_int_eq(lhost_limit_rows(f.h, "H", 8, 16, false), 0);
    ck_assert_int_eq(run_body(f.h, "return kept:sum()", NULL), PTM_EINVAL);
    expect_first_line("limit", 9, f.h,
                      "t.lua:2: row 1 of 'H' belongs to another worker in this round (this "
                      "worker holds rows 9..16)");
    ck_assert_int_eq(run_body(f.h, "w.H:row(9):scale(2)", NULL), PTM_EINVAL);
    expect_first_line("limit", 10, f.h, "t.lua:2: row 9 of 'H' is read-only");
    ck_assert_int_eq(lhost_limit_rows(f.h, "nothing", 0, 0, false), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(f.h), "no vector 'nothing' to limit");
    /* registering again lifts the limit */
    ck_assert_int_eq(lhost_set_table(f.h, "H", f.H, SC, K, false), 0);
    ck_assert(eval(f.h, "return w.H:row(1):sum() - kept:sum()") == 0);
    rot_teardown(&f);
}
END_TEST

static const struct {
    const char *body, *expected;
} row_error_cases[] = {
    {"return w.W:row(0)", "t.lua:2: row 0 out of range for 'W' (1..31)"},
    {"return w.W:row(32)", "t.lua:2: row 32 out of range for 'W' (1..31)"},
    {"return w.W:row(2)[0]", "t.lua:2: index 0 out of range for row 2 of 'W' (1..6)"},
    {"return w.W:row(2)[7]", "t.lua:2: index 7 out of range for row 2 of 'W' (1..6)"},
    {"w.W:row(2)[7] = 1", "t.lua:2: index 7 out of range for row 2 of 'W' (1..6)"},
    {"return w.W:row(2)[1.5]", "t.lua:2: index 1.5 of row 2 of 'W' is not an integer"},
    {"return w.W:row(2)[true]", "t.lua:2: row 2 of 'W' indexed with boolean (expected a number)"},
    {"w.W:row(2)[1] = 'x'", "t.lua:2: cannot store string in row 2 of 'W' (numbers only)"},
    {"w.Y:row(1)[1] = 2", "t.lua:2: row 1 of 'Y' is read-only"},
    {"return w.W:row(1):dot(w.W)", "t.lua:2: size mismatch: row 1 of 'W' has 6 elements, 'W' "
                                   "has 186"},
    {"w.Y:row(1):scale(2)", "t.lua:2: row 1 of 'Y' is read-only"},
    {"w.W:row(1):mix(w.Y:row(1), 1, 0, 0, 1)", "t.lua:2: row 1 of 'Y' is read-only"},
    {"local r = w.W:row(1) r:mix(r, 1, 0, 0, 1)", "t.lua:2: v:mix(u) needs two vectors: row 1 "
                                                  "of 'W' is both"},
    {"w.W:row(1):mix(w.H:row(1), 1, 0, 'x', 1)", "t.lua:2: bad argument #4 to 'mix' (number "
                                                 "expected, got string)"},
    {"return w.W:row(1):row(1)", "t.lua:2: attempt to call a nil value (method 'row')"},
    {"return w.W:row(1):each()", "t.lua:2: calling 'each' on bad self (a sparse view expected, "
                                 "got a row of a vector)"},
    {"return w.W:copy():row(1)", "t.lua:2: a vector has no rows: row views are of the job's "
                                 "parameters and data"},
    {"return w.X:row(1, 0)", "t.lua:2: block 0 out of range (1..3)"},
    {"return w.X:row(1, 4)", "t.lua:2: block 4 out of range (1..3)"},
    {"return w:block(4)", "t.lua:2: block 4 out of range (1..3)"},
    {"return w.Z:row(1, 1)", "t.lua:2: 'Z' has 5 columns and the blocks cut 23: X:row(i, b) "
                             "needs a matrix whose columns the blocks cut"},
    {"for j, a, h in w.Z:row(1):each(w.Y) do end", "t.lua:2: row 3 of 'Y' out of range (1..2): "
                                                   "the view's indices are not its rows"},
};

START_TEST(test_row_errors)
{
    struct rot_fixture f;
    rot_setup(&f, 9);
    /* Z: one row holding columns 1..5 */
    int64_t zp[2] = {0, 5};
    int32_t zc[5] = {0, 1, 2, 3, 4};
    double zv[5] = {1, 2, 3, 4, 5};
    struct ptm_csr z = {.nrows = 1, .ncols = 5, .nnz = 5, .rowptr = zp, .colind = zc, .val = zv};
    struct lhost_matrix m = {.csr = &z, .rows = 1, .cols = 5};
    ck_assert_int_eq(lhost_set_matrix(f.h, "Z", &m), 0);
    ck_assert_int_eq(run_body(f.h, row_error_cases[_i].body, NULL), PTM_EINVAL);
    expect_first_line("row errors", _i, f.h, row_error_cases[_i].expected);
    rot_teardown(&f);
}
END_TEST

/* The rotation call: push(w, block, job) with w.round and w.sweep. */
START_TEST(test_push_block)
{
    struct rot_fixture f;
    rot_setup(&f, 2);
    load_ok(f.h, "function push(w, b, job) w.W[1] = b * 1000 + w.round * 10 + w.sweep end\n");
    lhost_set_round(f.h, 7);
    lhost_set_sweep(f.h, 3);
    ck_assert_int_eq(lhost_push_block(f.h, "push", 1), 0);
    ck_assert(f.W[0] == 2 * 1000 + 70 + 3);
    load_ok(f.h, "function push(w, first, last, job) w.W[1] = first * 1000 + last end\n");
    ck_assert_int_eq(lhost_push_rows(f.h, "push", 4, 9), 0);
    ck_assert(f.W[0] == 5 * 1000 + 9);
    rot_teardown(&f);
}
END_TEST

/* ---- bulk operations over the block list ------------------------------------------------ */

/* The sparse fixture's X (and X2, the same columns without row views), r,
 * b and a read-only y of its sizes, and u, v of VN elements (v is 0 at
 * every fifth). */
struct bulk_fixture {
    struct sparse_fixture sp;
    double y[SR], u[VN], v[VN];
};

static void bulk_setup(struct bulk_fixture *f, uint64_t seed)
{
    sparse_setup(&f->sp, seed);
    uint64_t s = seed * 31 + 7;
    for (int i = 0; i < SR; i++)
        f->y[i] = 0.5 + fabs(unif(&s)); /* never 0: a divisor */
    for (int i = 0; i < VN; i++) {
        f->u[i] = unif(&s) * 2;
        f->v[i] = i % 5 == 0 ? 0 : unif(&s);
    }
    struct lhost *h = f->sp.h;
    struct lhost_matrix m2 = {.csc = &f->sp.c, .rows = 1000, .cols = SC};
    ck_assert_int_eq(lhost_set_matrix(h, "X2", &m2), 0);
    ck_assert_int_eq(lhost_set_vector(h, "y", f->y, SR, false), 0);
    ck_assert_int_eq(lhost_set_vector(h, "u", f->u, VN, true), 0);
    ck_assert_int_eq(lhost_set_vector(h, "v", f->v, VN, true), 0);
}

/* Define push(w, S, job) with body (line 2 on) and call it on blocks. */
static int bulk_push(struct bulk_fixture *f, const char *body, const int64_t *blocks, size_t n,
                     int *k, double *z)
{
    char text[4096];
    snprintf(text, sizeof(text), "function push(w, S, job)\n%s\nend\n", body);
    load_ok(f->sp.h, text);
    *k = 0;
    return lhost_push(f->sp.h, "push", blocks, n, 8, k, z);
}

/* The same, which must succeed with K vectors. */
static void bulk_ok(struct bulk_fixture *f, const char *body, const int64_t *blocks, size_t n,
                    int want_k, double *z)
{
    int k;
    int rc = bulk_push(f, body, blocks, n, &k, z);
    ck_assert_msg(rc == 0, "'%s' failed: %s", body, lhost_error(f->sp.h));
    ck_assert_int_eq(k, want_k);
}

/* Valid blocks for X's columns and rows and for u: 1-based 3, 1, 22, 8, 14, 17. */
static const int64_t bulk_a[] = {2, 0, 21, 7, 13, 16};
enum { NA = 6 };

START_TEST(test_bulk_ops)
{
    struct bulk_fixture f;
    bulk_setup(&f, 40 + (uint64_t)_i);
    const struct ptm_csr *a = &f.sp.a;
    const struct ptm_csc *c = &f.sp.c;
    double z[8 * NA];

    /* column and row sets, against the other storage read entry by entry */
    double cdot[SC] = {0}, cn2[SC] = {0}, rdot[SR] = {0}, rn2[SR] = {0};
    int cnnz[SC] = {0}, rnnz[SR] = {0};
    for (int i = 0; i < SR; i++)
        for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            int j = a->colind[p];
            cdot[j] += a->val[p] * f.sp.r[i];
            cn2[j] += a->val[p] * a->val[p];
            cnnz[j]++;
        }
    for (int j = 0; j < SC; j++)
        for (int64_t p = c->colptr[j]; p < c->colptr[j + 1]; p++) {
            int i = c->rowind[p];
            rdot[i] += c->val[p] * f.sp.b[j];
            rn2[i] += c->val[p] * c->val[p];
            rnnz[i]++;
        }
    bulk_ok(&f, "local x = w.X:cols(S) return {x:dot(w.r), x:norm2(), x:nnz()}", bulk_a, NA, 3, z);
    for (int k = 0; k < NA; k++) {
        int64_t j = bulk_a[k];
        ck_assert(close_to(z[3 * k], cdot[j], 1e-13));
        ck_assert(close_to(z[3 * k + 1], cn2[j], 1e-13));
        ck_assert(z[3 * k + 2] == cnnz[j]);
    }
    bulk_ok(&f, "local x = w.X:rows(S) return {x:dot(w.b), x:norm2(), x:nnz()}", bulk_a, NA, 3, z);
    for (int k = 0; k < NA; k++) {
        int64_t i = bulk_a[k];
        ck_assert(close_to(z[3 * k], rdot[i], 1e-13));
        ck_assert(close_to(z[3 * k + 1], rn2[i], 1e-13));
        ck_assert(z[3 * k + 2] == rnnz[i]);
    }
    /* a new vector is a partner like any other */
    bulk_ok(&f, "return w.X:cols(S):dot(w:vector(#w.r, 1))", bulk_a, NA, 1, z);
    for (int k = 0; k < NA; k++) {
        double sum = 0;
        for (int64_t p = c->colptr[bulk_a[k]]; p < c->colptr[bulk_a[k] + 1]; p++)
            sum += c->val[p];
        ck_assert(close_to(z[k], sum, 1e-13));
    }

    /* axpy: r += sum of a[k] x_S[k] (a[3] = 0), b -= 0.5 sum of the rows */
    double r0[SR], b0[SC];
    memcpy(r0, f.sp.r, sizeof(r0));
    memcpy(b0, f.sp.b, sizeof(b0));
    bulk_ok(&f,
            "local a = w:vector(#S)\n"
            "for k = 1, #S do a[k] = k == 3 and 0 or k / 4 end\n"
            "local same = w.X:cols(S):axpy(a, w.r) == w.r and w.X:rows(S):axpy(-0.5, w.b) == w.b\n"
            "return w:vector(#S, same and 1 or 0)",
            bulk_a, NA, 1, z);
    ck_assert(z[0] == 1);
    for (int k = 0; k < NA; k++) {
        double ak = k == 2 ? 0 : (k + 1) / 4.0;
        for (int64_t p = c->colptr[bulk_a[k]]; p < c->colptr[bulk_a[k] + 1]; p++)
            r0[c->rowind[p]] += ak * c->val[p];
        for (int64_t p = a->rowptr[bulk_a[k]]; p < a->rowptr[bulk_a[k] + 1]; p++)
            b0[a->colind[p]] -= 0.5 * a->val[p];
    }
    for (int i = 0; i < SR; i++)
        ck_assert(close_to(f.sp.r[i], r0[i], 1e-13));
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.sp.b[j], b0[j], 1e-13));

    /* gather, the element-wise operations, copy: the copies leave p as it was */
    double u0[VN];
    memcpy(u0, f.u, sizeof(u0));
    bulk_ok(&f,
            "local p, q = w.u:gather(S), w.v:gather(S)\n"
            "return {p:copy():add(q), p:copy():mul(q), p:copy():div(q, -7), p:copy():soft(0.3),\n"
            "        p:copy():div(w.y:gather(S)), p, q}",
            bulk_a, NA, 7, z);
    for (int k = 0; k < NA; k++) {
        double p = f.u[bulk_a[k]], q = f.v[bulk_a[k]], y = f.y[bulk_a[k]];
        const double *zk = z + 7 * k;
        double soft = p > 0.3 ? p - 0.3 : p < -0.3 ? p + 0.3 : 0;
        ck_assert(zk[0] == p + q && zk[1] == p * q && zk[2] == (q != 0 ? p / q : -7));
        ck_assert(zk[3] == soft && zk[4] == p / y && zk[5] == p && zk[6] == q);
    }
    ck_assert(memcmp(u0, f.u, sizeof(u0)) == 0);

    /* scatter: u[S[k]] = 3 v[S[k]]; the rest of u stays */
    bulk_ok(&f, "return w:vector(#S, w.u:scatter(S, w.v:gather(S):scale(3)) == w.u and 1 or 0)",
            bulk_a, NA, 1, z);
    ck_assert(z[0] == 1);
    for (int k = 0; k < NA; k++)
        u0[bulk_a[k]] = 3 * f.v[bulk_a[k]];
    ck_assert(memcmp(u0, f.u, sizeof(u0)) == 0);

    /* w:vector, with and without fill, as a method or not */
    bulk_ok(&f, "return {w:vector(#S), w:vector(#S, 2.5), w.vector(#S, -1)}", bulk_a, NA, 3, z);
    for (int k = 0; k < NA; k++)
        ck_assert(z[3 * k] == 0 && z[3 * k + 1] == 2.5 && z[3 * k + 2] == -1);
    sparse_teardown(&f.sp);
}
END_TEST

/* X:cols(list) and X:rows(list) over lists of the hook's (a table, a
 * vector), against the matrix read entry by entry. */
START_TEST(test_lists)
{
    struct bulk_fixture f;
    bulk_setup(&f, 60 + (uint64_t)_i);
    const struct ptm_csr *a = &f.sp.a;
    const struct ptm_csc *c = &f.sp.c;
    double cdot[SC] = {0}, cn2[SC] = {0}, rdot[SR] = {0};
    int cnnz[SC] = {0};
    for (int i = 0; i < SR; i++)
        for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            int j = a->colind[p];
            cdot[j] += a->val[p] * f.sp.r[i];
            cn2[j] += a->val[p] * a->val[p];
            cnnz[j]++;
            rdot[i] += a->val[p] * f.sp.b[j];
        }
    double z[8 * NA];
    bulk_ok(&f,
            "local t, v = {}, w:vector(#S)\n"
            "for k = 1, #S do t[k] = S[k] v[k] = S[k] end\n"
            "return {w.X:cols(t):dot(w.r), w.X:cols(v):norm2(), w.X:cols(t):nnz(),\n"
            "        w.X:rows({3, 1, 22, 8, 14, 17}):dot(w.b)}",
            bulk_a, NA, 4, z);
    for (int k = 0; k < NA; k++) {
        ck_assert(close_to(z[4 * k], cdot[bulk_a[k]], 1e-13));
        ck_assert(close_to(z[4 * k + 1], cn2[bulk_a[k]], 1e-13));
        ck_assert(z[4 * k + 2] == cnnz[bulk_a[k]]);
        ck_assert(close_to(z[4 * k + 3], rdot[bulk_a[k]], 1e-13));
    }
    /* a column twice counts twice; a number for all; the list is a copy */
    double r0[SR], b0[SC];
    memcpy(r0, f.sp.r, sizeof(r0));
    memcpy(b0, f.sp.b, sizeof(b0));
    ck_assert(eval(f.sp.h, "local t = {5, 2, 5}\n"
                           "local xs = w.X:cols(t) t[2] = 7\n"
                           "xs:axpy(w:vector(3, 0.5), w.r) w.X:rows({2, 9}):axpy(-1, w.b)\n"
                           "return #xs + #w.X:rows({}) * 10") == 3);
    for (int64_t p = c->colptr[4]; p < c->colptr[5]; p++)
        r0[c->rowind[p]] += 2 * 0.5 * c->val[p];
    for (int64_t p = c->colptr[1]; p < c->colptr[2]; p++)
        r0[c->rowind[p]] += 0.5 * c->val[p];
    for (int i = 1; i < 9; i += 7)
        for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
            b0[a->colind[p]] -= a->val[p];
    for (int i = 0; i < SR; i++)
        ck_assert(close_to(f.sp.r[i], r0[i], 1e-13));
    for (int j = 0; j < SC; j++)
        ck_assert(close_to(f.sp.b[j], b0[j], 1e-13));
    ck_assert(eval(f.sp.h, "return tostring(w.X:cols({1, 2})) == \"2 columns of 'X'\" and "
                           "w.X:rows({}):dot(w.b):size() == 0 and 1 or 0") == 1);
    sparse_teardown(&f.sp);
}
END_TEST

/* v:max, v:min, v:clip and v:add(number), in place, against the same in C,
 * on registered vectors, new vectors and rows. */
START_TEST(test_vector_bounds)
{
    struct vec_fixture f;
    vec_setup(&f, 17 + (uint64_t)_i);
    double u0[VN], v0[VN];
    memcpy(u0, f.u, sizeof(u0));
    memcpy(v0, f.v, sizeof(v0));
    ck_assert(eval(f.h, "local u = w.u return u:max(w.v) == u and u:min(w.y) == u and 1 or 0") ==
              1);
    for (int i = 0; i < VN; i++) {
        double x = u0[i] > v0[i] ? u0[i] : v0[i];
        ck_assert(f.u[i] == (x < f.y[i] ? x : f.y[i]));
    }
    eval(f.h, "w.v:max(-0.25):min(0.5) w.u:add(3):clip(2, 3.5) return 0");
    for (int i = 0; i < VN; i++) {
        double x = v0[i] > -0.25 ? v0[i] : -0.25, y = f.u[i];
        ck_assert(f.v[i] == (x < 0.5 ? x : 0.5));
        (void)y;
    }
    for (int i = 0; i < VN; i++) {
        double x = u0[i] > v0[i] ? u0[i] : v0[i];
        x = (x < f.y[i] ? x : f.y[i]) + 3;
        ck_assert(f.u[i] == (x < 2 ? 2 : x > 3.5 ? 3.5 : x));
    }
    /* a NaN bound leaves v; a vector with itself; add of a vector still */
    ck_assert(eval(f.h, "local a = w:vector(3, 1) a[2] = 5 a:max(0/0):min(0/0)\n"
                        "a:max(a):add(a):add(-1) return a[1] * 100 + a[2]") == 100 + 9);
    ck_assert(eval(f.h, "return w:vector(4, 7):clip(-1, 1):sum() + w.e:clip(0, 0):sum()") == 4);
    lhost_free(f.h);

    struct rot_fixture r;
    rot_setup(&r, 3);
    double W0[RR * K];
    memcpy(W0, r.W, sizeof(W0));
    ck_assert(eval(r.h, "w.W:row(2):max(w.H:row(1)):clip(-0.5, 0.5) return 0") == 0);
    for (int k = 0; k < K; k++) {
        double x = W0[K + k] > r.H[k] ? W0[K + k] : r.H[k];
        ck_assert(r.W[K + k] == (x < -0.5 ? -0.5 : x > 0.5 ? 0.5 : x));
        ck_assert(r.W[k] == W0[k]);
    }
    rot_teardown(&r);
}
END_TEST

/* Elements of rows: W:row(i)[k] is W[(i - 1) cols + k], read and written. */
START_TEST(test_row_elements)
{
    struct rot_fixture f;
    rot_setup(&f, 8);
    ck_assert(eval(f.h, "return w.W:row(3)[2]") == f.W[2 * K + 1]);
    ck_assert(eval(f.h, "return w.Y:row(2)[6]") == f.Y[2 * K - 1]);
    ck_assert(eval(f.h, "local r = w.W:row(4) r[1] = 7 r[6] = r[6] * 2 + 1 return w.W[3 * 6 + 1]") ==
              7);
    double w46 = f.W[3 * K + 5];
    ck_assert(f.W[3 * K] == 7);
    ck_assert(eval(f.h, "local s = 0 local r = w.H:row(5) for k = 1, #r do s = s + r[k] end "
                        "return s") == f.H[4 * K] + f.H[4 * K + 1] + f.H[4 * K + 2] +
                                           f.H[4 * K + 3] + f.H[4 * K + 4] + f.H[4 * K + 5]);
    (void)w46;
    /* under a limit, the rows held and no other */
    ck_assert_int_eq(lhost_limit_rows(f.h, "H", 8, 16, true), 0);
    ck_assert(eval(f.h, "w.H:row(9)[2] = -1 return w.H:row(9)[2]") == -1);
    ck_assert(f.H[8 * K + 1] == -1);
    ck_assert_int_eq(run_body(f.h, "return w.H:row(17)[1]", NULL), PTM_EINVAL);
    expect_first_line("row elements", 0, f.h,
                      "t.lua:2: row 17 of 'H' belongs to another worker in this round (this "
                      "worker holds rows 9..16)");
    rot_teardown(&f);
}
END_TEST

/* init(w, job): called once with the worker and the consts; its errors
 * carry a traceback; the shape of a function. */
START_TEST(test_init)
{
    struct vec_fixture f;
    vec_setup(&f, 2);
    ck_assert_int_eq(lhost_set_const_num(f.h, "k", 3), 0);
    load_ok(f.h, "function init(w, job) for i = 1, job.k do w.u[i] = w.id * 10 + i end\n"
                 "  calls = (calls or 0) + 1 end\n"
                 "function objective(w) return calls end\n"
                 "function bad(w) local t = nil\n  return t.x end\n"
                 "function many(a, b, c) end\n"
                 "function any(w, ...) end\n"
                 "notfn = 3\n");
    ck_assert_int_eq(lhost_init(f.h, "init"), 0);
    ck_assert(f.u[0] == 11 && f.u[1] == 12 && f.u[2] == 13);
    double x;
    ck_assert_int_eq(lhost_objective(f.h, "objective", &x), 0);
    ck_assert(x == 1);
    ck_assert_int_eq(lhost_init(f.h, "bad"), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(f.h), LHOST_FAIL_ERROR);
    expect_first_line("init", 0, f.h, "t.lua:5: attempt to index a nil value (local 't')");
    ck_assert_msg(strstr(lhost_error(f.h), "stack traceback:\n\tt.lua:5: in function 'bad'"),
                  "%s", lhost_error(f.h));
    ck_assert_int_eq(lhost_init(f.h, "nothere"), PTM_EINVAL);
    ck_assert_str_eq(lhost_error(f.h), "'t.lua' defines no function 'nothere'");
    bool va;
    ck_assert_int_eq(lhost_params(f.h, "init", &va), 2);
    ck_assert(!va);
    ck_assert_int_eq(lhost_params(f.h, "many", &va), 3);
    ck_assert_int_eq(lhost_params(f.h, "any", &va), 1);
    ck_assert(va);
    ck_assert_int_eq(lhost_params(f.h, "notfn", &va), -1);
    ck_assert_int_eq(lhost_params(f.h, "nothere", &va), -1);
    lhost_free(f.h);
}
END_TEST

/* New vectors outside push: in-place methods return their vector, and a
 * new vector works wherever a registered one does. */
START_TEST(test_new_vectors)
{
    struct bulk_fixture f;
    bulk_setup(&f, 9);
    struct lhost *h = f.sp.h;
    ck_assert(eval(h,
                   "local a = w:vector(3, 1)\n"
                   "local same = a:scale(2) == a and a:add(a) == a and a:mul(a) == a and\n"
                   "  a:div(a) == a and a:soft(0) == a and a:fill(1) == a and a:axpy(1, a) == a\n"
                   "return (same and a[1] == 2 and a[3] == 2 and #a == 3 and\n"
                   "  tostring(a) == 'vector (3 elements)') and 1 or 0") == 1);
    double sum = 0, n2 = 0;
    for (int i = 0; i < VN; i++) {
        sum += f.u[i];
        n2 += f.u[i] * f.u[i];
    }
    ck_assert(close_to(eval(h, "return w.u:dot(w:vector(#w.u, 1))"), sum, 1e-13));
    ck_assert(close_to(eval(h, "return w.u:copy():norm2()"), n2, 1e-13));
    ck_assert(close_to(eval(h, "local c = w.u:copy() c[1] = c[1] + 1 return c:sum() - w.u:sum()"),
                       1, 1e-13));
    double col = 0;
    for (int64_t p = f.sp.c.colptr[4]; p < f.sp.c.colptr[5]; p++)
        col += f.sp.c.val[p];
    ck_assert(close_to(eval(h, "return w.X:col(5):dot(w:vector(#w.r, 1))"), col, 1e-13));
    ck_assert(eval(h, "local a = w:vector(#w.r) w.X:col(5):axpy(2, a) return a:sum()") ==
              2 * col);
    /* kept in a global, a cache across calls */
    ck_assert(eval(h, "cache = w:vector(4, 0.25) return 0") == 0);
    ck_assert(eval(h, "cache[4] = 3 return cache:sum()") == 3.75);
    sparse_teardown(&f.sp);
}
END_TEST

/* Bad arguments and sizes, refused with these messages (the first line;
 * the rest is the traceback). Blocks: bulk_a, or (b) 1-based 3 and 31. */
static const struct {
    int b; /* 1: the blocks 3 and 31 */
    const char *body, *expected;
} bulk_error_cases[] = {
    {0, "return w.X:cols(S):dot(w.b)",
     "t.lua:2: size mismatch: the columns of 'X' have 37 rows, 'b' has 23 elements"},
    {0, "return w.X:rows(S):dot(w.r)",
     "t.lua:2: size mismatch: the rows of 'X' have 23 columns, 'r' has 37 elements"},
    {0, "w.X:cols(S):axpy(1, w.u)",
     "t.lua:2: size mismatch: the columns of 'X' have 37 rows, 'u' has 50 elements"},
    {0, "w.X:cols(S):axpy(w.u, w.r)",
     "t.lua:2: size mismatch: the block list has 6 blocks, 'u' has 50 elements"},
    {0, "w.X:cols(S):axpy('a', w.r)",
     "t.lua:2: bad argument #1 to 'axpy' (number or vector expected, got string)"},
    {0, "w.X:cols(S):axpy(1, w.y)", "t.lua:2: 'y' is read-only"},
    {0, "w.X:cols(S):axpy(1, 2)",
     "t.lua:2: bad argument #2 to 'axpy' (vector expected, got number)"},
    {1, "return w.X:cols(S):dot(w.r)",
     "t.lua:2: block 31 out of range for the columns of 'X' (1..23)"},
    {1, "return w.X:cols(S):norm2()",
     "t.lua:2: block 31 out of range for the columns of 'X' (1..23)"},
    {1, "return w.X:cols(S):nnz()",
     "t.lua:2: block 31 out of range for the columns of 'X' (1..23)"},
    {1, "w.X:cols(S):axpy(1, w.r)",
     "t.lua:2: block 31 out of range for the columns of 'X' (1..23)"},
    {0, "return w.X:cols(w.u)",
     "t.lua:2: index 1 of the list is -0.78071161419812, not a column number of 'X' (1..23)"},
    {0, "return w.X:cols()",
     "t.lua:2: bad argument #1 to 'cols' (block list, table or vector expected, got no value)"},
    {0, "return w.X:cols(w.X)",
     "t.lua:2: bad argument #1 to 'cols' (block list, table or vector expected, got matrix)"},
    {0, "return w.X:cols({3, 24})", "t.lua:2: column 24 out of range for 'X' (1..23), index 2 "
                                    "of the list"},
    {0, "return w.X:cols({0})", "t.lua:2: column 0 out of range for 'X' (1..23), index 1 of the "
                                "list"},
    {0, "return w.X:rows({38})", "t.lua:2: row 38 out of range for 'X' (1..37), index 1 of the "
                                 "list"},
    {0, "return w.X:cols({1, 2.5})", "t.lua:2: index 2 of the list is 2.5, not a column number "
                                     "of 'X' (1..23)"},
    {0, "return w.X:cols({1, 'a'})", "t.lua:2: index 2 of the list is string, not a column "
                                     "number of 'X' (1..23)"},
    {0, "return w.X:cols({1, nil, 3})", "t.lua:2: index 2 of the list is nil, not a column "
                                        "number of 'X' (1..23)"},
    {0, "return w.X:cols({1, 0/0})", "t.lua:2: index 2 of the list is -nan, not a column number "
                                     "of 'X' (1..23)"},
    {0, "w.X:cols({1, 2}):axpy(w.u, w.r)",
     "t.lua:2: size mismatch: the list has 2 indices, 'u' has 50 elements"},
    {0, "w.X:cols({1, 2}):dot(w.b)",
     "t.lua:2: size mismatch: the columns of 'X' have 37 rows, 'b' has 23 elements"},
    {0, "return w.X:cols({1}):sum()", "t.lua:2: attempt to call a nil value (method 'sum')"},
    {0, "w.u:max('a')", "t.lua:2: bad argument #1 to 'max' (vector or number expected, got "
                        "string)"},
    {0, "w.u:min(w.r)", "t.lua:2: size mismatch: 'u' has 50 elements, 'r' has 37"},
    {0, "w.y:max(0)", "t.lua:2: 'y' is read-only"},
    {0, "w.u:clip(1, -1)", "t.lua:2: clip needs lo <= hi, not 1.0 > -1.0"},
    {0, "return w.X:cols({2^70})", "t.lua:2: column 1.1805916207174e+21 out of range for 'X' "
                                   "(1..23), index 1 of the list"},
    {0, "w.u:clip(0)", "t.lua:2: bad argument #2 to 'clip' (number expected, got no value)"},
    {0, "w.u:clip(0/0, 1)", "t.lua:2: clip needs lo <= hi, not -nan > 1.0"},
    {0, "w.y:add(1)", "t.lua:2: 'y' is read-only"},
    {0, "w.u:add('1')", "t.lua:2: bad argument #1 to 'add' (vector expected, got string)"},
    {0, "return w.X2:rows(S)", "t.lua:2: 'X2' has no row views on this worker"},
    {0, "return w.X:cols(S):sum()",
     "t.lua:2: calling 'sum' on bad self (a view of one column or row expected, got a set)"},
    {0, "for i, a in w.X:cols(S):each() do end",
     "t.lua:2: calling 'each' on bad self (a view of one column or row expected, got a set)"},
    {0, "return w.u:dot(w.X:cols(S))",
     "t.lua:2: bad argument #1 to 'dot' (vector expected, got sparse view)"},
    {0, "return w.u:gather(S):dot(w.u)",
     "t.lua:2: size mismatch: a vector has 6 elements, 'u' has 50"},
    {0, "return w:vector(10):gather(S)", "t.lua:2: block 22 out of range for a vector (1..10)"},
    {0, "return w:vector(0):gather(S)", "t.lua:2: block 3 out of range for a vector (it is empty)"},
    {1, "return w.b:gather(S)", "t.lua:2: block 31 out of range for 'b' (1..23)"},
    {1, "w.b:scatter(S, w:vector(2))", "t.lua:2: block 31 out of range for 'b' (1..23)"},
    {0, "return w.u:gather(w.u)",
     "t.lua:2: bad argument #1 to 'gather' (block list expected, got vector)"},
    {0, "w:vector(10):scatter(S, w:vector(6))",
     "t.lua:2: block 22 out of range for a vector (1..10)"},
    {0, "w.u:scatter(S, w.u)",
     "t.lua:2: size mismatch: the block list has 6 blocks, 'u' has 50 elements"},
    {0, "w.y:scatter(S, w:vector(6))", "t.lua:2: 'y' is read-only"},
    {0, "w.u:add(w.b)", "t.lua:2: size mismatch: 'u' has 50 elements, 'b' has 23"},
    {0, "w.u:mul(3)", "t.lua:2: bad argument #1 to 'mul' (vector expected, got number)"},
    {0, "w.y:add(w.y)", "t.lua:2: 'y' is read-only"},
    {0, "w.u:div(w.v)",
     "t.lua:2: division by zero: element 1 of 'v' is 0 (give div a value for it: v:div(u, 0))"},
    {0, "w:vector(3, 1):div(w:vector(3, 1):scatter(S, w:vector(6)))",
     "t.lua:2: block 22 out of range for a vector (1..3)"},
    {0, "w:vector(3, 1):div(w:vector(3))",
     "t.lua:2: division by zero: element 1 of a vector is 0 (give div a value for it: v:div(u, "
     "0))"},
    {0, "w.u:div(w.u, 'x')", "t.lua:2: bad argument #2 to 'div' (number expected, got string)"},
    {0, "w.u:soft(-1)", "t.lua:2: bad argument #1 to 'soft' (the threshold must be a number >= 0)"},
    {0, "w.u:soft(0/0)",
     "t.lua:2: bad argument #1 to 'soft' (the threshold must be a number >= 0)"},
    {0, "w.u:soft()", "t.lua:2: bad argument #1 to 'soft' (number expected, got no value)"},
    {0, "w.y:soft(1)", "t.lua:2: 'y' is read-only"},
    {0, "return w.u.copy(3)", "t.lua:2: bad argument #1 to 'copy' (vector expected, got number)"},
    {0, "w:vector(-1)", "t.lua:2: bad argument #1 to 'vector' (the size must be >= 0)"},
    {0, "w:vector(1.5)",
     "t.lua:2: bad argument #1 to 'vector' (number has no integer representation)"},
    {0, "w:vector('x')", "t.lua:2: bad argument #1 to 'vector' (number expected, got string)"},
    {0, "w:vector(3, 'x')", "t.lua:2: bad argument #2 to 'vector' (number expected, got string)"},
    {0, "w:vector(2^62)", "t.lua:2: a vector of 4611686018427387904 elements is too large"},
    {0, "return w:vector(3)[4]", "t.lua:2: index 4 out of range for a vector (1..3)"},
    {0, "return w:vector(3):x()", "t.lua:2: attempt to call a nil value (method 'x')"},
    {0, "return S.n", "t.lua:2: the block list indexed with string (expected a number)"},
    {0, "S[1] = 3", "t.lua:2: the block list is read-only"},
    {0, "return #S + S",
     "t.lua:2: attempt to perform arithmetic on a block list value (local 'S')"},
};

START_TEST(test_bulk_errors)
{
    struct bulk_fixture f;
    bulk_setup(&f, 3);
    static const int64_t bad_b[] = {2, 30};
    const int64_t *blocks = bulk_error_cases[_i].b ? bad_b : bulk_a;
    size_t n = bulk_error_cases[_i].b ? 2 : NA;
    double r0[SR], b0[SC], u0[VN], z[8 * NA];
    memcpy(r0, f.sp.r, sizeof(r0));
    memcpy(b0, f.sp.b, sizeof(b0));
    memcpy(u0, f.u, sizeof(u0));
    int k;
    ck_assert_int_eq(bulk_push(&f, bulk_error_cases[_i].body, blocks, n, &k, z), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(f.sp.h), LHOST_FAIL_ERROR);
    expect_first_line("bulk errors", _i, f.sp.h, bulk_error_cases[_i].expected);
    /* a refused operation changed nothing */
    ck_assert(memcmp(r0, f.sp.r, sizeof(r0)) == 0);
    ck_assert(memcmp(b0, f.sp.b, sizeof(b0)) == 0);
    ck_assert(memcmp(u0, f.u, sizeof(u0)) == 0);
    sparse_teardown(&f.sp);
}
END_TEST

/* New vectors count against the memory cap: one too big, many, and the
 * host's own copies of a pull's sums. */
START_TEST(test_vector_memory)
{
    struct lhost *h = small_host(); /* 16 MiB */
    size_t before = lhost_memory(h);
    ck_assert_int_eq(run_body(h, "local v = w:vector(1e9) return #v", NULL), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MEMORY);
    ck_assert_str_eq(lhost_error(h), "memory cap of 16 MiB exceeded in hook 'objective'");
    ck_assert(eval(h, "return #w:vector(1000, 1)") == 1000);
    ck_assert_int_eq(run_body(h, "local t = {} for i = 1, 1e6 do t[i] = w:vector(1000) end", NULL),
                     PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MEMORY);
    ck_assert_uint_lt(lhost_memory(h), before + (1u << 20)); /* collected after the failure */
    ck_assert(eval(h, "kept = {} for i = 1, 100 do kept[i] = w:vector(1000, i) end "
                      "return kept[100][1000]") == 100);
    ck_assert_uint_gt(lhost_memory(h), before + 100 * 8000);

    /* a pull whose sums do not fit under the cap */
    load_ok(h, "function pull(S, z) return z[1] end\n");
    size_t n = (size_t)1 << 20;
    int64_t *blocks = ptm_malloc(n * sizeof(*blocks));
    double *z = ptm_malloc(2 * n * sizeof(*z)), out[1];
    ck_assert(blocks && z);
    for (size_t i = 0; i < n; i++) {
        blocks[i] = (int64_t)i;
        z[2 * i] = z[2 * i + 1] = 1;
    }
    ck_assert_int_eq(lhost_pull(h, "pull", blocks, n, z, 2, NULL, out), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MEMORY);
    ck_assert_str_eq(lhost_error(h), "memory cap of 16 MiB exceeded in hook 'pull'");
    ptm_free(blocks);
    ptm_free(z);
    lhost_free(h);
}
END_TEST

/* ---- the worker and its generators ------------------------------------------------------- */

START_TEST(test_worker)
{
    struct lhost *h = host_with(1, 3, 9, (struct limits){16 << 20, 1000000, 2});
    ck_assert(eval(h, "return w.id * 1000 + w.workers * 100 + w.round") == 2300);
    ck_assert(eval(h, "return w.rows[1] * 1000 + w.rows[2]") == 101 * 1000 + 200);
    lhost_set_round(h, 41);
    ck_assert(eval(h, "return w.round") == 41);
    ck_assert(eval(h, "return tostring(w) == 'worker 2 of 3' and 1 or 0") == 1);
    ck_assert(eval(h, "return getmetatable(w) == false and 1 or 0") == 1);
    lhost_free(h);
}
END_TEST

/* n draws of w:random() and math.random, and integer draws, as one list. */
static void draws(struct lhost *h, double *out, int n)
{
    double v[64];
    ck_assert_int_le(n, 16);
    ck_assert_int_eq(lhost_set_vector(h, "d", v, 4 * n, true), 0);
    char body[256];
    snprintf(body, sizeof(body),
             "for i = 1, %d do w.d[i] = w:random() w.d[%d + i] = math.random() "
             "w.d[%d + i] = w:random(6) w.d[%d + i] = math.random(-3, 3) end return 0",
             n, n, 2 * n, 3 * n);
    eval(h, body);
    memcpy(out, v, (size_t)(4 * n) * sizeof(double));
}

START_TEST(test_random)
{
    struct limits lim = {16 << 20, 10000000, 2};
    struct lhost *a = host_with(0, 2, 42, lim), *b = host_with(0, 2, 42, lim),
                 *c = host_with(1, 2, 42, lim), *d = host_with(0, 2, 43, lim);
    double da[64], db[64], dc[64], dd[64];
    draws(a, da, 16);
    draws(b, db, 16);
    draws(c, dc, 16);
    draws(d, dd, 16);
    ck_assert(memcmp(da, db, sizeof(da)) == 0); /* same seed and worker: same numbers */
    int same_c = 0, same_d = 0, same_streams = 0;
    for (int i = 0; i < 16; i++) {
        ck_assert(da[i] >= 0 && da[i] < 1 && da[16 + i] >= 0 && da[16 + i] < 1);
        ck_assert(da[32 + i] >= 1 && da[32 + i] <= 6 && da[32 + i] == floor(da[32 + i]));
        ck_assert(da[48 + i] >= -3 && da[48 + i] <= 3 && da[48 + i] == floor(da[48 + i]));
        same_c += da[i] == dc[i];
        same_d += da[i] == dd[i];
        same_streams += da[i] == da[16 + i];
    }
    ck_assert_int_eq(same_c, 0); /* another worker */
    ck_assert_int_eq(same_d, 0); /* another seed */
    ck_assert_int_eq(same_streams, 0);

    /* a checkpoint of the generators replays the same numbers */
    uint64_t st[LHOST_RNG_WORDS];
    lhost_rng_get(a, st);
    draws(a, da, 8);
    lhost_rng_set(b, st);
    draws(b, db, 8);
    ck_assert(memcmp(da, db, 32 * sizeof(double)) == 0);

    /* math.randomseed with a seed is repeatable */
    ck_assert(eval(a, "math.randomseed(7) local x = math.random(1000000) "
                      "math.randomseed(7) return x - math.random(1000000)") == 0);
    ck_assert(eval(a, "math.randomseed(7) return math.random(1 << 40)") ==
              eval(c, "math.randomseed(7) return math.random(1 << 40)"));

    /* the uniformity of w:random(m): 60000 draws of 1..6, each face near 10000 */
    ck_assert(eval(a, "local c = {0, 0, 0, 0, 0, 0} for i = 1, 60000 do local k = w:random(6) "
                      "c[k] = c[k] + 1 end local bad = 0 for k = 1, 6 do "
                      "if math.abs(c[k] - 10000) > 500 then bad = bad + 1 end end "
                      "return bad") == 0);
    ck_assert_int_eq(run_body(a, "return w:random(3, 1)", NULL), PTM_EINVAL);
    expect_first_line("random", 0, a, "t.lua:2: bad argument #2 to 'random' (interval is empty)");
    ck_assert_int_eq(run_body(a, "return w:random(1, 2, 3)", NULL), PTM_EINVAL);
    expect_first_line("random", 1, a, "t.lua:2: wrong number of arguments");
    lhost_free(a);
    lhost_free(b);
    lhost_free(c);
    lhost_free(d);
}
END_TEST

/* ---- checkpoints: the save and load hooks, the encoding of their value ------------------- */

/* Bytes of an encoding written here, from the format of lhost_state.c's
 * comment (not from the encoder). */
struct bytes {
    unsigned char b[4096];
    size_t n;
};

static void b_u8(struct bytes *x, unsigned v)
{
    ck_assert_uint_lt(x->n, sizeof(x->b));
    x->b[x->n++] = (unsigned char)v;
}

static void b_u64(struct bytes *x, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b_u8(x, (unsigned)(v >> (8 * i)) & 0xff);
}

static void b_str(struct bytes *x, const char *s)
{
    b_u8(x, 5);
    b_u64(x, strlen(s));
    for (const char *p = s; *p; p++)
        b_u8(x, (unsigned char)*p);
}

static void b_table(struct bytes *x, uint64_t n, uint64_t m)
{
    b_u8(x, 6);
    b_u64(x, n);
    b_u64(x, m);
}

/* The bytes save(w) returns in a fresh small host over file text. */
static char *saved(const char *text, size_t *len)
{
    struct lhost *h = small_host();
    load_ok(h, text);
    char *buf;
    int rc = lhost_state_save(h, "save", &buf, len);
    ck_assert_msg(rc == 0, "save failed: %s", lhost_error(h));
    lhost_free(h);
    return buf;
}

/* A deep comparison in Lua: same types, integers and floats apart, floats
 * bit for bit, no key more or less. */
#define SAME_LUA                                                                                   \
    "local function same(a, b)\n"                                                                  \
    "  if type(a) ~= type(b) then return false end\n"                                              \
    "  if type(a) == 'number' then\n"                                                              \
    "    return math.type(a) == math.type(b) and string.pack('<n', a) == string.pack('<n', b)\n"   \
    "  end\n"                                                                                      \
    "  if type(a) ~= 'table' then return a == b end\n"                                             \
    "  for k, v in pairs(a) do if not same(v, rawget(b, k)) then return false end end\n"           \
    "  for k in pairs(b) do if rawget(a, k) == nil then return false end end\n"                    \
    "  return true\n"                                                                              \
    "end\n"

/* VALUE is built twice, in the host that saves and in the one that loads
 * and compares. */
#define STATE_VALUE                                                                                \
    "local function value() return {\n"                                                            \
    "  1, 2, 3.0, -0.0, 1/0, -1/0, 0/0, math.maxinteger, math.mininteger, 2^63, 0.1,\n"            \
    "  'a\\0b', '', true, false,\n"                                                                \
    "  {{{}}, {x = {y = {z = 'deep'}}}},\n"                                                        \
    "  name = 'ptm', [2.5] = 'half', [true] = 'yes', [false] = {1}, [-7] = -7, [100] = 'far',\n"   \
    "  [''] = 'empty key', ['with space'] = {n = 3, f = 3.0},\n"                                   \
    "} end\n"

START_TEST(test_state_roundtrip)
{
    const char *text = STATE_VALUE "function save(w, job) return value() end\n";
    size_t n;
    char *buf = saved(text, &n);
    struct lhost *h = small_host();
    load_ok(h, SAME_LUA STATE_VALUE "got = 'not called'\n"
                                    "function load(w, t, job) got = t end\n"
                                    "function objective(w, job)\n"
                                    "  if not same(value(), got) then return 0 end\n"
                                    "  if math.type(got[3]) ~= 'float' or math.type(got[1]) ~= "
                                    "'integer' then return -1 end\n"
                                    "  return 1 end\n");
    int rc = lhost_state_load(h, "load", buf, n);
    ck_assert_msg(rc == 0, "load failed: %s", lhost_error(h));
    double ok = 0;
    rc = lhost_objective(h, "objective", &ok);
    ck_assert_msg(rc == 0, "%s", lhost_error(h));
    ck_assert(ok == 1);
    /* a control: the comparison tells a float from an integer, and -0.0 from 0 */
    load_ok(h, SAME_LUA STATE_VALUE
            "function objective(w, job) got[3] = 3 return same(value(), got) and 1 or 0 end");
    ck_assert_int_eq(lhost_objective(h, "objective", &ok), 0);
    ck_assert(ok == 0);
    load_ok(h, SAME_LUA STATE_VALUE "function objective(w, job) got = value() got[4] = 0.0 "
                                    "return same(value(), got) and 1 or 0 end");
    ck_assert_int_eq(lhost_objective(h, "objective", &ok), 0);
    ck_assert(ok == 0);
    ptm_free(buf);

    /* nil, and a save that returns nothing, come back as nil */
    const char *nils[] = {"function save() return nil end", "function save() end"};
    for (int i = 0; i < 2; i++) {
        buf = saved(nils[i], &n);
        ck_assert_uint_eq(n, 2);
        load_ok(h, "function load(w, t) got = t == nil and 'nil' or 'not nil' end\n"
                   "function objective() return got == 'nil' and 1 or 0 end");
        ck_assert_int_eq(lhost_state_load(h, "load", buf, n), 0);
        ck_assert_int_eq(lhost_objective(h, "objective", &ok), 0);
        ck_assert(ok == 1);
        ptm_free(buf);
    }
    lhost_free(h);
}
END_TEST

/* The bytes of a small value, against the format written out here. */
START_TEST(test_state_bytes)
{
    size_t n;
    char *buf = saved("function save() return {7, 2.5, 'ab', x = true} end", &n);
    struct bytes want = {.n = 0};
    b_u8(&want, 1); /* the version */
    b_table(&want, 3, 1);
    b_u8(&want, 3);
    b_u64(&want, 7);
    b_u8(&want, 4);
    double f = 2.5;
    uint64_t bits;
    memcpy(&bits, &f, 8);
    b_u64(&want, bits);
    b_str(&want, "ab");
    b_str(&want, "x");
    b_u8(&want, 2);
    ck_assert_uint_eq(n, want.n);
    ck_assert(memcmp(buf, want.b, n) == 0);
    ptm_free(buf);

    /* a negative integer is its two's complement; a float with a whole value stays a float */
    buf = saved("function save() return {-1, 1.0} end", &n);
    ck_assert_uint_eq(n, 1 + 17 + 9 + 9);
    ck_assert((unsigned char)buf[18] == 3 && (unsigned char)buf[19] == 0xff &&
              (unsigned char)buf[26] == 0xff);
    ck_assert((unsigned char)buf[27] == 4);
    memcpy(&bits, buf + 28, 8);
    memcpy(&f, &bits, 8);
    ck_assert(f == 1.0);
    ptm_free(buf);
}
END_TEST

/* save values that cannot come back as they were, with the hook's line
 * and the path to the culprit. */
static const struct {
    const char *body, *expected;
} save_refused_cases[] = {
    {"return {f = print}",
     "t.lua:1: hook 'save' returned a function at value.f (a saved state is made of nil, "
     "booleans, numbers, strings and tables of those)"},
    {"return print",
     "t.lua:1: hook 'save' returned a function (a saved state is made of nil, booleans, "
     "numbers, strings and tables of those)"},
    {"local t = {a = {b = {}}} t.a.b.c = t.a return t",
     "t.lua:1: hook 'save' returned a table that contains itself at value.a.b.c (a saved state "
     "is a tree of tables)"},
    {"local s = {} return {s, {1, s}}",
     "t.lua:1: hook 'save' returned a table met twice at value[2][2] (shared tables would come "
     "back as copies: a saved state is a tree of tables)"},
    {"local t = {} local c = t for i = 1, 70 do c.n = {} c = c.n end return t",
     "t.lua:1: hook 'save' returned tables nested more than 64 deep at "
     "value.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n."
     "n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n.n (a saved state nests at most that deep)"},
    {"return {g = w:vector(3)}",
     "t.lua:1: hook 'save' returned a vector at value.g (save a table of its values, and make "
     "the vector again in load)"},
    {"return {w.X}",
     "t.lua:1: hook 'save' returned a matrix at value[1] (a saved state is made of nil, "
     "booleans, numbers, strings and tables of those)"},
    {"return {rows = {w.X:row(1)}}",
     "t.lua:1: hook 'save' returned a sparse view at value.rows[1] (a saved state is made of "
     "nil, booleans, numbers, strings and tables of those)"},
    {"return {['a b'] = {co = coroutine.create(print)}}",
     "t.lua:1: hook 'save' returned a coroutine at value[\"a b\"].co (a saved state is made of "
     "nil, booleans, numbers, strings and tables of those)"},
    {"return {[2.5] = {setmetatable({}, {})}}",
     "t.lua:1: hook 'save' returned a table with a metatable at value[2.5][1] (it would come "
     "back without one)"},
    {"return {x = {[{}] = 1}}",
     "t.lua:1: hook 'save' returned a table as a key at value.x (keys are booleans, numbers and "
     "strings)"},
    {"return {[print] = 1}",
     "t.lua:1: hook 'save' returned a function as a key (keys are booleans, numbers and "
     "strings)"},
    {"return w", "t.lua:1: hook 'save' returned the worker object (a saved state is made of "
                 "nil, booleans, numbers, strings and tables of those)"},
    /* 1 MiB kept once in the state, 20 times in the encoding: over the 16 MiB cap */
    {"local s = string.rep('x', 1 << 20) local t = {} for i = 1, 20 do t[i] = s end return t",
     "t.lua:1: hook 'save' returned more than 16777216 bytes at value[16] (a saved state takes "
     "at most the state's memory cap)"},
    {"local x = nil return x.y", "t.lua:1: attempt to index a nil value (local 'x')"},
    {"error('no state today')", "t.lua:1: no state today"},
};

START_TEST(test_state_refused)
{
    struct lhost *h = small_host();
    struct ptm_csr a;
    struct ptm_csc c;
    uint64_t s = 3;
    random_csr(&s, 4, 3, 1, &a);
    ck_assert_int_eq(ptm_csr_to_csc(&a, &c), 0);
    struct lhost_matrix m = {.csc = &c, .csr = &a, .rows = 4, .cols = 3};
    ck_assert_int_eq(lhost_set_matrix(h, "X", &m), 0);
    char text[1024];
    snprintf(text, sizeof(text), "function save(w, job) %s end", save_refused_cases[_i].body);
    load_ok(h, text);
    uint64_t before[LHOST_RNG_WORDS], after[LHOST_RNG_WORDS];
    lhost_rng_get(h, before);
    char *buf = (char *)&text; /* set to NULL on failure */
    size_t n = 99;
    int rc = lhost_state_save(h, "save", &buf, &n);
    ck_assert_int_eq(rc, PTM_EINVAL);
    ck_assert_ptr_null(buf);
    ck_assert_uint_eq(n, 0);
    expect_first_line("save refused", _i, h, save_refused_cases[_i].expected);
    lhost_rng_get(h, after);
    ck_assert(memcmp(before, after, sizeof(before)) == 0);
    /* the state is usable after the failure */
    ck_assert(eval(h, "return 2 + 3") == 5);
    lhost_free(h);
    ptm_csr_release(&a);
    ptm_csc_release(&c);
}
END_TEST

/* Bytes that are no encoding: PTM_EDATA with what and where, and the
 * load hook not called. */
struct corrupt_case {
    void (*make)(struct bytes *x);
    const char *expected;
};

static void c_empty(struct bytes *x)
{
    (void)x;
}
static void c_version(struct bytes *x)
{
    b_u8(x, 2);
    b_u8(x, 0);
}
static void c_tag(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 1, 0);
    b_u8(x, 9);
}
static void c_short_int(struct bytes *x)
{
    b_u8(x, 1);
    b_u8(x, 3);
    b_u8(x, 1);
    b_u8(x, 2);
}
static void c_long_string(struct bytes *x)
{
    b_u8(x, 1);
    b_u8(x, 5);
    b_u64(x, 1000);
    b_u8(x, 'a');
}
static void c_huge_table(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, UINT64_MAX, 0);
}
static void c_huge_hash(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 1, UINT64_MAX / 2);
    b_u8(x, 2);
}
static void c_nil_value(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 2, 0);
    b_u8(x, 2);
    b_u8(x, 0);
}
static void c_nil_key(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 0, 1);
    b_u8(x, 0);
    b_u8(x, 2);
}
static void c_nan_key(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 0, 1);
    b_u8(x, 4);
    b_u64(x, 0x7ff8000000000000u);
    b_u8(x, 2);
}
static void c_whole_float_key(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 0, 1);
    b_u8(x, 4);
    double two = 2;
    uint64_t bits;
    memcpy(&bits, &two, 8);
    b_u64(x, bits);
    b_u8(x, 2);
}
static void c_table_key(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 0, 1);
    b_table(x, 0, 0);
    b_u8(x, 2);
}
static void c_key_twice(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 0, 2);
    b_str(x, "k");
    b_u8(x, 1);
    b_str(x, "k");
    b_u8(x, 2);
}
static void c_list_key_again(struct bytes *x)
{
    b_u8(x, 1);
    b_table(x, 1, 1);
    b_u8(x, 2);
    b_u8(x, 3);
    b_u64(x, 1);
    b_u8(x, 1);
}
static void c_trailing(struct bytes *x)
{
    b_u8(x, 1);
    b_u8(x, 2);
    b_u8(x, 2);
}
static void c_deep(struct bytes *x)
{
    b_u8(x, 1);
    for (int i = 0; i < 65; i++)
        b_table(x, 1, 0);
    b_u8(x, 2);
}
static void c_cut_table(struct bytes *x)
{
    b_u8(x, 1);
    b_u8(x, 6);
    b_u64(x, 1);
}

static const struct corrupt_case corrupt_cases[] = {
    {c_empty, "the value ends early at byte 0 of 0"},
    {c_version, "version 2 of the encoding (this ptm reads 1) at byte 0 of 2"},
    {c_tag, "an unknown tag 9 at byte 18 of 19"},
    {c_short_int, "the value ends early at byte 2 of 4"},
    {c_long_string, "a string of 1000 bytes in 1 at byte 1 of 11"},
    {c_huge_table, "a table of 18446744073709551615 + 0 entries in 0 bytes at byte 1 of 18"},
    {c_huge_hash, "a table of 1 + 9223372036854775807 entries in 1 bytes at byte 1 of 19"},
    {c_nil_value, "nil in a table at byte 19 of 20"},
    {c_nil_key, "nil as a key at byte 18 of 20"},
    {c_nan_key, "NaN as a key at byte 18 of 28"},
    {c_whole_float_key, "the float key 2 (Lua keeps it as an integer) at byte 18 of 28"},
    {c_table_key, "a table as a key at byte 18 of 36"},
    {c_key_twice, "a key given twice at byte 29 of 40"},
    {c_list_key_again, "a key given twice at byte 19 of 29"},
    {c_trailing, "1 bytes after the value at byte 2 of 3"},
    {c_deep, "tables nested more than 64 deep at byte 1089 of 1107"},
    {c_cut_table, "the value ends early at byte 10 of 10"},
};

START_TEST(test_state_corrupt)
{
    struct bytes x = {.n = 0};
    corrupt_cases[_i].make(&x);
    struct lhost *h = small_host();
    load_ok(h, "called = false function load(w, t) called = true end\n"
               "function objective() return called and 1 or 0 end");
    int rc = lhost_state_load(h, "load", x.b, x.n);
    ck_assert_int_eq(rc, PTM_EDATA);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_STATE);
    char want[512];
    snprintf(want, sizeof(want), "the saved state for hook 'load' is corrupt: %s",
             corrupt_cases[_i].expected);
    expect_first_line("corrupt", _i, h, want);
    ck_assert(eval(h, "return called and 1 or 0") == 0);
    lhost_free(h);
}
END_TEST

/* Every cut and many random changes of a valid encoding: a value or a
 * clean failure, never a crash (run under ASan by make asan). */
START_TEST(test_state_mangled)
{
    size_t n;
    char *good = saved(STATE_VALUE "function save() return value() end", &n);
    struct lhost *h = small_host();
    load_ok(h, "function load(w, t) end");
    unsigned char *b = ptm_malloc(n);
    ck_assert_ptr_nonnull(b);
    int fails = 0, oks = 0;
    for (size_t cut = 0; cut < n; cut++) {
        int rc = lhost_state_load(h, "load", good, cut);
        ck_assert_int_eq(rc, PTM_EDATA);
        fails++;
    }
    uint64_t s = 11;
    for (int t = 0; t < 3000; t++) {
        memcpy(b, good, n);
        int k = 1 + (int)(rnd(&s) % 3);
        for (int j = 0; j < k; j++)
            b[rnd(&s) % n] ^= (unsigned char)(1u << (rnd(&s) % 8));
        int rc = lhost_state_load(h, "load", b, n);
        ck_assert_msg(rc == 0 || rc == PTM_EDATA || rc == PTM_EINVAL, "%d: %s", rc, lhost_error(h));
        if (rc == 0)
            oks++;
        else
            fails++;
    }
    ck_assert_int_gt(oks, 0); /* a changed number or string byte is still a value */
    ck_assert_int_gt(fails, (int)n);
    ck_assert(eval(h, "return 1") == 1);
    ptm_free(b);
    ptm_free(good);
    lhost_free(h);
}
END_TEST

/* The load hook's failure, a value over the loading state's memory cap,
 * and generators that the hooks' draws leave alone. */
START_TEST(test_state_load)
{
    size_t n;
    char *buf = saved("function save() return {1, 2} end", &n);
    struct lhost *h = small_host();
    load_ok(h, "function load(w, t)\n  error('cannot take ' .. #t)\nend");
    ck_assert_int_eq(lhost_state_load(h, "load", buf, n), PTM_EINVAL);
    expect_first_line("load", 0, h, "t.lua:2: cannot take 2");
    ck_assert_int_eq(lhost_state_load(h, "nosuch", buf, n), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MISSING);
    ptm_free(buf);

    /* a string of 20 MiB for a state of 16 */
    size_t big = (size_t)20 << 20;
    unsigned char *b = ptm_malloc(big + 10);
    ck_assert_ptr_nonnull(b);
    b[0] = 1;
    b[1] = 5;
    for (int i = 0; i < 8; i++)
        b[2 + i] = (unsigned char)((uint64_t)big >> (8 * i));
    memset(b + 10, 'x', big);
    load_ok(h, "function load(w, t) got = #t end");
    ck_assert_int_eq(lhost_state_load(h, "load", b, big + 10), PTM_EINVAL);
    ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MEMORY);
    expect_first_line("load", 1, h,
                      "memory cap of 16 MiB exceeded while rebuilding the value for hook 'load'");
    ck_assert(eval(h, "return 1") == 1);
    ptm_free(b);

    /* draws in save and load are not the run's */
    struct lhost *a = small_host(), *c = small_host();
    load_ok(a, "function save(w) return {w:random(), math.random()} end\n"
               "function load(w, t) t.x = w:random() + math.random(10) end");
    char *s;
    ck_assert_int_eq(lhost_state_save(a, "save", &s, &n), 0);
    ck_assert_int_eq(lhost_state_load(a, "load", s, n), 0);
    double da[64], dc[64];
    draws(a, da, 8);
    draws(c, dc, 8);
    ck_assert(memcmp(da, dc, 32 * sizeof(double)) == 0);
    /* a control: the same draws outside the hooks move the generator */
    eval(a, "return w:random()");
    draws(a, da, 8);
    draws(c, dc, 8);
    ck_assert(memcmp(da, dc, 32 * sizeof(double)) != 0);
    ptm_free(s);
    lhost_free(a);
    lhost_free(c);
    lhost_free(h);
}
END_TEST

/* ---- the Lasso of examples/lasso/lasso.lua -------------------------------------------------- */

enum { LN = 60, LD = 12, LP = 2 };

struct lasso_data {
    struct ptm_csr x; /* dense, stored as sparse */
    double y[LN], lambda;
};

static void lasso_data(struct lasso_data *d, uint64_t seed)
{
    uint64_t s = seed;
    d->x.nrows = LN;
    d->x.ncols = LD;
    d->x.nnz = LN * LD;
    d->x.rowptr = ptm_malloc((LN + 1) * sizeof(int64_t));
    d->x.colind = ptm_malloc(LN * LD * sizeof(int32_t));
    d->x.val = ptm_malloc(LN * LD * sizeof(double));
    ck_assert(d->x.rowptr && d->x.colind && d->x.val);
    double truth[LD] = {0};
    for (int j = 0; j < LD; j += 3)
        truth[j] = unif(&s) * 3;
    for (int i = 0; i <= LN; i++)
        d->x.rowptr[i] = (int64_t)i * LD;
    for (int i = 0; i < LN; i++) {
        d->y[i] = 0.1 * unif(&s);
        for (int j = 0; j < LD; j++) {
            double a = unif(&s) + (j == 1 ? 0.3 : 0); /* one column with a mean */
            d->x.colind[i * LD + j] = j;
            d->x.val[i * LD + j] = a;
            d->y[i] += a * truth[j];
        }
    }
    double gmax = 0;
    for (int j = 0; j < LD; j++) {
        double g = 0;
        for (int i = 0; i < LN; i++)
            g += d->x.val[i * LD + j] * d->y[i];
        gmax = fmax(gmax, fabs(g) / LN);
    }
    d->lambda = 0.1 * gmax;
}

/* Cyclic coordinate descent on (1/2n)||y - X b||^2 + lambda ||b||_1, written
 * directly on the dense values, to a change below 1e-15. */
static void lasso_reference(const struct lasso_data *d, double *beta)
{
    double r[LN], sq[LD] = {0};
    memcpy(r, d->y, sizeof(r));
    memset(beta, 0, LD * sizeof(double));
    for (int i = 0; i < LN; i++)
        for (int j = 0; j < LD; j++)
            sq[j] += d->x.val[i * LD + j] * d->x.val[i * LD + j];
    for (int sweep = 0; sweep < 100000; sweep++) {
        double most = 0;
        for (int j = 0; j < LD; j++) {
            double g = 0;
            for (int i = 0; i < LN; i++)
                g += d->x.val[i * LD + j] * r[i];
            double a = g / LN + sq[j] / LN * beta[j];
            double t = fmax(fabs(a) - d->lambda, 0);
            double nb = (a < 0 ? -t : t) / (sq[j] / LN);
            double delta = nb - beta[j];
            for (int i = 0; i < LN; i++)
                r[i] -= d->x.val[i * LD + j] * delta;
            beta[j] = nb;
            most = fmax(most, fabs(delta));
        }
        if (most < 1e-15)
            return;
    }
    ck_abort_msg("the reference did not converge");
}

/* One worker's shard: rows [lo, hi) as CSR with offsets from 0, and its CSC. */
struct shard {
    struct ptm_csr rows;
    struct ptm_csc cols;
    double r[LN];
    struct lhost *h;
};

static void shard_init(struct shard *s, const struct lasso_data *d, int p, int64_t lo, int64_t hi,
                       double *beta, uint64_t seed)
{
    s->rows = (struct ptm_csr){
        .nrows = hi - lo,
        .ncols = LD,
        .nnz = (hi - lo) * LD,
        .rowptr = ptm_malloc((size_t)(hi - lo + 1) * sizeof(int64_t)),
        .colind = d->x.colind + lo * LD,
        .val = d->x.val + lo * LD,
    };
    ck_assert_ptr_nonnull(s->rows.rowptr);
    for (int64_t i = lo; i <= hi; i++)
        s->rows.rowptr[i - lo] = d->x.rowptr[i] - d->x.rowptr[lo];
    ck_assert_int_eq(ptm_csr_to_csc(&s->rows, &s->cols), 0);
    memcpy(s->r, d->y + lo, (size_t)(hi - lo) * sizeof(double)); /* r = y at beta = 0 */
    struct lhost_config cfg = {.id = p, .workers = LP, .first = lo, .last = hi - 1, .seed = seed};
    ck_assert_int_eq(lhost_new(&s->h, &cfg), 0);
    int rc = lhost_load_file(s->h, LASSO_LUA);
    ck_assert_msg(rc == 0, "%s (run from the repository root)", lhost_error(s->h));
    struct lhost_matrix m = {.csc = &s->cols, .csr = &s->rows, .rows = LN, .cols = LD};
    ck_assert_int_eq(lhost_set_matrix(s->h, "X", &m), 0);
    ck_assert_int_eq(lhost_set_vector(s->h, "r", s->r, hi - lo, true), 0);
    ck_assert_int_eq(lhost_set_vector(s->h, "beta", beta, LD, false), 0);
    ck_assert_int_eq(lhost_set_const_num(s->h, "lambda", d->lambda), 0);
    ck_assert(lhost_has(s->h, "push") && lhost_has(s->h, "pull") && lhost_has(s->h, "apply"));
}

static void shard_release(struct shard *s)
{
    lhost_free(s->h);
    ptm_csc_release(&s->cols);
    ptm_free(s->rows.rowptr);
}

static void lasso_check(const struct lasso_data *d, const double *beta, const double *ref)
{
    for (int j = 0; j < LD; j++)
        ck_assert_msg(fabs(beta[j] - ref[j]) <= 1e-6, "beta[%d] = %.17g, reference %.17g", j,
                      beta[j], ref[j]);
    /* KKT: g_j = x_j^T (y - X beta) / n is lambda sign(beta_j), or within lambda at 0 */
    int nonzero = 0;
    for (int j = 0; j < LD; j++) {
        double g = 0;
        for (int i = 0; i < LN; i++) {
            double fit = 0;
            for (int k = 0; k < LD; k++)
                fit += d->x.val[i * LD + k] * beta[k];
            g += d->x.val[i * LD + j] * (d->y[i] - fit);
        }
        g /= LN;
        if (beta[j] != 0) {
            nonzero++;
            ck_assert_msg(fabs(g - copysign(d->lambda, beta[j])) <= 1e-9 * d->lambda + 1e-12,
                          "KKT at %d: g = %.17g, lambda = %.17g", j, g, d->lambda);
        } else {
            ck_assert_msg(fabs(g) <= d->lambda * (1 + 1e-9), "KKT at zero %d: g = %.17g", j, g);
        }
    }
    ck_assert_int_ge(nonzero, 2); /* the problem is not trivial */
    ck_assert_int_le(nonzero, LD - 2);
}

/* Rounds of per_round columns, round-robin, on P = 2 workers run in turn. */
START_TEST(test_lasso)
{
    int per_round = _i == 0 ? 1 : 3;
    struct lasso_data d;
    lasso_data(&d, 2024);
    double ref[LD], beta[LD] = {0};
    lasso_reference(&d, ref);

    struct shard sh[LP];
    int64_t bound[LP + 1] = {0, 27, LN}; /* uneven shards */
    for (int p = 0; p < LP; p++)
        shard_init(&sh[p], &d, p, bound[p], bound[p + 1], beta, 5);

    int next = 0, quiet = 0;
    for (int round = 0; round < 20000 && quiet < LD; round++) {
        int64_t blocks[3];
        for (int i = 0; i < per_round; i++)
            blocks[i] = next++ % LD;
        double zsum[3 * 2] = {0}, z[3 * 4];
        int k = 0;
        for (int p = 0; p < LP; p++) {
            lhost_set_round(sh[p].h, round);
            int rc = lhost_push(sh[p].h, "push", blocks, (size_t)per_round, 4, &k, z);
            ck_assert_msg(rc == 0, "%s", lhost_error(sh[p].h));
            ck_assert_int_eq(k, 2);
            for (int i = 0; i < per_round * 2; i++)
                zsum[i] += z[i];
        }
        double nb[3], delta[3];
        int rc = lhost_pull(sh[0].h, "pull", blocks, (size_t)per_round, zsum, 2, NULL, nb);
        ck_assert_msg(rc == 0, "%s", lhost_error(sh[0].h));
        for (int i = 0; i < per_round; i++) {
            delta[i] = nb[i] - beta[blocks[i]];
            beta[blocks[i]] = nb[i];
            quiet = fabs(delta[i]) < 1e-14 ? quiet + 1 : 0;
        }
        for (int p = 0; p < LP; p++) {
            rc = lhost_apply(sh[p].h, "apply", blocks, (size_t)per_round, NULL, delta);
            ck_assert_msg(rc == 0, "%s", lhost_error(sh[p].h));
        }
    }
    ck_assert_int_ge(quiet, LD);
    lasso_check(&d, beta, ref);

    /* each worker's residual is y - X beta on its rows; the objective adds up */
    double f = 0, l1 = 0;
    for (int j = 0; j < LD; j++)
        l1 += fabs(beta[j]);
    for (int i = 0; i < LN; i++) {
        double res = d.y[i];
        for (int j = 0; j < LD; j++)
            res -= d.x.val[i * LD + j] * beta[j];
        int p = i < bound[1] ? 0 : 1;
        ck_assert(fabs(sh[p].r[i - bound[p]] - res) <= 1e-12);
        f += res * res;
    }
    f = f / (2 * LN) + d.lambda * l1;
    double parts = 0;
    for (int p = 0; p < LP; p++) {
        double part;
        ck_assert_int_eq(lhost_objective(sh[p].h, "objective", &part), 0);
        parts += part;
    }
    ck_assert(close_to(parts, f, 1e-12));
    for (int p = 0; p < LP; p++)
        shard_release(&sh[p]);
    ptm_csr_release(&d.x);
}
END_TEST

/* ---- two hosts on two threads ------------------------------------------------------------------
 */

struct solo {
    const struct lasso_data *d;
    double lambda, beta[LD];
    char failure[256];
};

/* A whole Lasso on one worker, in its own thread and host. Records the
 * first failure instead of asserting (check is not thread-safe). */
static void *solo_run(void *arg)
{
    struct solo *s = arg;
    struct ptm_csc cols;
    memset(s->beta, 0, sizeof(s->beta));
    if (ptm_csr_to_csc(&s->d->x, &cols)) {
        snprintf(s->failure, sizeof(s->failure), "out of memory");
        return NULL;
    }
    double r[LN];
    memcpy(r, s->d->y, sizeof(r));
    struct lhost_config cfg = {.workers = 1, .first = 0, .last = LN - 1, .seed = 3};
    struct lhost *h;
    int rc = lhost_new(&h, &cfg);
    if (rc)
        goto out;
    struct lhost_matrix m = {.csc = &cols, .rows = LN, .cols = LD};
    rc = lhost_load_file(h, LASSO_LUA);
    if (!rc)
        rc = lhost_set_matrix(h, "X", &m);
    if (!rc)
        rc = lhost_set_vector(h, "r", r, LN, true);
    if (!rc)
        rc = lhost_set_vector(h, "beta", s->beta, LD, false);
    if (!rc)
        rc = lhost_set_const_num(h, "lambda", s->lambda);
    for (int sweep = 0; !rc && sweep < 3000; sweep++) {
        for (int64_t j = 0; !rc && j < LD; j++) {
            double z[4], nb = 0;
            int k = 0;
            rc = lhost_push(h, "push", &j, 1, 4, &k, z);
            if (!rc)
                rc = lhost_pull(h, "pull", &j, 1, z, k, NULL, &nb);
            if (rc)
                break;
            double delta = nb - s->beta[j];
            s->beta[j] = nb;
            rc = lhost_apply(h, "apply", &j, 1, NULL, &delta);
        }
    }
    if (rc)
        snprintf(s->failure, sizeof(s->failure), "%s", lhost_error(h));
    lhost_free(h);
out:
    if (rc && !s->failure[0])
        snprintf(s->failure, sizeof(s->failure), "%s", ptm_strerror(rc));
    ptm_csc_release(&cols);
    return NULL;
}

START_TEST(test_threads)
{
    struct lasso_data d;
    lasso_data(&d, 77);
    struct solo runs[2] = {{.d = &d, .lambda = d.lambda}, {.d = &d, .lambda = d.lambda / 2}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, solo_run, &runs[i]), 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(!runs[i].failure[0], "thread %d: %s", i, runs[i].failure);
        struct lasso_data di = d;
        di.lambda = runs[i].lambda;
        double ref[LD];
        lasso_reference(&di, ref);
        lasso_check(&di, runs[i].beta, ref);
    }
    ptm_csr_release(&d.x);
}
END_TEST

/* ---- allocation failure -------------------------------------------------------------------------
 */

/* Every allocation of setting up a host and running a hook, made to fail
 * in turn: the result is PTM_ENOMEM (or, for one that Lua retries after a
 * collection, success), never a crash or a leak. */
START_TEST(test_alloc_fail)
{
    const char *text = "function objective(w, job) local t = {} for i = 1, 100 do t[i] = i end "
                       "return w.v:sum() + job.c + #t end\n";
    double v[4] = {1, 2, 3, 4};
    unsigned long nth;
    for (nth = 1; nth < 20000; nth++) {
        ptm_fault_inject(nth);
        struct lhost_config cfg = {.workers = 1, .last = -1, .mem = 8 << 20};
        struct lhost *h = NULL;
        int rc = lhost_new(&h, &cfg);
        double x = 0;
        if (!rc)
            rc = lhost_load(h, "t.lua", text, strlen(text));
        if (!rc)
            rc = lhost_set_vector(h, "v", v, 4, false);
        if (!rc)
            rc = lhost_set_const_num(h, "c", 0.5);
        if (!rc)
            rc = lhost_objective(h, "objective", &x);
        ptm_fault_inject(0);
        ck_assert_msg(rc == 0 || rc == PTM_ENOMEM, "nth %lu: %s: %s", nth, ptm_strerror(rc),
                      h ? lhost_error(h) : "");
        if (h && rc == PTM_ENOMEM && lhost_failure(h) != LHOST_FAIL_NONE)
            ck_assert_int_eq(lhost_failure(h), LHOST_FAIL_MEMORY);
        lhost_free(h);
        if (rc == 0) {
            ck_assert(x == 10.5 + 100);
            break;
        }
    }
    ck_assert_uint_gt(nth, 50); /* failures were injected */
    ck_assert_uint_lt(nth, 20000);
}
END_TEST

/* The same for a round in bulk: push (a list of new vectors), pull (z,
 * a vector back), apply (d, a set view). */
START_TEST(test_alloc_fail_bulk)
{
    const char *text =
        "function push(w, S) local v = w.v:gather(S) return {v, v:copy():scale(2)} end\n"
        "function pull(S, z) return z[1]:add(z[2]) end\n"
        "function apply(w, S, d) w.X:cols(S):axpy(d, w.r) end\n";
    struct ptm_csr a;
    struct ptm_csc c;
    uint64_t s = 5;
    random_csr(&s, 8, 6, 0.5, &a);
    ck_assert_int_eq(ptm_csr_to_csc(&a, &c), 0);
    double v[6] = {1, 2, 3, 4, 5, 6}, r[8] = {0};
    int64_t blocks[] = {4, 1, 2};
    unsigned long nth;
    for (nth = 1; nth < 20000; nth++) {
        ptm_fault_inject(nth);
        struct lhost_config cfg = {.workers = 1, .last = 7, .mem = 8 << 20};
        struct lhost *h = NULL;
        double z[6], nb[3] = {0};
        int k = 0, rc = lhost_new(&h, &cfg);
        struct lhost_matrix m = {.csc = &c, .rows = 8, .cols = 6};
        if (!rc)
            rc = lhost_load(h, "t.lua", text, strlen(text));
        if (!rc)
            rc = lhost_set_vector(h, "v", v, 6, false);
        if (!rc)
            rc = lhost_set_vector(h, "r", r, 8, true);
        if (!rc)
            rc = lhost_set_matrix(h, "X", &m);
        if (!rc)
            rc = lhost_push(h, "push", blocks, 3, 2, &k, z);
        if (!rc)
            rc = lhost_pull(h, "pull", blocks, 3, z, k, NULL, nb);
        if (!rc)
            rc = lhost_apply(h, "apply", blocks, 3, NULL, nb);
        ptm_fault_inject(0);
        ck_assert_msg(rc == 0 || rc == PTM_ENOMEM, "nth %lu: %s: %s", nth, ptm_strerror(rc),
                      h ? lhost_error(h) : "");
        lhost_free(h);
        if (rc == 0) {
            ck_assert(nb[0] == 15 && nb[1] == 6 && nb[2] == 9);
            break;
        }
    }
    ck_assert_uint_gt(nth, 50);
    ck_assert_uint_lt(nth, 20000);
    ptm_csr_release(&a);
    ptm_csc_release(&c);
}
END_TEST

/* The save hook's value saved and loaded with each allocation made to fail
 * in turn: PTM_ENOMEM or success, never a crash or a leak. */
START_TEST(test_state_alloc_fail)
{
    const char *text = "function save(w) return {1, 2.5, 'abc', t = {x = true}} end\n"
                       "function load(w, t) got = t.t.x and t[3] end\n"
                       "function objective() return got == 'abc' and 1 or 0 end\n";
    unsigned long nth;
    for (nth = 1; nth < 20000; nth++) {
        struct lhost_config cfg = {.workers = 1, .last = -1, .mem = 8 << 20};
        struct lhost *a = NULL, *b = NULL;
        ck_assert_int_eq(lhost_new(&a, &cfg), 0);
        ck_assert_int_eq(lhost_new(&b, &cfg), 0);
        load_ok(a, text);
        load_ok(b, text);
        char *buf = NULL;
        size_t n = 0;
        double x = 0;
        ptm_fault_inject(nth);
        int rc = lhost_state_save(a, "save", &buf, &n);
        if (!rc)
            rc = lhost_state_load(b, "load", buf, n);
        ptm_fault_inject(0);
        ck_assert_msg(rc == 0 || rc == PTM_ENOMEM, "nth %lu: %s: %s / %s", nth, ptm_strerror(rc),
                      lhost_error(a), lhost_error(b));
        if (rc == 0) {
            ck_assert_int_eq(lhost_objective(b, "objective", &x), 0);
            ck_assert(x == 1);
        }
        ptm_free(buf);
        lhost_free(a);
        lhost_free(b);
        if (rc == 0)
            break;
    }
    ck_assert_uint_gt(nth, 5); /* failures were injected */
    ck_assert_uint_lt(nth, 20000);
}
END_TEST

/* ---- the suite
 * ------------------------------------------------------------------------------------ */

#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))

static Suite *lua_suite(void)
{
    Suite *s = suite_create("lua");
    TCase *tc;

    tc = tcase_create("sandbox");
    add_rows(tc, test_refused, refused_cases);
    tcase_add_test(tc, test_allowed);
    tcase_add_test(tc, test_predict);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_set_timeout(tc, 30);
    add_rows(tc, test_budget, loop_cases);
    tcase_add_test(tc, test_budget_message);
    tcase_add_test(tc, test_time_limit);
    add_rows(tc, test_memory_cap, bomb_cases);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_traceback);
    tcase_add_test(tc, test_load_errors);
    add_rows(tc, test_results, result_cases);
    tcase_add_test(tc, test_push_forms);
    tcase_add_test(tc, test_calls);
    tcase_add_test(tc, test_blocks);
    suite_add_tcase(s, tc);

    tc = tcase_create("objects");
    tcase_add_test(tc, test_vector_ops);
    add_rows(tc, test_vector_errors, vec_error_cases);
    tcase_add_test(tc, test_register);
    tcase_add_loop_test(tc, test_sparse_ops, 0, 4);
    add_rows(tc, test_sparse_errors, sparse_error_cases);
    tcase_add_loop_test(tc, test_rows, 0, 3);
    tcase_add_test(tc, test_limit);
    add_rows(tc, test_row_errors, row_error_cases);
    tcase_add_test(tc, test_push_block);
    tcase_add_loop_test(tc, test_bulk_ops, 0, 4);
    tcase_add_test(tc, test_new_vectors);
    tcase_add_loop_test(tc, test_lists, 0, 3);
    tcase_add_loop_test(tc, test_vector_bounds, 0, 3);
    tcase_add_test(tc, test_row_elements);
    tcase_add_test(tc, test_init);
    add_rows(tc, test_bulk_errors, bulk_error_cases);
    tcase_add_test(tc, test_vector_memory);
    tcase_add_test(tc, test_worker);
    tcase_add_test(tc, test_random);
    suite_add_tcase(s, tc);

    tc = tcase_create("state");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_state_roundtrip);
    tcase_add_test(tc, test_state_bytes);
    add_rows(tc, test_state_refused, save_refused_cases);
    add_rows(tc, test_state_corrupt, corrupt_cases);
    tcase_add_test(tc, test_state_mangled);
    tcase_add_test(tc, test_state_load);
    suite_add_tcase(s, tc);

    tc = tcase_create("lasso");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_lasso, 0, 2);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_alloc_fail);
    tcase_add_test(tc, test_alloc_fail_bulk);
    tcase_add_test(tc, test_state_alloc_fail);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lua_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
