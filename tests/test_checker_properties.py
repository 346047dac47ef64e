"""Property tests of the certificate checker: random valid certificates are accepted, and
each single-condition violation of one is rejected.

A violation breaks exactly one of the conditions the checker verifies and keeps the
rest exact: a witness moved onto a hyperplane or into another cell, Gordan multipliers
all negated or all zero (the sum stays exactly zero), a listed sign vector dropped or
one that is not a cell added; for tie proofs, a negated multiplier vector, all-zero
multipliers, a tie point moved off the tie line; for sums of square roots, signs
against the norm of a quadratic integer. Whether a change really breaks the condition
is decided here independently (with ``Fraction``), before the checker is asked.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from math import isqrt

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verify.certificates.writers import claim_certificate, pattern_certificate
from verify.checker.core import CertificateError, check_certificate
from verify.checker.claims import _check_no_tie, _is_tie
from verify.checker.roots import SQUARE_ROOTS, RootSum
from verify.lp.feasibility import GordanCertificate, strict_feasibility
from verify.numbers.sqrt_sum import SqrtSum

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.filter_too_much])

ROWS = st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=3), min_size=2,
                max_size=5).filter(lambda M: len({len(r) for r in M}) == 1
                                   and all(any(r) for r in M))


def rejected(cert, match=None):
    with pytest.raises(CertificateError, match=match):
        check_certificate(cert)


def fresh(cert):
    return json.loads(json.dumps(cert))


def sign_vector(M, z) -> str:
    out = ""
    for row in M:
        v = sum(Fraction(a) * Fraction(b) for a, b in zip(row, z))
        out += "+" if v > 0 else "-" if v < 0 else "0"
    return out


def sign_certificate(M):
    cert = fresh(pattern_certificate(M, kind="sign", affine=False))
    assert check_certificate(copy.deepcopy(cert)).startswith("sign pattern")
    return cert


def draw_index(data, items) -> int:
    """An index into the non-empty list ``items`` (examples with an empty one are
    discarded)."""
    assume(items)
    return data.draw(st.integers(0, len(items) - 1))


# --- sign-pattern certificates ------------------------------------------------------------

@SETTINGS
@given(ROWS)
def test_random_sign_pattern_certificates_are_accepted(M):
    cert = sign_certificate(M)
    # Independently: every witness lies in its cell.
    for cell in cert["evidence"]["cells"]:
        assert sign_vector(M, cell["witness"]) == cell["signs"]


@SETTINGS
@given(ROWS, st.data())
def test_witness_moved_onto_a_hyperplane_is_rejected(M, data):
    cert = sign_certificate(M)
    cells = cert["evidence"]["cells"]
    c = data.draw(st.integers(0, len(cells) - 1))
    r = data.draw(st.integers(0, len(M) - 1))
    z = [Fraction(a) for a in cells[c]["witness"]]
    m = [Fraction(a) for a in M[r]]
    # The orthogonal projection of z onto the hyperplane m . x = 0.
    t = sum(a * b for a, b in zip(m, z)) / sum(a * a for a in m)
    cells[c]["witness"] = [str(a - t * b) for a, b in zip(z, m)]
    assert "0" in sign_vector(M, cells[c]["witness"])
    rejected(cert, "witness gives sign vector")


@SETTINGS
@given(ROWS, st.data())
def test_witness_of_another_cell_is_rejected(M, data):
    cert = sign_certificate(M)
    cells = cert["evidence"]["cells"]
    c, e = data.draw(st.lists(st.integers(0, len(cells) - 1), min_size=2, max_size=2,
                              unique=True))
    cells[c]["witness"] = cells[e]["witness"]
    rejected(cert, "witness gives sign vector")


@SETTINGS
@given(ROWS, st.data())
def test_refutation_multipliers_negated_or_zeroed_are_rejected(M, data):
    cert = sign_certificate(M)
    refutations = cert["evidence"]["refutations"]
    t = draw_index(data, refutations)
    pairs = refutations[t]["multipliers"]
    negated = copy.deepcopy(cert)
    negated["evidence"]["refutations"][t]["multipliers"] = [
        [r, str(-Fraction(y))] for r, y in pairs]
    rejected(negated, "has y < 0")
    zeroed = copy.deepcopy(cert)
    zeroed["evidence"]["refutations"][t]["multipliers"] = [[r, "0"] for r, y in pairs]
    rejected(zeroed, "every multiplier is zero")
    emptied = copy.deepcopy(cert)
    emptied["evidence"]["refutations"][t]["multipliers"] = []
    rejected(emptied, "no multipliers")


@SETTINGS
@given(ROWS, st.data())
def test_refutation_with_one_multiplier_changed_is_rejected_iff_the_sum_breaks(M, data):
    cert = sign_certificate(M)
    refutations = cert["evidence"]["refutations"]
    t = draw_index(data, refutations)
    refutation = refutations[t]
    m = data.draw(st.integers(0, len(refutation["multipliers"]) - 1))
    factor = data.draw(st.sampled_from([Fraction(2), Fraction(1, 3), Fraction(0)]))
    row, y = refutation["multipliers"][m]
    refutation["multipliers"][m] = [row, str(Fraction(y) * factor)]
    # Recompute sum_r y_r s_r M_r for the flipped sign vector, independently.
    cells = cert["assertion"]["patterns"]
    flipped = list(cells[refutation["cell"]])
    i = refutation["row"]
    for r, a in enumerate(M):
        parallel = all(a[p] * M[i][q] == a[q] * M[i][p] for p in range(len(a))
                       for q in range(len(a)))
        if parallel:
            flipped[r] = "-" if flipped[r] == "+" else "+"
    total = [Fraction(0)] * len(M[0])
    for r, y in refutation["multipliers"]:
        s = 1 if flipped[r] == "+" else -1
        total = [v + s * Fraction(y) * a for v, a in zip(total, M[r])]
    if any(total) or not any(Fraction(y) for _, y in refutation["multipliers"]):
        rejected(cert)
    else:
        check_certificate(cert)


@SETTINGS
@given(ROWS, st.data())
def test_dropped_or_added_sign_vectors_are_rejected(M, data):
    cert = sign_certificate(M)
    patterns = cert["assertion"]["patterns"]
    c = data.draw(st.integers(0, len(patterns) - 1))
    # Drop a cell: refutations that point to later cells are renumbered.
    dropped = copy.deepcopy(cert)
    del dropped["assertion"]["patterns"][c], dropped["evidence"]["cells"][c]
    dropped["assertion"]["count"] -= 1
    kept = []
    for refutation in dropped["evidence"]["refutations"]:
        if refutation["cell"] != c:
            refutation["cell"] -= refutation["cell"] > c
            kept.append(refutation)
    dropped["evidence"]["refutations"] = kept
    assume(dropped["assertion"]["patterns"])
    rejected(dropped)
    # Add a sign vector that is not a cell (with some witness): the witness fails.
    others = [s for s in ("".join(p) for p in _sign_vectors(len(M))) if s not in patterns]
    assume(others)
    extra = data.draw(st.sampled_from(others))
    added = copy.deepcopy(cert)
    added["assertion"]["patterns"].append(extra)
    added["assertion"]["count"] += 1
    added["evidence"]["cells"].append({"signs": extra,
                                       "witness": cert["evidence"]["cells"][c]["witness"]})
    rejected(added)


def _sign_vectors(n):
    if n == 0:
        yield ""
        return
    for rest in _sign_vectors(n - 1):
        yield "+" + rest
        yield "-" + rest


# --- cosine-side certificates (sums of square roots) --------------------------------------

COSINE_ROWS = st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2), min_size=2,
                       max_size=4, unique_by=tuple).filter(lambda M: all(any(r) for r in M))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(COSINE_ROWS, st.data())
def test_cosine_side_single_violations_are_rejected(W, data):
    cert = fresh(claim_certificate("lemma 5.3", W))
    assert check_certificate(copy.deepcopy(cert)).startswith("lemma 5.3")
    cosine = cert["evidence"]["cosine"]
    cells = cosine["cells"]
    c, e = data.draw(st.lists(st.integers(0, len(cells) - 1), min_size=2, max_size=2,
                              unique=True))
    swapped = copy.deepcopy(cert)
    swapped["evidence"]["cosine"]["cells"][c]["witness"] = cells[e]["witness"]
    rejected(swapped, "witness gives sign vector")
    zero = copy.deepcopy(cert)
    zero["evidence"]["cosine"]["cells"][c]["witness"] = ["0"] * len(cells[c]["witness"])
    rejected(zero, "witness gives sign vector")
    if cosine["refutations"]:
        t = data.draw(st.integers(0, len(cosine["refutations"]) - 1))
        negated = copy.deepcopy(cert)
        pairs = negated["evidence"]["cosine"]["refutations"][t]["multipliers"]
        negated["evidence"]["cosine"]["refutations"][t]["multipliers"] = [
            [r, str(-SQUARE_ROOTS.parse(y, "y"))] for r, y in pairs]
        rejected(negated, "has y < 0")
        zeroed = copy.deepcopy(cert)
        zeroed["evidence"]["cosine"]["refutations"][t]["multipliers"] = [
            [r, "0"] for r, _ in pairs]
        rejected(zeroed, "every multiplier is zero")


def norm_sign(a: int, b: int, d: int) -> int:
    """The sign of ``a + b sqrt(d)`` from the norm ``a^2 - d b^2`` (``d`` not a square)."""
    if a >= 0 and b >= 0 or a <= 0 and b <= 0:
        return (a > 0 or b > 0) - (a < 0 or b < 0)
    return 1 if (a if a * a - d * b * b > 0 else b) > 0 else -1


NON_SQUARES = st.integers(2, 10**6).filter(lambda d: isqrt(d) ** 2 != d)


@settings(max_examples=300, deadline=None)
@given(NON_SQUARES, st.integers(1, 10**40), st.sampled_from([0, 1]), st.sampled_from([1, -1]))
def test_root_sum_sign_of_best_approximations(d, y, up, orientation):
    """``x - y sqrt(d)`` with ``x`` the floor or the ceiling of ``y sqrt(d)``: the closest a
    binomial with that ``y`` gets to 0, against the exact sign from the norm."""
    x = isqrt(d * y * y) + up
    a, b = orientation * x, -orientation * y
    text = f"{a} {'-' if b < 0 else '+'} {abs(b)}*sqrt({d})"
    assert SQUARE_ROOTS.parse(text, "x").sign() == norm_sign(a, b, d)
    assert SqrtSum.from_terms([(1, a), (d, b)]).sign() == norm_sign(a, b, d)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(NON_SQUARES, st.integers(1, 10**12)), min_size=2, max_size=3,
                unique_by=lambda p: p[0]))
def test_root_sum_sign_of_products_of_near_zero_binomials(pairs):
    """``prod (x_i - y_i sqrt(d_i))`` expanded into up to 8 terms: its sign is the product
    of the signs of the factors (each decided from its norm)."""
    factors = [(isqrt(d * y * y), -y, d) for d, y in pairs]
    expected, value, checker_value = 1, SqrtSum(1), RootSum.of(1)
    for a, b, d in factors:
        expected *= norm_sign(a, b, d)
        value = value * SqrtSum.from_terms([(1, a), (d, b)])
        checker_value = checker_value * RootSum([(1, Fraction(a)), (d, Fraction(b))])
    assert value.sign() == expected
    assert checker_value.sign() == expected


# --- tie and no-tie proofs -------------------------------------------------------------

LABELS = st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=3, max_size=6,
                  unique=True)


def tie_or_proof(W, i, j):
    """A tie point ``x`` of labels ``i, j`` (``w_i.x = w_j.x > w_k.x``), or ``(y, t)`` of a
    Motzkin certificate, computed with the engine's Gordan solver on the tie line."""
    u = (W[j][1] - W[i][1], W[i][0] - W[j][0])  # (w_i - w_j) . u = 0
    others = [k for k in range(len(W)) if k not in (i, j)]
    rows = [[sum((W[i][c] - W[k][c]) * u[c] for c in range(2))] for k in others]
    evidence = strict_feasibility(rows)
    if not isinstance(evidence, GordanCertificate):
        s = evidence.point[0]
        return [Fraction(int(s.p), int(s.q)) * a for a in u]
    y = {others[r]: Fraction(int(v.p), int(v.q)) for r, v in evidence.multipliers}
    # sum_k y_k (w_i - w_k) is orthogonal to u, so -t (w_i - w_j) for one t.
    total = [sum(v * (W[i][c] - W[k][c]) for k, v in y.items()) for c in range(2)]
    c = 0 if W[i][0] != W[j][0] else 1
    t = -total[c] / (W[i][c] - W[j][c])
    return y, t


