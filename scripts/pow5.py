#!/usr/bin/env python3
"""pow5.py - write runtime/data/pow5.h: 128-bit approximations of 5^q for
q in [QMIN, QMAX], the table of the Eisel-Lemire conversion of decimals
(data_eisel_lemire() in runtime/data/data.c; Lemire, "Number Parsing at
a Gigabyte per Second", Software: Practice and Experience 51(8), 2021).

Each entry is a 128-bit integer c with 2^127 <= c < 2^128, as two 64-bit
words (high, low):
- q >= 0: 5^q shifted left or right until its top bit is bit 127, the
  bits shifted out on the right dropped (5^q itself up to q = 55);
- q < 0: 1 + floor(2^b / 5^-q), b chosen so that c has 128 bits (for
  q >= -27, b = z + 127 where 2^z is the least power of 2 at least
  5^-q; below, b = 2 z + 128 and c then cut to its top 128 bits).

Usage: scripts/pow5.py > runtime/data/pow5.h
"""
QMIN, QMAX = -64, 64


def entry(q):
    if q >= 0:
        c = 5 ** q
        while c < 1 << 127:
            c <<= 1
        while c >= 1 << 128:
            c >>= 1
        return c
    p = 5 ** -q
    z = 0
    while (1 << z) < p:
        z += 1
    if q >= -27:
        c = (1 << (z + 127)) // p + 1
    else:
        c = (1 << (2 * z + 128)) // p + 1
        while c >= 1 << 128:
            c >>= 1
    return c


def main():
    print("/* Written by scripts/pow5.py: do not edit. 5^q to 128 bits for q in")
    print(" * [DATA_POW5_MIN, DATA_POW5_MAX], each as {high, low} (scripts/pow5.py")
    print(" * says how). */")
    print("#define DATA_POW5_MIN (%d)" % QMIN)
    print("#define DATA_POW5_MAX %d" % QMAX)
    print("static const uint64_t data_pow5[%d][2] = {" % (QMAX - QMIN + 1))
    for q in range(QMIN, QMAX + 1):
        c = entry(q)
        assert 1 << 127 <= c < 1 << 128
        print("    {UINT64_C(0x%016x), UINT64_C(0x%016x)}, /* %d */"
              % (c >> 64, c & ((1 << 64) - 1), q))
    print("};")


if __name__ == "__main__":
    main()
