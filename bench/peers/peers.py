#!/usr/bin/env python3
"""peers.py - ptm beside the peers Debian packages, on the same generated
files: the "Peers" section of bench/RESULTS.md (bench/peers.sh runs it).

Usage: peers.py PTM SVG_DIR [--quick]
                [--only=lasso,logreg,logreg_hard,logreg_l1,logreg_l1_hard,lda,mf]

Markdown to stdout, progress to stderr, charts to SVG_DIR/peers_*.svg.
--quick runs every step on small data (a smoke test of the bench itself).

How ptm is timed. `ptm run` prints a progress line at every evaluation of
the objective, with the objective and the seconds since the first round
(reading the data and setting up are not counted; neither are they for
the peers). The trace (--trace --trace-blocks) carries the same numbers but
writes every round's blocks, which at hundreds of blocks a round slows the
rounds (the writing itself is left out of its seconds), so it is not used
here. A
system's time to a
target is measured in two steps:
1. a curve run: the objective evaluated often (every tenth of a sweep for
   the Lasso, every sweep for logistic regression), to find the first
   round at which it reached the target and to draw the chart;
2. timed runs that stop at that round, the objective evaluated only
   before the first round and at the last one, so that no evaluation is
   inside the time. The Lasso kernel's results do not depend on timing,
   so a timed run ends at the curve run's objective; under SSP (logistic
   regression) they may differ a little, and the timed runs' own final
   objectives are reported.
The peers get the same treatment: each is fitted from zero for a ladder of
tolerances (or epochs, or passes), and its time to a target is the time of
its cheapest fit that reached it, an oracle's choice of tolerance.
"""
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import plotstyle  # noqa: E402
import sched_bench_plot  # noqa: E402

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
RUNS = 3

FULL = {
    "lasso": {"gen": "--seed 1 --rows 20000 --cols 200000 --density 0.001 --group 10 --corr 0.5 "
                     "--nonzeros 2000 --noise 1", "cols": 200000, "frac": 0.11, "cap": 8},
    "logreg": {"gen": "--seed 1 --rows 500000 --cols 50000 --density 0.00078 --nonzeros 5000",
               "cols": 50000, "C": 1.0, "cap": 25, "cap_example": 8, "sweeps": 30, "sgd_epochs": 30,
               "sgd_cap": 30},
    # text-like rows at the shape of a real tf-idf classification (61k x 18k,
    # 1.6 M non-zeros, a fifth positive, l2 = 1e-5: C = 1 / (n l2))
    "logreg_hard": {"gen": "--seed 1 --rows 60000 --cols 18000 --density 0.0015 --nonzeros 2000 --hard",
                    "cols": 18000, "C": 1 / (60000 * 1e-5), "cap": 25, "cap_example": 8, "sweeps": 30,
                    "sgd_epochs": 30, "sgd_cap": 30, "hard": True},
    # L1 logistic regression (logreg_cd against liblinear -s 6) on the same two shapes; 5
    # rounds: liblinear's fit is a difference of two commands' times, tenths of a second
    "logreg_l1": {"gen": "--seed 1 --rows 500000 --cols 50000 --density 0.00078 --nonzeros 5000",
                  "cols": 50000, "l1": 1e-4, "sweeps": 100, "runs": 5},
    "logreg_l1_hard": {"gen": "--seed 1 --rows 60000 --cols 18000 --density 0.0015 --nonzeros 2000 --hard",
                       "cols": 18000, "l1": 1e-4, "sweeps": 100, "hard": True, "runs": 5},
    "lda": {"gen": "--seed 1 --docs 5000 --words 5000 --topics 20 --length 100", "K": 20,
            "ptm": [5, 10, 20, 50, 100], "sklearn": [1, 2, 4, 8, 12], "gensim": [1, 2, 4, 8]},
    "mf": {"gen": "--seed 1 --rows 50000 --cols 10000 --ratings 5000000 --rank 20", "sweeps": 30,
           "libmf_iters": 20},
}
QUICK = {
    "lasso": {"gen": "--seed 1 --rows 2000 --cols 20000 --density 0.005 --group 10 --corr 0.5 "
                     "--nonzeros 200 --noise 1", "cols": 20000, "frac": 0.11, "cap": 3},
    "logreg": {"gen": "--seed 1 --rows 20000 --cols 5000 --density 0.008 --nonzeros 500",
               "cols": 5000, "C": 1.0, "cap": 5, "cap_example": 2, "sweeps": 20, "sgd_epochs": 20,
               "sgd_cap": 10},
    "logreg_hard": {"gen": "--seed 1 --rows 6000 --cols 2000 --density 0.013 --nonzeros 200 --hard",
                    "cols": 2000, "C": 1 / (6000 * 1e-5), "cap": 5, "cap_example": 2, "sweeps": 20,
                    "sgd_epochs": 20, "sgd_cap": 10, "hard": True},
    "logreg_l1": {"gen": "--seed 1 --rows 20000 --cols 5000 --density 0.008 --nonzeros 500",
                  "cols": 5000, "l1": 1e-3, "sweeps": 50},
    "logreg_l1_hard": {"gen": "--seed 1 --rows 6000 --cols 2000 --density 0.013 --nonzeros 200 --hard",
                       "cols": 2000, "l1": 1e-3, "sweeps": 50, "hard": True},
    "lda": {"gen": "--seed 1 --docs 500 --words 1000 --topics 10 --length 50", "K": 10,
            "ptm": [5, 20], "sklearn": [1, 3], "gensim": [1, 3]},
    "mf": {"gen": "--seed 1 --rows 2000 --cols 1000 --ratings 100000 --rank 10", "sweeps": 10,
           "libmf_iters": 5},
}

# (the rate's unit is the model's: updates/s, rows/s, tokens/s, ...)
PROGRESS = re.compile(r"round (\d+) sweep (\d+) objective (\S+) rel_change \S+ .*?elapsed ([0-9.]+)s")


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def med(xs):
    return statistics.median(xs) if xs else None


def fmt_s(x):
    return "-" if x is None else "%.3f" % x


def fmt_runs(xs):
    return " ".join("%.3f" % x for x in xs)


def sh(cmd, **kw):
    """Run cmd (a list); its CompletedProcess, output captured as text."""
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check(cmd):
    r = sh(cmd)
    if r.returncode != 0:
        raise SystemExit("peers: %s failed (%d):\n%s" % (" ".join(cmd), r.returncode,
                                                          r.stderr[-2000:]))
    return r.stdout


def wall(cmd):
    """Wall seconds of a whole command, and its CompletedProcess, whose
    maxrss_mb is the command's peak resident set (MB, from wait4)."""
    with tempfile.TemporaryFile("w+") as fo, tempfile.TemporaryFile("w+") as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, text=True)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        r = subprocess.CompletedProcess(cmd, p.returncode, fo.read(), fe.read())
    r.maxrss_mb = ru.ru_maxrss / 1024
    return t, r


def lines_of(out, key):
    return [l.split() for l in out.splitlines() if l.split() and l.split()[0] == key]


