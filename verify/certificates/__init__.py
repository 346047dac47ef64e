"""The engine's side of the ``verify-certificate/1`` format: building and writing
certificates."""
