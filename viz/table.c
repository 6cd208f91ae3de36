/*
 * table.c - the per-round table of `ptm plan`: what each worker did in
 * each round, its load and idle share, and the conflicts the scheduler
 * avoided; then each worker's totals.
 *
 * A worker's idle share in a round is 1 - its load / the round's largest:
 * in a dry run the largest load (the part of the round it would wait for
 * the slowest worker if time were load); in the trace of a run the
 * round's wall seconds, so that the time the coordinator spends alone
 * (scheduling, combining, evaluating) counts as idle. Over many rounds it
 * is the sum of the waits over the sum of the rounds' largest.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "ptm.h"
#include "viz.h"

/* Blocks listed on one line before the rest are counted. */
#define LIST_MAX 12

static void header(FILE *out, const struct ptm_trace *t)
{
    if (t->dry && ptm_trace_by_rows(t)) { /* data_parallel, method = tron */
        fprintf(out,
                "# dry run of %s%s%s%s%s: schedule %s, %d worker%s, %zu round%s\n"
                "# rows: the rows the worker sums in each pass of the round; idle: the share "
                "of the round it waits for the worker of the most rows\n",
                t->job ? "job '" : "", t->job ? t->job : "", t->job ? "' (" : "",
                t->source ? t->source : "?", t->job ? ")" : "", t->policy ? t->policy : "?",
                t->workers, t->workers == 1 ? "" : "s", t->nrounds, t->nrounds == 1 ? "" : "s");
    } else if (t->dry) {
        fprintf(out,
                "# dry run of %s%s%s%s%s: schedule %s over %s (%lld block%s), %d worker%s, "
                "%zu round%s, seed %llu\n",
                t->job ? "job '" : "", t->job ? t->job : "", t->job ? "' (" : "",
                t->source ? t->source : "?", t->job ? ")" : "", t->policy ? t->policy : "?",
                t->blockset ? t->blockset : "?", (long long)t->nblocks, t->nblocks == 1 ? "" : "s",
                t->workers, t->workers == 1 ? "" : "s", t->nrounds, t->nrounds == 1 ? "" : "s",
                (unsigned long long)t->seed);
        fprintf(out, "# simulation: %s\n", PTM_DRYRUN_MODEL);
        fprintf(out,
                "# cost: the sum of the costs of the worker's blocks (%s); idle: the "
                "share of the round it waits for the largest cost\n",
                t->has_cost ? "the block set's cost" : "1 a block: no cost statement");
    } else {
        fprintf(out, "# trace of a run, %s: %d worker%s, %zu round%s\n",
                t->source ? t->source : "?", t->workers, t->workers == 1 ? "" : "s", t->nrounds,
                t->nrounds == 1 ? "" : "s");
        fprintf(out, "# seconds: the worker's busy seconds in the round; idle: the share of "
                     "the round's wall seconds it was not busy (the coordinator scheduling, "
                     "combining or evaluating, or a slower worker)\n");
    }
    if (t->note)
        fprintf(out, "# note: %s\n", t->note);
}

double ptm_trace_span(const struct ptm_trace *t, size_t r)
{
    if (t->dry || r >= t->nrounds || isnan(t->rounds[r].seconds))
        return NAN;
    double prev = r > 0 ? t->rounds[r - 1].seconds : 0;
    return isnan(prev) ? NAN : fmax(t->rounds[r].seconds - prev, 0);
}

double ptm_trace_round_max(const struct ptm_trace *t, size_t r)
{
    size_t P = (size_t)t->workers;
    double m = 0;
    for (size_t p = 0; p < P; p++)
        m = fmax(m, t->load[r * P + p]);
    double span = ptm_trace_span(t, r);
    return isnan(span) ? m : fmax(m, span);
}

double ptm_trace_split(const struct ptm_trace *t, size_t r0, size_t r1, double part[5])
{
    double wall = 0;
    for (int k = 0; k < 5; k++)
        part[k] = 0;
    for (size_t r = r0; r < r1 && r < t->nrounds; r++) {
        const struct ptm_trace_round *rd = &t->rounds[r];
        double span = ptm_trace_span(t, r);
        if (!rd->has_time || isnan(span))
            continue;
        part[0] += rd->schedule;
        part[1] += rd->work;
        part[2] += rd->combine;
        part[3] += rd->evaluate;
        part[4] += fmax(span - (rd->schedule + rd->work + rd->combine + rd->evaluate), 0);
        wall += span;
    }
    return wall;
}

