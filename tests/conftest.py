"""Hypothesis profiles: ``mutation`` (for ``mutmut``, see ``docs/testing.md``) draws the
same examples on every run and has no deadline, so that a mutant that is only slower is
not counted as killed."""

from hypothesis import settings

settings.register_profile("mutation", deadline=None, derandomize=True)
