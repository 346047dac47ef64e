r"""Lemmas 3.1-3.3, Theorem 3.4 and App. D of Nielsen & Grivas, checked exactly.

A softmax classifier ``p_i(W, x) = exp(w_i . x) / sum_j exp(w_j . x)`` depends on the
unembeddings only through the logit differences ``(w_k - w_l) . x``.

* **Lemma 3.1** (App. A): ``w_j -> w_j + u`` for every ``j`` changes no probability.
* **Lemma 3.2** (App. B.1): for ``v_i != v_j``, ``u = -(v_i + v_j)/2`` gives
  ``cos(v_i + u, v_j + u) = -1``.
* **Lemma 3.3** (App. B.2): ``u = -v_i + (v_j - v_i)/2`` gives cosine +1 (and any ``u``
  with ``v_i + u != 0`` does when ``v_i = v_j``).
* **Theorem 3.4**: for ``w_i != w_j`` the translations of Lemmas 3.2 and 3.3 give two
  models equivalent to ``W`` (same probabilities for every input) with
  ``cos(w_i, w_j) = -1`` and ``+1``.
* **App. D**: the dot product ``w_i . w_j`` changes sign between those two equivalent
  models (so does the normalised Euclidean distance, 2 versus 0), and ``W -> cW``,
  ``f -> f/c`` keeps every logit while Euclidean distances scale by ``|c|``.

Every verdict here is exact.  A cosine is decided without square roots by the
criterion of :mod:`proofs.cosine`: ``cos(a, b) = -1`` iff ``(a . b)^2 = |a|^2 |b|^2``
and ``a . b < 0`` (``+1`` with ``a . b > 0``), all rational; where a cosine or a
distance is also shown as a number it is a :class:`~verify.numbers.sqrt_sum.SqrtSum`.
Probability equality is proved twice: as a polynomial identity in a symbolic input
``x`` (sympy, with the model's exact rational entries) and on rational inputs.

Labels are numbered from 0 (the paper numbers them from 1).
"""

from __future__ import annotations

import time
from itertools import combinations, product

import sympy
from flint import fmpq

from proofs import cosine as cosine_proofs
from proofs import is_zero
from proofs import softmax as softmax_proofs
from proofs.cosine import lemma_3_2_translation, lemma_3_3_translation
from proofs.softmax import add_to_every_row
from verify.certificates.writers import exact, exact_rows, instance_certificate, symbolic_note
from verify.data import paper_example
from verify.claims.outcome import ClaimOutcome
from verify.io.errors import InputError
from verify.numbers.rational import format_rational, parse_rational
from verify.numbers.sqrt_sum import SqrtSum

__all__ = [
    "EXAMPLE_C1",
    "EXAMPLE_C1_PAIR",
    "paper_models",
    "cosine_is",
    "check_lemma_3_1",
    "check_lemma_3_2",
    "check_lemma_3_3",
    "check_theorem_3_4",
    "check_appendix_d",
    "run_lemma_3_1",
    "run_lemma_3_2",
    "run_lemma_3_3",
    "run_theorem_3_4",
    "run_appendix_d",
]

# Example C.1 (Nielsen & Grivas, App. C.1; the bundled paper data): five labels in R^2
# and the pair (0, 1) with cos(w_0, w_1) = 4/5.
def _example_c1():
    data = paper_example("example C.1")
    return [[parse_rational(a) for a in row] for row in data["W"]], tuple(data["pair"])


EXAMPLE_C1, EXAMPLE_C1_PAIR = _example_c1()


# --- exact helpers -------------------------------------------------------------------

def _q(value) -> fmpq:
    return value if isinstance(value, fmpq) else fmpq(value)


def _vector(values) -> list[fmpq]:
    return [_q(v) for v in values]


def _dot(a, b):
    return sum((s * t for s, t in zip(a, b)), fmpq(0))


def _text(vector) -> str:
    return "(" + ", ".join(format_rational(v) for v in vector) + ")"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _sign_name(s: int) -> str:
    return {1: "+1", -1: "-1", 0: "0"}[s]


