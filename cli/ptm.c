/*
 * ptm.c - the ptm command: subcommands, flags, help and exit codes.
 *
 * Exit codes: 0 ok, 1 the run failed (or out of memory), 2 usage error
 * (unknown command or flag, missing file), 3 the spec has errors,
 * 4 bad data.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "ast.h"
#include "cli.h"
#include "comm.h"
#include "compiler.h"
#include "data.h"
#include "diag.h"
#include "engine.h"
#include "gen.h"
#include "model.h"
#include "lang.h"
#include "plan.h"
#include "plan_load.h"
#include "plan_yaml.h"
#include "ptm.h"
#include "report.h"
#include "wfile.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *help; /* usage line, blank line, details */
    void (*print_help)(FILE *f); /* instead of help, when it is made at run time */
};

static int cmd_check(int argc, char **argv);
static int cmd_compile(int argc, char **argv);
static int cmd_gen(int argc, char **argv);
static int cmd_help(int argc, char **argv);
static void gen_help(FILE *f);
static int cmd_run(int argc, char **argv);

static const struct command commands[] = {
    {"check", cmd_check, "check job specs for errors",
     "usage: ptm check [--color=WHEN] [--set NAME=VALUE]... [--ast] [--data]\n"
     "                 JOB.ptm|PLAN.yaml...\n"
     "\n"
     "Parse and check each job spec (or load and check a schedule plan, as the\n"
     "runtime would) and report every error found, GNU style:\n"
     "  FILE:LINE:COL: error: MESSAGE\n"
     "followed by the source line and a caret under the problem. Lua hook\n"
     "files are loaded (sandboxed) to check the functions they define.\n"
     "\n"
     "  --set NAME=VALUE  override a const of the job (checked like the job), or\n"
     "                    an option: update.KEY, objective.KEY, schedule.KEY\n"
     "  --color=WHEN      colour diagnostics: auto (default: when stderr is a\n"
     "                    terminal and NO_COLOR is unset), always, never\n"
     "  --ast             print the syntax tree of each valid spec\n"
     "  --data            also read every data file the job names and report\n"
     "                    each bad line (FILE:LINE:COL: error: ...) and the\n"
     "                    size of each data set; and the files parameters\n"
     "                    start from (= from \"file\"), checked against their size;\n"
     "                    and the memory ptm run counts before it sizes anything\n"
     "  -                 read the spec from standard input\n"
     "\n"
     "Exit status: 0 when every spec is valid, 3 when one has errors, 4 when\n"
     "a data file is bad, 2 on a usage error or an unreadable file.\n", NULL},
    {"compile", cmd_compile, "compile a job spec into a schedule plan (YAML)",
     "usage: ptm compile [--color=WHEN] [--set NAME=VALUE]... [-o PLAN.yaml] JOB.ptm\n"
     "\n"
     "Check the job and write its schedule plan: everything the runtime needs,\n"
     "as YAML (spec/plan.md). Without -o the plan goes to standard output;\n"
     "with -o it is written to a temporary file and renamed into place, so\n"
     "PLAN.yaml is never left half-written. Nothing is written when the job\n"
     "has errors.\n"
     "\n"
     "  -o FILE           write the plan to FILE (also --output FILE)\n"
     "  --set NAME=VALUE  override a const of the job, or an option: update.KEY,\n"
     "                    objective.KEY, schedule.KEY (--set update.rate=0.1)\n"
     "  --color=WHEN      colour diagnostics: auto, always, never\n"
     "  -                 read the spec from standard input\n"
     "\n"
     "Exit status: 0 ok, 3 the job has errors, 2 usage error, 1 cannot write.\n", NULL},
    {"gen", cmd_gen, "generate a synthetic data set with a known answer", NULL, gen_help},
    {"plan", cli_plan, "dry-run the scheduler and draw the schedule", cli_plan_help, NULL},
    {"predict", cli_predict, "apply a trained model to new data and score it", cli_predict_help,
     NULL},
    {"report", cli_report, "write an HTML page about a run from its trace", cli_report_help, NULL},
    {"run", cmd_run, "run a job (or a schedule plan)",
     "usage: ptm run [--workers N] [--set NAME=VALUE]... [--seed N]\n"
     "               [--trace FILE [--trace-blocks]] [--report FILE] [--quiet]\n"
     "               [--backend threads|mpi] [--color=WHEN]\n"
     "               [--memory-limit SIZE] [--straggler W:MS[:PROB]]...\n"
     "               [--checkpoint DIR [--every WHEN]] JOB.ptm|PLAN.yaml\n"
     "       ptm run --resume DIR [OPTIONS] [JOB.ptm|PLAN.yaml]\n"
     "       mpirun -np R ptm run [OPTIONS] JOB.ptm|PLAN.yaml\n"
     "\n"
     "Check the job (or load the plan), read its data, run it until its stop\n"
     "rule holds and write its outputs. Each output is written to a temporary\n"
     "file next to its target and renamed into place; relative output paths\n"
     "are relative to the current directory. Ctrl-C or SIGTERM stops after the\n"
     "current round, still writes the outputs and exits 130 or 143. Without\n"
     "a stop rule a job stops after 1000 sweeps.\n"
     "\n"
     "Runs on worker threads, and on the ranks of mpirun: the dynamic,\n"
     "round_robin and random policies with the built-in lasso_cd kernel;\n"
     "rotation with mf_sgd, mf_ccd and lda_gibbs; data_parallel with logreg_sgd\n"
     "under the weights' consistency (SSP or async); and every policy with Lua\n"
     "hooks (update lua). A hook that fails stops the run with its Lua\n"
     "traceback and where the job declares it, and nothing is written.\n"
     "\n"
     "  --workers N       worker threads, 1 .. 1024 (default: the number of\n"
     "                    cores, at most the rows of the data)\n"
     "  --set NAME=VALUE  override a const of the job, or an option: update.KEY,\n"
     "                    objective.KEY, schedule.KEY (--set update.rate=0.1)\n"
     "  --seed N          seed, 0 .. 2^53-1 (default: the job's)\n"
     "  --trace FILE      write one JSON object per round to FILE (round,\n"
     "                    seconds, updates, the scheduler's candidates and\n"
     "                    conflicts, the coordinator's seconds scheduling,\n"
     "                    waiting for the workers, combining and evaluating,\n"
     "                    each worker's busy seconds, objective when\n"
     "                    evaluated), whole when the run ends; 'ptm plan FILE'\n"
     "                    draws it; its last line says why the run stopped\n"
     "  --trace-blocks    the trace also lists the blocks of each round and of\n"
     "                    each worker (most of its size: a Lasso run of 1000\n"
     "                    blocks a round writes about 12 KB a round); needs\n"
     "                    --trace\n"
     "  --report FILE     when the run ends (also after Ctrl-C or a failure),\n"
     "                    write one self-contained HTML page about it to FILE,\n"
     "                    as 'ptm report' does: why it stopped, its figures,\n"
     "                    convergence curves, the schedule, the workers' load\n"
     "                    and the job (the trace goes to a temporary file\n"
     "                    unless --trace keeps it)\n"
     "  --quiet           no progress on stderr (by default one line per\n"
     "                    objective evaluation; one updating line on a terminal)\n"
     "  --memory-limit SIZE\n"
     "                    the memory the parameter tables may take (512M, 4G;\n"
     "                    default: what the machine has available). A job\n"
     "                    whose parameters need more is refused before they\n"
     "                    are allocated, with the estimate and its largest part\n"
     "  --backend B       threads: one process; mpi: the ranks of mpirun, each\n"
     "                    reading its own part of the data sharded by rows and\n"
     "                    running --workers threads (default: mpi when started\n"
     "                    by mpirun, else threads, which is refused under\n"
     "                    mpirun with more than one process). Under MPI rank 0\n"
     "                    schedules, reports and writes; a failure on any rank\n"
     "                    ends all of them with a message naming the rank\n"
     "  --straggler W:MS[:PROB]\n"
     "                    slow worker W down on purpose, for experiments: at\n"
     "                    the end of each of its clocks, before the clock's\n"
     "                    updates are published, it sleeps MS milliseconds\n"
     "                    (more than 0, at most 60000) with probability PROB\n"
     "                    (more than 0, at most 1; default 1), drawn from the\n"
     "                    seed, so a run repeats its delays. W is 1 .. the\n"
     "                    workers, or all: every worker, each drawing on its\n"
     "                    own. Repeatable, a worker at most once. Only for\n"
     "                    rules that run clocks (logreg_sgd, lda_gibbs); the\n"
     "                    trace gives each slowed worker's delay a round\n"
     "  --checkpoint DIR  write the run's whole state to DIR now and then and\n"
     "                    when it ends (a stop, Ctrl-C, SIGTERM), each time\n"
     "                    whole or not at all; overrides the job's checkpoint\n"
     "                    statement. One run a directory\n"
     "  --every WHEN      how often: a duration (90s, 5m, 2h; default 10m) or\n"
     "                    a number of sweeps or rounds (10sweeps, 100rounds)\n"
     "  --resume DIR      go on from DIR's last checkpoint: the job (default:\n"
     "                    the one the checkpoint names), its data, the seed\n"
     "                    and the workers must be those of the run that wrote\n"
     "                    it; only the stop rule may differ. Checkpoints go on\n"
     "                    into DIR (or --checkpoint's). With a fixed seed on\n"
     "                    threads the outputs are those of a run never stopped\n"
     "  --rank-timeout T  under MPI: how long a rank waits for one that stopped\n"
     "                    answering (stopped, or cut off from its host) before\n"
     "                    the job ends with a message naming it (default 30s;\n"
     "                    0: for ever). A slow rank still answers\n"
     "  --color=WHEN      colour diagnostics: auto, always, never\n"
     "  -                 read the spec from standard input\n"
     "\n"
     "Exit status: 0 ok, 1 the run failed or the job asks for something not\n"
     "supported yet, 2 usage error, 3 the job has errors, 4 bad data.\n", NULL},
    {"help", cmd_help, "show help for a command", "usage: ptm help [COMMAND]\n", NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: ptm [--version] [--help] COMMAND [ARGS]\n"
                 "\n"
                 "ptm runs iterative machine-learning jobs declared in .ptm job specs:\n"
                 "structure-aware model-parallel scheduling and bounded-staleness\n"
                 "parameter sharing.\n"
                 "\n"
                 "commands:\n");
    for (size_t i = 0; i < PTM_ARRAY_LEN(commands); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'ptm help COMMAND' describes one command.\n"
                 "exit status: 0 ok, 1 failed, 2 usage error, 3 errors in the spec, 4 bad data\n");
}

