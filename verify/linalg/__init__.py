"""Exact linear algebra over Q: dot products, ranks, bases, null spaces."""
