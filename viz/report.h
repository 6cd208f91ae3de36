/*
 * report.h - `ptm report` and `ptm run --report`: one self-contained HTML
 * page about a run, made from its trace (spec/runtime.md, Outputs): the
 * run's figures and why it stopped, its convergence curves, the schedule
 * picture of ptm plan (viz.h), the workers' load and the coordinator's
 * time, and the job.
 *
 * The page needs nothing but itself: CSS and SVG inline, no script, no
 * link to another file; it is well-formed XML as well as HTML.
 */
#ifndef PTM_REPORT_H
#define PTM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dryrun.h"

/* What the page draws beyond struct ptm_trace: each round's seconds,
 * updates, objective and metrics, and the run's end. Rounds are the
 * trace's lines with a "round", in order. */
struct ptm_report {
    size_t nrounds;
    int64_t *round;
    double *seconds;   /* NaN: not in the trace */
    double *updates;   /* through the round, summed; NaN: unknown */
    double *objective; /* NaN: not evaluated in the round */
    size_t damped;     /* rounds with a damping "step" */
    size_t offered;    /* rounds after which the policy was offered fewer blocks
                          ("offer") */
    int64_t offer_min; /* the fewest blocks offered (0: none was) */
    /* metrics: names, and each value with the round (index) it is of */
    char **metric;
    size_t nmetrics;
    size_t *mround;
    size_t *mindex;
    double *mvalue; /* NaN: null in the trace */
    size_t nmvalues;
    /* the run's end: the trace's last line {"stopped": ...}, when there */
    bool ended;
    char *stopped; /* why it stopped, as its last progress line says */
    char *job;     /* the job's file, or NULL */
    int64_t end_rounds, end_sweeps; /* -1: not given */
    double end_seconds, end_updates, end_objective; /* NaN: not given */
};

/* Read the report's part of a trace from f (named name in messages), a
 * trace ptm_trace_read() accepted. Returns 0 and *out (caller frees with
 * ptm_report_free()), PTM_EDATA with "NAME:LINE:COL: error: MESSAGE" in
 * err, PTM_EIO (a message in err) or PTM_ENOMEM. */
int ptm_report_read(FILE *f, const char *name, char *err, size_t errlen, struct ptm_report **out);
void ptm_report_free(struct ptm_report *r);

/* How the page describes where things came from. All borrowed. */
struct ptm_report_opts {
    const char *trace; /* the trace's file, shown; NULL: not kept */
    const char *job;   /* the job's file; NULL: the trace's "job", if any */
    const char *job_text; /* the job's text, embedded; NULL: not known */
    size_t job_len;
    bool job_cut;        /* job_text is only the start of the file */
    const char *failure; /* the run failed (or wrote no outputs): why; or NULL */
};

/* Write the page for the run whose trace gave t and r. 0, PTM_EIO (a
 * write failed) or PTM_ENOMEM. */
int ptm_report_html(FILE *out, const struct ptm_trace *t, const struct ptm_report *r,
                    const struct ptm_report_opts *o);

#endif
