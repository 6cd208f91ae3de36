#!/usr/bin/env python3
"""lda_joint.py - the collapsed joint log-likelihood per token, log p(w, z) / N,
of WarpLDA's topic assignments (bench/lda_warp.sh).

Usage: lda_joint.py ZFILE K ALPHA BETA W

ZFILE is what `warplda --dumpz` writes: a line a document, its token count
and then WORD:TOPIC for each token. ALPHA is the prior of one topic (WarpLDA's
--alpha is their sum, K ALPHA), W the vocabulary size of the topic totals'
term. The figure is the one ptm's lda_loglik prints (runtime/models/lda/
kernel_lda.h):

  sum_d [lgamma(K a) - lgamma(n_d + K a) + sum_k (lgamma(n_dk + a) - lgamma(a))]
  + sum_wk (lgamma(n_wk + b) - lgamma(b)) + sum_k [lgamma(W b) - lgamma(n_k + W b)]

over N, computed here from the assignments alone. Prints: joint LL
"""
import sys
from math import lgamma

import numpy as np
from scipy.special import gammaln


def main():
    if len(sys.argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    path, K = sys.argv[1], int(sys.argv[2])
    a, b, W = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    docs, words, topics = [], [], []
    with open(path) as f:
        for d, line in enumerate(f):
            parts = line.split()
            for p in parts[1:]:
                w, k = p.split(":")
                docs.append(d)
                words.append(int(w))
                topics.append(int(k))
    docs, words, topics = np.array(docs), np.array(words), np.array(topics)
    N = len(docs)
    ndk = np.bincount(docs * K + topics)
    nwk = np.bincount(words * K + topics)
    nd = np.bincount(docs)
    nk = np.bincount(topics, minlength=K)
    ll = (len(nd) * lgamma(K * a) - gammaln(nd + K * a).sum()
          + (gammaln(ndk[ndk > 0] + a) - lgamma(a)).sum()
          + (gammaln(nwk[nwk > 0] + b) - lgamma(b)).sum()
          + K * lgamma(W * b) - gammaln(nk + W * b).sum())
    print("joint", repr(ll / N))
    return 0


if __name__ == "__main__":
    sys.exit(main())