def proof_object(y, t):
    return {"multipliers": [[k, str(v)] for k, v in sorted(y.items())], "t": str(t)}


@settings(max_examples=150, deadline=None)
@given(LABELS, st.data())
def test_tie_and_no_tie_proofs(W, data):
    W = [[Fraction(a) for a in w] for w in W]
    i, j = data.draw(st.lists(st.integers(0, len(W) - 1), min_size=2, max_size=2,
                              unique=True))
    found = tie_or_proof(W, i, j)
    if isinstance(found, list):
        x = found
        assert _is_tie(W, x, i, j) and _is_tie(W, x, j, i)
        # Off the tie line by a tiny step, or at 0 (every label ties): not a tie.
        u = [W[i][0] - W[j][0], W[i][1] - W[j][1]]
        step = Fraction(1, 10**9)
        assert not _is_tie(W, [a + step * b for a, b in zip(x, u)], i, j)
        assert not _is_tie(W, [Fraction(0), Fraction(0)], i, j)
        return
    y, t = found
    _check_no_tie(W, i, j, proof_object(y, t), "proof")
    # A positive multiple is a proof too.
    c = data.draw(st.sampled_from([Fraction(2), Fraction(1, 7), Fraction(10**20)]))
    _check_no_tie(W, i, j, proof_object({k: c * v for k, v in y.items()}, c * t), "proof")
    # All negated: the sum stays zero, the multipliers are negative.
    with pytest.raises(CertificateError, match="y < 0"):
        _check_no_tie(W, i, j, proof_object({k: -v for k, v in y.items()}, -t), "proof")
    # All zero (t = 0 too): the sum is zero, nothing is proven.
    with pytest.raises(CertificateError, match="all zero"):
        _check_no_tie(W, i, j, proof_object({k: Fraction(0) for k in y}, Fraction(0)),
                      "proof")
    # t changed: the sum is no longer zero (w_i != w_j).
    with pytest.raises(CertificateError, match="is not 0"):
        _check_no_tie(W, i, j, proof_object(y, t + 1), "proof")
    # A multiplier on label j (or i) is refused even when the sum is kept at zero.
    with pytest.raises(CertificateError, match="is i, j or repeated"):
        _check_no_tie(W, i, j, proof_object({**y, j: Fraction(1)}, t - 1), "proof")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(LABELS, st.data())
