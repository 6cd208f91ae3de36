/*
 * diag.h - sources, locations and the diagnostic sink.
 *
 * Locations are byte offsets into a source; line and column are computed
 * only when a diagnostic is rendered. Compiler stages never print: they add
 * to a sink and keep going, so one run reports many errors. Any error means
 * no result.
 */
#ifndef PTM_DIAG_H
#define PTM_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"

/* A half-open byte range [begin, end) of a source. */
struct ptm_loc {
    uint32_t begin, end;
};

/* Text of one input file. The text is NUL-terminated at len (and may hold
 * NUL bytes before that). */
struct ptm_source {
    char *name; /* as given by the user; owned */
    char *text; /* owned; two NUL bytes follow text[len - 1] */
    size_t len;
    uint32_t *lines; /* offsets of line starts, built on first render; owned */
    size_t nlines;
};

/* Largest input accepted, so offsets fit in 32 bits with room to spare. */
#define PTM_SOURCE_MAX ((size_t)1 << 30)

/* Read a whole file ("-" is stdin). On failure returns a negative PTM_E*
 * code and leaves a message in errbuf. Caller frees with ptm_source_release(). */
int ptm_source_read(struct ptm_source *src, const char *path, char *errbuf, size_t errlen);
/* Copy of a buffer, named name. Returns 0 or PTM_ENOMEM/PTM_ETOOBIG. */
int ptm_source_from(struct ptm_source *src, const char *name, const char *text, size_t len);
void ptm_source_release(struct ptm_source *src);

/* 1-based line and column (in characters) of a byte offset. */
void ptm_source_linecol(struct ptm_source *src, uint32_t off, unsigned *line, unsigned *col);

enum ptm_severity { PTM_SEV_ERROR, PTM_SEV_WARNING, PTM_SEV_NOTE };

struct ptm_diag {
    enum ptm_severity sev;
    struct ptm_loc loc;
    bool has_loc; /* false: about the whole file */
    const char *msg;
    struct ptm_diag *next;
};

/* Errors beyond this many are counted but not kept. */
#define PTM_DIAG_MAX_ERRORS 50

struct ptm_diags {
    struct arena *arena; /* borrows: messages live here */
    struct ptm_diag *head, **tail;
    unsigned nerrors;  /* every error, kept or not */
    unsigned ndropped; /* errors not kept past PTM_DIAG_MAX_ERRORS */
    bool oom;          /* a message could not be stored */
    bool dropping;     /* the last error was not kept: neither are its notes */
    bool quiet;        /* keep only the count (fuzzing) */
};

void diag_init(struct ptm_diags *d, struct arena *a);
/* Add a diagnostic at loc. Never fails: when memory is short the
 * diagnostic is counted and ->oom set. */
void diag_add(struct ptm_diags *d, enum ptm_severity sev, struct ptm_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_addv(struct ptm_diags *d, enum ptm_severity sev, struct ptm_loc loc, const char *fmt,
               va_list ap);
/* A diagnostic about the file as a whole (no line or column). */
void diag_file(struct ptm_diags *d, enum ptm_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True when the sink is full and a parse may as well stop. */
bool diag_full(const struct ptm_diags *d);

/* Render every diagnostic of d, GNU style:
 *   file:line:col: error: message
 *       source line
 *       ^^^^^
 * with ANSI colour when color is true. */
void ptm_diags_render(FILE *out, struct ptm_source *src, const struct ptm_diags *d, bool color);
void ptm_diag_render(FILE *out, struct ptm_source *src, const struct ptm_diag *g, bool color);

/* The closest of cands[0..n) to word within a small edit distance, or NULL. */
const char *diag_suggest(const char *word, size_t len, const char *const *cands, size_t n);

#endif
