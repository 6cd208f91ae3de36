#!/usr/bin/env python3
"""icpt_bench.py - the Lasso's intercept on rows like text's
(bench/RESULTS.md, "The Lasso's intercept on rows like text's";
bench/run.sh runs it).

Data: DOCS x WORDS tf-idf rows as a vectorizer makes them, drawn here
with a fixed seed: each document draws about 60 words from a Zipf law
over the vocabulary (a few words in nearly every document, most in few),
its counts weighted (1 + log count) * idf and the row scaled to unit
length (written to 17 digits, so that glmnet's arrays are ptm's file); y = X w + 2 + noise for 200 words of w drawn among the 50th to
3000th most frequent, so that the labels have a large mean and the model
an intercept. The columns of the frequent words are nearly constant: b
and their coefficients fit the same thing, which coordinate descent that
steps b once a sweep trades back and forth between them for many sweeps.

Jobs (objective every round, from beta = 0, b = 0, 20 sweeps): examples/lasso/lasso.ptm
as it is (dynamic active, within = sequential, intercept), round_robin
{ per_round 4000 } with within = sequential and random { per_round 1000 }
with within = parallel (its rounds' changes computed together, damped),
both with the intercept, on 1 worker, lambda = 1e-4; seconds (the trace's) and sweeps of updates until
the objective first came within 1e-6 of f*, f* the lowest objective any
run reached (glmnet's included). glmnet (R, if installed: scripts/deps.sh
--bench): glmnet(X, y, lambda = 1e-4, intercept = TRUE, standardize =
FALSE, thresh = T) for T = 1e-7, 1e-10, 1e-12, the seconds of the call
and its objective's gap. Medians of RUNS runs.

Usage: icpt_bench.py PTM [RUNS]. Markdown to stdout, progress to stderr.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

DOCS, WORDS, PER, LAMBDA, SEED = 61000, 18000, 60, 1e-4, 3


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def gen(path):
    rng = np.random.default_rng(SEED)
    freq = 1.0 / np.arange(1, WORDS + 1) ** 1.05
    freq /= freq.sum()
    perm = rng.permutation(WORDS)  # word ids not in frequency order
    lens = rng.poisson(PER, DOCS) + 5
    doc = np.repeat(np.arange(DOCS), lens)
    word = perm[rng.choice(WORDS, size=int(lens.sum()), p=freq)]
    key = np.unique(doc.astype(np.int64) * WORDS + word, return_counts=True)
    r, c, cnt = key[0] // WORDS, key[0] % WORDS, key[1].astype(float)
    df = np.bincount(c, minlength=WORDS)
    v = (1 + np.log(cnt)) * (np.log((1 + DOCS) / (1 + df)) + 1)[c]
    v /= np.sqrt(np.bincount(r, weights=v * v, minlength=DOCS))[r]
    w = np.zeros(WORDS)
    support = rng.choice(np.argsort(-df)[50:3000], 200, replace=False)
    w[support] = rng.normal(0, 3, 200) + 1.0
    y = np.bincount(r, weights=v * w[c], minlength=DOCS) + 2.0 + 0.1 * rng.normal(size=DOCS)
    starts = np.searchsorted(r, np.arange(DOCS + 1))
    with open(path, "w") as f:
        for i in range(DOCS):
            s, e = starts[i], starts[i + 1]
            f.write("%r %s\n" % (float(y[i]), " ".join(
                "%d:%r" % (c[k] + 1, float(v[k])) for k in range(s, e))))
    return r, c, v, y, df


def points(trace):
    """(updates, seconds, objective) of each evaluated round."""
    out, ups = [], 0
    with open(trace) as f:
        for line in f:
            d = json.loads(line)
            if "round" not in d:
                continue
            ups += d.get("updates", 0)
            if "objective" in d:
                out.append((ups, d["seconds"], d["objective"]))
    return out


def glmnet(tmp, r, c, v, y, runs):
    if not shutil.which("Rscript") or subprocess.run(
            ["Rscript", "-e", "library(glmnet)"], capture_output=True).returncode != 0:
        return None
    csc = np.lexsort((r, c))
    colptr = np.searchsorted(c[csc], np.arange(WORDS + 1)).astype(np.int32)
    colptr.tofile(os.path.join(tmp, "x.colptr"))
    r[csc].astype(np.int32).tofile(os.path.join(tmp, "x.rowind"))
    v[csc].astype(np.float64).tofile(os.path.join(tmp, "x.val"))
    y.astype(np.float64).tofile(os.path.join(tmp, "x.y"))
    script = os.path.join(tmp, "g.R")
    with open(script, "w") as f:
        f.write("""suppressPackageStartupMessages({library(Matrix); library(glmnet)})
