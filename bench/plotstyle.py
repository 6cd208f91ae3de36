"""plotstyle.py - one look for every chart of bench/ (sched_bench_plot.py
draws them): a colour a tool or schedule, the same in every chart, and line
dashes and marker shapes for the variants of one (block counts, workers, step
rules), so that lines which lie on each other can still be told apart.

A series is styled by a key (a tool, schedule or consistency: the keys of
COLOURS) and a variant number (0, 1, 2...): the key gives the colour, the
variant the dash and the marker. The standard library only.
"""

# Colour a key: Okabe-Ito's colour-blind-safe eight first, then darker tones.
# Keys that share a chart have distinct colours.
COLOURS = {
    # ptm's schedules (Lasso)
    "round_robin": "#0072b2",          # blue
    "random": "#d55e00",               # vermillion
    "dynamic": "#009e73",              # green
    "dynamic active": "#cc79a7",       # reddish purple
    "round_robin seq": "#e69f00",      # orange
    "dynamic active seq": "#5d3a9b",   # dark purple (the Lasso example's schedule)
    "dynamic active moved": "#882255", # wine (the dependency filtered after the update)
    "random seq": "#999933",           # olive green
    "dynamic active seq order": "#44aa99", # teal (the first pass by an order)
    "dynamic active order": "#aa4499",     # purple
    "dynamic active moved order": "#ddcc77", # sand
    # ptm's other methods
    "sgd": "#56b4e9",                  # sky blue
    "svrg": "#b8860b",                 # dark gold
    "tron": "#332288",                 # indigo
    "rotation": "#117733",             # dark green (LDA and MF)
    # the peers
    "scikit-learn": "#000000",         # black
    "glmnet": "#8c564b",               # brown
    "liblinear": "#6a8f00",            # olive
    "gensim": "#d62728",               # red
    # consistency (the SSP charts, where no schedule or peer is drawn)
    "bsp": "#0072b2",
    "ssp 1": "#d55e00",
    "ssp 2": "#009e73",
    "ssp 4": "#cc79a7",
    "async": "#e69f00",
}
FALLBACK = "#555555"

# Dash patterns (SVG stroke-dasharray) and marker shapes, by variant.
DASHES = ["", "7,3", "2,3", "9,3,2,3", "4,4", "12,4"]
MARKERS = ["circle", "square", "triangle", "diamond", "down", "cross"]


class Style:
    """How one series is drawn: colour, dash pattern ("" solid), marker."""

    def __init__(self, colour, dash="", marker="circle", width=1.8):
        self.colour, self.dash, self.marker, self.width = colour, dash, marker, width


def style(key, variant=0):
    """The style of the variant-th series of key (a tool or schedule)."""
    return Style(COLOURS.get(key, FALLBACK), DASHES[variant % len(DASHES)],
                 MARKERS[variant % len(MARKERS)])


def nth(k):
    """A style for the k-th of series that have no key: distinct colours
    first, then dashes."""
    colours = list(dict.fromkeys(COLOURS.values()))
    return Style(colours[k % len(colours)], DASHES[(k // len(colours)) % len(DASHES)],
                 MARKERS[k % len(MARKERS)])


def marker_svg(shape, x, y, colour, r=3.6):
    """An SVG marker of the given shape centred on (x, y), outlined in white
    so that marks on a line of the same colour stand out."""
    edge = 'stroke="white" stroke-width="0.8"'
    if shape == "square":
        return ('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" %s/>'
                % (x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7, colour, edge))
    if shape in ("triangle", "down"):
        s = -1 if shape == "triangle" else 1
        return ('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z" fill="%s" %s/>'
                % (x, y + s * r * 1.15, x - r * 1.1, y - s * r * 0.75, x + r * 1.1,
                   y - s * r * 0.75, colour, edge))
    if shape == "diamond":
        return ('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z" fill="%s" %s/>'
                % (x, y - r * 1.25, x + r, y, x, y + r * 1.25, x - r, y, colour, edge))
    if shape == "cross":
        return ('<path d="M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f" stroke="%s" '
                'stroke-width="2"/>' % (x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r,
                                        colour))
    return '<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" %s/>' % (x, y, r * 0.9, colour, edge)
