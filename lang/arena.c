/*
 * arena.c - bump allocator and the one allocation entry point.
 *
 * Chunks grow geometrically so a compilation of any size makes O(log n)
 * calls to malloc; an allocation larger than a chunk gets a chunk of its
 * own. ptm_malloc() is where fault injection happens, so every allocation
 * of the compile path can be made to fail in tests.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "arena.h"

#include <malloc.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ptm.h"

struct arena_chunk {
    struct arena_chunk *prev;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
};

/* GLOBAL: test-only fault injection, set by tests before threads start;
 * atomic because every thread's allocations count. */
static _Atomic unsigned long fault_nth, fault_calls;

unsigned long ptm_fault_inject(unsigned long nth)
{
    unsigned long calls = atomic_exchange_explicit(&fault_calls, 0, memory_order_relaxed);
    atomic_store_explicit(&fault_nth, nth, memory_order_relaxed);
    return calls;
}

static int fault_hit(void)
{
    unsigned long nth = atomic_load_explicit(&fault_nth, memory_order_relaxed);
    if (nth == 0)
        return 0;
    return atomic_fetch_add_explicit(&fault_calls, 1, memory_order_relaxed) + 1 >= nth;
}

/* Fresh pages cost a fault each, and on a virtual machine a fault of a 4
 * KiB page costs microseconds: touching 64 MiB took 0.2 s, against 8 ms
 * in huge pages (2 MiB). Where the kernel gives huge pages only on request
 * (transparent_hugepage "madvise", Debian's default) ptm asks for them for
 * a block of HUGE_MIN bytes or more (the arrays of a data set, a worker's
 * residual), once ptm_alloc_init has run (elsewhere the advice is a
 * no-op). Such a block is a mapping of its own, and the advice covers the
 * whole mapping: advice on a part would split it, and a split mapping
 * cannot grow by mremap, so realloc would copy it. Not for ptm_calloc: its
 * large blocks stay the zero page until written.
 *
 * The heap's smaller blocks were advised too, tried and dropped: its 2 MiB
 * ranges are rarely untouched when a block lands in them unless the heap
 * grows in large steps (M_TOP_PAD), which also sets what it keeps of freed
 * memory: the Lasso example's set-up took 20 ms less and its peak rose 7%
 * (71.5 to 76.9 MiB). */
enum { HUGE_MIN = 4 << 20 };

/* GLOBAL: the page size once ptm_alloc_init ran (before any thread starts),
 * else 0 and no advice. */
static uintptr_t page_size;

static void *want_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    if (p && size >= HUGE_MIN && page_size) {
        uintptr_t a = (uintptr_t)p & ~(page_size - 1);
        (void)madvise((void *)a, (uintptr_t)p + size - a, MADV_HUGEPAGE); /* advice only */
    }
#endif
    return p;
}

void ptm_alloc_init(void)
{
#ifdef M_MMAP_THRESHOLD
    /* Blocks of HUGE_MIN bytes and more are mappings, always: under
     * glibc's moving threshold they came from the heap after the first was
     * freed, and a realloc that grows copied them. Mapped, they grow in
     * place or move without a copy (mremap). */
    if (mallopt(M_MMAP_THRESHOLD, HUGE_MIN) == 1) {
        long ps = sysconf(_SC_PAGESIZE);
        page_size = ps > 0 ? (uintptr_t)ps : 0;
    }
#endif
}

void *ptm_malloc(size_t size)
{
    if (fault_hit())
        return NULL;
    return want_huge(malloc(size ? size : 1), size);
}

void *ptm_calloc(size_t n, size_t size)
{
    if (fault_hit())
        return NULL;
    return n && size ? calloc(n, size) : calloc(1, 1);
}

void *ptm_realloc(void *p, size_t size)
{
    if (fault_hit())
        return NULL;
    return want_huge(realloc(p, size ? size : 1), size);
}

void ptm_free(void *p) { free(p); }

void arena_init(struct arena *a)
{
    a->head = NULL;
    a->total = 0;
}

void arena_release(struct arena *a)
{
    struct arena_chunk *c = a->head;
    while (c) {
        struct arena_chunk *prev = c->prev;
        ptm_free(c);
        c = prev;
    }
    a->head = NULL;
    a->total = 0;
}

enum { ALIGN = alignof(max_align_t), FIRST_CHUNK = 4096 - 64 };

void *arena_alloc(struct arena *a, size_t size)
{
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size == 0)
        size = ALIGN;
    struct arena_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t want = c ? c->size * 2 : FIRST_CHUNK;
        bool own = size > want / 4; /* big: a chunk of its own, keep the head */
        if (own)
            want = size;
        if (want > SIZE_MAX - sizeof(*c))
            return NULL;
        struct arena_chunk *n = ptm_malloc(sizeof(*n) + want);
        if (!n)
            return NULL;
        n->size = want;
        n->used = 0;
        if (own && c) {
            n->prev = c->prev;
            c->prev = n;
        } else {
            n->prev = c;
            a->head = n;
        }
        a->total += want;
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