class Ptm:
    def __init__(self, ptm, tmp):
        self.ptm, self.tmp = ptm, tmp

    def gen(self, model, args, name):
        out = os.path.join(self.tmp, name)
        t, r = wall([self.ptm, "gen", model, "--out", out] + args.split())
        if r.returncode != 0:
            raise SystemExit("peers: ptm gen %s failed: %s" % (model, r.stderr))
        return out, t

    def run(self, job_text, workers, sets=(), name="job.ptm", trace=None):
        """Run a job; its progress points (round, sweep, objective, seconds),
        the wall seconds of the whole command, exit status and the last
        lines of its messages."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(job_text)
        cmd = [self.ptm, "run", "--workers", str(workers)] + (["--trace", trace, "--trace-blocks"] if trace else [])
        for s in sets:
            cmd += ["--set", s]
        t, r = wall(cmd + [path])
        pts = [(int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)))
               for m in PROGRESS.finditer(r.stderr)]
        err = [l for l in r.stderr.splitlines() if "error" in l][-1:] if r.returncode else []
        return {"points": pts, "wall": t, "rc": r.returncode, "error": err[0] if err else None,
                "rss": r.maxrss_mb}


def gen_opt(args, name):
    """The value of --NAME in a `ptm gen` argument string."""
    a = args.split()
    return a[a.index("--" + name) + 1]


def first_at(points, target):
    """The first progress point at or below target."""
    return next((p for p in points if p[2] <= target), None)


def example(name, job=None):
    with open(os.path.join(ROOT, "examples", name, (job or name) + ".ptm")) as f:
        return f.read()


def sub1(pattern, repl, text, flags=0):
    """re.sub that must replace exactly once (the examples may change)."""
    out, n = re.subn(pattern, lambda _: repl, text, count=1, flags=flags)
    if n != 1:
        raise SystemExit("peers: cannot find %r in an example job" % pattern)
    return out


def no_intercept(text):
    """An example job without its intercept (its param, options and output):
    the peers here fit none."""
    text, n = re.subn(r", intercept = b\b", "", text)
    if n != 2:
        raise SystemExit("peers: cannot find the intercept options in an example job")
    text = sub1(r"^param b .*\n", "", text, re.M)
    return sub1(r"^output b to .*\n", "", text, re.M)


# ---- Lasso ---------------------------------------------------------------------------

def lasso_job(svm, sched, every, stop, beta_out, edges=None, sample=None, seq=False):
    """examples/lasso/lasso.ptm on svm: the schedule, the objective's
    interval and the stop rule replaced; lambda comes from --set; seq:
    lasso_cd with within = sequential (the example's), else parallel.
    sched "dynamic": the example's dynamic schedule at `sample`, with the
    planted conflicts of edges as its dependency when edges is given."""
    t = no_intercept(example("lasso"))
    t = sub1(r"update builtin lasso_cd \{ lambda = lambda, within = sequential \}",
             "update builtin lasso_cd { lambda = lambda%s }" % (", within = sequential" if seq
                                                                else ""), t)
    t = sub1(r'"data/lasso\.svm"', '"%s"' % svm, t)
    t = sub1(r"every 1 sweeps", "every %s" % every, t)
    t = sub1(r"^stop when .*$", "stop when " + stop, t, re.M)
    t = sub1(r'output beta to "beta\.tsv"', 'output beta to "%s"' % beta_out, t)
    if sched == "dynamic":
        if edges:
            t = sub1(r"^priority ", 'depend coef from "%s"\npriority ' % edges, t, re.M)
        t = sub1(r"sample \d+", "sample %d" % sample, t)
    else:
        for key in ("priority", "cost"):
            t = sub1(r"^%s .*\n" % key, "", t, re.M)
        t = sub1(r"^schedule dynamic \{.*?^\}", "schedule " + sched, t, re.M | re.S)
    return t


def lasso_configs(cols):
    """(label, schedule, workers, blocks a round); dynamic keeps at most its sample."""
    c = []
    c.append(("round_robin 1", "round_robin { per_round 1 }", 1, 1))
    c.append(("round_robin 1", "round_robin { per_round 1 }", 2, 1))
    c.append(("round_robin 16", "round_robin { per_round 16 }", 2, 16))
    for k in (256, 1024, 4096, 16384, 65536):
        c.append(("random %d" % k, "random { per_round %d }" % k, 2, k))
    c.append(("random 4096", "random { per_round 4096 }", 1, 4096))
    for k in (256, 2048):
        c.append(("dynamic %d" % k, "dynamic", 2, k))
    for k, P in ((1000, 1), (1000, 2), (4096, 2)):
        c.append(("example %d" % k, "dynamic", P, k))
    for k, P in ((4096, 1), (4096, 2), (16384, 2)):
        c.append(("sequential %d" % k, "round_robin { per_round %d }" % k, P, k))
    return [(l, s, p, min(k, cols)) for l, s, p, k in c]


def is_seq(label):
    """The within = sequential configurations: round_robin's, and the
    example's own schedule (an active set, no dependency)."""
    return label.startswith("sequential") or label.startswith("example")


def edges_of(label, edges):
    """The planted conflicts for the dynamic configurations that take them;
    the example's own schedule has no dependency."""
    return None if label.startswith("example") else edges


def shown(label, sched, k):
    """A configuration as the tables show it."""
    if label.startswith("example"):
        return "the example's `dynamic { sample %d, active }`, within = sequential" % k
    if sched == "dynamic":
        return "dynamic { sample %d } + group edges" % k
    return sched + (", within = sequential" if is_seq(label) else "")


def lasso_legend(label, k, P):
    """A configuration's style key (bench/plotstyle.py) and its name in the chart."""
    w = "%d worker%s" % (P, "s" if P > 1 else "")
    if label.startswith("example"):
        return "dynamic active seq", "ptm, the example's dynamic active, sample %d, %s" % (k, w)
    if label.startswith("sequential"):
        return "round_robin seq", "ptm round_robin, %d a round, sequential, %s" % (k, w)
    if label.startswith("dynamic"):
        return "dynamic", "ptm dynamic, sample %d, planted conflicts, %s" % (k, w)
    if label.startswith("random"):
        return "random", "ptm random, %d blocks a round, %s" % (k, w)
    return "round_robin", "ptm round_robin, %d block%s a round, %s" % (k, "s" if k > 1 else "", w)


def write_group_edges(path, groups_tsv):
    """The planted conflicts: every pair of columns of one group of the
    generator (groups.tsv: each column's group; the groups' columns are
    spread over X)."""
    members = {}
    with open(groups_tsv) as f:
        for j, line in enumerate(f):
            members.setdefault(int(line), []).append(j + 1)
    with open(path, "w") as f:
        for cols in members.values():
            f.write("".join("%d %d\n" % (a, b) for i, a in enumerate(cols) for b in cols[i + 1:]))


def lasso(p, cfg, svgdir, md):
    log("== peers: Lasso")
    t_all = time.time()
    ddir, tgen = p.gen("lasso", cfg["gen"], "lasso")
    svm = os.path.join(ddir, "lasso.svm")
    prefix = os.path.join(p.tmp, "lasso")
    prep = check([PY, os.path.join(HERE, "prep.py"), svm, str(cfg["cols"]), prefix, "--rbin"])
    _, n, d, nnz = lines_of(prep, "shape")[0]
    lmax = float(lines_of(prep, "lambda_max")[0][1])
    lam = cfg["frac"] * lmax
    edges = os.path.join(p.tmp, "edges.txt")
    write_group_edges(edges, os.path.join(ddir, "groups.tsv"))
    sets = ["lambda=%r" % lam]
    log("  %s x %s, %s non-zeros, lambda %.6g (%.2f lambda_max); gen %.2f s" % (n, d, nnz, lam, cfg["frac"], tgen))

    # 1. curves
    configs = lasso_configs(int(d))
    curves = {}
    for label, sched, P, k in configs:
        every = "%d rounds" % max(1, round(int(d) * 0.1 / k))
        stop = "sweeps >= 150 or rel_change(objective) < 1e-13 or seconds > %d" % cfg["cap"]
        beta = os.path.join(p.tmp, "beta.%s.%d.tsv" % (label.replace(" ", "_"), P))
        job = lasso_job(svm, sched, every, stop, beta, edges_of(label, edges), k, is_seq(label))
        r = p.run(job, P, sets)
        r["beta"], r["every"], r["job"] = beta, every, job
        curves[(label, P)] = r
        last = r["points"][-1] if r["points"] else None
        log("  ptm %s, %d worker(s): %s" % (label, P, "exit %d %s" % (r["rc"], r["error"]) if r["rc"]
                                          else "%d sweeps, %.3f s, objective %.10g" % (last[1], last[3], last[2])))
    sk_ladder = ["tol=1e-1", "tol=1e-2", "tol=1e-3", "tol=1e-4", "tol=1e-6", "tol=1e-8"]
    sk_coef = os.path.join(p.tmp, "sklearn.npy")
    out = check([PY, os.path.join(BENCH, "lasso_sklearn.py"), "fits", prefix + ".X.npz", d, repr(lam),
                 "1", sk_coef, "epochs=1"] + sk_ladder)
    sk_version = lines_of(out, "sklearn")[0][1]
    sk_curve = [(f[1], float(f[3]), float(f[4])) for f in lines_of(out, "fit")[1:]]
    sk_iters = {f[1]: int(f[2]) for f in lines_of(out, "fit")[1:]}
    gl_ladder = ["1e-3", "1e-4", "1e-5", "1e-6", "1e-7", "1e-8", "1e-9", "1e-10", "1e-12"]
    gl_coef = os.path.join(p.tmp, "glmnet.txt")
    out = check(["Rscript", os.path.join(HERE, "lasso_glmnet.R"), prefix, repr(lam), "1", gl_coef,
                 "1e-2"] + gl_ladder)
    gl_version = lines_of(out, "glmnet")[0][1]
    gl_curve = [(f[1], float(f[2]), float(f[3])) for f in lines_of(out, "fit")[1:]]
    gl_passes = {f[1]: int(f[5]) for f in lines_of(out, "fit")[1:]}

    # the best objective any system reached, each system's final one also
    # computed by bench/peers/objective.py
    files = [r["beta"] for r in curves.values() if r["rc"] == 0] + [sk_coef, gl_coef]
    out = check([PY, os.path.join(HERE, "objective.py"), "lasso", prefix, repr(lam)] + files)
    indep = {f[0]: (float(f[1]), int(f[2])) for f in (l.split() for l in out.splitlines())}
    reported = [r["points"][-1][2] for r in curves.values() if r["points"]]
    reported += [f for _, _, f in sk_curve] + [f for _, _, f in gl_curve]
    fstar = min(reported + [v[0] for v in indep.values()])
    target = fstar * (1 + 1e-6)
    log("  f* %.12g, target %.12g" % (fstar, target))

    # 2. timed runs
    reach = {}
    for key, r in curves.items():
        hit = first_at(r["points"], target)
        if hit:
            reach[key] = hit
    kmax = 1000
    out = check([PY, os.path.join(BENCH, "lasso_sklearn.py"), "search", prefix + ".X.npz", d, repr(lam),
                 repr(target), str(kmax)])
    sk_epochs = int(lines_of(out, "epochs")[0][1])
    sk_tol = next((s for s, _, f in sk_curve if f <= target), None)
    gl_th = next((s for s, _, f in gl_curve if f <= target), None)
    times = {key: [] for key in reach}
    tobj, timed_beta, walls = {}, {}, {}
    sk_t = {"tol": [], "epochs": []}
    sk_obj = {}
    gl_t = []
    gl_obj = None
    for rep in range(RUNS):
        for key, hit in reach.items():
            label, P = key
            cfgd = next(c for c in configs if c[0] == label and c[2] == P)
            job = lasso_job(svm, cfgd[1], "%d rounds" % hit[0], "rounds >= %d" % hit[0],
                            curves[key]["beta"] + ".timed", edges_of(label, edges), cfgd[3],
                            is_seq(label))
            r = p.run(job, P, sets)
            last = r["points"][-1]
            times[key].append(last[3])
            walls.setdefault(key, []).append(r["wall"] - last[3])
            tobj[key] = last[2]
            timed_beta[key] = curves[key]["beta"] + ".timed"
        specs = ["epochs=1"] + (["tol=" + sk_tol.split("=")[1]] if sk_tol else []) + \
            (["epochs=%d" % sk_epochs] if sk_epochs else [])
        out = check([PY, os.path.join(BENCH, "lasso_sklearn.py"), "fits", prefix + ".X.npz", d, repr(lam),
                     "1", os.path.join(p.tmp, "sk_timed.npy")] + specs)
        for f in lines_of(out, "fit")[1:]:
            kind = f[1].split("=")[0]
            sk_t[kind].append(float(f[3]))
            sk_obj[kind] = float(f[4])
        if gl_th:
            out = check(["Rscript", os.path.join(HERE, "lasso_glmnet.R"), prefix, repr(lam), "1",
                         os.path.join(p.tmp, "gl_timed.txt"), "1e-2", gl_th])
            f = lines_of(out, "fit")[1]
            gl_t.append(float(f[2]))
            gl_obj = float(f[3])
        log("  round %d: %s; sklearn %s; glmnet %s" % (
            rep + 1, ", ".join("%s/%d %.3f" % (k[0], k[1], v[-1]) for k, v in times.items()),
            ", ".join("%s %.3f" % (k, v[-1]) for k, v in sk_t.items() if v), fmt_s(gl_t[-1] if gl_t else None)))

    # the timed runs end at an evaluation: their objective against objective.py's
    out = check([PY, os.path.join(HERE, "objective.py"), "lasso", prefix, repr(lam)] + list(timed_beta.values()))
    check_t = {f[0]: float(f[1]) for f in (l.split() for l in out.splitlines())}
    agree = max([abs(check_t[timed_beta[k]] - tobj[k]) / fstar for k in timed_beta] +
                [abs(indep[sk_coef][0] - sk_curve[-1][2]) / fstar, abs(indep[gl_coef][0] - gl_curve[-1][2]) / fstar])

    # what the trace costs: the same job with and without it
    job = lasso_job(svm, "random { per_round 256 }", "1 sweeps", "sweeps >= 10",
                    os.path.join(p.tmp, "beta.trace.tsv"))
    plain = p.run(job, 2, sets)["points"][-1][3]
    tr = os.path.join(p.tmp, "trace.json")
    traced = p.run(job, 2, sets + [], trace=tr)["points"][-1][3]
    trace_cost = (plain, traced, os.path.getsize(tr))
    os.remove(tr)
    log("  trace: %.2f s without, %.2f s with (%.0f MB)" % (plain, traced, trace_cost[2] / 1e6))

    # ratios within a round: the best 2-worker configuration of ptm
    two = {k: med(v) for k, v in times.items() if k[1] == 2}
    best2 = min(two, key=two.get) if two else None
    one = {k: med(v) for k, v in times.items() if k[1] == 1}
    best1 = min(one, key=one.get) if one else None

    def ratio(a, b):
        if not a or not b:
            return None
        return med([x / y for x, y in zip(a, b)])

    # ---- the section
    sk_cmd = ("Lasso(alpha=lambda, fit_intercept=False, selection='cyclic', precompute=False, tol=T, "
              "max_iter=100000).fit(X, y, check_input=False)")
    md += ["### Lasso", "",
           "Data: `ptm gen lasso %s`: %s x %s, %s non-zeros, columns in groups of %s correlated %s, "
           "%s true non-zeros, noise %s; lambda = %.2f lambda_max = %r (lambda_max = max |x_j . y| / n), "
           "%d non-zero coefficients at the optimum (glmnet's tightest fit). Every system minimizes "
           "(1/2n) ||y - X b||^2 + lambda ||b||_1 from b = 0 on this file; f* = %.12g is the lowest "
           "objective any system reached, its own or recomputed by bench/peers/objective.py from its "
           "coefficients (the two agree to %.1g relative for the peers' last fits and ptm's timed "
           "runs). Target: f* (1 + 1e-6) = %.12g."
           % (cfg["gen"], n, d, nnz, gen_opt(cfg["gen"], "group"), gen_opt(cfg["gen"], "corr"),
              gen_opt(cfg["gen"], "nonzeros"), gen_opt(cfg["gen"], "noise"), cfg["frac"], lam,
              indep[gl_coef][1], fstar, agree, target), "",
           "- ptm: examples/lasso/lasso.ptm with its data path, schedule, objective interval and "
           "stop rule replaced, `update builtin lasso_cd`, `ptm run --workers P --set lambda=%r JOB`. "
           "Schedules tried: `round_robin { per_round K }` (with `within = sequential` too: each "
           "worker updates its share of a round one coefficient after the other), "
           "`random { per_round K }`, the example's schedule as it is (`dynamic { sample K, "
           "active, balance, pipeline 1 }` with its priority and cost and `within = sequential`), "
           "and the same computed together (`within = parallel`) with `depend coef from EDGES`, "
           "the %s pairs of columns of one planted group (a `cos(...) > 0.3` predicate would "
           "cost X'X, see \"Schedulers\"; the edge list for %s columns is the planted truth). "
           "Curve runs: objective every tenth of "
           "a sweep (`every N rounds`, N = columns / 10 / K), stop at `sweeps >= 150 or "
           "rel_change(objective) < 1e-13 or seconds > %d`; timed runs: `stop when rounds >= R` with "
           "`every R rounds`, R the first evaluated round at or below the target (see the method below)."
           % (lam, "{:,}".format(int(d) // 10 * 45), "{:,}".format(int(d)), cfg["cap"]),
           "- scikit-learn %s (python3-sklearn), bench/lasso_sklearn.py: `%s`, X in CSC; tolerances "
           "%s (a fit a tolerance), and `tol=1e-30, max_iter=K` with K the fewest epochs that reach the "
           "target (bisection), an oracle's stopping point like ptm's." % (sk_version, sk_cmd,
                                                                           ", ".join(s.split("=")[1] for s in sk_ladder)),
           "- glmnet %s (r-cran-glmnet), bench/peers/lasso_glmnet.R: `glmnet(X, y, family=\"gaussian\", "
           "alpha=1, lambda=lambda, intercept=FALSE, standardize=FALSE, thresh=T)`, X a dgCMatrix; one "
           "lambda, no path. With these options glmnet's objective is (1/2n) ||y - X b||^2 + lambda "
           "||b||_1 (its vignette: y is scaled only to make its own lambda sequence; a lambda given is "
           "on y's scale; its tightest fit and scikit-learn's end %.1g apart, relative). Thresholds "
           "%s; a fit that stops on maxit returns no solution, so only thresh is laddered."
           % (gl_version, abs(gl_curve[-1][2] - sk_curve[-1][2]) / fstar, ", ".join(gl_ladder)), "",
           "Time: seconds from the start of the solver on data in memory (ptm: from its first round; "
           "reading the text file, building the column form and the set-up are left out for every "
           "system: ptm's whole command took a median %.2f s more than its solver, to read the file "
           "and set up; scikit-learn's load_svmlight_file read it in %s s); %d timed runs each, the "
           "runs of all systems interleaved; medians. ptm's "
           "`--trace --trace-blocks` is not used: it writes every round's blocks, which slows the rounds even "
           "though the writing is left out of its seconds (`random { per_round 256 }`, 2 workers, "
           "10 sweeps: %.2f s without the trace, %.2f s with it, which wrote %.0f MB); the "
           "progress lines carry the same seconds and objective." % (med([x for v in walls.values() for x in v]), lines_of(prep, "seconds")[0][1],
                           RUNS, trace_cost[0], trace_cost[1], trace_cost[2] / 1e6), ""]
    md += ["| system | configuration | workers | time to target, s (median) | runs (s) | objective there "
           "| sweeps or epochs there | final objective of the curve run | note |",
           "|---|---|---|---|---|---|---|---|---|"]
    for label, sched, P, k in configs:
        key = (label, P)
        r = curves[key]
        fin = r["points"][-1][2] if r["points"] else None
        note = ""
        if r["rc"]:
            note = "stopped: %s" % (r["error"] or "exit %d" % r["rc"]).split("error: ", 1)[-1]
        elif key not in reach:
            last = r["points"][-1]
            note = "target not reached (gap %.2g after %d sweeps, %.1f s)" % ((fin - fstar) / fstar, last[1], last[3])
        if key in reach:
            hit = reach[key]
            md.append("| ptm | `%s` | %d | %.3f | %s | %.10g | %d sweeps (%d rounds) | %.10g | %s |" % (
                shown(label, sched, k), P,
                med(times[key]), fmt_runs(times[key]), tobj[key], hit[1], hit[0], fin, note))
        else:
            md.append("| ptm | `%s` | %d | - | | | | %s | %s |" % (
                shown(label, sched, k), P,
                "%.10g" % fin if fin is not None else "-", note))
    if sk_tol:
        md.append("| scikit-learn | tol=%s | 1 | %.3f | %s | %.10g | %d epochs | %.10g (%s) | the loosest "
                  "tolerance tried that reaches the target |" % (
                      sk_tol.split("=")[1], med(sk_t["tol"]), fmt_runs(sk_t["tol"]), sk_obj["tol"],
                      sk_iters[sk_tol], sk_curve[-1][2], sk_curve[-1][0]))
    if sk_epochs:
        md.append("| scikit-learn | tol=1e-30, max_iter=%d | 1 | %.3f | %s | %.10g | %d epochs | | "
                  "oracle stop |" % (sk_epochs, med(sk_t["epochs"]), fmt_runs(sk_t["epochs"]),
                                     sk_obj["epochs"], sk_epochs))
    if gl_th:
        md.append("| glmnet | thresh=%s | 1 | %.3f | %s | %.10g | %d passes (npasses) | %.10g (thresh=%s) | the "
                  "loosest threshold tried that reaches the target |" % (
                      gl_th, med(gl_t), fmt_runs(gl_t), gl_obj, gl_passes[gl_th], gl_curve[-1][2],
                      gl_curve[-1][0]))
    md += ["", "The peers' ladders (one fit each; seconds, objective):", "",
           "| system | setting | seconds | objective | gap to f* |", "|---|---|---|---|---|"]
    for s, t, f in sk_curve:
        md.append("| scikit-learn | %s | %.3f | %.10g | %.2g |" % (s, t, f, (f - fstar) / fstar))
    for s, t, f in gl_curve:
        md.append("| glmnet | thresh=%s | %.3f | %.10g | %.2g |" % (s, t, f, (f - fstar) / fstar))

    goals = []
    if best2:
        r_sk = ratio(times[best2], sk_t["tol"])
        r_ske = ratio(times[best2], sk_t["epochs"])
        r_gl = ratio(times[best2], gl_t)
        name2 = "ptm `%s`, 2 workers" % next(shown(c[0], c[1], c[3])
                                             for c in configs if (c[0], c[2]) == best2)
        goals += ["| %s / scikit-learn (tol=%s) | %s | at most 0.5 | %s |" % (
                      name2, sk_tol.split("=")[1] if sk_tol else "-", "%.2f" % r_sk if r_sk else "-",
                      "met" if r_sk is not None and r_sk <= 0.5 else "missed"),
                  "| %s / scikit-learn (oracle epochs) | %s | | |" % (name2, "%.2f" % r_ske if r_ske else "-"),
                  "| %s / glmnet (thresh=%s) | %s | under 1 | %s |" % (
                      name2, gl_th or "-", "%.2f" % r_gl if r_gl else "-",
                      "met" if r_gl is not None and r_gl < 1 else "missed")]
    if best1:
        r1 = ratio(times[best1], sk_t["tol"])
        goals.append("| ptm `%s`, 1 worker / scikit-learn (tol=%s) | %s | | |" % (
            next(shown(c[0], c[1], c[3]) for c in configs if (c[0], c[2]) == best1),
            sk_tol.split("=")[1] if sk_tol else "-",
            "%.2f" % r1 if r1 else "-"))
    md += ["", "Ratios of times to the target (the median of the rounds' ratios; ptm's fastest "
           "2-worker configuration):", "", "| ratio | measured | goal | |", "|---|---|---|---|"] + goals

    # chart: a colour a schedule or peer (bench/plotstyle.py), a dash and marker a variant
    series = [("scikit-learn Lasso, a fit per tol", [(t, (f - fstar) / fstar) for _, t, f in sk_curve],
               None, plotstyle.style("scikit-learn")),
              ("glmnet, a fit per thresh", [(t, (f - fstar) / fstar) for _, t, f in gl_curve], None,
               plotstyle.style("glmnet", 1))]
    variants = {}
    for label, sched, P, k in configs:
        r = curves[(label, P)]
        pts = [(t, (f - fstar) / fstar if f == f else 1e300) for _, _, f, t in r["points"]]
        note = None if (label, P) in reach else "(target not reached)"
        key, name = lasso_legend(label, k, P)
        variants[key] = variants.get(key, -1) + 1
        series.append((name, pts, note, plotstyle.style(key, variants[key])))
    fn = "peers_lasso.svg"
    sched_bench_plot.plot(os.path.join(svgdir, fn), "Lasso %s x %s: ptm's schedules beside scikit-learn "
                          "and glmnet" % (n, d), "wall-clock seconds, log scale (reading the file left out)", series,
                          no_lines={series[0][0], series[1][0]}, xlog=True,
                          ylabel="relative gap to the best objective, (f - f*) / f*",
                          subtitle="ptm on 1 or 2 worker threads as named, the peers single-threaded\n"
                                   "data: ptm gen lasso %s" % cfg["gen"], width=1040)
    md += ["", "Chart: [%s](%s) (ptm: the curve runs, objective evaluations included, a colour a "
           "schedule, a dash and marker a block count or worker count; peers: a point a fit of "
           "the ladder; (target not reached): not within the target in the curve run)." % (fn, fn),
           ""]
    log("lasso: %.0f s" % (time.time() - t_all))


# ---- logistic regression ---------------------------------------------------------------

def logreg_job(svm, every, stop, w_out, conf):
    method, _, _, minibatch = conf
    t = no_intercept(example("logreg", "logreg_ssp"))
    t = sub1(r'"data/train\.svm"', '"%s"' % svm, t)
    t = sub1(r"^const rate = .*$", "const rate = 0.5\nconst decay = 1", t, re.M)
    t = sub1(r"^const l2 = .*$", "const l2 = 0", t, re.M)
    t = sub1(r"method = sgd, rate = rate, l2 = l2", "method = tron, l2 = l2" if method == "tron" else
             "method = %s, rate = rate, decay = decay, l2 = l2" % method, t)
    t = sub1(r"minibatch 1000", "minibatch %d" % minibatch, t)
    t = sub1(r"objective builtin logloss \{ l2 = l2 \} every 1 sweeps",
             "objective builtin logloss { l2 = l2 } every %s" % every, t)
    t = sub1(r"^stop when .*$", "stop when " + stop, t, re.M)
    t = sub1(r'output w to "w_ssp\.tsv"', 'output w to "%s"' % w_out, t)
    return t


def logreg_label(conf):
    method, rate, decay, minibatch = conf
    if method == "tron":
        return "tron (no rate)"
    if method == "svrg":
        return "svrg, rate %g, minibatch %d" % (rate, minibatch)
    return "sgd, rate %g, decay %g" % (rate, decay)


def logreg(p, cfg, svgdir, md):
    log("== peers: logistic regression")
    t_all = time.time()
    name = "logreg_hard" if cfg.get("hard") else "logreg"
    ddir, tgen = p.gen("logreg", cfg["gen"], name)
    svm = os.path.join(ddir, "train.svm")
    prefix = os.path.join(p.tmp, name)
    prep = check([PY, os.path.join(HERE, "prep.py"), svm, str(cfg["cols"]), prefix])
    _, n, d, nnz = lines_of(prep, "shape")[0]
    n = int(n)
    C = cfg["C"]
    l2 = 1.0 / (C * n)
    log("  %d x %s, %s non-zeros; gen %.1f s, scikit-learn's reader %s s" % (
        n, d, nnz, tgen, lines_of(prep, "seconds")[0][1]))

    def liblinear(eps, model):
        return wall(["liblinear-train", "-s", "0", "-c", repr(C), "-e", eps, "-q", svm, model])

    # 1. liblinear's ladder, its objective, the target
    lib_ladder = ["0.1", "0.01", "0.001"]
    lib_curve = []
    liblinear("1e9", os.path.join(p.tmp, "liblinear.read.model"))  # the file into the page cache
    for eps in lib_ladder:
        model = os.path.join(p.tmp, "liblinear.%s.model" % eps)
        t, r = liblinear(eps, model)
        if r.returncode:
            raise SystemExit("peers: liblinear-train failed: " + r.stderr)
        t_read, _ = liblinear("1e9", os.path.join(p.tmp, "liblinear.read.model"))
        lib_curve.append((eps, max(t - t_read, 0.0), model))
    out = check([PY, os.path.join(HERE, "objective.py"), "logreg", prefix, repr(l2)] +
                [m for _, _, m in lib_curve])
    lib_obj = {f[0]: float(f[1]) for f in (l.split() for l in out.splitlines())}
    f_lib = lib_obj[lib_curve[1][2]]
    target = f_lib * (1 + 1e-3)
    log("  liblinear objective %.10g (eps 0.01), target %.10g" % (f_lib, target))

    # 2. ptm curves: (method, rate, decay, minibatch)
    configs = [("sgd", 0.5, 1.0, 1000), ("sgd", 16.0, 0.9, 1000), ("sgd", 32.0, 0.8, 1000),
               ("svrg", 40.0, 1.0, 1000), ("svrg", 50.0, 1.0, 1000), ("svrg", 80.0, 1.0, 2000),
               ("tron", 0.5, 1.0, 1000)]
    curves = {}
    for conf in configs:
        _, rate, decay, _ = conf
        w = os.path.join(p.tmp, "w.%s.%g.%g.%d.tsv" % conf)
        cap = cfg["cap_example"] if rate == 0.5 else cfg["cap"]
        job = logreg_job(svm, "1 sweeps", "sweeps >= %d or seconds > %d" % (cfg["sweeps"], cap), w, conf)
        r = p.run(job, 2, ["rate=%r" % rate, "l2=%r" % l2, "decay=%r" % decay])
        curves[conf] = r
        hit = first_at(r["points"], target)
        log("  ptm %s: %s" % (logreg_label(conf), "sweep %d at %.2f s" % (hit[1], hit[3]) if hit else
                                 "not reached, %.6g after %d sweeps" % (r["points"][-1][2], r["points"][-1][1])))
    reach = {k: first_at(r["points"], target) for k, r in curves.items() if first_at(r["points"], target)}
    best = min(reach, key=lambda k: reach[k][3]) if reach else None

    # 3. scikit-learn's SGD: its default schedule once, a tuned one RUNS times
    def sgd(seed, epochs, lr=None):
        coef = os.path.join(p.tmp, "sgd.%s.%d.npy" % (lr[0] if lr else "optimal", seed))
        cmd = [PY, os.path.join(HERE, "logreg_sgd.py"), prefix, repr(l2), repr(target), str(epochs),
               str(cfg["sgd_cap"]), str(seed), coef] + (list(lr) if lr else [])
        out = check(cmd)
        return [(int(f[1]), float(f[2]), float(f[3])) for f in lines_of(out, "epoch")], coef, \
            lines_of(out, "sgd")[0][1]
    sgd_default, sgd_default_coef, sk_version = sgd(1, 10)
    tuned = ("invscaling", "0.5", "0.25")

    # 4. timed rounds
    ptm_t, ptm_obj, ptm_w, ptm_wall = [], [], None, []
    lib_t, lib_read = [], []
    sgd_runs = []
    for rep in range(RUNS):
        if best:
            k = reach[best][1]
            ptm_w = os.path.join(p.tmp, "w.timed.tsv")
            job = logreg_job(svm, "%d sweeps" % k, "sweeps >= %d" % k, ptm_w, best)
            r = p.run(job, 2, ["rate=%r" % best[1], "l2=%r" % l2, "decay=%r" % best[2]])
            ptm_t.append(r["points"][-1][3])
            ptm_wall.append(r["wall"])
            ptm_obj.append(r["points"][-1][2])
        t, _ = liblinear("0.01", os.path.join(p.tmp, "liblinear.timed.model"))
        lib_t.append(t)
        t, _ = liblinear("1e9", os.path.join(p.tmp, "liblinear.read.model"))
        lib_read.append(t)
        sgd_runs.append(sgd(rep + 1, cfg["sgd_epochs"], tuned))
        log("  round %d: ptm %s, liblinear %.2f (read-only %.2f), sgd %s" % (
            rep + 1, fmt_s(ptm_t[-1] if ptm_t else None), lib_t[-1], lib_read[-1],
            fmt_s(next((t for _, t, f in sgd_runs[-1][0] if f <= target), None))))
    files = ([ptm_w] if ptm_w else []) + [sgd_default_coef] + [c for _, c, _ in sgd_runs]
    out = check([PY, os.path.join(HERE, "objective.py"), "logreg", prefix, repr(l2)] + files)
    indep = {f[0]: float(f[1]) for f in (l.split() for l in out.splitlines())}
    lib_fit = [a - b for a, b in zip(lib_t, lib_read)]
    sgd_t = [next((t for _, t, f in pts if f <= target), None) for pts, _, _ in sgd_runs]
    fstar = min([f for _, f in lib_obj.items()] + [f for r in curves.values() for _, _, f, _ in r["points"]] +
                [f for pts, _, _ in sgd_runs for _, _, f in pts] + list(indep.values()))

    def ratio(a, b):
        if not a or not b or None in a or None in b:
            return None
        return med([x / y for x, y in zip(a, b)])

    md += ["### Logistic regression" + (", hard mode" if cfg.get("hard") else ""), "",
           "Data: `ptm gen logreg %s`: %d x %s, %s non-zeros, labels -1/+1 (%s). Objective: (1/n) sum log(1 + exp(-y w.x)) + "
           "(l2/2) ||w||^2 with l2 = 1/(C n) = %.3g, C = %.10g: liblinear -s 0 minimizes C n times it "
           "((1/2) ||w||^2 + C sum log(1 + exp(-y w.x)), no bias term), ptm's `logreg_sgd` with "
           "`l2` and SGDClassifier with `alpha` = l2 minimize it as written. Every system's "
           "objective is computed by bench/peers/objective.py from its weights, on the file as "
           "scikit-learn reads it. liblinear's objective at its default -e 0.01: %.10g; target: "
           "within 1e-3 of it, %.10g."
           % (cfg["gen"], n, d, nnz,
              "text-like rows, the shape of a real tf-idf classification: 61k x 18k, 1.6 M "
              "non-zeros" if cfg.get("hard") else "reference shape 500,000 x 50,000, 19.5 M "
              "non-zeros", l2, C, f_lib, target), "",
           "- liblinear (liblinear-tools): `liblinear-train -s 0 -c %.10g -e EPS -q FILE MODEL`. The "
           "command reads the text file itself; its fit time is the command's time minus that of "
           "the same command with `-e 1e9` (0 iterations: read, one gradient, write), run back to "
           "back. %d rounds." % (C, RUNS),
           "- ptm: examples/logreg/logreg_ssp.ptm with its data path, `l2` (and the objective's) set "
           "to 1/(C n), `decay` and `method` options, the minibatch, the objective interval and "
           "the stop rule replaced: `ptm run --workers 2 --set rate=R --set decay=D --set l2=%r "
           "JOB` (data_parallel, ssp 2). Tried: %s (sgd: minibatch 1000; svrg: `method = svrg`, "
           "a full-gradient pass before every sweep, constant step; tron: `method = tron`, "
           "examples/logreg/logreg.ptm's default, no rate or decay, a round a Newton step). "
           "Curve runs: objective every "
           "sweep, `stop when sweeps >= %d or seconds > %d` (%d for the example's rate 0.5); timed "
           "runs: `stop when sweeps >= S`, objective every S sweeps, S the curve run's first sweep "
           "at or below the target." % (
               l2, "; ".join(logreg_label(c) for c in configs), cfg["sweeps"], cfg["cap"],
               cfg["cap_example"]),
           "- scikit-learn %s: bench/peers/logreg_sgd.py, `SGDClassifier(loss='log_loss', "
           "penalty='l2', alpha=l2, fit_intercept=False)`, one `partial_fit` an epoch (timed) "
           "and the objective between epochs (not timed); its default `learning_rate='optimal'` "
           "(one run, 10 epochs) and `learning_rate='invscaling', eta0=0.5, power_t=0.25` "
           "(%d runs, seeds 1..%d, up to %d epochs or %d s)." % (
               sk_version, RUNS, RUNS, cfg["sgd_epochs"], cfg["sgd_cap"]), "",
           "| system | setting | time to target, s (median) | runs (s) | objective there "
           "(objective.py) | note |", "|---|---|---|---|---|---|"]
    md.append("| liblinear | -s 0 -e 0.01 | %.3f | %s | %.10g | fit time; whole command %.3f s "
              "(median), of which reading %.3f s |" % (med(lib_fit), fmt_runs(lib_fit), f_lib,
                                                     med(lib_t), med(lib_read)))
    if best:
        hit = reach[best]
        md.append("| ptm, 2 workers | %s | %.3f | %s | %.10g (run 1: %.10g) | %d sweeps%s; "
                  "whole command %.3f s (median) |" % (
                      logreg_label(best), med(ptm_t), fmt_runs(ptm_t), med(ptm_obj), indep[ptm_w], hit[1],
                      "" if max(ptm_obj) <= target else "; a timed run ended above the target (SSP)",
                      med(ptm_wall)))
    for k, r in curves.items():
        if k == best:
            continue
        hit = reach.get(k)
        last = r["points"][-1]
        md.append("| ptm, 2 workers | %s | %s | (curve run) | %.10g | %s |" % (
            logreg_label(k), "%.3f" % hit[3] if hit else "-", hit[2] if hit else last[2],
            "sweep %d, objective evaluations included" % hit[1] if hit else
            "not reached in %d sweeps (%.1f s)" % (last[1], last[3])))
    md.append("| scikit-learn SGD | invscaling, eta0 0.5, power_t 0.25 | %s | %s | %s | epochs to target: %s |" % (
        fmt_s(med([t for t in sgd_t if t is not None]) if None not in sgd_t else None),
        " ".join(fmt_s(t) for t in sgd_t),
        " ".join("%.10g" % indep[c] for _, c, _ in sgd_runs),
        " ".join(str(next((e for e, _, f in pts if f <= target), "-")) for pts, _, _ in sgd_runs)))
    md.append("| scikit-learn SGD | default (optimal) | %s | (1 run) | %.10g | after %d epochs, %.1f s |" % (
        fmt_s(next((t for _, t, f in sgd_default if f <= target), None)), indep[sgd_default_coef],
        sgd_default[-1][0], sgd_default[-1][1]))
    md += ["", "liblinear's ladder (one run each; fit time = the command's time - that of the "
           "read-only command run right after it, 0 when noise makes it negative): " +
           ", ".join("-e %s: %.3f s, objective %.10g" % (e, t, lib_obj[m]) for e, t, m in lib_curve) + ".", ""]
    r_lib = ratio(ptm_t, lib_fit)
    r_libc = ratio(ptm_wall, lib_t)
    r_sgd = ratio(ptm_t, sgd_t)
    # the stricter target: liblinear's objective itself, by TRON on
    # 1 and 2 workers, in alternating pairs (curve runs: an objective pass
    # every round included)
    tron = ("tron", 0.5, 1.0, 1000)
    tron_t = {1: [], 2: []}
    tjob = logreg_job(svm, "1 sweeps", "objective <= %r or sweeps >= 100" % f_lib,
                      os.path.join(p.tmp, "w.tron.tsv"), tron)
    for rep in range(RUNS):
        for P in ((1, 2) if rep % 2 == 0 else (2, 1)):
            r = p.run(tjob, P, ["rate=0.5", "l2=%r" % l2, "decay=1"])
            hit = first_at(r["points"], f_lib)
            tron_t[P].append(hit[3] if hit else None)
    r_t1 = ratio(tron_t[1], lib_fit)
    r_t2 = ratio(tron_t[2], lib_fit)
    r_tw = ratio(tron_t[1], tron_t[2])
    log("  tron to liblinear's objective: 1 worker %s s, 2 workers %s s" % (
        " ".join(fmt_s(t) for t in tron_t[1]), " ".join(fmt_s(t) for t in tron_t[2])))
    md += ["| ratio | measured |", "|---|---|",
           "| ptm / liblinear fit | %s |" % ("%.2f" % r_lib if r_lib else "-"),
           "| ptm / liblinear, whole commands (reading the file included) | %s |" % (
               "%.2f" % r_libc if r_libc else "-"),
           "| ptm / scikit-learn SGD (invscaling) | %s |" % ("%.2f" % r_sgd if r_sgd else "-"),
           "| ptm tron, 1 worker, to liblinear's objective itself (%.10g) / liblinear fit "
           "(target at most 0.5; runs %s s) | %s |" % (
               f_lib, " ".join(fmt_s(t) for t in tron_t[1]), "%.2f" % r_t1 if r_t1 else "-"),
           "| ptm tron, 2 workers, the same (runs %s s) | %s |" % (
               " ".join(fmt_s(t) for t in tron_t[2]), "%.2f" % r_t2 if r_t2 else "-"),
           "| ptm tron, 1 worker / 2 workers, the same (target at least 1.6) | %s |" % (
               "%.2f" % r_tw if r_tw else "-"), ""]
    series = []
    variants = {}
    for k, r in curves.items():
        variants[k[0]] = variants.get(k[0], -1) + 1
        series.append(("ptm " + logreg_label(k) + ", 2 workers",
                       [(t, (f - fstar) / fstar) for _, _, f, t in r["points"]], None,
                       plotstyle.style(k[0], variants[k[0]])))
    pts, _, _ = sgd_runs[0]
    series.append(("scikit-learn SGDClassifier, invscaling rate (tuned)", [(t, (f - fstar) / fstar) for _, t, f in pts],
                   None, plotstyle.style("scikit-learn")))
    series.append(("scikit-learn SGDClassifier, optimal rate (its default)", [(t, (f - fstar) / fstar)
                                                                     for _, t, f in sgd_default],
                   None, plotstyle.style("scikit-learn", 1)))
    series.append(("liblinear, a fit per -e", [(t, (lib_obj[m] - fstar) / fstar) for _, t, m in lib_curve],
                   None, plotstyle.style("liblinear", 3)))
    fn = "peers_%s.svg" % name
    sched_bench_plot.plot(os.path.join(svgdir, fn), "Logistic regression%s %d x %s: ptm beside scikit-learn "
                          "and liblinear" % (" (hard, text-like rows)" if cfg.get("hard") else "", n, d),
                          "wall-clock seconds, log scale (reading the file left out)", series, gap_min=1e-6,
                          gap_max=10, no_lines={"liblinear, a fit per -e"}, xlog=True,
                          ylabel="relative gap to the best objective, (f - f*) / f*",
                          subtitle="ptm data_parallel on 2 worker threads, the peers single-threaded\n"
                                   "data: ptm gen logreg %s" % cfg["gen"], width=1000)
    md += ["Chart: [%s](%s), gap to the lowest objective any run reached (%.10g); ptm's curves "
           "include an objective evaluation every sweep (a pass over the data, except under tron, whose "
           "objective is the loss its own pass summed at the point it took)." % (fn, fn, fstar), ""]
    log("logreg: %.0f s" % (time.time() - t_all))


# ---- L1 logistic regression -------------------------------------------------------------

def logreg_l1_job(svm, stop, w_out, within):
    t = no_intercept(example("logreg", "logreg_l1"))
    t = sub1(r'"data/train\.svm"', '"%s"' % svm, t)
    t = sub1(r"within = sequential", "within = %s" % within, t)
    t = sub1(r"^stop when .*$", "stop when " + stop, t, re.M)
    return sub1(r'output w to "w_l1\.tsv"', 'output w to "%s"' % w_out, t)


def cpu_wall(cmd):
    """Wall and CPU (user + system) seconds of a whole command, and its
    CompletedProcess."""
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = sh(cmd)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), r


def logreg_l1(p, cfg, svgdir, md):
    """logreg_cd (examples/logreg/logreg_l1.ptm, no intercept) against
    liblinear -s 6 (newGLMNET) on liblinear's own objective: the time for ptm
    to reach the objective liblinear's default fit reaches, against
    liblinear's fit time, on 1 and 2 workers, in alternating runs."""
    log("== peers: L1 logistic regression")
    t_all = time.time()
    name = "logreg_l1_hard" if cfg.get("hard") else "logreg_l1"
    ddir, tgen = p.gen("logreg", cfg["gen"], name)
    svm = os.path.join(ddir, "train.svm")
    prefix = os.path.join(p.tmp, name)
    prep = check([PY, os.path.join(HERE, "prep.py"), svm, str(cfg["cols"]), prefix])
    _, n, d, nnz = lines_of(prep, "shape")[0]
    n = int(n)
    l1 = cfg["l1"]
    # ptm: (1/n) sum log(1 + exp(-y w.x)) + l1 |w|_1; liblinear -s 6:
    # |w|_1 + C sum log(1 + exp(-y w.x)) = (1 / l1) times ptm's when C = 1 / (n l1)
    C = 1.0 / (n * l1)
    load0 = open("/proc/loadavg").read().split()[0]

    def liblinear(eps, model):
        return cpu_wall(["liblinear-train", "-s", "6", "-c", repr(C), "-e", eps, "-q", svm, model])

    def ptm(job_text, P, name):
        """Progress points, CPU seconds, exit status of `ptm run`."""
        path = os.path.join(p.tmp, name)
        with open(path, "w") as f:
            f.write(job_text)
        _, cpu, r = cpu_wall([p.ptm, "run", "--workers", str(P), "--set", "l1=%r" % l1, path])
        if r.returncode:
            raise SystemExit("peers: ptm run failed: " + r.stderr[-2000:])
        return [(int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)))
                for m in PROGRESS.finditer(r.stderr)], cpu

    lib_model = os.path.join(p.tmp, "liblinear.l1.model")
    read_model = os.path.join(p.tmp, "liblinear.l1.read.model")
    liblinear("1e9", read_model)  # the file into the page cache
    t, _, r = liblinear("0.01", lib_model)
    if r.returncode:
        raise SystemExit("peers: liblinear-train failed: " + r.stderr)
    out = check([PY, os.path.join(HERE, "objective.py"), "logreg_l1", prefix, repr(l1), lib_model])
    f_lib, lib_nz = float(out.split()[1]), int(out.split()[2])
    log("  %d x %s, %s non-zeros; liblinear -s 6 objective %.10g, %d non-zero weights" % (
        n, d, nnz, f_lib, lib_nz))
    runs = {(P, wi): [] for P in (1, 2) for wi in ("sequential", "parallel")}
    sweeps = {k: [] for k in runs}
    cpus = {k: [] for k in runs}
    lib_fit, lib_t, lib_read, lib_cpu = [], [], [], []
    w_out = {k: os.path.join(p.tmp, "w.l1.%d.%s.tsv" % k) for k in runs}
    for rep in range(cfg.get("runs", RUNS)):
        t, c, _ = liblinear("0.01", lib_model)
        tr, cr, _ = liblinear("1e9", read_model)
        lib_t.append(t)
        lib_read.append(tr)
        lib_fit.append(max(t - tr, 0.0))
        lib_cpu.append(max(c - cr, 0.0))
        for k in (sorted(runs) if rep % 2 == 0 else sorted(runs, reverse=True)):
            P, wi = k
            job = logreg_l1_job(svm, "objective <= %r or sweeps >= %d" % (f_lib, cfg["sweeps"]),
                                w_out[k], wi)
            pts, c = ptm(job, P, "job.ptm")
            # the same run stopped before its first round: reading and set-up
            read = sub1(r"^stop when .*$", "stop when sweeps >= 0", job, re.M)
            read = sub1(re.escape('"%s"' % w_out[k]), '"%s"' % os.path.join(p.tmp, "w.read.tsv"), read)
            _, c0 = ptm(read, P, "read.ptm")
            hit = first_at(pts, f_lib)
            runs[k].append(hit[3] if hit else None)
            sweeps[k].append(hit[1] if hit else None)
            cpus[k].append(max(c - c0, 0.0))
        log("  round %d: liblinear %.3f (read-only %.3f, CPU of the fit %.3f); ptm %s" % (
            rep + 1, t, tr, lib_cpu[-1], ", ".join("%d %s %s (CPU %.3f)" % (
                k[0], k[1], fmt_s(runs[k][-1]), cpus[k][-1]) for k in sorted(runs))))
    load1 = open("/proc/loadavg").read().split()[0]
    out = check([PY, os.path.join(HERE, "objective.py"), "logreg_l1", prefix, repr(l1)] +
                [w_out[k] for k in sorted(runs)])
    indep = {f[0]: (float(f[1]), int(f[2])) for f in (l.split() for l in out.splitlines())}

    md += ["### L1 logistic regression" + (", hard mode" if cfg.get("hard") else ""), "",
           "Data: `ptm gen logreg %s`: %d x %s, %s non-zeros. Objective: (1/n) sum log(1 + "
           "exp(-y w.x)) + l1 ||w||_1 with l1 = %g, no intercept; liblinear -s 6 minimizes "
           "||w||_1 + C sum log(1 + exp(-y w.x)), 1/l1 times it with C = 1/(n l1) = %.10g. "
           "Target: liblinear's own objective at its default -e 0.01, %.10g (objective.py, %d "
           "non-zero weights)." % (cfg["gen"], n, d, nnz, l1, C, f_lib, lib_nz), "",
           "- liblinear: `liblinear-train -s 6 -c %.10g -e 0.01 -q FILE MODEL`; fit time = the "
           "command's time minus that of the same command with `-e 1e9` run right after it." % C,
           "- ptm: examples/logreg/logreg_l1.ptm without its intercept, `within` as shown, "
           "`stop when objective <= TARGET or sweeps >= %d`, `ptm run --workers P --set l1=%g "
           "JOB`; time = the progress line's seconds at the first objective at or below the "
           "target (the objective is evaluated every sweep, from the margins logreg_cd keeps: a "
           "pass over the rows, included; reading the file is not)." % (cfg["sweeps"], l1),
           "- CPU seconds (user + system, of the command's process and threads): liblinear's "
           "command minus its `-e 1e9` command; ptm's run minus the same run with `stop when "
           "sweeps >= 0` (reading and set-up, one objective evaluation), so ptm's include the "
           "objective evaluated every sweep, and on 2 workers the time the threads spin at "
           "barriers. On a loaded machine the CPU seconds vary far less than the wall seconds.",
           "- %d rounds, each liblinear then the four ptm settings, the settings' order "
           "alternating between rounds. Load average %s at the start, %s at the end, on %d "
           "cores." % (cfg.get("runs", RUNS), load0, load1, os.cpu_count()), "",
           "| system | setting | time to target, s (median) | runs (s) | sweeps | objective "
           "reached (objective.py) | non-zero weights | / liblinear fit | CPU s to target (median; runs) "
           "| / liblinear CPU |",
           "|---|---|---|---|---|---|---|---|---|---|",
           "| liblinear | -s 6 -e 0.01 | %.3f | %s | | %.10g | %d | 1 | %.3f; %s | 1 |" % (
               med(lib_fit), fmt_runs(lib_fit), f_lib, lib_nz, med(lib_cpu), fmt_runs(lib_cpu))]
    for k in sorted(runs):
        ts = runs[k]
        ok = None not in ts
        f, nz = indep[w_out[k]]
        md.append("| ptm | %d worker%s, within = %s | %s | %s | %s | %.10g | %d | %s | %.3f; %s | %s |" % (
            k[0], "s" if k[0] > 1 else "", k[1], fmt_s(med(ts)) if ok else "-",
            " ".join(fmt_s(t) for t in ts), " ".join(str(s) for s in sweeps[k]), f, nz,
            "%.2f" % (med(ts) / med(lib_fit)) if ok and med(lib_fit) > 0 else "-",
            med(cpus[k]), fmt_runs(cpus[k]),
            "%.2f" % (med(cpus[k]) / med(lib_cpu)) if ok and med(lib_cpu) > 0 else "-"))
    md += ["", "liblinear's whole command: %s s (median), of which reading the file %s s." % (
        fmt_s(med(lib_t)), fmt_s(med(lib_read))), ""]
    log("logreg_l1: %.0f s" % (time.time() - t_all))