static int usage_error(const char *fmt, const char *arg, const char *cmd)
{
    fprintf(stderr, "ptm: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    if (cmd)
        fprintf(stderr, "try 'ptm help %s'\n", cmd);
    else
        fprintf(stderr, "try 'ptm --help'\n");
    return PTM_EXIT_USAGE;
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* The help of command c on stdout. */
static void print_help(const struct command *c)
{
    if (c->print_help)
        c->print_help(stdout);
    else
        fputs(c->help, stdout);
}

static const char *suggest_command(const char *name)
{
    const char *names[PTM_ARRAY_LEN(commands)];
    for (size_t i = 0; i < PTM_ARRAY_LEN(commands); i++)
        names[i] = commands[i].name;
    return diag_suggest(name, strlen(name), names, PTM_ARRAY_LEN(commands));
}

enum color { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

static bool use_color(enum color c)
{
    if (c != COLOR_AUTO)
        return c == COLOR_ALWAYS;
    const char *term = getenv("TERM");
    const char *no = getenv("NO_COLOR");
    return isatty(STDERR_FILENO) && (!no || !*no) && term && strcmp(term, "dumb") != 0;
}

/* --color=WHEN; returns false on a bad value. */
static bool parse_color(const char *arg, enum color *out)
{
    if (strcmp(arg, "auto") == 0)
        *out = COLOR_AUTO;
    else if (strcmp(arg, "always") == 0)
        *out = COLOR_ALWAYS;
    else if (strcmp(arg, "never") == 0)
        *out = COLOR_NEVER;
    else
        return false;
    return true;
}

static bool parse_whole(const char *text, long long lo, long long hi, long long *out);
static bool parse_real(const char *text, double lo, double hi, bool lo_open, double *out);

/* A size: a positive number of bytes, or a number and K, M, G or T
 * (powers of 1024, an optional B or iB after it: 4G, 1.5GiB). */
static bool parse_size(const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !(v > 0) || isspace((unsigned char)*text))
        return false;
    double m = 1;
    switch (*end) {
    case 'K': case 'k': m = 1024.0; end++; break;
    case 'M': case 'm': m = 1024.0 * 1024; end++; break;
    case 'G': case 'g': m = 1024.0 * 1024 * 1024; end++; break;
    case 'T': case 't': m = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (m > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
        end += strlen(end);
    if (*end || v * m >= 18e18 || v * m < 1)
        return false;
    *out = (unsigned long long)(v * m);
    return true;
}

/* When checkpoints are written (--every): a duration (90s, 5m, 2h, 1d;
 * at least a second) or a whole number of sweeps or rounds (10sweeps,
 * "100 rounds"). */
static bool parse_every(const char *text, int64_t *every, enum plan_unit *unit, double *seconds)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !(v > 0) || isspace((unsigned char)*text) || !isfinite(v))
        return false;
    while (*end == ' ')
        end++;
    static const struct { const char *unit; double seconds; } units[] = {
        {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(end, units[i].unit) == 0) {
            *seconds = v * units[i].seconds;
            *every = 0;
            return *seconds >= 1 && *seconds < 1e9;
        }
    bool sw = strcmp(end, "sweeps") == 0 || strcmp(end, "sweep") == 0;
    bool rd = strcmp(end, "rounds") == 0 || strcmp(end, "round") == 0;
    if ((!sw && !rd) || v != floor(v) || v > (double)PTM_WHOLE_MAX)
        return false;
    *every = (int64_t)v;
    *unit = sw ? PLAN_UNIT_SWEEPS : PLAN_UNIT_ROUNDS;
    *seconds = 0;
    return true;
}

/* --straggler W:MS[:PROB] into *s: W a worker (1-based, or `all`: 0), MS
 * milliseconds, PROB a probability (default 1). False with a usage
 * message in msg. */
static bool parse_straggler(const char *text, struct ptm_straggler *s, char *msg, size_t len)
{
    char buf[160];
    char *part[4];
    int n = 0;
    if (strlen(text) >= sizeof(buf))
        goto bad_form;
    strcpy(buf, text);
    for (char *p = buf; n < 4; p++) {
        part[n++] = p;
        if (!(p = strchr(p, ':')))
            break;
        *p = '\0';
    }
    if (n < 2 || n > 3)
        goto bad_form;
    long long w = 0;
    if (strcmp(part[0], "all") != 0 && !parse_whole(part[0], 1, 1024, &w)) {
        snprintf(msg, len,
                 "bad worker in --straggler '%s': '%s' (want a whole number from 1 to "
                 "1024, or all)",
                 text, part[0]);
        return false;
    }
    s->worker = (int)w;
    if (!parse_real(part[1], 0, PTM_STRAGGLER_MAX_MS, true, &s->ms)) {
        snprintf(msg, len,
                 "bad milliseconds in --straggler '%s': '%s' (want a number greater "
                 "than 0 and at most %g)",
                 text, part[1], PTM_STRAGGLER_MAX_MS);
        return false;
    }
    s->prob = 1;
    if (n == 3 && !parse_real(part[2], 0, 1, true, &s->prob)) {
        snprintf(msg, len,
                 "bad probability in --straggler '%s': '%s' (want a number greater "
                 "than 0 and at most 1)",
                 text, part[2]);
        return false;
    }
    return true;
bad_form:
    snprintf(msg, len,
             "bad value for --straggler: '%.*s' (want W:MS[:PROB], e.g. 2:50 or "
             "all:20:0.25)",
             (int)(sizeof(buf) - 1), text);
    return false;
}

/* Flags shared by the commands that read a job. */
struct job_flags {
    enum color color;
    bool dump;
    bool data; /* check --data */
    const char *out; /* compile -o */
    /* run */
    long long workers; /* 0: the number of cores */
    bool has_seed;
    long long seed;
    const char *trace;
    bool trace_blocks; /* --trace-blocks */
    const char *report; /* run --report */
    bool quiet;
    int backend;  /* 0: threads, or MPI when started by mpirun; 1: threads; 2: mpi */
    bool silent;  /* print no diagnostics (the other ranks of an MPI run) */
    bool check_outputs; /* the outputs as a run from here writes them (check, run) */
    struct ptm_straggler *stragglers; /* --straggler */
    size_t nstragglers;
    unsigned long long memory_limit; /* --memory-limit; 0: the machine's */
    const char *checkpoint; /* --checkpoint DIR */
    const char *resume;     /* --resume DIR */
    double rank_timeout;    /* --rank-timeout, seconds; < 0: the default */
    bool has_every;         /* --every */
    int64_t every;
    enum plan_unit every_unit;
    double every_seconds;
    struct ptm_set *sets;
    unsigned nsets;
    const char **files;
    int nfiles;
};

/* Parse the flags of cmd; returns -1 to go on, or an exit code. */
static int parse_job_flags(const char *cmd, int argc, char **argv, struct job_flags *f)
{
    bool files_only = false;
    f->sets = calloc((size_t)argc, sizeof(*f->sets));
    f->files = calloc((size_t)argc, sizeof(*f->files));
    f->stragglers = calloc((size_t)argc, sizeof(*f->stragglers));
    if (!f->sets || !f->files || !f->stragglers) {
        fprintf(stderr, "ptm: error: out of memory\n");
        return PTM_EXIT_FAILED;
    }
    bool is_compile = strcmp(cmd, "compile") == 0;
    bool is_run = strcmp(cmd, "run") == 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (files_only || a[0] != '-' || strcmp(a, "-") == 0) {
            f->files[f->nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            files_only = true;
        } else if (strncmp(a, "--color=", 8) == 0) {
            if (!parse_color(a + 8, &f->color))
                return usage_error("bad value for --color: '%s' (use auto, always or never)",
                                   a + 8, cmd);
        } else if (strcmp(a, "--color") == 0) {
            f->color = COLOR_ALWAYS;
        } else if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) {
            const char *kv = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            const char *eq = kv ? strchr(kv, '=') : NULL;
            if (!kv)
                return usage_error("%s needs NAME=VALUE", "--set", cmd);
            if (!eq || eq == kv)
                return usage_error("--set takes NAME=VALUE, not '%s'", kv, cmd);
            char *name = strndup(kv, (size_t)(eq - kv));
            if (!name) {
                fprintf(stderr, "ptm: error: out of memory\n");
                return PTM_EXIT_FAILED;
            }
            f->sets[f->nsets].name = name;
            f->sets[f->nsets].value = eq + 1;
            f->nsets++;
        } else if (is_run && (strcmp(a, "--workers") == 0 || strncmp(a, "--workers=", 10) == 0 ||
                              strcmp(a, "--seed") == 0 || strncmp(a, "--seed=", 7) == 0 ||
                              strcmp(a, "--trace") == 0 || strncmp(a, "--trace=", 8) == 0)) {
            const char *eq = strchr(a, '=');
            size_t n = eq ? (size_t)(eq - a) : strlen(a);
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            char flag[16];
            snprintf(flag, sizeof(flag), "%.*s", (int)n, a);
            if (!v)
                return usage_error("%s needs a value", flag, cmd);
            if (flag[2] == 'w' && !parse_whole(v, 1, 1024, &f->workers))
                return usage_error("bad value for --workers: '%s' (want a whole number from 1 "
                                   "to 1024)", v, cmd);
            if (flag[2] == 's') {
                if (!parse_whole(v, 0, PTM_WHOLE_MAX, &f->seed))
                    return usage_error("bad value for --seed: '%s' (want a whole number from 0 "
                                       "to 9007199254740991)", v, cmd);
                f->has_seed = true;
            }
            if (flag[2] == 't') {
                if (!*v)
                    return usage_error("%s needs a file name", "--trace", cmd);
                f->trace = v;
            }
        } else if (is_run && strcmp(a, "--trace-blocks") == 0) {
            f->trace_blocks = true;
        } else if (is_run && (strcmp(a, "--report") == 0 || strncmp(a, "--report=", 9) == 0)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !*v)
                return usage_error("%s needs a file name", "--report", cmd);
            f->report = v;
        } else if (is_run && (strcmp(a, "--backend") == 0 || strncmp(a, "--backend=", 10) == 0)) {
            const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return usage_error("%s needs a value", "--backend", cmd);
            if (strcmp(v, "threads") == 0)
                f->backend = 1;
            else if (strcmp(v, "mpi") == 0)
                f->backend = 2;
            else
                return usage_error("bad value for --backend: '%s' (want threads or mpi)", v, cmd);
        } else if (is_run &&
                   (strcmp(a, "--straggler") == 0 || strncmp(a, "--straggler=", 12) == 0)) {
            const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return usage_error("%s needs W:MS[:PROB]", "--straggler", cmd);
            struct ptm_straggler *s = &f->stragglers[f->nstragglers];
            char msg[512];
            if (!parse_straggler(v, s, msg, sizeof(msg)))
                return usage_error("%s", msg, cmd);
            for (size_t k = 0; k < f->nstragglers; k++) {
                const struct ptm_straggler *o = &f->stragglers[k];
                if (o->worker == 0 || s->worker == 0)
                    return usage_error("--straggler all slows every worker: give no other "
                                       "--straggler with it (got '%s' too)",
                                       v, cmd);
                if (o->worker == s->worker) {
                    snprintf(msg, sizeof(msg),
                             "--straggler: worker %d is given twice (again in "
                             "'%%s')",
                             s->worker);
                    return usage_error(msg, v, cmd);
                }
            }
            f->nstragglers++;
        } else if (is_run && (strcmp(a, "--checkpoint") == 0 || strncmp(a, "--checkpoint=", 13) == 0 ||
                              strcmp(a, "--resume") == 0 || strncmp(a, "--resume=", 9) == 0)) {
            bool ck = a[2] == 'c';
            size_t n = ck ? 12 : 8;
            const char *v = a[n] == '=' ? a + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !*v)
                return usage_error("%s needs a directory", ck ? "--checkpoint" : "--resume", cmd);
            if (ck)
                f->checkpoint = v;
            else
                f->resume = v;
        } else if (is_run && (strcmp(a, "--rank-timeout") == 0 ||
                              strncmp(a, "--rank-timeout=", 15) == 0)) {
            const char *v = a[14] == '=' ? a + 15 : (i + 1 < argc ? argv[++i] : NULL);
            int64_t n;
            enum plan_unit u;
            if (!v)
                return usage_error("%s needs a value", "--rank-timeout", cmd);
            if (strcmp(v, "0") == 0)
                f->rank_timeout = 0;
            else if (!parse_every(v, &n, &u, &f->rank_timeout) || n != 0)
                return usage_error("bad value for --rank-timeout: '%s' (want a duration of at "
                                   "least a second, 10s, 2m, or 0: wait for ever)", v, cmd);
        } else if (is_run && (strcmp(a, "--every") == 0 || strncmp(a, "--every=", 8) == 0)) {
            const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return usage_error("%s needs a value", "--every", cmd);
            if (!parse_every(v, &f->every, &f->every_unit, &f->every_seconds))
                return usage_error("bad value for --every: '%s' (want a duration of at least a "
                                   "second, 90s, 5m, 2h, or a whole number of sweeps or rounds, "
                                   "10sweeps, 100rounds)", v, cmd);
            f->has_every = true;
        } else if (is_run && strcmp(a, "--quiet") == 0) {
            f->quiet = true;
        } else if (is_run && (strcmp(a, "--memory-limit") == 0 ||
                              strncmp(a, "--memory-limit=", 15) == 0)) {
            const char *v = a[14] == '=' ? a + 15 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return usage_error("%s needs a size", "--memory-limit", cmd);
            if (!parse_size(v, &f->memory_limit))
                return usage_error("bad value for --memory-limit: '%s' (want bytes, or a "
                                   "number with K, M, G or T: 512M, 4G)",
                                   v, cmd);
        } else if (!is_compile && !is_run && strcmp(a, "--ast") == 0) {
            f->dump = true;
        } else if (!is_compile && !is_run && strcmp(a, "--data") == 0) {
            f->data = true;
        } else if (is_compile && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            if (i + 1 >= argc)
                return usage_error("%s needs a file name", a, cmd);
            f->out = argv[++i];
        } else if (is_compile && strncmp(a, "--output=", 9) == 0) {
            f->out = a + 9;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(find_command(cmd));
            return PTM_EXIT_OK;
        } else {
            char msg[128];
            snprintf(msg, sizeof(msg), "unknown option '%%s' for '%s'", cmd);
            return usage_error(msg, a, cmd);
        }
    }
    if (f->nfiles == 0 && !(is_run && f->resume))
        return usage_error("%s: no job spec given", cmd, cmd);
    if ((is_compile || is_run) && f->nfiles > 1) {
        char msg[96];
        snprintf(msg, sizeof(msg), "%s takes one job spec (got another: '%%s')", cmd);
        return usage_error(msg, f->files[1], cmd);
    }
    return -1;
}

