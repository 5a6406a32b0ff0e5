"""Files that ``run``, ``resume`` and ``render`` write (report, journal, picture): checked before anything moves,
written safely.

A run can take minutes; a report path in a missing directory must be refused before the first move, not found
out after the last one. A write that still fails at the end (disk full, directory removed) is one line on stderr.

One rule for a file that already exists: it is refused, never replaced, unless the command was given ``--force``
(a command without that option never replaces one). The journal is never replaced at all: it is what ``resume``
continues from (:meth:`hanoibot.run.journal.Journal.create` says so, naming ``resume``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from ..errors import OutputFileError


class Writable(Protocol):
    """Anything with ``write(path)``, such as :class:`hanoibot.run.runner.RunReport`."""

    def write(self, path: str | Path) -> None: ...


#: Kernel file systems: their files look writable but are not places for a report or a journal.
KERNEL_DIRS = ("/proc", "/sys")


def check_output_file(path: str, option: str) -> None:
    """OutputFileError naming ``option`` and ``path`` unless a file can be written there now.

    The name must not be empty; the directory must exist and be writable; an existing file must be a writable
    regular file (not a device such as ``/dev/full``) outside the kernel's ``/proc`` and ``/sys``.
    """
    if not path.strip():
        raise OutputFileError(f"{option} {path!r} is empty: expected a file name")
    target = Path(path)
    directory = target.parent
    real = os.path.realpath(target)
    if any(real == top or real.startswith(top + "/") for top in KERNEL_DIRS):
        raise OutputFileError(f"{option} {path!r} is inside {real.split('/')[1]!r}: expected an ordinary file")
    if target.exists() and not target.is_dir() and not stat.S_ISREG(target.stat().st_mode):
        raise OutputFileError(f"{option} {path!r} is not a regular file: expected an ordinary file name")
    if target.is_dir():
        raise OutputFileError(f"{option} {path!r} is a directory: expected a file name")
    if not directory.is_dir():
        raise OutputFileError(f"{option} {path!r}: directory {str(directory)!r} does not exist")
    if target.exists():
        if not os.access(target, os.W_OK):
            raise OutputFileError(f"{option} {path!r} is not writable")
    elif not os.access(directory, os.W_OK | os.X_OK):
        raise OutputFileError(f"{option} {path!r}: directory {str(directory)!r} is not writable")


#: Outputs with a rule of their own for an existing file (see the module's docstring).
OWN_EXISTS_RULE = ("--journal",)


def check_not_there(path: str, option: str, force: bool | None) -> None:
    """OutputFileError when ``path`` exists and may not be replaced: ``force`` True replaces it; False means
    ``--force`` was not given; None that the command has no ``--force`` (then it is never replaced)."""
    if force or not Path(path).exists():
        return
    how = "a new file name, or --force to replace it" if force is not None else "a new file name (or delete it)"
    raise OutputFileError(f"{option} {path!r} already exists: expected {how}")


def check_output_paths(
    outputs: Mapping[str, str | None],
    inputs: Mapping[str, str | None] | None = None,
    *,
    force: bool | None = None,
) -> None:
    """Check every given output path (option -> path; None: not asked for) with :func:`check_output_file`, that
    none exists unless ``force`` (:func:`check_not_there`), and that no two of them, nor an output and an input
    (a file the command reads), are the same file."""
    seen: dict[str, str] = {}
    for option, path in (inputs or {}).items():
        if path:
            seen.setdefault(os.path.realpath(path), option)
    for option, path in outputs.items():
        if path is None:
            continue
        check_output_file(path, option)
        key = os.path.realpath(path)
        if key in seen:
            raise OutputFileError(f"{option} {path!r} is the same file as {seen[key]}: expected a different path")
        seen[key] = option
        if option not in OWN_EXISTS_RULE:
            check_not_there(path, option, force)


def write_report(report: Writable, path: str) -> bool:
    """Write ``report`` to ``path``; on an OSError print one line on stderr and return False."""
    try:
        report.write(path)
    except OSError as err:
        print(f"hanoibot: error: cannot write the report {path!r}: {err.strerror or err}", file=sys.stderr)
        return False
    return True
