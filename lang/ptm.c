/* ptm.c - status messages shared by every part of ptm. */
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
