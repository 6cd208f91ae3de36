/*
 * plan.c - `ptm plan`: dry-run a job's scheduler, or read the trace of a
 * run, and show the schedule as a table, an SVG Gantt chart and the
 * dependency graph in DOT (spec/plan-command.md).
 *
 * Exit codes as the other commands: 0 ok, 1 failed (the plan cannot be
 * dry-run, an output cannot be written, out of memory), 2 usage (a bad
 * flag, an unreadable input file), 3 the job has errors, 4 bad data (a
 * data file of the job, its dependency file, or a malformed trace).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "data.h"
#include "dryrun.h"
#include "ptm.h"
#include "viz.h"
#include "wfile.h"

#define ROUNDS_DEFAULT 20
#define ROUNDS_MAX 100000
#define DOT_NODES 500
#define DOT_EDGES 5000

const char cli_plan_help[] =
    "usage: ptm plan [--rounds N] [--workers N] [--seed N] [--set NAME=VALUE]...\n"
    "                [--memory-limit SIZE] [--straggler W:MS[:PROB]]...\n"
    "                [--svg FILE] [--dot FILE] [--color=WHEN] JOB.ptm|PLAN.yaml\n"
    "       ptm plan [--svg FILE] TRACE.json\n"
    "       ptm plan [--svg FILE] --trace TRACE.json\n"
    "\n"
    "Dry-run the job's scheduler: check the job (or load the plan), read its\n"
    "data as 'ptm run' does (dependencies and costs need it), and ask the\n"
    "plan's own scheduler for N rounds without running any update. What the\n"
    "updates would change is simulated, so that priorities have something to\n"
    "steer by: block b's change at its k-th update is s_b * 0.8^(k-1), with\n"
    "s_b log-uniform in [0.01, 1] from the seed; delta() and the parameter\n"
    "values follow these changes. A worker's cost in a round is the sum of\n"
    "the costs of its blocks (the block set's 'cost', or 1 a block).\n"
    "\n"
    "Under schedule data_parallel there are no blocks: the workers' clocks\n"
    "(minibatches) are simulated in time instead, N clocks a worker, each\n"
    "taking 1 ms of work (and a straggler's delay), under the job's\n"
    "consistency (a worker waits when it is s clocks ahead of the slowest;\n"
    "a phase ends in a barrier) and under BSP. Prints each clock's start,\n"
    "wait and the age of its read, then each worker's clocks, busy and\n"
    "blocked time, and the totals under the job's consistency against BSP.\n"
    "\n"
    "Prints one line per round and worker: the round, the worker, its cost,\n"
    "its idle share (1 - its cost / the round's largest), the conflicts the\n"
    "scheduler avoided in the round, and the blocks; then each worker's\n"
    "totals. Lines starting with '#' say what was run and how it is counted.\n"
    "\n"
    "Given the trace of a run ('ptm run --trace FILE': a file of JSON lines,\n"
    "recognized by its first character '{', or named with --trace), draws\n"
    "that run the same way, with each worker's busy seconds as its load\n"
    "(idle against the round's wall seconds) and where the coordinator's\n"
    "time went (scheduling, the workers' phases, combining, the objective).\n"
    "\n"
    "  --rounds N        rounds to dry-run, 1 .. 100000 (default 20)\n"
    "  --workers N       workers, 1 .. 1024 (default: the number of cores, at\n"
    "                    most the rows of the data, as 'ptm run')\n"
    "  --seed N          seed, 0 .. 2^53-1 (default: the job's)\n"
    "  --memory-limit SIZE\n"
    "                    as 'ptm run': refuse a job whose tables need more\n"
    "                    (default: the machine's free memory, and 1 GiB or\n"
    "                    1024 times the data files)\n"
    "  --straggler W:MS[:PROB]\n"
    "                    data_parallel: worker W's clocks take MS ms longer,\n"
    "                    each with probability PROB (default 1), drawn from\n"
    "                    the seed as 'ptm run --straggler' draws them; W is\n"
    "                    1 .. the workers, or all. Repeatable, a worker once\n"
    "  --set NAME=VALUE  override a const of the job, or an option: update.KEY,\n"
     "                    objective.KEY, schedule.KEY (--set update.rate=0.1)\n"
    "  --svg FILE        write an SVG Gantt chart: a row per worker, a column\n"
    "                    per round, each block a coloured segment, conflicts\n"
    "                    avoided and each worker's load; aggregated when too\n"
    "                    big to draw block by block\n"
    "  --dot FILE        write the dependency graph of the blocks (Graphviz\n"
    "                    DOT): a node per block filled by priority or cost, an\n"
    "                    edge per conflict; at most 500 blocks and 5000 edges\n"
    "  --trace FILE      draw the trace of a run instead of a dry run\n"
    "  --color=WHEN      colour diagnostics: auto, always, never\n"
    "  -                 read the job spec (or plan) from standard input\n"
    "\n"
    "Files are written to a temporary name and renamed into place.\n"
    "\n"
    "Exit status: 0 ok, 1 the plan cannot be dry-run or a file cannot be\n"
    "written, 2 usage error or an unreadable input, 3 the job has errors,\n"
    "4 bad data (the job's data, its dependency file, or a malformed trace).\n";

struct flags {
    bool color;
    long long rounds, workers, seed;
    unsigned long long memory_limit; /* 0: the machine's */
    bool has_rounds, has_workers, has_seed;
    const char *svg, *dot, *trace, *input;
    struct ptm_set *sets;
    unsigned nsets;
    struct ptm_straggler *stragglers; /* --straggler */
    size_t nstragglers;
    const char *dry_flag; /* a flag that only a dry run takes, for the message */
};

