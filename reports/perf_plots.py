"""The SVG plots of a performance regression report: each benchmark's HEAD/BASE ratio with its interval, and
line charts (throughput against B, latency against recursion depth, the history of stored baselines).
Drawn with svgplot.py, the one SVG writer of the Python reports."""
import math

from svgplot import document as _svg, text as _text, chart_svg, plottable

COLOURS = {"regressed": "#c0392b", "improved": "#27ae60", "same": "#7f8c8d", "unknown": "#e67e22"}


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
    lines = []
    for label, pts in series.items():
        pts = sorted(p for p in pts if p[0] > 0 and p[1] > 0)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        lines.append({"name": label, "x": xs, "y": ys, "markers": True})
    if not plottable(lines, logx, logy):
        return _svg(400, 40, [_text(10, 25, f"{title}: no data")])
    return chart_svg(title, xlabel, ylabel, lines, logy=logy, logx=logx, where=title)
