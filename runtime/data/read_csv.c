/*
 * read_csv.c - comma-separated numbers, with an optional header line.
 *
 *   file   := [header] row*                (blank lines skipped anywhere)
 *   header := name ("," name)*             (name: text, or "quoted" with "" for ")
 *   row    := number ("," number)*         (as many as the first line has)
 *
 * Spaces and tabs around a field are ignored. The first non-blank line is
 * the header when opts.csv_header says so; AUTO decides by its content (a
 * field that is not a number makes it a header). Whatever the byte range,
 * that line is read first to learn the field count; it is a row of the
 * range only when it is data and starts inside the range. Rows go straight
 * into a dense row-major array; with opts.csv_labels the first field of
 * each row (or the one opts.csv_label names in the header) goes to the
 * labels instead.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "arena.h"
#include "data_impl.h"
#include "ptm.h"

struct table {
    double *val;
    int64_t vcap;
    double *labels;
    int64_t lcap;
    int64_t nrows;
    int64_t nfields;    /* on every line */
    int64_t ncols;      /* of the matrix: nfields without the label */
    int64_t label;      /* the field that is the label, or -1 */
    int64_t first_line; /* where nfields comes from */
};

static bool is_blank(const char *p, const char *e)
{
    while (p < e && data_isspace(*p))
        p++;
    return p == e;
}