/* The value flags of plan and what each takes. */
static const char *const value_flags[][2] = {
    {"--rounds", "a whole number from 1 to 100000"},
    {"--workers", "a whole number from 1 to 1024"},
    {"--seed", "a whole number from 0 to 9007199254740991"},
    {"--memory-limit", "bytes, or a number with K, M, G or T: 512M, 4G"},
    {"--set", "NAME=VALUE"},
    {"--straggler", "W:MS[:PROB]"},
    {"--svg", "a file name"},
    {"--dot", "a file name"},
    {"--trace", "a file name"},
};

static int oom(void)
{
    fprintf(stderr, "ptm: error: out of memory\n");
    return PTM_EXIT_FAILED;
}

/* Parse argv; returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, struct flags *f)
{
    f->rounds = ROUNDS_DEFAULT;
    cli_parse_color("auto", &f->color);
    f->sets = calloc((size_t)argc, sizeof(*f->sets));
    f->stragglers = calloc((size_t)argc, sizeof(*f->stragglers));
    if (!f->sets || !f->stragglers)
        return oom();
    bool files_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (files_only || a[0] != '-' || strcmp(a, "-") == 0) {
            if (f->input)
                return cli_usage_error("plan takes one job spec, plan or trace (got another: "
                                       "'%s')",
                                       a, "plan");
            f->input = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            files_only = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(cli_plan_help, stdout);
            return PTM_EXIT_OK;
        }
        if (strncmp(a, "--color=", 8) == 0) {
            if (!cli_parse_color(a + 8, &f->color))
                return cli_usage_error("bad value for --color: '%s' (use auto, always or never)",
                                       a + 8, "plan");
            continue;
        }
        if (strcmp(a, "--color") == 0) {
            cli_parse_color("always", &f->color);
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        const char *flag = NULL, *want = NULL;
        for (size_t k = 0; k < PTM_ARRAY_LEN(value_flags); k++)
            if (strlen(value_flags[k][0]) == n && strncmp(a, value_flags[k][0], n) == 0) {
                flag = value_flags[k][0];
                want = value_flags[k][1];
            }
        if (!flag)
            return cli_usage_error("unknown option '%s' for 'plan'", a, "plan");
        const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            return cli_usage_error("%s needs a value", flag, "plan");
        bool ok = true;
        if (strcmp(flag, "--rounds") == 0) {
            ok = f->has_rounds = cli_parse_whole(v, 1, ROUNDS_MAX, &f->rounds);
            f->dry_flag = flag;
        } else if (strcmp(flag, "--workers") == 0) {
            ok = f->has_workers = cli_parse_whole(v, 1, 1024, &f->workers);
            f->dry_flag = flag;
        } else if (strcmp(flag, "--seed") == 0) {
            ok = f->has_seed = cli_parse_whole(v, 0, PTM_WHOLE_MAX, &f->seed);
            f->dry_flag = flag;
        } else if (strcmp(flag, "--memory-limit") == 0) {
            ok = cli_parse_size(v, &f->memory_limit);
            f->dry_flag = flag;
        } else if (strcmp(flag, "--straggler") == 0) {
            struct ptm_straggler *s = &f->stragglers[f->nstragglers];
            char msg[512];
            if (!cli_parse_straggler(v, s, msg, sizeof(msg)))
                return cli_usage_error("%s", msg, "plan");
            for (size_t k = 0; k < f->nstragglers; k++) {
                const struct ptm_straggler *o = &f->stragglers[k];
                if (o->worker == 0 || s->worker == 0)
                    return cli_usage_error("--straggler all slows every worker: give no other "
                                           "--straggler with it (got '%s' too)",
                                           v, "plan");
                if (o->worker == s->worker) {
                    snprintf(msg, sizeof(msg),
                             "--straggler: worker %d is given twice (again in '%%s')", s->worker);
                    return cli_usage_error(msg, v, "plan");
                }
            }
            f->nstragglers++;
            f->dry_flag = flag;
        } else if (strcmp(flag, "--set") == 0) {
            const char *e = strchr(v, '=');
            if (!e || e == v)
                return cli_usage_error("--set takes NAME=VALUE, not '%s'", v, "plan");
            char *name = strndup(v, (size_t)(e - v));
            if (!name)
                return oom();
            f->sets[f->nsets].name = name;
            f->sets[f->nsets].value = e + 1;
            f->nsets++;
            f->dry_flag = flag;
        } else {
            ok = *v != '\0';
            if (strcmp(flag, "--svg") == 0)
                f->svg = v;
            else if (strcmp(flag, "--dot") == 0)
                f->dot = v;
            else
                f->trace = v;
            if (f->dot)
                f->dry_flag = "--dot";
        }
        if (!ok) {
            char msg[160];
            snprintf(msg, sizeof(msg), "bad value for %s: '%%s' (want %s)", flag, want);
            return cli_usage_error(msg, v, "plan");
        }
    }
    for (size_t k = 0; k < f->nstragglers && f->has_workers; k++)
        if (f->stragglers[k].worker > f->workers) {
            char msg[160];
            snprintf(msg, sizeof(msg), "--straggler: there is no worker %d with --workers %lld",
                     f->stragglers[k].worker, f->workers);
            return cli_usage_error("%s", msg, "plan");
        }
    if (f->trace && f->input)
        return cli_usage_error("plan: give a job or --trace FILE, not both (got '%s' too)",
                               f->input, "plan");
    if (!f->trace && !f->input)
        return cli_usage_error("%s: no job spec, plan or trace given", "plan", "plan");
    return -1;
}

/* The input is a trace: its first character, after blanks (and a byte
 * order mark), is '{'. Files that cannot be read are left to the loader. */
