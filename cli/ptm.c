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
#include "diag.h"
#include "lang.h"
#include "ptm.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *help; /* usage line, blank line, details */
};

static int cmd_check(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"check", cmd_check, "check job specs for errors",
     "usage: ptm check [--color=WHEN] [--ast] JOB.ptm...\n"
     "\n"
     "Parse each job spec and report every error found, GNU style:\n"
     "  FILE:LINE:COL: error: MESSAGE\n"
     "followed by the source line and a caret under the problem.\n"
     "\n"
     "  --color=WHEN   colour diagnostics: auto (default: when stderr is a\n"
     "                 terminal and NO_COLOR is unset), always, never\n"
     "  --ast          print the syntax tree of each valid spec\n"
     "  -              read the spec from standard input\n"
     "\n"
     "Exit status: 0 when every spec is valid, 3 when one has errors,\n"
     "2 on a usage error or an unreadable file.\n"},
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

/* Check one file; returns its exit code. */
static int check_file(const char *path, bool color, bool dump)
{
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
    rc = ptm_parse(&src, &arena, &diags, &job);
    fflush(stdout);
    ptm_diags_render(stderr, &src, &diags, color);
    int code = PTM_EXIT_OK;
    if (rc == PTM_ENOMEM) {
        fprintf(stderr, "%s: error: out of memory\n", src.name);
        code = PTM_EXIT_FAILED;
    } else if (rc != 0) {
        fprintf(stderr, "%s: %u error%s\n", src.name, diags.nerrors, diags.nerrors == 1 ? "" : "s");
        code = PTM_EXIT_SPEC;
    } else if (dump) {
        ast_dump(stdout, job);
    } else {
        printf("%s: ok\n", src.name);
    }
    arena_release(&arena);
    ptm_source_release(&src);
    return code;
}

static int cmd_check(int argc, char **argv)
{
    enum color color = COLOR_AUTO;
    bool dump = false, files_only = false;
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (files_only || a[0] != '-' || strcmp(a, "-") == 0) {
            argv[1 + nfiles++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            files_only = true;
        } else if (strncmp(a, "--color=", 8) == 0) {
            if (!parse_color(a + 8, &color))
                return usage_error("bad value for --color: '%s' (use auto, always or never)",
                                   a + 8, "check");
        } else if (strcmp(a, "--color") == 0) {
            color = COLOR_ALWAYS;
        } else if (strcmp(a, "--ast") == 0) {
            dump = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(find_command("check")->help, stdout);
            return PTM_EXIT_OK;
        } else {
            return usage_error("unknown option '%s' for 'check'", a, "check");
        }
    }
    if (nfiles == 0)
        return usage_error("%s", "check: no job spec given", "check");
    bool c = use_color(color);
    int worst = PTM_EXIT_OK;
    for (int i = 0; i < nfiles; i++) {
        int code = check_file(argv[1 + i], c, dump);
        /* Usage and resource failures outrank spec errors. */
        if (code != PTM_EXIT_OK && (worst == PTM_EXIT_OK || code < worst))
            worst = code;
    }
    return worst;
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