def cosine_is(a, b, target: int) -> tuple[bool, str]:
    """Whether ``cos(a, b) = target`` (``target`` = -1 or +1), decided in Q.

    ``cos = +-1`` iff ``(a.b)^2 = |a|^2 |b|^2`` (equality in Cauchy-Schwarz: a, b
    parallel) and ``sign(a.b) = target``; both need non-zero vectors.
    """
    a, b = _vector(a), _vector(b)
    ab, aa, bb = _dot(a, b), _dot(a, a), _dot(b, b)
    if aa == 0 or bb == 0:
        return False, "a zero vector has no cosine"
    parallel = ab * ab == aa * bb
    sign = (ab > 0) - (ab < 0)
    detail = (f"a.b = {format_rational(ab)}, (a.b)^2 = {format_rational(ab * ab)} "
              f"{'=' if parallel else '!='} |a|^2 |b|^2 = {format_rational(aa * bb)}")
    return parallel and sign == target, detail


def _cosine_value(a, b) -> SqrtSum | str:
    """``cos(a, b)`` as an exact SqrtSum: ``a.b * sqrt(1 / (|a|^2 |b|^2))``."""
    a, b = _vector(a), _vector(b)
    norms = _dot(a, a) * _dot(b, b)
    if norms == 0:
        return "undefined (a zero vector)"
    return SqrtSum(_dot(a, b)) * SqrtSum.sqrt(1 / norms)


def _inputs(d: int) -> list[list[fmpq]]:
    """Deterministic rational inputs x in R^d: the unit vectors, the all-ones vector and
    two vectors with unrelated fractional entries (so no accidental cancellation)."""
    xs = [[fmpq(int(k == m)) for k in range(d)] for m in range(d)]
    xs.append([fmpq(1)] * d)
    xs.append([fmpq((-1) ** k * (2 * k + 3), k + 2) for k in range(d)])
    xs.append([fmpq(7 * k + 1, 5) - fmpq(1, 3) for k in range(d)])
    return xs


def _logits(rows, x) -> list[fmpq]:
    return [_dot(row, x) for row in rows]


def _same_logit_differences(rows, other, x) -> bool:
    """Whether the two models have equal logit differences at x, i.e. the logits of
    ``other`` are those of ``rows`` plus one constant (so equal softmax outputs)."""
    shifts = {b - a for a, b in zip(_logits(rows, x), _logits(other, x))}
    return len(shifts) == 1


def _sympy_rational(q) -> sympy.Rational:
    q = _q(q)
    return sympy.Rational(int(q.p), int(q.q))


def _differences_identity(rows, other) -> bool:
    """``(w'_k - w'_l).x = (w_k - w_l).x`` for all pairs, as polynomials in symbolic x."""
    d = len(rows[0])
    x = sympy.symbols(f"x0:{d}", real=True)

    def logit(row):
        return sum(_sympy_rational(a) * t for a, t in zip(row, x))

    return all(is_zero((logit(other[k]) - logit(other[l])) - (logit(rows[k]) - logit(rows[l])))
               for k, l in combinations(range(len(rows)), 2))


def _finish(outcome: ClaimOutcome, start: float, evidence: str) -> ClaimOutcome:
    outcome.evidence = evidence
    outcome.seconds = time.perf_counter() - start
    return outcome


def _add_facts(outcome: ClaimOutcome, facts, prefix: str = "symbolic: ") -> None:
    for description, holds in facts:
        outcome.add(prefix + description, holds)


# --- inputs from the command line ------------------------------------------------------

def _matrix_from(options) -> tuple[list[list[fmpq]], str]:
    path = getattr(options, "matrix", None)
    if path:
        from verify.io.matrix import read_matrix

        needs = getattr(options, "claim_id", None) or "this claim"
        return [[_q(a) for a in row] for row in read_matrix(path, rational=needs)], path
    return [list(row) for row in EXAMPLE_C1], "example C.1"


