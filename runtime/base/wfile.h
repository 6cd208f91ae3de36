/*
 * wfile.h - writing a file so that it is either the old one or the whole
 * new one: the text goes to PATH.tmpPID-HOST in the same directory, is
 * synced, and is renamed over PATH only when everything succeeded; such a
 * file that a dead process of this machine left behind is removed by the
 * next write of PATH. Used for plans,
 * outputs, the pictures of `ptm plan` and generated data. A symbolic link
 * stays a link: the file it names is replaced. A device, a pipe or a
 * dangling link (/dev/null, /dev/stdout) is written in place, never
 * replaced by a regular file.
 */
#ifndef PTM_WFILE_H
#define PTM_WFILE_H

#include <stdio.h>

struct ptm_wfile {
    FILE *f;    /* write here; NULL once finished */
    char *path; /* owned */
    char *tmp;  /* owned; NULL when written in place */
    int err;    /* errno of the first failure, or 0 */
};

/* Open the temporary file for path. Returns 0, PTM_ENOMEM, or PTM_EIO with
 * w->err set; after a failure ptm_wfile_abort() is still the way out. */
int ptm_wfile_open(struct ptm_wfile *w, const char *path);
/* Flush, sync and close the temporary file (it keeps its name). 0 or
 * PTM_EIO with w->err; a write error seen earlier on w->f counts. */
int ptm_wfile_finish(struct ptm_wfile *w);
/* Rename a finished file into place and free w. 0 or PTM_EIO with w->err
 * (the temporary file is then removed). */
int ptm_wfile_rename(struct ptm_wfile *w);
/* finish, then rename; on failure the temporary file is removed. */
int ptm_wfile_commit(struct ptm_wfile *w);
/* Give up: close, remove the temporary file, free. Keeps errno. */
void ptm_wfile_abort(struct ptm_wfile *w);

/* v as "%.17g" writes it (read back, the same bits), then the character
 * end. A whole number below 2^53 (counts, indices) is written without
 * printf, which spends a microsecond a number on the conversion: the
 * same text, at a tenth of the cost. */
void ptm_fput_num(FILE *f, double v, char end);

#endif
