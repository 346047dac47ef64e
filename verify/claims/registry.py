"""The registry of claims: one object per claim of the two papers.

Each claim has an id as printed in ``docs/claims.md`` (``lemma 5.3``,
``theorem 5.6``, ...), its statement, its hypotheses, what a check establishes, and
the runner that checks it. Runners are named as ``module:function`` and imported only
when the claim is run, so listing claims is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from verify.io.errors import InputError


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    hypotheses: str
    establishes: str
    runner: str
    sweep: bool = False  # checked over families of enumerated matrices
    #: the command-line options the check uses besides ``--json`` and
    #: ``--certificate`` (argparse ``dest`` names); any other is refused
    options: tuple[str, ...] = ()
    #: what the check runs on when it takes no matrix: said when an option is refused
    fixed: str = ""

    @property
    def kind(self) -> str:
        return self.id.split()[0]

    @property
    def number(self) -> str:
        return self.id.split(maxsplit=1)[1]

    @property
    def accepted(self) -> tuple[str, ...]:
        """Every command-line option (``dest`` name) that applies to this claim."""
        return COMMON_OPTIONS + self.options

    def run(self, options):
        module, function = self.runner.split(":")
        return getattr(import_module(module), function)(self, options)


#: Options of every claim: the report as JSON, the evidence as a certificate.
COMMON_OPTIONS = ("json", "certificate")
#: Options of the sweeps: the family of matrices, how it is run, where files go.
SWEEP_OPTIONS = ("n", "d", "seed", "matrices", "exhaustive", "box", "matrix", "quiet",
                 "output_dir", "jobs", "scheduler", "checkpoint", "shard", "merge")
#: Options of the claims about one pair of labels of one matrix.
PAIR_OPTIONS = ("matrix", "labels")

STECK_INSTANCES = ("it is checked on built-in exact instances: X = U Sigma V^T with "
                   "rational orthogonal U, V")

#: The claims in the order of the table in ``docs/claims.md`` (and of ``list`` and ``all``).
ORDER = ("lemma 3.1", "lemma 3.2", "lemma 3.3", "theorem 3.4", "appendix D",
         "proposition E.2", "lemma 5.3", "theorem 5.5", "theorem 5.6", "theorem H.1",
         "example C.1", "example C.2", "example C.3", "steck eq1-invariance",
         "steck eq1-closed-form", "steck full-rank", "steck eq2-unique")

_CLAIMS: dict[str, Claim] = {c.id: c for c in [
    Claim(
        id="lemma 5.3",
        statement="If the rows of W are non-zero, S(C(W)) = S(W): the cosine matrix "
                  "determines the sign pattern (the decision regions of a sigmoid head).",
        hypotheses="every row of W is non-zero",
        establishes="S(W) by the exact rational engine (every cell with a rational "
                    "witness) and S(C(W)) from the exact chirotope of the cosine "
                    "matrix over Q(sqrt ...), computed independently and compared, "
                    "for every enumerated matrix",
        runner="verify.claims.sweep:run_cosine_claim",
        sweep=True, options=SWEEP_OPTIONS),
    Claim(
        id="theorem 5.5",
        statement="The cosine matrix C(W) (and so the sign pattern S(W)) does not "
                  "determine the ranking pattern R(W).",
        hypotheses="none (a counterexample)",
        establishes="the paper's seven-label instance over Q(sqrt 2) and a rational "
                    "instance: C(W_1) = C(W_2) exactly, rankings of R(W_1) with label 2 "
                    "first (exact witnesses), and a Gordan certificate that label 2 is "
                    "never first in model 2",
        runner="verify.claims.theorem_55:run",
        fixed="it checks the paper's instances; 'python -m verify search theorem 5.5' looks for other pairs"),
    Claim(
        id="theorem 5.6",
        statement="If the rows of B_n W are non-zero, S(C(B_n W)) = R(W): the cosines "
                  "of the differences of unembeddings determine the ranking pattern "
                  "of a softmax head.",
        hypotheses="no two rows of W are equal",
        establishes="R(W) = S(B_n W) with rational witnesses and S(C(B_n W)) from the "
                    "exact chirotope of the cosine matrix of B_n W, computed "
                    "independently and compared, for every enumerated matrix",
        runner="verify.claims.sweep:run_cosine_claim",
        sweep=True, options=SWEEP_OPTIONS),
    Claim(
        id="theorem H.1",
        statement="The sign pattern of a point configuration does not determine its "
                  "ranking pattern.",
        hypotheses="none (a counterexample: Björner et al., Oriented Matroids, §1.10)",
        establishes="S([1|A]) = S([1|B]) (20 sign vectors each, complete, chirotopes "
                    "equal up to sign) while R(A) != R(B): every ranking on one side "
                    "only, with a witness there and a Gordan certificate on the other",
        runner="verify.claims.theorem_h1:run",
        fixed="it checks the paper's configurations A and B; 'python -m verify search theorem H.1' looks for other pairs"),
    Claim(
        id="lemma 3.1",
        statement="Adding any u in R^d to every unembedding w_i leaves all softmax "
                  "probabilities unchanged.",
        hypotheses="none (any W, any u, any input)",
        establishes="p_i(W + 1u^T, x) = p_i(W, x) symbolically (sympy: for symbolic n, d, "
                    "i, x, u, and as a rational-function identity with every entry of a "
                    "3 x 2 W, u and x symbolic), and exactly on example C.1 (or --matrix): "
                    "the logits of the translated model are the old ones plus one "
                    "constant, for several rational u and x",
        runner="verify.claims.translation:run_lemma_3_1",
        options=PAIR_OPTIONS),
    Claim(
        id="lemma 3.2",
        statement="For v_i != v_j, u = -(v_i + v_j)/2 gives cos(v_i + u, v_j + u) = -1.",
        hypotheses="v_i != v_j",
        establishes="symbolically v_j + u = -(v_i + u) with v_i + u = (v_i - v_j)/2 != 0, "
                    "and Lagrange's identity (cos = -1 iff (a.b)^2 = |a|^2|b|^2 and "
                    "a.b < 0); that criterion checked in Q on example C.1's pair and "
                    "every pair of distinct vectors in {-1,0,1}^2 and {-1,0,1}^3 (or the "
                    "rows of --matrix)",
        runner="verify.claims.translation:run_lemma_3_2",
        options=PAIR_OPTIONS),
    Claim(
        id="lemma 3.3",
        statement="For any v_i, v_j some u gives cos(v_i + u, v_j + u) = 1; for v_i != v_j, "
                  "u = -v_i + (v_j - v_i)/2 works.",
        hypotheses="none (v_i = v_j is the case a = b)",
        establishes="symbolically v_j + u = 3 (v_i + u) with v_i + u = (v_j - v_i)/2, and "
                    "cos = +1 iff (a.b)^2 = |a|^2|b|^2 and a.b > 0, checked in Q on the "
                    "same pairs as lemma 3.2; for v_i = v_j a u with v_i + u != 0 gives "
                    "a = b and cosine +1",
        runner="verify.claims.translation:run_lemma_3_3",
        options=PAIR_OPTIONS),
    Claim(
        id="theorem 3.4",
        statement="For a softmax classifier with w_i != w_j there are two models with the "
                  "same probabilities for every input, one with cos(w_i, w_j) = -1 and one "
                  "with +1.",
        hypotheses="w_i != w_j (default: example C.1, labels 0 and 1; --matrix, --labels)",
        establishes="both models built from W, i, j by the translations of lemmas 3.2 and "
                    "3.3; every logit difference unchanged as a polynomial identity in a "
                    "symbolic x and on rational inputs; cos(w'_i, w'_j) = -1 and +1 "
                    "decided in Q and confirmed as exact sums of square roots",
        runner="verify.claims.translation:run_theorem_3_4",
        options=PAIR_OPTIONS),
    Claim(
        id="appendix D",
        statement="Dot products between unembeddings can change sign between equivalent "
                  "models; Euclidean distances change under W -> cW, f -> f/c while "
                  "probabilities do not.",
        hypotheses="w_i != w_j; c^2 != 1",
        establishes="on example C.1 (or --matrix, --labels): w_i.w_j < 0 in one model and "
                    "> 0 in an equivalent one, normalised distances 4 and 0; W -> 2W, "
                    "f -> f/2 keeps every logit (symbolic identity and exact inputs) and "
                    "doubles |w_i - w_j| exactly",
        runner="verify.claims.translation:run_appendix_d",
        options=PAIR_OPTIONS),
    Claim(
        id="proposition E.2",
        statement="S(M) is the set of open orthants of R^N met by the column span of M.",
        hypotheses="none",
        establishes="for every enumerated matrix with at most 12 rows, each of the 2^N "
                    "open orthants decided on its own by the exact LP oracle (witness "
                    "or Gordan certificate) gives exactly the engine's sign pattern",
        runner="verify.claims.sweep:run_cosine_claim",
        sweep=True, options=SWEEP_OPTIONS),
    Claim(
        id="example C.1",
        statement="For the W of example C.1, cos(w_0, w_1) = 0.8; translating by Lemma "
                  "3.2's u gives -1, by Lemma 3.3's u gives +1; all three models are "
                  "equivalent.",
        hypotheses="the paper's W",
        establishes="the three cosines exactly, and B_n W identical for the three "
                    "models (every logit difference agrees for every input)",
        runner="verify.claims.examples:run_c1",
        fixed="it checks the paper's W"),
    Claim(
        id="example C.2",
        statement="Centered W: cos(w_0, w_1) ~ 0.32 and cos(w_1, w_2) ~ -0.59, yet both "
                  "pairs can be tied for the highest probability; cos(w_2, w_4) = 0.8, "
                  "yet w_2, w_4 cannot (label 3 wins between them).",
        hypotheses="the paper's W",
        establishes="exact cosines (the paper's decimals as exact bounds), each tie "
                    "decided by an exact LP with a witness or a certificate, and the "
                    "nearest cosine neighbours compared with the tie partners",
        runner="verify.claims.examples:run_c2",
        fixed="it checks the paper's W"),
    Claim(
        id="example C.3",
        statement="Centered W with unit rows (entries with sqrt(39)/20): cos(w_0, w_1) = "
                  "-0.805 yet they can tie for the highest probability; cos(w_1, w_3) = "
                  "0.805 yet they cannot.",
        hypotheses="the paper's W",
        establishes="exact arithmetic in Q(sqrt 39): the cosines, and both tie "
                    "questions by an exact LP over Q(sqrt 39)",
        runner="verify.claims.examples:run_c3",
        fixed="it checks the paper's W"),
    Claim(
        id="steck eq1-invariance",
        statement="Objective (1) |X - XAB^T|^2 + lambda |AB^T|^2 is unchanged by A -> AD, "
                  "B -> BD^-1 for any invertible diagonal D, yet item-item, user-user and "
                  "user-item cosine similarities change with D.",
        hypotheses="D diagonal and invertible",
        establishes="A D (B D^-1)^T = A B^T and (1) unchanged, symbolically and exactly on "
                    "a rational instance X = U Sigma V^T (Cayley orthogonal U, V); the "
                    "three cosine matrices, exact sums of square roots, differ between "
                    "D = I and D = diag(2, 1/3)",
        runner="verify.claims.steck:run_eq1_invariance",
        fixed=STECK_INSTANCES),
    Claim(
        id="steck eq1-closed-form",
        statement="A minimiser of (1) is AB^T = V_k diag(1/(1 + lambda/sigma_i^2)) V_k^T "
                  "where X = U Sigma V^T.",
        hypotheses="lambda > 0",
        establishes="symbolic gradient and second-order expansion of (1) in P = AB^T "
                    "(a convex quadratic) and the vanishing gradient for a symbolic 2 x 2 "
                    "SVD; on a rational instance: zero gradient at the closed form, "
                    "X^T X + lambda I positive definite (unique minimiser for k = p), "
                    "A = B = V_k diag(..)^(1/2) reproduces it, and for k < p both partial "
                    "gradients vanish and no other choice of k singular directions is "
                    "lower",
        runner="verify.claims.steck:run_eq1_closed_form",
        fixed=STECK_INSTANCES),
    Claim(
        id="steck full-rank",
        statement="For k = p and D = diag(1/(1 + lambda/sigma_i^2))^(1/2) applied to "
                  "A = B = V diag(1/(1 + lambda/sigma_i^2))^(1/2): B^(D) = V, so item-item "
                  "cosine is the identity; with D^-1 instead, user-user cosine is the "
                  "cosine of the rows of X.",
        hypotheses="k = p, lambda > 0",
        establishes="exactly, with square roots, on a rational instance: A B^T minimises "
                    "(1), B D^-1 = V and item-item cosine = I, user-item cosine = "
                    "row-normalised dot products (same item ranking per user), and with "
                    "D^-1: A D^-1 = V and user-user cosine of XV = cosine of the rows of X",
        runner="verify.claims.steck:run_full_rank",
        fixed=STECK_INSTANCES),
    Claim(
        id="steck eq2-unique",
        statement="Objective (2) |X - XAB^T|^2 + lambda (|XA|^2 + |B|^2) has minimiser "
                  "A = V_k diag(sqrt(sigma_i^-1 (1 - lambda/sigma_i)_+)), "
                  "B = V_k diag(sqrt(sigma_i (1 - lambda/sigma_i)_+)), unique up to a "
                  "rotation R, and cosine similarities are invariant under that rotation.",
        hypotheses="lambda > 0; R orthogonal",
        establishes="symbolic gradients and zero gradient at eq. 6; on a rational instance "
                    "with exact square roots: both gradients vanish, XAB^T is the "
                    "soft-thresholded SVD, the value beats the other stationary points, a "
                    "diagonal rescaling raises (2) while a rational rotation (Cayley) keeps "
                    "it and keeps all three cosine matrices exactly",
        runner="verify.claims.steck:run_eq2_unique",
        fixed=STECK_INSTANCES),
]}

CLAIMS: dict[str, Claim] = {i: _CLAIMS[i] for i in ORDER if i in _CLAIMS}
if set(CLAIMS) != set(_CLAIMS):  # a real check: `all` must not skip a claim under -O
    raise AssertionError("every registered claim has its place in ORDER")

KINDS = ("lemma", "theorem", "proposition", "example", "appendix", "steck")


def get_claim(kind: str, number: str) -> Claim:
    claim_id = f"{kind} {number}"
    if claim_id not in CLAIMS:
        known = ", ".join(CLAIMS)
        raise InputError(f"unknown claim {claim_id!r}; known claims: {known}")
    return CLAIMS[claim_id]
