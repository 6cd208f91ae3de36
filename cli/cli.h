/*
 * cli.h - what cli/ptm.c (the command table, flags shared by commands,
 * loading a job) lends to the commands that live in files of their own.
 */
#ifndef PTM_CLI_H
#define PTM_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <stddef.h>

#include "compiler.h"
#include "engine.h"
#include "plan.h"

/* "ptm: " fmt (one %s, arg) and "try 'ptm help CMD'" on stderr; returns
 * PTM_EXIT_USAGE. */
int cli_usage_error(const char *fmt, const char *arg, const char *cmd);
/* The integer in text, all of it, within [lo, hi]; false when it is not. */
bool cli_parse_whole(const char *text, long long lo, long long hi, long long *out);
/* A size in bytes (a number, or one with K, M, G or T after it: 512M,
 * 4G, 1.5GiB) into *out; false when text is not one. */
bool cli_parse_size(const char *text, unsigned long long *out);
/* --straggler W:MS[:PROB] into *s (W 0: all); false with a usage message
 * in msg. */
bool cli_parse_straggler(const char *text, struct ptm_straggler *s, char *msg, size_t len);
/* --color=WHEN (auto, always, never): whether to colour diagnostics in
 * *color; false for another WHEN. */
bool cli_parse_color(const char *when, bool *color);
/* Read, parse and check a job spec ("-": standard input), or load a plan,
 * as `ptm check` does, with sets overriding its consts; diagnostics go to
 * stderr. Returns an exit code; on PTM_EXIT_OK *plan is set (caller frees
 * with plan_free()). */
int cli_load_job(const char *path, const struct ptm_set *sets, unsigned nsets, bool color,
                 struct ptm_plan **plan);
/* A file a command is about to write (given by flag; NULL: none) is not
 * the job, one of its data files or one of its outputs: else the message
 * on stderr and PTM_EXIT_USAGE. New files, devices and pipes pass. */
int cli_check_not_input(const char *flag, const char *out, const char *job,
                        const struct ptm_plan *plan);

/* ptm predict (cli/predict.c) */
int cli_predict(int argc, char **argv);
extern const char cli_predict_help[];

/* ptm plan (cli/plan.c) */
int cli_plan(int argc, char **argv);
extern const char cli_plan_help[];

/* ptm report (cli/report.c) */
int cli_report(int argc, char **argv);
extern const char cli_report_help[];
struct ptm_report_opts;
/* The page of the trace at path `trace` to out (NULL: standard output),
 * through a temporary file; messages on stderr. Returns an exit code. */
int cli_report_write(const char *out, const char *trace, const struct ptm_report_opts *o);
/* The text of a job file to show in a report, at most its first MiB (*cut
 * says it was cut); caller frees *text with ptm_free(). Returns an exit
 * code (a message on stderr). */
int cli_read_job_text(const char *path, char **text, size_t *len, bool *cut);

#endif