def test_a_pair_with_a_tie_point_has_no_proof(W, data):
    """Soundness, cross-checked: when a tie point exists, the checker rejects every
    candidate ``(y, t)`` drawn at random that sums to zero (there is none with y >= 0)."""
    W = [[Fraction(a) for a in w] for w in W]
    i, j = data.draw(st.lists(st.integers(0, len(W) - 1), min_size=2, max_size=2,
                              unique=True))
    x = tie_or_proof(W, i, j)
    assume(isinstance(x, list))
    others = [k for k in range(len(W)) if k not in (i, j)]
    assume(len(others) >= 2)
    # Any two other labels give a combination of their differences parallel to w_i - w_j
    # (when they are independent): y_a (w_i - w_a) + y_b (w_i - w_b) + t (w_i - w_j) = 0.
    a, b = data.draw(st.lists(st.sampled_from(others), min_size=2, max_size=2, unique=True))
    da = [W[i][c] - W[a][c] for c in range(2)]
    db = [W[i][c] - W[b][c] for c in range(2)]
    dij = [W[i][c] - W[j][c] for c in range(2)]
    det = da[0] * db[1] - da[1] * db[0]
    assume(det != 0)
    ya = -(dij[0] * db[1] - dij[1] * db[0]) / det
    yb = -(da[0] * dij[1] - da[1] * dij[0]) / det
    assert [ya * p + yb * q + r for p, q, r in zip(da, db, dij)] == [0, 0]
    with pytest.raises(CertificateError):
        _check_no_tie(W, i, j, proof_object({a: ya, b: yb}, Fraction(1)), "proof")
    with pytest.raises(CertificateError):
        _check_no_tie(W, i, j, proof_object({a: -ya, b: -yb}, Fraction(-1)), "proof")
