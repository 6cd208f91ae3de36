#!/usr/bin/env python3
"""prep.py - read a libsvm file once, as scikit-learn reads it, and keep it
in forms the peers load in a second (bench/peers.sh).

Usage: prep.py FILE COLS PREFIX [--csc] [--rbin]

Reads FILE with sklearn.datasets.load_svmlight_file (1-based indices, COLS
columns) and writes PREFIX.X.npz (scipy.sparse, CSR; CSC with --csc) and
PREFIX.y.npy. With --rbin also PREFIX.colptr, PREFIX.rowind (int32),
PREFIX.val and PREFIX.y (float64), raw little-endian arrays of the CSC
form, for R's readBin (bench/peers/lasso_glmnet.R). Prints
  shape ROWS COLS NNZ
  lambda_max MAX_j |x_j . y| / ROWS
  seconds READ_SECONDS
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if len(args) != 3 or flags - {"--csc", "--rbin"}:
        sys.stderr.write(__doc__)
        return 2
    path, cols, prefix = args[0], int(args[1]), args[2]
    t0 = time.perf_counter()
    X, y = load_svmlight_file(path, n_features=cols, dtype=np.float64, zero_based=False)
    secs = time.perf_counter() - t0
    y = np.ascontiguousarray(y, dtype=np.float64)
    if "--csc" in flags or "--rbin" in flags:
        X = X.tocsc()
        X.sort_indices()
    sp.save_npz(prefix + ".X.npz", X, compressed=False)
    np.save(prefix + ".y.npy", y)
    if "--rbin" in flags:
        X.indptr.astype("<i4").tofile(prefix + ".colptr")
        X.indices.astype("<i4").tofile(prefix + ".rowind")
        X.data.astype("<f8").tofile(prefix + ".val")
        y.astype("<f8").tofile(prefix + ".y")
    print("shape", X.shape[0], X.shape[1], X.nnz)
    print("lambda_max", repr(float(np.abs(X.T @ y).max()) / X.shape[0]))
    print("seconds", "%.3f" % secs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
