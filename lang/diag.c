/*
 * diag.c - source files, the diagnostic sink and the one renderer.
 *
 * A diagnostic is stored with byte offsets; rendering turns them into a
 * 1-based line and a column counted in characters (a valid UTF-8 sequence
 * is one column, an invalid byte is one column), echoes the source line and
 * underlines the range. Very long lines are shown as a window around the
 * range so that a 1 MB line does not become a 1 MB message.
 */
#define _POSIX_C_SOURCE 200809L
#include "diag.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ptm.h"
#include "utf8.h"

/* ---- sources ------------------------------------------------------------ */

static int source_take(struct ptm_source *src, const char *name, char *text, size_t len)
{
    memset(src, 0, sizeof(*src));
    src->name = ptm_malloc(strlen(name) + 1);
    if (!src->name) {
        ptm_free(text);
        return PTM_ENOMEM;
    }
    strcpy(src->name, name);
    src->text = text;
    src->len = len;
    return 0;
}

int ptm_source_from(struct ptm_source *src, const char *name, const char *text, size_t len)
{
    memset(src, 0, sizeof(*src));
    if (len > PTM_SOURCE_MAX)
        return PTM_ETOOBIG;
    char *copy = ptm_malloc(len + 2);
    if (!copy)
        return PTM_ENOMEM;
    if (len)
        memcpy(copy, text, len);
    copy[len] = copy[len + 1] = '\0';
    return source_take(src, name, copy, len);
}

int ptm_source_read(struct ptm_source *src, const char *path, char *errbuf, size_t errlen)
{
    memset(src, 0, sizeof(*src));
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(errbuf, errlen, "cannot open '%s': %s", path, strerror(e));
        return e == ENOENT ? PTM_ENOENT : PTM_EIO;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = ptm_malloc(cap);
    int rc = 0;
    if (!buf) {
        rc = PTM_ENOMEM;
        goto out_close;
    }
    for (;;) {
        if (cap - len <= 2) {
            if (cap > PTM_SOURCE_MAX) {
                snprintf(errbuf, errlen, "'%s' is larger than %zu MiB", path,
                         PTM_SOURCE_MAX >> 20);
                rc = PTM_ETOOBIG;
                goto out_free;
            }
            char *nb = ptm_realloc(buf, cap * 2);
            if (!nb) {
                rc = PTM_ENOMEM;
                goto out_free;
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len - 2, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                snprintf(errbuf, errlen, "cannot read '%s': %s", path, strerror(errno));
                rc = PTM_EIO;
                goto out_free;
            }
            break;
        }
    }
    if (len > PTM_SOURCE_MAX) {
        snprintf(errbuf, errlen, "'%s' is larger than %zu MiB", path, PTM_SOURCE_MAX >> 20);
        rc = PTM_ETOOBIG;
        goto out_free;
    }
    buf[len] = buf[len + 1] = '\0';
    if (!is_stdin)
        fclose(f);
    rc = source_take(src, is_stdin ? "<stdin>" : path, buf, len);
    if (rc == PTM_ENOMEM)
        snprintf(errbuf, errlen, "%s", ptm_strerror(rc));
    return rc;
out_free:
    ptm_free(buf);
out_close:
    if (rc == PTM_ENOMEM)
        snprintf(errbuf, errlen, "%s", ptm_strerror(rc));
    if (!is_stdin)
        fclose(f);
    return rc;
}

void ptm_source_release(struct ptm_source *src)
{
    ptm_free(src->name);
    ptm_free(src->text);
    ptm_free(src->lines);
    memset(src, 0, sizeof(*src));
}

static uint32_t line_start_raw(struct ptm_source *src, uint32_t off, unsigned *lineno);

