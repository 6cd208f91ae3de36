/*
 * read_tsv.c - the tables a run writes (`output P to "p.tsv"`): a row a
 * line, the columns of a row separated by single tabs, each value a finite
 * number; every line has the field count of the first. Blank lines at the
 * end are allowed (a final newline), nowhere else: a table's rows are its
 * parameter's rows, and a blank line in between would shift them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "arena.h"
#include "data_impl.h"
#include "ptm.h"

/* The fields of one line, appended to *val from index at (grown); returns
 * their count, 0 when the line is bad (reported) or PTM_ENOMEM. */
static int64_t parse_line(struct data_rd *rd, char *line, size_t n, bool integer, double **val,
                          int64_t *cap, int64_t at)
{
    char *p = line, *e = line + n;
    int64_t k = 0;
    for (;;) {
        char *tok = p, *tokend = p;
        while (tokend < e && *tokend != '\t')
            tokend++;
        double v;
        char *q = data_scan_double(tok, &v);
        if (tokend == tok) {
            data_error(rd, rd->in.lineno, tok - line + 1, "empty field");
            return 0;
        }
        if (q != tokend || !isfinite(v) || (integer && !data_is_whole(v))) {
            data_check_value(rd, rd->in.lineno, line, tok, tokend, q, v, integer, "value");
            return 0;
        }
        if (data_grow((void **)val, cap, at + k + 1, sizeof(**val)))
            return PTM_ENOMEM;
        (*val)[at + k++] = v;
        if (tokend == e)
            return k;
        p = tokend + 1;
    }
}

int ptm_data_read_tsv(const char *path, bool integer, struct ptm_data_diags *dg,
                      struct ptm_table *out)
{
    memset(out, 0, sizeof(*out));
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    struct data_rd rd;
    memset(&rd, 0, sizeof(rd));
    rd.dg = dg;
    rd.name = strcmp(path, "-") ? path : "<stdin>";
    if (!f) {
        int e = errno;
        data_error(&rd, 0, 0, "cannot open: %s", strerror(e));
        return e == ENOENT ? PTM_ENOENT : PTM_EIO;
    }
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    rd.o = &o;
    rd.end = INT64_MAX;
    double *val = NULL;
    int64_t cap = 0, rows = 0, cols = -1, blank = 0, first = 0;
    int rc = data_lines_open(&rd.in, f, NULL, 0, 0, 0);
    char *line;
    size_t n;
    while (rc == 0 && !rd.stop && (rc = data_next_line(&rd, &line, &n)) == 1) {
        rc = 0;
        if (n == 0) {
            if (!blank)
                blank = rd.in.lineno;
            continue;
        }
        if (blank) {
            data_error(&rd, blank, 0, "blank line inside the table (a row a line)");
            blank = 0;
        }
        if (memchr(line, '\0', n)) {
            data_error(&rd, rd.in.lineno, (int64_t)strlen(line) + 1, "NUL byte");
            continue;
        }
        int64_t k = parse_line(&rd, line, n, integer, &val, &cap, rows * (cols > 0 ? cols : 0));
        if (k == PTM_ENOMEM) {
            rc = PTM_ENOMEM;
            break;
        }
        if (k == 0)
            continue;
        if (cols < 0) {
            cols = k;
            first = rd.in.lineno;
        } else if (k != cols) {
            data_error(&rd, rd.in.lineno, 0,
                       "%" PRId64 " field%s, expected %" PRId64 " (as on line %" PRId64 ")", k,
                       k == 1 ? "" : "s", cols, first);
            continue;
        }
        if (rows == INT32_MAX) {
            data_error(&rd, rd.in.lineno, 0, "more than %d rows", INT32_MAX);
            break;
        }
        rows++;
    }
    if (rc == 0 && rows == 0 && !rd.nerrors)
        data_error(&rd, 0, 0, "no rows: the table is empty");
    data_lines_close(&rd.in);
    if (f != stdin)
        fclose(f);
    if (rc == 0 && rd.nerrors)
        rc = PTM_EDATA;
    if (rc != 0) {
        ptm_free(val);
        return rc < 0 ? rc : PTM_EDATA;
    }
    out->rows = rows;
    out->cols = cols;
    out->val = val;
    return 0;
}
