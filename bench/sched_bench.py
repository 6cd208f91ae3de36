#!/usr/bin/env python3
"""sched_bench.py - the scheduling claims, measured with `ptm run --trace --trace-blocks`
(the "Schedulers" section of bench/RESULTS.md; bench/run.sh runs it).

1. Schedules compared, on data whose correlated columns are spread over X
   (the default of `ptm gen lasso`, as features of real data are), at
   correlation 0.5 and 0.9: round_robin and random with K blocks a round,
   dynamic sampling by priority with K candidates, dynamic with `active`
   (the Lasso example's schedule), and the fastest fixed schedule
   (round_robin { per_round 4000 } with within = sequential) beside
   dynamic { active, keep all } with within = sequential; 1 and 2 workers;
   coordinate updates and seconds to the gaps 1e-2, 1e-4 and 1e-6 of f*.
2. The Lasso example (examples/lasso/lasso.ptm) under its own stop rule on
   8 data seeds, and the share of a run's time spent scheduling.
3. bench/sched_bench (C): candidates and dependency evaluations a second.
4. Workers: 2 against 1 in wall time to 1e-6 of f*, in alternating pairs,
   on three shapes (the Lasso kernel's wide data, data B, and a tall one
   with uncentred non-negative columns and labels of a large mean), for
   round_robin seq, dynamic active seq and random with the round's changes
   computed together.

f* is the objective of round_robin { per_round 4000 } with within =
sequential (cyclic coordinate descent) on one worker after it changed by
less than 1e-14 between sweeps, or the lowest objective any run reached
when that is lower.

Usage: sched_bench.py [--charts] PTM SCHED_BENCH [SVG_DIR]. Markdown to
stdout, progress to stderr; SVG charts into SVG_DIR (default bench/).
--charts: only part 1's runs on 1 worker, to draw its charts again (a few
minutes), with the seconds to each gap as a list, and their points kept in
SVG_DIR/sched_bench_charts.json; --replot FILE: the charts from that file.
SCHED_BENCH_PART=workers runs part 4 alone and prints its subsection;
SCHED_BENCH_PART=shares the scheduler's shares and the example (part 2).
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotstyle  # noqa: E402
import sched_bench_plot  # noqa: E402

LAMBDA = 0.002
DATA = {
    "A": "--seed 4 --rows 5000 --cols 20000 --density 0.005 --group 10 --corr 0.9 --nonzeros 100",
    "B": "--seed 5 --rows 5000 --cols 20000 --density 0.005 --group 10 --corr 0.5 --nonzeros 100",
    "ex": "--seed %d",
    "wide": "--seed 1 --rows 20000 --cols 200000 --density 0.001 --group 10 --corr 0.5 "
            "--nonzeros 100 --noise 0.1",
    "tall": "--seed 7 --rows 60000 --cols 20000 --density 0.00133 --group 10 --corr 0.5 "
            "--nonzeros 100 --nonnegative --offset 10",
}
# part 4: data, lambda; jobs: name, schedule, extra, within = sequential
SHAPES = [("wide", 1e-4), ("B", LAMBDA), ("tall", 1e-4)]
# part 1: lambda by data set (at LAMBDA the wide data's optimum is nearly 0)
LAMBDAS = {"A": LAMBDA, "B": LAMBDA, "wide": 1e-4}
SPLIT = ", within = sequential, split_min = 0"
WORKER_JOBS = [
    ("round_robin seq", "round_robin { per_round 4000 }", "", True),
    ("dynamic active seq", "dynamic { sample 4000, active, keep all }",
     "priority coef(j) = abs(delta(beta[j]))", True),
    ("random", "random { per_round 4000 }", "", False),
    # rounds of a whole sweep (per_round is capped at the blocks), split
    # among the workers (split_min = 0): cyclic, and in a random order
    ("round_robin sweep split", "round_robin { per_round 1000000 }", "", SPLIT),
    ("random sweep split", "random { per_round 1000000 }", "", SPLIT),
]
PAIRS = 7
K = 1000
COS = "depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3"
COST = "cost coef(j) = nnz(col(X, j))"
GAPS = (1e-2, 1e-4, 1e-6)
# the first pass over the columns most like y (no intercept: cos)
ORDER = "order coef(j) = abs(cos(col(X, j), y))"
# name, schedule, extra statements, within = sequential
JOBS = [
    ("round_robin", "round_robin { per_round %d }" % K, "", False),
    ("random", "random { per_round %d }" % K, "", False),
    ("dynamic", "dynamic { sample %d, keep independent }" % K,
     "%s\npriority coef(j) = abs(delta(beta[j])) + 1e-4\n%s" % (COS, COST), False),
    ("dynamic active", "dynamic { sample %d, active, keep independent }" % K,
     "%s\npriority coef(j) = abs(delta(beta[j]))\n%s" % (COS, COST), False),
    ("dynamic active moved", "dynamic { sample %d, active, keep moved }" % K,
     "%s\npriority coef(j) = abs(delta(beta[j]))\n%s" % (COS, COST), False),
    ("dynamic active order", "dynamic { sample %d, active, keep independent }" % K,
     "%s\npriority coef(j) = abs(delta(beta[j]))\n%s\n%s" % (COS, COST, ORDER), False),
    ("dynamic active moved order", "dynamic { sample %d, active, keep moved }" % K,
     "%s\npriority coef(j) = abs(delta(beta[j]))\n%s\n%s" % (COS, COST, ORDER), False),
    ("round_robin seq", "round_robin { per_round 4000 }", "", True),
    ("random seq", "random { per_round 4000 }", "", True),
    ("dynamic active seq", "dynamic { sample 4000, active, keep all }",
     "priority coef(j) = abs(delta(beta[j]))", True),
    ("dynamic active seq order", "dynamic { sample 4000, active, keep all }",
     "priority coef(j) = abs(delta(beta[j]))\n" + ORDER, True),
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def job_text(svm, lam, sched, extra, update, every, stop, tail=""):
    """A Lasso job on svm under sched: lasso_cd with the options update
    (", within = sequential", ...) after lambda; extra lines before the
    schedule, tail lines after the stop rule."""
    return "\n".join([
        "job bench", "const lambda = %r" % lam,
        'data X : sparse matrix from "%s" format libsvm shard rows' % svm,
        "data y : vector from labels(X)", "param beta : vector[cols(X)] = 0",
        "param r : vector[rows(X)] = y shard like X", "blocks coef = beta each 1", extra,
        "schedule " + sched,
        "update builtin lasso_cd { lambda = lambda%s }" % update,
        "objective builtin lasso_objective { lambda = lambda } " + every,
        "stop when " + stop, tail])


class Bench:
    def __init__(self, ptm, sb, svgdir):
        self.ptm, self.sb, self.svgdir = ptm, sb, svgdir
        self.tmp = tempfile.mkdtemp(prefix="ptm-sched-bench.")

    def path(self, name):
        return os.path.join(self.tmp, name)

    def gen(self, key):
        out = self.path("data-" + key)
        subprocess.run([self.ptm, "gen", "lasso", "--out", out] + DATA[key].split(), check=True,
                       stdout=subprocess.DEVNULL)
        return os.path.join(out, "lasso.svm")

    def edges(self, svm, key):
        out = self.path("edges-" + key + ".txt")
        with open(out, "w") as f:
            subprocess.run([self.sb, "graph", svm, "0.1"], check=True, stdout=f,
                           stderr=subprocess.DEVNULL)
        return out

    def job(self, svm, sched, extra, stop, every, name="job.ptm", lam=LAMBDA, seq=False):
        text = job_text(svm, lam, sched, extra, seq if isinstance(seq, str) else
                        ", within = sequential" if seq else "", every, stop)
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run(self, job, P, seed, trace=True):
        """Run job; its trace as points (updates, seconds, objective), the
        scheduler's seconds and rounds, whether it failed, its message, and
        the elapsed seconds of the last progress line."""
        tr = self.path("trace.json")
        args = [self.ptm, "run", "--workers", str(P), "--seed", str(seed)]
        if trace:
            args += ["--trace", tr, "--trace-blocks"]  # the rounds' blocks are read below
        r = subprocess.run(args + [job], capture_output=True, text=True)
        res = {"points": [], "sched": 0.0, "rounds": 0, "failed": r.returncode != 0,
               "error": r.stderr.strip().splitlines()[-2:] if r.returncode else None,
               "rounds_blocks": [], "damped": 0, "graph_seconds": 0.0, "evaluations": 0}
        m = re.findall(r"elapsed ([0-9.]+)s", r.stderr)
        res["elapsed"] = float(m[-1]) if m else None
        if not trace:
            return res
        updates = 0
        with open(tr) as f:
            for line in f:
                d = json.loads(line)
                if "round" not in d:
                    continue  # the run's end: why it stopped
                updates += len(d["blocks"])
                res["sched"] += d.get("schedule_seconds", 0)
                res["evaluations"] += d.get("evaluations", 0)
                res["rounds"] = d["round"]
                res["seconds"] = d["seconds"]
                res["rounds_blocks"].append(d["blocks"])
                res["damped"] += "step" in d
                if "graph" in d:
                    res["graph_seconds"] = d["graph"]["seconds"]
                if "objective" in d:
                    res["points"].append((updates, d["seconds"], d["objective"]))
        return res

    def optimum(self, svm, lam=LAMBDA):
        job = self.job(svm, "round_robin { per_round 4000 }", "",
                       "sweeps >= 5000 or rel_change(objective) < 1e-14", "every 1 sweeps",
                       lam=lam, seq=True)
        res = self.run(job, 1, 1)
        return res["points"][-1][2]


def first_below(points, target, xi=0):
    for p in points:
        if p[2] <= target:
            return p[xi]
    return None


def gaps(points, fstar, xi):
    out = []
    for p in points:
        g = (p[2] - fstar) / fstar
        out.append((p[xi], g if g == g else 1e300))
    return out


def fmt_u(u):
    return "-" if u is None else "{:,}".format(int(u))


def median_or_none(vals):
    """Median, counting a run that never got there as infinitely late."""
    v = sorted(float("inf") if x is None else x for x in vals)
    m = statistics.median(v)
    return None if m == float("inf") else m


def main():
    argv, replot = sys.argv[1:], None
    if "--replot" in argv[:-1]:
        i = argv.index("--replot")
        replot = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a != "--charts"]
    if len(args) < 2:
        sys.exit("usage: sched_bench.py [--charts | --replot FILE] PTM SCHED_BENCH [SVG_DIR]")
    b = Bench(args[0], args[1], args[2] if len(args) > 2 else "bench")
    md = []
    t_start = time.time()
    try:
        if "--charts" in argv or replot:
            md = charts_only(b, replot)
        elif os.environ.get("SCHED_BENCH_PART") == "workers":
            workers(b, md)  # part 4 alone, its subsection only
        elif os.environ.get("SCHED_BENCH_PART") == "shares":
            # the scheduler's shares and part 2 alone, their subsections only
            data = {}
            for key in ("A", "B", "wide"):
                svm = b.gen(key)
                data[key] = (svm, b.optimum(svm, LAMBDAS[key]), LAMBDAS[key])
            sched_shares(b, md, data)
            example(b, md)
        else:
            claims(b, md)
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)
    log("schedulers: %.0f s" % (time.time() - t_start))
    print("\n".join(md))


def fmt_s(x):
    return "-" if x is None else "%.3f" % x


def compare(b, md, key, summary):
    """Part 1 on data set key: every job on 1 and 2 workers."""
    log("== schedulers: data %s" % key)
    svm = b.gen(key)
    lam = LAMBDAS[key]
    fstar = b.optimum(svm, lam)
    stop = "objective <= %r or sweeps >= 100" % (fstar * (1 + 1e-7))
    runs = {}
    for name, sched, extra, seq in JOBS:
        for P in (1, 2):
            job = b.job(svm, sched, extra, stop, "every %d rounds" % (1 if seq else 2),
                        name="cmp.ptm", seq=seq, lam=lam)
            r = b.run(job, P, 1)
            runs[(name, P)] = r
            log("  %s P=%d: %d rounds, %s" % (name, P, r["rounds"],
                                              "failed" if r["failed"] else "ok"))
    low = min(p[2] for r in runs.values() for p in r["points"])
    fstar = min(fstar, low)
    md += ["### Data %s" % key, "",
           "`ptm gen lasso %s`, lambda = %g; f* = %.12g. Each job stops at 100 sweeps or "
           "once within 1e-7 of f*; objective every 2 rounds (every round for the sequential "
           "jobs), included in the seconds." % (DATA[key], lam, fstar), "",
           "| schedule | workers | updates to 1e-2 | to 1e-4 | to 1e-6 | seconds to 1e-2 | "
           "to 1e-4 | to 1e-6 | rounds | damped | scheduler s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    at = {}
    for (name, P), r in runs.items():
        us = [first_below(r["points"], fstar * (1 + g)) for g in GAPS]
        ss = [first_below(r["points"], fstar * (1 + g), 1) for g in GAPS]
        at[(name, P)] = (us, ss)
        md.append("| %s | %d | %s | %s | %d | %s | %.3f |" % (
            name, P, " | ".join(fmt_u(u) for u in us), " | ".join(fmt_s(x) for x in ss),
            r["rounds"], r.get("damped", "-"), r["sched"]))
    # ratios for the summary: the dynamic schedules against the fixed ones
    def ratio(what, other, mine, xi):
        o, m = at[(other, P)], at[(mine, P)]
        summary.append((key, P, what, other, mine, [
            (None if x is None or y is None else x / y) for x, y in zip(o[xi], m[xi])]))

    for P in (1, 2):
        for other in ("round_robin", "random", "dynamic"):
            ratio("updates", other, "dynamic active", 0)
        for mine in ("dynamic active seq order", "dynamic active seq"):
            for other in ("round_robin seq", "random seq"):
                ratio("updates seq", other, mine, 0)
        for mine in ("dynamic active seq order", "dynamic active seq", "dynamic active"):
            ratio("seconds", "round_robin seq", mine, 1)
        for other in ("round_robin", "random"):
            ratio("updates, order", other, "dynamic active order", 0)
        ratio("seconds, order", "round_robin seq", "dynamic active order", 1)
        for other in ("round_robin", "random"):
            ratio("updates, keep moved", other, "dynamic active moved", 0)
            ratio("updates, keep moved, order", other, "dynamic active moved order", 0)
        ratio("seconds, keep moved", "round_robin seq", "dynamic active moved", 1)
        ratio("seconds, keep moved, order", "round_robin seq", "dynamic active moved order", 1)
    files = charts(b, key, runs, fstar, lam)
    md += ["", "Charts (1 worker): %s." % ", ".join("[%s](%s)" % (f, f) for f in files), ""]
    return svm, fstar, lam


# the charts: a legend name for each job of JOBS, and each data set in words
LEGEND = {
    "round_robin": "round_robin, %d blocks a round" % K,
    "random": "random, %d blocks a round" % K,
    "dynamic": "dynamic, %d sampled by priority" % K,
    "dynamic active": "dynamic active, %d a round" % K,
    "dynamic active moved": "dynamic active, keep moved, %d a round" % K,
    "dynamic active order": "dynamic active, order, %d a round" % K,
    "dynamic active moved order": "dynamic active, keep moved, order, %d a round" % K,
    "round_robin seq": "round_robin, 4000 a round, sequential",
    "random seq": "random, 4000 a round, sequential",
    "dynamic active seq": "dynamic active, sequential",
    "dynamic active seq order": "dynamic active, sequential, order",
}
DATA_WORDS = {
    "A": "data A: 5000 x 20000, correlation 0.9",
    "B": "data B: 5000 x 20000, correlation 0.5",
    "wide": "wide data: 20000 x 200000, correlation 0.5",
}


def charts(b, key, runs, fstar, lam):
    """The runs of one data set on 1 worker, by coordinate updates and by
    seconds: SVG_DIR/sched_bench_KEY_updates.svg and _seconds.svg."""
    files = []
    for xi, xlabel, suffix in ((0, "coordinate updates", "updates"),
                               (1, "wall-clock seconds, log scale (objective evaluations "
                                "included)", "seconds")):
        series = [(LEGEND[name], gaps(r["points"], fstar, xi), None, plotstyle.style(name, k))
                  for k, ((name, P), r) in enumerate(x for x in runs.items() if x[0][1] == 1)]
        fn = "sched_bench_%s_%s.svg" % (key, suffix)
        sched_bench_plot.plot(
            os.path.join(b.svgdir, fn),
            "Lasso schedules, %s, 1 worker, by %s" % (DATA_WORDS.get(key, key),
                                                      "updates" if xi == 0 else "seconds"),
            xlabel, series, ylabel="relative gap to the optimum, (f - f*) / f*",
            subtitle="lambda = %g; each run until within 1e-7 of f* or 100 sweeps\n"
                     "data: ptm gen lasso %s" % (lam, DATA[key]), width=900, right=290,
            xlog=xi == 1)
        files.append(fn)
    return files


def charts_only(b, replot=None):
    """--charts: part 1's runs alone, on 1 worker, for the charts (a few
    minutes, against the whole bench's hour); their table to stdout, their
    points to SVG_DIR/sched_bench_charts.json. --replot FILE: the charts
    again from such a file, no run."""
    if replot:
        with open(replot) as f:
            for key, runs, fstar, lam in json.load(f):
                runs = {(name, 1): {"points": pts} for name, pts in runs}
                for fn in charts(b, key, runs, fstar, lam):
                    log("  wrote %s" % os.path.join(b.svgdir, fn))
        return []
    md, saved = [], []
    for key in ("A", "B", "wide"):
        log("== schedulers (charts): data %s" % key)
        svm = b.gen(key)
        lam = LAMBDAS[key]
        fstar = b.optimum(svm, lam)
        stop = "objective <= %r or sweeps >= 100" % (fstar * (1 + 1e-7))
        runs = {}
        for name, sched, extra, seq in JOBS:
            job = b.job(svm, sched, extra, stop, "every %d rounds" % (1 if seq else 2),
                        name="cmp.ptm", seq=seq, lam=lam)
            runs[(name, 1)] = b.run(job, 1, 1)
        fstar = min(fstar, min(p[2] for r in runs.values() for p in r["points"]))
        md += ["Data %s, 1 worker, f* = %.12g: seconds to 1e-2, 1e-4, 1e-6 of f*:" % (key, fstar),
               ""]
        for (name, _), r in runs.items():
            ss = [first_below(r["points"], fstar * (1 + g), 1) for g in GAPS]
            md.append("- %s: %s" % (name, ", ".join(fmt_s(x) for x in ss)))
        md.append("")
        for fn in charts(b, key, runs, fstar, lam):
            log("  wrote %s" % os.path.join(b.svgdir, fn))
        saved.append((key, [(name, r["points"]) for (name, _), r in runs.items()], fstar, lam))
    with open(os.path.join(b.svgdir, "sched_bench_charts.json"), "w") as f:
        json.dump(saved, f)
    return md


SHARE_SAMPLES = (256, 4096)
SHARE_RUNS = 3
SHARE_JOBS = [
    ("dynamic active", "dynamic { sample %d, active, keep independent }",
     "%s\npriority coef(j) = abs(delta(beta[j]))\n%s" % (COS, COST), False),
    ("dynamic active moved", "dynamic { sample %d, active, keep moved }",
     "%s\npriority coef(j) = abs(delta(beta[j]))\n%s" % (COS, COST), False),
    ("dynamic active seq", "dynamic { sample %d, active, keep all }",
     "priority coef(j) = abs(delta(beta[j]))\n%s" % COST, True),
]


def sched_shares(b, md, data):
    """The scheduler's share of the seconds (schedule_seconds over the
    trace's seconds) of the dynamic jobs at sample 256 and 4096, to 1e-6
    of f*; medians of SHARE_RUNS runs."""
    log("== schedulers: the scheduler's share")
    md += ["### The scheduler's share of a run", "",
           "The dynamic jobs above at `sample 256` and `sample 4096` (dynamic active: with the "
           "cos() dependency, computed together; dynamic active moved: the same, filtered after "
           "the update; dynamic active seq: no dependency, within = "
           "sequential), each until within 1e-6 of f* (or 100 sweeps), objective every sweep: "
           "the trace's schedule_seconds (next() and done(), with the dependencies the filter "
           "computes) over its seconds, and the seconds; medians of %d runs." % SHARE_RUNS, "",
           "| data | schedule | sample | workers | scheduler share | seconds |",
           "|---|---|---|---|---|---|"]
    rows = []
    for key, (svm, fstar, lam) in data.items():
        stop = "objective <= %r or sweeps >= 100" % (fstar * (1 + 1e-6))
        for name, sched, extra, seq in SHARE_JOBS:
            for S in SHARE_SAMPLES:
                for P in (1, 2):
                    job = b.job(svm, sched % S, extra, stop, "every 1 sweeps", name="share.ptm",
                                seq=seq, lam=lam)
                    sh, sec = [], []
                    for _ in range(SHARE_RUNS):
                        r = b.run(job, P, 1)
                        if r.get("seconds"):
                            sh.append(r["sched"] / r["seconds"])
                            sec.append(r["seconds"])
                    if not sh:
                        continue
                    m, t = statistics.median(sh), statistics.median(sec)
                    md.append("| %s | %s | %d | %d | %.0f%% | %.4f |" % (key, name, S, P,
                                                                       100 * m, t))
                    rows.append((key, name, S, P, m))
                    log("  %s %s S=%d P=%d: %.0f%%" % (key, name, S, P, 100 * m))
    md.append("")
    return rows


def example(b, md):
    """Part 2: the Lasso example under its own stop rule, seeds 1 .. 8, and
    round_robin seq to the gap it reached; the rows for the summary."""
    log("== schedulers: the Lasso example")
    with open("examples/lasso/lasso.ptm") as f:
        ex_text = f.read()
    # f* (b.optimum) is the Lasso's without an intercept: the example's goes
    ex_text = re.sub(r"^(param b |output b ).*\n", "", ex_text.replace(", intercept = b", ""),
                     flags=re.M)
    lam_ex = float(re.search(r"const lambda = ([0-9.e-]+)", ex_text).group(1))
    md += ["### The Lasso example", "",
           "examples/lasso/lasso.ptm as it is (`dynamic { sample 1000, active }`, within = "
           "sequential, no dependency), on `ptm gen lasso --seed S` (1000 x 10000, the "
           "README's data) for S = 1 .. 8, 1 and 2 workers, under its own stop rule (rel_change "
           "< 1e-7 between sweeps); f* as above. Scheduler: the trace's schedule_seconds (next() "
           "and done()) over its elapsed seconds; round_robin seq to the same gap for "
           "comparison.", "",
           "| seed | workers | sweeps of updates | final gap | elapsed s | scheduler "
           "share | round_robin seq: sweeps to that gap | seconds |",
           "|---|---|---|---|---|---|---|---|"]
    ex_rows = []
    for s in range(1, 9):
        out = b.path("ex-%d" % s)
        subprocess.run([b.ptm, "gen", "lasso", "--out", out] + (DATA["ex"] % s).split(),
                       check=True, stdout=subprocess.DEVNULL)
        svm = os.path.join(out, "lasso.svm")
        fstar = b.optimum(svm, lam_ex)
        job = b.path("ex.ptm")
        with open(job, "w") as f:
            f.write(ex_text.replace('"data/lasso.svm"', '"%s"' % svm).replace(
                '"beta.tsv"', '"%s"' % b.path("beta.tsv")))
        for P in (1, 2):
            r = b.run(job, P, 1)
            final = r["points"][-1][2]
            gap = (final - fstar) / fstar
            fixed = b.job(svm, "round_robin { per_round 4000 }", "",
                          "objective <= %r or sweeps >= 500" % (max(final, fstar * (1 + 1e-12))),
                          "every 1 rounds", lam=lam_ex, seq=True, name="fixed.ptm")
            rf = b.run(fixed, P, 1)
            uf = rf["points"][-1][0] if rf["points"] else None
            sf = rf["points"][-1][1] if rf["points"] else None
            upd = r["points"][-1][0]
            md.append("| %d | %d | %.1f | %.1e | %.4f | %.0f%% | %s | %s |" % (
                s, P, upd / 10000, gap, r["seconds"], 100 * r["sched"] / r["seconds"],
                "-" if uf is None else "%.1f" % (uf / 10000), fmt_s(sf)))
            ex_rows.append((s, P, upd, gap, r["seconds"], r["sched"], uf, sf))
            log("  seed %d P=%d: %.1f sweeps, gap %.1e, %.3f s" % (s, P, upd / 1e4, gap,
                                                                   r["seconds"]))
    return ex_rows


def workers(b, md):
    """Part 4: 1 and 2 workers in alternating pairs; the seconds (from the
    progress line) when the objective first came within 1e-6 of f*."""
    log("== schedulers: workers")
    md += ["### Workers", "",
           "2 workers against 1 on the same job, in %d pairs of runs one right after the other "
           "(the order alternating, as the machine's speed drifts); each pair gives the ratio of "
           "the seconds (the trace's, objective every sweep) at which the objective first came "
           "within 1e-6 of f*; median and quartiles of the ratios (> 1: 2 workers faster). "
           "random: `random { per_round 4000 }` with the round's changes computed together "
           "(within = parallel, damped), the rows of the residual divided among the workers. "
           "sweep split: rounds of every block (round_robin in number order, random in a "
           "random order each round) with `within = sequential, split_min = 0`, so that 2 "
           "workers split every round (each its share one coefficient after the other on its "
           "copy of the residual, the copies merged and the round damped, spec/runtime.md), "
           "where 1 worker runs it in order." %
           PAIRS, "",
           "| data | lambda | job | 1 worker s (median) | 2 workers s (median) | ratio (median) | "
           "quartiles |", "|---|---|---|---|---|---|---|"]
    rows = []
    for key, lam in SHAPES:
        svm = os.path.join(b.path("data-B"), "lasso.svm")  # part 1's, when it ran
        if key != "B" or not os.path.exists(svm):
            svm = b.gen(key)
        fstar = b.optimum(svm, lam)
        stop = "objective <= %r or sweeps >= 300" % (fstar * (1 + 1e-7))
        target = fstar * (1 + 1e-6)
        for name, sched, extra, seq in WORKER_JOBS:
            job = b.job(svm, sched, extra, stop, "every 1 sweeps", name="w.ptm", lam=lam,
                        seq=seq)
            t = {1: [], 2: []}
            tr = b.path("w-trace.json")
            for i in range(PAIRS):
                for P in ((1, 2) if i % 2 == 0 else (2, 1)):
                    # the trace's seconds (microseconds; the progress line
                    # has milliseconds, coarse for runs of a few)
                    subprocess.run([b.ptm, "run", "--workers", str(P), "--trace", tr, job],
                                   capture_output=True, text=True)
                    at = None
                    with open(tr) as f:
                        for line in f:
                            rec = json.loads(line)
                            if rec.get("objective", float("inf")) <= target:
                                at = rec["seconds"]
                                break
                    t[P].append(at)
            ratios = sorted(a / c for a, c in zip(t[1], t[2]) if a and c)
            med = statistics.median(ratios) if ratios else None
            q1 = ratios[len(ratios) // 4] if ratios else None
            q3 = ratios[(3 * len(ratios)) // 4] if ratios else None
            t1, t2 = median_or_none(t[1]), median_or_none(t[2])
            md.append("| %s | %g | %s | %s | %s | %s | %s .. %s |" % (
                key, lam, name, fmt_s(t1), fmt_s(t2), fmt_r(med), fmt_r(q1), fmt_r(q3)))
            rows.append((key, name, med, q1, q3, t1, t2))
            log("  %s %s: 1 worker %s s, 2 workers %s s, ratio %s" % (
                key, name, fmt_s(t1), fmt_s(t2), fmt_r(med)))
    for key, _ in SHAPES:
        md.append("")
        md.append("Data %s: `ptm gen lasso %s`." % (key, DATA[key]))
    md.append("")
    return rows


def fmt_r(v):
    return "-" if v is None else "%.2f" % v


def claims(b, md):
    md += ["", "## Schedulers", "",
           "Written by bench/sched_bench.py (from bench/run.sh): `ptm run --trace --trace-blocks` on data from "
           "`ptm gen lasso` (correlated columns spread over X), lambda = %g (1e-4 on the wide "
           "data). K = %d blocks a round. round_robin and random: `per_round K`, updated together (damped when their "
           "sum would raise the objective, spec/runtime.md); dynamic: `dynamic { sample K, keep independent }` "
           "with `%s`, `priority coef(j) = abs(delta(beta[j])) + 1e-4`, `%s`; dynamic active: "
           "`dynamic { sample K, active, keep independent }` with the same dependency and `priority coef(j) = "
           "abs(delta(beta[j]))` (STRADS' schedule; the Lasso example's until it ran "
           "sequentially); dynamic active moved: the same with `keep moved` (the dependency "
           "filtered after the update, over the blocks that changed); dynamic active order and dynamic "
           "active moved order: the same two with `%s`, whose first pass is the K columns most "
           "like y, the largest first, then passes over those that moved, then every column (a "
           "first pass as glmnet's strong rules screen); round_robin seq: `round_robin "
           "{ per_round 4000 }` with `lasso_cd { within = sequential }`, the fastest fixed "
           "schedule (cyclic coordinate descent on each worker's share); random seq: `random "
           "{ per_round 4000 }` with within = sequential, the same updates in a random order; "
           "dynamic active seq: `dynamic { sample 4000, active, keep all }` with the same "
           "priority and within = sequential; dynamic active seq order: the same with the "
           "order (its first pass the 4000 columns most like y). The seconds of the jobs with "
           "an order include its evaluation and sort. Updates are coordinate updates until the objective first came within "
           "the relative gap of f*; seconds from the trace (they include the dependencies the "
           "filter computes for the rounds' candidates, and the whole graph where a run "
           "built it, spec/runtime.md)." % (LAMBDA, K, COS, COST, ORDER), ""]
    summary_at = len(md)
    summary = []
    data = {}
    for key in ("A", "B", "wide"):
        data[key] = compare(b, md, key, summary)
    share_rows = sched_shares(b, md, data)

    # ---- 2. the example, and the time spent scheduling
    ex_rows = example(b, md)

    # ---- 3. the scheduler alone
    log("== schedulers: sched_bench")
    svm = os.path.join(b.path("ex-1"), "lasso.svm")
    out = subprocess.run([b.sb, svm, "300"], capture_output=True, text=True, check=True).stdout
    md += ["", "### The scheduler alone", "",
           "`sched_bench FILE 300` (bench/sched_bench.c, one thread, CPU time): dynamic with "
           "sample 256, 8 workers, balance (costs 1 .. 100), pipeline 1, default priority; "
           "done() reports a change for every block of a round. A candidate is drawn, filtered "
           "and dealt. Evaluations: depend pairs computed (not answered by the cache). corr: "
           "`abs(corr(col(X, i), col(X, j))) > 0.1` evaluated per pair over the example's data "
           "(seed 1), cold cache (a run builds the graph instead).", "",
           "| case | blocks | rounds | CPU s | candidates/s | evaluations/s | us a round | "
           "kept a round |", "|---|---|---|---|---|---|---|---|"]
    for line in out.split("\n"):
        f = line.split()
        if len(f) == 8:
            md.append("| %s | %s | %s | %s | %.2fM | %.2fM | %s | %s |" % (
                f[0], f[1], f[2], f[3], float(f[4]) / 1e6, float(f[5]) / 1e6, f[6], f[7]))
            log("  " + line)
    md.append("")
    md.append("The machine is shared and its timings vary by up to 2x between runs (FACTS.md); "
              "with 2 workers a round also pays the hand-off between threads, which varies most.")

    # ---- 4. workers
    worker_rows = workers(b, md)

    # ---- the summary, at the top
    lines = ["Summary (details below; ratios > 1 favour the dynamic schedule, '-' where one "
             "did not reach the gap):", ""]
    for key, P, what, other, mine, rs in summary:
        lines.append("- Data %s, %d worker%s, %s: %s / %s at gaps 1e-2, 1e-4, 1e-6: %s." % (
            key, P, "s" if P > 1 else "", what, other, mine,
            ", ".join(fmt_r(v) for v in rs)))
    shares = sorted(100 * sch / sec for _, _, _, _, sec, sch, _, _ in ex_rows if sec > 0)
    sw = sorted(u / 10000 for _, _, u, _, _, _, _, _ in ex_rows)
    lines.append("- The Lasso example, seeds 1 .. 8, 1 and 2 workers: %.1f to %.1f sweeps of "
                 "updates; scheduler share %.0f%% to %.0f%% of the elapsed seconds." % (
                     sw[0], sw[-1], shares[0], shares[-1]))
    for key, name, S, P, m in share_rows:
        lines.append("- Scheduler share, data %s, %s, sample %d, %d worker%s: %.0f%%." % (
            key, name, S, P, "s" if P > 1 else "", 100 * m))
    for shape, name, med, q1, q3, t1, t2 in worker_rows:
        lines.append("- Workers, %s data, %s: 1 worker / 2 workers in seconds to 1e-6 of f*, "
                     "median of %d pairs %s (quartiles %s .. %s)." % (
                         shape, name, PAIRS, fmt_r(med), fmt_r(q1), fmt_r(q3)))
    lines.append("")
    md[summary_at:summary_at] = lines


if __name__ == "__main__":
    main()
