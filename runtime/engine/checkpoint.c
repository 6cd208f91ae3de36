/*
 * checkpoint.c - checkpoints of a run and resuming from one
 * (spec/runtime.md, Checkpoints): what the engine keeps (its counters,
 * the parameter tables, the workers' sharded rows), the parts' state
 * functions called in a fixed order (runtime/base/ckpt.h), the files of
 * a checkpoint directory and their commit.
 *
 * A checkpoint directory holds, for checkpoint number N, one part file a
 * rank, ckpt-N-rR.bin (a header, the state stream, its CRC-32), and one
 * text file, `manifest`, which names the parts with their sizes and
 * CRCs, the job, the hashes of the plan and of the data files, the
 * workers, ranks and seed. The parts are written first, each to a
 * temporary file that is synced and renamed; the manifest last, the same
 * way, then the directory is synced: a crash at any instant leaves the
 * last committed manifest and the parts it names. Only then are older
 * parts removed. The trace so far is appended to `trace` and the
 * manifest says how many of its bytes belong to the checkpoint.
 *
 * DESIGN: files renamed into place, not SQLite. A checkpoint is a few
 * large blobs written whole, one a rank, perhaps on a shared network file
 * system where SQLite's locking is not to be trusted; rename gives the
 * same all-or-nothing commit without a dependency, and the CRCs catch a
 * torn or damaged file before anything is loaded.
 */
#define _DEFAULT_SOURCE /* realpath, flock */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "ckpt.h"
#include "comm.h"
#include "engine_impl.h"
#include "plan_yaml.h"
#include "ptm.h"
#include "wfile.h"

#define CK_MAGIC "PTMCKPT3"
#define CK_MANIFEST_HEAD "ptm checkpoint 1"
/* Without a word on when: one every ten minutes (and one at the end). */
#define CK_DEFAULT_SECONDS 600.0
/* The most data files and ranks a manifest lists. */
#define CK_MAX_FILES 64
#define CK_MAX_RANKS 4096

struct ck_file {
    char path[PATH_MAX + 320];
    uint64_t bytes;
    uint32_t crc;
};

/* A manifest as read (or about to be written). */
struct ck_manifest {
    char job[PATH_MAX];
    uint32_t plan_crc;
    struct ck_file data[CK_MAX_FILES];
    int ndata;
    uint64_t seed, seq;
    int workers, ranks;
    int64_t round, sweeps;
    double seconds, objective;
    double took; /* seconds the checkpoint took to write, this rank's part and the trace */
    int64_t trace_bytes;
    struct ck_file part[CK_MAX_RANKS]; /* path: the file's name in the directory */
    int nparts;
};

/* The run's checkpointing (run->ckpt). */
struct rt_ckpt {
    char dir[PATH_MAX];
    int64_t every;           /* > 0: units between checkpoints */
    enum plan_unit unit;
    double seconds;          /* > 0: seconds between checkpoints */
    int64_t mark;            /* units at the last one */
    double mark_seconds;     /* run seconds at the last one */
    uint64_t seq;            /* the last committed checkpoint's number (0: none yet) */
    int lockfd;
    bool hashed;
    struct ck_manifest m;    /* the job, plan and data hashes (rank 0) */
    int64_t trace_bytes;     /* bytes of the trace in dir/trace */
    int64_t at_round, at_updates; /* the run's counters at the last one */
    char job[PATH_MAX];
};

/* ---- hashes of what a checkpoint belongs to -------------------------------- */

/* The size of the file at path, and the CRC-32 of its first `upto` bytes
 * (all of them when upto is UINT64_MAX). */
static int file_crc_upto(const char *path, uint64_t upto, struct ck_file *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return PTM_EIO;
    static __thread unsigned char buf[1 << 16];
    uint32_t crc = 0;
    uint64_t n = 0;
    size_t k;
    while ((k = fread(buf, 1, sizeof(buf), f)) > 0) {
        if (n < upto)
            crc = ptm_crc32(crc, buf, upto - n < k ? (size_t)(upto - n) : k);
        n += k;
    }
    int bad = ferror(f);
    fclose(f);
    snprintf(out->path, sizeof(out->path), "%s", path);
    out->bytes = n;
    out->crc = crc;
    return bad ? PTM_EIO : 0;
}

static int file_crc(const char *path, struct ck_file *out)
{
    return file_crc_upto(path, UINT64_MAX, out);
}

/* The plan's hash, its stop rule, checkpoint statement and directory left
 * out (a resumed run may stop elsewhere, checkpoint otherwise, and be
 * moved with its files), and every file it reads: data, edge lists, the
 * Lua hooks. */
