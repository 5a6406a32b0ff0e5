"""Fault injection: each kind does what it says, at the rate asked, repeatably, whatever the chunking."""

from __future__ import annotations

import itertools
import math

import pytest
from hanoibot.errors import ConfigError
from hanoibot.sim.faults import ByteFaults, FaultSpec
from hypothesis import given
from hypothesis import strategies as st

PAYLOAD = bytes(range(32, 127)) * 2000  # 190 000 printable bytes, no line ends


def is_subsequence(short: bytes, long: bytes) -> bool:
    it = iter(long)
    return all(byte in it for byte in short)


def within_binomial(count: int, trials: int, p: float) -> bool:
    mean = trials * p
    return abs(count - mean) <= 6 * math.sqrt(trials * p * (1 - p)) + 1


@pytest.mark.parametrize("p", [1e-3, 1e-2])
def test_flip_changes_one_bit_of_about_p_of_the_bytes(p: float) -> None:
    out = ByteFaults(FaultSpec(flip=p, seed=1), stream="x").apply(PAYLOAD)
    assert len(out) == len(PAYLOAD)
    changed = [a ^ b for a, b in zip(PAYLOAD, out, strict=True) if a != b]
    assert all(bin(x).count("1") == 1 for x in changed)
    assert within_binomial(len(changed), len(PAYLOAD), p)


def test_drop_removes_about_p_of_the_bytes() -> None:
    faults = ByteFaults(FaultSpec(drop=1e-2, seed=2), stream="x")
    out = faults.apply(PAYLOAD)
    assert is_subsequence(out, PAYLOAD)
    assert within_binomial(len(PAYLOAD) - len(out), len(PAYLOAD), 1e-2)
    assert faults.counts["drop"] == len(PAYLOAD) - len(out)


def test_insert_adds_about_p_bytes() -> None:
    out = ByteFaults(FaultSpec(insert=1e-3, seed=3), stream="x").apply(PAYLOAD)
    assert is_subsequence(PAYLOAD, out)
    assert within_binomial(len(out) - len(PAYLOAD), len(PAYLOAD), 1e-3)


def test_dup_repeats_whole_frames_only() -> None:
    frames = [b"F,%d*x\n" % i for i in range(20000)]
    out = ByteFaults(FaultSpec(dup=0.01, seed=4), stream="x").apply(b"".join(frames))
    lines = out.splitlines(keepends=True)
    collapsed = [line for i, line in enumerate(lines) if i == 0 or line != lines[i - 1]]
    assert collapsed == frames
    assert within_binomial(len(lines) - len(frames), len(frames), 0.01)


def test_clean_spec_passes_everything() -> None:
    spec = FaultSpec()
    assert spec.is_clean
    assert ByteFaults(spec, stream="x").apply(PAYLOAD) == PAYLOAD


@given(
    data=st.binary(min_size=0, max_size=3000),
    cuts=st.lists(st.integers(0, 3000), max_size=8),
    seed=st.integers(0, 2**16),
)
def test_result_does_not_depend_on_chunking(data: bytes, cuts: list[int], seed: int) -> None:
    spec = FaultSpec(flip=0.05, drop=0.05, insert=0.05, dup=0.2, seed=seed)
    whole = ByteFaults(spec, stream="s").apply(data)
    chunked = ByteFaults(spec, stream="s")
    bounds = [0, *sorted(c for c in cuts if c <= len(data)), len(data)]
    pieces = [chunked.apply(data[a:b]) for a, b in itertools.pairwise(bounds)]
    assert b"".join(pieces) == whole


def test_directions_and_seeds_give_different_streams() -> None:
    spec = FaultSpec(flip=0.01, seed=5)
    a = ByteFaults(spec, stream="to_board").apply(PAYLOAD)
    b = ByteFaults(spec, stream="to_host").apply(PAYLOAD)
    c = ByteFaults(spec, stream="to_board").apply(PAYLOAD)
    assert a != b
    assert a == c


def test_options_are_parsed() -> None:
    spec = FaultSpec.from_options({"flip": "1e-3", "dup": "0.01", "seed": "7", "reset_after": "12"})
    assert spec == FaultSpec(flip=1e-3, dup=0.01, seed=7, reset_after=12)
    assert not spec.is_clean


@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({"flip": "x"}, "flip='x'"),
        ({"drop": "1"}, "drop='1'"),
        ({"insert": "-0.1"}, "insert='-0.1'"),
        ({"dup": "nan"}, "dup='nan'"),
        ({"seed": "-1"}, "seed='-1'"),
        ({"reset_after": "0"}, "reset_after='0'"),
        ({"reset_after": "2.5"}, "reset_after='2.5'"),
    ],
)
def test_bad_options_name_the_value(options: dict[str, str], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        FaultSpec.from_options(options)
