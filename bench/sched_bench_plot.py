#!/usr/bin/env python3
"""sched_bench_plot.py - line charts as self-contained SVG, for the scheduler
benchmark (bench/sched_bench.py): the relative gap to the optimum, on a log
scale, against coordinate updates or seconds, one line per policy. No
dependencies beyond the standard library.
"""
import math
from xml.sax.saxutils import escape

COLORS = ["#1b6ac9", "#d1462f", "#2e9e44", "#8a4fb8", "#c98a00", "#555555",
          "#17a2b8", "#e377c2", "#8c564b", "#9acd32", "#000080", "#ff7f0e",
          "#bcbd22", "#7f7f7f"]
W, H = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 78, 210, 46, 58
GAP_MIN, GAP_MAX = 1e-10, 1e2


def nice_ticks(hi, n=6):
    """About n round ticks from 0 to at least hi."""
    if hi <= 0:
        return [0, 1]
    raw = hi / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    ticks = [0.0]
    while ticks[-1] < hi * 0.9999:
        ticks.append(ticks[-1] + step)
    return ticks


def fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e6:
        return "%gM" % (v / 1e6)
    if abs(v) >= 1e3:
        return "%gk" % (v / 1e3)
    return "%g" % v


def plot(path, title, xlabel, series, ylabel="(objective - optimum) / optimum",
         gap_min=GAP_MIN, gap_max=GAP_MAX, dots=False, no_lines=(), subtitle=None,
         target=None, width=W, right=RIGHT, top=TOP):
    """series: list of (name, [(x, gap)], note) with gap = (f - f*) / f*
    (or any positive figure named by ylabel, on a log scale from gap_min to
    gap_max); note (or None) is printed after the name in the legend. Gaps
    beyond the chart are drawn on its edge. dots: True, or the names of the
    series whose every point is marked (series of separate runs, one point
    each); no_lines: the names of series drawn as marks alone. subtitle: a
    line under the title; target: a gap drawn dashed and named "target";
    width, right, top: the picture's width and its right and top margins."""
    xmax = max((x for _, pts, _ in series for x, _ in pts), default=1) or 1
    xt = nice_ticks(xmax)
    xmax = xt[-1] if xt[-1] > 0 else 1
    ylo, yhi = math.log10(gap_min), math.log10(gap_max)
    pw, ph = width - LEFT - right, H - top - BOTTOM

    def sx(x):
        return LEFT + pw * x / xmax

    def sy(g):
        g = min(max(g, gap_min), gap_max)
        return top + ph * (yhi - math.log10(g)) / (yhi - ylo)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">' % (width, H, width, H),
           '<rect width="%d" height="%d" fill="white"/>' % (width, H),
           '<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>'
           % (LEFT, escape(title))]
    if subtitle:
        out.append('<text x="%d" y="42" fill="#555">%s</text>' % (LEFT, escape(subtitle)))
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
                   % (x, top, x, top + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, top + ph + 18, fmt(t)))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>'
               % (LEFT, top, pw, ph))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
               % (LEFT + pw // 2, H - 14, escape(xlabel)))
    out.append('<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">'
               '%s</text>' % (top + ph // 2, escape(ylabel)))
    legend = LEFT + pw + 12
    if target is not None:
        y = sy(target)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333" '
                   'stroke-dasharray="5,4"/>' % (LEFT, y, LEFT + pw, y))
        out.append('<text x="%d" y="%.1f" dy="4" fill="#333">target</text>' % (LEFT + pw + 6, y))
        legend += 40
    for k, (name, pts, note) in enumerate(series):
        color = COLORS[k % len(COLORS)]
        if pts:
            d = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", sx(x), sy(g))
                         for i, (x, g) in enumerate(pts))
            if name not in no_lines:
                out.append('<path d="%s" fill="none" stroke="%s" stroke-width="1.8"/>' % (d, color))
            if dots is True or (dots and name in dots) or name in no_lines:
                out.extend('<circle cx="%.1f" cy="%.1f" r="2.8" fill="%s"/>' % (sx(x), sy(g), color)
                           for x, g in pts)
        ly = top + 14 + 20 * k
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                   % (legend, ly, legend + 20, ly, color))
        out.append('<text x="%d" y="%d" dy="4">%s</text>'
                   % (legend + 26, ly, escape(name + (" " + note if note else ""))))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