static int hash_inputs(const struct ptm_run *run, struct ck_manifest *m, char *err, size_t errlen)
{
    struct ptm_plan copy = *run->plan;
    memset(&copy.stop, 0, sizeof(copy.stop));
    copy.has_stop = true; /* an empty rule */
    memset(&copy.checkpoint, 0, sizeof(copy.checkpoint));
    /* a job moved with its files is the same job: their contents are
     * hashed below */
    copy.base_dir = (char *)".";
    char *text = NULL;
    size_t len = 0;
    int rc = ptm_plan_emit_buf(&copy, &text, &len);
    if (rc != 0) {
        ptm_free(text);
        snprintf(err, errlen, "cannot hash the plan for the checkpoint: %s", ptm_strerror(rc));
        return rc;
    }
    m->plan_crc = ptm_crc32(0, text, len);
    ptm_free(text);
    m->ndata = 0;
    const struct ptm_plan *plan = run->plan;
    const char *paths[CK_MAX_FILES];
    int n = 0;
    for (uint32_t k = 0; k < plan->ndata && n < CK_MAX_FILES - 4; k++) {
        if (plan->data[k].path && plan->data[k].format != PLAN_FORMAT_LABELS)
            paths[n++] = plan->data[k].path;
        if (plan->data[k].vocab)
            paths[n++] = plan->data[k].vocab;
    }
    for (uint32_t k = 0; k < plan->nblocksets && n < CK_MAX_FILES - 2; k++)
        if (plan->blocksets[k].depend == PLAN_DEPEND_FILE && plan->blocksets[k].edges)
            paths[n++] = plan->blocksets[k].edges;
    /* the Lua hooks are the job too */
    if (plan->update.present && plan->update.lua && plan->update.file)
        paths[n++] = plan->update.file;
    if (plan->objective.present && plan->objective.lua && plan->objective.file &&
        !(plan->update.lua && plan->update.file &&
          strcmp(plan->update.file, plan->objective.file) == 0))
        paths[n++] = plan->objective.file;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 320];
        rt_plan_path(plan, paths[i], path, sizeof(path));
        if (file_crc(path, &m->data[m->ndata]) != 0) {
            snprintf(err, errlen, "cannot read '%s' to hash it for the checkpoint: %s", path,
                     strerror(errno));
            return PTM_EIO;
        }
        m->ndata++;
    }
    return 0;
}

/* ---- what the engine keeps ------------------------------------------------- */

static void engine_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    const struct ptm_plan *plan = run->plan;
    ptm_ck_tag(ck, "engine");
    ptm_ck_size(ck, run->P, "number of workers");
    ptm_ck_size(ck, run->nranks, "number of ranks");
    ptm_ck_size(ck, run->rank, "rank");
    ptm_ck_size(ck, run->nblocks, "number of blocks");
    ptm_ck_size(ck, (int64_t)plan->nparams, "number of parameters");
    PTM_CK(ck, run->round);
    PTM_CK(ck, run->updates);
    PTM_CK(ck, run->obj_mark);
    PTM_CK(ck, run->seconds);
    PTM_CK(ck, run->damped);
    PTM_CK(ck, run->step);
    ptm_sched_ck_index(ck, &run->offer, 0, INT64_MAX, "blocks offered");
    PTM_CK(ck, run->cur);
    PTM_CK(ck, run->worse);
    PTM_CK(ck, run->worse_from);
    PTM_CK(ck, run->worse_sweep);
    PTM_CK(ck, run->eval_sweep);
    PTM_CK(ck, run->worse_told);
    PTM_CK(ck, run->spoke_at);
    PTM_CK(ck, run->spoke_sweep);
    /* the objective's history */
    size_t n = run->nhist;
    ptm_ck_count(ck, &n, SIZE_MAX / 2 / sizeof(double), "objective history");
    if (ck->load && !ck->err && n > run->caphist) {
        size_t cap = run->caphist;
        while (cap < n)
            cap *= 2;
        double *h = ptm_realloc(run->hist, cap * sizeof(double));
        if (!h) {
            ptm_ck_fail(ck, PTM_ENOMEM, "out of memory");
            return;
        }
        run->hist = h;
        run->caphist = cap;
    }
    if (ck->err)
        return;
    run->nhist = n;
    PTM_CK_ARRAY(ck, run->hist, n);
    /* the metrics' histories */
    if (plan->nmetrics) {
        PTM_CK_ARRAY(ck, run->metrics, plan->nmetrics);
        PTM_CK_ARRAY(ck, run->mvals, (size_t)PROG_METRIC_OF * plan->nmetrics);
    }
    /* the parameter tables: one copy, or each worker's rows */
    for (uint32_t p = 0; p < plan->nparams; p++) {
        struct rt_param *t = &run->params[p];
        ptm_ck_size(ck, t->len, "parameter's size");
        if (t->val) {
            /* one copy of a `shard like` parameter holds this rank's rows */
            int64_t held = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
            ptm_ck_size(ck, held, "parameter's values on this rank");
            PTM_CK_ARRAY(ck, t->val, held);
            continue;
        }
        for (int q = 0; q < run->P; q++) {
            struct rt_worker *w = &run->w[q];
            ptm_ck_size(ck, w->hi - w->lo, "worker's rows");
            if (w->local && w->local[p])
                PTM_CK_ARRAY(ck, w->local[p], (size_t)(w->hi - w->lo) * (size_t)t->cols);
        }
    }
    if (ck->load && !ck->err) /* exact: counted again, the sum the commits kept */
        rt_l1_recount(run);
    if (run->track_delta && run->last_delta)
        PTM_CK_ARRAY(ck, run->last_delta, run->params[run->sparam].len);
    if (run->holder)
        PTM_CK_ARRAY(ck, run->holder, run->nblocks);
    rt_straggle_state(run, ck);
}

