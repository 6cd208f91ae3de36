#!/usr/bin/env python3
"""whole_bench.py - 2 workers against 1 as a user pays for them: the whole
`ptm run` of the Lasso example (reading the file, building its columns,
setting up, the rounds, writing beta), as a process, on the bench's shapes.

The "Schedulers" section's Workers table times the rounds alone (the
trace's seconds); here the clock runs from the command's start to its end.
Each shape's file is written by `ptm gen lasso`, the example job is
examples/lasso/lasso.ptm with its data path, outputs and lambda replaced,
under its own schedule and stop rule. 7 pairs of runs, one right after the
other (the order alternating, as the machine's speed drifts); each pair
gives the ratio 1 worker / 2 workers of the wall seconds (> 1: 2 workers
faster); median and quartiles. The file is read once before the pairs, so
that every run finds it in the page cache.

Usage: whole_bench.py PTM. Markdown to stdout, progress to stderr.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "lasso", "lasso.ptm")
# name, `ptm gen lasso` options, lambda
SHAPES = [
    ("Lasso bench", "--seed 1 --rows 20000 --cols 200000 --density 0.001 --group 10 --corr 0.5 "
     "--nonzeros 2000 --noise 1", 0.0006335227822287741),
    ("wide", "--seed 1 --rows 20000 --cols 200000 --density 0.001 --group 10 --corr 0.5 "
     "--nonzeros 100 --noise 0.1", 1e-4),
    ("B", "--seed 5 --rows 5000 --cols 20000 --density 0.005 --group 10 --corr 0.5 "
     "--nonzeros 100", 0.002),
    ("tall", "--seed 7 --rows 60000 --cols 20000 --density 0.00133 --group 10 --corr 0.5 "
     "--nonzeros 100 --nonnegative --offset 10", 1e-4),
]
PAIRS = 7


def job_text(data, out):
    text = open(EXAMPLE).read()
    text = text.replace('"data/lasso.svm"', '"%s"' % data)
    text = re.sub(r'output (\w+) to "[^"]*"', lambda m: 'output %s to "%s/%s.tsv"'
                  % (m.group(1), out, m.group(1)), text)
    return text


def run(ptm, job, workers, lam):
    cmd = [ptm, "run", "--workers", str(workers), "--set", "lambda=%r" % lam, job]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("whole_bench: %s failed:\n%s" % (" ".join(cmd), p.stderr))
    last = p.stderr.strip().splitlines()[-1]
    return secs, last


def quartiles(xs):
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], q[2]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: whole_bench.py PTM")
    ptm = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="ptm-whole.")
    rows = []
    try:
        for name, gen, lam in SHAPES:
            d = os.path.join(tmp, name.replace(" ", "_"))
            subprocess.run([ptm, "gen", "lasso", *gen.split(), "--out", d], check=True,
                           stdout=subprocess.DEVNULL)
            job = os.path.join(d, "job.ptm")
            with open(job, "w") as f:
                f.write(job_text(os.path.join(d, "lasso.svm"), d))
            size = os.path.getsize(os.path.join(d, "lasso.svm"))
            run(ptm, job, 1, lam)  # the file into the page cache
            one, two, ratios = [], [], []
            stops = set()
            for i in range(PAIRS):
                order = (1, 2) if i % 2 == 0 else (2, 1)
                t = {}
                for w in order:
                    t[w], last = run(ptm, job, w, lam)
                    stops.add(re.sub(r", [0-9.]+s\)", ")", last))
                one.append(t[1])
                two.append(t[2])
                ratios.append(t[1] / t[2])
            lo, hi = quartiles(ratios)
            rows.append((name, gen, lam, size, statistics.median(one), statistics.median(two),
                         statistics.median(ratios), lo, hi, sorted(stops)))
            print("whole %s: 1 worker %.3f s, 2 workers %.3f s, ratio %.2f" %
                  (name, rows[-1][4], rows[-1][5], rows[-1][6]), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("### Workers, the whole command")
    print()
    print(__doc__.split("\n\n")[1].replace("\n", " ").strip())
    print()
    print("| data | bytes | lambda | 1 worker s (median) | 2 workers s (median) | "
          "ratio (median) | quartiles |")
    print("|---|---|---|---|---|---|---|")
    for name, gen, lam, size, one, two, r, lo, hi, _ in rows:
        print("| %s | %d | %g | %.3f | %.3f | %.2f | %.2f .. %.2f |" %
              (name, size, lam, one, two, r, lo, hi))
    print()
    for name, gen, lam, size, one, two, r, lo, hi, stops in rows:
        print("- %s: `ptm gen lasso %s`; the runs ended: %s." %
              (name, gen, "; ".join("`%s`" % s for s in stops)))
    print()


if __name__ == "__main__":
    main()
