r"""Pictures of a two-dimensional softmax head (matplotlib, imported only here).

Two panels, in the style of Nielsen & Grivas (Figs. 1-4: one colour per label, a
dashed grid, the origin marked with a black cross):

* **unembeddings**: the rows ``w_i`` as points with arrows from the origin, their
  convex hull (dashed), and the certified tie pairs as solid segments. Labels that can
  tie are exactly the hull edges free of other rows, and a label is argmaxable exactly
  when its point is a vertex of the hull (:mod:`verify.analyze.ties`,
  :mod:`verify.analyze.argmax`); unargmaxable labels are drawn hollow and crossed out.
* **argmax regions**: inputs ``x`` coloured by the label of largest logit ``w_i . x``
  (a raster, an illustration only), with the exact region boundaries drawn on top. In
  the plane the inputs where ``i`` and ``j`` tie above every other label form a ray
  from the origin, and the exact tie witness ``x`` of the pair lies on that ray, so
  each boundary is drawn through its witness. Optionally the thin dotted lines
  ``w_i . x = w_j . x`` of all pairs show the cells of the ranking pattern ``R(W)``
  (Fig. 4 of the paper).

With more labels than the default colour cycle holds, the argmaxable labels take the
colours of a qualitative map in the order of their regions around the origin, so that
neighbouring regions never share a colour, and the unargmaxable labels (which have no
region) are grey. Label numbers are placed next to their points along the outward
direction, turned away from other points and numbers where they would overlap, in a
smaller font for many labels.

:func:`plot_cosine_ties` draws, for a head of any dimension, the cosine similarity of
every label's nearest neighbours against whether the pair can tie for the top (the
papers' question: cosine neighbours are not competitors).

Everything decided (which labels win, which pairs tie) comes from the exact analysis;
floats only place ink. Both functions return the matplotlib ``Figure`` (shown by
Jupyter) and save it as PNG when given a path.
"""

from __future__ import annotations

import os
import re
import warnings
from typing import TYPE_CHECKING, Any, Protocol, Sequence

import numpy as np

from verify.io.atomic import write_bytes_atomic

if TYPE_CHECKING:
    from verify.analyze.argmax import ArgmaxAnalysis
    from verify.analyze.head import HeadInput
    from verify.analyze.neighbours import CosineSummary
    from verify.analyze.ties import TieAnalysis

__all__ = ["Analysis", "MissingGlyphWarning", "cosine_tie_points", "plot_cosine_ties",
           "plot_head"]


class Analysis(Protocol):
    """What :func:`plot_cosine_ties` reads of a
    :class:`~verify.analyze.report.HeadAnalysis`."""

    @property
    def cosine(self) -> CosineSummary: ...

    @property
    def ties(self) -> TieAnalysis: ...

#: What a missing matplotlib is told.
NEEDS_MATPLOTLIB = ("plotting needs matplotlib: python -m pip install matplotlib "
                    "(or python -m pip install -e '.[plot]' in a checkout)")

_REGION_ALPHA = 0.38


def _matplotlib():
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(NEEDS_MATPLOTLIB) from None
    return Figure


#: Grey for labels without a region.
_NO_REGION = "0.55"


def _colours(n: int, P: np.ndarray | None = None, winners: Sequence[int] = ()) -> list:
    """One colour per label: the default cycle for few labels; otherwise a qualitative
    map over the argmaxable labels in the angular order of their regions (neighbouring
    regions differ, also where the order wraps around) and grey for the others."""
    import matplotlib as mpl

    cycle = mpl.rcParams["axes.prop_cycle"].by_key().get("color", [])
    if n <= len(cycle) or P is None:
        return list(cycle[:n]) if n <= len(cycle) else [mpl.colormaps["tab20"](i % 20)
                                                       for i in range(n)]
    palette = list(mpl.colormaps["tab10"].colors)
    colours: list = [_NO_REGION] * n
    order = sorted(winners, key=lambda i: np.arctan2(P[i, 1], P[i, 0]))
    m = len(order)
    for k, i in enumerate(order):
        colours[i] = palette[k % len(palette)]
    if m > 2 and m % len(palette) == 1:  # the last would repeat the first's colour
        colours[order[-1]] = palette[1]
    return colours


