"""verify: exact, certificate-producing checks of what cosine similarity of label
representations can and cannot tell about a classifier.

Layers (data flows one way):
numbers -> exact linear algebra -> LP and certificates -> arrangements and patterns
-> claims -> CLI and certificate files.

This module stays import-light on purpose: ``python -m verify check`` must run with
the standard library alone.
"""

__version__ = "0.1.0"
