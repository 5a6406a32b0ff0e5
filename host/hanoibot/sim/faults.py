"""Fault injection for the simulated wire: bit flips, dropped and inserted bytes, duplicated frames, a reboot.

The same options are read from a ``sim://`` URL query and from ``hanoibot emulate`` flags, so one
:class:`FaultSpec` describes both. Each direction of the wire gets its own :class:`ByteFaults` with its own
random stream derived from the seed, so a run is repeatable. Byte faults are placed by drawing the gap to the next
faulty byte from a geometric distribution, which costs nothing for the bytes in between (the hot path of a
10 000-command test stays fast).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..errors import ConfigError

#: Callback told about each injected fault: (fault kind, number of bytes or frames it touched).
FaultListener = Callable[[str, int], None]

_PROBABILITIES = ("flip", "drop", "insert", "dup")
#: Longest run of bytes kept for duplication before it is treated as noise.
_MAX_FRAME_BYTES = 4096


class FaultSpec(NamedTuple):
    """What to inject. Probabilities are per byte (flip, drop, insert) or per frame (dup), each in [0, 1)."""

    flip: float = 0.0
    drop: float = 0.0
    insert: float = 0.0
    dup: float = 0.0
    seed: int = 0
    reset_after: int | None = None

    @property
    def is_clean(self) -> bool:
        """True when nothing is injected at all."""
        return not any(getattr(self, name) for name in _PROBABILITIES) and self.reset_after is None

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> FaultSpec:
        """Parse the fault options of a URL query or command line (strings); ConfigError names a bad one."""
        values: dict[str, float | int | None] = {}
        for name in _PROBABILITIES:
            if name in options:
                values[name] = _probability(name, options[name])
        if "seed" in options:
            values["seed"] = _integer("seed", options["seed"], minimum=0)
        if "reset_after" in options:
            values["reset_after"] = _integer("reset_after", options["reset_after"], minimum=1)
        return cls(**values)  # type: ignore[arg-type]


def _probability(name: str, text: str) -> float:
    """``text`` as a probability in [0, 1); ConfigError otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value < 1.0:
        raise ConfigError(f"fault option {name}={text!r} is invalid: expected a probability in [0, 1)")
    return value


def _integer(name: str, text: str, *, minimum: int) -> int:
    """``text`` as an integer >= ``minimum``; ConfigError otherwise."""
    try:
        value = int(text)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise ConfigError(f"fault option {name}={text!r} is invalid: expected an integer >= {minimum}")
    return value


class ByteFaults:
    """Corrupts one direction of a byte stream as a :class:`FaultSpec` says (reset_after is not handled here).

    Each fault kind draws from its own random stream in stream order, so the result does not depend on how the
    data is split into :meth:`apply` calls.
    """

    def __init__(self, spec: FaultSpec, *, stream: str, listener: FaultListener | None = None) -> None:
        self._spec = spec
        self._rngs = {name: random.Random(f"{spec.seed}:{stream}:{name}") for name in _PROBABILITIES}
        self._listener = listener
        self._partial = bytearray()
        self._skip = {name: self._gap(name) - 1 for name in ("flip", "drop", "insert")}
        self.counts = dict.fromkeys(_PROBABILITIES, 0)

    def apply(self, data: bytes) -> bytes:
        """The bytes that arrive at the far end when ``data`` is sent (frames end at ``\\n``)."""
        spec = self._spec
        if spec.dup:
            data = self._duplicate_frames(data)
        if not (spec.flip or spec.drop or spec.insert):
            return data
        buffer = bytearray(data)
        if spec.drop:
            for pos, _value in reversed(self._hits("drop", len(buffer))):
                del buffer[pos]
        if spec.flip:
            for pos, value in self._hits("flip", len(buffer)):
                buffer[pos] ^= 1 << (value & 7)
        if spec.insert:
            for pos, value in reversed(self._hits("insert", len(buffer))):
                buffer.insert(pos, value)
        return bytes(buffer)

    def _duplicate_frames(self, data: bytes) -> bytes:
        """Send some complete frames twice; bytes of an unfinished frame go out at once, only the copy waits."""
        out = bytearray()
        start = 0
        rng = self._rngs["dup"]
        while (end := data.find(b"\n", start)) >= 0:
            piece = data[start : end + 1]
            out += piece
            self._partial += piece
            if rng.random() < self._spec.dup:
                out += self._partial
                self._count("dup", 1)
            self._partial.clear()
            start = end + 1
        tail = data[start:]
        out += tail
        self._partial += tail
        if len(self._partial) > _MAX_FRAME_BYTES:
            # Noise without line ends is not a frame; do not let it grow without bound.
            self._partial.clear()
        return bytes(out)

    def _hits(self, kind: str, length: int) -> list[tuple[int, int]]:
        """(index, random byte) for each byte of a ``length``-byte buffer hit by ``kind``; gaps carry over."""
        pos = self._skip[kind]
        rng = self._rngs[kind]
        hits: list[tuple[int, int]] = []
        while pos < length:
            hits.append((pos, rng.randrange(256)))
            pos += self._gap(kind)
        self._skip[kind] = pos - length
        if hits:
            self._count(kind, len(hits))
        return hits

    def _gap(self, kind: str) -> int:
        """Bytes from one faulty byte to the next (>= 1), geometric with the kind's per-byte probability."""
        probability: float = getattr(self._spec, kind)
        if probability <= 0.0:
            return 1 << 62
        return 1 + int(math.log(1.0 - self._rngs[kind].random()) / math.log(1.0 - probability))

    def _count(self, kind: str, number: int) -> None:
        """Tally a fault and tell the listener."""
        self.counts[kind] += number
        if self._listener is not None:
            self._listener(kind, number)