/* Where the coordinator's time went, over the rounds with a time split. */
static void coordinator(FILE *out, const struct ptm_trace *t)
{
    double part[5];
    double wall = ptm_trace_split(t, 0, t->nrounds, part);
    size_t n = 0;
    for (size_t r = 0; r < t->nrounds; r++)
        n += t->rounds[r].has_time && !isnan(ptm_trace_span(t, r));
    if (n == 0)
        return;
    static const char *const what[5] = {"scheduling", "the workers' phases", "combining",
                                        "objective", "other"};
    fprintf(out, "# coordinator over %zu round%s, %.6g s:", n, n == 1 ? "" : "s", wall);
    for (int k = 0; k < 5; k++)
        fprintf(out, "%s %s %.6g s (%.0f%%)", k ? "," : "", what[k], part[k],
                wall > 0 ? 100 * part[k] / wall : 0);
    fputc('\n', out);
}

static void list_blocks(FILE *out, const int64_t *b, size_t n)
{
    for (size_t i = 0; i < n && i < LIST_MAX; i++)
        fprintf(out, "%s%lld", i ? " " : "", (long long)b[i] + 1);
    if (n > LIST_MAX)
        fprintf(out, " ... (+%zu)", n - LIST_MAX);
}

int ptm_viz_table(FILE *out, const struct ptm_trace *t)
{
    if (t->clocks)
        return ptm_viz_clocks_table(out, t);
    size_t P = (size_t)t->workers;
    /* each round's largest load */
    double *most = ptm_malloc((t->nrounds ? t->nrounds : 1) * sizeof(double));
    if (!most)
        return PTM_ENOMEM;
    for (size_t r = 0; r < t->nrounds; r++)
        most[r] = ptm_trace_round_max(t, r);
    header(out, t);
    fprintf(out, "%6s %6s %10s %5s %9s  %s\n", "round", "worker", t->unit, "idle", "conflicts",
            "blocks");
    int64_t updates = 0, candidates = 0, conflicts = 0;
    bool known_cand = true, known_conf = true;
    double wait_all = 0, max_all = 0;
    for (size_t r = 0; r < t->nrounds; r++) {
        const struct ptm_trace_round *rd = &t->rounds[r];
        double m = most[r];
        for (size_t p = 0; p < P; p++) {
            size_t n;
            const int64_t *b = ptm_trace_blocks(t, r, (int)p, &n);
            double load = t->load[r * P + p];
            double idle = m > 0 ? 1 - load / m : 0;
            char round[24] = "", conf[24] = "";
            if (p == 0) {
                snprintf(round, sizeof(round), "%lld", (long long)rd->round);
                if (rd->conflicts >= 0)
                    snprintf(conf, sizeof(conf), "%lld", (long long)rd->conflicts);
                else
                    snprintf(conf, sizeof(conf), "-");
            }
            fprintf(out, "%6s %6zu %10.6g %4.0f%% %9s  ", round, p + 1, load, 100 * idle, conf);
            list_blocks(out, b, n);
            fputc('\n', out);
            updates += (int64_t)n;
            wait_all += m - load;
        }
        max_all += m;
        if (rd->candidates >= 0)
            candidates += rd->candidates;
        else
            known_cand = false;
        if (rd->conflicts >= 0)
            conflicts += rd->conflicts;
        else
            known_conf = false;
    }
    fprintf(out, "# per worker over %zu round%s:\n", t->nrounds, t->nrounds == 1 ? "" : "s");
    fprintf(out, "%6s %8s %10s %5s\n", "worker", "blocks", t->unit, "idle");
    for (size_t p = 0; p < P; p++) {
        size_t nb = 0;
        double load = 0, wait = 0;
        for (size_t r = 0; r < t->nrounds; r++) {
            size_t n;
            ptm_trace_blocks(t, r, (int)p, &n);
            nb += n;
            load += t->load[r * P + p];
            wait += most[r] - t->load[r * P + p];
        }
        fprintf(out, "%6zu %8zu %10.6g %4.0f%%\n", p + 1, nb, load,
                max_all > 0 ? 100 * wait / max_all : 0);
    }
    fprintf(out, "# %lld block update%s", (long long)updates, updates == 1 ? "" : "s");
    if (t->unlisted_updates > 0)
        fprintf(out,
                " (and %lld update%s the run counted in rounds whose blocks were not "
                "recorded)",
                (long long)t->unlisted_updates, t->unlisted_updates == 1 ? "" : "s");
    if (t->dry && !ptm_trace_by_rows(t))
        fprintf(out, " (%.3g sweep%s of %lld block%s)", t->sweeps, t->sweeps == 1 ? "" : "s",
                (long long)t->nblocks, t->nblocks == 1 ? "" : "s");
    if (known_cand)
        fprintf(out, ", %lld candidates", (long long)candidates);
    if (known_conf)
        fprintf(out, ", %lld conflicts avoided", (long long)conflicts);
    fprintf(out, ", idle share %.0f%%\n", max_all > 0 ? 100 * wait_all / (max_all * (double)P) : 0);
    coordinator(out, t);
    ptm_free(most);
    return ferror(out) ? PTM_EIO : 0;
}
