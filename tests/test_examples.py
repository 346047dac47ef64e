"""Examples C.1-C.3: verified with the paper's numbers, and each check can fail."""

from fractions import Fraction
from types import SimpleNamespace

import pytest

from verify.analyze.ties import tie_pairs
from verify.claims import examples
from verify.claims.registry import CLAIMS
from verify.numbers.sqrt_sum import SqrtSum


@pytest.mark.parametrize("claim_id", ["example C.1", "example C.2", "example C.3"])
def test_examples_verified(claim_id):
    out = CLAIMS[claim_id].run(SimpleNamespace())
    assert out.status == "verified", [s for s in out.steps if not s.holds]


def test_c1_fails_with_a_wrong_translation(monkeypatch):
    monkeypatch.setattr(examples, "lemma_3_2_translation",
                        lambda a, b: [-(x + y) / 3 for x, y in zip(a, b)])  # not the lemma's u
    out = examples.run_c1(CLAIMS["example C.1"], SimpleNamespace())
    assert out.status == "refuted"


def test_c2_fails_when_label_3_no_longer_separates_2_and_4(monkeypatch):
    from verify.numbers.rational import parse_rational

    W = [[parse_rational(a) for a in row] for row in
         [["1.4", "-1"], ["1.4", "1"], ["-0.9", "0.3"], ["-0.5", "0"], ["-0.9", "-0.3"]]]
    # w_3 moved inside the segment of w_2, w_4: now labels 2 and 4 can tie
    assert tie_pairs(W, pairs=[(2, 4)]).can_tie(2, 4)
    monkeypatch.setattr(examples, "_rows", lambda name, parse=None: W)
    out = examples.run_c2(CLAIMS["example C.2"], SimpleNamespace())
    assert out.status == "refuted"
    failed = {s.description for s in out.steps if not s.holds}
    assert any("cannot be tied" in d for d in failed)
    assert any("centered" in d for d in failed)


def test_c3_fails_on_a_non_centered_matrix(monkeypatch):
    real = examples._rows

    def shifted(name, parse=None):
        W = real(name, parse=parse) if parse else real(name)
        return [[a + (SqrtSum(1) / 10 if c == 0 else 0) for c, a in enumerate(row)]
                for row in W]

    monkeypatch.setattr(examples, "_rows", shifted)
    out = examples.run_c3(CLAIMS["example C.3"], SimpleNamespace())
    assert out.status == "refuted"


def test_about_is_an_exact_rounding_test():
    assert examples.about(SqrtSum.rational(Fraction(12, 37)), "0.32")
    assert not examples.about(SqrtSum.rational(Fraction(12, 37)), "0.33")
    assert examples.about(-SqrtSum.sqrt(Fraction(64, 185)), "-0.59")
