"""Central hyperplane arrangements: sign patterns and ranking patterns, exactly."""

from verify.arrangement.ranking_pattern import (
    RankingPattern,
    braid_matrix,
    braid_product,
    ranking_from_signs,
    ranking_pattern,
    signs_from_ranking,
)
from verify.arrangement.sign_pattern import Cell, SignPattern, sign_pattern

__all__ = [
    "Cell",
    "RankingPattern",
    "SignPattern",
    "braid_matrix",
    "braid_product",
    "ranking_from_signs",
    "ranking_pattern",
    "sign_pattern",
    "signs_from_ranking",
]
