"""Stop the set-up early, with one clear line, if this Python is too old for hanoibot."""

import sys

if sys.version_info < (3, 11):  # noqa: UP036 - this file runs before the venv exists
    sys.exit(f"hanoibot needs Python 3.11 or newer; this is {sys.version.split()[0]} (set PYTHON=python3.11)")
