/*
 * lua_host.h - a worker's Lua state: the hook file, the objects hooks see,
 * and the calls of spec/runtime.md.
 *
 * One host per worker thread. A host is a sandboxed lua_State
 * (lua_sandbox.h) that holds the job's hook file, the objects the engine
 * registered, the worker's random number generators and the message of
 * the last failure. Hosts share nothing and take no lock: two threads may
 * use two hosts at once, never one host.
 *
 * What a hook sees. Indices are 1-based; row indices of shard objects are
 * local to the worker's shard (row 1 is the shard's first row).
 *
 *   w            the worker, read-only: w.id (1-based), w.workers,
 *                w.rows ({first, last}: the shard's global rows), w.round,
 *                w.sweep (whole sweeps done), w:random() (a float in
 *                [0, 1)), w:random(m) (an integer in 1..m), w:random(m, n),
 *                w:vector(n [, fill]) (a new vector of n values, fill or
 *                0), w:block(b) (the first and last unit, 1-based, of
 *                block b, when the engine registered blocks), and every
 *                registered object by its name: w.X, w.y, w.beta, w.r.
 *   vector       a view of a double array the engine owns, or a new vector
 *                (below): v[i], v[i] = x (when writable), #v, and methods.
 *                u is a vector of the same length (or, for dot and axpy, a
 *                sparse view of that size), S the block list:
 *                  v:dot(u), v:sum(), v:nnz() (elements != 0), v:norm2()
 *                  (the sum of squares), v:norm1() (of absolute values);
 *                  in place, returning v: v:axpy(a, u) (v += a u),
 *                  v:scale(a), v:fill(a), v:add(u), v:mul(u) (element by
 *                  element), v:div(u [, z]) (v[k] / u[k], or z where u[k]
 *                  is 0; without z a zero u[k] is an error and v is left
 *                  unchanged), v:soft(t) (sign(v) max(|v| - t, 0), t >= 0),
 *                  v:add(c), v:max(u), v:min(u) (element by element; u
 *                  or a number c; a NaN in u leaves v), v:clip(lo, hi),
 *                  v:scatter(S, u) (v[S[k]] = u[k], u of #S values);
 *                  v:mix(u, a, b, c, d) (v, u = a v + b u, c v + d u from
 *                  the old values; u is changed too);
 *                  new vectors: v:copy(), v:gather(S) (of v[S[k]]);
 *                  v:size() (rows and columns: a registered matrix's
 *                  shape, else #v and 1); W:row(i) (below).
 *                A new vector is writable and its doubles are in the Lua
 *                state, under its memory cap; it is garbage when no longer
 *                referenced, and a hook may keep one in a global (scratch,
 *                a cache).
 *   row view     W:row(i) of a registered vector W of rows x cols
 *                (lhost_set_table): its elements (i-1) cols + 1 .. i cols
 *                as a vector, in every vector method but W:row; #x,
 *                x[k] (element k, 1-based, bounds-checked) and x[k] = a.
 *                Like a sparse view it is a value that costs no
 *                allocation, reads W as the engine has it when used, and
 *                is writable when W is.
 *   matrix       a sparse matrix shard: X:col(j), X:row(i), X:row(i, b)
 *                (the entries of row i in the columns of block b, when
 *                the blocks cut X's columns), X:cols(S), X:rows(S),
 *                X:size() (the rows and columns of the whole matrix),
 *                X:colnnz() (a new vector: each column's entries over the
 *                whole matrix, every worker's rows, when registered).
 *   sparse view  x = X:col(j) or X:row(i [, b]): x:dot(v), x:axpy(a, v)
 *                (v += a x, returning v), x:nnz() (stored entries),
 *                x:norm2(), x:sum(), `for i, a in x:each()` over its
 *                entries (index, value), and `for i, a, t in x:each(T)`,
 *                t being T:row(i) of a registered vector T (a rating and
 *                its row of H). A view is a value: it costs no allocation,
 *                may be kept, and reads the matrix as the engine has it
 *                when used. A loop allocates its state once.
 *   set view     xs = X:cols(S) (X:rows(S)): column (row) S[k] for each k,
 *                reading S and the matrix at each use. xs:dot(v) (a new
 *                vector u, u[k] = x_{S[k]} . v), xs:norm2() and xs:nnz()
 *                (new vectors, one value per block), xs:axpy(a, v) (v +=
 *                sum over k of a[k] x_{S[k]}, a a number or a vector of #S
 *                values, zero a[k] skipped; returns v, which is unchanged
 *                when a block is out of range). X:cols(list),
 *                X:rows(list): the same over a list of the hook's (a
 *                table or a vector of whole numbers) instead of S, copied
 *                and checked against the matrix when made; #xs.
 *   S            the block list of push, pull and apply, read-only: #S,
 *                S[k] (the k-th block's 1-based number; nil past the end),
 *                ipairs(S). There is one per host, re-pointed at every
 *                call: a hook that keeps it sees the current call's blocks,
 *                none outside push, pull and apply.
 *   job          the job's consts by name (spec/plan.md, 3), a plain table
 *                passed as the last argument of every hook (pull has no
 *                worker object, and needs lambda).
 *
 * math.random draws from a second per-worker generator, seeded like the
 * first; math.randomseed needs a seed. Both generators are part of a
 * checkpoint (lhost_rng_get/set).
 *
 * Calls (spec/runtime.md; block numbers are 0-based in C, 1-based in Lua;
 * "in S order": value k belongs to block S[k]):
 *   push(w, S, job)          model-parallel; returns one of
 *                              {[b] = number or {K numbers}}    keyed by block
 *                              a vector of #S values           K = 1, in S order
 *                              {v1, ..., vK}, vectors of #S values:
 *                                block S[k]'s values are v1[k], ..., vK[k]
 *                            (a table whose [1] is a vector is the last form)
 *   pull(S, z, job)          model-parallel; z = {z1, ..., zK}, vectors of
 *                            #S values: zi[k] is block S[k]'s i-th sum.
 *                            Returns {[b] = value(s)} or, when every block
 *                            has one value, a vector of #S values in S order
 *   apply(w, S, d, job)      model-parallel; d holds the committed changes
 *                            in S order: a vector of #S values when every
 *                            block has one, else a list whose d[k] is the
 *                            list of block S[k]'s changes
 *   push(w, block, job)      rotation: the block the worker holds; the
 *                            engine limits the rotated parameter to its
 *                            rows (lhost_limit_rows) for the call
 *   push(w, first, last, job) data-parallel: the shard's rows first..last
 *                            of the minibatch; what it writes to a shared
 *                            parameter goes to the store as increments
 *   objective(w, job)        -> number
 *   init(w, job)             once per worker before the first round (the
 *                            engine decides what it may write)
 *   save(w, job)             a checkpoint: -> the hook file's own state
 *                            (lhost_state_save)
 *   load(w, t, job)          a resumed run: t is what save returned
 *   predict(w, job)          `ptm predict`: one worker holding every row of
 *                            the new data, the trained parameters read-only;
 *                            -> predictions (one a row), [{name = metric}]
 * z and apply's vector d are the host's copies, writable (a hook may
 * compute in them and return them) and, like S, emptied when the call
 * returns.
 *
 * Each call runs under the sandbox's instruction budget and wall-clock
 * limit, and the state under its memory cap. A call returns 0, or a
 * negative PTM_E* code with a message (lhost_error()) and its kind
 * (lhost_failure()): PTM_EINVAL for anything the hook did (an error, with
 * the Lua traceback; the budget; the time limit; the memory cap; a wrong
 * return value; a missing function), PTM_ENOMEM when the process itself
 * runs out of memory. After a failure the state stays usable: Lua unwinds
 * the call, and what the hook had allocated in it is garbage (collected at
 * once after a memory failure); globals the hook set stay set. A result is
 * read with raw accesses (a returned table's metatable is ignored); its
 * numbers must be finite.
 *
 * What a hook may not do: everything lua_sandbox.h refuses (files, code
 * loading, patterns, __gc, ...), write the worker object or the block
 * list, write a read-only vector, index out of range, or pass a vector of
 * the wrong size. It may keep globals between calls (a worker's own
 * cache, as examples/lasso/lasso.lua keeps squared norms), keep views and
 * vectors, print, and use coroutines.
 */