def _pair_from(options, W, source: str, claim_id: str) -> tuple[int, int]:
    """The pair ``--labels I J`` (default (0, 1)), refused with one line if unusable."""
    labels = getattr(options, "labels", None)
    i, j = labels if labels else EXAMPLE_C1_PAIR
    n = len(W)
    if n < 2:
        raise InputError(f"{source}: {claim_id} needs at least two labels, found {n}")
    if not (0 <= i < n and 0 <= j < n):
        raise InputError(f"--labels {i} {j}: labels are numbered 0..{n - 1} for the "
                         f"{n} rows of {source}")
    if i == j:
        raise InputError(f"--labels {i} {j}: {claim_id} needs two different labels")
    if W[i] == W[j]:
        raise InputError(f"{source}: w_{i} = w_{j} = {_text(W[i])}; {claim_id} needs "
                         f"two different unembeddings")
    return i, j


def _generic_shift(d: int) -> list[fmpq]:
    return [fmpq((-1) ** k * (k + 3), 2 * k + 7) for k in range(d)]


# --- Lemma 3.1 -------------------------------------------------------------------------

def check_lemma_3_1(W, shifts, inputs, translate=add_to_every_row,
                    symbolic: bool = True) -> ClaimOutcome:
    """Probabilities of ``translate(W, u)`` equal those of ``W``: symbolic and exact.

    ``translate`` is the construction under test (the paper's adds ``u`` to every
    row); it is applied to symbolic unembeddings and to the exact ones alike.
    """
    outcome = ClaimOutcome("lemma 3.1")
    if symbolic:
        _add_facts(outcome, softmax_proofs.translation_invariance_general())
        _add_facts(outcome, softmax_proofs.translation_invariance(translate=translate))
    W = [_vector(row) for row in W]
    n = len(W)
    failures, compared = [], 0
    for u in shifts:
        V = translate(W, _vector(u))
        for x in inputs:
            compared += 1
            if not _same_logit_differences(W, V, x):
                failures.append(f"u = {_text(u)}, x = {_text(x)}")
    outcome.add(f"exact: for {_count(len(shifts), 'translation')} u and "
                f"{_count(len(inputs), 'rational input')} x, the logits of the translated "
                f"model are those of W plus one constant (all {n * (n - 1) // 2} logit "
                f"differences equal)",
                not failures,
                f"{compared} (u, x) compared" + (f"; differ at {failures[0]}" if failures
                                                  else ""))
    return outcome