# ---- LDA -------------------------------------------------------------------------------

def lda_job(docword, vocab, sweeps, out, sampler):
    t = example("lda")
    t = sub1(r'"data/docword\.txt"', '"%s"' % docword, t)
    t = sub1(r'"data/vocab\.txt"', '"%s"' % vocab, t)
    t = sub1(r"every 5 sweeps", "every %d sweeps" % sweeps, t)
    t = sub1(r"^stop when .*$", "stop when sweeps >= %d" % sweeps, t, re.M)
    t = sub1(r'"word_topic\.tsv"', '"%s"' % out, t)
    t = sub1(r'"doc_topic\.tsv"', '"%s"' % (out + ".doc_topic.tsv"), t)
    t = sub1(r"sampler = \w+", "sampler = %s" % sampler, t)
    return t


LDA_LEGEND = {"ptm dense": "ptm lda_gibbs, dense sampler (rotation)",
              "ptm alias": "ptm lda_gibbs, alias sampler (rotation)",
              "sklearn": "scikit-learn LatentDirichletAllocation, online",
              "gensim": "gensim LdaModel"}
LDA_STYLE = {"ptm dense": ("rotation", 0), "ptm alias": ("rotation", 1), "sklearn": ("scikit-learn", 0),
             "gensim": ("gensim", 3)}


