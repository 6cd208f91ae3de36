/* utf8.h - validation of UTF-8 sequences, shared by the lexer and the renderer. */
#ifndef PTM_UTF8_H
#define PTM_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid UTF-8 sequence at s[0..n), storing its code
 * point in *cp when cp is not NULL; 0 when s does not start one (overlong
 * forms, surrogates and code points past U+10FFFF are invalid). n >= 1. */
static inline int utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
    uint32_t c = s[0], min;
    int len;
    if (c < 0x80) {
        if (cp)
            *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2, c &= 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, c &= 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, c &= 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    if (cp)
        *cp = c;
    return len;
}

#endif
