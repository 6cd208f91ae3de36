/* testutil.c - shared helpers of the table-driven suites (testutil.h). */
#include "testutil.h"

#include "arena.h"
#include "compiler.h"
#include "data.h"
#include "diag.h"
#include "engine.h"
#include "lang.h"
#include "ptm.h"

#include <check.h>
#include <math.h>
#include <dirent.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void tu_put_literal(FILE *out, const char *s, size_t n)
{
    if (n == 0) {
        fputs("    \"\"\n", out);
        return;
    }
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!open) {
            fputs("    \"", out);
            open = true;
        }
        switch (c) {
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(out, "\\%03o", c);
            else
                fputc(c, out);
        }
        if (c == '\n') {
            fputs("\"\n", out);
            open = false;
        }
    }
    if (open)
        fputs("\"\n", out);
}

void tu_expect_text(const char *table, int row, const char *actual, const char *expected,
                    const char *shown)
{
    if (expected && strcmp(actual, expected) == 0)
        return;
    if (!shown)
        shown = actual;
    fprintf(stderr, "@@ %s row %d: actual:\n", table, row);
    tu_put_literal(stderr, shown, strlen(shown));
    fprintf(stderr, "@@ end\n");
    if (!expected)
        ck_abort_msg("%s row %d: no expected text", table, row);
    size_t i = 0, line = 1;
    while (actual[i] && actual[i] == expected[i]) {
        if (actual[i] == '\n')
            line++;
        i++;
    }
    ck_abort_msg("%s row %d: output differs at line %zu, byte %zu", table, row, line, i);
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    ck_assert_ptr_nonnull(m);
    int c;
    while ((c = getc(f)) != EOF)
        putc(c, m);
    fclose(f);
    fclose(m);
    if (len)
        *len = cap;
    return buf;
}

void tu_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[8192];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (remove(path) != 0)
            tu_remove_tree(path);
    }
    closedir(d);
    rmdir(dir);
}

struct ptm_dataset *tu_read_data(const char *path, const struct ptm_data_opts *o)
{
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds = NULL;
    int rc = ptm_data_read(path, o, &dg, &ds);
    if (rc != 0)
        ptm_data_diags_print(stderr, &dg, false);
    ptm_data_diags_release(&dg);
    ck_assert_msg(rc == 0, "reading %s: %s", path, ptm_strerror(rc));
    return ds;
}

double tu_info_value(const char *dir, const char *key)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/info.tsv", dir);
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    size_t n = strlen(key);
    double v = NAN;
    for (char *line = text; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, key, n) == 0 && line[n] == '\t')
            v = strtod(line + n + 1, NULL);
    free(text);
    ck_assert_msg(!isnan(v), "no %s in %s", key, path);
    return v;
}

struct ptm_plan *tu_compile(const char *name, const char *text, const char *base_dir,
                            bool check_hooks)
{
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, name, text, strlen(text)), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    struct ast_job *job;
    struct ptm_plan *plan = NULL;
    int rc = ptm_parse(&src, &arena, &diags, &job);
    if (rc == 0) {
        struct ptm_compile_opts opts = {.base_dir = base_dir, .check_hooks = check_hooks};
        rc = ptm_compile(&src, job, &opts, &diags, &plan);
    }
    if (rc != 0)
        ptm_diags_render(stderr, &src, &diags, false);
    ck_assert_msg(rc == 0, "%s does not compile (%d)", name, rc);
    arena_release(&arena);
    ptm_source_release(&src);
    return plan;
}

struct ptm_run *tu_run_new(const struct ptm_plan *plan, const struct ptm_run_opts *o)
{
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_run *run;
    char err[4096];
    int rc = ptm_run_new(plan, o, &dg, err, sizeof(err), &run);
    if (rc != 0) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "ptm_run_new: %s\n", err);
    }
    ptm_data_diags_release(&dg);
    ck_assert_msg(rc == 0, "ptm_run_new: %s", ptm_strerror(rc));
    return run;
}

bool tu_verbose(void)
{
    const char *v = getenv("PTM_TEST_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}
