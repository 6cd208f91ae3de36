/* wfile.c - files replaced whole or not at all (wfile.h). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "wfile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
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

/* This machine's name as a temporary file carries it: letters, digits,
 * '-' and '.', at most 64 of them ("host" when unknown). */
static void host_name(char *buf, size_t len)
{
    char h[256] = "";
    if (gethostname(h, sizeof(h) - 1) != 0 || !h[0])
        snprintf(h, sizeof(h), "host");
    size_t k = 0;
    for (size_t i = 0; h[i] && k + 1 < len && k < 64; i++) {
        char c = h[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.';
        buf[k++] = ok ? c : '_';
    }
    buf[k] = '\0';
}

/* Remove the temporary files of path that processes of this machine left
 * when they died before renaming them (a kill -9 during the write):
 * PATH.tmpPID-HOST with HOST this machine's name and no process PID here.
 * Another machine's (a shared directory) and a live process's stay. */
static void remove_stale(const char *path, const char *host)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) : 0, blen = strlen(base);
    char dir[PATH_MAX];
    if (dirlen >= sizeof(dir))
        return;
    if (slash)
        snprintf(dir, sizeof(dir), "%.*s", (int)(dirlen ? dirlen : 1), dirlen ? path : "/");
    else
        snprintf(dir, sizeof(dir), ".");
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, blen) != 0 || strncmp(n + blen, ".tmp", 4) != 0)
            continue;
        const char *q = n + blen + 4;
        char *end;
        errno = 0;
        long pid = strtol(q, &end, 10);
        if (end == q || *q < '0' || *q > '9' || errno != 0 || pid <= 0 || *end != '-' ||
            strcmp(end + 1, host) != 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to know */
        char full[PATH_MAX];
        if (snprintf(full, sizeof(full), "%s/%s", dir, n) < (int)sizeof(full))
            unlink(full);
    }
    closedir(d);
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
    char host[72];
    host_name(host, sizeof(host));
    w->tmp = ptm_malloc(n + 32 + strlen(host));
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
        remove_stale(w->path, host);
        snprintf(w->tmp, n + 32 + strlen(host), "%s.tmp%ld-%s", w->path, (long)getpid(), host);
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

void ptm_fput_num(FILE *f, double v, char end)
{
    /* |v| < 2^53: 16 digits at most, which %.17g writes in full, with
     * neither a point nor an exponent */
    if (!(fabs(v) < 9007199254740992.0) || v != (double)(int64_t)v) {
        fprintf(f, "%.17g%c", v, end);
        return;
    }
    char buf[24], *p = buf + sizeof(buf);
    *--p = end;
    int64_t i = (int64_t)v;
    uint64_t u = i < 0 ? (uint64_t)-i : (uint64_t)i;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (signbit(v)) /* -0 too, as %.17g writes it */
        *--p = '-';
    while (p < buf + sizeof(buf)) /* one writer: no lock a character */
        putc_unlocked(*p++, f);
}
