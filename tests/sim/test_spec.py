"""The simulator spec (hanoibot.sim.spec): a sim:// or vpico:// URL and back, exactly; options added only where
not given, one-off faults dropped; bad URLs named."""

from __future__ import annotations

import pytest
from hanoibot.errors import ConfigError
from hanoibot.sim_url import ONE_OFF_OPTIONS, SimSpec
from hypothesis import given
from hypothesis import strategies as st

VALUES = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@given(
    st.sampled_from(["sim", "vpico"]),
    st.dictionaries(st.sampled_from(["flip", "seed", "board", "config", "rules", "speed"]), VALUES, max_size=5),
)
def test_a_spec_and_its_url_round_trip(scheme: str, options: dict[str, str]) -> None:
    spec = SimSpec(scheme, tuple(options.items()))
    assert SimSpec.from_url(spec.to_url()) == spec


def test_other_ports_have_no_spec() -> None:
    assert SimSpec.from_url("/dev/ttyACM0") is None and SimSpec.from_url("socket://localhost:7") is None


def test_placing_the_disks_keeps_what_the_url_says() -> None:
    spec = SimSpec.from_url("sim://?seed=7&board=ABC")
    assert spec is not None
    placed = spec.with_defaults(board="AAA", rules="classic", config=None)
    assert placed.to_url() == "sim://?seed=7&board=ABC&rules=classic"
    assert placed.seed == 7


def test_a_resumed_board_drops_the_one_off_faults() -> None:
    spec = SimSpec.from_url("sim://?reset_after=40&flip=0.01&board=CCC")
    assert spec is not None and ONE_OFF_OPTIONS == ("reset_after",)
    assert spec.without("board", *ONE_OFF_OPTIONS).to_url() == "sim://?flip=0.01"


@pytest.mark.parametrize(
    ("url", "word"),
    [
        ("sim://?flop=1", "'flop' is unknown"),
        ("sim://?seed=1&seed=2", "'seed' is given twice"),
        ("vpico://?realtime=yes", "realtime='yes'"),
        ("sim://host/path", "not a sim:// URL"),
        ("vpico://?reset_after=3", "'reset_after' is unknown"),
    ],
)
def test_bad_urls_name_the_problem(url: str, word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        SimSpec.from_url(url)


def test_an_attached_board_takes_only_the_wire_s_options_and_keeps_its_disks() -> None:
    """A board served by ``hanoibot emulate --pico --chip-time`` has its own world: the URL may add wire faults and
    a seed, nothing of the board's, and a run's start state is not written into it (the board keeps its disks)."""
    from hanoibot.puzzle import State
    from hanoibot.run.board_setup import sim_port_url

    spec = SimSpec.from_url("vpico://?attach=/tmp/pico.sock&flip=1e-3&seed=4")
    assert spec is not None and spec.is_attached
    assert sim_port_url(spec.to_url(), State.parse("AAA"), "robot.toml") == spec.to_url()
    with pytest.raises(ConfigError, match="'board' cannot go with attach"):
        SimSpec.from_url("vpico://?attach=/tmp/pico.sock&board=AAA")


@pytest.mark.parametrize(
    ("url", "word"),
    [("vpico://?slow=3", "add realtime=1"), ("vpico://?rerun=x", "rerun='x'")],
)
def test_vpico_options_that_need_another_say_so(url: str, word: str) -> None:
    from hanoibot.sim.vpico.options import parse_vpico_url

    with pytest.raises(ConfigError, match=word):
        parse_vpico_url(url)
