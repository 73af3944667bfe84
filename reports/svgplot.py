"""The SVG writer of every Python report (ci/apps' case studies, ci/perf-report's plots): a document, text, and a
line/point chart of several series on linear or log axes with a legend. Plain SVG text, no plotting library, so
that the reports need nothing the machine lacks; one writer, so that every report's plots look and escape alike."""
import math

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"]


def _ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + 1e-12 * abs(hi):
        out.append(t)
        t += step
    return out


def _fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-3:
        return f"{v:.1e}"
    return f"{v:.4g}"


def esc(s):
    """Text for an SVG element or attribute: &, < and > escaped."""
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(x, y, s, size=11, anchor="start", colour="#222"):
    """One <text> element at (x, y)."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
            f'font-family="sans-serif">{esc(s)}</text>')


def document(width, height, body):
    """An SVG document of the given size on a white ground, holding the elements in `body`."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def plottable(series, logx=False, logy=False):
    """True when some point of the series can be drawn (finite, and positive on a log axis)."""
    return any(_keep(x, y, logx, logy) for s in series for x, y in zip(s["x"], s["y"]))


def _keep(x, y, logx, logy):
    return (y is not None and math.isfinite(y) and (y > 0 or not logy)
            and x is not None and math.isfinite(x) and (x > 0 or not logx))


def chart(path, title, xlabel, ylabel, series, logy=False, width=720, height=420, vlines=(), logx=False):
    """Writes chart_svg(...) to `path`."""
    svg = chart_svg(title, xlabel, ylabel, series, logy, width, height, vlines, logx, where=path)
    with open(path, "w") as f:
        f.write(svg)


def chart_svg(title, xlabel, ylabel, series, logy=False, width=720, height=420, vlines=(), logx=False, where="chart"):
    """series: [{"name", "x": [...], "y": [...], "points": bool (points only), "markers": bool (a line and its
    points), "dash": bool, "color"}]. vlines: [(x, label)]. The chart grows taller when the legend needs it.
    A ValueError (naming `where`) when no point can be drawn."""
    L, R, T, B = 70, 190, 40, 50
    height = max(height, T + 18 * len(series) + 10)
    pw, ph = width - L - R, height - T - B
    xs = [x for s in series for x, y in zip(s["x"], s["y"]) if _keep(x, y, logx, logy)]
    ys = [y for s in series for x, y in zip(s["x"], s["y"]) if _keep(x, y, logx, logy)]
    if not xs or not ys:
        raise ValueError(f"{where}: nothing to plot")
    if logx:
        x0, x1 = math.log10(min(xs)), math.log10(max(xs))
        if x1 - x0 < 1e-9:
            x0, x1 = x0 - 0.5, x1 + 0.5
    else:
        x0, x1 = min(xs), max(xs)
        if x1 == x0:
            x1 = x0 + 1
    if logy:
        y0, y1 = math.log10(min(ys)), math.log10(max(ys))
        if y1 - y0 < 1e-9:
            y0, y1 = y0 - 0.5, y1 + 0.5
    else:
        y0, y1 = min(ys), max(ys)
        pad = 0.05 * (y1 - y0 or 1)
        y0, y1 = y0 - pad, y1 + pad
    fx = lambda x: L + ((math.log10(x) if logx else x) - x0) / (x1 - x0) * pw
    fy = lambda y: T + (1 - ((math.log10(y) if logy else y) - y0) / (y1 - y0)) * ph
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
         f'font-size="12">', f'<rect width="{width}" height="{height}" fill="white"/>',
         f'<text x="{L + pw / 2}" y="22" text-anchor="middle" font-size="14">{esc(title)}</text>',
         f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>']
    for t in (_log_ticks(x0, x1) if logx else _ticks(x0, x1)):
        o.append(f'<line x1="{fx(t):.1f}" y1="{T + ph}" x2="{fx(t):.1f}" y2="{T + ph + 5}" stroke="#333"/>')
        o.append(f'<text x="{fx(t):.1f}" y="{T + ph + 18}" text-anchor="middle">{_fmt(t)}</text>')
    for t in (_log_ticks(y0, y1) if logy else _ticks(y0, y1)):
        o.append(f'<line x1="{L - 5}" y1="{fy(t):.1f}" x2="{L + pw}" y2="{fy(t):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 8}" y="{fy(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for xv, label in vlines:
        o.append(f'<line x1="{fx(xv):.1f}" y1="{T}" x2="{fx(xv):.1f}" y2="{T + ph}" stroke="#888" '
                 f'stroke-dasharray="4,3"/>')
        o.append(f'<text x="{fx(xv) + 3:.1f}" y="{T + 12}" fill="#555">{esc(label)}</text>')
    o.append(f'<text x="{L + pw / 2}" y="{height - 10}" text-anchor="middle">{esc(xlabel)}</text>')
    o.append(f'<text x="16" y="{T + ph / 2}" text-anchor="middle" transform="rotate(-90 16 {T + ph / 2})">'
             f'{esc(ylabel)}</text>')
    for k, s in enumerate(series):
        c = s.get("color", COLORS[k % len(COLORS)])
        pts = [(fx(x), fy(y)) for x, y in zip(s["x"], s["y"]) if _keep(x, y, logx, logy)]
        if s.get("points"):
            o += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2" fill="{c}"/>' for a, b in pts]
        elif pts:
            dash = ' stroke-dasharray="6,4"' if s.get("dash") else ""
            d = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            o.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="1.6"{dash}/>')
            if s.get("markers"):
                o += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.5" fill="{c}"/>' for a, b in pts]
        ly = T + 14 + 18 * k
        o.append(f'<line x1="{L + pw + 12}" y1="{ly - 4}" x2="{L + pw + 32}" y2="{ly - 4}" stroke="{c}" '
                 f'stroke-width="3"/>')
        o.append(f'<text x="{L + pw + 38}" y="{ly}">{esc(s["name"])}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def _log_ticks(lo, hi):
    """Ticks of a log axis spanning 10^lo .. 10^hi: the decades, else five spread evenly."""
    t = [10 ** e for e in range(math.floor(lo), math.ceil(hi) + 1) if lo <= e <= hi]
    return t if len(t) >= 2 else [10 ** v for v in _ticks(lo, hi)]
