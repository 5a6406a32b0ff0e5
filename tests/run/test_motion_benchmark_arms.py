"""benchmarks/motion.py's arms: without --arm the default robot, with ``--arm all`` every preset, each with its own
robot config (its own speeds and IK, so its own bound; every shipped preset is a whole robot config, the MeArm's
included), each measured at the disk counts its board holds."""

from __future__ import annotations

from benchmark_scripts import load_benchmark
from hanoibot.arm import PRESET_NAMES
from hanoibot.config import load_config


def test_the_benchmark_measures_each_preset_with_its_own_config() -> None:
    bench = load_benchmark("motion")
    ((label, config, why_not),) = bench.arm_configs([])
    assert "robot.toml" in label and config == load_config() and why_not == ""
    arms = {label.removeprefix("preset "): (config, why_not) for label, config, why_not in bench.arm_configs(["all"])}
    assert list(arms) == list(PRESET_NAMES)
    mearm, why_not = arms["mearm"]
    assert mearm is not None and why_not == "" and mearm.channel_names() == ("base", "shoulder", "forearm", "claw")
    # The MeArm's board holds 5 disks: it is measured at 3 and at its full board, where its ratio goal applies.
    assert bench.disk_counts(mearm) == (3, 5) and bench.disk_counts(arms["so101"][0]) == bench.DISK_COUNTS
    so101, _ = arms["so101"]
    assert so101 is not None and so101.channel_names()[0] == "shoulder_pan" and so101.channels == 6
    bound_s = {
        name: bench.lower_bound_s(config, bench.planned_segments(config, 1))
        for name, (config, _) in arms.items()
        if config is not None
    }
    assert len(set(bound_s.values())) == len(bound_s), "each arm's bound is its own"
