"""A small SVG line/point chart writer (no plotting library needed): several series, linear or log y, a legend."""
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


def chart(path, title, xlabel, ylabel, series, logy=False, width=720, height=420, vlines=()):
    """series: [{"name", "x": [...], "y": [...], "points": bool, "dash": bool}]. vlines: [(x, label)]."""
    L, R, T, B = 70, 190, 40, 50
    pw, ph = width - L - R, height - T - B
    xs = [x for s in series for x, y in zip(s["x"], s["y"]) if y is not None and math.isfinite(y)]
    ys = [y for s in series for y in s["y"] if y is not None and math.isfinite(y) and (y > 0 or not logy)]
    if not xs or not ys:
        raise ValueError(f"{path}: nothing to plot")
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
    fx = lambda x: L + (x - x0) / (x1 - x0) * pw
    fy = lambda y: T + (1 - ((math.log10(y) if logy else y) - y0) / (y1 - y0)) * ph
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
         f'font-size="12">', f'<rect width="{width}" height="{height}" fill="white"/>',
         f'<text x="{L + pw / 2}" y="22" text-anchor="middle" font-size="14">{_esc(title)}</text>',
         f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>']
    for t in _ticks(x0, x1):
        o.append(f'<line x1="{fx(t):.1f}" y1="{T + ph}" x2="{fx(t):.1f}" y2="{T + ph + 5}" stroke="#333"/>')
        o.append(f'<text x="{fx(t):.1f}" y="{T + ph + 18}" text-anchor="middle">{_fmt(t)}</text>')
    if logy:
        yt = [10 ** e for e in range(math.floor(y0), math.ceil(y1) + 1) if y0 <= e <= y1]
        if len(yt) < 2:
            yt = [10 ** v for v in _ticks(y0, y1)]
    else:
        yt = _ticks(y0, y1)
    for t in yt:
        o.append(f'<line x1="{L - 5}" y1="{fy(t):.1f}" x2="{L + pw}" y2="{fy(t):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 8}" y="{fy(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for xv, label in vlines:
        o.append(f'<line x1="{fx(xv):.1f}" y1="{T}" x2="{fx(xv):.1f}" y2="{T + ph}" stroke="#888" '
                 f'stroke-dasharray="4,3"/>')
        o.append(f'<text x="{fx(xv) + 3:.1f}" y="{T + 12}" fill="#555">{_esc(label)}</text>')
    o.append(f'<text x="{L + pw / 2}" y="{height - 10}" text-anchor="middle">{_esc(xlabel)}</text>')
    o.append(f'<text x="16" y="{T + ph / 2}" text-anchor="middle" transform="rotate(-90 16 {T + ph / 2})">'
             f'{_esc(ylabel)}</text>')
    for k, s in enumerate(series):
        c = s.get("color", COLORS[k % len(COLORS)])
        pts = [(fx(x), fy(y)) for x, y in zip(s["x"], s["y"])
               if y is not None and math.isfinite(y) and (y > 0 or not logy)]
        if s.get("points"):
            o += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2" fill="{c}"/>' for a, b in pts]
        elif pts:
            dash = ' stroke-dasharray="6,4"' if s.get("dash") else ""
            d = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            o.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="1.6"{dash}/>')
        ly = T + 14 + 18 * k
        o.append(f'<line x1="{L + pw + 12}" y1="{ly - 4}" x2="{L + pw + 32}" y2="{ly - 4}" stroke="{c}" '
                 f'stroke-width="3"/>')
        o.append(f'<text x="{L + pw + 38}" y="{ly}">{_esc(s["name"])}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