/* Every part's state, in one order. */
static void run_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    engine_state(run, ck);
    ptm_ck_tag(ck, run->rule->name);
    run->rule->state(run, ck);
    ptm_ck_tag(ck, "objective");
    if (run->obj && run->obj->state)
        run->obj->state(run, ck);
    ptm_ck_tag(ck, run->sched ? run->sched->name : "no scheduler");
    if (run->sched_state)
        run->sched->state(run->sched_state, ck);
    ptm_ck_tag(ck, "end");
}

/* ---- the directory ---------------------------------------------------------- */

static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int make_dir(const char *dir, char *err, size_t errlen)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof(buf), "%s", dir);
    for (char *s = buf + 1;; s++) {
        bool end = *s == '\0';
        if (*s == '/' || end) {
            *s = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot make the checkpoint directory '%s': %s", buf,
                         strerror(errno));
                return PTM_EIO;
            }
            if (end)
                break;
            *s = '/';
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the checkpoint directory '%s' is not a directory", dir);
        return PTM_EIO;
    }
    return 0;
}

static void part_name(char *buf, size_t len, uint64_t seq, int rank)
{
    snprintf(buf, len, "ckpt-%06" PRIu64 "-r%d.bin", seq, rank);
}

/* Remove the parts of checkpoints other than seq (rank 0, after the
 * manifest naming seq's is committed). */
static void remove_old_parts(const char *dir, uint64_t seq)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char keep[64];
    snprintf(keep, sizeof(keep), "ckpt-%06" PRIu64 "-r", seq);
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, "ckpt-", 5) != 0 || strncmp(n, keep, strlen(keep)) == 0)
            continue;
        char path[PATH_MAX + 320];
        snprintf(path, sizeof(path), "%s/%s", dir, n);
        unlink(path);
    }
    closedir(d);
}

/* ---- the manifest ----------------------------------------------------------- */

static void manifest_write(FILE *f, const struct ck_manifest *m)
{
    fprintf(f, "%s\n", CK_MANIFEST_HEAD);
    fprintf(f, "job %s\n", m->job);
    fprintf(f, "plan %08" PRIx32 "\n", m->plan_crc);
    for (int i = 0; i < m->ndata; i++)
        fprintf(f, "data %08" PRIx32 " %" PRIu64 " %s\n", m->data[i].crc, m->data[i].bytes,
                m->data[i].path);
    fprintf(f, "seed %" PRIu64 "\n", m->seed);
    fprintf(f, "workers %d\n", m->workers);
    fprintf(f, "ranks %d\n", m->ranks);
    fprintf(f, "checkpoint %" PRIu64 "\n", m->seq);
    fprintf(f, "round %" PRId64 "\n", m->round);
    fprintf(f, "sweeps %" PRId64 "\n", m->sweeps);
    fprintf(f, "seconds %.17g\n", m->seconds);
    fprintf(f, "objective %.17g\n", m->objective);
    fprintf(f, "trace %" PRId64 "\n", m->trace_bytes);
    fprintf(f, "took %.6f\n", m->took);
    for (int i = 0; i < m->nparts; i++)
        fprintf(f, "part %08" PRIx32 " %" PRIu64 " %s\n", m->part[i].crc, m->part[i].bytes,
                m->part[i].path);
    fprintf(f, "end\n");
}

