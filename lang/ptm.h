/*
 * ptm.h - what every part of ptm shares: status codes, exit codes,
 * assertions, the version, and the processor query (ptm_isa_has()).
 *
 * Actions return 0 or a negative PTM_E* code; ptm_strerror() renders one.
 * Foreign conventions (errno, libyaml's 1-is-success, MPI codes) are
 * converted where they are called.
 */
#ifndef PTM_H
#define PTM_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define PTM_VERSION "0.1.0"

/* X(name, value, message) */
#define PTM_ERROR_LIST(X)                                                      \
    X(OK, 0, "success")                                                        \
    X(ENOMEM, -1, "out of memory")                                             \
    X(EIO, -2, "input/output error")                                           \
    X(ESYNTAX, -3, "the job has errors")                                       \
    X(EINVAL, -4, "invalid argument")                                          \
    X(ETOOBIG, -5, "input too large")                                          \
    X(ENOENT, -6, "no such file")                                              \
    X(EDATA, -7, "bad data")

enum ptm_status {
#define X(name, value, msg) PTM_##name = value,
    PTM_ERROR_LIST(X)
#undef X
};

/* Static string for a status code; never NULL. */
const char *ptm_strerror(int status);

struct stat;
/* True when path (under base when it is relative and base is not NULL or
 * ".") names the file st describes: the same device and inode. */
bool ptm_is_file(const char *base, const char *path, const struct stat *st);
/* Bytes of memory the machine has available (MemAvailable of
 * /proc/meminfo), or 0 when unknown. */
unsigned long long ptm_mem_available(void);
/* bytes as "16 GiB" into buf. */
void ptm_human_bytes(double bytes, char *buf, size_t len);

/* The most a size counts (a parameter's rows or columns, a block count,
 * the rows and columns of data): row and column indexes are 32-bit. The
 * compiler, the plan loader, the data readers and the runtime check this
 * one limit, so that whatever `ptm check` accepts, `ptm run` can size. */
#define PTM_DIM_MAX 2147483647

/* The most a whole number of the language counts that is not a size: a
 * seed (`seed N`, --seed, a plan's seed), `every N`, `warmup N`,
 * `minibatch N`. The language's numbers are doubles, exact as whole
 * numbers up to 2^53; the compiler, the plan loader and the command line
 * check this one limit. */
#define PTM_WHOLE_MAX 9007199254740991LL /* 2^53 - 1 */

/* Exit codes of the ptm command. */
enum ptm_exit {
    PTM_EXIT_OK = 0,
    PTM_EXIT_FAILED = 1,
    PTM_EXIT_USAGE = 2,
    PTM_EXIT_SPEC = 3,
    PTM_EXIT_DATA = 4,
};

/* Bugs, not errors: never assert on user input. */
#define PTM_ASSERT(cond)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                          \
            abort();                                                           \
        }                                                                      \
    } while (0)

#define PTM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Instruction sets the kernels have code for, picked at run time: the
 * best this processor has, or one named (tests run each). On x86-64 with
 * GCC or clang (PTM_ISA_X86 defined: code for each set is compiled with
 * __attribute__((target))): the baseline (SSE2), AVX2, and AVX-512 F with
 * VL; elsewhere only the baseline. */
#if defined(__x86_64__) && defined(__GNUC__)
#define PTM_ISA_X86 1
#endif
enum ptm_isa {
    PTM_ISA_BEST,
    PTM_ISA_BASE,
    PTM_ISA_AVX2,
    PTM_ISA_AVX512,
};

/* Whether this processor runs isa (PTM_ISA_BEST and PTM_ISA_BASE: always). */
bool ptm_isa_has(enum ptm_isa isa);

/* isa, or for PTM_ISA_BEST the best ptm_isa_has() allows. */
enum ptm_isa ptm_isa_pick(enum ptm_isa isa);

#endif
