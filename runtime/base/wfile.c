/* wfile.c - files replaced whole or not at all (wfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "wfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "ptm.h"

static void release(struct ptm_wfile *w)
{
    ptm_free(w->path);
    ptm_free(w->tmp);
    w->path = w->tmp = NULL;
}

int ptm_wfile_open(struct ptm_wfile *w, const char *path)
{
    memset(w, 0, sizeof(*w));
    size_t n = strlen(path) + 1;
    w->path = ptm_malloc(n);
    w->tmp = ptm_malloc(n + 32);
    if (!w->path || !w->tmp) {
        release(w);
        return PTM_ENOMEM;
    }
    memcpy(w->path, path, n);
    snprintf(w->tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
    w->f = fopen(w->tmp, "wb");
    if (!w->f) {
        w->err = errno;
        return PTM_EIO;
    }
    return 0;
}

int ptm_wfile_finish(struct ptm_wfile *w)
{
    if (!w->f)
        return w->err ? PTM_EIO : 0;
    if (!w->err && ferror(w->f))
        w->err = EIO;
    if (!w->err && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0))
        w->err = errno ? errno : EIO;
    if (fclose(w->f) != 0 && !w->err)
        w->err = errno ? errno : EIO;
    w->f = NULL;
    return w->err ? PTM_EIO : 0;
}

int ptm_wfile_rename(struct ptm_wfile *w)
{
    if (!w->err && rename(w->tmp, w->path) != 0)
        w->err = errno;
    if (w->err) {
        ptm_wfile_abort(w);
        return PTM_EIO;
    }
    release(w);
    return 0;
}

int ptm_wfile_commit(struct ptm_wfile *w)
{
    ptm_wfile_finish(w);
    return ptm_wfile_rename(w);
}

void ptm_wfile_abort(struct ptm_wfile *w)
{
    int saved = errno;
    if (w->f)
        fclose(w->f);
    w->f = NULL;
    if (w->tmp)
        remove(w->tmp);
    release(w);
    errno = saved;
}