#ifndef PTM_LUA_HOST_H
#define PTM_LUA_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"

struct lhost;

/* Defaults for zero fields of struct lhost_config. */
#define LHOST_MEM_DEFAULT ((size_t)256 << 20)
#define LHOST_BUDGET_DEFAULT 1000000000L
#define LHOST_SECONDS_DEFAULT 60.0

/* Matrices one host can hold. */
#define LHOST_MAX_MATRICES 16
/* Words of generator state in a checkpoint (w:random, then math.random). */
#define LHOST_RNG_WORDS 8
/* Tables a value of the save hook may nest (lhost_state_save). */
#define LHOST_STATE_DEPTH 64

struct lhost_config {
    int id;              /* 0-based worker number; w.id is id + 1 */
    int workers;         /* P >= 1 */
    int64_t first, last; /* the shard's global rows, 0-based and inclusive
                            (last = first - 1: an empty shard) */
    uint64_t seed;       /* the job's seed */
    size_t mem;          /* bytes the state may hold; 0: LHOST_MEM_DEFAULT */
    long budget;         /* instructions per call; 0: LHOST_BUDGET_DEFAULT */
    double seconds;      /* wall-clock seconds per call; 0: LHOST_SECONDS_DEFAULT */
};

/* A sparse matrix shard. Both pointers are borrowed and must stay valid
 * while registered; the host reads through them at every use, so arrays
 * the engine replaces inside the same structs are seen at once. */
