/* ptm.c - status messages and the processor query shared by every part of ptm. */
#include "ptm.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *ptm_strerror(int status)
{
    switch (status) {
#define X(name, value, msg)                                                    \
    case PTM_##name:                                                           \
        return msg;
        PTM_ERROR_LIST(X)
#undef X
    }
    return "unknown error";
}

bool ptm_isa_has(enum ptm_isa isa)
{
    switch (isa) {
    case PTM_ISA_BEST:
    case PTM_ISA_BASE:
        return true;
#ifdef PTM_ISA_X86
    case PTM_ISA_AVX2:
        return __builtin_cpu_supports("avx2");
    case PTM_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
    case PTM_ISA_AVX2:
    case PTM_ISA_AVX512:
        return false;
#endif
    }
    return false;
}

enum ptm_isa ptm_isa_pick(enum ptm_isa isa)
{
    if (isa != PTM_ISA_BEST)
        return isa;
    return ptm_isa_has(PTM_ISA_AVX512) ? PTM_ISA_AVX512
           : ptm_isa_has(PTM_ISA_AVX2) ? PTM_ISA_AVX2
                                       : PTM_ISA_BASE;
}

bool ptm_is_file(const char *base, const char *path, const struct stat *st)
{
    char buf[4096];
    struct stat o;
    if (!path)
        return false;
    bool rel = path[0] != '/' && base && strcmp(base, ".") != 0;
    int n = snprintf(buf, sizeof(buf), rel ? "%s/%s" : "%.0s%s", base ? base : "", path);
    return n >= 0 && (size_t)n < sizeof(buf) && stat(buf, &o) == 0 && o.st_dev == st->st_dev &&
           o.st_ino == st->st_ino;
}

unsigned long long ptm_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

void ptm_human_bytes(double bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024 && u < 5)
        bytes /= 1024, u++;
    snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", bytes, unit[u]);
}