/* Read dir's manifest into *m. Every line is checked: a damaged manifest
 * is an error, never half a checkpoint. */
static int manifest_read(const char *dir, struct ck_manifest *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof(*m));
    char path[PATH_MAX + 320];
    snprintf(path, sizeof(path), "%s/manifest", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot resume from '%s': %s", dir,
                 errno == ENOENT ? "no checkpoint there (no manifest)" : strerror(errno));
        return errno == ENOENT ? PTM_ENOENT : PTM_EIO;
    }
    char line[PATH_MAX + 128];
    int lineno = 0, rc = 0;
    bool head = false, end = false;
    unsigned seen = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        lineno++;
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n' || end) {
            rc = PTM_EDATA;
            break;
        }
        line[--n] = '\0';
        char rest[PATH_MAX + 64];
        unsigned long long a, b;
        unsigned x;
        int used = 0;
        if (!head) {
            head = strcmp(line, CK_MANIFEST_HEAD) == 0;
            if (!head)
                rc = PTM_EDATA;
        } else if (strncmp(line, "job ", 4) == 0 && n - 4 < sizeof(m->job)) {
            memcpy(m->job, line + 4, n - 4 + 1);
            seen |= 1;
        } else if (sscanf(line, "plan %8x%n", &x, &used) == 1 && line[used] == '\0') {
            m->plan_crc = x;
            seen |= 2;
        } else if (sscanf(line, "data %8x %llu %n", &x, &a, &used) == 2 && used > 0 &&
                   m->ndata < CK_MAX_FILES && strlen(line + used) < sizeof(rest)) {
            struct ck_file *d = &m->data[m->ndata++];
            d->crc = x;
            d->bytes = a;
            snprintf(d->path, sizeof(d->path), "%s", line + used);
        } else if (sscanf(line, "seed %llu%n", &a, &used) == 1 && line[used] == '\0') {
            m->seed = a;
            seen |= 4;
        } else if (sscanf(line, "workers %llu%n", &a, &used) == 1 && line[used] == '\0' &&
                   a >= 1 && a <= 1024) {
            m->workers = (int)a;
            seen |= 8;
        } else if (sscanf(line, "ranks %llu%n", &a, &used) == 1 && line[used] == '\0' &&
                   a >= 1 && a <= CK_MAX_RANKS) {
            m->ranks = (int)a;
            seen |= 16;
        } else if (sscanf(line, "checkpoint %llu%n", &a, &used) == 1 && line[used] == '\0') {
            m->seq = a;
            seen |= 32;
        } else if (sscanf(line, "round %llu%n", &a, &used) == 1 && line[used] == '\0' &&
                   a <= INT64_MAX) {
            m->round = (int64_t)a;
        } else if (sscanf(line, "sweeps %llu%n", &a, &used) == 1 && line[used] == '\0' &&
                   a <= INT64_MAX) {
            m->sweeps = (int64_t)a;
        } else if (sscanf(line, "seconds %lf%n", &m->seconds, &used) == 1 && line[used] == '\0') {
        } else if (strncmp(line, "objective ", 10) == 0) {
            char *e;
            m->objective = strtod(line + 10, &e);
            if (*e)
                rc = PTM_EDATA;
        } else if (sscanf(line, "took %lf%n", &m->took, &used) == 1 && line[used] == '\0') {
        } else if (sscanf(line, "trace %llu%n", &a, &used) == 1 && line[used] == '\0' &&
                   a <= INT64_MAX) {
            m->trace_bytes = (int64_t)a;
        } else if (sscanf(line, "part %8x %llu %n", &x, &b, &used) == 2 && used > 0 &&
                   m->nparts < CK_MAX_RANKS && strlen(line + used) < 64 &&
                   !strchr(line + used, '/')) {
            struct ck_file *p = &m->part[m->nparts++];
            p->crc = x;
            p->bytes = b;
            snprintf(p->path, sizeof(p->path), "%s", line + used);
        } else if (strcmp(line, "end") == 0) {
            end = true;
        } else {
            rc = PTM_EDATA;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (rc == 0 && (bad || !end || seen != 63 || m->nparts != m->ranks))
        rc = bad ? PTM_EIO : PTM_EDATA;
    if (rc != 0)
        snprintf(err, errlen, "cannot resume from '%s': its manifest is damaged%s (line %d)", dir,
                 bad ? " or unreadable" : "", lineno);
    return rc;
}

