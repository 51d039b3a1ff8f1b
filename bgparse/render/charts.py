"""Charts of the statistics as inline SVG, drawn with matplotlib: no script, no font file,
nothing fetched when the page opens, and vector output that prints sharply.

Every function takes a statistic's rows (dicts by column name) and returns the SVG text, or
None when the rows lack what the chart needs (a statistic whose columns changed still gets
its table). Text stays text in the SVG (`svg.fonttype: none`), so the page's own font draws
it and the file stays small.
"""

from __future__ import annotations

import io
import itertools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["bars", "heat_cells", "heatmap", "intervals", "timeline"]

Rows = Sequence[dict[str, Any]]

_INK = "#1d1d1f"
_ACCENT = "#1f5fbf"
_SECOND = "#c26a1d"
_FEW = "#d4d4d4"  # a heatmap cell with too few cases to paint
_ids = itertools.count(1)


@contextmanager
def _style() -> Iterator[None]:
    import matplotlib

    with matplotlib.rc_context(
        {
            "svg.fonttype": "none",
            # Ids from a fixed salt: the same statistics give the same file.
            "svg.hashsalt": "bgparse",
            "font.family": "sans-serif",
            "font.size": 9,
            "axes.edgecolor": "#888888",
            "axes.labelcolor": _INK,
            "xtick.color": _INK,
            "ytick.color": _INK,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        yield


def _figure(width: float, height: float) -> Any:
    # The object-oriented API, never pyplot: no global figure state, no GUI backend.
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(
        buf,
        format="svg",
        metadata={"Creator": None, "Date": None, "Format": None, "Type": None},
    )
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    # Several charts share one page: give each its own ids.
    prefix = f"c{next(_ids)}-"
    text = re.sub(r'id="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'xlink:href="#([^"]+)"', lambda m: f'xlink:href="#{prefix}{m.group(1)}"', text)
    return text.replace("<svg ", '<svg class="chart-svg" role="img" ', 1)


def _num(value: Any) -> float | None:
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _has(rows: Rows, *columns: str) -> bool:
    return bool(rows) and all(c in rows[0] for c in columns)


def intervals(
    rows: Rows,
    labels: Sequence[str],
    rate: str,
    lo: str,
    hi: str,
    *,
    xlabel: str,
    limit: int = 30,
    reference: float | None = None,
) -> str | None:
    """A rate per row with its interval as a horizontal error bar, one line per row (at most
    `limit`, in the statistic's order)."""
    if not _has(rows, *labels, rate, lo, hi):
        return None
    shown = [r for r in rows if _num(r[rate]) is not None][:limit]
    if not shown:
        return None
    names = [" ".join(str(r[c]) for c in labels if r[c] is not None) or "all" for r in shown]
    values = [_num(r[rate]) or 0.0 for r in shown]
    # Error bars are distances from the rate; a missing bound draws none on that side.
    los, his = [], []
    for v, r in zip(values, shown, strict=True):
        low, high = _num(r[lo]), _num(r[hi])
        los.append(max(v - low, 0.0) if low is not None else 0.0)
        his.append(max(high - v, 0.0) if high is not None else 0.0)
    with _style():
        fig = _figure(7.5, 0.8 + 0.26 * len(shown))
        ax = fig.add_subplot()
        y = list(range(len(shown)))
        ax.errorbar(
            values,
            y,
            xerr=[los, his],
            fmt="o",
            color=_ACCENT,
            ecolor="#7fa3d9",
            elinewidth=2,
            capsize=3,
            markersize=4,
        )
        if reference is not None:
            ax.axvline(reference, color="#999999", linestyle="--", linewidth=1)
        ax.set_yticks(y, names)
        ax.invert_yaxis()
        ax.set_xlim(-0.02, 1.02)  # markers at 0 and 1 stay whole
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", color="#e5e5e5")
        return _svg(fig)


def heat_cells(
    rows: Rows,
    x: str,
    y: str,
    value: str,
    *,
    count: Callable[[dict[str, Any]], int] | None = None,
    few: int = 0,
) -> tuple[dict[tuple[int, int], float], set[tuple[int, int]]]:
    """The cells a heatmap paints, by (y, x) from 1: every positive integer pair with a value,
    however far the away scores go; and those whose `count` (the rate's denominator) is under
    `few`, too few cases to paint a rate (one offer would paint a full 0% or 100%)."""
    cells: dict[tuple[int, int], float] = {}
    thin: set[tuple[int, int]] = set()
    for r in rows:
        xv, yv, v = r[x], r[y], _num(r[value])
        if isinstance(xv, int) and isinstance(yv, int) and xv >= 1 and yv >= 1:
            if count is not None and count(r) < few:
                thin.add((yv, xv))
            elif v is not None:
                cells[(yv, xv)] = v
    return cells, thin - set(cells)


def heatmap(
    rows: Rows,
    x: str,
    y: str,
    value: str,
    *,
    label: str,
    diverging: bool = False,
    count: Callable[[dict[str, Any]], int] | None = None,
    few: int = 0,
    few_label: str = "",
) -> str | None:
    """`value` on a grid of `y` (rows) by `x` (columns), both small integers such as away
    scores, up to the largest with data; cells without data stay blank, cells with fewer than
    `few` cases by `count` are grey, labelled `few_label` in the legend. `diverging` centres
    the colours on zero (a difference)."""
    if not _has(rows, x, y, value):
        return None
    cells, thin = heat_cells(rows, x, y, value, count=count, few=few)
    if not cells and not thin:
        return None
    n = max(max(k) for k in [*cells, *thin])
    grid = [[cells.get((i, j), math.nan) for j in range(1, n + 1)] for i in range(1, n + 1)]
    side = min(5.2 + max(n - 15, 0) * 0.12, 8.0)
    with _style():
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Patch

        fig = _figure(side + 1.0, side)
        ax = fig.add_subplot()
        if diverging:
            top = max((abs(v) for v in cells.values()), default=1.0) or 1.0
            image = ax.imshow(grid, cmap="RdBu", vmin=-top, vmax=top, origin="upper")
        else:
            image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=1, origin="upper")
        if thin:
            marks = [[1.0 if (i, j) in thin else math.nan for j in range(1, n + 1)]
                     for i in range(1, n + 1)]  # fmt: skip
            ax.imshow(marks, cmap=ListedColormap([_FEW]), vmin=0, vmax=1, origin="upper")
            ax.legend(
                handles=[Patch(facecolor=_FEW, edgecolor="#888888", label=few_label)],
                loc="upper center",
                bbox_to_anchor=(0.5, -0.1),
                frameon=False,
                fontsize=8,
            )
        step = 1 if n <= 25 else 5
        ticks = [t for t in range(n) if (t + 1) % step == 0 or t == 0]
        ax.set_xticks(ticks, [str(t + 1) for t in ticks])
        ax.set_yticks(ticks, [str(t + 1) for t in ticks])
        ax.set_xlabel(f"{x.replace('_', ' ')}")
        ax.set_ylabel(f"{y.replace('_', ' ')}")
        if n <= 11:
            for (i, j), v in cells.items():
                ax.text(
                    j - 1,
                    i - 1,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="#000000" if (diverging or v > 0.5) else "#ffffff",
                )
        fig.colorbar(image, ax=ax, label=label, shrink=0.8)
        return _svg(fig)