static void free_job_flags(struct job_flags *f)
{
    if (f->sets)
        for (unsigned i = 0; i < f->nsets; i++)
            free((char *)f->sets[i].name);
    free(f->sets);
    free(f->files);
    free(f->stragglers);
}

/* The directory part of path ("." when none); caller frees. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (strcmp(path, "-") == 0 || !slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Where a job declares its update and objective, for run-time messages:
 * "FILE:LINE:COL", or "" when it does not (or the input is a plan). */
struct job_where {
    char update[4200], objective[4200], depend[4200], priority[4200], cost[4200], order[4200];
    char **param; /* each parameter's declaration, indexed as the plan's; NULL for a plan */
    uint32_t nparam;
};

static void job_where_release(struct job_where *at)
{
    for (uint32_t i = 0; i < at->nparam; i++)
        free(at->param[i]);
    free(at->param);
    at->param = NULL;
    at->nparam = 0;
}

/* Where the job declares each parameter of plan, for the messages about
 * the file a parameter starts from. Returns 0 or PTM_ENOMEM. */
static int find_params(struct ptm_source *src, const struct ast_job *job,
                       const struct ptm_plan *plan, struct job_where *at)
{
    at->param = calloc(plan->nparams ? plan->nparams : 1, sizeof(*at->param));
    if (!at->param)
        return PTM_ENOMEM;
    at->nparam = plan->nparams;
    for (const struct ast_stmt *st = job->head; st; st = st->next) {
        if (st->kind != AST_STMT_PARAM)
            continue;
        for (uint32_t i = 0; i < plan->nparams; i++) {
            if (at->param[i] || strcmp(plan->params[i].name, st->u.param.name.name) != 0)
                continue;
            unsigned line, col;
            ptm_source_linecol(src, st->loc.begin, &line, &col);
            size_t n = strlen(src->name) + 32;
            if (!(at->param[i] = malloc(n)))
                return PTM_ENOMEM;
            snprintf(at->param[i], n, "%s:%u:%u", src->name, line, col);
        }
    }
    return 0;
}

