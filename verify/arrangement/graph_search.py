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
LP oracle of :mod:`verify.lp.feasibility`), which makes it a cross-check and the source of
completeness certificates; for enumeration speed the cocircuit method is preferred.

Small systems first (constraint generation)
-------------------------------------------
A cell is cut out by its walls, usually a handful of the ``K`` hyperplanes, so each
orthant is first decided on a *subsystem*: the flipped hyperplane and the rows that
earlier questions about the same cell needed. A Gordan certificate of a subsystem
refutes the whole orthant (it combines rows of the orthant's system to 0). A witness of
a subsystem is checked exactly against every row; if it fails some, a few of them join
the subsystem and the question is asked again. This ends after at most ``K`` rounds
(the subsystem only grows) with an answer about the whole orthant, exact as before; the
linear programs have a few rows instead of ``K``, which is what made the search slow
with many hyperplanes or huge entries (``benchmarks/bench_graph_search.py``).

Certificates are reused: a Gordan certificate ``sum_{i in S} y_i s_i h_i = 0`` refutes
every orthant with the same signs ``s_i`` on its support ``S``, and neighbouring cells
mostly share the signs near a hyperplane. So the last few certificates found for each
flipped hyperplane are tried (a comparison of at most ``rank + 1`` signs each) before
any linear program.

Reference
---------
D. Avis and K. Fukuda, "Reverse search for enumeration", *Discrete Appl. Math.* 65
(1996); N. Sleumer, "Output-sensitive cell enumeration in hyperplane arrangements",
*Nordic J. Computing* 6 (1999).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from verify.lp.feasibility import GordanCertificate, Witness, strict_feasibility
from verify.linalg.exact import dot


@dataclass
class GraphSearchResult:
    """Cells found by the search, with the evidence of each step.

    ``cells`` maps a tope (tuple of +1/-1 over the hyperplanes) to its witness point;
    ``edges`` are the pairs of cells across a wall, each once as ``(smaller, larger,
    hyperplane)``;
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


#: Rows failed by a subsystem's witness that join the subsystem per round.
ROWS_ADDED_PER_ROUND = 4
#: Certificates remembered per flipped hyperplane, most recently useful first.
RECENT_CERTIFICATES = 8


def _reused_certificate(recent: list, signs) -> GordanCertificate | None:
    """A remembered certificate whose support has the signs ``signs`` (then it refutes
    this orthant too: the same rows are combined to 0); moved to the front."""
    for index, (certificate, support_signs) in enumerate(recent):
        if all(signs[i] == s for (i, _), s in zip(certificate.multipliers, support_signs)):
            if index:
                recent.insert(0, recent.pop(index))
            return certificate
    return None


def _remember(recent: list, certificate: GordanCertificate, signs) -> None:
    recent.insert(0, (certificate, tuple(signs[i] for i, _ in certificate.multipliers)))
    del recent[RECENT_CERTIFICATES:]


def decide_orthant(H, signs, active: list[int]) -> Witness | GordanCertificate:
    """Decide the orthant ``signs`` (``s_i h_i . z > 0`` for all ``i``) exactly, asking
    the subsystem on the rows ``active`` first (see the module docstring).

    ``active`` is extended in place by the rows that were needed. A certificate's
    multipliers are indexed by hyperplane, a witness satisfies every row.
    """
    while True:
        evidence = strict_feasibility([[signs[i] * a for a in H[i]] for i in active])
        if isinstance(evidence, GordanCertificate):
            return GordanCertificate(multipliers=tuple(sorted(
                (active[i], y) for i, y in evidence.multipliers)))
        if not isinstance(evidence, Witness):  # a guard (kept under python -O)
            raise AssertionError(f"internal error: {evidence!r} decides nothing")
        point = evidence.point
        chosen = set(active)
        failed = [i for i in range(len(H))
                  if i not in chosen and signs[i] * dot(H[i], point) <= 0]
        if not failed:
            return evidence
        active.extend(failed[:ROWS_ADDED_PER_ROUND])


def search_topes(H) -> GraphSearchResult:
    """Breadth-first search of the tope graph of the hyperplanes with normals ``H``."""
    K = len(H)
    result = GraphSearchResult()
    z0 = generic_point(H)
    start = tuple(1 if dot(h, z0) > 0 else -1 for h in H)
    result.cells[start] = z0
    queue = deque([start])
    recent: list[list] = [[] for _ in range(K)]  # per flipped hyperplane
    while queue:
        tope = queue.popleft()
        needed: list[int] = []  # rows that questions about this cell needed so far
        for c in range(K):
            flipped = tope[:c] + (-tope[c],) + tope[c + 1:]
            if flipped in result.cells:
                if tope < flipped:
                    result.edges.append((tope, flipped, c))
                continue
            evidence = _reused_certificate(recent[c], flipped)
            if evidence is None:
                active = [c] + [i for i in needed if i != c]
                evidence = decide_orthant(H, flipped, active)
                needed.extend(i for i in active if i != c and i not in needed)
                if isinstance(evidence, GordanCertificate):
                    _remember(recent[c], evidence, flipped)
            if isinstance(evidence, Witness):
                result.cells[flipped] = evidence.point
                # each edge is listed by its smaller cell: the larger one sees the
                # smaller among the cells when its own turn comes
                if tope < flipped:
                    result.edges.append((tope, flipped, c))
                queue.append(flipped)
            elif isinstance(evidence, GordanCertificate):
                result.refutations[(tope, c)] = evidence
            else:  # a guard (kept under python -O): an orthant is empty only if proven
                raise AssertionError(f"internal error: {evidence!r} decides nothing")
    return result