def _label_spots(P: np.ndarray, scale: float) -> np.ndarray:
    """Where the number of each point goes: at distance ``scale`` along the outward
    direction (from the centre of the points), turned by up to 180 degrees to keep
    clear of the other points and of the numbers already placed."""
    n = len(P)
    centre = P.mean(axis=0) if n else np.zeros(2)
    spots = np.zeros_like(P)
    placed: list[np.ndarray] = []
    turns = [0.0]
    for t in range(1, 13):
        turns += [t * np.pi / 12, -t * np.pi / 12]
    for i in np.argsort(-np.linalg.norm(P - centre, axis=1), kind="stable"):
        out = P[i] - centre
        base = np.arctan2(out[1], out[0]) if np.any(out) else np.pi / 2
        best, best_gap = None, -1.0
        for turn in turns:
            spot = P[i] + scale * np.array([np.cos(base + turn), np.sin(base + turn)])
            others = np.delete(P, i, axis=0)
            gap = min([float(np.min(np.linalg.norm(others - spot, axis=1)))
                       if len(others) else np.inf]
                      + [float(np.linalg.norm(q - spot)) / 1.3 for q in placed])
            if gap >= 0.9 * scale:
                best = spot
                break
            if gap > best_gap:
                best, best_gap = spot, gap
        spots[i] = best
        placed.append(best)
    return spots


def _float_rows(W) -> np.ndarray:
    return np.array([[float(x) for x in row] for row in W], dtype=np.float64)


def _hull_order(P: np.ndarray, vertices: Sequence[int]) -> list[int]:
    """The given hull vertices in counter-clockwise order (by angle about their mean)."""
    if len(vertices) < 3:
        return list(vertices)
    c = P[list(vertices)].mean(axis=0)
    return sorted(vertices, key=lambda i: np.arctan2(P[i, 1] - c[1], P[i, 0] - c[0]))


