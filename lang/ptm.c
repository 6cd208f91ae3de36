/* ptm.c - status messages and the processor query shared by every part of ptm. */
#include "ptm.h"

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
