/*
 * dot.c - the dependency graph of the scheduled blocks in Graphviz DOT
 * (ptm plan --dot): a node per block, an edge per conflict.
 *
 * Nodes are filled from white to dark blue by the block's priority after
 * the dry run (on a log scale when the priorities span more than a factor
 * of 100), or by cost when every priority is the same; the comments at
 * the top say which, and how the graph was cut (struct ptm_depgraph), and
 * the graph's label carries the same legend into the picture. A graph of
 * more than BIG_NODES blocks or BIG_EDGES conflicts asks for the sfdp
 * layout (dot's layered layout took minutes on the Lasso example's 500
 * blocks; sfdp seconds), which `dot -Tsvg` then uses too.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ptm.h"
#include "viz.h"

#define BIG_NODES 100
#define BIG_EDGES 300

/* A DOT string's contents: quotes and backslashes escaped, line breaks
 * and other control bytes as blanks. */
static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fputc('\\', out);
        fputc(c < 0x20 ? ' ' : c, out);
    }
}

/* A comment line: no line breaks in it. */
static void comment(FILE *out, const char *s)
{
    fputs("// ", out);
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
    fputc('\n', out);
}

static void range(const double *v, int64_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}

int ptm_viz_dot(FILE *out, const struct ptm_trace *t)
{
    const struct ptm_depgraph *g = t->graph;
    PTM_ASSERT(g);
    char line[4600];
    double lo, hi;
    const double *key = g->priority;
    const char *by = "priority after the dry run";
    range(g->priority, g->nnodes, &lo, &hi);
    if (!(hi > lo)) {
        key = g->cost;
        by = "cost";
        range(g->cost, g->nnodes, &lo, &hi);
    }
    bool shade = hi > lo;
    bool logscale = shade && lo > 0 && hi / lo > 100;

    snprintf(line, sizeof(line), "ptm plan: the dependency graph of block set '%s'%s%s%s (%s)",
             t->blockset ? t->blockset : "?", t->job ? " of job '" : "", t->job ? t->job : "",
             t->job ? "'" : "", t->source ? t->source : "?");
    comment(out, line);
    snprintf(line, sizeof(line), "nodes: blocks 1 to %lld of %lld; edges: conflicts, from %s",
             (long long)g->nnodes, (long long)t->nblocks, g->depend ? g->depend : "?");
    comment(out, line);
    if (shade)
        snprintf(line, sizeof(line), "fill: %s, white %.6g to dark blue %.6g%s", by, lo, hi,
                 logscale ? " on a log scale" : "");
    else
        snprintf(line, sizeof(line),
                 "fill: one colour (the blocks have one priority, %.6g, and one cost, %.6g)",
                 g->nnodes ? g->priority[0] : NAN, g->nnodes ? g->cost[0] : NAN);
    comment(out, line);
    if (t->policy && g->nedges && t->dry && strcmp(t->policy, "dynamic") != 0) {
        snprintf(line, sizeof(line), "the %s policy ignores dependencies; only dynamic uses them",
                 t->policy);
        comment(out, line);
    }
    if (g->nnodes < t->nblocks) {
        snprintf(line, sizeof(line),
                 "cut: only blocks 1 to %lld of %lld are drawn; their conflicts with later "
                 "blocks are not",
                 (long long)g->nnodes, (long long)t->nblocks);
        comment(out, line);
    }
    if (g->more_edges) {
        snprintf(line, sizeof(line),
                 "cut: only the first %zu conflicts in block order are drawn; there are more",
                 g->nedges);
        comment(out, line);
    }
    bool big = g->nnodes > BIG_NODES || g->nedges > BIG_EDGES;
    if (big) {
        snprintf(line, sizeof(line),
                 "layout: sfdp (more than %d blocks or %d conflicts: dot's layered layout "
                 "takes minutes on such a graph); `dot -Tsvg` uses it too",
                 BIG_NODES, BIG_EDGES);
        comment(out, line);
    }
    fprintf(out, "graph ptm {\n");
    fprintf(out, "  graph [labelloc=t, fontsize=12, overlap=false, outputorder=edgesfirst, %s"
                 "label=\"",
            big ? "layout=sfdp, " : "");
    snprintf(line, sizeof(line), "%s%s%s: blocks of %s (circles, numbered) and their conflicts "
             "(lines)", t->job ? "job '" : "", t->job ? t->job : "", t->job ? "'" : "blocks",
             t->blockset ? t->blockset : "?");
    esc(out, line);
    if (shade)
        snprintf(line, sizeof(line), "\\nfill: %s, white %.3g to dark blue %.3g%s", by, lo, hi,
                 logscale ? " (log scale)" : "");
    else
        snprintf(line, sizeof(line), "\\nfill: one colour (one priority and one cost)");
    fputs(line, out);
    if (g->nnodes < t->nblocks || g->more_edges) {
        snprintf(line, sizeof(line), "\\ncut to blocks 1 to %lld of %lld%s", (long long)g->nnodes,
                 (long long)t->nblocks, g->more_edges ? " and their first conflicts" : "");
        fputs(line, out);
    }
    fprintf(out, "\"];\n");
    fprintf(out, "  node [shape=circle, style=filled, fontsize=9, margin=0.02, "
                 "fontname=\"Helvetica\"];\n");
    fprintf(out, "  edge [color=\"#888888\"];\n");
    for (int64_t b = 0; b < g->nnodes; b++) {
        double x = 0;
        if (shade && isfinite(key[b]))
            x = logscale ? (log(key[b]) - log(lo)) / (log(hi) - log(lo))
                         : (key[b] - lo) / (hi - lo);
        x = x < 0 ? 0 : x > 1 ? 1 : x;
        /* white (247, 251, 255) to dark blue (8, 48, 107) */
        unsigned r = (unsigned)lround(247 + (8 - 247) * x),
                 gg = (unsigned)lround(251 + (48 - 251) * x),
                 bl = (unsigned)lround(255 + (107 - 255) * x);
        fprintf(out,
                "  %lld [label=\"%lld\", fillcolor=\"#%02x%02x%02x\", fontcolor=\"%s\", "
                "tooltip=\"block %lld: priority %.6g, cost %.6g\"];\n",
                (long long)b + 1, (long long)b + 1, r, gg, bl, x > 0.55 ? "white" : "black",
                (long long)b + 1, g->priority[b], g->cost[b]);
    }
    for (size_t e = 0; e < g->nedges; e++)
        fprintf(out, "  %lld -- %lld;\n", (long long)g->edges[2 * e] + 1,
                (long long)g->edges[2 * e + 1] + 1);
    fprintf(out, "}\n");
    return ferror(out) ? PTM_EIO : 0;
}
