"""Topes by search over the arrangement graph, one exact LP per candidate orthant.

Mathematics
-----------
The *tope graph* of a central arrangement has the cells as vertices and an edge between
two cells separated by exactly one hyperplane (a wall of both). It is connected
(Björner et al., *Oriented Matroids*, Prop. 4.2.3), so breadth-first search from one
cell, following walls, reaches every cell.

For a known cell ``T`` and a hyperplane ``h``, the orthant ``T`` with the sign of ``h``
flipped is either a cell (``h`` is a wall of ``T``: an exact witness proves it) or
empty (a Gordan certificate proves it). Only such one-sign flips are ever tested, never
the ``2^K`` orthants. The evidence collected along the way is exactly what a reviewer
needs to check completeness: every listed cell, flipped across every hyperplane, is
listed or refuted.

This method is independent of :mod:`verify.arrangement.cocircuits` (it uses only the
LP oracle of :mod:`verify.feasibility`), which makes it a cross-check and the source of
completeness certificates; for enumeration speed the cocircuit method is preferred.

Reference
---------
D. Avis and K. Fukuda, "Reverse search for enumeration", *Discrete Appl. Math.* 65
(1996); N. Sleumer, "Output-sensitive cell enumeration in hyperplane arrangements",
*Nordic J. Computing* 6 (1999).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from verify.feasibility import GordanCertificate, Witness, strict_feasibility
from verify.linalg import dot


@dataclass
class GraphSearchResult:
    """Cells found by the search, with the evidence of each step.

    ``cells`` maps a tope (tuple of +1/-1 over the hyperplanes) to its witness point;
    ``edges`` are pairs of cells across a wall (with the hyperplane);
    ``refutations`` maps ``(tope, hyperplane)`` to the Gordan certificate proving the
    flipped orthant empty (multiplier indices refer to hyperplanes).
    """

    cells: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)
    refutations: dict = field(default_factory=dict)


def generic_point(H) -> tuple[int, ...]:
    """An integer point on no hyperplane: ``(1, t, t^2, ...)`` for the least good ``t >= 0``.

    ``h . (1, t, ..., t^(r-1))`` is a non-zero polynomial of degree < r in ``t``, so each
    hyperplane rules out fewer than ``r`` values and the search stops after at most
    ``K (r - 1) + 1`` trials.
    """
    r = len(H[0])
    t = 0
    while True:
        z = tuple(t ** j for j in range(r))
        if all(dot(h, z) != 0 for h in H):
            return z
        t += 1


def search_topes(H) -> GraphSearchResult:
    """Breadth-first search of the tope graph of the hyperplanes with normals ``H``."""
    K = len(H)
    result = GraphSearchResult()
    z0 = generic_point(H)
    start = tuple(1 if dot(h, z0) > 0 else -1 for h in H)
    result.cells[start] = z0
    queue = deque([start])
    while queue:
        tope = queue.popleft()
        for c in range(K):
            flipped = tope[:c] + (-tope[c],) + tope[c + 1:]
            if flipped in result.cells:
                if tope < flipped:
                    result.edges.append((tope, flipped, c))
                continue
            rows = [[s * a for a in h] for s, h in zip(flipped, H)]
            evidence = strict_feasibility(rows)
            if isinstance(evidence, Witness):
                result.cells[flipped] = evidence.point
                result.edges.append((min(tope, flipped), max(tope, flipped), c))
                queue.append(flipped)
            elif isinstance(evidence, GordanCertificate):
                result.refutations[(tope, c)] = evidence
            else:  # a guard (kept under python -O): an orthant is empty only if proven
                raise AssertionError(f"internal error: {evidence!r} decides nothing")
    return result
