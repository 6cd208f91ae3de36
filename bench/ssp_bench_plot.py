#!/usr/bin/env python3
"""ssp_bench_plot.py - the charts of bench/ssp_bench.sh: for each case,
the logistic loss above the case's best against wall seconds, on a log
scale, one line per consistency (BSP, SSP s = 1, 2, 4, async), the target
dashed. Each line is the run with the median time to the target (the
first run when none reached it). Self-contained SVG in the style of
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
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sched_bench_plot import COLORS, nice_ticks, fmt  # noqa: E402

W, H = 860, 440
LEFT, RIGHT, TOP, BOTTOM = 78, 290, 56, 58
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


def plot(path, title, subtitle, series, tol):
    """series: [(name, [(seconds, gap)], note)]; the target at gap tol."""
    xmax = max((x for _, pts, _ in series for x, _ in pts), default=1) or 1
    xt = nice_ticks(xmax)
    xmax = xt[-1] if xt[-1] > 0 else 1
    ylo, yhi = math.log10(GAP_MIN), math.log10(GAP_MAX)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def sx(x):
        return LEFT + pw * x / xmax

    def sy(g):
        g = min(max(g, GAP_MIN), GAP_MAX)
        return TOP + ph * (yhi - math.log10(g)) / (yhi - ylo)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">' % (W, H, W, H),
           '<rect width="%d" height="%d" fill="white"/>' % (W, H),
           '<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>'
           % (LEFT, escape(title)),
           '<text x="%d" y="42" fill="#555">%s</text>' % (LEFT, escape(subtitle))]
    # grid first, then axes, then lines
    for e in range(int(ylo), int(yhi) + 1):
        y = sy(10.0 ** e)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>'
                   % (LEFT, y, LEFT + pw, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end" dy="4">1e%d</text>'
                   % (LEFT - 6, y, e))
    for t in xt:
        x = sx(t)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>'
                   % (x, TOP, x, TOP + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, TOP + ph + 18, fmt(t)))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>'
               % (LEFT, TOP, pw, ph))
    out.append('<text x="%d" y="%d" text-anchor="middle">wall seconds</text>'
               % (LEFT + pw // 2, H - 14))
    out.append('<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">'
               'logistic loss - best loss</text>' % (TOP + ph // 2))
    y = sy(tol)
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333" '
               'stroke-dasharray="5,4"/>' % (LEFT, y, LEFT + pw, y))
    out.append('<text x="%d" y="%.1f" dy="4" fill="#333">target</text>' % (LEFT + pw + 6, y))
    for k, (name, pts, note) in enumerate(series):
        color = COLORS[k % len(COLORS)]
        if pts:
            d = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", sx(x), sy(g))
                         for i, (x, g) in enumerate(pts))
            out.append('<path d="%s" fill="none" stroke="%s" stroke-width="1.8"/>' % (d, color))
            for x, g in pts:
                out.append('<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s"/>' % (sx(x), sy(g), color))
        ly = TOP + 14 + 20 * k
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                   % (LEFT + pw + 52, ly, LEFT + pw + 72, ly, color))
        out.append('<text x="%d" y="%d" dy="4">%s</text>'
                   % (LEFT + pw + 78, ly, escape(name + (" " + note if note else ""))))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


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
            series.append((label(s), [(x, f - b) for x, f in pts[(c, s, r)]], note))
        path = os.path.join(svgdir, "ssp_bench_%s.svg" % c)
        plot(path, "SSP against BSP: %s" % TITLES.get(c, c), subtitle, series, target - b)
        print("wrote %s" % path)


if __name__ == "__main__":
    main()
