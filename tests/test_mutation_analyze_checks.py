"""The exact checks of ``analyze`` against their definitions, on random and forged input.

``is_argmax_witness``, ``is_argmax_certificate``, ``is_tie_witness``,
``is_no_tie_certificate`` and ``motzkin_sum_vanishes`` decide every answer of
``verify analyze`` before it is reported. Here each is compared with its definition,
evaluated with ``fractions.Fraction``, on random integer heads and points, and handed
certificates that are right except for one condition (a negative multiplier with a
vanishing sum, all-zero multipliers, a multiplier on label ``i`` or ``j`` or outside the
head, a point where a third label reaches the top).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from verify.analyze.argmax import is_argmax_certificate, is_argmax_witness
from verify.analyze.ties import (
    NoTieCertificate,
    is_no_tie_certificate,
    is_tie_witness,
    motzkin_sum_vanishes,
)

entries = st.integers(-3, 3)


@st.composite
def heads(draw, min_labels=2):
    n = draw(st.integers(min_labels, 5))
    d = draw(st.integers(1, 3))
    return [[draw(entries) for _ in range(d)] for _ in range(n)]


def logits(W, x):
    return [sum(Fraction(a) * b for a, b in zip(w, x)) for w in W]


def combination(W, i, pairs, j=None, t=0):
    """``t (w_i - w_j) + sum_k y_k (w_i - w_k)``, coordinate by coordinate."""
    d = len(W[i])
    total = [Fraction(t) * (W[i][c] - W[j][c]) if j is not None else Fraction(0)
             for c in range(d)]
    for k, y in pairs:
        total = [s + Fraction(y) * (W[i][c] - W[k][c]) for c, s in enumerate(total)]
    return total


@settings(max_examples=100, deadline=None)
@given(heads(), st.data())
def test_argmax_witness_is_the_definition(W, data):
    i = data.draw(st.integers(0, len(W) - 1))
    x = [Fraction(data.draw(entries), data.draw(st.integers(1, 3))) for _ in W[0]]
    top = logits(W, x)
    expected = all(v < top[i] for k, v in enumerate(top) if k != i)
    assert is_argmax_witness(W, i, x) is expected


@settings(max_examples=100, deadline=None)
@given(heads(min_labels=3), st.data())
def test_tie_witness_is_the_definition(W, data):
    i, j = data.draw(st.lists(st.integers(0, len(W) - 1), min_size=2, max_size=2,
                              unique=True))
    x = [Fraction(data.draw(entries)) for _ in W[0]]
    v = logits(W, x)
    expected = v[i] == v[j] and all(v[k] < v[i] for k in range(len(W)) if k not in (i, j))
    assert is_tie_witness(W, i, j, x) is expected


def test_tie_witness_rejects_a_third_label_at_the_top():
    W = [[1, 0], [-1, 0], [0, 0], [0, -1]]
    # at x = (0, 1): logits 0, 0, 0, -1: label 2 reaches the top as well
    assert not is_tie_witness(W, 0, 1, [0, 1])
    W = [[1, 1], [-1, 1], [0, 1], [0, -1]]
    # at x = (0, 1): logits 1, 1, 1, -1: labels 0, 1 tie and label 2 ties with them
    assert not is_tie_witness(W, 0, 1, [0, 1])
    assert not is_tie_witness(W, 0, 2, [0, 1])
    # at x = (0, 1) with label 2 lowered it is a tie point
    W[2] = [0, 0]
    assert is_tie_witness(W, 0, 1, [0, 1])
    # the two labels must tie exactly
    assert not is_tie_witness(W, 0, 1, [Fraction(1, 10**30), 1])
    # a tie below another label is not a tie for the top
    W[3] = [0, 2]
    assert not is_tie_witness(W, 0, 1, [0, 1])


@st.composite
def argmax_certificates(draw):
    """A head with label ``i`` a non-negative combination of the others (so it is never
    strictly first) and the multipliers that show it."""
    W = draw(heads(min_labels=2))
    n, d = len(W), len(W[0])
    i = draw(st.integers(0, n - 1))
    others = [k for k in range(n) if k != i]
    ys = [Fraction(draw(st.integers(0, 3)), draw(st.integers(1, 3))) for _ in others]
    if not any(ys):
        ys[0] = Fraction(1)
    total = sum(ys)
    # w_i = sum_k (y_k / total) w_k: then sum_k y_k (w_i - w_k) = 0
    W = [[Fraction(a) for a in row] for row in W]
    W[i] = [sum(y * W[k][c] for y, k in zip(ys, others)) / total for c in range(d)]
    return W, i, [(k, y) for k, y in zip(others, ys) if y]


@settings(max_examples=100, deadline=None)
@given(argmax_certificates(), st.data())
def test_argmax_certificates_and_their_single_violations(case, data):
    W, i, pairs = case
    assert all(v == 0 for v in combination(W, i, pairs))
    assert is_argmax_certificate(W, i, pairs)
    assert is_argmax_certificate(W, i, iter(pairs))  # any iterable of pairs
    scale = Fraction(data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5)))
    assert is_argmax_certificate(W, i, [(k, y * scale) for k, y in pairs])
    # negated: sums to zero, every multiplier <= 0
    assert not is_argmax_certificate(W, i, [(k, -y) for k, y in pairs])
    # all zero, and none
    assert not is_argmax_certificate(W, i, [(k, 0 * y) for k, y in pairs])
    assert not is_argmax_certificate(W, i, [])
    # a multiplier on label i itself (its term is zero, so the sum still vanishes)
    assert not is_argmax_certificate(W, i, pairs + [(i, Fraction(1))])
    # a label outside the head
    assert not is_argmax_certificate(W, i, pairs + [(len(W), Fraction(0))])
    assert not is_argmax_certificate(W, i, pairs + [(-1, Fraction(0))])
    # one multiplier changed: rejected exactly when the sum no longer vanishes
    m = data.draw(st.integers(0, len(pairs) - 1))
    changed = [(k, y + 1 if n == m else y) for n, (k, y) in enumerate(pairs)]
    assert is_argmax_certificate(W, i, changed) is all(
        v == 0 for v in combination(W, i, changed))


def test_argmax_certificate_with_a_negative_multiplier_and_a_zero_sum():
    # w_0 = 2 w_1 - w_2: y = (2, -1) sums to zero but is no certificate; w_0 = (0, 0),
    # w_1 = (1, 0), w_2 = (2, 0): label 0 is first at x = (-1, 0).
    W = [[0, 0], [1, 0], [2, 0]]
    assert all(v == 0 for v in combination(W, 0, [(1, 2), (2, -1)]))
    assert is_argmax_witness(W, 0, [-1, 0])
    assert not is_argmax_certificate(W, 0, [(1, 2), (2, -1)])
    assert not is_argmax_certificate(W, 0, [(2, -1), (1, 2)])


@st.composite
def no_tie_certificates(draw):
    """A head in which ``w_i . x = w_j . x`` forces some other label to at least the same
    logit: ``t (w_i - w_j) + sum_k y_k (w_i - w_k) = 0`` with ``y >= 0``, ``y != 0``."""
    W = draw(heads(min_labels=3))
    n, d = len(W), len(W[0])
    i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    others = [k for k in range(n) if k not in (i, j)]
    ys = [Fraction(draw(st.integers(0, 3)), draw(st.integers(1, 3))) for _ in others]
    if not any(ys):
        ys[0] = Fraction(1)
    t = Fraction(draw(entries), draw(st.integers(1, 3)))
    W = [[Fraction(a) for a in row] for row in W]
    # choose w_i to make the sum vanish: (t + sum y) w_i = t w_j + sum y_k w_k
    s = t + sum(ys)
    if s == 0:
        t += 1
        s += 1
    W[i] = [(t * W[j][c] + sum(y * W[k][c] for y, k in zip(ys, others))) / s
            for c in range(d)]
    return W, i, j, [(k, y) for k, y in zip(others, ys) if y], t


@settings(max_examples=100, deadline=None)
@given(no_tie_certificates(), st.data())
def test_no_tie_certificates_and_their_single_violations(case, data):
    W, i, j, pairs, t = case
    assert all(v == 0 for v in combination(W, i, pairs, j, t))
    cert = NoTieCertificate(multipliers=tuple(pairs), tie=t)
    assert motzkin_sum_vanishes(W, i, j, cert)
    assert is_no_tie_certificate(W, i, j, cert)

    def forged(multipliers, tie=t):
        return NoTieCertificate(multipliers=tuple(multipliers), tie=tie)

    assert not is_no_tie_certificate(W, i, j, forged([(k, -y) for k, y in pairs], -t))
    assert not is_no_tie_certificate(W, i, j, forged([(k, 0 * y) for k, y in pairs], 0))
    assert not is_no_tie_certificate(W, i, j, forged([]))
    assert not is_no_tie_certificate(W, i, j, forged(pairs + [(i, Fraction(0))]))
    assert not is_no_tie_certificate(W, i, j, forged(pairs + [(j, Fraction(0))]))
    assert not is_no_tie_certificate(W, i, j, forged(pairs + [(len(W), Fraction(0))]))
    assert not is_no_tie_certificate(W, i, j, forged(pairs + [(-1, Fraction(0))]))
    # t changed, or one multiplier changed: rejected iff the sum breaks
    dt = Fraction(data.draw(st.integers(1, 3)))
    moved = forged(pairs, t + dt)
    vanishes = all(v == 0 for v in combination(W, i, pairs, j, t + dt))
    assert motzkin_sum_vanishes(W, i, j, moved) is vanishes
    assert is_no_tie_certificate(W, i, j, moved) is vanishes
    m = data.draw(st.integers(0, len(pairs) - 1))
    changed = [(k, y + 1 if n == m else y) for n, (k, y) in enumerate(pairs)]
    vanishes = all(v == 0 for v in combination(W, i, changed, j, t))
    assert is_no_tie_certificate(W, i, j, forged(changed)) is vanishes


def test_the_c2_no_tie_forgery_with_a_negative_multiplier():
    # Example C.2: pair (0, 4) does tie (at x = (-7, -23)); y_2 = -31/69, y_3 = 1,
    # t = -41/69 is an exact zero sum with a negative multiplier.
    W = [[Fraction(7, 5), -1], [Fraction(7, 5), 1], [Fraction(-9, 10), Fraction(3, 10)],
         [-1, 0], [Fraction(-9, 10), Fraction(-3, 10)]]
    assert is_tie_witness(W, 0, 4, [-7, -23])
    cert = NoTieCertificate(multipliers=((2, Fraction(-31, 69)), (3, Fraction(1))),
                            tie=Fraction(-41, 69))
    assert motzkin_sum_vanishes(W, 0, 4, cert)
    assert not is_no_tie_certificate(W, 0, 4, cert)


def test_motzkin_sum_is_checked_in_every_coordinate():
    # The sum vanishes in the first coordinate only.
    W = [[1, 0], [0, 1], [-1, 0]]
    cert = NoTieCertificate(multipliers=((2, Fraction(1)),), tie=Fraction(-2))
    # t (w_0 - w_1) + y (w_0 - w_2) = -2 (1, -1) + (2, 0) = (0, 2)
    assert not motzkin_sum_vanishes(W, 0, 1, cert)
    assert not is_no_tie_certificate(W, 0, 1, cert)
    W = [[1, 0], [0, 1], [-1, 2]]
    # -2 (1, -1) + (2, -2) = (0, 0)
    assert motzkin_sum_vanishes(W, 0, 1, cert)
    assert is_no_tie_certificate(W, 0, 1, cert)


def test_zero_and_fractional_multipliers_are_allowed():
    # The definition asks y >= 0 and y != 0: a zero entry beside positive ones is part of
    # a valid certificate, and so is a multiplier below 1.
    # w_0 = (w_1 + w_2) / 2: y_1 = y_2 = 1/2, label 3 carries y_3 = 0.
    W = [[0, 0], [1, 0], [-1, 0], [0, 5]]
    pairs = [(1, Fraction(1, 2)), (2, Fraction(1, 2)), (3, Fraction(0))]
    assert all(v == 0 for v in combination(W, 0, pairs))
    assert is_argmax_certificate(W, 0, pairs)
    assert is_argmax_certificate(W, 0, pairs[:2])
    assert is_argmax_certificate(W, 0, [pairs[2]] + pairs[:2])
    # 1/2 (w_0 - w_1) + 1/2 (w_0 - w_2) + 1/2 (w_0 - w_3) = 0 for the pair (0, 1):
    # t = 1/2, y_2 = y_3 = 1/2, label 4 carries y_4 = 0.
    W = [[0, 0], [2, 0], [1, 0], [-3, 0], [0, 5]]
    pairs = [(2, Fraction(1, 2)), (3, Fraction(1, 2)), (4, Fraction(0))]
    t = Fraction(1, 2)
    assert all(v == 0 for v in combination(W, 0, pairs, 1, t))
    for multipliers in (pairs, pairs[:2], [pairs[2]] + pairs[:2]):
        cert = NoTieCertificate(multipliers=tuple(multipliers), tie=t)
        assert motzkin_sum_vanishes(W, 0, 1, cert)
        assert is_no_tie_certificate(W, 0, 1, cert)
    # the same with every multiplier zero is no certificate
    cert = NoTieCertificate(multipliers=((4, Fraction(0)),), tie=Fraction(0))
    assert motzkin_sum_vanishes(W, 0, 1, cert)
    assert not is_no_tie_certificate(W, 0, 1, cert)


# --- the engine's exact acceptance of proposals ----------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.integers(0, 62), st.data())
def test_head_signs_agree_with_the_exact_checks_near_cancellation(n, d, bits, data):
    """``ExactHead.margin_signs`` and ``wins`` (with and without partners) decide every
    proposal of the engine; here they are compared with ``is_argmax_witness``,
    ``is_tie_witness`` and Python integers on rows that share a common part of up to 62
    bits and differ by a few units, at points short and longer than 2^53, and at 0."""
    from verify.analyze.head import make_head

    common = data.draw(st.lists(st.integers(-2 ** bits, 2 ** bits), min_size=d, max_size=d))
    Z = [[max(-(2 ** 62), min(2 ** 62, c + data.draw(st.integers(-2, 2)))) for c in common]
         for _ in range(n)]
    head = make_head(Z)
    W = [list(row) for row in head.Z]  # the primitive integer rows of the head
    entry = st.one_of(st.integers(-2, 2), st.integers(-2 ** 80, 2 ** 80))
    points = [tuple(data.draw(entry) for _ in range(d)) for _ in range(3)] + [(0,) * d]
    targets = [data.draw(st.integers(0, n - 1)) for _ in points]
    partners = [data.draw(st.integers(0, n - 1).filter(lambda p, t=t: p != t))
                for t in targets]
    signs = head.margin_signs(points, targets)
    assert signs.dtype.name == "int8" and signs.shape == (n, len(points))  # as documented
    wins = head.wins(points, targets)
    ties = head.wins(points, targets, partners=partners)
    for c, (x, t, p) in enumerate(zip(points, targets, partners)):
        top = _python_dot(W[t], x)
        assert [int(s) for s in signs[:, c]] == [
            (top > v) - (top < v) for v in (_python_dot(w, x) for w in W)]
        assert wins[c] is is_argmax_witness(W, t, x)
        assert ties[c] is is_tie_witness(W, t, p, x)


def _python_dot(u, v):
    return sum(int(a) * int(b) for a, b in zip(u, v))


def test_a_float_margin_with_the_wrong_sign_goes_to_the_exact_check():
    # z_0 = (2^61 + 5, 2^61), z_1 = (3, 0) at x = (1, -1): exactly z_0 . x = 5 > 3 =
    # z_1 . x, but 2^61 + 5 rounds to 2^61 in float64, where z_0 . x comes out 0 < 3.
    from verify.analyze.head import make_head

    head = make_head([[2 ** 61 + 5, 2 ** 61], [3, 0]])
    W = [list(row) for row in head.Z]
    x = (1, -1)
    assert _python_dot(W[0], x) > _python_dot(W[1], x)
    F = [float(v) for v in W[0]]
    assert F[0] * x[0] + F[1] * x[1] < _python_dot(W[1], x)  # the float product errs
    assert head.wins([x], [0]) == [True]
    assert head.wins([x], [1]) == [False]
    assert head.margin_signs([x], [0]).ravel().tolist() == [0, 1]
    # at the zero point every label scores 0: no winner; a tie only between two labels
    assert head.wins([(0, 0)], [0]) == [False]
    assert head.wins([(0, 0)], [0], partners=[1]) == [True]
    assert head.margin_signs([(0, 0)], [0]).ravel().tolist() == [0, 0]


class _Columns:
    """A budget that hands out blocks of exactly ``k`` columns."""

    def __init__(self, k):
        self.k = k

    def columns(self, bytes_per_column, limit=None):
        return self.k


class _Count:
    def __init__(self):
        self.n = 0

    def update(self, k):
        self.n += k


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.integers(1, 3), st.data())
def test_head_signs_are_the_same_in_blocks_of_any_width(n, d, width, data):
    """``margin_signs`` and ``wins`` take the points in blocks of the budget's width:
    blocks of one to three columns give the answers of one block, column by column,
    and the progress counts every point once."""
    from verify.analyze.head import make_head

    Z = [data.draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d)) for _ in range(n)]
    head = make_head(Z)
    W = [list(row) for row in head.Z]
    m = data.draw(st.integers(1, 7))
    points = [tuple(data.draw(st.integers(-2, 2)) for _ in range(d)) for _ in range(m)]
    targets = [data.draw(st.integers(0, n - 1)) for _ in points]
    partners = [data.draw(st.integers(0, n - 1).filter(lambda p, t=t: p != t))
                for t in targets]
    head.budget = _Columns(width)
    progress = [_Count(), _Count()]
    wins = head.wins(points, targets, progress=progress[0])
    ties = head.wins(points, targets, partners=partners, progress=progress[1])
    signs = head.margin_signs(points, targets)
    assert [p.n for p in progress] == [m, m]
    assert signs.shape == (n, m)
    for c, (x, t, p) in enumerate(zip(points, targets, partners)):
        assert wins[c] is is_argmax_witness(W, t, x)
        assert ties[c] is is_tie_witness(W, t, p, x)
        top = _python_dot(W[t], x)
        assert [int(s) for s in signs[:, c]] == [
            (top > v) - (top < v) for v in (_python_dot(w, x) for w in W)]


# --- the exact checks of convex weights and of equal rows' no-tie certificates ----------


def _convex_weights_hold(W, i, support, Y, D) -> bool:
    """The definition: ``D z_i = sum_k Y_k z_k``, ``sum Y = D > 0``, ``Y >= 0``, ``i``
    not in the support, in Python integers."""
    return (D > 0 and sum(Y) == D and all(y >= 0 for y in Y) and i not in support
            and all(D * W[i][c] == sum(y * W[k][c] for k, y in zip(support, Y))
                    for c in range(len(W[i]))))


def test_exact_weights_on_a_face_outside_and_with_wrong_supports():
    """``exact_weights`` (the convex weights of the interior pass and of
    ``label_certificate``) against the definition: a point on a face of the simplex
    has a zero weight and is accepted, a point outside is not, several labels are
    solved at once column by column, and supports that are empty or too long give no
    weights."""
    from verify.analyze.head import make_head
    from verify.analyze.interior import exact_weights

    head = make_head([[0, 0, 0], [4, 0, 0], [0, 4, 0], [1, 1, 1], [1, 1, 0], [0, 0, 9],
                      [9, 9, 9], [1, 1, 0]])
    W = [list(row) for row in head.Z]
    support = [0, 1, 2, 5]                      # a simplex of R^3 (d + 1 labels)
    labels = [4, 6, 3]                          # on the face z = 0, outside, inside
    got = exact_weights(head, labels, support)
    for i, found in zip(labels, got):
        inside = i != 6
        assert (found is not None) is inside
        if found is not None:
            Y, D = found
            assert _convex_weights_hold(W, i, support, Y, D)
            assert is_argmax_certificate(W, i, list(zip(support, Y)))
    # the weights of the face point are unique, and the one of the label off the face
    # (z = 9) is 0: a zero weight is allowed
    Y, D = got[0]
    assert Y[support.index(5)] == 0 and all(Y[r] > 0 for r in range(3))
    # the labels one at a time give the same answers
    assert [exact_weights(head, [i], support)[0] for i in labels] == got
    assert exact_weights(head, [4], []) == [None]
    # a support of one label: weights exist exactly for a copy of the row (7 of 4)
    assert exact_weights(head, [4, 3], [7]) == [([1], 1), None]
    assert exact_weights(head, [3], [0, 1, 2, 5, 6]) == [None]   # more than d + 1 labels
    # a label in its own support has the trivial weights z_i = z_i: refused
    assert exact_weights(head, [4], [0, 1, 4, 5]) == [None]


def test_equal_rows_certificates_with_one_violated_condition_are_rejected(monkeypatch):
    """``_equal_rows_inside`` checks the weights it is handed (the interior pass's, in
    integers) before it turns them into a no-tie certificate of two equal rows. Each
    case below is right except for one condition; the valid ones (one with a zero
    weight, one on a third copy of the row with ``D = 1``) are accepted and give a
    certificate that satisfies the definition."""
    from verify.analyze import interior as interior_module
    from verify.analyze import ties as ties_module
    from verify.analyze.head import make_head

    # z_0 = z_1 = z_7 = (2, 2), inside the square 2, 3, 4, 5; label 2 is the zero row.
    head = make_head([[2, 2], [2, 2], [0, 0], [4, 0], [0, 4], [4, 4], [1, 3], [2, 2]])
    W = [list(row) for row in head.Z]
    i, j = 0, 1

    def answer(support, Y, D):
        monkeypatch.setattr(interior_module, "certify_cluster",
                            lambda head, task, exact=False: {i: (tuple(support), list(Y), D)})
        return ties_module._equal_rows_inside(head, i, j)

    valid = [((2, 5), (1, 1), 2), ((3, 4), (1, 1), 2), ((2, 3, 5), (1, 0, 1), 2),
             ((2, 3, 4, 5), (1, 1, 1, 1), 4), ((7,), (1,), 1)]
    for support, Y, D in valid:
        assert _convex_weights_hold(W, i, support, Y, D)
        cert = answer(support, Y, D)
        assert cert is not None, (support, Y, D)
        assert cert.tie == 0
        assert sorted((k, Fraction(int(y.p), int(y.q))) for k, y in cert.multipliers) == \
            sorted((k, Fraction(y, D)) for k, y in zip(support, Y) if y)
        assert is_no_tie_certificate(W, i, j, cert)
    invalid = [
        ((2, 5), (0, 0), 0),             # all zero, D = 0
        ((2, 5), (-1, -1), -2),          # D < 0
        ((2, 5), (3, 1), 2),             # the equations hold (z_2 = 0), the sum does not
        ((2, 3, 4, 5), (2, -1, -1, 2), 2),  # equations and sum hold, a weight negative
        ((3, 5), (1, 1), 2),             # the equations fail
        ((0,), (1,), 1),                 # label i itself
        ((1,), (1,), 1),                 # the partner j (equal row: the equations hold)
        ((2, 5, 0), (1, 1, 0), 2),       # label i with weight 0
        ((2, 2, 5), (1, 1, 2), 4),       # a label twice
    ]
    for support, Y, D in invalid:
        assert answer(support, Y, D) is None, (support, Y, D)


def test_label_certificate_against_the_definition(monkeypatch):
    """``label_certificate`` (convex weights ``w_i = sum lambda_k w_k`` on a
    proposed support) against the definition, by both exact routes (the integer null
    space and the lifting solver of ``exact_weights``): a point inside, on an edge (a
    zero weight), equal to another row, and outside; on a support whose system has one
    solution the linear program is not needed, on a degenerate one it decides."""
    from verify.analyze import argmax as argmax_module
    from verify.analyze.head import make_head

    head = make_head([[0, 0], [4, 0], [0, 4], [1, 1], [2, 0], [4, 4], [1, 1]])
    W = [list(row) for row in head.Z]

    def weights_hold(i, cert):
        lam = dict(cert.multipliers)
        return (len(lam) == len(cert.multipliers) and sum(lam.values()) == 1
                and all(v > 0 for v in lam.values()) and i not in lam
                and all(sum(v * W[k][c] for k, v in lam.items()) == W[i][c]
                        for c in range(len(W[i]))))

    def forbidden(rows):
        raise AssertionError("a support with one solution needs no linear program")

    def no_null_space(cols):
        raise AssertionError("a support of LIFTING_MIN_SUPPORT labels goes to the lifting")

    cases = [(3, [0, 1, 2], True), (4, [0, 1, 2], True), (3, [6], True)]
    for lifting in (1 << 30, 3):
        monkeypatch.setattr(argmax_module, "LIFTING_MIN_SUPPORT", lifting)
        with monkeypatch.context() as m:
            m.setattr(argmax_module, "strict_feasibility", forbidden)
            if lifting == 3:
                m.setattr(argmax_module, "integer_nullspace", no_null_space)
            for i, support, inside in cases:
                if len(support) < lifting and lifting == 3:
                    continue
                cert = argmax_module.label_certificate(head, i, support)
                assert (cert is not None) is inside, (i, support)
                if cert is not None:
                    assert weights_hold(i, cert) and is_argmax_certificate(W, i, cert.multipliers)
            # the edge point's weight on the opposite vertex is 0, and left out
            assert 2 not in dict(argmax_module.label_certificate(head, 4, [0, 1, 2]).multipliers)
        # outside (the one solution has a negative weight), and degenerate supports (more
        # labels than d + 1, or collinear): the exact simplex decides
        for i, support, inside in [(5, [0, 1, 2], False), (5, [0, 3, 4], False),
                                   (3, [0, 1, 2, 5], True), (5, [0, 1, 2, 3], False),
                                   (4, [0, 1, 5], True), (3, [0, 4, 1], False)]:
            cert = argmax_module.label_certificate(head, i, support)
            assert (cert is not None) is inside, (i, support)
            if cert is not None:
                assert weights_hold(i, cert) and is_argmax_certificate(W, i, cert.multipliers)


def test_motzkin_on_support_against_the_definition(monkeypatch):
    """``_motzkin_on_support`` (a no-tie certificate of ``(i, j)`` on a proposed
    support, from the integer null space, else from the exact simplex on those rows)
    against the definition, on a square with its centre: the diagonal pairs cannot tie
    (the other two corners, or the centre, are above them on the whole tie line), the
    edge pairs can. A support whose null space is one non-negative vector (one of them
    with a zero multiplier) needs no linear program."""
    from verify.analyze import ties as ties_module
    from verify.analyze.head import make_head

    # 0..3 the corners of a square, 4 its centre
    head = make_head([[0, 0], [4, 4], [4, 0], [0, 4], [2, 2]])
    W = [list(row) for row in head.Z]

    def forbidden(rows):
        raise AssertionError("a support with one null vector needs no linear program")

    one_null_vector = [(0, 1, [2, 3]), (0, 1, [4]), (2, 3, [1, 0]), (0, 1, [4, 2])]
    with monkeypatch.context() as m:
        m.setattr(ties_module, "strict_feasibility", forbidden)
        for i, j, support in one_null_vector:
            cert = ties_module._motzkin_on_support(head, i, j, support)
            assert cert is not None and is_no_tie_certificate(W, i, j, cert), (i, j, support)
            assert {k for k, _ in cert.multipliers} <= set(support)
            assert sum(y for _, y in cert.multipliers) == 1
    # the zero multiplier of label 2 is left out
    assert [k for k, _ in ties_module._motzkin_on_support(head, 0, 1, [4, 2]).multipliers] == [4]
    # degenerate supports and pairs that can tie: the exact simplex on the support decides
    for i, j, support, tie in [(0, 1, [], True), (0, 2, [1, 3], True), (2, 3, [0], True),
                               (0, 1, [2, 3, 4], False), (2, 3, [4, 0, 1], False),
                               (0, 2, [3, 4, 1], True)]:
        cert = ties_module._motzkin_on_support(head, i, j, support)
        assert (cert is None) is tie, (i, j, support)
        if cert is not None:
            assert is_no_tie_certificate(W, i, j, cert)
            assert {k for k, _ in cert.multipliers} <= set(support)


def test_equal_rows_skip_exact_copies_only(monkeypatch):
    """``_equal_rows_inside`` leaves the copies of the row out of the interior pass's
    candidates: rows equal in integers, not rows whose float64 copies are equal (a row
    that differs by 1 in an entry of 2^60 has the same floats and is another row)."""
    from verify.analyze import interior as interior_module
    from verify.analyze import ties as ties_module
    from verify.analyze.head import make_head

    big = 2 ** 60
    head = make_head([[big, 3], [big, 3], [big + 1, 3], [big, 3], [0, 0], [1, 5]])
    assert (head.F[2] == head.F[0]).all() and head.Z[2] != head.Z[0]
    tasks = []

    def record(head, task, exact=False):
        tasks.append(task)
        assert exact  # the no-tie certificate is built from the weights themselves
        return {}

    monkeypatch.setattr(interior_module, "certify_cluster", record)
    assert ties_module._equal_rows_inside(head, 0, 1) is None
    assert tasks == [([0], [], [1, 3])]