rd <- function(s, what, size) { p <- paste0("%s/x", s); readBin(p, what = what, n = file.size(p) / size, size = size, endian = "little") }
p <- rd(".colptr", "integer", 4); i <- rd(".rowind", "integer", 4); x <- rd(".val", "double", 8); y <- rd(".y", "double", 8)
X <- new("dgCMatrix", i = i, p = p, x = x, Dim = c(length(y), length(p) - 1L))
cat("glmnet", as.character(packageVersion("glmnet")), "\\n")
for (k in seq_len(%d)) for (th in c(1e-7, 1e-10, 1e-12)) {
  t0 <- proc.time()[["elapsed"]]
  fit <- glmnet(X, y, family = "gaussian", alpha = 1, lambda = %r, intercept = TRUE, standardize = FALSE, thresh = th)
  s <- proc.time()[["elapsed"]] - t0
  b <- as.numeric(fit$beta); rr <- y - as.numeric(X %%*%% b) - fit$a0
  cat(sprintf("fit %%g %%.4f %%.17g %%d\\n", th, s, sum(rr^2) / (2 * length(y)) + %r * sum(abs(b)), fit$npasses))
}
""" % (tmp, runs, LAMBDA, LAMBDA))
    out = subprocess.run(["Rscript", script], capture_output=True, text=True, check=True).stdout
    version = re.search(r"glmnet (\S+)", out).group(1)
    fits = {}
    for m in re.finditer(r"fit (\S+) (\S+) (\S+) (\d+)", out):
        fits.setdefault(float(m.group(1)), []).append(
            (float(m.group(2)), float(m.group(3)), int(m.group(4))))
    return version, fits


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    ptm = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    tmp = tempfile.mkdtemp(prefix="ptm-icpt-bench.")
    try:
        log("== intercept: text-like rows")
        svm = os.path.join(tmp, "tf.svm")
        r, c, v, y, df = gen(svm)
        with open("examples/lasso/lasso.ptm") as f:
            ex = f.read()
        ex = ex.replace('"data/lasso.svm"', '"%s"' % svm)
        ex = re.sub(r"const lambda = \S+", "const lambda = %r" % LAMBDA, ex)
        ex = re.sub(r"every 1 sweeps", "every 1 rounds", ex)
        ex = re.sub(r"stop when .*", "stop when sweeps >= 20", ex)
        ex = re.sub(r"^output .*\n", "", ex, flags=re.M)
        rr = re.sub(r"schedule dynamic \{.*?\}", "schedule round_robin { per_round 4000 }", ex,
                    flags=re.S)
        par = re.sub(r"schedule dynamic \{.*?\}", "schedule random { per_round 1000 }", ex,
                     flags=re.S).replace(", within = sequential", "")
        par = re.sub(r"^priority .*\n", "", par, flags=re.M)
        jobs = [("the example (dynamic active, sequential)", ex),
                ("round_robin { per_round 4000 }, sequential", rr),
                ("random { per_round 1000 }, parallel (damped)", par)]
        res = {}
        for name, text in jobs:
            path = os.path.join(tmp, "job.ptm")
            with open(path, "w") as f:
                f.write(text)
            res[name] = []
            for _ in range(runs):
                tr = os.path.join(tmp, "trace.json")
                subprocess.run([ptm, "run", "--quiet", "--workers", "1", "--trace", tr, path],
                               check=True, capture_output=True)
                res[name].append(points(tr))
        g = glmnet(tmp, r, c, v, y, runs)
        fstar = min(p[2] for rs in res.values() for pts in rs for p in pts)
        if g:
            fstar = min([fstar] + [f for fits in g[1].values() for _, f, _ in fits])
        target = fstar * (1 + 1e-6)
        nnz = len(v)
        md = ["## The Lasso's intercept on rows like text's", "",
              "Written by bench/icpt_bench.py (from bench/run.sh): %d x %d tf-idf rows drawn "
              "as a text vectorizer makes them (a Zipf law of words, %d non-zeros, the most "
              "frequent word in %d of the %d rows; y = X w + 2 + noise), lambda = %g, 1 "
              "worker, objective every round; f* = %.15g, the lowest objective any run "
              "reached. Sweeps of updates and the trace's seconds until the objective first "
              "came within 1e-6 of f*; medians of %d runs. glmnet: `glmnet(X, y, lambda, "
              "intercept = TRUE, standardize = FALSE, thresh = T)`, the call's seconds, X in "
              "memory." % (DOCS, WORDS, nnz, int(df.max()), DOCS, LAMBDA, fstar, runs), "",
              "| solver | sweeps to 1e-6 | seconds to 1e-6 | final gap |",
              "|---|---|---|---|"]
        for name, rs in res.items():
            sw, secs, gaps = [], [], []
            for pts in rs:
                hit = next((p for p in pts if p[2] <= target), None)
                sw.append(hit[0] / WORDS if hit else float("inf"))
                secs.append(hit[1] if hit else float("inf"))
                gaps.append((pts[-1][2] - fstar) / fstar)
            md.append("| ptm, %s | %.1f | %.4f | %.1e |" % (
                name, statistics.median(sw), statistics.median(secs), statistics.median(gaps)))
            log("  %s: %.1f sweeps, %.4f s" % (name, statistics.median(sw),
                                                statistics.median(secs)))
        if g:
            for th, fits in sorted(g[1].items(), reverse=True):
                s = statistics.median(x[0] for x in fits)
                gap = (fits[-1][1] - fstar) / fstar
                md.append("| glmnet %s, thresh %g | %d passes | %.4f | %.1e |" % (
                    g[0], th, fits[-1][2], s, gap))
                log("  glmnet thresh %g: %.4f s, gap %.1e" % (th, s, gap))
        else:
            md.append("| glmnet | SKIP (no R glmnet: scripts/deps.sh --bench) | | |")
        print("\n".join(md + [""]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
