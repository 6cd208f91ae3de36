/* wfile.c - files replaced whole or not at all (wfile.h). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "wfile.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    /* a symbolic link stays one: the file it names is replaced */
    char *real = NULL;
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        real = realpath(path, NULL); /* NULL when it dangles: written through */
    const char *target = real ? real : path;
    size_t n = strlen(target) + 1;
    w->path = ptm_malloc(n);
    w->tmp = ptm_malloc(n + 32);
    if (!w->path || !w->tmp) {
        free(real);
        release(w);
        return PTM_ENOMEM;
    }
    memcpy(w->path, target, n);
    free(real);
    /* a device, a pipe, a dangling link: written in place, never replaced */
    bool special = (stat(w->path, &st) == 0 && !S_ISREG(st.st_mode)) ||
                   (lstat(w->path, &st) == 0 && S_ISLNK(st.st_mode));
    if (special) {
        ptm_free(w->tmp);
        w->tmp = NULL;
        w->f = fopen(w->path, "wb");
    } else {
        snprintf(w->tmp, n + 32, "%s.tmp%ld", w->path, (long)getpid());
        w->f = fopen(w->tmp, "wb");
    }
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
    /* the flush repeats a failed write, with its errno (ENOSPC, EDQUOT) */
    bool failed = ferror(w->f) != 0;
    errno = 0;
    if (!w->err && fflush(w->f) != 0)
        w->err = errno ? errno : EIO;
    if (!w->err && failed)
        w->err = EIO;
    /* a device or a pipe (written in place) may not sync */
    if (!w->err && fsync(fileno(w->f)) != 0 && (w->tmp || (errno != EINVAL && errno != EROFS)))
        w->err = errno ? errno : EIO;
    if (fclose(w->f) != 0 && !w->err)
        w->err = errno ? errno : EIO;
    w->f = NULL;
    return w->err ? PTM_EIO : 0;
}

int ptm_wfile_rename(struct ptm_wfile *w)
{
    if (!w->err && w->tmp && rename(w->tmp, w->path) != 0)
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
