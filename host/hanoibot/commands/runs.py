"""``hanoibot runs [--port URL]``: the journaled runs in the state folder, newest first (:mod:`hanoibot.ops.journals`).

One line per run: how it ended, its moves done of planned, its port and its journal file. ``resume`` and
``home --clear`` without ``--journal`` go on from the newest one of their port that did not finish.
"""

from __future__ import annotations

import argparse
from typing import Any

EPILOG = """examples:
  hanoibot runs                         every journaled run, newest first
  hanoibot runs --port /dev/ttyACM0     the runs on one port
"""


def register(subparsers: Any) -> None:
    """Add the ``runs`` sub-command."""
    parser = subparsers.add_parser(
        "runs",
        help="list the journaled runs, newest first",
        description="List the runs journaled in the state folder (resume and home --clear find them there).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", metavar="URL", help="only the runs on this port")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per journaled run; returns 0 (also when there is none)."""
    from ..link.port_lock import port_key
    from ..ops.journals import list_runs, runs_dir

    runs = list_runs(args.port)
    if not runs:
        print(f"no journaled runs in {runs_dir()}" + (f" on {args.port}" if args.port else ""))
        return 0
    for entry in runs:
        port = port_key(entry.port) if entry.port else "?"
        print(f"{entry.ended:<10} {entry.moves_done:>6} of {entry.moves_total:<6} {port:<20} {entry.path}")
    return 0