def lda(p, cfg, svgdir, md):
    log("== peers: LDA")
    t_all = time.time()
    ddir, tgen = p.gen("lda", cfg["gen"], "lda")
    docword, vocab = os.path.join(ddir, "docword.txt"), os.path.join(ddir, "vocab.txt")
    info = dict(l.split("\t") for l in open(os.path.join(ddir, "info.tsv")).read().splitlines())
    tokens, K = int(info["tokens"]), cfg["K"]
    alpha, beta = float(info["alpha"]), float(info["beta"])
    out = os.path.join(p.tmp, "lda_out")
    os.makedirs(out, exist_ok=True)
    systems = [("ptm dense", "sweeps", cfg["ptm"]), ("ptm alias", "sweeps", cfg["ptm"]),
               ("sklearn", "passes", cfg["sklearn"]), ("gensim", "passes", cfg["gensim"])]
    secs = {(s, c): [] for s, _, cs in systems for c in cs}
    files = {}  # (system, checkpoint, rep) -> topic file
    versions = {}
    for rep in range(RUNS):
        for s in ("dense", "alias"):
            for c in cfg["ptm"]:
                f = os.path.join(out, "ptm_%s.%d.%d.tsv" % (s, c, rep))
                r = p.run(lda_job(docword, vocab, c, f, s), 2, ["topics=%d" % K])
                if r["rc"]:
                    raise SystemExit("peers: ptm lda failed: %s" % r["error"])
                secs[("ptm " + s, c)].append(r["points"][-1][3])
                files[("ptm " + s, c, rep)] = f
        for s, _, cs in systems[2:]:
            o = check([PY, os.path.join(HERE, "lda_peers.py"), s, docword, str(K), repr(alpha), repr(beta),
                       str(max(cs)), str(rep + 1), out, ",".join(map(str, cs))])
            versions[s] = lines_of(o, "lda")[0][2]
            ts = {int(f[1]): float(f[2]) for f in lines_of(o, "pass")}
            for c in cs:
                secs[(s, c)].append(ts[c])
                dst = os.path.join(out, "%s.%d.%d.npy" % (s, c, rep))
                os.replace(os.path.join(out, "%s.%d.npy" % (s, c)), dst)
                files[(s, c, rep)] = dst
        log("  round %d: %s" % (rep + 1, ", ".join("%s %.2f s" % (s, secs[(s, cs[-1])][-1]) for s, _, cs in systems)))
    # quality: every checkpoint of the first round, the last of every round
    todo = ["truth"] + sorted({f for (s, c, rep), f in files.items()
                               if rep == 0 or c == dict((x, cs) for x, _, cs in systems)[s][-1]})
    iters = 30
    o = check([PY, os.path.join(HERE, "lda_quality.py"), docword, os.path.join(ddir, "topics_true.tsv"),
               repr(alpha), repr(beta), str(iters)] + todo)
    q = {f[0]: (float(f[1]), float(f[2])) for f in (l.split() for l in o.splitlines())}
    md += ["### LDA", "",
           "Data: `ptm gen lda %s`: %s documents, %s words, %d tokens, K = %d planted topics, "
           "alpha = %g, beta = %g (reference shape 20,000 documents, 20,000 words, 3 M tokens, "
           "K = 100: there, measured once while choosing the sizes, one pass of scikit-learn's "
           "LatentDirichletAllocation took 92 s (batch) to 116 s (online) and one of gensim's "
           "LdaModel 99 s on this machine, so the peers run on this smaller corpus). Every system gets alpha, beta and K, and reads the same UCI "
           "file (the peers through bench/peers/lda_quality.py's reader)." % (
               cfg["gen"], info["docs"], info["words"], tokens, K, alpha, beta), "",
           "- ptm: examples/lda/lda.ptm (`rotation`, `lda_gibbs`, sampler dense as written and "
           "alias), `ptm run --workers 2 --set topics=%d JOB`, with `stop when sweeps >= S` and "
           "the objective only at S; one run for each S in %s; seconds from the progress line."
           % (K, ", ".join(map(str, cfg["ptm"]))),
           "- scikit-learn %s: bench/peers/lda_peers.py, `LatentDirichletAllocation(n_components=K, "
           "doc_topic_prior=alpha, topic_word_prior=beta, learning_method='online', "
           "total_samples=D)`, one `partial_fit` a pass, passes %s." % (
               versions.get("sklearn", "?"), ", ".join(map(str, cfg["sklearn"]))),
           "- gensim %s: `LdaModel(num_topics=K, alpha=alpha, eta=beta, chunksize=2000, "
           "iterations=50, eval_every=None)`, one `update(corpus)` a pass, passes %s."
           % (versions.get("gensim", "?"), ", ".join(map(str, cfg["gensim"]))), "",
           "Quality, by bench/peers/lda_quality.py from each system's topic-word estimate alone: "
           "ll, the log-likelihood per training token with each document's theta fitted to phi by "
           "%d EM steps (the same for every system, so that only the topic-word estimates are "
           "compared: no system's own theta is used), and tv, the mean total variation distance between each "
           "planted topic and the learned topic matched to it. The planted topics score ll %.4f. "
           "%d rounds of every system; times are medians, quality is the first round's (last "
           "point: the median of the rounds')." % (iters, q["truth"][0], RUNS), "",
           "| system | sweeps or passes | seconds (median) | runs (s) | tokens/s (M) | ll | tv |",
           "|---|---|---|---|---|---|---|"]
    series = []
    for s, unit, cs in systems:
        pts = []
        for c in cs:
            ll, tv = q[files[(s, c, 0)]]
            if c == cs[-1]:
                ll = med([q[files[(s, c, r)]][0] for r in range(RUNS)])
                tv = med([q[files[(s, c, r)]][1] for r in range(RUNS)])
            m = med(secs[(s, c)])
            md.append("| %s | %d %s | %.3f | %s | %.2f | %.4f | %.4f |" % (
                s, c, unit[:-1] if c == 1 and unit == "sweeps" else "pass" if c == 1 else unit, m, fmt_runs(secs[(s, c)]), tokens * c / m / 1e6, ll, tv))
            pts.append((m, tv))
        series.append((LDA_LEGEND[s], pts, None, plotstyle.style(*LDA_STYLE[s])))
    fn = "peers_lda.svg"
    sched_bench_plot.plot(os.path.join(svgdir, fn), "LDA, %d tokens, K = %d: distance to the planted topics"
                          % (tokens, K), "wall-clock seconds (median of %d runs; reading the file left out)"
                          % RUNS, series,
                          ylabel="mean total variation distance to the planted topics",
                          gap_min=1e-2, gap_max=1, dots=True,
                          subtitle="a point a number of sweeps or passes; ptm on 2 worker threads, the peers "
                                   "as they run by default\ndata: ptm gen lda %s" % cfg["gen"], width=1000)
    md += ["", "Chart: [%s](%s) (tv against the median seconds)." % (fn, fn), ""]
    log("lda: %.0f s" % (time.time() - t_all))