int ptm_ckpt_info(const char *dir, struct ptm_ckpt_info *out, char *err, size_t errlen)
{
    struct ck_manifest *m = ptm_malloc(sizeof(*m));
    if (!m)
        return PTM_ENOMEM;
    int rc = manifest_read(dir, m, err, errlen);
    if (rc == 0) {
        snprintf(out->job, sizeof(out->job), "%s", m->job);
        out->workers = m->workers;
        out->ranks = m->ranks;
        out->seed = m->seed;
        out->round = m->round;
        out->sweeps = m->sweeps;
        out->seconds = m->seconds;
        out->objective = m->objective;
    }
    ptm_free(m);
    return rc;
}

/* ---- set-up ---------------------------------------------------------------- */

int rt_ckpt_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_run_opts *o = &run->opts;
    const struct plan_checkpoint *pc = &run->plan->checkpoint;
    const char *dir = o->checkpoint ? o->checkpoint : pc->dir;
    if (!dir)
        return 0;
    if (!run->rule->state) {
        snprintf(err, errlen, "update %s cannot be checkpointed yet", run->rule->name);
        return PTM_EINVAL;
    }
    if (run->sched && !run->sched->state) {
        snprintf(err, errlen, "schedule %s cannot be checkpointed yet", run->sched->name);
        return PTM_EINVAL;
    }
    if (strlen(dir) >= PATH_MAX) {
        snprintf(err, errlen, "the checkpoint directory's name is too long");
        return PTM_EINVAL;
    }
    struct rt_ckpt *c = rt_zalloc(1, sizeof(*c));
    if (!c)
        return PTM_ENOMEM;
    run->ckpt = c;
    c->lockfd = -1;
    snprintf(c->dir, sizeof(c->dir), "%s", dir);
    if (o->checkpoint_every > 0 || o->checkpoint_seconds > 0) {
        c->every = o->checkpoint_every;
        c->unit = o->checkpoint_unit;
        c->seconds = o->checkpoint_seconds;
    } else if (pc->dir && (pc->every > 0 || pc->seconds > 0)) {
        c->every = pc->every;
        c->unit = pc->every_unit;
        c->seconds = pc->seconds;
    } else {
        c->seconds = CK_DEFAULT_SECONDS;
    }
    /* every rank: parts may come first. A directory that cannot be made
     * is the run's error, not its data's (PTM_EINVAL) */
    if (make_dir(c->dir, err, errlen) != 0)
        return PTM_EINVAL;
    if (run->rank == 0) {
        /* one run a directory: a second would remove the first's parts */
        char path[PATH_MAX + 320];
        snprintf(path, sizeof(path), "%s/lock", c->dir);
        c->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (c->lockfd < 0 || flock(c->lockfd, LOCK_EX | LOCK_NB) != 0) {
            snprintf(err, errlen, "the checkpoint directory '%s' %s", c->dir,
                     c->lockfd < 0 ? strerror(errno) : "is in use by another run");
            return PTM_EINVAL;
        }
    }
    char note[PATH_MAX + 100];
    snprintf(note, sizeof(note), "no checkpoint written yet (they go to '%s')", c->dir);
    ptm_comm_note(note);
    if (o->job && realpath(o->job, c->job) == NULL)
        snprintf(c->job, sizeof(c->job), "%s", o->job);
    return 0;
}

void rt_ckpt_release(struct ptm_run *run)
{
    struct rt_ckpt *c = run->ckpt;
    if (!c)
        return;
    if (c->lockfd >= 0)
        close(c->lockfd);
    ptm_free(c);
    run->ckpt = NULL;
}

static int64_t units_now(const struct ptm_run *run, enum plan_unit u, int64_t sweeps)
{
    return u == PLAN_UNIT_SWEEPS ? sweeps : run->round;
}

bool rt_ckpt_due(struct ptm_run *run, int64_t sweeps)
{
    struct rt_ckpt *c = run->ckpt;
    if (!c || run->rank != 0)
        return false;
    if (c->every > 0)
        return units_now(run, c->unit, sweeps) - c->mark >= c->every;
    return run->seconds - c->mark_seconds >= c->seconds;
}

/* ---- writing ---------------------------------------------------------------- */

