"""``python -m hanoibot`` is the same as the ``hanoibot`` command."""

import sys

from .cli import main

sys.exit(main())