static void build_lines(struct ptm_source *src)
{
    size_t n = 1;
    for (size_t i = 0; i < src->len; i++)
        n += src->text[i] == '\n';
    uint32_t *lines = ptm_malloc(n * sizeof(*lines));
    if (!lines)
        return; /* fall back to scanning */
    size_t k = 0;
    lines[k++] = 0;
    for (size_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n')
            lines[k++] = (uint32_t)(i + 1);
    src->lines = lines;
    src->nlines = n;
}

/* Start offset and 1-based number of the line holding off; a byte-order
 * mark is not part of the first line. */
static uint32_t line_start(struct ptm_source *src, uint32_t off, unsigned *lineno)
{
    uint32_t start = line_start_raw(src, off, lineno);
    if (start == 0 && off >= 3 && src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0)
        start = 3;
    return start;
}

static uint32_t line_start_raw(struct ptm_source *src, uint32_t off, unsigned *lineno)
{
    if (!src->lines)
        build_lines(src);
    if (src->lines) {
        size_t lo = 0, hi = src->nlines; /* lines[lo] <= off < lines[hi] */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (src->lines[mid] <= off)
                lo = mid;
            else
                hi = mid;
        }
        *lineno = (unsigned)lo + 1;
        return src->lines[lo];
    }
    uint32_t start = 0;
    unsigned n = 1;
    for (uint32_t i = 0; i < off; i++)
        if (src->text[i] == '\n') {
            n++;
            start = i + 1;
        }
    *lineno = n;
    return start;
}

/* Characters in text[from, to). */
static unsigned count_chars(const char *text, uint32_t from, uint32_t to)
{
    unsigned n = 0;
    while (from < to) {
        int k = utf8_seq((const unsigned char *)text + from, to - from, NULL);
        from += k > 0 ? (uint32_t)k : 1;
        n++;
    }
    return n;
}

/* An offset at the very end, after a final newline, is shown at the end of
 * the last line: "unexpected end of file" belongs where the text stops. */
static uint32_t clamp_offset(const struct ptm_source *src, uint32_t off)
{
    if (off > src->len)
        off = (uint32_t)src->len;
    if (off == src->len && off > 0 && src->text[off - 1] == '\n')
        off--;
    /* A CRLF line ends at its '\r'. */
    if (off > 0 && off < src->len && src->text[off] == '\n' && src->text[off - 1] == '\r')
        off--;
    return off;
}

void ptm_source_linecol(struct ptm_source *src, uint32_t off, unsigned *line, unsigned *col)
{
    off = clamp_offset(src, off);
    uint32_t start = line_start(src, off, line);
    *col = count_chars(src->text, start, off) + 1;
}

/* ---- the sink ----------------------------------------------------------- */

void diag_init(struct ptm_diags *d, struct arena *a)
{
    memset(d, 0, sizeof(*d));
    d->arena = a;
    d->tail = &d->head;
}

bool diag_full(const struct ptm_diags *d) { return d->nerrors >= PTM_DIAG_MAX_ERRORS; }

static void diag_store(struct ptm_diags *d, enum ptm_severity sev, struct ptm_loc loc,
                       bool has_loc, const char *fmt, va_list ap)
{
    if (sev == PTM_SEV_ERROR) {
        d->dropping = d->nerrors >= PTM_DIAG_MAX_ERRORS;
        d->nerrors++;
        if (d->dropping) {
            d->ndropped++;
            return;
        }
    } else if (sev == PTM_SEV_NOTE && d->dropping) {
        return; /* the note of an error not kept */
    } else {
        d->dropping = false;
    }
    if (d->quiet)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    struct ptm_diag *g = arena_alloc(d->arena, sizeof(*g));
    char *msg = n >= 0 ? arena_alloc(d->arena, (size_t)n + 1) : NULL;
    if (!g || !msg) {
        d->oom = true;
        return;
    }
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    g->sev = sev;
    g->loc = loc;
    g->has_loc = has_loc;
    g->msg = msg;
    *d->tail = g;
    d->tail = &g->next;
}

void diag_addv(struct ptm_diags *d, enum ptm_severity sev, struct ptm_loc loc, const char *fmt,
               va_list ap)
{
    diag_store(d, sev, loc, true, fmt, ap);
}

