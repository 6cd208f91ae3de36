#!/usr/bin/env python3
"""mf_bound.py DIR: a bound on the held-out RMSE of matrix factorization on
the data `ptm gen mf --out DIR` writes.

Each row of W is fitted to its training ratings (DIR/ratings.mtx) by ridge
regression on the generator's own H (DIR/H_true.tsv), with the weight of
the prior (noise variance over the variance of W_true's entries): given a
perfect H this is the posterior mean of the row, the best estimate there
is, so no method that estimates W and H from the ratings does better on
average. Prints the RMSE of W H_true' on DIR/test.mtx. Plain Python (no
numpy): a k x k solve a row.
"""
import math
import sys


def read_mm(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("%")]
    return [(int(i) - 1, int(j) - 1, float(v)) for i, j, v in (l.split() for l in lines[1:])]


def read_tsv(path):
    with open(path) as f:
        return [[float(x) for x in l.split()] for l in f]


def solve(a, b):
    """a x = b by Gauss-Jordan with partial pivoting; a is k x k."""
    n = len(b)
    m = [a[i][:] + [b[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mf_bound.py DIR")
    d = sys.argv[1]
    w_true, h = read_tsv(d + "/W_true.tsv"), read_tsv(d + "/H_true.tsv")
    info = dict(l.rstrip("\n").split("\t") for l in open(d + "/info.tsv"))
    k = len(h[0])
    var = sum(x * x for r in w_true for x in r) / (len(w_true) * k)
    lam = float(info["noise"]) ** 2 / var
    rows = {}
    for i, j, r in read_mm(d + "/ratings.mtx"):
        rows.setdefault(i, []).append((j, r))
    w = [[0.0] * k for _ in w_true]
    for i, ratings in rows.items():
        a = [[lam * (p == q) + sum(h[j][p] * h[j][q] for j, _ in ratings) for q in range(k)]
             for p in range(k)]
        b = [sum(h[j][p] * r for j, r in ratings) for p in range(k)]
        w[i] = solve(a, b)
    test = read_mm(d + "/test.mtx")
    se = sum((r - sum(x * y for x, y in zip(w[i], h[j]))) ** 2 for i, j, r in test)
    print("%.4f" % math.sqrt(se / len(test)))


if __name__ == "__main__":
    main()
