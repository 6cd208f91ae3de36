#!/usr/bin/env python3
"""lda_peers.py - scikit-learn's and gensim's LDA on the documents of
bench/peers.sh, a pass over the corpus at a time.

Usage: lda_peers.py SYSTEM DOCWORD K ALPHA BETA PASSES SEED OUTDIR CHECKPOINTS

SYSTEM is one of
  sklearn  LatentDirichletAllocation(n_components=K, doc_topic_prior=ALPHA,
           topic_word_prior=BETA, learning_method='online',
           total_samples=D, random_state=SEED), a partial_fit() a pass
           (online variational Bayes, mini-batches of 128 documents)
  gensim   LdaModel(num_topics=K, alpha=ALPHA, eta=BETA, chunksize=2000,
           iterations=50, eval_every=None, random_state=SEED), an update()
           a pass (online variational Bayes; the step size keeps decaying
           over the calls, as over passes)
  gensim-multicore  LdaMulticore with workers=1 (a second process does the
           E-step), otherwise as gensim
DOCWORD is the UCI file every system read. Only the training calls are
timed (not reading, not building the corpus). After each pass in
CHECKPOINTS (comma-separated) the topic-word estimate is saved to
OUTDIR/SYSTEM.PASS.npy (K x W, rows normalized: components_ or
get_topics()). Prints
  lda SYSTEM VERSION
  pass P CUMULATIVE_SECONDS
"""
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lda_quality import read_docword  # noqa: E402


def main():
    if len(sys.argv) != 10:
        sys.stderr.write(__doc__)
        return 2
    system, path, K = sys.argv[1], sys.argv[2], int(sys.argv[3])
    alpha, beta, passes, seed = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    outdir, checkpoints = sys.argv[8], {int(c) for c in sys.argv[9].split(",") if c}
    X = read_docword(path)
    warnings.simplefilter("ignore")
    if system == "sklearn":
        import sklearn
        from sklearn.decomposition import LatentDirichletAllocation
        print("lda sklearn", sklearn.__version__, flush=True)
        m = LatentDirichletAllocation(n_components=K, doc_topic_prior=alpha, topic_word_prior=beta,
                                      learning_method="online", total_samples=X.shape[0],
                                      random_state=seed)

        def step():
            m.partial_fit(X)

        def topics():
            return m.components_
    elif system in ("gensim", "gensim-multicore"):
        import logging

        import gensim
        from gensim.matutils import Sparse2Corpus
        logging.disable(logging.WARNING)
        print("lda", system, gensim.__version__, flush=True)
        corpus = list(Sparse2Corpus(X, documents_columns=False))
        id2word = {i: str(i) for i in range(X.shape[1])}
        kw = dict(id2word=id2word, num_topics=K, alpha=alpha, eta=beta, chunksize=2000,
                  iterations=50, eval_every=None, random_state=seed)
        if system == "gensim":
            m = gensim.models.LdaModel(**kw)
        else:
            m = gensim.models.LdaMulticore(workers=1, **kw)

        def step():
            m.update(corpus)

        def topics():
            return m.get_topics()
    else:
        sys.stderr.write(__doc__)
        return 2
    total = 0.0
    for p in range(1, passes + 1):
        t0 = time.perf_counter()
        step()
        total += time.perf_counter() - t0
        print("pass", p, "%.6f" % total, flush=True)
        if p in checkpoints:
            phi = np.asarray(topics(), dtype=np.float64)
            np.save(os.path.join(outdir, "%s.%d.npy" % (system, p)), phi / phi.sum(axis=1, keepdims=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
