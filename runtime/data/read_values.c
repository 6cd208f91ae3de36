/*
 * read_values.c - a parameter's values as `output` writes them, for a
 * parameter that starts from a file (`param ... = from "file"`).
 *
 *   file := row*          (no blank lines)
 *   row  := number (SEP number)*   SEP: tabs or spaces
 *
 * runtime/engine/outputs.c writes one row a line, a matrix's columns
 * separated by tabs, numbers as %.17g, which read back to the same bits.
 * Every line holds as many numbers as the first. The reader keeps only
 * the rows of one shard (a rank's or a worker's) and counts the others,
 * so that the caller can say how many rows the file has and compare it
 * with the parameter's size.
 */
#include <inttypes.h>
#include <string.h>

#include "arena.h"
#include "data_impl.h"
#include "ptm.h"

/* Count the fields of a line (spaces and tabs separate them). */
static int64_t count_fields(char *p, const char *e)
{
    int64_t n = 0;
    for (;;) {
        char *t, *s = data_next_token(&p, e, &t);
        if (s == t)
            return n;
        n++;
    }
}

static int read_values(struct data_rd *rd, const struct ptm_values_opts *vo,
                       struct ptm_values *out)
{
    int64_t lo = vo->lo < 0 ? 0 : vo->lo, hi = vo->hi < lo ? lo : vo->hi;
    int64_t cap = 0, first_line = 0;
    bool store = true;
    char *line;
    size_t n;
    int rc;
    while ((rc = data_next_line(rd, &line, &n)) == 1) {
        char *p = line, *e = line + n;
        int64_t ln = rd->in.lineno;
        int64_t nf = count_fields(line, e);
        if (nf == 0) {
            data_error(rd, ln, 0, "blank line: every line is a row of values");
            continue;
        }
        if (out->rows == 0 && first_line == 0) {
            out->cols = nf;
            first_line = ln;
            if (nf > rd->max_dim || (vo->cols > 0 && nf != vo->cols))
                store = false; /* the caller reports the shape; hold nothing */
        } else if (nf != out->cols) {
            data_error(rd, ln, 0, "%" PRId64 " value%s on this line, %" PRId64 " on line %" PRId64,
                       nf, nf == 1 ? "" : "s", out->cols, first_line);
            out->rows++;
            continue;
        }
        int64_t row = out->rows++;
        if (out->rows > rd->max_dim) {
            data_error(rd, ln, 0, "more than %" PRId64 " rows", rd->max_dim);
            break;
        }
        bool keep = store && row >= lo && row < hi;
        double *dst = NULL;
        if (keep) {
            if (data_grow((void **)&out->val, &cap, (row - lo + 1) * out->cols, sizeof(double)))
                return PTM_ENOMEM;
            dst = out->val + (row - lo) * out->cols;
        }
        for (int64_t f = 0; f < nf; f++) {
            char *t, *s = data_next_token(&p, e, &t);
            double v;
            char *q = data_scan_double(s, &v);
            if (!data_check_value(rd, ln, line, s, t, q, v, vo->integer, "value"))
                break;
            if (dst)
                dst[f] = v;
        }
        if (rd->stop)
            break;
    }
    return rc < 0 ? rc : 0;
}

static int read_any(struct data_rd *rd, const struct ptm_values_opts *vo, struct ptm_data_diags *dg,
                    struct ptm_values *out)
{
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.integer = vo->integer;
    rd->o = &o;
    rd->dg = dg;
    rd->begin = 0;
    rd->end = INT64_MAX;
    rd->max_dim = PTM_DATA_DIM_MAX;
    rd->int_what = "the parameter";
    int rc = data_range_start(rd);
    if (rc == 0)
        rc = read_values(rd, vo, out);
    if (rc == 0 && rd->nerrors)
        rc = PTM_EDATA;
    rd->o = NULL;
    if (rc != 0) {
        ptm_free(out->val);
        memset(out, 0, sizeof(*out));
    }
    return rc;
}

int ptm_data_read_values_mem(const char *buf, size_t len, const char *name,
                             const struct ptm_values_opts *vo, struct ptm_data_diags *dg,
                             struct ptm_values *out)
{
    memset(out, 0, sizeof(*out));
    struct data_rd rd;
    memset(&rd, 0, sizeof(rd));
    rd.name = name;
    int rc = data_lines_open(&rd.in, NULL, buf ? buf : "", buf ? len : 0, vo->chunk, 0);
    if (!rc)
        rc = read_any(&rd, vo, dg, out);
    data_lines_close(&rd.in);
    return rc;
}

int ptm_data_read_values(const char *path, const char *name, const struct ptm_values_opts *vo,
                         struct ptm_data_diags *dg, struct ptm_values *out)
{
    memset(out, 0, sizeof(*out));
    if (!name)
        name = path;
    FILE *f;
    int rc = data_open_input(path, name, dg, &f);
    if (rc)
        return rc;
    struct data_rd rd;
    memset(&rd, 0, sizeof(rd));
    rd.name = name;
    rc = data_lines_open(&rd.in, f, NULL, 0, vo->chunk, 0);
    if (!rc)
        rc = read_any(&rd, vo, dg, out);
    data_lines_close(&rd.in);
    if (f != stdin)
        fclose(f);
    return rc;
}