static void find_hooks(struct ptm_source *src, const struct ast_job *job, struct job_where *at)
{
    for (const struct ast_stmt *st = job->head; st; st = st->next) {
        char *dst = st->kind == AST_STMT_UPDATE      ? at->update
                    : st->kind == AST_STMT_OBJECTIVE ? at->objective
                    : st->kind == AST_STMT_DEPEND    ? at->depend
                    : st->kind == AST_STMT_PRIORITY  ? at->priority
                    : st->kind == AST_STMT_COST      ? at->cost
                    : st->kind == AST_STMT_ORDER     ? at->order
                                                     : NULL;
        if (!dst || dst[0])
            continue;
        unsigned line, col;
        ptm_source_linecol(src, st->loc.begin, &line, &col);
        snprintf(dst, sizeof(at->update), "%s:%u:%u", src->name, line, col);
    }
}

enum input_kind { INPUT_JOB, INPUT_PLAN, INPUT_OTHER };

/* What the text of path is, from its first word: a plan starts with its
 * version key 'ptm_plan:' (after blank and '#' lines) or is named .yaml or
 * .yml; a data file given as the job (below) is neither; the rest is
 * parsed as a job spec. */
static enum input_kind input_kind(const char *path, const char *text, size_t len)
{
    const char *p = text, *e = text + len;
    if (e - p >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    for (;;) {
        while (p < e && isspace((unsigned char)*p))
            p++;
        if (p < e && *p == '#') {
            while (p < e && *p != '\n')
                p++;
            continue;
        }
        break;
    }
    size_t n = strlen(path);
    if ((size_t)(e - p) >= 9 && memcmp(p, "ptm_plan:", 9) == 0)
        return INPUT_PLAN;
    if ((n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
        (n > 4 && strcmp(path + n - 4, ".yml") == 0))
        return INPUT_PLAN;
    if (p == e)
        return INPUT_JOB; /* empty: the parser says so */
    /* a number (libsvm, UCI, a CSV of numbers), '%' (MatrixMarket), or a
     * word right before ',' or ':' (a CSV header, YAML) is data; a word
     * may be a misspelt statement, which the parser names */
    if (!isalpha((unsigned char)*p) && *p != '_')
        return INPUT_OTHER;
    while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    return p < e && (*p == ',' || *p == ':') ? INPUT_OTHER : INPUT_JOB;
}

/* Read, parse and check one job; on success *plan is set, and *at when at
 * is not NULL. Returns an exit code; diagnostics are printed. */
static int load_job(const char *path, const struct job_flags *f, struct ptm_plan **plan,
                    struct job_where *at)
{
    if (at) {
        at->update[0] = at->objective[0] = at->depend[0] = at->priority[0] = at->cost[0] =
            at->order[0] = '\0';
        at->param = NULL;
        at->nparam = 0;
    }
    *plan = NULL;
    char err[512];
    struct ptm_source src;
    int rc = ptm_source_read(&src, path, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "ptm: error: %s\n", err);
        return rc == PTM_ENOMEM ? PTM_EXIT_FAILED : PTM_EXIT_USAGE;
    }
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    struct ast_job *job;
    char *dir = dir_of(path);
    /* A plan (YAML) is loaded and checked as the runtime would load it. */
    enum input_kind kind = input_kind(path, src.text, src.len);
    bool is_plan = kind == INPUT_PLAN;
    if (kind == INPUT_OTHER) {
        if (!f->silent)
            fprintf(stderr,
                    "%s: error: not a job spec nor a plan: a job starts with 'job NAME', a "
                    "plan with 'ptm_plan: %d' (is it a data file?)\n",
                    src.name, PTM_PLAN_VERSION);
        free(dir);
        arena_release(&arena);
        ptm_source_release(&src);
        return PTM_EXIT_USAGE;
    }
    if (!dir)
        rc = PTM_ENOMEM;
    else if (is_plan)
        rc = ptm_plan_load(&src, &diags, plan);
    else
        rc = ptm_parse(&src, &arena, &diags, &job);
    if (rc == 0 && f->dump && !is_plan)
        ast_dump(stdout, job);
    if (rc == 0 && at && !is_plan)
        find_hooks(&src, job, at);
    if (rc == 0 && !is_plan) {
        struct ptm_compile_opts opts = {
            .base_dir = dir, .sets = f->sets, .nsets = f->nsets, .check_hooks = true,
            .check_outputs = f->check_outputs};
        rc = ptm_compile(&src, job, &opts, &diags, plan);
        if (rc == 0 && at)
            rc = find_params(&src, job, *plan, at);
    }
    fflush(stdout);
    if (!f->silent)
        ptm_diags_render(stderr, &src, &diags, use_color(f->color));
    int code = PTM_EXIT_OK;
    if (rc == PTM_ENOMEM) {
        fprintf(stderr, "%s: error: out of memory\n", src.name);
        code = PTM_EXIT_FAILED;
    } else if (rc != 0) {
        if (!f->silent)
            fprintf(stderr, "%s: %u error%s\n", src.name, diags.nerrors,
                    diags.nerrors == 1 ? "" : "s");
        code = PTM_EXIT_SPEC;
    }
    free(dir);
    arena_release(&arena);
    ptm_source_release(&src);
    return code;
}

/* Read every data file of plan (relative paths from its base_dir) as the
 * runtime would, and report its size or its errors; then the files the
 * parameters start from, checked against the sizes the data gives (at:
 * where the job declares each parameter, or NULL). Returns an exit code. */
/* check --data: the memory ptm run's plan counts before it sizes anything
 * (spec/runtime.md, Memory), on one process and one worker: the parameter
 * tables (the scheduled one twice, for its changes) and the column indexes
 * of the sparse data; and the data as read. A parameter sized by the
 * workers is left out, and said so. */
static void print_memory(const struct ptm_plan *plan, struct ptm_dataset *const *sets,
                         double file_bytes)
{
    struct ptm_mem mem = {0};
    double data = 0;
    char left[160] = "";
    int32_t over = plan->schedule.over;
    for (uint32_t p = 0; p < plan->nparams; p++) {
        double dims[2], count = NAN;
        ptm_check_param_size(plan, (int32_t)p, sets, dims);
        if (isnan(dims[0]) || isnan(dims[1])) {
            snprintf(left, sizeof(left), "; '%s', sized by the workers, not counted",
                     plan->params[p].name);
            continue;
        }
        if (over >= 0 && (uint32_t)over < plan->nblocksets &&
            !prog_is_const(&plan->blocksets[over].count, &count))
            count = NAN; /* a count of the data or the workers: its blocks not counted */
        const struct ptm_model *model = NULL;
        if (plan->update.builtin)
            ptm_model_rule(plan->update.builtin, &model);
        double own = model && model->table_bytes
                         ? model->table_bytes(plan, (int32_t)p, dims[0], dims[1], sets)
                         : -1;
        ptm_mem_param(&mem, plan, (int32_t)p, dims[0], dims[1], count, own);
    }
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct ptm_dataset *ds = sets[k];
        if (!ds)
            continue;
        if (ds->sparse) {
            ptm_mem_add(&mem, ((double)ds->csr.ncols + 1) * sizeof(int64_t),
                        "the column index of '%s': %lld columns", plan->data[k].name,
                        (long long)ds->csr.ncols);
            data += (double)ds->csr.nnz * (sizeof(double) + sizeof(int32_t)) +
                    ((double)ds->csr.nrows + 1) * sizeof(int64_t);
        } else {
            data += (double)ptm_dataset_rows(ds) * (double)ptm_dataset_cols(ds) * sizeof(double);
        }
    }
    double total = mem.total, most = mem.most;
    const char *big = mem.big;
    char t[32], m[32], d[32];
    ptm_human_bytes(total, t, sizeof(t));
    ptm_human_bytes(most, m, sizeof(m));
    ptm_human_bytes(data, d, sizeof(d));
    printf("memory: the parameter tables, column indexes and blocks about %s", t);
    if (most > 0)
        printf(" (the largest part, %s, %s)", big, m);
    printf(", the data as read %s, on one process%s\n", d, left);
    unsigned long long have = ptm_mem_available();
    if (total > ptm_mem_claim_cap(file_bytes)) {
        char fb[32];
        ptm_human_bytes(file_bytes, fb, sizeof(fb));
        fflush(stdout);
        fprintf(stderr, "ptm: warning: ptm run refuses this job without --memory-limit: %s from %s "
                        "of data files is more than 1 GiB and 1024 times the data\n",
                t, fb);
    } else if (have > 0 && total > (double)have) {
        char h[32];
        ptm_human_bytes((double)have, h, sizeof(h));
        fflush(stdout);
        fprintf(stderr, "ptm: warning: ptm run refuses this job here: %s is more than the %s this "
                        "machine has available (ptm run --memory-limit SIZE allows more)\n",
                t, h);
    }
}

