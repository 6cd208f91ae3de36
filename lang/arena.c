/*
 * arena.c - bump allocator and the one allocation entry point.
 *
 * Chunks grow geometrically so a compilation of any size makes O(log n)
 * calls to malloc; an allocation larger than a chunk gets a chunk of its
 * own. ptm_malloc() is where fault injection happens, so every allocation
 * of the compile path can be made to fail in tests.
 */
#include "arena.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

void *ptm_malloc(size_t size)
{
    if (fault_hit())
        return NULL;
    return malloc(size ? size : 1);
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
    return realloc(p, size ? size : 1);
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