static bool looks_like_trace(const char *path)
{
    if (strcmp(path, "-") == 0)
        return false;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    size_t i = n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    return i < n && buf[i] == '{';
}

static int read_trace(const char *path, struct ptm_trace **t)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ptm: error: cannot read '%s': %s\n", path, strerror(errno));
        return PTM_EXIT_USAGE;
    }
    char err[8192];
    int rc = ptm_trace_read(f, path, err, sizeof(err), t);
    fclose(f);
    if (rc == PTM_ENOMEM)
        return oom();
    if (rc != 0) {
        fputs(err, stderr);
        if (err[0] && err[strlen(err) - 1] != '\n')
            fputc('\n', stderr);
        return PTM_EXIT_DATA;
    }
    return PTM_EXIT_OK;
}

static int dry_run(const struct flags *f, struct ptm_trace **t)
{
    struct ptm_plan *plan;
    int code = cli_load_job(f->input, f->sets, f->nsets, f->color, &plan);
    if (code != PTM_EXIT_OK)
        return code;
    if ((code = cli_check_not_input("--svg", f->svg, f->input, plan)) != PTM_EXIT_OK ||
        (code = cli_check_not_input("--dot", f->dot, f->input, plan)) != PTM_EXIT_OK) {
        plan_free(plan);
        return code;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct ptm_dryrun_opts o = {
        .workers = f->has_workers ? (int)f->workers
                   : ncpu > 0     ? (int)(ncpu < 1024 ? ncpu : 1024)
                                  : 1,
        .rounds = f->rounds,
        .has_seed = f->has_seed,
        .seed = (uint64_t)f->seed,
        .memory_limit = f->memory_limit,
        .graph = f->dot != NULL,
        .max_nodes = DOT_NODES,
        .max_edges = DOT_EDGES,
        .stragglers = f->stragglers,
        .nstragglers = f->nstragglers,
    };
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    char err[8192];
    int rc = ptm_dryrun(plan, &o, &dg, err, sizeof(err), t);
    fflush(stdout);
    ptm_data_diags_print(stderr, &dg, f->color);
    ptm_data_diags_release(&dg);
    if (rc == PTM_EDATA || rc == PTM_ENOENT || rc == PTM_EIO || rc == PTM_ETOOBIG) {
        if (err[0])
            fprintf(stderr, "ptm: error: %s\n", err);
        code = PTM_EXIT_DATA;
    } else if (rc != 0) {
        fprintf(stderr, "ptm: error: %s: %s\n", f->input, err[0] ? err : ptm_strerror(rc));
        code = PTM_EXIT_FAILED;
    } else if (!((*t)->source = plan_strdup(strcmp(f->input, "-") == 0 ? "<stdin>" : f->input))) {
        code = oom();
    }
    plan_free(plan);
    return code;
}

/* Write path with draw, through a temporary file and a rename. */
static int write_file(const char *path, int (*draw)(FILE *, const struct ptm_trace *),
                      const struct ptm_trace *t)
{
    struct ptm_wfile w;
    int rc = ptm_wfile_open(&w, path);
    if (rc == 0) {
        rc = draw(w.f, t);
        if (rc == 0)
            rc = ptm_wfile_commit(&w);
        else
            ptm_wfile_abort(&w);
    } else {
        ptm_wfile_abort(&w);
    }
    if (rc != 0) {
        fprintf(stderr, "ptm: error: cannot write '%s': %s\n", path,
                rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
        return PTM_EXIT_FAILED;
    }
    return PTM_EXIT_OK;
}

int cli_plan(int argc, char **argv)
{
    struct flags f = {0};
    struct ptm_trace *t = NULL;
    int code = parse(argc, argv, &f);
    if (code >= 0)
        goto out;
    const char *trace = f.trace ? f.trace : looks_like_trace(f.input) ? f.input : NULL;
    if (trace && f.dry_flag) {
        code = cli_usage_error("%s is for a dry run of a job, not for a trace", f.dry_flag, "plan");
        goto out;
    }
    struct stat st;
    for (int k = 0; trace && k < 2; k++) {
        const char *out = k ? f.dot : f.svg;
        if (out && stat(trace, &st) == 0 && ptm_is_file(NULL, out, &st)) {
            fprintf(stderr, "ptm: error: %s %s is the trace it draws: it would be overwritten\n",
                    k ? "--dot" : "--svg", out);
            code = PTM_EXIT_USAGE;
            goto out;
        }
    }
    code = trace ? read_trace(trace, &t) : dry_run(&f, &t);
    if (code != PTM_EXIT_OK)
        goto out;
    /* the files first: a reader of the table may stop early (| head) */
    if (f.svg && (code = write_file(f.svg, ptm_viz_svg, t)) != PTM_EXIT_OK)
        goto out;
    if (f.dot) {
        const struct ptm_depgraph *g = t->graph;
        if (g->nnodes < t->nblocks || g->more_edges)
            fprintf(stderr,
                    "ptm: warning: '%s': the dependency graph is cut to blocks 1 to %lld "
                    "of %lld%s (at most %d blocks and %d conflicts are drawn)\n",
                    f.dot, (long long)g->nnodes, (long long)t->nblocks,
                    g->more_edges ? " and its first conflicts" : "", DOT_NODES, DOT_EDGES);
        if ((code = write_file(f.dot, ptm_viz_dot, t)) != PTM_EXIT_OK)
            goto out;
    }
    if (ptm_viz_table(stdout, t) == PTM_ENOMEM)
        code = oom();
out:
    ptm_trace_free(t);
    for (unsigned i = 0; i < f.nsets; i++)
        free((char *)f.sets[i].name);
    free(f.sets);
    free(f.stragglers);
    return code;
}