static int check_data(const struct ptm_plan *plan, const struct job_where *at, bool color)
{
    int code = PTM_EXIT_OK;
    double file_bytes = 0;
    struct ptm_dataset **sets = calloc(plan->ndata ? plan->ndata : 1, sizeof(*sets));
    if (!sets) {
        fprintf(stderr, "ptm: error: out of memory\n");
        return PTM_EXIT_FAILED;
    }
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct plan_data *d = &plan->data[k];
        if (d->format == PLAN_FORMAT_LABELS)
            continue; /* read with its data */
        char path[4096], vocab[4096];
        const char *base = plan->base_dir ? plan->base_dir : ".";
        bool rel = d->path[0] != '/' && strcmp(base, ".") != 0;
        snprintf(path, sizeof(path), rel ? "%s/%s" : "%.0s%s", base, d->path);
        struct ptm_data_opts o;
        ptm_data_opts_from_plan(d, &o);
        if (d->vocab) {
            bool vrel = d->vocab[0] != '/' && strcmp(base, ".") != 0;
            snprintf(vocab, sizeof(vocab), vrel ? "%s/%s" : "%.0s%s", base, d->vocab);
            o.vocab = vocab;
        }
        /* Labels asked for by a labels() data set of this one. */
        for (uint32_t j = 0; j < plan->ndata; j++)
            if (plan->data[j].labels_of == (int32_t)k && d->format == PLAN_FORMAT_CSV) {
                o.csv_labels = true;
                o.csv_label = plan->data[j].label_column;
            }
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        struct ptm_dataset *ds = NULL;
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            file_bytes += (double)st.st_size;
        if (d->vocab && stat(vocab, &st) == 0 && S_ISREG(st.st_mode))
            file_bytes += (double)st.st_size;
        int rc = ptm_data_read(path, &o, &dg, &ds);
        if (rc == PTM_ENOENT)
            ptm_data_gen_hint(plan, access(path, F_OK) != 0 ? path : d->vocab ? vocab : NULL,
                              &dg);
        fflush(stdout);
        ptm_data_diags_print(stderr, &dg, color);
        ptm_data_diags_release(&dg);
        if (rc == 0) {
            int64_t nnz = ds->sparse ? ds->csr.nnz : -1;
            printf("%s: data %s: %lld x %lld", path, d->name, (long long)ptm_dataset_rows(ds),
                   (long long)ptm_dataset_cols(ds));
            if (nnz >= 0)
                printf(", %lld non-zeros", (long long)nnz);
            if (ds->has_labels)
                printf(", labels");
            if (ds->vocab.n)
                printf(", %lld words", (long long)ds->vocab.n);
            printf("\n");
            sets[k] = ds;
        } else if (rc == PTM_ENOMEM) {
            fprintf(stderr, "%s: error: out of memory\n", path);
            code = PTM_EXIT_FAILED;
        } else if (code == PTM_EXIT_OK) {
            code = PTM_EXIT_DATA;
        }
    }
    /* a size the data makes, checked as ptm run checks it */
    for (uint32_t p = 0; p < plan->nparams; p++) {
        double dims[2];
        ptm_check_param_size(plan, (int32_t)p, sets, dims);
        for (int k = 0; k < 2; k++)
            if (!isnan(dims[k]) && !(dims[k] >= 1 && dims[k] <= PTM_DIM_MAX && dims[k] == floor(dims[k]))) {
                const char *where = at && p < at->nparam ? at->param[p] : NULL;
                fflush(stdout);
                fprintf(stderr,
                        "%s%serror: the size of parameter '%s' is %.17g with this data: it must "
                        "be a whole number from 1 to %d\n",
                        where ? where : "", where ? ": " : "", plan->params[p].name, dims[k],
                        PTM_DIM_MAX);
                if (code == PTM_EXIT_OK)
                    code = PTM_EXIT_DATA;
                break;
            }
    }
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct plan_param *pp = &plan->params[p];
        if (pp->init != PLAN_INIT_FILE)
            continue;
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        int64_t rows, cols;
        const char *where = at && p < at->nparam ? at->param[p] : NULL;
        int rc = ptm_check_param_file(plan, (int32_t)p, sets, where, &dg, &rows, &cols);
        fflush(stdout);
        ptm_data_diags_print(stderr, &dg, color);
        ptm_data_diags_release(&dg);
        if (rc == 0) {
            printf("%s: param %s: %lld x %lld\n", pp->init_path, pp->name, (long long)rows,
                   (long long)cols);
        } else if (rc == PTM_ENOMEM) {
            fprintf(stderr, "%s: error: out of memory\n", pp->init_path);
            code = PTM_EXIT_FAILED;
        } else if (code == PTM_EXIT_OK) {
            code = PTM_EXIT_DATA;
        }
    }
    if (code == PTM_EXIT_OK)
        print_memory(plan, sets, file_bytes);
    for (uint32_t k = 0; k < plan->ndata; k++)
        ptm_dataset_free(sets[k]);
    free(sets);
    return code;
}

static int cmd_check(int argc, char **argv)
{
    struct job_flags f = {0};
    int worst = parse_job_flags("check", argc, argv, &f);
    f.check_outputs = true;
    if (worst >= 0)
        goto out;
    worst = PTM_EXIT_OK;
    for (int i = 0; i < f.nfiles; i++) {
        struct ptm_plan *plan;
        struct job_where at;
        int code = load_job(f.files[i], &f, &plan, &at);
        if (code == PTM_EXIT_OK && f.data)
            code = check_data(plan, &at, use_color(f.color));
        job_where_release(&at);
        if (code == PTM_EXIT_OK && !f.dump)
            printf("%s: ok\n", strcmp(f.files[i], "-") == 0 ? "<stdin>" : f.files[i]);
        plan_free(plan);
        /* Usage and resource failures outrank spec errors. */
        if (code != PTM_EXIT_OK && (worst == PTM_EXIT_OK || code < worst))
            worst = code;
    }
out:
    free_job_flags(&f);
    return worst;
}

int cli_check_not_input(const char *flag, const char *trace, const char *job,
                        const struct ptm_plan *plan)
{
    struct stat st;
    if (!trace || stat(trace, &st) != 0 || !S_ISREG(st.st_mode))
        return PTM_EXIT_OK; /* new, or a device or pipe written in place */
    const char *what = NULL, *which = NULL;
    if (ptm_is_file(NULL, job, &st))
        what = "the job", which = job;
    for (uint32_t k = 0; !what && k < plan->ndata; k++)
        if (ptm_is_file(plan->base_dir, plan->data[k].path, &st) ||
            ptm_is_file(plan->base_dir, plan->data[k].vocab, &st))
            what = "a data file of the job", which = plan->data[k].name;
    for (uint32_t k = 0; !what && k < plan->noutputs; k++)
        if (ptm_is_file(NULL, plan->outputs[k].path, &st))
            what = "an output of the job", which = plan->outputs[k].path;
    if (!what)
        return PTM_EXIT_OK;
    fprintf(stderr, "ptm: error: %s %s is %s (%s): it would be overwritten\n", flag, trace, what,
            which);
    return PTM_EXIT_USAGE;
}