# ---- matrix factorization ----------------------------------------------------------------

def mf(p, cfg, svgdir, md):
    log("== peers: matrix factorization")
    t_all = time.time()
    found = [l.split(" - ")[0] for l in
             sh(["apt-cache", "search", "--names-only", "libmf"]).stdout.strip().splitlines()]
    ddir, _ = p.gen("mf", cfg["gen"], "mf")
    info = dict(l.split("\t") for l in open(os.path.join(ddir, "info.tsv")).read().splitlines())
    S = cfg["sweeps"]
    t = example("mf")
    t = sub1(r'"data/ratings\.mtx"', '"%s"' % os.path.join(ddir, "ratings.mtx"), t)
    t = sub1(r'"data/test\.mtx"', '"%s"' % os.path.join(ddir, "test.mtx"), t)
    t = sub1(r"every 1 sweeps", "every %d sweeps" % S, t)
    t = sub1(r"^const rank = .*$", "const rank = %s" % info["rank"], t, re.M)  # the data's
    upd = re.search(r"^update builtin (.*)$", t, re.M).group(1)
    t = sub1(r"^stop when .*$", "stop when sweeps >= %d" % S, t, re.M)
    t = sub1(r'"W\.tsv"', '"%s"' % os.path.join(p.tmp, "W.tsv"), t)
    t = sub1(r'"H\.tsv"', '"%s"' % os.path.join(p.tmp, "H.tsv"), t)
    secs = {1: [], 2: []}
    rmse = {1: [], 2: []}
    for _ in range(RUNS):
        for w in (1, 2):
            r = p.run(t, w)
            secs[w].append(r["points"][-1][3])
            rmse[w].append(r["points"][-1][2])
    train = int(info["train"])
    md += ["### Matrix factorization", "",
           "LIBMF is not in Debian (`apt-cache search --names-only libmf` finds %s: none is LIBMF): "
           "it runs in the second table only when PTM_LIBMF names a build of it. The LIBMF column "
           "of the first is its published 32 M rating updates/s on 1 thread and 55 M/s "
           "on 2. ptm alone: examples/mf/mf.ptm (`rotation`, `%s`, rank %s) "
           "on `ptm gen mf %s` (%s x %s, %d training and %s held-out ratings, "
           "noise %s), `ptm run --workers P`, %d sweeps, the held-out RMSE only at the end; %d runs "
           "of each, 1 and 2 workers alternating. Seconds from the progress line (the rounds, not "
           "reading the file)."
           % (", ".join(found) if found else "nothing", upd, info["rank"], cfg["gen"], info["rows"], info["cols"], train,
              info["test"], info["noise"], S, RUNS), "",
           "| workers | sweeps | seconds (median) | runs (s) | M rating updates/s | LIBMF | held-out RMSE "
           "| RMSE of the true W H' |", "|---|---|---|---|---|---|---|---|"]
    for w, ref in ((1, 32), (2, 55)):
        m = med(secs[w])
        md.append("| %d | %d | %.3f | %s | %.1f | %d | %.4f | %.4f |" % (
            w, S, m, fmt_runs(secs[w]), train * S / m / 1e6, ref, med(rmse[w]),
            float(info["test_rmse_true"])))
    md.append("")
    mf_libmf(p, cfg, ddir, info, md)
    log("mf: %.0f s" % (time.time() - t_all))


