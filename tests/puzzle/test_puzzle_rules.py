"""Rules: named variants, which peg pairs may exchange disks, what may land on what."""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import IllegalMove, PlanError, StateError
from hanoibot.puzzle import RULE_NAMES, Rules


@pytest.mark.parametrize("name", RULE_NAMES)
def test_names_round_trip(name: str) -> None:
    assert Rules.named(name, 4).name == name
    assert Rules.named(name, 4).pegs == 4


@pytest.mark.parametrize("pegs", [3, 4, 7])
def test_topologies(pegs: int) -> None:
    pairs = list(itertools.permutations(range(pegs), 2))
    classic, linear, cyclic = Rules(pegs), Rules.named("linear", pegs), Rules.named("cyclic", pegs)
    assert all(classic.allows(a, b) for a, b in pairs)
    assert {(a, b) for a, b in pairs if linear.allows(a, b)} == {(a, b) for a, b in pairs if abs(a - b) == 1}
    assert {(a, b) for a, b in pairs if cyclic.allows(a, b)} == {(i, (i + 1) % pegs) for i in range(pegs)}
    for rules in (classic, linear, cyclic):
        assert not rules.allows(0, 0) and not rules.allows(0, pegs) and not rules.allows(-1, 0)


def test_landing() -> None:
    classic, big = Rules(3), Rules.named("big-on-top")
    assert classic.may_land(2, None, 4) and classic.may_land(2, 3, 4) and not classic.may_land(3, 2, 4)
    assert big.may_land(4, 1, 4)  # the largest disk may sit on smaller ones
    assert not big.may_land(3, 1, 4)  # every other disk still needs a larger one
    assert big.may_land(3, 4, 4)


def test_check_move_messages() -> None:
    with pytest.raises(IllegalMove, match="disk 1 may not move from A to C under cyclic rules"):
        Rules.named("cyclic").check_move(1, 0, 2, None, 3)
    with pytest.raises(IllegalMove, match="disk 3 may not be put on smaller disk 2 on peg B"):
        Rules(3).check_move(3, 0, 1, 2, 3)
    Rules(3).check_move(1, 0, 1, 2, 3)


def test_bad_rules() -> None:
    with pytest.raises(PlanError, match="unknown rules 'spiral': expected one of classic, linear, cyclic, big-on-top"):
        Rules.named("spiral")
    with pytest.raises(PlanError, match="unknown move topology 'star'"):
        Rules(3, "star")
    with pytest.raises(StateError, match="peg count 30 is not supported: expected 3 to 26"):
        Rules(30)
    assert Rules(3, "cyclic", big_on_top=True).name == "cyclic+big-on-top"


def test_the_coloured_rules_let_a_disk_land_on_its_own_size_and_never_on_a_smaller_one() -> None:
    bicolor = Rules.coloured("bicolor")
    assert (bicolor.per_size, bicolor.name, bicolor.pegs) == (2, "bicolor", 3)
    # disks 1, 2 are size 1; 3, 4 size 2; 5, 6 size 3 (numbered size first)
    assert [bicolor.size_of(d) for d in range(1, 7)] == [1, 1, 2, 2, 3, 3]
    assert bicolor.may_land(2, 1, 6) and bicolor.may_land(1, 2, 6) and bicolor.may_land(4, 3, 6)
    assert bicolor.may_land(2, 3, 6) and not bicolor.may_land(3, 2, 6) and not bicolor.may_land(6, 4, 6)
    tricolor = Rules.coloured("tricolor")
    assert tricolor.may_land(3, 1, 6) and not tricolor.may_land(4, 3, 6)
    assert not Rules(3).may_land(2, 1, 6), "classic rules keep every disk number its own size"
    with pytest.raises(PlanError, match="'quadcolor'"):
        Rules.coloured("quadcolor")
    with pytest.raises(PlanError, match="combine"):
        Rules(3, "linear", per_size=2)