/* Write the plan to path through a temporary file and a rename. */
static int write_plan_file(const struct ptm_plan *plan, const char *path)
{
    struct ptm_wfile w;
    int rc = ptm_wfile_open(&w, path);
    if (rc == 0) {
        rc = ptm_plan_emit(plan, w.f);
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

static int cmd_compile(int argc, char **argv)
{
    struct job_flags f = {0};
    int code = parse_job_flags("compile", argc, argv, &f);
    if (code >= 0)
        goto out;
    struct ptm_plan *plan;
    code = load_job(f.files[0], &f, &plan, NULL);
    struct stat jst;
    if (code == PTM_EXIT_OK && f.out && strcmp(f.files[0], "-") != 0 &&
        stat(f.files[0], &jst) == 0 && ptm_is_file(NULL, f.out, &jst)) {
        fprintf(stderr, "ptm: error: -o %s is the job spec: it would be overwritten\n", f.out);
        code = PTM_EXIT_USAGE;
    } else if (code == PTM_EXIT_OK) {
        if (f.out) {
            code = write_plan_file(plan, f.out);
        } else if (ptm_plan_emit(plan, stdout) != 0) {
            fprintf(stderr, "ptm: error: cannot write the plan\n");
            code = PTM_EXIT_FAILED;
        }
    }
    plan_free(plan);
out:
    free_job_flags(&f);
    return code;
}

/* ---- run ---------------------------------------------------------------- */



/* Whether paths a and b name the same file: the same inode, or, for
 * files not made yet, the same name in the same directory. */
static bool same_target(const char *a, const char *b)
{
    struct stat st, sd[2];
    if (stat(a, &st) == 0 && ptm_is_file(NULL, b, &st))
        return true;
    const char *p[2] = {a, b}, *base[2];
    for (int k = 0; k < 2; k++) {
        const char *slash = strrchr(p[k], '/');
        char dir[4096];
        /* "a/b" -> "a", "/b" -> "/", "b" -> "." */
        snprintf(dir, sizeof(dir), "%.*s", !slash ? 1 : slash == p[k] ? 1 : (int)(slash - p[k]),
                 slash ? p[k] : ".");
        base[k] = slash ? slash + 1 : p[k];
        if (stat(dir, &sd[k]) != 0)
            return strcmp(a, b) == 0;
    }
    return sd[0].st_dev == sd[1].st_dev && sd[0].st_ino == sd[1].st_ino &&
           strcmp(base[0], base[1]) == 0;
}

/* A failure on one rank of an MPI run ends every rank: the others may be
 * waiting for it. */
static int run_failed(int code)
{
    if (ptm_comm_size() > 1)
        ptm_comm_abort(code);
    return code;
}

/* The page of --report, from the trace at trace_path; an exit code. */
static int write_report(const struct job_flags *f, const char *trace_path, const char *job_text,
                        size_t job_len, bool job_cut, const char *failure)
{
    struct ptm_report_opts ro = {
        .trace = f->trace,
        .job = f->files[0],
        .job_text = job_text,
        .job_len = job_len,
        .job_cut = job_cut,
        .failure = failure,
    };
    return cli_report_write(f->report, trace_path, &ro);
}

static int cmd_run(int argc, char **argv)
{
    struct job_flags f = {.rank_timeout = -1};
    /* --report: the job's text, and the trace (a temporary file when
     * --trace does not keep it) */
    char *job_text = NULL;
    size_t job_len = 0;
    bool job_cut = false;
    char tmp_trace[4200] = "";
    const char *trace_path = NULL, *failure = NULL;
    int code = parse_job_flags("run", argc, argv, &f);
    f.check_outputs = true;
    trace_path = f.trace;
    if (code >= 0)
        goto out;
    if (f.trace_blocks && !f.trace) {
        code = usage_error("%s", "--trace-blocks says what the trace holds: give --trace FILE too",
                           "run");
        goto out;
    }
    bool mpi = f.backend == 2 || (f.backend == 0 && ptm_comm_launched());
    char err[16384];
    if (f.backend == 1 && ptm_comm_launched_size() > 1) {
        /* each process would run the whole job and write the same outputs */
        fprintf(stderr, "ptm: error: --backend threads under mpirun with %d processes would run "
                        "the job %d times; use --backend mpi, or one process\n",
                ptm_comm_launched_size(), ptm_comm_launched_size());
        code = PTM_EXIT_USAGE;
        goto out;
    }
    if (mpi && ptm_comm_init(NULL, NULL, true, err, sizeof(err)) != 0) {
        fprintf(stderr, "ptm: error: %s\n", err);
        code = PTM_EXIT_USAGE;
        goto out;
    }
    /* a rank that stops answering ends the job (spec/runtime.md) */
    ptm_comm_patience(f.rank_timeout >= 0 ? f.rank_timeout : PTM_COMM_PATIENCE, ptm_run_signal);
    ptm_comm_note("no checkpoint to go on from (ptm run --checkpoint DIR keeps one)");
    int rank = ptm_comm_rank();
    char who[32] = "";
    if (ptm_comm_size() > 1)
        snprintf(who, sizeof(who), "rank %d: ", rank);
    /* every rank checks the job; rank 0 speaks for all */
    f.silent = rank != 0;
    struct ptm_plan *plan = NULL;
    struct job_where at = {0};
    /* a run resumed: its job (unless given), workers and seed from the
     * checkpoint's manifest */
    struct ptm_ckpt_info ci;
    if (f.resume) {
        int rc = ptm_ckpt_info(f.resume, &ci, err, sizeof(err));
        const char *why = NULL;
        char whybuf[256];
        if (rc == 0 && f.workers && f.workers != ci.workers) {
            snprintf(whybuf, sizeof(whybuf), "it was written by %d worker%s, not --workers %lld",
                     ci.workers, ci.workers == 1 ? "" : "s", f.workers);
            why = whybuf;
        } else if (rc == 0 && f.has_seed && (uint64_t)f.seed != ci.seed) {
            snprintf(whybuf, sizeof(whybuf), "it was written with seed %llu, not --seed %lld",
                     (unsigned long long)ci.seed, f.seed);
            why = whybuf;
        }
        if (rc != 0 || why) {
            if (rank == 0) {
                if (why)
                    fprintf(stderr, "ptm: error: cannot resume from '%s': %s (a run resumes "
                                    "as it was started)\n", f.resume, why);
                else
                    fprintf(stderr, "ptm: error: %s\n", err);
            }
            code = why ? PTM_EXIT_USAGE : PTM_EXIT_FAILED;
            goto out;
        }
        if (f.nfiles == 0)
            f.files[f.nfiles++] = ci.job;
        f.workers = ci.workers;
        f.has_seed = true;
        f.seed = (long long)ci.seed;
    }
    code = load_job(f.files[0], &f, &plan, &at);
    if (code != PTM_EXIT_OK)
        goto out_plan;
    if (f.has_every && !f.checkpoint && !f.resume && !plan->checkpoint.dir) {
        code = usage_error("%s", "--every says when checkpoints are written: give --checkpoint DIR "
                                 "too (or a checkpoint statement in the job)", "run");
        goto out_plan;
    }
    if (f.trace && (code = cli_check_not_input("--trace", f.trace, f.files[0], plan)) != PTM_EXIT_OK)
        goto out_plan;
    if (f.report &&
        (code = cli_check_not_input("--report", f.report, f.files[0], plan)) != PTM_EXIT_OK)
        goto out_plan;
    if (f.report && f.trace && same_target(f.report, f.trace)) {
        code = usage_error("--report %s is the --trace file: the report would overwrite the trace",
                           f.report, "run");
        goto out_plan;
    }
    if (f.report && rank == 0) {
        if (strcmp(f.files[0], "-") != 0 &&
            (code = cli_read_job_text(f.files[0], &job_text, &job_len, &job_cut)) != PTM_EXIT_OK)
            goto out_plan;
        if (!f.trace) {
            const char *dir = getenv("TMPDIR");
            snprintf(tmp_trace, sizeof(tmp_trace), "%s/ptm-trace-XXXXXX",
                     dir && *dir && strlen(dir) < 4096 ? dir : "/tmp");
            int fd = mkstemp(tmp_trace);
            if (fd < 0) {
                fprintf(stderr, "ptm: error: cannot make a temporary file for the trace of "
                                "--report ('%s'): %s\n",
                        tmp_trace, strerror(errno));
                tmp_trace[0] = '\0';
                code = PTM_EXIT_FAILED;
                goto out_plan;
            }
            close(fd);
            trace_path = tmp_trace;
        }
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct ptm_run_opts o = {
        .workers = f.workers ? (int)f.workers : (ncpu > 0 ? (int)(ncpu < 1024 ? ncpu : 1024) : 1),
        .has_seed = f.has_seed,
        .seed = (uint64_t)f.seed,
        .trace = rank == 0 ? trace_path : NULL,
        .log = rank == 0 ? stderr : NULL,
        .quiet = f.quiet,
        .log_tty = isatty(STDERR_FILENO) != 0,
        .update_at = at.update[0] ? at.update : NULL,
        .objective_at = at.objective[0] ? at.objective : NULL,
        .param_at = (const char *const *)at.param,
        .depend_at = at.depend[0] ? at.depend : NULL,
        .priority_at = at.priority[0] ? at.priority : NULL,
        .cost_at = at.cost[0] ? at.cost : NULL,
        .order_at = at.order[0] ? at.order : NULL,
        .stragglers = f.stragglers,
        .nstragglers = f.nstragglers,
        .memory_limit = f.memory_limit,
        .job = f.files[0],
        .checkpoint = f.checkpoint ? f.checkpoint : f.resume,
        .checkpoint_every = f.has_every ? f.every : 0,
        .checkpoint_unit = f.every_unit,
        .checkpoint_seconds = f.has_every ? f.every_seconds : 0,
        .resume = f.resume,
        .trace_blocks = f.trace_blocks,
        .outputs_only = true,
    };
    for (size_t k = 0; k < f.nstragglers; k++)
        if (f.stragglers[k].worker > o.workers) {
            char msg[256];
            if (f.workers)
                snprintf(msg, sizeof(msg), "--straggler: there is no worker %d with --workers %d",
                         f.stragglers[k].worker, o.workers);
            else
                snprintf(msg, sizeof(msg),
                         "--straggler: there is no worker %d: the run has %d, "
                         "one a core (set --workers)",
                         f.stragglers[k].worker, o.workers);
            code = usage_error("%s", msg, "run");
            goto out_plan;
        }
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_run *run;
    /* Ctrl-C and SIGTERM from here on, while the data is read too */
    ptm_run_catch_signals(true);
    int rc = ptm_run_new(plan, &o, &dg, err, sizeof(err), &run);
    ptm_data_diags_print(stderr, &dg, use_color(f.color));
    ptm_data_diags_release(&dg);
    if (rc != 0) {
        if (rc == PTM_EDATA || rc == PTM_ENOENT || rc == PTM_EIO || rc == PTM_ETOOBIG) {
            code = PTM_EXIT_DATA;
            if (who[0])
                fprintf(stderr, "ptm: error: %sbad data\n", who);
        } else {
            fprintf(stderr, "ptm: error: %s%s: %s\n", who, f.files[0],
                    err[0] ? err : ptm_strerror(rc));
            code = PTM_EXIT_FAILED;
        }
        code = run_failed(code);
        goto out_plan;
    }
    if (f.resume) {
        rc = ptm_run_resume(run, f.resume, err, sizeof(err));
        if (rc != 0) {
            fprintf(stderr, "ptm: error: %s%s\n", who, err);
            code = run_failed(rc == PTM_EDATA ? PTM_EXIT_DATA : PTM_EXIT_FAILED);
            ptm_run_free(run);
            ptm_run_catch_signals(false);
            goto out_plan;
        }
        if (rank == 0 && !f.quiet) {
            fprintf(stderr, "ptm: resumed from '%s' at round %lld (sweep %lld, %.3fs",
                    f.resume, (long long)ci.round, (long long)ci.sweeps, ci.seconds);
            if (!isnan(ci.objective))
                fprintf(stderr, ", objective %.10g", ci.objective);
            fprintf(stderr, ")\n");
        }
    }
    rc = ptm_run_exec(run, err, sizeof(err));
    struct ptm_run_stats done;
    ptm_run_stats(run, &done);
    if (rc != 0) {
        fprintf(stderr, "ptm: error: %s%s\n", who, err[0] ? err : ptm_strerror(rc));
        failure = err[0] ? err : ptm_strerror(rc);
        if (f.report && rank == 0 && done.rounds > 0)
            write_report(&f, trace_path, job_text, job_len, job_cut, failure);
        code = run_failed(PTM_EXIT_FAILED);
    } else if (ptm_run_interrupted() && done.rounds == 0 && ptm_comm_size() == 1) {
        /* before the first round: the outputs would be the initial values
         * (under MPI every rank takes part in the writing: it goes on) */
        if (rank == 0)
            fprintf(stderr, "ptm: %s before the first round; nothing written\n",
                    ptm_run_signal() == SIGTERM ? "terminated" : "interrupted");
        code = 128 + ptm_run_signal();
    } else {
        if (ptm_run_interrupted() && rank == 0)
            fprintf(stderr, "ptm: %s; writing the outputs%s%s%s\n",
                    ptm_run_signal() == SIGTERM ? "terminated" : "interrupted",
                    o.checkpoint || plan->checkpoint.dir ? " (a checkpoint is in '" : "",
                    o.checkpoint ? o.checkpoint : plan->checkpoint.dir ? plan->checkpoint.dir : "",
                    o.checkpoint || plan->checkpoint.dir ? "': ptm run --resume DIR goes on)" : "");
        if (ptm_comm_size() > 1) {
            /* what the ranks sent each other, summed at rank 0 */
            struct ptm_run_stats st;
            ptm_run_stats(run, &st);
            double bytes = (double)ptm_comm_bytes();
            ptm_comm_sum_to_root(&bytes, 1);
            if (rank == 0 && !f.quiet)
                fprintf(stderr, "ptm: %d ranks, %lld rounds, %.0f bytes sent between ranks (%.0f a round)\n",
                        ptm_comm_size(), (long long)st.rounds, bytes,
                        st.rounds ? bytes / (double)st.rounds : 0);
        }
        rc = ptm_run_write_outputs(run, err, sizeof(err));
        if (rc != 0)
            fprintf(stderr, "ptm: error: %s%s\n", who, err);
        /* the page of the run, also when no output was written */
        int rcode = PTM_EXIT_OK;
        if (f.report && rank == 0)
            rcode = write_report(&f, trace_path, job_text, job_len, job_cut,
                                 rc != 0 ? err : NULL);
        if (rc != 0)
            code = run_failed(PTM_EXIT_FAILED);
        else if (ptm_run_interrupted())
            code = 128 + ptm_run_signal(); /* as a shell reports the signal */
        else
            code = rcode;
    }
    ptm_run_free(run);
    ptm_run_catch_signals(false);
out_plan:
    plan_free(plan);
    job_where_release(&at);
out:
    if (tmp_trace[0])
        unlink(tmp_trace);
    ptm_free(job_text);
    ptm_comm_finish();
    free_job_flags(&f);
    return code;
}

/* ---- gen ---------------------------------------------------------------- */

/* `ptm gen` runs the generators of the models (runtime/models/model.h):
 * each brings its flags, their check, its help and its run; --seed and
 * --out are every model's. */

static void gen_help(FILE *f)
{
    size_t n;
    const struct ptm_model *const *ms = ptm_models(&n);
    fputs("usage: ptm gen MODEL --seed N --out DIR [OPTIONS]\n", f);
    for (size_t i = 0; i < n; i++)
        if (ms[i]->gen)
            fputs(ms[i]->gen->usage, f);
    fputs("\n"
          "Write a synthetic data set for MODEL into DIR (created when missing), with\n"
          "its ground truth, under the names and in the formats the example jobs\n"
          "read: 'ptm gen mf --seed 1 --out examples/mf/data' writes what\n"
          "examples/mf/mf.ptm reads. The same options and seed give the same\n"
          "bytes. Each file is written to a temporary name and renamed into place.\n"
          "'ptm gen' alone lists the models.\n"
          "\n"
          "  --seed N       seed of the generator, 0 .. 2^63-1 (required)\n"
          "  --out DIR      directory to write into (required)\n",
          f);
    for (size_t i = 0; i < n; i++)
        if (ms[i]->gen) {
            fputc('\n', f);
            fputs(ms[i]->gen->help, f);
        }
    fputs("\nExit status: 0 ok, 2 usage error, 1 cannot write (or out of memory).\n", f);
}

/* --seed and --out, which every model takes. */
static const struct gen_flag gen_seed =
    GEN_WHOLE("--seed", 0, INT64_MAX, "a whole number from 0 to 9223372036854775807");
static const struct gen_flag gen_out = {"--out", 's', 0, 0, 0, 0, false, false,
                                        "a directory name"};

/* The flags given, before the model is known (it may come after its
 * flags): each flag of any model, its first model's row (models give a
 * name the same row), once. */
#define GEN_ALL_MAX 64
struct gen_given {
    const char *model;
    size_t n;
    const struct gen_flag *flag[GEN_ALL_MAX];
    bool given[GEN_ALL_MAX];
    long long whole[GEN_ALL_MAX];
    double real[GEN_ALL_MAX];
    const char *text[GEN_ALL_MAX];
};

static bool gen_named(const struct gen_flag *f, const char *name, size_t len)
{
    return strlen(f->name) == len && strncmp(f->name, name, len) == 0;
}

/* The index in g of the flag named name[0 .. len), added when first
 * asked for; -1 when no model has it. */
static int gen_flag_index(struct gen_given *g, const char *name, size_t len)
{
    for (size_t i = 0; i < g->n; i++)
        if (gen_named(g->flag[i], name, len))
            return (int)i;
    const struct gen_flag *found = gen_named(&gen_seed, name, len)  ? &gen_seed
                                   : gen_named(&gen_out, name, len) ? &gen_out
                                                                    : NULL;
    size_t n;
    const struct ptm_model *const *ms = ptm_models(&n);
    for (size_t i = 0; i < n && !found; i++)
        for (const struct gen_flag *f = ms[i]->gen ? ms[i]->gen->flags : NULL; f && f->name; f++)
            if (gen_named(f, name, len)) {
                found = f;
                break;
            }
    if (!found || g->n == GEN_ALL_MAX)
        return -1;
    g->flag[g->n] = found;
    return (int)g->n++;
}

/* The index in g of flag f when it was given, else -1. */
static int gen_given_index(const struct gen_given *g, const struct gen_flag *f)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->flag[i] == f && g->given[i])
            return (int)i;
    return -1;
}

/* The integer in text, all of it, within [lo, hi]; false when it is not. */
static bool parse_whole(const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*text == '\0' || isspace((unsigned char)*text) || *end != '\0' || errno == ERANGE ||
        v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The finite number in text, all of it, within [lo, hi] (lo excluded when
 * lo_open); false when it is not. */
static bool parse_real(const char *text, double lo, double hi, bool lo_open, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (*text == '\0' || isspace((unsigned char)*text) || *end != '\0' || errno == ERANGE ||
        !isfinite(v) || v < lo || (lo_open && v == lo) || v > hi)
        return false;
    *out = v;
    return true;
}

/* mkdir -p path; false with errno set on failure. */
static bool make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return false;
    bool ok = true;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (mkdir(p, 0777) != 0 && !(errno == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
            if (errno == EEXIST)
                errno = ENOTDIR;
            ok = false;
        }
        *s = c;
        if (!ok || c == '\0')
            break;
    }
    int saved = errno;
    free(p);
    errno = saved;
    return ok;
}

/* "ptm: MESSAGE" and the pointer to help; the usage error status. */
static int gen_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int gen_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ptm: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\ntry 'ptm help gen'\n");
    va_end(ap);
    return PTM_EXIT_USAGE;
}

