/*
 * report.c - `ptm report TRACE -o PAGE.html`: one self-contained HTML page
 * about a run from its trace (viz/report.h); and the writing of that page
 * that `ptm run --report FILE` does at the end of a run (cli_report_write).
 *
 * Exit codes as the other commands: 0 ok, 1 the page cannot be written
 * (or out of memory), 2 usage (a bad flag, an unreadable file, an output
 * that would overwrite an input), 4 a malformed trace.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "cli.h"
#include "plan.h"
#include "ptm.h"
#include "report.h"
#include "viz.h"
#include "wfile.h"

/* The most of a job file a page shows. */
#define JOB_TEXT_MAX ((size_t)1 << 20)

const char cli_report_help[] =
    "usage: ptm report [--job FILE] [-o PAGE.html] TRACE.json\n"
    "\n"
    "Write one HTML page about the run whose trace is TRACE ('ptm run --trace\n"
    "FILE'): why it stopped (the trace's last line), its figures (rounds,\n"
    "sweeps, seconds, updates, the final objective and metrics, workers), the\n"
    "objective and each metric against wall seconds and against updates, with\n"
    "the gap to the best objective on a log scale, the schedule picture of\n"
    "'ptm plan --svg', each worker's busy and idle seconds and where the\n"
    "coordinator's time went, and the job. The page needs nothing beside it:\n"
    "its CSS and SVG are inline, with no script and no link, and it is\n"
    "well-formed XML as well as HTML. 'ptm run --report FILE' writes the same\n"
    "page when a run ends.\n"
    "\n"
    "  -o FILE           write the page to FILE, through a temporary file\n"
    "                    renamed into place (also --output FILE; default:\n"
    "                    standard output)\n"
    "  --job FILE        embed the text of this job file (by default the page\n"
    "                    names the file the trace names, without its text)\n"
    "\n"
    "Exit status: 0 ok, 1 the page cannot be written, 2 usage error or an\n"
    "unreadable file, 4 a malformed trace.\n";

static int oom(void)
{
    fprintf(stderr, "ptm: error: out of memory\n");
    return PTM_EXIT_FAILED;
}

int cli_read_job_text(const char *path, char **text, size_t *len, bool *cut)
{
    *text = NULL;
    *len = 0;
    *cut = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ptm: error: cannot read '%s': %s\n", path, strerror(errno));
        return PTM_EXIT_USAGE;
    }
    char *buf = ptm_malloc(JOB_TEXT_MAX + 1);
    if (!buf) {
        fclose(f);
        return oom();
    }
    size_t n = fread(buf, 1, JOB_TEXT_MAX + 1, f);
    bool failed = ferror(f) != 0;
    int e = errno;
    fclose(f);
    if (failed) {
        ptm_free(buf);
        fprintf(stderr, "ptm: error: cannot read '%s': %s\n", path, strerror(e ? e : EIO));
        return PTM_EXIT_USAGE;
    }
    if (n > JOB_TEXT_MAX) {
        n = JOB_TEXT_MAX;
        *cut = true;
    }
    *text = buf;
    *len = n;
    return PTM_EXIT_OK;
}

/* The trace at path, as ptm plan reads it, and the report's part of it. */
static int read_both(const char *path, struct ptm_trace **t, struct ptm_report **r)
{
    *t = NULL;
    *r = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ptm: error: cannot read '%s': %s\n", path, strerror(errno));
        return PTM_EXIT_USAGE;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        fprintf(stderr, "ptm: error: cannot read '%s': a report reads its trace twice: give a "
                        "file, not a pipe or a directory\n",
                path);
        return PTM_EXIT_USAGE;
    }
    char err[8192];
    int rc = ptm_trace_read(f, path, err, sizeof(err), t);
    if (rc == 0) {
        rewind(f);
        rc = ptm_report_read(f, path, err, sizeof(err), r);
    }
    fclose(f);
    if (rc != 0) {
        ptm_trace_free(*t);
        *t = NULL;
    }
    if (rc == PTM_ENOMEM)
        return oom();
    if (rc != 0) {
        fputs(err, stderr);
        if (err[0] && err[strlen(err) - 1] != '\n')
            fputc('\n', stderr);
        return rc == PTM_EIO ? PTM_EXIT_USAGE : PTM_EXIT_DATA;
    }
    return PTM_EXIT_OK;
}