void diag_add(struct ptm_diags *d, enum ptm_severity sev, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_store(d, sev, loc, true, fmt, ap);
    va_end(ap);
}

void diag_file(struct ptm_diags *d, enum ptm_severity sev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_store(d, sev, (struct ptm_loc){0, 0}, false, fmt, ap);
    va_end(ap);
}

/* ---- rendering ---------------------------------------------------------- */

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAGENTA "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_RESET "\033[0m"

enum { WINDOW = 100, LONG_LINE = 120, CONTEXT = 40 };

/* Print one source character (or invalid byte) so that it takes exactly one
 * column, tabs excepted. Returns the bytes consumed. */
static int put_char(FILE *out, const char *p, size_t n)
{
    unsigned char c = (unsigned char)*p;
    if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
        fputc(c, out);
        return 1;
    }
    uint32_t cp;
    int k = utf8_seq((const unsigned char *)p, n, &cp);
    if (k > 1 && cp >= 0xa0) {
        fwrite(p, 1, (size_t)k, out);
        return k;
    }
    fputc('?', out); /* control character, NUL or invalid byte */
    return k > 0 ? k : 1;
}

static void render_excerpt(FILE *out, struct ptm_source *src, uint32_t begin, uint32_t end,
                           bool color)
{
    unsigned lineno;
    uint32_t start = line_start(src, begin, &lineno);
    uint32_t stop = start;
    while (stop < src->len && src->text[stop] != '\n')
        stop++;
    if (stop > start && src->text[stop - 1] == '\r')
        stop--;
    if (end > stop)
        end = stop;
    if (end < begin)
        end = begin;

    /* The window [wfrom, wto) of the line that is shown. */
    unsigned linechars = count_chars(src->text, start, stop);
    uint32_t wfrom = start, wto = stop;
    if (linechars > LONG_LINE) {
        unsigned skip = 0, before = count_chars(src->text, start, begin);
        if (before > CONTEXT)
            skip = before - CONTEXT;
        for (unsigned i = 0; i < skip; i++) {
            int k = utf8_seq((const unsigned char *)src->text + wfrom, stop - wfrom, NULL);
            wfrom += k > 0 ? (uint32_t)k : 1;
        }
        wto = wfrom;
        for (unsigned i = 0; i < WINDOW && wto < stop; i++) {
            int k = utf8_seq((const unsigned char *)src->text + wto, stop - wto, NULL);
            wto += k > 0 ? (uint32_t)k : 1;
        }
    }
    if (wto == wfrom && begin >= stop && wfrom == start && stop == start)
        return; /* an empty line: nothing to point into */

    fputs("    ", out);
    if (wfrom > start)
        fputs("...", out);
    for (uint32_t i = wfrom; i < wto;)
        i += (uint32_t)put_char(out, src->text + i, wto - i);
    if (wto < stop)
        fputs("...", out);
    fputc('\n', out);

    fputs("    ", out);
    if (wfrom > start)
        fputs("   ", out);
    for (uint32_t i = wfrom; i < begin && i < wto;) {
        fputc(src->text[i] == '\t' ? '\t' : ' ', out);
        int k = utf8_seq((const unsigned char *)src->text + i, wto - i, NULL);
        i += k > 0 ? (uint32_t)k : 1;
    }
    if (color)
        fputs(C_GREEN, out);
    unsigned carets = 0;
    for (uint32_t i = begin; i < end && i < wto;) {
        int k = utf8_seq((const unsigned char *)src->text + i, end - i, NULL);
        i += k > 0 ? (uint32_t)k : 1;
        carets++;
    }
    if (carets == 0)
        carets = 1;
    for (unsigned i = 0; i < carets; i++)
        fputc('^', out);
    if (color)
        fputs(C_RESET, out);
    fputc('\n', out);
}

