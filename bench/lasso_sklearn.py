"""lasso_sklearn.py - scikit-learn's Lasso on the file lasso_bench reads.

Usage: python3 bench/lasso_sklearn.py FILE COLS LAMBDA EPOCHS_A EPOCHS_B [RUNS]

Fits sklearn.linear_model.Lasso(alpha=LAMBDA, fit_intercept=False,
selection="cyclic", tol=1e-30) from coef = 0 with max_iter = EPOCHS_A and
then EPOCHS_B, RUNS times each (default 3), on X already in CSC (the
layout its coordinate descent wants), so that fit() does no conversion.
The objective is the same as ptm's: 1/(2n) |y - X w|^2 + alpha |w|_1,
and with the cyclic order and a start at 0 the epochs are the same
coordinate updates as ptm's sweeps. The tolerance is so small that every
fit runs max_iter epochs (n_iter_ says so); the last epoch also computes
the duality gap. Prints, one item a line:
  sklearn VERSION
  fit EPOCHS N_ITER MEDIAN_SECONDS MEDIAN_CPU_SECONDS OBJECTIVE NONZEROS RUN1_S ...
  epoch MARGINAL_SECONDS_PER_EPOCH MARGINAL_CPU_SECONDS_PER_EPOCH
where the marginal time is (median(B) - median(A)) / (B - A): the cost of
one more epoch, without fit()'s fixed set-up. CPU seconds are the
process's (time.process_time), which a busy machine inflates less.
"""
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso


def main():
    if len(sys.argv) not in (6, 7):
        sys.stderr.write(__doc__)
        return 2
    path, cols, lam = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    ea, eb = int(sys.argv[4]), int(sys.argv[5])
    runs = int(sys.argv[6]) if len(sys.argv) == 7 else 3
    X, y = load_svmlight_file(path, n_features=cols, dtype=np.float64)
    X = X.tocsc()
    X.sort_indices()
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = X.shape[0]
    print("sklearn", sklearn.__version__)
    warnings.simplefilter("ignore", ConvergenceWarning)
    med, med_cpu = {}, {}
    for epochs in (ea, eb):
        secs, cpus = [], []
        for _ in range(runs):
            m = Lasso(alpha=lam, fit_intercept=False, selection="cyclic", tol=1e-30,
                      max_iter=epochs, precompute=False, copy_X=False)
            t0, c0 = time.perf_counter(), time.process_time()
            m.fit(X, y, check_input=False)
            secs.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        w = m.coef_
        r = y - X @ w
        obj = 0.5 / n * float(r @ r) + lam * float(np.abs(w).sum())
        med[epochs] = float(np.median(secs))
        med_cpu[epochs] = float(np.median(cpus))
        print("fit", epochs, int(m.n_iter_), "%.6f" % med[epochs], "%.6f" % med_cpu[epochs],
              repr(obj), int(np.count_nonzero(w)), " ".join("%.6f" % s for s in secs))
    print("epoch", "%.6f" % ((med[eb] - med[ea]) / (eb - ea)),
          "%.6f" % ((med_cpu[eb] - med_cpu[ea]) / (eb - ea)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