def mm_to_libmf(src, dst):
    """A MatrixMarket coordinate file as LIBMF's text format: `row col value`
    a line, 0-based."""
    with open(src) as f, open(dst, "w") as out:
        size = False
        for line in f:
            if line.startswith("%"):
                continue
            if not size:
                size = True
                continue
            i, j, v = line.split()
            out.write("%d %d %s\n" % (int(i) - 1, int(j) - 1, v))


def mf_libmf(p, cfg, ddir, info, md):
    """LIBMF (github.com/cjlin1/libmf, not a Debian package) beside mf_sgd:
    held-out RMSE after the same iterations and rating updates a second,
    at two ranks, 1 and 2 threads. PTM_LIBMF names the directory of its
    mf-train and mf-predict; without it the comparison is skipped."""
    bindir = os.environ.get("PTM_LIBMF")
    it = cfg.get("libmf_iters", 20)
    if not bindir or not os.access(os.path.join(bindir, "mf-train"), os.X_OK):
        md += ["LIBMF against mf_sgd: SKIP (set PTM_LIBMF to the directory of LIBMF's mf-train "
               "and mf-predict, built from github.com/cjlin1/libmf).", ""]
        log("mf: LIBMF skipped (PTM_LIBMF not set)")
        return
    train, test = os.path.join(p.tmp, "libmf.tr"), os.path.join(p.tmp, "libmf.te")
    mm_to_libmf(os.path.join(ddir, "ratings.mtx"), train)
    mm_to_libmf(os.path.join(ddir, "test.mtx"), test)
    ntrain, rows, cols = int(info["train"]), int(info["rows"]), int(info["cols"])
    # ptm's default penalty reg (|W|^2 + |H|^2), as LIBMF's per-rating
    # penalties: reg over a row's (a column's) mean count of ratings
    base = example("mf")
    reg = float(re.search(r"reg = ([0-9.e-]+)", re.search(r"^update .*$", base, re.M).group(0)).group(1))
    l2_ptm = "%.3g,%.3g" % (reg * rows / ntrain, reg * cols / ntrain)
    mtrain, mpred = os.path.join(bindir, "mf-train"), os.path.join(bindir, "mf-predict")
    model = os.path.join(p.tmp, "libmf.model")

    def libmf(k, threads, l2, iters, rss=None):
        cmd = [mtrain, "-k", str(k), "-t", str(iters), "-s", str(threads), "--quiet"]
        t, r = wall(cmd + (["-l2", l2] if l2 else []) + [train, model])
        if r.returncode != 0:
            raise SystemExit("peers: LIBMF failed: %s" % r.stderr[-500:])
        if rss is not None:
            rss.append(r.maxrss_mb)
        return t

    def libmf_rmse():
        out = check([mpred, test, model, os.path.join(p.tmp, "libmf.pred")])
        return float(re.search(r"RMSE = ([0-9.e+-]+)", out).group(1))

    def ptm_job(k, update):
        t = base
        t = sub1(r'"data/ratings\.mtx"', '"%s"' % os.path.join(ddir, "ratings.mtx"), t)
        t = sub1(r'"data/test\.mtx"', '"%s"' % os.path.join(ddir, "test.mtx"), t)
        t = sub1(r"every 1 sweeps", "every %d sweeps" % it, t)
        t = sub1(r"^const rank = .*$", "const rank = %d" % k, t, re.M)
        if update:
            t = sub1(r"^update builtin .*$", "update builtin " + update, t, re.M)
        t = sub1(r"^stop when .*$", "stop when sweeps >= %d" % it, t, re.M)
        t = sub1(r'"W\.tsv"', '"%s"' % os.path.join(p.tmp, "W.tsv"), t)
        return sub1(r'"H\.tsv"', '"%s"' % os.path.join(p.tmp, "H.tsv"), t)

    ptm_upd = re.search(r"^update builtin (.*)$", base, re.M).group(1)
    systems = [("ptm, `%s`" % ptm_upd, "ptm", None),
               ("ptm, LIBMF's defaults: `mf_sgd { rate = 0.1, reg = 0.1, penalty = rating }`", "ptm",
                "mf_sgd { rate = 0.1, reg = 0.1, penalty = rating }"),
               ("LIBMF, its defaults (`-r 0.1 -l2 0.1`)", "libmf", None),
               ("LIBMF, ptm's penalty (`-l2 %s`)" % l2_ptm, "libmf", l2_ptm)]
    load = open("/proc/loadavg").read().split()[0]
    md += ["LIBMF against mf_sgd (LIBMF %s built from its public source with its Makefile: `g++ -O3 "
           "-march=native`, SSE, OpenMP), on the same ratings: held-out RMSE after %d iterations "
           "(sweeps) and rating updates a second, each system %d times, all of them back to back "
           "in turn. ptm: the seconds of its progress line (the rounds, not reading the file), the "
           "held-out RMSE evaluated before the first round and after the last only. LIBMF: the wall "
           "seconds of `mf-train -t %d` less those of `mf-train -t 1` (reading and set-up), over "
           "%d iterations; RMSE from mf-predict on the held-out file. Both start from random "
           "factors; neither is tuned to this data beyond its defaults. Peak RSS: the whole "
           "process's largest resident set (wait4's ru_maxrss), reading the ratings included (ptm "
           "also reads the held-out file, LIBMF's mf-train does not); Linux counts in it the "
           "forking Python's own, %.0f MB here, a floor below which the figure says nothing. "
           "Load average when it started: %s on %d cores (a shared machine: medians)." % (
               os.environ.get("PTM_LIBMF_VERSION", ""), it, RUNS, it, it - 1,
               resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, load, os.cpu_count()),
           "", "| system | rank | threads | held-out RMSE (median) | M rating updates/s (median) "
           "| peak RSS (MB, median) | runs (s) |", "|---|---|---|---|---|---|---|"]
    for k in (16, 64):
        for threads in (1, 2):
            secs = {n: [] for n, _, _ in systems}
            rmse = {n: [] for n, _, _ in systems}
            rss = {n: [] for n, _, _ in systems}
            for _ in range(RUNS):
                t1 = libmf(k, threads, None, 1)
                for name, kind, opt in systems:
                    if kind == "ptm":
                        r = p.run(ptm_job(k, opt), threads)
                        if r["rc"] != 0:
                            raise SystemExit("peers: ptm failed: %s" % r["error"])
                        secs[name].append(r["points"][-1][3])
                        rmse[name].append(r["points"][-1][2])
                        rss[name].append(r["rss"])
                    else:
                        secs[name].append(libmf(k, threads, opt, it, rss[name]) - t1)
                        rmse[name].append(libmf_rmse())
            for name, kind, _ in systems:
                m = med(secs[name])
                upd = (it if kind == "ptm" else it - 1) * ntrain / m / 1e6 if m > 0 else float("nan")
                md.append("| %s | %d | %d | %.4f | %.1f | %.0f | %s |" % (
                    name, k, threads, med(rmse[name]), upd, med(rss[name]), fmt_runs(secs[name])))
            log("mf: LIBMF, rank %d, %d thread(s) done" % (k, threads))
    md.append("")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit("usage: peers.py PTM SVG_DIR [--quick] [--only=lasso,logreg,logreg_hard,logreg_l1,"
                 "logreg_l1_hard,lda,mf]")
    quick = "--quick" in sys.argv
    only = None
    for a in sys.argv:
        if a.startswith("--only="):
            only = set(a.split("=", 1)[1].split(","))
    cfgs = QUICK if quick else FULL
    tmp = tempfile.mkdtemp(prefix="ptm-peers.")
    p = Ptm(os.path.abspath(args[0]), tmp)
    md = []
    t0 = time.time()
    load = open("/proc/loadavg").read().split()[0]
    try:
        for name, fn in (("lasso", lasso), ("logreg", logreg), ("logreg_hard", logreg),
                         ("logreg_l1", logreg_l1), ("logreg_l1_hard", logreg_l1), ("lda", lda),
                         ("mf", mf)):
            if only is None or name in only:
                fn(p, cfgs[name], args[1], md)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = time.time() - t0
    head = ["## Peers", "",
            "Written by bench/peers.sh (`make bench-peers`, and the last step of `make bench`): ptm "
            "beside the peers Debian packages, each run on the same file `ptm gen` wrote. ptm runs "
            "with 2 workers (threads), the peers as they run by default: their solvers are "
            "single-threaded (numpy's BLAS, under scikit-learn and gensim, may use both cores). The whole "
            "section took %.1f minutes%s. Method: bench/peers/peers.py's header; in short, time to a "
            "target objective, each system from zero, reading the files left out, the target "
            "found by a curve run (ptm) or a ladder of tolerances (peers) and then timed in %d "
            "rounds of all systems back to back. Load average when it started: %s on %d cores (a "
            "shared machine; timings vary by up to 2x between runs)." % (
                total / 60, " (quick mode: small data)" if quick else "", RUNS, load,
                os.cpu_count()), ""]
    print("\n".join(head + md))
    log("peers: %.0f s" % total)


if __name__ == "__main__":
    main()
