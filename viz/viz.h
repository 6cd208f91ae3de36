/*
 * viz.h - pictures and tables of a schedule (struct ptm_trace, from a dry
 * run or read back from the trace of a run): a text table, an SVG Gantt
 * chart and the dependency graph in Graphviz DOT; and the reader of a
 * run's trace (JSON lines, spec/runtime.md "Outputs").
 *
 * The renderers write to a FILE the caller opened (ptm plan writes files
 * through runtime/base/wfile.h) and return 0 or PTM_EIO when the stream shows
 * an error. They never print anything else.
 */
#ifndef PTM_VIZ_H
#define PTM_VIZ_H

#include <stddef.h>
#include <stdio.h>

#include "dryrun.h"

/* Messages ptm_trace_read() reports before it gives up. */
#define PTM_TRACE_MAX_ERRORS 10
/* Workers a trace may have. */
#define PTM_TRACE_MAX_WORKERS 4096

/* The per-round table: a header of '#' lines saying what the schedule is
 * and how load and idle share are counted, one line per round and worker
 * (round, worker, load, idle share, conflicts avoided, blocks), then the
 * totals of each worker. */
int ptm_viz_table(FILE *out, const struct ptm_trace *t);

/* A self-contained SVG Gantt chart: one row per worker, one column per
 * round, each worker's blocks as coloured segments (one colour per block,
 * the same in every round) over the share of the round it is busy, the
 * conflicts avoided above each round, every worker's total load and idle
 * share at the right, a title, axes and a legend. Too many rounds,
 * workers or block updates to draw one by one are aggregated, and the
 * picture says so. */
int ptm_viz_svg(FILE *out, const struct ptm_trace *t);

/* A dry run of data_parallel (t->clocks set), which ptm_viz_table() and
 * ptm_viz_svg() hand over to: each clock's start, duration, wait and the
 * age of its read, each worker's totals, and the totals under the job's
 * consistency against BSP; the picture is worker x time (viz/clocks.c). */
int ptm_viz_clocks_table(FILE *out, const struct ptm_trace *t);
int ptm_viz_clocks_svg(FILE *out, const struct ptm_trace *t);

/* t->graph (which must be set) as an undirected Graphviz graph: a node per
 * block labelled with its number and filled by priority (or by cost when
 * every priority is the same), an edge per conflict; comments at the top
 * say what is drawn and how it was cut. */
int ptm_viz_dot(FILE *out, const struct ptm_trace *t);

/* Read the trace of a run from f (named name in messages): one JSON object
 * a line, {"round": R, "seconds": T, "blocks": [...], "candidates": C,
 * "conflicts": K, "workers": [{"worker": 1, "blocks": [...], "seconds": S},
 * ...], "objective": F}; only round is required (blocks are there when
 * the run had --trace-blocks), other keys are skipped, blank lines are
 * ignored. Returns 0 and *out (caller frees with ptm_trace_free()), or
 * PTM_EDATA with up to PTM_TRACE_MAX_ERRORS lines "NAME:LINE:COL: error:
 * MESSAGE" (a syntax error) or "NAME:LINE: error: MESSAGE" in err, PTM_EIO (a message in err),
 * PTM_ETOOBIG (more than PTM_TRACE_MAX_ENTRIES block updates; a message in
 * err) or PTM_ENOMEM. */
int ptm_trace_read(FILE *f, const char *name, char *err, size_t errlen, struct ptm_trace **out);

/* Round r's wall seconds in the trace of a run (its seconds less the
 * previous round's), or NaN (a dry run, or no seconds). */
double ptm_trace_span(const struct ptm_trace *t, size_t r);
/* Where the coordinator's time went in rounds r0 .. r1-1 of a run's trace
 * (those with the time split and seconds): part[0..4] the seconds
 * scheduling, in the workers' phases, combining, evaluating, and the rest
 * of the rounds' wall seconds; returns their wall seconds (0: none). */
double ptm_trace_split(const struct ptm_trace *t, size_t r0, size_t r1, double part[5]);
/* The largest of round r's loads and, for a run, its wall seconds: what a
 * worker's load is a share of (what it did not work of it is idle). */
double ptm_trace_round_max(const struct ptm_trace *t, size_t r);

/* The colour of block b (0-based) in every picture: "#rrggbb". */
void ptm_viz_block_color(int64_t b, char out[8]);

#endif
