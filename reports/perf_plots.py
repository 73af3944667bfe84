"""The SVG plots of a performance regression report: each benchmark's HEAD/BASE ratio with its interval, and
line charts (throughput against B, latency against recursion depth, the history of stored baselines).
Plain SVG text, like ErrorHistogram.cpp's: no plotting library."""
import math
from xml.sax.saxutils import escape

COLOURS = {"regressed": "#c0392b", "improved": "#27ae60", "same": "#7f8c8d", "unknown": "#e67e22"}
SERIES = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def _text(x, y, s, size=11, anchor="start", colour="#222"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
            f'font-family="sans-serif">{escape(str(s))}</text>')


def _svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def ratio_plot(rows, floor):
    """One line per benchmark: the ratio (dot) and its 95% interval (bar) on a log axis; 1 and the floor marked."""
    if not rows:
        return _svg(400, 40, [_text(10, 25, "no benchmark compared")])
    finite = [v for r in rows for v in (r["low"], r["high"], r["ratio"]) if v and math.isfinite(v) and v > 0]
    lo = min(finite + [1 / (1 + floor)]) / 1.02
    hi = max(finite + [1 + floor]) * 1.02
    left, width, line = 330, 420, 18
    height = 50 + line * len(rows)

    def x(v):
        v = min(max(v, lo), hi) if v and v > 0 else lo
        return left + width * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))

    body = [_text(left + width / 2, 16, "HEAD / BASE time (log scale), 95% interval", 12, "middle")]
    for v, dash in ((1.0, ""), (1 + floor, "4,3"), (1 / (1 + floor), "4,3")):
        body.append(f'<line x1="{x(v):.1f}" y1="24" x2="{x(v):.1f}" y2="{height - 20}" stroke="#999" '
                    f'stroke-dasharray="{dash}"/>')
        body.append(_text(x(v), height - 6, f"{v:.3g}", 10, "middle", "#555"))
    for k, r in enumerate(rows):
        y = 34 + line * k
        c = COLOURS.get(r["verdict"], "#000")
        body.append(_text(left - 8, y + 4, r["name"], 10, "end"))
        body.append(f'<line x1="{x(r["low"]):.1f}" y1="{y}" x2="{x(r["high"]):.1f}" y2="{y}" stroke="{c}" '
                    f'stroke-width="2"/>')
        body.append(f'<circle cx="{x(r["ratio"]):.1f}" cy="{y}" r="3.5" fill="{c}"/>')
        body.append(_text(left + width + 8, y + 4, f'{r["ratio"]:.3f} {r["verdict"]}', 10, "start", c))
    return _svg(left + width + 130, height, body)


def line_plot(title, xlabel, ylabel, series, logx=True, logy=True):
    """series: {label: [(x, y), ...]}; each label a line with its points."""
    pts = [(px, py) for s in series.values() for px, py in s if px > 0 and py > 0]
    if not pts:
        return _svg(400, 40, [_text(10, 25, f"{title}: no data")])
    fx = math.log10 if logx else (lambda v: v)
    fy = math.log10 if logy else (lambda v: v)
    x0, x1 = min(fx(p[0]) for p in pts), max(fx(p[0]) for p in pts)
    y0, y1 = min(fy(p[1]) for p in pts), max(fy(p[1]) for p in pts)
    if x1 == x0:
        x0, x1 = x0 - 0.5, x1 + 0.5
    if y1 == y0:
        y0, y1 = y0 - 0.5, y1 + 0.5
    left, top, width, height = 70, 30, 460, 260

    def sx(v):
        return left + width * (fx(v) - x0) / (x1 - x0)

    def sy(v):
        return top + height - height * (fy(v) - y0) / (y1 - y0)

    body = [_text(left + width / 2, 18, title, 12, "middle"),
            f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" stroke="#999"/>',
            _text(left + width / 2, top + height + 34, xlabel, 11, "middle"),
            f'<text x="14" y="{top + height / 2:.1f}" font-size="11" font-family="sans-serif" text-anchor="middle" '
            f'transform="rotate(-90 14 {top + height / 2:.1f})">{escape(ylabel)}</text>']
    for k in range(5):  # axis ticks: five values spread evenly over each (log) range
        vx, vy = x0 + (x1 - x0) * k / 4, y0 + (y1 - y0) * k / 4
        tx, ty = (10 ** vx if logx else vx), (10 ** vy if logy else vy)
        body.append(_text(sx(tx), top + height + 16, f"{tx:.3g}", 10, "middle", "#555"))
        body.append(_text(left - 6, sy(ty) + 4, f"{ty:.3g}", 10, "end", "#555"))
    for k, (label, s) in enumerate(series.items()):
        c = SERIES[k % len(SERIES)]
        s = sorted(p for p in s if p[0] > 0 and p[1] > 0)
        if len(s) > 1:
            path = " ".join(f"{sx(px):.1f},{sy(py):.1f}" for px, py in s)
            body.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="1.5"/>')
        body += [f'<circle cx="{sx(px):.1f}" cy="{sy(py):.1f}" r="2.5" fill="{c}"/>' for px, py in s]
        body.append(_text(left + width + 12, top + 12 + 14 * k, label, 10, "start", c))
    return _svg(left + width + 260, max(top + height + 48, top + 24 + 14 * len(series)), body)
