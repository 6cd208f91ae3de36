/*
 * predict.c - `ptm predict`: apply what a run learned to new data and
 * score it (runtime/models/predict.h, spec/runtime.md "Predicting").
 *
 * Exit codes as the other commands: 0 ok, 1 failed (the model cannot
 * predict, its parameters do not fit the data, an output cannot be
 * written), 2 usage, 3 the job has errors, 4 bad data (the new data or a
 * parameter's file).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "data.h"
#include "predict.h"
#include "ptm.h"
#include "wfile.h"

#define SWEEPS_MAX 100000

const char cli_predict_help[] =
    "usage: ptm predict --data FILE [-o FILE] [--model DIR] [--param NAME=FILE]...\n"
    "                   [--vocab FILE] [--sweeps N] [--seed N] [--set NAME=VALUE]...\n"
    "                   [--color=WHEN] JOB.ptm|PLAN.yaml\n"
    "\n"
    "Apply the model a run of the job learned to new data, and score it. The\n"
    "job names everything: its update rule the model, the parameters that\n"
    "hold what was learned and the data they were learned from; its 'output'\n"
    "statements the files 'ptm run' wrote them to, which are read back (the\n"
    "table format 'ptm run' writes). The new data is read as the job\n"
    "declares the data it learned from (its format: libsvm, csv, mm, uci).\n"
    "\n"
    "  lasso_cd     X beta (+ the intercept): a prediction a row; with labels:\n"
    "               rmse, mae, r2\n"
    "  logreg_sgd   the probability of a positive label (> 0) a row; with\n"
    "               labels: logloss, accuracy (at 1/2), auc\n"
    "  mf_sgd, mf_ccd\n"
    "               W_i . H_j for every entry (i, j) of the data, a line\n"
    "               'i<TAB>j<TAB>prediction'; with values: rmse, mae, r2\n"
    "  lda_gibbs    each document's topic proportions by fold-in (Gibbs\n"
    "               sampling with the trained topics fixed), a line of K;\n"
    "               loglik_per_word and perplexity of held-out words\n"
    "               (document completion: every other token held out)\n"
    "  update lua   the Lua file's predict(w, job): one prediction a row, and\n"
    "               the metrics it returns (spec/runtime.md, \"Lua hooks\")\n"
    "\n"
    "The metrics go to standard output, one 'NAME VALUE' a line after a line\n"
    "that says what was predicted (to standard error with -o -).\n"
    "\n"
    "  --data FILE       the new data ('-': standard input)\n"
    "  -o FILE           write the predictions to FILE (a temporary file\n"
    "                    renamed into place); '-': standard output. Without\n"
    "                    -o only the metrics are printed\n"
    "  --model DIR       read the outputs' files from DIR instead of the\n"
    "                    current directory (where 'ptm run' wrote them)\n"
    "  --param NAME=FILE read parameter NAME from FILE instead\n"
    "  --vocab FILE      UCI data: its vocabulary (default: the job's)\n"
    "  --sweeps N        LDA: fold-in sweeps, 1 .. 100000 (default 30)\n"
    "  --seed N          seed of the fold-in, 0 .. 2^53-1 (default: the job's)\n"
    "  --set NAME=VALUE  override a const of the job, or an option: update.KEY,\n"
     "                    objective.KEY, schedule.KEY (--set update.rate=0.1)\n"
    "  --color=WHEN      colour diagnostics: auto, always, never\n"
    "\n"
    "Exit status: 0 ok, 1 failed, 2 usage error, 3 the job has errors, 4 bad\n"
    "data (the new data or a parameter's file).\n";

struct predict_flags {
    const char *job, *data, *out, *model, *vocab;
    struct ptm_set *sets;
    unsigned nsets;
    struct ptm_predict_file *files;
    size_t nfiles;
    long long sweeps, seed;
    bool has_seed;
    bool color;
};

/* The value of a flag given as "--flag VALUE" or "--flag=VALUE"; NULL
 * when a is not that flag. *i advances past a separate value. */
