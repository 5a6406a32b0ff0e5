"""No 4-tuple of joints left (issue 32): motion, run and sim take the arm model's N joints, so none of them may
count joints or know which channel the gripper is on. The arm is a chain in the robot config (:mod:`hanoibot.arm`);
the channels are its servos in wire order, then the gripper at ``RobotConfig.gripper_channel``.

The check reads the source with ``ast`` and names each line that assumes the old arm: a ``JointAngles(...)`` built
field by field, a channel picked or sliced by a literal index (``pulses_us[4]``, ``pose[:4]``), the gripper taken as
the last pulse (``pulses_us[-1]``), a channel compared with a literal (``channel >= 4``), ``range(4)``, a constant,
default or keyword that fixes a channel or joint count (``JOINT_CHANNELS = 4``, ``channels: int = 5``), a tuple
type of four or more alike (``tuple[Servo, Servo, Servo, Servo]``), or the default arm's joint names spelled out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "host" / "hanoibot"
#: The layers that must take the arm's N joints (the issue's list; the arm room itself counts a chain's joints).
CHECKED = ("motion", "run", "sim")
#: Folders left out, and why: the virtual Pico runs the shipped firmware and its board_config.py (their wiring is
#: the board's, set in firmware_micropython/board_config.py, not the arm's).
LEFT_OUT = ("sim/vpico",)
#: Lines allowed, as ``path: source`` (path below host/hanoibot), each with the reason. The simulated board's
#: output count when no robot config says (a bare board): the shipped firmware's, which a test keeps equal to it.
ALLOWED = {"sim/board.py: SHIPPED_BOARD_CHANNELS = 5"}
#: The default arm's joint names: a tuple of three or more of them spells out a joint order.
JOINT_WORDS = frozenset({"base", "shoulder", "elbow", "wrist"})
#: Literal indexes that pick an arm channel by number (0-2 pick coordinates, pairs and triples too often to tell).
CHANNEL_INDEXES = range(3, 8)
#: ``range(n)`` over as many channels as an arm has.
COUNTS = [[n] for n in CHANNEL_INDEXES]
#: What a pose, its pulses or its angles are called (a literal index into one of them picks a channel or joint).
POSE_NAME = re.compile(r"pulse|angle|servo|joint|pose|target|channel|output|_us$|_deg$")


def _int(node: ast.AST | None) -> int | None:
    """The value of an integer literal (``-1`` included), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _name(node: ast.AST) -> str:
    """The last name of ``node`` (``config.pulses_us`` -> ``pulses_us``), lower case; '' for anything else."""
    if isinstance(node, ast.Name):
        return node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    if isinstance(node, ast.Call):
        return _name(node.func)
    return ""


def _counts(name: str) -> bool:
    """True for a name about channels or joints (``JOINT_CHANNELS``, ``channels``, ``grip_channel``)."""
    return "channel" in name or "joint" in name


def _has_int(node: ast.AST) -> bool:
    """True if an integer literal of 2 or more appears anywhere in ``node``."""
    return any(v is not None and v >= 2 for v in map(_int, ast.walk(node)))


def _problem(node: ast.AST) -> str | None:
    """Why ``node`` assumes the old 4-joint arm, or None."""
    if isinstance(node, ast.Call) and _name(node.func) == "jointangles":
        return "builds JointAngles field by field"
    if isinstance(node, ast.Call) and _name(node.func) == "range" and [_int(a) for a in node.args] in COUNTS:
        return "counts to a fixed number of channels"
    if isinstance(node, ast.Subscript):
        index, owner = node.slice, _name(node.value)
        bounds = [index.lower, index.upper] if isinstance(index, ast.Slice) else [index]
        values = [_int(b) for b in bounds if b is not None]
        if any(v in CHANNEL_INDEXES for v in values) and POSE_NAME.search(owner):
            return "picks a channel by a literal index"
        if "pulse" in owner and any(v is not None and v < 0 for v in values):
            return "takes the gripper as the last pulse"
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        if any(_counts(_name(s)) for s in sides) and any(_int(s) not in (None, -1, 0, 1) for s in sides):
            return "compares a channel with a literal"
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        fixed = node.value is not None and (
            _int(node.value) is not None or (isinstance(node.value, ast.Tuple) and _has_int(node.value))
        )
        if fixed and any(_counts(_name(t)) for t in targets):
            return "fixes a channel or joint count"
    if isinstance(node, ast.arguments):
        positional = [*node.posonlyargs, *node.args]
        pairs = list(zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True))
        pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
        if any(_counts(arg.arg.lower()) and _int(default) not in (None, 0, -1) for arg, default in pairs):
            return "defaults a channel count"
    if isinstance(node, ast.keyword) and node.arg is not None and _counts(node.arg.lower()) and _has_int(node.value):
        return "passes a fixed channel count"
    if isinstance(node, ast.Subscript) and _name(node.value) == "tuple" and isinstance(node.slice, ast.Tuple):
        kinds = [ast.unparse(e) for e in node.slice.elts]
        if len(kinds) >= 4 and len(set(kinds)) == 1 and kinds[0] != "...":
            return "types a fixed number of alike channels"
    if isinstance(node, ast.Tuple | ast.List):
        words = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        if len(words & JOINT_WORDS) >= 3:
            return "spells out the default arm's joints"
    return None


