/*
 * sem_outputs.c - the outputs of a job against the file system, as a run
 * from the current directory would write them (ptm check, ptm run; not
 * ptm compile, whose plan may run elsewhere): each output's directory
 * exists and is writable, and no output is one of the job's inputs,
 * compared by device and inode.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptm.h"
#include "sem_impl.h"

/* The outputs as a run from here writes them (compile_opts.check_outputs). */
void sem_check_output_files(struct sem *s, const struct ast_job *job)
{
    const struct ptm_plan *p = s->plan;
    const char *base = p->base_dir;
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