def plot_head(W: HeadInput, path: str | os.PathLike[str] | None = None, *,
              argmax: ArgmaxAnalysis | None = None, ties: TieAnalysis | None = None,
              names: Sequence[str] | None = None, title: str | None = None,
              rankings: bool | None = None, resolution: int = 500) -> Any:
    """Draw the two panels for a head with ``d = 2``; return the matplotlib ``Figure``
    and save it to ``path`` (PNG) if given.

    ``argmax`` and ``ties`` are the exact analyses (computed if omitted). ``rankings``
    draws every line ``w_i . x = w_j . x`` (default: when ``n <= 12``). Raises
    ``ValueError`` for another dimension and ``ImportError`` without matplotlib.
    """
    Figure = _matplotlib()
    from matplotlib.colors import ListedColormap, to_rgba
    from matplotlib.lines import Line2D

    from verify.analyze.argmax import argmaxable_labels
    from verify.analyze.head import make_head
    from verify.analyze.ties import tie_pairs

    head = make_head(W)
    if head.d != 2:
        raise ValueError(f"plot_head draws heads of dimension 2; this one has dimension "
                         f"{head.d}")
    if argmax is None:
        argmax = argmaxable_labels(head)
    if ties is None:
        ties = tie_pairs(head, argmax)
    n = head.n
    P = _float_rows(head.rows)
    colours = _colours(n, P, argmax.argmaxable)
    label_text = [f"{i}" if names is None else f"{i}: {names[i]}" for i in range(n)]
    winners = set(argmax.argmaxable)
    if rankings is None:
        rankings = n <= 12

    fig = Figure(figsize=(11.5, 6.2))
    ax0, ax1 = fig.subplots(1, 2)
    # ---- left: the unembeddings -----------------------------------------------------
    reach = float(np.abs(P).max()) if P.size else 1.0
    lim = 1.25 * (reach or 1.0)
    hull = _hull_order(P, sorted(winners))
    if len(hull) >= 3:
        poly = P[hull + hull[:1]]
        ax0.fill(poly[:, 0], poly[:, 1], color="0.93", zorder=0)
        ax0.plot(poly[:, 0], poly[:, 1], ls="--", lw=1.0, color="0.55", zorder=1)
    for i, j in ties.tie_pairs:
        ax0.plot(P[[i, j], 0], P[[i, j], 1], color="0.15", lw=1.8, zorder=2)
    for i in range(n if n <= 20 else 0):  # beyond 20 labels arrows are clutter
        ax0.annotate("", xy=P[i], xytext=(0, 0),
                     arrowprops=dict(arrowstyle="-|>", color=colours[i], lw=1.2,
                                     alpha=0.55, shrinkA=0, shrinkB=7))
    handles = []
    per_label = n <= 12  # beyond that a legend per label is noise
    for i in range(n):
        if i in winners:
            ax0.scatter(*P[i], s=150, color=colours[i], edgecolor="white", lw=0.8, zorder=4)
            if per_label:
                handles.append(Line2D([], [], ls="", marker="o", ms=10, color=colours[i],
                                      label=label_text[i]))
        else:
            ax0.scatter(*P[i], s=150, facecolor="white", edgecolor=colours[i], lw=2.2,
                        zorder=4)
            ax0.scatter(*P[i], s=70, marker="x", color=colours[i], lw=2.0, zorder=5)
            if per_label:
                handles.append(Line2D([], [], ls="", marker="o", ms=10, mfc="white",
                                      mec=colours[i], mew=2.0,
                                      label=f"{label_text[i]} (unargmaxable)"))
    if n <= 40:
        size = 10 if n <= 12 else 8 if n <= 24 else 7
        for i, spot in enumerate(_label_spots(P, (0.085 if n <= 12 else 0.06) * lim)):
            ax0.text(*spot, str(i), ha="center", va="center", fontsize=size,
                     fontweight="bold", family="sans-serif", color="0.1", zorder=6,
                     gid=f"label-{i}")
    ax0.scatter(0, 0, c="black", marker="X", s=90, zorder=3)
    if not per_label:
        handles.append(Line2D([], [], ls="", marker="o", ms=9, color="0.4",
                              label="argmaxable"))
        if len(winners) < n:
            handles.append(Line2D([], [], ls="", marker="o", ms=9, mfc="white", mec="0.4",
                                  mew=2.0, label="unargmaxable"))
    handles.append(Line2D([], [], color="0.15", lw=1.8, label="can tie (exact)"))
    handles.append(Line2D([], [], color="0.55", lw=1.0, ls="--", label="convex hull"))
    handles.append(Line2D([], [], color="black", marker="X", ls="", ms=8, label="origin"))
    ax0.set_title("unembeddings $w_i$, hull and tie pairs", fontsize=12)
    _frame(ax0, lim)

    # ---- right: argmax regions -------------------------------------------------------
    R = 1.0
    g = np.linspace(-R, R, resolution)
    gx, gy = np.meshgrid(g, g)
    logits = P @ np.vstack([gx.ravel(), gy.ravel()])
    top = logits.argmax(axis=0).reshape(gx.shape)
    cmap = ListedColormap([to_rgba(c, _REGION_ALPHA) for c in colours])
    ax1.imshow(top, origin="lower", extent=(-R, R, -R, R), cmap=cmap, vmin=-0.5,
               vmax=n - 0.5, interpolation="nearest", zorder=0)
    if rankings:
        for i in range(n):
            for j in range(i + 1, n):
                v = P[i] - P[j]
                if np.allclose(v, 0):
                    continue
                u = np.array([-v[1], v[0]]) / np.linalg.norm(v) * 2 * R
                ax1.plot([-u[0], u[0]], [-u[1], u[1]], ls=":", lw=0.7, color="0.45",
                         zorder=1)
    for (i, j), ev in ties.evidence.items():
        if not hasattr(ev, "point"):
            continue
        x = np.array([float(t) for t in ev.point])
        norm = np.linalg.norm(x)
        if norm == 0:
            continue
        end = x / norm * 2 * R
        ax1.plot([0, end[0]], [0, end[1]], color="black", lw=1.6, zorder=2)
    for i in sorted(winners):
        x = np.array([float(t) for t in argmax.evidence[i].point])
        if not np.any(x):
            continue
        spot = _label_spot(P, i, x, R)
        ax1.text(*spot, str(i), ha="center", va="center", fontsize=12, fontweight="bold",
                 family="sans-serif", color=colours[i], zorder=4,
                 bbox=dict(boxstyle="round,pad=0.2", fc="white", ec=colours[i], lw=1.0,
                           alpha=0.9))
    ax1.scatter(0, 0, c="black", marker="X", s=90, zorder=3)
    lost = sorted(set(range(n)) - winners)
    sub = "argmax regions of $\\mathrm{softmax}(Wx)$"
    if 0 < len(lost) <= 8:
        sub += f"\nno region: {', '.join(map(str, lost))}"
    elif lost:
        sub += f"\nno region: {len(lost)} unargmaxable labels"
    ax1.set_title(sub, fontsize=12)
    _frame(ax1, R)
    ax1.set_xlabel("input $x_1$")
    ax1.set_ylabel("input $x_2$")
    if title:
        fig.suptitle(title, fontsize=14)
    ncol = min(len(handles), 5)
    rows_of_legend = -(-len(handles) // ncol)
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=9,
               frameon=False)
    fig.tight_layout(rect=(0, 0.05 * rows_of_legend + 0.045, 1, 0.95 if title else 1))
    if path is not None:
        _save(fig, path)
    return fig


