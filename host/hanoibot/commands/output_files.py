"""Files that ``run`` and ``resume`` write (report, journal): checked before anything moves, written safely.

A run can take minutes; a report path in a missing directory must be refused before the first move, not found
out after the last one. A write that still fails at the end (disk full, directory removed) is one line on stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Protocol

from ..errors import OutputFileError


class Writable(Protocol):
    """Anything with ``write(path)``, such as :class:`hanoibot.run.runner.RunReport`."""

    def write(self, path: str | Path) -> None: ...


def check_output_file(path: str, option: str) -> None:
    """OutputFileError naming ``option`` and ``path`` unless a file can be written there now.

    The directory must exist and be writable; an existing file must be a writable regular file.
    """
    target = Path(path)
    directory = target.parent
    if target.is_dir():
        raise OutputFileError(f"{option} {path!r} is a directory: expected a file name")
    if not directory.is_dir():
        raise OutputFileError(f"{option} {path!r}: directory {str(directory)!r} does not exist")
    if target.exists():
        if not os.access(target, os.W_OK):
            raise OutputFileError(f"{option} {path!r} is not writable")
    elif not os.access(directory, os.W_OK | os.X_OK):
        raise OutputFileError(f"{option} {path!r}: directory {str(directory)!r} is not writable")


def write_report(report: Writable, path: str) -> bool:
    """Write ``report`` to ``path``; on an OSError print one line on stderr and return False."""
    try:
        report.write(path)
    except OSError as err:
        print(f"hanoibot: error: cannot write the report {path!r}: {err.strerror or err}", file=sys.stderr)
        return False
    return True
