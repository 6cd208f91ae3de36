/*
 * arena.h - bump allocation for the memory of one compilation, and
 * ptm_malloc(), the allocation entry point of every part of ptm, where
 * tests inject failures.
 *
 * AST nodes, interned names and diagnostics live in one arena and are freed
 * as a whole with arena_release(). Allocation returns NULL when memory runs
 * out; nothing is freed piecemeal.
 */
#ifndef PTM_ARENA_H
#define PTM_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head; /* newest chunk; older ones hang off ->prev */
    size_t total;             /* bytes obtained from malloc, for reports */
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);

/* Zeroed, aligned for any object; NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t size);
/* Copy of s[0..len) plus a terminating NUL; NULL when out of memory. */
char *arena_strndup(struct arena *a, const char *s, size_t len);

/* Once at the start of a program, before threads: blocks of 4 MiB and more
 * are mappings of their own that ask for huge pages (arena.c). */
void ptm_alloc_init(void);
/* Allocation with fault injection: tests make the Nth call fail. */
void *ptm_malloc(size_t size);
/* n zeroed elements of size bytes (calloc: the pages of a large block are
 * the system's zero pages until written, so a table nothing writes takes
 * no memory); n or size 0 gives one zeroed byte. */
void *ptm_calloc(size_t n, size_t size);
void *ptm_realloc(void *p, size_t size);
void ptm_free(void *p);

/* Make the nth future ptm_malloc/ptm_calloc/ptm_realloc call (1-based) and every one
 * after it fail; 0 turns injection off. Returns the number of calls counted
 * since the last reset (calls are counted only while injection is on).
 * For tests; set it before starting threads. */
unsigned long ptm_fault_inject(unsigned long nth);

#endif