struct lhost_matrix {
    const struct ptm_csc *csc; /* the shard's columns, row indices local to
                                  the shard; NULL: no X:col */
    const struct ptm_csr *csr; /* the shard's rows; NULL: no X:row */
    int64_t rows, cols;        /* the whole matrix's, for X:size() */
    const double *colnnz;      /* cols values: each column's entries in the whole
                                  matrix, for X:colnnz(); NULL: none */
};

enum lhost_failure {
    LHOST_FAIL_NONE,
    LHOST_FAIL_LOAD,    /* the hook file: unreadable, or a syntax error */
    LHOST_FAIL_ERROR,   /* the hook raised an error (message: the traceback) */
    LHOST_FAIL_BUDGET,  /* the instruction budget ran out */
    LHOST_FAIL_TIME,    /* the wall-clock limit ran out */
    LHOST_FAIL_MEMORY,  /* the memory cap (PTM_EINVAL) or the process (PTM_ENOMEM) */
    LHOST_FAIL_RESULT,  /* a return value of the wrong type or shape */
    LHOST_FAIL_MISSING, /* no such function in the hook file */
    LHOST_FAIL_NAME,    /* a registered name taken by the worker object or
                           by an object of another kind, or too many matrices */
    LHOST_FAIL_STATE,   /* a saved state that is no encoding (lhost_state_load) */
};

/* ---- lifecycle ------------------------------------------------------------ */

/* A new host for one worker. Returns 0 or PTM_ENOMEM. Caller frees with
 * lhost_free(). */
int lhost_new(struct lhost **out, const struct lhost_config *cfg);
void lhost_free(struct lhost *h);

/* Run a hook file's text (never bytecode) in the state, named name in
 * messages ("name:LINE:"). The engine reads the file once and loads the
 * text into every worker's host. Borrows name and text. */
int lhost_load(struct lhost *h, const char *name, const char *text, size_t len);
/* The same, reading path. */
int lhost_load_file(struct lhost *h, const char *path);
/* The loaded file defines a global function fn. */
bool lhost_has(struct lhost *h, const char *fn);

/* ---- what hooks see ------------------------------------------------------- */

/* Register w[name] as a view of v[0 .. n). Registering a name again
 * re-points the same view (hooks that kept it see the new array, and
 * lifts a limit); the kind must stay the same. Borrows name and v. */
int lhost_set_vector(struct lhost *h, const char *name, double *v, int64_t n, bool writable);
/* The same for a matrix of rows x cols (row-major), whose rows hooks can
 * take as vectors: W:row(i). lhost_set_vector is this with cols 1. */
int lhost_set_table(struct lhost *h, const char *name, double *v, int64_t rows, int64_t cols,
                    bool writable);
/* Until name is registered again, hooks may use only rows lo .. hi-1 of
 * it (W:row(i), W[k] in them; writable or not), and not the whole: under
 * rotation, the rows of the block the worker holds, which no other worker
 * touches in the round. PTM_EINVAL (LHOST_FAIL_NAME) when no vector is
 * registered as name. */
int lhost_limit_rows(struct lhost *h, const char *name, int64_t lo, int64_t hi, bool writable);
/* The blocks of the schedule, for w:block(b) and X:row(i, b): block b
 * (0-based) is units lo[b] .. lo[b+1]-1 of the scheduled parameter (rows
 * of H under a rotation `H rows into workers`, which are the columns of
 * the ratings R). n <= 65534; n = 0: none. Borrows lo (n + 1 values). */
void lhost_set_blocks(struct lhost *h, const int64_t *lo, int64_t n);
/* Register w[name] as a matrix shard (copied; its arrays borrowed). */
int lhost_set_matrix(struct lhost *h, const char *name, const struct lhost_matrix *m);
/* job[name] = a const's value, a number or a string. Borrows both. */
int lhost_set_const_num(struct lhost *h, const char *name, double v);
int lhost_set_const_str(struct lhost *h, const char *name, const char *s);
/* w.round from the next call on. */
void lhost_set_round(struct lhost *h, int64_t round);
/* w.sweep (whole sweeps done, as the engine counts them) from the next
 * call on. */
