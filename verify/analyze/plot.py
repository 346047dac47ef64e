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

Everything decided (which labels win, which pairs tie) comes from the exact analysis;
floats only place ink.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from verify.io.errors import InputError
from verify.io.atomic import write_bytes_atomic

__all__ = ["plot_head"]

_REGION_ALPHA = 0.38


def _colours(n: int):
    import matplotlib as mpl

    cycle = mpl.rcParams["axes.prop_cycle"].by_key().get("color", [])
    if n <= len(cycle):
        return list(cycle[:n])
    cmap = mpl.colormaps["tab20" if n <= 20 else "turbo"]
    return [cmap(i / max(1, n - 1)) if n > 20 else cmap(i) for i in range(n)]


def _float_rows(W) -> np.ndarray:
    return np.array([[float(x) for x in row] for row in W], dtype=np.float64)


def _hull_order(P: np.ndarray, vertices: Sequence[int]) -> list[int]:
    """The given hull vertices in counter-clockwise order (by angle about their mean)."""
    if len(vertices) < 3:
        return list(vertices)
    c = P[list(vertices)].mean(axis=0)
    return sorted(vertices, key=lambda i: np.arctan2(P[i, 1] - c[1], P[i, 0] - c[0]))


def plot_head(W, path, *, argmax=None, ties=None, names: Sequence[str] | None = None,
              title: str | None = None, rankings: bool | None = None,
              resolution: int = 500) -> None:
    """Draw the two panels for a head with ``d = 2`` and save them to ``path`` (PNG).

    ``argmax`` and ``ties`` are the exact analyses (computed if omitted). ``rankings``
    draws every line ``w_i . x = w_j . x`` (default: when ``n <= 12``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap, to_rgba
        from matplotlib.lines import Line2D
    except ImportError:
        raise InputError("--plot needs matplotlib: python -m pip install -e '.[plot]'") from None
    from verify.analyze.argmax import argmaxable_labels
    from verify.analyze.head import make_head
    from verify.analyze.ties import tie_pairs

    head = make_head(W)
    if head.d != 2:
        raise InputError(f"--plot draws heads of dimension 2; this one has dimension {head.d}")
    if argmax is None:
        argmax = argmaxable_labels(head)
    if ties is None:
        ties = tie_pairs(head, argmax)
    n = head.n
    P = _float_rows(head.rows)
    colours = _colours(n)
    label_text = [f"{i}" if names is None else f"{i}: {names[i]}" for i in range(n)]
    winners = set(argmax.argmaxable)
    if rankings is None:
        rankings = n <= 12

    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11.5, 6.2))
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
        if per_label or n <= 40:
            offset = P[i] / (np.linalg.norm(P[i]) or 1.0) * 0.08 * lim
            ax0.text(*(P[i] + offset), str(i), ha="center", va="center", fontsize=10,
                     fontweight="bold", family="sans-serif", color="0.1", zorder=6)
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
    _save(fig, path)
    plt.close(fig)


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


def _save(fig, path) -> None:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    write_bytes_atomic(path, buf.getvalue())