/* This rank's part of checkpoint seq: its name, bytes and CRC in *out. */
static int write_part(struct ptm_run *run, uint64_t seq, struct ck_file *out, char *err,
                      size_t errlen)
{
    struct rt_ckpt *c = run->ckpt;
    char name[64], path[PATH_MAX + 320];
    part_name(name, sizeof(name), seq, run->rank);
    snprintf(path, sizeof(path), "%s/%s", c->dir, name);
    struct ptm_wfile wf;
    int rc = ptm_wfile_open(&wf, path);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write checkpoint '%s': %s", path,
                 rc == PTM_ENOMEM ? "out of memory" : strerror(wf.err));
        ptm_wfile_abort(&wf);
        return rc;
    }
    struct ptm_ckpt ck = {.f = wf.f};
    char magic[8];
    memcpy(magic, CK_MAGIC, 8);
    ptm_ck_bytes(&ck, magic, 8);
    run_state(run, &ck);
    uint32_t crc = ck.crc;
    if (!ck.err && fwrite(&crc, sizeof(crc), 1, wf.f) != 1)
        ptm_ck_fail(&ck, PTM_EIO, "cannot write the checkpoint");
    if (ck.err) {
        int e = errno;
        ptm_wfile_abort(&wf);
        snprintf(err, errlen, "cannot write checkpoint '%s': %s%s%s", path, ck.msg,
                 ck.err == PTM_EIO ? ": " : "", ck.err == PTM_EIO ? strerror(e) : "");
        return ck.err;
    }
    if (ptm_wfile_commit(&wf) != 0) {
        snprintf(err, errlen, "cannot write checkpoint '%s': %s", path, strerror(wf.err));
        return PTM_EIO;
    }
    /* the manifest names the state's CRC (the file's own ends it): a CRC
     * over the state and its CRC would be the same for every file */
    snprintf(out->path, sizeof(out->path), "%s", name);
    out->bytes = ck.bytes + sizeof(crc);
    out->crc = crc;
    return 0;
}

/* Append the trace written since the last checkpoint to dir/trace and
 * sync it (rank 0). The trace is open for writing only: it is read again
 * through /proc/self/fd. A trace that is not a regular file (a pipe,
 * /dev/stdout) is not kept. */
