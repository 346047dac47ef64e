"""``python -m verify.checker FILE...``: the independent certificate checker."""

import sys

from verify.checker.core import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