static int gen_list_models(void)
{
    size_t n;
    const struct ptm_model *const *ms = ptm_models(&n);
    fprintf(stderr, "usage: ptm gen MODEL --seed N --out DIR [OPTIONS]\n\nmodels:\n");
    for (size_t i = 0; i < n; i++)
        if (ms[i]->gen)
            fprintf(stderr, "  %-10s %s\n", ms[i]->name, ms[i]->gen->summary);
    fprintf(stderr, "try 'ptm help gen'\n");
    return PTM_EXIT_USAGE;
}

/* Parse argv into g; returns -1 to go on, else the exit status. */
static int gen_parse(int argc, char **argv, struct gen_given *g)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(find_command("gen"));
            return PTM_EXIT_OK;
        }
        if (arg[0] != '-') {
            if (g->model)
                return usage_error("gen: unexpected argument '%s'", arg, "gen");
            g->model = arg;
            continue;
        }
        /* --flag VALUE or --flag=VALUE */
        const char *eq = strchr(arg, '=');
        int id = gen_flag_index(g, arg, eq ? (size_t)(eq - arg) : strlen(arg));
        if (id < 0)
            return usage_error("unknown option '%s' for 'gen'", arg, "gen");
        const struct gen_flag *f = g->flag[id];
        if (f->kind == 'b') { /* a switch */
            if (eq)
                return usage_error("%s takes no value", f->name, "gen");
            g->whole[id] = 1;
            g->given[id] = true;
            continue;
        }
        const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            return usage_error("%s needs a value", f->name, "gen");
        bool ok;
        if (f->kind == 'w') {
            ok = parse_whole(v, f->lo, f->hi, &g->whole[id]);
        } else if (f->kind == 'r') {
            ok = parse_real(v, f->rlo, f->rhi, f->lo_open, &g->real[id]) &&
                 !(f->hi_open && g->real[id] == f->rhi);
        } else {
            ok = *v != '\0';
            g->text[id] = v;
        }
        if (!ok)
            return gen_usage("bad value for %s: '%s' (want %s)", f->name, v, f->want);
        g->given[id] = true;
    }
    return -1;
}

