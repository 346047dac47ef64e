"""Claims of the seed papers as executable checks."""

from verify.claims.registry import CLAIMS, Claim, get_claim

__all__ = ["CLAIMS", "Claim", "get_claim"]
