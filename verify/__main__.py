"""``python -m verify``: dispatch without importing the engine's libraries first.

The certificate checker (``python -m verify check``) must run with the standard library
alone, so nothing here imports python-flint, numpy, sympy, pulp or networkx.
"""

import sys


def main() -> int:
    from verify.cli import main as cli_main

    return cli_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
