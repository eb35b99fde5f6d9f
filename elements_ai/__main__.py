"""``python -m elements_ai``: the ``elements-ai`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