int cli_report_write(const char *out, const char *trace, const struct ptm_report_opts *o)
{
    struct ptm_trace *t;
    struct ptm_report *r;
    int code = read_both(trace, &t, &r);
    if (code != PTM_EXIT_OK)
        return code;
    int rc;
    if (!o->trace) {
        /* a temporary file: the schedule picture names the job instead */
        const char *job = o->job && strcmp(o->job, "-") != 0 ? o->job : "standard input";
        char *name = plan_strdup(job);
        if (!name) {
            ptm_report_free(r);
            ptm_trace_free(t);
            return oom();
        }
        ptm_free(t->source);
        t->source = name;
    }
    struct ptm_wfile w = {0};
    if (out) {
        rc = ptm_wfile_open(&w, out);
        if (rc == 0) {
            rc = ptm_report_html(w.f, t, r, o);
            if (rc == 0)
                rc = ptm_wfile_commit(&w);
            else
                ptm_wfile_abort(&w);
        } else {
            ptm_wfile_abort(&w);
        }
    } else {
        rc = ptm_report_html(stdout, t, r, o);
    }
    if (rc != 0) {
        fprintf(stderr, "ptm: error: cannot write '%s': %s\n", out ? out : "standard output",
                rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
        code = PTM_EXIT_FAILED;
    }
    ptm_report_free(r);
    ptm_trace_free(t);
    return code;
}

/* out would overwrite the file at path (which exists): the message. */
static bool would_clobber(const char *flag, const char *out, const char *path, const char *what)
{
    struct stat st;
    if (!out || !path || stat(path, &st) != 0 || !ptm_is_file(NULL, out, &st))
        return false;
    fprintf(stderr, "ptm: error: %s %s is %s: it would be overwritten\n", flag, out, what);
    return true;
}

int cli_report(int argc, char **argv)
{
    const char *out = NULL, *job = NULL, *trace = NULL, *out_flag = "-o";
    bool files_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (files_only || a[0] != '-') {
            if (trace)
                return cli_usage_error("report takes one trace (got another: '%s')", a,
                                       "report");
            trace = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            files_only = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(cli_report_help, stdout);
            return PTM_EXIT_OK;
        }
        if (strcmp(a, "-") == 0)
            return cli_usage_error("%s: a report reads its trace twice: give a file, not "
                                   "standard input",
                                   "report", "report");
        const char *flag = NULL, *v = NULL;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--job") == 0) {
            flag = a;
            v = i + 1 < argc ? argv[++i] : NULL;
        } else if (strncmp(a, "--output=", 9) == 0 || strncmp(a, "--job=", 6) == 0) {
            flag = a[2] == 'o' ? "--output" : "--job";
            v = strchr(a, '=') + 1;
        } else {
            return cli_usage_error("unknown option '%s' for 'report'", a, "report");
        }
        if (!v || !*v)
            return cli_usage_error("%s needs a file name", flag, "report");
        if (strcmp(flag, "--job") == 0) {
            job = v;
        } else {
            out = v;
            out_flag = flag;
        }
    }
    if (!trace)
        return cli_usage_error("%s: no trace given", "report", "report");
    if (would_clobber(out_flag, out, trace, "the trace it reports on") ||
        would_clobber(out_flag, out, job, "the job it embeds"))
        return PTM_EXIT_USAGE;
    struct ptm_report_opts o = {.trace = trace, .job = job};
    char *text = NULL;
    bool cut = false;
    int code = PTM_EXIT_OK;
    if (job && (code = cli_read_job_text(job, &text, &o.job_len, &cut)) != PTM_EXIT_OK)
        return code;
    o.job_text = text;
    o.job_cut = cut;
    code = cli_report_write(out, trace, &o);
    ptm_free(text);
    return code;
}
