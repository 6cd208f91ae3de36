/*
 * testutil.h - what the table-driven suites share: comparing a rendered
 * text with a row's expected text, reading files, compiling a job and
 * setting up a run.
 */
#ifndef PTM_TESTUTIL_H
#define PTM_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ck_assert for inner loops: libcheck records every passing ck_assert in a
 * file, which makes a million of them slow. */
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (!(c))                                                                                  \
            ck_abort_msg("line %d: %s", __LINE__, #c);                                             \
    } while (0)

/* PTM_TEST_VERBOSE is set (and not 0): suites print their figures. */
bool tu_verbose(void);

/* Write s[0..n) as C string literal lines, one per line of text, ready to
 * paste into a table row. */
void tu_put_literal(FILE *out, const char *s, size_t n);

/* Compare actual with expected. On a mismatch print `shown` (actual when
 * NULL) between "@@ TABLE row N: actual:" and "@@ end" as a C literal, and
 * fail the test at the first line that differs. */
void tu_expect_text(const char *table, int row, const char *actual, const char *expected,
                    const char *shown);

/* The whole file (NUL-terminated, from malloc), its length in *len when len
 * is not NULL; NULL when it cannot be opened. */
char *tu_read_file(const char *path, size_t *len);

/* Remove dir and everything under it (the temporary directories tests
 * make and run in). */
void tu_remove_tree(const char *dir);

struct ptm_data_opts;
/* The data set at path read with o; the test fails (with the readers'
 * messages on stderr) when it cannot be read. */
struct ptm_dataset *tu_read_data(const char *path, const struct ptm_data_opts *o);
/* The value of key in DIR/info.tsv (what ptm gen writes); the test fails
 * when it is missing. */
double tu_info_value(const char *dir, const char *key);

struct ptm_plan;
struct ptm_run;
struct ptm_run_opts;
/* The plan of the job in text, named name in its diagnostics, its files
 * found from base_dir, its Lua hooks loaded and checked when check_hooks;
 * the test fails (with the rendered diagnostics on stderr) when it does
 * not compile. Caller frees with plan_free(). */
struct ptm_plan *tu_compile(const char *name, const char *text, const char *base_dir,
                            bool check_hooks);
/* A run of plan (borrowed) set up with o; the test fails (with the data
 * diagnostics and the error on stderr) when it cannot be set up. Caller
 * frees with ptm_run_free(). */
struct ptm_run *tu_run_new(const struct ptm_plan *plan, const struct ptm_run_opts *o);

#endif
