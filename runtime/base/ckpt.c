/*
 * ckpt.c - the state stream of a checkpoint (ckpt.h).
 *
 * The checksum is zlib's crc32 (Debian's zlib1g-dev): a checkpoint may
 * hold gigabytes, and zlib's runs at several GB/s where a byte-wise CRC
 * written here would take seconds a gigabyte.
 */
#include <stdarg.h>
#include <string.h>
#include <zlib.h>

#include "ckpt.h"
#include "ptm.h"

void ptm_ck_fail(struct ptm_ckpt *ck, int err, const char *fmt, ...)
{
    if (ck->err)
        return;
    ck->err = err;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ck->msg, sizeof(ck->msg), fmt, ap);
    va_end(ap);
}

uint32_t ptm_crc32(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n > 0) { /* zlib counts in uInt */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, b, k);
        b += k;
        n -= k;
    }
    return crc;
}

void ptm_ck_bytes(struct ptm_ckpt *ck, void *p, size_t n)
{
    if (ck->err || n == 0)
        return;
    if (ck->load) {
        if (fread(p, 1, n, ck->f) != n) {
            ptm_ck_fail(ck, ferror(ck->f) ? PTM_EIO : PTM_EDATA,
                        ferror(ck->f) ? "cannot read the checkpoint"
                                      : "the checkpoint ends early (it was written by another "
                                        "run or version)");
            return;
        }
    } else if (fwrite(p, 1, n, ck->f) != n) {
        ptm_ck_fail(ck, PTM_EIO, "cannot write the checkpoint");
        return;
    }
    ck->crc = ptm_crc32(ck->crc, p, n);
    ck->bytes += n;
}

void ptm_ck_size(struct ptm_ckpt *ck, int64_t n, const char *what)
{
    int64_t v = n;
    ptm_ck_bytes(ck, &v, sizeof(v));
    if (ck->load && !ck->err && v != n)
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s is %lld where this run's is %lld", what,
                    (long long)v, (long long)n);
}

void ptm_ck_tag(struct ptm_ckpt *ck, const char *tag)
{
    char buf[64] = {0};
    snprintf(buf, sizeof(buf), "%s", tag);
    char want[64];
    memcpy(want, buf, sizeof(want));
    ptm_ck_bytes(ck, buf, sizeof(buf));
    if (ck->load && !ck->err && memcmp(buf, want, sizeof(buf)) != 0) {
        buf[sizeof(buf) - 1] = '\0';
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint holds the state of '%s' where this run has '%s'",
                    buf, want);
    }
}

void ptm_ck_count(struct ptm_ckpt *ck, size_t *n, size_t cap, const char *what)
{
    uint64_t v = *n;
    ptm_ck_bytes(ck, &v, sizeof(v));
    if (!ck->load || ck->err)
        return;
    if (v > cap) {
        ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s is %llu, more than this run's room for %zu",
                    what, (unsigned long long)v, cap);
        return;
    }
    *n = (size_t)v;
}
