#!/usr/bin/env python3
"""mf_cpu.py - mf_sgd against LIBMF in CPU seconds, for a machine that other
work shares (where wall seconds drift by tens of per cent).

Usage: mf_cpu.py PTM DATA_DIR RANK THREADS RUNS [PTM_OTHER]

DATA_DIR is what `ptm gen mf` wrote (ratings.mtx, info.tsv); PTM_LIBMF names
the directory of LIBMF's mf-train (github.com/cjlin1/libmf, not a Debian
package): without it the script prints a SKIP line. Each run times, back to
back and in turn, every system twice: 20 sweeps (iterations) and 1, on
THREADS workers (threads); the difference, 19 sweeps' work without reading
and set-up, in the process's CPU seconds (user + system, from wait4) and in
wall seconds. ptm runs examples/mf/mf.ptm at RANK with its own update
(`mf_sgd`, adaptive steps), LIBMF its defaults (`-k RANK`). PTM_OTHER, when
given, is a second ptm binary timed in the same turns (a build before a
change). Prints each run and the medians of million ratings per CPU second
and per wall second, and the medians of the ratios ptm / LIBMF within a run.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("mf_cpu: %s failed: %s" % (" ".join(cmd), err[-500:]))
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t0


def main():
    if len(sys.argv) not in (6, 7):
        raise SystemExit(__doc__)
    ptm, ddir, rank, threads, runs = sys.argv[1:6]
    rank, threads, runs = int(rank), int(threads), int(runs)
    bindir = os.environ.get("PTM_LIBMF")
    if not bindir or not os.access(os.path.join(bindir, "mf-train"), os.X_OK):
        print("mf_cpu: SKIP (set PTM_LIBMF to the directory of LIBMF's mf-train)")
        return
    info = dict(l.split("\t") for l in open(os.path.join(ddir, "info.tsv")).read().splitlines())
    ntrain = int(info["train"])
    tmp = tempfile.mkdtemp(prefix="ptm-mf-cpu.")
    train = os.path.join(tmp, "libmf.tr")
    peers.mm_to_libmf(os.path.join(ddir, "ratings.mtx"), train)

    def job(sweeps):
        t = peers.example("mf")
        t = peers.sub1(r'"data/ratings\.mtx"', '"%s"' % os.path.join(ddir, "ratings.mtx"), t)
        t = peers.sub1(r'"data/test\.mtx"', '"%s"' % os.path.join(ddir, "test.mtx"), t)
        t = peers.sub1(r"every 1 sweeps", "every %d sweeps" % sweeps, t)
        t = peers.sub1(r"^const rank = .*$", "const rank = %d" % rank, t, peers.re.M)
        t = peers.sub1(r"^stop when .*$", "stop when sweeps >= %d" % sweeps, t, peers.re.M)
        t = peers.sub1(r'"W\.tsv"', '"%s"' % os.path.join(tmp, "W.tsv"), t)
        t = peers.sub1(r'"H\.tsv"', '"%s"' % os.path.join(tmp, "H.tsv"), t)
        path = os.path.join(tmp, "mf%d.ptm" % sweeps)
        with open(path, "w") as f:
            f.write(t)
        return path

    jobs = {s: job(s) for s in (20, 1)}
    systems = [("ptm", lambda s: [ptm, "run", "--quiet", "--workers", str(threads), jobs[s]])]
    if len(sys.argv) == 7:
        other = sys.argv[6]
        systems.append(("ptm (other)",
                        lambda s: [other, "run", "--quiet", "--workers", str(threads), jobs[s]]))
    systems.append(("LIBMF", lambda s: [os.path.join(bindir, "mf-train"), "-k", str(rank), "-t",
                                        str(s), "-s", str(threads), "--quiet", train,
                                        os.path.join(tmp, "model")]))
    res = {n: [] for n, _ in systems}
    print("rank %d, %d thread(s), %d ratings, load %s at the start" % (
        rank, threads, ntrain, open("/proc/loadavg").read().split()[0]))
    for r in range(runs):
        for name, cmd in systems:
            c20, w20 = timed(cmd(20))
            c1, w1 = timed(cmd(1))
            res[name].append((19 * ntrain / (c20 - c1) / 1e6, 19 * ntrain / (w20 - w1) / 1e6))
        print("run %d: %s" % (r + 1, ", ".join("%s %.1f M/CPU-s %.1f M/s" % (n, *res[n][-1])
                                                 for n, _ in systems)), flush=True)
    for name, _ in systems:
        print("%s: median %.1f M ratings a CPU second, %.1f a wall second" % (
            name, statistics.median(x[0] for x in res[name]),
            statistics.median(x[1] for x in res[name])))
    for name, _ in systems[:-1]:
        cpu = [a[0] / b[0] for a, b in zip(res[name], res["LIBMF"])]
        wall = [a[1] / b[1] for a, b in zip(res[name], res["LIBMF"])]
        print("%s / LIBMF: CPU %s (median %.2f), wall %s (median %.2f)" % (
            name, " ".join("%.2f" % x for x in cpu), statistics.median(cpu),
            " ".join("%.2f" % x for x in wall), statistics.median(wall)))
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
