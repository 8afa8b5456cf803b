"""The attention-over-time chart as a standalone SVG file: plain SVG elements, no library, no network.

Written by hand because the picture is a few polylines, two threshold lines and a legend: a plotting
library would add a dependency (and a font cache) for what fits in this module.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .stats import Chart

WIDTH, HEIGHT = 1000, 460
LEFT, RIGHT, TOP, BOTTOM = 60, 330, 40, 50  # margins: the legend sits on the right
PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f")


def render(chart: Chart) -> str:
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    first, last = chart.turns[0], chart.turns[-1]
    span = max(1, last - first)

    def x(turn: int) -> float:
        return LEFT + (turn - first) / span * plot_w

    def y(score: float) -> float:
        return TOP + (1.0 - score) * plot_h

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{LEFT}" y="24" font-size="15">{escape(f"File attention over time: session {chart.session}")}'
             "</text>",
             f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
             'stroke="black"/>',
             f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<text x="{LEFT - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.2f}</text>')
    step = max(1, round(span / 10))
    for turn in range(first, last + 1, step):
        parts.append(f'<text x="{x(turn):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{turn}</text>')
    parts.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle">turn</text>')
    for name, level, colour in (("HOT", chart.hot, "#b22222"), ("WARM", chart.warm, "#daa520")):
        parts.append(f'<line class="threshold" data-tier="{name}" x1="{LEFT}" y1="{y(level):.1f}" '
                     f'x2="{LEFT + plot_w}" y2="{y(level):.1f}" stroke="{colour}" stroke-dasharray="6 4"/>')
        parts.append(f'<text x="{LEFT + plot_w - 4}" y="{y(level) - 5:.1f}" fill="{colour}" text-anchor="end">'
                     f"{name} {level:.2f}</text>")
    for i, series in enumerate(chart.series):
        colour = PALETTE[i % len(PALETTE)]
        points = " ".join(f"{x(t):.1f},{y(s):.1f}" for t, s in zip(chart.turns, series.scores, strict=True))
        parts.append(f'<polyline class="doc" data-path={quoteattr(series.path)} fill="none" stroke="{colour}" '
                     f'stroke-width="2" points="{points}"/>')
        ly = TOP + 20 + i * 18
        parts.append(f'<line x1="{LEFT + plot_w + 20}" y1="{ly - 4}" x2="{LEFT + plot_w + 40}" y2="{ly - 4}" '
                     f'stroke="{colour}" stroke-width="3"/>')
        parts.append(f'<text x="{LEFT + plot_w + 46}" y="{ly}">{escape(series.path)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
