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

Two more modes for bench/peers.sh, time to an objective:
  lasso_sklearn.py fits FILE COLS LAMBDA RUNS COEF_OUT SPEC...
      SPEC is tol=T (a fit as a user runs it: Lasso's own stopping test on
      the duality gap, max_iter 100000) or epochs=K (tol=1e-30, exactly K
      epochs). Each SPEC is fitted RUNS times from coef = 0; prints
        fit SPEC N_ITER MEDIAN_SECONDS OBJECTIVE NONZEROS RUN1_S ...
      and saves the coefficients of the last SPEC's fit to COEF_OUT (.npy).
  lasso_sklearn.py search FILE COLS LAMBDA TARGET KMAX
      the fewest epochs K <= KMAX whose fit reaches an objective <= TARGET
      (bisection: cyclic coordinate descent from 0 never raises the
      objective); prints  epochs K OBJECTIVE  (K = 0 when KMAX does not).
FILE is the libsvm file, or PREFIX.X.npz as bench/peers/prep.py writes it
from that file (with PREFIX.y.npy beside it).
"""
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso


def load(path, cols):
    """X in CSC with sorted indices, and y, from FILE as the usage says."""
    if path.endswith(".X.npz"):
        import scipy.sparse as sp
        X = sp.load_npz(path)
        y = np.load(path[:-len(".X.npz")] + ".y.npy")
    else:
        X, y = load_svmlight_file(path, n_features=cols, dtype=np.float64, zero_based=False)
    X = X.tocsc()
    X.sort_indices()
    return X, np.ascontiguousarray(y, dtype=np.float64)


def objective(X, y, lam, w):
    r = y - X @ w
    return 0.5 / X.shape[0] * float(r @ r) + lam * float(np.abs(w).sum())


def fit(X, y, lam, spec):
    """One fit from 0 by SPEC (tol=T or epochs=K): (model, seconds)."""
    key, val = spec.split("=")
    if key == "tol":
        m = Lasso(alpha=lam, fit_intercept=False, selection="cyclic", tol=float(val),
                  max_iter=100000, precompute=False, copy_X=False)
    elif key == "epochs":
        m = Lasso(alpha=lam, fit_intercept=False, selection="cyclic", tol=1e-30,
                  max_iter=int(val), precompute=False, copy_X=False)
    else:
        raise SystemExit("lasso_sklearn.py: bad SPEC %r (tol=T or epochs=K)" % spec)
    t0 = time.perf_counter()
    m.fit(X, y, check_input=False)
    return m, time.perf_counter() - t0


def fits(argv):
    path, cols, lam, runs, coef_out = argv[0], int(argv[1]), float(argv[2]), int(argv[3]), argv[4]
    X, y = load(path, cols)
    print("sklearn", sklearn.__version__, flush=True)
    warnings.simplefilter("ignore", ConvergenceWarning)
    for spec in argv[5:]:
        secs = []
        for _ in range(runs):
            m, s = fit(X, y, lam, spec)
            secs.append(s)
        w = m.coef_
        print("fit", spec, int(m.n_iter_), "%.6f" % float(np.median(secs)),
              repr(objective(X, y, lam, w)), int(np.count_nonzero(w)),
              " ".join("%.6f" % s for s in secs), flush=True)
    np.save(coef_out, m.coef_)
    return 0


def search(argv):
    path, cols, lam, target, kmax = argv[0], int(argv[1]), float(argv[2]), float(argv[3]), int(argv[4])
    X, y = load(path, cols)
    warnings.simplefilter("ignore", ConvergenceWarning)
    seen = {}

    def obj(k):
        if k not in seen:
            seen[k] = objective(X, y, lam, fit(X, y, lam, "epochs=%d" % k)[0].coef_)
        return seen[k]

    if obj(kmax) > target:
        print("epochs 0", repr(obj(kmax)))
        return 0
    lo, hi = 0, kmax  # obj(lo) > target (lo = 0: nothing fitted), obj(hi) <= target
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if obj(mid) <= target:
            hi = mid
        else:
            lo = mid
    print("epochs", hi, repr(obj(hi)))
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "fits" and len(sys.argv) >= 8:
        return fits(sys.argv[2:])
    if len(sys.argv) == 7 and sys.argv[1] == "search":
        return search(sys.argv[2:])
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
