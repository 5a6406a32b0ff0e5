"""The host compares the board's words, the kinds of frames and the board's error codes as typed members, never as
text (issue 36: "typed once beside the codec"). The words are the codec's constants (hanoifw/protocol.py); the host
types them in link/status.py (mode, faults, grip, rail) and link/codes.py (frame kinds, error codes).

The check parses each module (``ast``) and finds a word written as a string or bytes literal where it is compared
(``==``, ``!=``, ``in``, ``is``), matched (``case``), used as the head of a line (``startswith(b"HELLO,")``) or as
the key of a table whose keys are all such words.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hanoifw import protocol

HOST = Path(__file__).resolve().parents[1] / "host" / "hanoibot"

#: Every word the board and the host exchange that the host must compare typed.
WORDS = frozenset(
    {
        *protocol.MODES,
        *protocol.FAULTS,
        *protocol.GRIPS,
        *protocol.RAILS,
        *protocol.IMMEDIATE_KINDS,
        *protocol.RELIABLE_KINDS,
        protocol.HELLO,
        protocol.ACK,
        protocol.DONE,
        protocol.ERROR,
        protocol.PONG,
        *(value for name, value in vars(protocol).items() if name.startswith("E_")),
    }
)


def _literals(node: ast.AST | None) -> list[str]:
    """The string and bytes literals ``node`` is, or holds as a tuple, list or set (bytes decoded)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
        return [node.value.decode("ascii", "replace")]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [text for element in node.elts for text in _literals(element)]
    return []


def _words_in(node: ast.AST) -> list[str]:
    """The words ``node`` compares, matches, looks for at a line's head, or keys a table by, as text."""
    if isinstance(node, ast.Compare):
        return [text for operand in (node.left, *node.comparators) for text in _literals(operand) if text in WORDS]
    if isinstance(node, ast.MatchValue):
        return [text for text in _literals(node.value) if text in WORDS]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith":
        return [text for arg in node.args for text in _literals(arg) if text.split(",")[0] in WORDS]
    if isinstance(node, ast.Dict) and node.keys:
        keys = [text for key in node.keys for text in _literals(key)]
        if len(keys) == len(node.keys) and all(key in WORDS for key in keys):
            return keys
    return []


def words_compared_as_text(source: str) -> list[tuple[int, str]]:
    """(line, word) for every word of :data:`WORDS` the module ``source`` compares as a literal, in line order."""
    found = [(node.lineno, word) for node in ast.walk(ast.parse(source)) for word in _words_in(node)]
    return sorted(found)


def test_the_host_never_compares_a_board_word_a_frame_kind_or_an_error_code_as_text() -> None:
    found = [
        f"{path.relative_to(HOST)}:{line}: {word}"
        for path in sorted(HOST.rglob("*.py"))
        for line, word in words_compared_as_text(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_finds_each_way_of_comparing_a_word_as_text() -> None:
    source = "\n".join(
        [
            'if err.code != "FAULTED": pass',  # 1: an error code
            'if status.grip == "none": pass',  # 2: a grip word
            'if kind in ("DONE", "ACK"): pass',  # 3: frame kinds, two of them
            'if b"HELLO" in console: pass',  # 4: a frame kind as bytes
            'if line.startswith(b"PONG,"): pass',  # 5: a line's head
            'WORDS = {"ESTOP": "stopped", "HOST_LOST": "lost"}',  # 6: a table keyed by fault names
            "match status.mode:",  # 7
            '    case "HELD": pass',  # 8: a mode matched
            "if err.code == ErrorCode.FAULTED and status.grip is Grip.NONE: pass",  # typed: fine
            'print("DONE", {"held": True, "port": "sim://"})',  # not compared; a field named like a word: fine
            'if answer == "yes": pass',  # not a board word: fine
        ]
    )
    assert words_compared_as_text(source) == [
        (1, "FAULTED"),
        (2, "none"),
        (3, "ACK"),
        (3, "DONE"),
        (4, "HELLO"),
        (5, "PONG,"),
        (6, "ESTOP"),
        (6, "HOST_LOST"),
        (8, "HELD"),
    ]


def test_the_typed_kinds_and_codes_are_the_codecs_every_one() -> None:
    from hanoibot.link.codes import ErrorCode, Kind

    kinds = {*protocol.IMMEDIATE_KINDS, *protocol.RELIABLE_KINDS, *protocol.FIELD_NAMES}
    codes = {value for name, value in vars(protocol).items() if name.startswith("E_")}
    assert {kind.value for kind in Kind} == kinds
    assert {code.value for code in ErrorCode} == codes
    assert Kind.HELLO.starts(b"HELLO,3,0,5") and not Kind.HELLO.starts(b"HELLOX,3") and not Kind.DONE.starts(b"DON")
