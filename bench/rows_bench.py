#!/usr/bin/env python3
"""rows_bench.py - lasso_cd under within = parallel on 2 workers: rounds
split among them against rounds on the first worker alone, as
`split_min` decides (spec/runtime.md, "by blocks").

For each shape and schedule: one worker; two workers with the default
split_min; two workers with split_min = 0 (every round split). The three
give the same bits (checked here on beta); what differs is the time.
Each is run RUNS times, the three in turn (the machine's speed drifts),
timed by the trace's seconds of the last round (the rounds and the
objective, not reading the data); per run the ratio 1 worker / that
run's seconds, and the medians.

Usage: rows_bench.py PTM [RUNS]. Markdown to stdout, progress to stderr.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sched_bench  # noqa: E402

# name, `ptm gen lasso` options, lambda
SHAPES = [
    ("A", "--seed 4 --rows 5000 --cols 20000 --density 0.005 --group 10 --corr 0.9 "
     "--nonzeros 100", 0.002),
    ("B", "--seed 5 --rows 5000 --cols 20000 --density 0.005 --group 10 --corr 0.5 "
     "--nonzeros 100", 0.002),
    ("wide", "--seed 1 --rows 20000 --cols 200000 --density 0.001 --group 10 --corr 0.5 "
     "--nonzeros 100 --noise 0.1", 1e-4),
    ("tall", "--seed 7 --rows 60000 --cols 20000 --density 0.00133 --group 10 --corr 0.5 "
     "--nonzeros 100 --nonnegative --offset 10", 1e-4),
]
DEP = ("depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3\n"
       "priority coef(j) = abs(delta(beta[j]))\ncost coef(j) = nnz(col(X, j))")
# name, schedule, extra lines
SCHEDULES = [
    ("round_robin 1000", "round_robin { per_round 1000 }", ""),
    ("random 1000", "random { per_round 1000 }", ""),
    ("random 4000", "random { per_round 4000 }", ""),
    ("dynamic active moved 1000", "dynamic { sample 1000, active, keep moved }", DEP),
]
ROUNDS = 100
RUNS = 7


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def job(tmp, name, svm, lam, sched, extra, split):
    text = sched_bench.job_text(svm, lam, sched, extra, split, "every 1 sweeps",
                                "rounds >= %d" % ROUNDS,
                                'output beta to "%s"\n' % os.path.join(tmp, name + ".beta.tsv"))
    path = os.path.join(tmp, name + ".ptm")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(ptm, path, workers, tmp):
    tr = os.path.join(tmp, "trace.json")
    p = subprocess.run([ptm, "run", "--quiet", "--workers", str(workers), "--trace", tr, path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("rows_bench: %s failed:\n%s" % (path, p.stderr))
    last = None
    with open(tr) as f:
        for line in f:
            d = json.loads(line)
            if "round" in d:
                last = d
    return last["seconds"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ptm = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else RUNS
    tmp = tempfile.mkdtemp(prefix="ptm-rows-bench.")
    rows = []
    try:
        for key, opts, lam in SHAPES:
            out = os.path.join(tmp, key)
            log("== rows_bench: ptm gen lasso %s" % opts)
            subprocess.run([ptm, "gen", "lasso", "--out", out] + opts.split(), check=True,
                           stdout=subprocess.DEVNULL)
            svm = os.path.join(out, "lasso.svm")
            for sname, sched, extra in SCHEDULES:
                jobs = [("one", job(tmp, "one", svm, lam, sched, extra, ""), 1),
                        ("default", job(tmp, "default", svm, lam, sched, extra, ""), 2),
                        ("split", job(tmp, "split", svm, lam, sched, extra, ", split_min = 0"), 2)]
                secs = {n: [] for n, _, _ in jobs}
                for i in range(runs):
                    for n, path, w in jobs:
                        secs[n].append(run(ptm, path, w, tmp))
                betas = [open(os.path.join(tmp, n + ".beta.tsv")).read() for n, _, _ in jobs]
                if betas[1] != betas[0] or betas[2] != betas[0]:
                    sys.exit("rows_bench: %s %s: beta differs between the runs" % (key, sname))
                ratio = {n: statistics.median(a / b for a, b in zip(secs["one"], secs[n]))
                         for n in ("default", "split")}
                med = {n: statistics.median(v) for n, v in secs.items()}
                rows.append((key, sname, med, ratio))
                log("  %s %s: %.4f %.4f (%.2f) %.4f (%.2f)" % (
                    key, sname, med["one"], med["default"], ratio["default"], med["split"],
                    ratio["split"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("### Workers, rounds computed together\n")
    print("Written by bench/rows_bench.py: `lasso_cd { lambda = L }` (within = parallel) on "
          "`ptm gen lasso` data, %d rounds of each schedule (the dynamic one with the cos() "
          "dependency of the Schedulers section), objective every sweep; one worker, two "
          "workers with the default split_min (rounds of fewer non-zeros on the first worker "
          "alone, spec/runtime.md), and two workers with split_min = 0 (every round split). "
          "The three give the same beta, to the bit (checked). Seconds: the trace's, to the "
          "last round (the rounds and the objective evaluations); %d runs of each, the three "
          "in turn; medians, and medians of the ratios 1 worker / 2 workers (> 1: 2 workers "
          "faster).\n" % (ROUNDS, runs))
    print("| data | schedule | 1 worker s | 2 workers, default s | ratio | "
          "2 workers, split_min = 0 s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for key, sname, med, ratio in rows:
        print("| %s | %s | %.4f | %.4f | %.2f | %.4f | %.2f |" % (
            key, sname, med["one"], med["default"], ratio["default"], med["split"],
            ratio["split"]))
    print()
    for key, opts, lam in SHAPES:
        print("- %s: `ptm gen lasso %s`, L = %g." % (key, opts, lam))
    print()


if __name__ == "__main__":
    main()
