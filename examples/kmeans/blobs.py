"""Points for kmeans.ptm: K Gaussian blobs in D dimensions, in random
order, written in libsvm format (label: the blob; every coordinate, offset
so that none is 0, since a sparse file leaves zeros out). Standard library
only: /usr/bin/python3 blobs.py --out data/points.svm [--n 3000 --k 5 --d 4
--seed 3]."""
import argparse
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--n", type=int, default=3000)
ap.add_argument("--k", type=int, default=5)
ap.add_argument("--d", type=int, default=4)
ap.add_argument("--spread", type=float, default=1.0)
ap.add_argument("--seed", type=int, default=3)
a = ap.parse_args()
rng = random.Random(a.seed)
centers = [[rng.uniform(-10, 10) for _ in range(a.d)] for _ in range(a.k)]
os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
with open(a.out, "w") as f:
    for _ in range(a.n):
        c = rng.randrange(a.k)
        x = [100 + m + rng.gauss(0, a.spread) for m in centers[c]]
        f.write("%d %s\n" % (c, " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(x))))