def joint_count_assumptions(root: Path, folders: tuple[str, ...], left_out: tuple[str, ...] = ()) -> list[str]:
    """Every line under ``root``/``folders`` (not ``left_out``) that assumes a joint count or the gripper's channel,
    as ``path:line: source  (why)``, except :data:`ALLOWED`."""
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if any(where.startswith(prefix + "/") for prefix in left_out):
                continue
            source = path.read_text(encoding="utf-8")
            for node in ast.walk(ast.parse(source)):
                why = _problem(node)
                if why is None:
                    continue
                line = ast.get_source_segment(source, node) or ""
                line = " ".join(line.split())
                statement = _statement(source, node)
                if f"{where}: {statement}" in ALLOWED:
                    continue
                found.append(f"{where}:{_line(node)}: {line[:80]}  ({why})")
    return found


def _line(node: ast.AST) -> int:
    """The line ``node`` starts on (a function's arguments: their first's)."""
    return next((n.lineno for n in ast.walk(node) if isinstance(getattr(n, "lineno", None), int)), 0)


def _statement(source: str, node: ast.AST) -> str:
    """The source line ``node`` starts on, stripped, without its comment."""
    lineno = _line(node)
    text = source.splitlines()[lineno - 1] if lineno else ""
    return text.split("  #")[0].strip()


def test_motion_run_and_sim_count_no_joints_and_do_not_know_the_grippers_channel() -> None:
    assert joint_count_assumptions(PACKAGE, CHECKED, LEFT_OUT) == []


def test_the_shipped_boards_channels_are_the_firmwares() -> None:
    from hanoibot.sim.board import SHIPPED_BOARD_CHANNELS

    board_config = (ROOT / "firmware_micropython" / "board_config.py").read_text(encoding="utf-8")
    match = re.search(r"(?m)^CHANNELS = (\d+)", board_config)
    assert match is not None and int(match.group(1)) == SHIPPED_BOARD_CHANNELS


def test_each_kind_of_assumption_is_found(tmp_path: Path) -> None:
    # The 4-joint arm as hanoibot had it before issue 32, one line per way it showed.
    (tmp_path / "motion").mkdir()
    (tmp_path / "motion" / "old.py").write_text(
        "JOINT_CHANNELS = 4\n"
        "JOINT_NAMES = ('base', 'shoulder', 'elbow', 'wrist')\n"
        "def f(config, pulses_us, angles, channel, channels: int = 5):\n"
        "    a = JointAngles(1.0, 2.0, 3.0, 4.0)\n"
        "    g = pulses_us[4]\n"
        "    j = pulses_us[:4]\n"
        "    last = pulses_us[-1]\n"
        "    if channel >= 4:\n"
        "        pass\n"
        "    for c in range(4):\n"
        "        pass\n"
        "    board = make(channels=5)\n"
        "    servos: tuple[Servo, Servo, Servo, Servo] = config.servos\n"
        "    ok = (pulses_us[config.gripper_channel], angles[0], pulses_us[c], range(len(config.servos)))\n"
        "    return a, g, j, last, board, servos, ok\n",
        encoding="utf-8",
    )
    found = joint_count_assumptions(tmp_path, ("motion",))
    reasons = [line.rsplit("(", 1)[1].rstrip(")") for line in found]
    assert sorted(reasons) == sorted(
        [
            "fixes a channel or joint count",
            "spells out the default arm's joints",
            "defaults a channel count",
            "builds JointAngles field by field",
            "picks a channel by a literal index",
            "picks a channel by a literal index",
            "takes the gripper as the last pulse",
            "compares a channel with a literal",
            "counts to a fixed number of channels",
            "passes a fixed channel count",
            "types a fixed number of alike channels",
        ]
    ), found
    assert all(":14:" not in line for line in found), "indexes by name, a coordinate and counting servos are fine"
