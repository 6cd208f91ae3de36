#!/usr/bin/env python3
"""sched_bench_plot.py - line charts as self-contained SVG for every bench
chart (bench/sched_bench.py, bench/ssp_bench_plot.py, bench/peers/peers.py):
a figure on a log scale (by default the relative gap to the optimum) against
coordinate updates or seconds, a line per schedule or tool, styled by
bench/plotstyle.py (a colour a tool or schedule, the same in every chart; a
dash and a marker a variant). No dependencies beyond the standard library.
"""
import math
import os
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotstyle  # noqa: E402

# markers along a line, spread over its points, each series' shifted a little
# so that the marks of lines lying on each other do not cover each other
MARKS_PER_LINE = 7
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
         target=None, width=W, right=RIGHT, top=TOP, xlog=False):
    """series: list of (name, [(x, gap)], note) or (name, [(x, gap)], note,
    style) with gap = (f - f*) / f* (or any positive figure named by ylabel,
    on a log scale from gap_min to gap_max) and style a plotstyle.Style
    (without one, the k-th series gets plotstyle.nth(k)); note (or
    None) is printed after the name in the legend. A gap above the chart is
    drawn on its top edge; a line ends where it first goes below the chart,
    on its bottom edge. dots: True, or the names of the series whose every
    point is marked (series of separate runs, one point each); the others
    get a few marks along the line; no_lines: the names of series drawn as
    marks alone. subtitle: lines ("\n") under the title; target: a gap drawn
    dashed and named "target"; width, right, top: the picture's width and
    its right and top margins. The picture grows downwards when the legend
    needs it. xlog: x on a log scale too (from the decade below the least
    positive x; an x of 0 is drawn on the left edge), for times that span
    decades."""
    series = [tuple(sr) if len(sr) == 4 else tuple(sr) + (plotstyle.nth(k),)
              for k, sr in enumerate(series)]
    series = [(name, pts if name in no_lines else clip(pts, gap_min), note, st)
              for name, pts, note, st in series]
    xmax = max((x for _, pts, _, _ in series for x, _ in pts), default=1) or 1
    if xlog:
        xpos = [x for _, pts, _, _ in series for x, _ in pts if x > 0] or [1]
        x0, x1 = math.floor(math.log10(min(xpos))), math.ceil(math.log10(max(xpos)))
        x1 = max(x1, x0 + 1)
        xt = [10.0 ** e for e in range(x0, x1 + 1)]
        if x1 - x0 <= 2:
            xt = sorted(xt + [m * 10.0 ** e for e in range(x0, x1) for m in (2, 5)])
        xmin, xmax = 10.0 ** x0, 10.0 ** x1
    else:
        xt = nice_ticks(xmax)
        xmax = xt[-1] if xt[-1] > 0 else 1
    ylo, yhi = math.log10(gap_min), math.log10(gap_max)
    # the legend's labels fit: the right margin grows, and the picture with it
    longest = max((len(name) + (len(note) + 1 if note else 0) for name, _, note, _ in series),
                  default=0)
    need = 34 + 12 + (40 if target is not None else 0) + int(6.9 * longest) + 8
    if need > right:
        width, right = width + need - right, need
    subs = subtitle.split("\n") if subtitle else []
    top = max(top, 46 + 16 * len(subs))
    height = max(H, top + 14 + 20 * len(series) + 12)
    pw, ph = width - LEFT - right, height - top - BOTTOM

    def sx(x):
        if xlog:
            x = min(max(x, xmin), xmax)
            return LEFT + pw * math.log10(x / xmin) / math.log10(xmax / xmin)
        return LEFT + pw * x / xmax

    def sy(g):
        g = min(max(g, gap_min), gap_max)
        return top + ph * (yhi - math.log10(g)) / (yhi - ylo)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
           % (width, height, width, height),
           '<rect width="%d" height="%d" fill="white"/>' % (width, height),
           '<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>'
           % (LEFT, escape(title))]
    for i, line in enumerate(subs):
        out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (LEFT, 42 + 16 * i, escape(line)))
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
               % (LEFT + pw // 2, height - 14, escape(xlabel)))
    out.append('<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">'
               '%s</text>' % (top + ph // 2, escape(ylabel)))
    legend = LEFT + pw + 12
    if target is not None:
        y = sy(target)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333" '
                   'stroke-dasharray="5,4"/>' % (LEFT, y, LEFT + pw, y))
        out.append('<text x="%d" y="%.1f" dy="4" fill="#333">target</text>' % (LEFT + pw + 6, y))
        legend += 40
    marks = []  # drawn after every line, so that no line hides them
    for k, (name, pts, note, st) in enumerate(series):
        dash = ' stroke-dasharray="%s"' % st.dash if st.dash else ""
        if pts:
            d = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", sx(x), sy(g))
                         for i, (x, g) in enumerate(pts))
            if name not in no_lines:
                out.append('<path d="%s" fill="none" stroke="%s" stroke-width="%.1f"%s/>'
                           % (d, st.colour, st.width, dash))
            every = dots is True or (dots and name in dots) or name in no_lines
            for i in (range(len(pts)) if every else spread(len(pts), k)):
                marks.append(plotstyle.marker_svg(st.marker, sx(pts[i][0]), sy(pts[i][1]),
                                                  st.colour))
        ly = top + 14 + 20 * k
        if name not in no_lines:
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.2"%s/>'
                       % (legend, ly, legend + 28, ly, st.colour, dash))
        out.append(plotstyle.marker_svg(st.marker, legend + 14, ly, st.colour))
        out.append('<text x="%d" y="%d" dy="4">%s</text>'
                   % (legend + 34, ly, escape(name + (" " + note if note else ""))))
    out.extend(marks)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def clip(pts, gap_min):
    """The points up to the first one below gap_min (a line that leaves the
    chart at the bottom ends there, rather than running along its edge)."""
    for i, (_, g) in enumerate(pts):
        if g < gap_min:
            return pts[:i + 1]
    return pts


def spread(n, k):
    """Indexes of about MARKS_PER_LINE points of a line of n, the last one
    included, shifted by the series number k."""
    if n <= MARKS_PER_LINE:
        return range(n)
    shift = (k % 5) / 5.0
    idx = {min(n - 1, int(round((j + shift) * (n - 1) / MARKS_PER_LINE)))
           for j in range(MARKS_PER_LINE)}
    idx.add(n - 1)
    return sorted(idx)