void ptm_diag_render(FILE *out, struct ptm_source *src, const struct ptm_diag *g, bool color)
{
    static const char *const sevname[] = {"error", "warning", "note"};
    static const char *const sevcolor[] = {C_RED, C_MAGENTA, C_CYAN};
    const char *name = src && src->name ? src->name : "<input>";
    if (color)
        fputs(C_BOLD, out);
    if (g->has_loc && src) {
        unsigned line, col;
        uint32_t begin = clamp_offset(src, g->loc.begin);
        ptm_source_linecol(src, begin, &line, &col);
        fprintf(out, "%s:%u:%u: ", name, line, col);
    } else {
        fprintf(out, "%s: ", name);
    }
    if (color)
        fprintf(out, C_RESET "%s%s:" C_RESET " %s\n", sevcolor[g->sev], sevname[g->sev], g->msg);
    else
        fprintf(out, "%s: %s\n", sevname[g->sev], g->msg);
    if (g->has_loc && src) {
        uint32_t begin = clamp_offset(src, g->loc.begin);
        uint32_t end = g->loc.end > src->len ? (uint32_t)src->len : g->loc.end;
        render_excerpt(out, src, begin, end, color);
    }
}

/* An error or warning with the notes that follow it. */
struct diag_group {
    const struct ptm_diag *first;
    size_t seq;
};

static int group_cmp(const void *a, const void *b)
{
    const struct diag_group *x = a, *y = b;
    uint32_t kx = x->first->has_loc ? x->first->loc.begin + 1 : 0;
    uint32_t ky = y->first->has_loc ? y->first->loc.begin + 1 : 0;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ptm_diags_render(FILE *out, struct ptm_source *src, const struct ptm_diags *d, bool color)
{
    /* In source order (a note stays with its diagnostic); file-level
     * diagnostics first. Without memory for sorting, in the order found. */
    size_t n = 0;
    for (const struct ptm_diag *g = d->head; g; g = g->next)
        n += g == d->head || g->sev != PTM_SEV_NOTE;
    struct diag_group *groups = n ? ptm_malloc(n * sizeof(*groups)) : NULL;
    if (groups) {
        size_t k = 0;
        for (const struct ptm_diag *g = d->head; g; g = g->next)
            if (g == d->head || g->sev != PTM_SEV_NOTE) {
                groups[k].first = g;
                groups[k].seq = k;
                k++;
            }
        qsort(groups, n, sizeof(*groups), group_cmp);
        for (size_t i = 0; i < n; i++) {
            const struct ptm_diag *g = groups[i].first;
            do {
                ptm_diag_render(out, src, g, color);
                g = g->next;
            } while (g && g->sev == PTM_SEV_NOTE);
        }
        ptm_free(groups);
    } else {
        for (const struct ptm_diag *g = d->head; g; g = g->next)
            ptm_diag_render(out, src, g, color);
    }
    const char *name = src && src->name ? src->name : "<input>";
    if (d->ndropped)
        fprintf(out, "%s: note: %u more error%s not shown\n", name, d->ndropped,
                d->ndropped == 1 ? "" : "s");
    if (d->oom)
        fprintf(out, "%s: error: out of memory while reporting errors\n", name);
}

/* ---- suggestions -------------------------------------------------------- */

/* Optimal string alignment distance, capped: returns cap + 1 when larger. */
static unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb, unsigned cap)
{
    enum { MAXW = 32 };
    if (la > MAXW || lb > MAXW)
        return cap + 1;
    unsigned d[MAXW + 1][MAXW + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned cost = a[i - 1] != b[j - 1];
            unsigned v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb] > cap ? cap + 1 : d[la][lb];
}

const char *diag_suggest(const char *word, size_t len, const char *const *cands, size_t n)
{
    unsigned cap = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    const char *best = NULL;
    unsigned bestd = cap + 1;
    for (size_t i = 0; i < n; i++) {
        size_t cl = strlen(cands[i]);
        if (cl == len && memcmp(cands[i], word, len) == 0)
            continue;
        unsigned dist = edit_distance(word, len, cands[i], cl, cap);
        if (dist < bestd && dist < cl) {
            bestd = dist;
            best = cands[i];
        }
    }
    return best;
}
