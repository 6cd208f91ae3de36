/*
 * sem_outputs.c - the outputs of a job against the file system, as a run
 * from the current directory would write them (ptm check, ptm run; not
 * ptm compile, whose plan may run elsewhere): each output's directory
 * exists and is writable, and no output is one of the job's inputs,
 * compared by device and inode; the checkpoint directory is a writable
 * directory, or the run can make it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptm.h"
#include "sem_impl.h"

/* checkpoint ... to "DIR": DIR, relative to the current directory as
 * outputs are, is a writable directory, or does not exist yet and the
 * nearest of its ancestors that does is one (the run makes the rest, as
 * mkdir -p does). */
static void check_checkpoint_dir(struct sem *s, const struct ast_stmt *st)
{
    const char *path = s->plan->checkpoint.dir;
    struct ptm_loc loc = st->u.checkpoint.dir_loc;
    char dir[4096];
    size_t n = path ? strlen(path) : 0;
    if (n == 0 || n >= sizeof(dir))
        return;
    memcpy(dir, path, n + 1);
    struct stat ds;
    bool self = true; /* dir is DIR itself, not an ancestor */
    for (;;) {
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = '\0';
        if (stat(dir, &ds) == 0)
            break;
        if (strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0)
            return; /* no directory to look at: the run will say */
        char *slash = strrchr(dir, '/'); /* up one */
        if (!slash)
            strcpy(dir, ".");
        else
            slash[slash == dir] = '\0'; /* "/x" -> "/" */
        n = strlen(dir);
        self = false;
    }
    if (!S_ISDIR(ds.st_mode)) {
        if (self)
            sem_error(s, loc, "cannot write checkpoints to \"%s\": it is not a directory", path);
        else
            sem_error(s, loc, "cannot write checkpoints to \"%s\": '%s' is not a directory", path,
                      dir);
    } else if (access(dir, W_OK | X_OK) != 0) {
        sem_error(s, loc, "cannot write checkpoints to \"%s\": the directory '%s' is not "
                          "writable",
                  path, dir);
    }
}

/* The outputs as a run from here writes them (compile_opts.check_outputs). */
void sem_check_output_files(struct sem *s, const struct ast_job *job)
{
    const struct ptm_plan *p = s->plan;
    const char *base = p->base_dir;
    for (const struct ast_stmt *st = job->head; st; st = st->next)
        if (st->kind == AST_STMT_CHECKPOINT) {
            check_checkpoint_dir(s, st); /* the first one: the one the plan has */
            break;
        }
    uint32_t k = 0;
    for (const struct ast_stmt *st = job->head; st; st = st->next) {
        if (st->kind != AST_STMT_OUTPUT)
            continue;
        if (k >= p->noutputs)
            break;
        const char *path = p->outputs[k++].path;
        if (!path || !path[0])
            continue;
        /* its directory: where the temporary file and the rename go */
        char dir[4096];
        const char *slash = strrchr(path, '/');
        int n = slash ? snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path),
                                 path)
                      : snprintf(dir, sizeof(dir), ".");
        struct stat ds;
        if (n < 0 || (size_t)n >= sizeof(dir))
            continue;
        if (stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode)) {
            sem_error(s, st->u.output.file_loc, "cannot write \"%s\": the directory '%s' does "
                                                "not exist (outputs are relative to the "
                                                "current directory)",
                      path, dir);
            continue;
        }
        if (access(dir, W_OK) != 0) {
            sem_error(s, st->u.output.file_loc, "cannot write \"%s\": the directory '%s' is "
                                                "not writable",
                      path, dir);
            continue;
        }
        struct stat os;
        if (stat(path, &os) != 0)
            continue; /* a new file: it overwrites nothing */
        const char *what = NULL, *which = NULL;
        if (ptm_is_file(NULL, s->src->name, &os))
            what = "the job spec", which = s->src->name;
        for (uint32_t d = 0; !what && d < p->ndata; d++) {
            if (ptm_is_file(base, p->data[d].path, &os))
                what = "the data file", which = p->data[d].path;
            else if (ptm_is_file(base, p->data[d].vocab, &os))
                what = "the vocabulary", which = p->data[d].vocab;
        }
        for (uint32_t b = 0; !what && b < p->nblocksets; b++)
            if (ptm_is_file(base, p->blocksets[b].edges, &os))
                what = "the edge list", which = p->blocksets[b].edges;
        for (uint32_t q = 0; !what && q < p->nparams; q++)
            if (ptm_is_file(base, p->params[q].init_path, &os) &&
                strcmp(p->params[q].name, p->params[p->outputs[k - 1].param].name) != 0)
                what = "the initial values of", which = p->params[q].name;
        const struct plan_hook *hooks[] = {&p->update, &p->objective};
        for (int h = 0; !what && h < 2; h++)
            if (hooks[h]->lua && ptm_is_file(base, hooks[h]->file, &os))
                what = "the Lua file", which = hooks[h]->file;
        if (what)
            sem_error(s, st->u.output.file_loc, "output \"%s\" is %s '%s': it would be "
                                                "overwritten",
                      path, what, which);
    }
}

