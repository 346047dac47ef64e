"""``python -m verify``: dispatch without importing the engine's libraries first.

The certificate checker (``python -m verify check FILE...``) must run with the standard
library alone, so it is dispatched before anything imports python-flint, numpy, sympy,
pulp or networkx.
"""

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["check"] and any(a == "--matrix" or a.startswith("--matrix=")
                                     for a in argv[1:]):
        # Reading the user's head (any format analyze reads) needs the engine's readers.
        from verify.cli import check_against_matrix

        return check_against_matrix(argv[1:])
    if argv[:1] == ["check"]:
        from verify.checker.core import main as check_main

        return check_main(argv[1:])
    from verify.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