/* The exit status of an unknown model, after its message. */
static int gen_unknown_model(const char *model)
{
    size_t n, k = 0;
    const struct ptm_model *const *ms = ptm_models(&n);
    const char *names[32];
    char list[256] = "";
    for (size_t i = 0; i < n && k < PTM_ARRAY_LEN(names); i++)
        if (ms[i]->gen) {
            size_t at = strlen(list);
            snprintf(list + at, sizeof(list) - at, "%s%s", k ? ", " : "", ms[i]->name);
            names[k++] = ms[i]->name;
        }
    const char *s = diag_suggest(model, strlen(model), names, k);
    if (s)
        return gen_usage("gen: unknown model '%s' (did you mean '%s'?)", model, s);
    return gen_usage("gen: unknown model '%s' (models: %s)", model, list);
}

static int cmd_gen(int argc, char **argv)
{
    struct gen_given g;
    memset(&g, 0, sizeof(g));
    int code = gen_parse(argc, argv, &g);
    if (code >= 0)
        return code;
    if (!g.model)
        return gen_list_models();
    const struct ptm_model *m = ptm_model_find(g.model);
    if (!m || !m->gen)
        return gen_unknown_model(g.model);
    /* the model's own flags, by their place in its table */
    struct gen_args a;
    memset(&a, 0, sizeof(a));
    for (size_t i = 0; i < g.n; i++) {
        if (!g.given[i] || g.flag[i] == &gen_seed || g.flag[i] == &gen_out)
            continue;
        int k = -1;
        for (int j = 0; j < GEN_FLAGS_MAX && m->gen->flags[j].name; j++)
            if (strcmp(m->gen->flags[j].name, g.flag[i]->name) == 0)
                k = j;
        if (k < 0)
            return gen_usage("gen %s: %s is not an option of '%s'", g.model, g.flag[i]->name,
                             g.model);
        a.given[k] = true;
        a.whole[k] = g.whole[i];
        a.real[k] = g.real[i];
    }
    int out = gen_given_index(&g, &gen_out), seed = gen_given_index(&g, &gen_seed);
    if (out < 0)
        return usage_error("gen %s: --out DIR is required", g.model, "gen");
    if (seed < 0)
        return usage_error("gen %s: --seed N is required", g.model, "gen");
    a.seed = (uint64_t)g.whole[seed];
    char msg[256];
    const char *bad = m->gen->check(&a, msg, sizeof(msg));
    if (bad)
        return gen_usage("%s", bad);
    const char *dir = g.text[out];
    if (!make_dirs(dir)) {
        fprintf(stderr, "ptm: error: cannot create directory '%s': %s\n", dir, strerror(errno));
        return PTM_EXIT_FAILED;
    }
    const char *file = NULL;
    int rc = m->gen->run(&a, dir, &file);
    if (rc == 0)
        return PTM_EXIT_OK;
    if (rc == PTM_EIO && file)
        fprintf(stderr, "ptm: error: cannot write '%s/%s': %s\n", dir, file, strerror(errno));
    else if (rc == PTM_EIO)
        fprintf(stderr, "ptm: error: cannot write into '%s': %s\n", dir, strerror(errno));
    else
        fprintf(stderr, "ptm: error: gen %s: %s\n", g.model, ptm_strerror(rc));
    return PTM_EXIT_FAILED;
}

/* ---- for the commands in other files (cli.h) ------------------------------- */

int cli_usage_error(const char *fmt, const char *arg, const char *cmd)
{
    return usage_error(fmt, arg, cmd);
}

bool cli_parse_whole(const char *text, long long lo, long long hi, long long *out)
{
    return parse_whole(text, lo, hi, out);
}

bool cli_parse_size(const char *text, unsigned long long *out)
{
    return parse_size(text, out);
}

bool cli_parse_straggler(const char *text, struct ptm_straggler *s, char *msg, size_t len)
{
    return parse_straggler(text, s, msg, len);
}

bool cli_parse_color(const char *when, bool *color)
{
    enum color c;
    if (!parse_color(when, &c))
        return false;
    *color = use_color(c);
    return true;
}

int cli_load_job(const char *path, const struct ptm_set *sets, unsigned nsets, bool color,
                 struct ptm_plan **plan)
{
    struct job_flags f = {.color = color ? COLOR_ALWAYS : COLOR_NEVER,
                          .sets = (struct ptm_set *)sets,
                          .nsets = nsets};
    return load_job(path, &f, plan, NULL);
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return PTM_EXIT_OK;
    }
    if (argc > 2)
        return usage_error("help: too many arguments (starting at '%s')", argv[2], "help");
    const struct command *c = find_command(argv[1]);
    if (!c) {
        const char *s = suggest_command(argv[1]);
        if (s) {
            fprintf(stderr, "ptm: no command '%s' (did you mean '%s'?)\n", argv[1], s);
            return PTM_EXIT_USAGE;
        }
        return usage_error("no command '%s'", argv[1], NULL);
    }
    print_help(c);
    return PTM_EXIT_OK;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return PTM_EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        usage(stdout);
        return PTM_EXIT_OK;
    }
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
        printf("ptm %s\n", PTM_VERSION);
        return PTM_EXIT_OK;
    }
    if (a[0] == '-')
        return usage_error("unknown option '%s'", a, NULL);
    const struct command *c = find_command(a);
    if (!c) {
        const char *s = suggest_command(a);
        if (s) {
            fprintf(stderr, "ptm: unknown command '%s' (did you mean '%s'?)\n", a, s);
            fprintf(stderr, "try 'ptm --help'\n");
            return PTM_EXIT_USAGE;
        }
        return usage_error("unknown command '%s'", a, NULL);
    }
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    ptm_alloc_init();
    int rc = run(argc, argv);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ptm: error: cannot write to standard output: %s\n", strerror(errno));
        return PTM_EXIT_FAILED;
    }
    return rc;
}