def run_lemma_3_1(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    W, source = _matrix_from(options)
    d = len(W[0])
    shifts = [_generic_shift(d)]
    labels = getattr(options, "labels", None)
    pair = tuple(labels) if labels else (EXAMPLE_C1_PAIR if len(W) > 1 else None)
    if pair is not None:
        i, j = pair
        if not (0 <= i < len(W) and 0 <= j < len(W)):
            raise InputError(f"--labels {i} {j}: labels are numbered 0..{len(W) - 1} for "
                             f"the rows of {source}")
        if W[i] != W[j]:
            # the translations that Theorem 3.4 uses for the pair (i, j)
            shifts = [lemma_3_2_translation(W[i], W[j]),
                      lemma_3_3_translation(W[i], W[j]), *shifts]
    outcome = check_lemma_3_1(W, shifts, _inputs(d))
    outcome.claim = claim.id
    if outcome.holds:
        shifts = [_vector(u) for u in shifts]
        outcome.certificate = instance_certificate(
            claim.id,
            {"W": exact_rows(W), "translations": exact_rows(shifts),
             "inputs": exact_rows(_inputs(d))},
            {"shifts": [[exact(_dot(u, x)) for x in _inputs(d)] for u in shifts]},
            {"symbolic": symbolic_note(claim.id)})
    return _finish(outcome, start,
                   f"softmax unchanged by w_j -> w_j + u: symbolic for all n, d, x, u; "
                   f"exact on {source} ({_count(len(shifts), 'translation')} x "
                   f"{_count(len(_inputs(d)), 'input')})")


# --- Lemmas 3.2 and 3.3 ----------------------------------------------------------------

def _family_of_pairs(W=None, pair=None):
    """Pairs ``(v_i, v_j)`` to check: one given pair; all pairs of rows of a given W; or
    example C.1's pair followed by every pair of vectors in {-1, 0, 1}^2 and {-1, 0, 1}^3
    and a few with fractional entries."""
    if W is not None and pair is not None:
        return [(W[pair[0]], W[pair[1]])]
    if W is not None:
        return [(W[i], W[j]) for i in range(len(W)) for j in range(len(W)) if i != j]
    pairs = [(EXAMPLE_C1[0], EXAMPLE_C1[1])]
    for d in (2, 3):
        vectors = [_vector(v) for v in product((-1, 0, 1), repeat=d)]
        pairs += [(a, b) for a in vectors for b in vectors]
    fractional = [_vector(v) for v in ([fmpq(1, 3), fmpq(-5, 7), fmpq(2)],
                                       [fmpq(-9, 4), fmpq(1, 6), fmpq(0)],
                                       [fmpq(1, 3), fmpq(-5, 7), fmpq(2)])]
    pairs += [(a, b) for a in fractional for b in fractional]
    return pairs


def _check_translation_lemma(claim_id, target, construction, proof, pairs,
                             symbolic: bool) -> tuple[ClaimOutcome, int]:
    outcome = ClaimOutcome(claim_id)
    if symbolic:
        _add_facts(outcome, cosine_proofs.lagrange_identity())
        _add_facts(outcome, proof(construction=construction))
    checked, failures, equal_pairs = 0, [], 0
    first = None
    for vi, vj in pairs:
        vi, vj = _vector(vi), _vector(vj)
        if vi == vj:
            equal_pairs += 1
            continue
        u = _vector(construction(vi, vj))
        a = [s + t for s, t in zip(vi, u)]
        b = [s + t for s, t in zip(vj, u)]
        holds, detail = cosine_is(a, b, target)
        checked += 1
        if first is None:
            first = (vi, vj, u, a, b, detail)
        if not holds:
            failures.append(f"v_i = {_text(vi)}, v_j = {_text(vj)}, u = {_text(u)}: {detail}")
    if first is None:
        # Only lemma 3.2 needs such a pair; for lemma 3.3 the equal pairs are checked
        # by the caller.
        if target < 0:
            outcome.add("at least one pair with v_i != v_j to check", False)
        return outcome, equal_pairs
    vi, vj, u, a, b, detail = first
    outcome.add(f"exact: cos(v_i + u, v_j + u) = {_sign_name(target)} for the first pair "
                f"(v_i, v_j) = ({_text(vi)}, {_text(vj)})",
                cosine_is(a, b, target)[0],
                f"u = {_text(u)}, a = {_text(a)}, b = {_text(b)}, {detail}, "
                f"cos = {_cosine_value(a, b)}")
    outcome.add(f"exact: cos(v_i + u, v_j + u) = {_sign_name(target)} for all {checked} "
                f"pairs with v_i != v_j ((a.b)^2 = |a|^2|b|^2 and a.b "
                f"{'<' if target < 0 else '>'} 0, in Q)", not failures,
                f"{checked - len(failures)} of {checked} hold"
                + (f" ({equal_pairs} pairs with v_i = v_j set aside)" if equal_pairs else "")
                + (f"; first failure: {failures[0]}" if failures else ""))
    return outcome, equal_pairs


def check_lemma_3_2(pairs, construction=lemma_3_2_translation,
                    symbolic: bool = True) -> ClaimOutcome:
    """``u = construction(v_i, v_j)`` makes every pair with ``v_i != v_j`` antiparallel."""
    outcome, _ = _check_translation_lemma("lemma 3.2", -1, construction,
                                          cosine_proofs.lemma_3_2_construction, pairs,
                                          symbolic)
    return outcome


def _some_nonvanishing_shift(v) -> list[fmpq]:
    """A ``u`` with ``v + u != 0``: 0 unless ``v = 0``, then the first unit vector."""
    return [fmpq(0)] * len(v) if any(v) else [fmpq(int(k == 0)) for k in range(len(v))]


def check_lemma_3_3(pairs, construction=lemma_3_3_translation,
                    symbolic: bool = True) -> ClaimOutcome:
    """``u = construction(v_i, v_j)`` makes every pair with ``v_i != v_j`` parallel with
    positive dot product; pairs with ``v_i = v_j`` get a ``u`` with ``v_i + u != 0``."""
    outcome, _ = _check_translation_lemma("lemma 3.3", 1, construction,
                                          cosine_proofs.lemma_3_3_construction, pairs,
                                          symbolic)
    equal = [_vector(vi) for vi, vj in pairs if _vector(vi) == _vector(vj)]
    failures = []
    for v in equal:
        u = _some_nonvanishing_shift(v)
        a = [s + t for s, t in zip(v, u)]
        if not cosine_is(a, a, 1)[0]:
            failures.append(_text(v))
    outcome.add(f"exact: v_i = v_j: with u = 0 (or e_0 when v_i = 0) a = b != 0, so "
                f"cos = +1, for all {_count(len(equal), 'such pair')}", not failures,
                f"{len(equal) - len(failures)} of {len(equal)} hold"
                + (f"; fails at v = {failures[0]}" if failures else ""))
    return outcome


def _run_translation_lemma(claim, options, check, target) -> ClaimOutcome:
    start = time.perf_counter()
    if getattr(options, "matrix", None) or getattr(options, "labels", None):
        W, source = _matrix_from(options)
        pair = None
        if getattr(options, "labels", None):
            i, j = options.labels
            if not (0 <= i < len(W) and 0 <= j < len(W)) or i == j:
                raise InputError(f"--labels {i} {j}: need two different labels in "
                                 f"0..{len(W) - 1} for the rows of {source}")
            pair = (i, j)
            source = f"{source}, labels {i}, {j}"
        pairs = _family_of_pairs(W, pair)
        if not pairs:
            raise InputError(f"{source}: {claim.id} needs at least two rows")
        if target < 0 and all(a == b for a, b in pairs):
            # Lemma 3.2 is about v_i != v_j: refuse rather than check nothing.
            raise InputError(f"{source}: {claim.id} needs v_i != v_j, and the chosen "
                             f"rows are equal")
    else:
        source = "example C.1's pair (0, 1) and every pair in {-1,0,1}^2, {-1,0,1}^3"
        pairs = _family_of_pairs()
    outcome = check(pairs)
    outcome.claim = claim.id
    if outcome.holds:
        outcome.certificate = _translation_certificate(claim.id, pairs, target)
    distinct = sum(1 for a, b in pairs if _vector(a) != _vector(b))
    return _finish(outcome, start,
                   f"cos = {_sign_name(target)} after the lemma's translation: symbolic "
                   f"for all v_i, v_j in R^3; exact on {_count(distinct, 'pair')} with "
                   f"v_i != v_j from {source}")


def _translation_certificate(claim_id, pairs, target) -> dict:
    """The pairs checked, each with the lemma's ``u`` (for lemma 3.3 and ``v_i = v_j``:
    a ``u`` with ``v_i + u != 0``); lemma 3.2 is about ``v_i != v_j`` only."""
    construction = lemma_3_2_translation if target < 0 else lemma_3_3_translation
    listed, translations = [], []
    for vi, vj in pairs:
        vi, vj = _vector(vi), _vector(vj)
        if vi == vj and target < 0:
            continue
        listed.append(exact_rows([vi, vj]))
        translations.append(_some_nonvanishing_shift(vi) if vi == vj
                            else _vector(construction(vi, vj)))
    return instance_certificate(claim_id, {"pairs": listed}, {"cosine": exact(target)},
                                {"translations": exact_rows(translations),
                                 "symbolic": symbolic_note(claim_id)})


def run_lemma_3_2(claim, options) -> ClaimOutcome:
    return _run_translation_lemma(claim, options, check_lemma_3_2, -1)


def run_lemma_3_3(claim, options) -> ClaimOutcome:
    return _run_translation_lemma(claim, options, check_lemma_3_3, 1)


# --- Theorem 3.4 -----------------------------------------------------------------------

def paper_models(W, i, j):
    """The two models of the proof of Theorem 3.4: ``W`` translated by Lemma 3.2's ``u``
    (cosine -1) and by Lemma 3.3's ``u`` (cosine +1)."""
    minus = add_to_every_row(W, lemma_3_2_translation(W[i], W[j]))
    plus = add_to_every_row(W, lemma_3_3_translation(W[i], W[j]))
    return minus, plus


def _check_equivalent(outcome, name, W, model, inputs) -> None:
    outcome.add(f"{name} assigns the same probabilities as W for every input: "
                f"(w'_k - w'_l).x = (w_k - w_l).x for all pairs k < l, as polynomials in "
                f"a symbolic x", _differences_identity(W, model))
    same = [x for x in inputs if _same_logit_differences(W, model, x)]
    outcome.add(f"{name}: the same logit differences as W on {len(inputs)} rational "
                f"inputs x (exact)", len(same) == len(inputs),
                f"{len(same)} of {len(inputs)} agree")


def check_theorem_3_4(W, i, j, inputs, models=paper_models,
                      symbolic: bool = True) -> ClaimOutcome:
    """Both models of ``models(W, i, j)`` are equivalent to ``W``, with cosines -1, +1."""
    outcome = ClaimOutcome("theorem 3.4")
    W = [_vector(row) for row in W]
    if symbolic:
        _add_facts(outcome, softmax_proofs.logit_differences_invariance())
    minus, plus = (list(map(_vector, m)) for m in models(W, i, j))
    outcome.add(f"hypothesis: w_{i} != w_{j}", W[i] != W[j],
                f"w_{i} = {_text(W[i])}, w_{j} = {_text(W[j])}, "
                f"cos(w_{i}, w_{j}) = {_cosine_value(W[i], W[j])}")
    for name, model, target in (("model -", minus, -1), ("model +", plus, 1)):
        _check_equivalent(outcome, name, W, model, inputs)
        holds, detail = cosine_is(model[i], model[j], target)
        outcome.add(f"{name}: cos(w'_{i}, w'_{j}) = {_sign_name(target)}, decided in Q",
                    holds, f"w'_{i} = {_text(model[i])}, w'_{j} = {_text(model[j])}, "
                           f"{detail}")
        if holds:
            value = _cosine_value(model[i], model[j])
            outcome.add(f"{name}: the exact cosine as a sum of square roots is "
                        f"{_sign_name(target)}", value == target, f"cos = {value}")
    return outcome


def run_theorem_3_4(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    W, source = _matrix_from(options)
    i, j = _pair_from(options, W, source, claim.id)
    inputs = _inputs(len(W[0]))
    outcome = check_theorem_3_4(W, i, j, inputs)
    outcome.claim = claim.id
    if outcome.holds:
        minus, plus = paper_models(W, i, j)
        outcome.certificate = instance_certificate(
            claim.id, {"W": exact_rows(W), "labels": [i, j]},
            {"cosines": ["-1", "1"]},
            {"W_minus": exact_rows(minus), "W_plus": exact_rows(plus),
             "symbolic": symbolic_note(claim.id)})
    return _finish(outcome, start,
                   f"{source}, labels {i}, {j} (from 0): cos(w_{i}, w_{j}) = "
                   f"{_cosine_value(W[i], W[j])} becomes -1 and +1 in two models with the "
                   f"same logit differences for every x")


# --- Appendix D ------------------------------------------------------------------------

def _distance_squared(a, b) -> fmpq:
    diff = [s - t for s, t in zip(_vector(a), _vector(b))]
    return _dot(diff, diff)


def _normalised_distance_squared(a, b) -> SqrtSum | None:
    """``|a/|a| - b/|b||^2`` exactly, with the norms as square roots (None for a zero
    vector, which has no direction)."""
    a, b = _vector(a), _vector(b)
    if not any(a) or not any(b):
        return None
    na, nb = SqrtSum.sqrt(_dot(a, a)), SqrtSum.sqrt(_dot(b, b))
    diff = [SqrtSum(s) / na - SqrtSum(t) / nb for s, t in zip(a, b)]
    return sum((e * e for e in diff), SqrtSum(0))


def check_appendix_d(W, i, j, inputs, c=fmpq(2), embedding_scale=None,
                     models=paper_models, symbolic: bool = True) -> ClaimOutcome:
    """Dot products and distances between unembeddings versus equivalent models.

    ``embedding_scale(c)`` is the factor on the embeddings that accompanies ``W -> cW``
    (the paper's is ``1/c``).
    """
    outcome = ClaimOutcome("appendix D")
    scale_of = embedding_scale if embedding_scale is not None else (lambda t: 1 / t)
    W = [_vector(row) for row in W]
    c = _q(c)
    minus, plus = (list(map(_vector, m)) for m in models(W, i, j))
    if symbolic:
        _add_facts(outcome, softmax_proofs.logit_differences_invariance())
    for name, model in (("model -", minus), ("model +", plus)):
        _check_equivalent(outcome, name, W, model, inputs)
    dot_minus, dot_plus = _dot(minus[i], minus[j]), _dot(plus[i], plus[j])
    outcome.add(f"the dot product w_{i}.w_{j} has opposite signs in the two equivalent "
                f"models", dot_minus * dot_plus < 0,
                f"W: {format_rational(_dot(W[i], W[j]))}, model -: "
                f"{format_rational(dot_minus)}, model +: {format_rational(dot_plus)}")
    n_minus = _normalised_distance_squared(minus[i], minus[j])
    n_plus = _normalised_distance_squared(plus[i], plus[j])
    outcome.add("the normalised Euclidean distance |w_i/|w_i| - w_j/|w_j||^2 = 2 - 2 cos "
                "differs between the two equivalent models",
                None not in (n_minus, n_plus) and n_minus != n_plus,
                f"model -: {n_minus}, model +: {n_plus}")
    # W -> cW, f -> f/c
    if symbolic:
        _add_facts(outcome, softmax_proofs.scaling_invariance(embedding_scale=embedding_scale))
    s = _q(scale_of(c))
    scaled = [[c * a for a in row] for row in W]
    kept = [x for x in inputs
            if _logits(scaled, [s * t for t in x]) == _logits(W, x)]
    outcome.add(f"W -> {format_rational(c)} W with f -> {format_rational(s)} f: every "
                f"logit (so every probability) unchanged on {len(inputs)} rational inputs",
                len(kept) == len(inputs), f"{len(kept)} of {len(inputs)} agree")
    before, after = _distance_squared(W[i], W[j]), _distance_squared(scaled[i], scaled[j])
    outcome.add(f"the Euclidean distance |w_{i} - w_{j}| changes under the scaling",
                SqrtSum.sqrt(before) != SqrtSum.sqrt(after),
                f"{SqrtSum.sqrt(before)} -> {SqrtSum.sqrt(after)}")
    return outcome


def _appendix_d_certificate(claim_id, W, i, j, c) -> dict:
    minus, plus = (list(map(_vector, m)) for m in paper_models(W, i, j))
    scaled = [[c * a for a in row] for row in W]
    return instance_certificate(
        claim_id,
        {"W": exact_rows(W), "labels": [i, j], "c": exact(c),
         "inputs": exact_rows(_inputs(len(W[0])))},
        {"dots": [exact(_dot(m[i], m[j])) for m in (minus, plus)],
         "normalised_distances": [exact(_normalised_distance_squared(m[i], m[j]))
                                  for m in (minus, plus)],
         "distances_squared": [exact(_distance_squared(V[i], V[j])) for V in (W, scaled)]},
        {"W_minus": exact_rows(minus), "W_plus": exact_rows(plus),
         "symbolic": symbolic_note(claim_id)})


def run_appendix_d(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    W, source = _matrix_from(options)
    i, j = _pair_from(options, W, source, claim.id)
    c = fmpq(2)
    outcome = check_appendix_d(W, i, j, _inputs(len(W[0])), c=c)
    outcome.claim = claim.id
    if outcome.holds:
        outcome.certificate = _appendix_d_certificate(claim.id, W, i, j, c)
    return _finish(outcome, start,
                   f"{source}, labels {i}, {j}: dot product -/+ and normalised distance "
                   f"4/0 in two equivalent models; W -> 2W, f -> f/2 keeps the logits and "
                   f"doubles |w_{i} - w_{j}|")