def _label_spot(P: np.ndarray, i: int, x: np.ndarray, R: float) -> np.ndarray:
    """A point well inside the (conical) region of ``i``: the bisector of its two rays."""
    n = P.shape[0]
    angles = np.linspace(0, 2 * np.pi, 1440, endpoint=False)
    dirs = np.vstack([np.cos(angles), np.sin(angles)])
    won = (P @ dirs).argmax(axis=0) == i
    if won.any():
        # The longest run of directions (cyclically) won by i: its middle.
        w = np.concatenate([won, won])
        best, best_start, run, start = 0, 0, 0, 0
        for k, flag in enumerate(w):
            if flag:
                if run == 0:
                    start = k
                run += 1
                if run > best:
                    best, best_start = run, start
            else:
                run = 0
        best = min(best, len(angles))
        mid = angles[(best_start + best // 2) % len(angles)]
        u = np.array([np.cos(mid), np.sin(mid)])
    else:  # a region thinner than the sampling: use the exact witness direction
        u = x / np.linalg.norm(x)
    return u * 0.68 * R if n > 1 else u * 0.5 * R


def _frame(ax, lim: float) -> None:
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.grid(visible=True, linestyle="dashed", alpha=0.6)
    ax.set_axisbelow(True)


class MissingGlyphWarning(UserWarning):
    """The figure's font has no glyph for some characters of the label names (one
    warning per figure, in place of matplotlib's one per character)."""


#: matplotlib's warning for a character its fonts cannot draw.
_GLYPH_MISSING = re.compile(r"Glyph (\d+) .*missing from font")


def _save(fig, path) -> None:
    import io

    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(buf, format="png", dpi=110)
    missing: dict = {}
    for w in caught:
        found = _GLYPH_MISSING.search(str(w.message))
        if found:
            missing.setdefault(chr(int(found.group(1))), None)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    write_bytes_atomic(path, buf.getvalue())
    if missing:
        from verify.analyze.names import show_name

        shown = ", ".join(show_name(c) for c in list(missing)[:8])
        more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        warnings.warn(MissingGlyphWarning(
            f"{path}: the figure's font has no glyph for {shown}{more} (drawn as boxes; "
            "the report and --json hold the names)"), stacklevel=2)




# --- cosine against ties ----------------------------------------------------------------

#: The verdicts of a pair, their legend text and colour.
VERDICTS = ((True, "can tie", "#1f77b4"), (False, "cannot tie", "#d62728"),
            (None, "not decided", "0.6"))


def cosine_tie_points(result: Analysis) -> list[tuple[int, int, int, float, bool | None]]:
    """What :func:`plot_cosine_ties` draws: for every label ``i`` and its ``r``-th
    nearest neighbour ``k`` by cosine (``r`` from 1), ``(i, r, k, cosine, verdict)``;
    ``verdict`` is whether the pair can tie for the top (None: not decided)."""
    points = []
    for i, near in enumerate(result.cosine.neighbours):
        for r, (k, cos) in enumerate(near, start=1):
            points.append((i, r, k, float(cos), result.ties.can_tie(i, k)))
    return points


def plot_cosine_ties(result: Analysis, path: str | os.PathLike[str] | None = None, *,
                     title: str | None = None, bins: int = 20) -> Any:
    """The cosine similarity of each label's nearest neighbours against whether the
    pair can tie for the highest probability; return the ``Figure`` and save it to
    ``path`` (PNG) if given.

    Left: one dot per (label, neighbour), at its cosine (x) and the neighbour's rank
    by cosine (y, 1 = nearest; spread a little so that dots do not hide each other),
    coloured by the exact verdict. Right: how many pairs of each verdict fall into each
    band of cosine (stacked). ``result`` is a :class:`~verify.analyze.report.HeadAnalysis`
    of any dimension.
    """
    Figure = _matplotlib()
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    points = cosine_tie_points(result)
    k = max((r for _, r, _, _, _ in points), default=1)
    fig = Figure(figsize=(11.5, 5.2))
    ax0, ax1 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    spread = np.random.default_rng(0)
    for verdict, text, colour in VERDICTS:
        chosen = [(r, cos) for _, r, _, cos, v in points if v is verdict]
        if not chosen:
            continue
        r = np.array([c[0] for c in chosen], dtype=float)
        x = np.array([c[1] for c in chosen])
        y = r + spread.uniform(-0.28, 0.28, size=len(r))
        ax0.scatter(x, y, s=22 if len(points) <= 400 else 8, color=colour, alpha=0.75,
                    edgecolor="none", label=f"{text} ({len(chosen)})", gid=f"cosine-{text}")
    ax0.set_xlabel("cosine similarity $\\cos(w_i, w_k)$")
    ax0.set_ylabel("neighbour rank by cosine (1 = nearest)")
    ax0.set_yticks(range(1, k + 1))
    ax0.set_ylim(k + 0.6, 0.4)
    ax0.grid(visible=True, linestyle="dashed", alpha=0.6)
    ax0.set_axisbelow(True)
    ax0.set_title(f"the {k} nearest labels by cosine of every label", fontsize=12)
    handles = [Line2D([], [], ls="", marker="o", color=colour,
                      label=f"{text} ({sum(v is verdict for *_, v in points)})")
               for verdict, text, colour in VERDICTS
               if any(v is verdict for *_, v in points)]
    ax0.legend(handles=handles, loc="best", fontsize=9)

    cosines = [cos for *_, cos, _ in points]
    low, high = (min(cosines), max(cosines)) if cosines else (-1.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.05, high + 0.05
    edges = np.linspace(low, high, bins + 1)
    bottom = np.zeros(bins)
    for verdict, text, colour in VERDICTS:
        counts, _ = np.histogram([cos for *_, cos, v in points if v is verdict], bins=edges)
        if counts.any():
            ax1.bar(edges[:-1], counts, width=np.diff(edges), bottom=bottom, align="edge",
                    color=colour, alpha=0.85, edgecolor="white", lw=0.5, label=text,
                    gid=f"histogram-{text}")
            bottom += counts
    ax1.set_xlabel("cosine similarity $\\cos(w_i, w_k)$")
    ax1.set_ylabel("pairs (label, neighbour)")
    ax1.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax1.grid(visible=True, axis="y", linestyle="dashed", alpha=0.6)
    ax1.set_axisbelow(True)
    c = result.cosine
    ax1.set_title(f"nearest neighbour cannot tie: {c.nearest_not_tie} of "
                  f"{c.labels_compared} labels", fontsize=12)
    if title:
        fig.suptitle(title, fontsize=14)
    fig.tight_layout(rect=(0, 0, 1, 0.95 if title else 1))
    if path is not None:
        _save(fig, path)
    return fig