void lhost_set_sweep(struct lhost *h, int64_t sweep);

/* ---- calls ---------------------------------------------------------------- */

/* Model-parallel push over n distinct blocks. Block i's K values go to
 * z[i K .. i K + K) (z holds n kmax doubles); K is *k when *k > 0 on entry
 * (what other workers returned), else what the hook returned (the count of
 * the first block's values, or of the vectors), at most kmax, and is
 * stored in *k. */
int lhost_push(struct lhost *h, const char *fn, const int64_t *blocks, size_t n, int kmax, int *k,
               double *z);
/* Model-parallel pull: z holds the summed K values of each block, as
 * push's z (the hook sees them as K vectors). Block i's new values go to
 * out[off[i] .. off[i + 1]) (off: n + 1 offsets; NULL: one value each). */
int lhost_pull(struct lhost *h, const char *fn, const int64_t *blocks, size_t n, const double *z,
               int k, const int64_t *off, double *out);
/* apply(w, S, d): block i's changes are change[off[i] .. off[i + 1])
 * (NULL off: one each). */
int lhost_apply(struct lhost *h, const char *fn, const int64_t *blocks, size_t n,
                const int64_t *off, const double *change);
/* Rotation: push(w, block + 1). */
int lhost_push_block(struct lhost *h, const char *fn, int64_t block);
/* Data-parallel: push(w, begin + 1, end) for the shard's local rows
 * [begin, end). */
int lhost_push_rows(struct lhost *h, const char *fn, int64_t begin, int64_t end);
/* objective(w): a finite number into *out. */
int lhost_objective(struct lhost *h, const char *fn, double *out);
/* A named number a hook returned. */
struct lhost_metric {
    char name[32];
    double value;
};

/* predict(w, job) of a trained model: its first result, a vector or a list
 * of n finite numbers (one a row of the data registered), into out; its
 * second, nil or a table {name = number} of at most maxm metrics, into
 * m[0 .. *nm) in name order. */
int lhost_predict(struct lhost *h, const char *fn, int64_t n, double *out, struct lhost_metric *m,
                  int maxm, int *nm);
/* init(w, job), once before the first round; what it returns is ignored. */
int lhost_init(struct lhost *h, const char *fn);
/* The parameters of the loaded file's global function fn (*vararg: it
 * takes `...` too), or -1 when fn is not a function. */
int lhost_params(struct lhost *h, const char *fn, bool *vararg);

/* ---- after a call --------------------------------------------------------- */

/* The last failure's message ("" after success); owned by h, valid until
 * the next call. */
const char *lhost_error(const struct lhost *h);
enum lhost_failure lhost_failure(const struct lhost *h);
/* Bytes the state holds now. */
size_t lhost_memory(const struct lhost *h);

/* ---- checkpoints ---------------------------------------------------------- */

/* The generators' state, for checkpoints. */
void lhost_rng_get(const struct lhost *h, uint64_t s[LHOST_RNG_WORDS]);
void lhost_rng_set(struct lhost *h, const uint64_t s[LHOST_RNG_WORDS]);
/* w.round and w.sweep as the engine last set them. */
int64_t lhost_round(const struct lhost *h);
int64_t lhost_sweep(const struct lhost *h);

/* The hook file's own state (spec/runtime.md, Lua hooks: save and load).
 * lhost_state_save calls save(w, job) and encodes the value it returns
 * (nil, booleans, integers, floats, strings and tables of those, a tree
 * at most LHOST_STATE_DEPTH tables deep, at most lhost_state_cap() bytes)
 * into *out, *len bytes (caller frees *out with ptm_free()); returns 0,
 * PTM_EINVAL (the hook failed, or returned what cannot be saved: the
 * message names the hook's file and line and where in the value) or
 * PTM_ENOMEM. lhost_state_load decodes such bytes into a value t and
 * calls load(w, t, job); returns 0, PTM_EDATA (buf is no encoding: the
 * message says what and at which byte; failure LHOST_FAIL_STATE, nothing
 * called), PTM_EINVAL (the hook failed, or the value exceeds the memory
 * cap) or PTM_ENOMEM. Neither call moves the generators: what the hooks
 * draw is not part of the run. Borrows buf. */
int lhost_state_save(struct lhost *h, const char *fn, char **out, size_t *len);
int lhost_state_load(struct lhost *h, const char *fn, const void *buf, size_t len);
/* The most bytes an encoded value may take in h: its memory cap. */
size_t lhost_state_cap(const struct lhost *h);

#endif
