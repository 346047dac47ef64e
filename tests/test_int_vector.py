"""Integer vectors kept as int64 arrays (:mod:`verify.numbers.int_vector`): they must
behave exactly as the tuple of their entries wherever a witness point goes."""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.lp.evidence import Witness
from verify.numbers.int_vector import IntVector, float_direction

entries = st.lists(st.integers(-2 ** 63 + 1, 2 ** 63 - 1), max_size=12)


@given(entries)
def test_an_int_vector_is_the_tuple_of_its_entries(values):
    v = IntVector(np.array(values, dtype=np.int64))
    t = tuple(values)
    assert v == t and t == v and not (v != t) and hash(v) == hash(t)  # noqa: SIM202 (__ne__)
    assert len(v) == len(t) and tuple(v) == t and list(v) == list(t)
    assert all(type(x) is int for x in v)
    for k in range(-len(t), len(t)):
        assert v[k] == t[k] and type(v[k]) is int
    assert v[1:-1] == t[1:-1] and v[::2] == t[::2]
    assert Witness(point=v) == Witness(point=t)
    assert hash(Witness(point=v)) == hash(Witness(point=t))
    assert {Witness(point=v)} == {Witness(point=t)}
    back = pickle.loads(pickle.dumps(v))
    assert isinstance(back, IntVector) and back == v
    assert np.array_equal(np.asarray(v), np.array(values, dtype=np.int64).reshape(-1))
    as_float = np.asarray(v, dtype=np.float64)
    assert as_float.dtype == np.float64 and as_float.tolist() == [float(x) for x in values]
    assert repr(v) == f"IntVector({t!r})"


def test_entries_are_python_integers_for_exact_arithmetic():
    """A sum of products in Python must not wrap around as int64 would."""
    big = 2 ** 62
    v = IntVector([big, big, -big])
    assert sum(x * x for x in v) == 3 * 2 ** 124
    assert Fraction(v[0]) * 4 == 2 ** 64


def test_unequal_vectors_and_other_types():
    v = IntVector([1, 2, 3])
    assert v != (1, 2, 4) and v != (1, 2) and v != IntVector([1, 2, 4])
    assert v == IntVector(np.array([1, 2, 3]))
    assert v != [1, 2, 3]  # a list is not a tuple, as for tuples
    assert (v == "123") is False


def test_an_int_vector_cannot_be_changed_through_its_array():
    v = IntVector([1, 2, 3])
    with pytest.raises(ValueError):
        v.array[0] = 5
    with pytest.raises(ValueError):
        np.asarray(v)[0] = 5
    source = np.array([1, 2, 3])
    w = IntVector(source)
    source[0] = 9  # the vector holds its own copy
    assert w == (1, 2, 3)
    with pytest.raises(ValueError):
        IntVector(np.zeros((2, 2), dtype=np.int64))


@given(st.lists(st.integers(-2 ** 200, 2 ** 200), min_size=1, max_size=8))
def test_float_direction_of_integers_of_any_size(values):
    """Entries divided by one power of two (the least that brings them below 2^60),
    truncated toward zero: each float is within 1 of the exact quotient and at most 2^60."""
    x = float_direction(values)
    top = max(abs(v) for v in values).bit_length()
    e = max(0, top - 60)
    for v, f in zip(values, x):
        q = Fraction(v, 2 ** e)
        assert abs(Fraction(f) - q) <= 1 + abs(q) * Fraction(1, 2 ** 52)
        assert abs(f) <= 2.0 ** 60 and (f == 0 or (f > 0) == (v > 0))
    if all(abs(v) < 2 ** 53 for v in values):
        assert x.tolist() == [float(v) for v in values]


@given(st.lists(st.integers(-2 ** 63 + 1, 2 ** 63 - 1), min_size=1, max_size=8))
def test_float_direction_of_an_int_vector_is_that_of_its_tuple(values):
    assert np.array_equal(float_direction(IntVector(values)), float_direction(tuple(values)))
