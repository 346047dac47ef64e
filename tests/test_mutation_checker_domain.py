"""The checks of ``analyze`` certificates for heads with a bias (floor rows, ``input.drop``)
and for input domains (``input.domain``), each on a small archive written by hand: a
valid one that every correct check accepts, and forgeries wrong in exactly one respect,
each named by the check that rejects it. The expected messages and barycentric
coordinates are worked out by hand in the comments."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import verify.checker.analyze as checker
from verify.analyze.certificate import write_archive
from verify.analyze.domain import parse_domain
from verify.checker.core import CertificateError

SOURCE = {"name": "hand-made", "sha256": None, "tensor": None}


def archive(path, *, Z, bias=None, drop=None, domain=None, argmax=(), hull=(),
            ties=(), non_ties=(), simplices=(), simplex_pairs=(), labels_matrix=False):
    """An archive of the given evidence: ``argmax`` is ``[(label, point)]``, ``hull``
    ``[(label, support, weights, D)]``, ``ties`` ``[(pair, point)]``, ``non_ties``
    ``[(pair, support, weights, D, T)]``, ``simplices`` ``[(label, support)]``; the
    assertion is counted from them."""
    n, d = len(Z), len(Z[0])
    width = d + (bias is not None or domain is not None)

    def points(rows):
        return [list(p) for p in rows] if rows else np.zeros((0, width), dtype=np.int64)

    def pairs(rows):
        return [list(p) for p in rows] if rows else np.zeros((0, 2), dtype=np.int64)

    def combos(certs):
        offsets, support, weights = [0], [], []
        for _, labels, values, *_ in certs:
            support += labels
            weights += values
            offsets.append(len(support))
        return offsets, support, weights

    arrays = {"Z": Z}
    if bias is not None:
        arrays["bias"] = bias
    hull_offsets, hull_support, hull_weights = combos(hull)
    nt_offsets, nt_support, nt_weights = combos(non_ties)
    arrays.update({
        "argmax_labels": [i for i, _ in argmax], "argmax_points": points([p for _, p in argmax]),
        "hull_labels": [c[0] for c in hull], "hull_offsets": hull_offsets,
        "hull_support": hull_support, "hull_weights": hull_weights,
        "hull_denominators": [c[3] for c in hull],
        "tie_pairs": pairs([p for p, _ in ties]), "tie_points": points([x for _, x in ties]),
        "non_tie_pairs": pairs([c[0] for c in non_ties]), "non_tie_offsets": nt_offsets,
        "non_tie_support": nt_support, "non_tie_weights": nt_weights,
        "non_tie_denominators": [c[3] for c in non_ties],
        "non_tie_t": [c[4] for c in non_ties]})
    if simplices:
        arrays["simplex_labels"] = [[i] if labels_matrix else i for i, _ in simplices]
        arrays["simplex_support"] = [list(s) for _, s in simplices]
        arrays["non_tie_simplex_pairs"] = pairs(simplex_pairs)
    decided = len(ties) + len(non_ties) + len(simplex_pairs)
    facts = {"n": n, "d": d, "scale": Fraction(1), "bias": bias is not None, "drop": drop,
             "domain": None if domain is None else parse_domain(domain),
             "assertion": {"argmaxable": len(argmax),
                           "unargmaxable": len(hull) + len(simplices),
                           "tie_pairs": len(ties),
                           "non_tie_pairs": len(non_ties) + len(simplex_pairs),
                           "complete": decided == n * (n - 1) // 2}}
    write_archive(path, arrays, facts, SOURCE)
    return path


def verdicts(path):
    """The verdict of each arithmetic (Python integers, numpy), which must agree."""
    found = []
    for backend in ("python", "numpy"):
        try:
            found.append(("OK", checker.check_file(path, backend=backend)))
        except CertificateError as exc:
            found.append(("INVALID", str(exc)))
    assert found[0] == found[1], found
    return found[0]


# --- floor rows: simplices whose support holds (z_k, beta_k - M) ---------------------------

def floor_head(tmp_path, M, shift=0, name="floor.zip", support=(0, 1, 3)):
    """d = 1: scores -x, x and -1 (each plus ``shift``). Label 2 never wins; its lifted
    row (0, -1) is strictly inside the simplex of (-1, 0), (1, 0) and the floor row of
    label 0, (-1, -M), with weights (1/2 - 1/M, 1/2, 1/M): for M = 3 the first is 1/6,
    and with the lifted rows (not the floor row) lowered by 1 it would be 0."""
    s = shift
    return archive(tmp_path / name, Z=[[-1], [1], [0]], bias=[s, s, s - 1], drop=M,
                   argmax=[(0, [-1, 1]), (1, [1, 1])], ties=[((0, 1), [0, 1])],
                   simplices=[(2, list(support))], simplex_pairs=[(0, 2), (1, 2)])


def test_a_floor_row_of_label_0_is_the_floor_row(tmp_path):
    # support label n = 3 is the floor row of label 0, (z_0, beta_0 - M), not (z_0, beta_0)
    # (which would repeat row 0), and only floor rows are lowered by M
    status, line = verdicts(floor_head(tmp_path, 3))
    assert status == "OK" and "1 simplices" in line and "with a bias" in line, line


def test_the_least_drop_is_1(tmp_path):
    # (0, -1) is inside the simplex of (-1, 0), (1, 0) and the floor row of label 2 itself,
    # (0, -1 - M), for every M >= 1: weights ((1 - t) / 2, (1 - t) / 2, t), t = 1 / (1 + M)
    status, line = verdicts(floor_head(tmp_path, 1, support=(0, 1, 5)))
    assert status == "OK" and "1 simplices" in line, line


def test_a_drop_too_small_leaves_the_label_outside(tmp_path):
    # M = 2: the weight of row 0 is 1/2 - 1/2 = 0, on the boundary, not strictly inside
    status, message = verdicts(floor_head(tmp_path, 2))
    assert status == "INVALID" and message == (
        "simplex[0] of label 2: z_2 is not strictly inside the simplex of its support")


@pytest.mark.parametrize("M, shift", [
    (2**63 + 1, 0),      # the floor row (-1, -2^63 - 1) is below int64
    (2**63 + 2**62, 0),  # and further below
    (3, 2**63),          # the lifted rows (+-1, 2^63): just above int64
    (3, 2**63 + 2**62),
])
def test_rows_beyond_int64_are_proved_exactly(tmp_path, M, shift):
    # the float proof takes only rows inside int64; beyond, exact elimination
    status, line = verdicts(floor_head(tmp_path, M, shift))
    assert status == "OK" and "1 simplices" in line, line


def test_rows_at_the_edges_of_int64(tmp_path):
    # -2^63 and 2^63 - 1 are inside int64: the float proof may take them
    for M, shift in ((2**63, 0), (3, 2**63 - 1)):
        status, line = verdicts(floor_head(tmp_path, M, shift, f"edge-{M}-{shift}.zip"))
        assert status == "OK", line


# --- domains: the largest value of an affine form on the domain -------------------------------

def test_a_positive_constant_on_nonneg_names_its_value(tmp_path):
    # x >= 0, scores 3 and x (beta = (3, 0)): label 0 wins at x = 0. Forged: weights
    # 2 l_0 - 2 l_1, i.e. G = 2 (0 - 1) = -2, sigma = 2 (3 - 0) = 6; sup over x >= 0 is 6
    path = archive(tmp_path / "c.zip", Z=[[0], [1]], bias=[3, 0], domain="nonneg",
                   argmax=[(1, [4, 1])], hull=[(0, [1], [2], 2)], ties=[((0, 1), [3, 1])])
    status, message = verdicts(path)
    assert status == "INVALID" and message == (
        "convex weights[0] of label 0: D l_0 - sum m_k l_k is not <= 0 on the domain: its "
        "largest value on the domain x >= 0 is positive (6)"), message


def test_a_positive_value_on_a_box_names_its_value_and_the_box(tmp_path):
    # 0 <= x <= 1, scores 1 and 4x: label 0 wins at x = 0. Forged: l_0 - l_1, G = -4,
    # sigma = 1; sup over the box is max(0 * -4, 1 * -4) + 1 = 1
    path = archive(tmp_path / "c.zip", Z=[[0], [4]], bias=[1, 0], domain="box:0,1",
                   argmax=[(1, [1, 1])], hull=[(0, [1], [1], 1)], ties=[((0, 1), [1, 4])])
    status, message = verdicts(path)
    assert status == "INVALID" and message == (
        "convex weights[0] of label 0: D l_0 - sum m_k l_k is not <= 0 on the domain: its "
        "largest value on the domain 0 <= x_j <= 1 is positive (1)"), message


def test_the_summary_names_the_box(tmp_path):
    # -1/2 <= x <= 3/2, scores x and 1 - x and 0: label 2 is below max(x, 1 - x) >= 1/2
    # (l_0 + l_1 - 2 l_2 = 1); no pair with label 2 ties: (l_0 - l_1) - 2 (l_0 - l_2) = -1
    # and (l_1 - l_0) - 2 (l_1 - l_2) = -1
    path = archive(tmp_path / "c.zip", Z=[[1], [-1], [0]], bias=[0, 1, 0],
                   domain="box:-1/2,3/2",
                   argmax=[(0, [1, 1]), (1, [0, 1])],
                   hull=[(2, [0, 1], [1, 1], 2)],
                   ties=[((0, 1), [1, 2])],
                   non_ties=[((0, 2), [1], [1], 1, -2), ((1, 2), [0], [1], 1, -2)])
    status, line = verdicts(path)
    assert status == "OK" and "on the domain -1/2 <= x_j <= 3/2:" in line, line


# --- the bounds of a box -------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("3", 3), ("-3", -3), ("1/2", Fraction(1, 2)), ("-7/4", Fraction(-7, 4)), ("0", 0),
    ("-0", 0), ("6/3", 2)])
def test_bounds_are_read_as_rationals(text, value):
    assert checker._bound(text, "b") == value


@pytest.mark.parametrize("text", [
    "1/2/3", "1//2", "/2", "1/", "", "-", "+1", " 1", "1 ", "1_0", "1.5", "1e3", "١",
    "٣/4", "²", "1/0", "--1", "-1/-2", 3, None, ["1"]])
def test_anything_else_is_not_a_bound(text):
    with pytest.raises(CertificateError) as caught:
        checker._bound(text, "input.domain.lower")
    assert str(caught.value) == ("input.domain.lower: expected a rational \"p\" or "
                                 f"\"p/q\", got {str(text)[:40]!r}")


def test_a_long_bound_is_shown_by_its_first_40_characters():
    text = "1" * 39 + "x" + "2" * 30
    with pytest.raises(CertificateError) as caught:
        checker._bound(text, "b")
    assert str(caught.value).endswith(f"got {'1' * 39 + 'x'!r}")


# --- the domain of the manifest ----------------------------------------------------------------

KINDS = ('input.domain: expected {"kind": "nonneg"} or {"kind": "box", "lower", '
         '"upper"}')


@pytest.mark.parametrize("value, message", [
    ({"kind": "all"}, KINDS), ("nonneg", KINDS), ({"lower": "0"}, KINDS), (None, KINDS),
    ({"kind": "nonneg", "lower": "0"}, "input.domain: unexpected 'lower'"),
    ({"kind": "box", "lower": "0"}, "input.domain: missing 'upper'"),
    ({"kind": "box", "lower": "0", "upper": "1", "x": 1}, "input.domain: unexpected 'x'"),
    ({"kind": "box", "lower": "a", "upper": "1"},
     "input.domain.lower: expected a rational \"p\" or \"p/q\", got 'a'"),
    ({"kind": "box", "lower": "0", "upper": "1/0"},
     "input.domain.upper: expected a rational \"p\" or \"p/q\", got '1/0'"),
    ({"kind": "box", "lower": "1", "upper": "2/2"},
     "input.domain: the box needs lower < upper, got 1 and 1"),
    ({"kind": "box", "lower": "1/2", "upper": "-3"},
     "input.domain: the box needs lower < upper, got 1/2 and -3"),
])
def test_each_bad_domain_is_named(value, message):
    with pytest.raises(CertificateError) as caught:
        checker._domain(value)
    assert str(caught.value) == message


def test_good_domains():
    assert checker._domain({"kind": "nonneg"}) == ("nonneg",)
    assert checker._domain({"kind": "box", "lower": "-1/3", "upper": "-1/4"}) == (
        "box", Fraction(-1, 3), Fraction(-1, 4))


def test_no_weight_and_a_largest_value_of_zero_is_not_a_no_tie_proof(tmp_path):
    # 0 <= x <= 1, scores x - 1 and 0: they tie at x = 1, on the boundary. Forged: no
    # weight and T = 1, T (l_0 - l_1) = x - 1, whose largest value on the box is
    # 1 + (-1) = 0 (G = 1, sigma = -1: h = 1 and h + sigma = 0), not negative
    path = archive(tmp_path / "c.zip", Z=[[1], [0]], bias=[-1, 0], domain="box:0,1",
                   argmax=[(1, [0, 1])], hull=[(0, [1], [1], 1)],
                   non_ties=[((0, 1), [], [], 1, 1)])
    status, message = verdicts(path)
    assert status == "INVALID" and message == (
        "no-tie certificate[0] of 0 and 1: sum m_k (l_i - l_k) + T (l_i - l_j) is not <= 0 "
        "on the domain: every weight is 0 and its largest value on the domain is 0, not "
        "negative"), message


# --- witnesses in the domain -------------------------------------------------------------------

def nonneg_head(tmp_path, name, argmax0=(1, 0, 1), tie=(1, 1, 1)):
    """x >= 0, scores x_0 and x_1: label 0 wins at (1, 0), on the boundary, label 1 at
    (0, 1), and they tie at (1, 1); points are (h x, h)."""
    return archive(tmp_path / name, Z=[[1, 0], [0, 1]], domain="nonneg",
                   argmax=[(0, list(argmax0)), (1, [0, 1, 1])], ties=[((0, 1), list(tie))])


def test_witnesses_on_the_boundary_of_x_nonneg(tmp_path):
    status, line = verdicts(nonneg_head(tmp_path, "c.zip"))
    assert status == "OK" and "on the domain x >= 0:" in line, line
    assert verdicts(nonneg_head(tmp_path, "d.zip", (0, 0, 1)))[0] == "INVALID"  # a tie


@pytest.mark.parametrize("argmax0, tie, message", [
    ((1, -1, 1), (1, 1, 1), "argmax witness of label 0: the input is outside the domain "
                            "x >= 0 in coordinate 1"),
    ((1, 0, 1), (-1, -1, 1), "tie witness of labels 0 and 1: the input is outside the "
                             "domain x >= 0 in coordinate 0"),
])
def test_witnesses_outside_x_nonneg_are_named(tmp_path, argmax0, tie, message):
    assert verdicts(nonneg_head(tmp_path, "c.zip", argmax0, tie)) == ("INVALID", message)


def box_head(tmp_path, name, points=((3, 2), (-1, 2)), tie=(1, 2)):
    """-1/2 <= x <= 3/2, scores x, 1 - x and 0 (as in the summary test): label 0 wins at
    x = 3/2, label 1 at x = -1/2, both on the boundary, written (h x, h) with h = 2."""
    return archive(tmp_path / name, Z=[[1], [-1], [0]], bias=[0, 1, 0],
                   domain="box:-1/2,3/2",
                   argmax=[(0, list(points[0])), (1, list(points[1]))],
                   hull=[(2, [0, 1], [1, 1], 2)], ties=[((0, 1), list(tie))],
                   non_ties=[((0, 2), [1], [1], 1, -2), ((1, 2), [0], [1], 1, -2)])


def test_witnesses_on_the_boundary_of_a_box(tmp_path):
    assert verdicts(box_head(tmp_path, "c.zip"))[0] == "OK"
    assert verdicts(box_head(tmp_path, "d.zip", ((6, 4), (-3, 6)), (3, 6)))[0] == "OK"


@pytest.mark.parametrize("points, tie, message", [
    (((4, 2), (-1, 2)), (1, 2), "argmax witness of label 0: the input is outside the "
                                "domain -1/2 <= x_j <= 3/2 in coordinate 0"),
    (((3, 2), (-2, 2)), (1, 2), "argmax witness of label 1: the input is outside the "
                                "domain -1/2 <= x_j <= 3/2 in coordinate 0"),
    (((3, 2), (-1, 2)), (1, 2), None),
])
def test_witnesses_outside_a_box_are_named(tmp_path, points, tie, message):
    status, text = verdicts(box_head(tmp_path, "c.zip", points, tie))
    assert (status, text if message else None) == ("INVALID" if message else "OK", message)


def test_every_witness_is_in_the_domain_past_the_first_blocks(tmp_path):
    # x >= 0, z_k = (k, -k^2): label k wins at x = (2k, 1) by (k' - k)^2. 2,100 witnesses
    # (blocks of 1,024 points); the last one moved to x = (2 * 2099, -1), where label
    # 2099 still wins, but outside the domain
    n = 2100
    Z = [[k, -k * k] for k in range(n)]
    points = [[2 * k, 1, 1] for k in range(n)]
    good = archive(tmp_path / "good.zip", Z=Z, domain="nonneg",
                   argmax=list(enumerate(points)))
    assert checker.check_file(good, backend="numpy").startswith("analyze, 2100 labels")
    points[-1] = [2 * (n - 1), -1, 1]
    bad = archive(tmp_path / "bad.zip", Z=Z, domain="nonneg", argmax=list(enumerate(points)))
    with pytest.raises(CertificateError) as caught:
        checker.check_file(bad, backend="numpy")
    assert str(caught.value) == ("argmax witness of label 2099: the input is outside the "
                                 "domain x >= 0 in coordinate 1")


def test_every_convex_weight_is_checked_on_the_domain(tmp_path):
    # x >= 0, scores x, 0 and x - 1: label 1 is below label 0 (l_1 - l_0 = -x), label 2
    # is not below label 1 (l_2 - l_1 = x - 1): the second certificate is forged
    path = archive(tmp_path / "c.zip", Z=[[1], [0], [1]], bias=[0, 0, -1], domain="nonneg",
                   argmax=[(0, [1, 1])], hull=[(1, [0], [1], 1), (2, [1], [1], 1)])
    status, message = verdicts(path)
    assert status == "INVALID" and message == (
        "convex weights[1] of label 2: D l_2 - sum m_k l_k is not <= 0 on the domain: its "
        "linear part is positive in coordinate 0, unbounded on x >= 0"), message


def test_every_no_tie_certificate_is_checked_on_the_domain(tmp_path):
    # the box head, its second no-tie certificate forged: T (l_1 - l_2) with T = 1 and no
    # weight is 1 - x (G = -1, sigma = 1), whose largest value on the box is 1/2 + 1 = 3/2
    # (labels 1 and 2 do tie, at x = 1)
    path = archive(tmp_path / "c.zip", Z=[[1], [-1], [0]], bias=[0, 1, 0],
                   domain="box:-1/2,3/2",
                   argmax=[(0, [3, 2]), (1, [-1, 2])],
                   hull=[(2, [0, 1], [1, 1], 2)], ties=[((0, 1), [1, 2])],
                   non_ties=[((0, 2), [1], [1], 1, -2), ((1, 2), [], [], 1, 1)])
    assert verdicts(path) == ("INVALID", (
        "no-tie certificate[1] of 1 and 2: sum m_k (l_i - l_k) + T (l_i - l_j) is not <= 0 "
        "on the domain: its largest value on the domain -1/2 <= x_j <= 3/2 is positive "
        "(3/2)"))


def test_a_head_on_a_domain_without_a_bias_is_primitive(tmp_path):
    # nonneg_head with Z doubled: the zero bias of the points (h x, h) is no bias, and the
    # message names Z alone
    path = archive(tmp_path / "c.zip", Z=[[2, 0], [0, 2]], domain="nonneg",
                   argmax=[(0, [1, 0, 1]), (1, [0, 1, 1])], ties=[((0, 1), [1, 1, 1])])
    assert verdicts(path) == ("INVALID", (
        "Z is not primitive: every entry of Z is divisible by 2 (Z is c W with the least c "
        "that makes it an integer matrix)"))


def test_simplex_labels_are_a_column(tmp_path):
    path = archive(tmp_path / "c.zip", Z=[[-1], [1], [0]], bias=[0, 0, -1], drop=3,
                   argmax=[(0, [-1, 1]), (1, [1, 1])], ties=[((0, 1), [0, 1])],
                   simplices=[(2, [0, 1, 3])], simplex_pairs=[(0, 2), (1, 2)],
                   labels_matrix=True)
    assert verdicts(path) == ("INVALID", "simplex_labels: shape (1, 1), expected (1,)")


# --- the manifest and the simplex arrays, named exactly ---------------------------------------

def test_a_drop_without_a_bias_is_named(tmp_path):
    # the head of floor_head without its bias: floor rows (z_k, beta_k - M) need a beta
    path = archive(tmp_path / "c.zip", Z=[[-1], [1], [0]], drop=3,
                   argmax=[(0, [-1]), (1, [1])], ties=[((0, 1), [0])])
    assert verdicts(path) == ("INVALID", "input.drop: only a head with a bias has floor rows")


@pytest.mark.parametrize("M", [0, -3])
def test_a_drop_below_1_is_named(tmp_path, M):
    assert verdicts(floor_head(tmp_path, M)) == (
        "INVALID", f"input.drop: expected an integer >= 1, got {M}")


def test_simplex_evidence_with_a_domain_is_named(tmp_path):
    # x >= 0, scores x, -x and 0: a simplex for label 2 is refused whatever its support
    path = archive(tmp_path / "c.zip", Z=[[1], [-1], [0]], domain="nonneg",
                   argmax=[(0, [1, 1])], simplices=[(2, [0, 1])])
    assert verdicts(path) == ("INVALID", "evidence.encoding: simplex evidence is not used "
                                         "with input.domain")


def test_simplex_support_and_pairs_have_their_shapes(tmp_path):
    # a support of 2 rows for d + 1 = 2 columns (the lifted rows): 3 are needed
    assert verdicts(floor_head(tmp_path, 3, support=(0, 1))) == (
        "INVALID", "simplex_support: shape (1, 2), expected (1, 3)")
    path = archive(tmp_path / "p.zip", Z=[[-1], [1], [0]], bias=[0, 0, -1], drop=3,
                   argmax=[(0, [-1, 1]), (1, [1, 1])], ties=[((0, 1), [0, 1])],
                   simplices=[(2, [0, 1, 3])], simplex_pairs=[(0, 2, 1), (1, 2, 0)])
    assert verdicts(path) == ("INVALID", "non_tie_simplex_pairs: shape (2, 3), expected (2, 2)")
