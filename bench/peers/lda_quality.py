#!/usr/bin/env python3
"""lda_quality.py - the topics of every system scored the same way, from
their topic-word estimates alone (bench/peers.sh).

Usage: lda_quality.py DOCWORD TOPICS_TRUE ALPHA BETA ITERS FILE...

DOCWORD is the UCI bag-of-words file every system read, TOPICS_TRUE the
planted topics `ptm gen lda` wrote (K lines of W probabilities). A FILE is
ptm's word-topic counts (its `output nwk` TSV: W lines of K counts; phi_k
= (n_wk + BETA) / (n_k + W BETA), the collapsed sampler's estimate), a .npy
array of K x W topic-word weights (scikit-learn's components_, gensim's
topics; each row is normalized here), or the word 'truth' (TOPICS_TRUE).

Two figures for each:
- ll: the log-likelihood per training token, sum_dw n_dw log(sum_k
  theta_dk phi_kw) / sum n_dw, where theta_d is fitted to the document with
  phi held fixed by ITERS EM steps from uniform, with ALPHA added to the
  expected counts each step (theta_dk proportional to ALPHA + the expected
  tokens of topic k). ptm does not output its document-topic counts, so no
  system's own theta is used: every system's phi gets the same fit.
- tv: the mean total variation distance, 1/2 sum_w |phi_kw - true_kw|,
  between each planted topic and the learned topic matched to it (a
  minimum-cost one-to-one matching, scipy's linear_sum_assignment).
Prints, for each FILE:  FILE LL TV
"""
import sys

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment


def read_docword(path):
    """The UCI file as a CSR matrix of counts, documents x words."""
    with open(path, "rb") as f:
        d, w, _ = int(f.readline()), int(f.readline()), int(f.readline())
        a = np.array(f.read().split(), dtype=np.int64).reshape(-1, 3)
    return sp.csr_matrix((a[:, 2].astype(np.float64), (a[:, 0] - 1, a[:, 1] - 1)), shape=(d, w))


def read_phi(path, true_phi, beta):
    if path == "truth":
        return true_phi
    if path.endswith(".npy"):
        phi = np.asarray(np.load(path), dtype=np.float64)
    else:
        nwk = np.loadtxt(path, dtype=np.float64, ndmin=2)  # W x K
        phi = (nwk + beta).T
    return phi / phi.sum(axis=1, keepdims=True)


def loglik(X, phi, alpha, iters):
    D, K = X.shape[0], phi.shape[0]
    rows = np.repeat(np.arange(D), np.diff(X.indptr))
    cols, cnt = X.indices, X.data
    phit = np.ascontiguousarray(phi.T)  # W x K
    pw = phit[cols]  # nnz x K
    theta = np.full((D, K), 1.0 / K)
    for _ in range(iters):
        s = np.einsum("ij,ij->i", theta[rows], pw)
        R = sp.csr_matrix((cnt / s, cols, X.indptr), shape=X.shape)
        theta = alpha + theta * (R @ phit)
        theta /= theta.sum(axis=1, keepdims=True)
    s = np.einsum("ij,ij->i", theta[rows], pw)
    return float((cnt * np.log(s)).sum() / cnt.sum())


def mean_tv(true_phi, phi):
    M = np.empty((true_phi.shape[0], phi.shape[0]))
    for a in range(true_phi.shape[0]):
        M[a] = 0.5 * np.abs(phi - true_phi[a]).sum(axis=1)
    r, c = linear_sum_assignment(M)
    return float(M[r, c].mean())


def main():
    if len(sys.argv) < 7:
        sys.stderr.write(__doc__)
        return 2
    X = read_docword(sys.argv[1])
    true_phi = np.loadtxt(sys.argv[2], dtype=np.float64, ndmin=2)
    true_phi /= true_phi.sum(axis=1, keepdims=True)
    alpha, beta, iters = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    for path in sys.argv[6:]:
        phi = read_phi(path, true_phi, beta)
        if phi.shape[1] != X.shape[1]:
            raise SystemExit("lda_quality.py: %s has %d words, the data %d" % (path, phi.shape[1], X.shape[1]))
        print(path, repr(loglik(X, phi, alpha, iters)), repr(mean_tv(true_phi, phi)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
