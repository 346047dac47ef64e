"""The papers' example matrices, bundled with the package (``paper_examples.json``).

Entries are exact strings: integers, decimals (exact decimal value), fractions ``p/q``
and products with ``sqrt()`` of a rational. Labels are numbered from 0.
"""

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def _examples() -> dict:
    return json.loads(resources.files(__name__).joinpath("paper_examples.json").read_text())


def paper_example(name: str) -> dict:
    """One entry, e.g. ``paper_example("theorem H.1")["A"]``."""
    return _examples()[name]