static int64_t count_commas(const char *p, const char *e)
{
    int64_t n = 0;
    while ((p = memchr(p, ',', (size_t)(e - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* row := number ("," number)*. With report false (deciding whether the
 * first line is a header), only says whether it holds numbers. Returns 1
 * when the row is good (and stored when store), 0 when not, or
 * PTM_ENOMEM. */
static int parse_row(struct data_rd *rd, struct table *t, char *line, size_t n, bool report,
                     bool store)
{
    char *p = line, *e = line + n;
    int64_t ln = rd->in.lineno;
    double *row = NULL;
    if (store) {
        int64_t need = (t->nrows + 1) * t->ncols;
        if (data_grow((void **)&t->val, &t->vcap, need, sizeof(*t->val)) ||
            (t->label >= 0 &&
             data_grow((void **)&t->labels, &t->lcap, t->nrows + 1, sizeof(*t->labels))))
            return PTM_ENOMEM;
        row = t->val ? t->val + t->nrows * t->ncols : NULL;
    }
    for (int64_t f = 0; f < t->nfields; f++) {
        bool is_label = f == t->label;
        bool integer = rd->o->integer && !is_label && report;
        while (data_isspace(*p))
            p++;
        char *tok = p;
        double v;
        char *q = data_scan_double(tok, &v);
        p = q;
        while (data_isspace(*p))
            p++;
        if (q == tok || !isfinite(v) || (integer && !data_is_whole(v)) || !(p == e || *p == ',')) {
            if (!report)
                return 0;
            char *tokend = tok;
            while (tokend < e && *tokend != ',')
                tokend++;
            while (tokend > tok && data_isspace(tokend[-1]))
                tokend--;
            int64_t col = tok - line + 1;
            if (tokend == tok)
                data_error(rd, ln, col, "empty field");
            else if (*tok == '"')
                data_error(rd, ln, col, "quoted field '%s': data fields must be plain numbers",
                           data_quote(rd, 0, tok, (size_t)(tokend - tok)));
            else
                data_check_value(rd, ln, line, tok, tokend, q, v, integer,
                                 is_label ? "label" : "value");
            return 0;
        }
        if (f < t->nfields - 1 && p == e) {
            if (report)
                data_error(rd, ln, 0,
                           "%" PRId64 " field%s, expected %" PRId64 " (as on line %" PRId64 ")",
                           f + 1, f ? "s" : "", t->nfields, t->first_line);
            return 0;
        }
        if (f == t->nfields - 1 && p != e) {
            if (report)
                data_error(rd, ln, 0,
                           "%" PRId64 " fields, expected %" PRId64 " (as on line %" PRId64 ")",
                           t->nfields + count_commas(p, e), t->nfields, t->first_line);
            return 0;
        }
        p++;
        if (!store)
            continue;
        if (is_label)
            t->labels[t->nrows] = v;
        else
            *row++ = v;
    }
    if (store)
        t->nrows++;
    return 1;
}

/* header := name ("," name)*: counts the fields, and adds the names to w
 * when w is not NULL. Quoted names are unescaped in place. Returns 1 when
 * good, 0 when not (reported), or PTM_ENOMEM. */
static int parse_header(struct data_rd *rd, char *line, size_t n, struct data_words *w,
                        int64_t *nfields)
{
    char *p = line, *e = line + n;
    int64_t ln = rd->in.lineno;
    *nfields = 0;
    if (memchr(line, '\0', n)) {
        data_error(rd, ln, (int64_t)strlen(line) + 1, "NUL byte in the header");
        return 0;
    }
    for (;;) {
        while (p < e && data_isspace(*p))
            p++;
        char *s = p, *t;
        if (p < e && *p == '"') {
            char *out = s;
            for (p++;; p++) {
                if (p == e) {
                    data_error(rd, ln, s - line + 1,
                               "unterminated quoted field (fields may not span lines)");
                    return 0;
                }
                if (*p == '"') {
                    if (p + 1 < e && p[1] == '"')
                        p++;
                    else
                        break;
                }
                *out++ = *p;
            }
            t = out;
            p++;
            while (p < e && data_isspace(*p))
                p++;
            if (p < e && *p != ',') {
                data_error(rd, ln, p - line + 1, "unexpected '%s' after a quoted field",
                           data_quote(rd, 0, p, (size_t)(e - p)));
                return 0;
            }
        } else {
            while (p < e && *p != ',')
                p++;
            t = p;
            while (t > s && data_isspace(t[-1]))
                t--;
        }
        ++*nfields;
        if (w && data_words_add(w, s, (size_t)(t - s)))
            return PTM_ENOMEM;
        if (p == e)
            return 1;
        p++; /* the comma */
    }
}

/* Decide what the first non-blank line is and set the table up from it.
 * Returns 1 when reading can go on, 0 when not (reported), or a negative
 * code. */
static int first_line(struct data_rd *rd, struct table *t, struct ptm_dataset *ds)
{
    char *line;
    size_t n;
    int rc;
    while ((rc = data_next_line(rd, &line, &n)) == 1) {
        if (rd->in.start == 0 && n >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
            memset(line, ' ', 3); /* a UTF-8 byte order mark; columns stay true */
        if (!is_blank(line, line + n))
            break;
    }
    if (rc <= 0) {
        if (rc == 0 && !rd->nerrors)
            data_error(rd, 0, 0, "empty file");
        return rc;
    }
    t->first_line = rd->in.lineno;
    t->label = rd->o->csv_labels ? 0 : -1;
    bool header;
    if (rd->o->csv_header == PTM_CSV_HEADER_YES) {
        header = true;
    } else if (rd->o->csv_header == PTM_CSV_HEADER_NO || memchr(line, '"', n)) {
        header = rd->o->csv_header != PTM_CSV_HEADER_NO;
    } else {
        t->nfields = count_commas(line, line + n) + 1;
        header = parse_row(rd, t, line, n, false, false) == 0;
    }
    if (header) {
        struct data_words w;
        memset(&w, 0, sizeof(w));
        rc = parse_header(rd, line, n, &w, &t->nfields);
        if (rc == 1)
            rc = data_words_finish(&w, &ds->names) ? PTM_ENOMEM : 1;
        else
            data_words_release(&w);
        if (rc != 1)
            return rc;
    } else {
        t->nfields = count_commas(line, line + n) + 1;
    }
    if (rd->o->csv_labels && rd->o->csv_label) {
        /* the label column by its name in the header */
        if (!header) {
            data_error(rd, t->first_line, 0,
                       "the label column '%s' is named, but the file has no header line",
                       data_quote(rd, 0, rd->o->csv_label, strlen(rd->o->csv_label)));
            return 0;
        }
        t->label = -1;
        for (int64_t k = 0; k < ds->names.n && t->label < 0; k++)
            if (strcmp(ds->names.word[k], rd->o->csv_label) == 0)
                t->label = k;
        if (t->label < 0) {
            char list[256] = "";
            size_t used = 0;
            for (int64_t k = 0; k < ds->names.n && used + 4 < sizeof(list); k++)
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s'%s'",
                                         k ? ", " : "", ds->names.word[k]);
            data_error(rd, t->first_line, 0, "no column '%s' in the header (it has %s)",
                       data_quote(rd, 0, rd->o->csv_label, strlen(rd->o->csv_label)), list);
            return 0;
        }
    }
    t->ncols = t->nfields - (t->label >= 0);
    bool in_range = rd->in.start >= rd->begin && rd->in.start < rd->end;
    if (!header && in_range) {
        rc = parse_row(rd, t, line, n, true, true);
        if (rc < 0)
            return rc;
    } else if (!header) {
        rd->in.cut = true; /* a row left out: the range is not the whole file */
    }
    return 1;
}

int data_read_csv(struct data_rd *rd, struct ptm_dataset *ds)
{
    struct table t;
    memset(&t, 0, sizeof(t));
    int rc = first_line(rd, &t, ds);
    if (rc <= 0)
        goto out_free;
    rc = data_range_start(rd);
    char *line;
    size_t n;
    while (!rc && (rc = data_next_line(rd, &line, &n)) == 1) {
        rc = 0;
        if (!is_blank(line, line + n))
            rc = parse_row(rd, &t, line, n, true, !rd->nerrors);
        if (rc == 1)
            rc = 0;
    }
    if (rc)
        goto out_free;
    if (t.nrows == 0 && !rd->nerrors && data_read_whole(rd))
        data_error(rd, 0, 0, "no rows after the header");
    data_shrink((void **)&t.val, t.nrows * t.ncols, sizeof(*t.val));
    data_shrink((void **)&t.labels, t.nrows, sizeof(*t.labels));
    ds->sparse = false;
    ds->dense = (struct ptm_dense){.nrows = t.nrows, .ncols = t.ncols, .val = t.val};
    ds->has_labels = t.label >= 0;
    ds->labels = (struct ptm_vec){.n = t.label >= 0 ? t.nrows : 0, .val = t.labels};
    return 0;

out_free:
    ptm_free(t.val);
    ptm_free(t.labels);
    return rc;
}