static int save_trace(struct ptm_run *run, FILE *trace, char *err, size_t errlen)
{
    struct rt_ckpt *c = run->ckpt;
    if (!trace)
        return 0;
    if (fflush(trace) != 0)
        goto fail;
    struct stat st;
    if (fstat(fileno(trace), &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    char self[64], path[PATH_MAX + 320];
    snprintf(self, sizeof(self), "/proc/self/fd/%d", fileno(trace));
    int in = open(self, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        goto fail;
    snprintf(path, sizeof(path), "%s/trace", c->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        close(in);
        goto fail;
    }
    static __thread char buf[1 << 16];
    off_t at = c->trace_bytes, end = st.st_size;
    bool ok = true;
    while (ok && at < end) {
        size_t want = (size_t)(end - at) < sizeof(buf) ? (size_t)(end - at) : sizeof(buf);
        ssize_t k = pread(in, buf, want, at);
        ok = k > 0 && pwrite(fd, buf, (size_t)k, at) == k;
        at += ok ? k : 0;
    }
    ok = ok && fsync(fd) == 0;
    int e = errno;
    close(in);
    close(fd);
    errno = e;
    if (!ok)
        goto fail;
    c->trace_bytes = end;
    return 0;
fail:
    snprintf(err, errlen, "cannot save the trace with the checkpoint in '%s': %s", c->dir,
             strerror(errno));
    return PTM_EIO;
}

/* Copy the first run->resume_trace_bytes of the resumed directory's trace
 * to trace (rank 0, when the trace opens). */
int rt_ckpt_trace_prefix(struct ptm_run *run, FILE *trace, char *err, size_t errlen)
{
    if (!trace || !run->resumed || run->resume_trace_bytes <= 0)
        return 0;
    char path[PATH_MAX + 320];
    snprintf(path, sizeof(path), "%s/trace", run->opts.resume);
    FILE *t = fopen(path, "rb");
    static __thread char buf[1 << 16];
    int64_t left = run->resume_trace_bytes;
    while (t && left > 0) {
        size_t k = fread(buf, 1, left < (int64_t)sizeof(buf) ? (size_t)left : sizeof(buf), t);
        if (k == 0 || fwrite(buf, 1, k, trace) != k)
            break;
        left -= (int64_t)k;
    }
    if (t)
        fclose(t);
    if (left > 0) {
        snprintf(err, errlen, "cannot resume the trace from '%s': it is shorter than the "
                 "checkpoint says", path);
        return PTM_EIO;
    }
    return 0;
}

int rt_ckpt_write(struct ptm_run *run, FILE *trace, int64_t sweeps, char *err, size_t errlen)
{
    struct rt_ckpt *c = run->ckpt;
    if (c->seq > 0 && c->at_round == run->round && c->at_updates == run->updates)
        return 0; /* nothing happened since the last one */
    uint64_t seq = c->seq + 1;
    struct timespec ts0;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    struct ck_file mine;
    memset(&mine, 0, sizeof(mine));
    int rc = 0;
    if (run->rank == 0 && !c->hashed) {
        rc = hash_inputs(run, &c->m, err, errlen);
        c->hashed = rc == 0;
    }
    if (rc == 0)
        rc = write_part(run, seq, &mine, err, errlen);
    if (rc == 0 && run->rank == 0)
        rc = save_trace(run, trace, err, errlen);
    double *all = run->rank == 0 ? rt_zalloc(2 * (size_t)run->nranks, sizeof(double)) : NULL;
    if (rc == 0 && run->rank == 0 && !all)
        rc = PTM_ENOMEM;
    /* every rank's part, named, sized and summed, to rank 0 */
    int64_t failed = ptm_comm_sum_i64(rc != 0);
    if (failed) {
        ptm_free(all);
        if (rc == 0)
            snprintf(err, errlen, "another rank could not write its part of the checkpoint");
        return rc ? rc : PTM_EIO;
    }
    struct ck_manifest *m = &c->m;
    double mine2[2] = {(double)mine.bytes, (double)mine.crc};
    ptm_comm_gather(mine2, 2, all);
    if (run->rank != 0)
        goto done;
    m->nparts = run->nranks;
    for (int r = 0; r < run->nranks; r++) {
        part_name(m->part[r].path, sizeof(m->part[r].path), seq, r);
        m->part[r].bytes = (uint64_t)all[2 * r];
        m->part[r].crc = (uint32_t)all[2 * r + 1];
    }
    ptm_free(all);
    snprintf(m->job, sizeof(m->job), "%s", c->job);
    m->seed = run->seed;
    m->workers = run->P;
    m->ranks = run->nranks;
    m->seq = seq;
    m->round = run->round;
    m->sweeps = sweeps;
    m->seconds = run->seconds;
    m->objective = run->nhist ? run->hist[run->nhist - 1] : NAN;
    m->trace_bytes = trace ? c->trace_bytes : 0;
    struct timespec ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    m->took = (double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9;
    char path[PATH_MAX + 320];
    snprintf(path, sizeof(path), "%s/manifest", c->dir);
    struct ptm_wfile wf;
    if ((rc = ptm_wfile_open(&wf, path)) == 0) {
        manifest_write(wf.f, m);
        rc = ptm_wfile_commit(&wf);
    } else {
        ptm_wfile_abort(&wf);
    }
    if (rc != 0 || sync_dir(c->dir) != 0) {
        snprintf(err, errlen, "cannot write the checkpoint's manifest '%s': %s", path,
                 strerror(wf.err ? wf.err : errno));
        return PTM_EIO;
    }
    remove_old_parts(c->dir, seq);
done:;
    char note[PATH_MAX + 200];
    snprintf(note, sizeof(note), "the last checkpoint, of round %lld, is in '%s' (ptm run "
             "--resume DIR goes on from it)", (long long)run->round, c->dir);
    ptm_comm_note(note);
    c->seq = seq;
    c->at_round = run->round;
    c->at_updates = run->updates;
    c->mark = units_now(run, c->unit, sweeps);
    c->mark_seconds = run->seconds;
    return 0;
}

/* ---- resuming ----------------------------------------------------------------- */

/* Check a part's size and CRC before anything of it is loaded. */
static int check_part(const char *path, const struct ck_file *want, char *err, size_t errlen)
{
    struct ck_file got;
    if (file_crc_upto(path, want->bytes >= 4 ? want->bytes - 4 : 0, &got) != 0) {
        snprintf(err, errlen, "cannot read the checkpoint's part '%s': %s", path,
                 strerror(errno));
        return PTM_EIO;
    }
    if (got.bytes != want->bytes || got.crc != want->crc) {
        snprintf(err, errlen,
                 "the checkpoint's part '%s' is damaged: %" PRIu64 " bytes with CRC %08" PRIx32
                 " where the manifest says %" PRIu64 " bytes with CRC %08" PRIx32,
                 path, got.bytes, got.crc, want->bytes, want->crc);
        return PTM_EDATA;
    }
    return 0;
}

int ptm_run_resume(struct ptm_run *run, const char *dir, char *err, size_t errlen)
{
    err[0] = '\0';
    if (!run->rule->state || (run->sched && !run->sched->state)) {
        snprintf(err, errlen, "%s %s cannot be checkpointed yet",
                 !run->rule->state ? "update" : "schedule",
                 !run->rule->state ? run->rule->name : run->sched->name);
        return PTM_EINVAL;
    }
    if (strlen(dir) >= PATH_MAX) {
        snprintf(err, errlen, "the checkpoint directory's name is too long");
        return PTM_EINVAL;
    }
    struct ck_manifest *m = ptm_malloc(sizeof(*m)), *now = ptm_malloc(sizeof(*now));
    int rc = !m || !now ? PTM_ENOMEM : manifest_read(dir, m, err, errlen);
    if (rc != 0)
        goto out;
    rc = PTM_EINVAL;
    if (m->workers != run->P || m->ranks != run->nranks) {
        snprintf(err, errlen,
                 "cannot resume from '%s': it was written by %d worker%s on %d rank%s, this run "
                 "has %d on %d (a run resumes with the workers and ranks it had)",
                 dir, m->workers, m->workers == 1 ? "" : "s", m->ranks, m->ranks == 1 ? "" : "s",
                 run->P, run->nranks);
        goto out;
    }
    if (m->seed != run->seed) {
        snprintf(err, errlen, "cannot resume from '%s': it was written with seed %" PRIu64
                 ", this run has %" PRIu64, dir, m->seed, run->seed);
        goto out;
    }
    memset(now, 0, sizeof(*now));
    if ((rc = hash_inputs(run, now, err, errlen)) != 0)
        goto out;
    rc = PTM_EINVAL;
    if (now->plan_crc != m->plan_crc) {
        snprintf(err, errlen,
                 "cannot resume from '%s': the job changed since the checkpoint (its plan, "
                 "the stop rule and checkpoint statement aside, hashes to %08" PRIx32
                 ", the checkpoint's to %08" PRIx32 ")",
                 dir, now->plan_crc, m->plan_crc);
        goto out;
    }
    for (int i = 0; i < now->ndata || i < m->ndata; i++) {
        const struct ck_file *a = i < now->ndata ? &now->data[i] : NULL,
                             *b = i < m->ndata ? &m->data[i] : NULL;
        if (a && b && a->crc == b->crc && a->bytes == b->bytes)
            continue;
        snprintf(err, errlen, "cannot resume from '%s': the file '%s' changed since the "
                 "checkpoint (%" PRIu64 " bytes, CRC %08" PRIx32 "; then %" PRIu64 " bytes, CRC %08"
                 PRIx32 ")", dir, a ? a->path : b->path, a ? a->bytes : 0, a ? a->crc : 0,
                 b ? b->bytes : 0, b ? b->crc : 0);
        goto out;
    }
    /* this rank's part, checked whole, then loaded */
    char path[PATH_MAX + 320];
    const struct ck_file *part = &m->part[run->rank];
    snprintf(path, sizeof(path), "%s/%s", dir, part->path);
    if ((rc = check_part(path, part, err, errlen)) != 0)
        goto out;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read the checkpoint's part '%s': %s", path, strerror(errno));
        rc = PTM_EIO;
        goto out;
    }
    struct ptm_ckpt ck = {.f = f, .load = true};
    char magic[8];
    ptm_ck_bytes(&ck, magic, 8);
    if (!ck.err && memcmp(magic, CK_MAGIC, 8) != 0)
        ptm_ck_fail(&ck, PTM_EDATA, "not a checkpoint of this version");
    run_state(run, &ck);
    uint32_t crc;
    if (!ck.err && (fread(&crc, sizeof(crc), 1, f) != 1 || crc != ck.crc || fgetc(f) != EOF))
        ptm_ck_fail(&ck, PTM_EDATA, "its state does not end where its checksum says");
    fclose(f);
    if (ck.err) {
        snprintf(err, errlen, "cannot resume from '%s': %s", path, ck.msg);
        rc = ck.err;
        run->failed = true; /* a part of the state may be loaded */
        goto out;
    }
    run->resume_trace_bytes = m->trace_bytes;
    if (run->ckpt) {
        struct rt_ckpt *c = run->ckpt;
        c->seq = m->seq;
        c->trace_bytes = strcmp(c->dir, dir) == 0 ? m->trace_bytes : 0;
        c->mark = c->unit == PLAN_UNIT_SWEEPS ? m->sweeps : m->round;
        c->mark_seconds = run->seconds;
        c->at_round = run->round;
        c->at_updates = run->updates;
    }
    run->resumed = true;
    rc = 0;
out:
    ptm_free(m);
    ptm_free(now);
    return rc;
}
