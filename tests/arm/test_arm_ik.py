"""Tests of hanoibot.arm.ik: each preset's named family is what make_ik builds, every family has the one interface."""

from __future__ import annotations

import pytest
from hanoibot.arm import FAMILIES, InverseKinematics, NumericIK, ParallelogramIK, SerialPitchIK, load_preset, make_ik
from hanoibot.errors import ConfigError


def test_make_ik_builds_the_family_a_chain_names_or_the_one_asked_for() -> None:
    assert type(make_ik(load_preset("default").chain)) is SerialPitchIK
    assert type(make_ik(load_preset("mearm").chain)) is ParallelogramIK
    assert type(make_ik(load_preset("so101").chain, "numeric")) is NumericIK
    with pytest.raises(ConfigError, match="does not fit the parallelogram IK"):
        make_ik(load_preset("default").chain, "parallelogram")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_has_the_one_small_interface(family: str) -> None:
    chain = load_preset("mearm" if family == "parallelogram" else "default").chain
    ik: InverseKinematics = make_ik(chain, family)
    assert ik.chain is chain
    pitch = chain.grasp.pitch_deg
    angles = ik.solve((170.0, 0.0, 20.0), pitch, chain.middle_pose())
    assert len(angles) == len(chain.joints)