def bars(
    rows: Rows,
    label: str,
    series: Sequence[tuple[str, str]],
    *,
    ylabel: str,
    limit: int = 40,
    line: tuple[str, str] | None = None,
) -> str | None:
    """Bars of each (column, legend) in `series` per row labelled by `label` (grouped when
    there are several), with an optional (column, legend) line on a second axis."""
    columns = [c for c, _ in series] + ([line[0]] if line else [])
    if not _has(rows, label, *columns):
        return None
    shown = [r for r in rows if r[label] is not None][:limit]
    if not shown:
        return None
    names = [str(r[label]) for r in shown]
    width = 0.8 / len(series)
    colours = (_ACCENT, _SECOND, "#4c9a5b")
    with _style():
        fig = _figure(7.5, 3.4)
        ax = fig.add_subplot()
        for k, (column, legend) in enumerate(series):
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(shown))]
            ax.bar(
                xs,
                [_num(r[column]) or 0.0 for r in shown],
                width=width,
                label=legend,
                color=colours[k % len(colours)],
            )
        ax.set_xticks(list(range(len(shown))), names, rotation=90 if len(shown) > 12 else 0)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", color="#e5e5e5")
        if line is not None:
            twin = ax.twinx()
            twin.plot(
                range(len(shown)),
                [_num(r[line[0]]) or 0.0 for r in shown],
                color=_INK,
                marker=".",
                label=line[1],
            )
            twin.set_ylim(0, 1)
            twin.set_ylabel(line[1])
        if len(series) > 1 or line is not None:
            fig.legend(loc="outside upper right", frameon=False, ncols=3)
        return _svg(fig)


def timeline(
    rows: Rows,
    value: str,
    group: str,
    *,
    ylabel: str,
    order: str = "date",
    limit: int = 8,
) -> str | None:
    """One line of points per `group` (the `limit` groups with the most rows): `value` of each
    row in the order of `order` (a date where there is one; a row without keeps its place
    after the dated ones, numbered on)."""
    if not _has(rows, value, group, order):
        return None
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r[group] is not None and _num(r[value]) is not None:
            by.setdefault(str(r[group]), []).append(r)
    if not by:
        return None
    shown = sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]
    dated = all(r[order] is not None for _, rs in shown for r in rs)
    colours = (_ACCENT, _SECOND, "#4c9a5b", "#8e44ad", "#b03a2e", "#117a65", "#7d6608", _INK)
    with _style():
        fig = _figure(7.5, 3.2)
        ax = fig.add_subplot()
        for k, (name, rs) in enumerate(shown):
            rs = sorted(rs, key=lambda r: (r[order] is None, str(r[order])))
            xs: list[Any] = [r[order] for r in rs] if dated else list(range(1, len(rs) + 1))
            ax.plot(
                xs,
                [_num(r[value]) for r in rs],
                marker="o",
                markersize=3,
                linewidth=1,
                color=colours[k % len(colours)],
                label=name,
            )
        ax.set_ylabel(ylabel)
        ax.set_xlabel("match date" if dated else "match, in order")
        ax.grid(axis="y", color="#e5e5e5")
        ax.set_ylim(bottom=0)
        if dated:
            fig.autofmt_xdate()
        fig.legend(loc="outside upper right", frameon=False, ncols=min(4, len(shown)))
        return _svg(fig)