static const char *flag_value(const char *flag, int argc, char **argv, int *i, bool *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(flag);
    *missing = false;
    if (strncmp(a, flag, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse(int argc, char **argv, struct predict_flags *f)
{
    f->sets = calloc((size_t)argc, sizeof(*f->sets));
    f->files = calloc((size_t)argc, sizeof(*f->files));
    if (!f->sets || !f->files) {
        fprintf(stderr, "ptm: error: out of memory\n");
        return PTM_EXIT_FAILED;
    }
    bool color = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing;
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (f->job)
                return cli_usage_error("predict takes one job spec (got another: '%s')", a,
                                       "predict");
            f->job = a;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(cli_predict_help, stdout);
            return PTM_EXIT_OK;
        }
        if (strncmp(a, "--color", 7) == 0 && (a[7] == '=' || a[7] == '\0')) {
            if (!cli_parse_color(a[7] ? a + 8 : "always", &color))
                return cli_usage_error("bad value for --color: '%s' (use auto, always or never)",
                                       a + 8, "predict");
            f->color = color;
            continue;
        }
        static const char *const flags[] = {"--data", "-o",     "--output", "--model", "--param",
                                            "--vocab", "--sweeps", "--seed",  "--set"};
        int which = -1;
        v = NULL;
        for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]) && which < 0; k++) {
            v = flag_value(flags[k], argc, argv, &i, &missing);
            if (missing)
                return cli_usage_error("%s needs a value", flags[k], "predict");
            if (v)
                which = (int)k;
        }
        if (which < 0)
            return cli_usage_error("unknown option '%s' for 'predict'", a, "predict");
        if (!*v && which != 8)
            return cli_usage_error("%s needs a value", flags[which], "predict");
        switch (which) {
        case 0:
            f->data = v;
            break;
        case 1:
        case 2:
            f->out = v;
            break;
        case 3:
            f->model = v;
            break;
        case 4:
        case 8: {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                return cli_usage_error(which == 4 ? "--param takes NAME=FILE, not '%s'"
                                                  : "--set takes NAME=VALUE, not '%s'",
                                       v, "predict");
            char *name = strndup(v, (size_t)(eq - v));
            if (!name) {
                fprintf(stderr, "ptm: error: out of memory\n");
                return PTM_EXIT_FAILED;
            }
            if (which == 4) {
                if (!eq[1]) {
                    free(name);
                    return cli_usage_error("--param %s needs a file", v, "predict");
                }
                f->files[f->nfiles].param = name;
                f->files[f->nfiles++].path = eq + 1;
            } else {
                f->sets[f->nsets].name = name;
                f->sets[f->nsets++].value = eq + 1;
            }
            break;
        }
        case 5:
            f->vocab = v;
            break;
        case 6:
            if (!cli_parse_whole(v, 1, SWEEPS_MAX, &f->sweeps))
                return cli_usage_error("bad value for --sweeps: '%s' (want a whole number from 1 "
                                       "to 100000)",
                                       v, "predict");
            break;
        case 7:
            if (!cli_parse_whole(v, 0, PTM_WHOLE_MAX, &f->seed))
                return cli_usage_error("bad value for --seed: '%s' (want a whole number from 0 "
                                       "to 9007199254740991)",
                                       v, "predict");
            f->has_seed = true;
            break;
        }
    }
    if (!f->job)
        return cli_usage_error("%s: no job spec given", "predict", "predict");
    if (!f->data)
        return cli_usage_error("%s: --data FILE is required (the new data)", "predict",
                               "predict");
    return -1;
}

static void release(struct predict_flags *f)
{
    if (f->sets)
        for (unsigned k = 0; k < f->nsets; k++)
            free((char *)f->sets[k].name);
    if (f->files)
        for (size_t k = 0; k < f->nfiles; k++)
            free((char *)f->files[k].param);
    free(f->sets);
    free(f->files);
}

/* True when path a and path b name the same existing file. */
static bool same_file(const char *a, const char *b)
{
    struct stat sb;
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return false;
    return stat(b, &sb) == 0 && ptm_is_file(NULL, a, &sb);
}

