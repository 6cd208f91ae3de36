#!/usr/bin/env python3
"""objective.py - every system's result scored by one computation, outside
every system (bench/peers.sh).

Usage:
  objective.py lasso PREFIX LAMBDA FILE...
      (1/2n) ||y - X b||^2 + LAMBDA ||b||_1
  objective.py logreg PREFIX L2 FILE...
      (1/n) sum log(1 + exp(-y_i w . x_i)) + (L2/2) ||w||^2
      (liblinear -s 0 minimizes C n times this with L2 = 1/(C n))
  objective.py logreg_l1 PREFIX L1 FILE...
      (1/n) sum log(1 + exp(-y_i w . x_i)) + L1 ||w||_1
      (liblinear -s 6 minimizes C n times this with L1 = 1/(C n))

PREFIX.X.npz and PREFIX.y.npy are the data as bench/peers/prep.py read them
from the libsvm file every system read. A FILE holds the coefficients: a
.npy array, a text file of one value a line (ptm's TSV output, R's), or a
LIBLINEAR model file (the weights after its line 'w', signed so that the
first label of its 'label' line is the positive class). Prints, for each
FILE:  FILE OBJECTIVE NONZEROS
"""
import sys

import numpy as np
import scipy.sparse as sp


def read_coef(path, d):
    if path.endswith(".npy"):
        w = np.load(path).ravel()
    else:
        with open(path) as f:
            lines = f.read().split("\n")
        if lines and lines[0].startswith("solver_type"):
            sign, k = 1.0, 0
            while lines[k].strip() != "w":
                if lines[k].startswith("label"):
                    labels = [float(v) for v in lines[k].split()[1:]]
                    sign = 1.0 if labels[0] > 0 else -1.0
                k += 1
            w = sign * np.array([float(v.split()[0]) for v in lines[k + 1:] if v.strip()])
        else:
            w = np.array([float(v) for v in lines if v.strip()])
    if w.shape[0] != d:
        raise SystemExit("objective.py: %s has %d values, the data %d columns" % (path, w.shape[0], d))
    return w


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("lasso", "logreg", "logreg_l1"):
        sys.stderr.write(__doc__)
        return 2
    kind, prefix, c = sys.argv[1], sys.argv[2], float(sys.argv[3])
    X = sp.load_npz(prefix + ".X.npz").tocsr()
    y = np.load(prefix + ".y.npy")
    n, d = X.shape
    for path in sys.argv[4:]:
        w = read_coef(path, d)
        if kind == "lasso":
            r = y - X @ w
            f = 0.5 / n * float(r @ r) + c * float(np.abs(w).sum())
        elif kind == "logreg":
            m = y * (X @ w)
            f = float(np.logaddexp(0.0, -m).mean()) + 0.5 * c * float(w @ w)
        else:
            m = y * (X @ w)
            f = float(np.logaddexp(0.0, -m).mean()) + c * float(np.abs(w).sum())
        print(path, repr(f), int(np.count_nonzero(w)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
