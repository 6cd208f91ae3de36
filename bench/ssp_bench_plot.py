#!/usr/bin/env python3
"""ssp_bench_plot.py - the charts of bench/ssp_bench.sh: for each case,
the logistic loss above the case's best against wall seconds, on a log
scale, one line per consistency (BSP, SSP s = 1, 2, 4, async), the target
dashed. Each line is the run with the median time to the target (the
first run when none reached it); a consistency keeps its colour, dash and
marker (bench/plotstyle.py) in every chart. Self-contained SVG drawn by
bench/sched_bench_plot.py; the standard library only.

Usage: ssp_bench_plot.py POINTS TARGETS RUNS SVG_DIR SUBTITLE
  POINTS   case, s, run, clocks, seconds, loss (tab-separated, one line per
           evaluation)
  TARGETS  case, best loss, target loss
  RUNS     case, s, run, seconds to target (NA: not reached), ...
Writes SVG_DIR/ssp_bench_CASE.svg; prints what it wrote to stdout.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotstyle  # noqa: E402
import sched_bench_plot  # noqa: E402

GAP_MIN, GAP_MAX = 1e-5, 1.0
ORDER = ["0", "1", "2", "4", "async"]
TITLES = {
    "none": "no straggler",
    "persistent": "worker 2 sleeps at every clock",
    "one": "worker 2 sleeps at half of its clocks",
    "transient": "each worker sleeps at half of its clocks",
}


def label(s):
    return {"0": "BSP (s = 0)", "async": "async"}.get(s, "SSP s = %s" % s)


def read(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def main():
    points, targets, runs, svgdir, subtitle = sys.argv[1:6]
    best = {c: (float(b), float(t)) for c, b, t in read(targets)}
    pts = {}
    for c, s, r, _clocks, sec, f in read(points):
        pts.setdefault((c, s, r), []).append((float(sec), float(f)))
    hit = {}
    for row in read(runs):
        c, s, r, t = row[:4]
        hit.setdefault((c, s), []).append((math.inf if t == "NA" else float(t), r))
    for c in sorted(best):
        b, target = best[c]
        series = []
        for s in ORDER:
            times = sorted(hit.get((c, s), []))
            if not times:
                continue
            t, r = times[len(times) // 2]
            note = "(%.2f s to target)" % t if math.isfinite(t) else "(not reached)"
            key = {"0": "bsp", "async": "async"}.get(s, "ssp " + s)
            series.append((label(s), [(x, f - b) for x, f in pts[(c, s, r)]], note,
                           plotstyle.style(key, ORDER.index(s))))
        path = os.path.join(svgdir, "ssp_bench_%s.svg" % c)
        sched_bench_plot.plot(path, "SSP against BSP: %s" % TITLES.get(c, c), "wall-clock seconds",
                              series, ylabel="logistic loss - best loss", gap_min=GAP_MIN,
                              gap_max=GAP_MAX, dots=True, subtitle=subtitle, target=target - b,
                              width=860, right=290, top=56)
        print("wrote %s" % path)


if __name__ == "__main__":
    main()