int cli_predict(int argc, char **argv)
{
    struct predict_flags f = {0};
    int code = parse(argc, argv, &f);
    if (code >= 0) {
        release(&f);
        return code;
    }
    struct ptm_plan *plan = NULL;
    code = cli_load_job(f.job, f.sets, f.nsets, f.color, &plan);
    if (code != PTM_EXIT_OK) {
        release(&f);
        return code;
    }
    bool to_stdout = f.out && strcmp(f.out, "-") == 0;
    struct ptm_predict pr = {
        .plan = plan,
        .model_dir = f.model,
        .files = f.files,
        .nfiles = f.nfiles,
        .data_path = f.data,
        .vocab_path = f.vocab,
        .log = stderr,
        .color = f.color,
        .seed = f.has_seed ? (uint64_t)f.seed : plan->seed,
        .sweeps = f.sweeps,
    };
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_wfile w = {0};
    bool wopen = false;
    char err[4096] = "";
    int rc = ptm_predict_init(&pr, &dg);
    if (rc == 0 && f.out && !to_stdout) {
        /* the predictions never replace what they are made from */
        const char *inputs[] = {f.job, f.data, f.vocab};
        for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++)
            if (same_file(f.out, inputs[k])) {
                fprintf(stderr, "ptm: error: -o %s is the input '%s': it would be overwritten\n",
                        f.out, inputs[k]);
                code = PTM_EXIT_USAGE;
                goto out;
            }
        for (size_t k = 0; k < f.nfiles; k++)
            if (same_file(f.out, f.files[k].path)) {
                fprintf(stderr, "ptm: error: -o %s is the file of %s: it would be overwritten\n",
                        f.out, f.files[k].param);
                code = PTM_EXIT_USAGE;
                goto out;
            }
        for (uint32_t k = 0; k < plan->noutputs; k++) {
            char path[8192];
            const char *p = plan->outputs[k].path;
            snprintf(path, sizeof(path), "%s%s%s", f.model && p[0] != '/' ? f.model : "",
                     f.model && p[0] != '/' ? "/" : "", p);
            if (same_file(f.out, path)) {
                fprintf(stderr,
                        "ptm: error: -o %s is '%s', where the job writes %s: it would be "
                        "overwritten\n",
                        f.out, path, plan->params[plan->outputs[k].param].name);
                code = PTM_EXIT_USAGE;
                goto out;
            }
        }
    }
    if (rc == 0 && f.out) {
        if (to_stdout) {
            pr.out = stdout;
        } else {
            rc = ptm_wfile_open(&w, f.out);
            wopen = true;
            pr.out = w.f;
            if (rc != 0)
                snprintf(err, sizeof(err), "cannot write '%s': %s", f.out,
                         rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
        }
    }
    if (rc == 0)
        rc = ptm_predict_run(&pr, err, sizeof(err));
    fflush(stdout);
    ptm_data_diags_print(stderr, &dg, f.color);
    if (rc == 0 && wopen) {
        rc = ptm_wfile_commit(&w);
        wopen = false;
        if (rc != 0)
            snprintf(err, sizeof(err), "cannot write '%s': %s", f.out,
                     rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
    }
    if (rc != 0) {
        if (err[0])
            fprintf(stderr, "ptm: error: %s\n", err);
        else
            fprintf(stderr, "ptm: error: %s\n", ptm_strerror(rc));
        code = rc == PTM_EDATA || rc == PTM_ENOENT ? PTM_EXIT_DATA : PTM_EXIT_FAILED;
        if (rc == PTM_EIO && dg.nerrors)
            code = PTM_EXIT_DATA;
        goto out;
    }
    FILE *m = to_stdout ? stderr : stdout;
    fprintf(m, "predicted %lld %s of %s%s%s\n", (long long)pr.predicted, pr.unit,
            strcmp(f.data, "-") ? f.data : "<stdin>", f.out ? " to " : "",
            f.out ? (to_stdout ? "standard output" : f.out) : "");
    for (int k = 0; k < pr.nmetrics; k++)
        fprintf(m, "%s %.10g\n", pr.metric[k].name, pr.metric[k].value);
    if (pr.nmetrics == 0 && !f.out)
        fprintf(m, "(the data has no labels to score against; -o FILE writes the "
                   "predictions)\n");
out:
    if (wopen)
        ptm_wfile_abort(&w);
    ptm_data_diags_release(&dg);
    ptm_predict_release(&pr);
    plan_free(plan);
    release(&f);
    return code;
}
