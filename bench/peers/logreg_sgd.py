#!/usr/bin/env python3
"""logreg_sgd.py - scikit-learn's SGDClassifier(loss='log_loss') on the
logistic regression of bench/peers.sh, an epoch at a time.

Usage: logreg_sgd.py PREFIX L2 TARGET MAX_EPOCHS MAX_SECONDS SEED COEF_OUT
                     [LEARNING_RATE [ETA0 [POWER_T]]]

SGDClassifier(loss='log_loss', penalty='l2', alpha=L2, fit_intercept=False,
learning_rate=LEARNING_RATE (default 'optimal', scikit-learn's default),
eta0, power_t, shuffle=True, random_state=SEED) minimizes
(1/n) sum log(1 + exp(-y w.x)) + (L2/2) ||w||^2, the objective of ptm's
logreg_sgd with l2 = L2. Each epoch is one partial_fit() over all of
PREFIX.X.npz (as bench/peers/prep.py read it from the libsvm file), which
continues the learning-rate schedule of the epochs before, as fit() with
max_iter epochs does. Only partial_fit() is timed; the objective is then
computed here, outside the timing. Stops after the first epoch whose
objective is <= TARGET, or MAX_EPOCHS, or MAX_SECONDS of fitting. Prints
  sgd VERSION
  epoch E CUMULATIVE_SECONDS OBJECTIVE
and saves the last coefficients to COEF_OUT (.npy).
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.linear_model import SGDClassifier


def main():
    if len(sys.argv) < 8 or len(sys.argv) > 11:
        sys.stderr.write(__doc__)
        return 2
    prefix, l2, target = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    max_epochs, max_seconds, seed = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    coef_out = sys.argv[7]
    lr = sys.argv[8] if len(sys.argv) > 8 else "optimal"
    eta0 = float(sys.argv[9]) if len(sys.argv) > 9 else 0.0
    power_t = float(sys.argv[10]) if len(sys.argv) > 10 else 0.5
    X = sp.load_npz(prefix + ".X.npz").tocsr()
    y = np.load(prefix + ".y.npy")
    classes = np.array([-1.0, 1.0])
    print("sgd", sklearn.__version__, flush=True)
    m = SGDClassifier(loss="log_loss", penalty="l2", alpha=l2, fit_intercept=False,
                      learning_rate=lr, eta0=eta0, power_t=power_t, shuffle=True,
                      random_state=seed, tol=None, max_iter=1)
    total = 0.0
    for e in range(1, max_epochs + 1):
        t0 = time.perf_counter()
        m.partial_fit(X, y, classes=classes)
        total += time.perf_counter() - t0
        w = m.coef_.ravel()
        f = float(np.logaddexp(0.0, -(y * (X @ w))).mean()) + 0.5 * l2 * float(w @ w)
        print("epoch", e, "%.6f" % total, repr(f), flush=True)
        if f <= target or total >= max_seconds:
            break
    np.save(coef_out, m.coef_.ravel())
    return 0


if __name__ == "__main__":
    sys.exit(main())
