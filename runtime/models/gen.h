/*
 * gen.h - synthetic data sets with a known answer (`ptm gen MODEL`): what
 * a model's generator offers the command (struct ptm_gen), and the number
 * formats the generators share. Each model declares its generator in its
 * own folder (runtime/models/NAME/gen_NAME.h).
 *
 * Every generator is deterministic: the same options and seed give the
 * same bytes on every run, from the PRNG of rng.h (splitmix64 seeding
 * xoshiro256**), never rand(). Files are written to a temporary
 * name in the target directory and renamed into place, so each file is
 * either absent, the old one, or the whole new one.
 */
#ifndef PTM_GEN_H
#define PTM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A flag of `ptm gen MODEL` beyond --seed and --out, and the values it
 * takes: whole numbers in [lo, hi] (kind 'w') or numbers in [rlo, rhi]
 * (kind 'r'), an end excluded where it says so, or none (kind 'b', a
 * switch: whole is 1 when given). Two models that take a
 * flag of the same name give it the same row. */
struct gen_flag {
    const char *name; /* "--rows" */
    char kind;
    long long lo, hi;
    double rlo, rhi;
    bool lo_open, hi_open;
    const char *want; /* for the message about a bad value */
};

#define GEN_WHOLE(n, l, h, w) {n, 'w', l, h, 0, 0, false, false, w}
#define GEN_REAL(n, l, h, lo_open, hi_open, w) {n, 'r', 0, 0, l, h, lo_open, hi_open, w}
#define GEN_INT32(n, l) GEN_WHOLE(n, l, INT32_MAX, "a whole number from " #l " to 2147483647")
#define GEN_SWITCH(n) {n, 'b', 0, 1, 0, 0, false, false, "no value"}
#define GEN_FLAGS_END {NULL, 0, 0, 0, 0, 0, false, false, NULL}
/* The most flags a model has. */
#define GEN_FLAGS_MAX 16

/* The flags given, by their place in the model's table of flags. */
struct gen_args {
    uint64_t seed;
    bool given[GEN_FLAGS_MAX];
    long long whole[GEN_FLAGS_MAX]; /* kind 'w' */
    double real[GEN_FLAGS_MAX];     /* kind 'r' */
};

/* dst = the value of flag id when it was given (field whole or real). */
#define GEN_ARG(a, id, field, dst)                                                                 \
    do {                                                                                           \
        if ((a)->given[id])                                                                        \
            (dst) = (a)->field[id];                                                                \
    } while (0)

/* A file a generator writes into its DIR, and the flags it needs to
 * (NULL: none). */
struct gen_file {
    const char *name, *flags;
};

/* A model's generator as `ptm gen` runs it (struct ptm_model's gen). */
struct ptm_gen {
    const char *summary; /* one line: `ptm gen` alone lists it */
    const char *usage;   /* its usage lines in `ptm help gen` */
    const char *help;    /* its section there: the files and the flags */
    const struct gen_flag *flags; /* ended by GEN_FLAGS_END */
    /* The flags together: NULL when they go together, else the message
     * (in buf, len bytes) of a usage error. */
    const char *(*check)(const struct gen_args *a, char *buf, size_t len);
    /* Write the data set into dir (which exists). Returns 0, PTM_EINVAL,
     * PTM_ENOMEM, or PTM_EIO with errno telling why and *file the file not
     * written (NULL: the directory). */
    int (*run)(const struct gen_args *a, const char *dir, const char **file);
    /* The files it writes (ended by {NULL}), so that a job whose data is
     * missing can be told the command that makes it. */
    const struct gen_file *files;
};

/* A check of a model whose --nonzeros (flag nz) may not exceed its --cols
 * (flag cols, dflt when not given): NULL, or the message in buf. */
const char *gen_check_nonzeros(const struct gen_args *a, int cols, long long dflt, int nz,
                               const char *model, char *buf, size_t len);

/* ---- number formatting (for the generators and their tests) ------------- */

/* v in the shortest of %.15g, %.16g, %.17g that strtod() reads back to v,
 * NUL-terminated; returns its length. buf holds at least 32 bytes. v is
 * finite. */
int gen_fmt_double(char *buf, double v);
/* The decimal m / 10^q (0 <= q <= 17) exactly, without trailing zeros
 * ("-1.5", "0.000001", "3"); strtod() of it is (double)m / 10^q when
 * |m| < 2^53. Returns its length; buf holds at least 48 bytes. */
int gen_fmt_fixed(char *buf, int64_t m, int q);

#endif
