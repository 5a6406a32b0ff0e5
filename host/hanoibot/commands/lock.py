"""``hanoibot lock``: play the twin-tower lock ("Светофор") in a terminal, or print how to open it (``--solve``)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from .plan_options import whole_number

if TYPE_CHECKING:
    from ..puzzle.lock import Lock

EPILOG = """rules (our reading of the seed; see README "The twin-tower lock"):
  Each element is red (R), yellow (Y) or green (G). The first button you press splits the row into a left and a
  right tower that share that element as their smallest disk (elements nearer the split are smaller). Pressing the
  split element steps it red -> yellow -> green -> red; pressing another element moves it to the one colour the
  Hanoi rules allow in its tower, or changes nothing. The lock opens when all elements show one colour.
  --rules pinaev-backward is the other reading: the split element steps red -> green -> yellow -> red.

examples:
  hanoibot lock                         a random 7-element lock; type a button number, q to give up
  hanoibot lock --length 5 --seed 42    the same lock every time
  hanoibot lock --lock RYGGR --solve    fewest presses (exact search up to 8 elements) and our strategy
  hanoibot lock --length 40 --solve     the strategy's press count for a long lock
  hanoibot lock --lock RYGGR --rules pinaev-backward --solve   the same lock under the other reading
"""

DEFAULT_LENGTH = 7
#: Buttons of a plan printed by --solve before "…".
SHOWN_PRESSES = 60


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``lock`` sub-command."""
    parser = subparsers.add_parser(
        "lock",
        help="play the twin-tower lock puzzle, or solve it",
        description="Open a lock whose colour elements behave like two shuffled Hanoi towers sharing one disk.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--length", metavar="N", help=f"number of elements, 2 to 64 (default {DEFAULT_LENGTH})")
    parser.add_argument("--seed", metavar="S", help="random seed of the lock (default: a fresh one, printed)")
    parser.add_argument(
        "--lock", dest="colours", metavar="COLOURS", help="the lock itself, e.g. RYGGR (or in peg letters, ACAAC)"
    )
    parser.add_argument("--solve", action="store_true", help="print the fewest presses and a strategy, do not play")
    parser.add_argument(
        "--rules",
        metavar="NAME",
        default="pinaev-forward",  # hanoibot.puzzle.lock.RULES, named here to keep start-up light
        help="which reading of the rules: pinaev-forward (default) or pinaev-backward",
    )
    parser.set_defaults(run=run)


def _make_lock(args: argparse.Namespace) -> tuple[Lock, int | None]:
    """The lock asked for (given colours, or random from the seed) and the seed used (None for given colours)."""
    import random

    from ..errors import PlanError
    from ..puzzle.lock import MAX_LENGTH, MIN_LENGTH, Lock, random_lock, rules_named

    rules = rules_named(args.rules)
    if args.colours is not None:
        if args.length is not None or args.seed is not None:
            raise PlanError(f"--lock {args.colours} names the lock: --length and --seed do not apply to it")
        return Lock.parse(args.colours, rules), None
    length = whole_number(args.length, "--length", minimum=MIN_LENGTH, maximum=MAX_LENGTH) or DEFAULT_LENGTH
    seed = whole_number(args.seed, "--seed", minimum=0)
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    return random_lock(length, seed, rules), seed


def _shown(buttons: list[int]) -> str:
    """Buttons as text, cut after :data:`SHOWN_PRESSES`."""
    text = " ".join(map(str, buttons[:SHOWN_PRESSES]))
    return text + (" …" if len(buttons) > SHOWN_PRESSES else "")


def solve(lock: Lock, out: TextIO) -> None:
    """Print the exact fewest presses (short locks) and the constructive strategy with its press count."""
    from itertools import islice

    from ..planner.lock import EXACT_MAX_LENGTH, fewest_presses, strategy
    from ..puzzle.lock import COLOUR_NAMES

    print(f"lock {lock.colours()} ({lock.length} elements), rules {lock.rules.name}", file=out)
    if lock.length <= EXACT_MAX_LENGTH:
        best = fewest_presses(lock)
        print(f"fewest presses: {len(best)} (exact search), first press {best[0]}: {_shown(best)}", file=out)
    else:
        print(f"fewest presses: not searched (exact search up to {EXACT_MAX_LENGTH} elements)", file=out)
    plan = strategy(lock)
    order = "left tower first" if plan.left_first else "right tower first"
    print(
        f"strategy: {plan.presses} presses, first press {plan.first_button}, all {COLOUR_NAMES[plan.target]}, "
        f"{order}: {_shown(list(islice(plan.buttons(), SHOWN_PRESSES + 1)))}",
        file=out,
    )


def _best_line(lock: Lock) -> str:
    """What the best possible was, for the closing line of a game."""
    from ..planner.lock import EXACT_MAX_LENGTH, fewest_presses, strategy

    if lock.length <= EXACT_MAX_LENGTH:
        return f"fewest possible: {len(fewest_presses(lock))}"
    return f"our strategy needs {strategy(lock).presses}"


def play(lock: Lock, source: TextIO, out: TextIO) -> int:
    """The game loop: show the lock, read a button per line, count presses. 0 when opened, 1 when given up."""
    from rich.console import Console

    from ..errors import HanoiError
    from ..render.lock_view import describe_press, lock_lines

    colour = out.isatty()
    console = Console(file=out, highlight=False) if colour else None
    start, presses = lock, 0
    print("press a button: type its number and Enter (q to give up)", file=out)
    while True:
        for line in lock_lines(lock, presses, colour=colour):
            if console is not None:
                console.print(line)
            else:
                print(line, file=out)
        if lock.is_open:
            print(f"open after {presses} presses ({_best_line(start)})", file=out)
            return 0
        print("button> ", end="", file=out, flush=True)
        answer = source.readline()
        if not answer or answer.strip().lower() in {"q", "quit"}:
            print(f"\nstill locked after {presses} presses ({_best_line(start)}; hanoibot lock --solve)", file=out)
            return 1
        try:
            button = int(answer.strip())
            after = lock.press(button)
        except (ValueError, HanoiError):
            print(f"no button {answer.strip()!r}: type a number from 1 to {lock.length}, or q", file=out)
            continue
        print(describe_press(lock, after, button), file=out)
        lock, presses = after, presses + 1


def run(args: argparse.Namespace) -> int:
    """Make the lock, then solve it (``--solve``) or play it on the terminal."""
    from ..puzzle.lock import RULES

    lock, seed = _make_lock(args)
    if args.solve:
        solve(lock, sys.stdout)
        return 0
    if seed is not None:
        again = f"--length {lock.length} --seed {seed}"
        if lock.rules != RULES:
            again += f" --rules {lock.rules.name}"
        print(f"lock seed {seed} (hanoibot lock {again} replays it)")
    return play(lock, sys.stdin, sys.stdout)
