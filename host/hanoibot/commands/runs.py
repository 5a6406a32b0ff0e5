"""``hanoibot runs [--port URL]``: the journaled runs in the state folder, newest first (:mod:`hanoibot.ops.journals`).

A header, then one line per run: when it started (local time), how it ended, its moves done of planned, its port
as it was given (a link path, not the pty behind it; a URL without the options the run added) and its journal
file. ``resume`` and ``home --clear`` without ``--journal`` go on from the newest one of their port that did not
finish: the port of the rule every command follows (``--port``, ``HANOIBOT_PORT``, ``hanoibot init``'s,
``sim://``); that run is marked ``*`` and the last line says which port that is and why.
"""

from __future__ import annotations

import argparse
from typing import Any

EPILOG = """examples:
  hanoibot runs                         every journaled run, newest first; * marks the one resume goes on from
  hanoibot runs --port /dev/ttyACM0     the runs on one port
"""

#: The columns' titles and widths (the journal's path comes last, unpadded).
COLUMNS = (("started", 19), ("ended", 10), ("moves", 15), ("port", 20))


def register(subparsers: Any) -> None:
    """Add the ``runs`` sub-command."""
    parser = subparsers.add_parser(
        "runs",
        help="list the journaled runs, newest first",
        description="List the runs journaled in the state folder (resume and home --clear find them there).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--port",
        metavar="URL",
        help="only the runs on this port (default: every run; * marks the one resume takes on the default port)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the header and one line per journaled run; returns 0 (also when there is none)."""
    from ..config.user import resolve_port_from
    from ..ops.journals import latest_stopped, list_runs, runs_dir

    runs = list_runs(args.port)
    if not runs:
        print(f"no journaled runs in {runs_dir()}" + (f" on {args.port}" if args.port else ""))
        return 0
    port, why = resolve_port_from(args.port)
    next_run = latest_stopped(port)
    print("  " + "  ".join(f"{title:<{width}}" for title, width in COLUMNS) + "  journal")
    for entry in runs:
        started = entry.started.astimezone().strftime("%Y-%m-%d %H:%M:%S") if entry.started else "?"
        moves = f"{entry.moves_done} of {entry.moves_total}"
        mark = "*" if next_run is not None and entry.path == next_run.path else " "
        cells = (started, entry.ended, moves, entry.port_name or "?")
        line = "  ".join(f"{cell:<{width}}" for cell, (_, width) in zip(cells, COLUMNS, strict=True))
        print(f"{mark} {line}  {entry.path}")
    if next_run is not None:
        print(f"* hanoibot resume goes on from this run: the newest stopped one on {port} ({why})")
    else:
        print(f"hanoibot resume has nothing to go on from on {port} ({why}): its newest run finished, or it has none")
    return 0
