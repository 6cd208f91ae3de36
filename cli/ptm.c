/*
 * ptm.c - the ptm command: subcommands, flags, help and exit codes.
 *
 * Exit codes: 0 ok, 1 the run failed (or out of memory), 2 usage error
 * (unknown command or flag, missing file), 3 the spec has errors,
 * 4 bad data.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "ast.h"
#include "compiler.h"
#include "diag.h"
#include "lang.h"
#include "plan.h"
#include "plan_load.h"
#include "plan_yaml.h"
#include "ptm.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *help; /* usage line, blank line, details */
};

static int cmd_check(int argc, char **argv);
static int cmd_compile(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"check", cmd_check, "check job specs for errors",
     "usage: ptm check [--color=WHEN] [--set NAME=VALUE]... [--ast] JOB.ptm|PLAN.yaml...\n"
     "\n"
     "Parse and check each job spec (or load and check a schedule plan, as the\n"
     "runtime would) and report every error found, GNU style:\n"
     "  FILE:LINE:COL: error: MESSAGE\n"
     "followed by the source line and a caret under the problem. Lua hook\n"
     "files are loaded (sandboxed) to check the functions they define.\n"
     "\n"
     "  --set NAME=VALUE  override a const of the job (checked like the job)\n"
     "  --color=WHEN      colour diagnostics: auto (default: when stderr is a\n"
     "                    terminal and NO_COLOR is unset), always, never\n"
     "  --ast             print the syntax tree of each valid spec\n"
     "  -                 read the spec from standard input\n"
     "\n"
     "Exit status: 0 when every spec is valid, 3 when one has errors,\n"
     "2 on a usage error or an unreadable file.\n"},
    {"compile", cmd_compile, "compile a job spec into a schedule plan (YAML)",
     "usage: ptm compile [--color=WHEN] [--set NAME=VALUE]... [-o PLAN.yaml] JOB.ptm\n"
     "\n"
     "Check the job and write its schedule plan: everything the runtime needs,\n"
     "as YAML (spec/plan.md). Without -o the plan goes to standard output;\n"
     "with -o it is written to a temporary file and renamed into place, so\n"
     "PLAN.yaml is never left half-written. Nothing is written when the job\n"
     "has errors.\n"
     "\n"
     "  -o FILE           write the plan to FILE\n"
     "  --set NAME=VALUE  override a const of the job\n"
     "  --color=WHEN      colour diagnostics: auto, always, never\n"
     "\n"
     "Exit status: 0 ok, 3 the job has errors, 2 usage error, 1 cannot write.\n"},
    {"help", cmd_help, "show help for a command", "usage: ptm help [COMMAND]\n"},
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

/* Flags shared by the commands that read a job. */
struct job_flags {
    enum color color;
    bool dump;
    const char *out; /* compile -o */
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
    if (!f->sets || !f->files) {
        fprintf(stderr, "ptm: error: out of memory\n");
        return PTM_EXIT_FAILED;
    }
    bool is_compile = strcmp(cmd, "compile") == 0;
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
        } else if (!is_compile && strcmp(a, "--ast") == 0) {
            f->dump = true;
        } else if (is_compile && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            if (i + 1 >= argc)
                return usage_error("%s needs a file name", a, cmd);
            f->out = argv[++i];
        } else if (is_compile && strncmp(a, "--output=", 9) == 0) {
            f->out = a + 9;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(find_command(cmd)->help, stdout);
            return PTM_EXIT_OK;
        } else {
            char msg[128];
            snprintf(msg, sizeof(msg), "unknown option '%%s' for '%s'", cmd);
            return usage_error(msg, a, cmd);
        }
    }
    if (f->nfiles == 0)
        return usage_error("%s: no job spec given", cmd, cmd);
    if (is_compile && f->nfiles > 1)
        return usage_error("compile takes one job spec (got another: '%s')", f->files[1], cmd);
    return -1;
}

static void free_job_flags(struct job_flags *f)
{
    if (f->sets)
        for (unsigned i = 0; i < f->nsets; i++)
            free((char *)f->sets[i].name);
    free(f->sets);
    free(f->files);
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

/* Read, parse and check one job; on success *plan is set. Returns an exit
 * code; diagnostics are printed. */
static int load_job(const char *path, const struct job_flags *f, struct ptm_plan **plan)
{
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
    bool is_plan = strncmp(src.text, "ptm_plan:", 9) == 0;
    if (!dir)
        rc = PTM_ENOMEM;
    else if (is_plan)
        rc = ptm_plan_load(&src, &diags, plan);
    else
        rc = ptm_parse(&src, &arena, &diags, &job);
    if (rc == 0 && f->dump && !is_plan)
        ast_dump(stdout, job);
    if (rc == 0 && !is_plan) {
        struct ptm_compile_opts opts = {
            .base_dir = dir, .sets = f->sets, .nsets = f->nsets, .check_hooks = true};
        rc = ptm_compile(&src, job, &opts, &diags, plan);
    }
    fflush(stdout);
    ptm_diags_render(stderr, &src, &diags, use_color(f->color));
    int code = PTM_EXIT_OK;
    if (rc == PTM_ENOMEM) {
        fprintf(stderr, "%s: error: out of memory\n", src.name);
        code = PTM_EXIT_FAILED;
    } else if (rc != 0) {
        fprintf(stderr, "%s: %u error%s\n", src.name, diags.nerrors, diags.nerrors == 1 ? "" : "s");
        code = PTM_EXIT_SPEC;
    }
    free(dir);
    arena_release(&arena);
    ptm_source_release(&src);
    return code;
}

static int cmd_check(int argc, char **argv)
{
    struct job_flags f = {0};
    int worst = parse_job_flags("check", argc, argv, &f);
    if (worst >= 0)
        goto out;
    worst = PTM_EXIT_OK;
    for (int i = 0; i < f.nfiles; i++) {
        struct ptm_plan *plan;
        int code = load_job(f.files[i], &f, &plan);
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

/* Write the plan to path through a temporary file and a rename. */
static int write_plan_file(const struct ptm_plan *plan, const char *path)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp) {
        fprintf(stderr, "ptm: error: out of memory\n");
        return PTM_EXIT_FAILED;
    }
    snprintf(tmp, len + 16, "%s.tmp%ld", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "ptm: error: cannot write '%s': %s\n", path, strerror(errno));
        free(tmp);
        return PTM_EXIT_FAILED;
    }
    int rc = ptm_plan_emit(plan, out);
    int werr = ferror(out);
    if (fflush(out) != 0 || fsync(fileno(out)) != 0)
        werr = 1;
    if (fclose(out) != 0)
        werr = 1;
    if (rc != 0 || werr || rename(tmp, path) != 0) {
        fprintf(stderr, "ptm: error: cannot write '%s': %s\n", path,
                rc != 0 ? ptm_strerror(rc) : strerror(errno));
        remove(tmp);
        free(tmp);
        return PTM_EXIT_FAILED;
    }
    free(tmp);
    return PTM_EXIT_OK;
}

static int cmd_compile(int argc, char **argv)
{
    struct job_flags f = {0};
    int code = parse_job_flags("compile", argc, argv, &f);
    if (code >= 0)
        goto out;
    struct ptm_plan *plan;
    code = load_job(f.files[0], &f, &plan);
    if (code == PTM_EXIT_OK) {
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
    fputs(c->help, stdout);
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
    int rc = run(argc, argv);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ptm: error: cannot write to standard output: %s\n", strerror(errno));
        return PTM_EXIT_FAILED;
    }
    return rc;
}
